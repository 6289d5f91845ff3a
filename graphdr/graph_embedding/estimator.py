r"""The estimator core of graph embedding: validate, pick a space, build graphs, solve, store."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.utils.validation import assert_all_finite, check_is_fitted, validate_data

from .._threads import managed_threads
from .._validation import (
    check_label_values,
    check_labels,
    check_n_components,
    check_not_constant,
    check_option,
    check_positive,
    checked_parameters,
    dense_for_semi_supervised,
)
from ..blocks.solvers import untied_count
from ..blocks.stats import input_scale, is_dask_array
from ..semi.choice import (
    UnlabelledUses,
    lazy_unlabelled,
    partially_labelled,
    prepare_unlabelled,
    solve_partially_labelled,
)
from ..training.prepared import PreparedInput, features_of
from ..training.supports import Supports
from ..tuning import check_auto
from .fitting import (
    _DTYPES,
    FitTraits,
    Selected,
    Solution,
    TrainingData,
    check_linear_params,
    dask_training_data,
    metric_of,
    select_kernel_and_approximation,
    select_linear_reg,
    semi_supervised_reg,
    statistics_and_reg,
    wants_press_ridge,
)
from .routes import (
    SCALINGS,
    GraphProblem,
    solve_class_forms,
    solve_class_kernel,
    solve_graph_problem,
)
from .spaces import (
    KernelMap,
    KernelSpec,
    LinearSpan,
    NystroemMap,
    scales_with_gamma,
)


def _embed_rows(est, X):
    """``est``'s embedding of the rows ``X``, validated already (by ``transform``, or as the
    rows of the training set a fit took)."""
    if est._is_kernel() and getattr(est, "_input_scale", 1.0) != 1.0:
        X = X / est._input_scale  # as the training samples (_rescaled_input)
    if hasattr(est, "nystroem_"):
        return NystroemMap.embed(est, X)
    if hasattr(est, "dual_coef_"):
        return KernelMap.embed(est, X)
    return LinearSpan.embed(est, X)


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
    #: what the estimator takes (:class:`~graphdr.training.supports.Supports`); a partially
    #: labelled fit hands its trial fits and itself the rows validated once
    #: (:class:`~graphdr.training.prepared.PreparedInput`): ``fit`` goes through :meth:`_training_data`
    _supports = Supports(ridge=True, prepared=True)

    # ----- what subclasses define ------------------------------------------------------
    def _uses_labels(self):
        return True

    def _is_kernel(self):
        return getattr(self, "kernel", None) is not None

    def _accepts_unlabelled(self):
        """Whether ``y = -1`` marks unlabelled samples that the fit uses
        (:mod:`graphdr.semi.choice`)."""
        return self._supports.unlabelled_rows and self._uses_labels()

    def _resolved_reg(self, data=None):
        """The ridge the solve uses: ``reg``, or the one chosen (``reg_``: in ``data.chosen``
        during a fit, on the fitted estimator after it)."""
        reg = getattr(self, "reg", 0.0)
        if reg is None:
            return 1e-3 if self._is_kernel() else 0.0
        if isinstance(reg, str) and reg == "auto":
            return self.reg_ if data is None else data.choice("reg_")
        if self._is_kernel() or self._auto_linear_reg:
            check_auto(reg, "reg")  # names 'auto' among the allowed values
        return check_positive(reg, "reg", allow_zero=True)

    def _check_params(self):
        """Validate hyper-parameters (called at the start of fit)."""

    def _build_graphs(self, X_graph, y_enc, metric):
        """Return (intrinsic graph, penalty graph or 'degree' or 'identity')."""
        raise NotImplementedError

    #: a minimised problem whose objective is the constraint less a between-class form (LDA):
    #: a semi-supervised smoothness form goes into both (:class:`graphdr.graph_embedding.routes.GraphProblem`)
    _smoothing_in_constraint = False

    def _problem(self, X_graph, y_enc, metric):
        """The :class:`graphdr.graph_embedding.routes.GraphProblem` of this method (default: minimise)."""
        return GraphProblem(*self._build_graphs(X_graph, y_enc, metric),
                            smooth_constraint=self._smoothing_in_constraint)

    def _max_components(self, n_available, n_classes):
        """Return (largest meaningful n_components, reason)."""
        return n_available, "the rank of the penalty/constraint matrix"

    def _default_n_components(self, eigenvalues, k):
        """Number of components that ``n_components=None`` keeps of the ``k`` available."""
        return k

    def _class_forms(self, class_sizes):
        """Class-structured linear problem as :class:`graphdr.graph_embedding.routes.ClassForms`, or None.

        A subclass whose (linear) problem uses only class graphs returns its forms
        ``d * G_c - U^T B U`` (``G_c`` the centred Gram matrix, ``U`` the centred class sums,
        ``B`` a ``C x C`` block, ``d`` the constant degree of the class graph). Then the whole
        fit needs only :func:`graphdr.blocks.stats.class_statistics`.
        """
        return None

    def _has_class_forms(self, y):
        return (y is not None and not self._is_kernel() and self._is_class_structured()
                and not partially_labelled(self, y))

    def _is_class_structured(self):
        """Whether this method's problem uses class graphs only (it defines _class_forms)."""
        return type(self)._class_forms is not _BaseGraphEmbedding._class_forms

    def _class_objective_block(self, n_classes, class_sizes):
        """C x C block of a class-structured objective to maximise over ``S_t + eps``, or None."""
        return None

    def _eigenvalues_from_ratios(self, ratios):
        """Map the Cholesky route's maximised ratios to the min-form eigenvalues."""
        return 1.0 - ratios

    # ----- fit: the five steps ---------------------------------------------------------
    @managed_threads
    @checked_parameters
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
        centred Gram matrix, :func:`graphdr.blocks.stats.class_statistics`) and accept a
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
        space, data = self._prepare(X, y)
        self._store(space, self._solve(space, data), data)
        return self

    def _prepare(self, X, y):
        """Steps 1-2: ``(space, data)``. What the fit finds and chooses from the data (classes,
        scale, ridge, kernel width, exact or Nystroem, the use of unlabelled rows:
        :class:`~graphdr.graph_embedding.fitting.Selected`) is chosen by functions that set
        nothing, and travels in ``data.chosen`` to :meth:`_store`, which writes it: a fit
        sets nothing before its solve (scikit-learn's ``validate_data`` records the features
        it validates)."""
        self._check_params()
        if self._supports.scaling:
            check_option(self.scaling, "scaling", set(SCALINGS))
        traits = fit_traits(self)
        if not self._is_kernel():
            check_linear_params(traits, self.get_params(deep=False), self._resolved_reg)
        if is_dask_array(X):  # (decided once: the later steps take arrays in memory)
            X, y, chosen, data = _lazy_input(self, traits, X, y)
        else:
            X, y, chosen = prepare_unlabelled(self, X, y, uses=unlabelled_uses(self, traits))
            data = None
        data = self._training_data(X, y) if data is None else data
        found = X.found() if isinstance(X, PreparedInput) else None
        selected = Selected({}) | found | data.found() | chosen | data.selected
        if self._is_kernel():
            selected = selected | select_kernel_and_approximation(self, traits, data)
        if self._supports.smoothing:  # the supervised fit, unless some samples are unlabelled
            selected = selected | Selected({"smoothing_": 0.0}, ("smoothing_results_",))
        data = data._replace(chosen=selected)
        return self._coordinate_space(data), data

    def _fit_ridge_path(self, X, y, regs):
        """One fitted copy per ridge in ``regs``, sharing the kernel map and the graphs
        (:func:`fit_ridge_path`)."""
        return fit_ridge_path(self, X, y, regs)

    def _graph_problem(self, space, data):
        """Step 3: the graphs of the problem in the space's coordinates."""
        X_graph, metric = space.graph_input(data.X)
        return self._problem(X_graph, data.y_encoded, metric)

    def _training_data(self, X, y):
        """Step 1 in memory: validated samples and labels, or class statistics from one pass
        (``X`` a :class:`~graphdr.training.prepared.PreparedInput`: validated already)."""
        prepared = X if isinstance(X, PreparedInput) else None
        traits = fit_traits(self)
        if self._has_class_forms(y):
            return self._statistics(X, y)
        if not (self._uses_labels() or y is not None):  # (an unsupervised fit)
            X = _checked_rows(self, validate_data(self, X, dtype=_DTYPES, ensure_min_samples=2,
                                                  accept_sparse=self._accepts_sparse()))
            X_fit, scale = _rescaled_input(self, X)
            return TrainingData(X_fit, None, None, X.dtype, scale=scale)
        X, y = _validated(self, X, y)
        classes, y_enc, _ = check_labels(y, **traits.requirements)
        X = _checked_rows(self, X)
        X_fit, scale = _rescaled_input(self, X)
        keys, fit_keys = _keys(self, prepared, X), _fit_keys(prepared, X_fit, self)
        selected = (semi_supervised_reg(traits, self.reg, X, y_enc, keys)
                    if self._auto_linear_reg and not self._is_kernel() else None)
        return TrainingData(X_fit, y_enc, None, X.dtype, prepared, selected, classes, scale,
                            keys=fit_keys)

    def _prepared_input(self, X, y):
        """``X`` and ``y`` validated once for the fits of a partially labelled fit
        (:class:`~graphdr.training.prepared.PreparedInput`)."""
        X, y = _validated(self, X, y)
        classes, y_enc, _ = check_labels(y, min_classes=2, method=type(self).__name__,
                                         unlabelled="allow")
        return PreparedInput(X, y, classes, y_enc, features_of(self))

    def _solver_uses_reg(self):
        """Whether ``reg`` enters the solved problem (not for unregularised solvers)."""
        return self._supports.ridge

    def _label_requirements(self):
        labels = self._uses_labels()
        return dict(
            min_classes=2 if labels else 1,
            min_per_class=self._min_per_class if labels else 1,
            method=type(self).__name__,
            unlabelled="allow" if self._accepts_unlabelled() else "refuse",
        )

    def _statistics(self, given, y):
        """Validate the input and collect the class statistics in one pass over ``X``."""
        X, y = _validated(self, given, y, ensure_all_finite=False, accept_sparse="csr")
        traits, reg, keys = fit_traits(self), getattr(self, "reg", None), _keys(self, given, X)
        classes, y_enc, _ = check_labels(y, **traits.requirements)
        if X.shape[1] > X.shape[0] and not sp.issparse(X):
            # more features than samples: the SVD route of data_subspace is more accurate
            assert_all_finite(X, input_name="X")
            selected = select_linear_reg(traits, reg, X, y_enc, keys=keys)
            X_fit, scale = _rescaled_input(self, X)
            return TrainingData(X_fit, y_enc, None, X.dtype, selected=selected, classes=classes,
                                scale=scale)
        stats, scale, selected = statistics_and_reg(traits, reg, X, y_enc, len(classes), keys)
        return TrainingData(None, None, stats, X.dtype, selected=selected, classes=classes,
                            scale=scale)

    def _coordinate_space(self, data):
        """Step 2: the space the problem is solved in (:mod:`graphdr.graph_embedding.spaces`)."""
        name = type(self).__name__
        if data.stats is not None:
            return LinearSpan.from_statistics(data.stats, self.rank_tol, name)
        if not self._is_kernel():
            return LinearSpan(self.rank_tol).fit(data.X, name)
        spec = KernelSpec.of(self, data.chosen.values)
        if data.choice("approximation_") == "nystroem":
            return NystroemMap(spec, self.n_landmarks, self.random_state, self.rank_tol).fit(
                data.X, data.y_encoded, keys=data.keys)
        return KernelMap(spec, self.rank_tol).fit(data.X)

    def _solve(self, space, data, problem=None):
        """Steps 3-4: graphs (or the given ``problem``), then the cheapest route that solves
        the problem exactly."""
        reg, n = self._resolved_reg(data), data.n_samples
        if data.partially_labelled:  # semi-supervised: graphs over every sample
            return solve_partially_labelled(
                self, space, data, self._graph_problem(space, data) if problem is None else problem,
                reg)
        if space.stats is not None:
            forms = self._class_forms(space.stats.counts.astype(np.float64))
            return Solution(*solve_class_forms(space, forms, reg=reg, n_samples=n,
                                               rank_tol=self.rank_tol))
        if self._use_class_kernel_route(space, data):
            sizes = np.bincount(data.y_encoded, minlength=len(data.classes))
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
        if problem is None:
            problem = self._graph_problem(space, data)
        return Solution(*solve_graph_problem(space, problem, reg=reg, n_samples=n,
                                             rank_tol=self.rank_tol), selected=problem.selected)

    def _use_class_kernel_route(self, space, data):
        solver = getattr(self, "solver", "eigh")
        check_option(solver, "solver", {"auto", "eigh", "cholesky"})
        if not isinstance(space, KernelMap) or solver == "eigh":
            return False
        reg = self._resolved_reg(data)
        if reg == 0.0 and solver == "cholesky":
            raise ValueError("solver='cholesky' needs reg > 0; use solver='eigh' for reg=0.")
        # the factorised matrix has condition number ~ n / reg: 'auto' keeps it well below 1/eps
        return solver == "cholesky" or reg >= 1e-6

    def _store(self, space, solution, data):
        """Step 5, the fit's one writer of fitted attributes: what the fit found and chose
        (``data.chosen``) and what the solve chose (``solution.selected``), then the leading
        components, mapped back by the space."""
        (Selected({}) | data.chosen | solution.selected).write(self)
        labelled = data.y_encoded is not None or data.stats is not None
        n_classes = len(data.classes) if labelled else 1
        max_components, reason = self._max_components(solution.n_available, n_classes)
        k = check_n_components(self.n_components, max_components, reason=reason)
        if self.n_components is None:
            k = untied_count(solution.eigenvalues, self._default_n_components(
                solution.eigenvalues, k))
        for name in ("components_", "mean_", "nystroem_", "dual_coef_", "X_fit_", "embedding_"):
            self.__dict__.pop(name, None)  # a previous fit in another space
        if solution.dual is not None:
            Y = None if solution.embedding is None else solution.embedding[:, :k]
            R = self._metric(space, data, None, solution.dual[:, :k], Y,
                             criterion=solution.eigenvalues[:k])
            dual = solution.dual[:, :k] @ R
            Y = space.training_embedding(dual=dual) if Y is None else Y @ R
            signs = space.signs(y_encoded=data.y_encoded, embedding=Y)
            fitted = space.solution(dual=dual * signs, embedding=Y * signs)
        else:
            V = solution.directions[:, :k]
            V = V @ self._metric(space, data, V, criterion=solution.eigenvalues[:k])
            fitted = space.solution(V * space.signs(V, data.y_encoded), dtype=data.dtype)
        if data.scale != 1.0 and "components_" in fitted and not self._is_kernel():
            # see _rescaled_input (a kernel method's components act on kernel features)
            fitted["components_"] = fitted["components_"] / data.scale
            fitted["mean_"] = fitted["mean_"] * data.scale
        for name, value in fitted.items():
            setattr(self, name, value)
        self.eigenvalues_ = solution.eigenvalues[:k]
        self.n_components_ = k

    def _metric(self, space, data, V=None, dual=None, Y=None, rotate=True, criterion=None):
        """``k x k`` map of directions (or dual coefficients) to the metric of ``scaling``
        (:func:`metric_transform`); ``Y`` is the training embedding of ``dual`` if known;
        ``criterion`` the solver's eigenvalues of the directions (either order: the most
        important first), which order the components that carry no between-class variance."""
        return metric_of(space, data, V, dual, Y, scaling=getattr(self, "scaling", "total"),
                         reg=self._resolved_reg(data),
                         ridge_on_total_scatter=self._ridge_on_total_scatter, rotate=rotate,
                         criterion=criterion)

    # ----- transform ---------------------------------------------------------------------
    @managed_threads
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
        return _embed_rows(self, validate_data(self, X, reset=False, dtype=_DTYPES,
                                               accept_sparse=self._accepts_sparse()))

    #: the embedding of rows validated already (``transform`` without its validation)
    _embed_rows = _embed_rows

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


