"""DSNE against its own starting point: 1-NN error on the shared UCI sets.

Protocol (paper 000's, which the issue used): features scaled to [-1, 1] on the training fold,
stratified 10-fold cross-validation (shuffled, seed 0), embedding dimension ``--dim`` (default
3, capped at the number of features), 1-NN on the embedded test fold. Rows:

* ``raw`` -- 1-NN on the scaled features (no reduction);
* ``start`` -- DSNE's starting point, ``init='pca'`` (the leading principal directions,
  ``max_iter=0``);
* ``classwise`` -- DSNE with the paper's objective (eqs. 5-7: ``q`` normalised separately over
  same-class and over different-class pairs), no inner validation (``cv=None``);
* ``joint(m)`` -- DSNE with one normaliser for ``q`` over all pairs and ``p`` putting mass
  ``m`` on the same-class pairs (``normalization='joint', intra_mass=m``), no inner
  validation (``cv=None``);
* ``default`` -- ``DSNE()`` with its defaults: joint, ``intra_mass=0.9``, and the inner
  validation (``cv=3``) that keeps the start unless the optimum wins the exact McNemar test at
  5 % on held-out folds;
* ``significance=1`` -- the default with the start kept only when it makes fewer held-out
  errors than the optimum (no test).

All DSNE runs: CG, ``max_iter=1000``, ``tol=1e-4``, ``sigma=None``.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --dsne-start \\
        [--datasets ...] [--dim 3] [--masses 0.9] [--out defaults_dsne_start]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.neighbor import DSNE

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
from common import load  # noqa: E402  (scikit-learn's sets and the shared ones)

DATASETS = ["vehicle", "vowel", "sonar", "ionosphere", "wdbc", "heart", "pima", "led7digit"]


def err(Ztr, ytr, Zte, yte):
    return 1.0 - KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte)


def run(name, dim, masses):
    X, y = load(name)
    k = min(dim, X.shape[1])
    rows = (["raw", "start", "classwise"] + [f"joint({m:g})" for m in masses]
            + ["significance=1", "default"])
    out = {r: [] for r in rows}
    secs = {r: 0.0 for r in rows}
    for tr, te in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
        sc = MinMaxScaler((-1, 1)).fit(X[tr])
        Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
        out["raw"].append(err(Xtr, ytr, Xte, yte))
        specs = [("start", dict(max_iter=0)),
                 ("classwise", dict(normalization="classwise", cv=None))]
        specs += [(f"joint({m:g})", dict(intra_mass=m, cv=None)) for m in masses]
        specs += [("significance=1", dict(significance=1.0)), ("default", {})]
        for r, kw in specs:
            t = time.perf_counter()
            est = DSNE(n_components=k, **kw).fit(Xtr, ytr)
            secs[r] += time.perf_counter() - t
            out[r].append(err(est.transform(Xtr), ytr, est.transform(Xte), yte))
    print(name, {r: round(float(np.mean(v)), 3) for r, v in out.items()}, flush=True)
    return k, out, secs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--dim", type=int, default=3)
    ap.add_argument("--masses", nargs="+", type=float, default=[0.9])
    ap.add_argument("--out", default="defaults_dsne_start")
    args = ap.parse_args(argv)
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --dsne-start "
           + " ".join(sys.argv[1:] if argv is None else argv))
    results = {name: run(name, args.dim, args.masses) for name in args.datasets}
    rows = list(next(iter(results.values()))[1])
    lines = ["# DSNE against its starting point (PCA) and raw 1-NN", "",
             f"Command: `{cmd.strip()}`", "",
             __doc__.split("\n\n", 1)[1].split("\n\nUsage")[0].strip(), "",
             "Entries: mean 1-NN test error over the 10 folds (std in parentheses); lowest per "
             "data set in bold.", "",
             "| data set (dim) | " + " | ".join(rows) + " |", "|---" * (len(rows) + 1) + "|"]
    for name, (k, out, _) in results.items():
        means = {r: np.mean(v) for r, v in out.items()}
        best = min(means.values())
        cells = [(f"**{means[r]:.3f}**" if means[r] == best else f"{means[r]:.3f}")
                 + f" ({np.std(out[r]):.3f})" for r in rows]
        lines.append(f"| {name} ({k}) | " + " | ".join(cells) + " |")
    avg = {r: np.mean([np.mean(res[1][r]) for res in results.values()]) for r in rows}
    worse = [name for name, (_, out, _) in results.items()
             if np.mean(out["default"]) > np.mean(out["start"]) + 1e-12]
    lines += ["| average | " + " | ".join(f"{avg[r]:.3f}" for r in rows) + " |", "",
              f"Default DSNE not worse than its start on {len(results) - len(worse)} of "
              f"{len(results)} data sets" + (f" (worse on {', '.join(worse)})." if worse else "."),
              "",
              "Fit seconds, all data sets and folds: " + ", ".join(
                  f"{r} {sum(res[2][r] for res in results.values()):.1f}" for r in rows[1:])
              + " (shared machine: indicative only).", ""]
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
