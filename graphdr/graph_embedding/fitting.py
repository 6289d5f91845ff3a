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
    check_class_counts,
    check_dask_input,
    class_statistics,
    is_dask_array,
    raise_if_nonfinite,
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


class TrainingData(NamedTuple):
    """Validated training input: samples and encoded labels, or class statistics."""

    X: object
    y_encoded: np.ndarray | None
    stats: object
    dtype: np.dtype
    #: the :class:`~graphdr.training.prepared.PreparedInput` the samples come from, or None
    prepared: object = None
    #: the ridge chosen while reading the samples (a linear ``reg='auto'``), or None
    selected: object = None

    @property
    def n_samples(self):
        return self.stats.n if self.stats is not None else self.X.shape[0]

    def labelled(self):
        """The record on which a partially labelled fit chooses its kernel: the labelled
        samples of the classes with two or more of them (re-encoded), or all samples without
        labels when fewer than two classes have two (itself when no sample is unlabelled)."""
        y = self.y_encoded
        if y is None or self.stats is not None or y.min() >= 0:
            return self
        counts = np.bincount(y[y >= 0])
        if np.count_nonzero(counts >= 2) < 2:
            return TrainingData(self.X, None, None, self.dtype)
        rows = np.flatnonzero((y >= 0) & (counts[np.maximum(y, 0)] >= 2))
        return TrainingData(self.X[rows], np.unique(y[rows], return_inverse=True)[1], None,
                            self.dtype)


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


def metric_of(est, space, data, V=None, dual=None, Y=None, *, rotate=True, criterion=None):
    """``est._metric``: the ``k x k`` map of directions (or dual coefficients) to the metric of
    its ``scaling`` (:func:`graphdr.graph_embedding.routes.metric_transform`)."""
    scaling = getattr(est, "scaling", "total")
    if scaling == "total":
        return np.eye((V if dual is None else dual).shape[1])
    within, total, norms, n, n_classes = embedded_scatters(space, data, V, dual, Y)
    reg = est._resolved_reg()
    # the solver's directions satisfy V^T (S_t + eps I) V = I: the ridge's embedded form
    ridge_form = np.eye(total.shape[0]) - total if (
        est._ridge_on_total_scatter and reg > 0) else None
    return metric_transform(scaling, within, total, norms, n_samples=n, n_classes=n_classes,
                            reg=reg, ridge_form=ridge_form, rotate=rotate, criterion=criterion)


