"""The interactive page of a 2-D map: one self-contained HTML file; the map as CSV. (What a fitted
map adds to them: :mod:`graphdr.maps.views.fitted`; its picture: :mod:`graphdr.maps.views.picture`.)

The page draws every sample with WebGL (a 2-D canvas where WebGL is missing), pans (drag) and
zooms (wheel), shows a sample's id, label and chosen columns on hover, finds a sample by id or
a class by name, and toggles classes in its legend. Class names are written at their regions.
It needs no network: its script (``graphdr/maps/static/map_page.js``, written for graphdr) and the
data are inlined. The same map gives the same bytes.

It also states how well new samples land, which the picture of a supervised map hides
(:func:`graphdr.maps.views.fitted.held_out_errors`): each training sample is placed by ``transform``
from its neighbours other than itself, and counted wrong when the nearest other sample on the
map is of another class; beside it, the same leave-one-out 1-NN error in the features the map
was fitted on. Samples whose label the data contradicts can be ringed, with a legend entry
of their own that shows or hides the rings (``suspect``).
"""

from __future__ import annotations

import csv
import html
import json
from importlib import resources
from pathlib import Path

import numpy as np

from ..._outputs import atomic_open, spreadsheet_safe
from .density import LEVELS, density_contours
from .page_data import neighbour_sections, pack

