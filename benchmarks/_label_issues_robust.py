"""``label_issues.py --robust``: do fits with ``labels='audit'`` survive label noise?

Protocol. Per data set and seed (0..2): a stratified 70 / 30 train/test split (``semi.py``'s,
features standardised on the training rows; digits and mnist5k pixels as they are); a fraction
of the training labels flipped to another class drawn uniformly (20 %, and 0 %: clean labels).
Each estimator is fitted on the noisy training labels with ``labels='given'`` and with
``labels='audit'`` (the samples :class:`graphdr.LabelIssues` flags fitted as unlabelled,
``unlabelled='auto'``); supervised UMAP on the noisy labels (umap-learn defaults, 2-D,
``random_state=0``) beside them. Reported: the held-out error (%) of the test rows in the
embedding, each classified by its nearest other test row (leave-one-out 1-NN, true labels) --
how well the embedding separates the true classes of new samples, whatever labels it was
fitted on; every method places the test rows with its own ``transform``, so no method's
training rows (collapsed by a kernel discriminant, kept apart by a map) enter the measure --
mean over the seeds.

Targets: at 20 % noise 'audit' lowers the error of DEEMap and of KernelLDA on at least 8 of
the 10 sets; with clean labels it costs at most 0.3 points on any set.

    .venv/bin/python benchmarks/label_issues.py --robust [--datasets ...] [--seeds 3]
        [--noises 0.2 0.0] [--out FILE.json] [--from-json A.json B.json]
        [--no-umap] [--umap-from EARLIER.json]

``--umap-from`` takes the UMAP cells of an earlier run (they do not depend on graphdr: the same
split, labels and seed) instead of fitting UMAP again; the result file says so.

Writes ``benchmarks/results/label_issues_robust.md`` (and ``.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

SETS = ("digits", "ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima",
        "wdbc", "mnist5k")
ESTIMATORS = ("DEEMap", "KernelLDA")
NOISES = (0.2, 0.0)


def flip(y, rate, seed):
    """``y`` with ``rate`` of its entries given another class drawn uniformly."""
    rng = np.random.default_rng(1000 + seed)
    noisy = y.copy()
    C = int(y.max()) + 1
    for i in rng.choice(len(y), int(round(rate * len(y))), replace=False):
        noisy[i] = rng.choice([c for c in range(C) if c != y[i]])
    return noisy


def held_out_error(Z, y):
    """Leave-one-out 1-NN error (%) of the rows ``Z`` with labels ``y`` (ties: smaller index)."""
    from sklearn.neighbors import NearestNeighbors

    _, idx = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z)
    other = np.where(idx[:, 0] == np.arange(len(Z)), idx[:, 1], idx[:, 0])
    return 100.0 * float(np.mean(y[other] != y))


def cell(name, rate, seed, umap=True):
    """``{method: (error %, fit s, flagged)}`` of one (set, noise, seed)."""
    import common
    from semi import load, split, standardise

    X, y = load(name)
    Xtr, ytr, _, Xte, yte = split(X, y, 1.0, seed)
    Xtr, Xte = standardise(name, Xtr, Xte)
    noisy = flip(ytr, rate, seed)
    out = {}
    for est_name in ESTIMATORS:
        for labels in ("given", "audit"):
            est = common.estimator_class(est_name)(labels=labels)
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(Xtr, noisy)
            seconds = time.perf_counter() - t
            audit = getattr(est, "label_issues_", None)
            out[f"{est_name} {labels}"] = (held_out_error(est.transform(Xte), yte), seconds,
                                           0 if audit is None else int(audit.is_issue_.sum()))
    if umap:
        import umap as umap_learn

        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = umap_learn.UMAP(random_state=0).fit(Xtr, noisy)
        out["UMAP (noisy labels)"] = (held_out_error(m.transform(Xte), yte),
                                      time.perf_counter() - t, 0)
    print(name, rate, seed, {k: round(v[0], 1) for k, v in out.items()}, flush=True)
    return {"set": name, "noise": rate, "seed": seed, "results": out}


def write(cells, path, umap_from=None):
    import common

    table = {}
    for c in cells:
        for m, v in c["results"].items():
            table.setdefault((c["set"], c["noise"]), {}).setdefault(m, []).append(v)
    mean = {k: {m: [float(np.mean([r[i] for r in rs])) for i in range(3)]
                for m, rs in d.items()} for k, d in table.items()}
    named = {k[0] for k in mean}
    sets = [s for s in SETS if s in named] + sorted(named - set(SETS))
    noises = sorted({k[1] for k in mean}, reverse=True)
    methods = [m for m in (*(f"{e} {lab}" for e in ESTIMATORS for lab in ("given", "audit")),
                           "UMAP (noisy labels)") if any(m in d for d in mean.values())]
    summary = []
    for rate in noises:
        for est in ESTIMATORS:
            keys = [(s, rate) for s in sets if (s, rate) in mean]
            gains = [mean[k][f"{est} given"][0] - mean[k][f"{est} audit"][0] for k in keys]
            if rate > 0:
                summary.append(f"{int(100 * rate)} % noise: 'audit' lowers {est}'s error on "
                               f"{sum(g > 0 for g in gains)} of {len(keys)} sets (target 8)")
            else:
                summary.append(f"clean labels: 'audit' costs {est} at most "
                               f"{max(0.0, -min(gains)):.1f} points (target 0.3)")
    seeds = sorted({c["seed"] for c in cells})
    lines = ["# Fits on noisy labels: labels='audit' against the labels as given", "",
             "Command: `.venv/bin/python benchmarks/label_issues.py --robust"
             + (f" --umap-from {umap_from}" if umap_from else "") + "`", "",
             common.machine(), "",
             "Headline: " + "; ".join(summary) + ".", "",
             "Held-out error (%): the test rows in each embedding, each classified by its "
             "nearest other test row (true labels); fits on the noisy training labels; mean "
             f"over seeds {seeds}. Fit seconds are indicative: measured beside other work. "
             "`flagged`: training labels LabelIssues set aside (mean)."
             + (f" The UMAP columns are those of the earlier run `{umap_from}` (the same splits, "
                "labels and seeds; UMAP does not depend on graphdr)." if umap_from else ""), ""]
    for rate in noises:
        lines += [f"## {int(100 * rate)} % of the training labels flipped", "",
                  "| set | " + " | ".join(methods) + " | flagged (DEEMap audit) | "
                  + " | ".join(f"{m} s" for m in methods) + " |",
                  "|---|" + "---:|" * (2 * len(methods) + 1)]
        for s in sets:
            row = mean.get((s, rate))
            if row is None:
                continue
            best = min(round(row[m][0], 1) for m in methods)
            lines.append(f"| {s} | " + " | ".join(
                (f"**{row[m][0]:.1f}**" if round(row[m][0], 1) == best else f"{row[m][0]:.1f}")
                for m in methods) + f" | {row['DEEMap audit'][2]:.0f} | "
                + " | ".join(f"{row[m][1]:.1f}" for m in methods) + " |")
        lines.append("")
    common.write_lines(path, lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(SETS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--noises", nargs="+", type=float, default=list(NOISES))
    parser.add_argument("--out")
    parser.add_argument("--from-json", nargs="+")
    parser.add_argument("--no-umap", action="store_true")
    parser.add_argument("--umap-from", help="UMAP's cells from this earlier run's JSON")
    args = parser.parse_args(argv)
    if args.from_json:
        cells = [c for f in args.from_json for c in json.loads(Path(f).read_text())]
    else:
        umap = not (args.no_umap or args.umap_from)
        cells = [cell(s, r, seed, umap=umap) for s in args.datasets
                 for r in args.noises for seed in range(args.seeds)]
        if args.umap_from:
            earlier = {(c["set"], c["noise"], c["seed"]): c["results"]
                       for c in json.loads(Path(args.umap_from).read_text())}
            for c in cells:
                c["results"]["UMAP (noisy labels)"] = earlier[
                    (c["set"], c["noise"], c["seed"])]["UMAP (noisy labels)"]
        if args.out:
            Path(args.out).write_text(json.dumps(cells))
            return 0
    (RESULTS / "label_issues_robust.json").write_text(json.dumps(cells, indent=0))
    write(cells, RESULTS / "label_issues_robust.md",
          Path(args.umap_from).name if args.umap_from else None)
    return 0
