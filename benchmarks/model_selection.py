"""Can the closed-form model selection be trusted? Model selection you can trust: the defaults
against the oracle and the obvious.

Part 1, quality: paper 000's protocol (``defaults.py``'s folds, embedding in ``C - 1``
dimensions, 1-NN and nearest centroid) on :data:`DATASETS`: ``KernelLDA`` and ``KQMI`` with
their defaults against the nested-CV oracle and the previous default (:func:`oracle`),
``graphdr.LDA()`` against scikit-learn's LDAs, KQMI's seed spread and the cost of the search
(:func:`run_fold`). Part 2, cost (``--cost``): the default fits against fixed ones at n = 600,
5000 and 20000 (:func:`cost`).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/model_selection.py
        [--datasets iris wine] [--n-jobs 2] [--cost]

Writes ``benchmarks/results/model_selection.md`` (per-fold rows in ``model_selection.csv``) and
``model_selection_cost.md``. ``--quick``: a smoke run of part 1 on iris and part 2 on 600
generated rows, nothing written here. Part 3, two careful oracles against each other, is
retired: ``docs/history.rst``.
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from collections import defaultdict

import common
import numpy as np
from defaults import UCI, folds, load

RESULTS = common.RESULTS

DATASETS = UCI + ("mnist2k", "iris", "wine", "breast_cancer", "digits")
SEEDS = range(6)


def errors(Ztr, ytr, Zte, yte):
    """(1-NN, NCC) test error rates in percent."""
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

    one = KNeighborsClassifier(1).fit(Ztr, ytr).predict(Zte)
    ncc = NearestCentroid().fit(Ztr, ytr).predict(Zte)
    return 100 * float(np.mean(one != yte)), 100 * float(np.mean(ncc != yte))


def timed_fit(est, X, y):
    seconds, est = common.best_time(lambda: est.fit(X, y))
    return est, seconds


def oracle(est, X, y, max_samples=10**9, n_folds=5):
    """``(gamma, reg)`` by inner cross-validation: by default 5 folds of every training row;
    ``max_samples=600, n_folds=3`` is the previous default (inner cross-validation)."""
    from graphdr.tuning import search

    def block_of(sizes):
        return est._class_objective_block(len(sizes), sizes)

    gamma, reg, _ = search(est, X, y, block_of=block_of, scaling=est.scaling,
                           max_samples=max_samples, n_folds=n_folds)
    return gamma, reg


def run_fold(name, fold, X, y, train, test):
    from sklearn.covariance import OAS
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
    from sklearn.preprocessing import MinMaxScaler

    from graphdr import KQMI, LDA, KernelLDA

    scaler = MinMaxScaler((-1, 1)).fit(X[train])
    Xtr, Xte, ytr, yte = scaler.transform(X[train]), scaler.transform(X[test]), y[train], y[test]
    k = min(len(np.unique(ytr)) - 1, Xtr.shape[1])
    rows = []

    def record(method, est, seconds, **extra):
        e1, ec = errors(est.transform(Xtr), ytr, est.transform(Xte), yte)
        rows.append(dict(dataset=name, fold=fold, method=method, err_1nn=e1, err_ncc=ec,
                         seconds=seconds, gamma=getattr(est, "gamma_", ""),
                         reg=getattr(est, "reg_", ""), **extra))

    for label, cls in (("KernelLDA", KernelLDA), ("KQMI", KQMI)):
        est, t_auto = timed_fit(cls(), Xtr, ytr)
        fixed, t_fixed = timed_fit(cls(gamma=est.gamma_, reg=est.reg_), Xtr, ytr)
        record(label, est, t_auto, fixed_seconds=t_fixed)
        g, r = oracle(cls(), Xtr, ytr)
        best, t_best = timed_fit(cls(gamma=g, reg=r), Xtr, ytr)
        record(label + " oracle", best, t_best)
        if label == "KernelLDA":
            g, r = oracle(cls(), Xtr, ytr, max_samples=600, n_folds=3)
            record(label + " 3-fold", cls(gamma=g, reg=r).fit(Xtr, ytr), 0.0)
        if label == "KQMI":
            choices = {(est.gamma_, est.reg_)}
            for s in SEEDS:
                other = cls(random_state=s).fit(Xtr, ytr)
                choices.add((other.gamma_, other.reg_))
                record(f"KQMI seed {s}", other, 0.0)
            rows[-1]["distinct_choices"] = len(choices)
    lda, t = timed_fit(LDA(), Xtr, ytr)
    record("LDA", lda, t)
    for label, sk in (("sklearn LDA svd", SkLDA(n_components=k)),
                      ("sklearn LDA Ledoit-Wolf", SkLDA(n_components=k, solver="eigen",
                                                        shrinkage="auto")),
                      ("sklearn LDA OAS", SkLDA(n_components=k, solver="eigen",
                                                covariance_estimator=OAS()))):
        est, t = timed_fit(sk, Xtr, ytr)
        record(label, est, t)
    return rows


FIELDS = ["dataset", "fold", "method", "err_1nn", "err_ncc", "seconds", "fixed_seconds",
          "gamma", "reg", "distinct_choices"]


LDA_CANDIDATES = ("LDA", "sklearn LDA svd", "sklearn LDA Ledoit-Wolf", "sklearn LDA OAS")


def _per_fold_peek(table, ds, sk_best):
    """Excess over ``sk_best`` of a selector that picks, on every fold, the candidate of
    :data:`LDA_CANDIDATES` with the fewest test errors (1-NN + NCC): it sees the test fold,
    so no rule that chooses among these models can do better."""
    errs = np.array([[[float(r["err_1nn"]), float(r["err_ncc"])]
                      for r in sorted(table[(ds, m)], key=lambda r: int(r["fold"]))]
                     for m in LDA_CANDIDATES])  # candidates x folds x 2
    pick = np.argmin(errs.sum(axis=2), axis=0)
    chosen = errs[pick, np.arange(errs.shape[1])].mean(axis=0)
    return float(max(chosen[i] - sk_best[i] for i in (0, 1)))


def summarise(rows, datasets, sample_counts):
    table, verdicts = {}, defaultdict(list)
    for r in rows:
        table.setdefault((r["dataset"], r["method"]), []).append(r)
    out = common.table(("set", "one test sample", "KernelLDA 1-NN / NCC", "oracle",
                        "previous (3-fold)", "KQMI 1-NN / NCC", "oracle",
                        "KQMI seed spread 1-NN / NCC", "cost ratio KernelLDA / KQMI",
                        "LDA 1-NN / NCC", "sklearn svd", "sklearn Ledoit-Wolf", "sklearn OAS"))

    def mean(ds, m, key):
        return float(np.mean([float(r[key]) for r in table[(ds, m)]]))

    for ds in (ds for ds in datasets if (ds, "LDA") in table):
        cell = {m: (mean(ds, m, "err_1nn"), mean(ds, m, "err_ncc")) for m in (
            "KernelLDA", "KernelLDA oracle", "KernelLDA 3-fold", "KQMI", "KQMI oracle",
            *LDA_CANDIDATES)}

        def excess(m, ref, cell=cell):  # the worse of 1-NN and NCC
            return max(cell[m][i] - ref[i] for i in (0, 1))

        spreads = [max(s) - min(s) for s in (
            [mean(ds, f"KQMI seed {s}", key) for s in SEEDS] + [mean(ds, "KQMI", key)]
            for key in ("err_1nn", "err_ncc"))]
        ratios = [float(np.sum([float(r["seconds"]) for r in table[(ds, m)]])
                        / np.sum([float(r["fixed_seconds"]) for r in table[(ds, m)]]))
                  for m in ("KernelLDA", "KQMI")]
        verdicts["kernel"] += [excess(m, cell[m + " oracle"]) for m in ("KernelLDA", "KQMI")]
        # another cross-validated selector against the oracle: how noisy the target itself is
        verdicts["kernel 3-fold"].append(excess("KernelLDA 3-fold", cell["KernelLDA oracle"]))
        sk_best = [min(cell[m][i] for m in ("sklearn LDA svd", "sklearn LDA Ledoit-Wolf"))
                   for i in (0, 1)]
        verdicts["lda"].append(excess("LDA", sk_best))
        # the floor of the LDA target: the candidate closest to it, chosen with the test errors
        verdicts["lda floor"].append((ds, min(excess(m, sk_best) for m in LDA_CANDIDATES)))
        verdicts["lda per-fold peek"].append((ds, _per_fold_peek(table, ds, sk_best)))
        # the same target for each of scikit-learn's two variants (the floor of the target)
        for m in ("sklearn LDA svd", "sklearn LDA Ledoit-Wolf"):
            verdicts[m].append(excess(m, sk_best))
        for m in (*LDA_CANDIDATES, "KernelLDA", "KernelLDA oracle", "KernelLDA 3-fold"):
            verdicts["mean " + m].append(np.mean(cell[m]))
        verdicts["spread"].append(max(spreads))
        verdicts["cost"].append(max(ratios))
        out.append(common.row(ds, f"{100 / sample_counts[ds]:.2f}", *(
            f"{cell[m][0]:.2f} / {cell[m][1]:.2f}" for m in (
                "KernelLDA", "KernelLDA oracle", "KernelLDA 3-fold", "KQMI", "KQMI oracle")),
            f"{spreads[0]:.2f} / {spreads[1]:.2f}", f"{ratios[0]:.1f} / {ratios[1]:.1f}",
            *(f"{cell[m][0]:.2f} / {cell[m][1]:.2f}" for m in LDA_CANDIDATES)))
    return out, verdicts


def quality(datasets, n_jobs):
    from joblib import Parallel, delayed

    tasks = []
    data = {}
    for ds in datasets:
        X, y = load(ds)
        data[ds] = (X, y)
        tasks += [(ds, f, X, y, tr, te) for f, (tr, te) in enumerate(folds(y))]
    t0 = time.time()
    rows = []
    with open(RESULTS / "model_selection.csv", "w", newline="") as fh:  # rows as folds finish
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        for part in Parallel(n_jobs=n_jobs, verbose=5, return_as="generator_unordered")(
                delayed(run_fold)(*t) for t in tasks):
            rows += part
            w.writerows({k: r.get(k, "") for k in FIELDS} for r in part)
            fh.flush()
    report(rows, datasets, data, time.time() - t0)


def report(rows, datasets, data, seconds):
    """Write ``model_selection.md`` from the per-fold rows."""
    lines, v = summarise(rows, datasets, {ds: len(data[ds][1]) for ds in datasets})
    shapes = ", ".join(f"{ds} {data[ds][0].shape[0]}x{data[ds][0].shape[1]}" for ds in datasets)
    head = [
        "# Model selection: defaults against the nested-CV oracle and scikit-learn's LDA",
        "",
        "Command: `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
        "benchmarks/model_selection.py --n-jobs 2`"
        + (f" `--datasets {' '.join(datasets)}`" if tuple(datasets) != DATASETS else ""),
        "",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, 2 processes of one "
        f"BLAS thread; {seconds:.0f} s. Data: {shapes}.",
        "",
        "Mean test error (%) over paper 000's 10 folds, embedding in C-1 dimensions, 1-NN / "
        "nearest centroid; 'one test sample' is what one misclassified sample adds to the "
        "mean error. 'previous': the inner 3-fold search on 600 rows of the previous default. "
        "'oracle': the (gamma, reg) of the default grid with the smallest "
        "5-fold inner cross-validated error on the whole training fold. Seed spread: max - min "
        "of the 10-fold error over KQMI(random_state=0..5) and the default. Cost ratio: "
        "default fit time over the fit time with the chosen values fixed (sum over folds).",
        "",
    ]

    def within(values, limit):
        return int(np.sum(np.array(values) <= limit))

    def floor(key):  # the sets within 0.3 of a target, and the others with their excess
        return (f"{sum(e <= 0.3 + 1e-9 for _, e in v[key])}",
                ", ".join(f"{ds} +{e:.2f}" for ds, e in v[key] if e > 0.3 + 1e-9))

    (floor_n, floor_out), (peek_n, peek_out) = floor("lda floor"), floor("lda per-fold peek")
    tail = [
        "",
        "Summary over the sets (the targets: within 0.5 points of the oracle, within 0.3 of "
        "scikit-learn's better LDA):",
        "",
        f"- KernelLDA and KQMI default minus oracle, worst of 1-NN / NCC: median "
        f"{np.median(v['kernel']):.2f}, max {np.max(v['kernel']):.2f} points; "
        f"{within(v['kernel'], 0.5)} of {len(v['kernel'])} within 0.5.",
        f"- graphdr.LDA minus the better of scikit-learn's svd and Ledoit-Wolf LDA, worst of "
        f"1-NN / NCC: median {np.median(v['lda']):.2f}, max {np.max(v['lda']):.2f} points; "
        f"{within(v['lda'], 0.3)} of {len(v['lda'])} within 0.3.",
        "- The floor of that target: the one of graphdr.LDA, scikit-learn's svd, Ledoit-Wolf "
        "and OAS LDA closest to it on each set, chosen with the test errors, is within 0.3 on "
        f"{floor_n} of {len(v['lda floor'])} sets ({floor_out}); choosing among them on every "
        f"fold with the test errors, on {peek_n} ({peek_out}). No rule that picks one of these "
        "models per fit meets the target on every set.",
        f"- The same target for scikit-learn's variants themselves: svd within 0.3 on "
        f"{within(v['sklearn LDA svd'], 0.3)} of {len(v['lda'])} sets (max "
        f"{np.max(v['sklearn LDA svd']):.2f}), Ledoit-Wolf on "
        f"{within(v['sklearn LDA Ledoit-Wolf'], 0.3)} (max "
        f"{np.max(v['sklearn LDA Ledoit-Wolf']):.2f}).",
        "- Mean over the sets of the mean of 1-NN and NCC errors: "
        + ", ".join(f"{m} {np.mean(v['mean ' + m]):.2f} %" for m in
                    ("LDA", "sklearn LDA svd", "sklearn LDA Ledoit-Wolf", "sklearn LDA OAS"))
        + ".",
        "- How noisy the oracle target is: the previous default, itself an inner "
        "cross-validation (3 folds on 600 rows), is within 0.5 of the oracle on "
        f"{within(v['kernel 3-fold'], 0.5)} of {len(v['kernel 3-fold'])} "
        f"sets (max {np.max(v['kernel 3-fold']):.2f}); KernelLDA's leave-one-out default on "
        f"{within(v['kernel'][::2], 0.5)} of {len(v['kernel'][::2])}.",
        "- KernelLDA, the same mean: default (leave-one-out) "
        f"{np.mean(v['mean KernelLDA']):.2f} %, nested-CV oracle "
        f"{np.mean(v['mean KernelLDA oracle']):.2f} %, previous default (3-fold on 600 rows) "
        f"{np.mean(v['mean KernelLDA 3-fold']):.2f} %.",
        f"- KQMI seed spread: max {np.max(v['spread']):.2f} points.",
        f"- Cost ratio: max {np.max(v['cost']):.1f}.",
    ]
    (RESULTS / "model_selection.md").write_text("\n".join(head + lines + tail) + "\n")
    print("\n".join(lines + tail))


def _eigh_floor(X, y):
    """Seconds of the search's unavoidable work: one eigendecomposition of the centred
    ``m x m`` kernel per width, on the rows the search uses (the exact leave-one-out needs
    every eigenvector)."""
    from scipy import linalg

    from graphdr.blocks.kernel_matrices import TrainingCentring
    from graphdr.blocks.sampling import row_keys, stratified_subsample
    from graphdr.tuning import GAMMA_FACTORS, MAX_SAMPLES_LOO, median_gamma

    idx = stratified_subsample(np.unique(y, return_inverse=True)[1], MAX_SAMPLES_LOO,
                               row_keys(X))
    Xs = X[idx]
    gamma0 = median_gamma(Xs)
    d2 = np.einsum("ij,ij->i", Xs, Xs)
    d2 = np.maximum(d2[:, None] + d2[None, :] - 2 * Xs @ Xs.T, 0)
    total = 0.0
    for f in GAMMA_FACTORS:
        K = np.exp(-gamma0 * f * d2)
        TrainingCentring.centre_in_place(K)
        t = time.perf_counter()
        linalg.eigh(K, overwrite_a=True, check_finite=False, driver="evd")
        total += time.perf_counter() - t
    return total, len(idx)


def cost(quick=False):
    """Part 2; ``quick``: KernelLDA and KQMI on 600 generated rows, once."""
    from sklearn.datasets import make_classification
    from sklearn.decomposition import PCA, KernelPCA
    from sklearn.model_selection import train_test_split

    from graphdr import CKFD, KQMI, KernelLDA, KernelLPP

    Xs, ys = make_classification(600 if quick else 20000, 50, n_informative=20, n_classes=10,
                                 n_clusters_per_class=2, random_state=0)
    if quick:
        Xm, ym = Xs, ys
    else:
        pixels, ym = common.load_shared("mnist5k")
        Xm = PCA(50, random_state=0).fit_transform(pixels)
    t0 = time.time()
    lines = ["# Cost of the default model selection", "",
             "Command: `.venv/bin/python benchmarks/model_selection.py --cost`", "",
             f"Machine: {platform.machine()}, 2 cores (BLAS threads as the machine sets). "
             "Data: mnist5k in 50 PCA dimensions (a stratified 600-row subsample, all 5000), "
             "make_classification (20000 x 50, 10 classes). Best of 2 runs for n <= 5000, "
             "one run at 20000. 'default': the estimator with its defaults; 'fixed': with the "
             "chosen gamma_ and reg_ given; 'search': the default minus the fixed fit; "
             "'floor': one eigendecomposition of the centred m x m kernel per width "
             "(7 widths), the part of the closed-form leave-one-out search no implementation "
             "can skip (every eigenvector enters the leverages). CKFD and supervised KernelLPP "
             "search by refitting (3 inner folds on at most 500 rows).", "", *common.table(
                 ("estimator", "n", "default fit (s)", "fixed fit (s)", "ratio", "search (s)",
                  "floor (s), m", "gamma_", "reg_"), align="l" + "r" * 8)]

    few = (np.arange(len(ym)) if quick else
           train_test_split(np.arange(len(ym)), train_size=600, stratify=ym, random_state=0)[0])
    sizes = ((600, Xm[np.sort(few)], ym[np.sort(few)]), (5000, Xm, ym), (20000, Xs, ys))
    for n, X, y in sizes[:1] if quick else sizes:
        repeats = 2 if n <= 5000 and not quick else 1
        floor, m = _eigh_floor(X, y)
        k = len(np.unique(y)) - 1
        makers = (KernelLDA, KQMI, CKFD, lambda k=k, **kw: KernelLPP(k, supervised=True, **kw))
        for make in makers[:2] if quick else makers:
            est = make()
            name = type(est).__name__
            if n == 20000 and name in ("CKFD", "KernelLPP"):
                continue  # Nystroem beyond 3000 samples: the search is the same as at 5000
            t_auto = min(timed_fit(make(), X, y)[1] for _ in range(repeats))
            est = make().fit(X, y)
            fixed = dict(gamma=est.gamma_)
            if "reg" in est.get_params():
                fixed["reg"] = est.reg_
            t_fixed = min(timed_fit(make(**fixed), X, y)[1] for _ in range(repeats))
            closed = name in ("KernelLDA", "KQMI")
            lines.append(f"| {name} | {n} | {t_auto:.2f} | {t_fixed:.2f} | "
                         f"{t_auto / t_fixed:.2f} | {t_auto - t_fixed:.2f} | "
                         + (f"{floor:.2f}, {m}" if closed else "") + " | "
                         f"{est.gamma_:.3g} | {getattr(est, 'reg_', 0):.3g} |")
            print(lines[-1], flush=True)
        if n == 5000:
            t_kpca = min(timed_fit(KernelPCA(n_components=9, kernel="rbf"), X, None)[1]
                         for _ in range(2))
            t_lda = min(timed_fit(KernelLDA(), X, y)[1] for _ in range(2))
            lines.append(f"| scikit-learn KernelPCA(9) | 5000 | {t_kpca:.2f} | | "
                         f"KernelLDA default / KernelPCA: {t_lda / t_kpca:.2f} | | | | |")
            print(lines[-1], flush=True)
    lines += ["", f"{time.time() - t0:.0f} s in all."]
    common.write_lines(RESULTS / "model_selection_cost.md", lines)


def _quick():
    """Part 1 on iris and part 2 on 600 generated rows, their files in a temporary folder."""
    with common.smoke_outputs(sys.modules[__name__]):
        quality(["iris"], 1)
        cost(quick=True)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--quick" in argv:
        return _quick()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(DATASETS))
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--cost", action="store_true", help="run part 2 (cost) instead of part 1")
    a = p.parse_args(argv)
    if a.cost:
        cost()
    else:
        quality(a.datasets, a.n_jobs)


if __name__ == "__main__":
    main()
