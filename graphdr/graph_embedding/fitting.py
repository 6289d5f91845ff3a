r"""The pieces of a graph-embedding fit: the training data and the solution as records, the
embedded scatters, Dask input, and the kernel width and ridge (given or chosen from the data)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import check_int, check_labels, has_unlabelled, unlabelled_mask
from ..blocks import graphs as _graphs
from ..blocks.kernel_matrices import check_kernel_params
from ..blocks.sampling import row_keys
from ..blocks.stats import (
    check_dask_input,
    is_dask_array,
    lazy_class_statistics,
    scaled_class_statistics,
)
from ..training.selected import Selected
from ..tuning import WIDTH_KERNELS as tuning_width_kernels
from ..tuning import check_auto, median_gamma, press_ridge
from ..tuning import loo_search as tuning_loo_search
from ..tuning import search as tuning_search
from .routes import metric_transform
from .spaces import resolve_approximation, scaled_gamma

_DTYPES = [np.float64, np.float32]


class Solution(NamedTuple):
    """What a route returns: eigenvalues and directions in the space's coordinates, or dual
    coefficients (the class-structured kernel route)."""

    eigenvalues: np.ndarray
    directions: np.ndarray | None = None
    dual: np.ndarray | None = None
    embedding: np.ndarray | None = None  # K_c @ dual, when the route has it for free
    #: what the solve chose (a partially labelled fit's smoothing), :class:`Selected` or None
    selected: object = None

    @property
    def n_available(self):
        return (self.directions if self.dual is None else self.dual).shape[1]


class FitTraits(NamedTuple):
    """What a graph-embedding estimator's class and parameters say about how it fits, read
    once from its hooks (:func:`graphdr.graph_embedding.estimator.fit_traits`): the helpers of
    this module take this value, not the estimator's private methods."""

    name: str
    #: a kernel method (``kernel`` set)
    kernel: bool
    #: ``reg='auto'`` of a linear method is the leave-one-out ridge
    auto_linear_reg: bool
    #: the constraint is the regularised total scatter (the ``'within'`` metric's ridge form)
    ridge_on_total_scatter: bool
    #: ``reg`` enters the solved problem
    solver_uses_reg: bool
    #: a class-structured objective block (kernel LDA, kernel QMI: closed-form leave-one-out)
    class_objective: bool
    #: the exact fit would take the class-structured Cholesky route
    cholesky_route: bool
    #: the problem uses class graphs only
    class_structured: bool
    #: ``y = -1`` marks unlabelled rows that the fit uses
    accepts_unlabelled: bool
    #: what the labels must satisfy (:func:`graphdr._validation.check_labels`'s keywords)
    requirements: dict


class TrainingData(NamedTuple):
    """Validated training input: samples and encoded labels, or class statistics, with what
    reading them found (``classes``, ``scale``, ``n_features``), which the fit stores."""

    X: object
    y_encoded: np.ndarray | None
    stats: object
    dtype: np.dtype
    #: the :class:`~graphdr.training.prepared.PreparedInput` the samples come from, or None
    prepared: object = None
    #: the ridge chosen while reading the samples (a linear ``reg='auto'``), or None
    selected: object = None
    #: the classes of the labels (``classes_``), or None without labels
    classes: np.ndarray | None = None
    #: the power of two the samples were divided by (:func:`graphdr.blocks.stats.input_scale`)
    scale: float = 1.0
    #: the number of features of a Dask array (``n_features_in_``; in memory, ``validate_data``
    #: sets it), or None
    n_features: int | None = None
    #: the content keys of the rows of ``X`` (dense ``float64``) where the training set holds
    #: them already (:meth:`~graphdr.training.prepared.PreparedInput.row_keys`), or None
    keys: np.ndarray | None = None
    #: what the fit found and chose (:class:`Selected`), which its store writes; set by the
    #: estimator's ``_prepare`` once every choice is made
    chosen: object = None

    def choice(self, name):
        """The value of the fitted attribute ``name`` that the fit chose (``chosen``)."""
        return self.chosen.values[name]

    @property
    def partially_labelled(self):
        """Whether some samples are unlabelled (encoded -1)."""
        return has_unlabelled(self.y_encoded)

    @property
    def lazy(self):
        """Whether the samples are a Dask array's (read chunk by chunk)."""
        return self.n_features is not None

    @property
    def n_samples(self):
        return self.stats.n if self.stats is not None else self.X.shape[0]

    def found(self):
        """What reading the samples found, as the fit writes it (:class:`Selected`):
        ``_input_scale``, ``classes_``, and a Dask array's ``n_features_in_`` (its
        ``feature_names_in_`` dropped; in memory ``validate_data`` sets both)."""
        values = {"_input_scale": self.scale}
        if self.classes is not None:
            values["classes_"] = self.classes
        if self.n_features is None:
            return Selected(values)
        return Selected({**values, "n_features_in_": self.n_features}, ("feature_names_in_",))

    def labelled(self):
        """The record on which a partially labelled fit chooses its kernel: the labelled
        samples of the classes with two or more of them (re-encoded), or all samples without
        labels when fewer than two classes have two (itself when no sample is unlabelled)."""
        y = self.y_encoded
        if y is None or self.stats is not None or y.min() >= 0:
            return self
        counts = np.bincount(y[y >= 0])
        if np.count_nonzero(counts >= 2) < 2:
            return TrainingData(self.X, None, None, self.dtype, scale=self.scale, keys=self.keys)
        rows = np.flatnonzero((y >= 0) & (counts[np.maximum(y, 0)] >= 2))
        return TrainingData(self.X[rows], np.unique(y[rows], return_inverse=True)[1], None,
                            self.dtype, scale=self.scale,
                            keys=None if self.keys is None else self.keys[rows])


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
    norms = (np.sqrt(np.maximum(np.sum(dual * Y, axis=0), 0.0)) if dual is not None
             else np.linalg.norm(V, axis=0))
    y = data.y_encoded
    if y.min() < 0:  # unlabelled samples (-1): the scatters of the labelled ones
        Y, y = Y[y >= 0], y[y >= 0]
        Y = Y - Y.mean(axis=0)
    within = _graphs.graph_quadratic_form(_graphs.within_class_graph(y), Y)
    return within, Y.T @ Y, norms, Y.shape[0], int(y.max()) + 1


