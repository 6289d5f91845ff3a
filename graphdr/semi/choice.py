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
solve it in their minimised form (:class:`graphdr.graph_embedding.routes.GraphProblem`,
``smooth_constraint``).

``smoothing='auto'`` chooses :math:`\alpha` from the data, in closed form, by the leave-one-out
error on the labelled samples of the regression of their class indicators penalised by the
same ridge and :math:`\alpha\hat J` (:func:`graphdr.tuning.press_smoothing`): deterministic,
independent of the row order. With every sample labelled the term is absent
(``smoothing_ = 0``) and the fit is the supervised one, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_array, column_or_1d

from .._validation import (
    check_label_values,
    check_labels,
    dense_for_semi_supervised,
    unlabelled_mask,
)
from ..blocks import graphs as _graphs
from ..blocks.knn import _search_groups, neighbours_within
from ..blocks.sampling import smallest_keys, stratified_folds
from ..blocks.stats import is_dask_array
from ..graph_embedding.fitting import (
    Selected,
    Solution,
    refuse_lazy_unlabelled,
)
from ..graph_embedding.routes import relative_ridge, solve_graph_problem
from ..graph_embedding.spaces import AUTO_EXACT_SEMI_MAX
from ..training.label_audit import (  # noqa: F401  (graphdr.semi.choice's names before)
    _after_audit,
    _flagging_audit,
    audit_labels,
    audited_fit_labels,
)
from ..training.prepared import PreparedInput, digest
from ..training.supports import supports_of
from ..tuning import press_smoothing
from .propagation import PropagationGraph


def partially_labelled(est, y):
    """Whether ``y`` holds unlabelled samples (-1) that ``est`` fits (then no statistics
    route: the smoothness graph needs every sample)."""
    if y is None or is_dask_array(y) or not supports_of(est).unlabelled_rows:
        return False
    return bool(np.any(unlabelled_mask(np.asarray(y))))


class UnlabelledUses(NamedTuple):
    """How an estimator's fit weighs the uses of its unlabelled rows, passed by the estimator
    (its own methods and class values) to :func:`prepare_unlabelled`: nothing here reads the
    estimator's private attributes."""

    #: a use kept unless the fits of the labelled rows alone are shown better (the
    #: heavy-tailed map: 'propagate', its unlabelled rows always in the picture), or None
    kept: str | None = None
    #: the use chosen between two supported uses of equal held-out errors
    ties: str = "smooth"
    #: ``(X, y) -> PreparedInput``: the estimator's rows validated once (``Supports.prepared``)
    prepare: Callable | None = None
    #: ``(name, accepts_unlabelled)``: a Dask fit of labels with -1 is refused in those words
    #: (:func:`graphdr.graph_embedding.fitting.refuse_lazy_unlabelled`), or None
    lazy: tuple | None = None
    #: what the labels must satisfy (:func:`graphdr._validation.check_labels`'s keywords): the
    #: labels an audit keeps are checked against it, or None
    requirements: dict | None = None


def use_unlabelled(est, X, y):
    """The labels a semi-supervised fit goes on with (:func:`prepare_unlabelled`)."""
    return prepare_unlabelled(est, X, y)[1]


def lazy_unlabelled(est, y, uses):
    """What :func:`prepare_unlabelled` gives the fit of a Dask array, as ``selected``: no
    audit and no choice (``label_issues_`` and ``unlabelled_`` None), and the refusals of
    what needs the rows in memory (an audit's neighbour graph; with ``uses.lazy``, labels
    -1: :func:`~graphdr.graph_embedding.fitting.refuse_lazy_unlabelled`)."""
    supports = supports_of(est)
    use = getattr(est, "labels", "given") if supports.label_audit else "given"
    if use != "given":
        raise ValueError(f"{type(est).__name__}: labels={use!r} needs X and y in memory (the "
                         "audit's neighbour graph); pass labels='given' for a Dask array.")
    if y is not None and uses.lazy is not None:
        refuse_lazy_unlabelled(*uses.lazy, np.asarray(y.compute() if is_dask_array(y) else y))
    chosen = Selected({"label_issues_": None} if supports.label_audit else {})
    if supports.unlabelled_choice:
        chosen = chosen | Selected(dict(unlabelled_=None), ("unlabelled_results_",))
    return chosen


