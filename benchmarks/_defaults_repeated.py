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

Each repeat is one run of graphdr bench's ``defaults`` protocol with ``--seed`` the repeat
(its folds: ``StratifiedKFold(10, shuffle=True, random_state=repeat)``): repeat 0 is
``defaults.py``'s own cells (``benchmarks/results/defaults/``), the others are in
``benchmarks/results/defaults_repeated/`` (``repeat1`` ... ``repeat4``). The report
``defaults_repeated.md`` is rewritten from all of them after every run. Comparisons use the
repeats both methods have.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py --repeated \\
        [--repeats 0 1 2 3 4] [--datasets wine heart] [--methods lda kqmi] [--recompute] \\
        [--n-jobs 2] [--report-only]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import defaults as base  # noqa: E402  (the data sets, methods and protocol of defaults.py)

RESULTS = base.RESULTS
OUT = RESULTS / "defaults_repeated"
MD_PATH = RESULTS / "defaults_repeated.md"
RUNS_PATH = RESULTS / "defaults_repeated_runs.json"
METHODS = ("raw", "lda", "kqmi", "sk-lda", "sk-lda-shrink", "nca")
N_FOLDS = base.N_FOLDS
CLASSIFIERS = base.CLASSIFIERS
ALPHA = 0.05


def _out(repeat):
    return base.OUT if repeat == 0 else OUT / f"repeat{repeat}"


def run(datasets, methods, repeats, n_jobs, recompute):
    """Each repeat's missing cells through graphdr bench; the number computed."""
    from graphdr.bench.runner import run_bench

    computed = 0
    for repeat in repeats:
        out = _out(repeat)
        if recompute:
            from graphdr.bench.report import read_results, write_results

            idents = {base.METHODS[m][1] for m in methods}
            rows = [r for r in read_results(out / "results.csv")
                    if not (r["dataset"] in datasets and r["method"] in idents)]
            if (out / "results.csv").exists():
                write_results(out / "results.csv", rows)
        with base.dataset_paths(datasets) as paths:
            result = run_bench(base.protocol(), datasets=paths, seed=repeat, out=str(out),
                               methods=[base.METHODS[m][1] for m in methods], n_jobs=n_jobs,
                               plots_on=False, html_on=False, title="defaults, repeated",
                               command=f"benchmarks/defaults.py --repeated (repeat {repeat})")
        computed += result.n_computed
    return computed


def read_cells(repeats):
    """{(dataset, method, repeat, fold): rows} of the repeats' results."""
    from graphdr.bench.report import read_results

    cells = {}
    for repeat in repeats:
        for r in read_results(_out(repeat) / "results.csv"):
            m = base.BY_BENCH.get(r["method"])
            if m in METHODS:
                cells.setdefault((r["dataset"], m, repeat, r["fold"]), []).append(r)
    return cells


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
             "Produced by (cells in `defaults/` for repeat 0 and `defaults_repeated/`):", "",
             "    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
             "benchmarks/defaults.py --repeated --repeats " + " ".join(map(str, repeats))
             + " --n-jobs 2", "",
             "Protocol of `defaults.md` (paper 000's, every estimator with its defaults), "
             f"repeated over the fold shuffles {repeats} (repeat 0 is `defaults.md`'s split). "
             "Each entry: test error in % over all test folds of the repeats both methods have, the verdict "
             "(lower error = better; target 1 holds on a tie, target 2 needs strictly lower) "
             "and the two-sided p-value of the corrected resampled t-test (Nadeau & Bengio; "
             "see the module docstring). Bold: the target fails.", "",
             "graphdr commit(s) of the runs: "
             + ", ".join(sorted({r["commit"] for r in runs if r.get("commit")})) + ".", ""]
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
    runs = json.loads(RUNS_PATH.read_text()) if RUNS_PATH.exists() else []
    if not args.report_only:
        t0 = time.perf_counter()
        n = run(args.datasets or list(base.DATASETS), args.methods or list(METHODS),
                args.repeats, args.n_jobs, args.recompute)
        if n:
            base.record_run(runs, RUNS_PATH, "benchmarks/defaults.py --repeated", n, t0)
    cells = read_cells(sorted({0, 1, 2, 3, 4} | set(args.repeats)))
    if cells:
        report(cells, runs)
        print(f"wrote {MD_PATH}")


if __name__ == "__main__":
    main()
