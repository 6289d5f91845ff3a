"""DCV on data with more samples than features: 1-NN error beside LDA.

Protocol: features scaled to [-1, 1] on the training fold, stratified 10-fold cross-validation
(shuffled, seed 0), 1-NN on the embedded test fold, all C - 1 components (capped at the
number of features). Columns: 1-NN on the scaled features; scikit-learn's
LinearDiscriminantAnalysis (``solver='svd'``, its ``transform``); DCV's default (no null
space here: the orthonormal Gram-Schmidt basis of the Fisher directions); DCV with
``null_dim=C-1`` and ``null_dim=D`` (the eigenvectors of the smallest within-class
eigenvalues, the approximate variant).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --dcv-uci
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.graph_embedding.discriminant import DCV

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
from common import load  # noqa: E402  (scikit-learn's sets and the shared ones)

DATASETS = ["vehicle", "vowel", "sonar", "ionosphere", "wdbc", "heart", "pima", "led7digit"]
COLS = ["raw", "LDA", "DCV (default)", "DCV null_dim=C-1", "DCV null_dim=D"]


def err(Ztr, ytr, Zte, yte):
    return 1.0 - KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--out", default="defaults_dcv_uci")
    args = ap.parse_args(argv)
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --dcv-uci "
           + " ".join(sys.argv[1:] if argv is None else argv))
    lines = ["# DCV on data with more samples than features", "", f"Command: `{cmd.strip()}`",
             "", " ".join(l.strip() for l in __doc__.split("\n\n")[1].splitlines()), "",
             "Entries: mean 1-NN test error over the 10 folds; lowest per row in bold.", "",
             "| data set (n, D, C) | " + " | ".join(COLS) + " |", "|---" * (len(COLS) + 1) + "|"]
    for name in args.datasets:
        X, y = load(name)
        C, D = len(np.unique(y)), X.shape[1]
        res = {c: [] for c in COLS}
        for tr, te in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
            sc = MinMaxScaler((-1, 1)).fit(X[tr])
            Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
            res["raw"].append(err(Xtr, ytr, Xte, yte))
            for c, est in (("LDA", LinearDiscriminantAnalysis()), ("DCV (default)", DCV()),
                           ("DCV null_dim=C-1", DCV(null_dim=min(C - 1, D))),
                           ("DCV null_dim=D", DCV(null_dim=D))):
                est.fit(Xtr, ytr)
                res[c].append(err(est.transform(Xtr), ytr, est.transform(Xte), yte))
        means = {c: np.mean(v) for c, v in res.items()}
        best = min(means.values())
        lines.append(f"| {name} ({len(y)}, {D}, {C}) | " + " | ".join(
            f"**{means[c]:.3f}**" if means[c] == best else f"{means[c]:.3f}" for c in COLS)
            + " |")
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