def prepare_unlabelled(est, X, y, audit=True, uses=None, audited=None):
    """``(X, y, selected)``: the labels audited first (:func:`audit_labels`, for an estimator
    with a ``labels`` parameter; ``audit=False``: audited by the caller, whose audit is
    ``audited``), then what the fit goes on with (:func:`_prepare_unlabelled`; ``uses``:
    :class:`UnlabelledUses`). A refusal of the labels that the audit left says what the audit
    did."""
    uses = UnlabelledUses() if uses is None else uses
    given_rows = not isinstance(X, PreparedInput)
    if audit and supports_of(est).label_audit and given_rows:
        shared = _audited_rows(est, X, y, uses)
        y, audited = audit_labels(est, X if shared is None else shared, y, uses.requirements)
        if shared is not None:  # the audit's rows, relabelled: the fit validates them no more
            classes, y_enc, _ = check_labels(y, min_classes=2, method=type(est).__name__,
                                             unlabelled="allow")
            X = shared.with_labels(np.asarray(y), classes, y_enc)
    flagging = (_flagging_audit(est, audited) if supports_of(est).label_audit and given_rows
                else None)
    try:
        X, y, chosen = _prepare_unlabelled(est, X, y, uses)
    except ValueError as error:
        if flagging is None:
            raise
        raise _after_audit(est, flagging, error) from None
    return X, y, chosen if audited is None else audited | chosen


def _audited_rows(est, X, y, uses):
    """The rows of a fit whose labels are audited (``labels`` other than 'given') prepared
    once for the audit and the fit (:class:`~graphdr.training.prepared.PreparedInput`), or
    None where the estimator does not take prepared rows or the audit refuses the input."""
    if (getattr(est, "labels", "given") == "given" or y is None or uses.prepare is None
            or not supports_of(est).prepared or getattr(est, "kernel", None) == "precomputed"):
        return None
    return uses.prepare(X, y)


def _prepare_unlabelled(est, X, y, uses):
    """``(X, y, selected)``: what a semi-supervised fit goes on with (the estimator's ``unlabelled``
    parameter, :data:`graphdr.graph_embedding.routes.SMOOTHING_DOC`): ``y`` itself ('smooth', or every
    sample labelled); ``y`` with the unlabelled samples' propagated classes ('propagate'); the
    labelled rows alone ('ignore'); or, for 'auto', the use that :func:`compare_unlabelled_uses`
    picks. It returns what it chose (:class:`~graphdr.graph_embedding.fitting.Selected`, None for an
    estimator without the choice): ``unlabelled_`` (None when every sample is labelled) and,
    for 'auto', ``unlabelled_results_``; it sets nothing on ``est``.

    An estimator that declares it takes prepared rows (``_supports.prepared``) gets ``X`` back
    validated once, as a :class:`~graphdr.training.prepared.PreparedInput` shared with the choice's
    trial fits ('ignore': a set of the labelled rows alone, as a fit of those rows given
    directly would validate them); others get ``X`` as given. ``X`` is in memory (a Dask
    array's fit: :func:`lazy_unlabelled`)."""
    if not supports_of(est).unlabelled_choice:
        return X, y, None

    def chose(use, results=None):
        if results is None:
            return Selected(dict(unlabelled_=use), ("unlabelled_results_",))
        return Selected(dict(unlabelled_=use, unlabelled_results_=results))

    if not partially_labelled(est, y):
        return X, y, chose(None)
    name = type(est).__name__
    choice = est.unlabelled
    if getattr(est, "kernel", None) == "precomputed":
        if choice == "propagate":
            raise ValueError(f"{name}: unlabelled='propagate' needs the samples' features to "
                             "build their neighbour graph, not kernel='precomputed'.")
        if choice == "auto":  # (the trial fits would need the kernel's rows and columns)
            choice = "smooth"
        if choice == "smooth":
            return X, y, chose("smooth")
    if choice == "smooth":  # (also every fit of the choice's folds: no graph to build)
        return X, y, chose("smooth")
    if supports_of(est).prepared:
        prepared = X if isinstance(X, PreparedInput) else uses.prepare(X, y)
        trials = prepared.for_trials(name)
        X_out = prepared
    else:
        check_label_values(y, name)
        X64 = check_array(X, accept_sparse="csr", dtype=np.float64)
        y = column_or_1d(y)
        if sp.issparse(X64):
            X64 = dense_for_semi_supervised(X64, name)
        classes, y_enc, _ = check_labels(y, min_classes=2, method=name, unlabelled="allow")
        prepared = trials = PreparedInput(X64, y, classes, y_enc, None)
        X_out = X
    classes, y_enc = trials.classes, trials.y_encoded

    def graph():  # every sample's neighbours, once, when some step needs them
        return trials.memo("propagation graph",
                           lambda: _propagation_graph(est, trials.scaled, y_enc, trials.keys()))

    results = None
    if choice == "auto":
        results = compare_unlabelled_uses(est, trials, graph=graph, kept=uses.kept,
                                          ties=uses.ties)
        choice = results["choice"]
    if choice == "propagate":
        P, _, _ = graph().propagate(y_enc, len(classes))
        propagated = np.argmax(P, axis=1)  # a labelled sample keeps its label
        sizes = np.bincount(propagated, minlength=len(classes))
        if sizes.min() < 2 and est.unlabelled == "propagate":
            raise ValueError(
                f"{name}: the propagated classes leave class {classes[np.argmin(sizes)]} "
                f"{int(sizes.min())} sample(s); pass unlabelled='smooth' (or 'auto' or "
                "'ignore'), or label more samples of that class.")
        if sizes.min() >= 2:
            return X_out, classes[propagated], chose(choice, results)
        # the propagation left a class one sample: not to be fitted
        choice = "smooth" if results["smooth_supported"] or uses.kept else "ignore"
    if choice == "ignore":
        rows, labelled = prepared.labelled_rows()
        if not supports_of(est).prepared:  # (the rows as given)
            return _safe_indexing(X, rows), _safe_indexing(y, rows), chose(choice, results)
        return labelled, labelled.y, chose(choice, results)
    return X_out, y, chose(choice, results)


