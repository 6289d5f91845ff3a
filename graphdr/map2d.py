"""``graphdr.map2d``: the 2-D map of labelled data in one call: an interactive page, a CSV and
a PNG.

The map is :class:`graphdr.DEEMap` with its defaults: on the benchmark of 2-D maps
(``benchmarks/results/maps2d.md``) it has the lowest held-out 1-NN error of graphdr's methods
and fits faster than supervised UMAP. New samples go on the same map with ``transform``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.utils.validation import column_or_1d

from ._outputs import OutputSet, atomic_open
from ._validation import unlabelled_mask
from .map_page import (
    COLORS,
    UNLABELLED_COLOR,
    UNLABELLED_NAME,
    fitted_map_page,
    write_map_csv,
)
from .neighbor import DEEMap

__all__ = ["map2d", "plot_map", "map_files", "write_map"]


def map_files(out):
    """The files :func:`map2d` writes for ``out``: a dict ``html``, ``csv``, ``png`` of paths
    (a suffix .html, .png or .csv of ``out`` is dropped)."""
    out = Path(out)
    out = out.with_suffix("") if out.suffix.lower() in (".png", ".html", ".csv") else out
    return {k: out.with_name(out.name + "." + k) for k in ("html", "csv", "png")}


def map2d(X, y, *, out=None, title=None, ids=None, hover=None, label_name="label",
          png=True, id_name="id", **params):
    """Fit the 2-D map of ``X`` with labels ``y`` and, with ``out``, write it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels of any type; -1 marks an unlabelled sample (scikit-learn's
        convention), which joins the map's neighbour graph and is drawn in grey.
    out : str or Path or None
        Where to write ``out.html`` (the interactive page: pan, zoom, hover, search, legend,
        and the held-out error of the map, :mod:`graphdr.map_page`), ``out.csv`` (id, label,
        x, y) and ``out.png`` (the picture). A suffix of ``out`` is dropped. None: write
        nothing.
    title : str or None
        Title of the page and picture (default ``"DEEMap of n samples, C classes"``).
    ids : array-like of shape (n_samples,) or None
        Sample ids shown on hover and written to the CSV (default: the row numbers, from 0).
    hover : dict of name -> array-like of shape (n_samples,), or None
        Further values shown on hover (e.g. a few columns of the data).
    label_name : str
        What the labels are called on the page.
    id_name : str
        What the ids are called on the page (the id column's name).
    png : bool
        Also draw ``out.png``.
    **params
        Parameters of :class:`graphdr.DEEMap`.

    Returns
    -------
    model : DEEMap
        The fitted map: ``model.embedding_`` is the map of ``X``, ``model.transform(X_new)``
        places new samples on it.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from graphdr import map2d
    >>> X, y = load_digits(return_X_y=True)
    >>> model = map2d(X[:300], y[:300])
    >>> model.embedding_.shape
    (300, 2)
    """
    model = DEEMap(**params).fit(X, y)
    if out is not None:
        write_map(model, y, out, title=title, ids=ids, hover=hover, label_name=label_name,
                  id_name=id_name, png=png)
    return model


def write_map(model, y, out, *, title=None, ids=None, hover=None, label_name="label", png=True,
              id_name="id"):
    """Write the page, CSV and PNG of the fitted map ``model`` of labels ``y`` (see
    :func:`map2d`); returns :func:`map_files` of ``out``.

    The files appear together or not at all (:class:`graphdr._outputs.OutputSet`): each is
    written beside its target and all are renamed into place once every one is complete, so
    an error or Ctrl-C leaves an earlier map at ``out`` as it was."""
    files = map_files(out)
    y = column_or_1d(y)  # a column vector, as fit accepts it
    title = title or f"DEEMap of {len(model.embedding_)} samples, {len(model.classes_)} classes"
    propagated = propagated_columns(model, y)
    if propagated:  # each unlabelled sample's propagated class and confidence, on hover
        hover = {**(hover or {}), **propagated}
    page = fitted_map_page(model, y, title=title, ids=ids, hover=hover, label_name=label_name,
                           csv_name=files["csv"].name, id_name=id_name)
    with OutputSet() as outputs:
        with atomic_open(outputs.path(files["html"]), "w", encoding="utf-8") as fh:
            fh.write(page)
        write_map_csv(outputs.path(files["csv"]), model.embedding_, y, ids, extra=propagated)
        if png:
            _save_png(model, y, outputs.path(files["png"]), title)
        outputs.commit()
    return files


#: the map's propagated-class columns for at most this many rows (the propagation's exact
#: neighbour search grows as the square of the rows; the map's own search turns approximate
#: from this size on, :data:`graphdr.knn.APPROX_MIN_SAMPLES`)
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
    from .poisson import PoissonPropagation

    prop = PoissonPropagation().fit(model._training_features(), y)
    return {"propagated class": [str(c) if u else "" for c, u in
                                 zip(prop.transduction_.tolist(), unlabelled)],
            "confidence": [f"{v:.2f}" if u else "" for v, u in
                           zip(prop.confidence_.tolist(), unlabelled)]}


def _short(name, width=32):
    """A class name for a legend: at most ``width`` characters, a cut one ending in '...'."""
    name = str(name)
    return name if len(name) <= width else name[:width - 3] + "..."


def _plain(text):
    """``text`` drawn as written: matplotlib reads ``$...$`` as mathematics and stops at a
    formula it cannot parse, so a dollar sign is escaped."""
    return str(text).replace("$", r"\$")


def plot_map(model, y, ax=None, *, title=None, point_size=None):
    """Scatter the fitted map ``model.embedding_`` coloured by the labels ``y``, one legend
    entry per class up to 40 (the colours of :data:`graphdr.map_page.COLORS`: any two of the
    first 40 are told apart), each class's name written at its region."""
    import matplotlib.pyplot as plt

    Y = np.asarray(model.embedding_)
    y = np.asarray(y)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 7))
    size = point_size or float(np.clip(4000.0 / max(len(Y), 1), 0.5, 12.0))
    unlabelled = unlabelled_mask(y)
    if unlabelled.any():  # beneath the labelled samples, in light grey, smaller
        ax.scatter(Y[unlabelled, 0], Y[unlabelled, 1], s=0.6 * size, color=UNLABELLED_COLOR,
                   label=UNLABELLED_NAME, linewidths=0)
        size = 2.0 * size
    for i, c in enumerate(model.classes_):
        rows = (y == c) & ~unlabelled
        ax.scatter(Y[rows, 0], Y[rows, 1], s=size, color=COLORS[i % len(COLORS)],
                   label=_plain(_short(c)),
                   linewidths=0)
    if len(model.classes_) > 10:  # names at the regions where colours get close
        import matplotlib.patheffects as pe

        for c in model.classes_:
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
    if len(model.classes_) <= 40:
        ax.legend(markerscale=max(1.0, 6.0 / size ** 0.5), fontsize=7, frameon=False,
                  loc="center left", bbox_to_anchor=(1.0, 0.5))
    return ax


def _save_png(model, y, tmp, title):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7))
    plot_map(model, y, ax, title=title)
    fig.tight_layout()
    fig.savefig(tmp, dpi=110, bbox_inches="tight")  # the legend beside the map, whole
    plt.close(fig)
