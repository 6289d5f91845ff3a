r"""Choices from the data for MKL-DR: the shrinkage of the learned weights towards equal
weights, and the widths of ``'auto'`` base kernels."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ..blocks import graphs as _graphs
from ..blocks.sampling import canonical_order, row_keys, stratified_folds
from ..blocks.solvers import embedding_signs, orientation_signs
from ..blocks.stats import is_dask_array
from ..graph_embedding.routes import (
    metric_transform,
)
from ..tuning import inverse_median, neighbour_errors, search_kernels
from .steps import (
    SHRINKAGE_GRID,
)
from .views import (
    make_view_kernels,
)


def choose_weight_shrinkage(estimator, views, y_enc, chosen, kernels=None):
    """``weight_shrinkage`` of an MKLDR, or the grid value with the lowest inner-CV error.

    For ``'auto'``: each of 3 stratified folds learns its own weights (Algorithm 1) on the other
    folds, then every ``t`` of :data:`SHRINKAGE_GRID` is scored by the mean of the 1-NN and
    nearest-centroid errors of the held-out fold, with the base kernels ``kernels`` (their
    widths chosen on all the training data) and the classes and ridge the fit ``chosen``
    (:class:`~graphdr.training.selected.Selected`). Returns ``(t, errors or None)``.
    """
    if not (isinstance(estimator.weight_shrinkage, str) and estimator.weight_shrinkage == "auto"):
        return float(estimator.weight_shrinkage), None
    counts = np.bincount(y_enc)
    if counts.min() < 2:
        raise ValueError(
            "weight_shrinkage='auto' chooses the pull towards equal weights by an inner "
            "stratified cross-validation, which needs at least 2 samples in every class (a "
            f"class has {counts.min()}). Pass weight_shrinkage=0.0 (the paper's weights) or "
            "a value in [0, 1]."
        )
    errors = np.zeros(len(SHRINKAGE_GRID))
    precomputed = [vk.kernel == "precomputed"
                   for vk in make_view_kernels(estimator.kernels, len(views))]
    # folds dealt by content key, each in canonical order: the same whatever the row order
    keys = row_keys(views, precomputed=precomputed)
    folds = stratified_folds(y_enc, int(min(3, counts.min())), keys)
    for train, test in folds:
        train = train[canonical_order(keys[train], y_enc[train])]
        inner = clone(estimator).set_params(weight_shrinkage=0.0, verbose=0)
        if kernels is not None:
            inner.set_params(kernels=list(kernels))
        y_train = y_enc[train]
        learned = inner._learn_weights(
            [V[np.ix_(train, train)] if pre else V[train] for V, pre in zip(views, precomputed)],
            y_train, chosen)
        test_views = [V[np.ix_(test, train)] if pre else V[test]
                      for V, pre in zip(views, precomputed)]
        for i, t in enumerate(SHRINKAGE_GRID):
            inner._finish(learned, t, y_train, chosen)
            Y_test = inner.transform(test_views)
            errors[i] += np.mean(neighbour_errors(inner.embedding_, y_train, Y_test,
                                                y_enc[test]))
    errors /= len(folds)
    best = int(np.flatnonzero(errors <= errors.min() + 1e-12)[-1])  # ties: more shrinkage
    if estimator.verbose:
        print(f"[MKLDR] weight_shrinkage by inner CV: errors {np.round(errors, 4).tolist()} "
              f"for {list(SHRINKAGE_GRID)} -> {SHRINKAGE_GRID[best]}")
    return float(SHRINKAGE_GRID[best]), errors


#: base kernels with a width that ``sigma='auto'`` chooses
_WIDTH_KINDS = ("rbf", "chi2", "distance")


def _subsample_rows(views, kernels, m, rows):
    """Rows ``rows`` of view ``m`` in memory (the kernel block for a precomputed view)."""
    V = views[m]
    sub = V[np.ix_(rows, rows)] if kernels[m].kernel == "precomputed" else V[rows]
    return np.asarray(sub.compute() if is_dask_array(sub) else sub, dtype=np.float64)


def choose_kernels(estimator, views, y_enc):
    r"""The base kernels of an MKLDR with their widths, and its ridge.

    A base kernel with ``sigma='auto'`` (``'rbf'``, ``'chi2'``, ``'distance'``) gets the width
    that kernel LDA on its view alone prefers: :func:`graphdr.tuning.search_kernels` over
    :math:`\sigma^{-2} \in \gamma_0 \cdot 4^{\{-5..1\}}` (:math:`\gamma_0` the inverse median
    of :math:`d^2`) with the ridge searched jointly. ``reg='auto'`` is the ridge kernel LDA
    prefers on the equal-weight average of the base kernels (the ``weight_shrinkage=1`` end of
    MKL-DR, where its problem is kernel LDA's). Every search uses the same stratified
    subsample and folds (chosen by the rows' content keys). Returns ``(kernels, reg, per-view
    cv_results or None, cv_results of the ridge or None)``.
    """
    kernels = make_view_kernels(estimator.kernels, len(views))
    auto_reg = isinstance(estimator.reg, str)
    widths = [vk.kernel in _WIDTH_KINDS and isinstance(vk.sigma, str) and vk.sigma == "auto"
              for vk in kernels]
    if not (auto_reg or any(widths)):
        return kernels, float(estimator.reg), None, None
    kw = dict(block_of=lambda sizes: np.diag(1.0 / sizes), name="MKLDR",
              keys=row_keys(views, precomputed=[vk.kernel == "precomputed" for vk in kernels]))
    cv = [None] * len(views)
    for m, vk in enumerate(kernels):
        if not widths[m]:
            continue

        def width_family(rows, m=m, vk=vk):
            Vs = _subsample_rows(views, kernels, m, rows)
            D2 = vk._sq_dist(Vs, Vs)
            gamma0 = inverse_median(D2)
            if gamma0 is None:
                raise ValueError(f"View {m}: every pair of samples is at distance 0 (a constant "
                                 "view): a kernel width cannot be chosen. Remove the view.")
            return gamma0, lambda g: np.exp(-g * D2)

        gamma, _, cv[m] = search_kernels(width_family, y_enc, **kw)
        vk.set_params(sigma=float(1.0 / np.sqrt(gamma)))
    def average_kernel(rows):
        K = sum(clone(vk).fit_kernel(_subsample_rows(views, kernels, m, rows))
                for m, vk in enumerate(kernels)) / len(kernels)
        return None, lambda g: K

    if auto_reg:
        _, reg, reg_cv = search_kernels(average_kernel, y_enc, **kw)
    else:
        reg, reg_cv = float(estimator.reg), None
    if estimator.verbose:
        sig = [None if vk.sigma in (None, "auto") else round(float(vk.sigma), 4) for vk in kernels]
        print(f"[MKLDR] base kernel widths {sig}, reg {reg:g}")
    return kernels, reg, cv, reg_cv


def _fitted_in_metric(estimator, fitted, norms, y_enc):
    """Fitted attributes in the metric of ``scaling``
    (:func:`graphdr.graph_embedding.routes.metric_transform`)."""
    scatters = fitted.pop("_scatters", None)
    means = fitted.pop("_class_means", None)
    U = fitted.get("embedding_")
    if U is not None:
        scatters = (_graphs.graph_quadratic_form(_graphs.within_class_graph(y_enc), U), U.T @ U,
                    U.shape[0])
    within, total, n = scatters
    if estimator.scaling == "total":
        R = np.eye(total.shape[0])
    else:
        R = metric_transform(estimator.scaling, within, total, norms, n_samples=n,
                             n_classes=len(estimator.classes_), reg=estimator.reg_)
    key = "dual_coef_" if "dual_coef_" in fitted else "components_"
    coef = fitted[key] @ R if key == "dual_coef_" else fitted[key].T @ R
    # the sign convention (graphdr.blocks.solvers.orientation_signs)
    if U is not None:
        U = U @ R
        signs = embedding_signs(U, y_enc)
        fitted["embedding_"] = U * signs
    else:  # class statistics only: class means and root-mean-square of the embedding
        scale = np.sqrt(np.maximum(np.diag(R.T @ total @ R), 0.0) / n)
        signs = orientation_signs(means @ R, coef, scale)
    coef = coef * signs
    fitted[key] = coef if key == "dual_coef_" else coef.T
    return fitted
