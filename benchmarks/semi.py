"""What do partially labelled data gain? Partially labelled data: graphdr's semi-supervised
estimators (y = -1 for an unlabelled training sample) against what a user would otherwise run.

Per data set, fraction F of the training labels kept and seed (:func:`split`): the 1-NN test
error on the labelled training samples in each embedding and the fit time, for every graphdr
semi-supervised estimator (:data:`SEMI`) on all rows and on the labelled rows only, beside the
anchors (:func:`_anchor_cells`). The protocol and the targets: ``semi.md``'s own lines.

    .venv/bin/python benchmarks/semi.py [--datasets ...] [--fractions 0.01 0.02 0.05 0.1 0.2]
        [--seeds 3] [--methods DEEMap --merge]

``--merge`` reruns the named methods only and keeps every other cell of ``semi.json``. Writes
``benchmarks/results/semi.md`` (and ``semi.json``). ``--maps [ARGS]``: the map of few labels,
each use of the unlabelled rows side by side (``_semi_maps.py``, ``semi_maps.md``).
``--timing``: the kernel fits with 95 % of the labels hidden against their labelled fit
(``semi_timing.md``). ``--quick``: a smoke run on the digits, UMAP skipped, nothing written
here. The studies of Poisson learning against its reference and of the margin and gate of
``unlabelled='auto'`` are retired: ``docs/history.rst``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import common
import numpy as np

from graphdr.bench.maps import one_nn_error as one_nn

RESULTS = common.RESULTS
#: the docs' summary table (:func:`rst_summary`), written with ``semi.md``
RST = common.REPO / "docs" / "user_guide" / "semi_results.rst"

DATASETS = ("digits", "ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima",
            "wdbc", "mnist5k")
FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2)
#: a smoke run (``--quick``): the optional baselines are skipped
QUICK = False
#: the graphdr estimators that fit y = -1, with their defaults
SEMI = ("LDA", "LQMI", "KernelLDA", "KQMI", "LFDA", "SemiLFDA", "DEEMap")


def load(name):
    from common import load as load_set

    X, y = load_set(name)
    if name == "digits":
        X = X / 16.0
    return X, y


def split(X, y, fraction, seed):
    """Train/test split and the training labels with -1 for the hidden ones."""
    from sklearn.model_selection import train_test_split

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    rng = np.random.default_rng(seed)
    ys = np.full(len(ytr), -1)
    for c in np.unique(ytr):
        members = np.flatnonzero(ytr == c)
        k = len(members) if fraction >= 1 else max(2, int(round(fraction * len(members))))
        ys[rng.choice(members, min(k, len(members)), replace=False)] = c
    return Xtr, ytr, ys, Xte, yte


def standardise(name, Xtr, Xte):
    if name in ("digits", "mnist5k"):
        return Xtr, Xte
    from sklearn.preprocessing import StandardScaler

    s = StandardScaler().fit(Xtr)
    return s.transform(Xtr), s.transform(Xte)


def graphdr_methods(names=SEMI):
    import graphdr

    return {name: common.estimator_class(name) for name in names if hasattr(graphdr, name)}


def run_cell(name, fraction, seed, methods=SEMI, anchors=True):
    """Every method on one (set, fraction, seed): ``{method: (error %, fit seconds)}``;
    ``anchors=False``: the graphdr ``methods`` only."""
    X, y = load(name)
    Xtr, ytr, ys, Xte, yte = split(X, y, fraction, seed)
    Xtr, Xte = standardise(name, Xtr, Xte)
    lab = ys >= 0
    out = _anchor_cells(Xtr, ys, Xte, yte, fraction) if anchors else {}
    for method, cls in graphdr_methods(methods).items():
        for mode in ("labelled", "semi"):
            if fraction >= 1 and mode == "labelled":
                continue
            est = cls()
            t = time.perf_counter()
            if mode == "semi":
                est.fit(Xtr, ys)
            else:
                est.fit(Xtr[lab], ys[lab])
            fit = time.perf_counter() - t
            Ztr = est.embedding_[lab] if method == "DEEMap" and mode == "semi" else None
            if Ztr is None:
                Ztr = est.transform(Xtr[lab]) if mode == "semi" else training_map(est, Xtr[lab])
            out[f"{method} {mode}"] = (one_nn(Ztr, ys[lab], est.transform(Xte), yte), fit,
                                       getattr(est, "unlabelled_", None) or "")
        if fraction >= 1:
            sup = cls().fit(Xtr, ytr)
            semi = cls().fit(Xtr, ys)
            out[f"{method} 100% = supervised"] = (
                float(np.max(np.abs(sup.transform(Xte) - semi.transform(Xte)))), 0.0)
    return out


def _anchor_cells(Xtr, ys, Xte, yte, fraction):
    """The anchors of one cell (module docstring)."""
    from sklearn.decomposition import PCA
    from sklearn.semi_supervised import LabelSpreading

    lab = ys >= 0
    out = {}
    out["raw"] = (one_nn(Xtr[lab], ys[lab], Xte, yte), 0.0)
    t = time.perf_counter()
    pca = PCA(0.9, random_state=0).fit(Xtr)
    out["PCA (all rows)"] = (one_nn(pca.transform(Xtr[lab]), ys[lab], pca.transform(Xte), yte),
                             time.perf_counter() - t)
    if fraction < 1:
        t = time.perf_counter()
        spread = LabelSpreading(kernel="knn", n_neighbors=7, max_iter=100).fit(Xtr, ys)
        out["LabelSpreading"] = (100.0 * float(np.mean(spread.predict(Xte) != yte)),
                                 time.perf_counter() - t)
    try:
        if QUICK:
            raise ImportError("the smoke run skips UMAP")
        import umap

        for label, target in (("UMAP y=-1", ys), ("UMAP unsupervised", None)):
            if fraction >= 1 and target is None:
                continue
            t = time.perf_counter()
            m = umap.UMAP(random_state=0).fit(Xtr, target)
            fit = time.perf_counter() - t
            out[label] = (one_nn(m.embedding_[lab], ys[lab], m.transform(Xte), yte), fit)
    except ImportError:
        pass
    return out


def training_map(est, X):
    """The training map of a fitted estimator: the nonparametric map's own, else transform."""
    if type(est).__name__ == "DEEMap":
        return est.embedding_
    return est.transform(X)


