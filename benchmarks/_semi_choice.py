"""``semi.py --choice``: the margin of ``unlabelled='auto'``'s sign test, and its gate, measured.

``unlabelled='auto'`` uses the unlabelled rows ('smooth' or 'propagate') only where that use
beats the fit of the labelled rows alone ('ignore') on held-out labels by ``b - c > z
sqrt(b + c)`` (:func:`graphdr.semi.choice.compare_unlabelled_uses`, ``z`` =
``graphdr.semi.choice.CHOICE_MARGIN``), and the folds' propagated classes beat it too by
``z_g`` = ``CHOICE_GATE`` (the gate: else no use's trial is fitted). Protocol: ``semi.py``'s
splits (70 / 30, a fraction of each class's training labels kept, seeds 0..2); per cell and
estimator, the test error (1-NN against the labelled training rows) of each of the three
uses fitted explicitly, and the counts of the choice's comparison with every trial fitted
(``CHOICE_STOP = False``). The choice at each margin ``z`` and gate ``z_g`` is then
recomputed from the counts, and its test errors counted against the targets of ``semi.md``
(the anchors from ``semi.json``): every estimator with y = -1 at most its labelled fit plus
one test sample; DEEMap at most the lower UMAP plus one test sample; the best graphdr fit
below every anchor. LQMI and KQMI give LDA's and kernel LDA's fits (the same subspaces here)
and take their cells.

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
#: the gates weighed (None: no gate, every use weighed)
GATES = (None, 0.0, 0.5, 1.0, 1.5, 2.0)


def measure(sets, fractions, seeds=3, store=None):
    """``{'set|fraction|seed|estimator': {'errors': {use: %}, 'results': counts}}``: every
    trial of the comparison fitted (``CHOICE_STOP = False``), so that the counts of every use
    are whole; written to ``store`` after each set."""
    import common
    from semi import load, split, standardise

    import graphdr.semi.choice as semi
    from graphdr.bench.maps import one_nn_error as one_nn

    semi.CHOICE_STOP = False
    out = {}
    for d in sets:
        X, y = load(d)
        for f in fractions:
            for seed in range(seeds):
                Xtr, _, ys, Xte, yte = split(X, y, f, seed)
                Xtr, Xte = standardise(d, Xtr, Xte)
                lab = ys >= 0
                for name in ESTIMATORS:
                    cls = common.estimator_class(name)
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
        if store is not None:
            json.dump(out, open(store, "w"), indent=1)
    return out


def beats(counts, use, z):
    """The sign test of ``use`` (or 'propagation') against 'ignore' at margin ``z``."""
    b, c = counts[f"{use}_b"], counts[f"{use}_c"]
    return b - c > z * math.sqrt(b + c)


def choose(counts, z, ties, gate):
    """The choice at margin ``z`` and gate ``gate`` (None: none) from the comparison's
    counts."""
    if counts["n_folds"] == 0 or gate is not None and not beats(counts, "propagation", gate):
        return "ignore"
    backed = [u for u in ("smooth", "propagate") if beats(counts, u, z)]
    if not backed:
        return "ignore"
    return min(backed, key=lambda u: (counts[f"{u}_error"], u != ties))


def ties_of(key):
    return "propagate" if key.endswith("|DEEMap") else "smooth"


def gate_effect(cells, z, gate):
    """What the gate changes at margin ``z``: the choices of a use without it (kept, and
    changed to 'ignore' with the test error lower / equal / higher than the use's), and the
    cells that keep the labelled rows' fit whose uses' trials it spares (of all of them)."""
    changed, kept, spared, ignoring = [0, 0, 0], 0, 0, 0
    for key, e in cells.items():
        r = e["results"]
        if r["n_folds"] == 0:
            continue
        free, gated = choose(r, z, ties_of(key), None), choose(r, z, ties_of(key), gate)
        if free == "ignore":
            ignoring += 1
            spared += gate is not None and not beats(r, "propagation", gate)
        elif gated == free:
            kept += 1
        else:
            delta = e["errors"]["ignore"] - e["errors"][free]
            changed[0 if delta < 0 else 1 if delta == 0 else 2] += 1
    return kept, changed, spared, ignoring


def score(cells, anchors, z, fractions, gate):
    """Per fraction: the sets meeting each target at margin ``z`` and gate ``gate``
    (``semi.met`` of the cells with the chosen uses' errors), and the failing cells."""
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
                    use = choose(e["results"], z, "propagate" if name == "DEEMap" else "smooth",
                                 gate)
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

    from graphdr.semi.choice import CHOICE_GATE, CHOICE_MARGIN

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", default=list(SETS))
    p.add_argument("--fractions", nargs="+", type=float, default=[0.01, 0.02, 0.05, 0.1, 0.2])
    p.add_argument("--from-json", action="store_true")
    a = p.parse_args(argv)
    store = RESULTS / "semi_choice.json"
    cells = json.load(open(store)) if a.from_json else measure(a.datasets, a.fractions,
                                                                store=store)
    semi_cells = json.load(open(RESULTS / "semi.json"))
    anchors = {d: semi_cells[d] for d in a.datasets if d in semi_cells}
    header = ("| labels | sets | every estimator <= its labelled fit + 1 sample | "
              "DEEMap <= the lower UMAP + 1 sample | best graphdr fit beats every anchor | "
              "cells worse than the labelled fit + 1 sample |")

    def rows(z, gate, first):
        return [f"| {first} | {100 * f:g} % | {n} | {met[0]} | {met[1]} | {met[2]} | "
                f"{', '.join(worse) or '-'} |"
                for f, n, met, worse in score(cells, anchors, z, a.fractions, gate)]

    library = score(cells, anchors, CHOICE_MARGIN, a.fractions, CHOICE_GATE)
    kept, changed, spared, ignoring = gate_effect(cells, CHOICE_MARGIN, CHOICE_GATE)
    lines = ["# The margin of unlabelled='auto': sets meeting each target at each margin", "",
             "Command: `.venv/bin/python benchmarks/semi.py --choice --datasets "
             f"{' '.join(a.datasets)}`", "", machine(threads_label()), "",
             __doc__.split("\n\n")[1].replace("\n", " "), "",
             "## Targets", "",
             f"- at the library's margin z = {CHOICE_MARGIN:g} and gate z_g = {CHOICE_GATE:g}: "
             "every estimator with y = -1 at most its labelled fit plus one test sample on "
             + ", ".join(str(met[0]) for _, _, met, _ in library)
             + f" of {len(anchors)} sets at " + ", ".join(f"{100 * f:g}" for f in a.fractions)
             + " % of the labels (target: all).",
             f"- the gate: of the {kept + sum(changed)} cells whose comparison backs a use "
             f"without it, {sum(changed)} keep the labelled rows' fit with it (test error "
             f"lower in {changed[0]}, equal in {changed[1]}, higher in {changed[2]}); it spares "
             f"the uses' trials in {spared} of the {ignoring} cells that keep the labelled "
             "rows' fit.", "",
             f"## Every margin (gate z_g = {CHOICE_GATE:g})", "",
             "| z " + header, "|---" * 7 + "|"]
    for z in MARGINS:
        lines += rows(z, CHOICE_GATE, f"{z:g}")
    lines += ["", f"## The gate (z = {CHOICE_MARGIN:g})", "",
              "A use is weighed only where each fold's propagated classes of its held-out rows "
              "(no fit) beat the fit of the labelled rows alone by b - c > z_g sqrt(b + c); "
              "else no use's trial is fitted. Per gate: the choices of a use without a gate "
              "that it keeps, those it turns to 'ignore' (the test error of 'ignore' lower / "
              "equal / higher than the use's), and the cells keeping the labelled rows' fit "
              "whose uses' trials it spares.", "",
              "| z_g | uses kept | turned to 'ignore' (lower / equal / higher) | trials spared |",
              "|---|---|---|---|"]
    for gate in GATES:
        kept, changed, spared, ignoring = gate_effect(cells, CHOICE_MARGIN, gate)
        lines.append(f"| {'none' if gate is None else f'{gate:g}'} | {kept} | "
                     f"{sum(changed)} ({' / '.join(map(str, changed))}) | "
                     f"{spared} of {ignoring} |")
    lines += ["", "| z_g " + header, "|---" * 7 + "|"]
    for gate in GATES:
        lines += rows(CHOICE_MARGIN, gate, "none" if gate is None else f"{gate:g}")
    out = RESULTS / "semi_choice.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
