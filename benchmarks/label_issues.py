"""Which labels are wrong? ``graphdr.LabelIssues`` against cleanlab on labels flipped on purpose.

Per data set, noise and seed the labels are corrupted and the flipped rows are the truth
(:func:`labels_of`: ``uniform``, ``pair``; and the correct labels of ``clean``, ``few`` and
``few-noisy``). Scored (:func:`scores`): precision, recall and F1 of the flags, AUROC of the
label-quality ranking, fit seconds, for ``LabelIssues()`` and the anchors (:data:`ANCHORS`,
:func:`run_method`); ``--variants`` adds LabelIssues with each model alone. The targets and the
table of cuts (one fit with ``min_suspicion=0``, its flags cut): ``label_issues.md``.

    .venv/bin/python benchmarks/label_issues.py [--datasets ...] [--seeds 3] [--variants]
        [--noises uniform pair clean few few-noisy] [--jobs 2] [--out FILE.json]
        [--from-json A.json B.json ...]
    .venv/bin/python benchmarks/label_issues.py --scale    # 10^5 x 50: time against cl-knn
    .venv/bin/python benchmarks/label_issues.py --map-cost # graphdr map's label check
    .venv/bin/python benchmarks/label_issues.py --quick    # smoke run: digits, one seed

Cells run ``--jobs`` at a time on one thread each; ``--scale`` alone on the default threads.
``--map-cost``: ``graphdr map`` of a 20,000 x 16 file, all labelled and 95 % unlabelled, with
its label check (the default) against ``--labels given``, alternated, each side's best of two
(target <= 1.5x). Writes ``benchmarks/results/label_issues.md`` (and ``.json``;
``label_issues_scale.md``, ``label_issues_map_cost.md``). The
study of ``labels='audit'`` on noisy labels is retired: ``docs/history.rst``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import common
import numpy as np

OUT = common.RESULTS / "label_issues.md"
DATASETS = ("digits", "ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima",
            "wdbc", "mnist5k")
NOISES = ("uniform", "pair")
#: the cells of correct labels (and of a few labels, some flipped)
CLEAN = ("clean", "few", "few-noisy")
ANCHORS = ("cl-knn", "cl-logistic", "datalab")
#: the cuts of the suspicion whose flags the cut table shows (the default 'auto' takes 0.5 with
#: fewer than 30 labelled samples in a class, else 0)
CUTS = (0.0, 0.3, 0.4, 0.5, 0.7, 0.9)
#: the fraction of each class's rows labelled in the ``few`` cells (at least FEW_MIN)
FEW, FEW_MIN = 0.05, 3
VARIANTS = {"graphdr": {}, "neighbors": {"models": ["neighbors"]},
            "discriminant": {"models": ["discriminant"]}, "logistic": {"models": ["logistic"]}}


def closest_pair(X, y):
    """The two classes whose means are closest (the confusable pair of the ``pair`` noise)."""
    C = int(y.max()) + 1
    M = np.array([X[y == c].mean(axis=0) for c in range(C)])
    D = ((M[:, None] - M[None]) ** 2).sum(-1)
    D[np.arange(C), np.arange(C)] = np.inf
    a, b = np.unravel_index(np.argmin(D), D.shape)
    return int(min(a, b)), int(max(a, b))


def corrupt(X, y, noise, seed):
    """The noisy labels of one cell (``y`` encoded 0..C-1)."""
    rng = np.random.default_rng(seed)
    noisy = y.copy()
    C = int(y.max()) + 1
    if noise == "uniform":
        for i in rng.choice(len(y), int(round(0.1 * len(y))), replace=False):
            noisy[i] = rng.choice([c for c in range(C) if c != y[i]])
        return noisy
    a, b = closest_pair(X, y)
    for s, t in ((a, b), (b, a)):
        members = np.flatnonzero(y == s)
        noisy[rng.choice(members, int(round(0.2 * len(members))), replace=False)] = t
    return noisy


def few_labels(y, seed):
    """``y`` with all but :data:`FEW` of each class's rows (at least :data:`FEW_MIN`, drawn
    with the seed) set to -1."""
    rng = np.random.default_rng(500 + seed)
    out = np.full(len(y), -1)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        k = min(len(members), max(FEW_MIN, int(round(FEW * len(members)))))
        out[rng.choice(members, k, replace=False)] = c
    return out


def labels_of(X, y, noise, seed):
    """The labels of one cell (``y`` encoded 0..C-1; -1: unlabelled)."""
    if noise == "clean":
        return y.copy()
    if noise not in ("few", "few-noisy"):
        return corrupt(X, y, noise, seed)
    few = few_labels(y, seed)
    if noise == "few":
        return few
    rng = np.random.default_rng(900 + seed)
    labelled = np.flatnonzero(few >= 0)
    C = int(y.max()) + 1
    for i in rng.choice(labelled, max(1, int(round(0.1 * len(labelled)))), replace=False):
        few[i] = rng.choice([c for c in range(C) if c != y[i]])
    return few


def scores(flagged, quality, truth, labelled=None):
    """Precision, recall, F1, AUROC of the flags against ``truth`` (over the ``labelled``
    rows), and the fraction flagged; the fraction alone where nothing is wrong."""
    from sklearn.metrics import precision_recall_fscore_support, roc_auc_score

    if labelled is not None:
        flagged, quality, truth = flagged[labelled], quality[labelled], truth[labelled]
    out = {"flagged": float(np.mean(flagged))}
    if not truth.any():
        return out
    p, r, f, _ = precision_recall_fscore_support(truth, flagged, average="binary",
                                                 zero_division=0)
    return {**out, "precision": float(p), "recall": float(r), "f1": float(f),
            "auroc": float(roc_auc_score(truth, -np.asarray(quality)))}


def _cleanlab(model, X, noisy):
    from cleanlab.filter import find_label_issues
    from cleanlab.rank import get_label_quality_scores
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    probs = cross_val_predict(model, X, noisy, cv=cv, method="predict_proba")
    # n_jobs=1: its own process pool fails inside a worker process (and cells run in parallel)
    return find_label_issues(noisy, probs, n_jobs=1), get_label_quality_scores(noisy, probs)


def run_method(method, X, noisy, cuts=None):
    """``(flagged, quality, seconds)`` of one method on one noisy labelling; for LabelIssues
    with ``cuts`` (a dict), also ``cuts[t]``: its flags at each cut of :data:`CUTS`, and
    ``cuts['auto']``: the cut the default took."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method in VARIANTS:
            import graphdr

            params = dict(VARIANTS[method])
            if cuts is not None:
                params["min_suspicion"] = 0.0
            audit = graphdr.LabelIssues(**params).fit(X, noisy)
            flagged, quality = audit.is_issue_, audit.label_quality_
            if cuts is not None:  # the default cut's flags, and the others
                from graphdr.audit.confident import auto_min_suspicion

                assert graphdr.LabelIssues().min_suspicion == "auto"
                cuts.update({t: flagged & (audit.suspicion_ >= t) for t in CUTS})
                cuts["auto"] = auto_min_suspicion(noisy[noisy >= 0])
                flagged = flagged & (audit.suspicion_ >= cuts["auto"])
        elif method == "cl-knn":
            from sklearn.neighbors import KNeighborsClassifier

            flagged, quality = _cleanlab(KNeighborsClassifier(10), X, noisy)
        elif method == "cl-logistic":
            from sklearn.linear_model import LogisticRegression

            flagged, quality = _cleanlab(LogisticRegression(max_iter=1000), X, noisy)
        else:
            import contextlib
            import io

            from cleanlab import Datalab

            lab = Datalab(data={"label": noisy}, label_name="label", verbosity=0)
            said = io.StringIO()
            with contextlib.redirect_stdout(said):  # (it prints why a check stopped)
                lab.find_issues(features=X, issue_types={"label": {}})
            try:
                issues = lab.get_issues("label")
            except ValueError:
                why = [line for line in said.getvalue().splitlines() if "Error" in line]
                raise ValueError(why[0] if why else "no label issues computed") from None
            flagged = issues["is_label_issue"].to_numpy()
            quality = issues["label_score"].to_numpy()
    return np.asarray(flagged, dtype=bool), np.asarray(quality), time.perf_counter() - start