def dask_training_data(estimator, X, y):
    """Step 1 of ``fit`` for a ``dask.array`` ``X``: what each kind of estimator can do lazily.

    * class-structured linear problems: one pass of class statistics, ``X`` never
      materialised (NaN/inf and the labels are checked in the same pass);
    * class-structured kernel problems (kernel LDA, kernel QMI) with
      ``approximation='nystroem'``: ``X`` stays lazy (:class:`graphdr.graph_embedding.spaces.NystroemMap`
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
        refuse_lazy_unlabelled(estimator, stats.classes)
        check_class_counts(stats.classes, stats.counts, **_dask_requirements(estimator))
        estimator.classes_ = stats.classes
        if wants_press_ridge(estimator):  # labels in memory
            labels = np.asarray(y.compute() if is_dask_array(y) else y)
            selected = select_linear_reg(estimator, X, np.searchsorted(stats.classes, labels))
        else:
            selected = select_linear_reg(estimator, None, None)
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
        return TrainingData(None, None, stats, dtype, selected=selected)
    if not estimator._is_kernel():  # neighbour graphs need the samples in memory
        return estimator._training_data(X.compute(), None if y is None else np.asarray(y))
    if estimator._approximation() is None:
        raise ValueError(
            f"{name} on a dask array needs approximation='nystroem' (with n_landmarks): the "
            "exact kernel is an n x n matrix in memory. Pass approximation='nystroem', or "
            "X.compute() to fit the exact kernel in memory."
        )
    if not estimator._is_class_structured():
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
    refuse_lazy_unlabelled(estimator, y)
    estimator.classes_, y_enc, _ = check_labels(y, **_dask_requirements(estimator))
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return TrainingData(X, y_enc, None, X.dtype)


def kernel_approximation(est, X=None, partially_labelled=False):
    """None (exact kernel) or 'nystroem' for a kernel estimator, validated; ``'auto'`` by the
    size of ``X`` and whether some samples are unlabelled
    (:func:`graphdr.graph_embedding.spaces.resolve_approximation`)."""
    exact_only = est.kernel == "precomputed" or getattr(est, "solver", None) == "paper"
    approximation = resolve_approximation(
        getattr(est, "approximation", None), X, exact_only,
        est._cholesky_route_possible() and not partially_labelled, partially_labelled)
    if approximation is None:
        return None
    check_int(est.n_landmarks, "n_landmarks", min_value=2)
    if est.kernel == "precomputed":
        raise ValueError(
            "approximation='nystroem' needs the kernel function, not kernel='precomputed'."
        )
    return approximation


def _dask_requirements(estimator):
    requirements = estimator._label_requirements()
    requirements.pop("unlabelled", None)
    return requirements


def refuse_lazy_unlabelled(estimator, labels):
    """A Dask fit of labels with -1 (unlabelled): a clear error (a semi-supervised fit's
    smoothness graph needs every sample in memory)."""
    if not np.any(unlabelled_mask(np.asarray(labels))):
        return
    name = type(estimator).__name__
    if estimator._accepts_unlabelled():
        raise ValueError(
            f"{name}: y = -1 marks unlabelled samples, and a semi-supervised fit joins every "
            "sample in a neighbour graph, which needs X in memory: pass X.compute(), or fit "
            "the labelled rows of the dask array.")
    raise ValueError(
        f"{name}: y = -1 marks unlabelled samples (scikit-learn's semi-supervised "
        f"convention); {name} needs every sample labelled: fit the labelled rows.")


def select_kernel(est, data):
    """``gamma_`` and ``reg_`` (:class:`Selected`): the given values, or chosen from the data
    (:mod:`graphdr.tuning`)."""
    gamma = check_auto(est.gamma, "gamma", allow_none=True)
    reg = check_auto(getattr(est, "reg", None), "reg", allow_none=True)
    auto_gamma, auto_reg = gamma == "auto", reg == "auto"
    check_kernel_params(est.kernel, None if auto_gamma else gamma, est.degree, est.coef0)
    has_width = not callable(est.kernel) and est.kernel in tuning_width_kernels
    # a precomputed kernel has no width, and its ridge keeps the 1e-3 default
    searchable = (auto_gamma and has_width) or (
        auto_reg and est._solver_uses_reg() and est.kernel != "precomputed")
    if not searchable or data.y_encoded is None:
        return Selected(dict(gamma_=(median_gamma(data.X) if auto_gamma and has_width
                                     else (None if auto_gamma else gamma)),
                             reg_=1e-3 if auto_reg else (0.0 if reg is None else reg)),
                        ("cv_results_",))
    fixed = dict(search_gamma=auto_gamma, search_reg=auto_reg and est._solver_uses_reg(),
                 fixed_gamma=None if auto_gamma else scaled_gamma(est, gamma),
                 fixed_reg=1e-3 if auto_reg else (0.0 if reg is None else reg),
                 n_jobs=getattr(est, "n_jobs", None))
    if est._class_objective_block(2, np.ones(2)) is not None and est._solver_uses_reg():
        # class-structured (kernel LDA, kernel QMI): exact leave-one-out in closed form
        chosen = tuning_loo_search(est, data.X, data.y_encoded, **fixed)
    else:
        chosen = tuning_search(est, data.X, data.y_encoded,
                               scaling=getattr(est, "scaling", "total"), **fixed)
    return Selected(dict(zip(("gamma_", "reg_", "cv_results_"), chosen)))


def select_kernel_and_approximation(est, data):
    """:func:`select_kernel` on the labelled samples, then exact or Nystroem
    (``approximation_``) by the size of all of them."""
    chosen = select_kernel(est, data.labelled())
    approximation = est._approximation(data.X, has_unlabelled(data.y_encoded))
    return chosen | Selected(dict(approximation_=approximation))


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


def check_linear_params(est):
    """The parameters of a linear fit (``kernel=None``): ``reg`` (:func:`check_linear_reg`),
    and no ``kernel_params``, which only a kernel would use."""
    check_linear_reg(est)
    if getattr(est, "kernel_params", None):
        raise ValueError(
            f"kernel_params={est.kernel_params!r} is for a kernel, but kernel=None fits "
            f"{type(est).__name__}'s linear projection: set kernel (e.g. 'rbf') or leave "
            "kernel_params None.")


def wants_press_ridge(est):
    """Whether the fit chooses ``reg`` by the leave-one-out ridge (``reg='auto'``)."""
    return est._auto_linear_reg and isinstance(est.reg, str)


def statistics_and_reg(est, X, y_enc, keys=None):
    """``(stats, scale, selected)``: :func:`graphdr.blocks.stats.scaled_class_statistics` of a
    validated ``X``, and ``reg_`` (:func:`select_linear_reg`).

    With ``reg='auto'`` the rows' content keys come first (``keys`` when the caller holds
    them, else a pass over ``X``), then the
    leave-one-out ridge runs on the statistics pass's threads while they sum; its error, if
    any, is raised only once the pass has found ``X`` finite (NaN gets its own message).
    """
    if not wants_press_ridge(est):
        selected = select_linear_reg(est, X, y_enc)
        return (*scaled_class_statistics(X, y_enc, len(est.classes_)), selected)
    keys = row_keys(X) if keys is None else keys
    failed, chosen = [], []

    def beside():
        try:
            chosen.append(select_linear_reg(est, X, y_enc, keys=keys))
        except Exception as exc:  # raised below, after the statistics' NaN check
            failed.append(exc)

    result = scaled_class_statistics(X, y_enc, len(est.classes_), beside=beside)
    if failed:
        raise failed[0]
    return (*result, chosen[0])


def select_linear_reg(est, X, y_enc, keys=None):
    """``reg_`` (and ``cv_results_``) of a linear estimator whose ``reg`` may be 'auto'
    (:class:`Selected`, None for the others): the given value, or the leave-one-out ridge
    (:func:`graphdr.tuning.press_ridge`; ``keys`` the rows' content keys when already
    computed)."""
    if not est._auto_linear_reg:
        return None
    if wants_press_ridge(est):
        reg, cv_results = press_ridge(X, y_enc, name=type(est).__name__, keys=keys)
        return Selected(dict(reg_=reg, cv_results_=cv_results))
    return Selected(dict(reg_=float(est.reg)), ("cv_results_",))
