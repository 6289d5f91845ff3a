r"""The inner cross-validated search of the estimators that are refitted for every value
(supervised KernelLPP, CKFD), of MKL-DR's optional width search, and of the benchmarks' oracle."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from scipy import linalg
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ..blocks.kernel_matrices import TrainingCentring, compute_kernel
from ..blocks.sampling import row_keys, stratified_folds, stratified_subsample, take_rows
from ..blocks.stats import is_dask_array
from ..graph_embedding.routes import metric_transform
from .common import (
    GAMMA_FACTORS,
    GAMMA_FACTORS_REFIT,
    MAX_SAMPLES,
    MAX_SAMPLES_REFIT,
    N_FOLDS,
    N_FOLDS_REFIT,
    REG_GRID,
    REG_GRID_REFIT,
    WIDTH_KERNELS,
    _sq_distances,
    median_gamma,
)


def _folds(y_enc, n_folds, keys, name):
    """Stratified inner folds dealt by content key (:func:`graphdr.blocks.sampling.stratified_folds`),
    ``min(n_folds, smallest class)`` of them."""
    counts = np.bincount(y_enc)
    if counts.min() < 2:
        raise ValueError(
            f"{name}: gamma='auto' / reg='auto' choose the kernel by an inner stratified "
            f"cross-validation, which needs at least 2 samples in every class (a class here has "
            f"{counts.min()}). Pass gamma and reg explicitly."
        )
    return stratified_folds(y_enc, int(min(n_folds, counts.min())), keys)


def search_rows(keys, y_enc, max_samples, n_folds, name):
    """The subsample (indices in canonical order), its encoded labels and its inner folds:
    chosen by the rows' content keys, so the same whatever the row order and on every fit."""
    idx = stratified_subsample(y_enc, max_samples, keys)
    ys = np.unique(y_enc[idx], return_inverse=True)[1]
    return idx, ys, _folds(ys, n_folds, keys[idx], name)




