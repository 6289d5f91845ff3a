"""The picture of a 2-D map (PNG): :func:`plot_map`."""

from __future__ import annotations

import numpy as np

from ..._validation import unlabelled_mask
from .fitted import color_groups, label_issue_columns
from .page import COLORS, SUSPECT_NAME, UNLABELLED_COLOR, UNLABELLED_NAME

__all__ = ["plot_map"]


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
    entry per class up to 40 (the colours of :data:`graphdr.maps.views.page.COLORS`: any two of the
    first 40 are told apart), each class's name written at its region. ``color``: one value
    per sample to colour by instead (:func:`color_groups`), its groups in the legend. A map
    whose labels were audited (``labels='flag'`` or ``'audit'``) rings the samples whose label
    the data contradicts (:func:`graphdr.maps.views.fitted.label_issue_columns`)."""
    suspect = label_issue_columns(model)[1]
    if color is not None:
        groups, names, colors = color_groups(color)
        return _plot_points(model.embedding_, groups, names, ax, title=title,
                            point_size=point_size, colors=colors, legend_title="colour",
                            suspect=suspect)
    return _plot_points(model.embedding_, y, model.classes_, ax, title=title,
                        point_size=point_size, suspect=suspect)


def _plot_points(Y, y, classes, ax=None, *, title=None, point_size=None, colors=None,
                 legend_title=None, suspect=None):
    """:func:`plot_map` of the places ``Y`` of labels ``y`` and the map's ``classes``;
    ``suspect``: the samples to ring (bool), one legend entry of their own."""
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
    if suspect is not None:  # a black ring around each, over the points
        rows = np.asarray(suspect, dtype=bool)
        ax.scatter(Y[rows, 0], Y[rows, 1], s=3.0 * size, facecolors="none",
                   edgecolors="black", linewidths=0.9,
                   label=f"{SUSPECT_NAME} ({int(rows.sum())})")
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
    ``color``: a column to colour by instead of the labels (:func:`color_groups`). The
    samples of the map whose label the data contradicts are ringed (not for a sample ``Y``)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7))
    suspect = label_issue_columns(model)[1] if Y is None else None
    Y = model.embedding_ if Y is None else Y
    if color is None:
        _plot_points(Y, y, model.classes_, ax, title=title, suspect=suspect)
    else:
        groups, names, colors = color_groups(color)
        _plot_points(Y, groups, names, ax, title=title, colors=colors, legend_title=color_name,
                     suspect=suspect)
    fig.tight_layout()
    fig.savefig(tmp, dpi=110, bbox_inches="tight")  # the legend beside the map, whole
    plt.close(fig)
