r"""Torkkola's QMI potentials and criteria of an embedding, and the QMI graph's C x C block."""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_int,
    check_labels,
    check_positive,
)
from ..blocks import graphs as _graphs

_DTYPES = [np.float64, np.float32]
#: Bound on the number of pairwise entries held at once (rows x n) in the blockwise sums.
_MAX_BLOCK_ENTRIES = 2_000_000
_POTENTIALS = ("V_IN", "V_ALL", "V_BTW")


# ----- the class-structured QMI graph ----------------------------------------------------
def qmi_potential_blocks(class_sizes):
    r"""The ``C x C`` blocks of the pair weights :math:`\Omega^{IN}, \Omega^{ALL}, \Omega^{BTW}`.

    Parameters
    ----------
    class_sizes : array-like of shape (n_classes,)
        Number of samples :math:`J_c` per class.

    Returns
    -------
    blocks : dict
        ``'V_IN'``: :math:`\delta_{ab}/n^2`; ``'V_ALL'``: :math:`s/n^2` with
        :math:`s=\sum_c (J_c/n)^2`; ``'V_BTW'``: :math:`(J_a + J_b)/(2n^3)`. The weight of
        samples ``k, l`` is ``block[c_k, c_l]``.
    """
    J = np.asarray(class_sizes, dtype=np.float64)
    n = J.sum()
    C = J.shape[0]
    s = np.sum((J / n) ** 2)
    return {
        "V_IN": np.eye(C) / n**2,
        "V_ALL": np.full((C, C), s / n**2),
        "V_BTW": (J[:, None] + J[None, :]) / (2.0 * n**3),
    }


def qmi_graph(y_encoded, n_classes=None):
    r"""Paper 000's QMI graph :math:`M = E B E^\top` as a :class:`graphdr.blocks.graphs.ClassGraph`.

    .. math::

        B_{ab} = \frac{1}{n^2}\Big(\delta_{ab} + s - \frac{J_a + J_b}{n}\Big), \qquad
        s = \sum_c \Big(\frac{J_c}{n}\Big)^2 .

    ``M`` is the symmetrised matrix of paper 000's eq. 19 (:math:`C_{IN} = 1/n^2`,
    :math:`C_{ALL} = s/n^2`, :math:`C_{BTW,c} = J_c/n^3`). Its rows sum to zero, so its
    Laplacian is :math:`L(M) = -M`, and it has rank ``C - 1``. It is positive semi-definite:
    with class sums :math:`u_c = \sum_{i \in c} x_i`, :math:`U = \sum_c u_c` and priors
    :math:`p_c = J_c/n`, :math:`x^\top M x = n^{-2}\sum_c (u_c - p_c U)^2`.

    Parameters
    ----------
    y_encoded : ndarray of shape (n_samples,), dtype int
        Class index of each sample in ``0 .. C-1`` (-1: unlabelled, no edge; ``n`` counts
        the labelled samples).
    n_classes : int or None
        Number of classes (default: ``max(y_encoded) + 1``).

    Returns
    -------
    M : graphdr.blocks.graphs.ClassGraph
    """
    y_encoded = np.asarray(y_encoded, dtype=np.intp)
    sizes = np.bincount(y_encoded[y_encoded >= 0], minlength=n_classes or 0)
    b = qmi_potential_blocks(sizes)
    return _graphs.ClassGraph(y_encoded, b["V_IN"] + b["V_ALL"] - 2.0 * b["V_BTW"])


