r"""Kernel matrices, centring, and the empirical kernel map.

Every kernel method in graphdr works in the *empirical kernel map* of the centred training
kernel. With :math:`\tilde K = H K H = P \Lambda P^\top` (``H`` the centring matrix, ``P`` the
eigenvectors with non-negligible eigenvalues), the rows of :math:`Z = P\Lambda^{1/2}` are
coordinates of the training points in feature space, :math:`Z Z^\top = \tilde K`. A kernel
graph embedding with dual coefficients ``a`` is the linear graph embedding of ``Z`` with
``w = Z^\top a``, and a new sample with centred kernel row :math:`\tilde k` maps to
:math:`\tilde k^\top a`. The ridge term :math:`\epsilon\, a^\top \tilde K a` of a regularised
kernel solver is :math:`\epsilon \lVert w\rVert^2` there.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels

from .._threads import map_threads

__all__ = ["KERNELS", "compute_kernel", "empirical_kernel_map", "euclidean_distances",
           "kernel_distances", "TrainingCentring"]

#: Names accepted by the ``kernel`` parameter of kernel estimators (a callable works too).
KERNELS = ("rbf", "linear", "poly", "sigmoid", "cosine", "laplacian", "chi2", "precomputed")


def check_kernel_params(kernel, gamma, degree, coef0, kernel_params=None):
    """Validate kernel hyper-parameters with clear errors (called in ``fit``)."""
    if kernel_params is not None and not (
            isinstance(kernel_params, dict) and all(isinstance(k, str) for k in kernel_params)):
        raise ValueError("kernel_params must be None or a dict of keyword arguments of the "
                         f"kernel (e.g. {{'gamma': 0.1}}); got {kernel_params!r}.")
    if kernel_params and isinstance(kernel, str) and kernel in PAIRWISE_KERNEL_FUNCTIONS:
        allowed = [p for p in inspect.signature(PAIRWISE_KERNEL_FUNCTIONS[kernel]).parameters
                   if p not in ("X", "Y")]
        unknown = sorted(set(kernel_params) - set(allowed))
        if unknown:
            raise ValueError(f"kernel_params {unknown} are not parameters of the {kernel!r} "
                             f"kernel; it takes {allowed or 'none'}.")
    if not callable(kernel) and kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {list(KERNELS)} or a callable; got {kernel!r}.")
    if gamma is not None and (
        not isinstance(gamma, numbers.Real) or not np.isfinite(gamma) or gamma <= 0
    ):
        raise ValueError(f"gamma must be a positive number or None; got {gamma!r}.")
    if not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be a positive integer; got {degree!r}.")
    if not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")


def compute_kernel(X, Y=None, *, kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None):
    r"""Kernel matrix between the rows of ``X`` and ``Y`` (``X`` with itself when ``Y`` is None).

    ``gamma=None`` means ``1 / n_features``. The RBF kernel is
    :math:`k(x, x') = \exp(-\gamma \lVert x - x'\rVert^2)`; a paper's width ``sigma`` in
    :math:`\exp(-\lVert x-x'\rVert^2 / 2\sigma^2)` is ``gamma = 1 / (2 sigma**2)``.
    With ``kernel='precomputed'`` ``X`` is returned as it is.
    """
    if kernel == "precomputed":
        return np.asarray(X, dtype=np.float64)
    params = dict(kernel_params or {})
    if callable(kernel):
        return np.asarray(pairwise_kernels(X, Y, metric=kernel, **params), dtype=np.float64)
    if kernel in ("rbf", "poly", "sigmoid", "laplacian", "chi2"):
        params.setdefault("gamma", gamma if gamma is not None else 1.0 / X.shape[1])
    if kernel in ("poly",):
        params.setdefault("degree", degree)
    if kernel in ("poly", "sigmoid"):
        params.setdefault("coef0", coef0)
    other = X if Y is None else Y
    if sp.issparse(X) or sp.issparse(other) or X.shape[0] * other.shape[0] < KERNEL_BLOCK_ENTRIES:
        return _kernel(X, other, kernel, params)
    return _kernel_in_row_blocks(X, Y, kernel, params)


#: the parameters each kernel of :func:`_dense_kernel` takes
_DENSE_KERNELS = {"rbf": {"gamma"}, "linear": set(), "poly": {"gamma", "degree", "coef0"},
                  "sigmoid": {"gamma", "coef0"}}


def _kernel(X, Y, kernel, params):
    """The kernel between the rows of validated ``X`` and ``Y`` (``Y is X``: of ``X`` with
    itself): :func:`_dense_kernel` for dense ``float64`` rows and the kernels it computes,
    else scikit-learn's ``pairwise_kernels``."""
    if (isinstance(X, np.ndarray) and isinstance(Y, np.ndarray) and X.dtype == np.float64
            and Y.dtype == np.float64 and X.ndim == Y.ndim == 2
            and kernel in _DENSE_KERNELS and set(params) <= _DENSE_KERNELS[kernel]):
        return _dense_kernel(X, Y, kernel, **params)
    return np.asarray(pairwise_kernels(X, None if Y is X else Y, metric=kernel, **params),
                      dtype=np.float64)