def _cholesky_route(params):
    """Whether the exact fit of an estimator of parameters ``params`` would take the
    class-structured Cholesky route (one ``n x n`` factorisation, no eigendecomposition): it
    sets how large ``approximation='auto'`` keeps the exact kernel
    (:func:`graphdr.graph_embedding.spaces.resolve_approximation`)."""
    reg = params.get("reg", 0.0)
    return params.get("solver", "eigh") in ("auto", "cholesky") and not (
        isinstance(reg, (int, float)) and reg == 0)


def _checked_rows(est, X):
    """The validated rows ``X`` as ``est``'s fit takes them: dense for a linear fit (its
    neighbour graphs and quadratic forms), and not constant for a kernel function (whose
    width would come from nothing)."""
    name = type(est).__name__
    if sp.issparse(X) and not est._is_kernel():
        X = dense_for_semi_supervised(X, name)
    if est._is_kernel() and est.kernel != "precomputed":
        check_not_constant(X, name)
    return X


def _rescaled_input(est, X):
    """``(X, scale)``: ``X`` divided by its scale as ``est``'s fit takes it
    (:func:`_divided_input`)."""
    return _divided_input(X, est._is_kernel() and not scales_with_gamma(est))


def _divided_input(X, unscaled):
    """``(X / 2**e, 2**e)`` when ``max|X|`` is outside ``[2**-64, 2**64]``, else ``(X, 1)``
    (also when ``unscaled``: a kernel that does not see the data through ``gamma``).

    Squares of ``X * 1e-300`` underflow and those of ``X * 1e150`` overflow; dividing by a
    power of two is exact. Linear methods map the fitted ``components_`` and ``mean_`` back
    in :meth:`_BaseGraphEmbedding._store`, so every scale gives the same embedding. Kernel methods whose
    kernel sees the data through ``gamma`` (:data:`graphdr.graph_embedding.spaces.GAMMA_POWER`)
    keep the scaled training samples, divide new samples by the same power of two in
    ``transform`` and multiply a given ``gamma`` by its power
    (:meth:`graphdr.graph_embedding.spaces.KernelSpec.of`); a ``gamma_`` chosen from the data
    is that of the scaled data.
    """
    if X.shape[0] * X.shape[1] == 0 or unscaled:
        return X, 1.0
    scale = input_scale(X)
    return (X if scale == 1.0 else X / scale), scale


