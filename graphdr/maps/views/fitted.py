"""What the page, the table and the picture of a fitted map show beside the points, computed
from the fit: the held-out error (:func:`held_out_errors`), the one class the map gives each
unlabelled sample (:func:`propagated_columns`), the samples whose label the data contradicts
(:func:`label_issue_columns`), each sample's nearest others in the features
(:func:`feature_neighbours`), the groups of a colour column (:func:`color_groups`), and the
page itself (:func:`fitted_map_page`)."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import column_or_1d

from ..._validation import unlabelled_mask
from .page import COLORS, UNLABELLED_COLOR, _text, map_page_html

__all__ = ["held_out_errors", "propagated_columns", "PROPAGATED_COLUMNS_MAX",
           "PROPAGATION_NOTE", "MAP_VOTE_NOTE", "label_issue_columns", "suspect_note",
           "feature_neighbours", "NEIGHBOURS_SHOWN", "color_groups", "fitted_map_page"]


def held_out_errors(model, y, placed=None):
    """How well new samples land on the fitted :class:`graphdr.DEEMap` ``model`` of labels ``y``.

    Returns a dict: ``map_error``, the fraction of training samples that, placed by
    ``transform`` from their neighbours other than themselves
    (:meth:`graphdr.DEEMap.transform_left_out`), lie nearest on the map to another sample of a
    different class; ``feature_error``, the leave-one-out 1-NN error in the (scaled) features;
    ``n``, the number of samples. (The map itself was fitted with each sample, so this
    slightly favours the map; a split that refits without the samples is stricter.) Only the
    labelled samples are scored, against the labelled ones (unlabelled samples, ``y = -1``,
    place the others but have no class to be right about). ``placed``: the model's
    ``transform_left_out()``, when the caller has it.
    """
    y = np.asarray(y)
    labelled = np.flatnonzero(~unlabelled_mask(y))  # unlabelled samples (-1) are not scored
    n = len(labelled)
    if n < 2:
        return dict(map_error=float("nan"), feature_error=float("nan"), n=n)
    Z = (model.transform_left_out() if placed is None else np.asarray(placed))[labelled]
    yl = y[labelled]
    index = NearestNeighbors(n_neighbors=2).fit(model.embedding_[labelled].astype(np.float64))
    _, ind = index.kneighbors(Z)
    own = ind[:, 0] == np.arange(n)
    other = np.where(own, ind[:, 1], ind[:, 0])
    if n == len(y) and len(model._order) == n:  # (every row in the map's own index)
        near = model._nearest_other()
    else:
        near = NearestNeighbors(n_neighbors=1).fit(
            model._training_features()[labelled]).kneighbors(
            n_neighbors=1, return_distance=False)[:, 0]
    return dict(map_error=float(np.mean(yl[other] != yl)),
                feature_error=float(np.mean(yl[near] != yl)), n=n)




#: how many nearest samples in the features the page lists (and draws) for a clicked point
NEIGHBOURS_SHOWN = 5


def feature_neighbours(model, k=NEIGHBOURS_SHOWN):
    """``(index, distance)``, arrays of shape (n, k): each training sample's ``k`` nearest
    other samples in the features the fitted :class:`graphdr.DEEMap` ``model`` was fitted on
    (scaled as it scaled them, ``feature_scaling_``), nearest first, rows in the caller's
    order; how a user judges a label on the page. From the map's own index of its training
    samples (exact up to :data:`graphdr.blocks.knn.APPROX_MIN_SAMPLES` rows, the inverted lists'
    graph above; with ``unlabelled_='ignore'`` an index of every row, the placed ones too),
    so the same map gives the same neighbours whatever the order of its rows."""
    n = len(model.embedding_)
    k = min(int(k), n - 1)
    if k < 1:
        return np.zeros((n, 0), dtype=np.intp), np.zeros((n, 0))
    if model._placed is None and model._neighbors.n_neighbors >= k:
        dist, ind = model._neighbors.kneighbors(n_neighbors=k)
        order = model._order
        index, distance = np.empty_like(ind), np.empty_like(dist)
        index[order], distance[order] = order[ind], dist
        return index, distance
    dist, ind = model._transform_index(model._training_features()).kneighbors(n_neighbors=k)
    return ind, dist


#: the map's class columns of unlabelled samples for at most this many rows (the
#: propagation's exact neighbour search grows as the square of the rows; the map's own search
#: turns approximate from this size on, :data:`graphdr.blocks.knn.APPROX_MIN_SAMPLES`)
PROPAGATED_COLUMNS_MAX = 200_000
#: folds of the labelled samples on which the propagation is scored against the label check
CLASS_FOLDS = 5


def propagated_columns(model, y):
    """For a map with unlabelled samples (-1): the one class the map gives each unlabelled
    sample, as text columns (empty for a labelled sample):

    * ``'inferred class'``: from the propagation (the class Poisson learning propagates to
      the sample over the neighbour graph of the map's scaled features,
      :class:`graphdr.PoissonPropagation`) or, for a map whose labels were checked
      (``labels='flag'`` or ``'audit'``), from the label check
      (:class:`graphdr.LabelIssues`' ``suggested_label_``) when that predicts the labelled
      samples' held-out labels better: the label check's out-of-sample probabilities against
      the propagation of :data:`CLASS_FOLDS` folds of the labels, each fold's labels hidden
      (one graph, one solve per fold; ties: the propagation);
    * ``'inferred by'``: ``'propagation'`` or ``'label check'``, the same on every row;
    * ``'confidence'``: the gap between the chosen distribution's two largest classes (1:
      only that class; near 0: two about as likely; a ranking, not a probability).

    An empty dict without unlabelled samples or without labelled ones, or above
    :data:`PROPAGATED_COLUMNS_MAX` rows (there, a map whose labels were checked gives the label
    check's class)."""
    y = column_or_1d(y)
    unlabelled = unlabelled_mask(y)
    if not unlabelled.any() or unlabelled.all():  # (no label: no class to infer)
        return {}
    audit = getattr(model, "label_issues_", None)
    if len(y) > PROPAGATED_COLUMNS_MAX:
        if audit is None:
            return {}
        P, source = _audit_distributions(audit, model.classes_), "label check"
    else:
        P, source = _unlabelled_distributions(model, y, unlabelled, audit)
    top2 = np.sort(P, axis=1)[:, -2:]
    confidence = top2[:, 1] - top2[:, 0]
    inferred = model.classes_[np.argmax(P, axis=1)]
    return {"inferred class": [str(c) if u else "" for c, u in
                               zip(inferred.tolist(), unlabelled)],
            "inferred by": [source if u else "" for u in unlabelled],
            "confidence": [f"{v:.2f}" if u else "" for v, u in
                           zip(confidence.tolist(), unlabelled)]}


def _audit_distributions(audit, classes):
    """The label check's probabilities over the map's ``classes`` (an audit that emptied a
    class, ``labels='audit'``, knows more classes than the map)."""
    at = np.searchsorted(audit.classes_, classes)
    return np.asarray(audit.probabilities_)[:, at]


def _unlabelled_distributions(model, y, unlabelled, audit):
    """``(P, source)``: the class distributions of every sample by the propagation, or by the
    label check where it scores better on held-out labels (:func:`propagated_columns`)."""
    from ...blocks.sampling import row_keys, stratified_folds
    from ...semi.propagation import PropagationGraph  # (imported when a map has unlabelled rows)

    classes = model.classes_
    y_enc = np.full(len(y), -1, dtype=np.intp)
    labelled = np.flatnonzero(~unlabelled)
    y_enc[labelled] = np.searchsorted(classes, y[labelled])
    X = model._training_features()
    graph = PropagationGraph(X, y_enc)
    P_prop = graph.propagate(y_enc, len(classes))[0]
    if audit is None:
        return P_prop, "propagation"
    P_audit = _audit_distributions(audit, classes)
    folds = stratified_folds(y_enc[labelled], min(CLASS_FOLDS, len(labelled)),
                             row_keys(X[labelled]))
    right_prop = 0
    for _, test in folds:
        hidden = y_enc.copy()
        hidden[labelled[test]] = -1
        if len(np.unique(hidden[hidden >= 0])) < 2:
            continue  # (a fold that hides a whole class: no propagation to score)
        P = graph.propagate(hidden, len(classes))[0]
        right_prop += int(np.sum(np.argmax(P[labelled[test]], axis=1) == y_enc[labelled[test]]))
    right_audit = int(np.sum(np.argmax(P_audit[labelled], axis=1) == y_enc[labelled]))
    return (P_audit, "label check") if right_audit > right_prop else (P_prop, "propagation")


#: what the class columns of unlabelled samples mean, on the page of a map in memory (and in
#: the docs)
PROPAGATION_NOTE = (
    "Unlabelled samples are drawn in a light tint of the colour of their inferred class and "
    "show it on hover: the one class the map gives them, inferred by the propagation (the "
    "class Poisson learning propagates over the neighbour graph of the features, graphdr."
    "PoissonPropagation) or, when the labels were checked, by the label check "
    "(graphdr.LabelIssues), whichever predicts the labelled samples' held-out labels better "
    "('inferred by' says which); and its confidence: that class's share minus the "
    "runner-up's (1: only that class; near 0: two classes about as likely; a ranking of how "
    "clearly it decides, not a probability).")
#: and on the page of a map made on a Dask cluster, whose columns say what they are
MAP_VOTE_NOTE = (
    "Unlabelled samples are drawn in a light tint of the colour of their map vote and show on "
    "hover the map vote: the class most frequent among the "
    "{k} labelled training samples nearest their place on the map, and the vote share: the "
    "fraction of those {k} of that class (the map's neighbours, not the propagation over the "
    "features that a map in memory gives).")




def label_issue_columns(model):
    """``(columns, suspect)`` of a map fitted with ``labels='flag'`` or ``'audit'`` (its
    ``label_issues_``, :class:`graphdr.LabelIssues`): ``columns`` a dict of text columns,
    ``'suspect'`` (``true`` for the flagged samples, the ones the page and the picture ring;
    ``false`` for every other, unlabelled ones included), ``'label quality'`` (the
    out-of-sample probability of the given label, two decimals) and ``'suggested class'`` (the
    class the data supports), the last two empty for an unlabelled sample (whose one class is
    :func:`propagated_columns`' ``inferred class``), shown on hover and written to the table;
    ``suspect`` the flagged samples (bool). ``({}, None)`` for a map whose labels were not
    audited."""
    audit = getattr(model, "label_issues_", None)
    if audit is None:
        return {}, None
    quality = np.asarray(audit.label_quality_, dtype=np.float64)
    suspect = np.asarray(audit.is_issue_, dtype=bool)
    # an unlabelled sample (no label to check; with labels='audit', a flagged one too)
    given = ~np.isnan(quality)
    suggested = _text(audit.suggested_label_.tolist())
    return ({"suspect": ["true" if s else "false" for s in suspect.tolist()],
             "label quality": [f"{q:.2f}" if g else "" for q, g in
                               zip(quality.tolist(), given.tolist())],
             "suggested class": [c if g else "" for c, g in zip(suggested, given.tolist())]},
            suspect)


def suspect_note(n_suspect):
    """What the page says of its ringed samples (:func:`label_issue_columns`)."""
    if not n_suspect:
        return ("Labels checked (graphdr.LabelIssues): the data contradicts none of them; "
                "hover shows each sample's label quality and suggested class.")
    return (f"Suspect labels: the {n_suspect} samples ringed in black have a label the data "
            "contradicts (graphdr.LabelIssues: models that never saw a sample's label give it "
            "class probabilities; confident learning flags the labels far below their class's "
            "usual confidence). Hover shows the suggested class (the class the data supports) "
            "and the label quality (the probability of the given label; low: suspect). Click "
            "'suspect labels' in the legend to show or hide the rings; search 'suspect' to "
            "frame them. A ring asks for a look; a person decides.")


#: a numeric colour column with more distinct values than this is continuous: drawn in
#: :data:`COLOR_BINS` quantile bins of a sequential colour scale
COLOR_LEVELS = 12
COLOR_BINS = 9


def color_groups(values, name="colour"):
    """``(groups, names, colours)`` of a colour column: each sample's group, the groups in
    legend order and one ``#rrggbb`` colour each. Text, or numbers with at most
    :data:`COLOR_LEVELS` distinct finite values, are categories (colours of :data:`COLORS`);
    other numbers are continuous: :data:`COLOR_BINS` bins between quantiles of the finite
    values, named by their ranges and coloured along viridis (a sequential scale that reads
    the same in grey), with ``-inf``, ``+inf`` and ``NaN`` each a group of its own (before and
    after the bins, in colours off the scale). Empty cells are ``(missing)``."""
    import pandas as pd

    values = np.asarray(values, dtype=object)
    if len(values) == 0:
        raise ValueError(f"the colour column {name!r} is empty.")
    numbers = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=np.float64)
    missing = np.asarray(pd.isna(values), dtype=bool) | np.array(
        [isinstance(v, str) and not v.strip() for v in values.tolist()], dtype=bool)
    # a NaN written as a number ("nan") is a value; text that is no number is not
    nan_written = np.array([isinstance(v, str) and v.strip().lower().lstrip("+-") == "nan"
                            for v in values.tolist()], dtype=bool)
    finite = np.isfinite(numbers) & ~missing
    numeric = bool(np.all(finite | np.isinf(numbers) | nan_written | missing))
    continuous = numeric and len(np.unique(numbers[finite])) > COLOR_LEVELS
    if not continuous:
        text = np.array(["" if m else str(v) for v, m in zip(values.tolist(), missing)],
                        dtype=object)
        text[missing] = "(missing)"
        names = sorted(set(text.tolist()), key=lambda t: (t == "(missing)", t))
        return text, names, [COLORS[k % len(COLORS)] for k in range(len(names))]
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    present = numbers[finite]
    edges = np.unique(np.quantile(present, np.linspace(0, 1, COLOR_BINS + 1)))
    k = len(edges) - 1
    which = np.clip(np.searchsorted(edges, numbers[finite], side="right") - 1, 0, k - 1)
    names = [f"{edges[i]:.3g} – {edges[i + 1]:.3g}" for i in range(k)]
    cmap = colormaps["viridis"]
    colors = [to_hex(cmap(0.05 + 0.9 * i / max(k - 1, 1))) for i in range(k)]
    groups = np.full(len(values), "(missing)", dtype=object)
    groups[finite] = [names[i] for i in which]
    # the values off the bins: a group each, in colours off viridis (a dark grey below its
    # dark end, red above its yellow end, a brown for NaN), then the empty cells
    before, after = [], []
    for group, rows, color, side in (
            ("-inf", ~missing & (numbers == -np.inf), "#3b3b3b", before),
            ("+inf", ~missing & (numbers == np.inf), "#d62728", after),
            ("NaN", ~missing & np.isnan(numbers), "#8c564b", after),
            ("(missing)", missing, UNLABELLED_COLOR, after)):
        if rows.any():
            groups[rows] = group
            side.append((group, color))
    names = [g for g, _ in before] + names + [g for g, _ in after]
    colors = [c for _, c in before] + colors + [c for _, c in after]
    return groups, names, colors