def _propagation_graph(est, scaled, y_enc, keys=None):
    """The :class:`PropagationGraph` of ``est``'s samples: its neighbour search when it has
    one (DEEMap's ``neighbors``: inverted lists from 200,000 samples on), else exact;
    ``keys``: the scaled samples' content keys, when known."""
    algorithm = "exact"
    if supports_of(est).neighbour_search:
        algorithm = _graphs.resolve_algorithm(est.neighbors, len(scaled))
    return PropagationGraph(scaled, y_enc, algorithm=algorithm,
                            random_state=getattr(est, "random_state", None), keys=keys)


def _labels_of(classes, codes):
    """The labels of class indices ``codes``, -1 (``'-1'`` among text) where negative."""
    if classes.dtype.kind in "iuf":
        return np.where(codes >= 0, classes[np.maximum(codes, 0)], -1)
    out = classes[np.maximum(codes, 0)].astype(object)
    out[codes < 0] = "-1"
    return out


#: folds of the labelled samples in the choice between the uses of the unlabelled ones
CHOICE_FOLDS = 2
#: the choice's fits use every labelled sample and unlabelled ones up to this many in all
#: (chosen by content): the choice costs a few fits of this size, whatever ``n``
CHOICE_MAX_SAMPLES = 5000
#: standard deviations of the sign test by which a use of the unlabelled rows must beat the
#: fit of the labelled rows alone on held-out labels (``docs/history.rst``, "The margin
#: and gate of unlabelled='auto'"; with the gate: at 1 some estimator erred more than on the
#: labelled rows alone in 15 of 45 set-fractions, at 2 and at 2.5 in 3; 2.5 gives up kernel
#: LDA's gain on digits at 1 %)
CHOICE_MARGIN = 2.0
#: standard deviations of the same sign test by which the fold's propagated classes must beat
#: the fit of the labelled rows alone on held-out labels before any use is weighed (the gate;
#: ``docs/history.rst``, "The margin and gate of unlabelled='auto'")
CHOICE_GATE = 1.0
#: the uses of the unlabelled rows that the choice weighs against ignoring them, in the order
#: their trials run
USES = ("smooth", "propagate")
#: skip the trials that cannot change the choice (:func:`compare_unlabelled_uses`); False:
#: fit every trial, so that ``unlabelled_results_`` holds every use's counts on every fold
#: (the study of the margin recomputed the choice at other margins from them)
CHOICE_STOP = True


