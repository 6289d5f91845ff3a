r"""MKL-DR on Dask views: validation, the landmark problem chunk by chunk, lazy transform."""

from __future__ import annotations

import numpy as np

from .._validation import check_labels
from ..blocks.sampling import landmark_indices
from ..blocks.stats import class_statistics, is_dask_array, raise_if_nonfinite
from ..graph_embedding.spaces import take_rows
from .problems import (
    _LandmarkProblem,
)
from .views import _feature_scale, _landmark_normalization


# ----- landmark features of a Dask view ---------------------------------------------------------
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
    vk._input_scale = 1.0  # a Dask view is taken at its own scale
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



# ----- Dask views (Nystroem, LDA's graphs) -----------------------------------------------------
def _check_dask_views(estimator, Xs, y):
    """Views given as ``dask.array``: what the lazy path supports, checked without computing.

    Returns the views (one column chunk each, row chunks of the first view) and the encoded
    labels (computed: one per sample).
    """
    if not all(is_dask_array(X) for X in Xs):
        raise ValueError("Give every view as a dask array, or none: a list mixing dask and "
                         "in-memory views is not supported.")
    if estimator.approximation not in ("nystroem", "auto"):
        raise ValueError(
            "MKLDR on dask views needs approximation='nystroem' (with n_landmarks): the exact "
            "base kernels are n x n matrices in memory. Pass approximation='nystroem', or "
            "compute the views."
        )
    if estimator.graph != "lda":
        raise ValueError(
            f"MKLDR(graph={estimator.graph!r}) on dask views is not supported: LDE's "
            "neighbour graphs need every sample's features in memory. Use graph='lda', or "
            "compute the views."
        )
    if isinstance(estimator.weight_shrinkage, str):
        raise ValueError(
            "weight_shrinkage='auto' chooses the shrinkage by an inner cross-validation that "
            "refits on folds, which is not done on dask views: pass a number in [0, 1] (0 is "
            "the paper's weights, 1 equal weights), for example the one 'auto' chooses on an "
            "in-memory subsample (its weight_shrinkage_)."
        )
    views = []
    for m, X in enumerate(Xs):
        if any(np.isnan(c) for c in X.chunks[0]):
            raise ValueError(f"View {m} has unknown chunk sizes; call compute_chunk_sizes() "
                             "first.")
        if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
            raise ValueError(f"View {m} must be a 2-D array with at least 2 samples and 1 "
                             f"feature; got shape {X.shape}.")
        if X.dtype.kind not in "fiub":
            raise ValueError(f"View {m} must be numeric; got dtype {X.dtype}.")
        if X.shape[0] != Xs[0].shape[0]:
            raise ValueError("All views must have the same number of rows (samples); got "
                             f"{[V.shape[0] for V in Xs]}.")
        views.append(X.rechunk((Xs[0].chunks[0], -1)))
    y = np.asarray(y.compute() if is_dask_array(y) else y)
    classes, y_enc, _ = check_labels(y, min_per_class=1, method="MKLDR")
    if len(y_enc) != views[0].shape[0]:
        raise ValueError(f"y has {len(y_enc)} labels but the views have {views[0].shape[0]} rows.")
    return views, y_enc, classes


def _dask_landmark_problem(estimator, views, kernels, y_enc):
    r""":class:`_LandmarkProblem` of dask views from one pass over the data.

    The landmark rows are computed (the same rows as in memory for the same ``random_state``),
    each view's uncentred features are computed per chunk
    (:func:`graphdr.multiview.lazy_landmark_features`) and reduced with the labels to class
    statistics of the stacked features (:func:`graphdr.blocks.stats.class_statistics`): mean, centred
    Gram matrix :math:`G_c` and centred class sums :math:`	ilde U`. With the per-view scales
    :math:`s_m` (from the diagonal blocks of :math:`G_c`) and
    :math:`S = \operatorname{diag}(\sqrt{s_m})`, the problem's matrices are :math:`S G_c S`
    and :math:`	ilde U S`: the features of the in-memory path, never formed.
    """
    import dask.array as da

    n = views[0].shape[0]
    landmarks = landmark_indices(views, estimator.n_landmarks, estimator.random_state)
    feats = [lazy_landmark_features(vk, V, landmarks, take_rows(V, landmarks),
                                    rank_tol=None) for vk, V in zip(kernels, views)]
    stats = class_statistics(da.concatenate(feats, axis=1), y_enc,
                             n_classes=int(y_enc.max()) + 1)
    raise_if_nonfinite(stats, "Xs")
    offsets = np.concatenate([[0], np.cumsum([F.shape[1] for F in feats])])
    blocks = [slice(int(a), int(b)) for a, b in zip(offsets[:-1], offsets[1:])]
    G, mean = stats.centered_gram(), stats.mean
    d = np.concatenate([
        np.full(b.stop - b.start, np.sqrt(finish_landmark_features(vk, mean[b], G[b, b], n)))
        for vk, b in zip(kernels, blocks)])
    problem = _LandmarkProblem.from_statistics(
        G * d[:, None] * d[None, :], stats.centered_class_sums() * d[None, :], y_enc, blocks,
        *estimator._graphs(None, y_enc))
    problem.landmarks = landmarks
    return problem


def _view_embedding(V, estimator, m):
    """View ``m``'s term of :math:`A^\top \tilde K(z)\beta` for the rows ``V`` of that view."""
    V = np.asarray(V, dtype=np.float64)
    if not np.all(np.isfinite(V)):
        raise ValueError(f"View {m} contains NaN or infinite values.")
    vk = estimator.view_kernels_[m]
    if hasattr(estimator, "components_"):
        W_m = estimator.components_[:, estimator.landmark_feature_slices_[m]]
        return vk.transform_features(V) @ W_m.T
    return estimator.kernel_weights_[m] * (vk.transform(V) @ estimator.dual_coef_)


def _lazy_transform(estimator, Xs):
    """``transform`` of dask views: a lazy dask array (row chunks of the first view)."""
    if len(Xs) != estimator.n_views_ or not all(is_dask_array(X) for X in Xs):
        raise ValueError(f"Xs must hold {estimator.n_views_} views, all dask arrays or none; got "
                         f"{len(Xs)} views of types {[type(X).__name__ for X in Xs]}.")
    rows, parts = Xs[0].chunks[0], []
    for m, (vk, V, b) in enumerate(zip(estimator.view_kernels_, Xs, estimator.kernel_weights_)):
        width = vk.n_train_ if vk.kernel == "precomputed" else estimator.n_features_in_views_[m]
        if V.ndim != 2 or V.shape != (Xs[0].shape[0], width):
            raise ValueError(f"View {m} must have shape ({Xs[0].shape[0]}, {width}); got "
                             f"{V.shape}.")
        if b != 0:
            parts.append(V.rechunk((rows, -1)).map_blocks(
                _view_embedding, estimator, m, dtype=np.float64,
                chunks=(rows, (estimator.n_components_,))))
    return sum(parts[1:], parts[0])
