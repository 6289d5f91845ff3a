"""Held-out 2-D maps side by side: a picture and a table of the methods, for reports and
benchmarks.

Each method is fitted on the training samples; the test samples are placed out of sample
(``transform``) and a 1-nearest-neighbour classifier trained on the map of the training samples
(the fitted map of a nonparametric method, ``transform`` of the others) predicts them. The
picture shows the test samples coloured by their true class over the training map in grey.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._outputs import atomic_open, atomic_path
from .._threads import libraries_loaded

__all__ = ["HeldOutMap", "default_map_methods", "held_out_map", "draw_held_out_maps",
           "write_maps_report", "trustworthiness"]


@dataclass
class HeldOutMap:
    """One method's maps of the training and test samples, its error (%) and fit time (s)."""

    name: str
    train: np.ndarray
    test: np.ndarray
    error: float
    seconds: float


def default_map_methods(external=True):
    """name -> estimator factory: graphdr's 2-D maps (linear, kernel, nonparametric) and, with
    ``external`` and when installed (``pip install "graphdr[bench]"``), supervised UMAP and
    openTSNE (unsupervised), each with its own ``transform``."""
    from ..graph_embedding.linear import LDA
    from ..maps import DEEMap
    from ..neighbor_embedding import DEE
    from ..qmi import KQMI

    methods = {
        "graphdr.LDA": lambda: LDA(n_components=2),
        "graphdr.DEE (linear)": lambda: DEE(n_components=2),
        "graphdr.KQMI (kernel)": lambda: KQMI(n_components=2),
        "graphdr.DEEMap": lambda: DEEMap(),
    }
    if external:
        methods.update(_external_methods())
    return methods


class _OpenTSNE:
    """openTSNE's TSNE as ``fit(X, y)`` (``y`` unused) / ``transform`` / ``embedding_``."""

    def fit(self, X, y=None):
        from openTSNE import TSNE

        self.embedding_ = TSNE(random_state=0, n_jobs=2).fit(X)
        return self

    def transform(self, X):
        return np.asarray(self.embedding_.transform(X))


def _external_methods():
    """Supervised UMAP and openTSNE when they are installed (never required)."""
    methods = {}
    try:
        import umap

        methods["supervised UMAP"] = lambda: umap.UMAP(random_state=0)
    except ImportError:
        pass
    try:
        import openTSNE  # noqa: F401

        methods["openTSNE (unsupervised)"] = _OpenTSNE
    except ImportError:
        pass
    return methods


def training_map(model, X_train):
    """The map of the training samples: ``embedding_`` when the model has one (a
    nonparametric map), else ``transform``."""
    embedding = getattr(model, "embedding_", None)
    return np.asarray(embedding) if embedding is not None else model.transform(X_train)


def one_nn_error(Z_train, y_train, Z_test, y_test):
    """1-NN error (%) of the test samples against the training samples, on the map."""
    from sklearn.neighbors import KNeighborsClassifier

    predicted = KNeighborsClassifier(1).fit(Z_train, y_train).predict(Z_test)
    return 100.0 * float(np.mean(predicted != y_test))


def trustworthiness(X, Z, n_neighbors=10, *, block=1024):
    r"""Trustworthiness of the map ``Z`` of ``X`` (scikit-learn's
    ``sklearn.manifold.trustworthiness``, the same value) in ``O(block n)`` memory instead of
    its ``n x n`` distance and rank arrays, so that it runs on 20,000 samples and more:

    .. math:: T(k) = 1 - \frac{2}{n k (2n - 3k - 1)} \sum_i \sum_{j \in U_i^k}
              (r(i, j) - k),

    :math:`U_i^k` the ``k`` nearest samples of ``i`` on the map, :math:`r(i, j)` the rank of
    ``j`` among ``i``'s neighbours in ``X`` (1: the nearest). ``trustworthiness(Z, X)`` is
    the continuity. Rows of ``X`` are compared by squared Euclidean distances in blocks of
    ``block`` rows (ranks among exact ties may differ from scikit-learn's argsort order)."""
    from sklearn.neighbors import NearestNeighbors

    X = np.asarray(X, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    n, k = len(X), int(n_neighbors)
    if not 1 <= k < n / 2:
        raise ValueError(f"n_neighbors ({k}) must be at least 1 and below n_samples / 2 "
                         f"({n / 2}).")
    near = NearestNeighbors(n_neighbors=k).fit(Z).kneighbors(return_distance=False)
    sq = np.einsum("ij,ij->i", X, X)
    total = 0.0
    for a in range(0, n, block):
        rows = np.arange(a, min(a + block, n))
        D = sq[rows, None] + sq[None, :] - 2.0 * (X[rows] @ X.T)
        D[np.arange(len(rows)), rows] = np.inf  # a sample is not its own neighbour
        d_near = np.take_along_axis(D, near[rows], axis=1)  # (b, k)
        # rank of each map neighbour among the input distances of its row
        rank = np.stack([1 + np.sum(D < d_near[:, [c]], axis=1) for c in range(k)], axis=1)
        total += float(np.sum(np.maximum(rank - k, 0)))
    return 1.0 - total * 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0))


