"""The interactive page of a 2-D map: one self-contained HTML file; the map as CSV; its
picture (:func:`plot_map`).

The page draws every sample with WebGL (a 2-D canvas where WebGL is missing), pans (drag) and
zooms (wheel), shows a sample's id, label and chosen columns on hover, finds a sample by id or
a class by name, and toggles classes in its legend. Class names are written at their regions.
It needs no network: its script (``graphdr/maps/static/map_page.js``, written for graphdr) and the
data are inlined. The same map gives the same bytes.

It also states how well new samples land, which the picture of a supervised map hides
(:func:`held_out_errors`): each training sample is placed by ``transform`` from its neighbours
other than itself, and counted wrong when the nearest other sample on the map is of another
class; beside it, the same leave-one-out 1-NN error in the features the map was fitted on.
"""

from __future__ import annotations

import base64
import csv
import html
import json
from importlib import resources
from pathlib import Path

import numpy as np
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import column_or_1d

from .._outputs import atomic_open, spreadsheet_safe
from .._validation import unlabelled_mask

__all__ = ["COLORS", "held_out_errors", "propagated_columns", "PROPAGATED_COLUMNS_MAX",
           "PROPAGATION_NOTE", "MAP_VOTE_NOTE", "write_map_page", "write_map_csv",
           "map_page_html", "fitted_map_page", "MapView", "map_files", "plot_map",
           "color_groups"]

#: class colours: tab10, then colours added one at a time from a grid of sRGB, each the farthest
#: (CIE76 distance in Lab) from those before it and from white, lightness 25-85. Any two of the
#: first 40 are at least 27 apart (``tests/test_map_page.py``); beyond 64 classes colours
#: repeat and the names on the map tell the classes apart.
COLORS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#0000ff", "#ff1eff", "#00f000", "#004b1e", "#5a00a5", "#ffc387",
    "#00f0b4", "#ff0078", "#78004b", "#78690f", "#0069ff", "#96c387", "#c3c3ff", "#ff8787",
    "#c300a5", "#c369ff", "#96e11e", "#4b3c5a", "#781e00", "#d2961e", "#00f078", "#003c96",
    "#009678", "#f0b4c3", "#005a5a", "#b42d4b", "#a52dff", "#6996ff", "#690f78", "#c3693c",
    "#ff0000", "#3c6900", "#a59669", "#4b4b2d", "#1e3cf0", "#5ac3ff", "#a5e169", "#a5c3d2",
    "#c30f78", "#8778a5", "#b46987", "#ffc300", "#78e1c3", "#d2d278", "#ff69f0", "#00c31e",
    "#e1a5ff", "#694bc3", "#87a53c", "#ff00a5", "#c34b00", "#d2d2b4", "#f06996", "#5ad278",
)


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
    if n == len(y):
        near = model._nearest_other()
    else:
        near = NearestNeighbors(n_neighbors=1).fit(
            model._training_features()[labelled]).kneighbors(
            n_neighbors=1, return_distance=False)[:, 0]
    return dict(map_error=float(np.mean(yl[other] != yl)),
                feature_error=float(np.mean(yl[near] != yl)), n=n)


def _b64(array, dtype):
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def _centers(Y, codes, C):
    """A point of each class's region: the class sample nearest its coordinate-wise median."""
    out = []
    for c in range(C):
        P = Y[codes == c]
        if len(P) == 0:
            out.append(None)
            continue
        m = np.median(P, axis=0)
        k = int(np.argmin(np.sum((P - m) ** 2, axis=1)))
        out.append([round(float(P[k, 0]), 5), round(float(P[k, 1]), 5)])
    return out


def _text(values):
    return ["" if v is None else str(v) for v in values]


