"""``semi.py --choice``: the margin of ``unlabelled='auto'``'s sign test, measured.

``unlabelled='auto'`` uses the unlabelled rows ('smooth' or 'propagate') only where that use
beats the fit of the labelled rows alone ('ignore') on held-out labels by ``b - c > z
sqrt(b + c)`` (:func:`graphdr.base.semi.compare_unlabelled_uses`, ``z`` =
``graphdr.base.semi.CHOICE_MARGIN``). Protocol: ``semi.py``'s splits (70 / 30, a fraction of
each class's training labels kept, seeds 0..2); per cell and estimator, the test error
(1-NN against the labelled training rows) of each of the three uses fitted explicitly, and
the counts of the choice's comparison. The choice at each margin ``z`` is then recomputed
from the counts, and its test errors counted against the targets of ``semi.md`` (the
anchors from ``semi.json``): every estimator with y = -1 at most its labelled fit plus one
test sample; DEEMap at most the lower UMAP plus one test sample; the best graphdr fit below
every anchor. LQMI and KQMI give LDA's and kernel LDA's fits (the same subspaces here) and
take their cells.

    .venv/bin/python benchmarks/semi.py --choice [--datasets ...] [--from-json]

Writes ``benchmarks/results/semi_choice.md`` (and ``semi_choice.json``, every cell).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

#: the study's sets: semi.py's without mnist5k (its 13 fits per cell take an hour)
SETS = ("digits", "ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima",
        "wdbc")
ESTIMATORS = ("LDA", "KernelLDA", "LFDA", "SemiLFDA", "DEEMap")
MARGINS = (0.0, 1.0, 1.5, 2.0, 2.5, 3.0)


def measure(sets, fractions, seeds=3):
    """``{'set|fraction|seed|estimator': {'errors': {use: %}, 'results': counts}}``."""
    from semi import load, split, standardise

    import graphdr
    from graphdr.bench.maps import one_nn_error as one_nn

    out = {}
    for d in sets:
        X, y = load(d)
        for f in fractions:
            for seed in range(seeds):
                Xtr, _, ys, Xte, yte = split(X, y, f, seed)
                Xtr, Xte = standardise(d, Xtr, Xte)
                lab = ys >= 0
                for name in ESTIMATORS:
                    cls = getattr(graphdr, name)
                    auto = cls().fit(Xtr, ys)
                    errors = {}
                    for use in ("ignore", "smooth", "propagate"):
                        try:
                            m = auto if auto.unlabelled_ == use else cls(unlabelled=use).fit(
                                Xtr, ys)
                        except ValueError:  # a propagation that leaves a class one sample
                            errors[use] = None
                            continue
                        Z = m.embedding_[lab] if name == "DEEMap" else m.transform(Xtr[lab])
                        errors[use] = one_nn(Z, ys[lab], m.transform(Xte), yte)
                    counts = {k: (v.item() if hasattr(v, "item") else v)
                              for k, v in auto.unlabelled_results_.items()}
                    out[f"{d}|{f}|{seed}|{name}"] = {"errors": errors, "results": counts}
                print(d, f, seed, flush=True)
    return out


def choose(counts, z, ties):
    """The choice at margin ``z`` from the comparison's counts."""
    if counts["n_folds"] == 0:
        return "ignore"
    backed = [u for u in ("smooth", "propagate") if counts[f"{u}_b"] - counts[f"{u}_c"]
              > z * math.sqrt(counts[f"{u}_b"] + counts[f"{u}_c"])]
    if not backed:
        return "ignore"
    return min(backed, key=lambda u: (counts[f"{u}_error"], u != ties))


def score(cells, anchors, z, fractions):
    """Per fraction: the sets meeting each target at margin ``z`` (``semi.met`` of the cells
    with the chosen uses' errors), and the failing cells."""
    from semi import met, one_sample

    rows = []
    for f in fractions:
        counts = np.zeros(3, dtype=int)
        worse, n = [], 0
        for d in anchors:
            if f"{d}|{f}|0|LDA" not in cells:
                continue
            n += 1
            c = dict(anchors[d][str(f)])
            semi = {}
            for name in ESTIMATORS:
                got = []
                for seed in range(3):
                    e = cells[f"{d}|{f}|{seed}|{name}"]
                    use = choose(e["results"], z, "propagate" if name == "DEEMap" else "smooth")
                    got.append(e["errors"][use] if e["errors"][use] is not None
                               else e["errors"]["ignore"])
                semi[name] = float(np.mean(got))
            semi["LQMI"], semi["KQMI"] = semi["LDA"], semi["KernelLDA"]
            c.update({f"{m} semi": (v, 0.0) for m, v in semi.items()})
            counts += met({d: {str(f): c}}, [d], f)[:3]
            worse += [f"{d} {m}" for m, v in semi.items()
                      if v > c[f"{m} labelled"][0] + one_sample(d)]
        rows.append((f, n, counts.tolist(), worse))
    return rows


def main(argv=None):
    from common import machine, threads_label

    from graphdr.base.semi import CHOICE_MARGIN

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", default=list(SETS))
    p.add_argument("--fractions", nargs="+", type=float, default=[0.01, 0.02, 0.05, 0.1, 0.2])
    p.add_argument("--from-json", action="store_true")
    a = p.parse_args(argv)
    store = RESULTS / "semi_choice.json"
    cells = json.load(open(store)) if a.from_json else measure(a.datasets, a.fractions)
    if not a.from_json:
        json.dump(cells, open(store, "w"), indent=1)
    semi_cells = json.load(open(RESULTS / "semi.json"))
    anchors = {d: semi_cells[d] for d in a.datasets if d in semi_cells}
    lines = ["# The margin of unlabelled='auto': sets meeting each target at each margin", "",
             "Command: `.venv/bin/python benchmarks/semi.py --choice --datasets "
             f"{' '.join(a.datasets)}`", "", machine(threads_label()), "",
             __doc__.split("\n\n")[1].replace("\n", " "), "",
             "## Targets", "",
             f"- at the library's margin z = {CHOICE_MARGIN:g}: every estimator with y = -1 at "
             "most its labelled fit plus one test sample on " + ", ".join(
                 str(met[0]) for _, _, met, _ in score(cells, anchors, CHOICE_MARGIN,
                                                       a.fractions))
             + f" of {len(anchors)} sets at " + ", ".join(f"{100 * f:g}" for f in a.fractions)
             + " % of the labels (target: all).", "", "## Every margin", "",
             "| z | labels | sets | every estimator <= its labelled fit + 1 sample | "
             "DEEMap <= the lower UMAP + 1 sample | best graphdr fit beats every anchor | "
             "cells worse than the labelled fit + 1 sample |", "|---|---|---|---|---|---|---|"]
    for z in MARGINS:
        for f, n, met, worse in score(cells, anchors, z, a.fractions):
            lines.append(f"| {z:g} | {100 * f:g} % | {n} | {met[0]} | {met[1]} | {met[2]} | "
                         f"{', '.join(worse) or '-'} |")
    out = RESULTS / "semi_choice.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-6 * len(a.fractions):]))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