def anchors(cells):
    return [m for m in cells if not m.endswith(" semi") and "100%" not in m]


def table(results, fraction, datasets):
    cells = {d: results[d][str(fraction)] for d in datasets if str(fraction) in results[d]}
    methods = []
    for d in cells:
        for m in cells[d]:
            if m not in methods and "100%" not in m:
                methods.append(m)
    return [f"### {100 * fraction:g} % of the training labels", "", *common.table(
        ["method", *cells], [(m, *("" if cells[d].get(m) is None else f"{cells[d][m][0]:.1f}"
                                    for d in cells)) for m in methods]), ""], cells


def mean_cells(per_seed):
    """Each method's mean error and fit time over the seeds, and what each seed's fit chose
    for the unlabelled rows (``unlabelled_``, comma-separated), where it records it."""
    out = {}
    for m in per_seed[0]:
        out[m] = (float(np.mean([c[m][0] for c in per_seed])),
                  float(np.mean([c[m][1] for c in per_seed])))
        if len(per_seed[0][m]) > 2 and per_seed[0][m][2]:
            out[m] += (",".join(c[m][2] for c in per_seed),)
    return out


def one_sample(name):
    """One test sample of a data set, in % of its test rows (the targets' slack)."""
    import math

    if name not in _ONE_SAMPLE:
        _ONE_SAMPLE[name] = 100.0 / math.ceil(0.3 * len(load(name)[1]))
    return _ONE_SAMPLE[name]


_ONE_SAMPLE = {}


