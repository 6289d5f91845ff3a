"""Do the defaults beat what a user would otherwise run? Every estimator with its DEFAULT
parameters under paper 000's protocol, run by ``graphdr bench --protocol defaults``.

Protocol (:data:`graphdr.bench.protocols.PROTOCOLS` ``'defaults'``): features scaled to
[-1, 1] on the training fold, stratified 10-fold CV (seed 0), 1-NN, 3-NN and nearest centroid
on the embedded training fold, every method at ONE dimension (nothing tuned on the test
folds): its estimator's default ``n_components`` (``dimension='default'``), and
``min(C-1, its limit)`` for the methods whose default differs (``method@c-1``). Methods: those
of ``graphdr bench`` (LDA and LQMI with ``reg=auto``), ``raw`` the scaled features. Data: the
UCI sets of the offline suite, scikit-learn's digits, breast_cancer and wine, and ``mnist2k``
(a stratified 2000-sample subsample of mnist5k, seed 0).

The cells live in ``benchmarks/results/defaults/`` and ``defaults_c-1/`` (graphdr bench's
files): a run computes the missing ones (and those selected, with ``--recompute``), then
rewrites ``benchmarks/results/defaults.md`` from both, its runs in ``defaults_runs.json``::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py
        [--datasets vowel wine] [--methods kqmi dee] [--recompute] [--n-jobs 2] [--report-only]

``--quick``: a smoke run on wine, nothing written here. The studies that set DEE's, DCV's and
DSNE's defaults, and the targets over five shuffles of the folds, are retired:
``docs/history.rst``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
import numpy as np

RESULTS = common.RESULTS
OUT = RESULTS / "defaults"
MD_PATH = RESULTS / "defaults.md"
RUNS_PATH = RESULTS / "defaults_runs.json"

UCI = ("ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima", "wdbc")
DATASETS = UCI + ("digits", "breast_cancer", "wine", "mnist2k")
N_FOLDS = 10
CLASSIFIERS = ("1nn", "3nn", "ncc")
CLF_LABEL = {"1nn": "1-NN", "3nn": "3-NN", "ncc": "nearest centroid"}

# name -> (label, graphdr bench method, graphdr estimator?, default dimension is C-1)
METHODS = {
    "raw": ("raw", "raw", False, False),
    "lda": ("LDA", "lda:reg=auto", True, True),
    "lpp": ("LPP", "lpp", True, False),
    "slpp": ("S-LPP", "supervised-lpp", True, False),
    "mfa": ("MFA", "mfa", True, False),
    "lde": ("LDE", "lde", True, False),
    "klda": ("KernelLDA", "kernel-lda", True, True),
    "klpp": ("KernelLPP", "kernel-lpp", True, False),
    "sklpp": ("S-KLPP", "supervised-kernel-lpp", True, False),
    "ckfd": ("CKFD", "ckfd", True, False),
    "lqmi": ("LQMI", "lqmi:reg=auto", True, True),
    "kqmi": ("KQMI", "kqmi", True, True),
    "qmi": ("QMIProj", "qmi", True, True),
    "dee": ("DEE", "dee", True, False),
    "dsne": ("DSNE", "dsne", True, False),
    "mmpa": ("MMPA", "mmpa", True, False),
    "dcv": ("DCV", "dcv", True, False),
    "sk-lda": ("sk-LDA", "sklearn-lda", False, True),
    "sk-lda-shrink": ("sk-LDA-shrink", "sklearn-lda-shrinkage", False, True),
    "nca": ("NCA", "nca", False, False),
    "kpca": ("KPCA", "kernel-pca", False, False),
}
BY_BENCH = {bench: name for name, (_, bench, _, _) in METHODS.items()}
#: training-set caps (a stratified subsample of the training fold; the test fold whole) of the
#: methods too slow on a set (seconds per fold on mnist2k: QMIProjection 45-145, DSNE 24-116,
#: CKFD 47-84, KernelLPP 13-56 against 1-14 for most); QMIProjection not below 1000 (on 600
#: rows, fewer than its 784 features, its LDA start is singular); NCA, a target's reference, whole
CAPS: dict[tuple[str, str], int] = {
    ("mnist2k", "dsne"): 500, ("digits", "dsne"): 500,
    ("mnist2k", "qmi"): 1000, ("digits", "qmi"): 1000,
    ("mnist2k", "ckfd"): 1000, ("digits", "ckfd"): 1000,
    ("mnist2k", "klpp"): 1000, ("mnist2k", "sklpp"): 1000,
}


def all_methods():
    """Every method id: the defaults, then the c-1 variants of those whose default differs."""
    return list(METHODS) + [f"{m}@c-1" for m, (_, _, _, c1) in METHODS.items()
                            if not c1 and m != "raw"]


def protocol(setting="default"):
    """graphdr bench's ``defaults`` protocol at one ``setting`` ('default' or 'c-1'), with the
    caps above."""
    from graphdr.bench.methods import parse_method
    from graphdr.bench.protocols import get_protocol

    caps = tuple(sorted((ds, parse_method(METHODS[m][1])[1].name, n)
                        for (ds, m), n in CAPS.items()))
    return get_protocol("defaults").replace(dimension=setting, train_caps=caps)


def load(name):
    """(X, y) of a data set, float64 features, labels 0..C-1."""
    if name != "mnist2k":
        return common.load(name)
    from sklearn.model_selection import train_test_split

    X, y = common.load("mnist5k")
    keep, _ = train_test_split(np.arange(len(y)), train_size=2000, stratify=y, random_state=0)
    keep = np.sort(keep)
    return X[keep], y[keep]


def folds(y):
    """The protocol's ten (train, test) folds of ``y``."""
    return protocol().splits(np.asarray(y), 0)


