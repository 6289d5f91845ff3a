r"""The MKLDR estimator: multiple kernel learning for dimensionality reduction (paper 001)."""

from __future__ import annotations

import numbers
import time

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._threads import managed_threads
from .._validation import (
    check_int,
    check_labels,
    check_n_components,
    check_option,
    check_positive,
    checked_parameters,
    output_dtype,
)
from ..blocks import graphs as _graphs
from ..blocks.kernel_matrices import kernel_distances
from ..blocks.sampling import landmark_indices
from ..blocks.stats import is_dask_array
from ..graph_embedding.linear import class_neighbour_graphs
from ..graph_embedding.routes import (
    SCALINGS,
)
from ..graph_embedding.spaces import resolve_approximation
from ..training.selected import Selected
from ..tuning import check_auto
from .dask_views import (
    _check_dask_views,
    _dask_landmark_problem,
    _lazy_transform,
    _view_embedding,
)
from .problems import (
    _KernelProblem,
    _LandmarkProblem,
    _regularised_beta_matrices,
)
from .selection import (
    _fitted_in_metric,
    choose_kernels,
    choose_weight_shrinkage,
)
from .steps import (
    beta_step,
)
from .views import (
    check_views,
    make_view_kernels,
)


# ----- the estimator -------------------------------------------------------------------------
class MKLDR(TransformerMixin, BaseEstimator):
    r"""Multiple-kernel dimensionality reduction (MKL-DR; paper 001, Algorithm 1).

    .. math::

        \min_{A,\ \beta \ge 0}\ \frac{\operatorname{tr}\big(A^\top (\tilde K_\beta L
        \tilde K_\beta + \epsilon_\beta \tilde K_\beta) A\big)}
        {\operatorname{tr}\big(A^\top (\tilde K_\beta L' \tilde K_\beta + \epsilon_\beta
        \tilde K_\beta) A\big)}, \qquad \tilde K_\beta = \sum_{m=1}^M \beta_m \tilde K_m ,

    with one base kernel :math:`\tilde K_m` per view, ``L``/``L'`` the Laplacians of the
    intrinsic/penalty graphs of LDA (within-class graph / complete graph, eq. 30) or LDE
    (within-class / between-class neighbour graphs, eqs. 31-32, averaged over the views) and the
    ridge :math:`\epsilon_\beta = \text{reg}\operatorname{tr}(L'\tilde K_\beta)/(n-1)` (on both
    sides; for one kernel this is :class:`graphdr.KernelLDA`'s problem). New samples map
    to :math:`A^\top \tilde K(z) \beta` (eq. 29). See :mod:`graphdr.multiview` for the algorithm.

    Parameters
    ----------
    graph : {'lda', 'lde'}, default='lda'
        The graph-embedding method generalised (MKL-LDA or MKL-LDE).
    n_components : int or None, default=None
        Dimension ``P``. None: ``n_classes - 1``. For LDA that is all there are; for LDE the
        penalty scatter has up to ``n - 1`` directions, and those beyond the first
        ``n_classes - 1`` move by O(1) with the row order or the BLAS kernel (their
        eigenvalues agree to 1e-14), so they are kept only when asked for.
    kernels : str, dict, ViewKernel or list of those, default='rbf'
        Base kernel of each view (:func:`graphdr.multiview.make_view_kernels`): ``'rbf'``,
        ``'chi2'``, ``'distance'``, ``'linear'`` or ``'precomputed'`` (then every view of ``fit``
        is an ``n x n`` kernel matrix and of ``transform`` an ``n_new x n_train`` one). A kind
        name has paper 001's mean-distance width; ``{'kernel': 'rbf', 'sigma': 'auto'}`` gets
        the width kernel LDA prefers on its view, chosen from the labels by inner
        cross-validation (:func:`choose_kernels`, ``kernel_cv_results_``). Not the default
        yet: on 240 multi-view digits the chosen widths vary up to 16-fold with the seed and
        the pure-noise view then kept up to 22 % of the weight (under 3 % with the paper's
        widths); on all 1797 (5-fold CV, at commit 01d8c1e, :doc:`/history`) ``sigma='auto'``
        with ``reg='auto'`` made 19 1-NN errors against the defaults' 18 at 1.3-1.8 times the
        fit time, and kept equal weights (17 % for the noise view) on two folds.
    max_iter : int, default=10
        Iterations (A-step + beta-step) of Algorithm 1.
    tol : float, default=1e-4
        Stop when no entry of the normalised ``beta`` moves by more than ``tol``, or when the
        objective changes by less than ``tol`` relative to its value.
    init : {'identity', 'uniform'}, default='identity'
        Start with a beta-step at :math:`AA^\top = I` (the paper's choice) or with equal weights.
    reg : 'auto' or float, default=1e-3
        Relative ridge of the A-step (0: the paper's unregularised problem). ``'auto'`` is the
        ridge kernel LDA prefers on the equal-weight average of the base kernels, by the inner
        cross-validation of :func:`graphdr.tuning.search_kernels` (``reg_``,
        ``reg_cv_results_``); see :func:`choose_kernels`. Not the default yet: the choice is
        noisy on small training sets (240 digits: 0.001 to 0.32 with the seed).
    scaling : {'within', 'total', 'none'}, default='within'
        Metric inside the learned subspace, as in :class:`graphdr.KernelLDA`: ``'within'``
        whitens the embedded within-class covariance of the training samples (with a ridge of
        ``max(reg, 1e-6)`` times the mean total variance), ``'total'`` keeps the A-step's
        normalisation (the paper's), ``'none'`` gives unit-norm directions in the combined
        feature space. The learned subspace and kernel weights do not depend on it.
    weight_shrinkage : 'auto' or float in [0, 1], default='auto'
        Pull of the learned weights towards equal weights: the final weights are
        :math:`(1-t)\beta + t/M` (then one more A-step). 0 is the paper's algorithm, 1 kernel LDA
        on the average kernel. ``'auto'`` chooses ``t`` in (0, 0.25, 0.5, 0.75, 1) by an inner
        stratified 3-fold cross-validation of the mean 1-NN and nearest-centroid error in the
        embedding (each fold learns its own weights; ties go to more shrinkage): Algorithm 1's
        weights fit the training graph and can lose to equal weights on new samples. About
        three more fits' time.
    n_neighbors, n_neighbors_between : int, default=5, 10
        ``k`` and ``k'`` of LDE's graphs (eqs. 31-32): binary weights, neighbours found with
        the distance each base kernel induces,
        :math:`d^2(i, j) = \tilde K_{ii} + \tilde K_{jj} - 2\tilde K_{ij}` (the view's own
        distance order for RBF, chi-squared and distance kernels), one pair of graphs per view,
        averaged over the views as in the paper.
    solver : {'auto', 'clarabel', 'scs'}, default='auto'
        Conic solver of the beta-step; 'auto' is Clarabel with SCS as fall-back.
    rank_tol : float or None, default=None
        Relative eigenvalue below which a direction of :math:`\tilde K_\beta` is dropped.
    approximation : {'auto', None, 'nystroem'}, default='auto'
        ``'auto'`` (default) is the exact problem up to 3,000 samples (every iteration
        solves a dense ``n x n`` eigenproblem) and ``'nystroem'`` above
        (and for a ``dask.array``), so that no ``n x n`` matrix is formed for larger data unless
        asked for with None; with a precomputed base kernel it is always exact.
        The choice made is stored in ``approximation_`` (None or ``'nystroem'``).
        None uses the exact ``n x n`` base kernels. ``'nystroem'`` replaces each view's
        processed base kernel by landmark features :math:`\Phi_m` (``n x r_m``,
        :math:`r_m \le` ``n_landmarks``, :meth:`ViewKernel.fit_features
        <graphdr.multiview.ViewKernel.fit_features>`: same width, repair, centring and
        normalisation, applied to :math:`\Phi_m\Phi_m^\top \approx \tilde K_m`), so that
        :math:`\tilde K_\beta = \Psi\Psi^\top`, :math:`\Psi = [\sqrt{\beta_m}\Phi_m]`. The
        A-step is then a linear graph embedding on :math:`\Psi` and the beta-step matrices
        :math:`S^A_W[m, m'] = 2\operatorname{tr}((\Phi_m^\top A)^\top\Phi_m^\top L
        \Phi_{m'}(\Phi_{m'}^\top A))` come from ``D x D`` matrices
        (:math:`D = \sum_m r_m \le M\,` ``n_landmarks``) computed once: memory
        :math:`O(nD + D^2)`, time :math:`O(nD^2)` once and :math:`O(D^3)` per iteration; no
        ``n x n`` matrix is formed. With ``n_landmarks >= n_samples`` it is the exact problem
        up to rounding. Not available with ``kernels='precomputed'``. With ``graph='lda'``
        the views may be ``dask.array`` s (see ``fit``).
    n_landmarks : int, default=500
        Landmark samples of the Nystroem approximation (at least 2; capped at ``n_samples``);
        the same samples serve every view.
    random_state : None, int or RandomState, default=None
        Seed of a random choice of the Nystroem landmarks. None takes them by the content of
        the rows (:mod:`graphdr.blocks.sampling`): the same on every fit and whatever the row order.
        The exact algorithm and the ``'auto'`` choices (widths, ridge, weight shrinkage, by
        subsample and folds chosen by content) do not use it.
    verbose : int, default=0
        1 prints the objective and weights per iteration, 2 also the SDP details.

    Attributes
    ----------
    kernel_weights_ : ndarray of shape (n_views,)
        :math:`\beta` of the best iterate, non-negative, summing to 1.
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
        ``A`` of the best iterate (exact path only).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding :math:`\tilde K_\beta A` (not stored after a fit on Dask views).
    objective_ : float
        :math:`J` at the best iterate.
    eigenvalues_ : ndarray of shape (n_components_,)
        Regularised ratio (intrinsic over penalty scatter) of each component at the best
        iterate; their mean is ``objective_`` when the A-step's normalisation holds.
    n_iter_ : int
    history_ : dict of lists
        One entry per iteration: ``'objective'`` (J after the beta-step), ``'objective_a_step'``
        (J after the A-step), ``'time'`` (seconds since the start of fit), ``'kernel_weights'``
        (normalised beta after the beta-step), ``'solver'``.
    initial_kernel_weights_ : ndarray of shape (n_views,)
        Weights the first A-step used.
    learned_kernel_weights_ : ndarray of shape (n_views,)
        Algorithm 1's weights before ``weight_shrinkage``.
    weight_shrinkage_ : float
        The ``t`` used.
    shrinkage_cv_errors_ : ndarray of shape (5,) or None
        Inner-CV error of each grid value (``'auto'`` only).
    view_kernels_ : list of ViewKernel
        Fitted base kernels (keep what ``transform`` needs; ``sigma_`` is each width).
    reg_ : float
        The ridge used (``reg``, or the one ``'auto'`` chose).
    kernel_cv_results_ : list of (dict or None) or None
        Per view, the table of the width search (``param_gamma`` is :math:`\sigma^{-2}`),
        None for a view without one; None when nothing was searched.
    reg_cv_results_ : dict or None
        The table of the ridge search (``reg='auto'``).
    components_ : ndarray of shape (n_components_, n_landmark_features)
        Nystroem only (instead of ``dual_coef_``): weights ``W`` on the stacked landmark
        features, :math:`\tilde K_\beta A = [\Phi_1, \dots, \Phi_M] W^\top`; view ``m``
        owns the columns ``landmark_feature_slices_[m]``.
    landmark_indices_ : ndarray of shape (min(n_landmarks, n_samples),)
        Nystroem only: training samples used as landmarks.
    landmark_feature_slices_ : list of slice
        Nystroem only: columns of each view in ``components_``.
    classes_ : ndarray of shape (n_classes,)
    n_components_ : int
    n_views_ : int
    n_features_in_views_ : list of int
    """

    def __init__(
        self, graph="lda", n_components=None, *, kernels="rbf", max_iter=10, tol=1e-4,
        init="identity", reg=1e-3, scaling="within", weight_shrinkage="auto", n_neighbors=5,
        n_neighbors_between=10,
        solver="auto", rank_tol=None, approximation="auto", n_landmarks=500, random_state=None,
        verbose=0,
    ):
        self.graph = graph
        self.n_components = n_components
        self.kernels = kernels
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.reg = reg
        self.scaling = scaling
        self.weight_shrinkage = weight_shrinkage
        self.n_neighbors = n_neighbors
        self.n_neighbors_between = n_neighbors_between
        self.solver = solver
        self.rank_tol = rank_tol
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        check_option(self.graph, "graph", {"lda", "lde"})
        check_option(self.scaling, "scaling", set(SCALINGS))
        if not (isinstance(self.weight_shrinkage, str) and self.weight_shrinkage == "auto"):
            if (not isinstance(self.weight_shrinkage, numbers.Real)
                    or isinstance(self.weight_shrinkage, bool)
                    or not 0.0 <= self.weight_shrinkage <= 1.0):
                raise ValueError("weight_shrinkage must be 'auto' or a number in [0, 1]; got "
                                 f"{self.weight_shrinkage!r}.")
        check_int(self.max_iter, "max_iter")
        check_positive(self.tol, "tol", allow_zero=True)
        check_option(self.init, "init", {"identity", "uniform"})
        check_auto(self.reg, "reg")
        check_int(self.n_neighbors, "n_neighbors")
        check_int(self.n_neighbors_between, "n_neighbors_between")
        check_option(self.solver, "solver", {"auto", "clarabel", "scs"})
        check_int(self.verbose, "verbose", min_value=0)
        if self.approximation is not None:
            check_option(self.approximation, "approximation", {"auto", "nystroem"})
            check_int(self.n_landmarks, "n_landmarks", min_value=2)

    def _graphs(self, Ks, y_enc, features=False):
        r"""LDA's class graphs, or LDE's graphs averaged over the views.

        ``features=True``: ``Ks`` are Nystroem features, whose Euclidean distance is the
        kernel-induced distance of :math:`\Phi_m\Phi_m^\top` (neighbours found in chunks of
        at most 16 MB of distances: no ``n x n`` matrix).
        """
        if self.graph == "lda":
            return _graphs.within_class_graph(y_enc), _graphs.total_graph(y_enc)
        within, between = None, None
        for K in Ks:
            if features:
                # bounded chunks of query-candidate distances (scikit-learn's working memory)
                with config_context(working_memory=16):
                    w, b = class_neighbour_graphs(K, y_enc, self.n_neighbors, self.n_neighbors_between,
                                      weights="binary")
                within = w if within is None else within + w
                between = b if between is None else between + b
                continue
            dist = kernel_distances(K)
            w, b = class_neighbour_graphs(dist, y_enc, self.n_neighbors, self.n_neighbors_between,
                              weights="binary", metric="precomputed")
            within = w if within is None else within + w
            between = b if between is None else between + b
        return within / len(Ks), between / len(Ks)

    @staticmethod
    def _objective(S_num, S_den, beta):
        den = float(beta @ S_den @ beta)
        return float(beta @ S_num @ beta) / den if den > 0 else np.inf

    @managed_threads
    @checked_parameters
    def fit(self, Xs, y):
        """Learn the kernel weights and the projection (paper 001, Algorithm 1).

        Parameters
        ----------
        Xs : list of array-like or of dask.array.Array
            One array of shape ``(n_samples, n_features_m)`` per view, or one ``n x n`` kernel
            matrix per view with ``kernels='precomputed'``. Dask arrays (every view, or none)
            are accepted with ``approximation='nystroem'``, ``graph='lda'`` and a numeric
            ``weight_shrinkage`` (see Notes).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object

        Notes
        -----
        Dask views are never materialised: the landmark rows (the rows an in-memory fit with
        the same ``random_state`` draws) are computed, each view's landmark features are
        computed per chunk and reduced with the labels to the class statistics of the stacked
        features (``D x D`` and ``C x D``; LDA's graphs need nothing else), and the labels,
        one per sample, are computed. The fit is the in-memory fit up to rounding (the signs of
        individual landmark features, eigenvector signs of the landmark kernel, may differ;
        the embedding does not). ``embedding_`` is not stored (``transform`` gives it lazily).
        Not supported, with a ``ValueError``: the exact kernels, ``graph='lde'`` (neighbour
        graphs need every sample's features) and ``weight_shrinkage='auto'`` (its inner
        cross-validation refits on folds; choose ``t`` on an in-memory subsample instead).
        """
        start = time.perf_counter()
        self._check_params()
        views, y_enc, classes = self._validate(Xs, y)
        kernels, reg, kernel_cv, reg_cv = choose_kernels(self, views, y_enc)
        chosen = Selected(dict(classes_=classes, reg_=reg, kernel_cv_results_=kernel_cv,
                               reg_cv_results_=reg_cv))
        learned = self._learn_weights(views, y_enc, chosen, start, kernels)
        shrinkage, errors = choose_weight_shrinkage(self, views, y_enc, chosen, kernels)
        self._finish(learned, shrinkage, y_enc, chosen | Selected(dict(
            shrinkage_cv_errors_=errors)))
        if self.verbose:
            print(f"[MKLDR] done after {self.n_iter_} iterations: best J = "
                  f"{self.objective_:.6g}, beta = {np.round(self.kernel_weights_, 4).tolist()}")
        return self

    def _learn_weights(self, views, y_enc, chosen, start=None, kernels=None):
        """Algorithm 1 (A-steps and beta-steps), with the classes and ridge ``chosen``:
        ``(problem, A, learned)``, the problem and the best projection for :meth:`_finish`,
        and what was learned (:class:`~graphdr.training.selected.Selected`)."""
        start = time.perf_counter() if start is None else start
        kernels = make_view_kernels(self.kernels if kernels is None else kernels, len(views))
        problem, approximation = self._problem(views, kernels, y_enc)
        reg, n_classes = chosen.values["reg_"], len(chosen.values["classes_"])
        initial = self._initial_weights(problem, reg)
        (obj, A, beta), history, n_iter = self._alternate(problem, initial.copy(), start, reg,
                                                          n_classes)
        return problem, A, Selected(dict(
            approximation_=approximation, initial_kernel_weights_=initial, history_=history,
            n_iter_=n_iter, objective_=float(obj), learned_kernel_weights_=beta, view_kernels_=kernels,
            n_views_=len(views), n_features_in_views_=[V.shape[1] for V in views]))

    def _finish(self, learned, shrinkage, y_enc, chosen):
        r"""The fit's one writer of fitted attributes: what was ``chosen`` and ``learned``
        (:meth:`_learn_weights`), the final weights :math:`(1-t)\beta + t/M`, their A-step,
        and the projection."""
        problem, A, learned = learned
        chosen = chosen | learned
        beta, reg, objective = map(chosen.values.get, ("learned_kernel_weights_", "reg_",
                                                        "objective_"))
        if shrinkage > 0:
            beta = (1.0 - shrinkage) * beta + shrinkage / len(beta)
            A = problem.a_step(beta, reg, self.rank_tol, class_path=self.graph == "lda")[1][
                :, : A.shape[1]]
            objective = self._objective(*_regularised_beta_matrices(problem, A, reg), beta)
        chosen.write(self)
        self.objective_ = objective
        self.weight_shrinkage_ = float(shrinkage)
        self.kernel_weights_ = beta
        self.n_components_ = A.shape[1]
        for name in ("dual_coef_", "components_", "landmark_indices_", "embedding_",
                     "landmark_feature_slices_"):  # a previous fit of the other path
            self.__dict__.pop(name, None)
        fitted, norms = problem.fitted(beta, A, reg)
        for name, value in _fitted_in_metric(self, fitted, norms, y_enc).items():
            setattr(self, name, value)
        if isinstance(problem, _LandmarkProblem):
            self.landmark_indices_ = problem.landmarks

    def _validate(self, Xs, y):
        if isinstance(Xs, (list, tuple)) and any(is_dask_array(X) for X in Xs):
            return _check_dask_views(self, Xs, y)
        views = check_views(Xs)
        n = views[0].shape[0]
        classes, y_enc, _ = check_labels(y, min_per_class=1, method="MKLDR")
        if len(y_enc) != n:
            raise ValueError(f"y has {len(y_enc)} labels but the views have {n} rows.")
        if n < 2:
            raise ValueError("MKLDR needs at least 2 samples.")
        return views, y_enc, classes

    def _problem(self, views, kernels, y_enc):
        """``(problem, approximation)``: the base kernels (exact) or their landmark features
        (Nystroem), with the graphs."""
        lda = self.graph == "lda"
        exact_only = any(vk.kernel == "precomputed" for vk in kernels)
        approximation = resolve_approximation(self.approximation, len(y_enc), exact_only)
        if approximation != "nystroem":
            Ks = [vk.fit_kernel(V) for vk, V in zip(kernels, views)]
            return _KernelProblem(Ks, *self._graphs(Ks, y_enc), y_enc if lda else None), None
        for m, vk in enumerate(kernels):
            if vk.kernel == "precomputed":
                raise ValueError(
                    f"approximation='nystroem' needs the kernel function of every view; "
                    f"view {m} has kernel='precomputed'. Use approximation=None with "
                    "precomputed kernels, or pass the views' features."
                )
        if is_dask_array(views[0]):
            return _dask_landmark_problem(self, views, kernels, y_enc), approximation
        n = views[0].shape[0]
        n_land = min(int(self.n_landmarks), n)
        landmarks = landmark_indices(views, n_land, self.random_state)
        Phis = [vk.fit_features(V, landmarks) for vk, V in zip(kernels, views)]
        problem = _LandmarkProblem(Phis, *self._graphs(Phis, y_enc, features=True),
                                   y_enc if lda else None)
        problem.landmarks = landmarks
        if self.verbose:
            print(f"[MKLDR] Nystroem: {n_land} landmarks, {problem.gram.shape[0]} landmark "
                  f"features over {len(views)} views")
        return problem, approximation

    def _initial_weights(self, problem, reg):
        M = len(problem.trace_penalty)
        if self.init != "identity":
            return np.full(M, 1.0 / M)
        S_num, S_den = _regularised_beta_matrices(problem, None, reg)
        beta, _, info = beta_step(S_num, S_den, solver=self.solver, verbose=self.verbose)
        beta = beta / beta.sum()
        if self.verbose:
            print(f"[MKLDR] init (A A^T = I): beta = {np.round(beta, 4).tolist()} "
                  f"({info['solver']})")
        return beta

    def _n_components(self, A, C):
        if self.graph == "lda":
            max_c, reason = min(C - 1, A.shape[1]), f"n_classes - 1 = {C - 1} for {C} classes"
        else:
            max_c, reason = A.shape[1], "the rank of the penalty scatter of the combined kernel"
            if self.n_components is None:  # not all n - 1: only the class-separating ones
                return min(C - 1, max_c)
        return check_n_components(self.n_components, max_c, reason=reason)

    def _alternate(self, problem, beta, start, reg, n_classes):
        """A-step and beta-step in turn; returns the best (J, A, beta), history, iterations."""
        lda = self.graph == "lda"
        history = dict(objective=[], objective_a_step=[], time=[], kernel_weights=[], solver=[])
        best, n_components, prev_obj = (np.inf, None, None), None, None
        for it in range(1, self.max_iter + 1):
            _, A = problem.a_step(beta, reg, self.rank_tol, class_path=lda)
            if n_components is None:
                n_components = self._n_components(A, n_classes)
            if A.shape[1] < n_components:
                raise ValueError(
                    f"n_components={n_components} is too large: the combined kernel at "
                    f"iteration {it} gives only {A.shape[1]} directions."
                )
            A = A[:, :n_components]
            S_num, S_den = _regularised_beta_matrices(problem, A, reg)
            obj_a = self._objective(S_num, S_den, beta)
            if obj_a <= best[0]:
                best = (obj_a, A, beta.copy())
            new_beta, _, info = beta_step(S_num, S_den, solver=self.solver,
                                          verbose=self.verbose)
            new_beta = new_beta / new_beta.sum()
            obj_b = self._objective(S_num, S_den, new_beta)
            if obj_b <= best[0]:
                best = (obj_b, A, new_beta.copy())
            for key, value in (("objective", obj_b), ("objective_a_step", obj_a),
                               ("time", time.perf_counter() - start),
                               ("kernel_weights", new_beta.copy()), ("solver", info["solver"])):
                history[key].append(value)
            if self.verbose:
                print(f"[MKLDR] iter {it}: J after A-step {obj_a:.6g}, after beta-step "
                      f"{obj_b:.6g}, beta = {np.round(new_beta, 4).tolist()} "
                      f"({info['solver']}, {history['time'][-1]:.2f}s)")
            change = np.max(np.abs(new_beta - beta))
            beta = new_beta
            rel = (abs(obj_b - prev_obj) / max(abs(prev_obj), np.finfo(float).tiny)
                   if prev_obj is not None else np.inf)
            prev_obj = obj_b
            if change <= self.tol or rel <= self.tol:
                break
        return best, history, it

    @managed_threads
    def transform(self, Xs):
        """Embed new samples, :math:`z \\mapsto A^\\top \\tilde K(z)\\beta` (eq. 29).

        Parameters
        ----------
        Xs : list of array-like or of dask.array.Array
            The same views as in ``fit`` (kernels against the training samples, of shape
            ``(n_new, n_train)``, for precomputed views).

        Returns
        -------
        X_new : ndarray of shape (n_new, n_components_)
            A lazy ``dask.array.Array`` (row chunks of the first view) for Dask views.
        """
        check_is_fitted(self)
        if isinstance(Xs, (list, tuple)) and any(is_dask_array(X) for X in Xs):
            return _lazy_transform(self, Xs)
        views = check_views(Xs, n_views=self.n_views_)
        out = np.zeros((views[0].shape[0], self.n_components_))
        for m, (vk, V, b) in enumerate(zip(self.view_kernels_, views, self.kernel_weights_)):
            if vk.kernel == "precomputed":
                if V.shape[1] != vk.n_train_:
                    raise ValueError(
                        f"View {m} is a precomputed kernel: transform needs the kernel between "
                        f"new and training samples, with {vk.n_train_} columns; got shape "
                        f"{V.shape}."
                    )
            elif V.shape[1] != self.n_features_in_views_[m]:
                raise ValueError(
                    f"View {m} has {V.shape[1]} features but MKLDR was fitted with "
                    f"{self.n_features_in_views_[m]}."
                )
            if b != 0:
                out += _view_embedding(V, self, m)
        return out.astype(output_dtype(*Xs), copy=False)  # float32 views: float32 out

    @managed_threads
    @checked_parameters
    def fit_transform(self, Xs, y=None, **fit_params):
        """Fit, then return the training embedding (lazy for dask views)."""
        self.fit(Xs, y)
        if not hasattr(self, "embedding_"):
            return self.transform(Xs)
        return self.embedding_.astype(output_dtype(*Xs))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
