r"""Neighbour-embedding methods: discriminative elastic embedding (DEE), elastic embedding (EE)
and discriminative stochastic neighbour embedding (DSNE).

Paper 003 (Zheng, Zhang, Cattani and Wang, 2014) makes Carreira-Perpinan's elastic embedding
supervised and linear. With a projection ``A`` (``d x D``) and ``y_n = A x_n``,

.. math::

    E(A) = \sum_{n,m} w^+_{nm} \lVert A (x_n - x_m) \rVert^2
         + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert A (x_n - x_m)\rVert^2\big),

    w^+_{nm} = [l_n = l_m]\, \exp\!\Big(-\frac{\lVert x_n - x_m\rVert^2}{2\sigma^2}\Big),\qquad
    w^-_{nm} = [l_n \ne l_m]\, \lVert x_n - x_m \rVert^2,\qquad w^\pm_{nn} = 0

(eqs. 10-12), whose gradient is :math:`\partial E/\partial A = 4\, Y^\top L X` with
:math:`Y = X A^\top` and :math:`L = L(w^+) - \lambda L(w^- \circ K)`,
:math:`K_{nm} = \exp(-\lVert y_n - y_m\rVert^2)`.

Implementation notes (``../shared/notes/algorithms.md``, section 6):

* The attraction is a quadratic form, :math:`2\operatorname{tr}(A X^\top L(w^+) X A^\top)`,
  evaluated from the ``D x D`` (in fact ``r x r``, ``r`` the data rank) matrix
  :math:`X^\top L(w^+) X` accumulated once per fit; only the repulsion needs pairs.
* Pairwise sums go in row blocks of at most ``2**16`` pairs: one evaluation of the objective and
  gradient costs :math:`O(n^2 d + n D d)` time; no ``n x n x D`` tensor is ever formed. The
  input-space weights :math:`w^-` are computed once and kept (``n^2`` floats) when they fit in
  256 MiB (``n`` up to about 5800); otherwise they are recomputed block by block at every
  evaluation (:math:`O(n^2 r)` time, memory bounded by one block).
* The problem is solved in the span of the centred data (:func:`graphdr.solvers.data_subspace`):
  constant features, duplicate rows and ``D > n`` cost nothing; ``components_`` is mapped back.
* The optimisers come from :mod:`graphdr.optim`; the Laplacian direction solves with one
  Cholesky factor of :math:`4 X^\top L(w^+) X + \mu I`, computed once per fit.
"""

from __future__ import annotations

import numbers
import time

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.sparse import linalg as splinalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import validate_data

from . import graphs as _graphs
from . import pairs as _pairs
from ._validation import check_int, check_labels, check_n_components, check_option, check_positive
from .base import _LinearProjection
from .optim import descent
from .sampling import row_keys, seeded, stratified_folds, stratified_subsample
from .solvers import data_subspace, embedding_signs
from .tuning import check_significance, choose_checkpoint

__all__ = ["DEE", "ElasticEmbedding", "DSNE"]

_DTYPES = [np.float64, np.float32]
#: pairs per row block of every pairwise sum
_BLOCK_PAIRS = 1 << 16
#: largest memory (bytes) for keeping the input-space pair weights between evaluations
_CACHE_BYTES = 256 * 2**20
#: ridge of the Laplacian / fixed-point matrices, relative to their mean eigenvalue
_MU_REL = 1e-4
#: candidate shrinkages of DEE(shrinkage='auto') and the folds of their cross-validation
_SHRINKAGE_GRID = (0.0, 0.2, 0.5, 0.8)
_CV_FOLDS = 3
#: shrinkage='auto' cross-validates on a stratified subsample of at most this many samples
_SHRINKAGE_CV_MAX = 5000