# ----- running ----------------------------------------------------------------------------
def _out(setting):
    return OUT if setting == "default" else OUT.with_name(OUT.name + "_c-1")


def _forget(setting, datasets, methods):
    """Drop the cells of ``datasets`` x ``methods`` from the setting's results (--recompute)."""
    from graphdr.bench.report import read_results, write_results

    path = _out(setting) / "results.csv"
    idents = {METHODS[m.partition("@")[0]][1] for m in methods}
    rows = [r for r in read_results(path)
            if not (r["dataset"] in datasets and r["method"] in idents)]
    if path.exists():
        write_results(path, rows)


@contextlib.contextmanager
def dataset_paths(datasets):
    """What graphdr bench reads for ``datasets``: their names, and for mnist2k (not a named
    set) a file of its rows in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for ds in datasets:
            if ds == "mnist2k":
                X, y = load(ds)
                ds = str(Path(tmp) / "mnist2k.npz")
                np.savez(ds, X=X, y=y)
            paths.append(ds)
        yield paths


def run(datasets, methods, n_jobs, recompute):
    """Compute the missing cells of both settings through graphdr bench; return the number
    of cells computed."""
    from graphdr.bench.runner import run_bench

    computed = 0
    with dataset_paths(datasets) as paths:
        for setting in ("default", "c-1"):
            chosen = [m.partition("@")[0] for m in methods
                      if ("@c-1" in m) == (setting == "c-1")]
            if not chosen:
                continue
            if recompute:
                _forget(setting, datasets, chosen)
            result = run_bench(
                protocol(setting), datasets=paths, methods=[METHODS[m][1] for m in chosen],
                out=str(_out(setting)), n_jobs=n_jobs, plots_on=False, html_on=False,
                command=f"benchmarks/defaults.py ({setting} dimension)", title="defaults")
            computed += result.n_computed
    return computed


# ----- report -----------------------------------------------------------------------------
def read_cells():
    """{(dataset, method id, fold): rows} of both settings, and {(dataset, method id): the
    first failure message}."""
    from graphdr.bench.report import read_results

    cells, failures = {}, {}
    for setting, suffix in (("default", ""), ("c-1", "@c-1")):
        out = _out(setting)
        for r in read_results(out / "results.csv"):
            m = BY_BENCH.get(r["method"])
            if m is not None:
                cells.setdefault((r["dataset"], m + suffix, r["fold"]), []).append(r)
        fail_path = out / "failures.txt"
        for line in fail_path.read_text().splitlines() if fail_path.exists() else []:
            ds, method, rest = (part.strip() for part in line.split(" / ", 2))
            if method in BY_BENCH:
                failures.setdefault((ds, BY_BENCH[method] + suffix), rest)
    return cells, failures


def summarise(cells, failures):
    """{(dataset, method, classifier): dict(error %, folds, failed, message, dims, seconds)}."""
    acc = {}
    for (ds, m, _fold), rows in cells.items():
        for r in rows:
            a = acc.setdefault((ds, m, r["classifier"]), dict(err=0, n=0, folds=0, dims=set(),
                                                               seconds=0.0))
            a["folds"] += 1
            a["err"] += int(r["n_errors"])
            a["n"] += int(r["n_test"])
            a["dims"].add(int(r["dim"]))
            a["seconds"] += float(r["fit_seconds"] or 0.0)
    out = {}
    for key, a in acc.items():
        message = failures.get(key[:2], "")
        out[key] = dict(error=100.0 * a["err"] / a["n"], folds=a["folds"],
                        failed=N_FOLDS - a["folds"] if message else 0, message=message,
                        dims=sorted(a["dims"]), seconds=a["seconds"])
    for (ds, m), message in failures.items():
        for clf in CLASSIFIERS:
            out.setdefault((ds, m, clf), dict(error=None, folds=0, failed=N_FOLDS,
                                              message=message, dims=[], seconds=0.0))
    return out


def _cell_text(s):
    if s is None:
        return "", None
    if s["error"] is None:
        return "fail", None
    text, value = f"{s['error']:.1f}", s["error"]
    if s["failed"]:
        text += f" ({s['failed']} failed)"
        value = None
    elif s["folds"] < N_FOLDS:
        text += f" ({s['folds']}/{N_FOLDS} folds)"
        value = None
    return text, value


def method_label(m):
    name, _, setting = m.partition("@")
    label = METHODS[name][0]
    return f"{label} (C-1)" if setting else label


def table(summary, datasets, methods, clf):
    lines = common.table(["data set", *map(method_label, methods)], align="l" + "r" * len(methods))
    wins = {m: 0 for m in methods}
    for ds in datasets:
        cells = [_cell_text(summary.get((ds, m, clf))) for m in methods]
        vals = [v for _, v in cells if v is not None]
        best = min(vals) if vals else None
        texts = []
        for m, (text, v) in zip(methods, cells):
            if v is not None and abs(v - best) < 1e-9:
                wins[m] += 1
                text = f"**{text}**"
            texts.append(text)
        lines.append(common.row(ds, *texts))
    return lines + [common.row("wins", *(wins[m] for m in methods))]


def err(summary, ds, m, clf):
    s = summary.get((ds, m, clf))
    if s is None or s["folds"] < N_FOLDS or s["failed"]:
        return None
    return s["error"]


def targets(summary, datasets):
    lines = ["## Targets", "", "### 1. graphdr.LDA never worse than scikit-learn's LDA", ""]
    for ref in ("sk-lda", "sk-lda-shrink"):
        bad, n = [], 0
        for clf in CLASSIFIERS:
            for ds in datasets:
                a, b = err(summary, ds, "lda", clf), err(summary, ds, ref, clf)
                if a is None or b is None:
                    continue
                n += 1
                if a > b + 1e-9:
                    bad.append(f"{ds} / {CLF_LABEL[clf]}: LDA {a:.2f} % vs {b:.2f} %")
        verdict = "holds" if not bad else f"fails in {len(bad)} of {n} (data set, classifier) pairs"
        lines.append(f"- against {method_label(ref)}: **{verdict}**" +
                     (": " + "; ".join(bad) if bad else f" ({n} pairs compared)."))
    lines += ["", "### 2. KQMI (defaults) better than raw 1-NN, scikit-learn's LDA and NCA on "
              "every set", "",
              "KQMI with each classifier against raw features with 1-NN and against "
              "scikit-learn's LDA (svd) and NCA with the same classifier (default "
              "dimensions); `<` is better (lower error, in %).", "",
              "| data set | " + " | ".join(
                  f"KQMI+{CLF_LABEL[c]} vs raw 1-NN / sk-LDA / NCA" for c in CLASSIFIERS) + " |",
              "|---|" + "---|" * len(CLASSIFIERS)]
    fails = {c: [] for c in CLASSIFIERS}
    for ds in datasets:
        row = []
        for clf in CLASSIFIERS:
            k = err(summary, ds, "kqmi", clf)
            if k is None:
                row.append("n/a")
                continue
            parts = []
            for label, r in (("raw 1-NN", err(summary, ds, "raw", "1nn")),
                             ("sk-LDA", err(summary, ds, "sk-lda", clf)),
                             ("NCA", err(summary, ds, "nca", clf))):
                if r is None:
                    parts.append("n/a")
                elif k < r - 1e-9:
                    parts.append(f"{k:.1f} < {r:.1f}")
                else:
                    parts.append(f"**{k:.1f} >= {r:.1f}**")
                    fails[clf].append(f"{ds} ({label} {r:.1f} vs KQMI {k:.1f})")
            row.append(" / ".join(parts))
        lines.append(f"| {ds} | " + " | ".join(row) + " |")
    lines.append("")
    for clf in CLASSIFIERS:
        f = fails[clf]
        lines.append(f"- KQMI + {CLF_LABEL[clf]}: **{'holds' if not f else 'fails'}**" +
                     (f" on {len(f)} comparisons: " + "; ".join(f) if f else "."))
    lines += ["", "### 3. No graphdr estimator (defaults) more than 3 points worse than raw 1-NN",
              "",
              "Each graphdr estimator with 1-NN in its default embedding against raw 1-NN; "
              "listed: the (data set, estimator) pairs more than 3 points worse, and failures. "
              "In brackets: the best of its three classifiers, and its 1-NN error at "
              "dimension C-1 where that differs from the default.", ""]
    for m, (label, _, ours, _) in METHODS.items():
        if not ours:
            continue
        bad, n = [], 0
        for ds in datasets:
            s, r = summary.get((ds, m, "1nn")), err(summary, ds, "raw", "1nn")
            if s is None or r is None or (s["folds"] < N_FOLDS and not s["failed"]):
                continue
            n += 1
            if s["failed"]:
                bad.append(f"{ds}: failed on {s['failed']}/{N_FOLDS} folds (see Failures)")
                continue
            e = err(summary, ds, m, "1nn")
            if e is not None and e > r + 3.0:
                best = min(v for v in (err(summary, ds, m, c) for c in CLASSIFIERS)
                           if v is not None)
                extra = f"best classifier {best:.1f}"
                c1 = err(summary, ds, f"{m}@c-1", "1nn")
                if c1 is not None:
                    extra += f"; 1-NN at C-1: {c1:.1f}"
                bad.append(f"{ds}: {e:.1f} vs raw {r:.1f} (+{e - r:.1f}) [{extra}]")
        lines.append(f"- **{label}**: " + (f"within 3 points on all {n} sets." if not bad
                                           else f"{len(bad)} of {n} sets: " + "; ".join(bad)))
    return lines + [""]


def report(cells, failures, runs):
    summary = summarise(cells, failures)
    present = {k[0] for k in cells} | {k[0] for k in failures}
    datasets = [d for d in DATASETS if d in present]
    ids = {k[1] for k in cells} | {k[1] for k in failures}
    default_methods = [m for m in METHODS if m in ids]
    c1_ids = [m if (METHODS[m][3] or m == "raw") else f"{m}@c-1" for m in METHODS]
    c1_ids = [m for m in c1_ids if m in ids]
    shapes = []
    for ds in datasets:
        X, y = load(ds)
        shapes.append(f"{ds} ({X.shape[0]} x {X.shape[1]}, {int(y.max()) + 1} classes)")
    commits = sorted({r["commit"] for r in runs if r.get("commit")})
    lines = [
        "# Every estimator with its defaults, paper 000's protocol",
        "",
        "Produced by (cells in `defaults/` and `defaults_c-1/`, graphdr bench's results; the "
        "runs that filled them are listed at the end):",
        "",
        "    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py "
        "--n-jobs 2",
        "",
        "Protocol: `graphdr bench --protocol defaults`: features scaled to [-1, 1] on the "
        "training fold, stratified 10-fold CV (shuffled, seed 0), classifiers 1-NN, 3-NN and "
        "nearest class centroid on the embedded training fold. Test error in % over all 10 "
        "test folds (errors / samples). Every estimator has its default parameters; **one** "
        "dimension per method, nothing tuned on the test folds (paper 000 reports the minimum "
        "over 1..C-1 dimensions). See the docstring of `benchmarks/defaults.py` for the "
        "default dimensions; the tables at C-1 use `n_components = min(C-1, D)` for every "
        "method. Best per row in bold (ties all bold); `wins` counts them.",
        "",
        "Data sets: " + "; ".join(shapes) + ". mnist2k: stratified 2000-sample subsample of "
        "mnist5k (seed 0), pixels/255, no PCA.",
        "",
        f"graphdr commit(s) of the runs: {', '.join(commits)}.",
        "",
    ]
    capped = [f"{METHODS[m][0]} on {ds}: trained on a stratified {n} of the ~"
              f"{len(load(ds)[1]) * 9 // 10} training samples of each fold"
              for (ds, m), n in CAPS.items() if ds in present]
    if capped:
        lines += ["Capped for runtime (the test folds are complete): " + "; ".join(capped) +
                  ".", ""]
    total = sum(s["seconds"] for (_, _, clf), s in summary.items() if clf == "1nn")
    lines += [f"Total fit time of the cells: {total / 60:.1f} min (sum over cells, 2 worker "
              "processes on a shared 2-core machine).", ""]
    for title, methods in (("default dimensions", default_methods),
                           ("every method at dimension min(C-1, D)", c1_ids)):
        for clf in CLASSIFIERS:
            lines += [f"## {CLF_LABEL[clf]}: {title}", ""]
            lines += table(summary, datasets, methods, clf) + [""]
    lines += targets(summary, datasets)
    if failures:
        lines += ["## Failures", "", *common.table(
            ("data set", "method", "message"), [(ds, method_label(m), msg.replace("|", "/"))
                                                for (ds, m), msg in sorted(failures.items())]), ""]

    def per_fold(s):
        return "" if not s or not s["folds"] else f"{s['seconds'] / s['folds']:.2f}"
    lines += ["## Runtime", "", "Fit seconds per fold, mean over folds, single BLAS thread, on "
              "a machine shared with other jobs (noisy):", "", *common.table(
                  ["data set", *map(method_label, default_methods)],
                  [(ds, *(per_fold(summary.get((ds, m, "1nn"))) for m in default_methods))
                   for ds in datasets], "l" + "r" * len(default_methods)), ""]
    if runs:
        lines += ["## Runs that filled the cells", "", *common.table(
            ("end of run (UTC)", "command", "cells", "wall time (min)", "note"),
            [(r["date"], f"`{r['command']}`", r["cells"], f"{r['wall_seconds'] / 60:.1f}",
              r.get("note", "")) for r in runs]), ""]
    marker = "## Notes (written by hand"  # a hand-written section at the end is kept
    if MD_PATH.exists() and marker in MD_PATH.read_text():
        old = MD_PATH.read_text()
        lines += ["", old[old.index(marker):].rstrip()]
    MD_PATH.write_text("\n".join(lines) + "\n")
    return lines


# ----- main -------------------------------------------------------------------------------
def git_commit():
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "graphdr"], cwd=common.REPO,
                           text=True, capture_output=True).stdout.strip()
    return (common.commit() or "unknown") + ("+dirty" if dirty else "")


def record_run(runs, path, script, n_cells, t0):
    """Append this run (end time, command line, cells, wall time since ``t0``, commit) to
    ``runs`` and write them to ``path``."""
    cmd = " ".join([script] + sys.argv[1:])
    runs.append(dict(date=time.strftime("%Y-%m-%d %H:%M", time.gmtime()), command=cmd,
                     cells=n_cells, wall_seconds=round(time.perf_counter() - t0, 1),
                     commit=git_commit()))
    path.write_text(json.dumps(runs, indent=1))


def _quick():
    """The protocol on wine, its files in a temporary folder."""
    with common.smoke_outputs(sys.modules[__name__]):
        main(["--datasets", "wine", "--methods", "raw", "lda", "klda", "dee", "dee@c-1"])


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, {}, quick=_quick)) is not common.NO_PART:
        return done
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", choices=DATASETS)
    ap.add_argument("--methods", nargs="+", choices=all_methods())
    ap.add_argument("--recompute", action="store_true",
                    help="recompute the selected cells even if they are there")
    ap.add_argument("--n-jobs", type=int, default=1, choices=(1, 2))
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    runs = json.loads(RUNS_PATH.read_text()) if RUNS_PATH.exists() else []
    if not args.report_only:
        t0 = time.perf_counter()
        n = run(args.datasets or list(DATASETS), args.methods or all_methods(), args.n_jobs,
                args.recompute)
        if n:
            record_run(runs, RUNS_PATH, "benchmarks/defaults.py", n, t0)
    cells, failures = read_cells()
    if cells or failures:
        report(cells, failures, runs)
        print(f"wrote {MD_PATH}")


if __name__ == "__main__":
    main()
