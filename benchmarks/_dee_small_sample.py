"""``dee.py --small-sample``: Paper 003, Figure 11 protocol on raw MNIST pixels: DEE in the regime D >= N.

``--reps`` random splits of ``../shared/datasets/mnist5k.npz`` (5000 digits, 784 pixels scaled
to [0, 1], no other preprocessing) draw ``--per-class`` training digits per class; all other
digits are the test set. Every method is fitted on the training digits; a 1-nearest-neighbour
classifier in the embedding predicts the test digits. Error rate averaged over the splits
(mean +- std) at dimensions 10, 20, ..., 60.

Methods: DEE with its defaults (``lam=100``, ``shrinkage='auto'``); DEE with the paper's plain
objective (``shrinkage=0``, ``lam=10``, the former defaults); DSNE (defaults, ``max_iter=300``);
MMPA (defaults: 5 intra- and 10 inter-class neighbours, widths from the mean distances, fitted
once with 60 components, the leading ones taken); DCV (exact null space, at most C - 1 = 9
components: its 9-dimensional error is shown at every d); PCA; 1-NN on the raw pixels.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/dee.py --small-sample \\
        --per-class 25 [--reps 10] [--dims 10 20 30 40 50 60] [--skip DSNE] [--out NAME]

``--skip`` leaves out iterative methods (DEE, DEE (paper), DSNE) to bound the run time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.decomposition import PCA
from sklearn.neighbors import KNeighborsClassifier

from graphdr.graph_embedding.discriminant import DCV, MMPA
from graphdr.neighbor import DEE, DSNE

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
from common import SHARED  # noqa: E402  (the shared data directory)

METHODS = ["DEE", "DEE (paper)", "DSNE", "MMPA", "DCV", "PCA", "raw"]


def one_nn_error(Ztr, ytr, Zte, yte):
    return 1.0 - KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte)


def load_pixels(name):
    """``(X, y)``: mnist5k's pixels / 255, or scikit-learn's 8x8 digits / 16 (a smoke run)."""
    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return X / 16.0, y
    d = np.load(SHARED / "mnist5k.npz")
    return d["X"].astype(np.float64) / 255.0, d["y"]


def run(X, y, per_class, reps, dims, seed, skip=()):
    err = {m: np.full((reps, len(dims)), np.nan) for m in METHODS}
    secs = {m: 0.0 for m in METHODS}
    shrink = []
    rng = np.random.default_rng(seed)
    for rep in range(reps):
        tr = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False)
                             for c in np.unique(y)])
        te = np.setdiff1d(np.arange(len(y)), tr)
        Xtr, Xte, ytr, yte = X[tr], X[te], y[tr], y[te]

        def score(m, j, est, k=None, Xtr=Xtr, Xte=Xte, ytr=ytr, yte=yte, rep=rep):
            Ztr, Zte = est.transform(Xtr), est.transform(Xte)
            if k is not None:
                Ztr, Zte = Ztr[:, :k], Zte[:, :k]
            err[m][rep, j] = one_nn_error(Ztr, ytr, Zte, yte)

        err["raw"][rep, :] = one_nn_error(Xtr, ytr, Xte, yte)
        t = time.perf_counter()
        mm = MMPA(n_components=max(dims)).fit(Xtr, ytr)
        secs["MMPA"] += time.perf_counter() - t
        t = time.perf_counter()
        dcv = DCV().fit(Xtr, ytr)
        secs["DCV"] += time.perf_counter() - t
        dcv_err = one_nn_error(dcv.transform(Xtr), ytr, dcv.transform(Xte), yte)
        err["DCV"][rep, :] = dcv_err
        for j, k in enumerate(dims):
            score("MMPA", j, mm, k)
            t = time.perf_counter()
            score("PCA", j, PCA(k, random_state=0).fit(Xtr))
            secs["PCA"] += time.perf_counter() - t
            for m, est in (("DEE", DEE(n_components=k)),
                           ("DEE (paper)", DEE(n_components=k, lam=10.0, shrinkage=0.0)),
                           ("DSNE", DSNE(n_components=k, max_iter=300))):
                if m in skip:
                    continue
                t = time.perf_counter()
                est.fit(Xtr, ytr)
                secs[m] += time.perf_counter() - t
                score(m, j, est)
                if m == "DEE":
                    shrink.append(est.shrinkage_)
        print(f"split {rep + 1}/{reps}: " + ", ".join(
            f"{m} {np.nanmean(err[m][rep]):.3f}" for m in METHODS if m not in skip), flush=True)
    for m in skip:
        del err[m], secs[m]
    return err, secs, shrink


def plot(err, dims, title, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for m in err:
        ls = "--" if m in ("raw", "DCV") else "-"
        ax.plot(dims, 1.0 - err[m].mean(axis=0), ls=ls, marker="o", ms=3, label=m)
    ax.set_xlabel("embedding dimension")
    ax.set_ylabel("1-NN recognition rate")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-class", type=int, default=25)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--dims", nargs="+", type=int, default=[10, 20, 30, 40, 50, 60])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip", nargs="+", default=[], choices=["DEE", "DEE (paper)", "DSNE"])
    ap.add_argument("--out", default=None)
    ap.add_argument("--data", default="mnist5k", choices=["mnist5k", "digits"],
                    help="the pixels (digits: scikit-learn's 8x8, for a smoke run)")
    args = ap.parse_args(argv)
    out = args.out or f"dee_small_sample_{args.per_class}"
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
           "benchmarks/dee.py --small-sample " + " ".join(sys.argv[1:] if argv is None else argv))
    X, y = load_pixels(args.data)
    err, secs, shrink = run(X, y, args.per_class, args.reps, args.dims, args.seed,
                            set(args.skip))
    methods = list(err)
    n_train = 10 * args.per_class
    title = (f"{args.data} raw pixels: {n_train} training ({args.per_class}/class), "
             f"{len(y) - n_train} test, {args.reps} splits")
    png = RESULTS / f"{out}.png"
    plot(err, args.dims, title, png)
    vals, counts = np.unique(shrink, return_counts=True)
    lines = ["# DEE in the small-sample regime (paper 003, Figure 11 protocol, raw pixels)", "",
             f"Command: `{cmd.strip()}`", "",
             " ".join(l.strip() for l in __doc__.split("\n\n")[1:3]), "",
             f"## {title}", "",
             "Entries: 1-NN test error, mean +- std over the splits; lowest mean per dimension "
             "in bold.", "",
             "| dim | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for j, k in enumerate(args.dims):
        means = {m: err[m][:, j].mean() for m in methods}
        best = min(means.values())
        cells = [(f"**{means[m]:.3f}**" if means[m] == best else f"{means[m]:.3f}")
                 + f" +- {err[m][:, j].std():.3f}" for m in methods]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    lines += ["", "Shrinkage chosen by DEE's internal cross-validation (count over all fits): "
              + ", ".join(f"{v:g}: {c}" for v, c in zip(vals, counts)) + ".", "",
              "Fit seconds (all splits and dimensions; shared machine, indicative): "
              + ", ".join(f"{m} {s:.1f}" for m, s in secs.items() if m != "raw") + ".", "",
              f"![recognition rate]({png.name})", ""]
    (RESULTS / f"{out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
