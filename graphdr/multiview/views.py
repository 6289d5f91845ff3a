r"""Multi-view input: view validation, one base kernel per view (:class:`ViewKernel`), and the
landmark features of a view, in memory or chunk by chunk."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from sklearn.base import BaseEstimator, clone
from sklearn.metrics.pairwise import additive_chi2_kernel, pairwise_distances
from sklearn.neighbors import VALID_METRICS
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.validation import check_is_fitted

from .._threads import managed_threads, map_threads
from .._validation import check_option, check_positive, checked_parameters, output_dtype
from ..blocks.kernel_matrices import KERNEL_BLOCK_ENTRIES
from ..blocks.stats import input_scale

_KINDS = ("rbf", "chi2", "distance", "linear", "precomputed")


# ----- validation -------------------------------------------------------------------------
def check_views(Xs, *, n_views=None, n_samples=None, name="Xs"):
    """Validate a list of views and return them as 2-D float64 arrays.

    Parameters
    ----------
    Xs : list of array-like
        One array of shape ``(n_samples, n_features_m)`` per view (or a kernel matrix).
    n_views : int or None
        Number of views required (the number seen in ``fit``), or None.
    n_samples : int or None
        Number of rows required, or None.
    name : str
        Name used in error messages.

    Returns
    -------
    views : list of ndarray
    """
    if isinstance(Xs, np.ndarray) or not isinstance(Xs, (list, tuple)):
        raise ValueError(
            f"{name} must be a list of views (one array of shape (n_samples, n_features) per "
            f"view, or one kernel matrix per view); got {type(Xs).__name__}. Wrap a single view "
            "as [X]."
        )
    if len(Xs) == 0:
        raise ValueError(f"{name} is an empty list: at least one view is needed.")
    if n_views is not None and len(Xs) != n_views:
        raise ValueError(
            f"{name} has {len(Xs)} views but the estimator was fitted on {n_views}; pass the "
            "same views, in the same order, as in fit."
        )
    views = []
    for m, X in enumerate(Xs):
        if hasattr(X, "toarray") and not isinstance(X, np.ndarray):
            raise ValueError(f"View {m} is a sparse matrix; pass dense arrays.")
        if np.iscomplexobj(X):
            raise ValueError(
                f"View {m} is complex; MKLDR needs real features (pass, for example, the real "
                "and imaginary parts or the modulus as real columns)."
            )
        try:
            arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"View {m} could not be converted to a numeric array: {exc}") from exc
        if arr.ndim != 2:
            raise ValueError(
                f"View {m} must be a 2-D array (n_samples, n_features); got shape {arr.shape}."
            )
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValueError(f"View {m} is empty (shape {arr.shape}).")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"View {m} contains NaN or infinite values.")
        views.append(arr)
    rows = [v.shape[0] for v in views]
    if len(set(rows)) > 1:
        raise ValueError(
            f"All views must have the same number of rows (samples); got {rows} rows for views "
            f"0..{len(rows) - 1}."
        )
    if n_samples is not None and rows[0] != n_samples:
        raise ValueError(f"The views have {rows[0]} rows; {n_samples} are required.")
    return views


# ----- base kernels -------------------------------------------------------------------------
def _by_row_blocks(X, Y, block, diagonal=0.0):
    """``block(X, Y)`` (an ``n x m`` array of distances or kernel values) computed by blocks of
    rows of ``X`` on the threads the environment allows
    (:func:`graphdr._threads.map_threads`). When ``Y is X`` the diagonal is ``diagonal``, the
    value of a zero distance, as scikit-learn sets it."""
    n, m = X.shape[0], Y.shape[0]
    if n * m < KERNEL_BLOCK_ENTRIES or sp.issparse(X) or sp.issparse(Y):
        return block(X, Y)
    same = Y is X
    out = np.empty((n, m))
    rows = max(1, KERNEL_BLOCK_ENTRIES // m)

    def piece(a):
        b = min(a + rows, n)
        out[a:b] = block(X[a:b], Y)
        if same:
            out[np.arange(a, b), np.arange(a, b)] = diagonal

    map_threads(piece, range(0, n, rows))
    return out


class ViewKernel(BaseEstimator):
    r"""One base kernel of a view, repaired, centred and scale-normalised (paper 001, eq. 8).

    .. math::

        K(x, x') = \exp\!\big(-d^2(x, x') / \sigma^2\big)
        \quad\text{(or } x^\top x' \text{, or a given matrix)},
        \qquad \tilde K = s\, H\, \Pi_+(K)\, H ,

    with ``H`` the centring matrix, :math:`\Pi_+` the clipping of negative eigenvalues and ``s``
    the normalising scale.

    Parameters
    ----------
    kernel : {'rbf', 'chi2', 'distance', 'linear', 'precomputed'}, default='rbf'
        ``'rbf'``: Euclidean ``d`` (sklearn's RBF with ``gamma = 1/sigma**2``); ``'chi2'``:
        :math:`d^2 = \sum_k (x_k - x'_k)^2 / (x_k + x'_k)` for non-negative histograms;
        ``'distance'``: ``d`` is ``metric``; ``'linear'``: :math:`x^\top x'`; ``'precomputed'``:
        the view *is* the kernel matrix (``n x n`` in ``fit``, ``n_new x n_train`` after).
    sigma : 'auto', float or None, default=None
        Kernel width. None is data-driven: :math:`\sigma^2` is the mean of :math:`d^2` over the
        pairs of distinct training samples (paper 001's choice). ``'auto'`` lets
        :class:`graphdr.MKLDR` choose it from the labels (kernel LDA on the view, inner
        cross-validation over :math:`\sigma^{-2} = \gamma_0 \cdot 4^{\{-5..1\}}` around the
        median heuristic :math:`\gamma_0`, :func:`graphdr.tuning.search_kernels`); fitted
        without labels (or by the KFD baselines) it means None.
    metric : str or callable, default='euclidean'
        Distance of ``kernel='distance'`` (any :func:`sklearn.metrics.pairwise_distances` metric).
    normalize : {'mean_diag', 'trace'} or None, default='mean_diag'
        Scale the centred kernel to unit mean diagonal or unit trace; None keeps its scale.
    repair : {'auto', 'clip'} or None, default='auto'
        Clip negative eigenvalues. ``'auto'`` does it for kernels that can be indefinite
        (``'distance'`` with a non-Euclidean metric, ``'precomputed'``) and only when the most
        negative eigenvalue is below ``-1e-10`` times the largest; ``'clip'`` always checks.

    Attributes
    ----------
    sigma_ : float or None
        Width used (None for linear and precomputed kernels); of the view divided by an
        exact power of two when its largest magnitude is outside ``[2**-64, 2**64]``.
    scale_ : float
        Normalising factor ``s``.
    psd_basis_ : ndarray of shape (n_train, r) or None
        Eigenvectors with positive eigenvalue when the kernel was repaired, else None.
    nystroem_normalization_ : ndarray of shape (n_landmarks, r) or None
        After :meth:`fit_features`: :math:`U_+\Lambda_+^{-1/2}` of the landmark kernel (None
        after :meth:`fit_kernel`).
    landmarks_ : ndarray of shape (n_landmarks, n_features)
        After :meth:`fit_features`: the landmark samples.
    landmark_indices_ : ndarray of shape (n_landmarks,)
        After :meth:`fit_features`: their rows in the training view.
    feature_mean_ : ndarray of shape (r,)
        After :meth:`fit_features`: mean training feature (before scaling), removed by
        :meth:`transform_features`.
    n_features_in_ : int
    n_train_ : int
    """

    _parameter_rules = {"sigma": None}  # also 'auto'; checked by _check_params

    def __init__(self, kernel="rbf", *, sigma=None, metric="euclidean", normalize="mean_diag",
                 repair="auto"):
        self.kernel = kernel
        self.sigma = sigma
        self.metric = metric
        self.normalize = normalize
        self.repair = repair

    @staticmethod
    def _as_real(X):
        if sp.issparse(X) or (hasattr(X, "toarray") and not isinstance(X, np.ndarray)):
            raise ValueError("ViewKernel needs a dense view; got a sparse matrix (pass "
                             "X.toarray(), or a precomputed kernel with kernel='precomputed').")
        if np.iscomplexobj(X):
            raise ValueError("ViewKernel needs a real view; got complex values (pass the real and "
                             "imaginary parts, or the modulus, as real features).")
        A = np.asarray(X, dtype=np.float64)
        if A.ndim != 2:
            raise ValueError(f"The view must be a 2-D array (samples x features); got shape "
                             f"{A.shape}. Reshape a single feature with X.reshape(-1, 1).")
        return A

    def _check_params(self):
        check_option(self.kernel, "kernel", set(_KINDS))
        if not (isinstance(self.sigma, str) and self.sigma == "auto"):
            if isinstance(self.sigma, str):
                raise ValueError(f"sigma must be 'auto', None or a positive number; got "
                                 f"{self.sigma!r}.")
            check_positive(self.sigma, "sigma", allow_none=True)
        if self.normalize is not None:
            check_option(self.normalize, "normalize", {"mean_diag", "trace"})
        if self.repair is not None:
            check_option(self.repair, "repair", {"auto", "clip"})
        if not callable(self.metric):  # checked whatever the kernel: a distance metric name
            check_option(self.metric, "metric", set(VALID_METRICS["brute"]) - {"precomputed"})

    def _sq_dist(self, X, Y):
        """Squared distances between the rows of ``X`` and ``Y`` (0 on the diagonal when
        ``Y is X``), by blocks of rows on the environment's threads."""
        if self.kernel == "chi2":
            for arr in (X, Y):
                if np.any(arr < 0):
                    raise ValueError(
                        "kernel='chi2' needs non-negative features (histograms); the view has "
                        "negative values. Use kernel='rbf' or 'distance' for signed features."
                    )
        return _by_row_blocks(X, Y, self._sq_dist_block)

    def _sq_dist_block(self, X, Y):
        if self.kernel == "rbf":
            return np.maximum(pairwise_distances(X, Y, metric="sqeuclidean"), 0.0)
        if self.kernel == "chi2":
            return np.maximum(-additive_chi2_kernel(X, Y), 0.0)
        return pairwise_distances(X, Y, metric=self.metric) ** 2

    def _input(self, X, fit=False):
        """The view divided by ``2**e`` when a data-driven width makes the kernel blind to
        the scale and ``max|x|`` is outside ``[2**-64, 2**64]`` (squares of ``X * 1e300``
        overflow); new samples by the training power of two."""
        X = self._as_real(X)
        if fit:
            auto = self.kernel not in ("linear", "precomputed") and self.sigma in (None, "auto")
            self._input_scale = input_scale(X) if auto else 1.0
        scale = getattr(self, "_input_scale", 1.0)
        return X if scale == 1.0 else X / scale

    def _raw(self, X, Y):
        if self.kernel == "linear":
            return X @ Y.T
        scale = self.sigma_**2
        return _by_row_blocks(X, Y, lambda A, B: np.exp(-self._sq_dist_block(A, B) / scale),
                              diagonal=1.0)

    @managed_threads
    def fit_kernel(self, X):
        """Fit on the training view and return its processed ``n x n`` kernel matrix.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features) or (n_samples, n_samples)
            The view (the kernel matrix when ``kernel='precomputed'``).

        Returns
        -------
        K : ndarray of shape (n_samples, n_samples)
        """
        self._check_params()
        X = self._input(X, fit=True)
        n = X.shape[0]
        self.n_features_in_ = X.shape[1]
        self.n_train_ = n
        self.sigma_ = None
        if self.kernel == "precomputed":
            if X.shape != (n, n):
                raise ValueError(
                    f"With kernel='precomputed' the training view must be a square n x n kernel "
                    f"matrix; got shape {X.shape}."
                )
            K = X.copy()
            self.X_fit_ = None
        else:
            self.X_fit_ = X
            if self.kernel != "linear":
                if self.sigma in (None, "auto"):
                    d2 = self._sq_dist(X, X)
                    off = d2[~np.eye(n, dtype=bool)] if n > 1 else d2.ravel()
                    mean = float(np.mean(off)) if off.size else 0.0
                    if not mean > 0:
                        raise ValueError(
                            "Every pair of samples is at distance 0 in this view (constant "
                            "view): a data-driven sigma cannot be set."
                        )
                    self.sigma_ = float(np.sqrt(mean))
                    K = np.exp(-d2 / mean)
                else:
                    self.sigma_ = float(self.sigma)
                    K = self._raw(X, X)
            else:
                K = self._raw(X, X)
        K = (K + K.T) / 2.0
        self.psd_basis_ = None
        needs_check = self.repair == "clip" or (
            self.repair == "auto"
            and (self.kernel == "precomputed" or (self.kernel == "distance"
                                                  and self.metric != "euclidean"))
        )
        if needs_check:
            lam, U = linalg.eigh(K)
            top = max(abs(lam[-1]), abs(lam[0]), np.finfo(float).tiny)
            if lam[0] < -1e-10 * top:
                keep = lam > 1e-12 * top
                self.psd_basis_ = U[:, keep]
                K = (U[:, keep] * lam[keep]) @ U[:, keep].T
                K = (K + K.T) / 2.0
        self.nystroem_normalization_ = None
        self.centerer_ = KernelCenterer().fit(K)
        Kc = self.centerer_.transform(K)
        trace = float(np.trace(Kc))
        if not trace > 1e-12 * max(float(np.trace(np.abs(K))), np.finfo(float).tiny):
            raise ValueError(
                "This view gives a constant kernel (zero variance in feature space): every sample "
                "looks the same. Remove the view or change its kernel or sigma."
            )
        self.scale_ = {"mean_diag": n / trace, "trace": 1.0 / trace, None: 1.0}[self.normalize]
        return Kc * self.scale_

    # ----- Nystroem landmark features ----------------------------------------------------
    @staticmethod
    def _mean_sq_euclidean(X):
        r"""Mean squared Euclidean distance over the pairs of distinct samples, in ``O(n d)``.

        :math:`\sum_{ij}\lVert x_i - x_j\rVert^2 = 2n\sum_i\lVert x_i-\bar x\rVert^2`.
        """
        n = X.shape[0]
        if n < 2:
            return 0.0
        Xc = X - X.mean(axis=0)
        return 2.0 * n * float(np.sum(Xc * Xc)) / (n * (n - 1))

    @managed_threads
    def fit_features(self, X, landmarks, *, rank_tol=None):
        r"""Fit on the training view and return Nystroem features of its processed kernel.

        With the landmark samples :math:`x_{l_1}, \dots, x_{l_m}` (rows ``landmarks`` of ``X``),
        :math:`K_{mm} = U \Lambda U^\top` and its positive part :math:`U_+\Lambda_+U_+^\top`,

        .. math::

            \phi(x) = \Lambda_+^{-1/2} U_+^\top k(x_{l}, x), \qquad
            \Phi = \sqrt{s}\,(\Phi_0 - \mathbf 1\bar\phi^\top),
            \qquad \Phi\Phi^\top \approx \tilde K = s\,H\,\Pi_+(K)\,H ,

        with :math:`\bar\phi` the mean training feature (centring in feature space) and ``s``
        the normalising scale of ``normalize`` computed on :math:`\Phi\Phi^\top` (its trace is
        :math:`\lVert\Phi\rVert_F^2`). Memory and time are ``O(n m)`` and
        ``O(n m d + n m^2 + m^3)``; no ``n x n`` matrix is formed. The data-driven ``sigma``
        (``sigma=None``) is the exact mean of :math:`d^2` over pairs of distinct samples for
        ``'rbf'`` (in closed form, ``O(n d)``); for the other distances it is the mean of
        :math:`d^2` over the pairs (sample, landmark) of distinct samples, read from the
        ``n x m`` distances the features need anyway: the exact mean when every sample is a
        landmark, an unbiased estimate of it otherwise. With every sample as a landmark,
        :math:`\Phi\Phi^\top` is the processed kernel of :meth:`fit_kernel` up to the
        eigenvalues of ``K`` below ``rank_tol * max`` (dropped here; default ``m * eps``).
        Negative eigenvalues of the landmark kernel are always dropped (the repair of an
        indefinite kernel, whatever ``repair`` says: a square root is needed).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            The view (not a kernel matrix: ``kernel='precomputed'`` is refused).
        landmarks : array-like of int
            Indices of the landmark samples.
        rank_tol : float or None
            Relative eigenvalue of :math:`K_{mm}` below which a direction is dropped.

        Returns
        -------
        Phi : ndarray of shape (n_samples, r)
            ``r <= len(landmarks)`` features, centred, :math:`\Phi\Phi^\top \approx \tilde K`.
        """
        self._check_params()
        if self.kernel == "precomputed":
            raise ValueError(
                "approximation='nystroem' needs the kernel function of the view; "
                "kernel='precomputed' gives only the kernel matrix. Use the exact path "
                "(approximation=None) or pass the view's features."
            )
        X = self._input(X, fit=True)
        n = X.shape[0]
        landmarks = np.asarray(landmarks, dtype=np.intp)
        self.n_features_in_ = X.shape[1]
        self.n_train_ = n
        self.X_fit_ = None
        self.psd_basis_ = None
        self.centerer_ = None
        self.sigma_ = None
        L = X[landmarks]
        Knm = None
        if self.kernel != "linear":
            if self.sigma in (None, "auto"):
                if self.kernel == "rbf":
                    mean = self._mean_sq_euclidean(X)
                else:  # pairs (sample, landmark); d^2(x, x) = 0 on the l pairs of equal samples
                    Knm = self._sq_dist(X, L)
                    mean = float(np.sum(Knm)) / max(n * len(L) - len(L), 1)
                if not mean > 0:
                    raise ValueError(
                        "Every pair of samples is at distance 0 in this view (constant "
                        "view): a data-driven sigma cannot be set."
                    )
                self.sigma_ = float(np.sqrt(mean))
                if Knm is not None:
                    Knm /= -mean
                    np.exp(Knm, out=Knm)
            else:
                self.sigma_ = float(self.sigma)
        if Knm is None:
            Knm = self._raw(X, L)
        _landmark_normalization(self, Knm[landmarks], L, landmarks, rank_tol)
        Phi = Knm @ self.nystroem_normalization_
        del Knm
        raw_trace = float(np.sum(Phi * Phi))
        mean = Phi.mean(axis=0)
        Phi -= mean
        _feature_scale(self, mean, float(np.sum(Phi * Phi)), raw_trace, n)
        Phi *= np.sqrt(self.scale_)
        return Phi

    def transform_features(self, X):
        r"""Nystroem features of new samples (after :meth:`fit_features`).

        ``transform_features(X_new) @ Phi.T`` approximates ``transform(X_new)`` of the exact
        kernel: :math:`\sqrt{s}(\phi(x) - \bar\phi)`.

        Parameters
        ----------
        X : ndarray of shape (n_new, n_features)

        Returns
        -------
        Phi_new : ndarray of shape (n_new, r)
        """
        check_is_fitted(self, "scale_")
        if getattr(self, "nystroem_normalization_", None) is None:
            raise ValueError("This ViewKernel was fitted with fit_kernel (exact kernel); "
                             "transform_features needs fit_features (Nystroem).")
        dtype = output_dtype(X)
        X = self._input(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"The view has {X.shape[1]} features but was fitted with {self.n_features_in_}."
            )
        Phi = self._raw(X, self.landmarks_) @ self.nystroem_normalization_
        return ((Phi - self.feature_mean_) * np.sqrt(self.scale_)).astype(dtype, copy=False)

    @managed_threads
    @checked_parameters
    def fit(self, X, y=None):
        """Fit on the training view (see :meth:`fit_kernel`). Returns self."""
        self.fit_kernel(X)
        return self

    @managed_threads
    def transform(self, X):
        """Processed kernel between new samples and the training samples.

        Parameters
        ----------
        X : ndarray of shape (n_new, n_features) or (n_new, n_train)
            New samples of the view (kernel rows against the training samples when
            ``kernel='precomputed'``).

        Returns
        -------
        K : ndarray of shape (n_new, n_train)
        """
        check_is_fitted(self, "scale_")
        if getattr(self, "nystroem_normalization_", None) is not None:
            raise ValueError("This ViewKernel was fitted with fit_features (Nystroem): use "
                             "transform_features; transform gives exact kernel rows.")
        dtype = output_dtype(X)
        X = self._input(X)
        if self.kernel == "precomputed":
            if X.shape[1] != self.n_train_:
                raise ValueError(
                    f"With kernel='precomputed' the view must be the kernel between new and "
                    f"training samples, with {self.n_train_} columns (one per training sample); "
                    f"got shape {X.shape}."
                )
            K = X
        else:
            if X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"The view has {X.shape[1]} features but was fitted with "
                    f"{self.n_features_in_}."
                )
            K = self._raw(X, self.X_fit_)
        if self.psd_basis_ is not None:
            K = (K @ self.psd_basis_) @ self.psd_basis_.T
        return (self.centerer_.transform(K) * self.scale_).astype(dtype, copy=False)


def _landmark_normalization(vk, Kmm, L, landmarks, rank_tol=None):
    r"""Set the landmarks of a :class:`ViewKernel` and :math:`U_+\Lambda_+^{-1/2}` of ``Kmm``."""
    lam, U = linalg.eigh((Kmm + Kmm.T) / 2.0)
    top = max(lam[-1], 0.0)
    tol = (len(L) * np.finfo(np.float64).eps if rank_tol is None else rank_tol) * top
    keep = lam > max(tol, np.finfo(np.float64).tiny)
    if not np.any(keep):
        raise ValueError(
            "This view gives a zero kernel on the landmarks: every sample looks the same. "
            "Remove the view or change its kernel or sigma."
        )
    vk.landmarks_ = L
    vk.landmark_indices_ = landmarks
    vk.nystroem_normalization_ = U[:, keep] / np.sqrt(lam[keep])


def _feature_scale(vk, feature_mean, trace, raw_trace, n):
    """Set the mean feature and the normalising scale from the centred and raw feature traces."""
    if not trace > 1e-12 * max(raw_trace, np.finfo(float).tiny):
        raise ValueError(
            "This view gives a constant kernel (zero variance in feature space): every sample "
            "looks the same. Remove the view or change its kernel or sigma."
        )
    vk.feature_mean_ = feature_mean
    vk.scale_ = {"mean_diag": n / trace, "trace": 1.0 / trace, None: 1.0}[vk.normalize]


def make_view_kernels(kernels, n_views):
    """One unfitted :class:`ViewKernel` per view from a specification.

    ``kernels`` is a kind name (``'rbf'``, ...), a dict of :class:`ViewKernel` parameters, a
    :class:`ViewKernel`, or a list/tuple of those with one entry per view.
    """
    if isinstance(kernels, (list, tuple)):
        if len(kernels) != n_views:
            raise ValueError(
                f"kernels lists {len(kernels)} specifications but there are {n_views} views; "
                "give one per view or a single specification for all."
            )
        specs = list(kernels)
    else:
        specs = [kernels] * n_views
    out = []
    for m, spec in enumerate(specs):
        if isinstance(spec, ViewKernel):
            out.append(clone(spec))
        elif isinstance(spec, str):
            check_option(spec, f"kernels[{m}]", set(_KINDS))
            out.append(ViewKernel(spec))
        elif isinstance(spec, dict):
            try:
                out.append(ViewKernel(**spec))
            except TypeError as exc:
                raise ValueError(f"kernels[{m}] has an unknown parameter: {exc}") from exc
        else:
            raise ValueError(
                f"kernels[{m}] must be one of {list(_KINDS)}, a dict of ViewKernel parameters or "
                f"a ViewKernel; got {spec!r}."
            )
    return out
