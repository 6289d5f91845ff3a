r"""Kernel graph-embedding methods: kernel LDA (GDA / KFD), kernel LPP and CKFD.

All work in the empirical kernel map ``Z`` of the centred kernel (:mod:`graphdr.blocks.kernel_matrices`);
new samples are embedded through the centred kernel against the training samples and
``dual_coef_``. Kernel solvers are regularised by default (``reg=1e-3``): without it an RBF
kernel makes every training class collapse to a point and generalisation suffers
(:doc:`/user_guide/graph_embedding`). ``reg=0`` gives the unregularised textbook
problem.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive
from ..blocks import graphs as _graphs
from ..blocks.solvers import generalized_eigh
from ..training.selected import Selected
from ..training.supports import Supports
from .class_discriminants import _KernelDiscriminant
from .estimator import _BaseGraphEmbedding
from .fitting import Solution
from .linear import _LDAGraphs, _LPPGraphs
from .routes import SCALING_DOC, SMOOTHING_DOC

__all__ = ["KernelLDA", "KernelLPP", "CKFD"]

_APPROX_DOC = """
    approximation : {'auto', None, 'nystroem'}, default='auto'
        None solves the exact kernel problem (``O(n^2)`` memory, ``O(n^3)`` time). 'nystroem'
        replaces the kernel by ``n_landmarks`` landmark features (scikit-learn's ``Nystroem``):
        ``O(n m)`` memory and ``O(n m^2)`` time. Then ``components_``/``mean_``/``nystroem_``
        replace ``dual_coef_``/``X_fit_``. With 'nystroem', KernelLDA (and KQMI) also fit a
        ``dask.array`` ``X`` without materialising it or its features (see ``fit``).
        ``'auto'`` (default) is the exact problem up to 20,000 samples on the Cholesky route
        of KernelLDA and KQMI (one ``n x n`` factorisation) and up to 3,000 samples where the
        exact fit needs a dense eigendecomposition (KernelLPP, CKFD, ``solver='eigh'``), and
        ``'nystroem'`` above (and for a ``dask.array``), so that no ``n x n`` matrix is formed
        for larger data unless asked for with None; with ``kernel='precomputed'`` it is always
        exact.
        The choice made is stored in ``approximation_`` (None or ``'nystroem'``).
    n_landmarks : int, default=500
        Landmarks of the Nystroem approximation (capped at ``n_samples``).
    random_state : int, RandomState instance or None, default=None
        Seed of a random choice of the Nystroem landmarks. None takes the landmarks by the
        content of the rows (:mod:`graphdr.blocks.sampling`): the same on every fit and whatever the
        row order. The ``'auto'`` search never uses it: its subsample and folds come from the
        rows' content too, so ``gamma_`` and ``reg_`` do not depend on it.
    n_jobs : int or None, default=None
        Parallel jobs over the kernel widths of the ``'auto'`` search (joblib)."""

_KERNEL_PARAMS_DOC = """
    kernel : {'rbf', 'linear', 'poly', 'sigmoid', 'cosine', 'laplacian', 'chi2', 'precomputed'} \
or callable, default='rbf'
        With 'precomputed', ``fit`` takes the training kernel and ``transform`` the kernel
        between new and training samples.
    gamma : 'auto', float or None, default='auto'
        RBF/poly/sigmoid coefficient. ``'auto'`` chooses it with the labels around the
        median heuristic ``1 / median squared distance``: for KernelLDA, ``4**(-5..1)`` times
        it (the small widths reach the linear limit) with the smallest exact leave-one-out
        error of kernel ridge regression of the class indicators, in closed form (no
        classifier, no random folds); for KernelLPP and CKFD, which are refitted for every
        value, ``2**(-3..3)`` times it by inner stratified cross-validation of the
        nearest-neighbour and nearest-centroid errors in the embedding
        (:mod:`graphdr.tuning`; the value is ``gamma_``, the table ``cv_results_``); None
        means ``1 / n_features``. A Gaussian of width sigma,
        :math:`\\exp(-\\lVert x-x'\\rVert^2/2\\sigma^2)`, is ``gamma = 1 / (2 sigma**2)``.
    degree : int, default=3
    coef0 : float, default=1.0
    kernel_params : dict or None, default=None
        Extra keyword arguments of the kernel."""


class KernelLDA(_LDAGraphs, _KernelDiscriminant):
    r"""Kernel Fisher discriminant (generalized discriminant analysis, GDA).

    .. math::

        \max_a \frac{a^\top \tilde K L(W_b) \tilde K a}
                    {a^\top (\tilde K L(W_t) \tilde K + \epsilon \tilde K) a}
        \;\Longleftrightarrow\;
        \min_a a^\top (\tilde K L(W) \tilde K + \epsilon \tilde K) a \quad\text{s.t.}\quad
        a^\top (\tilde K L(W_t) \tilde K + \epsilon \tilde K) a = 1 ,

    with the centred kernel :math:`\tilde K`, LDA's within-class graph ``W``, the between-class
    graph :math:`W_b` and the complete graph :math:`W_t` (total scatter in feature space): the
    regularised Fisher ratio in feature space. :math:`\epsilon` is ``reg``
    times the mean eigenvalue of the total scatter (of :math:`\tilde K`).

    When to use it. At ``n_components = C - 1`` KernelLDA spans the subspace of
    :class:`graphdr.KQMI` and gets the same whitened metric, so with the same kernel and ridge
    both make the same predictions; with their defaults they chose the same pair on every set
    of ``benchmarks/results/defaults.md`` but led7digit. KQMI's docstring gives their figures
    and when a linear discriminant is as good (heart, pima).

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_classes - 1``. None takes that many, less the directions without
        between-class variance (as :class:`graphdr.LDA`); ``n_components_`` records it.
%(kernel)s
    reg : 'auto' or float, default='auto'
        Ridge relative to the mean eigenvalue of the centred kernel (over its ``n - 1``
        dimensions); 0 is the unregularised problem (training classes collapse to points).
        ``'auto'`` chooses it with ``gamma`` over ``10**(-6, -5.5, ..., 2)``, one
        eigendecomposition per width serving every ridge value (``reg_``); with
        ``kernel='precomputed'`` or without labels it means 1e-3.
%(scaling)s
    solver : {'auto', 'cholesky', 'eigh'}, default='auto'
        'cholesky' uses the class structure: the non-zero solutions come from a ``C x C``
        problem after one Cholesky factorisation of :math:`\tilde K + \epsilon I`
        (:func:`graphdr.blocks.solvers.class_kernel_eigh`), several times faster than 'eigh', the
        eigendecomposition of the centred kernel. 'auto' takes 'cholesky' when ``reg >= 1e-6``
        (the factorised matrix has condition number about ``n / reg``) and the kernel is exact.%(approx)s
%(smoothing)s
    rank_tol : float or None, default=None
        Relative eigenvalue of the centred kernel below which a direction is dropped ('eigh').

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding (not stored after a fit on a Dask array).
    eigenvalues_ : ndarray of shape (n_components_,)
        Within-class over total scatter of each solver direction, increasing.
    gamma_ : float or None
        Kernel coefficient used (chosen from the data when ``gamma='auto'``). Data whose
        largest magnitude is outside ``[2**-64, 2**64]`` are divided by an exact power of two
        ``2**e`` first (their squares would underflow or overflow; new samples too): a
        chosen ``gamma_`` is then that of ``X / 2**e``, and a given ``gamma`` is applied as
        ``gamma * 2**(2e)`` to ``X / 2**e`` (``2**e`` for the laplacian and chi2 kernels),
        the same kernel.
    reg_ : float
        Relative ridge used.
    cv_results_ : dict of ndarray
        Only after an ``'auto'`` search with labels: ``param_gamma``, ``param_reg``,
        ``mean_test_error`` (the criterion: the leave-one-out squared error per sample),
        ``mean_test_error_loo`` (leave-one-out error rate of the nearest class target),
        ``rank_test_error``; one entry per pair (``pandas.DataFrame(cv_results_)`` gives the
        table, :func:`graphdr.tuning.plotting.plot_cv_results` the picture). KernelLPP and CKFD
        record their cross-validated errors instead (``mean_test_error`` the mean of
        ``mean_test_error_1nn`` and ``mean_test_error_nc``).
    n_components_ : int
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    """


    def _class_objective_block(self, n_classes, class_sizes):
        # between-class scatter in centred coordinates: sum_c J_c mu_c mu_c^T
        return np.diag(1.0 / class_sizes)


class KernelLPP(_LPPGraphs, _BaseGraphEmbedding):
    r"""Kernel locality preserving projections, unsupervised or supervised.

    .. math::

        \min_a a^\top (\tilde K L(W) \tilde K + \epsilon \tilde K) a \quad\text{s.t.}\quad
        a^\top (\tilde K D \tilde K + \epsilon \tilde K) a = 1 ,

    with ``W`` the (same-class when ``supervised``) k-nearest-neighbour graph built on the
    input features (on kernel-induced distances when ``kernel='precomputed'``).

    When to use it. KernelLPP preserves kernel neighbourhoods; with the default (every
    direction, up to ``n - 1``) 1-NN in it loses to 1-NN on the raw features on ionosphere
    (18.2 %% against 14.2 %%), breast_cancer (8.4 %% against 4.6 %%) and mnist2k (46.0 %% against
    8.8 %%; supervised: 17.7 %%, 8.3 %%, 45.3 %%, and sonar 21.2 %% against 15.4 %%)
    (``benchmarks/results/defaults.md``: paper 000's protocol, 10-fold CV, [-1, 1] scaling).
    The supervised version at ``n_components = C - 1`` does better (ionosphere 5.4 %%, mnist2k
    6.8 %%). For class separation prefer :class:`KernelLDA` or :class:`KQMI` (ionosphere
    5.4 %%, mnist2k 4.2 %%).

    Parameters
    ----------
    n_components : int or None, default=None
    supervised : bool, default=False
    n_neighbors : int, default=5
    weights : {'heat', 'binary'}, default='heat'
    sigma : float or None, default=None
%(kernel)s
    reg : 'auto' or float, default='auto'
        Relative ridge (as in :class:`KernelLDA`), chosen with ``gamma`` when ``'auto'`` (with
        labels; without them ``gamma_`` is the median heuristic and ``reg_`` is 1e-3).%(approx)s
    rank_tol : float or None, default=None

    Attributes
    ----------
    dual_coef_, X_fit_, embedding_, eigenvalues_, n_components_, n_features_in_
        As in :class:`KernelLDA`.
    gamma_, reg_, cv_results_
        As in :class:`KernelLDA`.
    classes_ : ndarray
        Only when ``y`` was given.
    """

    def __init__(
        self, n_components=None, *, supervised=False, n_neighbors=5, weights="heat", sigma=None,
        kernel="rbf", gamma="auto", degree=3, coef0=1.0, kernel_params=None, reg="auto",
        approximation="auto", n_landmarks=500, random_state=None, n_jobs=None, rank_tol=None,
    ):
        self.n_components = n_components
        self.supervised = supervised
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.reg = reg
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.rank_tol = rank_tol


class CKFD(_BaseGraphEmbedding):
    r"""Complete kernel Fisher discriminant (Yang et al., 2005): KPCA, then LDA twice.

    In the kernel-PCA coordinates ``Z`` (the empirical kernel map), split the space by the
    within-class scatter :math:`S_w = Q_1 \Sigma Q_1^\top`:

    * *irregular* discriminants, in the null space :math:`Q_0` of :math:`S_w` (every training
      class is a single point there): :math:`\max_v v^\top S_b v` over :math:`v = Q_0 u`;
    * *regular* discriminants, in the range :math:`Q_1`:
      :math:`\max_v v^\top S_b v / v^\top S_w v`.

    Every component is scaled to unit total scatter (:math:`v^\top S_t v = 1`), the irregular
    ones then multiplied by ``fusion_weight``; ``scaling`` then sets the metric of the whole
    embedding (``'total'`` keeps this one). Components are ordered by the ratio
    :math:`v^\top S_w v / v^\top S_t v` (irregular first, ratio 0), so ``n_components=d`` takes
    the ``d`` most discriminative of both kinds.

    When to use it. CKFD is within 3 points of 1-NN on the raw features on all 12 sets, the
    closest on pima (30.7 %% against 29.7 %%) (``benchmarks/results/defaults.md``: paper 000's
    protocol, 10-fold CV, [-1, 1] scaling). It has the lowest error of graphdr's defaults on
    sonar (11.1 %%) and shares it on vowel (0.2 %%); :class:`KernelLDA` is better on 9 of the
    12 sets (pima 30.3 %%, vehicle 15.0 %% against 19.0 %%) at a fraction of the cost. Use CKFD when the
    irregular (null-space) discriminant information matters: few samples in many dimensions.

    Parameters
    ----------
    n_components : int or None, default=None
        At most the number of irregular plus regular discriminants (each at most
        ``n_classes - 1``).
%(kernel)s
%(scaling)s
    fusion_weight : float, default=1.0
        Weight of the irregular features relative to the regular ones.
    null_tol : float, default=1e-9
        Eigenvalues of :math:`S_w` below ``null_tol * max`` span the irregular subspace.%(approx)s
    rank_tol : float or None, default=None

    Attributes
    ----------
    dual_coef_, X_fit_, embedding_, eigenvalues_, n_components_, classes_, n_features_in_
        As in :class:`KernelLDA`.
    gamma_, cv_results_
        As in :class:`KernelLDA` (CKFD has no ridge: ``reg_`` is 0).
    n_irregular_ : int
        How many of the components are irregular.
    """

    _supports = Supports(scaling=True, prepared=True)

    def __init__(
        self, n_components=None, *, kernel="rbf", gamma="auto", degree=3, coef0=1.0,
        kernel_params=None, fusion_weight=1.0, null_tol=1e-9, scaling="within", approximation="auto",
        n_landmarks=500, random_state=None, n_jobs=None, rank_tol=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.fusion_weight = fusion_weight
        self.null_tol = null_tol
        self.scaling = scaling
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.rank_tol = rank_tol

    def _check_params(self):
        check_positive(self.fusion_weight, "fusion_weight")
        check_positive(self.null_tol, "null_tol")

    def _resolved_reg(self, data=None):
        return 0.0

    def _solve(self, space, data):
        Z, y_enc = space.coords, data.y_encoded
        n_classes = len(data.classes)
        S_w = _graphs.graph_quadratic_form(_graphs.within_class_graph(y_enc), Z)
        S_t = Z.T @ Z
        S_b = S_t - S_w
        sw, Q = np.linalg.eigh((S_w + S_w.T) / 2)
        null = sw <= self.null_tol * max(sw[-1], 0.0)
        Q0, Q1 = Q[:, null], Q[:, ~null]
        parts_vals, parts_vecs = [], []
        if Q0.shape[1]:
            beta, U = np.linalg.eigh(Q0.T @ S_b @ Q0)
            beta, U = beta[::-1], U[:, ::-1]
            good = beta > 1e-12 * max(np.trace(S_t), 1e-300)
            good[n_classes - 1 :] = False
            V0 = Q0 @ U[:, good] / np.sqrt(beta[good])
            parts_vals.append(np.zeros(V0.shape[1]))
            parts_vecs.append(self.fusion_weight * V0)
        if Q1.shape[1]:
            mu, V1 = generalized_eigh(Q1.T @ S_w @ Q1, Q1.T @ S_t @ Q1, rank_tol=self.rank_tol)
            k = min(n_classes - 1, V1.shape[1])
            parts_vals.append(mu[:k])
            parts_vecs.append(Q1 @ V1[:, :k])
        irregular = parts_vecs[0].shape[1] if Q0.shape[1] else 0
        return Solution(np.concatenate(parts_vals), np.hstack(parts_vecs),
                        selected=Selected(dict(n_irregular_=irregular)))

    def _metric(self, space, data, V=None, dual=None, Y=None, rotate=True, criterion=None):
        """The metric of ``scaling`` for the irregular and the regular components apart.

        The irregular components have (nearly) zero within-class scatter by construction:
        whitened together with the regular ones, the regular block inherits the rounding of
        that near-singular scatter and its directions rotate under a 1e-10 change of the data.
        Each block is given the metric on its own (block-diagonal ``R``); the irregular
        block, whose between-class covariance is the same in every whitened direction, keeps
        the solver's order (no rotation by between-class variance)."""
        k = (V if dual is None else dual).shape[1]
        r = min(self.n_irregular_, k)
        if getattr(self, "scaling", "total") == "total" or r in (0, k):
            return super()._metric(space, data, V, dual, Y, criterion=criterion)
        R = np.zeros((k, k))
        for cols, turn in ((slice(0, r), False), (slice(r, k), True)):
            R[cols, cols] = super()._metric(
                space, data, None if V is None else V[:, cols],
                None if dual is None else dual[:, cols], None if Y is None else Y[:, cols],
                rotate=turn, criterion=None if criterion is None else criterion[cols])
        return R

    def _max_components(self, n_available, n_classes):
        return n_available, (
            f"{self.n_irregular_} irregular plus {n_available - self.n_irregular_} regular "
            "discriminants"
        )

    def _store(self, space, solution, data):
        super()._store(space, solution, data)
        self.n_irregular_ = min(self.n_irregular_, self.n_components_)


for _cls in (KernelLDA, KernelLPP, CKFD):
    _cls.__doc__ = _cls.__doc__.replace("%(scaling)s", SCALING_DOC) % {
        "kernel": _KERNEL_PARAMS_DOC, "approx": _APPROX_DOC, "smoothing": SMOOTHING_DOC}
del _cls
