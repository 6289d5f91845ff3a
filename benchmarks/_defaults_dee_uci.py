"""DEE's defaults on the shared UCI sets (D << N): lam and shrinkage against raw 1-NN.

Protocol: features scaled to [-1, 1] on the training fold, stratified 10-fold cross-validation
(shuffled, seed 0), embedding dimension max(C - 1, 2) (capped at the number of features),
1-NN on the embedded test fold. Columns: 1-NN on the scaled features; DEE with the paper's
plain objective and the former default ``lam=10`` (``shrinkage=0``); ``lam=100`` with fixed
shrinkages 0, 0.2, 0.5, 0.8; and the defaults (``lam=100, shrinkage='auto'``).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --dee-uci \\
        [--datasets ...] [--out defaults_dee_uci]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.neighbor import DEE

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
from common import load  # noqa: E402  (scikit-learn's sets and the shared ones)

DATASETS = ["vehicle", "vowel", "sonar", "ionosphere", "wdbc", "heart", "pima", "led7digit"]
SPECS = [("lam=10, shrinkage=0 (paper)", dict(lam=10.0, shrinkage=0.0)),
         ("shrinkage=0", dict(shrinkage=0.0)), ("shrinkage=0.2", dict(shrinkage=0.2)),
         ("shrinkage=0.5", dict(shrinkage=0.5)), ("shrinkage=0.8", dict(shrinkage=0.8)),
         ("defaults (auto)", {})]


def err(Ztr, ytr, Zte, yte):
    return 1.0 - KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--out", default="defaults_dee_uci")
    args = ap.parse_args(argv)
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --dee-uci "
           + " ".join(sys.argv[1:] if argv is None else argv))
    cols = ["raw"] + [s for s, _ in SPECS]
    lines = ["# DEE on the shared UCI sets: lam, shrinkage and the defaults", "",
             f"Command: `{cmd.strip()}`", "", " ".join(
                 l.strip() for l in __doc__.split("\n\n")[1].splitlines()), "",
             "Entries: mean 1-NN test error over the folds; lowest per row in bold. Last "
             "column: shrinkages chosen by 'auto' over the folds.", "",
             "| data set (dim) | " + " | ".join(cols) + " | auto chose |",
             "|---" * (len(cols) + 2) + "|"]
    for name in args.datasets:
        X, y = load(name)
        k = min(X.shape[1], max(len(np.unique(y)) - 1, 2))
        res = {c: [] for c in cols}
        chosen = []
        for tr, te in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
            sc = MinMaxScaler((-1, 1)).fit(X[tr])
            Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
            res["raw"].append(err(Xtr, ytr, Xte, yte))
            for c, kw in SPECS:
                est = DEE(n_components=k, **kw).fit(Xtr, ytr)
                res[c].append(err(est.transform(Xtr), ytr, est.transform(Xte), yte))
            chosen.append(est.shrinkage_)
        means = {c: np.mean(v) for c, v in res.items()}
        best = min(means.values())
        vals, counts = np.unique(chosen, return_counts=True)
        lines.append(f"| {name} ({k}) | " + " | ".join(
            f"**{means[c]:.3f}**" if means[c] == best else f"{means[c]:.3f}" for c in cols)
            + " | " + ", ".join(f"{v:g}x{n}" for v, n in zip(vals, counts)) + " |")
        print(lines[-1], flush=True)
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
