r"""Multi-view data: one base kernel per view, view validation, baselines and a test data set.

A *view* is one feature representation of the same samples (pixels, histograms, ...): an array
of shape ``(n_samples, n_features_m)``, or an ``n x n`` kernel matrix. Views are passed as a
Python list with the same number of rows in every entry, the convention of multi-view libraries.

Base kernels (paper 001, eq. 8) turn every view into a kernel matrix on the training samples:

.. math::

    K_m(i, j) = \exp\!\big(-d_m^2(x_{i,m}, x_{j,m}) / \sigma_m^2\big),

with ``d_m`` the Euclidean (``'rbf'``), chi-squared (``'chi2'``) or any other distance
(``'distance'``), or the linear kernel, or a precomputed matrix. :class:`ViewKernel` then

1. repairs an indefinite matrix by clipping its negative eigenvalues (new samples are projected
   on the same positive eigenspace, so training rows are reproduced exactly);
2. centres it in feature space (the statistics of the training kernel are kept for new rows);
3. scales it so that its *centred* mean diagonal is 1 (``normalize='mean_diag'``: unit average
   feature-space variance) or its centred trace is 1 (``'trace'``), so that no view dominates a
   combination :math:`\sum_m \beta_m K_m` by scale alone.

:meth:`ViewKernel.fit_features` is the Nystroem counterpart of :meth:`ViewKernel.fit_kernel`:
landmark features :math:`\Phi` (``n x r``, ``r <=`` number of landmarks) with
:math:`\Phi\Phi^\top` the repaired, centred and normalised kernel of the same steps applied to
the landmark approximation, in ``O(n r)`` memory (used by ``MKLDR(approximation='nystroem')``).

Baselines of paper 001 (Table 1): :class:`KFD` (kernel Fisher discriminant of one view plus the
1-nearest-neighbour rule), :class:`KFDVoting` (vote of the per-view 1-NN decisions, ties broken by
the next neighbours) and :class:`KFDSAMME` (per-view KFD + 1-NN learners combined by multi-class
AdaBoost, SAMME).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.metrics.pairwise import additive_chi2_kernel, pairwise_distances
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import KernelCenterer
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_int, check_labels, check_option, check_positive
from .kernel_methods import KernelLDA
from .linear import LDA
from .sampling import landmark_indices, row_keys, stratified_folds
from .spaces import resolve_approximation

__all__ = [
    "ViewKernel",
    "check_views",
    "make_view_kernels",
    "KFD",
    "KFDVoting",
    "KFDSAMME",
    "make_multiview_digits",
]

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
        Width used (None for linear and precomputed kernels).
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

    def __init__(self, kernel="rbf", *, sigma=None, metric="euclidean", normalize="mean_diag",
                 repair="auto"):
        self.kernel = kernel
        self.sigma = sigma
        self.metric = metric
        self.normalize = normalize
        self.repair = repair

    @staticmethod
    def _as_real(X):
        if np.iscomplexobj(X):
            raise ValueError("ViewKernel needs a real view; got complex values (pass the real and "
                             "imaginary parts, or the modulus, as real features).")
        return np.asarray(X, dtype=np.float64)

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

    def _sq_dist(self, X, Y):
        if self.kernel == "rbf":
            return np.maximum(pairwise_distances(X, Y, metric="sqeuclidean"), 0.0)
        if self.kernel == "chi2":
            for arr in (X, Y):
                if np.any(arr < 0):
                    raise ValueError(
                        "kernel='chi2' needs non-negative features (histograms); the view has "
                        "negative values. Use kernel='rbf' or 'distance' for signed features."
                    )
            return np.maximum(-additive_chi2_kernel(X, Y), 0.0)
        return pairwise_distances(X, Y, metric=self.metric) ** 2

    def _raw(self, X, Y):
        if self.kernel == "linear":
            return X @ Y.T
        return np.exp(-self._sq_dist(X, Y) / self.sigma_**2)

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
        X = self._as_real(X)
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
        X = self._as_real(X)
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
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"The view must be a 2-D array; got shape {X.shape}.")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"The view has {X.shape[1]} features but was fitted with {self.n_features_in_}."
            )
        Phi = self._raw(X, self.landmarks_) @ self.nystroem_normalization_
        return (Phi - self.feature_mean_) * np.sqrt(self.scale_)

    def fit(self, X, y=None):
        """Fit on the training view (see :meth:`fit_kernel`). Returns self."""
        self.fit_kernel(X)
        return self

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
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"The view must be a 2-D array; got shape {X.shape}.")
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
        return self.centerer_.transform(K) * self.scale_


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


def _chunk_sq_dist_sum(Xb, vk, L):
    return np.full((1, 1), float(np.sum(vk._sq_dist(np.asarray(Xb, dtype=np.float64), L))))


def _chunk_raw_features(Xb, vk):
    Xb = np.asarray(Xb, dtype=np.float64)
    if not np.all(np.isfinite(Xb)):
        raise ValueError("A view contains NaN or infinite values.")
    return vk._raw(Xb, vk.landmarks_) @ vk.nystroem_normalization_


def lazy_landmark_features(vk, X, landmarks, L, *, rank_tol=None):
    r"""The Dask counterpart of :meth:`ViewKernel.fit_features`, up to the centring and scale.

    ``X`` is a ``dask.array`` view (one column chunk), ``L`` its rows ``landmarks`` (computed).
    Sets the width (the mean of :math:`d^2` over pairs of distinct samples for ``'rbf'``, in
    closed form from the view's centred sum of squares; over (sample, landmark) pairs
    otherwise, one reduction over the chunks) and the landmark normalisation, and returns the
    lazy uncentred features :math:`\Phi_0 = k(X, L)\,U_+\Lambda_+^{-1/2}` (``n x r``, per chunk
    by ``map_blocks``). :func:`finish_landmark_features` then sets the mean feature and the
    scale from their statistics. Nothing of size ``n`` is computed here except reductions.
    """
    import dask.array as da

    vk._check_params()
    n = X.shape[0]
    vk.n_features_in_, vk.n_train_ = int(X.shape[1]), int(n)
    vk.X_fit_ = vk.psd_basis_ = vk.centerer_ = vk.sigma_ = None
    L = vk._as_real(L)
    if not np.all(np.isfinite(L)):
        raise ValueError("A view contains NaN or infinite values (in a landmark row).")
    if vk.kernel != "linear":
        if vk.sigma in (None, "auto"):
            if vk.kernel == "rbf":  # sum_ij |x_i - x_j|^2 = 2 n sum_i |x_i - mean|^2
                Xf = X.astype(np.float64)
                mean = 2.0 * float(((Xf - Xf.mean(axis=0)) ** 2).sum().compute()) / max(n - 1, 1)
            else:
                sums = X.map_blocks(_chunk_sq_dist_sum, vk, L, dtype=np.float64,
                                    chunks=((1,) * len(X.chunks[0]), (1,)))
                mean = float(da.sum(sums).compute()) / max(n * len(L) - len(L), 1)
            if not np.isfinite(mean):
                raise ValueError("A view contains NaN or infinite values.")
            if not mean > 0:
                raise ValueError(
                    "Every pair of samples is at distance 0 in this view (constant "
                    "view): a data-driven sigma cannot be set."
                )
            vk.sigma_ = float(np.sqrt(mean))
        else:
            vk.sigma_ = float(vk.sigma)
    Kmm = vk._raw(L.copy(), L)  # as the rows of k(X, L) in memory (no zeroed diagonal)
    _landmark_normalization(vk, Kmm, L, np.asarray(landmarks, dtype=np.intp), rank_tol)
    r = vk.nystroem_normalization_.shape[1]
    return X.map_blocks(_chunk_raw_features, vk, dtype=np.float64, chunks=(X.chunks[0], (r,)))


def finish_landmark_features(vk, feature_mean, centred_gram, n):
    r"""Mean feature and scale of a view from the statistics of its lazy features
    (:func:`lazy_landmark_features`): the centred trace is :math:`\operatorname{tr} G_c`, the
    raw one :math:`\operatorname{tr} G_c + n \lVert\bar\phi\rVert^2`. Returns the scale."""
    trace = float(np.trace(centred_gram))
    _feature_scale(vk, feature_mean, trace, trace + n * float(feature_mean @ feature_mean), n)
    return vk.scale_


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


# ----- baselines ----------------------------------------------------------------------------
def _labels_of_neighbours(nn, train_labels, X=None, k=1):
    """Labels of the k nearest training samples; X=None: training samples, self excluded."""
    k = min(k, nn.n_samples_fit_ - (1 if X is None else 0))
    _, idx = nn.kneighbors(X, n_neighbors=k)
    return train_labels[idx]


class KFD(ClassifierMixin, TransformerMixin, BaseEstimator):
    r"""Kernel Fisher discriminant of one view followed by the 1-nearest-neighbour rule.

    .. math::

        \min_a \frac{a^\top \tilde K L(W) \tilde K a}{a^\top(\tilde K L(W_t) \tilde K
        + \epsilon \tilde K) a},
        \qquad \hat y(x) = y_{\arg\min_i \lVert A^\top \tilde k(x) - A^\top \tilde k(x_i)\rVert},

    i.e. :class:`graphdr.KernelLDA` on the base kernel :class:`ViewKernel` of the view, then 1-NN
    in the embedding (paper 001's KFD baseline).

    Parameters
    ----------
    kernel : str, dict or ViewKernel, default='rbf'
        Base kernel specification (see :func:`make_view_kernels`).
    n_components : int or None, default=None
        At most ``n_classes - 1``.
    reg : float, default=1e-3
        Relative ridge of :class:`graphdr.KernelLDA`.
    scaling : {'within', 'total', 'none'}, default='within'
        Metric of the embedding (:class:`graphdr.KernelLDA`'s ``scaling``).
    approximation : {'auto', None, 'nystroem'}, default='auto'
        None: the exact ``n x n`` base kernel and :class:`graphdr.KernelLDA` on it.
        ``'nystroem'``: the base kernel's landmark features :math:`\Phi`
        (:meth:`ViewKernel.fit_features`, ``n_landmarks`` landmarks drawn with
        ``random_state``; :math:`\Phi\Phi^\top \approx \tilde K`) and :class:`graphdr.LDA`
        on them with the same relative ridge and scaling: ``O(n m)`` memory. ``'auto'``: exact
        up to 3,000 samples (the exact base kernel is processed with several ``n x n``
        copies), ``'nystroem'`` above (exact for a precomputed kernel).
    n_landmarks : int, default=500
    random_state : int, RandomState instance or None, default=None
        Seed of the landmarks.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    view_kernel_ : ViewKernel
    kfd_ : KernelLDA or LDA
        Fitted on the processed kernel (``kernel='precomputed'``), or :class:`graphdr.LDA` on
        its landmark features (``approximation_ == 'nystroem'``).
    approximation_ : None or 'nystroem'
        The choice of ``approximation='auto'``.
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
    n_features_in_ : int
    """

    def __init__(self, kernel="rbf", *, n_components=None, reg=1e-3, scaling="within",
                 approximation="auto", n_landmarks=500, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the base kernel, kernel LDA and the 1-NN index on one view."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y_enc, _ = check_labels(y, method="KFD")
        self.view_kernel_ = make_view_kernels(self.kernel, 1)[0]
        n = X.shape[0]
        self.approximation_ = resolve_approximation(
            self.approximation, n, exact_only=self.view_kernel_.kernel == "precomputed")
        if self.approximation_ == "nystroem":
            check_int(self.n_landmarks, "n_landmarks", min_value=2)
            landmarks = landmark_indices(X, self.n_landmarks, self.random_state)
            Phi = self.view_kernel_.fit_features(X, landmarks)
            self.kfd_ = LDA(n_components=self.n_components, reg=self.reg,
                            scaling=self.scaling).fit(Phi, y_enc)
            self.embedding_ = self.kfd_.transform(Phi)
        else:
            K = self.view_kernel_.fit_kernel(X)
            self.kfd_ = KernelLDA(n_components=self.n_components, kernel="precomputed",
                                  reg=self.reg, scaling=self.scaling).fit(K, y_enc)
            self.embedding_ = self.kfd_.embedding_
        self.n_components_ = self.kfd_.n_components_
        self._y_fit = y_enc
        self._nn = NearestNeighbors().fit(self.embedding_)
        return self

    def transform(self, X):
        """Embedding of new samples, shape (n_samples, n_components_)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if self.approximation_ == "nystroem":
            return self.kfd_.transform(self.view_kernel_.transform_features(X))
        return self.kfd_.transform(self.view_kernel_.transform(X))

    def neighbour_labels(self, X=None, k=1):
        """Encoded labels of the ``k`` nearest training samples in the embedding.

        ``X=None`` uses the training samples, each excluding itself (leave-one-out).
        """
        check_is_fitted(self)
        Z = None if X is None else self.transform(X)
        return _labels_of_neighbours(self._nn, self._y_fit, Z, k)

    def predict(self, X):
        """1-NN class in the discriminant embedding."""
        check_is_fitted(self)
        return self.classes_[self.neighbour_labels(X, 1)[:, 0]]


class _MultiViewKFDBase(ClassifierMixin, BaseEstimator):
    def _fit_views(self, Xs, y):
        views = check_views(Xs)
        self.classes_, y_enc, _ = check_labels(y, method=type(self).__name__)
        if len(y_enc) != views[0].shape[0]:
            raise ValueError(
                f"y has {len(y_enc)} labels but the views have {views[0].shape[0]} rows."
            )
        specs = make_view_kernels(self.kernels, len(views))
        self.estimators_ = [self._kfd(spec).fit(V, y_enc) for spec, V in zip(specs, views)]
        self.n_views_ = len(views)
        return views, y_enc

    def _kfd(self, spec):
        return KFD(kernel=spec, n_components=self.n_components, reg=self.reg,
                   scaling=self.scaling, approximation=self.approximation,
                   n_landmarks=self.n_landmarks, random_state=self.random_state)

    def _check_predict_views(self, Xs):
        check_is_fitted(self)
        return check_views(Xs, n_views=self.n_views_)


class KFDVoting(_MultiViewKFDBase):
    r"""Vote of per-view KFD + 1-NN classifiers (paper 001's KFD-Voting).

    .. math:: \hat y(x) = \arg\max_c \sum_{m=1}^{M} [\,h_m(x) = c\,],

    with :math:`h_m` the 1-NN decision in the KFD embedding of view ``m``. A tie is broken by
    adding the votes of the second nearest neighbour of every view, then the third, and so on
    (up to ``max_neighbors``); a tie that remains goes to the first tied class.

    Parameters
    ----------
    kernels : str, dict, ViewKernel or list of those, default='rbf'
        Base kernel of each view (see :func:`make_view_kernels`).
    n_components : int or None, default=None
    reg : float, default=1e-3
    scaling : {'within', 'total', 'none'}, default='within'
        Metric of each view's embedding (:class:`graphdr.KernelLDA`'s ``scaling``).
    max_neighbors : int, default=10
    approximation, n_landmarks, random_state
        Of each view's :class:`KFD` (``'auto'``: exact up to 3,000 samples, Nystroem above).

    Attributes
    ----------
    estimators_ : list of KFD
    classes_ : ndarray
    n_views_ : int
    """

    def __init__(self, kernels="rbf", *, n_components=None, reg=1e-3, scaling="within",
                 max_neighbors=10, approximation="auto", n_landmarks=500, random_state=None):
        self.kernels = kernels
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.max_neighbors = max_neighbors
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    def fit(self, Xs, y):
        """Fit one KFD per view. ``Xs`` is a list of views."""
        check_int(self.max_neighbors, "max_neighbors")
        self._fit_views(Xs, y)
        return self

    def predict(self, Xs):
        """Voted class of every sample."""
        views = self._check_predict_views(Xs)
        n, C = views[0].shape[0], len(self.classes_)
        labels = np.stack([est.neighbour_labels(V, self.max_neighbors)
                           for est, V in zip(self.estimators_, views)], axis=1)  # n x M x k
        votes = np.zeros((n, C))
        decided = np.zeros(n, dtype=bool)
        out = np.zeros(n, dtype=np.intp)
        rows = np.arange(n)
        for j in range(labels.shape[2]):
            for m in range(labels.shape[1]):
                np.add.at(votes, (rows, labels[:, m, j]), 1.0)
            top = votes.max(axis=1)
            unique = (votes == top[:, None]).sum(axis=1) == 1
            new = unique & ~decided
            out[new] = np.argmax(votes[new], axis=1)
            decided |= unique
            if decided.all():
                break
        out[~decided] = np.argmax(votes[~decided], axis=1)
        return self.classes_[out]


class KFDSAMME(_MultiViewKFDBase):
    r"""Per-view KFD + 1-NN classifiers boosted by SAMME (multi-class AdaBoost; paper 001).

    .. math::

        \hat y(x) = \arg\max_c \sum_{t=1}^{T} \alpha_t [\,h_{m_t}(x) = c\,], \qquad
        \alpha_t = \log\frac{1 - e_t}{e_t} + \log(C - 1),

    where round ``t`` picks the view ``m_t`` whose learner has the smallest weighted training
    error :math:`e_t` and multiplies the weights of its misclassified samples by
    :math:`e^{\alpha_t}`. The weak learners are the fixed per-view KFD + 1-NN classifiers (a
    pool of ``M``, one per view, each possibly chosen several times). A 1-NN rule is always
    right on its own training points, and a KFD fitted on all training samples nearly collapses
    each training class, so the training decisions used for the errors are *cross-fitted*
    (``cv`` folds: each sample is classified by a KFD + 1-NN fitted without its fold) or, with
    ``cv=None``, leave-one-out in the full KFD embedding (cheaper, optimistic). Boosting stops
    early when no learner beats chance (:math:`e_t \ge 1 - 1/C`) or one is perfect.

    Parameters
    ----------
    kernels : str, dict, ViewKernel or list of those, default='rbf'
    n_components : int or None, default=None
    reg : float, default=1e-3
    scaling : {'within', 'total', 'none'}, default='within'
        Metric of each view's embedding (:class:`graphdr.KernelLDA`'s ``scaling``).
    n_estimators : int, default=50
        Boosting rounds.
    cv : int or None, default=3
        Folds of the cross-fitted training decisions (stratified, deterministic); None for
        leave-one-out decisions in the full embedding.
    approximation, n_landmarks, random_state
        Of each view's :class:`KFD` (``'auto'``: exact up to 3,000 samples, Nystroem above).

    Attributes
    ----------
    estimators_ : list of KFD
    learner_indices_ : ndarray of shape (n_rounds,)
        View chosen at each round.
    learner_weights_ : ndarray of shape (n_rounds,)
        :math:`\alpha_t`.
    learner_errors_ : ndarray of shape (n_rounds,)
    training_mistakes_ : ndarray of shape (n_views, n_samples), bool
        Training decisions of each view's learner that were wrong (cross-fitted or LOO).
    classes_ : ndarray
    n_views_ : int
    """

    def __init__(self, kernels="rbf", *, n_components=None, reg=1e-3, scaling="within",
                 n_estimators=50, cv=3, approximation="auto", n_landmarks=500,
                 random_state=None):
        self.kernels = kernels
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.n_estimators = n_estimators
        self.cv = cv
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    def _training_mistakes(self, views, y_enc):
        """M x n boolean matrix: is the learner of view m wrong on training sample i?"""
        if self.cv is None:
            return np.stack([est.neighbour_labels(None, 1)[:, 0] != y_enc
                             for est in self.estimators_])
        specs = make_view_kernels(self.kernels, len(views))
        # folds dealt by the rows' content: the same whatever the row order
        keys = row_keys(views, precomputed=[s.kernel == "precomputed" for s in specs])
        folds = stratified_folds(y_enc, self.cv, keys)
        pred = np.empty((len(views), len(y_enc)), dtype=np.intp)
        for tr, te in folds:
            if len(np.unique(y_enc[tr])) < 2:
                raise ValueError("KFDSAMME: a cross-fitting fold has a single class; lower cv.")
            for m, (spec, V) in enumerate(zip(specs, views)):
                est = self._kfd(spec).fit(V[tr], y_enc[tr])
                pred[m, te] = est.predict(V[te])
        return pred != y_enc[None, :]

    def fit(self, Xs, y):
        """Fit one KFD per view, then the SAMME weights. ``Xs`` is a list of views."""
        check_int(self.n_estimators, "n_estimators")
        if self.cv is not None:
            check_int(self.cv, "cv", min_value=2)
        views, y_enc = self._fit_views(Xs, y)
        n, C = len(y_enc), len(self.classes_)
        wrong = self._training_mistakes(views, y_enc)  # M x n
        w = np.full(n, 1.0 / n)
        idx, alphas, errors = [], [], []
        for _ in range(self.n_estimators):
            err = wrong @ w / w.sum()
            m = int(np.argmin(err))
            e = float(err[m])
            if e >= 1.0 - 1.0 / C:
                break
            if e <= 0:
                idx.append(m)
                alphas.append(1.0)
                errors.append(0.0)
                break
            alpha = np.log((1.0 - e) / e) + np.log(C - 1.0)
            idx.append(m)
            alphas.append(alpha)
            errors.append(e)
            w = w * np.exp(alpha * wrong[m])
            w /= w.sum()
        if not idx:  # no learner beats chance: fall back to the best one alone
            idx, alphas, errors = [int(np.argmin(wrong.mean(axis=1)))], [1.0], [
                float(wrong.mean(axis=1).min())]
        self.learner_indices_ = np.asarray(idx, dtype=np.intp)
        self.learner_weights_ = np.asarray(alphas)
        self.learner_errors_ = np.asarray(errors)
        self.training_mistakes_ = wrong
        return self

    def predict(self, Xs):
        """Weighted vote of the boosted per-view learners."""
        views = self._check_predict_views(Xs)
        n, C = views[0].shape[0], len(self.classes_)
        used = np.unique(self.learner_indices_)
        preds = {m: self.estimators_[m].neighbour_labels(views[m], 1)[:, 0] for m in used}
        scores = np.zeros((n, C))
        rows = np.arange(n)
        for m, a in zip(self.learner_indices_, self.learner_weights_):
            scores[rows, preds[m]] += a
        return self.classes_[np.argmax(scores, axis=1)]


# ----- a multi-view data set -------------------------------------------------------------
def _orientation_histograms(images, n_bins=8, cells=2):
    """Gradient-orientation histograms (signed, magnitude-weighted) on a cells x cells grid."""
    gy, gx = np.gradient(images, axis=(1, 2))
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), 2 * np.pi)
    b = np.minimum((ang / (2 * np.pi) * n_bins).astype(int), n_bins - 1)
    n, h, w = images.shape
    out = np.zeros((n, cells, cells, n_bins))
    ch, cw = h // cells, w // cells
    for i in range(cells):
        for j in range(cells):
            sl = (slice(None), slice(i * ch, (i + 1) * ch), slice(j * cw, (j + 1) * cw))
            mb, bb = mag[sl].reshape(n, -1), b[sl].reshape(n, -1)
            for k in range(n_bins):
                out[:, i, j, k] = np.sum(mb * (bb == k), axis=1)
    out = out.reshape(n, -1)
    return out / (out.sum(axis=1, keepdims=True) + 1e-12)


