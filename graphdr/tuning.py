r"""Kernel width and ridge from the data: ``gamma='auto'`` and ``reg='auto'``.

The class-structured kernel estimators (:class:`graphdr.KernelLDA`, :class:`graphdr.KQMI`)
choose :math:`\gamma` (RBF :math:`k(x, x') = e^{-\gamma\lVert x - x'\rVert^2}`) and the relative
ridge ``reg`` by the exact leave-one-out error of kernel ridge regression of the class
indicators (:func:`loo_search`):

.. math::

    (\hat\gamma, \widehat{\text{reg}}) = \arg\min_{\gamma \in \Gamma,\ \text{reg} \in R}
    \frac1m \sum_{i=1}^m \Big\lVert \frac{r_i(\gamma, \text{reg})}{1 - h_{ii}(\gamma,
    \text{reg})} \Big\rVert^2 ,

the PRESS of the regression of the centred one-hot labels on the kernel features, with
residuals :math:`r_i` and leverages :math:`h_{ii}` of its hat matrix, over a stratified
subsample of at most ``m = 600`` rows (:data:`MAX_SAMPLES_LOO`). Kernel Fisher discriminant
analysis is this regression (optimal scoring: the coefficients span the regularised
discriminant subspace), and its leave-one-out residuals have a closed form (Cawley & Talbot,
*Efficient leave-one-out cross-validation of kernel Fisher discriminant classifiers*, Pattern
Recognition 36, 2003): one eigendecomposition of the centred kernel per width gives every
ridge value at ``O(m r C)`` (:func:`kernel_press_path`). No classifier is trained and nothing
is random. The grids are :math:`\Gamma = \gamma_0 \cdot 4^{\{-5, \dots, 1\}}` around the
median heuristic :math:`\gamma_0 = 1 / \operatorname{median}\lVert x_i - x_j\rVert^2` and
:math:`R = 10^{\{-6, -5.5, \dots, 2\}}`; the pairs within 0.1 % of the smallest criterion
count as equally good, and the largest ridge among them is chosen (then the width closest to
:math:`\gamma_0`). The small widths reach the linear limit: as
:math:`\gamma \to 0` the centred RBF kernel tends to :math:`2\gamma` times the centred linear
kernel, and the relative ridge to a shrinkage of the linear problem, so the search can return
(nearly) the regularised linear discriminant where the classes are linearly separated best and
a local kernel where they are not. How the choice compares with the nested cross-validation a
careful user would run, and what it costs: ``benchmarks/results/model_selection.md`` and
``model_selection_cost.md`` (``benchmarks/model_selection.py``).

The estimators refitted for every pair (supervised :class:`graphdr.KernelLPP`,
:class:`graphdr.CKFD`) and the cross-validation oracle of that benchmark use :func:`search`:
an inner stratified cross-validation of the error a user's classifier makes in the embedding,

.. math::

    e(\gamma, \rho) = \frac1F \sum_{f=1}^F \tfrac13\big(e_{1\text{-NN}}^{(f)}
    + e_{3\text{-NN}}^{(f)} + e_{\text{NC}}^{(f)}\big),

the mean over ``F = 3`` folds of the 1-nearest-neighbour, 3-nearest-neighbour and
nearest-centroid error rates of the held-out fold, embedded by the estimator fitted on the
other folds (in the estimator's ``scaling``); on the class-structured fast path it is averaged
with the two neighbouring ridge values of the grid (neighbouring ridges give nearly the same
embedding, but their fold errors are noisy). A test sample with several training samples at
the same (smallest) distance gets the majority class among them in the 1-NN error, so that
equivalent embeddings score the same. For class-structured objectives every ridge value reuses
one eigendecomposition per width and fold: with :math:`\tilde K = P\Lambda P^\top` and
:math:`M = \Lambda^{1/2} P^\top E`, the regularised problem
:math:`\max_w w^\top M B M^\top w / w^\top(\Lambda + \epsilon I) w` has the solutions
:math:`w = (\Lambda+\epsilon I)^{-1/2} u` with ``u`` the leading left singular vectors of
:math:`(\Lambda+\epsilon I)^{-1/2} M B^{1/2}` (``r x C``). The refitted estimators search
:math:`\Gamma = \gamma_0 \cdot 2^{\{-3, \dots, 3\}}`, :math:`R = 10^{\{-6, -4.5, \dots, 0\}}`
with the criterion :math:`\tfrac12(e_{1\text{-NN}} + e_{\text{NC}})`.

The class-structured linear estimators (:class:`graphdr.LDA`, :class:`graphdr.LQMI`) choose
their ridge by the same leave-one-out criterion on the data (:func:`press_ridge`).

Determinism. Subsamples and folds are chosen by a key of each row's content
(:mod:`graphdr.sampling`), not drawn at random: the choice is the same on every fit, on every
machine, whatever the row order and ``random_state``. For a ``dask.array`` ``X`` one pass
computes the row keys, then only the rows of the subsample are computed (the labels are in
memory), so the choice is the one the same data in memory would give.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from scipy import linalg
from scipy.stats import binom
from sklearn.base import clone

from .kernel_matrices import TrainingCentring, compute_kernel
from .routes import metric_transform
from .sampling import row_keys, smallest_keys, stratified_folds, stratified_subsample, take_rows
from .stats import is_dask_array, power_of_two_scale

__all__ = ["GAMMA_FACTORS", "REG_GRID", "GAMMA_FACTORS_REFIT", "REG_GRID_REFIT", "WIDTH_KERNELS",
           "median_gamma", "inverse_median", "check_auto", "search", "search_kernels",
           "press_curve", "press_ridge", "PRESS_GRID", "classifier_errors",
           "choose_checkpoint", "check_significance", "loo_search", "kernel_press_path",
           "MAX_SAMPLES_LOO", "PLATEAU_RTOL"]

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
    (:mod:`graphdr.sampling`; ``keys`` when already computed): the same rows whatever their
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


def _folds(y_enc, n_folds, keys, name):
    """Stratified inner folds dealt by content key (:func:`graphdr.sampling.stratified_folds`),
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