def write_map_csv(path, embedding, labels, ids=None, extra=None, id_name="id",
                  label_empty=None):
    """The map as CSV: ``id,label,x,y`` (ids default to the row numbers, from 0; the id
    column named ``id_name``), then the ``extra`` columns (a dict of name -> one text per
    sample) in their order. ``label_empty``: rows whose label cell was empty in the input,
    written empty again (an unlabelled row keeps its cell, for joining back).

    A text cell that a spreadsheet would read as a formula (it begins with ``= + - @``) is
    written with a leading ``'`` (:func:`graphdr._outputs.spreadsheet_safe`); the page shows
    the label as given."""
    Y = np.asarray(embedding, dtype=np.float64)
    ids = _text(ids) if ids is not None else [str(i) for i in range(len(Y))]
    labels = _text(labels)
    if label_empty is not None:
        labels = ["" if e else lab for lab, e in zip(labels, np.asarray(label_empty))]
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        extra = {k: _text(v) for k, v in (extra or {}).items()}
        w.writerow([spreadsheet_safe(str(id_name or "id")), "label", "x", "y"]
                   + [spreadsheet_safe(k) for k in extra])
        for r, (i, lab, (a, b)) in enumerate(zip(ids, labels, Y)):
            w.writerow([spreadsheet_safe(i), spreadsheet_safe(lab), repr(float(a)),
                        repr(float(b))] + [spreadsheet_safe(v[r]) for v in extra.values()])
    return Path(path)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header { padding: 0.6em 1.2em 0.3em; }
h1 { font-size: 1.3em; margin: 0.2em 0; }
header p { margin: 0.25em 0; max-width: 75em; font-size: 0.92em; }
.honest { background: #fff6e0; border-left: 4px solid #e0a000; padding: 0.3em 0.6em; }
main { display: flex; gap: 0.6em; padding: 0 1.2em 0.6em; }
#map { position: relative; flex: 1; height: 78vh; min-height: 360px; border: 1px solid #ccc; }
#map canvas { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
#overlay { cursor: crosshair; }
#tip { position: absolute; background: rgba(255,255,255,0.95); border: 1px solid #888;
       padding: 3px 6px; font-size: 12px; pointer-events: none; max-width: 24em; }
#tip th { text-align: left; padding-right: 0.6em; color: #555; font-weight: normal; }
aside { width: 16em; font-size: 0.9em; display: flex; flex-direction: column; height: 78vh; }
aside input { width: 100%; box-sizing: border-box; }
#legend { list-style: none; padding: 0; margin: 0.4em 0; overflow-y: auto; flex: 1; }
#legend li { cursor: pointer; padding: 1px 2px; white-space: nowrap; display: flex;
             align-items: center; }
#legend .name { overflow: hidden; text-overflow: ellipsis; min-width: 0; }
#legend .count { flex: none; margin-left: 0.3em; color: #555; }
#legend li.off { opacity: 0.35; }
.sw { display: inline-block; flex: none; width: 0.9em; height: 0.9em; margin-right: 0.4em;
      border-radius: 50%; vertical-align: -0.1em; }
