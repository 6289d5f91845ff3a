"""``semi.py --maps``: the map of few labels, each use of the unlabelled rows side by side.

Does a partially labelled :class:`graphdr.DEEMap` keep the data's clusters? ``semi.py``'s
splits; per cell, DEEMap (``repulsion='gaussian'``; with ``--heavy``, the heavy-tailed default)
fitted with each use of the unlabelled rows forced ('ignore', 'propagate', 'smooth' at several
``lam_unlabelled``): the test error (1-NN against the labelled training rows in the map) and the
trustworthiness of the map of every training row (k = 10), beside both UMAPs.

    .venv/bin/python benchmarks/semi.py --maps [--heavy] [--datasets ...]
        [--fractions 0.01 0.05] [--from-json]

Writes ``benchmarks/results/semi_maps.md`` (``semi_maps_heavy.md``; and their ``.json``).
"""

from __future__ import annotations

import argparse
import json
import time

import common
import numpy as np

RESULTS = common.RESULTS

SETS = ("digits", "ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima",
        "wdbc", "mnist5k")
#: the uses side by side: (label, DEEMap parameters)
USES = tuple((label, dict(repulsion="gaussian", **kw)) for label, kw in (
    ("ignore", dict(unlabelled="ignore")),
    ("propagate", dict(unlabelled="propagate")),
    ("smooth, lam_unlabelled=4", dict(unlabelled="smooth", lam_unlabelled=4.0)),
    ("smooth, lam_unlabelled=1", dict(unlabelled="smooth", lam_unlabelled=1.0)),
    ("smooth, lam_unlabelled=0.3 (default)", dict(unlabelled="smooth", lam_unlabelled=0.3)),
    ("smooth, lam_unlabelled=0.1", dict(unlabelled="smooth", lam_unlabelled=0.1))))
#: ``--heavy``: the heavy-tailed map (``repulsion='cauchy'``, the default; its default
#: separation) with each use
HEAVY_USES = tuple((f"heavy-tailed, {use}", dict(repulsion="cauchy", unlabelled=use))
                   for use in ("ignore", "smooth", "propagate", "auto"))
UMAPS = (("UMAP y=-1", True), ("UMAP unsupervised", False))
#: the trustworthiness's neighbours
TRUST_K = 10


def measure(sets, fractions, seeds=3, umap=True, uses=USES):
    """``{'set|fraction': {label: [error %, trustworthiness, fit s]}}`` (means over seeds)."""
    from semi import load, split, standardise
    from sklearn.manifold import trustworthiness

    from graphdr import DEEMap
    from graphdr.bench.maps import one_nn_error as one_nn

    out = {}
    for d in sets:
        X, y = load(d)
        for f in fractions:
            cells = {}
            for seed in range(seeds):
                Xtr, _, ys, Xte, yte = split(X, y, f, seed)
                Xtr, Xte = standardise(d, Xtr, Xte)
                lab = ys >= 0
                runs = [(label, lambda kw=kw: DEEMap(**kw)) for label, kw in uses]
                if umap:
                    import umap as umap_learn

                    runs += [(label, lambda t=t: _Umap(umap_learn.UMAP(random_state=0), t))
                             for label, t in UMAPS]
                for label, make in runs:
                    est = make()
                    t = time.perf_counter()
                    est.fit(Xtr, ys)
                    t = time.perf_counter() - t
                    E = est.embedding_
                    cells.setdefault(label, []).append(
                        (one_nn(E[lab], ys[lab], est.transform(Xte), yte),
                         float(trustworthiness(Xtr, E, n_neighbors=TRUST_K)), t))
            out[f"{d}|{f:g}"] = {k: np.mean(v, axis=0).tolist() for k, v in cells.items()}
            print(d, f, {k: round(v[0], 1) for k, v in out[f"{d}|{f:g}"].items()}, flush=True)
    return out


