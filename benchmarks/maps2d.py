"""2-D maps of held-out samples: graphdr's maps against supervised UMAP and openTSNE (issue 28).

The baseline of issue 28: every method is fitted on the training samples, the test samples are
embedded out of sample (``transform``), and a 1-nearest-neighbour classifier trained on the
embedded training samples predicts the embedded test samples. Reported per data set and method:
the 2-D 1-NN test error and the fit time (one run, two cores, BLAS threads as the machine sets).

Data (stratified train/test splits, seed 0):

* ``digits``: scikit-learn's 1797 digits, 64 features, 75 % / 25 %;
* ``mnist5k``: the shared 5000-digit MNIST subset in 50 PCA dimensions (fitted on the training
  part), 4000 / 1000;
* ``letters``: 20,000 letter-like samples (26 classes of 4 prototypes each, 16 integer
  features, generated as in ``run_all.py``), 16,000 / 4000.

Methods: PCA, graphdr.LDA, graphdr.DEE and graphdr.DSNE (2-D linear maps), graphdr.KQMI with
1000 Nystroem landmarks (kernel map), and, when installed (``pip install ".[bench]"``),
supervised UMAP (``umap.UMAP(random_state=0).fit(X, y)`` then ``transform``) and openTSNE
(unsupervised, its own ``transform``).

    .venv/bin/python benchmarks/maps2d.py [--datasets digits mnist5k letters]

Writes ``benchmarks/results/maps2d.md``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
DATASETS = ("digits", "mnist5k", "letters")


def load(name):
    """(X_train, y_train, X_test, y_test) of a data set."""
    from sklearn.model_selection import train_test_split

    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        test_size = 0.25
    elif name == "mnist5k":
        from common import load_shared

        X, y = load_shared("mnist5k")
        test_size = 1000
    elif name == "letters":
        from run_all import letter_like

        X, y = letter_like(20_000, seed=1)
        test_size = 4000
    else:
        raise ValueError(f"unknown data set {name!r}; known: {DATASETS}")
    Xtr, Xte, ytr, yte = train_test_split(X.astype(np.float64), y, test_size=test_size,
                                          stratify=y, random_state=0)
    if name == "mnist5k":
        from sklearn.decomposition import PCA

        pca = PCA(50, random_state=0).fit(Xtr)
        Xtr, Xte = pca.transform(Xtr), pca.transform(Xte)
    return Xtr, ytr, Xte, yte


def methods():
    """name -> (fit(X, y) -> fitted, transform(fitted, X)); optional ones when installed."""
    from sklearn.decomposition import PCA

    import graphdr

    out = {
        "PCA": (lambda X, y: PCA(2, random_state=0).fit(X), lambda m, X: m.transform(X)),
        "graphdr.LDA": (lambda X, y: graphdr.LDA(n_components=2).fit(X, y),
                        lambda m, X: m.transform(X)),
        "graphdr.DEE": (lambda X, y: graphdr.DEE(n_components=2).fit(X, y),
                        lambda m, X: m.transform(X)),
        "graphdr.DSNE": (lambda X, y: graphdr.DSNE(n_components=2).fit(X, y),
                         lambda m, X: m.transform(X)),
        "graphdr.KQMI (Nystroem 1000)": (
            lambda X, y: graphdr.KQMI(n_components=2, approximation="nystroem",
                                      n_landmarks=1000).fit(X, y),
            lambda m, X: m.transform(X)),
    }
    try:
        import umap

        out["supervised UMAP"] = (lambda X, y: umap.UMAP(random_state=0).fit(X, y),
                                  lambda m, X: m.transform(X))
    except ImportError:
        pass
    try:
        from openTSNE import TSNE

        out["openTSNE (unsupervised)"] = (lambda X, y: TSNE(random_state=0, n_jobs=2).fit(X),
                                          lambda m, X: np.asarray(m.transform(X)))
    except ImportError:
        pass
    return out


def one_nn_error(Ztr, ytr, Zte, yte):
    from sklearn.neighbors import KNeighborsClassifier

    return 100.0 * float(np.mean(KNeighborsClassifier(1).fit(Ztr, ytr).predict(Zte) != yte))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(DATASETS))
    a = p.parse_args(argv)
    t0 = time.time()
    table = {}
    available = methods()
    for ds in a.datasets:
        Xtr, ytr, Xte, yte = load(ds)
        for name, (fit, transform) in available.items():
            start = time.perf_counter()
            model = fit(Xtr, ytr)
            seconds = time.perf_counter() - start
            err = one_nn_error(transform(model, Xtr), ytr, transform(model, Xte), yte)
            table[(ds, name)] = (err, seconds)
            print(f"{ds:8s} {name:30s} {err:6.2f} % {seconds:8.2f} s", flush=True)
    names = list(available)
    best = {ds: min((table[(ds, m)][0], m) for m in names if m.startswith("graphdr"))
            for ds in a.datasets}
    umap_row = {ds: table.get((ds, "supervised UMAP")) for ds in a.datasets}
    head = [f"{ds} (best graphdr: {best[ds][1]} {best[ds][0]:.1f} %"
            + (f", supervised UMAP {umap_row[ds][0]:.1f} %)" if umap_row[ds] else ")")
            for ds in a.datasets]
    lines = ["# 2-D maps of held-out samples (issue 28 baseline)", "",
             "Headline: " + "; ".join(head), "",
             "Command: `.venv/bin/python benchmarks/maps2d.py`", "",
             f"Machine: {platform.machine()}, 2 cores (BLAS threads as the machine sets); "
             f"{time.time() - t0:.0f} s in all. One run per cell.", "",
             "2-D 1-NN test error (%) of the test samples embedded out of sample, against the "
             "embedded training samples; fit time (s).", "",
             "| method | " + " | ".join(f"{ds} error | {ds} fit (s)" for ds in a.datasets) + " |",
             "|---|" + "---:|---:|" * len(a.datasets)]
    for name in names:
        cells = []
        for ds in a.datasets:
            err, seconds = table[(ds, name)]
            cells += [f"{err:.1f}", f"{seconds:.1f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    (RESULTS / "maps2d.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
