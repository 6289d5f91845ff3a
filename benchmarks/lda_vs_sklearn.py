"""graphdr.LDA against scikit-learn's LDA (svd) under paper 000's protocol, 1-NN.

Same folds, scaling and data as ``benchmarks/defaults.py`` (stratified 10-fold CV, seed 0,
[-1, 1] scaling per training fold, default ``n_components``). For each data set: the 1-NN test
errors of both embeddings with scikit-learn's ``KNeighborsClassifier`` (as the defaults
benchmark), and with a brute-force 1-NN that breaks distance ties by training order; the number
of test samples on which the two embeddings' brute-force predictions differ; and how many test
samples have nearest neighbours of different classes at the same distance (relative 1e-9) in
scikit-learn's embedding, where the prediction depends only on the tie-breaking.

Usage::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/lda_vs_sklearn.py

Writes ``benchmarks/results/lda_vs_sklearn.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import defaults as D  # noqa: E402  (the data and folds of the defaults benchmark)


def brute_1nn(Ztr, ytr, Zte):
    """Labels of the nearest training rows (first in training order on ties); tied rows."""
    from sklearn.metrics import pairwise_distances

    dist = pairwise_distances(Zte, Ztr)
    nearest = np.argmin(dist, axis=1)
    dmin = dist[np.arange(len(Zte)), nearest][:, None]
    close = dist <= dmin * (1 + 1e-9) + 1e-12
    tied = np.array([len(np.unique(ytr[row])) > 1 for row in close])
    return ytr[nearest], tied


def main():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import MinMaxScaler

    import graphdr

    lines = ["# graphdr.LDA against scikit-learn's LDA (svd), 1-NN, paper 000's protocol", "",
             "Command: `OMP_NUM_THREADS=1 .venv/bin/python benchmarks/lda_vs_sklearn.py`", "",
             "Errors over the 10 test folds (count of misclassified samples). 'tree' is "
             "scikit-learn's `KNeighborsClassifier(1)` (as in `defaults.md`), 'brute' a "
             "brute-force 1-NN breaking ties by training order; 'differ' counts test samples "
             "whose brute-force predictions differ between the two embeddings; 'tied' counts "
             "test samples whose nearest neighbours in scikit-learn's embedding include two "
             "classes at the same distance.", "",
             "| data set | n | graphdr tree | sklearn tree | graphdr brute | sklearn brute | "
             "differ | tied |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in D.DATASETS:
        X, y = D.load(name)
        tot = dict(gt=0, st=0, gb=0, sb=0, differ=0, tied=0)
        for tr, te in D.folds(y):
            scaler = MinMaxScaler((-1, 1)).fit(X[tr])
            Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
            preds = {}
            for key, est in (("g", graphdr.LDA(reg=0.0)), ("s", LinearDiscriminantAnalysis())):
                est.fit(Xtr, y[tr])
                Ztr, Zte = est.transform(Xtr), est.transform(Xte)
                knn = KNeighborsClassifier(1).fit(Ztr, y[tr])
                tot[key + "t"] += int(np.sum(knn.predict(Zte) != y[te]))
                preds[key], tied = brute_1nn(Ztr, y[tr], Zte)
                tot[key + "b"] += int(np.sum(preds[key] != y[te]))
            tot["differ"] += int(np.sum(preds["g"] != preds["s"]))
            tot["tied"] += int(np.sum(tied))
        lines.append(f"| {name} | {len(y)} | {tot['gt']} | {tot['st']} | {tot['gb']} | "
                     f"{tot['sb']} | {tot['differ']} | {tot['tied']} |")
        print(lines[-1], flush=True)
    out = ROOT / "results" / "lda_vs_sklearn.md"
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
