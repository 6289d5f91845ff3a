r"""The estimator core of graph embedding: validate, pick a space, build graphs, solve, store.

Graph embedding (Yan et al., 2007; paper 000, section II-A) finds the projection ``V`` that keeps
samples joined in an *intrinsic* graph ``W`` close while keeping samples joined in a *penalty*
graph ``W^p`` apart:

.. math::

    \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
    V^\top \big(X^\top L(W^p) X + \epsilon I\big) V = I .

In the kernel form ``X`` is replaced by the empirical kernel map ``Z`` of the centred kernel
(:mod:`graphdr.kernel_matrices`), which is the dual problem
:math:`(K L K + \epsilon K) a = \lambda (K L^p K + \epsilon K) a`.

:meth:`_BaseGraphEmbedding.fit` reads like the algorithm box:

1. **validate** ``X`` and ``y`` (:func:`sklearn.utils.validation.validate_data`, labels of any
   type); class-structured linear problems read ``X`` once into class statistics instead
   (:func:`graphdr.stats.class_statistics`, also for ``dask.array`` input);
2. **pick the coordinate space** (:mod:`graphdr.spaces`): the span of the centred data, the
   exact empirical kernel map, or Nystroem landmark features;
3. **build the graphs** (:mod:`graphdr.graphs`) as a :class:`graphdr.routes.GraphProblem`;
4. **solve** by one of the routes of :mod:`graphdr.routes` (class statistics, the
   class-structured kernel Cholesky route, or the generic generalized eigenproblem);
5. **store** what the space maps the solution to (``components_`` or ``dual_coef_``), with
   deterministic signs; ``transform`` asks the same space to embed new samples.

A subclass only says which problem it solves: its graphs (:meth:`_build_graphs` or
:meth:`_problem`), optionally their class-structured forms (:meth:`_class_forms`,
:meth:`_class_objective_block`) and how many components are meaningful (:meth:`_max_components`).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import assert_all_finite, check_is_fitted, validate_data

from . import graphs as _graphs
from ._validation import check_int, check_labels, check_n_components, check_option, check_positive
from .kernel_matrices import check_kernel_params
from .routes import (
    SCALINGS,
    ClassForms,
    GraphProblem,
    metric_transform,
    solve_class_forms,
    solve_class_kernel,
    solve_graph_problem,
)
from .spaces import KernelMap, KernelSpec, LinearSpan, NystroemMap, resolve_approximation
from .stats import (
    check_class_counts,
    check_dask_input,
    class_statistics,
    is_dask_array,
    power_of_two_scale,
    raise_if_nonfinite,
    scaled_class_statistics,
)
from .tuning import WIDTH_KERNELS as tuning_width_kernels
from .tuning import check_auto, median_gamma, press_ridge
from .tuning import loo_search as tuning_loo_search
from .tuning import search as tuning_search

__all__ = ["GraphEmbedding"]

_DTYPES = [np.float64, np.float32]


class Solution(NamedTuple):
    """What a route returns: eigenvalues and directions in the space's coordinates, or dual
    coefficients (the class-structured kernel route)."""

    eigenvalues: np.ndarray
    directions: np.ndarray | None = None
    dual: np.ndarray | None = None
    embedding: np.ndarray | None = None  # K_c @ dual, when the route has it for free

    @property
    def n_available(self):
        return (self.directions if self.dual is None else self.dual).shape[1]


class TrainingData(NamedTuple):
    """Validated training input: samples and encoded labels, or class statistics."""

    X: object
    y_encoded: np.ndarray | None
    stats: object
    dtype: np.dtype

    @property
    def n_samples(self):
        return self.stats.n if self.stats is not None else self.X.shape[0]


def embedded_scatters(space, data, V=None, dual=None, Y=None):
    """Within-class and total scatter (``k x k``) of the training embedding of a solution.

    Returns ``(within, total, norms, n_samples, n_classes)`` with ``norms`` the Euclidean norms
    of the directions in input or feature space. ``Y`` is the training embedding of ``dual``
    when already known.
    """
    if space.stats is not None:  # forms from class statistics, in the span's coordinates
        J = space.stats.counts.astype(np.float64)
        within = V.T @ space.class_form(1.0, np.diag(1.0 / J)) @ V
        return within, V.T @ space.gram @ V, np.linalg.norm(V, axis=0), space.stats.n, len(J)
    if Y is None:
        Y = space.training_embedding(dual=dual) if dual is not None else space.training_embedding(V)
    within = _graphs.graph_quadratic_form(_graphs.within_class_graph(data.y_encoded), Y)
    norms = (np.sqrt(np.maximum(np.sum(dual * Y, axis=0), 0.0)) if dual is not None
             else np.linalg.norm(V, axis=0))
    return within, Y.T @ Y, norms, Y.shape[0], int(data.y_encoded.max()) + 1


def dask_training_data(estimator, X, y):
    """Step 1 of ``fit`` for a ``dask.array`` ``X``: what each kind of estimator can do lazily.

    * class-structured linear problems: one pass of class statistics, ``X`` never
      materialised (NaN/inf and the labels are checked in the same pass);
    * class-structured kernel problems (kernel LDA, kernel QMI) with
      ``approximation='nystroem'``: ``X`` stays lazy (:class:`graphdr.spaces.NystroemMap`
      computes its landmark rows and the class statistics of its features); the labels, one
      per sample, are computed;
    * other kernel settings raise ``ValueError`` (an exact kernel needs ``n x n`` memory; the
      neighbour graphs of kernel LPP and CKFD's coordinates need the features in memory);
    * other linear methods (neighbour graphs) compute ``X`` and fit in memory.
    """
    name = type(estimator).__name__
    if estimator._has_class_forms(y):
        check_dask_input(X, name)
        estimator.__dict__.pop("feature_names_in_", None)
        estimator.n_features_in_ = int(X.shape[1])
        stats = class_statistics(X, y)
        raise_if_nonfinite(stats)
        check_class_counts(stats.classes, stats.counts, **estimator._label_requirements())
        estimator.classes_ = stats.classes
        if estimator._auto_linear_reg and isinstance(estimator.reg, str):  # labels in memory
            labels = np.asarray(y.compute() if is_dask_array(y) else y)
            select_linear_reg(estimator, X, np.searchsorted(stats.classes, labels))
        else:
            select_linear_reg(estimator, None, None)
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
        return TrainingData(None, None, stats, dtype)
    if not estimator._is_kernel():  # neighbour graphs need the samples in memory
        return estimator._training_data(X.compute(), None if y is None else np.asarray(y))
    if estimator._approximation() is None:
        raise ValueError(
            f"{name} on a dask array needs approximation='nystroem' (with n_landmarks): the "
            "exact kernel is an n x n matrix in memory. Pass approximation='nystroem', or "
            "X.compute() to fit the exact kernel in memory."
        )
    if type(estimator)._class_forms is _BaseGraphEmbedding._class_forms:
        raise ValueError(
            f"{name} cannot fit a dask array: its problem needs the landmark features of every "
            "sample in memory (neighbour graphs or its own solver); only class-structured "
            "kernel methods (KernelLDA, KQMI) fit lazily. Pass X.compute()."
        )
    check_dask_input(X, name)
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError("The dask array has unknown chunk sizes; call X.compute_chunk_sizes() "
                         "first.")
    if y is None:
        raise ValueError(f"{name} needs class labels y.")
    y = np.asarray(y.compute() if is_dask_array(y) else y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and y must have the same number of samples and y must be 1-D; got X of shape "
            f"{X.shape} and y of shape {y.shape}."
        )
    estimator.__dict__.pop("feature_names_in_", None)
    estimator.n_features_in_ = int(X.shape[1])
    estimator.classes_, y_enc, _ = check_labels(y, **estimator._label_requirements())
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return TrainingData(X, y_enc, None, X.dtype)


def select_kernel(est, data):
    """``gamma_`` and ``reg_``: the given values, or chosen from the data (:mod:`graphdr.tuning`)."""
    gamma = check_auto(est.gamma, "gamma", allow_none=True)
    reg = check_auto(getattr(est, "reg", None), "reg", allow_none=True)
    auto_gamma, auto_reg = gamma == "auto", reg == "auto"
    check_kernel_params(est.kernel, None if auto_gamma else gamma, est.degree, est.coef0)
    has_width = not callable(est.kernel) and est.kernel in tuning_width_kernels
    # a precomputed kernel has no width, and its ridge keeps the 1e-3 default
    searchable = (auto_gamma and has_width) or (
        auto_reg and est._solver_uses_reg() and est.kernel != "precomputed")
    est.__dict__.pop("cv_results_", None)
    if not searchable or data.y_encoded is None:
        est.gamma_ = (median_gamma(data.X)
                      if auto_gamma and has_width else (None if auto_gamma else gamma))
        est.reg_ = 1e-3 if auto_reg else (0.0 if reg is None else reg)
        return
    fixed = dict(search_gamma=auto_gamma, search_reg=auto_reg and est._solver_uses_reg(),
                 fixed_gamma=None if auto_gamma else gamma,
                 fixed_reg=1e-3 if auto_reg else (0.0 if reg is None else reg),
                 n_jobs=getattr(est, "n_jobs", None))
    if est._class_objective_block(2, np.ones(2)) is not None and est._solver_uses_reg():
        # class-structured (kernel LDA, kernel QMI): exact leave-one-out in closed form
        est.gamma_, est.reg_, est.cv_results_ = tuning_loo_search(est, data.X, data.y_encoded,
                                                                  **fixed)
        return
    est.gamma_, est.reg_, est.cv_results_ = tuning_search(
        est, data.X, data.y_encoded, scaling=getattr(est, "scaling", "total"), **fixed)


def check_linear_reg(est):
    """``reg`` of a linear estimator: a number >= 0, or 'auto' where it is supported."""
    reg = getattr(est, "reg", None)
    if isinstance(reg, str) and reg == "auto" and not est._auto_linear_reg:
        raise ValueError(
            f"{type(est).__name__}: reg must be a number >= 0; got 'auto' (reg='auto' is "
            "available for LDA, LQMI and the kernel estimators)."
        )
    if reg is not None and not (isinstance(reg, str) and reg == "auto"):
        est._resolved_reg()


def select_linear_reg(est, X, y_enc):
    """``reg_`` (and ``cv_results_``) of a linear estimator whose ``reg`` may be 'auto':
    the given value, or the leave-one-out ridge (:func:`graphdr.tuning.press_ridge`)."""
    if not est._auto_linear_reg:
        return
    est.__dict__.pop("cv_results_", None)
    if isinstance(est.reg, str):
        est.reg_, est.cv_results_ = press_ridge(
            X, y_enc, name=type(est).__name__)
    else:
        est.reg_ = float(est.reg)


class _BaseGraphEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared fit/transform of linear and kernel graph embedding. Not public."""

    #: smallest class size the method accepts
    _min_per_class = 1
    #: a linear estimator whose ``reg='auto'`` is the leave-one-out ridge
    #: (:func:`graphdr.tuning.press_ridge`)
    _auto_linear_reg = False
    #: the constraint is the regularised total scatter, ``V^T (S_t + eps I) V = I``: the
    #: ``'within'`` metric whitens the regularised within-class scatter (``routes.metric_transform``)
    _ridge_on_total_scatter = False

    # ----- what subclasses define ------------------------------------------------------
    def _uses_labels(self):
        return True

    def _is_kernel(self):
        return getattr(self, "kernel", None) is not None

    def _resolved_reg(self):
        reg = getattr(self, "reg", 0.0)
        if reg is None:
            return 1e-3 if self._is_kernel() else 0.0
        if isinstance(reg, str) and reg == "auto":
            return self.reg_
        if self._is_kernel() or self._auto_linear_reg:
            check_auto(reg, "reg")  # names 'auto' among the allowed values
        return check_positive(reg, "reg", allow_zero=True)

    def _check_params(self):
        """Validate hyper-parameters (called at the start of fit)."""

    def _build_graphs(self, X_graph, y_enc, metric):
        """Return (intrinsic graph, penalty graph or 'degree' or 'identity')."""
        raise NotImplementedError

    def _problem(self, X_graph, y_enc, metric):
        """The :class:`graphdr.routes.GraphProblem` of this method (default: minimise)."""
        return GraphProblem(*self._build_graphs(X_graph, y_enc, metric))

    def _max_components(self, n_available, n_classes):
        """Return (largest meaningful n_components, reason)."""
        return n_available, "the rank of the penalty/constraint matrix"

    def _default_n_components(self, eigenvalues, k):
        """Number of components that ``n_components=None`` keeps of the ``k`` available."""
        return k

    def _class_forms(self, class_sizes):
        """Class-structured linear problem as :class:`graphdr.routes.ClassForms`, or None.

        A subclass whose (linear) problem uses only class graphs returns its forms
        ``d * G_c - U^T B U`` (``G_c`` the centred Gram matrix, ``U`` the centred class sums,
        ``B`` a ``C x C`` block, ``d`` the constant degree of the class graph). Then the whole
        fit needs only :func:`graphdr.stats.class_statistics`.
        """
        return None

    def _has_class_forms(self, y):
        return (
            y is not None
            and not self._is_kernel()
            and type(self)._class_forms is not _BaseGraphEmbedding._class_forms
        )

    def _class_objective_block(self, n_classes, class_sizes):
        """C x C block of a class-structured objective to maximise over ``S_t + eps``, or None."""
        return None

    def _eigenvalues_from_ratios(self, ratios):
        """Map the Cholesky route's maximised ratios to the min-form eigenvalues."""
        return 1.0 - ratios

    # ----- fit: the five steps ---------------------------------------------------------
    def fit(self, X, y=None):
        """Fit the projection on training data.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            Training data (the training kernel matrix when ``kernel='precomputed'``). A Dask
            array is accepted by class-structured linear methods and, with
            ``approximation='nystroem'``, by kernel LDA and kernel QMI (see Notes).
        y : array-like of shape (n_samples,)
            Class labels of any type (integers, strings, ...). Unsupervised settings ignore it.

        Returns
        -------
        self : object

        Notes
        -----
        Class-structured linear methods read ``X`` once (class counts, class sums and the
        centred Gram matrix, :func:`graphdr.stats.class_statistics`) and accept a
        ``dask.array.Array`` for ``X`` (and ``y``): its statistics are computed chunk by chunk
        on the active Dask scheduler or ``distributed`` cluster and the array is never
        materialised (NaN/inf are detected in the same pass).

        :class:`~graphdr.KernelLDA` and :class:`~graphdr.KQMI` with
        ``approximation='nystroem'`` accept a Dask ``X`` too: only the ``n_landmarks`` landmark
        rows are computed (the rows an in-memory fit with the same ``random_state`` draws),
        the landmark features of each chunk are reduced at once to their class statistics
        (the ``n x n_landmarks`` feature matrix is never formed) and the labels, one per
        sample, are computed. ``gamma='auto'``/``reg='auto'`` compute only the rows of the
        search's subsample (at most 600), so the choice is the in-memory one. The fit is the
        in-memory fit up to rounding; ``embedding_`` is not stored (``transform(X)`` gives it
        lazily). The exact kernel (``approximation=None``) on a Dask array raises
        ``ValueError``, as do kernel LPP and CKFD (their neighbour graphs or solver need every
        sample's features in memory); other linear methods compute the array.
        """
        self._check_params()
        if hasattr(self, "scaling"):
            check_option(self.scaling, "scaling", set(SCALINGS))
        if not self._is_kernel():
            check_linear_reg(self)
        data = self._training_data(X, y)
        if self._is_kernel():
            select_kernel(self, data)
        space = self._coordinate_space(data)
        solution = self._solve(space, data)
        self._store(space, solution, data)
        return self

    def _training_data(self, X, y):
        """Step 1: validated samples and labels, or class statistics from one pass."""
        self._input_scale = 1.0
        if is_dask_array(X):
            return dask_training_data(self, X, y)
        if self._has_class_forms(y):
            return self._statistics(X, y)
        labels = self._uses_labels() or y is not None
        sparse = self._accepts_sparse()  # scikit-learn's kernels take sparse X
        if sp.issparse(X) and not sparse:
            raise ValueError(
                f"{type(self).__name__} needs dense X with these settings (its neighbour graphs, "
                "quadratic forms or precomputed kernel are dense): pass X.toarray(), or use a "
                "method that takes sparse X: LDA, LQMI, GraphEmbedding with class graphs, or a "
                "kernel method with a kernel function."
            )
        if labels:
            X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2,
                                 accept_sparse=sparse)
            self.classes_, y_enc, _ = check_labels(y, **self._label_requirements())
            return TrainingData(self._rescaled_input(X), y_enc, None, X.dtype)
        X = validate_data(self, X, dtype=_DTYPES, ensure_min_samples=2, accept_sparse=sparse)
        return TrainingData(self._rescaled_input(X), None, None, X.dtype)

    def _rescaled_input(self, X):
        """``X / 2**e`` for linear methods when ``max|X|`` is outside ``[2**-64, 2**64]``.

        Squares of ``X * 1e-300`` underflow and those of ``X * 1e150`` overflow; dividing by a
        power of two is exact, and the fitted ``components_`` and ``mean_`` are mapped back in
        :meth:`_store`, so every scale gives the same embedding.
        """
        if self._is_kernel() or X.shape[0] * X.shape[1] == 0:
            return X
        self._input_scale = power_of_two_scale(abs(X).max())
        return X if self._input_scale == 1.0 else X / self._input_scale

    def _solver_uses_reg(self):
        """Whether ``reg`` enters the solved problem (not for unregularised solvers)."""
        return "reg" in self.get_params()

    def _label_requirements(self):
        labels = self._uses_labels()
        return dict(
            min_classes=2 if labels else 1,
            min_per_class=self._min_per_class if labels else 1,
            method=type(self).__name__,
        )

    def _statistics(self, X, y):
        """Validate the input and collect the class statistics in one pass over ``X``."""
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2,
                             ensure_all_finite=False, accept_sparse="csr")
        self.classes_, y_enc, _ = check_labels(y, **self._label_requirements())
        if X.shape[1] > X.shape[0] and not sp.issparse(X):
            # more features than samples: the SVD route of data_subspace is more accurate
            assert_all_finite(X, input_name="X")
            select_linear_reg(self, X, y_enc)
            return TrainingData(self._rescaled_input(X), y_enc, None, X.dtype)
        # one pass; max|X| only when the statistics leave the power-of-two scale in doubt
        stats, self._input_scale = scaled_class_statistics(X, y_enc, len(self.classes_))
        select_linear_reg(self, X, y_enc)
        return TrainingData(None, None, stats, X.dtype)

    def _approximation(self, X=None):
        """None (exact kernel) or 'nystroem', validated; ``'auto'`` by the size of ``X``."""
        exact_only = self.kernel == "precomputed" or getattr(self, "solver", None) == "paper"
        approximation = resolve_approximation(getattr(self, "approximation", None), X,
                                              exact_only, self._cholesky_route_possible())
        if approximation is None:
            return None
        check_int(self.n_landmarks, "n_landmarks", min_value=2)
        if self.kernel == "precomputed":
            raise ValueError(
                "approximation='nystroem' needs the kernel function, not kernel='precomputed'."
            )
        return approximation

    def _coordinate_space(self, data):
        """Step 2: the space the problem is solved in (:mod:`graphdr.spaces`)."""
        name = type(self).__name__
        if data.stats is not None:
            return LinearSpan.from_statistics(data.stats, self.rank_tol, name)
        if not self._is_kernel():
            return LinearSpan(self.rank_tol).fit(data.X, name)
        spec = KernelSpec.of(self)
        self.approximation_ = self._approximation(data.X)
        if self.approximation_ == "nystroem":
            return NystroemMap(spec, self.n_landmarks, self.random_state, self.rank_tol).fit(
                data.X, data.y_encoded)
        return KernelMap(spec, self.rank_tol).fit(data.X)

    def _solve(self, space, data):
        """Steps 3-4: graphs, then the cheapest route that solves the problem exactly."""
        reg, n = self._resolved_reg(), data.n_samples
        if space.stats is not None:
            forms = self._class_forms(space.stats.counts.astype(np.float64))
            return Solution(*solve_class_forms(space, forms, reg=reg, n_samples=n,
                                               rank_tol=self.rank_tol))
        if self._use_class_kernel_route(space):
            sizes = np.bincount(data.y_encoded, minlength=len(self.classes_))
            block = self._class_objective_block(len(sizes), sizes)
            try:
                ratios, dual, Y = solve_class_kernel(space, data.y_encoded, block, reg=reg,
                                                     with_embedding=True)
                return Solution(self._eigenvalues_from_ratios(ratios), dual=dual, embedding=Y)
            except np.linalg.LinAlgError:
                warnings.warn(
                    "The centred kernel plus ridge is not positive definite (the kernel is not "
                    "positive semi-definite); falling back to solver='eigh', which drops the "
                    "kernel's negative eigenvalues.",
                    RuntimeWarning,
                    stacklevel=3,
                )
        X_graph, metric = space.graph_input(data.X)
        problem = self._problem(X_graph, data.y_encoded, metric)
        return Solution(*solve_graph_problem(space, problem, reg=reg, n_samples=n,
                                             rank_tol=self.rank_tol))

    def _cholesky_route_possible(self):
        """Whether the exact fit would take the class-structured Cholesky route (one ``n x n``
        factorisation, no eigendecomposition): it sets how large ``approximation='auto'`` keeps
        the exact kernel (:func:`graphdr.spaces.resolve_approximation`)."""
        reg = getattr(self, "reg", 0.0)
        return getattr(self, "solver", "eigh") in ("auto", "cholesky") and not (
            isinstance(reg, (int, float)) and reg == 0)

    def _use_class_kernel_route(self, space):
        solver = getattr(self, "solver", "eigh")
        check_option(solver, "solver", {"auto", "eigh", "cholesky"})
        if not isinstance(space, KernelMap) or solver == "eigh":
            return False
        reg = self._resolved_reg()
        if reg == 0.0 and solver == "cholesky":
            raise ValueError("solver='cholesky' needs reg > 0; use solver='eigh' for reg=0.")
        # the factorised matrix has condition number ~ n / reg: 'auto' keeps it well below 1/eps
        return solver == "cholesky" or reg >= 1e-6

    def _store(self, space, solution, data):
        """Step 5: keep the leading components, mapped back by the space."""
        labelled = data.y_encoded is not None or data.stats is not None
        n_classes = len(self.classes_) if labelled else 1
        max_components, reason = self._max_components(solution.n_available, n_classes)
        k = check_n_components(self.n_components, max_components, reason=reason)
        if self.n_components is None:
            k = self._default_n_components(solution.eigenvalues, k)
        for name in ("components_", "mean_", "nystroem_", "dual_coef_", "X_fit_", "embedding_"):
            self.__dict__.pop(name, None)  # a previous fit in another space
        if solution.dual is not None:
            Y = None if solution.embedding is None else solution.embedding[:, :k]
            R = self._metric(space, data, dual=solution.dual[:, :k], Y=Y)
            dual = solution.dual[:, :k] @ R
            Y = space.training_embedding(dual=dual) if Y is None else Y @ R
            signs = space.signs(y_encoded=data.y_encoded, embedding=Y)
            fitted = space.solution(dual=dual * signs, embedding=Y * signs)
        else:
            V = solution.directions[:, :k]
            V = V @ self._metric(space, data, V)
            fitted = space.solution(V * space.signs(V, data.y_encoded), dtype=data.dtype)
        if self._input_scale != 1.0 and "components_" in fitted:  # see _rescaled_input
            fitted["components_"] = fitted["components_"] / self._input_scale
            fitted["mean_"] = fitted["mean_"] * self._input_scale
        for name, value in fitted.items():
            setattr(self, name, value)
        self.eigenvalues_ = solution.eigenvalues[:k]
        self.n_components_ = k

    def _metric(self, space, data, V=None, dual=None, Y=None, rotate=True):
        """``k x k`` map of directions (or dual coefficients) to the metric of ``scaling``
        (:func:`metric_transform`); ``Y`` is the training embedding of ``dual`` if known."""
        scaling = getattr(self, "scaling", "total")
        if scaling == "total":
            return np.eye((V if dual is None else dual).shape[1])
        within, total, norms, n, n_classes = embedded_scatters(space, data, V, dual, Y)
        reg = self._resolved_reg()
        # the solver's directions satisfy V^T (S_t + eps I) V = I: the ridge's embedded form
        ridge_form = np.eye(total.shape[0]) - total if (
            self._ridge_on_total_scatter and reg > 0) else None
        return metric_transform(scaling, within, total, norms, n_samples=n, n_classes=n_classes,
                                reg=reg, ridge_form=ridge_form, rotate=rotate)

    # ----- transform ---------------------------------------------------------------------
    def transform(self, X):
        """Project samples onto the learned components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New samples (kernel between new and training samples, of shape
            ``(n_samples, n_train)``, when ``kernel='precomputed'``).

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
            A lazy ``dask.array.Array`` (same row chunks, computed by ``map_blocks``) when
            ``X`` is a Dask array.
        """
        check_is_fitted(self)
        if is_dask_array(X):
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1] if X.ndim == 2 else X.shape} features, but "
                    f"{type(self).__name__} is expecting {self.n_features_in_} features as input."
                )
            if len(X.chunks[1]) > 1:
                X = X.rechunk({1: -1})
            out_dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
            return X.map_blocks(
                self._transform_array, chunks=(X.chunks[0], (self.n_components_,)),
                dtype=out_dtype,
            )
        return self._transform_array(X)

    def _transform_array(self, X):
        X = validate_data(self, X, reset=False, dtype=_DTYPES, accept_sparse=self._accepts_sparse())
        if hasattr(self, "nystroem_"):
            return NystroemMap.embed(self, X)
        if hasattr(self, "dual_coef_"):
            return KernelMap.embed(self, X)
        return LinearSpan.embed(self, X)

    def _accepts_sparse(self):
        """Sparse X: kernel methods, and class-structured linear problems (statistics)."""
        kernel = self._is_kernel() and getattr(self, "kernel", None) != "precomputed"
        return "csr" if kernel or self._has_class_forms(np.zeros(1)) else False

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accepts_sparse())
        tags.target_tags.required = self._uses_labels()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = getattr(self, "kernel", None) == "precomputed"
        return tags


