"""``graphdr.map2d``: the 2-D map of labelled data in one call, drawn as PNG and HTML.

The map is :class:`graphdr.DEEMap` with its defaults: on the benchmark of 2-D maps
(``benchmarks/results/maps2d.md``) it has the lowest held-out 1-NN error of graphdr's methods
and fits faster than supervised UMAP. New samples go on the same map with ``transform``.
"""

from __future__ import annotations

import base64
import html
import time
from pathlib import Path

import numpy as np

from .neighbor import DEEMap

__all__ = ["map2d", "plot_map", "write_map_html"]


def map2d(X, y, *, out=None, title=None, **params):
    """Fit the 2-D map of ``X`` with labels ``y`` and, with ``out``, draw it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels of any type.
    out : str or Path or None
        Where to write ``out.png`` (the map coloured by class) and ``out.html`` (the picture
        with its caption: data size, classes, fit time, parameters). The suffix of ``out`` is
        dropped. None: draw nothing.
    title : str or None
        Title of the picture (default ``"DEEMap of n samples, C classes"``).
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
    start = time.perf_counter()
    model = DEEMap(**params).fit(X, y)
    seconds = time.perf_counter() - start
    if out is not None:
        out = Path(out)
        out = out.with_suffix("") if out.suffix in (".png", ".html") else out
        n, C = len(model.embedding_), len(model.classes_)
        title = title or f"DEEMap of {n} samples, {C} classes"
        png = out.with_name(out.name + ".png")
        _save_png(model, y, png, title)
        caption = (f"{n} samples, {X.shape[1] if hasattr(X, 'shape') else '?'} features, "
                   f"{C} classes; fitted in {seconds:.1f} s ({model.n_iter_} iterations); "
                   f"parameters {model.get_params()}.")
        write_map_html(png, out.with_name(out.name + ".html"), title, caption)
    return model


def plot_map(model, y, ax=None, *, title=None, point_size=None):
    """Scatter the fitted map ``model.embedding_`` coloured by the labels ``y``, one legend
    entry per class (at most 20 colours are told apart; more classes cycle them)."""
    import matplotlib.pyplot as plt

    Y = np.asarray(model.embedding_)
    y = np.asarray(y)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 7))
    size = point_size or float(np.clip(4000.0 / max(len(Y), 1), 0.5, 12.0))
    cmap = plt.get_cmap("tab20" if len(model.classes_) > 10 else "tab10")
    for i, c in enumerate(model.classes_):
        rows = y == c
        ax.scatter(Y[rows, 0], Y[rows, 1], s=size, color=cmap(i % cmap.N), label=str(c),
                   linewidths=0)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title:
        ax.set_title(title)
    if len(model.classes_) <= 30:
        ax.legend(markerscale=max(1.0, 6.0 / size ** 0.5), fontsize=7, frameon=False,
                  loc="center left", bbox_to_anchor=(1.0, 0.5))
    return ax


def _save_png(model, y, path, title):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7))
    plot_map(model, y, ax, title=title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_map_html(png, path, title, caption):
    """A self-contained HTML page: the PNG inlined (base64) with a title and a caption."""
    data = base64.b64encode(Path(png).read_bytes()).decode("ascii")
    Path(path).write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title></head>\n<body style=\"font-family: sans-serif; "
        "max-width: 60em; margin: 2em auto\">\n"
        f"<h1>{html.escape(title)}</h1>\n"
        f"<img src=\"data:image/png;base64,{data}\" alt=\"{html.escape(title)}\" "
        "style=\"max-width: 100%\">\n"
        f"<p>{html.escape(caption)}</p>\n</body></html>\n", encoding="utf-8")
    return path