def _moments(images):
    """Mass, centroid and scale-normalised central moments of orders 2 and 3."""
    n, h, w = images.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    m00 = images.sum(axis=(1, 2)) + 1e-12
    cy = (images * yy).sum(axis=(1, 2)) / m00
    cx = (images * xx).sum(axis=(1, 2)) / m00
    feats = [m00, cy, cx]
    dy, dx = yy[None] - cy[:, None, None], xx[None] - cx[:, None, None]
    for p, q in [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]:
        mu = (images * dx**p * dy**q).sum(axis=(1, 2)) / m00
        feats.append(mu)
    F = np.column_stack(feats)
    return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-12)


def _fourier(images, k=4):
    """Magnitudes of the low 2-D Fourier frequencies (translation invariant, phase lost)."""
    F = np.abs(np.fft.fft2(images))[:, :k, :k].reshape(len(images), -1)
    F = np.log1p(F)
    return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-12)


_DIGIT_VIEWS = {
    "pixels": ("4x4 mean-pooled pixels", "rbf"),
    "orientation": ("gradient-orientation histograms, 2x2 cells x 8 bins", "chi2"),
    "fourier": ("log magnitudes of the 4x4 lowest 2-D Fourier frequencies", "rbf"),
    "moments": ("mass, centroid and central moments of orders 2-3", "rbf"),
    "profiles": ("row and column ink profiles", "rbf"),
    "noise": ("pure Gaussian noise, independent of the label", "rbf"),
}