def targets(results, datasets):
    """The check of the fully labelled fits (100 %) and the cells where a fit with y = -1
    errs more than the same estimator on the labelled rows alone plus one test sample."""
    fractions = [f for f in FRACTIONS if any(str(f) in results[d] for d in datasets)]
    counts = [met(results, datasets, f) for f in fractions]
    lines = ["## Targets", "",
             "- every estimator with y = -1 at most the same estimator on the labelled rows "
             "alone plus one test sample on " + ", ".join(str(c[0]) for c in counts) +
             f" of {counts[0][4] if counts else 0} sets at "
             + ", ".join(f"{100 * f:g}" for f in fractions) + " % of the labels (target: all)."]
    for d in datasets:
        full = results[d].get("1.0")
        if full:
            diffs = {m: v[0] for m, v in full.items() if "100%" in m}
            worst = max(diffs.values()) if diffs else float("nan")
            lines.append(f"- {d}, 100 %: largest |semi - supervised| of the test embeddings "
                         f"over the estimators: {worst:.1e} "
                         f"({'met' if worst == 0.0 else 'NOT met'}).")
    lines += ["", "Cells where an estimator with y = -1 errs more than the same estimator on "
              "the labelled rows alone plus one test sample (its choices of `unlabelled_` "
              "over the seeds):", ""]
    worse = []
    for d in datasets:
        for f, c in results[d].items():
            if f == "1.0":
                continue
            for m, v in c.items():
                base = c.get(m.replace(" semi", " labelled")) if m.endswith(" semi") else None
                if base is not None and v[0] > base[0] + one_sample(d):
                    chose = f" ({v[2]})" if len(v) > 2 else ""
                    worse.append(f"- {d}, {100 * float(f):g} %: {m.replace(' semi', '')} "
                                 f"{v[0]:.1f} against {base[0]:.1f} % labelled{chose}.")
    return lines + (worse or ["- none."]) + [""]


#: the estimator the user guide recommends for partially labelled data
RECOMMENDED = "KernelLDA semi"


def met(results, datasets, fraction):
    """``(never, dee, best, recommended, n)``: of the ``n`` sets at one fraction, how many
    meet each target (:func:`summary`)."""
    never = dee = best = rec = 0
    got = [(d, results[d][str(fraction)]) for d in datasets if str(fraction) in results[d]]
    for d, c in got:
        slack = one_sample(d)
        semi = {m: v[0] for m, v in c.items() if m.endswith(" semi")}
        floor = min(v[0] for m, v in c.items() if m in anchors(c))
        never += all(v <= c[m.replace(" semi", " labelled")][0] + slack
                     for m, v in semi.items() if m.replace(" semi", " labelled") in c)
        umaps = [c[m][0] for m in ("UMAP y=-1", "UMAP unsupervised") if m in c]
        dee += "DEEMap semi" in c and bool(umaps) and (
            c["DEEMap semi"][0] <= min(umaps) + slack)
        best += min(semi.values()) < floor
        rec += RECOMMENDED in semi and semi[RECOMMENDED] < floor
    return never, dee, best, rec, len(got)


def summary(results, datasets, fractions=FRACTIONS):
    """Per label fraction, how many sets meet each target: every estimator with y = -1 at
    most the same estimator on the labelled rows alone plus one test sample; DEEMap with
    y = -1 at most the lower of the two UMAPs plus one test sample; the best semi-supervised
    fit beats every anchor (and, for reference, the recommended estimator,
    :data:`RECOMMENDED`, with its defaults)."""
    lines = ["| labels | every estimator y=-1 <= its labelled fit + 1 sample | DEEMap y=-1 <= "
             "the lower UMAP + 1 sample | best graphdr fit beats every anchor | " +
             RECOMMENDED.replace(" semi", "") + " (defaults) beats every anchor |",
             "|---|---|---|---|---|"]
    for f in fractions:
        never, dee, best, rec, n = met(results, datasets, f)
        if n:
            lines.append(f"| {100 * f:g} % | {never} of {n} | {dee} of {n} | {best} of {n} | "
                         f"{rec} of {n} |")
    return ["Sets meeting each target:", ""] + lines + [""]


def time_table(results, fraction, datasets):
    """Mean fit seconds per method and data set at one fraction."""
    cells = {d: results[d][str(fraction)] for d in datasets if str(fraction) in results[d]}
    methods = [m for m in next(iter(cells.values())) if "100%" not in m and m != "raw"]
    lines = [f"### Fit time (s) at {100 * fraction:g} % of the labels (mean over the seeds; "
             "the machine was busy with other work during the run)", "", *common.table(
                 ["method", *cells], [(m, *(f"{cells[d][m][1]:.2f}" if m in cells[d] else ""
                                            for d in cells)) for m in methods])]
    return lines + [""]