def compare_unlabelled_uses(est, trials, n_folds=CHOICE_FOLDS, graph=None, *, kept=None,
                            ties="smooth"):
    r"""Which use of the unlabelled samples places held-out labelled samples best: ignoring
    them (the fit of the labelled samples alone), the smoothness term, or the propagated
    classes.

    The labelled samples are dealt to ``min(n_folds, smallest class size)`` stratified folds
    by content (:func:`graphdr.blocks.sampling.stratified_folds`). For each fold the
    estimator is fitted up to three times without the fold's samples: on the other labelled
    samples alone ('ignore'); on the other samples (every other labelled one, and unlabelled
    ones of smallest content key up to :data:`CHOICE_MAX_SAMPLES` in all; a kernel estimator
    with ``approximation='auto'`` in the Nystroem features above
    :data:`graphdr.graph_embedding.spaces.AUTO_EXACT_SEMI_MAX` samples, as its partially labelled fit)
    with the smoothness term
    ('smooth'); and on them with the classes propagated from the other labels ('propagate',
    :class:`graphdr.semi.propagation.PropagationGraph`, over the graph of every sample, the
    fold's unlabelled). The fold's samples are then placed by ``transform`` as new samples, as
    a user's test rows are (fitted as unlabelled rows, a map would have drawn them where the
    propagation put them, and favoured the uses of the unlabelled rows), and each is
    classified by its nearest other labelled sample in each embedding.

    A use is *supported* when it beats ignoring the unlabelled samples by a sign test: with
    :math:`b` the held-out samples it gets right and the fit of the labelled samples wrong, and
    :math:`c` the reverse, :math:`b - c > z \sqrt{b + c}`, :math:`z` =
    :data:`CHOICE_MARGIN` standard deviations (a few lucky samples do not decide it; measured
    against 1, 1.5, 2.5 and 3: ``docs/history.rst``, "The margin and gate of
    unlabelled='auto'"), and when the fold's
    propagated classes themselves (each held-out sample's class in its fold's propagation: no
    fit) beat ignoring them by the same test at :math:`z` = :data:`CHOICE_GATE`, the *gate*:
    where the neighbour graph's own labels do not beat the fit of the labelled samples, neither
    use is weighed (measured on ``benchmarks/semi.py``'s 675 cells, the gate changes 3 of the
    27 choices of a use, two of them to a lower test error, and spares the uses' trials in
    504 of the 648 cells that keep the labelled samples' fit: the same section). The
    choice is the supported use with fewer held-out errors
    (equal errors: ``ties``, 'propagate' for :class:`graphdr.DEEMap`, 'smooth' for the
    others), and 'ignore' when none is supported: the fit never uses the
    unlabelled samples in a way its own held-out comparison does not back. With one labelled
    sample in some class there is no held-out comparison, and when the fit of a fold's labelled
    samples alone fails (a method that needs two samples per class, with two in a class) there
    is nothing to weigh a use against: both choose 'ignore', the simplest.

    The trials run cheapest first and stop when they cannot change the choice
    (:func:`_weigh_uses`).

    An estimator that keeps a use (``kept``; the heavy-tailed map:
    'propagate', its unlabelled rows always in the picture) reverses the burden: that use
    unless the fits of the labelled samples alone beat the folds' propagated classes by the
    sign test at :data:`CHOICE_MARGIN` (:math:`c - b > z \sqrt{b + c}`); no use's trial is
    fitted, and with no held-out comparison it keeps that use (``benchmarks/semi.py --maps
    --heavy``: 'propagate' within one test sample of UMAP on 7 and 9 of 10 sets at 1 and 5 %
    of the labels, 'ignore' on 4 and 6).

    Returns a dict: ``choice``; ``n_folds``, ``n_held_out``; the held-out errors
    ``ignore_error``, ``smooth_error``, ``propagate_error`` (NaN for a use stopped before its
    last fold); for each use its counts ``<use>_b`` and ``<use>_c`` over the ``<use>_folds``
    folds fitted and whether it is ``<use>_supported``; ``propagation_error``,
    ``propagation_b``, ``propagation_c``, ``propagation_folds`` and ``propagation_supported``
    (the gate): the same for the propagated classes. ``trials``: the rows the trial fits take (a
    :class:`~graphdr.training.prepared.PreparedInput`: ``float64``, dense); ``graph``: a function
    that gives the :class:`PropagationGraph` of its scaled rows and labels (built once), or
    None.
    """
    classes, y_enc = trials.classes, trials.y_encoded
    labelled = np.flatnonzero(y_enc >= 0)
    sizes = np.bincount(y_enc[labelled], minlength=len(classes))
    k = int(min(n_folds, sizes.min()))
    out = dict(choice=kept or "ignore", n_folds=0, n_held_out=0, ignore_error=np.nan)
    for use in USES + ("propagation",):
        out.update({f"{use}_error": np.nan, f"{use}_b": 0, f"{use}_c": 0,
                    f"{use}_supported": False})
        out[f"{use}_folds"] = 0
    if k < 2:
        return out
    trials, labelled, trial, alone, graph = _trial_setting(est, trials, labelled, graph)
    folds = []
    for train, test in stratified_folds(trials.y_encoded[labelled], k,
                                        trials.keys()[labelled]):  # the cheap trials first
        fold = _ChoiceFold(trials, labelled[test], labelled[train], graph, len(classes))
        try:
            fold.ignore = fold.right(alone, "ignore", trials)
        except ValueError:  # nothing to weigh the uses against
            return out
        folds.append(fold)
    ignore = np.concatenate([f.ignore for f in folds])
    n = len(ignore)
    out.update(n_folds=k, n_held_out=n, ignore_error=float(np.mean(~ignore)))
    # the rows each use can still gain: those the fits of the labelled rows alone get wrong
    gains = np.cumsum([int(np.sum(~f.ignore)) for f in folds][::-1])[::-1].tolist() + [0]
    gate = _open_gate(folds, gains, kept, out)
    if kept:  # the kept use unless ignoring the unlabelled rows is shown better
        b, c = out["propagation_b"], out["propagation_c"]
        out["choice"] = "ignore" if _passes(c, b) else kept
        return out
    best = _weigh_uses(folds, gains, gate, ties, trial, trials, out)
    if best is not None:
        out["choice"] = best[1]
    return out