#: what each use of the unlabelled samples did, as the page says it
_UNLABELLED_USES = {
    "ignore": "left out of the fit and placed on the map of the labelled ones",
    "smooth": "in the fit without a class",
    "propagate": "in the fit with the classes propagated to them",
}


def fitted_with(model, n_unlabelled):
    """One or two sentences for the page's header: the objective the map ``model`` was fitted
    with, how its labels entered, and what it did with its ``n_unlabelled`` unlabelled
    samples (and whether it chose that, ``unlabelled='auto'``)."""
    params = model.get_params(deep=False)
    if params.get("repulsion") == "cauchy":
        what = (f"Fitted with the heavy-tailed objective (t-SNE's, Cauchy kernel of tail "
                f"{params['tail']:g}, perplexity {params['perplexity']:g})")
        if len(model.classes_) == 0:
            what += ", without labels: the data's neighbourhoods alone."
        else:
            how = " (chosen by held-out labels)" if params.get("separation") == "auto" else ""
            what += (f", the labels separating the classes by {model.separation_:g}{how} (0: "
                     "the data alone, 1: no attraction across classes).")
    else:
        what = ("Fitted with discriminative elastic embedding's objective (Gaussian repulsion, "
                "classes pulled together and pushed apart by their labels).")
    sample = getattr(model, "_sample", None)
    if sample is not None:
        what += (f" Fitted on {sample[0]:,} of the {sample[1]:,} samples (fit_samples; those "
                 "of smallest content key in each class), the others placed on that map as new "
                 "samples.")
    use = getattr(model, "unlabelled_", None)
    if n_unlabelled and len(model.classes_) and use in _UNLABELLED_USES:
        how = "chosen by held-out labels" if params.get("unlabelled") == "auto" else "as asked"
        what += f" Unlabelled samples: {_UNLABELLED_USES[use]} ({how})."
    return what


