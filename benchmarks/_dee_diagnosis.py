"""``dee.py --diagnosis``: Diagnoses behind DEE's shrinkage and DSNE's joint normalisation.

``dee``: 250 mnist5k digits (25 per class, seed 0, raw pixels / 255) for training, the other
4750 for testing, d = 20, the paper's plain objective (``lam=10, shrinkage=0``): objective,
norm of ``A`` and 1-NN test error along the iterations of LD, FP and CG; then the same with
shrinkage 0.2, 0.5, 0.8 and the defaults.

``dsne``: UCI vehicle, fold 0 of a stratified shuffled 10-fold split (seed 0), [-1, 1] scaling,
d = 3: KL divergence and 1-NN test error at the PCA start and at the end, for the paper's
class-wise objective with CG and GD, three widths sigma, four scales of the start, and for the
joint normalisation.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/dee.py --diagnosis
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.neighbor import DEE, DSNE

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
from common import SHARED  # noqa: E402  (the shared data directory)


def err(Ztr, ytr, Zte, yte):
    return 1.0 - KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte)


def dee_part():
    d = np.load(SHARED / "mnist5k.npz")
    X, y = d["X"].astype(float) / 255.0, d["y"]
    rng = np.random.default_rng(0)
    tr = np.concatenate([rng.choice(np.flatnonzero(y == c), 25, replace=False) for c in range(10)])
    te = np.setdiff1d(np.arange(len(y)), tr)
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    m = Xtr.mean(0)
    lines = ["## DEE, 25 digits per class, d = 20", "",
             "Plain objective (lam=10, shrinkage=0): iteration: objective / ||A||_F / 1-NN test "
             "error.", "", "| optimizer | start | iterations | end |", "|---|---|---|---|"]
    for opt in ("ld", "fp", "cg"):
        seen = []

        def cb(A, info, seen=seen):
            if info["iteration"] in (1, 2, 5, 10, 50, 200):
                seen.append(f"{info['iteration']}: {info['objective']:.3g} / "
                            f"{np.linalg.norm(A):.3g} / "
                            f"{err((Xtr - m) @ A.T, ytr, (Xte - m) @ A.T, yte):.3f}")

        est = DEE(n_components=20, lam=10.0, shrinkage=0.0, optimizer=opt, max_iter=200,
                  callback=cb).fit(Xtr, ytr)
        start = DEE(n_components=20, lam=10.0, shrinkage=0.0, max_iter=0).fit(Xtr, ytr)
        lines.append(
            f"| {opt.upper()} | {est.initial_objective_:.3g} / "
            f"{np.linalg.norm(start.components_):.3g} / "
            f"{err(start.transform(Xtr), ytr, start.transform(Xte), yte):.3f} | "
            + "; ".join(seen) + f" | {est.n_iter_} it: {est.objective_:.3g} / "
            f"{np.linalg.norm(est.components_):.3g} / "
            f"{err(est.transform(Xtr), ytr, est.transform(Xte), yte):.3f} |")
    lines += ["", "LD to convergence, 1-NN test error:", "", "| setting | error | ||A||_F |",
              "|---|---|---|"]
    for label, kw in (("lam=10, shrinkage=0", dict(lam=10.0, shrinkage=0.0)),
                      ("lam=100, shrinkage=0", dict(shrinkage=0.0)),
                      ("lam=100, shrinkage=0.2", dict(shrinkage=0.2)),
                      ("lam=100, shrinkage=0.5", dict(shrinkage=0.5)),
                      ("lam=100, shrinkage=0.8", dict(shrinkage=0.8)),
                      ("defaults (lam=100, shrinkage='auto')", {})):
        est = DEE(n_components=20, **kw).fit(Xtr, ytr)
        lines.append(f"| {label} (used {est.shrinkage_:g}) | "
                     f"{err(est.transform(Xtr), ytr, est.transform(Xte), yte):.3f} | "
                     f"{np.linalg.norm(est.components_):.3g} |")
        print(lines[-1], flush=True)
    return lines


def dsne_part():
    d = np.load(SHARED / "vehicle.npz")
    X, y = d["X"].astype(float), d["y"]
    tr, te = next(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
    sc = MinMaxScaler((-1, 1)).fit(X[tr])
    Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
    start = DSNE(n_components=3, max_iter=0, normalization="classwise").fit(Xtr, ytr)
    A0 = start.components_
    lines = ["", "## DSNE, vehicle fold 0, d = 3", "",
             f"1-NN error: raw features {err(Xtr, ytr, Xte, yte):.3f}, PCA start "
             f"{err(start.transform(Xtr), ytr, start.transform(Xte), yte):.3f}.", "",
             "| setting | KL at start | KL at end | iterations | 1-NN error at end |",
             "|---|---|---|---|---|"]
    cw = dict(normalization="classwise")
    runs = [("classwise, CG", cw), ("classwise, GD", dict(cw, optimizer="gd")),
            ("classwise, sigma=0.3", dict(cw, sigma=0.3)),
            ("classwise, sigma=3", dict(cw, sigma=3.0))]
    runs += [(f"classwise, start x {s:g}", dict(cw, init=A0 * s)) for s in (0.1, 10.0, 100.0)]
    runs += [("joint, intra_mass=0.9 (default)", {})]
    for label, kw in runs:
        est = DSNE(n_components=3, **kw).fit(Xtr, ytr)
        lines.append(f"| {label} | {est.initial_objective_:.4f} | {est.objective_:.4f} | "
                     f"{est.n_iter_} | "
                     f"{err(est.transform(Xtr), ytr, est.transform(Xte), yte):.3f} |")
        print(lines[-1], flush=True)
    return lines


def main():
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
           "benchmarks/dee.py --diagnosis " + " ".join(sys.argv[1:]))
    lines = ["# Diagnoses: DEE in the small-sample regime, DSNE against its start", "",
             f"Command: `{cmd.strip()}`", "",
             " ".join(l.strip() for l in __doc__.split("\n\n")[1:3]), ""]
    lines += dee_part() + dsne_part()
    (RESULTS / "dee_diagnosis.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
