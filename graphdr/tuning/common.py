r"""Shared pieces of the choices from the data: the grids, parameter checks, the median-heuristic width,
the exact McNemar test and the checkpoint rule of the iterative estimators."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.stats import binom

from ..blocks.sampling import row_keys, smallest_keys
from ..blocks.stats import is_dask_array

#: multiples of the median-heuristic width searched by ``gamma='auto'`` (class-structured
#: estimators: down to the linear limit)
GAMMA_FACTORS = 4.0 ** np.arange(-5, 2)
#: ridge values searched by ``reg='auto'`` (class-structured estimators)
REG_GRID = 10.0 ** np.arange(-6.0, 2.25, 0.5)
#: inner folds and subsample size of the class-structured search
N_FOLDS = 3
MAX_SAMPLES = 600
#: the cheaper search of estimators that are refitted for every pair
GAMMA_FACTORS_REFIT = 2.0 ** np.arange(-3, 4)
REG_GRID_REFIT = 10.0 ** np.arange(-6.0, 0.5, 1.5)
N_FOLDS_REFIT = 3
MAX_SAMPLES_REFIT = 500

#: kernels with a width that ``gamma`` sets
WIDTH_KERNELS = ("rbf", "laplacian", "chi2", "poly", "sigmoid")


def check_auto(value, name, *, allow_none=False):
    """``value`` is 'auto', a positive finite number (or zero for reg), or None if allowed."""
    if isinstance(value, str) and value == "auto":
        return value
    if value is None and allow_none:
        return value
    zero_ok = name == "reg"
    if (not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value)
            or value < 0 or (value == 0 and not zero_ok)):
        allowed = "'auto' or a number >= 0" if zero_ok else (
            "'auto', None or a positive number" if allow_none else "'auto' or a positive number")
        raise ValueError(f"{name} must be {allowed}; got {value!r}.")
    return value


def check_significance(value, *, allow_none=False):
    """``value`` is a level in (0, 1] (or None if allowed) for :func:`choose_checkpoint`."""
    if value is None and allow_none:
        return value
    if (not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value)
            or not 0.0 < value <= 1.0):
        allowed = "a float in (0, 1] or None" if allow_none else "a float in (0, 1]"
        raise ValueError(f"significance must be {allowed}; got {value!r}.")
    return float(value)


def mcnemar_pvalue(b, c):
    r"""Two-sided exact McNemar p-value of ``b`` against ``c`` discordant pairs.

    Under the null hypothesis (both classifiers equally accurate) each of the ``b + c``
    discordant samples is, independently, a win for either with probability 1/2:
    :math:`p = \min\{1,\ 2 P(B \ge \max(b, c))\}` with :math:`B \sim
    \operatorname{Bin}(b + c, 1/2)`. The exact form rather than the normal approximation
    :math:`|c - b| / \sqrt{b + c}`, which is too liberal for the few discordant samples of a
    small validation fold (e.g. ``b = 0, c = 4``: 0.046 approximated, 0.125 exact).
    """
    n = int(b) + int(c)
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom.sf(max(int(b), int(c)) - 1, n, 0.5)))


def choose_checkpoint(wrong, significance=0.05):
    """Index of the candidate kept over the start (column 0) of ``wrong``.

    ``wrong`` is ``(n_samples, n_candidates)`` bool: which held-out samples each candidate
    embedding misclassifies, column 0 being the starting point of an optimisation. The
    candidate with the fewest errors (the earliest on ties) replaces the start only if it wins
    the exact McNemar test against it at the level ``significance`` (:func:`mcnemar_pvalue`
    of ``b`` samples it breaks and ``c`` samples it corrects, ``c > b``); ``significance=1``
    keeps the candidate with the fewest errors. An optimiser must help on held-out data, not
    merely tie by noise.
    """
    wrong = np.asarray(wrong, dtype=bool)
    best = int(np.argmin(wrong.sum(axis=0)))
    if best == 0:
        return 0
    b = int(np.sum(~wrong[:, 0] & wrong[:, best]))
    c = int(np.sum(wrong[:, 0] & ~wrong[:, best]))
    if significance >= 1.0:
        return best
    return best if c > b and mcnemar_pvalue(b, c) <= significance else 0


def median_gamma(X, *, max_samples=1000, keys=None):
    r""":math:`1/\operatorname{median}\lVert x_i - x_j\rVert^2` over distinct pairs (subsampled).

    Returns ``1 / n_features`` when every pair is at distance 0. Beyond ``max_samples`` rows
    the median is taken over the ``max_samples`` rows of smallest content key
    (:mod:`graphdr.blocks.sampling`; ``keys`` when already computed): the same rows whatever their
    order. Of a ``dask.array`` only those rows are computed (after one pass for the keys).
    """
    dask = is_dask_array(X)
    X = X if sp.issparse(X) or dask else np.asarray(X, dtype=np.float64)
    if X.shape[0] > max_samples:
        rows = smallest_keys(row_keys(X) if keys is None else keys, max_samples)
        X = X[np.sort(rows)] if dask else X[np.sort(rows)]  # the median ignores the order
    if dask:
        X = np.asarray(X.compute(), dtype=np.float64)
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        d2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T).toarray()
    else:
        sq = np.einsum("ij,ij->i", X, X)
        d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    gamma = inverse_median(d2)
    return 1.0 / X.shape[1] if gamma is None else gamma


def inverse_median(d2):
    r""":math:`1/\operatorname{median}` of the squared distances ``d2`` (``n x n``) over the
    distinct pairs at a non-zero distance; None when every pair is at distance 0."""
    d2 = d2[np.triu_indices(d2.shape[0], 1)]
    d2 = d2[d2 > 1e-12 * max(d2.max(initial=0.0), np.finfo(float).tiny)]
    return 1.0 / float(np.median(d2)) if d2.size else None




def _sq_distances(A, B):
    return (np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
            - 2.0 * A @ B.T)