def euclidean_distances(X, Y=None, squared=False):
    r"""scikit-learn's ``euclidean_distances`` between rows validated already (dense
    ``float64``; ``Y`` None or ``X`` itself: of ``X`` with itself, the diagonal exactly 0), in
    the same operations in the same order: :math:`\max(0, -2 x^\top y + \lVert x\rVert^2 +
    \lVert y\rVert^2)`, its square root unless ``squared``."""
    Y = X if Y is None else Y
    XX = np.einsum("ij,ij->i", X, X)[:, None]
    YY = XX.T if Y is X else np.einsum("ij,ij->i", Y, Y)[None, :]
    D = -2 * (X @ Y.T)
    D += XX
    D += YY
    np.maximum(D, 0, out=D)
    if Y is X:
        np.fill_diagonal(D, 0)
    return D if squared else np.sqrt(D, out=D)


def _dense_kernel(X, Y, kernel, gamma=None, degree=3, coef0=1.0):
    r"""scikit-learn's ``rbf_kernel``, ``linear_kernel``, ``polynomial_kernel`` and
    ``sigmoid_kernel`` of rows validated already (dense ``float64``), in the same operations
    in the same order, so the same numbers bit for bit, without checking the arrays again (a
    fit's trial fits and ``transform`` compute many kernel blocks of rows validated once):
    :math:`\exp(-\gamma \max(0, -2 x^\top y + \lVert x\rVert^2 + \lVert y\rVert^2))`
    (the diagonal of ``X`` with itself 0 before the exponential), :math:`x^\top y`,
    :math:`(\gamma x^\top y + c_0)^d`, :math:`\tanh(\gamma x^\top y + c_0)`;
    ``gamma=None``: ``1 / n_features``."""
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
    if kernel == "rbf":
        K = euclidean_distances(X, Y, squared=True)
        K *= -gamma
        return np.exp(K, out=K)
    K = X @ Y.T
    if kernel == "linear":
        return K
    K *= gamma
    K += coef0
    if kernel == "poly":
        K **= degree
        return K
    return np.tanh(K, out=K)


#: entries of a kernel matrix computed as one piece (8 MB); also the blocks of ``transform``
KERNEL_BLOCK_ENTRIES = 1 << 20


