"""``model_selection.py --press-transfer``: does LDA's leave-one-out ridge, chosen on a
subsample, transfer to the full training set?

``graphdr.LDA(reg='auto')`` computes the closed-form leave-one-out (PRESS) curve of ridge
regression of the class indicators on a stratified subsample of at most ``m = 2000`` rows and
multiplies the chosen relative ridge by ``m / n`` (:func:`graphdr.tuning.press_ridge`): the
penalty of ridge regression is a prior precision, the same in absolute terms for any ``n``,
while the unit of the relative ridge, the mean eigenvalue of the total scatter, grows with
``n``. This benchmark checks that rule where it matters, on training sets larger than the
subsample.

Protocol: ``benchmarks/defaults.py``'s (stratified 10-fold CV, seed 0, features scaled to
[-1, 1] on the training fold), on mnist5k (all 5000 digits: 4500 training rows per fold) and on
the shared sets with more than 250 training rows. On each training fold:

* ``full``: the PRESS choice on every training row (no subsample, no transfer);
* ``m=...``: the choice on a stratified subsample of ``m`` rows, multiplied by ``m / n``
  (the rule; ``m = 2000`` is the default);
* ``m=... no transfer``: the same subsample's choice without the factor ``m / n``.

Reported: the chosen ridge relative to ``full`` (geometric mean over folds of the ratio, and
its range), the excess of the full-data PRESS at the chosen ridge over its minimum (in %), and
the test errors (1-NN, 3-NN, nearest centroid; scikit-learn's classifiers, as in
``defaults.md``) of LDA fitted on the whole training fold with each ridge.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/model_selection.py \
        --press-transfer

Writes ``benchmarks/results/model_selection_press_transfer.md`` (under a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (the shared data sets)
import defaults as base  # noqa: E402  (data, folds and classifiers of the defaults benchmark)

DATASETS = ("mnist5k", "digits", "vowel", "vehicle", "pima", "wdbc")
SUBSAMPLES = (250, 500, 1000, 2000)
DEFAULT_M = 2000


def load(name):
    return base.load(name) if name != "mnist5k" else common.load(name)


def press_choice(X, y, m):
    """(reg, cv_results) of the PRESS rule on ``m`` rows of ``X`` (``m = None``: all rows)."""
    from graphdr.tuning import press_ridge

    return press_ridge(X, y, name="LDA", max_samples=len(y) if m is None else m)


def test_errors(Xtr, ytr, Xte, yte, reg):
    """Errors (%) of LDA(reg) with the three classifiers of ``defaults.py``."""
    import graphdr
    from graphdr.bench.evaluation import make_classifier

    lda = graphdr.LDA(reg=reg).fit(Xtr, ytr)
    Ztr, Zte = lda.transform(Xtr), lda.transform(Xte)
    return {clf: 100.0 * np.mean(make_classifier(clf).fit(Ztr, ytr).predict(Zte) != yte)
            for clf in base.CLASSIFIERS}


def full_curve_excess(curve, reg):
    """Excess (%) of the full-data PRESS at ``reg`` over its minimum (log-linear interpolation
    of the curve on its grid; the grid's ends beyond it)."""
    g = np.log10(curve["param_reg"])
    press = np.interp(np.log10(reg), g, curve["mean_test_error"])
    return 100.0 * (press / curve["mean_test_error"].min() - 1.0)


def run_dataset(name):
    from sklearn.preprocessing import MinMaxScaler

    X, y = load(name)
    rows = []
    for fold, (tr, te) in enumerate(base.folds(y)):
        scaler = MinMaxScaler((-1, 1)).fit(X[tr])
        Xtr, Xte, ytr, yte = scaler.transform(X[tr]), scaler.transform(X[te]), y[tr], y[te]
        n = len(ytr)
        t = time.perf_counter()
        reg_full, curve = press_choice(Xtr, ytr, None)
        seconds_full = time.perf_counter() - t
        variants = {"full": reg_full}
        for m in SUBSAMPLES:
            if m >= n:
                continue
            reg_m, _ = press_choice(Xtr, ytr, m)
            variants[f"m={m}"] = reg_m
            if m == DEFAULT_M or m == max(s for s in SUBSAMPLES if s < n):
                variants[f"m={m} no transfer"] = reg_m * n / m
        for label, reg in variants.items():
            row = dict(dataset=name, fold=fold, n=n, variant=label, reg=reg,
                       ratio=reg / reg_full, excess=full_curve_excess(curve, reg),
                       seconds_full=seconds_full)
            if label == "full" or "no transfer" in label or label == f"m={_largest(n)}":
                row.update(test_errors(Xtr, ytr, Xte, yte, reg))
            rows.append(row)
        print(f"{name} fold {fold}: n={n} full reg={reg_full:.3g} "
              + " ".join(f"{k}:{v / reg_full:.2f}" for k, v in variants.items() if k != "full"),
              flush=True)
    return rows


def _largest(n):
    """The subsample ``graphdr.LDA`` uses on ``n`` rows, among those benchmarked."""
    return max(s for s in SUBSAMPLES if s < n) if n > min(SUBSAMPLES) else None


def summarise(rows, datasets):
    lines = []
    for name in datasets:
        rs = [r for r in rows if r["dataset"] == name]
        if not rs:
            continue
        n = rs[0]["n"]
        lines += ["", f"### {name} ({n} training rows per fold)", "",
                  "| variant | ridge / full (geo. mean) | range over folds | full-data PRESS "
                  "excess (mean, max) | 1-NN | 3-NN | nearest centroid |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for label in dict.fromkeys(r["variant"] for r in rs):
            v = [r for r in rs if r["variant"] == label]
            ratio = np.array([r["ratio"] for r in v])
            exc = np.array([r["excess"] for r in v])
            errs = [f"{np.mean([r[c] for r in v]):.2f}" if c in v[0] else ""
                    for c in base.CLASSIFIERS]
            lines.append(f"| {label} | {np.exp(np.mean(np.log(ratio))):.2f} | "
                         f"{ratio.min():.2f} - {ratio.max():.2f} | {exc.mean():.2f}, "
                         f"{exc.max():.2f} | " + " | ".join(errs) + " |")
        secs = np.mean([r["seconds_full"] for r in rs if r["variant"] == "full"])
        lines.append(f"\nPRESS on all {n} rows: {secs:.1f} s per fold.")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", nargs="+", default=list(DATASETS))
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    rows = []
    for name in args.datasets:
        rows += run_dataset(name)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    lines = ["# LDA's leave-one-out ridge: from a subsample to the full training set", "",
             "Produced by (graphdr commit " + commit + f", {(time.perf_counter() - t0) / 60:.1f}"
             " min):", "",
             "    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
             "benchmarks/model_selection.py --press-transfer" + (" --datasets " + " ".join(args.datasets)
                                               if argv or sys.argv[1:] else ""), "",
             "Paper 000's protocol (stratified 10-fold CV, seed 0, [-1, 1] scaling on the "
             "training fold). `full`: the PRESS choice on every training row. `m=...`: the "
             "choice on a stratified subsample of m rows times m / n (graphdr's rule; "
             "`graphdr.LDA` uses m = 2000, or all rows below that). `no transfer`: the same "
             "choice without the factor m / n. Ridge / full: the ratio of the chosen relative "
             "ridge to the full-data choice (the grid step is a factor 1.78). PRESS excess: "
             "how far above its minimum the full-data leave-one-out error is at the chosen "
             "ridge. Errors: test error in % of LDA fitted on the whole training fold with "
             "that ridge (shown for `full`, for the largest subsample below n with and "
             "without the transfer)."]
    lines += summarise(rows, args.datasets)
    out = RESULTS / "model_selection_press_transfer.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