def run_cell(cell):
    name, noise, seed, methods = cell
    from threadpoolctl import threadpool_limits

    X, y = common.load(name, scaled=True)
    noisy = labels_of(X, y, noise, seed)
    labelled = np.flatnonzero(noisy >= 0)
    truth = (noisy != y) & (noisy >= 0)
    if noise in ("few", "few-noisy"):  # (the anchors take no unlabelled rows)
        methods = [m for m in methods if m in VARIANTS]
    out = {}
    with threadpool_limits(1):
        for method in methods:
            cuts = {} if method == "graphdr" else None
            try:
                flagged, quality, seconds = run_method(method, X, noisy, cuts)
            except ValueError as error:  # an anchor that fails on a set: said in the table
                if method in VARIANTS:
                    raise
                out[method] = {"failed": str(error).strip().splitlines()[0]}
                continue
            out[method] = {**scores(flagged, quality, truth, labelled), "seconds": seconds,
                           "n_flagged": int(flagged.sum()), "n_flipped": int(truth.sum())}
            if cuts:
                out[method]["cut"] = cuts.pop("auto")
                out[method]["cuts"] = {str(t): scores(f, quality, truth, labelled)
                                       for t, f in cuts.items()}
    shown = "flagged" if noise in ("clean", "few") else "f1"
    print(name, noise, seed, {m: round(v.get(shown, np.nan), 3) for m, v in out.items()},
          flush=True)
    return {"set": name, "noise": noise, "seed": seed, "results": out}


