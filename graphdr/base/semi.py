r"""Partially labelled data: the semi-supervised smoothness term of graph embedding.

scikit-learn's convention (:mod:`sklearn.semi_supervised`): ``y = -1`` marks an unlabelled
sample, for integer and for text labels; ``classes_`` never contains it. The estimators with a
``smoothing`` parameter (:data:`graphdr._validation.SEMI_SUPERVISED`) fit such data. Their
class graphs (within-class, total, QMI, same-class and other-class neighbours) join labelled
samples only; the unlabelled ones enter one more graph, the symmetric binary
``smoothing_neighbors``-nearest-neighbour graph :math:`W^s` over *all* samples, whose
Laplacian form :math:`J = X^\top L(W^s) X` (in the fit's space: features, kernel map or
Nystroem features) penalises directions that vary between neighbours:

.. math::

    \max_v \frac{v^\top P v}{v^\top (Q + \alpha \hat J + \epsilon I) v}, \qquad
    \hat J = \frac{\operatorname{tr} S_t^{\mathcal L}}{\operatorname{tr} J} J ,

where :math:`P / Q` is the method's ratio in maximised form (LDA: :math:`S_b / S_t`, the
semi-supervised discriminant analysis of Cai, He & Han, ICCV 2007; kernel LDA: its kernel
form; LQMI/KQMI: the QMI form over :math:`S_t`; MFA/LDE: penalty over intrinsic scatter)
and :math:`S_t^{\mathcal L}` the total scatter of the labelled samples, so that
:math:`\alpha` is relative (1: as large as the labelled samples' scatter). The estimators
solve it in their minimised form (:class:`graphdr.blocks.routes.GraphProblem`, ``smooth_constraint``).

``smoothing='auto'`` chooses :math:`\alpha` from the data, in closed form, by the leave-one-out
error on the labelled samples of the regression of their class indicators penalised by the
same ridge and :math:`\alpha\hat J` (:func:`graphdr.tuning.press_smoothing`): deterministic,
independent of the row order. With every sample labelled the term is absent
(``smoothing_ = 0``) and the fit is the supervised one, bit for bit.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array, column_or_1d

from .._validation import (
    check_label_values,
    check_labels,
    dense_for_semi_supervised,
    unlabelled_mask,
)
from ..blocks import graphs as _graphs
from ..blocks.routes import relative_ridge, solve_graph_problem
from ..blocks.sampling import smallest_keys, stratified_folds
from ..blocks.spaces import AUTO_EXACT_SEMI_MAX
from ..blocks.stats import is_dask_array
from ..semi.propagation import PropagationGraph
from ..tuning import press_smoothing
from .fitting import (
    Selected,
    Solution,
    refuse_lazy_unlabelled,
    select_linear_reg,
    wants_press_ridge,
)
from .prepared import PreparedInput, digest


def partially_labelled(est, y):
    """Whether ``y`` holds unlabelled samples (-1) that ``est`` fits (then no statistics
    route: the smoothness graph needs every sample)."""
    if y is None or is_dask_array(y) or not est._supports.unlabelled_rows:
        return False
    return bool(np.any(unlabelled_mask(np.asarray(y))))


def use_unlabelled(est, X, y):
    """The labels a semi-supervised fit goes on with (:func:`prepare_unlabelled`)."""
    return prepare_unlabelled(est, X, y)[1]


def prepare_unlabelled(est, X, y):
    """``(X, y, selected)``: what a semi-supervised fit goes on with (the estimator's ``unlabelled``
    parameter, :data:`graphdr.blocks.routes.SMOOTHING_DOC`): ``y`` itself ('smooth', or every
    sample labelled), or ``y`` with the unlabelled samples' propagated classes ('propagate',
    or 'auto' when :func:`compare_unlabelled_uses` says the estimator places held-out labels
    better so; not when the propagation leaves a class a single sample), and
    what it chose (:class:`~graphdr.base.fitting.Selected`, None for an estimator without
    the choice): ``unlabelled_`` (None when every sample is labelled) and, for 'auto',
    ``unlabelled_results_``; it sets nothing on ``est``.

    An estimator that declares it takes prepared rows (``_supports.prepared``) gets ``X`` back
    validated once, as a :class:`~graphdr.base.prepared.PreparedInput` shared with the choice's
    trial fits; others get ``X`` as given."""
    if is_dask_array(X) and y is not None and getattr(est, "_uses_labels", bool)():
        # never silently the labelled rows only, where the same fit in memory uses the others
        refuse_lazy_unlabelled(est, np.asarray(y.compute() if is_dask_array(y) else y))
    if not est._supports.unlabelled_choice:
        return X, y, None

    def chose(use, results=None):
        if results is None:
            return Selected(dict(unlabelled_=use), ("unlabelled_results_",))
        return Selected(dict(unlabelled_=use, unlabelled_results_=results))

    if not partially_labelled(est, y) or is_dask_array(X):
        return X, y, chose(None)
    name = type(est).__name__
    choice = est.unlabelled
    if getattr(est, "_is_kernel", bool)() and est.kernel == "precomputed":
        if choice == "propagate":
            raise ValueError(f"{name}: unlabelled='propagate' needs the samples' features to "
                             "build their neighbour graph, not kernel='precomputed'.")
        return X, y, chose("smooth")
    if choice == "smooth":  # (also every fit of the choice's folds: no graph to build)
        return X, y, chose("smooth")
    if est._supports.prepared:
        prepared = X if isinstance(X, PreparedInput) else est._prepared_input(X, y)
        trials = prepared.for_trials(name)
        X_out = prepared
    else:
        check_label_values(y, name)
        X64 = check_array(X, accept_sparse="csr", dtype=np.float64)
        y = column_or_1d(y)
        if sp.issparse(X64):
            X64 = dense_for_semi_supervised(X64, name)
        classes, y_enc, _ = check_labels(y, min_classes=2, method=name, unlabelled="allow")
        trials = PreparedInput(X64, y, classes, y_enc, None)
        X_out = X
    classes, y_enc = trials.classes, trials.y_encoded

    def graph():  # every sample's neighbours, once, when some step needs them
        return trials.memo("propagation graph",
                           lambda: _propagation_graph(est, trials.scaled, y_enc))

    results = None
    if choice == "auto":
        results = compare_unlabelled_uses(est, trials, graph=graph)
        choice = "propagate" if results["better"] else "smooth"
    if choice == "propagate":
        P, _, _ = graph().propagate(y_enc, len(classes))
        propagated = np.argmax(P, axis=1)  # a labelled sample keeps its label
        sizes = np.bincount(propagated, minlength=len(classes))
        if sizes.min() < 2 and est.unlabelled == "propagate":
            raise ValueError(
                f"{name}: the propagated classes leave class {classes[np.argmin(sizes)]} "
                f"{int(sizes.min())} sample(s); pass unlabelled='smooth' (or 'auto'), or label "
                "more samples of that class.")
        if sizes.min() < 2:
            choice = "smooth"  # the propagation left a class one sample: not to be fitted
        else:
            return X_out, classes[propagated], chose(choice, results)
    return X_out, y, chose(choice, results)


def _propagation_graph(est, scaled, y_enc):
    """The :class:`PropagationGraph` of ``est``'s samples: its neighbour search when it has
    one (DEEMap's ``neighbors``: NN-descent from 200,000 samples on), else exact."""
    algorithm = "exact"
    if est._supports.neighbour_search:
        algorithm = _graphs.resolve_algorithm(est.neighbors, len(scaled))
    return PropagationGraph(scaled, y_enc, algorithm=algorithm,
                            random_state=getattr(est, "random_state", None))


def _labels_of(classes, codes):
    """The labels of class indices ``codes``, -1 (``'-1'`` among text) where negative."""
    if classes.dtype.kind in "iuf":
        return np.where(codes >= 0, classes[np.maximum(codes, 0)], -1)
    out = classes[np.maximum(codes, 0)].astype(object)
    out[codes < 0] = "-1"
    return out


#: folds of the labelled samples in the choice between the two uses of the unlabelled ones
CHOICE_FOLDS = 2
#: the choice's fits use every labelled sample and unlabelled ones up to this many in all
#: (chosen by content): the choice costs a few fits of this size, whatever ``n``
CHOICE_MAX_SAMPLES = 5000


def compare_unlabelled_uses(est, trials, n_folds=CHOICE_FOLDS, graph=None):
    r"""Whether ``est`` fitted on the propagated classes places held-out labelled samples
    better than ``est`` with its smoothness term.

    The labelled samples are dealt to ``min(n_folds, smallest class size)`` stratified folds
    by content (:func:`graphdr.blocks.sampling.stratified_folds`). For each fold, its labels are
    hidden (-1) and the estimator is fitted twice on every sample (every labelled one, and
    unlabelled ones of smallest content key up to :data:`CHOICE_MAX_SAMPLES` in all; a kernel
    estimator with ``approximation='auto'`` in the Nystroem features above
    :data:`graphdr.blocks.spaces.AUTO_EXACT_SEMI_MAX` samples): with the smoothness term
    (``unlabelled='smooth'``), and on the classes propagated from the other labels
    (:class:`graphdr.semi.propagation.PropagationGraph`); each held-out sample is classified by its nearest
    other labelled sample in each embedding. With :math:`b` the held-out samples the
    propagated fit gets right and the smoothed one wrong, and :math:`c` the reverse,
    propagation wins when :math:`b - c > \sqrt{b + c}` (a sign test at one standard
    deviation: a few lucky samples do not decide it, and ties keep the smoothness term). An
    estimator whose class sets ``_unlabelled_ties = 'propagate'`` (:class:`graphdr.DEEMap`,
    whose smoothed map separates unlabelled clusters poorly: ``benchmarks/results/semi.md``)
    keeps the propagated classes unless the smoothed fit wins by the same test,
    :math:`c - b > \sqrt{b + c}`.

    Returns a dict: ``better``, ``b``, ``c``, ``n_held_out``, ``n_folds``, and the held-out
    errors ``propagate_error`` and ``smooth_error``. Fewer than two labelled samples in some
    class: ``better`` False, ``n_folds`` 0. ``trials``: the rows the trial fits take (a
    :class:`~graphdr.base.prepared.PreparedInput`: ``float64``, dense); ``graph``: a function
    that gives the :class:`PropagationGraph` of its scaled rows and labels (built once), or
    None.
    """
    from sklearn.base import clone
    from sklearn.neighbors import KNeighborsClassifier

    classes, y_enc = trials.classes, trials.y_encoded
    labelled = np.flatnonzero(y_enc >= 0)
    sizes = np.bincount(y_enc[labelled], minlength=len(classes))
    k = int(min(n_folds, sizes.min()))
    out = dict(better=False, b=0, c=0, n_held_out=0, n_folds=0, propagate_error=np.nan,
               smooth_error=np.nan)
    if k < 2:
        return out
    if len(y_enc) > max(CHOICE_MAX_SAMPLES, len(labelled)):
        # every labelled sample, and the unlabelled ones of smallest content key
        unlabelled = np.flatnonzero(y_enc < 0)
        picked = unlabelled[smallest_keys(trials.keys()[unlabelled],
                                          CHOICE_MAX_SAMPLES - len(labelled))]
        trials = trials.take(np.sort(np.concatenate([labelled, picked])))
        y_enc = trials.y_encoded
        labelled = np.flatnonzero(y_enc >= 0)
        graph = None
    wrong = {"propagate": 0, "smooth": 0}
    keys = trials.keys()[labelled]
    trial = clone(est).set_params(unlabelled="smooth")
    params = trial.get_params(deep=False)
    trial.set_params(**{k: v for k, v in (("verbose", 0), ("callback", None)) if k in params})
    if getattr(est, "approximation", None) == "auto" and len(y_enc) > AUTO_EXACT_SEMI_MAX:
        # both fits in the Nystroem features the partially labelled fit takes at this size:
        # the same space for the two, and the fully labelled one without its n x n kernel
        trial.set_params(approximation="nystroem")
    # one graph for every fold's labels
    graph = _propagation_graph(est, trials.scaled, y_enc) if graph is None else graph()
    X = trials.X
    fit_input = trials if est._supports.prepared else X
    for train, test in stratified_folds(y_enc[labelled], k, keys):
        held, kept = labelled[test], labelled[train]
        y_fold = y_enc.copy()
        y_fold[held] = -1
        P, _, _ = graph.propagate(y_fold, len(classes))
        right = {}
        for use, labels in (("smooth", y_fold), ("propagate", np.argmax(P, axis=1))):
            try:
                model = clone(trial).fit(fit_input, _labels_of(classes, labels))
            except ValueError:  # e.g. a class the propagation left with one sample
                right[use] = np.zeros(len(held), dtype=bool)
            else:
                knn = KNeighborsClassifier(1).fit(model.transform(X[kept]), y_enc[kept])
                right[use] = knn.predict(model.transform(X[held])) == y_enc[held]
            wrong[use] += int(np.sum(~right[use]))
        out["b"] += int(np.sum(right["propagate"] & ~right["smooth"]))
        out["c"] += int(np.sum(~right["propagate"] & right["smooth"]))
        out["n_held_out"] += len(held)
    n = out["n_held_out"]
    out.update(n_folds=k, propagate_error=wrong["propagate"] / n,
               smooth_error=wrong["smooth"] / n)
    margin = np.sqrt(out["b"] + out["c"])
    if getattr(est, "_unlabelled_ties", "smooth") == "propagate":
        out["better"] = bool(out["c"] - out["b"] <= margin)
    else:
        out["better"] = bool(out["b"] - out["c"] > margin)
    return out


def solve_partially_labelled(est, space, data, problem, reg):
    """The :class:`~graphdr.base.fitting.Solution` of a partially labelled fit: the method's
    graphs (or the given ``problem``) with the weighted smoothness form
    (:func:`select_smoothing`), which it carries as ``selected``."""
    if problem is None:
        problem = est._graph_problem(space, data)
    dims = labelled_dims(space, data)
    smoothing, selected = select_smoothing(est, space, data, dims, reg)
    eigenvalues, directions = solve_graph_problem(space, problem, reg=reg, rank_tol=est.rank_tol,
                                                  smoothing=smoothing, ridge_dims=dims)
    return Solution(eigenvalues, directions, selected=selected)


def labelled_dims(space, data):
    """The dimensions a relative ridge is averaged over in a partially labelled fit: those of
    the labelled samples' scatter, ``min(m - 1, rank)`` for ``m`` labelled samples (as in the
    fit of the labelled samples alone, and in the leave-one-out choice of ``reg``)."""
    return max(1, min(int(np.count_nonzero(data.y_encoded >= 0)) - 1, space.rank))


def smoothing_form(space, data, n_neighbors):
    r"""``(J_hat, T)``: the smoothness form :math:`\hat J` of the kNN graph over every
    sample, in units of the labelled samples' total scatter ``T`` (both ``r x r`` in the
    space's coordinates)."""
    X_graph, metric = space.graph_input(data.X)

    def graph():
        return _graphs.knn_graph(X_graph, n_neighbors, weights="binary", metric=metric)

    # the choice's trial fits of the same rows search the same neighbours once
    W = graph() if data.prepared is None else data.prepared.memo(
        ("smoothing graph", digest(X_graph), n_neighbors, metric), graph)
    J = space.quadratic_form(W)
    T = space.quadratic_form(_graphs.total_graph(data.y_encoded))
    J, T = (J + J.T) / 2.0, (T + T.T) / 2.0
    trace_j = float(np.trace(J))
    if not trace_j > 0.0:  # every neighbour at the same point: nothing to smooth
        return np.zeros_like(J), T
    return J * (float(np.trace(T)) / trace_j), T


def select_smoothing(est, space, data, dims, reg):
    """``(form, selected)``: the weighted smoothness form of a partially labelled fit (None for
    weight 0), and ``smoothing_`` with, for ``smoothing='auto'``, ``smoothing_results_``
    (:class:`~graphdr.base.fitting.Selected`)."""
    J, T = smoothing_form(space, data, est.smoothing_neighbors)
    if isinstance(est.smoothing, str):  # 'auto' (the rule table refuses other text)
        ridge = relative_ridge(reg, T, dims)
        Z = space.training_embedding(np.eye(space.rank))
        weight, results = press_smoothing(Z, data.y_encoded, J, ridge)
        selected = Selected(dict(smoothing_=weight, smoothing_results_=results))
    else:
        weight = float(est.smoothing)
        selected = Selected(dict(smoothing_=weight))
    return (weight * J if weight > 0.0 else None), selected


def semi_supervised_reg(est, X, y_enc):
    """``reg_`` of a linear estimator with ``reg='auto'`` on partially labelled data
    (:class:`~graphdr.base.fitting.Selected`): the leave-one-out ridge of its labelled samples
    (:func:`select_linear_reg`), over the classes with two labelled samples or more; with fewer
    than two such classes, ``reg_ = 1``."""
    if not wants_press_ridge(est):
        return select_linear_reg(est, X, y_enc)
    labelled = y_enc >= 0
    counts = np.bincount(y_enc[labelled])
    keep = labelled & (counts[np.maximum(y_enc, 0)] >= 2)
    if np.count_nonzero(counts >= 2) < 2:
        return Selected(dict(reg_=1.0), ("cv_results_",))
    rows = np.flatnonzero(keep)
    return select_linear_reg(est, X[rows], np.unique(y_enc[rows], return_inverse=True)[1])