def fit_traits(est):
    """What ``est``'s class and parameters say about how it fits
    (:class:`~graphdr.graph_embedding.fitting.FitTraits`), read from its hooks once, for the
    helpers that take values."""
    return FitTraits(
        name=type(est).__name__, kernel=est._is_kernel(), auto_linear_reg=est._auto_linear_reg,
        ridge_on_total_scatter=est._ridge_on_total_scatter,
        solver_uses_reg=est._solver_uses_reg(),
        class_objective=est._class_objective_block(2, np.ones(2)) is not None,
        cholesky_route=_cholesky_route(est.get_params(deep=False)),
        class_structured=est._is_class_structured(),
        accepts_unlabelled=est._accepts_unlabelled(), requirements=est._label_requirements())


def unlabelled_uses(est, traits=None):
    """How ``est`` weighs the uses of its unlabelled rows
    (:class:`~graphdr.semi.choice.UnlabelledUses`): its rows prepared by its own validation,
    its label requirements, and a Dask fit of -1 labels refused in its words."""
    traits = fit_traits(est) if traits is None else traits
    return UnlabelledUses(
        prepare=est._prepared_input, requirements=traits.requirements,
        lazy=(traits.name, traits.accepts_unlabelled) if est._uses_labels() else None)


def _fit_keys(prepared, X_fit, est):
    """The content keys of the rows a kernel fit takes (``X_fit``) where the training set
    ``prepared`` holds them already: its rows themselves, dense ``float64`` (the bytes every
    search keys), of a kernel function; else None (each search keys its rows)."""
    if (prepared is None or X_fit is not prepared.X or not isinstance(X_fit, np.ndarray)
            or X_fit.dtype != np.float64 or not est._is_kernel() or est.kernel == "precomputed"):
        return None
    return prepared.row_keys()