def _kernel_in_row_blocks(X, Y, kernel, params):
    """:func:`compute_kernel` of a built-in kernel by blocks of rows on the threads the
    environment allows (:func:`graphdr._threads.map_threads`): the same numbers as one call of
    scikit-learn's ``pairwise_kernels`` (each entry from the same products), the diagonal of
    an RBF kernel of ``X`` with itself exactly 1 as scikit-learn sets it."""
    other = X if Y is None else Y
    n, m = X.shape[0], other.shape[0]
    K = np.empty((n, m))
    rows = max(1, KERNEL_BLOCK_ENTRIES // m)

    def fill(a):
        b = min(a + rows, n)
        K[a:b] = _kernel(X[a:b], other, kernel, params)
        if Y is None and kernel == "rbf":  # a zero distance, as scikit-learn makes it
            K[np.arange(a, b), np.arange(a, b)] = 1.0

    map_threads(fill, range(0, n, rows))
    return K


class TrainingCentring:
    r"""Centring in feature space, fitted on the training kernel and applied in place.

    With the column means :math:`\bar k` of the training kernel and their mean
    :math:`\bar{\bar k}`, a kernel ``K`` between samples and the training samples is centred as
    :math:`K - \mathbf 1 \bar k^\top - (K \mathbf 1 / n) \mathbf 1^\top + \bar{\bar k}`:
    the arithmetic of scikit-learn's ``KernelCenterer`` (same operations in the same order),
    done on the training kernel in place and in blocks of rows that stay in cache (one
    reduction pass for the column means and one pass for the rest, no ``n x n`` copy).
    """

    def __init__(self, column_means):
        self.K_fit_rows_ = column_means
        self.K_fit_all_ = np.sum(column_means) / column_means.shape[0]

    @classmethod
    def centre_in_place(cls, K, block_rows=128):
        """Centre the C-ordered float64 training kernel ``K`` in place; returns the centring."""
        n = K.shape[0]
        centring = cls(np.sum(K, axis=0) / n)
        rows, total = centring.K_fit_rows_, centring.K_fit_all_
        for a in range(0, n, block_rows):
            B = K[a : a + block_rows]
            row_means = np.sum(B, axis=1) / n
            B -= rows
            B -= row_means[:, None]
            B += total
        return centring

    def transform(self, K):
        """Centred copy of a kernel ``K`` between new samples and the training samples."""
        K = np.array(K, dtype=np.float64, copy=True)
        if K.ndim != 2 or K.shape[1] != self.K_fit_rows_.shape[0]:
            raise ValueError(
                f"The kernel against the training samples must have "
                f"{self.K_fit_rows_.shape[0]} columns; got shape {K.shape}."
            )
        K_pred_cols = (np.sum(K, axis=1) / self.K_fit_rows_.shape[0])[:, None]
        K -= self.K_fit_rows_
        K -= K_pred_cols
        K += self.K_fit_all_
        return K


def empirical_kernel_map(K_centered, rank_tol=None):
    r"""Coordinates :math:`Z = P\Lambda^{1/2}` of the training points in feature space.

    Eigenvalues below ``rank_tol * max(eigenvalue)`` (default ``n * eps``) are dropped, among
    them the zero eigenvalue of the constant vector that centring always creates: they are never
    inverted.

    Returns
    -------
    Z : ndarray of shape (n_samples, rank)
    eigenvectors : ndarray of shape (n_samples, rank)
    eigenvalues : ndarray of shape (rank,), decreasing
    """
    K = np.asarray(K_centered, dtype=np.float64)
    K = (K + K.T) / 2.0
    n = K.shape[0]
    lam, P = linalg.eigh(K)
    lam, P = lam[::-1], P[:, ::-1]
    tol = (n * np.finfo(np.float64).eps if rank_tol is None else rank_tol) * max(lam[0], 0.0)
    keep = lam > max(tol, 0.0)
    if not np.any(keep):
        if lam.size and lam[-1] < -n * np.finfo(np.float64).eps * np.abs(lam).max():
            raise ValueError(
                "The centred kernel matrix has no positive eigenvalue: it is not a valid "
                "(positive semi-definite) kernel."
            )
        raise ValueError(
            "The centred kernel matrix is zero: every sample looks the same under this kernel "
            "(constant data, or gamma too small or too large)."
        )
    lam, P = lam[keep], P[:, keep]
    return P * np.sqrt(lam), P, lam


#: kernel-induced squared distances below this many machine epsilons of ``k(x,x) + k(x',x')``
#: are rounding noise of the kernel trick, and are set to zero
DISTANCE_NOISE_EPS = 1024


def kernel_distances(K):
    r"""Kernel-induced distances :math:`\sqrt{k(x,x) + k(x',x') - 2k(x,x')}` of a square kernel.

    The kernel trick computes a squared distance as a difference of numbers of the size of
    :math:`k(x,x)`: its rounding error is a few machine epsilons of that size, so repeated
    samples get distances of about :math:`10^{-8}` whose order depends on the machine's
    arithmetic. Squared distances below ``DISTANCE_NOISE_EPS * eps * (k(x,x) + k(x',x'))`` are
    set to exactly zero, so ties between repeated samples are ties on every machine.
    """
    K = np.asarray(K, dtype=np.float64)
    d = np.diag(K)
    scale = d[:, None] + d[None, :]
    d2 = scale - 2.0 * K
    d2[d2 <= DISTANCE_NOISE_EPS * np.finfo(np.float64).eps * np.abs(scale)] = 0.0
    return np.sqrt(d2)
