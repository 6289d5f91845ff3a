"""Do the defaults beat what a user would otherwise run? Every estimator with its DEFAULT
parameters under paper 000's protocol.

Protocol (paper 000, Section V): features scaled to [-1, 1] (MinMaxScaler fitted on the
training fold), stratified 10-fold CV (shuffled, seed 0), the fold's training set fits the
method, training and test samples are embedded, and three classifiers are trained on the
embedded training set: 1-NN, 3-NN and the nearest class centroid (NCC). Paper 000 takes the
minimum error over the dimensions 1..C-1; here every method is evaluated at ONE dimension,
so that nothing is tuned on the test folds:

* setting ``default``: the estimator's own default ``n_components`` (what a user gets from
  ``Estimator()``): C-1 for LDA, KernelLDA, LQMI, KQMI, QMIProjection and scikit-learn's LDA;
  2(C-1) for CKFD; D for LPP, MFA, LDE, MMPA and NCA; n-1 for KernelLPP; 2 for DEE and DSNE;
  all non-zero components for KernelPCA; DCV's default (the within-class null space).
* setting ``c-1``: ``n_components = min(C-1, D)`` for every method whose default differs
  (rows ``method@c-1`` in the CSV), the same dimension as the discriminant methods.

Every other hyper-parameter is the estimator's default (kernel widths included: graphdr's
kernel methods choose gamma and the ridge by inner cross-validation, ``gamma='auto'`` and
``reg='auto'``; scikit-learn's KernelPCA uses gamma = 1/D; paper 000 has sigma = 1), except
``random_state``, fixed per fold so that the numbers are reproducible. ``raw`` is no reduction
(the scaled features).

Data: the .npz sets of the shared data directory (``$GRAPHDR_SHARED/datasets``, default
``../shared/datasets`` next to the repository; vowel: the 10 acoustic features only), scikit-learn's
digits, breast_cancer and wine, and ``mnist2k``: a stratified 2000-sample subsample of mnist5k
(seed 0), pixels / 255, no PCA.

Results are cached per (data set, method, fold) in ``benchmarks/results/defaults.csv`` (the raw
per-fold results): a run computes only the cells missing from it, plus every cell selected by
``--methods`` / ``--datasets`` when ``--recompute`` is given. A failing fit is recorded as a
failure (its message in the CSV), not a crash. The report ``benchmarks/results/defaults.md`` is
rewritten from the whole CSV after every run.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py \\
        [--datasets vowel wine] [--methods kqmi dee] [--recompute] [--n-jobs 2] [--report-only]

Part: ``--repeated`` (``_defaults_repeated.py``: the targets on five shuffles of the folds with a
paired test; ``defaults_repeated.md``; ``--help`` after the flag shows its options).
``--quick``: a smoke run of the protocol and its part on wine, nothing written here. The studies
that set DEE's, DCV's and DSNE's defaults (``--dee-uci``, ``--dcv-uci``, ``--dsne-start``) are
retired: ``docs/history.rst``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
import traceback
import warnings
from pathlib import Path

import common
import numpy as np

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
CSV_PATH = RESULTS / "defaults.csv"
MD_PATH = RESULTS / "defaults.md"
RUNS_PATH = RESULTS / "defaults_runs.json"

UCI = ("ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima", "wdbc")
DATASETS = UCI + ("digits", "breast_cancer", "wine", "mnist2k")
N_FOLDS = 10
CLASSIFIERS = ("1nn", "3nn", "ncc")
CLF_LABEL = {"1nn": "1-NN", "3nn": "3-NN", "ncc": "nearest centroid"}

# name -> (label, graphdr estimator?, default dimension is C-1)
METHODS = {
    "raw": ("raw", False, False),
    "lda": ("LDA", True, True),
    "lpp": ("LPP", True, False),
    "slpp": ("S-LPP", True, False),
    "mfa": ("MFA", True, False),
    "lde": ("LDE", True, False),
    "klda": ("KernelLDA", True, True),
    "klpp": ("KernelLPP", True, False),
    "sklpp": ("S-KLPP", True, False),
    "ckfd": ("CKFD", True, False),
    "lqmi": ("LQMI", True, True),
    "kqmi": ("KQMI", True, True),
    "qmi": ("QMIProj", True, True),
    "dee": ("DEE", True, False),
    "dsne": ("DSNE", True, False),
    "mmpa": ("MMPA", True, False),
    "dcv": ("DCV", True, False),
    "sk-lda": ("sk-LDA", False, True),
    "sk-lda-shrink": ("sk-LDA-shrink", False, True),
    "nca": ("NCA", False, False),
    "kpca": ("KPCA", False, False),
}
#: training-set caps (stratified subsample of the training fold; the test fold is unchanged)
#: for methods too slow on a data set, set from the first folds of mnist2k (1800 training
#: samples, single thread, machine shared with other jobs), seconds per fold: QMIProjection
#: 45-145, DSNE 24-116, CKFD 47-84, KernelLPP 13-56, S-KLPP 11-29, against 1-14 for most
#: methods. scikit-learn's NCA (100-110 s) is kept at full size: it is a reference of the targets.
#: QMIProjection on mnist2k took 282 s on a full fold (22.0 % 1-NN error on fold 0); capped at
#: 1000 samples, not fewer: on 600 (fewer than its 784 features) its LDA initialisation is
#: singular and the error went to 58 %.
CAPS: dict[tuple[str, str], int] = {
    ("mnist2k", "dsne"): 500, ("digits", "dsne"): 500,
    ("mnist2k", "qmi"): 1000, ("digits", "qmi"): 1000,
    ("mnist2k", "ckfd"): 1000, ("digits", "ckfd"): 1000,
    ("mnist2k", "klpp"): 1000, ("mnist2k", "sklpp"): 1000,
}


# ----- data -------------------------------------------------------------------------------
def load(name):
    """(X, y) of a data set, float64 features, labels 0..C-1."""
    from common import load as load_set

    if name != "mnist2k":
        return load_set(name)
    from sklearn.model_selection import train_test_split

    X, y = load_set("mnist5k")
    keep, _ = train_test_split(np.arange(len(y)), train_size=2000, stratify=y, random_state=0)
    keep = np.sort(keep)
    return X[keep], y[keep]


def folds(y):
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=0).split(y, y))


# ----- methods ----------------------------------------------------------------------------
def build(method, n_classes, n_features, seed):
    """Unfitted estimator of ``method`` (``name`` or ``name@c-1``); None for raw features."""
    from sklearn.decomposition import KernelPCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.neighbors import NeighborhoodComponentsAnalysis

    import graphdr

    name, _, setting = method.partition("@")
    factories = {
        "raw": lambda: None,
        "lda": graphdr.LDA,
        "lpp": graphdr.LPP,
        "slpp": lambda: graphdr.LPP(supervised=True),
        "mfa": graphdr.MFA,
        "lde": graphdr.LDE,
        "klda": graphdr.KernelLDA,
        "klpp": graphdr.KernelLPP,
        "sklpp": lambda: graphdr.KernelLPP(supervised=True),
        "ckfd": graphdr.CKFD,
        "lqmi": graphdr.LQMI,
        "kqmi": graphdr.KQMI,
        "qmi": graphdr.QMIProjection,
        "dee": graphdr.DEE,
        "dsne": graphdr.DSNE,
        "mmpa": graphdr.MMPA,
        "dcv": graphdr.DCV,
        "sk-lda": LinearDiscriminantAnalysis,
        "sk-lda-shrink": lambda: LinearDiscriminantAnalysis(solver="eigen", shrinkage="auto"),
        "nca": NeighborhoodComponentsAnalysis,
        "kpca": lambda: KernelPCA(kernel="rbf"),
    }
    est = factories[name]()
    if est is None:
        return None
    params = est.get_params()
    if "random_state" in params:
        est.set_params(random_state=seed)
    if setting == "c-1":
        est.set_params(n_components=max(1, min(n_classes - 1, n_features)))
    elif setting:
        raise ValueError(f"unknown setting {setting!r} in {method!r}")
    return est


def all_methods():
    """Every method id: the defaults, then the c-1 variants of those whose default differs."""
    return list(METHODS) + [f"{m}@c-1" for m, (_, _, c1) in METHODS.items()
                            if not c1 and m != "raw"]


# ----- one cell ---------------------------------------------------------------------------
def run_cell(dataset, method, fold, X, y, train, test):
    """Fit on the training fold, classify the test fold; list of CSV rows."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    from graphdr.bench.evaluation import make_classifier

    t0 = time.perf_counter()
    name = method.partition("@")[0]
    cap = CAPS.get((dataset, name))
    if cap is not None and cap < len(train):
        train, _ = train_test_split(train, train_size=cap, stratify=y[train], random_state=fold)
    C, D = int(y.max()) + 1, X.shape[1]
    scaler = MinMaxScaler(feature_range=(-1, 1)).fit(X[train])
    Xtr, Xte, ytr, yte = scaler.transform(X[train]), scaler.transform(X[test]), y[train], y[test]
    base = dict(dataset=dataset, method=method, fold=fold, n_train=len(train),
                n_test=len(test))
    fit_seconds = 0.0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = build(method, C, D, seed=fold)
            if est is None:
                Ztr, Zte = Xtr, Xte
            else:
                t = time.perf_counter()
                est.fit(Xtr, ytr)
                fit_seconds = time.perf_counter() - t
                Ztr, Zte = est.transform(Xtr), est.transform(Xte)
            Ztr, Zte = np.asarray(Ztr, dtype=float), np.asarray(Zte, dtype=float)
            if not (np.all(np.isfinite(Ztr)) and np.all(np.isfinite(Zte))):
                raise FloatingPointError("non-finite embedding")
            rows = []
            for clf in CLASSIFIERS:
                pred = make_classifier(clf).fit(Ztr, ytr).predict(Zte)
                n_err = int(np.sum(pred != yte))
                rows.append(dict(base, classifier=clf, dim=Ztr.shape[1], n_errors=n_err,
                                 error=n_err / len(yte), status="ok", message=""))
    except Exception as exc:  # recorded as a failure, the sweep goes on
        msg = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        msg = " ".join(msg.split())[:300]
        rows = [dict(base, classifier=clf, dim="", n_errors="", error="", status="failed",
                     message=msg) for clf in CLASSIFIERS]
    seconds = time.perf_counter() - t0
    for r in rows:
        r.update(fit_seconds=round(fit_seconds, 3), seconds=round(seconds, 3))
    return (dataset, method, fold), rows


