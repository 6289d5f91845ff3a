"""How much work one fit repeats: validations of X, passes over the rows' content
keys, graphdr fits and neighbour searches in one ``fit``, fully labelled and with 95 % of the
labels -1; the partially labelled fit's time against what propagating once and fitting once
cost; and what ``unlabelled='auto'`` costs where it keeps the labelled rows' fit.

    python -m benchmarks run fit_path [-- --baseline DIR]  # about 15 minutes with a baseline
    python -m benchmarks run fit_path -- --quick  # a smoke run: 800 rows, LDA

Data (:func:`make_data`): 6,435 x 36, 6 classes (the size of UCI's Statlog Landsat set), 95 %
of the labels hidden. Counts come from ``cProfile`` (:data:`COUNTED`, and every method ``fit``
of a graphdr module), times from unprofiled fits; the ratio to propagating once and fitting
once is also taken with ``unlabelled='propagate'`` set (the difference: ``unlabelled='auto'``'s
trial fits). The 'auto' part (:data:`AUTO_CASES`, :func:`time_auto`) runs each case in a
process of its own; ``--baseline DIR`` times the same fits with the graphdr of the checkout
``DIR`` in the same run. Writes ``benchmarks/results/fit_path.md``, which states the targets.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import json
import os
import pstats
import sys
import time
from pathlib import Path

import common
import numpy as np

OUT = common.RESULTS / "fit_path.md"
#: "DEEMap": the Gaussian map, as the studies of partially labelled data measure it
#: (``common.estimator_class``); "DEEMap()": the map with its defaults, as users run it
ESTIMATORS = ("LDA", "KernelLDA", "LFDA", "DEEMap", "DEEMap()")
#: every estimator with the choice of ``unlabelled`` ('auto' by default)
CHOOSING = ("LDA", "LQMI", "KernelLDA", "KQMI", "MFA", "LDE", "LFDA", "SemiLFDA", "DEEMap")
#: the sets of the 'auto' part, with the estimators timed on each
#: rounds of (before, after) with a baseline: each side's best time over them
ROUNDS = 2
AUTO_CASES = (("digits", CHOOSING), ("vowel", CHOOSING), ("pima", CHOOSING),
              ("landsat-size", CHOOSING), ("20000 x 16", ("DEEMap",)))
#: (file suffix, function name) of what is counted
#: scikit-learn's modules whose checks of their own arguments are not validations of X
INDEXES = ("sklearn/neighbors", "sklearn/metrics/pairwise")
COUNTED = {
    "check_array calls": [("sklearn/utils/validation.py", "check_array")],
    "content keys": [("graphdr/blocks/sampling.py", "row_keys")],
    "neighbour searches": [("graphdr/blocks/knn.py", "_search_groups"),
                           ("graphdr/blocks/knn.py", "_approx_search_groups"),
                           ("sklearn/neighbors/_base.py", "kneighbors")],
}


def make_data(n=6435, quick=False):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=800 if quick else n, n_features=36, n_informative=20,
                               n_redundant=8, n_classes=6, n_clusters_per_class=2,
                               random_state=0)
    partial = y.copy()
    partial[np.random.default_rng(0).random(len(y)) < 0.95] = -1
    return X, y, partial


def counts(est, X, y):
    """What one ``est.fit(X, y)`` calls, by :data:`COUNTED` and graphdr ``fit`` methods, and
    its validations of X (``check_array`` on an ``n x D`` array)."""
    import traceback

    import sklearn.utils.validation as validation

    original, seen = validation.check_array, []

    def check_array(array, *args, **kwargs):
        if getattr(array, "shape", None) == X.shape:
            seen.append(any(any(part in f.filename.replace("\\", "/") for part in INDEXES)
                            for f in traceback.extract_stack()))
        return original(array, *args, **kwargs)

    bound = [m for m in list(sys.modules.values())
             if getattr(m, "check_array", None) is original]
    for m in bound:  # wherever the function is bound by name
        m.check_array = check_array
    prof = cProfile.Profile()
    try:
        prof.enable()
        est.fit(X, y)
        prof.disable()
    finally:
        for m in bound:
            m.check_array = original
    stats = pstats.Stats(prof).stats  # {(file, line, function): (cc, calls, tt, ct, callers)}

    def calls(wanted):
        return sum(v[1] for (f, _line, fn), v in stats.items()
                   if any(f.replace("\\", "/").endswith(s) and fn == name for s, name in wanted))

    out = {k: calls(v) for k, v in COUNTED.items()}
    out["validations"] = seen.count(False)
    out["index checks"] = seen.count(True)
    out["graphdr fits"] = sum(v[1] for (f, _line, fn), v in stats.items()
                              if "/graphdr/" in f.replace("\\", "/") and fn == "fit")
    return out


def measure(name, X, y, partial):
    import graphdr

    cls = graphdr.DEEMap if name == "DEEMap()" else common.estimator_class(name)
    cls().fit(X[:300], y[:300])  # imports and first calls out of the timings
    row = {"estimator": "DEEMap(repulsion='gaussian')" if name == "DEEMap" else name}
    for label, labels in (("full", y), ("partial", partial)):
        for k, v in counts(cls(), X, labels).items():
            row[f"{k} ({label})"] = v
    t_full, t_partial, t_prop, t_set = (common.best_time(f, 2)[0] for f in (
        lambda: cls().fit(X, y), lambda: cls().fit(X, partial),
        lambda: graphdr.PoissonPropagation().fit(X, partial),
        lambda: cls(unlabelled="propagate").fit(X, partial)))
    row.update(full_s=t_full, partial_s=t_partial, propagation_s=t_prop,
               ratio=t_partial / (t_prop + t_full), propagate_s=t_set,
               ratio_propagate=t_set / (t_prop + t_full))
    return row


def auto_data(name, quick=False):
    """``(X, y)`` of a set of the 'auto' part, 95 % of the labels -1 (seed 0; every class keeps
    two labels)."""
    from sklearn.datasets import make_classification

    if name == "landsat-size":
        X, y, _ = make_data(quick=quick)
    elif name == "20000 x 16":
        X, y = make_classification(n_samples=20_000, n_features=16, n_informative=10,
                                   n_redundant=2, n_classes=8, n_clusters_per_class=2,
                                   random_state=0)
    else:
        X, y = common.load(name, scaled=True)
        if quick:
            X, y = X[:400], y[:400]
    rng = np.random.default_rng(0)
    partial = np.where(rng.random(len(y)) < 0.05, y, -1)
    for c in np.unique(y):  # (two labels a class at least: a held-out comparison)
        members = np.flatnonzero(y == c)
        if np.count_nonzero(partial[members] >= 0) < 2:
            partial[members[:2]] = c
    return X, partial


def time_auto(case, repeats=2):
    """In this process (the graphdr on ``sys.path``): the times of ``unlabelled='auto'``, of the
    labelled rows' fit and of one propagation on ``case`` ('set:estimator'), its trials."""
    import graphdr
    from graphdr.semi.propagation import propagate
    where = "graphdr.semi.choice"  # (graphdr.base.semi in a checkout before the rename)
    semi = importlib.import_module(where if importlib.util.find_spec(where) else "graphdr.base.semi")

    name, est = case.rsplit(":", 1)
    X, y = auto_data(name)
    cls = common.estimator_class(est)
    lab = y >= 0
    codes = np.full(len(y), -1)
    codes[lab] = np.unique(y[lab], return_inverse=True)[1]
    trials, real = {}, semi._trial_fit

    def counted(trial, use, *args, **kwargs):
        trials[use] = trials.get(use, 0) + 1
        return real(trial, use, *args, **kwargs)

    cls().fit(X[lab][:300], y[lab][:300])  # imports and first calls out of the timings
    semi._trial_fit = counted
    auto, model = common.best_time(lambda: cls().fit(X, y), repeats)
    semi._trial_fit = real
    gate = getattr(model, "unlabelled_results_", {}).get("propagation_supported")
    return dict(graphdr=str(Path(graphdr.__file__).resolve().parent.parent),
                auto_s=auto, choice=model.unlabelled_, gate=gate,
                trials={u: n // repeats for u, n in trials.items()},
                labelled_s=common.best_time(lambda: cls().fit(X[lab], y[lab]), repeats)[0],
                propagation_s=common.best_time(
                    lambda: propagate(X, codes, int(codes.max()) + 1), repeats)[0])


def worker(case, root):
    """:func:`time_auto` of ``case`` in a new process importing graphdr from ``root``."""
    out = common.json_from([Path(__file__).resolve(), "--worker", case], strict=True,
                           env=dict(os.environ, PYTHONPATH=str(root)))
    if Path(out["graphdr"]) != Path(root).resolve():
        raise RuntimeError(f"{case}: imported graphdr from {out['graphdr']}, not {root}")
    return out


def auto_rows(quick, baseline):
    """Per case: the 'auto' part with this checkout's graphdr (and the baseline's, run just
    before it)."""
    cases = ([("digits", ("LDA",))] if quick else AUTO_CASES)
    sides = ([] if baseline is None else [("before", baseline)]) + [("after", common.REPO)]
    rows = []
    for name, estimators in cases:
        for est in estimators:
            case = f"{name}:{est}"
            row = {"set": name, "estimator": est}
            for _ in range(ROUNDS if baseline is not None else 1):  # (before, after) in turn
                for side, root in sides:
                    got = worker(case, root)
                    row[side] = got if side not in row else {
                        k: min(v, got[k]) if k.endswith("_s") else v
                        for k, v in row[side].items()}
            if baseline is not None:  # (the same code on both sides: the best of the two)
                for k in ("labelled_s", "propagation_s"):
                    row["before"][k] = row["after"][k] = min(row["before"][k], row["after"][k])
            print(case, {k: v for k, v in row.items() if k in ("before", "after")}, flush=True)
            rows.append(row)
    return rows


def ratio(r):
    return r["auto_s"] / (2 * r["labelled_s"] + r["propagation_s"])


def gate_of(r):
    """Whether the folds' propagated classes opened the uses' trials (- without a
    comparison)."""
    return {True: "open", False: "shut"}.get(r.get("gate"), "-")


def trial_counts(r):
    return " + ".join(f"{r['trials'].get(u, 0)}" for u in ("ignore", "smooth", "propagate"))


def auto_lines(rows, baseline):
    """The 'auto' part's section of the result file."""
    kept = [r for r in rows if r["after"]["choice"] == "ignore"]
    met = sum(ratio(r["after"]) <= 1.0 for r in kept)
    lines = ["", "## unlabelled='auto' where it keeps the labelled rows' fit", "",
             "5 % of the labels kept (seed 0). Trial fits: 'ignore' + 'smooth' + 'propagate'. "
             "L: the fit of the labelled rows alone; P: one propagation of every row; ratio: "
             "auto / (2 L + P), target <= 1 where the choice is 'ignore'. Each row's fits in "
             "one process"
             + (f"; before: the graphdr of `{baseline}` (commit {common.commit(baseline) or '?'}), "
                "after: this checkout's, in two rounds of before then after, each side's best "
                "time; L and P (the same code on both sides) the best of both." if baseline
                else "."), "",
             f"Where 'auto' keeps the labelled rows' fit, the ratio is <= 1 in {met} of "
             f"{len(kept)} fits.", ""]
    if baseline:
        return lines + common.table(
            ("set", "estimator", "choice (before / after)", "gate", "trial fits (before / after)",
             "L (s)", "P (s)", "auto before (s)", "auto after (s)", "before / after",
             "ratio before", "ratio after"),
            [(r["set"], r["estimator"], f"{b['choice']} / {a['choice']}", gate_of(a),
              f"{trial_counts(b)} / {trial_counts(a)}", f"{a['labelled_s']:.2f}",
              f"{a['propagation_s']:.2f}", f"{b['auto_s']:.2f}", f"{a['auto_s']:.2f}",
              f"{b['auto_s'] / a['auto_s']:.1f}", f"{ratio(b):.2f}", f"{ratio(a):.2f}")
             for r, b, a in ((r, r["before"], r["after"]) for r in rows)], "l" * 5 + "r" * 7)
    lines += common.table(
        ("set", "estimator", "choice", "gate", "trial fits", "L (s)", "P (s)", "auto (s)", "ratio"),
        [(r["set"], r["estimator"], a["choice"], gate_of(a), trial_counts(a),
          f"{a['labelled_s']:.2f}", f"{a['propagation_s']:.2f}", f"{a['auto_s']:.2f}",
          f"{ratio(a):.2f}") for r, a in ((r, r["after"]) for r in rows)], "l" * 5 + "r" * 4)
    return lines


def auto_headline(rows):
    """The 'auto' part's figures for the headline: DEEMap's, and the speed-up where the gate
    stays shut."""
    kept = [r for r in rows if r["after"]["choice"] == "ignore"]
    shut = [r for r in kept if r["after"]["gate"] is False]
    out = (f"unlabelled='auto' keeping the labelled rows' fit: the gate shut in {len(shut)} of "
           f"{len(kept)} fits")
    if rows and "before" in rows[0] and shut:
        speed = np.median([r["before"]["auto_s"] / r["after"]["auto_s"] for r in shut])
        out += f", there {speed:.1f}x faster at the median"
    maps = [r for r in kept if r["estimator"] == "DEEMap"]
    if maps:
        out += ("; DEEMap's auto / (2 fits + one propagation), target <= 1: "
                + ", ".join(f"{r['set']} {fmt_ratio(r)} (gate {gate_of(r['after'])})"
                            for r in maps))
    return out


def fmt_ratio(r):
    if "before" in r:
        return f"{ratio(r['before']):.2f} -> {ratio(r['after']):.2f}"
    return f"{ratio(r['after']):.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 800 rows, LDA only")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of graphdr to time the 'auto' part against")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # (one case of the 'auto' part, in this process)
        print(json.dumps(time_auto(args.worker)))
        return None
    if args.quick:  # a smoke run writes nothing in the repository
        with common.smoke_outputs(sys.modules[__name__]):
            return run(quick=True, baseline=args.baseline)
    return run(quick=False, baseline=args.baseline)