def metric_of(space, data, V=None, dual=None, Y=None, *, scaling, reg, ridge_on_total_scatter,
              rotate=True, criterion=None):
    """The ``k x k`` map of directions (or dual coefficients) to the metric of ``scaling``
    (:func:`graphdr.graph_embedding.routes.metric_transform`); ``reg`` the solved ridge."""
    if scaling == "total":
        return np.eye((V if dual is None else dual).shape[1])
    within, total, norms, n, n_classes = embedded_scatters(space, data, V, dual, Y)
    # the solver's directions satisfy V^T (S_t + eps I) V = I: the ridge's embedded form
    ridge_form = np.eye(total.shape[0]) - total if (
        ridge_on_total_scatter and reg > 0) else None
    return metric_transform(scaling, within, total, norms, n_samples=n, n_classes=n_classes,
                            reg=reg, ridge_form=ridge_form, rotate=rotate, criterion=criterion)


def dask_training_data(traits, params, X, y, *, class_forms):
    """Step 1 of ``fit`` for a ``dask.array`` ``X`` of a class-structured problem
    (``class_forms``) or a kernel method, of parameters ``params`` (``get_params()``): what
    each can do lazily.

    * class-structured linear problems: one pass of class statistics, ``X`` never
      materialised (NaN/inf and the labels are checked in the same pass);
    * class-structured kernel problems (kernel LDA, kernel QMI) with
      ``approximation='nystroem'``: ``X`` stays lazy (:class:`graphdr.graph_embedding.spaces.NystroemMap`
      computes its landmark rows and the class statistics of its features); the labels, one
      per sample, are computed;
    * other kernel settings raise ``ValueError`` (an exact kernel needs ``n x n`` memory; the
      neighbour graphs of kernel LPP and CKFD's coordinates need the features in memory);
    * other linear methods (neighbour graphs) compute ``X`` and fit in memory (the caller).

    Labels -1 are refused before (:func:`graphdr.semi.choice.lazy_unlabelled`). The record
    carries ``classes`` and ``n_features``; nothing is set on the estimator.
    """
    name, reg = traits.name, params.get("reg")
    if class_forms:
        stats = lazy_class_statistics(X, y, name, _dask_requirements(traits))
        if wants_press_ridge(traits, reg):  # labels in memory
            labels = np.asarray(y.compute() if is_dask_array(y) else y)
            selected = select_linear_reg(traits, reg, X, np.searchsorted(stats.classes, labels))
        else:
            selected = select_linear_reg(traits, reg, None, None)
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
        return TrainingData(None, None, stats, dtype, selected=selected, classes=stats.classes,
                            n_features=int(X.shape[1]))
    if kernel_approximation(params, traits.cholesky_route) is None:
        raise ValueError(
            f"{name} on a dask array needs approximation='nystroem' (with n_landmarks): the "
            "exact kernel is an n x n matrix in memory. Pass approximation='nystroem', or "
            "X.compute() to fit the exact kernel in memory."
        )
    if not traits.class_structured:
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
    classes, y_enc, _ = check_labels(y, **_dask_requirements(traits))
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return TrainingData(X, y_enc, None, X.dtype, classes=classes, n_features=int(X.shape[1]))


