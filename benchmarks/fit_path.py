"""How much work one fit repeats: validations of X, passes over the rows' content
keys, graphdr fits and neighbour searches in one ``fit``, fully labelled and with 95 % of the
labels -1; and the partially labelled fit's time against what propagating once and fitting once
cost.

    python -m benchmarks run fit_path            # LDA, KernelLDA, LFDA, DEEMap (about 4 minutes)
    python -m benchmarks run fit_path -- --quick  # a smoke run: 800 rows, LDA

Data: 6,435 x 36, 6 classes (the size of UCI's Statlog Landsat set, which is not shipped), drawn
by ``sklearn.datasets.make_classification`` (seed 0); the partially labelled copy hides 95 % of
the labels at random (seed 0). Counts come from ``cProfile`` (calls of
``sklearn.utils.validation.check_array``, of ``graphdr.blocks.sampling.row_keys``, of any method ``fit``
of a graphdr module, and of graphdr's neighbour searches: ``knn._search_groups``,
``knn._approx_search_groups``, scikit-learn's ``kneighbors``), so a function bound under
another name counts too. Times: the best of two unprofiled fits with the machine's default
threads. The ratio is

    partially labelled fit / (PoissonPropagation().fit(X, y_partial) + fit(X, y_full))

(target <= 2), and the same with ``unlabelled='propagate'`` set (no choice: the path itself,
propagate once and fit once on the prepared rows); the difference is the cost of
``unlabelled='auto'``'s choice, its trial fits on two folds of the labelled rows for each use
of the unlabelled rows. Targets: X validated at most twice fully labelled, three times with
y = -1.

Writes ``benchmarks/results/fit_path.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

OUT = common.RESULTS / "fit_path.md"
ESTIMATORS = ("LDA", "KernelLDA", "LFDA", "DEEMap")
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


def best(fn, repeats=2):
    return common.best_time(fn, repeats)[0]


def measure(name, X, y, partial):
    import graphdr

    cls = getattr(graphdr, name)
    cls().fit(X[:300], y[:300])  # imports and first calls out of the timings
    row = {"estimator": name}
    for label, labels in (("full", y), ("partial", partial)):
        for k, v in counts(cls(), X, labels).items():
            row[f"{k} ({label})"] = v
    t_full = best(lambda: cls().fit(X, y))
    t_partial = best(lambda: cls().fit(X, partial))
    t_prop = best(lambda: graphdr.PoissonPropagation().fit(X, partial))
    t_set = best(lambda: cls(unlabelled="propagate").fit(X, partial))
    row.update(full_s=t_full, partial_s=t_partial, propagation_s=t_prop,
               ratio=t_partial / (t_prop + t_full), propagate_s=t_set,
               ratio_propagate=t_set / (t_prop + t_full))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 800 rows, LDA only")
    args = parser.parse_args(argv)
    if args.quick:  # a smoke run writes nothing in the repository
        with common.smoke_outputs(sys.modules[__name__]):
            return run(quick=True)
    return run(quick=False)


def run(quick):
    X, y, partial = make_data(quick=quick)
    names = ("LDA",) if quick else ESTIMATORS
    rows = [measure(n, X, y, partial) for n in names]
    for r in rows:
        print(r, flush=True)
    kinds = ["validations", "index checks", "check_array calls", "content keys",
             "graphdr fits", "neighbour searches"]
    lines = ["# One fit's repeated work", "",
             f"Command: `{common.thread_variables()}.venv/bin/python -m benchmarks run fit_path`",
             "", common.machine(common.threads_label()), "",
             f"Data: {len(y)} x {X.shape[1]}, 6 classes (make_classification, seed 0); "
             f"{int((partial < 0).sum())} labels hidden (-1). Counts per `fit` (cProfile); "
             "times the best of two unprofiled fits.", "",
             "Headline: " + "; ".join(
                 f"{r['estimator']} validates X {r['validations (full)']} / "
                 f"{r['validations (partial)']} times (fully / partially labelled), "
                 f"partial fit {r['ratio']:.1f}x propagation + one fit "
                 f"({r['ratio_propagate']:.1f}x with unlabelled='propagate')" for r in rows), "",
             "| estimator | " + " | ".join(f"{k} (full / partial)" for k in kinds)
             + " | full fit (s) | partial fit (s) | propagation (s) | ratio (target <= 2) "
             "| unlabelled='propagate' fit (s) | its ratio |",
             "|---|" + "---:|" * (len(kinds) + 6)]
    for r in rows:
        lines.append(f"| {r['estimator']} | " + " | ".join(
            f"{r[f'{k} (full)']} / {r[f'{k} (partial)']}" for k in kinds)
            + f" | {r['full_s']:.2f} | {r['partial_s']:.2f} | {r['propagation_s']:.2f} | "
            f"{r['ratio']:.1f} | {r['propagate_s']:.2f} | {r['ratio_propagate']:.1f} |")
    lines += ["", "Targets: validations <= 2 fully labelled and <= 3 partially "
              "labelled; ratio <= 2."]
    common.write_lines(OUT, lines)


if __name__ == "__main__":
    main()