def run(quick, baseline=None):
    started = time.perf_counter()
    auto = auto_rows(quick, baseline)
    X, y, partial = make_data(quick=quick)
    names = ("LDA",) if quick else ESTIMATORS
    rows = [measure(n, X, y, partial) for n in names]
    for r in rows:
        print(r, flush=True)
    kinds = ["validations", "index checks", "check_array calls", "content keys",
             "graphdr fits", "neighbour searches"]
    lines = ["# One fit's repeated work", "",
             f"Command: `{common.thread_variables()}.venv/bin/python -m benchmarks run fit_path"
             + (f" -- --baseline {baseline}`" if baseline else "`"),
             "", common.machine(common.threads_label()), "",
             f"Data: {len(y)} x {X.shape[1]}, 6 classes (make_classification, seed 0); "
             f"{int((partial < 0).sum())} labels hidden (-1). Counts per `fit` (cProfile); "
             "times the best of two unprofiled fits.", "",
             "Headline: " + auto_headline(auto) + "; " + "; ".join(
                 f"{r['estimator']} validates X {r['validations (full)']} / "
                 f"{r['validations (partial)']} times (fully / partially labelled), "
                 f"partial fit {r['ratio']:.1f}x propagation + one fit "
                 f"({r['ratio_propagate']:.1f}x with unlabelled='propagate')" for r in rows), "",
             *common.table(
                 ["estimator", *(f"{k} (full / partial)" for k in kinds), "full fit (s)",
                  "partial fit (s)", "propagation (s)", "ratio (target <= 2)",
                  "unlabelled='propagate' fit (s)", "its ratio"],
                 [(r["estimator"], *(f"{r[f'{k} (full)']} / {r[f'{k} (partial)']}" for k in kinds),
                   *(f"{r[k]:.2f}" for k in ("full_s", "partial_s", "propagation_s")),
                   f"{r['ratio']:.1f}", f"{r['propagate_s']:.2f}", f"{r['ratio_propagate']:.1f}")
                  for r in rows], "l" + "r" * (len(kinds) + 6))]
    lines += ["", "Targets: validations <= 2 fully labelled and <= 3 partially "
              "labelled; ratio <= 2."]
    lines += auto_lines(auto, baseline)
    lines += ["", f"Run time: {time.perf_counter() - started:.0f} s."]
    common.write_lines(OUT, lines)


if __name__ == "__main__":
    main()