class _Umap:
    """UMAP fitted as semi.py's anchors are: with y = -1 or without labels."""

    def __init__(self, model, labels):
        self.model, self.labels = model, labels

    def fit(self, X, ys):
        self.model.fit(X, ys if self.labels else None)
        self.embedding_ = self.model.embedding_
        return self

    def transform(self, X):
        return self.model.transform(X)


def tables(cells, sets, fractions, uses=USES):
    lines = []
    labels = [u for u, _ in uses] + [u for u, _ in UMAPS]
    for f in fractions:
        for what, i, fmt in (("1-NN test error (%)", 0, "{:.1f}"),
                             (f"trustworthiness (k = {TRUST_K})", 1, "{:.3f}"),
                             ("fit time (s, the machine's default threads)", 2, "{:.1f}")):
            got = {label: [cells.get(f"{d}|{f:g}", {}).get(label) for d in sets]
                   for label in labels}
            lines += [f"### {f * 100:g} % of the labels: {what}", "", *common.table(
                ["DEEMap use", *sets], [(label, *("" if r is None else fmt.format(r[i])
                                                  for r in row))
                                        for label, row in got.items() if any(row)]), ""]
    return lines


def best_counts(cells, sets, fractions, uses=USES, trust=False):
    """Per fraction: the sets where each DEEMap use is at most the lower UMAP's error plus one
    test sample (semi.py's one_sample); with ``trust``, where its trustworthiness is at least
    the higher UMAP's - 0.01."""
    from semi import one_sample

    lines = common.table(["labels", *(u for u, _ in uses)])
    for f in fractions:
        row = []
        for label, _ in uses:
            n = 0
            for d in sets:
                c = cells.get(f"{d}|{f:g}")
                if c is None or label not in c or "UMAP y=-1" not in c:
                    continue
                if trust:
                    n += c[label][1] >= max(c["UMAP y=-1"][1], c["UMAP unsupervised"][1]) - 0.01
                else:
                    low = min(c["UMAP y=-1"][0], c["UMAP unsupervised"][0])
                    n += c[label][0] <= low + one_sample(d)
            row.append(f"{n} of {len(sets)}")
        lines.append(common.row(f"{f * 100:g} %", *row))
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", default=list(SETS))
    p.add_argument("--fractions", nargs="+", type=float, default=[0.01, 0.05])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--heavy", action="store_true",
                   help="the heavy-tailed map's uses (HEAVY_USES), into semi_maps_heavy.md")
    p.add_argument("--from-json", action="store_true")
    a = p.parse_args(argv)
    uses = HEAVY_USES if a.heavy else USES
    out = RESULTS / ("semi_maps_heavy.md" if a.heavy else "semi_maps.md")
    if a.from_json:
        cells = json.load(open(out.with_suffix(".json")))
    else:
        cells = measure(a.datasets, a.fractions, a.seeds, uses=uses)
        json.dump(cells, open(out.with_suffix(".json"), "w"), indent=1)
    title = ("The heavy-tailed map of few labels" if a.heavy else "The map of few labels")
    lines = [f"# {title}: each use of the unlabelled rows side by side", "",
             f"Command: `.venv/bin/python benchmarks/semi.py --maps"
             f"{' --heavy' if a.heavy else ''} --datasets "
             f"{' '.join(a.datasets)} --fractions {' '.join(f'{f:g}' for f in a.fractions)} "
             f"--seeds {a.seeds}`", "", common.machine(common.threads_label()), "",
             "Protocol: `benchmarks/_semi_maps.py`'s docstring. Lower error and higher "
             "trustworthiness are better.", "",
             "Sets where each use is at most the lower UMAP plus one test sample:", ""]
    lines += best_counts(cells, a.datasets, a.fractions, uses) + [""]
    lines += ["Sets where each use's trustworthiness is at least the higher UMAP's - 0.01:", ""]
    lines += best_counts(cells, a.datasets, a.fractions, uses, trust=True) + [""]
    common.write_lines(out, lines + tables(cells, a.datasets, a.fractions, uses))