def rst_summary(results, datasets, fraction=0.05):
    """The docs' table (docs/user_guide/semi_results.rst): errors at one fraction, the best
    graphdr semi-supervised fit and the best anchor per set, and the targets."""
    cells = {d: results[d][str(fraction)] for d in datasets if str(fraction) in results[d]}
    rows = []
    for d, c in cells.items():
        semi = {m: v[0] for m, v in c.items() if m.endswith(" semi")}
        anchor = {m: v[0] for m, v in c.items() if m in anchors(c)}
        bs, ba = min(semi, key=semi.get), min(anchor, key=anchor.get)
        umap = c.get("UMAP y=-1", (float("nan"),))[0]
        dee = c.get("DEEMap semi", (float("nan"),))[0]
        rows.append((d, f"{bs.replace(' semi', '')} {semi[bs]:.1f}", f"{ba} {anchor[ba]:.1f}",
                     "met" if semi[bs] < anchor[ba] else "not met", f"{dee:.1f}", f"{umap:.1f}",
                     "met" if dee < umap else "not met"))
    head = ("data set", "best semi-supervised fit", "best anchor", "target",
            "DEEMap y=-1", "UMAP y=-1", "target")
    lines = [f"1-NN test error (%) at {100 * fraction:g} % of the training labels, mean over "
             "the seeds (``benchmarks/results/semi.md``, which has every method, fraction and "
             "fit time):", "", ".. list-table::", "   :header-rows: 1", ""]
    for row in [head] + rows:
        lines.append("   * - " + row[0])
        lines += [f"     - {v}" for v in row[1:]]
    return "\n".join(lines) + "\n"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--maps" in argv:
        from _semi_maps import main as maps

        return maps([x for x in argv if x != "--maps"])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", default=list(DATASETS))
    p.add_argument("--fractions", nargs="+", type=float, default=list(FRACTIONS) + [1.0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--methods", nargs="+", default=list(SEMI),
                   help=f"graphdr estimators (default: {' '.join(SEMI)})")
    p.add_argument("--merge", action="store_true",
                   help="rerun --methods only (no anchors) and replace their cells in "
                        "semi.json")
    p.add_argument("--timing", action="store_true",
                   help="only the timing rows: KernelLDA and KQMI with 95 %% of the labels "
                        "hidden against their fully labelled fit (semi_timing.md)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: digits, 5 %% labels, one seed, the timing part too")
    a = p.parse_args(argv)
    if a.quick:
        return _quick(a)
    if a.timing:
        return timing(RESULTS / "semi_timing.md")
    out = RESULTS / "semi.md"
    if a.merge:
        # the named methods again, every other cell (anchors included) from the .json
        results = json.load(open(out.with_suffix(".json")))
        for d, cells in run_all(a, anchors=False).items():
            for f, new in cells.items():
                results[d][f].update(new)
        a.datasets = [d for d in DATASETS if d in results]
        merges = results.setdefault("_merges", [])
        if list(a.methods) in merges:  # a method rerun again: its cells are the newest
            merges.remove(list(a.methods))
        merges.append(list(a.methods))
        json.dump(results, open(out.with_suffix(".json"), "w"), indent=1)
    else:
        results = run_all(a)
        json.dump(results, open(out.with_suffix(".json"), "w"), indent=1)
    write_tables(a, results, out)


def _quick(a):
    """Every part on the digits (the timing on 400 generated rows), its tables printed and
    written to a temporary folder."""
    import tempfile

    global QUICK
    QUICK = True
    a.datasets, a.fractions, a.seeds = ["digits"], [0.05, 1.0], 1
    with tempfile.TemporaryDirectory() as tmp:
        write_tables(a, run_all(a), Path(tmp) / "semi.md")
        timing(Path(tmp) / "semi_timing.md")


def _timing_sets():
    """mnist5k (every row) and a generated 20,000-row set (50 features, 10 classes of two
    clusters each); a smoke run: 400 generated rows alone."""
    from sklearn.datasets import make_classification

    if QUICK:
        X, y = make_classification(400, n_features=10, n_informative=6, n_classes=4,
                                   random_state=0)
        yield "generated (400 x 10)", X, y
        return
    X, y = load("mnist5k")
    yield "mnist5k (5000 x 784)", X, y
    X, y = make_classification(20_000, n_features=50, n_informative=20, n_classes=10,
                               n_clusters_per_class=2, random_state=0)
    yield "generated (20000 x 50)", X, y


def timing(out):
    """Fit time of KernelLDA() and KQMI() with 95 % of the labels hidden (-1, seeded) against
    the same estimator fully labelled, default threads (target: within 5x)."""
    from common import best_time, machine, threads_label

    from graphdr import KQMI, KernelLDA

    lines = ["# Partially labelled kernel fits: time with 95 % of the labels hidden against the "
             "fully labelled fit", "", "Command: `.venv/bin/python benchmarks/semi.py --timing`",
             "", machine(threads_label()), "",
             "Each fit with its defaults on every row; 'hidden': 95 % of the labels replaced by "
             "-1 (seed 0); best of 2 fits. Target: hidden at most 5 x labelled.", "",
             "| data | estimator | labelled (s) | hidden (s) | ratio | route when hidden | "
             "target |", "|---|---|---|---|---|---|---|"]
    for name, X, y in _timing_sets():
        hidden = np.where(np.random.default_rng(0).uniform(size=len(y)) < 0.95, -1, y)
        for est in (KernelLDA, KQMI):
            full, _ = best_time(lambda est=est, X=X, y=y: est().fit(X, y), repeats=2)
            semi, model = best_time(lambda est=est, X=X, h=hidden: est().fit(X, h), repeats=2)
            route = model.approximation_ or "exact"
            lines.append(f"| {name} | {est.__name__} | {full:.2f} | {semi:.2f} | "
                         f"{semi / full:.2f} | {route} | "
                         f"{'met' if semi <= 5 * full else 'NOT met'} |")
            print(lines[-1], flush=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


def run_all(a, anchors=True):
    results = {}
    for d in a.datasets:
        results[d] = {}
        for f in a.fractions:
            per_seed = []
            for s in range(a.seeds if f < 1 else 1):
                per_seed.append(run_cell(d, f, s, a.methods, anchors))
            results[d][str(f)] = mean_cells(per_seed)
            best = sorted((v[0], m) for m, v in results[d][str(f)].items() if "100%" not in m)
            print(f"{d} {f:g}: " + ", ".join(f"{m} {e:.1f}" for e, m in best[:4]), flush=True)
    return results


def write_tables(a, results, out):
    from common import machine, threads_label

    lines = ["# Partially labelled data: 1-NN test error (%) against the labelled training "
             "samples", "",
             f"Command: `.venv/bin/python benchmarks/semi.py --datasets {' '.join(a.datasets)} "
             f"--fractions {' '.join(f'{f:g}' for f in a.fractions)} --seeds {a.seeds} "
             f"--methods {' '.join(SEMI if '_merges' in results else a.methods)}`" + "".join(
                 f"; then {', '.join(m)} again: `... --methods {' '.join(m)} --merge` (their "
                 "cells replaced; the anchors and the other methods from the run before)"
                 for m in results.get("_merges", [])), "",
             machine(threads_label()), "",
             f"70 / 30 stratified splits, seeds 0..{a.seeds - 1} (mean), features standardised "
             "on all training rows; 'semi': fitted on every training row with y = -1 for the "
             "hidden labels; 'labelled': on the labelled rows only. Lower is better.", ""]
    lines += targets(results, a.datasets)
    lines += summary(results, a.datasets, [f for f in a.fractions if f < 1])
    for f in a.fractions:
        t, _ = table(results, f, a.datasets)
        lines += t
    if 0.05 in a.fractions:
        lines += time_table(results, 0.05, a.datasets)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")
    if out == RESULTS / "semi.md" and 0.05 in a.fractions:  # the docs' summary table
        common.write_lines(RST, [rst_summary(results, a.datasets).rstrip("\n")])


if __name__ == "__main__":
    main()