def make_multiview_digits(views=("pixels", "orientation", "fourier", "moments", "noise"), *,
                          n_samples=None, random_state=0, return_X_y=False):
    """Several incomplete descriptors of scikit-learn's 8x8 digits (1797 images, 10 classes).

    Each view alone is informative but loses information, so that combining them pays:

    ``'pixels'``
        the image mean-pooled to 4x4 (16 features; fine strokes are lost);
    ``'orientation'``
        gradient-orientation histograms on a 2x2 grid, 8 signed bins, L1-normalised per sample
        (32 features; use a chi-squared kernel);
    ``'fourier'``
        log magnitudes of the 4x4 lowest 2-D Fourier frequencies (16 features; the phase, hence
        the position of strokes, is lost);
    ``'moments'``
        mass, centroid and the seven central moments of orders 2 and 3 (10 features);
    ``'profiles'``
        ink sums per row and per column (16 features);
    ``'noise'``
        16 features of pure standard Gaussian noise, independent of the label.

    Parameters
    ----------
    views : sequence of str
        Views to build, in order, from the names above.
    n_samples : int or None, default=None
        None takes the 1797 digits. A larger number appends copies of randomly chosen digits
        shifted by one pixel (up, down, left or right) until ``n_samples`` are reached; a
        smaller one takes a random subset (not stratified).
    random_state : int, RandomState or None, default=0
        Seeds the noise view and the subset / shifts.
    return_X_y : bool, default=False
        Return ``(views, y)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``views`` (list of arrays), ``target``, ``view_names``, ``descriptions`` and
        ``kernels`` (a suggested base-kernel kind per view).
    """
    from sklearn.datasets import load_digits

    rng = check_random_state(random_state)
    unknown = [v for v in views if v not in _DIGIT_VIEWS]
    if unknown or len(views) == 0:
        raise ValueError(f"views must be a non-empty list from {sorted(_DIGIT_VIEWS)}; got "
                         f"{list(views)!r}.")
    digits = load_digits()
    images, y = digits.images.astype(float), digits.target
    if n_samples is not None:
        if not isinstance(n_samples, numbers.Integral) or n_samples < 20:
            raise ValueError(f"n_samples must be an integer >= 20 or None; got {n_samples!r}.")
        if n_samples <= len(y):
            idx = rng.choice(len(y), size=n_samples, replace=False)
            images, y = images[idx], y[idx]
        else:
            extra = rng.choice(len(y), size=n_samples - len(y), replace=True)
            shifts = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            new = []
            for i in extra:
                dy, dx = shifts[rng.randint(4)]
                new.append(np.roll(images[i], (dy, dx), axis=(0, 1)))
            images = np.concatenate([images, np.array(new)])
            y = np.concatenate([y, y[extra]])
    n = len(y)
    builders = {
        "pixels": lambda: images.reshape(n, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(n, -1),
        "orientation": lambda: _orientation_histograms(images),
        "fourier": lambda: _fourier(images),
        "moments": lambda: _moments(images),
        "profiles": lambda: np.hstack([images.sum(axis=2), images.sum(axis=1)]),
        "noise": lambda: rng.standard_normal((n, 16)),
    }
    Xs = [builders[v]() for v in views]
    if return_X_y:
        return Xs, y
    return Bunch(views=Xs, target=y, view_names=list(views),
                 descriptions=[_DIGIT_VIEWS[v][0] for v in views],
                 kernels=[_DIGIT_VIEWS[v][1] for v in views])