footer { padding: 0 1.2em 1em; font-size: 0.8em; color: #555; }
"""


#: colour and legend name of the unlabelled samples (``y = -1``) on the page and the picture
UNLABELLED_COLOR = "#cccccc"
UNLABELLED_NAME = "unlabelled"


#: the share of white mixed into the colour of the class an unlabelled sample is given
CARRIED_TINT = 0.6

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
                    color=None, color_name="colour"):
    """The page of the fitted :class:`graphdr.DEEMap` ``model`` of labels ``y``, as
    :func:`graphdr.map2d` writes it: title, what was fitted, the held-out error
    (:func:`held_out_errors`, from every sample) and the parameters. ``max_points``: draw at
    most that many samples, a uniform sample (fixed seed: the same page for the same map).
    ``propagated``: :func:`propagated_columns`, shown on hover and explained on the page.
    ``color``: one value per sample to colour the points by instead of the labels
    (:func:`color_groups`; the labels are then shown on hover, and the fit used them)."""
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
        id_name=id_name, carried=None if not propagated or color is not None else
        np.asarray(propagated["propagated class"], dtype=object)[rows])


class MapView:
    """A map's page to look at in a notebook: Jupyter shows it inline (an ``iframe`` holding
    the same self-contained page :func:`graphdr.map2d` writes, its scripts sandboxed from the
    notebook); :meth:`save` writes it to a file. Made by :meth:`graphdr.DEEMap.show`."""

    def __init__(self, page, height=640):
        self.page = page
        self.height = int(height)
        self.path = None

    def open(self):
        """Outside a notebook: write the page to a file of the temporary folder (named by its
        content), open it in the web browser where there is a display, and say where it is
        on stderr. Returns the path."""
        import hashlib
        import os
        import sys
        import tempfile
        import webbrowser

        digest = hashlib.sha256(self.page.encode("utf-8")).hexdigest()[:16]
        self.path = self.save(Path(tempfile.gettempdir()) / f"graphdr-map-{digest}.html")
        shown = False
        if sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") \
                or os.environ.get("WAYLAND_DISPLAY"):  # never a terminal browser
            try:
                shown = webbrowser.open(self.path.resolve().as_uri())
            except Exception:  # noqa: BLE001 - no browser is not an error
                shown = False
        print(f"graphdr: the map's page is {self.path}"
              + (" (opened in the web browser)" if shown else "; open it in a web browser"),
              file=sys.stderr)
        return self.path

    def _repr_html_(self):
        return (f'<iframe srcdoc="{html.escape(self.page, quote=True)}" '
                f'style="width: 100%; height: {self.height}px; border: 1px solid #ddd" '
                'sandbox="allow-scripts" title="graphdr map"></iframe>')

    def save(self, path):
        """Write the page to ``path`` (whole or not at all); returns the path."""
        with atomic_open(path, "w", encoding="utf-8") as fh:
            fh.write(self.page)
        return Path(path)


def write_map_page(path, embedding, labels, **page):
    """Write the interactive page of a map (module docstring) to ``path``, whole or not at
    all; ``page``: the keyword arguments of :func:`map_page_html`."""
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(map_page_html(embedding, labels, **page))
    return Path(path)


def map_page_html(embedding, labels, *, classes=None, ids=None, hover=None, title="2-D map",
                  description="", errors=None, label_name="label", csv_name=None, details="",
                  unlabelled=None, id_name="id", counts=None, colors=None, carried=None):
    """The interactive page of a map (module docstring), as one self-contained HTML text.

    Parameters
    ----------
    embedding : array of shape (n, 2)
    labels : array of shape (n,)
        The class of each sample (any type; shown as text).
    classes : sequence or None
        The classes in legend order (default: the sorted unique labels).
    ids : sequence of shape (n,) or None
        Sample ids shown on hover and found by search (default: the row numbers, from 0).
    hover : dict of name -> sequence of shape (n,), or None
        Further columns shown on hover.
    title, description : str
        Heading, and a paragraph under it (data, fit).
    errors : dict or None
        :func:`held_out_errors` of the map, stated on the page.
    label_name : str
        What the labels are called (the label column's name).
    csv_name : str or None
        The map's coordinates beside the page, linked from it: a CSV file, or a folder of
        Parquet partitions (a name ending in ``.parquet``).
    details : str
        A line of small print (parameters).
    unlabelled : array of bool of shape (n,) or None
        Samples without a label (``y = -1``): drawn in grey, one legend entry of their own
        (last), no name on the map.
    id_name : str
        What the ids are called (the id column's name), first row of a point's tooltip.
    counts : sequence of int or None
        The number of samples of each class (then the unlabelled) in the legend, when the
        page draws a sample of the map (default: those drawn).
    colors : sequence of str or None
        One ``#rrggbb`` colour per class (default :data:`COLORS`): the points are coloured by
        a column other than the labels (:func:`color_groups`), whose groups are not named on
        the map.
    carried : sequence of shape (n,) or None
        The class an unlabelled sample is given (propagated, or the map's vote; as text; empty:
        none), drawn in a light tint of its colour (:data:`CARRIED_TINT`), not grey: a map of
        few labels shows the classes its regions carry (hidden with the class's legend entry).
    """
    Y = np.asarray(embedding, dtype=np.float64)
    labels = np.asarray(labels)
    n = len(Y)
    unlabelled = np.zeros(n, bool) if unlabelled is None else np.asarray(unlabelled, bool)
    if classes is None:
        classes = np.unique(labels[~unlabelled])
    classes = list(classes)
    lookup = {c: k for k, c in enumerate(classes)}
    codes = np.array([len(classes) if u else lookup[v]
                      for v, u in zip(labels.tolist(), unlabelled)], dtype=np.uint16) if n \
        else np.zeros(0, np.uint16)
    extra = bool(unlabelled.any())
    named = colors is None  # class names at their regions; a colour column's groups are not
    colors = [COLORS[k % len(COLORS)] for k in range(len(classes))] if colors is None else \
        list(colors)
    if len(colors) != len(classes):
        raise ValueError(f"colors has {len(colors)} values for {len(classes)} classes.")
    if extra:
        classes, colors = classes + [UNLABELLED_NAME], colors + [UNLABELLED_COLOR]
    if counts is None:
        counts = np.bincount(codes, minlength=len(classes)) if n else np.zeros(len(classes), int)
    counts = np.asarray(counts, dtype=np.int64)
    if len(counts) != len(classes):
        raise ValueError(f"counts has {len(counts)} values for {len(classes)} legend entries.")
    tint = None
    if carried is not None and extra and named:
        position = {str(c): k for k, c in enumerate(classes[:-1])}
        tint = np.array([position.get(v, len(classes) - 1) if u else len(classes) - 1
                         for v, u in zip(_text(carried), unlabelled, strict=True)], np.uint16)
    hover = {str(k): _text(v) for k, v in (hover or {}).items()}
    for name, values in hover.items():
        if len(values) != n:
            raise ValueError(f"hover column {name!r} has {len(values)} values for {n} samples.")
    if ids is not None and len(ids) != n:
        raise ValueError(f"ids has {len(ids)} values for {n} samples.")
    ids = None if ids is None else _text(ids)
    # a fixed shuffle: any prefix is a uniform subsample (the page draws one while the view
    # moves, when all points are slow to draw) and no class is drawn wholly over another
    order = np.random.default_rng(0).permutation(n)
    payload = dict(
        x=_b64(Y[order, 0], "<f4"), y=_b64(Y[order, 1], "<f4"), label=_b64(codes[order], "<u2"),
        rows=_b64(order, "<u4"),
        classes=[str(c) for c in classes], colors=colors,
        counts=[int(c) for c in counts],
        centers=(_centers(Y, codes, len(classes) - extra) if named
                 else [None] * (len(classes) - extra)) + [None] * extra,
        label_order=[int(k) for k in np.argsort(-counts[:len(classes) - extra], kind="stable")]
        + [len(classes) - 1] * extra,
        ids=None if ids is None else [ids[i] for i in order], hover_names=list(hover),
        hover={k: [v[i] for i in order] for k, v in hover.items()},
        label_name=str(label_name), id_name=str(id_name),
        tint=None if tint is None else _b64(tint[order], "<u2"), tint_mix=CARRIED_TINT,
    )
    data = json.dumps(payload, ensure_ascii=True, separators=(",", ":")).replace("</", "<\\/")
    script = resources.files("graphdr.maps").joinpath("static/map_page.js").read_text(encoding="utf-8")
    honest = ""
    if errors is not None and errors.get("held_out"):
        honest = (
            f"<p class=\"honest\">A supervised map draws its training samples inside their "
            f"class regions, so the picture always looks separated. The "
            f"{errors['n']} labelled samples the map was not fitted on were placed by "
            f"<code>transform</code>: <b>{100 * errors['map_error']:.1f} %</b> of them fall "
            f"nearest a training sample of another class on the map. Judge classes by this "
            f"number, not by the gaps between the regions.</p>")
    elif errors is not None:
        scored = " labelled" if extra else ""
        honest = (
            f"<p class=\"honest\">A supervised map draws its training samples inside their "
            f"class regions, so the picture always looks separated. New samples land less "
            f"cleanly: placed by <code>transform</code> from their neighbours other than "
            f"themselves (leave-one-out), <b>{100 * errors['map_error']:.1f} %</b> of these "
            f"{errors['n']}{scored} samples fall nearest a sample of another class on the map; 1-NN in "
            f"the features errs on {100 * errors['feature_error']:.1f} % (leave-one-out). "
            f"Judge classes by these numbers, not by the gaps between the regions.</p>")
    kind = "Parquet partitions" if str(csv_name).endswith(".parquet") else "CSV"
    link = (f" The map as {kind} (id, label, x, y): <a href=\"{html.escape(csv_name)}\">"
            f"{html.escape(csv_name)}</a>." if csv_name else "")
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style></head>\n<body>\n"
        f"<header><h1>{html.escape(title)}</h1>\n<p>{html.escape(description)}{link}</p>\n"
        f"{honest}\n<p>Drag to pan, scroll to zoom, hover or click a point for its id; search "
        "a sample id or a class name; click a class in the legend to hide or show it.</p>"
        "</header>\n<main><div id=\"map\"><canvas id=\"points\"></canvas>"
        "<canvas id=\"overlay\"></canvas><div id=\"tip\" hidden></div></div>\n"
        "<aside><input id=\"search\" type=\"search\" placeholder=\"sample id or class\" "
        "aria-label=\"search a sample id or a class\"><div id=\"found\"></div>\n"
        "<div><button id=\"all\">show all</button> <button id=\"none\">hide all</button> "
        "<button id=\"reset\">reset view</button></div>\n<ul id=\"legend\"></ul></aside></main>\n"
        f"<footer>{html.escape(details)}</footer>\n"
        f"<script type=\"application/json\" id=\"graphdr-data\">{data}</script>\n"
        f"<script>\n{script}</script>\n</body></html>\n")
    return page


def map_files(out):
    """The files :func:`map2d` writes for ``out``: a dict ``html``, ``csv``, ``png`` of paths
    (a suffix .html, .png or .csv of ``out`` is dropped)."""
    out = Path(out)
    out = out.with_suffix("") if out.suffix.lower() in (".png", ".html", ".csv") else out
    return {k: out.with_name(out.name + "." + k) for k in ("html", "csv", "png")}


def _short(name, width=32):
    """A class name for a legend: at most ``width`` characters, a cut one ending in '...'."""
    name = str(name)
    return name if len(name) <= width else name[:width - 3] + "..."


def _plain(text):
    """``text`` drawn as written: matplotlib reads ``$...$`` as mathematics and stops at a
    formula it cannot parse, so a dollar sign is escaped."""
    return str(text).replace("$", r"\$")


def plot_map(model, y, ax=None, *, title=None, point_size=None, color=None):
    """Scatter the fitted map ``model.embedding_`` coloured by the labels ``y``, one legend
    entry per class up to 40 (the colours of :data:`graphdr.maps.page.COLORS`: any two of the
    first 40 are told apart), each class's name written at its region. ``color``: one value
    per sample to colour by instead (:func:`color_groups`), its groups in the legend."""
    if color is not None:
        groups, names, colors = color_groups(color)
        return _plot_points(model.embedding_, groups, names, ax, title=title,
                            point_size=point_size, colors=colors, legend_title="colour")
    return _plot_points(model.embedding_, y, model.classes_, ax, title=title,
                        point_size=point_size)


def _plot_points(Y, y, classes, ax=None, *, title=None, point_size=None, colors=None,
                 legend_title=None):
    """:func:`plot_map` of the places ``Y`` of labels ``y`` and the map's ``classes``."""
    import matplotlib.pyplot as plt

    Y = np.asarray(Y)
    y = np.asarray(y)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 7))
    size = point_size or float(np.clip(4000.0 / max(len(Y), 1), 0.5, 12.0))
    unlabelled = unlabelled_mask(y)
    if unlabelled.any():  # beneath the labelled samples, in light grey, smaller
        ax.scatter(Y[unlabelled, 0], Y[unlabelled, 1], s=0.6 * size, color=UNLABELLED_COLOR,
                   label=UNLABELLED_NAME, linewidths=0)
        size = 2.0 * size
    for i, c in enumerate(classes):
        rows = (y == c) & ~unlabelled
        ax.scatter(Y[rows, 0], Y[rows, 1], s=size,
                   color=COLORS[i % len(COLORS)] if colors is None else colors[i],
                   label=_plain(_short(c)),
                   linewidths=0)
    if len(classes) > 10 and colors is None:  # names at the regions where colours get close
        import matplotlib.patheffects as pe

        for c in classes:
            P = Y[y == c]
            if len(P):
                m = np.median(P, axis=0)
                p = P[np.argmin(np.sum((P - m) ** 2, axis=1))]
                ax.text(p[0], p[1], _plain(c), fontsize=7, ha="center", va="center",
                        path_effects=[pe.withStroke(linewidth=2, foreground="white")])
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title:
        ax.set_title(_plain(title))
    if len(classes) <= 40:
        ax.legend(markerscale=max(1.0, 6.0 / size ** 0.5), fontsize=7, frameon=False,
                  loc="center left", bbox_to_anchor=(1.0, 0.5),
                  title=None if legend_title is None else _plain(legend_title),
                  title_fontsize=8)
    return ax


def _save_png(model, y, tmp, title, Y=None, color=None, color_name="colour"):
    """The picture of the map (of the places ``Y`` of labels ``y``: a sample of it);
    ``color``: a column to colour by instead of the labels (:func:`color_groups`)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7))
    Y = model.embedding_ if Y is None else Y
    if color is None:
        _plot_points(Y, y, model.classes_, ax, title=title)
    else:
        groups, names, colors = color_groups(color)
        _plot_points(Y, groups, names, ax, title=title, colors=colors, legend_title=color_name)
    fig.tight_layout()
    fig.savefig(tmp, dpi=110, bbox_inches="tight")  # the legend beside the map, whole
    plt.close(fig)