# ----- cache ------------------------------------------------------------------------------
FIELDS = ("dataset", "method", "fold", "classifier", "dim", "n_train", "n_test", "n_errors",
          "error", "status", "message", "fit_seconds", "seconds", "commit")


def read_cache():
    cells = {}
    if CSV_PATH.exists():
        with open(CSV_PATH, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["dataset"], row["method"], int(row["fold"]))
                cells.setdefault(key, []).append(row)
    return cells


def write_cache(cells):
    tmp = CSV_PATH.with_suffix(".csv.tmp")
    order = {d: i for i, d in enumerate(DATASETS)}
    morder = {m: i for i, m in enumerate(all_methods())}
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for key in sorted(cells, key=lambda k: (order.get(k[0], 99), k[0],
                                                morder.get(k[1], 999), k[1], k[2])):
            for row in cells[key]:
                w.writerow(row)
    os.replace(tmp, CSV_PATH)


def git_commit():
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT.parent,
                              text=True, capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "graphdr"],
                               cwd=ROOT.parent, text=True, capture_output=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ----- report -----------------------------------------------------------------------------
def summarise(cells):
    """{(dataset, method, classifier): dict(error %, folds, failed, message, n_train, dim)}."""
    acc = {}
    for (ds, m, _fold), rows in cells.items():
        for r in rows:
            a = acc.setdefault((ds, m, r["classifier"]), dict(err=0, n=0, folds=0, failed=0,
                                                               message="", dims=set(),
                                                               n_train=[], seconds=0.0))
            a["folds"] += 1
            a["seconds"] += float(r["seconds"])
            a["n_train"].append(int(r["n_train"]))
            if r["status"] == "ok":
                a["err"] += int(r["n_errors"])
                a["n"] += int(r["n_test"])
                a["dims"].add(int(r["dim"]))
            else:
                a["failed"] += 1
                a["message"] = a["message"] or r["message"]
    out = {}
    for key, a in acc.items():
        out[key] = dict(error=100.0 * a["err"] / a["n"] if a["n"] else None, folds=a["folds"],
                        failed=a["failed"], message=a["message"], dims=sorted(a["dims"]),
                        n_train=a["n_train"], seconds=a["seconds"])
    return out


