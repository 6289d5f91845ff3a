"""What the page, the table and the picture of a fitted map show beside the points, computed
from the fit: the held-out error (:func:`held_out_errors`), the class propagated to each
unlabelled sample (:func:`propagated_columns`), the samples whose label the data contradicts
(:func:`label_issue_columns`), the groups of a colour column (:func:`color_groups`), and the
page itself (:func:`fitted_map_page`)."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import column_or_1d

from .._validation import unlabelled_mask
from .page import COLORS, UNLABELLED_COLOR, _text, map_page_html

__all__ = ["held_out_errors", "propagated_columns", "PROPAGATED_COLUMNS_MAX",
           "PROPAGATION_NOTE", "MAP_VOTE_NOTE", "label_issue_columns", "suspect_note",
           "color_groups", "fitted_map_page"]


def held_out_errors(model, y):
    """How well new samples land on the fitted :class:`graphdr.DEEMap` ``model`` of labels ``y``.

    Returns a dict: ``map_error``, the fraction of training samples that, placed by
    ``transform`` from their neighbours other than themselves
    (:meth:`graphdr.DEEMap.transform_left_out`), lie nearest on the map to another sample of a
    different class; ``feature_error``, the leave-one-out 1-NN error in the (scaled) features;
    ``n``, the number of samples. (The map itself was fitted with each sample, so this
    slightly favours the map; a split that refits without the samples is stricter.) Only the
    labelled samples are scored, against the labelled ones (unlabelled samples, ``y = -1``,
    place the others but have no class to be right about).
    """
    y = np.asarray(y)
    labelled = np.flatnonzero(~unlabelled_mask(y))  # unlabelled samples (-1) are not scored
    n = len(labelled)
    if n < 2:
        return dict(map_error=float("nan"), feature_error=float("nan"), n=n)
    Z = model.transform_left_out()[labelled]
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




#: the map's propagated-class columns for at most this many rows (the propagation's exact
#: neighbour search grows as the square of the rows; the map's own search turns approximate
#: from this size on, :data:`graphdr.blocks.knn.APPROX_MIN_SAMPLES`)
PROPAGATED_COLUMNS_MAX = 200_000


def propagated_columns(model, y):
    """For a map with unlabelled samples (-1): ``{'propagated class': ..., 'confidence':
    ...}``, text columns that give each unlabelled sample the class Poisson learning
    propagates to it over the map's scaled features (:class:`graphdr.PoissonPropagation`)
    and its confidence (empty for a labelled sample); else (or above
    :data:`PROPAGATED_COLUMNS_MAX` rows) an empty dict."""
    y = column_or_1d(y)
    unlabelled = unlabelled_mask(y)
    if not unlabelled.any() or len(y) > PROPAGATED_COLUMNS_MAX:
        return {}
    from ..semi.poisson import PoissonPropagation  # (imported when a map has unlabelled rows)

    prop = PoissonPropagation().fit(model._training_features(), y)
    return {"propagated class": [str(c) if u else "" for c, u in
                                 zip(prop.transduction_.tolist(), unlabelled)],
            "confidence": [f"{v:.2f}" if u else "" for v, u in
                           zip(prop.confidence_.tolist(), unlabelled)]}


#: what the propagated columns mean, on the page of a map in memory (and in the docs)
PROPAGATION_NOTE = (
    "Unlabelled samples are drawn in a light tint of the colour of their propagated class and "
    "show on hover the propagated class: the class Poisson learning "
    "propagates to them over the neighbour graph of the features (graphdr."
    "PoissonPropagation), and its confidence: that class's share of the propagated "
    "distribution minus the runner-up's (1: only that class reaches the sample; near 0: two "
    "classes about as likely; a ranking of how clearly the propagation decides, not a "
    "probability).")
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
    ``'label quality'`` (the out-of-sample probability of the given label, two decimals;
    empty for an unlabelled sample) and ``'suggested class'`` (the class the data supports),
    shown on hover and written to the table; ``suspect`` the flagged samples (bool), ringed on
    the page and the picture. ``({}, None)`` for a map whose labels were not audited."""
    audit = getattr(model, "label_issues_", None)
    if audit is None:
        return {}, None
    quality = np.asarray(audit.label_quality_, dtype=np.float64)
    return ({"label quality": ["" if q != q else f"{q:.2f}" for q in quality.tolist()],
             "suggested class": _text(audit.suggested_label_.tolist())},
            np.asarray(audit.is_issue_, dtype=bool))


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
    :data:`COLOR_LEVELS` distinct values, are categories (colours of :data:`COLORS`);
    other numbers are continuous: :data:`COLOR_BINS` bins between quantiles, named by their
    ranges and coloured along viridis (a sequential scale that reads the same in grey)."""
    import pandas as pd

    values = np.asarray(values, dtype=object)
    if len(values) == 0:
        raise ValueError(f"the colour column {name!r} is empty.")
    numbers = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=np.float64)
    missing = np.array([v is None or (isinstance(v, str) and not v.strip()) or v != v
                        for v in values.tolist()])
    continuous = bool(np.all(np.isfinite(numbers) | missing)) and (~missing).any() and \
        len(np.unique(numbers[~missing])) > COLOR_LEVELS
    if not continuous:
        text = np.array(["" if m else str(v) for v, m in zip(values.tolist(), missing)],
                        dtype=object)
        text[missing] = "(missing)"
        names = sorted(set(text.tolist()), key=lambda t: (t == "(missing)", t))
        return text, names, [COLORS[k % len(COLORS)] for k in range(len(names))]
    from matplotlib import colormaps

    present = numbers[~missing]
    edges = np.unique(np.quantile(present, np.linspace(0, 1, COLOR_BINS + 1)))
    k = len(edges) - 1
    which = np.clip(np.searchsorted(edges, numbers, side="right") - 1, 0, k - 1)
    names = [f"{edges[i]:.3g} – {edges[i + 1]:.3g}" for i in range(k)]
    from matplotlib.colors import to_hex

    cmap = colormaps["viridis"]
    colors = [to_hex(cmap(0.05 + 0.9 * i / max(k - 1, 1))) for i in range(k)]
    groups = np.array([names[i] for i in which], dtype=object)
    if missing.any():
        groups[missing] = "(missing)"
        names, colors = names + ["(missing)"], colors + [UNLABELLED_COLOR]
    return groups, names, colors


def fitted_map_page(model, y, *, title=None, ids=None, hover=None, label_name="label",
                    csv_name=None, id_name="id", max_points=None, propagated=None,
                    color=None, color_name="colour", issues=None):
    """The page of the fitted :class:`graphdr.DEEMap` ``model`` of labels ``y``, as
    :func:`graphdr.map2d` writes it: title, what was fitted, the held-out error
    (:func:`held_out_errors`, from every sample) and the parameters. ``max_points``: draw at
    most that many samples, a uniform sample (fixed seed: the same page for the same map).
    ``propagated``: :func:`propagated_columns`, shown on hover and explained on the page.
    ``color``: one value per sample to colour the points by instead of the labels
    (:func:`color_groups`; the labels are then shown on hover, and the fit used them).
    ``issues``: :func:`label_issue_columns` (default: those of the model's ``label_issues_``),
    shown on hover, their suspects ringed and explained on the page."""
    y = column_or_1d(y)
    unlabelled = unlabelled_mask(y)
    n, C = len(model.embedding_), len(model.classes_)
    errors = held_out_errors(model, y)
    k = int(unlabelled.sum())
    counted = f"{n} samples ({k} unlabelled)" if k else f"{n} samples"
    scaling = {"standard": "standardised", "none": "as given"}.get(
        str(model.feature_scaling_), str(model.feature_scaling_))
    description = (f"{counted}, {model.n_features_in_} features, {C} classes; "
                   f"DEEMap, features {scaling}, {model.n_iter_} iterations.")
    columns, suspect = label_issue_columns(model) if issues is None else issues
    if suspect is not None:
        hover, description = {**(hover or {}), **columns}, \
            description + " " + suspect_note(int(suspect.sum()))
    if propagated:  # (and the unlabelled samples tinted by their propagated class)
        hover, description = {**(hover or {}), **propagated}, description + " " + PROPAGATION_NOTE
    rows = slice(None)
    if max_points is not None and n > max_points:
        rows = np.sort(np.random.default_rng(0).choice(n, int(max_points), replace=False))
        description += (f" Drawn here: a uniform sample of {int(max_points)} of the {n} "
                        "samples (the error below is of all of them).")
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
        id_name=id_name, suspect=None if suspect is None else suspect[rows],
        carried=None if not propagated or color is not None else
        np.asarray(propagated["propagated class"], dtype=object)[rows])