def _trial_setting(est, trials, labelled, graph):
    """``(trials, labelled, trial, alone, graph)`` of the choice: the rows its trials take
    (every labelled sample, and unlabelled ones of smallest content key up to
    :data:`CHOICE_MAX_SAMPLES` in all) and their labelled rows, the unfitted estimators of the
    uses' trials and of the labelled rows alone, and the function that gives the rows'
    propagation graph (built once, when a fold first needs it)."""
    from sklearn.base import clone

    y_enc = trials.y_encoded
    if len(y_enc) > max(CHOICE_MAX_SAMPLES, len(labelled)):
        # every labelled sample, and the unlabelled ones of smallest content key
        unlabelled = np.flatnonzero(y_enc < 0)
        picked = unlabelled[smallest_keys(trials.keys()[unlabelled],
                                          CHOICE_MAX_SAMPLES - len(labelled))]
        trials = trials.take(np.sort(np.concatenate([labelled, picked])))
        y_enc = trials.y_encoded
        labelled = np.flatnonzero(y_enc >= 0)
        graph = None
    trial = clone(est).set_params(unlabelled="smooth")
    if "labels" in trial.get_params(deep=False):  # (the labels audited once, before the choice)
        trial.set_params(labels="given")
    params = trial.get_params(deep=False)
    trial.set_params(**{k: v for k, v in (("verbose", 0), ("callback", None)) if k in params})
    alone = clone(trial)  # the labelled rows alone: as the fit that ignores the others
    if getattr(est, "approximation", None) == "auto" and len(y_enc) > AUTO_EXACT_SEMI_MAX:
        # the uses of the unlabelled rows in the Nystroem features the partially labelled fit
        # takes at this size: the same space for the two, and the propagated fit without
        # its n x n kernel
        trial.set_params(approximation="nystroem")
    if graph is None:  # one graph for every fold's labels, built when a fold needs it
        def graph():
            return trials.memo("propagation graph",
                               lambda: _propagation_graph(est, trials.scaled, y_enc, trials.keys()))
    return trials, labelled, trial, alone, graph


