"""How do DEE and its baselines do under paper 003's protocols? Paper 003, Figure 11 protocol: 1-NN
error versus embedding dimension for DEE, DSNE, DCV, MMPA.

For each data set, ``--reps`` random splits draw a fixed number of training samples per class
(vowel 20, vehicle 40); all other samples are the test set. Features are standardised on the
training set. Each method is fitted on the training set, training and test samples are
embedded, and a 1-nearest-neighbour classifier predicts the test labels. The error rate is
averaged over the splits (mean +- standard deviation). 1-NN on the standardised features
(no reduction) is given for reference.

Settings: DEE(defaults: lam=100, shrinkage='auto', optimizer='ld'), DSNE(defaults, max_iter=300),
MMPA(defaults: 5 intra- and 10 inter-class neighbours, widths = mean intra/inter distances),
DCV(null_dim=C-1): the training sets are not small-sample-size (D < n - C), so DCV uses the
C-1 eigenvectors of the within-class scatter with the smallest eigenvalues in place of its null
space; it has at most C-1 dimensions.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/dee.py \
        [--datasets vowel vehicle] [--reps 10] [--out dee_recognition]

Parts, each with its own options (``--help`` after the part's flag): ``--optimizers``
(``_dee_optimizers.py``: paper 003's Figure 6, the objective against iterations and time for
GD, CG, FP and LD; ``dee_optimizers*.md``), ``--small-sample`` (``_dee_small_sample.py``:
Figure 11's protocol on raw MNIST pixels, D >= N; ``dee_small_sample_*.md``). ``--quick``: a
smoke run of each (on wine and scikit-learn's digits), nothing written here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from graphdr.graph_embedding.discriminant import DCV, MMPA
from graphdr.neighbor import DEE, DSNE

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
import common  # noqa: E402
from common import load  # noqa: E402  (scikit-learn's sets and the shared ones)

TRAIN_PER_CLASS = {"vowel": 20, "vehicle": 40}
METHODS = ["DEE", "DSNE", "DCV", "MMPA"]


def one_nn_error(Ztr, ytr, Zte, yte):
    return 1.0 - KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte)


def split(y, per_class, rng):
    tr = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False)
                         for c in np.unique(y)])
    te = np.setdiff1d(np.arange(len(y)), tr)
    return tr, te


def run(name, reps, per_class, seed):
    X, y = load(name)  # vowel: its 10 acoustic features (common.load_shared)
    D, C = X.shape[1], len(np.unique(y))
    dims = list(range(1, D + 1))
    err = {m: np.full((reps, D), np.nan) for m in METHODS}
    raw = np.zeros(reps)
    secs = {m: 0.0 for m in METHODS}
    rng = np.random.default_rng(seed)
    for rep in range(reps):
        tr, te = split(y, per_class, rng)
        sc = StandardScaler().fit(X[tr])
        Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
        raw[rep] = one_nn_error(Xtr, ytr, Xte, yte)
        # spectral methods: fit once, leading components
        t = time.perf_counter()
        mm = MMPA().fit(Xtr, ytr)
        secs["MMPA"] += time.perf_counter() - t
        t = time.perf_counter()
        dcv = DCV(null_dim=C - 1).fit(Xtr, ytr)
        secs["DCV"] += time.perf_counter() - t
        for est, m in ((mm, "MMPA"), (dcv, "DCV")):
            Ztr, Zte = est.transform(Xtr), est.transform(Xte)
            for k in range(1, est.n_components_ + 1):
                err[m][rep, k - 1] = one_nn_error(Ztr[:, :k], ytr, Zte[:, :k], yte)
        for k in dims:
            for m, est in (("DEE", DEE(n_components=k)),
                           ("DSNE", DSNE(n_components=k, max_iter=300))):
                t = time.perf_counter()
                est.fit(Xtr, ytr)
                secs[m] += time.perf_counter() - t
                err[m][rep, k - 1] = one_nn_error(est.transform(Xtr), ytr, est.transform(Xte),
                                                  yte)
        print(f"{name} split {rep + 1}/{reps}: raw 1-NN error {raw[rep]:.3f}", flush=True)
    return dict(X=X, C=C, dims=dims, err=err, raw=raw, secs=secs, n_train=len(tr),
                n_test=len(te))


def plot(name, res, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4))
    for m in METHODS:
        mean = np.nanmean(res["err"][m], axis=0) if np.any(np.isfinite(res["err"][m])) else None
        if mean is None:
            continue
        ok = np.isfinite(mean)
        ax.plot(np.array(res["dims"])[ok], mean[ok], marker="o", ms=3, label=m)
    ax.axhline(res["raw"].mean(), color="gray", ls="--", label="1-NN, no reduction")
    ax.set_xlabel("embedding dimension")
    ax.set_ylabel("1-NN test error")
    ax.set_title(f"{name}: {res['n_train']} training / {res['n_test']} test samples")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


#: the parts of this benchmark: flag -> module (each module's ``main``)
PARTS = {"--optimizers": "_dee_optimizers", "--small-sample": "_dee_small_sample"}


def _quick():
    """The protocol on wine (one split), the optimizers on the digits (5 iterations) and the
    small-sample protocol on scikit-learn's digits (10 per class, one split), their files in a
    temporary folder."""
    with common.smoke_outputs(sys.modules[__name__], "_dee_optimizers", "_dee_small_sample"):
        main(["--datasets", "wine", "--reps", "1"])
        main(["--optimizers", "--datasets", "digits", "--max-iter", "5"])
        main(["--small-sample", "--data", "digits", "--per-class", "10", "--reps", "1",
              "--dims", "5", "--skip", "DSNE"])


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, PARTS, quick=_quick)) is not common.NO_PART:
        return done
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["vowel", "vehicle"])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="dee_recognition")
    args = ap.parse_args(argv)
    cmd = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
           "benchmarks/dee.py " + " ".join(sys.argv[1:] if argv is None else argv))
    lines = ["# 1-NN error versus dimension (paper 003, Figure 11 protocol)", "",
             f"Command: `{cmd.strip()}`", "",
             "Protocol: " + " ".join(l.strip() for l in __doc__.split("\n\n")[1:3]), "",
             "Entries: mean +- std of the 1-NN test error over the splits ('' where a method "
             "has fewer dimensions). Best mean per dimension in bold.", ""]
    for name in args.datasets:
        res = run(name, args.reps, TRAIN_PER_CLASS.get(name, 20), args.seed)
        png = RESULTS / f"{args.out}_{name}.png"
        plot(name, res, png)
        lines += [f"## {name} (D={res['X'].shape[1]}, C={res['C']}, "
                  f"{TRAIN_PER_CLASS.get(name, 20)} training samples per class, {args.reps} splits)", "",
                  f"1-NN without reduction: {res['raw'].mean():.3f} +- {res['raw'].std():.3f}.",
                  "", "| dim | " + " | ".join(METHODS) + " |", "|---" * (len(METHODS) + 1) + "|"]
        for k in res["dims"]:
            means = {m: np.nanmean(res["err"][m][:, k - 1]) if np.any(
                np.isfinite(res["err"][m][:, k - 1])) else np.nan for m in METHODS}
            best = np.nanmin(list(means.values()))
            cells = []
            for m in METHODS:
                e = res["err"][m][:, k - 1]
                if not np.any(np.isfinite(e)):
                    cells.append("")
                    continue
                c = f"{np.mean(e):.3f} +- {np.std(e):.3f}"
                cells.append(f"**{c}**" if means[m] == best else c)
            lines.append(f"| {k} | " + " | ".join(cells) + " |")
        best_rows = []
        for m in METHODS:
            mean = np.nanmean(res["err"][m], axis=0) if np.any(
                np.isfinite(res["err"][m])) else np.array([np.nan])
            k = int(np.nanargmin(mean))
            best_rows.append(f"{m} {mean[k]:.3f} at dim {k + 1}")
        lines += ["", "Lowest mean error: " + "; ".join(best_rows) + ".", "",
                  "Fit seconds (all splits and dimensions): "
                  + ", ".join(f"{m} {s:.1f}" for m, s in res["secs"].items()) + ".", "",
                  f"![1-NN error]({png.name})", ""]
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