def _sq_distances(A, B):
    return (np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
            - 2.0 * A @ B.T)


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
    """Errors for every ridge value by refitting the estimator with explicit values."""
    scores = np.zeros((len(regs), 2))
    has_reg = "reg" in estimator.get_params()
    for i, reg in enumerate(regs):
        params = dict(gamma=gamma, reg=reg) if has_reg else dict(gamma=gamma)
        for train, test in folds:
            est = clone(estimator).set_params(**params)
            Y_tr = est.fit(X[train], y_enc[train]).transform(X[train])
            scores[i] += neighbour_errors(Y_tr, y_enc[train], est.transform(X[test]), y_enc[test])
    return scores / len(folds)


def search(estimator, X, y_enc, *, block_of=None, n_components=None, scaling="total",
           search_gamma=True, search_reg=True, fixed_gamma=None, fixed_reg=1e-3,
           regs=None, max_samples=None, n_folds=None, n_jobs=None):
    """Choose ``gamma`` and ``reg`` (see the module docstring).

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
    idx, ys, folds = search_rows(row_keys(X, precomputed=precomputed), y_enc, max_samples,
                                 n_folds, name)
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
    # the fitted values of a block of ridges in one product (n x block*C entries at most
    # PRESS_BLOCK_ENTRIES), instead of one product per ridge
    block = max(1, PRESS_BLOCK_ENTRIES // max(n * n_classes, 1))
    for a in range(0, len(regs), block):
        cols = np.arange(a, min(a + block, len(regs)))
        cols = cols[slack[:, cols].min(axis=0) > 1e-10]  # a ridge that interpolates: inf
        if not cols.size:
            continue
        coef = (shrink[:, cols, None] * UtY[:, None, :]).reshape(len(lam), -1)
        fitted = (U @ coef).reshape(n, len(cols), n_classes)
        loo = (Y[:, None, :] - fitted) / slack[:, cols, None]  # r_i / (1 - h_ii)
        out[cols] = np.einsum("irc,irc->r", loo, loo) / n
        if with_loo_error:
            for j, col in enumerate(cols):
                held_out = Y - loo[:, j, :]
                d2 = _sq_distances(held_out, targets)
                wrong[col] = float(np.mean(np.argmin(d2, axis=1) != y_enc))
    return (out, wrong) if with_loo_error else out


def _principal_coordinates(X):
    """``(U, lam)`` of the centred rows of ``X``: orthonormal principal coordinates and the
    non-zero eigenvalues of the total scatter (SVD of the rows, or eigendecomposition of
    their centred Gram matrix when there are more features than rows or ``X`` is sparse)."""
    n = X.shape[0]
    if sp.issparse(X) or X.shape[1] > n:
        K = X @ X.T
        K = np.ascontiguousarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
        TrainingCentring.centre_in_place(K)
        lam, U = linalg.eigh((K + K.T) / 2.0, overwrite_a=True, check_finite=False)
    else:
        Xc = X - X.mean(axis=0)
        U, s, _ = linalg.svd(Xc, full_matrices=False, check_finite=False)
        lam = s**2
    keep = lam > n * np.finfo(float).eps * max(lam.max(initial=0.0), 0.0)
    return U[:, keep], lam[keep]


def press_ridge(X, y_enc, *, name, max_samples=None):
    r"""``reg='auto'`` of a class-structured linear estimator (:class:`graphdr.LDA`,
    :class:`graphdr.LQMI`): the relative ridge of the smallest :func:`press_curve`.

    The ridge :math:`\epsilon = \text{reg}\cdot\operatorname{tr}(S_t)/\operatorname{rank}(S_t)`
    regularises the total scatter as in the estimator. The curve is computed on a stratified
    subsample of at most ``max_samples`` (2000) rows over :data:`PRESS_GRID` (ties go to the
    larger ridge); from ``m`` subsampled rows of ``n`` the chosen value is multiplied by
    ``m / n``: the penalty of ridge regression is a prior precision, the same in absolute
    terms for any ``n``, while :math:`\operatorname{tr}(S_t)` grows with ``n``. ``X`` is dense,
    sparse or a ``dask.array`` (only the subsample's rows are computed).

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
    idx = stratified_subsample(y_enc, max_samples, row_keys(X))
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
    # divide and conquer ('evd'): every eigenvector at about half the time of the default
    lam, P = linalg.eigh((Kc + Kc.T) / 2.0, overwrite_a=True, check_finite=False, driver="evd")
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
               fixed_reg=1e-3, regs=None, max_samples=None, n_jobs=None):
    r"""``gamma='auto'`` / ``reg='auto'`` of the class-structured kernel estimators
    (:class:`graphdr.KernelLDA`, :class:`graphdr.KQMI`): exact leave-one-out, closed form.

    .. math::

        (\hat\gamma, \widehat{\text{reg}}) = \arg\min_{\gamma\in\Gamma,\
        \text{reg}\in R} \frac1m \sum_{i=1}^m \Big\lVert \frac{r_i(\gamma,
        \text{reg})}{1 - h_{ii}(\gamma, \text{reg})}\Big\rVert^2

    over the stratified subsample of at most ``max_samples`` (600) rows of smallest content
    key (:mod:`graphdr.sampling`), with the residuals and leverages of
    :func:`kernel_press_path`: one eigendecomposition per width, every ridge at
    ``O(m r C)``. :math:`\Gamma = \gamma_0 \cdot 4^{\{-5,\dots,1\}}` around the median
    heuristic, :math:`R` = :data:`REG_GRID`. The pairs within ``PLATEAU_RTOL`` (0.1 %) of
    the smallest criterion count as equally good (the curve is flat where the small kernel
    eigenvalues carry no label information): the largest ridge among them is chosen, then the
    width closest to :math:`\gamma_0`; a smaller ridge would give the same held-out fits
    from a worse-conditioned system. The same rows and the same choice whatever the row
    order and ``random_state``.

    Returns ``(gamma, reg, cv_results)`` with ``param_gamma``, ``param_reg``,
    ``mean_test_error`` (the criterion), ``mean_test_error_loo`` (leave-one-out error rate
    of the nearest class target) and ``rank_test_error``.
    """
    name = type(estimator).__name__
    if not is_dask_array(X):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    precomputed = estimator.kernel == "precomputed"
    max_samples = MAX_SAMPLES_LOO if max_samples is None else max_samples
    keys = row_keys(X, precomputed=precomputed)
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
    per_gamma = Parallel(n_jobs=n_jobs)(
        delayed(_class_path_scores)(kernel_at(g), ys, folds, block_of, regs, k, scaling)
        for g in gammas)
    return _choice(gammas, regs, per_gamma, smooth=True, gamma0=gamma0)
