"""The data of the map's page (:mod:`graphdr.maps.views.page`), as the page stores them.

Small facts (class names, colours, counts, column names) are JSON in
``<script id="graphdr-data">``. The arrays are one zlib stream, base64 text in
``<script id="graphdr-blob">``, that the page unpacks with the browser's
``DecompressionStream``: the coordinates (float32), class codes, the shuffled order of the
samples and the optional masks, in the page's order; the ids and hover columns as JSON text in
the rows' own order (which compresses them several times); and each sample's nearest
neighbours in the features (:func:`neighbour_sections`). The JSON's ``blob`` entry names each
section's offset, length and type. :func:`read_page_data` reads a page back (tests, checks).

Neighbours are coded on the page's grid of about :data:`CELL_SAMPLES` samples a cell, which
the script builds the same way for its hover search (:func:`page_grid`): a neighbour in a cell
at most 7 cells away in each direction is one byte of cell offset and two of its place among
its cell's samples (in page order; the low and high bytes in planes of their own); any other
(and one the page does not draw) is an exception, its page position in a list of its own.
Distances are one byte each on a log scale between the smallest positive distance and the
largest (0: a duplicate), stored as differences along each sample's nearest-first list. On the
data of ``benchmarks/map_page.py`` at 10^6 samples, 5 neighbours each add about 12 bytes a
sample after compression (16 in base64); the grid of the hover search alone (4 samples a cell)
made 61 % of them exceptions and 23 bytes.
"""

from __future__ import annotations

import base64
import json
import math
import re
import zlib

import numpy as np

__all__ = ["pack", "read_page_data", "page_grid", "neighbour_sections", "NO_ROW"]

#: the page position of a neighbour the page does not draw
NO_ROW = 2**32 - 1
#: the page's grid has about this many samples a cell (its hover search and the neighbours' code)
CELL_SAMPLES = 64
#: zlib's level for the page's arrays (6: its default; 9 gains under 1 % here at twice the time)
LEVEL = 6
_TYPES = {"f4": "<f4", "u1": "<u1", "u2": "<u2", "u4": "<u4"}


def pack(sections):
    """``(index, text)``: the ``sections`` (a dict name -> ``(kind, value)``, ``kind`` one of
    ``f4 u1 u2 u4`` for an array or ``json`` for a list of texts) as one zlib stream in base64
    ``text``, and ``index``, name -> ``[offset, length, kind]`` in the unpacked bytes."""
    parts, index, at = [], {}, 0
    for name, (kind, value) in sections.items():
        if kind == "json":
            raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        else:
            raw = np.ascontiguousarray(value, dtype=_TYPES[kind]).tobytes()
        index[name] = [at, len(raw), kind]
        parts.append(raw)
        at += len(raw)
    text = base64.b64encode(zlib.compress(b"".join(parts), LEVEL)).decode("ascii")
    return index, text


def read_page_data(page):
    """The data of a page's HTML text: the JSON facts with each packed section unpacked
    (arrays as numpy arrays in page order, texts as lists in the rows' order, ``hover`` a dict
    of column name -> list; ``x y label rows tint suspect ids`` None when not there)."""
    data = json.loads(re.search(r'<script type="application/json" id="graphdr-data">(.*?)'
                                r"</script>", page, re.S).group(1))
    blob = re.search(r'<script type="text/plain" id="graphdr-blob">(.*?)</script>', page,
                     re.S).group(1)
    raw = zlib.decompress(base64.b64decode(blob))
    for name in ("x", "y", "label", "rows", "tint", "suspect", "ids", "hover"):
        data.setdefault(name, None)
    for name, (offset, length, kind) in data.pop("blob").items():
        piece = raw[offset:offset + length]
        data[name] = json.loads(piece.decode("utf-8")) if kind == "json" else \
            np.frombuffer(piece, dtype=_TYPES[kind]).copy()
    data["hover"] = dict(zip(data["hover_names"], data["hover"] or []))
    return data


def page_grid(x, y):
    """``(G, cx, cy)``: the page's hover grid of the float32 coordinates ``x``, ``y`` (page
    order), as its script computes it: ``G`` cells a side, each sample's cell column and row
    (same arithmetic in float64, so the same cells)."""
    x, y = np.asarray(x, np.float32).astype(np.float64), np.asarray(y, np.float32).astype(np.float64)
    n = len(x)
    G = max(1, min(1024, math.ceil(math.sqrt(n / CELL_SAMPLES))))
    cells = []
    for v in (x, y):
        lo, hi = (float(v.min()), float(v.max())) if n else (0.0, 0.0)
        if not hi > lo:
            lo, hi = lo - 1, hi + 1
        width = (hi - lo) / G * 1.000001
        cells.append(np.floor((v - lo) / width).astype(np.int64))
    return G, cells[0], cells[1]


def neighbour_sections(index, distance, x, y):
    """``(info, sections)`` of the neighbours of the samples in page order: ``index`` an int
    array (n, k) of page positions (-1: not drawn), ``distance`` (n, k) nearest first,
    ``x``, ``y`` the page's float32 coordinates (module docstring)."""
    index = np.asarray(index, dtype=np.int64)
    distance = np.asarray(distance, dtype=np.float64)
    n, k = index.shape
    G, cx, cy = page_grid(x, y)
    cell = cy * G + cx
    order = np.argsort(cell, kind="stable")  # (the script's counting sort: page order in a cell)
    start = np.zeros(G * G + 1, dtype=np.int64)
    np.add.at(start, cell + 1, 1)
    start = np.cumsum(start)
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n) - start[cell[order]]
    drawn = index >= 0
    j = np.where(drawn, index, 0)
    dx, dy, at = cx[j] - cx[:, None], cy[j] - cy[:, None], place[j]
    near = drawn & (np.abs(dx) <= 7) & (np.abs(dy) <= 7) & (at < 65536)
    offset = np.where(near, (dx + 8) | ((dy + 8) << 4), 0).astype(np.uint8)
    slot = np.where(near, at, 0)
    others = np.where(drawn, index, NO_ROW)[~near]  # (row-major: sample by sample, nearest first)
    positive = distance[distance > 0]
    low = float(positive.min()) if positive.size else 1.0
    high = float(distance.max()) if distance.size else 1.0
    span = math.log(high / low) if high > low else 1.0
    q = np.where(distance > 0, 1 + np.rint(254 * np.log(np.maximum(distance, low) / low) / span),
                 0).astype(np.int64)
    q = np.minimum(q, 255)
    steps = np.diff(np.concatenate([np.zeros((n, 1), np.int64), q], axis=1), axis=1) % 256
    info = dict(k=int(k), low=low, span=span)
    sections = {"nb_offset": ("u1", offset.T), "nb_slot": ("u1", (slot & 255).T),
                "nb_slot_high": ("u1", (slot >> 8).T),
                "nb_distance": ("u1", steps.T), "nb_other": ("u4", others)}
    return info, sections


def neighbour_distances(q, info):
    """The distances the page shows for codes ``q`` (cumulated steps): 0 for code 0, else
    ``low * exp((q - 1) / 254 * span)``."""
    q = np.asarray(q, dtype=np.float64)
    return np.where(q > 0, info["low"] * np.exp((q - 1) / 254 * info["span"]), 0.0)