def held_out_map(name, make, X_train, y_train, X_test, y_test):
    """Fit ``make()`` on the training samples and place the test samples: a
    :class:`HeldOutMap`."""
    start = time.perf_counter()
    model = make().fit(X_train, y_train)
    seconds = time.perf_counter() - start
    Z_train, Z_test = training_map(model, X_train), np.asarray(model.transform(X_test))
    libraries_loaded()  # UMAP's and openTSNE's numba may have loaded an OpenMP runtime
    return HeldOutMap(name, Z_train, Z_test, one_nn_error(Z_train, y_train, Z_test, y_test),
                      seconds)


def draw_held_out_maps(maps, y_test, title, *, cols=4):
    """A figure: each map's test samples coloured by class over its training map (grey)."""
    import matplotlib.pyplot as plt

    rows = -(-len(maps) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.3 * rows), squeeze=False)
    codes = np.unique(y_test, return_inverse=True)[1]
    cmap = plt.get_cmap("tab20" if codes.max(initial=0) >= 10 else "tab10")
    for ax in axes.ravel():
        ax.set_axis_off()
    for ax, m in zip(axes.ravel(), maps):
        ax.scatter(m.train[:, 0], m.train[:, 1], s=0.5, color="0.85", linewidths=0,
                   rasterized=True)
        ax.scatter(m.test[:, 0], m.test[:, 1], s=2, c=cmap(codes % cmap.N), linewidths=0,
                   rasterized=True)
        ax.set_title(f"{m.name}\n1-NN error {m.error:.1f} %, fit {m.seconds:.1f} s",
                     fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def write_maps_report(out, X, y, *, dataset="digits", train_size=0.67, seed=0, methods=None,
                      command=None):
    """``out/index.html`` and ``out/maps.png``: held-out 2-D maps of ``X`` side by side, with
    a table of their 1-NN errors and fit times. Returns the path of index.html."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from sklearn.model_selection import train_test_split

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=train_size, stratify=y, random_state=seed)
    methods = default_map_methods() if methods is None else methods
    maps = [held_out_map(name, make, X_train, y_train, X_test, y_test)
            for name, make in methods.items()]
    title = (f"{dataset}: {len(y_test)} held-out samples on 2-D maps fitted to "
             f"{len(y_train)} others")
    fig = draw_held_out_maps(maps, y_test, title)
    try:
        with atomic_path(out / "maps.png") as tmp:
            fig.savefig(tmp, dpi=90)
    finally:
        plt.close(fig)
    rows = "".join(f"<tr><td>{html.escape(m.name)}</td><td>{m.error:.1f}</td>"
                   f"<td>{m.seconds:.1f}</td></tr>" for m in maps)
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title></head>\n<body style=\"font-family: sans-serif; "
        "max-width: 70em; margin: 2em auto\">\n"
        f"<h1>2-D maps of held-out samples</h1>\n<p>{html.escape(title)}. Each method is "
        "fitted on the training samples; the held-out samples are placed out of sample "
        "(<code>transform</code>) and a 1-NN classifier trained on the training samples' map "
        "predicts them. Supervised UMAP and openTSNE on larger sets: "
        "<code>benchmarks/results/maps2d.md</code>.</p>\n"
        "<img src=\"maps.png\" alt=\"held-out 2-D maps\" style=\"max-width: 100%\">\n"
        "<table border=\"1\" cellpadding=\"4\" style=\"border-collapse: collapse\">"
        "<tr><th>method</th><th>held-out 1-NN error (%)</th><th>fit (s)</th></tr>"
        f"{rows}</table>\n"
        + (f"<p>Command: <code>{html.escape(command)}</code></p>\n" if command else "")
        + "</body></html>\n")
    index = out / "index.html"
    with atomic_open(index, "w", encoding="utf-8") as fh:
        fh.write(page)
    return index