def mean_table(cells):
    """``{(set, noise): {method: {metric: mean over seeds}}}``."""
    table = {}
    for c in cells:
        key = (c["set"], c["noise"])
        for m, v in c["results"].items():
            table.setdefault(key, {}).setdefault(m, []).append(v)
    def mean(rs):
        failed = [r["failed"] for r in rs if "failed" in r]
        if failed:  # on any seed: the set's cell says so
            return {"failed": failed[0]}
        out = {x: float(np.mean([r[x] for r in rs])) for x in rs[0] if x != "cuts"}
        if "cuts" in rs[0]:
            out["cuts"] = {t: mean([r["cuts"][t] for r in rs]) for t in rs[0]["cuts"]}
        return out
    return {k: {m: mean(rs) for m, rs in d.items()} for k, d in table.items()}


def meets(row, ours="graphdr"):
    """Whether ``ours`` has F1 and AUROC at least the best anchor's (3 decimals)."""
    anchors = [m for m in ANCHORS if m in row and "failed" not in row[m]]
    if not anchors:
        return False, False
    f1 = round(row[ours]["f1"], 3) >= max(round(row[m]["f1"], 3) for m in anchors)
    au = round(row[ours]["auroc"], 3) >= max(round(row[m]["auroc"], 3) for m in anchors)
    return f1, au


def write(cells, args):
    table = mean_table(cells)
    methods = [m for m in (*VARIANTS, *ANCHORS) if any(m in r for r in table.values())]
    sets = [s for s in DATASETS if any(k[0] == s for k in table)]
    seeds = sorted({c["seed"] for c in cells})
    lines = ["# Finding flipped labels: LabelIssues against cleanlab", "",
             f"Command: `.venv/bin/python benchmarks/label_issues.py --seeds {len(seeds)}"
             + (" --variants" if args.variants else "") + "`", "",
             common.machine(f"each cell on one thread, {args.jobs} cells at a time"), "",
             "Noises: `uniform`, 10 % of the rows given another class at random; `pair`, 20 % "
             "of each of the two classes with the closest means given the other. Mean over "
             f"seeds {seeds}. F1 of `is_issue_` and AUROC of `label_quality_` against the "
             "flipped rows; anchors: cleanlab `find_label_issues` on 5-fold probabilities of "
             "10-NN (`cl-knn`) and logistic regression (`cl-logistic`), and `Datalab` from "
             "the features.", ""]
    summary = []
    for noise in NOISES:
        keys = [(s, noise) for s in sets if (s, noise) in table]
        if not keys:
            continue
        both = [all(meets(table[k])) for k in keys]
        f1s = [meets(table[k])[0] for k in keys]
        aus = [meets(table[k])[1] for k in keys]
        summary.append(f"{noise} noise: F1 and AUROC >= the best anchor's on {sum(both)} of "
                       f"{len(keys)} sets (F1 on {sum(f1s)}, AUROC on {sum(aus)}; target 8)")
        lines += [f"## {noise} noise", "", *common.table(
            ["set", *(f"{m} {x}" for x in ("F1", "AUROC", "s") for m in methods), "meets"],
            align="l" + "r" * 3 * len(methods) + "l")]
        for k, ok in zip(keys, both):
            row = table[k]
            done = [m for m in methods if "failed" not in row[m]]
            best = {x: max(round(row[m][x], 3) for m in done) for x in ("f1", "auroc")}

            def cell(m, x, row=row, best=best):
                if "failed" in row[m]:
                    return "failed"
                v = round(row[m][x], 3)
                return f"**{v:.3f}**" if v == best[x] else f"{v:.3f}"
            lines.append(common.row(k[0], *(cell(m, x) for x in ("f1", "auroc") for m in methods),
                                    *("failed" if "failed" in row[m] else f"{row[m]['seconds']:.2f}"
                                      for m in methods), "yes" if ok else "no"))
        lines.append("")
    clean_lines, clean_summary = clean_tables(table, sets, seeds)
    lines += clean_lines
    summary += clean_summary
    failures = sorted({f"{k[0]} ({k[1]}): {m} failed: {v['failed']}" for k, row in table.items()
                       for m, v in row.items() if "failed" in v})
    if failures:
        lines += ["A failed anchor is left out of that set's comparison:", "",
                  *[f"- {f}" for f in failures], ""]
    head = ["Headline: " + "; ".join(summary) + ".", ""]
    first = next(i for i, line in enumerate(lines) if line.startswith("## "))
    common.write_lines(OUT, lines[:first] + head + lines[first:])


