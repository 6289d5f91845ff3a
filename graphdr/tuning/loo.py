r"""The exact leave-one-out choices in closed form: LDA's and LQMI's ridge, kernel LDA's and
kernel QMI's width and ridge (PRESS of ridge regression of the class indicators)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from .._threads import map_threads
from ..blocks.kernel_matrices import TrainingCentring, compute_kernel
from ..blocks.sampling import row_keys, stratified_subsample, take_rows
from ..blocks.stats import is_dask_array, power_of_two_scale
from .common import (
    GAMMA_FACTORS,
    REG_GRID,
    WIDTH_KERNELS,
    _sq_distances,
    median_gamma,
)

#: entries of the fitted values computed at once by :func:`press_curve` (0.5 MB: a block of
#: ridges costs a few times the memory of one, and LDA's fit stays linear in n)
PRESS_BLOCK_ENTRIES = 60_000
#: relative ridges searched by the leave-one-out (PRESS) choice of linear estimators
PRESS_GRID = 10.0 ** np.arange(-6.0, 2.125, 0.25)
#: rows (stratified subsample) on which the PRESS choice is made
MAX_SAMPLES_PRESS = 2000


def press_curve(U, lam, y_enc, regs, unit, *, with_loo_error=False):
    r"""Leave-one-out squared error of ridge regression of the centred class indicators.

    .. math::

        \operatorname{PRESS}(\epsilon) = \frac1n \sum_{i=1}^n \Big\lVert
        \frac{r_i(\epsilon)}{1 - h_{ii}(\epsilon)} \Big\rVert^2, \qquad
        R(\epsilon) = \tilde Y - U F_\epsilon U^\top \tilde Y, \quad
        h_{ii} = \tfrac1n + \sum_j U_{ij}^2 f_j, \quad f_j = \frac{\lambda_j}{\lambda_j +
        \epsilon},

    for the centred data with principal coordinates ``U`` (``n x r``, orthonormal columns)
    and eigenvalues ``lam`` of its total scatter, :math:`\tilde Y` the centred one-hot
    labels and :math:`\epsilon = \text{reg} \cdot \text{unit}` for each ``reg`` of
    ``regs`` (the :math:`1/n` of the leverage is the intercept). Ridge regression of the
    class indicators spans the regularised LDA subspace (optimal scoring), and its
    leave-one-out residuals have this closed form, so every ridge value costs ``O(n r C)``.
    A ridge at which a sample is interpolated (``h_ii = 1``) scores ``inf``.
    With ``with_loo_error`` also returns the leave-one-out error rate of the nearest class
    target: the held-out fitted indicators :math:`\tilde y_i - r_i / (1 - h_{ii})` assigned to
    the class of the closest centred indicator (an interpolated sample counts as an error).
    """
    n = U.shape[0]
    Y = np.zeros((n, int(y_enc.max()) + 1))
    Y[np.arange(n), y_enc] = 1.0
    priors = Y.mean(axis=0)
    Y -= priors
    targets = np.eye(len(priors)) - priors  # the centred indicator of each class
    regs = np.asarray(regs, dtype=np.float64)
    UtY, n_classes = U.T @ Y, Y.shape[1]
    shrink = lam[:, None] / (lam[:, None] + regs[None, :] * unit)  # f_j per ridge (r x R)
    slack = 1.0 - 1.0 / n - (U * U) @ shrink  # 1 - h_ii per ridge (n x R)
    out, wrong = np.full(len(regs), np.inf), np.ones(len(regs))

    def ridge_block(cols):
        cols = cols[slack[:, cols].min(axis=0) > 1e-10]  # a ridge that interpolates: inf
        if not cols.size:
            return
        coef = (shrink[:, cols, None] * UtY[:, None, :]).reshape(len(lam), -1)
        fitted = (U @ coef).reshape(n, len(cols), n_classes)
        loo = (Y[:, None, :] - fitted) / slack[:, cols, None]  # r_i / (1 - h_ii)
        out[cols] = np.einsum("irc,irc->r", loo, loo) / n
        if with_loo_error:
            for j, col in enumerate(cols):
                held_out = Y - loo[:, j, :]
                d2 = _sq_distances(held_out, targets)
                wrong[col] = float(np.mean(np.argmin(d2, axis=1) != y_enc))

    # the fitted values of a block of ridges in one product (n x block*C entries at most
    # PRESS_BLOCK_ENTRIES) instead of one product per ridge; the blocks on the threads the
    # environment allows (each writes its own entries of ``out``)
    block = max(1, PRESS_BLOCK_ENTRIES // max(n * n_classes, 1))
    map_threads(ridge_block, [np.arange(a, min(a + block, len(regs)))
                              for a in range(0, len(regs), block)])
    return (out, wrong) if with_loo_error else out


def _principal_coordinates(X):
    """``(U, lam)`` of the centred rows of ``X``: orthonormal principal coordinates and the
    non-zero eigenvalues of the total scatter (SVD of the rows, or eigendecomposition of
    their centred Gram matrix when there are more features than rows or ``X`` is sparse)."""
    n = X.shape[0]
    # NumPy's eigh and SVD (LAPACK's syevd and gesdd) release the GIL: the ridge is chosen
    # beside the statistics pass (graphdr.blocks.stats.class_statistics's ``beside``)
    if sp.issparse(X) or X.shape[1] > n:
        K = X @ X.T
        K = np.ascontiguousarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
        TrainingCentring.centre_in_place(K)
        lam, U = np.linalg.eigh((K + K.T) / 2.0)
    else:
        Xc = X - X.mean(axis=0)
        U, s, _ = np.linalg.svd(Xc, full_matrices=False)
        lam = s**2
    keep = lam > n * np.finfo(float).eps * max(lam.max(initial=0.0), 0.0)
    return U[:, keep], lam[keep]


def press_ridge(X, y_enc, *, name, max_samples=None, keys=None):
    r"""``reg='auto'`` of a class-structured linear estimator (:class:`graphdr.LDA`,
    :class:`graphdr.LQMI`): the relative ridge of the smallest :func:`press_curve`.

    The ridge :math:`\epsilon = \text{reg}\cdot\operatorname{tr}(S_t)/\operatorname{rank}(S_t)`
    regularises the total scatter as in the estimator. The curve is computed on a stratified
    subsample of at most ``max_samples`` (2000) rows over :data:`PRESS_GRID` (ties go to the
    larger ridge); from ``m`` subsampled rows of ``n`` the chosen value is multiplied by
    ``m / n``: the penalty of ridge regression is a prior precision, the same in absolute
    terms for any ``n``, while :math:`\operatorname{tr}(S_t)` grows with ``n``. ``X`` is dense,
    sparse or a ``dask.array`` (only the subsample's rows are computed); ``keys`` are its rows'
    content keys (:func:`graphdr.blocks.sampling.row_keys`) when already computed.

    Returns ``(reg, cv_results)`` with ``cv_results`` ``param_reg`` (relative to the
    subsample), ``mean_test_error`` (the PRESS per sample) and ``rank_test_error``.
    """
    n = len(y_enc)
    if np.bincount(y_enc).min() < 2:
        raise ValueError(
            f"{name}: reg='auto' chooses the ridge by the leave-one-out error, which needs at "
            f"least 2 samples in every class (a class here has {np.bincount(y_enc).min()}). "
            "Pass reg explicitly (0 for classical LDA)."
        )
    max_samples = MAX_SAMPLES_PRESS if max_samples is None else max_samples
    # the subsample by content key, in canonical order: the same whatever the row order
    idx = stratified_subsample(y_enc, max_samples, row_keys(X) if keys is None else keys)
    Xs = take_rows(X, idx) if is_dask_array(X) else X[idx]
    Xs = sp.csr_matrix(Xs, dtype=np.float64) if sp.issparse(Xs) else np.asarray(Xs, dtype=np.float64)
    if Xs.shape[0] * Xs.shape[1]:  # exact power-of-two rescaling: no under- or overflow
        Xs = Xs / power_of_two_scale(abs(Xs).max())
    U, lam = _principal_coordinates(Xs)
    regs = np.asarray(PRESS_GRID)
    if lam.size == 0:  # every row equal: any ridge gives the same (empty) problem
        press = np.zeros(len(regs))
    else:
        press = press_curve(U, lam, np.unique(y_enc[idx], return_inverse=True)[1], regs,
                            float(lam.sum()) / lam.size)
    order = np.lexsort((-regs, np.round(press / max(np.min(press), 1e-300), 9)))
    rank = np.empty(len(regs), dtype=int)
    rank[order] = np.arange(1, len(regs) + 1)
    reg = float(regs[order[0]]) * len(idx) / n
    return reg, dict(param_reg=regs.copy(), mean_test_error=press, rank_test_error=rank)


#: rows (stratified, by content key) on which the leave-one-out choice of the class-structured
#: kernel estimators is made
MAX_SAMPLES_LOO = 600
#: relative width of the flat end of the leave-one-out curve: pairs within it of the minimum
#: count as equally good, and the largest ridge among them is chosen
PLATEAU_RTOL = 1e-3


def kernel_press_path(K, y_enc, regs):
    r"""Leave-one-out errors of kernel ridge regression of the class indicators, every ridge.

    One eigendecomposition of the centred kernel :math:`\tilde K = P \Lambda P^\top` gives,
    for every relative ridge ``reg`` (:math:`\epsilon = \text{reg} \cdot
    \operatorname{tr}\tilde K / (n - 1)`, as in the estimators), the hat matrix
    :math:`H = \tfrac1n \mathbf 1\mathbf 1^\top + P \Lambda (\Lambda + \epsilon I)^{-1}
    P^\top` of the regression of the centred one-hot labels :math:`\tilde Y` on the kernel
    features (optimal scoring: its coefficients span the regularised kernel Fisher subspace)
    and its exact leave-one-out residuals :math:`r_i / (1 - h_{ii})` (Cawley & Talbot, 2003).

    Returns ``(press, loo_error)``: the mean squared leave-one-out residual per sample
    (:func:`press_curve`) and the leave-one-out error rate of the nearest class target (the
    held-out sample's fitted indicator :math:`\tilde y_i - r_i / (1 - h_{ii})` assigned to
    the class whose centred indicator is closest), one value per ridge.
    """
    n = K.shape[0]
    Kc = np.array(K, dtype=np.float64, order="C")
    TrainingCentring.centre_in_place(Kc)
    unit = float(np.trace(Kc)) / max(n - 1, 1)
    # divide and conquer (LAPACK's syevd, NumPy's eigh: without the GIL, so that the widths
    # run in parallel): every eigenvector at about half the time of the default
    lam, P = np.linalg.eigh((Kc + Kc.T) / 2.0)
    keep = lam > n * np.finfo(float).eps * max(lam[-1], 0.0)
    P, lam = P[:, keep], lam[keep]
    regs = np.asarray(regs, dtype=np.float64)
    if lam.size == 0:  # every row the same in feature space: every ridge alike
        return np.zeros(len(regs)), np.full(len(regs), 1.0 - np.bincount(y_enc).max() / n)
    return press_curve(P, lam, y_enc, regs, max(unit, np.finfo(float).tiny),
                       with_loo_error=True)


def _kernel_family(X, estimator, gammas):
    """``gamma -> K`` over the rows of ``X``: the squared distances once for the RBF kernel."""
    if estimator.kernel == "rbf":
        sq = np.einsum("ij,ij->i", X, X) if not sp.issparse(X) else np.asarray(
            X.multiply(X).sum(axis=1)).ravel()
        G = X @ X.T
        G = np.asarray(G.toarray() if sp.issparse(G) else G)
        D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * G, 0.0)
        np.fill_diagonal(D2, 0.0)
        return lambda gamma: np.exp(-gamma * D2)
    return lambda gamma: compute_kernel(
        X, kernel=estimator.kernel, gamma=gamma, degree=estimator.degree,
        coef0=estimator.coef0, kernel_params=estimator.kernel_params)


def loo_search(estimator, X, y_enc, *, search_gamma=True, search_reg=True, fixed_gamma=None,
               fixed_reg=1e-3, regs=None, max_samples=None, n_jobs=None, keys=None):
    r"""``gamma='auto'`` / ``reg='auto'`` of the class-structured kernel estimators
    (:class:`graphdr.KernelLDA`, :class:`graphdr.KQMI`): exact leave-one-out, closed form.

    .. math::

        (\hat\gamma, \widehat{\text{reg}}) = \arg\min_{\gamma\in\Gamma,\
        \text{reg}\in R} \frac1m \sum_{i=1}^m \Big\lVert \frac{r_i(\gamma,
        \text{reg})}{1 - h_{ii}(\gamma, \text{reg})}\Big\rVert^2

    over the stratified subsample of at most ``max_samples`` (600) rows of smallest content
    key (:mod:`graphdr.blocks.sampling`), with the residuals and leverages of
    :func:`kernel_press_path`: one eigendecomposition per width, every ridge at
    ``O(m r C)``. :math:`\Gamma = \gamma_0 \cdot 4^{\{-5,\dots,1\}}` around the median
    heuristic, :math:`R` = :data:`REG_GRID`. The pairs within ``PLATEAU_RTOL`` (0.1 %) of
    the smallest criterion count as equally good (the curve is flat where the small kernel
    eigenvalues carry no label information): the largest ridge among them is chosen, then the
    width closest to :math:`\gamma_0`; a smaller ridge would give the same held-out fits
    from a worse-conditioned system. The same rows and the same choice whatever the row
    order and ``random_state``. ``keys``: the rows' content keys, when already computed.

    Returns ``(gamma, reg, cv_results)`` with ``param_gamma``, ``param_reg``,
    ``mean_test_error`` (the criterion), ``mean_test_error_loo`` (leave-one-out error rate
    of the nearest class target) and ``rank_test_error``.
    """
    name = type(estimator).__name__
    if not is_dask_array(X):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    precomputed = estimator.kernel == "precomputed"
    max_samples = MAX_SAMPLES_LOO if max_samples is None else max_samples
    keys = row_keys(X, precomputed=precomputed) if keys is None else keys
    idx = stratified_subsample(y_enc, max_samples, keys)
    ys = np.unique(y_enc[idx], return_inverse=True)[1]
    if np.bincount(ys).min() < 2:
        raise ValueError(
            f"{name}: gamma='auto' / reg='auto' choose the kernel by leave-one-out, which needs "
            f"at least 2 samples in every class (a class here has {np.bincount(ys).min()}). "
            "Pass gamma and reg explicitly.")
    if is_dask_array(X):
        Xs = take_rows(X, idx)
    else:
        Xs = X[np.ix_(idx, idx)] if precomputed else X[idx]
    kernel = estimator.kernel
    width = search_gamma and not callable(kernel) and kernel in WIDTH_KERNELS
    gamma0 = median_gamma(Xs) if width else fixed_gamma
    gammas = list(gamma0 * GAMMA_FACTORS) if width else [fixed_gamma]
    regs = np.asarray(REG_GRID if regs is None else regs) if search_reg else np.array([fixed_reg])
    kernel_at = ((lambda gamma: Xs) if precomputed else _kernel_family(Xs, estimator, gammas))
    # one BLAS thread per width: the m x m eigendecompositions (m <= 600) run about 1.5 times
    # faster than with two, whose synchronisation outweighs the work
    # (benchmarks/model_selection.py --cost); the widths on the environment's threads, or on
    # n_jobs processes, which set their own limits
    if n_jobs in (None, 1):
        per_gamma = map_threads(lambda g: kernel_press_path(kernel_at(g), ys, regs), gammas)
    else:
        with threadpool_limits(limits=1, user_api="blas"):
            per_gamma = Parallel(n_jobs=n_jobs)(
                delayed(kernel_press_path)(kernel_at(g), ys, regs) for g in gammas)
    press = np.concatenate([p for p, _ in per_gamma])
    loo = np.concatenate([e for _, e in per_gamma])
    params = np.array([[np.nan if g is None else g, r] for g in gammas for r in regs])
    distance = (np.abs(np.log(params[:, 0] / gamma0)) if width else np.zeros(len(params)))
    finite = np.isfinite(press)
    scale = max(np.min(press[finite]) if finite.any() else 1.0, 1e-300)
    # the flat end of the curve: within PLATEAU_RTOL of the minimum, the largest ridge (the
    # better-conditioned fit), then the width closest to gamma0; the rest by the criterion
    plateau = finite & (press <= scale * (1.0 + PLATEAU_RTOL))
    key = np.where(plateau, 0.0, np.where(finite, np.round(press / scale, 9), np.inf))
    order = np.lexsort((distance, -params[:, 1], key))
    best = order[0]
    rank = np.empty(len(params), dtype=int)
    rank[order] = np.arange(1, len(params) + 1)
    cv_results = dict(param_gamma=params[:, 0], param_reg=params[:, 1], mean_test_error=press,
                      mean_test_error_loo=loo, rank_test_error=rank)
    gamma = gammas[best // len(regs)]
    return (None if gamma is None else float(gamma)), float(regs[best % len(regs)]), cv_results


#: weights of the semi-supervised smoothness term searched by ``smoothing='auto'``, relative to
#: the labelled samples' total scatter (0: the supervised fit)
SMOOTHING_GRID = np.concatenate([[0.0], 10.0 ** np.arange(-3.0, 4.125, 0.25)])


def press_smoothing(Z, y_enc, J, ridge, grid=None):
    r"""``smoothing='auto'``: the weight :math:`\alpha` of a semi-supervised smoothness form
    with the smallest leave-one-out error on the labelled samples.

    .. math::

        \hat\alpha = \arg\min_{\alpha} \frac1m \sum_{i \in \mathcal L}
        \Big\lVert \frac{r_i(\alpha)}{1 - h_{ii}(\alpha)} \Big\rVert^2, \qquad
        H(\alpha) = \tfrac1m \mathbf 1 \mathbf 1^\top
            + \tilde Z_{\mathcal L} (\tilde Z_{\mathcal L}^\top \tilde Z_{\mathcal L}
            + \epsilon I + \alpha J)^{-1} \tilde Z_{\mathcal L}^\top ,

    the PRESS of the regression of the centred class indicators of the ``m`` labelled samples
    :math:`\mathcal L` on their centred coordinates :math:`\tilde Z_{\mathcal L}`, penalised by
    the ridge and by the smoothness form :math:`J = Z^\top L Z` of the graph over *all*
    samples (Laplacian-regularised least squares; its coefficients span semi-supervised
    discriminant analysis's subspace, as ridge regression spans LDA's). The unlabelled samples
    enter through :math:`J` only. One Cholesky factorisation and one symmetric
    eigendecomposition (``r x r``) give every :math:`\alpha` at ``O(m r C)``: with
    :math:`\tilde Z^\top\tilde Z + \epsilon I = R^\top R` and
    :math:`R^{-\top} J R^{-1} = Q \Lambda Q^\top`, :math:`W = \tilde Z R^{-1} Q` and
    :math:`H = \tfrac1m \mathbf 1\mathbf 1^\top + W (I + \alpha\Lambda)^{-1} W^\top`.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, r)
        Coordinates of every sample in the fit's space.
    y_enc : ndarray of shape (n_samples,)
        Encoded labels, -1 for an unlabelled sample.
    J : ndarray of shape (r, r)
        The smoothness form, in units of the labelled total scatter (its weight 1 adds a form
        of the same trace).
    ridge : float
        Absolute ridge :math:`\epsilon` of the fit (a floor of ``1e-6`` times the mean
        eigenvalue keeps the factorisation defined).
    grid : array-like, optional
        The weights searched (default :data:`SMOOTHING_GRID`).

    Returns
    -------
    alpha : float
        The weight of smallest PRESS (ties within a relative ``1e-9``: the smaller weight).
    cv_results : dict
        ``param_smoothing``, ``mean_test_error`` (PRESS per labelled sample, ``inf`` where a
        sample is interpolated), ``rank_test_error``.
    """
    grid = SMOOTHING_GRID if grid is None else np.asarray(grid, dtype=np.float64)
    labelled = y_enc >= 0
    Zl = np.asarray(Z[labelled], dtype=np.float64)
    Zl = Zl - Zl.mean(axis=0)
    y = np.unique(y_enc[labelled], return_inverse=True)[1]
    m, r = Zl.shape
    Y = np.zeros((m, int(y.max()) + 1))
    Y[np.arange(m), y] = 1.0
    Y -= Y.mean(axis=0)
    M = Zl.T @ Zl
    unit = max(float(np.trace(M)) / max(r, 1), np.finfo(float).tiny)
    M[np.diag_indices(r)] += max(float(ridge), 1e-6 * unit)
    R = np.linalg.cholesky((M + M.T) / 2.0).T  # M = R^T R
    Rinv = np.linalg.solve(R, np.eye(r))
    A = Rinv.T @ J @ Rinv
    lam, Q = np.linalg.eigh((A + A.T) / 2.0)
    lam = np.maximum(lam, 0.0)
    W = Zl @ (Rinv @ Q)
    WtY, W2 = W.T @ Y, W * W
    press = np.full(len(grid), np.inf)
    for j, alpha in enumerate(grid):
        f = 1.0 / (1.0 + alpha * lam)
        slack = 1.0 - 1.0 / m - W2 @ f
        if slack.min() <= 1e-10:
            continue  # a labelled sample interpolated
        loo = (Y - W @ (f[:, None] * WtY)) / slack[:, None]
        press[j] = float(np.sum(loo * loo)) / m
    finite = np.isfinite(press)
    scale = max(np.min(press[finite]), 1e-300) if finite.any() else 1.0
    key = np.where(finite, np.round(press / scale, 9), np.inf)
    order = np.lexsort((grid, key)) if finite.any() else np.argsort(-grid, kind="stable")
    rank = np.empty(len(grid), dtype=int)
    rank[order] = np.arange(1, len(grid) + 1)
    return float(grid[order[0]]), dict(param_smoothing=grid.copy(), mean_test_error=press,
                                       rank_test_error=rank)
