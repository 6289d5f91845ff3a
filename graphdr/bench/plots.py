"""PNG figures of ``graphdr bench`` (matplotlib, Agg backend, no display needed)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .._outputs import atomic_path  # noqa: E402
from .methods import method_label  # noqa: E402

__all__ = ["plot_error_vs_dim", "plot_scatter_grid", "plot_scatter", "plot_curves",
           "plot_kernel_weights"]

plt.rcParams.update({
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8,
    "axes.spines.top": False, "axes.spines.right": False, "savefig.dpi": 130,
    "figure.dpi": 100,
})

_MARKERS = "osD^v<>phX*P"


def _class_colors(n_classes):
    cmap = plt.get_cmap("tab10" if n_classes <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n_classes)]


def _save(fig, path):
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, bbox_inches="tight", metadata={"Software": None})
    finally:
        plt.close(fig)


def plot_error_vs_dim(curves, path, *, title, classifier, recognition=False):
    """Mean error (or recognition rate) versus dimension, one line per method.

    ``curves`` maps method id -> (dims, mean errors, standard deviations over folds).
    """
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    single = all(len(d) == 1 for d, _, _ in curves.values())
    if single:  # two-class data: one dimension only -> a bar chart
        names = list(curves)
        vals = [100 * ((1 - curves[m][1][0]) if recognition else curves[m][1][0]) for m in names]
        errs = [100 * curves[m][2][0] for m in names]
        ax.barh(range(len(names)), vals, xerr=errs, color="#4C72B0", alpha=0.85,
                error_kw=dict(lw=0.8, capsize=2))
        ax.set_yticks(range(len(names)), [method_label(m) for m in names])
        ax.invert_yaxis()
        ax.set_xlabel(("recognition rate" if recognition else "error") + " (%) at dimension 1")
    else:
        cmap = plt.get_cmap("tab10" if len(curves) <= 10 else "tab20")
        for i, (m, (dims, mean, _std)) in enumerate(curves.items()):
            vals = 100 * ((1 - np.asarray(mean)) if recognition else np.asarray(mean))
            ax.plot(dims, vals, marker=_MARKERS[i % len(_MARKERS)], ms=4, lw=1.3,
                    color=cmap(i % cmap.N), label=method_label(m))
        ax.set_xlabel("dimension")
        ax.set_ylabel(("recognition rate" if recognition else "error") + " (%)")
        all_dims = sorted({d for dims, _, _ in curves.values() for d in dims})
        if len(all_dims) <= 12:
            ax.set_xticks(all_dims)
        ax.grid(alpha=0.3)
        ax.legend(frameon=False, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title(f"{title} - {classifier}")
    _save(fig, path)


def _draw_embedding(ax, Z, y, classes, rng_seed=0):
    colors = _class_colors(len(classes))
    Z = np.asarray(Z, dtype=float)
    if Z.shape[1] == 1:  # 1-D embedding: classes on separate jittered rows
        rng = np.random.default_rng(rng_seed)
        yy = y + rng.uniform(-0.25, 0.25, size=len(y))
        pts = np.column_stack([Z[:, 0], yy])
    else:
        pts = Z[:, :2]
    for c in range(len(classes)):
        sel = y == c
        ax.scatter(pts[sel, 0], pts[sel, 1], s=9, color=colors[c], alpha=0.8, lw=0,
                   label=str(classes[c]))
    ax.set_xticks([])
    ax.set_yticks([])
    if Z.shape[1] == 1:
        ax.set_ylabel("class (jittered)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(True)


def plot_scatter(emb, classes, path, *, title):
    """2-D embedding of one method, coloured by class."""
    fig, ax = plt.subplots(figsize=(3.6, 3.4))
    _draw_embedding(ax, emb["embedding"], emb["y"], classes)
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=7, markerscale=1.5, loc="center left",
              bbox_to_anchor=(1.0, 0.5))
    _save(fig, path)


def plot_scatter_grid(embeddings, classes, path, *, title, ncols=4):
    """One panel per method: the 2-D embedding of the whole data set, coloured by class."""
    n = len(embeddings)
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols, 2.5 * nrows + 0.5), squeeze=False)
    for ax, emb in zip(axes.flat, embeddings):
        _draw_embedding(ax, emb["embedding"], emb["y"], classes)
        suffix = " (1-D)" if np.asarray(emb["embedding"]).shape[1] == 1 else ""
        ax.set_title(method_label(emb["method"]) + suffix)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 11), frameon=False,
               markerscale=1.8, bbox_to_anchor=(0.5, -0.01))
    fig.suptitle(title, y=1.0)
    fig.tight_layout(rect=(0, 0.05, 1, 0.98))
    _save(fig, path)


def plot_curves(histories, path, *, title):
    """Objective versus iteration (and versus seconds, when recorded) of each optimizer.

    ``histories`` maps method id -> ``{'objective': [...], 'time': [...] or None}``. Variants of
    one method (``dee:optimizer=gd``, ``dee:optimizer=ld``, ...) share a panel, as in paper 003's
    Fig. 6.
    """
    from matplotlib.ticker import MaxNLocator

    groups = {}
    for method, h in histories.items():
        groups.setdefault(method.split(":")[0], []).append((method, h))
    with_time = all(h.get("time") for h in histories.values())
    nrows = 2 if with_time else 1
    ncols = len(groups)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.7 * nrows), squeeze=False)
    for j, (_base, members) in enumerate(groups.items()):
        for i, (method, h) in enumerate(members):
            obj = np.asarray(h["objective"], dtype=float)
            label = method_label(method) if len(members) > 1 else None
            style = dict(lw=1.3, marker=_MARKERS[i % len(_MARKERS)], ms=3, markevery=max(
                1, len(obj) // 10), label=label)
            axes[0, j].plot(np.arange(1, len(obj) + 1), obj, **style)
            if with_time:
                axes[1, j].plot(np.asarray(h["time"], dtype=float)[: len(obj)], obj, **style)
        axes[0, j].set_title(method_label(members[0][0]).split(" [")[0])
        axes[0, j].set_xlabel("iteration")
        axes[0, j].xaxis.set_major_locator(MaxNLocator(integer=True))
        if with_time:
            axes[1, j].set_xlabel("seconds")
        for ax in axes[:, j]:
            ax.set_ylabel("objective")
            ax.grid(alpha=0.3)
            if len(members) > 1:
                ax.legend(frameon=False, fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, path)


def plot_kernel_weights(weights, path, *, title):
    """Learned kernel weights of multiple-kernel methods (paper 001)."""
    n = len(weights)
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 2.6), squeeze=False)
    for ax, (method, w) in zip(axes.flat, weights.items()):
        ax.bar(np.arange(len(w)), w, color="#55A868")
        ax.set_xticks(np.arange(len(w)))
        ax.set_xlabel("kernel (view)")
        ax.set_ylabel("weight")
        ax.set_title(method_label(method))
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, path)