def _lazy_input(est, traits, X, y):
    """``(X, y, chosen, data)`` of a fit of a Dask array ``X``: what the unlabelled rows'
    choice gives it (:func:`~graphdr.semi.choice.lazy_unlabelled`: refusals, no choice), and
    its training data read lazily (:func:`~graphdr.graph_embedding.fitting.dask_training_data`),
    or ``X`` and ``y`` computed and ``data`` None where the fit needs its rows in memory (its
    neighbour graphs)."""
    chosen = lazy_unlabelled(est, y, unlabelled_uses(est, traits))
    if est._is_kernel() or est._has_class_forms(y):
        return X, y, chosen, dask_training_data(traits, est.get_params(deep=False), X, y,
                                                class_forms=est._has_class_forms(y))
    return X.compute(), None if y is None else np.asarray(y), chosen, None


def _keys(est, given, X):
    """The content keys of the rows ``X`` for ``est``'s leave-one-out ridge, from the training
    set ``given`` (a :class:`~graphdr.training.prepared.PreparedInput`) when ``X`` is its rows as
    validated (the same array: the same keys, one pass for the set and its subsets); None
    when the ridge is given or ``X`` is not those rows (the ridge keys them)."""
    if (not isinstance(given, PreparedInput) or X is not given.X
            or not wants_press_ridge(fit_traits(est), getattr(est, "reg", None))):
        return None
    return given.row_keys()