def _open_gate(folds, gains, kept, out):
    """The gate: whether the folds' propagated classes beat the fits of the labelled rows
    alone (:data:`CHOICE_GATE`); its folds' propagations stopped as the uses' trials are,
    when the rest cannot open it (not where a use is ``kept``). Its counts go in ``out``."""
    k, n = len(folds), out["n_held_out"]
    b = c = wrong = 0
    for i, fold in enumerate(folds):
        if CHOICE_STOP and not kept and not _passes(b + gains[i], c, CHOICE_GATE):
            break
        b += int(np.sum(fold.spread & ~fold.ignore))
        c += int(np.sum(~fold.spread & fold.ignore))
        wrong += int(np.sum(~fold.spread))
        out["propagation_folds"] = i + 1
    gate = out["propagation_folds"] == k and _passes(b, c, CHOICE_GATE)
    out.update(propagation_b=b, propagation_c=c, propagation_supported=gate)
    if out["propagation_folds"] == k:
        out["propagation_error"] = wrong / n
    return gate


def _weigh_uses(folds, gains, gate, ties, trial, trials, out):
    r"""Each use's trials fold by fold, stopped when they cannot change the choice
    (:func:`_may_change`); their counts go in ``out``. Returns the (held-out errors, use) of
    the supported use chosen, or None.

    The trials run cheapest first, and a trial that cannot change the choice is not fitted
    (:data:`CHOICE_STOP`): the fits of the labelled samples alone first, then each fold's
    propagation (the gate), then each use fold by fold, each stopped when even held-out samples
    right on every remaining row that ignoring gets wrong (:math:`b + w`, :math:`c` unchanged)
    would not pass its sign test (where it passes, :math:`b - c - z \sqrt{b + c}` grows with
    :math:`b` and falls with :math:`c`), or when the use's held-out errors so far exceed those
    of a use already supported (equal: when it loses the tie). The choice is that of every
    trial. Where the labelled samples' fit is kept, the choice costs the folds' fits of the
    labelled samples alone, one graph, and one propagation per fold until the gate cannot open.
    """
    k, n = len(folds), out["n_held_out"]
    best = None  # (held-out errors, use) of the supported use chosen so far
    for use in USES:
        b = c = wrong = 0
        for i, fold in enumerate(folds):
            if CHOICE_STOP and not (gate and _may_change(use, b, c, wrong, gains[i], best,
                                                         ties)):
                break
            try:
                right = fold.right(trial, use, trials)
            except ValueError:  # e.g. a class left one sample
                right = np.zeros(len(fold.held), dtype=bool)
            b += int(np.sum(right & ~fold.ignore))
            c += int(np.sum(~right & fold.ignore))
            wrong += int(np.sum(~right))
            out[f"{use}_folds"] = i + 1
        supported = gate and out[f"{use}_folds"] == k and _passes(b, c)
        out.update({f"{use}_b": b, f"{use}_c": c, f"{use}_supported": supported})
        if out[f"{use}_folds"] == k:
            out[f"{use}_error"] = wrong / n
        if supported and (best is None or (wrong, use != ties) < (best[0], best[1] != ties)):
            best = (wrong, use)
    return best


def _passes(b, c, z=None):
    r"""The sign test of a use against the fit of the labelled rows alone: :math:`b - c > z
    \sqrt{b + c}`, :math:`z` = :data:`CHOICE_MARGIN` unless given."""
    return bool(b - c > (CHOICE_MARGIN if z is None else z) * np.sqrt(b + c))


