"""``maps2d.py --units``: DEEMap's feature scaling, the map's held-out error with the features
as given, standardised, and by the default rule, on every small real set.

    .venv/bin/python benchmarks/maps2d.py --units [--datasets iris wine ...]

For each of scikit-learn's iris, wine, breast_cancer, digits, the shared UCI sets and mnist5k
(500 digits per class subsampled to 2000, PCA to 50 fitted on each training fold): the largest
share of the total variance held by one feature, and the 5-fold (stratified, seed 0) held-out
1-NN error of the map (``transform`` of the test fold, 1-NN against the map of the training
fold) with ``feature_scaling='none'``, ``'standard'`` and the default ``'auto'``
(standardise when one feature holds more than half of the total variance), beside the 1-NN
error in the input space, raw and standardised. Writes ``benchmarks/results/maps2d_units.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SETS = ("iris", "wine", "breast_cancer", "digits", "heart", "ionosphere", "led7digit", "pima",
        "sonar", "vehicle", "vowel", "wdbc", "mnist5k")


def _data(name):
    X, y = common.load(name)
    if name == "mnist5k":  # 200 per class: the map of a fold in about a second
        keep = np.concatenate([np.flatnonzero(y == c)[:200] for c in np.unique(y)])
        X, y = X[keep], y[keep]
    return X, y


def errors(name):
    from sklearn.decomposition import PCA
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import StandardScaler

    import graphdr

    X, y = _data(name)
    wrong = dict(none=0, standard=0, auto=0, input_raw=0, input_std=0)
    chosen = set()
    share = []
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        A, B = X[tr], X[te]
        if name == "mnist5k":
            pca = PCA(50, random_state=0).fit(A)
            A, B = pca.transform(A), pca.transform(B)
        var = A.var(axis=0)
        share.append(var.max() / var.sum())
        for option in ("none", "standard", "auto"):
            model = graphdr.DEEMap(feature_scaling=option).fit(A, y[tr])
            if option == "auto":
                chosen.add(model.feature_scaling_)
            pred = KNeighborsClassifier(1).fit(model.embedding_, y[tr]).predict(
                model.transform(B))
            wrong[option] += int(np.sum(pred != y[te]))
        scaler = StandardScaler().fit(A)
        for key, (P, Q) in (("input_raw", (A, B)),
                            ("input_std", (scaler.transform(A), scaler.transform(B)))):
            wrong[key] += int(np.sum(KNeighborsClassifier(1).fit(P, y[tr]).predict(Q) != y[te]))
    pct = {k: 100.0 * v / len(y) for k, v in wrong.items()}
    return dict(n=len(y), share=float(np.mean(share)), chosen="/".join(sorted(chosen)), **pct)


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(SETS))
    a = p.parse_args(argv)
    start = time.perf_counter()
    rows = []
    for name in a.datasets:
        if name not in common.SKLEARN_SETS and not common.has_shared(name):
            print(f"{name}: not found, skipped", flush=True)
            continue
        r = errors(name)
        rows.append((name, r))
        print(f"{name:14s} share {r['share']:.3f} -> {r['chosen']:8s} none {r['none']:5.1f} "
              f"standard {r['standard']:5.1f} auto {r['auto']:5.1f}", flush=True)
    best = sum(r["auto"] <= min(r["none"], r["standard"]) + 1e-9 for _, r in rows)
    worse = [(n, r["auto"] - min(r["none"], r["standard"])) for n, r in rows
             if r["auto"] > min(r["none"], r["standard"]) + 1e-9]
    lines = [
        "# DEEMap's feature scaling: as given, standardised, and the default rule",
        "",
        f"Headline: the default feature_scaling='auto' has the lower held-out error of the two "
        f"scalings (or ties) on {best} of {len(rows)} sets"
        + ("" if not worse else "; it trails on " + ", ".join(
            f"{n} (+{d:.1f} points)" for n, d in worse)),
        "",
        f"Command: `{common.thread_variables()}python -m benchmarks run maps2d -- --units` "
        f"({common.threads_label()}; {time.perf_counter() - start:.0f} s).",
        "",
        "5-fold stratified cross-validation (seed 0): held-out 1-NN error (%) of the 2-D map "
        "(`transform` of the test fold against the map of the training fold) for each "
        "`feature_scaling`, and of 1-NN in the input space. 'largest share': the largest "
        "fraction of the total variance held by one feature (mean over the training folds); "
        "'auto' standardises above one half. mnist5k: 200 digits per class, PCA to 50 fitted "
        "on each training fold.",
        "",
        "| data | n | largest share | auto chose | map: none | map: standard | map: auto | "
        "input 1-NN raw | input 1-NN standardised |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name, r in rows:
        lines.append(f"| {name} | {r['n']} | {r['share']:.3f} | {r['chosen']} | {r['none']:.1f} "
                     f"| {r['standard']:.1f} | **{r['auto']:.1f}** | {r['input_raw']:.1f} | "
                     f"{r['input_std']:.1f} |")
    (common.RESULTS / "maps2d_units.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
