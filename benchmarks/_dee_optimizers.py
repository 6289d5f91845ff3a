"""``dee.py --optimizers``: Paper 003, Figure 6: DEE objective versus iteration and time for GD,
CG, FP and LD.

Every optimizer starts from the same projection (``init='pca'`` or a seeded random one) with
the same tolerance, iteration limit and hyper-parameters; only the search direction differs.
Data: scikit-learn's digits (1797 x 64) and the 5000 MNIST digits of
``../shared/datasets/mnist5k.npz`` (pixels / 255, PCA to 50 dimensions first): D << N; and
``mnist400raw``, 40 digits per class of mnist5k (seeded draw) as raw pixels / 255 (n = 400,
D = 784): D >= N, paper 003's own regime. ``--shrinkage`` sets DEE's shrinkage of the
attraction matrix (0: the paper's objective).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/dee.py --optimizers \
        [--datasets digits mnist5k] [--tol 1e-3] [--max-iter 1000] [--init pca|random]
        [--seed 0] [--n-components 2] [--lam 10] [--shrinkage 0] [--out NAME]

writes ``benchmarks/results/NAME.md`` (default ``dee_optimizers``) and one PNG per data set.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

from graphdr.neighbor import DEE

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
from common import SHARED  # noqa: E402  (the shared data directory)

OPTIMIZERS = ["ld", "fp", "cg", "gd"]


def load(name):
    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return X.astype(float), y
    if name == "mnist5k":
        from sklearn.decomposition import PCA

        d = np.load(SHARED / "mnist5k.npz")
        X = d["X"].astype(float) / 255.0
        return PCA(50, random_state=0).fit_transform(X), d["y"]
    if name == "mnist400raw":
        d = np.load(SHARED / "mnist5k.npz")
        y = d["y"]
        rng = np.random.default_rng(0)
        idx = np.concatenate([rng.choice(np.flatnonzero(y == c), 40, replace=False)
                              for c in np.unique(y)])
        return d["X"][idx].astype(float) / 255.0, y[idx]
    raise ValueError(f"unknown data set {name!r}")


def run(name, tol, max_iter, lam, n_components, init, seed, shrinkage=0.0):
    X, y = load(name)
    rows, curves = [], {}
    for opt in OPTIMIZERS:
        t = time.perf_counter()
        est = DEE(n_components=n_components, lam=lam, optimizer=opt, tol=tol,
                  max_iter=max_iter, init=init, random_state=seed,
                  shrinkage=shrinkage).fit(X, y)
        secs = time.perf_counter() - t
        h = est.history_
        rows.append(dict(opt=opt, n_iter=est.n_iter_, objective=est.objective_, seconds=secs,
                         evals=int(np.sum(h["n_evals"])), f0=est.initial_objective_,
                         converged=est.converged_))
        curves[opt] = (np.array([est.initial_objective_] + h["objective"]),
                       np.array([0.0] + h["time"]))
        print(f"{name} {opt}: {est.n_iter_} iterations, objective {est.objective_:.6f}, "
              f"{secs:.1f} s", flush=True)
    return X.shape, rows, curves


def plot(name, shape, curves, tol, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    best = min(obj.min() for obj, _ in curves.values())
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for opt, (obj, t) in curves.items():
        excess = (obj - best) / max(abs(best), 1e-12) + 1e-7
        shown = np.maximum(obj, 1e-12)  # the plain objective reaches 0 (rounding: below)
        axes[0, 0].plot(np.arange(len(obj)), shown, label=opt.upper())
        axes[0, 1].plot(t, shown, label=opt.upper())
        axes[1, 0].plot(np.arange(len(obj)), excess, label=opt.upper())
        axes[1, 1].plot(t, excess, label=opt.upper())
    for row in range(2):
        for col, xl in enumerate(["iteration", "seconds since the start of fit"]):
            ax = axes[row, col]
            ax.set_xlabel(xl)
            ax.set_ylabel("DEE objective" if row == 0 else "(E - E_best) / E_best + 1e-7")
            ax.set_yscale("log")
            ax.legend()
    fig.suptitle(f"DEE on {name} (n={shape[0]}, D={shape[1]}), tol={tol:g}; "
                 "E_best = lowest value reached by any optimizer")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["digits", "mnist5k"])
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--lam", type=float, default=10.0)
    ap.add_argument("--shrinkage", type=float, default=0.0)
    ap.add_argument("--n-components", type=int, default=2)
    ap.add_argument("--init", choices=["pca", "random"], default="pca")
    ap.add_argument("--seed", type=int, default=0, help="random_state of init='random'")
    ap.add_argument("--out", default="dee_optimizers")
    args = ap.parse_args(argv)
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/dee.py --optimizers "
           + " ".join(sys.argv[1:] if argv is None else argv))
    lines = [
        "# DEE optimisers (paper 003, Figure 6)", "",
        f"Command: `{cmd.strip()}`", "",
        f"Setup: DEE(n_components={args.n_components}, lam={args.lam:g}, "
        f"shrinkage={args.shrinkage:g}, sigma=None "
        f"(2 sigma^2 = mean same-class squared distance), normalised weights, init={args.init!r}, "
        f"random_state={args.seed}, "
        f"tol={args.tol:g} (relative objective decrease), max_iter={args.max_iter}); "
        "Wolfe line search (strong Wolfe, c2=0.1, for CG; weak, c2=0.9, otherwise). "
        f"Machine: {platform.processor() or platform.machine()}, 1 BLAS thread, shared with "
        "other jobs (times are indicative). Seconds include the setup of fit (weights, "
        "Cholesky factor).", "",
    ]
    for name in args.datasets:
        shape, rows, curves = run(name, args.tol, args.max_iter, args.lam, args.n_components,
                                   args.init, args.seed, args.shrinkage)
        png = RESULTS / f"{args.out}_{name}.png"
        plot(name, shape, curves, args.tol, png)
        best = min(r["objective"] for r in rows)
        lines += [f"## {name} (n={shape[0]}, D={shape[1]})", "",
                  f"Initial objective {rows[0]['f0']:.6f}. 'to 0.1%' / 'to 1%': iterations (and "
                  "seconds) until the objective is within 0.1% / 1% of the lowest final "
                  "objective of the four runs ('-': never).", "",
                  "| optimizer | iterations | evaluations | final objective | rel. to best | "
                  "seconds | to 1% | to 0.1% | converged |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            obj, t = curves[r["opt"]]
            reach = []
            for q in (1e-2, 1e-3):
                hit = np.flatnonzero(obj <= best + q * max(abs(best), 1e-12))
                reach.append(f"{hit[0]} ({t[hit[0]]:.2f} s)" if hit.size else "-")
            lines.append(
                f"| {r['opt'].upper()} | {r['n_iter']} | {r['evals']} | {r['objective']:.6f} | "
                f"{(r['objective'] - best) / max(abs(best), 1e-12):+.2e} | {r['seconds']:.2f} | "
                f"{reach[0]} | "
                f"{reach[1]} | {r['converged']} |")
        lines += ["", f"![objective curves]({png.name})", ""]
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