def _sym_np(M):
    return (M + M.T) / 2.0


class _LinearProjection(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared ``transform`` of supervised linear projections fitted by their own algorithm.

    Subclasses set ``components_`` (n_components x n_features), ``mean_`` and ``n_components_``
    in ``fit``; ``transform(X) = (X - mean_) @ components_.T``.
    """

    def transform(self, X):
        """Project samples: ``(X - mean_) @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=_DTYPES)
        return (X - self.mean_) @ self.components_.T

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


_LABEL_GRAPHS = {"within_class", "between_class", "supervised_knn", "inter_class_knn"}
_CLASS_GRAPHS = {"within_class", "between_class", "total"}


def class_graph_block(name, class_sizes):
    """(constant degree, C x C block) of a named class graph for class sizes ``J``."""
    J = np.asarray(class_sizes, dtype=np.float64)
    n, C = J.sum(), J.shape[0]
    if name == "within_class":
        return 1.0, np.diag(1.0 / J)
    if name == "total":
        return 1.0, np.full((C, C), 1.0 / n)
    return 0.0, np.full((C, C), 1.0 / n) - np.diag(1.0 / J)  # between_class
_GRAPH_NAMES = _LABEL_GRAPHS | {"total", "knn"}


class GraphEmbedding(_BaseGraphEmbedding):
    r"""Generic (kernel) graph embedding with any intrinsic and penalty graph.

    .. math::

        \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
        V^\top \big(X^\top Q X + \epsilon I\big) V = I ,

    where ``W`` is the intrinsic graph, ``Q`` the Laplacian of the penalty graph, the degree
    matrix of ``W`` (``penalty='degree'``, LPP's constraint) or the identity
    (``penalty='identity'``, i.e. ``V^T V = I``). With a ``kernel`` the problem is solved in the
    empirical kernel map of the centred kernel matrix (dual form
    :math:`(K L K + \epsilon K) a = \lambda (K Q K + \epsilon K) a`). The ridge on both sides
    makes :math:`\epsilon` penalise directions of small variance (see :mod:`graphdr.solvers`).

    Parameters
    ----------
    n_components : int or None, default=None
        Dimension of the embedding. None takes all directions the penalty matrix allows; a larger
        number raises a ``ValueError`` naming the maximum.
    intrinsic : str, callable, array or sparse matrix, default='knn'
        The graph whose joined samples are kept close. A name: ``'knn'``, ``'supervised_knn'``
        (neighbours of the same class), ``'inter_class_knn'`` (neighbours of other classes),
        ``'within_class'`` (LDA), ``'between_class'``, ``'total'``; a callable
        ``graph(X, y_encoded) -> W``; or a fixed ``n x n`` weight matrix (dense, sparse or
        :class:`graphdr.graphs.ClassGraph`) for the training samples.
    penalty : str, callable, array or sparse matrix, default='degree'
        The constraint graph, given like ``intrinsic``, or ``'degree'`` or ``'identity'``.
    kernel : None or {'rbf', 'linear', 'poly', 'sigmoid', 'precomputed', ...} or callable
        None for the linear method; otherwise the kernel of the kernel method.
    n_neighbors : int, default=5
        Neighbours of the kNN graphs.
    weights : {'heat', 'binary'}, default='heat'
        Edge weights of kNN graphs.
    sigma : float or None, default=None
        Heat-kernel width of kNN graphs (None: data-driven, see :func:`graphdr.graphs.knn_graph`).
    reg : float or None, default=None
        Ridge :math:`\epsilon` relative to the mean eigenvalue of the constraint matrix.
        None means 0 for the linear method and 1e-3 with a kernel.
    gamma, degree, coef0, kernel_params
        Kernel parameters (see :func:`graphdr.kernel_matrices.compute_kernel`).
    rank_tol : float or None, default=None
        Relative tolerance below which data variance and constraint eigenvalues count as zero.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Projection directions (linear method). ``transform(X) = (X - mean_) @ components_.T``.
    mean_ : ndarray of shape (n_features,)
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
        Dual coefficients (kernel method): ``transform(X) = K_c(X, X_fit_) @ dual_coef_``.
    X_fit_ : ndarray
        Training data kept for the kernel of new samples (kernel method).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding (kernel method).
    eigenvalues_ : ndarray of shape (n_components_,)
        Values of the ratio ``v^T A v / v^T B v`` of each component, increasing.
    n_components_ : int
    classes_ : ndarray
        Class labels seen in ``fit`` (when ``y`` was given).
    """

    def __init__(
        self,
        n_components=None,
        *,
        intrinsic="knn",
        penalty="degree",
        kernel=None,
        n_neighbors=5,
        weights="heat",
        sigma=None,
        reg=None,
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        rank_tol=None,
    ):
        self.n_components = n_components
        self.intrinsic = intrinsic
        self.penalty = penalty
        self.kernel = kernel
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.reg = reg
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank_tol = rank_tol

    def _uses_labels(self):
        return any(
            isinstance(g, str) and g in _LABEL_GRAPHS for g in (self.intrinsic, self.penalty)
        )

    def _has_class_forms(self, y):
        return (
            super()._has_class_forms(y)
            and isinstance(self.intrinsic, str) and self.intrinsic in _CLASS_GRAPHS
            and isinstance(self.penalty, str)
            and self.penalty in _CLASS_GRAPHS | {"degree", "identity"}
        )

    def _class_forms(self, class_sizes):
        A = class_graph_block(self.intrinsic, class_sizes)
        if self.penalty == "identity":
            B = "identity"
        elif self.penalty == "degree":
            B = (A[0], np.zeros_like(A[1]))
        else:
            B = class_graph_block(self.penalty, class_sizes)
        return ClassForms(A, B)

    def _check_params(self):
        for name, spec in (("intrinsic", self.intrinsic), ("penalty", self.penalty)):
            allowed = _GRAPH_NAMES | ({"degree", "identity"} if name == "penalty" else set())
            if isinstance(spec, str):
                check_option(spec, name, allowed)

    def _graph(self, spec, X_graph, y_enc, metric, name):
        n = X_graph.shape[0]
        if callable(spec):
            return _graphs.as_graph(spec(X_graph, y_enc), n, name)
        if not isinstance(spec, str):
            return _graphs.as_graph(spec, n, name)
        if spec in _LABEL_GRAPHS and y_enc is None:
            raise ValueError(f"{name}={spec!r} needs class labels: pass y to fit.")
        knn = dict(weights=self.weights, sigma=self.sigma, metric=metric)
        if spec == "within_class":
            return _graphs.within_class_graph(y_enc)
        if spec == "between_class":
            return _graphs.between_class_graph(y_enc)
        if spec == "total":
            return _graphs.total_graph(np.zeros(n, dtype=np.intp) if y_enc is None else y_enc)
        if spec == "knn":
            return _graphs.knn_graph(X_graph, self.n_neighbors, **knn)
        restrict = "same" if spec == "supervised_knn" else "different"
        return _graphs.knn_graph(X_graph, self.n_neighbors, y=y_enc, restrict=restrict, **knn)

    def _build_graphs(self, X_graph, y_enc, metric):
        intrinsic = self._graph(self.intrinsic, X_graph, y_enc, metric, "intrinsic")
        if isinstance(self.penalty, str) and self.penalty in ("degree", "identity"):
            return intrinsic, self.penalty
        return intrinsic, self._graph(self.penalty, X_graph, y_enc, metric, "penalty")