def kernel_approximation(params, cholesky_route, n_samples=None, partially_labelled=False):
    """None (exact kernel) or 'nystroem' for a kernel estimator of parameters ``params``
    (``get_params()``), validated; ``'auto'`` by the number of samples (None: unknown),
    whether the exact fit takes the Cholesky route and whether some samples are unlabelled
    (:func:`graphdr.graph_embedding.spaces.resolve_approximation`)."""
    exact_only = params["kernel"] == "precomputed" or params.get("solver") == "paper"
    approximation = resolve_approximation(
        params.get("approximation"), n_samples, exact_only,
        cholesky_route and not partially_labelled, partially_labelled)
    if approximation is None:
        return None
    check_int(params["n_landmarks"], "n_landmarks", min_value=2)
    if params["kernel"] == "precomputed":
        raise ValueError(
            "approximation='nystroem' needs the kernel function, not kernel='precomputed'."
        )
    return approximation


def _dask_requirements(traits):
    return {k: v for k, v in traits.requirements.items() if k != "unlabelled"}


def refuse_lazy_unlabelled(name, accepts_unlabelled, labels):
    """A Dask fit (of the estimator ``name``) of labels with -1 (unlabelled): a clear error (a
    semi-supervised fit's smoothness graph needs every sample in memory)."""
    if not np.any(unlabelled_mask(np.asarray(labels))):
        return
    if accepts_unlabelled:
        raise ValueError(
            f"{name}: y = -1 marks unlabelled samples, and a semi-supervised fit joins every "
            "sample in a neighbour graph, which needs X in memory: pass X.compute(), or fit "
            "the labelled rows of the dask array.")
    raise ValueError(
        f"{name}: y = -1 marks unlabelled samples (scikit-learn's semi-supervised "
        f"convention); {name} needs every sample labelled: fit the labelled rows.")


def select_kernel(est, traits, data):
    """``gamma_`` and ``reg_`` (:class:`Selected`): the given values, or chosen from the data
    (:mod:`graphdr.tuning`, whose searches fit copies of ``est``)."""
    gamma = check_auto(est.gamma, "gamma", allow_none=True)
    reg = check_auto(getattr(est, "reg", None), "reg", allow_none=True)
    auto_gamma, auto_reg = gamma == "auto", reg == "auto"
    check_kernel_params(est.kernel, None if auto_gamma else gamma, est.degree, est.coef0)
    has_width = not callable(est.kernel) and est.kernel in tuning_width_kernels
    # a precomputed kernel has no width, and its ridge keeps the 1e-3 default
    searchable = (auto_gamma and has_width) or (
        auto_reg and traits.solver_uses_reg and est.kernel != "precomputed")
    if not searchable or data.y_encoded is None:
        return Selected(dict(gamma_=(median_gamma(data.X, keys=data.keys)
                                     if auto_gamma and has_width
                                     else (None if auto_gamma else gamma)),
                             reg_=1e-3 if auto_reg else (0.0 if reg is None else reg)),
                        ("cv_results_",))
    fixed = dict(search_gamma=auto_gamma, search_reg=auto_reg and traits.solver_uses_reg,
                 fixed_gamma=None if auto_gamma else scaled_gamma(est, gamma, dict(
                     _input_scale=data.scale, n_features_in_=data.X.shape[1])),
                 fixed_reg=1e-3 if auto_reg else (0.0 if reg is None else reg),
                 n_jobs=getattr(est, "n_jobs", None))
    if traits.class_objective and traits.solver_uses_reg:
        # class-structured (kernel LDA, kernel QMI): exact leave-one-out in closed form
        chosen = tuning_loo_search(est, data.X, data.y_encoded, keys=data.keys, **fixed)
    else:
        chosen = tuning_search(est, data.X, data.y_encoded, keys=data.keys,
                               scaling=getattr(est, "scaling", "total"), **fixed)
    return Selected(dict(zip(("gamma_", "reg_", "cv_results_"), chosen)))