def _pct(row, method, key="flagged"):
    v = row.get(method)
    if v is None:
        return "-"
    return "failed" if "failed" in v else f"{100 * v[key]:.2f}"


def clean_tables(table, sets, seeds):
    """The result file's sections on correct labels (``clean``, ``few``, ``few-noisy``) and
    on the cut, and the headline's clause on them."""
    keyed = {noise: {s: table[(s, noise)] for s in sets if (s, noise) in table}
             for noise in CLEAN}
    if not keyed["clean"]:
        return [], []
    anchors = [m for m in ANCHORS if any(m in r for r in keyed["clean"].values())]
    lines = ["## Clean labels", "",
             "Rows flagged (%) with the labels as the set gives them (`clean`, 0 % flipped); "
             f"`few`: 5 % of each class's rows labelled (at least {FEW_MIN}), the labelled rows "
             f"flagged (%), mean over seeds {seeds}; `few-noisy`: the same with 10 % of those "
             "labels flipped, F1 over the labelled rows (the anchors take no unlabelled rows). "
             "Target: at most 1 % on every set, or the floor stated.", "", *common.table(
                 ["set", "graphdr clean %", *(f"{m} clean %" for m in anchors), "graphdr few %",
                  "graphdr few-noisy F1"], align="l" + "r" * (len(anchors) + 3))]
    for s, row in keyed["clean"].items():
        noisy = keyed["few-noisy"].get(s, {}).get("graphdr")
        lines.append(common.row(s, *(_pct(row, m) for m in ("graphdr", *anchors)),
                                _pct(keyed["few"].get(s, {}), "graphdr"),
                                f"{noisy['f1']:.3f}" if noisy and "f1" in noisy else "-"))
    lines += ["", "## The cut", "",
              "LabelIssues' flags at each cut `t` of the suspicion (0: the rule of confident "
              "learning alone; the default `'auto'` takes 0.5 in the `few` cells, fewer than "
              "30 labelled samples per class, and 0 in the others, 37 or more): rows flagged "
              "on clean labels (%), labelled rows flagged with few labels (%), F1 with uniform "
              "and pair noise (mean over the seeds).", "", *common.table(
                  ["set", *(f"{what} t={t}" for what in ("clean %", "few %", "uniform F1",
                                                         "pair F1") for t in CUTS)],
                  align="l" + "r" * 4 * len(CUTS))]

    def at(noise, s, key):
        row = table.get((s, noise), {}).get("graphdr", {}).get("cuts")
        if not row:
            return ["-"] * len(CUTS)
        scale, fmt = (100.0, "{:.2f}") if key == "flagged" else (1.0, "{:.3f}")
        return [fmt.format(scale * row[str(t)][key]) if key in row[str(t)] else "-"
                for t in CUTS]
    lines += [common.row(s, *at("clean", s, "flagged"), *at("few", s, "flagged"),
                         *at("uniform", s, "f1"), *at("pair", s, "f1")) for s in keyed["clean"]]
    lines.append("")
    clean = {s: row["graphdr"]["flagged"] for s, row in keyed["clean"].items()}
    low = [s for s, v in clean.items() if v <= 0.01]
    worst = max(clean, key=clean.get)
    summary = [f"clean labels: <= 1 % of the rows flagged on {len(low)} of {len(clean)} sets "
               f"(target: every set; floor where classes overlap: {worst} "
               f"{100 * clean[worst]:.1f} %)"]
    if keyed["few"]:
        few = {s: row["graphdr"]["flagged"] for s, row in keyed["few"].items()}
        worst_few = max(few, key=few.get)
        summary.append(f"5 % labelled: at most {100 * few[worst_few]:.1f} % of the labels "
                       f"flagged ({worst_few})")
    return lines, summary