__all__ = ["COLORS", "write_map_page", "write_map_csv", "map_page_html", "map_files"]

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
header h1 { display: inline; margin-right: 0.6em; }
.facts { display: inline; font-size: 0.95em; color: #333; }
header details { display: inline-block; margin-left: 0.8em; font-size: 0.9em; }
header details[open] { display: block; margin: 0.3em 0 0; }
header summary { cursor: pointer; color: #0a58ca; }
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
#legend li.suspect { margin-top: 0.5em; border-top: 1px solid #ddd; padding-top: 0.3em; }
.sw.ring { background: transparent; border: 2px solid #000; box-sizing: border-box; }
.sw { display: inline-block; flex: none; width: 0.9em; height: 0.9em; margin-right: 0.4em;
      border-radius: 50%; vertical-align: -0.1em; }
footer { padding: 0 1.2em 1em; font-size: 0.8em; color: #555; }
#tools { margin: 0.3em 0; }
#tools button[aria-pressed="true"] { background: #0a58ca; color: #fff; border-color: #0a58ca; }
body.working #map, body.working aside { height: 50vh; }
#panel { margin: 0 1.2em 0.8em; font-size: 0.88em; border-top: 1px solid #ccc; }
#panel .bar { display: flex; flex-wrap: wrap; gap: 0.4em 0.8em; align-items: center;
              margin: 0.4em 0; }
#panel table { border-collapse: collapse; }
#panel th, #panel td { padding: 1px 8px; text-align: left; border-bottom: 1px solid #eee;
                       max-width: 22em; overflow: hidden; text-overflow: ellipsis;
                       white-space: nowrap; }
#panel th { cursor: pointer; background: #f4f4f4; position: sticky; top: 0; }
#panel tbody tr, #neighbours tr { cursor: pointer; }
#panel tbody tr:hover, #neighbours tr:hover { background: #eef4ff; }
#panel tr.suspect td:first-child { font-weight: bold; }
#neighbours tr.other td { color: #b00; }
#listing { max-height: 34vh; overflow: auto; }
#panel .split { display: flex; gap: 1.5em; align-items: flex-start; }
#panel .split > div:first-child { flex: 1; min-width: 0; }
#neighbours { max-width: 28em; }
#neighbours p { margin: 0.3em 0; }
#filters { max-height: 45%; overflow-y: auto; margin: 0.2em 0; }
#filters summary { cursor: pointer; }
.filter { margin: 0.35em 0; }
.filter .fname { font-weight: bold; overflow: hidden; text-overflow: ellipsis;
                 white-space: nowrap; }
.filter select { width: 100%; }
.filter .range { color: #555; font-size: 0.9em; }
"""


#: colour and legend name of the unlabelled samples (``y = -1``) on the page and the picture
UNLABELLED_COLOR = "#cccccc"
UNLABELLED_NAME = "unlabelled"


#: the legend's (and the picture's) name of the samples whose label the data contradicts
SUSPECT_NAME = "suspect labels"


#: the share of white mixed into the colour of the class an unlabelled sample is given
CARRIED_TINT = 0.6

def write_map_page(path, embedding, labels, **page):
    """Write the interactive page of a map (module docstring) to ``path``, whole or not at
    all; ``page``: the keyword arguments of :func:`map_page_html`."""
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(map_page_html(embedding, labels, **page))
    return Path(path)


def map_page_html(embedding, labels, *, classes=None, ids=None, hover=None, title="2-D map",
                  description="", errors=None, label_name="label", csv_name=None, details="",
                  unlabelled=None, id_name="id", counts=None, colors=None, carried=None,
                  suspect=None, suspect_total=None, neighbours=None, suggestion=None,
                  suspect_places=None):
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
    suspect : array of bool of shape (n,) or None
        Samples whose label the data contradicts (:class:`graphdr.LabelIssues`): ringed in
        black, with a legend entry "suspect labels (N)" that shows or hides the rings (shown
        at first), a tooltip row saying so, and found by searching ``suspect``. None: no
        audit, no entry; all False: the entry says (0).
    suspect_total : int or None
        N of the legend when the page draws a sample of the map (default: those drawn).
    neighbours : tuple or None
        ``(index, distance, space)``: each sample's nearest others in the features, ``index``
        an int array of shape (n, k) of rows of ``embedding`` (-1: a sample the page does not
        draw), ``distance`` their distances (n, k), ``space`` what the features are (text);
        listed and drawn when a point is clicked (:func:`graphdr.maps.views.fitted.feature_neighbours`).
    suspect_places : array of shape (n, 2) or None
        Where the features put each suspect sample: its place as a new sample, from its
        neighbours other than itself, its label ignored (:meth:`graphdr.DEEMap.
        transform_left_out`); a legend entry moves the suspects there, a line from each to its
        fitted place (rows that are not suspect are not read).
    suggestion : str or None
        The ``hover`` column that holds a suggested class per sample: the panel's "accept the
        suggested class" sets it as the sample's new label.
    """
    Y = np.asarray(embedding, dtype=np.float64)
    n = len(Y)
    unlabelled = np.zeros(n, bool) if unlabelled is None else np.asarray(unlabelled, bool)
    classes, codes = _class_codes(np.asarray(labels), unlabelled, classes, n)
    extra = bool(unlabelled.any())
    named = colors is None  # class names at their regions; a colour column's groups are not
    classes, colors, counts = _legend_entries(classes, colors, counts, codes, extra, n)
    tint = _carried_tint(carried, unlabelled, classes) if carried is not None and extra \
        and named else None
    hover, ids, suspect = _checked_columns(hover, ids, suggestion, suspect, n)
    order = _page_order(n)
    Y32 = Y[order].astype(np.float32)
    sections = _sample_sections(Y32, codes, order, tint, suspect, suspect_places, ids, hover)
    sections.update(_contour_sections(Y, codes, len(classes) - extra))
    near, more = _neighbours_in_page_order(neighbours, order, n, Y32)
    sections.update(more)
    blob_index, blob = pack(sections)
    suspects = None if suspect is None else int(
        suspect.sum() if suspect_total is None else suspect_total)
    payload = dict(
        blob=blob_index, **_legend_data(classes, colors, counts, Y, codes, extra, named),
        hover_names=list(hover), label_name=str(label_name), id_name=str(id_name),
        tint_mix=CARRIED_TINT, suspect_total=suspects, suspect_name=SUSPECT_NAME,
        unlabelled=extra, unlabelled_name=UNLABELLED_NAME, fixable=named,
        suggestion=None if suggestion is None else str(suggestion), neighbours=near,
        contour_levels=list(LEVELS),
    )
    data = json.dumps(payload, ensure_ascii=True, separators=(",", ":")).replace("</", "<\\/")
    about = _about(description, csv_name, _honest(errors, extra), neighbours is not None,
                   suspect is not None, named)
    return _document(title, _facts(counts, len(classes) - extra, extra, errors, suspects), about,
                     details, data, blob)


def _page_order(n):
    """The order of the samples on the page: a fixed shuffle, so that any prefix is a uniform
    subsample (the page draws one while the view moves, when all points are slow to draw) and
    no class is drawn wholly over another."""
    return np.random.default_rng(0).permutation(n)


def _class_codes(labels, unlabelled, classes, n):
    """The legend's classes (default: the labelled rows' sorted unique labels) and each row's
    code (``uint16``): its class's position, ``len(classes)`` for an unlabelled row."""
    if classes is None:
        classes = np.unique(labels[~unlabelled])
    classes = list(classes)
    lookup = {c: k for k, c in enumerate(classes)}
    codes = np.array([len(classes) if u else lookup[v]
                      for v, u in zip(labels.tolist(), unlabelled)], dtype=np.uint16) if n \
        else np.zeros(0, np.uint16)
    return classes, codes


def _legend_entries(classes, colors, counts, codes, extra, n):
    """The legend's names, colours and counts, checked: the classes', then (``extra``) the
    unlabelled samples' entry."""
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
    return classes, colors, counts


def _carried_tint(carried, unlabelled, classes):
    """Each sample's tint (``uint16``): the class carried to an unlabelled sample, else the
    last legend entry (the unlabelled, or no class carried)."""
    position = {str(c): k for k, c in enumerate(classes[:-1])}
    return np.array([position.get(v, len(classes) - 1) if u else len(classes) - 1
                     for v, u in zip(_text(carried), unlabelled, strict=True)], np.uint16)


def _checked_columns(hover, ids, suggestion, suspect, n):
    """The hover columns (as text), ids (as text, or None) and suspect flags (or None), each
    checked to hold one value per sample; ``suggestion`` checked to name a hover column."""
    hover = {str(k): _text(v) for k, v in (hover or {}).items()}
    for name, values in hover.items():
        if len(values) != n:
            raise ValueError(f"hover column {name!r} has {len(values)} values for {n} samples.")
    if ids is not None and len(ids) != n:
        raise ValueError(f"ids has {len(ids)} values for {n} samples.")
    ids = None if ids is None else _text(ids)
    if suggestion is not None and suggestion not in hover:
        raise ValueError(f"suggestion {suggestion!r} is not a hover column ({list(hover)}).")
    if suspect is not None:
        suspect = np.asarray(suspect, dtype=bool)
        if suspect.shape != (n,):
            raise ValueError(f"suspect has {len(suspect)} values for {n} samples.")
    return hover, ids, suspect


def _sample_sections(Y32, codes, order, tint, suspect, suspect_places, ids, hover):
    """The data sections of each sample, in the page's ``order``: place (``Y32``, in that
    order), class, row, then what the page knows of it (tint, suspect flags and the suspects'
    places, ids, hover columns)."""
    n = len(order)
    sections = {"x": ("f4", Y32[:, 0]), "y": ("f4", Y32[:, 1]), "label": ("u2", codes[order]),
                "rows": ("u4", order)}
    if tint is not None:
        sections["tint"] = ("u2", tint[order])
    if suspect is not None:
        sections["suspect"] = ("u1", suspect[order])
    if suspect is not None and suspect_places is not None:  # (the suspects' in page order)
        P = np.asarray(suspect_places, dtype=np.float64)
        if P.shape != (n, 2):
            raise ValueError(f"suspect_places has shape {P.shape}; expected ({n}, 2).")
        moved = P[order][suspect[order]].astype(np.float32)
        if not np.all(np.isfinite(moved)):
            raise ValueError("suspect_places has a NaN or infinite place of a suspect.")
        sections["moved_x"], sections["moved_y"] = ("f4", moved[:, 0]), ("f4", moved[:, 1])
    if ids is not None:  # (texts in the rows' own order: they compress)
        sections["ids"] = ("json", ids)
    if hover:
        sections["hover"] = ("json", list(hover.values()))
    return sections


def _contour_sections(Y, codes, n_classes):
    """The data sections of the classes' density contours (none when there are no lines)."""
    lines = density_contours(Y, codes, n_classes)
    if not lines:
        return {}
    # (each line: class, level, first point, points; the points as x, y pairs)
    starts = np.cumsum([0] + [len(p) for _, _, p in lines[:-1]])
    return {"contour_lines": ("u4", np.array(
                [[c, k, s, len(p)] for (c, k, p), s in zip(lines, starts)]).ravel()),
            "contour_xy": ("f4", np.concatenate([p for _, _, p in lines]).ravel())}


def _legend_data(classes, colors, counts, Y, codes, extra, named):
    """The page data of the legend: names, colours, counts, where each class's name is written
    (named classes only) and the legend's order (largest class first, the unlabelled last)."""
    n_classes = len(classes) - extra
    return dict(
        classes=[str(c) for c in classes], colors=colors, counts=[int(c) for c in counts],
        centers=(_centers(Y, codes, n_classes) if named else [None] * n_classes)
        + [None] * extra,
        label_order=[int(k) for k in np.argsort(-counts[:n_classes], kind="stable")]
        + [len(classes) - 1] * extra,
    )


def _honest(errors, extra):
    """The paragraph that states how well new samples land (empty without ``errors``)."""
    if errors is not None and errors.get("held_out"):
        return (
            f"<p class=\"honest\">A supervised map draws its training samples inside their "
            f"class regions, so the picture always looks separated. The "
            f"{errors['n']} labelled samples the map was not fitted on were placed by "
            f"<code>transform</code>: <b>{100 * errors['map_error']:.1f} %</b> of them fall "
            f"nearest a training sample of another class on the map. Judge classes by this "
            f"number, not by the gaps between the regions.</p>")
    if errors is not None:
        scored = " labelled" if extra else ""
        return (
            f"<p class=\"honest\">A supervised map draws its training samples inside their "
            f"class regions, so the picture always looks separated. New samples land less "
            f"cleanly: placed by <code>transform</code> from their neighbours other than "
            f"themselves (leave-one-out), <b>{100 * errors['map_error']:.1f} %</b> of these "
            f"{errors['n']}{scored} samples fall nearest a sample of another class on the map; 1-NN in "
            f"the features errs on {100 * errors['feature_error']:.1f} % (leave-one-out). "
            f"Judge classes by these numbers, not by the gaps between the regions.</p>")
    return ""


def _about(description, csv_name, honest, clicks, suspects, named):
    """The header's "About this map" (HTML): the description, the link to the map's file,
    the ``honest`` paragraph and how to use the page (``clicks``: a click lists a sample's
    neighbours; ``suspects``: a search finds them; ``named``: labels can be fixed)."""
    rings = " (or 'suspect': the ringed samples)" if suspects else ""
    kind = "Parquet partitions" if str(csv_name).endswith(".parquet") else "CSV"
    link = (f" The map as {kind} (id, label, x, y): <a href=\"{html.escape(csv_name)}\">"
            f"{html.escape(csv_name)}</a>." if csv_name else "")
    return (
        "<details id=\"about\"><summary>About this map</summary>\n"
        f"<p>{html.escape(description)}{link}</p>\n"
        f"{honest}\n<p>Drag to pan, scroll to zoom, hover or click a point for its id"
        f"{' and its nearest samples in the features' if clicks else ''}"
        f"; search a sample id or a class name{rings}; click a class in the legend to hide or "
        "show it. Select samples with the lasso (key L) or the box (B), shift to add, alt to "
        "remove, Escape to clear; the selected rows are listed below the map, sortable, and "
        "download as CSV" + ("; give them a class or accept their suggested class, and "
                              "download the label fixes (id, old label, new label) for "
                              "<code>graphdr map --label-fixes</code>" if named else "")
        + ".</p></details>")


def _document(title, facts, about, details, data, blob):
    """The whole page: head and style, header (title, ``facts``, ``about``), map, legend,
    tools and panel, footer (``details``), the data and the page's script."""
    script = {name: resources.files("graphdr.maps").joinpath(f"static/{name}.js").read_text(
        encoding="utf-8") for name in ("map_data", "map_page", "map_workbench", "map_filter")}
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style></head>\n<body>\n"
        f"<header><h1>{html.escape(title)}</h1><p class=\"facts\" id=\"facts\">{facts}</p>"
        f"{about}"
        "</header>\n<main><div id=\"map\"><canvas id=\"points\"></canvas>"
        "<canvas id=\"rings\"></canvas><canvas id=\"overlay\"></canvas><div id=\"tip\" hidden></div></div>\n"
        "<aside><input id=\"search\" type=\"search\" placeholder=\"sample id or class\" "
        "aria-label=\"search a sample id or a class\"><div id=\"found\"></div>\n"
        "<div><button id=\"all\">show all</button> <button id=\"none\">hide all</button> "
        "<button id=\"reset\">reset view</button></div>\n" + _TOOLS +
        "<ul id=\"legend\"></ul></aside></main>\n" + _PANEL +
        f"<footer>{html.escape(details)}</footer>\n"
        f"<script type=\"application/json\" id=\"graphdr-data\">{data}</script>\n"
        f"<script type=\"text/plain\" id=\"graphdr-blob\">{blob}</script>\n"
        f"<script>\n(function () {{\n  'use strict';\n{script['map_data']}  unpack(function (data) {{\n"
        f"{script['map_page']}{script['map_workbench']}{script['map_filter']}"
        "  firstFrame();\n  window.graphdrMap.ready = true;\n  });\n})();\n</script>\n</body></html>\n")


_TOOLS = (
    "<div id=\"tools\" role=\"toolbar\" aria-label=\"what a drag on the map does\">"
    "<button id=\"tool-pan\" title=\"drag to pan (key P)\">pan</button> "
    "<button id=\"tool-lasso\" title=\"draw round samples to select them (key L); shift adds, "
    "alt removes, Escape clears\">lasso</button> "
    "<button id=\"tool-box\" title=\"drag a box to select samples (key B); shift adds, alt "
    "removes, Escape clears\">box</button> <button id=\"contours\" aria-pressed=\"false\" "
    "title=\"each class's densest regions: the solid line holds half of its samples, the dashed "
    "line 90 % (key D)\">density</button></div>\n"
    "<details id=\"filters\"><summary>filters <span id=\"filter-count\"></span></summary>"
    "<div id=\"filter-list\"></div><button id=\"filter-clear\">clear filters</button>"
    "</details>\n")
_PANEL = (
    "<section id=\"panel\" hidden><div class=\"bar\"><b id=\"sel-summary\"></b>"
    "<span id=\"selection-tools\"><button id=\"sel-csv\">download selection (CSV)</button> "
    "<button id=\"sel-clear\">clear (Esc)</button></span>"
    "<span id=\"fix-tools\"><label>class <select id=\"fix-class\"></select></label> "
    "<button id=\"fix-set\">set for the selected</button> "
    "<button id=\"fix-accept\">accept their suggested class</button> "
    "<button id=\"fixes-csv\" disabled>download label fixes (0)</button></span></div>\n"
    "<div class=\"split\"><div><div id=\"listing\"><table><thead id=\"rows-head\"></thead>"
    "<tbody id=\"rows-body\"></tbody></table></div>\n<div class=\"bar\">"
    "<button id=\"page-prev\">previous</button><span id=\"page-info\"></span>"
    "<button id=\"page-next\">next</button></div></div>\n<div id=\"neighbours\"></div></div>"
    "</section>\n")


def _neighbours_in_page_order(neighbours, order, n, Y32):
    """``(info, sections)`` of the page's neighbours (:func:`graphdr.maps.views.page_data.
    neighbour_sections`) from ``(index, distance, space)`` in the rows' order; ``(None, {})``
    without ``neighbours``."""
    if neighbours is None:
        return None, {}
    index, distance, space = neighbours
    index = np.asarray(index, dtype=np.int64)
    distance = np.asarray(distance, dtype=np.float64)
    if index.ndim != 2 or index.shape[0] != n or distance.shape != index.shape:
        raise ValueError(f"neighbours must be two arrays of shape ({n}, k); got "
                         f"{index.shape} and {distance.shape}.")
    if not np.all(np.isfinite(distance)) or np.any(distance < 0):
        raise ValueError("neighbours' distances must be finite and non-negative.")
    if np.any(index >= n) or np.any(index < -1):
        raise ValueError(f"neighbours' index must be rows 0 to {n - 1}, or -1 (not drawn).")
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    at = np.where(index >= 0, position[np.clip(index, 0, max(n - 1, 0))], -1)
    info, sections = neighbour_sections(at[order], distance[order], Y32[:, 0], Y32[:, 1])
    return {**info, "space": str(space)}, sections


def _facts(counts, n_classes, unlabelled, errors, suspects):
    """The header's one line: rows, classes, the held-out error, suspects, unlabelled rows
    (each where the page knows it), as HTML."""
    parts = [f"{int(np.sum(counts)):,} rows", f"{n_classes} classes"]
    if errors is not None:
        kind = "held-out" if errors.get("held_out") else "leave-one-out"
        parts.append(f"<b>{kind} error {100 * errors['map_error']:.1f} %</b> (judge the "
                     "classes by it, not by the gaps)")
    if suspects is not None:
        parts.append(f"{suspects:,} suspect labels")
    if unlabelled:
        parts.append(f"{int(counts[-1]):,} unlabelled")
    return " · ".join(parts)


def map_files(out):
    """The files :func:`map2d` writes for ``out``: a dict ``html``, ``csv``, ``png`` of paths
    (a suffix .html, .png or .csv of ``out`` is dropped)."""
    out = Path(out)
    out = out.with_suffix("") if out.suffix.lower() in (".png", ".html", ".csv") else out
    return {k: out.with_name(out.name + "." + k) for k in ("html", "csv", "png")}