def fitted_map_page(model, y, *, title=None, ids=None, hover=None, label_name="label",
                    csv_name=None, id_name="id", max_points=None, propagated=None,
                    color=None, color_name="colour", issues=None,
                    neighbours=NEIGHBOURS_SHOWN):
    """The page of the fitted :class:`graphdr.DEEMap` ``model`` of labels ``y``, as
    :func:`graphdr.map2d` writes it: title, what was fitted, the held-out error
    (:func:`held_out_errors`, from every sample) and the parameters. ``max_points``: draw at
    most that many samples, a uniform sample (fixed seed: the same page for the same map).
    ``propagated``: :func:`propagated_columns`, shown on hover and explained on the page.
    ``color``: one value per sample to colour the points by instead of the labels
    (:func:`color_groups`; the labels are then shown on hover, and the fit used them).
    ``issues``: :func:`label_issue_columns` (default: those of the model's ``label_issues_``),
    shown on hover, their suspects ringed and explained on the page. ``neighbours``: how many
    nearest samples in the features the page lists for a clicked point
    (:func:`feature_neighbours`; 0: none)."""
    y = column_or_1d(y)
    unlabelled = unlabelled_mask(y)
    n, C = len(model.embedding_), len(model.classes_)
    placed = model.transform_left_out()  # (the error's places; a suspect's place by its features)
    errors = held_out_errors(model, y, placed)
    k = int(unlabelled.sum())
    counted = f"{n} samples ({k} unlabelled)" if k else f"{n} samples"
    scaling = {"standard": "standardised", "none": "as given"}.get(
        str(model.feature_scaling_), str(model.feature_scaling_))
    description = (f"{counted}, {model.n_features_in_} features, "
                   f"{f'{C} classes' if C else 'no labels'}; "
                   f"DEEMap, features {scaling}, {model.n_iter_} iterations. "
                   f"{fitted_with(model, k)}")
    columns, suspect = label_issue_columns(model) if issues is None else issues
    if suspect is not None:  # (the ring says 'suspect': hover shows the rest)
        hover = {**(hover or {}), **{k: v for k, v in columns.items() if k != "suspect"}}
        description += " " + suspect_note(int(suspect.sum()))
    if propagated:  # (and the unlabelled samples tinted by their inferred class)
        hover, description = {**(hover or {}), **propagated}, description + " " + PROPAGATION_NOTE
    rows = slice(None)
    if max_points is not None and n > max_points:
        rows = np.sort(np.random.default_rng(0).choice(n, int(max_points), replace=False))
        description += (f" Drawn here: a uniform sample of {int(max_points)} of the {n} "
                        "samples (the error below is of all of them).")
    near = None
    if neighbours:
        index, distance = feature_neighbours(model, neighbours)
        if not isinstance(rows, slice):  # (page rows; -1 for a neighbour not drawn)
            at = np.full(n, -1, dtype=np.intp)
            at[rows] = np.arange(len(rows))
            index, distance = at[index[rows]], distance[rows]
        near = (index, distance, f"{model.n_features_in_} features, {scaling}; Euclidean")
    params = {k: v for k, v in model.get_params().items() if k not in ("callback", "verbose")}
    shown, classes, colors, unlabelled_shown = y, model.classes_, None, unlabelled
    if color is not None:  # the labels on hover, the colour column's groups in the legend
        color = column_or_1d(np.asarray(color, dtype=object))
        if len(color) != n:
            raise ValueError(f"color has {len(color)} values for {n} samples.")
        shown, classes, colors = color_groups(color, color_name)
        hover = {str(label_name): _text(y), **(hover or {})}
        unlabelled_shown = np.zeros(n, dtype=bool)
        label_name = color_name
        description += (f" Coloured by {color_name}; the map was fitted on the labels "
                        "(on hover).")
    return map_page_html(
        np.asarray(model.embedding_)[rows], np.asarray(shown)[rows], classes=classes,
        colors=colors,
        ids=None if ids is None else np.asarray(ids, dtype=object)[rows],
        hover=None if hover is None else {
            name: np.asarray(v, dtype=object)[rows] for name, v in hover.items()},
        title=title or f"DEEMap of {n} samples, {C} classes", description=description,
        errors=errors, label_name=label_name, csv_name=csv_name,
        details=f"graphdr.DEEMap parameters: {params}.", unlabelled=unlabelled_shown[rows],
        id_name=id_name, suspect=None if suspect is None else suspect[rows], neighbours=near,
        suspect_places=None if suspect is None else placed[rows],
        suggestion="suggested class" if suspect is not None else None,
        carried=None if not propagated or color is not None else
        np.asarray(propagated["inferred class"], dtype=object)[rows])