def neighbour_errors(Y_train, y_train, Y_test, y_test):
    """(1-NN error, nearest-centroid error) of the held-out samples (distances in row blocks
    of at most 500,000 entries)."""
    block_rows = max(16, 500_000 // max(len(Y_train), 1))
    nearest = np.concatenate([
        y_train[np.argmin(_sq_distances(Y_test[a:a + block_rows], Y_train), axis=1)]
        for a in range(0, len(Y_test), block_rows)])
    classes = np.unique(y_train)
    centroids = np.array([Y_train[y_train == c].mean(axis=0) for c in classes])
    central = classes[np.argmin(_sq_distances(Y_test, centroids), axis=1)]
    return float(np.mean(nearest != y_test)), float(np.mean(central != y_test))


def classifier_errors(Y_train, y_train, Y_test, y_test):
    """(1-NN, 3-NN, nearest-centroid) error rates of the held-out samples.

    1-NN: the majority class of the training samples at the smallest distance (equal up to
    rounding, ``1e-9`` relative to the squared norms); 3-NN: the majority of the three nearest,
    the nearest on a three-way tie. Distances in row blocks of at most 500,000 entries.
    """
    classes, y_tr = np.unique(y_train, return_inverse=True)
    onehot = np.zeros((len(y_tr), len(classes)))
    onehot[np.arange(len(y_tr)), y_tr] = 1.0
    scale = np.einsum("ij,ij->i", Y_train, Y_train).max(initial=0.0)
    k = min(3, len(y_tr))
    block_rows = max(16, 500_000 // max(len(Y_train), 1))
    one, three = [], []
    for a in range(0, len(Y_test), block_rows):
        T = Y_test[a:a + block_rows]
        d2 = _sq_distances(T, Y_train)
        tol = 1e-9 * (np.einsum("ij,ij->i", T, T) + scale)
        tied = d2 <= d2.min(axis=1)[:, None] + tol[:, None]
        one.append(np.argmax(tied @ onehot, axis=1))  # before d2 is overwritten below
        near = np.empty((len(T), k), dtype=np.intp)
        rows = np.arange(len(T))
        for j in range(k):  # the k nearest in order, one argmin each (k <= 3)
            near[:, j] = np.argmin(d2, axis=1)
            d2[rows, near[:, j]] = np.inf
        votes = onehot[near].sum(axis=1) + 0.5 * onehot[near[:, 0]]  # ties -> the nearest
        three.append(np.argmax(votes, axis=1))
    one, three = classes[np.concatenate(one)], classes[np.concatenate(three)]
    centroids = (onehot.T @ Y_train) / onehot.sum(axis=0)[:, None]
    central = classes[np.argmin(_sq_distances(Y_test, centroids), axis=1)]
    return (float(np.mean(one != y_test)), float(np.mean(three != y_test)),
            float(np.mean(central != y_test)))


def ridge_smoothed(table):
    """Mean of each entry of ``table`` (widths x ridges) and its two neighbours along the
    ridge axis (the edge entry counts twice at the ends)."""
    padded = np.concatenate([table[:, :1], table, table[:, -1:]], axis=1)
    return (padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:]) / 3.0


def _class_path_scores(K, y_enc, folds, block_of, regs, n_components, scaling):
    """(1-NN, 3-NN, NC) errors for every ridge value on one kernel matrix, one
    eigendecomposition per fold."""
    scores = np.zeros((len(regs), 3))
    for train, test in folds:
        Kc = np.ascontiguousarray(K[np.ix_(train, train)])
        Kt = TrainingCentring.centre_in_place(Kc).transform(K[np.ix_(test, train)])
        lam, P = linalg.eigh((Kc + Kc.T) / 2.0, overwrite_a=True, check_finite=False)
        keep = lam > len(train) * np.finfo(float).eps * max(lam[-1], 0.0)
        lam, P = lam[keep], P[:, keep]
        y_tr = y_enc[train]
        sizes = np.bincount(y_tr)
        E = np.zeros((len(train), len(sizes)))
        E[np.arange(len(train)), y_tr] = 1.0
        M = np.sqrt(lam)[:, None] * (P.T @ E)  # Lambda^1/2 P^T E
        b, V = linalg.eigh(block_of(sizes))
        B_half = V * np.sqrt(np.maximum(b, 0.0))
        F_train, F_test = P * np.sqrt(lam), Kt @ (P / np.sqrt(lam))
        mean_eig = np.trace(Kc) / max(len(train) - 1, 1)
        for i, reg in enumerate(regs):
            d = 1.0 / np.sqrt(lam + reg * mean_eig)
            U, s, _ = linalg.svd((d[:, None] * M) @ B_half, full_matrices=False)
            k = min(n_components, int(np.sum(s > 1e-12 * max(s[0], 1e-300))))
            W = d[:, None] * U[:, :k]
            Y_tr, Y_te = F_train @ W, F_test @ W
            gram, sums = Y_tr.T @ Y_tr, E.T @ Y_tr
            # within-class scatter from the class sums: Y^T L_w Y = Y^T Y - S^T diag(1/n_c) S
            # W^T (Lambda + eps I) W = I: the ridge's embedded form is I - gram (as the estimator)
            R = metric_transform(scaling, gram - sums.T @ (sums / sizes[:, None]), gram,
                                 np.linalg.norm(W, axis=0), n_samples=len(train),
                                 n_classes=len(sizes), reg=reg, ridge_form=np.eye(k) - gram)
            scores[i] += classifier_errors(Y_tr @ R, y_tr, Y_te @ R, y_enc[test])
    return scores / len(folds)


def _refit_scores(estimator, X, y_enc, folds, gamma, regs):
    """Errors for every ridge value by refitting the estimator with explicit values: per
    fold, one fit per ridge that shares the kernel map and the graphs
    (``_fit_ridge_path``), else one whole fit per value."""
    scores = np.zeros((len(regs), 2))
    has_reg = "reg" in estimator.get_params()
    for train, test in folds:
        if has_reg and hasattr(estimator, "_fit_ridge_path"):
            fitted = clone(estimator).set_params(gamma=gamma)._fit_ridge_path(
                X[train], y_enc[train], list(regs))
        else:
            fitted = [clone(estimator).set_params(
                **(dict(gamma=gamma, reg=reg) if has_reg else dict(gamma=gamma))).fit(
                X[train], y_enc[train]) for reg in (regs if has_reg else regs[:1])]
            fitted = fitted if has_reg else fitted * len(regs)
        for i, est in enumerate(fitted):
            scores[i] += neighbour_errors(est.transform(X[train]), y_enc[train],
                                          est.transform(X[test]), y_enc[test])
    return scores / len(folds)


def search(estimator, X, y_enc, *, block_of=None, n_components=None, scaling="total",
           search_gamma=True, search_reg=True, fixed_gamma=None, fixed_reg=1e-3,
           regs=None, max_samples=None, n_folds=None, n_jobs=None, keys=None):
    """Choose ``gamma`` and ``reg`` (see the module docstring; ``keys``: the rows' content
    keys, when already computed).

    ``block_of(class_sizes)`` gives the ``C x C`` block of a class-structured objective and
    enables the fast path; otherwise ``estimator`` (with ``gamma``/``reg`` set to 'auto') is
    cloned and refitted with explicit values for every pair (the cheaper search). ``regs``
    overrides the ridge grid, ``n_folds`` the number of inner folds.

    Returns
    -------
    gamma : float or None
    reg : float
    cv_results : dict of ndarray
        ``param_gamma``, ``param_reg``, ``mean_test_error`` (the criterion),
        ``mean_test_error_1nn``, ``mean_test_error_3nn`` (fast path only),
        ``mean_test_error_nc`` and ``rank_test_error``, one entry per pair, ready for
        ``pandas.DataFrame``.
    """
    name = type(estimator).__name__
    fast = block_of is not None
    if max_samples is None:
        max_samples = MAX_SAMPLES if fast else MAX_SAMPLES_REFIT
    if not is_dask_array(X):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    precomputed = estimator.kernel == "precomputed"
    if n_folds is None:
        n_folds = N_FOLDS if fast else N_FOLDS_REFIT
    keys = row_keys(X, precomputed=precomputed) if keys is None else keys
    idx, ys, folds = search_rows(keys, y_enc, max_samples, n_folds, name)
    if is_dask_array(X):  # only the subsample's rows are computed (increasing, then placed)
        Xs = take_rows(X, idx)
    else:
        Xs = X[np.ix_(idx, idx)] if precomputed else X[idx]
    kernel = estimator.kernel
    width = search_gamma and not callable(kernel) and kernel in WIDTH_KERNELS
    gamma0 = median_gamma(Xs) if width else fixed_gamma
    factors = GAMMA_FACTORS if fast else GAMMA_FACTORS_REFIT
    gammas = list(gamma0 * factors) if width else [fixed_gamma]
    if regs is None:
        regs = REG_GRID if fast else REG_GRID_REFIT
    regs = list(regs) if search_reg else [fixed_reg]
    k = n_components if n_components is not None else len(np.unique(ys)) - 1

    def scores_for(gamma):
        if not fast:
            return _refit_scores(estimator, Xs, ys, folds, gamma, regs)
        K = compute_kernel(Xs, kernel=kernel, gamma=gamma, degree=estimator.degree,
                           coef0=estimator.coef0, kernel_params=estimator.kernel_params)
        return _class_path_scores(K, ys, folds, block_of, regs, k, scaling)

    # one BLAS thread: the fits on a few hundred rows run 1.3-2.6 times faster than with two
    # (benchmarks/model_selection.py --cost); process workers (n_jobs) set their own limits
    with threadpool_limits(limits=1, user_api="blas"):
        per_gamma = Parallel(n_jobs=n_jobs)(delayed(scores_for)(g) for g in gammas)
    return _choice(gammas, regs, per_gamma, smooth=fast, gamma0=gamma0 if width else None)


def _choice(gammas, regs, per_gamma, *, smooth, gamma0):
    """The best (gamma, reg) of the error tables of every width, and ``cv_results``."""
    params = np.array([[np.nan if g is None else g, r] for g in gammas for r in regs])
    errors = np.vstack(per_gamma)  # (pairs, classifiers): 1-NN[, 3-NN], NC
    criterion = errors.mean(axis=1)
    if smooth:  # averaged with the neighbouring ridge values of the same width
        criterion = ridge_smoothed(criterion.reshape(len(gammas), len(regs))).ravel()
    distance = (np.abs(np.log(params[:, 0] / gamma0)) if gamma0 is not None
                else np.zeros(len(params)))
    order = np.lexsort((distance, -params[:, 1], np.round(criterion, 12)))
    best = order[0]
    rank = np.empty(len(params), dtype=int)
    rank[order] = np.arange(1, len(params) + 1)
    cv_results = dict(param_gamma=params[:, 0], param_reg=params[:, 1],
                      mean_test_error=criterion, mean_test_error_1nn=errors[:, 0])
    if errors.shape[1] == 3:
        cv_results["mean_test_error_3nn"] = errors[:, 1]
    cv_results.update(mean_test_error_nc=errors[:, -1], rank_test_error=rank)
    gamma = gammas[best // len(regs)]
    return (None if gamma is None else float(gamma)), float(regs[best % len(regs)]), cv_results




def search_kernels(kernel_of, y_enc, *, keys, block_of, name, n_components=None,
                   scaling="within", search_reg=True, fixed_reg=1e-3, max_samples=None,
                   n_folds=None, n_jobs=None):
    """The class-structured search of :func:`search` for a kernel given as a function.

    ``kernel_of(rows)`` receives the indices of the stratified subsample and returns
    ``(gamma0, kernel_at)``: the median-heuristic width (None for a kernel without a width)
    and a function ``gamma -> K`` (``len(rows) x len(rows)``). The widths searched are
    ``gamma0 * GAMMA_FACTORS`` (the same criterion, folds and ridge grid as :func:`search`);
    MKLDR chooses its base kernels' widths and its ridge with it. Returns ``(gamma, reg,
    cv_results)``.
    """
    idx, ys, folds = search_rows(keys, y_enc, MAX_SAMPLES if max_samples is None else max_samples,
                                 N_FOLDS if n_folds is None else n_folds, name)
    gamma0, kernel_at = kernel_of(idx)
    gammas = [None] if gamma0 is None else list(gamma0 * GAMMA_FACTORS)
    regs = list(REG_GRID) if search_reg else [fixed_reg]
    k = n_components if n_components is not None else len(np.unique(ys)) - 1
    with threadpool_limits(limits=1, user_api="blas"):  # as in :func:`search`
        per_gamma = Parallel(n_jobs=n_jobs)(
            delayed(_class_path_scores)(kernel_at(g), ys, folds, block_of, regs, k, scaling)
            for g in gammas)
    return _choice(gammas, regs, per_gamma, smooth=True, gamma0=gamma0)