def _cell_text(s):
    if s is None:
        return "", None
    if s["failed"] == s["folds"]:
        return "fail", None
    text = f"{s['error']:.1f}"
    value = s["error"]
    if s["failed"]:
        text += f" ({s['failed']} failed)"
        value = None
    if s["folds"] < N_FOLDS:
        text += f" ({s['folds']}/{N_FOLDS} folds)"
        value = None
    return text, value


def table(summary, datasets, methods, clf):
    labels = [method_label(m) for m in methods]
    lines = ["| data set | " + " | ".join(labels) + " |",
             "|---|" + "---:|" * len(methods)]
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
        lines.append(f"| {ds} | " + " | ".join(texts) + " |")
    lines.append("| wins | " + " | ".join(str(wins[m]) for m in methods) + " |")
    return lines


def method_label(m):
    name, _, setting = m.partition("@")
    label = METHODS[name][0]
    return f"{label} (C-1)" if setting else label


def err(summary, ds, m, clf):
    s = summary.get((ds, m, clf))
    if s is None or s["folds"] < N_FOLDS or s["failed"]:
        return None
    return s["error"]


def targets(summary, datasets):
    lines = ["## Targets", ""]
    # 1. graphdr.LDA never worse than scikit-learn's LDA
    lines += ["### 1. graphdr.LDA never worse than scikit-learn's LDA", ""]
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
    lines.append("")
    # 2. KQMI better than raw 1-NN, scikit-learn's LDA and NCA everywhere
    lines += ["### 2. KQMI (defaults) better than raw 1-NN, scikit-learn's LDA and NCA on every "
              "set", "",
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
            refs = [("raw 1-NN", err(summary, ds, "raw", "1nn")),
                    ("sk-LDA", err(summary, ds, "sk-lda", clf)),
                    ("NCA", err(summary, ds, "nca", clf))]
            if k is None:
                row.append("n/a")
                continue
            parts = []
            for label, r in refs:
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
    lines.append("")
    # 3. no graphdr estimator more than 3 points worse than raw 1-NN
    lines += ["### 3. No graphdr estimator (defaults) more than 3 points worse than raw 1-NN",
              "",
              "Each graphdr estimator with 1-NN in its default embedding against raw 1-NN; "
              "listed: the (data set, estimator) pairs more than 3 points worse, and failures. "
              "In brackets: the best of its three classifiers, and its 1-NN error at "
              "dimension C-1 where that differs from the default.", ""]
    for m, (label, ours, _) in METHODS.items():
        if not ours:
            continue
        bad, n = [], 0
        for ds in datasets:
            s = summary.get((ds, m, "1nn"))
            r = err(summary, ds, "raw", "1nn")
            if s is None or r is None or s["folds"] < N_FOLDS:
                continue
            n += 1
            if s["failed"]:
                bad.append(f"{ds}: failed on {s['failed']}/{s['folds']} folds (see Failures)")
                continue
            e = err(summary, ds, m, "1nn")
            if e is None:
                continue
            if e > r + 3.0:
                best = min(v for v in (err(summary, ds, m, c) for c in CLASSIFIERS)
                           if v is not None)
                extra = f"best classifier {best:.1f}"
                c1 = err(summary, ds, f"{m}@c-1", "1nn")
                if c1 is not None:
                    extra += f"; 1-NN at C-1: {c1:.1f}"
                bad.append(f"{ds}: {e:.1f} vs raw {r:.1f} (+{e - r:.1f}) [{extra}]")
        lines.append(f"- **{label}**: " + (f"within 3 points on all {n} sets." if not bad
                                           else f"{len(bad)} of {n} sets: " + "; ".join(bad)))
    lines.append("")
    return lines


def report(cells, runs):
    summary = summarise(cells)
    present = {k[0] for k in cells}
    datasets = [d for d in DATASETS if d in present]
    present_m = {k[1] for k in cells}
    default_methods = [m for m in METHODS if m in present_m]
    c1_methods = [m for m in METHODS if (m if METHODS[m][2] or m == "raw" else f"{m}@c-1")
                  in present_m]
    c1_ids = [m if (METHODS[m][2] or m == "raw") else f"{m}@c-1" for m in c1_methods]
    shapes = []
    for ds in datasets:
        try:
            X, y = load(ds)
            shapes.append(f"{ds} ({X.shape[0]} x {X.shape[1]}, {int(y.max()) + 1} classes)")
        except (OSError, KeyError):
            shapes.append(ds)
    total = sum(float(rows[0]["seconds"]) for rows in cells.values())
    commits = sorted({rows[0].get("commit", "") for rows in cells.values()})
    lines = [
        "# Every estimator with its defaults, paper 000's protocol",
        "",
        "Produced by (cells cached in `defaults.csv`; the runs that filled it are listed at the "
        "end):",
        "",
        "    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/defaults.py "
        "--n-jobs 2",
        "",
        "Protocol: features scaled to [-1, 1] on the training fold, stratified 10-fold CV "
        "(shuffled, seed 0), classifiers 1-NN, 3-NN and nearest class centroid on the embedded "
        "training fold. Test error in % over all 10 test folds (errors / samples). Every "
        "estimator has its default parameters, `random_state` fixed per fold; **one** "
        "dimension per method, nothing tuned on the test folds (paper 000 reports the minimum "
        "over 1..C-1 dimensions). See the docstring of `benchmarks/defaults.py` for the "
        "default dimensions; the tables at C-1 use `n_components = min(C-1, D)` for every "
        "method. Best per row in bold (ties all bold); `wins` counts them.",
        "",
        "Data sets: " + "; ".join(shapes) + ". mnist2k: stratified 2000-sample subsample of "
        "mnist5k (seed 0), pixels/255, no PCA.",
        "",
        f"graphdr commit(s) of the cells: {', '.join(commits)}.",
        "",
    ]
    capped = [f"{METHODS[m][0]} on {ds}: trained on a stratified {n} of the ~"
              f"{len(load(ds)[1]) * 9 // 10} training samples of each fold"
              for (ds, m), n in CAPS.items() if ds in present]
    if capped:
        lines += ["Capped for runtime (the test folds are complete): " + "; ".join(capped) +
                  ".", ""]
    lines.append(f"Total compute time of the cells: {total / 60:.1f} min (sum over cells, "
                 "2 worker processes on a shared 2-core machine).")
    lines.append("")
    for clf in CLASSIFIERS:
        lines += [f"## {CLF_LABEL[clf]}: default dimensions", ""]
        lines += table(summary, datasets, default_methods, clf)
        lines.append("")
    for clf in CLASSIFIERS:
        lines += [f"## {CLF_LABEL[clf]}: every method at dimension min(C-1, D)", ""]
        lines += table(summary, datasets, c1_ids, clf)
        lines.append("")
    lines += targets(summary, datasets)
    # failures
    fails = sorted({(ds, m, s["message"]) for (ds, m, c), s in summary.items()
                    if s["failed"] and c == "1nn"})
    if fails:
        lines += ["## Failures", "", "| data set | method | folds failed | message |",
                  "|---|---|---|---|"]
        for ds, m, msg in fails:
            s = summary[(ds, m, "1nn")]
            lines.append(f"| {ds} | {method_label(m)} | {s['failed']}/{s['folds']} | "
                         f"{msg.replace('|', '/')} |")
        lines.append("")
    # runtime per method
    lines += ["## Runtime", "", "Seconds per fold (fit + transform + 3 classifiers), mean over "
              "folds, single BLAS thread, on a machine shared with other jobs (noisy):", "",
              "| data set | " + " | ".join(method_label(m) for m in default_methods) + " |",
              "|---|" + "---:|" * len(default_methods)]
    for ds in datasets:
        vals = []
        for m in default_methods:
            s = summary.get((ds, m, "1nn"))
            vals.append("" if s is None else f"{s['seconds'] / s['folds']:.2f}")
        lines.append(f"| {ds} | " + " | ".join(vals) + " |")
    lines.append("")
    if runs:
        lines += ["## Runs that filled the cache", "",
                  "| end of run (UTC) | command | cells | wall time (min) | note |",
                  "|---|---|---|---|---|"]
        for r in runs:
            lines.append(f"| {r['date']} | `{r['command']}` | {r['cells']} | "
                         f"{r['wall_seconds'] / 60:.1f} | {r.get('note', '')} |")
        lines.append("")
    # a hand-written section at the end of the previous report is kept
    marker = "## Notes (written by hand"
    if MD_PATH.exists() and marker in MD_PATH.read_text():
        old = MD_PATH.read_text()
        lines += ["", old[old.index(marker):].rstrip()]
    MD_PATH.write_text("\n".join(lines) + "\n")
    return lines


# ----- main -------------------------------------------------------------------------------
def record_run(runs, path, script, n_cells, t0):
    """Append this run (end time, command line, cells, wall time since ``t0``) to ``runs`` and
    write them to ``path``."""
    cmd = " ".join([script] + sys.argv[1:])
    runs.append(dict(date=time.strftime("%Y-%m-%d %H:%M", time.gmtime()), command=cmd,
                     cells=n_cells, wall_seconds=round(time.perf_counter() - t0, 1)))
    path.write_text(json.dumps(runs, indent=1))


#: the parts of this benchmark: flag -> module (each module's ``main(argv)``)
PARTS = {"--repeated": "_defaults_repeated"}


def _quick():
    """The protocol and every part on wine, their files in a temporary folder."""
    with common.smoke_outputs(*PARTS.values()) as tmp:
        main(["--datasets", "wine", "--methods", "lda", "klda", "--out", str(tmp / "defaults")])
        common.run_part(["--repeated", "--repeats", "0", "--datasets", "wine", "--methods", "raw",
                         "lda"], PARTS)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, PARTS, quick=_quick)) is not common.NO_PART:
        return done
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", choices=DATASETS)
    ap.add_argument("--methods", nargs="+", choices=all_methods())
    ap.add_argument("--folds", nargs="+", type=int, help="only these folds (timing runs)")
    ap.add_argument("--recompute", action="store_true",
                    help="recompute the selected cells even if cached")
    ap.add_argument("--n-jobs", type=int, default=1, choices=(1, 2))
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--out", default=str(RESULTS / "defaults"),
                    help="path prefix of the outputs: PREFIX.csv, PREFIX.md, PREFIX_runs.json")
    args = ap.parse_args(argv)
    global CSV_PATH, MD_PATH, RUNS_PATH
    out = Path(args.out)
    CSV_PATH, MD_PATH = out.with_suffix(".csv"), out.with_suffix(".md")
    RUNS_PATH = out.with_name(out.name + "_runs.json")
    CSV_PATH.parent.mkdir(exist_ok=True)
    cells = read_cache()
    runs = json.loads(RUNS_PATH.read_text()) if RUNS_PATH.exists() else []
    if not args.report_only:
        datasets = args.datasets or list(DATASETS)
        methods = args.methods or all_methods()
        todo = []
        data = {}
        for ds in datasets:
            X, y = load(ds)
            data[ds] = (X, y)
            for fold, (tr, te) in enumerate(folds(y)):
                if args.folds is not None and fold not in args.folds:
                    continue
                for m in methods:
                    if args.recompute or (ds, m, fold) not in cells:
                        todo.append((ds, m, fold, tr, te))
        # default dimensions first, then the C-1 variants; slow cells first within each
        todo.sort(key=lambda t: ("@" in t[1], -len(data[t[0]][1]) * data[t[0]][0].shape[1]))
        print(f"{len(todo)} cells to compute", flush=True)
        commit = git_commit()
        t0 = time.perf_counter()
        from joblib import Parallel, delayed

        jobs = (delayed(run_cell)(ds, m, fold, *data[ds], tr, te) for ds, m, fold, tr, te in todo)
        for i, (key, rows) in enumerate(Parallel(n_jobs=args.n_jobs,
                                                 return_as="generator_unordered")(jobs)):
            for r in rows:
                r["commit"] = commit
            cells[key] = rows
            write_cache(cells)
            r = rows[0]
            state = (f"1-NN {100 * float(r['error']):.1f}%" if r["status"] == "ok"
                     else "FAILED " + r["message"][:80])
            print(f"[{i + 1}/{len(todo)}] {key[0]} {key[1]} fold {key[2]}: {state} "
                  f"({float(r['seconds']):.1f}s, {time.perf_counter() - t0:.0f}s total)",
                  flush=True)
        if todo:
            record_run(runs, RUNS_PATH, "benchmarks/defaults.py", len(todo), t0)
    if cells:
        report(cells, runs)
        print(f"wrote {MD_PATH}")


if __name__ == "__main__":
    main()