def scale(args):
    """10^5 x 50 (make_classification, 10 classes, 10 % uniform noise): LabelIssues against
    cl-knn, default threads."""
    from sklearn.datasets import make_classification

    n = 2000 if args.quick else 100_000
    X, y = make_classification(n_samples=n, n_features=50, n_informative=30, n_redundant=10,
                               n_classes=10, n_clusters_per_class=2, random_state=0)
    noisy = corrupt(X, y, "uniform", 0)
    truth = noisy != y
    import importlib.util

    from threadpoolctl import threadpool_limits

    rows = {}
    methods = ("graphdr", "cl-knn")
    if importlib.util.find_spec("cleanlab") is None:
        if not args.quick:
            raise SystemExit("--scale: cleanlab is not installed (pip install -e '.[bench]')")
        methods = ("graphdr",)  # the smoke run without the optional baseline
        print("cleanlab is not installed: the smoke run skips cl-knn", flush=True)
    cut_rows = {}
    for threads in ("default threads", "one thread"):
        for method in methods:
            cuts = {} if method == "graphdr" and threads == "default threads" else None
            with threadpool_limits(1 if threads == "one thread" else None):
                flagged, quality, seconds = run_method(method, X, noisy, cuts)
            rows[f"{method} ({threads})"] = {**scores(flagged, quality, truth),
                                             "seconds": seconds}
            print(method, threads, rows[f"{method} ({threads})"], flush=True)
            if cuts:  # (the same fit's flags at the other cuts of the suspicion)
                auto = cuts.pop("auto")
                cut_rows.update({f"graphdr, min_suspicion={t}": scores(f, quality, truth)
                                 for t, f in cuts.items()})
    ours = rows["graphdr (default threads)"]
    theirs = rows.get("cl-knn (default threads)", {**ours, "seconds": float("nan")})
    ratio = ours["seconds"] / theirs["seconds"]
    lines = ["# LabelIssues at scale", "",
             "Command: `" + common.thread_variables()
             + ".venv/bin/python benchmarks/label_issues.py --scale`", "",
             common.machine(common.threads_label()), "",
             f"Headline: {n:,} x 50, 10 classes, 10 % uniform noise, default threads: "
             f"LabelIssues {ours['seconds']:.1f} s, cleanlab with 10-NN "
             f"{theirs['seconds']:.1f} s ({ratio:.2f}x; target <= 3x, and < 60 s); "
             f"F1 {ours['f1']:.3f} vs {theirs['f1']:.3f}"
             + (f" (the default cut {auto}; min_suspicion=0.5: "
                f"{cut_rows['graphdr, min_suspicion=0.5']['f1']:.3f})" if cut_rows else "")
             + ".", "",
             "The same fits with one BLAS/OpenMP thread are labelled (one thread). "
             "`python -m benchmarks` runs it with the machine's default threads; data: "
             "`make_classification` (30 informative, 10 redundant features, 2 clusters per "
             "class, seed 0).", "",
             *common.table(("method", "seconds", "precision", "recall", "F1", "AUROC"), [
                 (m, f"{r['seconds']:.1f}", *(f"{r[k]:.3f}" for k in ("precision", "recall",
                                                                       "f1", "auroc")))
                 for m, r in rows.items()], "lrrrrr"),
             "", "LabelIssues' flags at other cuts of the suspicion (the same fit: its "
             "`min_suspicion=0` flags cut; the default `'auto'` takes "
             + (f"{auto}" if cut_rows else "-") + ", every class having 30 or more labels): "
             "on these ten overlapping classes a higher cut trades flipped labels found "
             "(recall) for fewer correct labels flagged (precision).", "",
             *common.table(("cut", "rows flagged", "precision", "recall", "F1"), [
                 (m, f"{100 * r['flagged']:.1f} %", *(f"{r[k]:.3f}" for k in ("precision",
                                                                              "recall", "f1")))
                 for m, r in cut_rows.items()], "lrrrr")]
    common.write_lines(OUT.with_name("label_issues_scale.md"), lines)


