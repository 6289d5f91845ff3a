"""``maps2d.py --knobs``: how far DEEMap's own knobs move its faithfulness: trustworthiness and
held-out error over a grid of ``n_neighbors`` (the within-class graph's size) and ``lam_same``
(the same-class repulsion), against openTSNE's trustworthiness (where the target is out of
reach, the floor).

Every setting on the eight shared UCI sets and digits, repeated stratified splits (25 % held out,
the UCI sets standardised, as ``maps2d.py``), ``placement_width='auto'``; openTSNE
(unsupervised, its own ``transform``) on the same splits when installed.

    .venv/bin/python benchmarks/maps2d.py --knobs [--splits 3] [--datasets ...] [--out FILE]
        [--neighbours 5 10 20] [--lam-same 0.25 1 4]

``--cross 0 0.1 0.3 1 3``: the trade-off curve of ``cross_attraction`` instead (the other
knobs at their defaults): per set, the held-out error, trustworthiness, continuity and
random-triplet accuracy of the test samples' map (``maps2d.faithfulness``) at each value,
beside openTSNE's and supervised UMAP's; writes ``maps2d_cross.md`` (``--out`` to change).

Writes ``benchmarks/results/maps2d_knobs.md`` (the sets held out of the choice, mnist5k and
the letters: ``--datasets mnist5k letters --splits 1 --out maps2d_knobs_heldout.md``; past
the default, on the sets whose trustworthiness stays below openTSNE's: ``--datasets sonar
vehicle vowel --neighbours 20 30 50 --lam-same 4 8 16 --out maps2d_knobs_wide.md``).

``--ceiling``: what trustworthiness a map that separates the classes can keep. Per set: the
share of the test samples' 10 input neighbours (among the test samples) of another class,
openTSNE's trustworthiness, that of openTSNE's own map with each class moved far from the
others (its within-class layout kept, every class on its own island), DEEMap's with its
defaults and with the class repulsion weakened (``lam=0.1, lam_same=1``); writes
``maps2d_ceiling.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
SETS = ("ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima", "wdbc",
        "digits")
NEIGHBOURS = (5, 10, 20)
LAM_SAME = (0.25, 1.0, 4.0)


def main(argv=None):
    from common import machine, threads_label
    from maps2d import load, methods, one_nn_error, training_map
    from sklearn.manifold import trustworthiness

    import graphdr

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--splits", type=int, default=3)
    p.add_argument("--datasets", nargs="*", default=list(SETS))
    p.add_argument("--out", default="maps2d_knobs.md", help="the results file")
    p.add_argument("--neighbours", type=int, nargs="*", default=list(NEIGHBOURS),
                   help="the n_neighbors of the grid")
    p.add_argument("--lam-same", type=float, nargs="*", default=list(LAM_SAME),
                   help="the lam_same of the grid")
    p.add_argument("--cross", type=float, nargs="*", default=None,
                   help="the cross_attraction values of the trade-off curve (instead of the grid)")
    p.add_argument("--ceiling", action="store_true",
                   help="the trustworthiness of separated maps (module docstring)")
    a = p.parse_args(argv)
    if a.cross is not None:
        return cross_curve(a)
    if a.ceiling:
        return ceiling(a)
    t0 = time.time()
    ref = {k: v for k, v in methods().items() if k == "openTSNE (unsupervised)"}
    grid = [(k, float(s)) for k in a.neighbours for s in a.lam_same]
    default = (graphdr.DEEMap().n_neighbors, float(graphdr.DEEMap().lam_same))
    assert default in grid, "the grid holds the default"
    out = {}
    for ds in a.datasets:
        for seed in range(a.splits):
            Xtr, ytr, Xte, yte = load(ds, seed)
            for k, s in grid:
                m = graphdr.DEEMap(n_neighbors=k, lam_same=s).fit(Xtr, ytr)
                Z = m.transform(Xte)
                out.setdefault((ds, (k, s)), []).append(
                    (one_nn_error(m.embedding_, ytr, Z, yte),
                     trustworthiness(Xte, Z, n_neighbors=10)))
            for name, (fit, transform) in ref.items():
                model = fit(Xtr, ytr)
                Zte = transform(model, Xte)
                out.setdefault((ds, name), []).append(
                    (one_nn_error(training_map(model, transform, Xtr), ytr, Zte, yte),
                     trustworthiness(Xte, Zte, n_neighbors=10)))
            print(f"{ds} split {seed} done", flush=True)
    mean = lambda key, i: float(np.mean([v[i] for v in out[key]]))  # noqa: E731
    cols = [f"k={k}, lam_same={s:g}" for k, s in grid]
    lines = ["# DEEMap's knobs against its faithfulness", "",
             f"Command: `.venv/bin/python benchmarks/maps2d.py --knobs --splits {a.splits}"
             + (f" --datasets {' '.join(a.datasets)}" if list(a.datasets) != list(SETS) else "")
             + (f" --neighbours {' '.join(map(str, a.neighbours))}"
                if list(a.neighbours) != list(NEIGHBOURS) else "")
             + (f" --lam-same {' '.join(f'{v:g}' for v in a.lam_same)}"
                if list(a.lam_same) != list(LAM_SAME) else "")
             + (f" --out {a.out}`" if a.out != "maps2d_knobs.md" else "`"), "",
             machine(threads_label()) + f" {time.time() - t0:.0f} s in all.", "",
             f"Every cell: held-out 2-D 1-NN error (%) / trustworthiness (k = 10) of the test "
             f"samples, the mean over {a.splits} stratified splits; k = n_neighbors. The "
             f"default is k={default[0]}, lam_same={default[1]:g}.", "",
             "| data set | " + " | ".join(cols) + (" | openTSNE |" if ref else " |"),
             "|---|" + "---:|" * (len(cols) + bool(ref))]
    summary = []
    for ds in a.datasets:
        cells = [f"{mean((ds, g), 0):.1f} / {mean((ds, g), 1):.3f}" for g in grid]
        if ref:
            cells.append(f"{mean((ds, 'openTSNE (unsupervised)'), 0):.1f} / "
                         f"{mean((ds, 'openTSNE (unsupervised)'), 1):.3f}")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
        best = max(grid, key=lambda g: mean((ds, g), 1))
        line = (f"- {ds}: the default {mean((ds, default), 1):.3f}, the best setting "
                f"(k={best[0]}, lam_same={best[1]:g}) {mean((ds, best), 1):.3f}")
        if ref:
            line += f", openTSNE {mean((ds, 'openTSNE (unsupervised)'), 1):.3f}"
        summary.append(line)
    lines += ["", "Trustworthiness: the default, the best of the grid, openTSNE:", ""] + summary
    (RESULTS / a.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {RESULTS / a.out}")


def cross_curve(a):
    """The ``--cross`` curve: ``cross_attraction`` against the four measures of the map."""
    from common import machine, threads_label
    from maps2d import faithfulness, load, methods, one_nn_error, training_map

    import graphdr

    out_name = "maps2d_cross.md" if a.out == "maps2d_knobs.md" else a.out
    t0 = time.time()
    refs = {k: v for k, v in methods().items()
            if k in ("openTSNE (unsupervised)", "supervised UMAP")}
    default = float(graphdr.DEEMap().cross_attraction)
    values = sorted(set(float(v) for v in a.cross) | {default})
    keys = ["err", "trust", "cont", "triplets"]
    out = {}
    for ds in a.datasets:
        for seed in range(a.splits):
            Xtr, ytr, Xte, yte = load(ds, seed)
            for v in values:
                m = graphdr.DEEMap(cross_attraction=v).fit(Xtr, ytr)
                Z = m.transform(Xte)
                q = faithfulness(Xte, Z, yte)
                out.setdefault((ds, v), []).append(
                    [one_nn_error(m.embedding_, ytr, Z, yte)] + [q[k] for k in keys[1:]])
            for name, (fit, transform) in refs.items():
                model = fit(Xtr, ytr)
                Zte = transform(model, Xte)
                q = faithfulness(Xte, Zte, yte)
                out.setdefault((ds, name), []).append(
                    [one_nn_error(training_map(model, transform, Xtr), ytr, Zte, yte)]
                    + [q[k] for k in keys[1:]])
            print(f"{ds} split {seed} done", file=sys.stderr, flush=True)
    mean = lambda key: np.mean(out[key], axis=0)  # noqa: E731
    cols = [f"rho={v:g}" + (" (default)" if v == default else "") for v in values]
    cols += list(refs)
    lines = ["# DEEMap's cross_attraction: held-out error against faithfulness", "",
             f"Command: `.venv/bin/python benchmarks/maps2d.py --knobs --splits {a.splits}"
             + (f" --datasets {' '.join(a.datasets)}" if list(a.datasets) != list(SETS) else "")
             + f" --cross {' '.join(f'{v:g}' for v in a.cross)}"
             + (f" --out {a.out}`" if a.out != "maps2d_knobs.md" else "`"), "",
             machine(threads_label()) + f" {time.time() - t0:.0f} s in all.", "",
             f"Every cell: held-out 2-D 1-NN error (%) / trustworthiness / continuity / "
             f"random-triplet accuracy (k = 10, 20,000 triplets) of the test samples' map, the "
             f"mean over {a.splits} stratified splits (25 % held out); rho = cross_attraction, "
             "the other knobs at their defaults.", "",
             "| data set | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for ds in a.datasets:
        cells = []
        for key in values + list(refs):
            e, t, c, r = mean((ds, key))
            cells.append(f"{e:.1f} / {t:.3f} / {c:.3f} / {r:.3f}")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    lines += ["", "Mean over the sets (error, trustworthiness, continuity, triplets):", ""]
    for key in values + list(refs):
        e, t, c, r = np.mean([mean((ds, key)) for ds in a.datasets], axis=0)
        name = f"rho={key:g}" if not isinstance(key, str) else key
        lines.append(f"- {name}: {e:.2f} % / {t:.3f} / {c:.3f} / {r:.3f}")
    from graphdr._outputs import atomic_open

    with atomic_open(RESULTS / out_name, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {RESULTS / out_name}")


#: the DEEMap settings of ``--ceiling``: the defaults and a weak class repulsion
CEILING_SETTINGS = {"DEEMap": {}, "DEEMap lam=0.1, lam_same=1": dict(lam=0.1, lam_same=1.0)}


def ceiling(a):
    """The ``--ceiling`` table (module docstring)."""
    from common import machine, threads_label
    from maps2d import load, methods
    from sklearn.manifold import trustworthiness
    from sklearn.neighbors import NearestNeighbors

    import graphdr

    out_name = "maps2d_ceiling.md" if a.out == "maps2d_knobs.md" else a.out
    t0 = time.time()
    fit, transform = methods()["openTSNE (unsupervised)"]
    cols = ["other-class neighbours", "openTSNE", "openTSNE, classes apart",
            *CEILING_SETTINGS]
    out = {}
    for ds in a.datasets:
        for seed in range(a.splits):
            Xtr, ytr, Xte, yte = load(ds, seed)
            _, near = NearestNeighbors(n_neighbors=11).fit(Xte).kneighbors(Xte)
            row = [float(np.mean(yte[near[:, 1:]] != yte[:, None]))]
            Z = transform(fit(Xtr, ytr), Xte)
            # each class shifted by ten times the map's extent: islands, layout kept
            shift = np.unique(yte, return_inverse=True)[1] * 10.0 * float(np.ptp(Z))
            row += [trustworthiness(Xte, Z, n_neighbors=10),
                    trustworthiness(Xte, Z + np.column_stack([shift, 0 * shift]),
                                    n_neighbors=10)]
            for kw in CEILING_SETTINGS.values():
                m = graphdr.DEEMap(**kw).fit(Xtr, ytr)
                row.append(trustworthiness(Xte, m.transform(Xte), n_neighbors=10))
            out.setdefault(ds, []).append(row)
            print(f"{ds} split {seed} done", file=sys.stderr, flush=True)
    lines = ["# How much trustworthiness a map that separates the classes keeps", "",
             f"Command: `.venv/bin/python benchmarks/maps2d.py --knobs --ceiling --splits "
             f"{a.splits}"
             + (f" --datasets {' '.join(a.datasets)}" if list(a.datasets) != list(SETS) else "")
             + (f" --out {a.out}`" if a.out != "maps2d_knobs.md" else "`"), "",
             machine(threads_label()) + f" {time.time() - t0:.0f} s in all.", "",
             "Test samples' maps (25 % held out, the mean over "
             f"{a.splits} stratified splits); trustworthiness at k = 10. 'other-class "
             "neighbours': the share of each test sample's 10 nearest test samples in the "
             "input that are of another class. 'classes apart': openTSNE's map of the test "
             "samples with each class moved ten map-widths from the next, its layout within "
             "the class kept.", "",
             "| data set | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for ds in a.datasets:
        m = np.mean(out[ds], axis=0)
        lines.append(f"| {ds} | " + " | ".join(f"{v:.3f}" for v in m) + " |")
    from graphdr._outputs import atomic_open

    with atomic_open(RESULTS / out_name, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {RESULTS / out_name}")


if __name__ == "__main__":
    main()