def _may_change(use, b, c, wrong, gain, best, ties):
    """Whether the remaining folds of ``use`` can change the choice: with counts ``b``, ``c``
    and ``wrong`` held-out errors so far, ``gain`` rows left that the labelled rows' fits get
    wrong, and ``best`` the (errors, use) of a use already supported, or None. The sign test's
    ``b - c - z sqrt(b + c)`` grows with ``b`` where it passes and falls with ``c``: the best
    it can reach is at ``b + gain`` and ``c``; the errors can only grow."""
    if not _passes(b + gain, c):
        return False
    return best is None or (wrong, use != ties) < (best[0], best[1] != ties)


class _ChoiceFold:
    """One fold of the choice: its held-out rows ``held`` (new samples to every fit), the
    other labelled rows ``kept``, the labels with the fold's hidden (``y_fold``), the classes
    their propagation gives every row (``propagated``, over the graph that the function
    ``graph`` gives, solved on first use; ``spread``: whether it gives the held-out rows their
    own) and, set by the caller, which held-out rows the fit of the labelled rows alone
    classifies right (``ignore``)."""

    def __init__(self, trials, held, kept, graph, n_classes):
        self.held, self.kept = held, kept
        self.y_fold = trials.y_encoded.copy()
        self.y_fold[held] = -1
        self._truth = trials.y_encoded[held]
        self._graph, self._n_classes = graph, n_classes
        self._propagated = None
        self.ignore = None

    @property
    def propagated(self):  # solved when first needed: a shut gate may not need every fold's
        if self._propagated is None:
            P, _, _ = self._graph().propagate(self.y_fold, self._n_classes)
            self._propagated = np.argmax(P, axis=1)
        return self._propagated

    @property
    def spread(self):
        return self.propagated[self.held] == self._truth

    def right(self, trial, use, trials):
        """Which held-out rows ``use``'s fit of the other rows places nearest a kept labelled
        row of their own class (:func:`_trial_fit`; a ValueError when it cannot be fitted)."""
        y_enc, X, classes = trials.y_encoded, trials.X, trials.classes
        prepared = supports_of(trial).prepared  # (else the rows as arrays)
        held, kept = self.held, self.kept
        if use == "ignore":
            rows, labels = (trials.take(kept) if prepared else X[kept]), y_enc[kept]
        else:
            rest = np.setdiff1d(np.arange(len(y_enc)), held)
            rows = trials.take(rest) if prepared else X[rest]
            labels = (self.y_fold if use == "smooth" else self.propagated)[rest]
        model = _trial_fit(trial, use, rows, _labels_of(classes, labels), trials)
        # the set's rows are validated already: embedded without validating them again
        embed = getattr(model, "_embed_rows", None) or model.transform
        return _nearest_labels(embed(X[kept]), y_enc[kept], embed(X[held])) == y_enc[held]