def map_cost(args):
    """``graphdr map`` with its label check against ``--labels given`` (see the docstring)."""
    import subprocess
    import tempfile

    import pandas as pd
    from sklearn.datasets import make_classification

    n = 2000 if args.quick else 20_000
    X, y = make_classification(n, 16, n_informative=10, n_classes=8, n_clusters_per_class=2,
                               random_state=0)
    labels = np.array([f"c{v}" for v in y], dtype=object)
    few = np.where(np.random.default_rng(0).random(n) < 0.95, "", labels)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, lab in (("all labelled", labels), ("95 % unlabelled", few)):
            path = Path(tmp) / "table.csv"
            pd.DataFrame(X).add_prefix("p").assign(label=lab).to_csv(path, index=False)
            times = {"given": [], "checked": []}
            for _ in range(1 if args.quick else 2):
                for side, extra in (("given", ["--labels", "given"]), ("checked", [])):
                    start = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "graphdr.cli", "map", path, "--out",
                                    Path(tmp) / side, "--no-png", "--quiet", *extra],
                                   check=True, cwd=tmp)
                    times[side].append(time.perf_counter() - start)
            given, checked = min(times["given"]), min(times["checked"])
            rows.append((name, f"{checked:.1f}", f"{given:.1f}", f"{checked / given:.2f}x"))
            print(*rows[-1], flush=True)
    worst = max(float(r[3][:-1]) for r in rows)
    common.write_lines(OUT.with_name("label_issues_map_cost.md"), [
        "# The cost of graphdr map's label check", "",
        "Command: `.venv/bin/python benchmarks/label_issues.py --map-cost`", "",
        common.machine(common.threads_label()), "",
        f"Headline: the label check costs at most {worst:.2f}x the map with `--labels given` "
        f"on {n:,} x 16 (target <= 1.5x).", "",
        "`graphdr map` of a CSV (`make_classification`, 8 classes, seed 0; 95 % of the labels "
        "left empty in the second file), the default (labels checked) and `--labels given` "
        "alternated, each side's best of two, `--no-png`.", "",
        *common.table(("labels", "checked (s)", "given (s)", "ratio"), rows, "lrrr")])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--noises", nargs="+", default=[*NOISES, *CLEAN],
                        choices=[*NOISES, *CLEAN])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--variants", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", help="write the cells to this JSON only (a part of a run)")
    parser.add_argument("--from-json", nargs="+", help="tables from these cells' JSON files")
    parser.add_argument("--scale", action="store_true")
    parser.add_argument("--map-cost", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        with common.smoke_outputs(sys.modules[__name__]):
            args.datasets, args.seeds, args.jobs = ["digits"], 1, 1
            scale(args)
            map_cost(args)
            return run(args)
    if args.scale:
        return scale(args)
    if args.map_cost:
        return map_cost(args)
    return run(args)


def run(args):
    if args.from_json:
        cells = [c for f in args.from_json for c in json.loads(Path(f).read_text())]
    else:
        methods = ["graphdr", *(list(VARIANTS)[1:] if args.variants else []),
                   *([] if args.quick else ANCHORS)]
        # (the labels as given: one cell, every method deterministic)
        todo = [(s, n, seed, methods) for s in args.datasets for n in args.noises
                for seed in range(1 if n == "clean" else args.seeds)]
        if args.jobs > 1:
            from joblib import Parallel, delayed

            cells = Parallel(n_jobs=args.jobs)(delayed(run_cell)(c) for c in todo)
        else:
            cells = [run_cell(c) for c in todo]
        if args.out:
            Path(args.out).write_text(json.dumps(cells))
            return
    OUT.with_suffix(".json").write_text(json.dumps(cells, indent=0))
    write(cells, args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
