"""Does MKL-DR beat its baselines on several feature sets? MKL-DR on multi-view digits: 1-NN error
(10-fold CV) against the paper's baselines, and the runtime of one fit on 2000 samples x 6
views.

Views (graphdr.multiview.make_multiview_digits): 4x4-pooled pixels, gradient-orientation
histograms (chi-squared kernel), low-frequency Fourier magnitudes, moments, row/column profiles,
and a pure-noise view. Every method uses the same base kernels (ViewKernel defaults: data-driven
sigma, centred, unit mean diagonal). The equal-weight baseline is kernel LDA on the uniform
average of the same six base kernels (graphdr.bench.baselines.AverageKernelLDA): MKL-LDA with
its weights fixed at 1/6 instead of learned.

Run:  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/mkldr_digits.py

Parts: ``--nystroem [L]`` (``_mkldr_nystroem.py``: the exact fit against Nystroem landmarks;
``mkldr_digits_nystroem.md``), ``--nystroem-large N L`` (``_mkldr_nystroem_large.py``: Nystroem
MKL-DR past what the exact path holds). ``--quick``: a smoke run of each on 200 digits,
nothing written here.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import common
import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

import graphdr
from graphdr.bench.baselines import AverageKernelLDA
from graphdr.multiview import KFDSAMME, MKLDR, KFDVoting, make_multiview_digits

VIEWS = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")


def one_nn_error(Ztr, ytr, Zte, yte):
    return float(np.mean(KNeighborsClassifier(1).fit(Ztr, ytr).predict(Zte) != yte))


#: the parts of this benchmark: flag -> module (each module's ``main(argv)``)
PARTS = {"--nystroem-large": "_mkldr_nystroem_large", "--nystroem": "_mkldr_nystroem"}


def _quick():
    with common.smoke_outputs() as tmp:
        main(["--folds", "2", "--lde-iter", "1", "--n", "200", "--timing-n", "200", "--out",
              str(tmp / "mkldr_digits.md")])
    common.run_part(["--nystroem", "40", "--no-cv", "--n", "200"], PARTS)
    common.run_part(["--nystroem-large", "--quick"], PARTS)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, PARTS, quick=_quick)) is not common.NO_PART:
        return done
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--lde-iter", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                       "mkldr_digits.md"))
    parser.add_argument("--n", type=int, default=None, help="digits (default all 1797)")
    parser.add_argument("--timing-n", type=int, default=2000, help="samples of the timed fit")
    args = parser.parse_args(argv)
    data = make_multiview_digits(views=VIEWS, n_samples=args.n, random_state=0)
    views, y, kernels = data.views, data.target, data.kernels
    M = len(views)
    skf = StratifiedKFold(args.folds, shuffle=True, random_state=0)
    names = [f"KFD ({v}, {k})" for v, k in zip(VIEWS, kernels)] + [
        "KFD-Voting", "KFD-SAMME", "LDA (concatenated views)",
        "Equal-weight KFD (average of the 6 kernels)", "MKL-LDA",
        "MKL-LDA (paper's weights, weight_shrinkage=0)",
        f"MKL-LDE (k=5, k'=10, 9 dims, max_iter={args.lde_iter}, weight_shrinkage=0)"]
    errors = {n: [] for n in names}
    times = {n: 0.0 for n in names}
    betas = {"MKL-LDA": [], "MKL-LDA (paper)": [], "MKL-LDE": []}
    iters = {"MKL-LDA": [], "MKL-LDA (paper)": [], "MKL-LDE": []}
    shrinkage = []
    t_all = time.perf_counter()
    for fold, (tr, te) in enumerate(skf.split(y, y)):
        Vtr, Vte = [V[tr] for V in views], [V[te] for V in views]
        t = time.perf_counter()
        vote = KFDVoting(kernels=kernels).fit(Vtr, y[tr])
        errors["KFD-Voting"].append(float(np.mean(vote.predict(Vte) != y[te])))
        times["KFD-Voting"] += time.perf_counter() - t
        for m in range(M):
            errors[names[m]].append(float(np.mean(vote.estimators_[m].predict(Vte[m]) != y[te])))
        t = time.perf_counter()
        samme = KFDSAMME(kernels=kernels).fit(Vtr, y[tr])
        errors["KFD-SAMME"].append(float(np.mean(samme.predict(Vte) != y[te])))
        times["KFD-SAMME"] += time.perf_counter() - t
        t = time.perf_counter()
        sc = StandardScaler().fit(np.hstack(Vtr))
        lda = graphdr.LDA(reg=0.0).fit(sc.transform(np.hstack(Vtr)), y[tr])
        errors["LDA (concatenated views)"].append(one_nn_error(
            lda.transform(sc.transform(np.hstack(Vtr))), y[tr],
            lda.transform(sc.transform(np.hstack(Vte))), y[te]))
        times["LDA (concatenated views)"] += time.perf_counter() - t
        t = time.perf_counter()
        avg = AverageKernelLDA(kernels=kernels).fit(Vtr, y[tr])
        errors[names[M + 3]].append(one_nn_error(avg.embedding_, y[tr], avg.transform(Vte),
                                                 y[te]))
        times[names[M + 3]] += time.perf_counter() - t
        for key, name, est in (
            ("MKL-LDA", "MKL-LDA", MKLDR(kernels=kernels, random_state=fold)),
            ("MKL-LDA (paper)", names[-2], MKLDR(kernels=kernels, weight_shrinkage=0.0)),
            ("MKL-LDE", names[-1], MKLDR(graph="lde", n_components=9, kernels=kernels,
                                         max_iter=args.lde_iter, weight_shrinkage=0.0)),
        ):
            t = time.perf_counter()
            est.fit(Vtr, y[tr])
            errors[name].append(one_nn_error(est.embedding_, y[tr], est.transform(Vte), y[te]))
            times[name] += time.perf_counter() - t
            betas[key].append(est.kernel_weights_)
            iters[key].append(est.n_iter_)
            if key == "MKL-LDA":
                shrinkage.append(est.weight_shrinkage_)
        print(f"fold {fold}: " + ", ".join(f"{n.split(' (')[0]} {errors[n][-1]:.3f}"
                                            for n in names[M:]) +
              f"  ({time.perf_counter() - t_all:.0f}s)", flush=True)

    # runtime of one fit on 2000 samples x 6 views
    big = make_multiview_digits(views=VIEWS, n_samples=args.timing_n, random_state=1)
    timing = []
    for label, est in (("MKL-LDA (default: Cholesky A-step, weight_shrinkage='auto')",
                        MKLDR(kernels=big.kernels, random_state=0)),
                       ("MKL-LDA (weight_shrinkage=0)",
                        MKLDR(kernels=big.kernels, weight_shrinkage=0.0)),
                       ("MKL-LDE (9 dims, eigendecomposition A-step)",
                        MKLDR(graph="lde", n_components=9, kernels=big.kernels,
                              max_iter=args.lde_iter, weight_shrinkage=0.0))):
        t = time.perf_counter()
        est.fit(big.views, big.target)
        total = time.perf_counter() - t
        h = est.history_["time"]
        per_iter = np.diff([0.0] + h)
        timing.append((label, total, est.n_iter_, float(np.mean(per_iter)), h[0]))
        print(label, f"{total:.1f}s", flush=True)

    cmd = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/mkldr_digits.py"
    if argv:
        cmd += " " + " ".join(argv)
    lines = [
        "# MKL-DR on multi-view digits", "",
        f"Command: `{cmd}`", "",
        f"Data: `make_multiview_digits(views={VIEWS})`, 1797 digits, 10 classes; views: "
        + "; ".join(f"{n} ({d}, {V.shape[1]} features, {k} kernel)" for n, d, V, k in
                    zip(data.view_names, data.descriptions, views, kernels)) + ".",
        "",
        f"1-NN error, {args.folds}-fold stratified CV (shuffled, seed 0); mean +- std over "
        "folds; time is the total fit + predict time over all folds (single thread).", "",
        "| method | error (%) | std (%) | test errors (of 1797) | MKL-LDA better / tie / worse "
        "(folds) | time (s) |", "|---|---|---|---|---|---|",
    ]
    sizes = np.array([len(te) for _, te in skf.split(y, y)])
    mkl = np.array(errors["MKL-LDA"])
    for n in names:
        e = np.array(errors[n])
        tm = f"{times[n]:.1f}" if times[n] else "(inside KFD-Voting)"
        count = int(round(np.sum(e * sizes)))
        cmp = "" if n == "MKL-LDA" else (
            f"{np.sum(mkl < e - 1e-12)} / {np.sum(np.abs(mkl - e) <= 1e-12)} / "
            f"{np.sum(mkl > e + 1e-12)}")
        lines.append(f"| {n} | {100 * e.mean():.2f} | {100 * e.std():.2f} | {count} | {cmp} | "
                     f"{tm} |")
    lines += ["", "Mean kernel weights over folds (beta, normalised to sum 1):", "",
              "| method | " + " | ".join(VIEWS) + " | iterations (mean) |",
              "|---|" + "---|" * (M + 1)]
    for key in ("MKL-LDA", "MKL-LDA (paper)", "MKL-LDE"):
        b = np.mean(betas[key], axis=0)
        lines.append(f"| {key} | " + " | ".join(f"{x:.3f}" for x in b) +
                     f" | {np.mean(iters[key]):.1f} |")
    lines += ["", "MKL-LDA's `weight_shrinkage` chosen by inner CV in each fold (0 = the paper's "
              "weights, 1 = equal weights): " + ", ".join(f"{t:g}" for t in shrinkage) + "."]
    lines += ["", "Runtime of one fit on 2000 samples x 6 views (digits plus 203 one-pixel-shifted "
              "copies), single thread:", "",
              "| fit | total (s) | iterations | mean time per iteration (s) | "
              "kernels + init + first iteration (s) |", "|---|---|---|---|---|"]
    for label, total, it, per, first in timing:
        lines.append(f"| {label} | {total:.1f} | {it} | {per:.2f} | {first:.2f} |")
    lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