def _nearest_labels(reference, labels, queries):
    """The label of each query's nearest reference row (Euclidean, from the coordinates'
    differences; ties to the smaller row), in blocks of queries of at most
    :data:`NEAREST_BLOCK` differences."""
    reference = np.asarray(reference, dtype=np.float64)
    queries = np.asarray(queries, dtype=np.float64)
    out = np.empty(len(queries), dtype=np.asarray(labels).dtype)
    step = max(1, NEAREST_BLOCK // max(reference.size, 1))
    for a in range(0, len(queries), step):
        diff = queries[a:a + step, None, :] - reference[None, :, :]
        out[a:a + step] = labels[np.argmin(np.einsum("qrc,qrc->qr", diff, diff), axis=1)]
    return out


#: differences held at once by :func:`_nearest_labels` (16 MB of float64)
NEAREST_BLOCK = 1 << 21


def _trial_fit(trial, use, rows, labels, trials):
    """A fitted clone of ``trial`` for one use on one fold. The fit of a fold's labelled rows
    alone ('ignore') that cannot choose its kernel width or ridge by leave-one-out (a class
    left one labelled sample) takes those that the fit of every labelled sample chooses: a
    choice that has seen the held-out labels, so that it can only favour ignoring the
    unlabelled rows."""
    from sklearn.base import clone

    try:
        return clone(trial).fit(rows, labels)
    except ValueError:
        auto = {name: f"{name}_" for name in ("gamma", "reg")
                if trial.get_params(deep=False).get(name) == "auto"}
        if use != "ignore" or not auto:
            raise

    def every_label():  # the fit of every labelled sample's choice, once for the folds
        _, every = trials.labelled_rows()
        fitted = clone(trial).fit(every if isinstance(rows, PreparedInput) else every.X,
                                  every.y)
        return {name: getattr(fitted, attr) for name, attr in auto.items()
                if getattr(fitted, attr, None) is not None}

    fixed = trials.memo(("labelled rows' choice", tuple(auto)), every_label)
    return clone(trial).set_params(**fixed).fit(rows, labels)


def solve_partially_labelled(est, space, data, problem, reg):
    """The :class:`~graphdr.graph_embedding.fitting.Solution` of a partially labelled fit: the
    method's graphs ``problem`` with the weighted smoothness form (:func:`select_smoothing`),
    which it carries as ``selected``."""
    dims = labelled_dims(space, data)
    smoothing, selected = select_smoothing(est, space, data, dims, reg)
    eigenvalues, directions = solve_graph_problem(space, problem, reg=reg, rank_tol=est.rank_tol,
                                                  smoothing=smoothing, ridge_dims=dims)
    if problem.selected is not None:  # (what building the graphs chose)
        selected = problem.selected | selected
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
    key = None if data.prepared is None else digest(X_graph)

    def graph():
        derived = (_graph_from_whole(data.prepared, X_graph, key, n_neighbors)
                   if metric == "euclidean" else None)
        return derived if derived is not None else _graphs.knn_graph(
            X_graph, n_neighbors, weights="binary", metric=metric)

    # the choice's trial fits of the same rows search the same neighbours once
    W = graph() if data.prepared is None else data.prepared.memo(
        ("smoothing graph", key, n_neighbors, metric), graph)
    J = space.quadratic_form(W)
    T = space.quadratic_form(_graphs.total_graph(data.y_encoded))
    J, T = (J + J.T) / 2.0, (T + T.T) / 2.0
    trace_j = float(np.trace(J))
    if not trace_j > 0.0:  # every neighbour at the same point: nothing to smooth
        return np.zeros_like(J), T
    return J * (float(np.trace(T)) / trace_j), T


#: neighbours per row, in units of a subset's ``n_neighbors``, of the one search of a set of
#: which the choice's folds are subsets (:func:`_graph_from_whole`)
WHOLE_NEIGHBOURS = 2


def _graph_from_whole(prepared, X_graph, key, n_neighbors):
    """The smoothness graph of the rows ``X_graph`` (``key``: their :func:`digest`) of a
    subset ``prepared`` (a fold's rows: its set's rows but its held-out ones) from one exact
    search of the whole set's rows with :data:`WHOLE_NEIGHBOURS` times ``n_neighbors`` per
    row, kept on the set for every fold (:func:`graphdr.blocks.knn.neighbours_within`: the
    same neighbours, ties to the smaller row, as a search of the subset alone); None where
    ``X_graph`` is not the whole set's rows or scaled rows sliced, or a list does not decide
    (then the subset is searched)."""
    whole = None if prepared is None or sp.issparse(X_graph) else prepared.whole()
    if whole is None or len(X_graph) < 2:
        return None
    parent, rows = whole
    name = next((name for name in ("X", "scaled") if not sp.issparse(getattr(parent, name))
                 and digest(np.asarray(getattr(parent, name)[rows], dtype=np.float64)) == key),
                None)
    if name is None:
        return None
    k = min(int(n_neighbors), len(rows) - 1)
    source = np.asarray(getattr(parent, name), dtype=np.float64)
    wide = min(len(source) - 1, WHOLE_NEIGHBOURS * k)
    every = np.arange(len(source))
    dist, ind = parent.memo(("whole neighbours", name, wide), lambda: _search_groups(
        source, [(every, every, wide)], "euclidean", True)[0])
    near = neighbours_within(dist, ind, rows, k)
    return None if near is None else _graphs.binary_knn_graph(near[1])


def select_smoothing(est, space, data, dims, reg):
    """``(form, selected)``: the weighted smoothness form of a partially labelled fit (None for
    weight 0), and ``smoothing_`` with, for ``smoothing='auto'``, ``smoothing_results_``
    (:class:`~graphdr.graph_embedding.fitting.Selected`)."""
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