def select_kernel_and_approximation(est, traits, data):
    """:func:`select_kernel` on the labelled samples, then exact or Nystroem
    (``approximation_``) by the size of all of them."""
    chosen = select_kernel(est, traits, data.labelled())
    approximation = kernel_approximation(est.get_params(deep=False), traits.cholesky_route,
                                         None if data.lazy else data.n_samples,
                                         data.partially_labelled)
    return chosen | Selected(dict(approximation_=approximation))


def check_linear_reg(traits, reg, resolved_reg):
    """``reg`` of a linear estimator: a number >= 0, or 'auto' where it is supported
    (``resolved_reg``: the estimator's check of a number)."""
    if isinstance(reg, str) and reg == "auto" and not traits.auto_linear_reg:
        raise ValueError(
            f"{traits.name}: reg must be a number >= 0; got 'auto' (reg='auto' is "
            "available for LDA, LQMI and the kernel estimators)."
        )
    if reg is not None and not (isinstance(reg, str) and reg == "auto"):
        resolved_reg()


def check_linear_params(traits, params, resolved_reg):
    """The parameters ``params`` (``get_params()``) of a linear fit (``kernel=None``): ``reg``
    (:func:`check_linear_reg`), and no ``kernel_params``, which only a kernel would use."""
    check_linear_reg(traits, params.get("reg"), resolved_reg)
    if params.get("kernel_params"):
        raise ValueError(
            f"kernel_params={params['kernel_params']!r} is for a kernel, but kernel=None fits "
            f"{traits.name}'s linear projection: set kernel (e.g. 'rbf') or leave "
            "kernel_params None.")


def wants_press_ridge(traits, reg):
    """Whether the fit chooses ``reg`` by the leave-one-out ridge (``reg='auto'``)."""
    return traits.auto_linear_reg and isinstance(reg, str)


def statistics_and_reg(traits, reg, X, y_enc, n_classes, keys=None):
    """``(stats, scale, selected)``: :func:`graphdr.blocks.stats.scaled_class_statistics` of a
    validated ``X``, and ``reg_`` (:func:`select_linear_reg`).

    With ``reg='auto'`` the rows' content keys come first (``keys`` when the caller holds
    them, else a pass over ``X``), then the
    leave-one-out ridge runs on the statistics pass's threads while they sum; its error, if
    any, is raised only once the pass has found ``X`` finite (NaN gets its own message).
    """
    if not wants_press_ridge(traits, reg):
        selected = select_linear_reg(traits, reg, X, y_enc)
        return (*scaled_class_statistics(X, y_enc, n_classes), selected)
    keys = row_keys(X) if keys is None else keys
    failed, chosen = [], []

    def beside():
        try:
            chosen.append(select_linear_reg(traits, reg, X, y_enc, keys=keys))
        except Exception as exc:  # raised below, after the statistics' NaN check
            failed.append(exc)

    result = scaled_class_statistics(X, y_enc, n_classes, beside=beside)
    if failed:
        raise failed[0]
    return (*result, chosen[0])


def select_linear_reg(traits, reg, X, y_enc, keys=None):
    """``reg_`` (and ``cv_results_``) of a linear estimator whose ``reg`` may be 'auto'
    (:class:`Selected`, None for the others): the given value, or the leave-one-out ridge
    (:func:`graphdr.tuning.press_ridge`; ``keys`` the rows' content keys when already
    computed)."""
    if not traits.auto_linear_reg:
        return None
    if wants_press_ridge(traits, reg):
        chosen, cv_results = press_ridge(X, y_enc, name=traits.name, keys=keys)
        return Selected(dict(reg_=chosen, cv_results_=cv_results))
    return Selected(dict(reg_=float(reg)), ("cv_results_",))


def semi_supervised_reg(traits, reg, X, y_enc, keys=None):
    """``reg_`` of a linear estimator with ``reg='auto'`` on partially labelled data
    (:class:`Selected`): the leave-one-out ridge of its labelled samples
    (:func:`select_linear_reg`), over the classes with two labelled samples or more; with fewer
    than two such classes, ``reg_ = 1``. ``keys``: the content keys of ``X``'s rows, when
    known."""
    if not wants_press_ridge(traits, reg):
        return select_linear_reg(traits, reg, X, y_enc)
    labelled = y_enc >= 0
    counts = np.bincount(y_enc[labelled])
    keep = labelled & (counts[np.maximum(y_enc, 0)] >= 2)
    if np.count_nonzero(counts >= 2) < 2:
        return Selected(dict(reg_=1.0), ("cv_results_",))
    rows = np.flatnonzero(keep)
    return select_linear_reg(traits, reg, X[rows], np.unique(y_enc[rows], return_inverse=True)[1],
                             keys=None if keys is None else keys[rows])
