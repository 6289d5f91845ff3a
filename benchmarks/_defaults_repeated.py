"""Whether the defaults beat scikit-learn's LDA and the raw features on repeated cross-validation, with a
paired significance test.

``benchmarks/defaults.py`` measures every estimator on ONE stratified 10-fold split (paper
000's protocol). Its target tables compare single cells, and many of the cells that decide
targets 1 and 2 differ by one to seven test samples: a different shuffle of the folds moves
them either way. This benchmark repeats the same protocol (features scaled to [-1, 1] on the
training fold, 1-NN, 3-NN and nearest-centroid classifiers on the embedded training fold,
every estimator with its defaults) over ``R`` shuffles of the folds (seeds ``0..R-1``;
repeat 0 is ``defaults.py``'s split) for the methods the targets name: raw features,
``graphdr.LDA``, ``graphdr.KQMI``, scikit-learn's LDA (svd, and eigen with Ledoit-Wolf
shrinkage) and NCA. ``random_state`` of an estimator is ``100 * repeat + fold``.

Each comparison of two methods A and B on one (data set, classifier) pair reports the mean
test error over the repeats and the corrected resampled t-test of Nadeau & Bengio (2003) in
the form of Bouckaert & Frank (2004) for ``r`` repeats of ``k``-fold cross-validation:

.. math::

    t = \\frac{\\bar d}{\\sqrt{\\left(\\frac{1}{k r} + \\frac{n_2}{n_1}\\right)\\hat\\sigma^2}},
    \\qquad \\text{df} = k r - 1,

with :math:`d` the per-fold differences of error rates, :math:`\\hat\\sigma^2` their
variance and :math:`n_2 / n_1` the ratio of test to training samples (1/9). The correction
accounts for the overlap of the training sets, which makes the plain paired t-test far too
liberal. A target comparison "holds" when A's mean error is lower, "ties" when the errors are
equal, and is "worse" otherwise; "worse" is marked significant when the two-sided p-value
is below 0.05.

Results are cached per (data set, method, repeat, fold) in
``benchmarks/results/defaults_repeated.csv``; the report ``defaults_repeated.md`` is rewritten
from the whole cache after every run. Comparisons use the repeats both methods have.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --repeated \\
        [--repeats 0 1 2 3 4] [--datasets wine heart] [--methods lda kqmi] [--recompute] \\
        [--n-jobs 2] [--report-only]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import defaults as base  # noqa: E402  (the data sets, estimators and classifiers of defaults.py)

RESULTS = base.RESULTS
CSV_PATH = RESULTS / "defaults_repeated.csv"
MD_PATH = RESULTS / "defaults_repeated.md"
RUNS_PATH = RESULTS / "defaults_repeated_runs.json"
METHODS = ("raw", "lda", "kqmi", "sk-lda", "sk-lda-shrink", "nca")
N_FOLDS = base.N_FOLDS
CLASSIFIERS = base.CLASSIFIERS
FIELDS = ("dataset", "method", "repeat", "fold", "classifier", "n_train", "n_test", "n_errors",
          "seconds", "commit")
ALPHA = 0.05


def repeat_folds(y, repeat):
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=repeat).split(y, y))


def run_cell(dataset, method, repeat, fold, X, y, train, test):
    """Errors of the three classifiers on one test fold; list of CSV rows."""
    from graphdr.bench.evaluation import make_classifier, make_scaler

    t0 = time.perf_counter()
    scaler = make_scaler(base.protocol().scaling).fit(X[train])
    Xtr, Xte, ytr, yte = scaler.transform(X[train]), scaler.transform(X[test]), y[train], y[test]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = base.build(method, seed=100 * repeat + fold).fit(Xtr, ytr)
        Ztr, Zte = est.transform(Xtr), est.transform(Xte)
        errors = {clf: int(np.sum(make_classifier(clf).fit(Ztr, ytr).predict(Zte) != yte))
                  for clf in CLASSIFIERS}
    seconds = round(time.perf_counter() - t0, 3)
    return (dataset, method, repeat, fold), [
        dict(dataset=dataset, method=method, repeat=repeat, fold=fold, classifier=clf,
             n_train=len(train), n_test=len(test), n_errors=n, seconds=seconds)
        for clf, n in errors.items()]


# ----- cache ------------------------------------------------------------------------------
def read_cache():
    cells = {}
    if CSV_PATH.exists():
        with open(CSV_PATH, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["dataset"], row["method"], int(row["repeat"]), int(row["fold"]))
                cells.setdefault(key, []).append(row)
    return cells


def write_cache(cells):
    tmp = CSV_PATH.with_suffix(".csv.tmp")
    order = {d: i for i, d in enumerate(base.DATASETS)}
    morder = {m: i for i, m in enumerate(METHODS)}
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for key in sorted(cells, key=lambda k: (order[k[0]], morder[k[1]], k[2], k[3])):
            for r in cells[key]:
                w.writerow({k: r[k] for k in FIELDS})
    tmp.replace(CSV_PATH)


# ----- statistics -------------------------------------------------------------------------
def fold_counts(cells, dataset, method, clf):
    """{(repeat, fold): (errors, test samples)} of the complete repeats (all folds present)."""
    rates = {}
    for (ds, m, rep, fold), rows in cells.items():
        if ds == dataset and m == method:
            for r in rows:
                if r["classifier"] == clf:
                    rates[(rep, fold)] = (int(r["n_errors"]), int(r["n_test"]))
    complete = {rep for rep in {k[0] for k in rates}
                if all((rep, f) in rates for f in range(N_FOLDS))}
    return {k: v for k, v in rates.items() if k[0] in complete}


def corrected_ttest(diffs, test_over_train):
    """Two-sided p-value of the corrected resampled t-test (1 when every difference is 0)."""
    from scipy.stats import t as student_t

    diffs = np.asarray(diffs, dtype=float)
    var = diffs.var(ddof=1) if len(diffs) > 1 else 0.0
    if var == 0.0:
        return 1.0 if np.all(diffs == 0) else 0.0
    stat = diffs.mean() / np.sqrt((1.0 / len(diffs) + test_over_train) * var)
    return float(2.0 * student_t.sf(abs(stat), df=len(diffs) - 1))


def pooled_error(counts, keys=None):
    """Errors over test samples of the folds ``keys`` (default: all), in %."""
    keys = counts if keys is None else keys
    return 100.0 * sum(counts[k][0] for k in keys) / max(sum(counts[k][1] for k in keys), 1)


def compare(cells, dataset, a, clf_a, b, clf_b):
    """dict(mean_a, mean_b: error in % over all test folds, p, repeats) over the repeats both
    have, or None."""
    ca, cb = fold_counts(cells, dataset, a, clf_a), fold_counts(cells, dataset, b, clf_b)
    keys = sorted(set(ca) & set(cb))
    if not keys:
        return None
    n_repeats = len({k[0] for k in keys})
    diffs = [(ca[k][0] - cb[k][0]) / ca[k][1] for k in keys]
    return dict(mean_a=pooled_error(ca, keys), mean_b=pooled_error(cb, keys),
                p=corrected_ttest(diffs, 1.0 / (N_FOLDS - 1)), repeats=n_repeats)


def verdict(c):
    if abs(c["mean_a"] - c["mean_b"]) < 1e-9:  # the same number of errors
        return "tie"
    if c["mean_a"] < c["mean_b"]:
        return "better" + (" (sig.)" if c["p"] < ALPHA else "")
    return "worse" + (" (sig.)" if c["p"] < ALPHA else "")


# ----- report -----------------------------------------------------------------------------
def target_rows(cells, datasets, a, refs, *, tie_holds):
    """Table rows and the list of failing comparisons of method ``a`` against ``refs``:
    (label, method, classifier or None for 'the same as a'); a tie fails unless
    ``tie_holds`` ("never worse")."""
    rows, fails, n = [], [], 0
    for ds in datasets:
        for clf in CLASSIFIERS:
            parts = []
            for label, ref, ref_clf in refs:
                c = compare(cells, ds, a, clf, ref, ref_clf or clf)
                if c is None:
                    parts.append("n/a")
                    continue
                n += 1
                v = verdict(c)
                text = f"{c['mean_a']:.2f} vs {c['mean_b']:.2f} ({v}, p={c['p']:.2f})"
                if not (v.startswith("better") or (tie_holds and v == "tie")):
                    text = f"**{text}**"
                    fails.append((ds, base.CLF_LABEL[clf], label, c, v))
                parts.append(text)
            rows.append(f"| {ds} | {base.CLF_LABEL[clf]} | " + " | ".join(parts) + " |")
    return rows, fails, n


def fail_summary(fails, n):
    if not fails:
        return [f"- **holds** in all {n} comparisons."]
    sig = [f for f in fails if f[4].endswith("(sig.)")]
    lines = [f"- fails in {len(fails)} of {n} comparisons ({len(sig)} significantly worse at "
             f"p < {ALPHA}):"]
    for ds, clf, label, c, v in fails:
        lines.append(f"  - {ds} / {clf} against {label}: {c['mean_a']:.2f} % vs "
                     f"{c['mean_b']:.2f} % ({v}, p = {c['p']:.2f}, {c['repeats']} repeats)")
    return lines


def report(cells, runs):
    datasets = [d for d in base.DATASETS if any(k[0] == d for k in cells)]
    repeats = sorted({k[2] for k in cells})
    lines = ["# The defaults' targets on repeated 10-fold cross-validation", "",
             "Produced by (cells cached in `defaults_repeated.csv`):", "",
             "    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
             "benchmarks/defaults.py --repeated --repeats " + " ".join(map(str, repeats))
             + " --n-jobs 2", "",
             "Protocol of `defaults.md` (paper 000's, every estimator with its defaults), "
             f"repeated over the fold shuffles {repeats} (repeat 0 is `defaults.md`'s split). "
             "Each entry: test error in % over all test folds of the repeats both methods have, the verdict "
             "(lower error = better; target 1 holds on a tie, target 2 needs strictly lower) "
             "and the two-sided p-value of the corrected resampled t-test (Nadeau & Bengio; "
             "see the module docstring). Bold: the target fails.", "",
             "graphdr commit(s) of the cells: "
             + ", ".join(sorted({r["commit"] for rows in cells.values() for r in rows})) + ".",
             ""]
    n_rep = {(ds, m): len({k[2] for k in cells if k[0] == ds and k[1] == m
                           and all((ds, m, k[2], f) in cells for f in range(N_FOLDS))})
             for ds in datasets for m in METHODS}
    lines += ["Complete repeats per (data set, method): " + "; ".join(
        f"{ds}: " + ", ".join(f"{base.METHODS[m][0]} {n_rep[(ds, m)]}" for m in METHODS)
        for ds in datasets) + ".", ""]
    lines += ["## Mean error over the repeats (%)", ""]
    for clf in CLASSIFIERS:
        lines += [f"### {base.CLF_LABEL[clf]}", "",
                  "| data set | " + " | ".join(base.METHODS[m][0] for m in METHODS) + " |",
                  "|---|" + "---:|" * len(METHODS)]
        for ds in datasets:
            vals = []
            for m in METHODS:
                r = fold_counts(cells, ds, m, clf)
                vals.append(f"{pooled_error(r):.2f}" if r else "")
            lines.append(f"| {ds} | " + " | ".join(vals) + " |")
        lines.append("")
    lines += ["## Target 1: graphdr.LDA never worse than scikit-learn's LDA", "",
              "| data set | classifier | LDA vs sk-LDA (svd) | LDA vs sk-LDA-shrink |",
              "|---|---|---|---|"]
    refs1 = [("sk-LDA", "sk-lda", None), ("sk-LDA-shrink", "sk-lda-shrink", None)]
    rows, fails, n = target_rows(cells, datasets, "lda", refs1, tie_holds=True)
    lines += rows + [""]
    for label, _, _ in refs1:
        sub = [f for f in fails if f[2] == label]
        lines += [f"Against {label}:"] + fail_summary(sub, n // 2) + [""]
    lines += ["## Target 2: KQMI better than raw 1-NN, scikit-learn's LDA and NCA", "",
              "| data set | classifier | KQMI vs raw 1-NN | KQMI vs sk-LDA | KQMI vs NCA |",
              "|---|---|---|---|---|"]
    refs2 = [("raw 1-NN", "raw", "1nn"), ("sk-LDA", "sk-lda", None), ("NCA", "nca", None)]
    rows, fails, n = target_rows(cells, datasets, "kqmi", refs2, tie_holds=False)
    lines += rows + [""] + fail_summary(fails, n) + [""]
    lines += ["## Runs", "", "| end of run (UTC) | command | cells | wall time (min) |",
              "|---|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['date']} | `{r['command']}` | {r['cells']} | "
                     f"{r['wall_seconds'] / 60:.1f} |")
    MD_PATH.write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--datasets", nargs="+", choices=base.DATASETS)
    ap.add_argument("--methods", nargs="+", choices=METHODS)
    ap.add_argument("--recompute", action="store_true")
    ap.add_argument("--n-jobs", type=int, default=1, choices=(1, 2))
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    cells = read_cache()
    runs = json.loads(RUNS_PATH.read_text()) if RUNS_PATH.exists() else []
    if not args.report_only:
        todo, data = [], {}
        for ds in args.datasets or base.DATASETS:
            X, y = data[ds] = base.load(ds)
            for rep in args.repeats:
                for fold, (tr, te) in enumerate(repeat_folds(y, rep)):
                    for m in args.methods or METHODS:
                        if args.recompute or (ds, m, rep, fold) not in cells:
                            todo.append((ds, m, rep, fold, tr, te))
        todo.sort(key=lambda t: -len(data[t[0]][1]) * data[t[0]][0].shape[1])
        print(f"{len(todo)} cells to compute", flush=True)
        commit = base.git_commit()
        t0 = time.perf_counter()
        from joblib import Parallel, delayed

        jobs = (delayed(run_cell)(ds, m, rep, fold, *data[ds], tr, te)
                for ds, m, rep, fold, tr, te in todo)
        for i, (key, rows) in enumerate(Parallel(n_jobs=args.n_jobs,
                                                 return_as="generator_unordered")(jobs)):
            for r in rows:
                r["commit"] = commit
            cells[key] = rows
            if i % 20 == 0:  # the complete cache is written after the loop
                write_cache(cells)
            print(f"[{i + 1}/{len(todo)}] {key}: 1-NN errors {rows[0]['n_errors']} "
                  f"({rows[0]['seconds']:.1f}s, {time.perf_counter() - t0:.0f}s total)",
                  flush=True)
        write_cache(cells)
        if todo:
            base.record_run(runs, RUNS_PATH, "benchmarks/defaults.py --repeated", len(todo), t0)
    if cells:
        report(cells, runs)
        print(f"wrote {MD_PATH}")


if __name__ == "__main__":
    main()
