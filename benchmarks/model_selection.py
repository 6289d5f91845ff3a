"""Model selection you can trust (issue 27): the defaults against the oracle and the obvious.

Part 1, quality. Paper 000's protocol (features scaled to [-1, 1] on the training fold,
stratified 10-fold CV shuffled with seed 0, embedding in ``C - 1`` dimensions, 1-NN and nearest
centroid (NCC) trained on the embedded training fold), on the shared sets, mnist2k (a
stratified 2000-sample subsample of mnist5k, as in ``defaults.py``) and scikit-learn's iris,
wine, breast_cancer and digits. Per set, the mean test error over the 10 folds of

* ``KernelLDA`` / ``KQMI`` with their defaults (``gamma='auto', reg='auto'``: the closed-form
  leave-one-out choice, :func:`graphdr.tuning.loo_search`);
* the same estimators with the ``(gamma, reg)`` of the grid chosen by nested cross-validation
  (the oracle a careful user would run with GridSearchCV): 5 inner stratified folds of the
  whole training fold, the 1-NN, 3-NN and NCC errors of every pair of the default grids
  (:func:`graphdr.tuning.search` with no subsample);
* ``graphdr.LDA()`` against scikit-learn's ``LinearDiscriminantAnalysis`` with
  ``solver='svd'``, ``solver='eigen', shrinkage='auto'`` (Ledoit-Wolf) and
  ``solver='eigen', covariance_estimator=OAS()``;
* the seed spread: ``KQMI(random_state=s)`` for ``s = 0..5`` (the number of distinct
  ``(gamma_, reg_)`` it chose per fold, and the spread of its 10-fold errors);
* the cost ratio: default fit time over the fit time with the chosen values fixed.

Part 2, cost (``--cost``): KernelLDA and KQMI default against fixed fits at n = 600, 5000
(mnist5k, PCA to 50 dimensions) and 20000 (``make_classification``, 50 features, 10 classes),
and KernelLDA(5000) default against scikit-learn's KernelPCA(5000).

Part 3, the refitted estimators (``--refit``): CKFD and supervised KernelLPP with the
cross-validated search (``gamma='auto'``) against the median heuristic with no search
(``gamma = 1 / median squared distance``, KernelLPP ``reg=1e-3``) and against the width (and
ridge) of KernelLDA's closed-form leave-one-out choice, same protocol as part 1
(CKFD at its default dimension, KernelLPP at ``C - 1``), errors and fit times.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/model_selection.py \\
        [--datasets iris wine] [--n-jobs 2] [--cost | --refit]

Writes ``benchmarks/results/model_selection.md`` (quality; per-fold rows in
``model_selection.csv``) and ``benchmarks/results/model_selection_cost.md`` (``--cost``).
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "results"

from defaults import UCI, folds  # noqa: E402
from defaults import load as load_shared  # noqa: E402

DATASETS = UCI + ("mnist2k", "iris", "wine", "breast_cancer", "digits")
SEEDS = range(6)


def load(name):
    if name == "iris":
        from sklearn.datasets import load_iris

        X, y = load_iris(return_X_y=True)
        return X.astype(np.float64), y.astype(np.intp)
    return load_shared(name)


def errors(Ztr, ytr, Zte, yte):
    """(1-NN, NCC) test error rates in percent."""
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

    one = KNeighborsClassifier(1).fit(Ztr, ytr).predict(Zte)
    ncc = NearestCentroid().fit(Ztr, ytr).predict(Zte)
    return 100 * float(np.mean(one != yte)), 100 * float(np.mean(ncc != yte))


def timed_fit(est, X, y):
    t = time.perf_counter()
    est.fit(X, y)
    return est, time.perf_counter() - t


def oracle(est, X, y, max_samples=10**9, n_folds=5):
    """``(gamma, reg)`` by inner cross-validation: by default 5 folds of every training row;
    ``max_samples=600, n_folds=3`` is the previous default (graphdr 0.x before issue 27)."""
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


def summarise(rows, datasets, sample_counts):
    table = {}
    for r in rows:
        table.setdefault((r["dataset"], r["method"]), []).append(r)
    out = []
    hdr = ("| set | one test sample | KernelLDA 1-NN / NCC | oracle | previous (3-fold) | "
           "KQMI 1-NN / NCC | oracle | KQMI seed spread 1-NN / NCC | "
           "cost ratio KernelLDA / KQMI | LDA 1-NN / NCC | sklearn svd | "
           "sklearn Ledoit-Wolf | sklearn OAS |")
    out += [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    verdicts = dict(kernel=[], lda=[], spread=[], cost=[])

    def mean(ds, m, key):
        return float(np.mean([float(r[key]) for r in table[(ds, m)]]))

    for ds in datasets:
        if (ds, "LDA") not in table:
            continue
        n = sample_counts[ds]
        cell = {}
        for m in ("KernelLDA", "KernelLDA oracle", "KernelLDA 3-fold", "KQMI", "KQMI oracle", "LDA",
                  "sklearn LDA svd", "sklearn LDA Ledoit-Wolf", "sklearn LDA OAS"):
            cell[m] = (mean(ds, m, "err_1nn"), mean(ds, m, "err_ncc"))
        spreads = []
        for key in ("err_1nn", "err_ncc"):
            per_seed = [mean(ds, f"KQMI seed {s}", key) for s in SEEDS] + [mean(ds, "KQMI", key)]
            spreads.append(max(per_seed) - min(per_seed))
        ratios = [float(np.sum([float(r["seconds"]) for r in table[(ds, m)]])
                        / np.sum([float(r["fixed_seconds"]) for r in table[(ds, m)]]))
                  for m in ("KernelLDA", "KQMI")]
        for m in ("KernelLDA", "KQMI"):
            verdicts["kernel"].append(max(cell[m][i] - cell[m + " oracle"][i] for i in (0, 1)))
        sk_best = [min(cell[m][i] for m in ("sklearn LDA svd", "sklearn LDA Ledoit-Wolf"))
                   for i in (0, 1)]
        verdicts["lda"].append(max(cell["LDA"][i] - sk_best[i] for i in (0, 1)))
        # the same target for each of scikit-learn's two variants (the floor of the target)
        for m in ("sklearn LDA svd", "sklearn LDA Ledoit-Wolf"):
            verdicts.setdefault(m, []).append(max(cell[m][i] - sk_best[i] for i in (0, 1)))
        for m in ("LDA", "sklearn LDA svd", "sklearn LDA Ledoit-Wolf", "sklearn LDA OAS",
                  "KernelLDA", "KernelLDA oracle", "KernelLDA 3-fold"):
            verdicts.setdefault("mean " + m, []).append(np.mean(cell[m]))
        verdicts["spread"].append(max(spreads))
        verdicts["cost"].append(max(ratios))

        def f(m, cell=cell):
            return f"{cell[m][0]:.2f} / {cell[m][1]:.2f}"

        out.append(
            f"| {ds} | {100 / n:.2f} | {f('KernelLDA')} | {f('KernelLDA oracle')} | "
            f"{f('KernelLDA 3-fold')} | {f('KQMI')} | "
            f"{f('KQMI oracle')} | {spreads[0]:.2f} / {spreads[1]:.2f} | "
            f"{ratios[0]:.1f} / {ratios[1]:.1f} | {f('LDA')} | {f('sklearn LDA svd')} | "
            f"{f('sklearn LDA Ledoit-Wolf')} | {f('sklearn LDA OAS')} |")
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
    tail = [
        "",
        "Summary over the sets (the targets of issue 27):",
        "",
        f"- KernelLDA and KQMI default minus oracle, worst of 1-NN / NCC: median "
        f"{np.median(v['kernel']):.2f}, max {np.max(v['kernel']):.2f} points; "
        f"{int(np.sum(np.array(v['kernel']) <= 0.5))} of {len(v['kernel'])} within 0.5.",
        f"- graphdr.LDA minus the better of scikit-learn's svd and Ledoit-Wolf LDA, worst of "
        f"1-NN / NCC: median {np.median(v['lda']):.2f}, max {np.max(v['lda']):.2f} points; "
        f"{int(np.sum(np.array(v['lda']) <= 0.3))} of {len(v['lda'])} within 0.3.",
        f"- The same target for scikit-learn's variants themselves: svd within 0.3 on "
        f"{int(np.sum(np.array(v['sklearn LDA svd']) <= 0.3))} of {len(v['lda'])} sets (max "
        f"{np.max(v['sklearn LDA svd']):.2f}), Ledoit-Wolf on "
        f"{int(np.sum(np.array(v['sklearn LDA Ledoit-Wolf']) <= 0.3))} (max "
        f"{np.max(v['sklearn LDA Ledoit-Wolf']):.2f}).",
        "- Mean over the sets of the mean of 1-NN and NCC errors: "
        + ", ".join(f"{m} {np.mean(v['mean ' + m]):.2f} %" for m in
                    ("LDA", "sklearn LDA svd", "sklearn LDA Ledoit-Wolf", "sklearn LDA OAS"))
        + ".",
        "- KernelLDA, the same mean: default (leave-one-out) "
        f"{np.mean(v['mean KernelLDA']):.2f} %, nested-CV oracle "
        f"{np.mean(v['mean KernelLDA oracle']):.2f} %, previous default (3-fold on 600 rows) "
        f"{np.mean(v['mean KernelLDA 3-fold']):.2f} %.",
        f"- KQMI seed spread: max {np.max(v['spread']):.2f} points.",
        f"- Cost ratio: max {np.max(v['cost']):.1f}.",
    ]
    (RESULTS / "model_selection.md").write_text("\n".join(head + lines + tail) + "\n")
    print("\n".join(lines + tail))


def run_refit_fold(name, fold, X, y, train, test):
    from sklearn.preprocessing import MinMaxScaler

    from graphdr import CKFD, KernelLDA, KernelLPP
    from graphdr.tuning import median_gamma

    scaler = MinMaxScaler((-1, 1)).fit(X[train])
    Xtr, Xte, ytr, yte = scaler.transform(X[train]), scaler.transform(X[test]), y[train], y[test]
    k = min(len(np.unique(ytr)) - 1, Xtr.shape[1])
    g0 = median_gamma(Xtr)
    rows = []
    loo = KernelLDA().fit(Xtr, ytr)  # the closed-form leave-one-out choice of kernel LDA
    for label, est in (("CKFD search", CKFD()), ("CKFD median", CKFD(gamma=g0)),
                       ("CKFD loo", CKFD(gamma=loo.gamma_)),
                       ("KernelLPP search", KernelLPP(k, supervised=True)),
                       ("KernelLPP median", KernelLPP(k, supervised=True, gamma=g0, reg=1e-3)),
                       ("KernelLPP loo", KernelLPP(k, supervised=True, gamma=loo.gamma_,
                                                   reg=loo.reg_))):
        est, t = timed_fit(est, Xtr, ytr)
        e1, ec = errors(est.transform(Xtr), ytr, est.transform(Xte), yte)
        rows.append(dict(dataset=name, fold=fold, method=label, err_1nn=e1, err_ncc=ec,
                         seconds=t, gamma=est.gamma_ / g0, reg=getattr(est, "reg_", "")))
    return rows


def refit(datasets, n_jobs):
    from joblib import Parallel, delayed

    tasks = []
    for ds in datasets:
        X, y = load(ds)
        tasks += [(ds, f, X, y, tr, te) for f, (tr, te) in enumerate(folds(y))]
    t0 = time.time()
    results = Parallel(n_jobs=n_jobs, verbose=5)(delayed(run_refit_fold)(*t) for t in tasks)
    rows = [r for part in results for r in part]
    table = {}
    for r in rows:
        table.setdefault((r["dataset"], r["method"]), []).append(r)
    lines = ["# CKFD and supervised KernelLPP: search or the median heuristic (issue 27, item 3)",
             "", "Command: `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
             "benchmarks/model_selection.py --refit --n-jobs 2`", "",
             f"Machine: {platform.machine()}, 2 processes of one BLAS thread; "
             f"{time.time() - t0:.0f} s. Paper 000's 10 folds, mean test error (%) 1-NN / NCC; "
             "time: mean fit seconds; gamma: chosen width over the median heuristic "
             "(geometric mean over folds).", "",
             "| set | CKFD search | time | gamma | CKFD median | time | CKFD loo | time "
             "| KernelLPP search | time | gamma | KernelLPP median | time | KernelLPP loo | time |",
             "|" + "---|" * 15]
    diffs = {f"{m} {v}": [] for m in ("CKFD", "KernelLPP") for v in ("median", "loo")}
    for ds in datasets:
        cells = []
        for m in ("CKFD", "KernelLPP"):
            for variant in ("search", "median", "loo"):
                rs = table[(ds, f"{m} {variant}")]
                e1 = np.mean([r["err_1nn"] for r in rs])
                ec = np.mean([r["err_ncc"] for r in rs])
                cells.append(f"{e1:.2f} / {ec:.2f}")
                cells.append(f"{np.mean([r['seconds'] for r in rs]):.2f}")
                if variant == "search":
                    cells.append(f"{np.exp(np.mean(np.log([r['gamma'] for r in rs]))):.2g}")
                    base = (e1, ec)
                else:
                    diffs[f"{m} {variant}"].append(max(e1 - base[0], ec - base[1]))
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    lines += ["", "'loo': the width (and for KernelLPP the ridge) KernelLDA's closed-form "
              "leave-one-out choice gives on the same fold. Minus search, worst of 1-NN / NCC, "
              "per set: "
              + "; ".join(f"{m}: mean {np.mean(v):.2f}, max {np.max(v):.2f}, min "
                          f"{np.min(v):.2f} points" for m, v in diffs.items())]
    (RESULTS / "model_selection_refit.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def cost():
    from sklearn.datasets import make_classification
    from sklearn.decomposition import PCA, KernelPCA

    from graphdr import KQMI, KernelLDA

    d = np.load(ROOT.parent.parent / "shared" / "datasets" / "mnist5k.npz")
    Xm = PCA(50, random_state=0).fit_transform(d["X"].reshape(len(d["y"]), -1) / 255.0)
    ym = d["y"]
    Xs, ys = make_classification(20000, 50, n_informative=20, n_classes=10,
                                 n_clusters_per_class=2, random_state=0)
    lines = ["# Cost of the default model selection (issue 27, item 3)", "",
             "Command: `.venv/bin/python benchmarks/model_selection.py --cost`", "",
             f"Machine: {platform.machine()}, 2 cores (BLAS threads as the machine sets). "
             "Best of 2 runs for n <= 5000, one run at 20000.", "",
             "| estimator | n | default fit (s) | fixed fit (s) | ratio | gamma_ | reg_ |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for n, X, y in ((600, Xm[:600], ym[:600]), (5000, Xm, ym), (20000, Xs, ys)):
        repeats = 2 if n <= 5000 else 1
        for cls in (KernelLDA, KQMI):
            t_auto = min(timed_fit(cls(), X, y)[1] for _ in range(repeats))
            est = cls().fit(X, y)
            t_fixed = min(timed_fit(cls(gamma=est.gamma_, reg=est.reg_), X, y)[1]
                          for _ in range(repeats))
            lines.append(f"| {cls.__name__} | {n} | {t_auto:.2f} | {t_fixed:.2f} | "
                         f"{t_auto / t_fixed:.2f} | {est.gamma_:.3g} | {est.reg_:.3g} |")
            print(lines[-1], flush=True)
        if n == 5000:
            t_kpca = min(timed_fit(KernelPCA(n_components=9, kernel="rbf"), X, None)[1]
                         for _ in range(2))
            lines.append(f"| scikit-learn KernelPCA(9) | 5000 | {t_kpca:.2f} | | | | |")
            print(lines[-1], flush=True)
    (RESULTS / "model_selection_cost.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(DATASETS))
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--cost", action="store_true", help="run part 2 (cost) instead of part 1")
    p.add_argument("--refit", action="store_true", help="run part 3 (CKFD, KernelLPP)")
    p.add_argument("--report-seconds", default=None, help="run time to print (--report-only)")
    p.add_argument("--report-only", action="store_true",
                   help="rewrite model_selection.md from model_selection.csv")
    a = p.parse_args(argv)
    if a.report_only:
        with open(RESULTS / "model_selection.csv") as fh:
            rows = list(csv.DictReader(fh))
        datasets = [ds for ds in a.datasets if any(r["dataset"] == ds for r in rows)]
        seconds = float(a.report_seconds) if a.report_seconds else float("nan")
        report(rows, datasets, {ds: load(ds) for ds in datasets}, seconds)
    elif a.cost:
        cost()
    elif a.refit:
        refit(a.datasets, a.n_jobs)
    else:
        quality(a.datasets, a.n_jobs)


if __name__ == "__main__":
    main()