def _validated(est, X, y, **checks):
    """``(X, y)`` validated by scikit-learn's ``validate_data`` (dense unless the estimator
    takes sparse rows: :meth:`_accepts_sparse`), or the rows of a
    :class:`~graphdr.training.prepared.PreparedInput` as they were validated."""
    if isinstance(X, PreparedInput):  # (what its validation found: the fit's store writes it)
        return X.X, np.asarray(y)
    check_label_values(y, type(est).__name__)
    sparse = checks.pop("accept_sparse", est._accepts_sparse())
    if sp.issparse(X) and not sparse:
        raise ValueError(DENSE_NEEDED.format(name=type(est).__name__))
    return validate_data(est, X, y, dtype=_DTYPES, ensure_min_samples=2,
                         accept_sparse=sparse, **checks)


#: a fit whose graphs or precomputed kernel need dense rows, given sparse ones
DENSE_NEEDED = (
    "{name} needs dense X with these settings (its neighbour graphs, quadratic forms or "
    "precomputed kernel are dense): pass X.toarray(), or use a method that takes sparse X: "
    "LDA, LQMI, GraphEmbedding with class graphs, or a kernel method with a kernel function.")


def _sym_np(M):
    return (M + M.T) / 2.0


def fit_ridge_path(estimator, X, y, regs):
    """One fitted copy of ``estimator`` per ridge in ``regs``, each equal to
    ``clone(estimator).set_params(reg=r).fit(X, y)``: the validation, the coordinate space
    (the kernel map's eigendecomposition) and the graphs are computed once, only the solve and
    the store once per ridge (the inner search of the refitted estimators,
    :func:`graphdr.tuning.search`)."""
    base = clone(estimator).set_params(reg=regs[0])
    space, data = base._prepare(X, y)
    shared = (type(base)._solve is _BaseGraphEmbedding._solve and space.stats is None
              and not base._use_class_kernel_route(space, data))
    problem = base._graph_problem(space, data) if shared else None
    fitted = []
    for reg in regs:
        est = copy.copy(base)  # its own __dict__: what _store sets is its own
        est.reg = reg
        at = data if "reg_" not in data.chosen.values else data._replace(
            chosen=data.chosen | Selected({"reg_": reg}))
        solution = est._solve(space, at, problem=problem) if shared else est._solve(space, at)
        est._store(space, solution, at)
        fitted.append(est)
    return fitted