# ----- potentials and their gradients, in row blocks --------------------------------------
def _block_rows(n, block_size):
    if block_size is not None:
        return int(block_size)
    return int(max(1, min(n, _MAX_BLOCK_ENTRIES // max(n, 1))))


def _potentials_sorted(Y, bounds, class_of_row, blocks, sigma, *, grad=True, block_size=None):
    """Potentials (and gradients w.r.t. Y) for Y whose rows are sorted by class.

    ``bounds[c]:bounds[c+1]`` are the rows of class ``c``. Returns ``(values, grads)`` where
    ``values[name]`` is the potential *without* the Gaussian normalising constant and
    ``grads[name]`` (n x d) its gradient, also without the constant.

    For a weight block ``B``, with ``A_kl = B[c_k, c_l] G_kl`` and
    ``G_kl = exp(-|y_k - y_l|^2 / (4 sigma^2))``: ``V = sum_kl A_kl`` and
    ``dV/dY = -(1/sigma^2) L(A) Y``. Rows of ``G`` are formed ``block`` at a time, reduced to
    class sums ``S`` (rows x C) and ``F`` (rows x C x d); nothing of size n x n is kept.
    """
    n, d = Y.shape
    C = len(bounds) - 1
    rows = _block_rows(n, block_size)
    sq = np.einsum("ij,ij->i", Y, Y)
    scale = 1.0 / (4.0 * sigma**2)
    values = {k: 0.0 for k in blocks}
    grads = {k: np.empty((n, d)) for k in blocks} if grad else None
    for a in range(0, n, rows):
        b = min(n, a + rows)
        Yb = Y[a:b]
        D2 = Yb @ Y.T  # the only rows x n array; the rest is done in place
        D2 *= -2.0
        D2 += sq[a:b, None]
        D2 += sq[None, :]
        np.maximum(D2, 0.0, out=D2)
        D2 *= -scale
        G = np.exp(D2, out=D2)
        S = np.empty((b - a, C))
        F = np.empty((b - a, C, d)) if grad else None
        for c in range(C):
            Gc = G[:, bounds[c] : bounds[c + 1]]
            S[:, c] = Gc.sum(axis=1)
            if grad:
                F[:, c, :] = Gc @ Y[bounds[c] : bounds[c + 1]]
        cls = class_of_row[a:b]
        for name, B in blocks.items():
            Bsel = B[cls]  # rows x C: weight of each row's class against every class
            r = np.einsum("ic,ic->i", Bsel, S)
            values[name] += r.sum()
            if grad:
                AY = np.einsum("ic,icd->id", Bsel, F)
                grads[name][a:b] = -(r[:, None] * Yb - AY) / sigma**2
    return values, grads


def _gaussian_constant(sigma, d):
    """Normalising constant of the Gaussian density of covariance 2 sigma^2 I in d dims."""
    return float(np.exp(-0.5 * d * np.log(4.0 * np.pi * sigma**2)))


def _criteria(values):
    """QMI, MI_A and MI_B from the (normalised) potentials."""
    return {
        "I_T": values["V_IN"] + values["V_ALL"] - 2.0 * values["V_BTW"],
        "MI_A": values["V_IN"] / values["V_ALL"],
        "MI_B": values["V_IN"] / values["V_BTW"],
    }


def qmi_potentials(Y, y, sigma, *, block_size=None):
    r"""Quadratic-MI potentials of an embedding and the criteria built from them.

    .. math::

        V_{IN} = \frac{1}{n^2}\sum_{c}\sum_{k,l \in c} G_{kl}, \quad
        V_{ALL} = \frac{s}{n^2}\sum_{k,l} G_{kl}, \quad
        V_{BTW} = \frac{1}{n^2}\sum_{c}\frac{J_c}{n}\sum_{k\in c}\sum_{l} G_{kl},

    with :math:`G_{kl} = G(y_k - y_l, 2\sigma^2 I)
    = (4\pi\sigma^2)^{-d/2}\exp(-\lVert y_k-y_l\rVert^2/4\sigma^2)` (paper 002, eqs. 11-13),
    :math:`I_T = V_{IN} + V_{ALL} - 2V_{BTW}`, :math:`MI_A = V_{IN}/V_{ALL}` and
    :math:`MI_B = V_{IN}/V_{BTW}`.

    The pairwise sums are taken in row blocks of at most ``block_size`` rows (default: about
    2e6 / n rows), so memory stays ``O(block_size x n)``: ``n = 20000`` needs no ``n x n``
    array. Time is ``O(n^2 d)``.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_dims)
        The embedding (for example ``X @ W``).
    y : array-like of shape (n_samples,)
        Class labels of any type; at least two classes.
    sigma : float
        Parzen window width, > 0 (each Parzen window has covariance :math:`\sigma^2 I`, a pair
        interaction :math:`2\sigma^2 I`).
    block_size : int or None, default=None
        Rows of the pairwise matrix formed at once.

    Returns
    -------
    potentials : dict
        Floats under ``'V_IN'``, ``'V_ALL'``, ``'V_BTW'``, ``'I_T'``, ``'MI_A'``, ``'MI_B'``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphdr.qmi import qmi_potentials
    >>> Y = np.array([[0.0], [0.1], [3.0], [3.2]])
    >>> p = qmi_potentials(Y, [0, 0, 1, 1], sigma=0.5)
    >>> bool(np.isclose(p["MI_A"], p["MI_B"]))   # balanced classes
    True
    """
    sigma = check_positive(sigma, "sigma")
    if block_size is not None:
        check_int(block_size, "block_size")
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D array (n_samples, n_dims); got shape {Y.shape}.")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y contains NaN or infinite values.")
    _, y_enc, sizes = check_labels(y, method="qmi_potentials")
    if y_enc.shape[0] != Y.shape[0]:
        raise ValueError(
            f"Y and y must have the same number of samples; got {Y.shape[0]} and "
            f"{y_enc.shape[0]}."
        )
    order = np.argsort(y_enc, kind="stable")
    Ys = Y[order] - Y.mean(axis=0)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    values, _ = _potentials_sorted(
        Ys, bounds, y_enc[order], qmi_potential_blocks(sizes), sigma, grad=False,
        block_size=block_size,
    )
    const = _gaussian_constant(sigma, Y.shape[1])
    out = {k: float(const * v) for k, v in values.items()}
    ratios = _criteria(values)  # the constant cancels in MI_A and MI_B
    out["I_T"] = out["V_IN"] + out["V_ALL"] - 2.0 * out["V_BTW"]
    out["MI_A"], out["MI_B"] = float(ratios["MI_A"]), float(ratios["MI_B"])
    return out