# ----- pairwise weights in row blocks ------------------------------------------------------
def _row_blocks(n, block_rows=None):
    b = block_rows or max(1, _BLOCK_PAIRS // max(n, 1))
    return [(s, min(s + b, n)) for s in range(0, n, b)]


def _sq_dist_block(Z, sq, s, e):
    """Squared distances between rows s:e of Z and all rows (zero diagonal, clipped at 0)."""
    S = sq[s:e, None] + sq[None, :] - 2.0 * (Z[s:e] @ Z.T)
    np.maximum(S, 0.0, out=S)
    S[np.arange(e - s), np.arange(s, e)] = 0.0
    return S


def _zero_diag(W, s, e):
    W[np.arange(e - s), np.arange(s, e)] = 0.0
    return W


class _PairWeights:
    """Weights of all ordered pairs (n != m), given per class relation, normalised per group.

    ``w_nm = same_fn(||z_n - z_m||^2)`` for pairs of the same class and ``diff_fn(...)`` for
    pairs of different classes, each group scaled to sum 1 (when ``normalize``).

    ``store='both'``: iterating yields ``(start, stop, W_block, same_mask_block)`` with both
    groups; ``store='diff'``: it yields ``(start, stop, W_diff_block, None)``, the weights of the
    different-class pairs only (zero on same-class pairs), and the same-class group is used
    only through its quadratic forms ``forms = (Z^T L(W_same) Z, Z^T D(W_same) Z)``, computed
    in the first pass. Blocks are kept between iterations when they fit in ``cache_bytes``.
    """

    def __init__(self, Z, y, same_fn, diff_fn, *, normalize=True, store="both",
                 block_rows=None, cache_bytes=_CACHE_BYTES, masses=(1.0, 1.0)):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.y = np.asarray(y)
        self.same_fn, self.diff_fn = same_fn, diff_fn
        self.store = store
        n, r = self.Z.shape
        self.n = n
        self.sq = np.einsum("ij,ij->i", self.Z, self.Z)
        self.blocks = _row_blocks(n, block_rows)
        self.scale_same = self.scale_diff = 1.0
        keep = n * n * 8 <= cache_bytes
        self._cache = [] if keep else None
        sum_same = sum_diff = 0.0
        self.n_same_pairs = int(np.sum(np.bincount(self.y) ** 2) - n)
        self.n_diff_pairs = n * n - n - self.n_same_pairs
        ZWZ = np.zeros((r, r))
        ZDZ = np.zeros((r, r))
        for s, e, S, M in self._distances():
            Ws = _zero_diag(np.where(M, self.same_fn(S), 0.0), s, e)
            Wd = np.where(M, 0.0, self.diff_fn(S))
            ss = float(Ws.sum())
            sum_same += ss
            sum_diff += float(Wd.sum())
            if store == "diff":
                deg = Ws.sum(axis=1)
                Zb = self.Z[s:e]
                ZWZ += Zb.T @ (Ws @ self.Z)
                ZDZ += (Zb * deg[:, None]).T @ Zb
                if keep:
                    self._cache.append((s, e, Wd, None))
            elif keep:
                Ws += Wd
                self._cache.append((s, e, Ws, M))
        self.sum_same, self.sum_diff = sum_same, sum_diff
        if normalize:
            self.scale_same = masses[0] / sum_same if sum_same > 0 else 1.0
            self.scale_diff = masses[1] / sum_diff if sum_diff > 0 else 1.0
        ZDZ = (ZDZ + ZDZ.T) / 2 * self.scale_same
        self.forms = (ZDZ - (ZWZ + ZWZ.T) / 2 * self.scale_same, ZDZ)
        if keep and normalize:
            for _s, _e, W, M in self._cache:
                if M is None:
                    W *= self.scale_diff
                else:
                    W *= np.where(M, self.scale_same, self.scale_diff)

    def _distances(self):
        for s, e in self.blocks:
            S = _sq_dist_block(self.Z, self.sq, s, e)
            yield s, e, S, self.y[s:e, None] == self.y[None, :]

    def __iter__(self):
        if self._cache is not None:
            yield from self._cache
            return
        for s, e, S, M in self._distances():
            if self.store == "diff":
                yield s, e, np.where(M, 0.0, self.diff_fn(S) * self.scale_diff), None
            else:
                W = np.where(M, self.same_fn(S) * self.scale_same,
                             self.diff_fn(S) * self.scale_diff)
                yield s, e, _zero_diag(W, s, e), M


def _pair_sq_dist(Y):
    """Row-block iterator helper: squared norms of the rows of Y."""
    return np.einsum("ij,ij->i", Y, Y)


def _mean_same_class_sq_dist(Z, y):
    """Mean of ||z_n - z_m||^2 over ordered same-class pairs n != m (closed form, O(nD))."""
    total, pairs = 0.0, 0
    for c in np.unique(y):
        Zc = Z[y == c]
        J = Zc.shape[0]
        if J < 2:
            continue
        total += 2.0 * J * float(np.sum((Zc - Zc.mean(axis=0)) ** 2))
        pairs += J * (J - 1)
    if pairs == 0 or total <= 0:
        return 1.0
    return total / pairs


def _init_scaled(A, Z):
    """Scale A so that the mean squared distance between embedded samples is 1."""
    Y = Z @ A.T
    n = Z.shape[0]
    msd = 2.0 * n / max(n - 1, 1) * float(np.sum(np.var(Y, axis=0)))
    if msd > 0 and np.isfinite(msd):
        A = A / np.sqrt(msd)
    return A


def _initial_projection(init, Z, basis, n_components, n_features, random_state, name):
    """Initial A (n_components x rank) in subspace coordinates."""
    r = Z.shape[1]
    if isinstance(init, str):
        check_option(init, "init", {"pca", "random"})
        if init == "pca":
            # basis columns are principal directions by decreasing variance
            A = np.zeros((n_components, r))
            k = min(n_components, r)
            A[np.arange(k), np.arange(k)] = 1.0
            if n_components > r:
                rng = seeded(random_state)
                A[k:] = rng.standard_normal((n_components - k, r)) * 1e-2
        else:
            rng = seeded(random_state)
            A = rng.standard_normal((n_components, r))
        return _init_scaled(A, Z)
    A0 = np.asarray(init, dtype=np.float64)
    if A0.shape != (n_components, n_features):
        raise ValueError(
            f"{name}: an array init must have shape (n_components, n_features) = "
            f"({n_components}, {n_features}); got {A0.shape}."
        )
    if not np.all(np.isfinite(A0)):
        raise ValueError(f"{name}: init contains NaN or infinite values.")
    return A0 @ basis


def _check_init_option(init):
    if isinstance(init, str):
        check_option(init, "init", {"pca", "random"})
    elif not isinstance(init, np.ndarray) and not isinstance(init, (list, tuple)):
        raise ValueError(
            f"init must be 'pca', 'random' or an array of shape (n_components, n_features); "
            f"got {init!r}."
        )


def _one_nn_wrong(Ztr, ytr, Zte, yte):
    """Bool per test sample: its nearest training sample (Euclidean) has another label."""
    sq = np.einsum("ij,ij->i", Ztr, Ztr)
    wrong = np.empty(Zte.shape[0], dtype=bool)
    for s, e in _row_blocks(Zte.shape[0], max(1, _BLOCK_PAIRS // max(Ztr.shape[0], 1))):
        S = sq[None, :] - 2.0 * (Zte[s:e] @ Ztr.T)
        wrong[s:e] = ytr[np.argmin(S, axis=1)] != yte[s:e]
    return wrong


def _validation_subsample(Z, y_enc, keys):
    """At most ``_SHRINKAGE_CV_MAX`` rows, stratified, chosen and ordered by the rows' content
    ``keys`` (:mod:`graphdr.sampling`): the inner validation's data, the same whatever the row
    order. Returns ``(Z, y_enc, keys)`` of those rows."""
    keep = stratified_subsample(y_enc, _SHRINKAGE_CV_MAX, keys)
    return Z[keep], y_enc[keep], keys[keep]


def _check_shrinkage(shrinkage):
    ok = shrinkage == "auto" if isinstance(shrinkage, str) else (
        isinstance(shrinkage, numbers.Real) and not isinstance(shrinkage, bool)
        and 0.0 <= shrinkage <= 1.0)
    if not ok:
        raise ValueError(
            f"shrinkage must be 'auto' or a real number in [0, 1]; got {shrinkage!r}."
        )


def _check_verbose(verbose):
    if not isinstance(verbose, (numbers.Integral, bool)) or verbose < 0:
        raise ValueError(f"verbose must be a non-negative integer or bool; got {verbose!r}.")
    return int(verbose)


def _cholesky_preconditioner(H, name):
    """Factor H + mu I (mu relative to the mean eigenvalue) once; return g -> H^-1 g."""
    r = H.shape[0]
    H = (H + H.T) / 2
    tr = float(np.trace(H))
    mu = _MU_REL * tr / r if tr > 0 else 1.0
    jitter = mu
    for _ in range(8):
        try:
            factor = linalg.cho_factor(H + jitter * np.eye(r), lower=False, check_finite=True)
            break
        except linalg.LinAlgError:
            jitter *= 100.0
    else:  # pragma: no cover - H is PSD, this cannot happen short of NaN
        raise ValueError(f"{name}: could not factor the preconditioner.")

    def precondition(g, x):
        # g is d x r; M acts on the right: solve (H) P^T = g^T
        return linalg.cho_solve(factor, g.T).T

    return precondition, jitter


# ----- sampled pairs (method='approx') ------------------------------------------------------
def _class_spread(Z, y):
    """``sum_{n,m} ||z_n - z_m||^2`` over all ordered pairs and over same-class pairs (O(nD))."""
    def spread(A):
        return 2.0 * A.shape[0] * float(np.sum((A - A.mean(axis=0)) ** 2)) if len(A) else 0.0
    same = sum(spread(Z[y == c]) for c in np.unique(y))
    return spread(Z), same


def _sampled_forms(Z, pairs, kernel):
    r"""Sampled estimates of the attraction forms of a heat-kernel graph on ``pairs``.

    Returns ``(total, Q, Qdeg)``: :math:`\hat S = \sum_t w_t a_t`,
    :math:`Q = \tfrac12 \sum_t w_t a_t \Delta z_t \Delta z_t^\top = Z^\top D Z -
    \operatorname{sym}(\sum_t w_t a_t z_{r_t} z_{p_t}^\top)` (the estimate of
    :math:`Z^\top L(W) Z`) and :math:`Z^\top D Z`, ``D`` the degrees of the symmetrised sampled
    graph, :math:`a_t` = ``kernel(||Delta z_t||^2)``. The cross term is one sparse product per
    chunk (``O(terms x r)``), never a ``terms x r x r`` array.
    """
    n, r = Z.shape
    cross = np.zeros((r, r))
    deg = np.zeros(n)
    total = 0.0
    for rows, partners, w in pairs:
        k, m = partners.shape
        a = w * kernel(_pairs.sq_distances(Z, rows, partners))
        total += float(a.sum())
        W = sp.csr_matrix((a.ravel(), partners.ravel(), np.arange(0, k * m + 1, m)),
                          shape=(k, n))
        cross += Z[rows].T @ (W @ Z)
        deg[rows] += a.sum(axis=1) / 2.0
        deg += np.bincount(partners.ravel(), a.ravel(), minlength=n) / 2.0
    Qdeg = (Z * deg[:, None]).T @ Z
    return total, Qdeg - (cross + cross.T) / 2.0, Qdeg


def _sample_groups(y, n_partners, random_state, groups=("same", "different")):
    rng = seeded(random_state)
    return tuple(_pairs.sample_pairs(y, n_partners, g, rng) for g in groups)


class _SampledRepulsion:
    r"""``(sum_t w_t v_t exp(-||y_r - y_p||^2), gradient w.r.t. Y)`` over sampled pairs, with
    the input-space weights :math:`v_t` = ``scale * ||z_r - z_p||^2`` computed once."""

    def __init__(self, Z, pairs, scale):
        self.pairs = pairs
        self.v = pairs.chunk_arrays(
            lambda rows, partners: scale * _pairs.sq_distances(Z, rows, partners))

    def __call__(self, Y):
        def term(j, _rows, _partners, D2):
            R = self.v[j] * np.exp(-D2)
            return (R,), (-R,)

        totals, grads = self.pairs.evaluate(Y, term)
        return float(totals[0]), (grads[0] if grads is not None else np.zeros_like(Y))


# ----- DEE ---------------------------------------------------------------------------------
class _DEEObjective:
    r"""Objective and gradient of DEE (eq. 12) in coordinates ``Z`` (rows are samples).

    The attraction is a quadratic form, :math:`\sum w^+_{nm}\lVert A z_{nm}\rVert^2 =
    2 \operatorname{tr}(A Z^\top L(w^+) Z A^\top)`, evaluated from the ``r x r`` matrix
    ``H = Z^T L(w+) Z`` computed once; only the repulsion needs the pairwise loop.
    ``value_grad(A)`` returns :math:`E(A)` and :math:`\partial E/\partial A = 4 A H +
    \lambda (\partial R/\partial Y)^\top Z`, ``Y = Z A^T``, ``R`` the repulsion.
    With ``pairs = (same, different)`` sampled pairs (:mod:`graphdr.pairs`), ``H`` and ``R``
    are their unbiased sampled estimates (the normaliser of ``w-`` is exact, in closed form).
    """

    def __init__(self, Z, y, lam, sigma2, *, normalize=True, shrinkage=0.0, block_rows=None,
                 cache_bytes=_CACHE_BYTES, pairs=None):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.lam = float(lam)
        self.sigma2 = float(sigma2)
        heat = lambda S: np.exp(-S / (2.0 * self.sigma2))  # noqa: E731
        if pairs is None:
            self.weights = _PairWeights(
                self.Z, y, heat, lambda S: S, normalize=normalize, store="diff",
                block_rows=block_rows, cache_bytes=cache_bytes,
            )
            H, Hdeg = self.weights.forms
            self._sampled = None
        else:
            total, H, Hdeg = _sampled_forms(self.Z, pairs[0], heat)
            spread_all, spread_same = _class_spread(self.Z, y)
            s_same = 1.0 / total if normalize and total > 0 else 1.0
            diff = spread_all - spread_same
            s_diff = 1.0 / diff if normalize and diff > 0 else 1.0
            H, Hdeg = H * s_same, Hdeg * s_same
            self._sampled = _SampledRepulsion(self.Z, pairs[1], s_diff)
        self.shrinkage = g = float(shrinkage)
        r = H.shape[0]
        # ridge target: the mean eigenvalue of the attraction matrix on the data span
        self.nu = float(np.trace(H)) / r if r else 0.0
        if g > 0:
            H = (1.0 - g) * H + (g * self.nu) * np.eye(r)
            Hdeg = (1.0 - g) * Hdeg + (g * self.nu) * np.eye(r)
        self.H, self.Hdeg = H, Hdeg

    def repulsion(self, Y):
        """``(R, dR/dY)``, ``R = sum w- K`` with ``K = exp(-||y_n - y_m||^2)``."""
        if self._sampled is not None:
            return self._sampled(Y)
        ny = _pair_sq_dist(Y)
        total = 0.0
        LY = np.empty_like(Y)
        for s, e, W, _ in self.weights:
            Dy = Y[s:e] @ Y.T
            Dy *= -2.0
            Dy += ny[s:e, None]
            Dy += ny[None, :]
            np.maximum(Dy, 0.0, out=Dy)
            np.negative(Dy, out=Dy)
            np.exp(Dy, out=Dy)
            Dy *= W
            total += float(Dy.sum())
            LY[s:e] = Dy.sum(axis=1)[:, None] * Y[s:e] - Dy @ Y
        return total, -4.0 * LY

    def value_grad(self, A):
        A = np.asarray(A, dtype=np.float64)
        Y = self.Z @ A.T
        AH = A @ self.H
        rep, GY = self.repulsion(Y)
        E = 2.0 * float(np.sum(AH * A)) + self.lam * rep
        G = 4.0 * AH + self.lam * (GY.T @ self.Z)
        return E, G


class _LinearNeighborEmbedding(_LinearProjection):
    """Shared validation, data subspace and transform of DEE and DSNE. Not public."""

    def _prepare(self, X, y):
        """Validate, centre, reduce to the data span; return (Z, basis, y_enc)."""
        name = type(self).__name__
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
        self.classes_, y_enc, _ = check_labels(y, method=name)
        n_components = check_n_components(
            self.n_components, X.shape[1], reason=f"n_features={X.shape[1]}"
        )
        mean = np.mean(X, axis=0, dtype=np.float64)
        basis, Z = data_subspace(X, mean)
        if basis.shape[1] == 0:
            raise ValueError(
                f"{name} cannot embed constant data: every feature has zero variance."
            )
        if Z is None:
            Z = (np.asarray(X, dtype=np.float64) - mean) @ basis
        self.mean_ = mean.astype(X.dtype, copy=False)
        return X, Z, basis, y_enc, n_components

    def _pairs(self, y_enc, method, rng):
        """None (exact sums) or the sampled (same-class, other-class) pairs of one fit."""
        if method == "exact":
            return None
        return _sample_groups(y_enc, self.n_partners, rng)

    @staticmethod
    def _folds(y_enc, n_folds, keys):
        """``n_folds`` stratified inner folds (fewer if a class is smaller), dealt by the rows'
        content ``keys``, or None when a class has fewer than two samples."""
        n_splits = min(n_folds, int(np.bincount(y_enc).min()))
        if n_splits < 2:
            return None
        return stratified_folds(y_enc, n_splits, keys)

    def _held_out_wrong(self, Z, y_enc, folds, A0, build):
        """1-NN misclassifications of every held-out sample, ``(n, 2)`` bool: column 0 in the
        starting projection, column 1 in the optimum of ``build(train_rows)`` (a tuple
        ``(problem, method, precondition)``) started from it."""
        wrong = np.zeros((len(y_enc), 2), dtype=bool)
        rescale = isinstance(self.init, str)
        for tr, va in folds:
            problem, method, precondition = build(tr)
            A_start = _init_scaled(A0, Z[tr]) if rescale else A0
            res = descent(problem.value_grad, A_start, method=method,
                          precondition=precondition, max_iter=self.max_iter, tol=self.tol)
            for j, A in enumerate((A_start, res.x)):
                wrong[va, j] = _one_nn_wrong(Z[tr] @ A.T, y_enc[tr], Z[va] @ A.T, y_enc[va])
        return wrong

    def _fit(self, X, y):
        """Validate, build the problem (``_problem``), run the optimiser, store the result."""
        t0 = time.perf_counter()
        self._check_params()
        X, Z, basis, y_enc, d = self._prepare(X, y)
        if self.sigma is None:
            sigma2 = _mean_same_class_sq_dist(Z, y_enc) / 2.0
        else:
            sigma2 = float(self.sigma) ** 2
        self.sigma_ = float(np.sqrt(sigma2))
        name = type(self).__name__
        A0 = _initial_projection(self.init, Z, basis, d, X.shape[1], self.random_state, name)
        self.method_ = _pairs.resolve_method(self.method, Z.shape[0], name)
        problem, method, precondition = self._problem(Z, y_enc, sigma2, A0, row_keys(X))
        if self.verbose and self.cv_errors_ is not None:
            print(f"[{name}] inner validation 1-NN error: start {self.cv_errors_[0]:.4f}, "
                  f"optimised {self.cv_errors_[1]:.4f}; keeping the "
                  f"{'optimised projection' if self.checkpoint_ else 'start'}")
        max_iter = self.max_iter if self.checkpoint_ else 0  # the validation kept the start
        callback = None
        if self.callback is not None:
            def callback(x, info):
                return self.callback(x @ basis.T, info)
        res = descent(
            problem.value_grad, A0, method=method, precondition=precondition,
            max_iter=max_iter, tol=self.tol, verbose=_check_verbose(self.verbose),
            callback=callback, name=f"{name}-{self.optimizer}", t_start=t0,
        )
        self.history_ = res.history
        self.n_iter_ = res.n_iter
        self.objective_ = float(res.fun)
        self.initial_objective_ = float(res.f0)
        self.converged_ = bool(res.converged)
        signs = embedding_signs(Z @ res.x.T, y_enc)  # the sign convention (solvers)
        self.components_ = (signs[:, None] * (res.x @ basis.T)).astype(X.dtype, copy=False)
        self.n_components_ = self.components_.shape[0]
        return self



class DEE(_LinearNeighborEmbedding):
    r"""Discriminative elastic embedding (paper 003): a linear, supervised elastic embedding.

    .. math::

        \min_A E(A) = \sum_{n,m} w^+_{nm} \lVert A x_{nm} \rVert^2
            + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert A x_{nm} \rVert^2\big),
        \qquad x_{nm} = x_n - x_m,

    with :math:`w^+_{nm} = \exp(-\lVert x_{nm}\rVert^2 / 2\sigma^2)` on pairs of the same class
    and 0 otherwise, and :math:`w^-_{nm} = \lVert x_{nm}\rVert^2` on pairs of different classes
    and 0 otherwise (eqs. 10-12; :math:`w^\pm_{nn} = 0`). Same-class samples attract, samples of
    different classes repel until they are about one unit apart in the embedding.

    **Weight normalisation** (the paper gives none): ``w+`` and ``w-`` are each divided by
    their sum over all pairs, so that the attraction and the repulsion are on the same scale
    whatever the data's units and size; then ``E(0) = lam``. ``normalize=False`` keeps the raw
    weights of eqs. (10)-(11).

    **Shrinkage** (not in the paper). The attraction is the quadratic form
    :math:`2\operatorname{tr}(A H A^\top)`, :math:`H = X^\top L(w^+) X` (centred data). With
    ``shrinkage`` :math:`\gamma \in [0, 1]`, DEE minimises

    .. math::

        E_\gamma(A) = 2\operatorname{tr}\big(A [(1-\gamma) H + \gamma \nu I] A^\top\big)
            + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert A x_{nm} \rVert^2\big),
        \qquad \nu = \operatorname{tr}(H) / r,

    over projections in the span of the centred training data (``r`` its dimension): ``H`` is
    shrunk towards its mean eigenvalue, like a shrunk within-class covariance, i.e. a ridge
    :math:`2\gamma\nu\lVert A\rVert_F^2`. ``shrinkage=0`` is the paper's objective (eq. 12).
    Why: when ``D >= n`` (few samples per class, raw pixels) the training classes are
    linearly separable, ``H`` is singular, and the plain objective goes to 0 by collapsing
    each class to a point along directions of tiny variance with an unbounded ``A``; that
    does not generalise (250 mnist5k digits, 25 per class, 1-NN on the other 4750 at d = 20:
    18.0 % error at the PCA start, 45.8 % after the plain objective, whose first LD step takes
    :math:`\lVert A\rVert_F` from 0.53 to 2.9e3; 20.5 / 17.1 / 15.5 % with :math:`\gamma` =
    0.2 / 0.5 / 0.8; ``benchmarks/results/neighbor_diagnosis.md``). On data with
    ``n >> D`` and informative low-variance directions (UCI vehicle) any shrinkage hurts
    (10-fold CV, d = 3: 25.2 % error at 0, 38.7 % at 0.2, 48.4 % at 0.5;
    ``benchmarks/results/dee_uci.md``). ``shrinkage='auto'`` (default) therefore picks
    :math:`\gamma` from ``(0, 0.2, 0.5, 0.8)`` by stratified 3-fold cross-validation of the
    1-NN error in the embedding (folds dealt by the rows' content, :mod:`graphdr.sampling`,
    so the choice depends on neither the row order nor ``random_state``): the smallest
    value whose error is within one binomial standard error of the lowest. The same folds then
    decide whether the optimisation helps at all: the start is one more candidate, and ``fit``
    returns it (``checkpoint_ = 0``, no iteration) when it makes fewer held-out 1-NN errors
    than the embedding of the chosen shrinkage (``significance=1``, the default; a level below
    1 keeps the start unless the optimum wins the exact McNemar test at that level,
    :func:`graphdr.tuning.choose_checkpoint`). Not a stricter level by default: with 25 mnist
    digits per class the validation folds are too small for a test at 5 %, which then kept
    the PCA start in most splits where DEE was 2-6 points better on the test digits. This
    costs twelve extra fits on two thirds of the data; a class
    with fewer than two samples disables it (:math:`\gamma = 0`, no comparison). The shrunk
    matrix also replaces ``H`` in the Laplacian and
    fixed-point directions, which keeps them well conditioned.

    The gradient is :math:`\partial E/\partial A = 4 Y^\top L X` (:math:`Y = X A^\top`,
    :math:`L = L(w^+) - \lambda L(w^- \circ K)`, :math:`K_{nm} = e^{-\lVert y_n-y_m\rVert^2}`),
    evaluated in row blocks in :math:`O(n^2 d + n D d)` time with bounded memory. Optimisers
    (all with a Wolfe line search, :mod:`graphdr.optim`):

    * ``'ld'`` -- the Laplacian direction
      :math:`\Delta = -\tfrac{\partial E}{\partial A}(4 X^\top L(w^+) X + \mu I)^{-1}`,
      with one Cholesky factor computed per fit (paper section 3.3);
    * ``'fp'`` -- the fixed-point direction of EE, the degree matrix :math:`D(w^+)` in place of
      :math:`L(w^+)` (eq. 14);
    * ``'cg'`` -- Polak-Ribiere+ conjugate gradients (strong Wolfe line search);
    * ``'gd'`` -- gradient descent.

    :math:`\mu` is ``1e-4`` times the mean eigenvalue of the matrix, which keeps it positive
    definite when the data are rank-deficient or a class is a single point.

    The problem is solved in the span of the centred training data, so
    ``transform(X) = (X - mean_) @ components_.T`` exactly (centring does not change ``E``).

    When to use it. The default ``d = 2`` is for pictures: two dimensions cannot hold 10 or
    11 classes, and 1-NN in them loses to 1-NN on the raw features on digits (30.1 % against
    1.3 %), vowel (32.4 % against 1.1 %), mnist2k (39.9 % against 8.8 %), sonar (24.5 %
    against 15.4 %) and heart (28.5 % against 24.4 %) (``benchmarks/results/defaults.md``:
    paper 000's protocol, 10-fold CV, [-1, 1] scaling). For classification set
    ``n_components``: at ``C - 1`` DEE gets digits 2.6 %, vowel 1.3 %, mnist2k 10.2 %, heart
    25.6 %; in the small-sample regime (25 digits per class, raw pixels) it beats PCA, MMPA,
    DCV and DSNE at every dimension (``benchmarks/results/dee_small_sample_25.md``). Sonar
    stays behind (45.7 % at one
    dimension): use :class:`KernelLDA` there.

    Parameters
    ----------
    n_components : int, default=2
        Dimension ``d`` of the embedding, at most ``n_features``.
    lam : float, default=100.0
        Weight :math:`\lambda > 0` of the repulsive term relative to the normalised
        attraction. Larger values spread the embedding, so that the repulsion acts only on
        nearby pairs of different classes. 1-NN error, stratified 10-fold CV, [-1, 1] scaling,
        d = max(C - 1, 2), ``shrinkage=0``: ``lam`` = 10 / 100 gave vehicle 26.2 / 25.2 %,
        vowel 2.8 / 1.8 %, ionosphere 13.4 / 11.4 %, wdbc 3.3 / 3.0 %, sonar 23.5 / 21.5 %,
        pima 30.9 / 30.2 %, led7digit 35.6 / 35.2 %, heart 22.6 / 25.2 %; on 25 mnist digits
        per class (raw pixels) 100 beat 10 at every shrinkage tried. The default was 10 before.
    sigma : float or None, default=None
        Width of the heat kernel of ``w+``. None sets :math:`2\sigma^2` to the mean squared
        distance between two samples of the same class.
    optimizer : {'ld', 'fp', 'cg', 'gd'}, default='ld'
    max_iter : int, default=1000
        Largest number of iterations.
    tol : float, default=1e-3
        Stop when one iteration decreases the objective by at most ``tol`` relative to it.
    init : {'pca', 'random'} or ndarray of shape (n_components, n_features), default='pca'
        Starting projection: the leading principal directions, or a Gaussian random matrix
        (from ``random_state``), scaled so that the mean squared distance between embedded
        training samples is 1; or a given matrix, used as is.
    normalize : bool, default=True
        Scale ``w+`` and ``w-`` to unit sums (see above).
    shrinkage : 'auto' or float in [0, 1], default='auto'
        Shrinkage :math:`\gamma` of the attraction matrix (see above); 0 is the paper's plain
        objective. Above 5000 samples the cross-validation runs on a stratified subsample of
        5000, with the pairs evaluated as in the main fit (``method_``).
    significance : float in (0, 1] or None, default=1.0
        ``shrinkage='auto'`` only: level of the exact McNemar test by which the optimised
        projection must beat the start on the inner folds to be kept (1: whichever has fewer
        held-out errors, the start on ties; None: always the optimised projection, as
        before).
    method : {'auto', 'exact', 'approx'}, default='auto'
        How the sums over pairs of samples are evaluated. ``'exact'``: all ``n (n - 1)`` pairs,
        in row blocks (:math:`O(n^2 d)` time per evaluation, bounded memory). ``'approx'``:
        ``n_partners`` partners drawn once per fit for every sample from each group (the other
        samples of its class, and the samples of the other classes; groups of at most
        ``n_partners`` taken whole), and the attraction matrix ``H`` and the repulsion replaced
        by their unbiased estimates (:mod:`graphdr.pairs`): :math:`O(n m D)` once,
        :math:`O(n m d)` per evaluation, ``8 n m`` bytes. ``'auto'``: ``'exact'`` up to 5000 samples,
        ``'approx'`` above. Error and speed: ``benchmarks/results/neighbor_scale.md``.
    n_partners : int, default=128
        Partners ``m`` per sample and group for ``method='approx'`` (at least 1).
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` (and of the extra rows of ``'pca'`` when ``n_components``
        exceeds the data rank) and of the sampled pairs; None is the fixed seed 0, so two
        default fits agree. The inner validation does not use it (content-keyed folds, seed
        0 for its sampled pairs).
    verbose : int, default=0
        Print the optimiser's progress (1: every 10 iterations, 2: every iteration).
    callback : callable or None, default=None
        ``callback(A, info)`` after every iteration, with ``A`` the current
        ``(n_components, n_features)`` projection (of centred data) and ``info`` a dict
        (``iteration``, ``objective``, ``step``, ``grad_norm``, ``time``). Returning True stops.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The projection ``A``.
    mean_ : ndarray of shape (n_features,)
        Training mean, subtracted by ``transform``.
    objective_ : float
        Final value of :math:`E`.
    n_iter_ : int
        Iterations run.
    history_ : dict of lists
        ``'objective'``, ``'step'``, ``'grad_norm'``, ``'n_evals'`` and ``'time'`` (seconds since
        the start of ``fit``), one entry per iteration (all of length ``n_iter_``).
    initial_objective_ : float
        :math:`E` at the starting projection.
    sigma_ : float
        Heat-kernel width used.
    shrinkage_ : float
        Shrinkage :math:`\gamma` used.
    shrinkage_scores_ : dict or None
        ``shrinkage='auto'``: cross-validated 1-NN error of each candidate (empty when the
        classes are too small to validate); None otherwise.
    cv_errors_ : ndarray of shape (2,) or None
        Inner-validation 1-NN error of the start and of the optimised projection (of the
        chosen shrinkage); None without validation.
    checkpoint_ : int
        1 if ``components_`` is the optimised projection, 0 if the validation kept the start.
    mu_ : float or None
        Ridge :math:`\mu` added to the Laplacian (``'ld'``) or degree (``'fp'``) matrix; None
        for ``'cg'`` and ``'gd'``.
    method_ : str
        ``'exact'`` or ``'approx'``: how the pairwise sums were evaluated.
    converged_ : bool
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr.neighbor import DEE
    >>> X, y = load_iris(return_X_y=True)
    >>> DEE(n_components=2).fit_transform(X, y).shape
    (150, 2)
    """

    _optimizers = {"ld", "fp", "cg", "gd"}

    def __init__(
        self,
        n_components=2,
        *,
        lam=100.0,
        sigma=None,
        optimizer="ld",
        max_iter=1000,
        tol=1e-3,
        init="pca",
        normalize=True,
        shrinkage="auto",
        significance=1.0,
        method="auto",
        n_partners=128,
        random_state=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.lam = lam
        self.shrinkage = shrinkage
        self.significance = significance
        self.method = method
        self.n_partners = n_partners
        self.sigma = sigma
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.normalize = normalize
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _check_params(self):
        check_positive(self.lam, "lam")
        _check_shrinkage(self.shrinkage)
        check_significance(self.significance, allow_none=True)
        _pairs.resolve_method(self.method, 0, type(self).__name__)
        _pairs.check_n_partners(self.n_partners)
        check_positive(self.sigma, "sigma", allow_none=True)
        check_option(self.optimizer, "optimizer", self._optimizers)
        check_int(self.max_iter, "max_iter", min_value=0)
        check_positive(self.tol, "tol", allow_zero=True)
        _check_init_option(self.init)
        _check_verbose(self.verbose)
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"callback must be callable or None; got {self.callback!r}.")

    def fit(self, X, y):
        """Fit the projection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels of any type (at least two classes).

        Returns
        -------
        self : object
        """
        return self._fit(X, y)

    def _build(self, Z, y_enc, sigma2, shrinkage, rng):
        """The objective, the descent method and its preconditioner (and mu) for one fit (the
        cross-validation fits of ``shrinkage='auto'`` evaluate the pairs as the main fit)."""
        method = self.method_
        problem = _DEEObjective(Z, y_enc, self.lam, sigma2, normalize=self.normalize,
                                shrinkage=shrinkage, pairs=self._pairs(y_enc, method, rng))
        if self.optimizer in ("ld", "fp"):
            H = 4.0 * (problem.H if self.optimizer == "ld" else problem.Hdeg)
            precondition, mu = _cholesky_preconditioner(H, type(self).__name__)
            return problem, "preconditioned", precondition, mu
        return problem, self.optimizer, None, None

    def _select_shrinkage(self, Z, y_enc, sigma2, A0, keys):
        """Smallest shrinkage of the grid within one standard error of the best CV error, and
        the held-out 1-NN misclassifications ``(n, 2)`` of the start and of that shrinkage.
        The subsample and folds come from the rows' content, the sampled pairs of the inner
        fits from the fixed seed 0: the choice depends on neither row order nor
        ``random_state``."""
        self.shrinkage_scores_ = {}
        Z, y_enc, keys = _validation_subsample(Z, y_enc, keys)
        folds = self._folds(y_enc, _CV_FOLDS, keys)
        rng = seeded(0)
        if folds is None:
            return 0.0, None
        wrong = {}
        for g in _SHRINKAGE_GRID:
            wrong[g] = self._held_out_wrong(
                Z, y_enc, folds, A0, lambda tr, g=g: self._build(Z[tr], y_enc[tr], sigma2, g,
                                                                 rng)[:3])
            self.shrinkage_scores_[g] = float(wrong[g][:, 1].mean())
        # the smallest shrinkage within one binomial standard error of the best error
        best = min(self.shrinkage_scores_.values())
        margin = np.sqrt(best * (1.0 - best) / len(y_enc))
        g = min(g for g, e in self.shrinkage_scores_.items() if e <= best + margin)
        return g, wrong[g]

    def _problem(self, Z, y_enc, sigma2, A0, keys):
        rng = seeded(self.random_state)
        wrong = None
        if isinstance(self.shrinkage, str):
            shrinkage, wrong = self._select_shrinkage(Z, y_enc, sigma2, A0, keys)
        else:
            self.shrinkage_scores_ = None
            shrinkage = float(self.shrinkage)
        self.shrinkage_ = shrinkage
        self.cv_errors_ = None if wrong is None else wrong.mean(axis=0)
        self.checkpoint_ = 1
        if wrong is not None and self.significance is not None:
            self.checkpoint_ = choose_checkpoint(wrong, self.significance)
        problem, method, precondition, self.mu_ = self._build(Z, y_enc, sigma2, shrinkage, rng)
        return problem, method, precondition


# ----- DSNE --------------------------------------------------------------------------------
class _DSNEObjective:
    r"""KL objective of DSNE (eq. 7) and its gradient (eq. 8) in coordinates ``Z``."""

    def __init__(self, Z, y, sigma2, *, normalization="classwise", intra_mass=0.5,
                 block_rows=None, cache_bytes=_CACHE_BYTES):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        kernel = lambda S: np.exp(-S / (2.0 * sigma2))  # noqa: E731
        self.joint = normalization == "joint"
        masses = (1.0, 1.0)
        if self.joint:
            n_same = int(np.sum(np.bincount(np.asarray(y)) ** 2) - len(y))
            # with no same-class pair all the mass is on the different-class pairs
            masses = (intra_mass, 1.0 - intra_mass) if n_same > 0 else (0.0, 1.0)
        self.weights = P = _PairWeights(
            self.Z, y, kernel, kernel, normalize=True, block_rows=block_rows,
            cache_bytes=cache_bytes, masses=masses,
        )
        self.has_same = P.n_same_pairs > 0
        plogp = 0.0
        for _s, _e, W, _M in P:
            pos = W > 0
            plogp += float(np.sum(W[pos] * np.log(W[pos])))
        self.plogp = plogp

    def _blocks(self, Y, ny):
        for s, e, W, M in self.weights:
            Dy = ny[s:e, None] + ny[None, :] - 2.0 * (Y[s:e] @ Y.T)
            np.maximum(Dy, 0.0, out=Dy)
            U = 1.0 / (1.0 + Dy)
            _zero_diag(U, s, e)
            yield s, e, W, M, Dy, U

    def value_grad_Y(self, Y):
        ny = _pair_sq_dist(Y)
        Zs = Zd = 0.0
        cross = 0.0
        for _s, _e, W, M, Dy, U in self._blocks(Y, ny):
            zs = float(np.sum(U, where=M))
            Zs += zs
            Zd += float(U.sum()) - zs
            cross += float(np.sum(W * np.log1p(Dy)))
        if self.joint:
            E = self.plogp + cross + np.log(Zs + Zd)
            inv_s = inv_d = 1.0 / (Zs + Zd)
        else:
            E = self.plogp + cross + np.log(Zd) + (np.log(Zs) if self.has_same else 0.0)
            inv_s = 1.0 / Zs if self.has_same else 0.0
            inv_d = 1.0 / Zd
        LY = np.empty_like(Y)
        for s, e, W, M, _Dy, U in self._blocks(Y, ny):
            Q = (W - U * np.where(M, inv_s, inv_d)) * U
            LY[s:e] = Q.sum(axis=1)[:, None] * Y[s:e] - Q @ Y
        return float(E), LY

    def value_grad(self, A):
        Y = self.Z @ A.T
        E, LY = self.value_grad_Y(Y)
        return E, 4.0 * (LY.T @ self.Z)


class _SampledDSNEObjective:
    r"""DSNE's objective on sampled pairs (:mod:`graphdr.pairs`): the sums over the same-class
    and the different-class pairs in :class:`_DSNEObjective` replaced by their unbiased
    estimates (the input normalisers too), same value and gradient otherwise."""

    def __init__(self, Z, y, sigma2, pairs, *, normalization="classwise", intra_mass=0.5):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.joint = normalization == "joint"
        self.pairs = pairs
        kappa = [P.chunk_arrays(lambda r, p: np.exp(-_pairs.sq_distances(self.Z, r, p)
                                                       / (2.0 * sigma2))) for P in pairs]
        sums = [sum(w * float(k.sum()) for (_r, _p, w), k in zip(P, K))
                for P, K in zip(pairs, kappa)]
        self.has_same = sums[0] > 0
        masses = (intra_mass, 1.0 - intra_mass) if self.joint else (1.0, 1.0)
        if not self.has_same:
            masses = (0.0, 1.0)
        self.P = [[m_g / s_g * k for k in K] if s_g > 0 else [0.0 * k for k in K]
                  for m_g, s_g, K in zip(masses, sums, kappa)]
        plogp = 0.0
        for P, probs in zip(pairs, self.P):
            for (_r, _p, w), q in zip(P, probs):
                pos = q > 0
                plogp += w * float(np.sum(q[pos] * np.log(q[pos])))
        self.plogp = plogp

    def value_grad(self, A):
        Y = self.Z @ A.T
        parts = []
        for P, probs in zip(self.pairs, self.P):
            def term(j, _rows, _partners, D2, probs=probs):
                u = 1.0 / (1.0 + D2)
                # cross entropy -p log u = p log(1 + D2), and the normaliser's sum of u
                return (probs[j] * np.log1p(D2), u), (probs[j] * u, -u * u)

            parts.append(P.evaluate(Y, term, n_out=2))
        (c_s, z_s), g_s = parts[0]
        (c_d, z_d), g_d = parts[1]
        zero = np.zeros((2,) + Y.shape)
        g_s = zero if g_s is None else g_s
        g_d = zero if g_d is None else g_d
        E = self.plogp + c_s + c_d
        G = g_s[0] + g_d[0]
        if self.joint:
            E += np.log(z_s + z_d)
            G += (g_s[1] + g_d[1]) / (z_s + z_d)
        else:
            E += np.log(z_d)
            G += g_d[1] / z_d
            if self.has_same:
                E += np.log(z_s)
                G += g_s[1] / z_s
        return float(E), G.T @ self.Z


class DSNE(_LinearNeighborEmbedding):
    r"""Discriminative stochastic neighbour embedding: linear t-SNE with class-wise normalisation.

    .. math::

        \min_A E(A) = \sum_{l_i = l_j} p_{ij} \log\frac{p_{ij}}{q_{ij}}
                    + \sum_{l_i \ne l_k} p_{ik} \log\frac{p_{ik}}{q_{ik}},

    with input similarities :math:`p_{ij} \propto \exp(-\lVert x_i - x_j\rVert^2 / 2\sigma^2)`
    and embedded Student-t similarities
    :math:`q_{ij} \propto (1 + \lVert A (x_i - x_j)\rVert^2)^{-1}`, each normalised to sum 1
    separately over the same-class pairs and over the different-class pairs (paper 003,
    eqs. 5-7; :math:`i \ne j`). The gradient (eq. 8) is

    .. math::

        \frac{\partial E}{\partial A} = 4 A X^\top L(c) X, \qquad
        c_{ij} = (p_{ij} - q_{ij}) (1 + \lVert A (x_i - x_j)\rVert^2)^{-1},

    i.e. :math:`4 A X^\top (L_\text{intra} + L_\text{inter}) X` with the two groups of pairs,
    evaluated in row blocks (two passes: the normalisers first). ``transform(X) = (X - mean_)
    @ components_.T``.

    **Normalisation** (``normalization``). The paper's class-wise normalisation
    (``'classwise'``, above) matches the shape of the same-class similarities and, separately,
    that of the different-class ones; no term compares the two groups, so nothing pushes the
    classes apart, and minimising it can make the starting point worse (UCI vehicle, 10-fold,
    [-1, 1], d = 3, 1-NN: error 48.5 % at the PCA start, 51.1 % after, 23.4 % with the joint
    default; on one fold the KL divergence falls from 0.090 to 0.030 with CG or GD and from
    any scale of the start while the error stays at or above the start's:
    ``benchmarks/results/neighbor_diagnosis.md``). The default
    ``'joint'`` keeps the input similarities of eq. (5) but gives the same-class pairs the
    total mass ``intra_mass`` (the different-class pairs ``1 - intra_mass``) and normalises
    the embedded similarities once over all pairs,

    .. math::

        p_{ij} = \begin{cases} \pi\, \kappa_{ij} / \sum_{l_k = l_l} \kappa_{kl} &
            l_i = l_j \\ (1 - \pi)\, \kappa_{ij} / \sum_{l_k \ne l_l} \kappa_{kl} &
            l_i \ne l_j \end{cases}, \qquad
        q_{ij} = \frac{u_{ij}}{\sum_{k \ne l} u_{kl}}, \qquad
        E(A) = \sum_{i \ne j} p_{ij} \log\frac{p_{ij}}{q_{ij}},

    with :math:`\kappa_{ij} = \exp(-\lVert x_i - x_j\rVert^2 / 2\sigma^2)`,
    :math:`u_{ij} = (1 + \lVert A(x_i - x_j)\rVert^2)^{-1}` and :math:`\pi` =
    ``intra_mass``: the embedding must then put a share :math:`\pi` of its similarity on the
    (few) same-class pairs, which draws the classes together and apart from each other. The
    gradient keeps the form above with :math:`c_{ij} = (p_{ij} - q_{ij}) u_{ij}`. Against
    the start on the shared UCI sets: ``benchmarks/results/dsne_start.md``.

    **Inner validation** (not in the paper). With ``cv`` folds, DSNE is first fitted on
    ``cv - 1`` folds of the training data (a stratified subsample of at most 5000 samples) and
    the held-out samples are classified by 1-nearest-neighbour both in the starting projection
    and in the optimised one. The optimised projection is kept only if it wins the exact
    McNemar test against the start at the level ``significance``
    (:func:`graphdr.tuning.choose_checkpoint`); otherwise ``fit`` returns the start
    (``checkpoint_ = 0``, no iteration). A class with fewer than two samples, ``cv=None`` or
    ``max_iter=0`` skips it. Why: where DSNE's neighbourhoods carry little class information
    (led7digit: 85 distinct rows among 500, 72 % of the test samples tied between labels in
    1-NN) the optimum is worse than the start on held-out data (10-fold CV, d = 3: 38.8 %
    against 37.0 %). With the validation DSNE is not worse than its start on any of the 8
    shared UCI sets, and keeps its large gains (vehicle 48.5 -> 23.4 %, vowel 26.0 -> 12.9 %);
    where the folds are too small to show a gain it keeps the start (ionosphere 14.2 %
    against 11.1 % without validation, pima 32.4 % against 28.6 %). ``cv=None`` optimises
    without validation; ``significance=1`` keeps whichever has fewer held-out errors (worse
    than the start on heart and led7digit). The validation costs ``cv`` extra fits on
    ``(cv - 1) / cv`` of the data.

    When to use it. The default ``d = 2`` is for pictures; 1-NN in it loses to 1-NN on the
    raw features on digits (30.4 % against 1.3 %), vowel (32.7 % against 1.1 %), mnist2k
    (63.4 % against 8.8 %), sonar (28.4 % against 15.4 %) and pima (35.7 % against 29.7 %)
    (``benchmarks/results/defaults.md``: paper 000's protocol, 10-fold CV, [-1, 1] scaling).
    At ``C - 1`` dimensions it matches the raw features on vowel (1.1 %) and is close on
    digits (4.6 %) but not on mnist2k (20.6 %); :class:`DEE` is better at ``C - 1`` on digits
    and mnist2k (2.6 %, 10.2 %).

    Parameters
    ----------
    n_components : int, default=2
        At most ``n_features``.
    sigma : float or None, default=None
        Width of the input Gaussian. None sets :math:`2\sigma^2` to the mean squared distance
        between two samples of the same class.
    normalization : {'joint', 'classwise'}, default='joint'
        One normaliser of the embedded similarities over all pairs, or the paper's two
        (eqs. 5-7; the default before).
    intra_mass : float in (0, 1), default=0.9
        Share :math:`\pi` of the input similarity mass on same-class pairs
        (``normalization='joint'`` only).
    optimizer : {'cg', 'gd'}, default='cg'
        Conjugate gradients (as in the original DSNE) or gradient descent, with a Wolfe line
        search.
    max_iter : int, default=1000
    tol : float, default=1e-4
        Relative decrease of the objective below which the iteration stops.
    init : {'pca', 'random'} or ndarray of shape (n_components, n_features), default='pca'
        As in :class:`DEE`.
    cv : int or None, default=3
        Number of stratified folds (at least 2) of the inner validation against the start
        (reduced to the size of the smallest class; folds dealt by the rows' content);
        None keeps the optimised projection without validation (the paper's algorithm).
    significance : float in (0, 1], default=0.05
        Level of the exact McNemar test by which the optimised projection must beat the start
        on the inner validation; 1 keeps whichever has fewer held-out errors.
    method : {'auto', 'exact', 'approx'}, default='auto'
        How the sums over pairs of samples are evaluated. ``'exact'``: all ``n (n - 1)`` pairs,
        in row blocks (:math:`O(n^2 d)` time per evaluation, bounded memory). ``'approx'``:
        ``n_partners`` partners drawn once per fit for every sample from each group (the other
        samples of its class, and the samples of the other classes; groups of at most
        ``n_partners`` taken whole), and the sums (the input normalisers and the embedded ones)
        replaced by their unbiased estimates (:mod:`graphdr.pairs`): :math:`O(n m D)` once,
        :math:`O(n m d)` per evaluation, ``8 n m`` bytes. ``'auto'``: ``'exact'`` up to 5000
        samples, ``'approx'`` above. Error and speed: ``benchmarks/results/neighbor_scale.md``.
    n_partners : int, default=128
        Partners ``m`` per sample and group for ``method='approx'`` (at least 1).
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` and of the sampled pairs; None is the fixed seed 0, so two
        default fits agree.
    verbose : int, default=0
    callback : callable or None, default=None
        As in :class:`DEE`.

    Attributes
    ----------
    components_, mean_, objective_, initial_objective_, n_iter_, history_, sigma_, method_,
    converged_, cv_errors_, checkpoint_, classes_, n_features_in_
        As in :class:`DEE` (``cv_errors_`` and ``checkpoint_`` from the inner validation).
    """

    _optimizers = {"cg", "gd"}

    def __init__(
        self,
        n_components=2,
        *,
        sigma=None,
        normalization="joint",
        intra_mass=0.9,
        optimizer="cg",
        max_iter=1000,
        tol=1e-4,
        init="pca",
        cv=3,
        significance=0.05,
        method="auto",
        n_partners=128,
        random_state=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.cv = cv
        self.significance = significance
        self.sigma = sigma
        self.method = method
        self.n_partners = n_partners
        self.normalization = normalization
        self.intra_mass = intra_mass
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _check_params(self):
        check_positive(self.sigma, "sigma", allow_none=True)
        _pairs.resolve_method(self.method, 0, type(self).__name__)
        _pairs.check_n_partners(self.n_partners)
        check_option(self.normalization, "normalization", {"joint", "classwise"})
        if (not isinstance(self.intra_mass, numbers.Real) or isinstance(self.intra_mass, bool)
                or not 0.0 < self.intra_mass < 1.0):
            raise ValueError(
                f"intra_mass must be a real number in the open interval (0, 1); "
                f"got {self.intra_mass!r}."
            )
        check_option(self.optimizer, "optimizer", self._optimizers)
        if self.cv is not None:
            check_int(self.cv, "cv", min_value=2)
        check_significance(self.significance)
        check_int(self.max_iter, "max_iter", min_value=0)
        check_positive(self.tol, "tol", allow_zero=True)
        _check_init_option(self.init)
        _check_verbose(self.verbose)
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"callback must be callable or None; got {self.callback!r}.")

    def fit(self, X, y):
        """Fit the projection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        return self._fit(X, y)

    def _build(self, Z, y_enc, sigma2, rng):
        """The objective for one fit (exact, or on pairs sampled from ``rng``)."""
        pairs = self._pairs(y_enc, self.method_, rng)
        if pairs is None:
            problem = _DSNEObjective(Z, y_enc, sigma2, normalization=self.normalization,
                                     intra_mass=self.intra_mass)
        else:
            problem = _SampledDSNEObjective(Z, y_enc, sigma2, pairs,
                                            normalization=self.normalization,
                                            intra_mass=self.intra_mass)
        return problem, self.optimizer, None

    def _problem(self, Z, y_enc, sigma2, A0, keys):
        wrong = None
        if self.cv is not None and self.max_iter > 0:
            # subsample and folds by content, sampled pairs from the fixed seed 0: the
            # checkpoint depends on neither row order nor random_state
            Zv, yv, kv = _validation_subsample(Z, y_enc, keys)
            folds = self._folds(yv, self.cv, kv)
            rng = seeded(0)
            if folds is not None:
                wrong = self._held_out_wrong(
                    Zv, yv, folds, A0, lambda tr: self._build(Zv[tr], yv[tr], sigma2, rng))
        self.cv_errors_ = None if wrong is None else wrong.mean(axis=0)
        self.checkpoint_ = 1 if wrong is None else choose_checkpoint(wrong, self.significance)
        return self._build(Z, y_enc, sigma2, seeded(self.random_state))


# ----- unsupervised elastic embedding -------------------------------------------------------
def _sparse_preconditioner(M, factor=True):
    """``g -> M^-1 g`` for the sparse SPD matrix ``M`` (``n x n``): one sparse LU factor
    (``factor=True``; exact, but a kNN Laplacian's factor fills in towards ``n^2`` entries as
    ``n`` grows), or a Jacobi-preconditioned conjugate-gradient solve per column to relative
    residual 1e-3 (at most 100 iterations, ``O(nnz)`` each). Each CG iterate ``x`` of an SPD
    system has ``g^T x > 0``, so the direction stays a descent direction."""
    if factor:
        lu = splinalg.splu(M)
        return lambda g, x: lu.solve(np.asarray(g, dtype=np.float64))
    M = sp.csr_matrix(M)
    jacobi = sp.diags(1.0 / M.diagonal())

    def precondition(g, x):
        g = np.asarray(g, dtype=np.float64)
        out = np.empty_like(g)
        for k in range(g.shape[1]):
            out[:, k] = _cg(M, g[:, k], jacobi)
        return out

    return precondition


def _cg(M, b, jacobi, rtol=1e-3, maxiter=100):
    try:
        x, _ = splinalg.cg(M, b, rtol=rtol, maxiter=maxiter, M=jacobi)
    except TypeError:  # scipy < 1.12 calls it tol
        x, _ = splinalg.cg(M, b, tol=rtol, maxiter=maxiter, M=jacobi)
    return x



class _EEObjective:
    r"""EE objective (paper 003, eq. 1) on free coordinates Y, sparse w+ and blocked w-."""

    def __init__(self, X, lam, attract, *, block_rows=None, cache_bytes=_CACHE_BYTES,
                 pairs=None):
        self.lam = float(lam)
        n = X.shape[0]
        P = sp.csr_matrix(attract, dtype=np.float64)
        total = P.sum()
        self.P = P / total if total > 0 else P
        self.Lp = sp.csr_matrix(_graphs.laplacian(self.P))
        self.n = n
        self._sampled = None
        if pairs is not None:
            spread = _class_spread(X, np.zeros(n, dtype=np.intp))[0]
            self._sampled = _SampledRepulsion(X, pairs, 1.0 / spread if spread > 0 else 1.0)
            return
        # every sample is its own "class": w- = squared input distance on all pairs n != m
        self.weights = _PairWeights(
            X, np.arange(n), lambda S: S, lambda S: S, normalize=True, store="diff",
            block_rows=block_rows, cache_bytes=cache_bytes,
        )

    def value_grad(self, Y):
        Y = np.asarray(Y, dtype=np.float64)
        lam = self.lam
        LpY = self.Lp @ Y
        E = 2.0 * float(np.sum(Y * LpY))
        if self._sampled is not None:
            rep, GY = self._sampled(Y)
            return E + lam * rep, 4.0 * LpY + lam * GY
        ny = _pair_sq_dist(Y)
        LY = LpY.copy()
        for s, e, W, _ in self.weights:
            Dy = ny[s:e, None] + ny[None, :] - 2.0 * (Y[s:e] @ Y.T)
            np.maximum(Dy, 0.0, out=Dy)
            R = W * np.exp(-Dy)
            E += lam * float(R.sum())
            LY[s:e] -= lam * (R.sum(axis=1)[:, None] * Y[s:e] - R @ Y)
        return E, 4.0 * LY


class ElasticEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Elastic embedding (Carreira-Perpinan, 2010): unsupervised, nonlinear.

    .. math::

        \min_Y E(Y) = \sum_{n,m} w^+_{nm} \lVert y_n - y_m \rVert^2
            + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert y_n - y_m \rVert^2\big),

    over free coordinates ``Y`` (``n x d``), with :math:`w^+` a heat kernel on the symmetrised
    ``n_neighbors``-nearest-neighbour graph (sparse) and :math:`w^-_{nm} = \lVert x_n -
    x_m\rVert^2` on all pairs (paper 003, eq. 1), each normalised to unit sum. The gradient is
    :math:`4 (L(w^+) - \lambda L(w^- \circ K)) Y`; the default optimiser follows the spectral
    direction :math:`-(4 L(w^+) + \mu I)^{-1} \nabla E`, with one sparse LU factor per fit (above
    5000 samples, where the factor of a kNN Laplacian fills in, a Jacobi-preconditioned
    conjugate-gradient solve to relative residual 1e-3 instead).

    Like :class:`sklearn.manifold.TSNE`, it has no ``transform``: the embedding of new samples
    is not defined; use :meth:`fit_transform` or ``embedding_`` (or :class:`DEE` for a linear
    map).

    Parameters
    ----------
    n_components : int, default=2
    lam : float, default=1.0
        Weight of the repulsive term.
    n_neighbors : int, default=10
        Neighbours of the attractive graph.
    sigma : float or None, default=None
        Heat-kernel width of ``w+``; None: :math:`2\sigma^2` = mean squared edge length.
    optimizer : {'sd', 'fp', 'cg', 'gd'}, default='sd'
        Spectral direction, fixed-point (degree matrix), conjugate gradients or gradient
        descent, with a Wolfe line search.
    max_iter : int, default=500
    tol : float, default=1e-3
    init : {'pca', 'random'} or ndarray of shape (n_samples, n_components), default='pca'
        Leading principal components (or Gaussian noise from ``random_state``), scaled to a
        mean squared distance of 1 between embedded samples; or given coordinates.
    method : {'auto', 'exact', 'approx'}, default='auto'
        How the sums over pairs of samples are evaluated. ``'exact'``: all ``n (n - 1)`` pairs,
        in row blocks (:math:`O(n^2 d)` time per evaluation of the repulsion, bounded memory). ``'approx'``:
        ``n_partners`` partners drawn once per fit for every sample among all other samples
        (all of them when there are at most ``n_partners``), and the sums replaced by their unbiased estimates
        (:mod:`graphdr.pairs`): :math:`O(n m D)` once, :math:`O(n m d)` per evaluation,
        ``12 n m`` bytes; the attraction is the sparse kNN graph either way. ``'auto'``:
        ``'exact'`` up to 5000 samples, ``'approx'`` above. Error and speed:
        ``benchmarks/results/neighbor_scale.md``.
    n_partners : int, default=128
        Partners ``m`` per sample and group for ``method='approx'`` (at least 1).
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` and of the sampled pairs; None is the fixed seed 0, so two
        default fits agree.
    verbose : int, default=0
    callback : callable or None, default=None
        ``callback(Y, info)`` after each iteration; returning True stops.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
    objective_, initial_objective_, n_iter_, history_, method_, converged_, n_features_in_
        As in :class:`DEE`.
    """

    def __init__(
        self,
        n_components=2,
        *,
        lam=1.0,
        n_neighbors=10,
        sigma=None,
        optimizer="sd",
        max_iter=500,
        tol=1e-3,
        init="pca",
        method="auto",
        n_partners=128,
        random_state=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.lam = lam
        self.method = method
        self.n_partners = n_partners
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None):
        """Compute the embedding of X (``y`` is ignored).

        Returns
        -------
        self : object
        """
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Compute and return the embedding of X (``y`` is ignored).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        embedding : ndarray of shape (n_samples, n_components)
        """
        t0 = time.perf_counter()
        name = type(self).__name__
        check_positive(self.lam, "lam")
        check_positive(self.sigma, "sigma", allow_none=True)
        check_int(self.n_neighbors, "n_neighbors")
        _pairs.resolve_method(self.method, 0, name)
        _pairs.check_n_partners(self.n_partners)
        check_option(self.optimizer, "optimizer", {"sd", "fp", "cg", "gd"})
        check_int(self.max_iter, "max_iter", min_value=0)
        check_positive(self.tol, "tol", allow_zero=True)
        verbose = _check_verbose(self.verbose)
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"callback must be callable or None; got {self.callback!r}.")
        X = validate_data(self, X, dtype=_DTYPES, ensure_min_samples=2)
        n = X.shape[0]
        d = check_n_components(self.n_components, n - 1, reason=f"n_samples - 1 = {n - 1}")
        Xf = np.asarray(X, dtype=np.float64)
        Xc = Xf - Xf.mean(axis=0)
        k = min(self.n_neighbors, n - 1)
        Wp = _graphs.knn_graph(Xc, k, weights="heat", sigma=self.sigma)
        self.method_ = _pairs.resolve_method(self.method, n, name)
        pairs = None
        if self.method_ == "approx":
            pairs = _pairs.sample_pairs(np.zeros(n, dtype=np.intp), self.n_partners, "all",
                                        seeded(self.random_state))
        problem = _EEObjective(Xc, self.lam, Wp, pairs=pairs)
        if isinstance(self.init, str):
            check_option(self.init, "init", {"pca", "random"})
            if self.init == "pca":
                U, s, _ = linalg.svd(Xc, full_matrices=False)
                Y0 = np.zeros((n, d))
                k0 = min(d, len(s))
                Y0[:, :k0] = U[:, :k0] * s[:k0]
                if k0 < d or not np.any(Y0):
                    Y0[:, k0:] = seeded(self.random_state).standard_normal(
                        (n, d - k0)) * 1e-2
            else:
                Y0 = seeded(self.random_state).standard_normal((n, d))
            Y0 -= Y0.mean(axis=0)
            msd = 2.0 * n / (n - 1) * float(np.sum(np.var(Y0, axis=0)))
            if msd > 0:
                Y0 /= np.sqrt(msd)
        else:
            Y0 = np.asarray(self.init, dtype=np.float64)
            if Y0.shape != (n, d):
                raise ValueError(
                    f"{name}: an array init must have shape (n_samples, n_components) = "
                    f"({n}, {d}); got {Y0.shape}."
                )
        method, precondition = self.optimizer, None
        if self.optimizer in ("sd", "fp"):
            H = 4.0 * (problem.Lp if self.optimizer == "sd" else sp.diags(problem.Lp.diagonal()))
            H = sp.csc_matrix(H)
            tr = float(H.diagonal().sum())
            mu = _MU_REL * tr / n if tr > 0 else 1.0
            precondition = _sparse_preconditioner(sp.csc_matrix(H + mu * sp.identity(n)),
                                                  factor=n <= _pairs.AUTO_EXACT_MAX)
            method = "preconditioned"
        res = descent(
            problem.value_grad, Y0, method=method, precondition=precondition,
            max_iter=self.max_iter, tol=self.tol, verbose=verbose, callback=self.callback,
            name=f"EE-{self.optimizer}", t_start=t0,
        )
        self.history_ = res.history
        self.n_iter_ = res.n_iter
        self.objective_ = float(res.fun)
        self.initial_objective_ = float(res.f0)
        self.converged_ = bool(res.converged)
        # the objective is invariant to each axis' sign: orient by the convention (solvers)
        self.embedding_ = (res.x * embedding_signs(res.x)).astype(X.dtype, copy=False)
        return self.embedding_

    @property
    def _n_features_out(self):
        return self.embedding_.shape[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
