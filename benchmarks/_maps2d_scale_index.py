"""``maps2d_scale.py --index``: what the approximate index costs the placement of new samples: one DEEMap with
NN-descent neighbours (``neighbors='approx'``), its new samples placed by its own index and by
an exact one, on the data of ``maps2d_scale.py``.

Data: :func:`maps2d_scale.subclusters` (20 classes x 5 sub-clusters, 50 features), ``--n``
training samples and 20,000 new ones. Reported: the held-out 2-D 1-NN error with each index,
and the recall of the ``n_neighbors`` exact nearest training samples among the approximate
index's (the first 5000 new samples).

    .venv/bin/python benchmarks/maps2d_scale.py --index [--n 100000]

Writes ``benchmarks/results/maps2d_scale_index.md``.
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


def main(argv=None):
    from common import machine, threads_label
    from maps2d_scale import subclusters
    from sklearn.neighbors import NearestNeighbors

    import graphdr
    from graphdr.bench.maps import one_nn_error

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=100_000)
    a = p.parse_args(argv)
    t0 = time.time()
    X, y = subclusters(a.n + 20_000, seed=1)
    Xtr, ytr, Xnew, ynew = X[:a.n], y[:a.n], X[a.n:], y[a.n:]
    model = graphdr.DEEMap(neighbors="approx").fit(Xtr, ytr)
    approx = one_nn_error(model.embedding_, ytr, model.transform(Xnew), ynew)
    # the same map, its new samples placed from the exact neighbours (the index's rows)
    exact_index = NearestNeighbors(n_neighbors=model.n_neighbors).fit(model._features)
    Q = model._scaled(Xnew)
    placed = model._place_from(*exact_index.kneighbors(Q))
    exact = one_nn_error(model.embedding_, ytr, placed, ynew)
    m = 5000
    got = model._neighbors.kneighbors(Q[:m], return_distance=False)
    want = exact_index.kneighbors(Q[:m], return_distance=False)
    recall = float(np.mean([len(set(g) & set(w)) / len(w) for g, w in zip(got, want)]))
    lines = ["# The approximate index and the placement of new samples", "",
             f"Headline: at {a.n:,} training samples the new samples land with "
             f"{approx:.1f} % error from NN-descent's neighbours and {exact:.1f} % from the exact "
             f"ones; NN-descent finds {100 * recall:.0f} % of their {model.n_neighbors} nearest "
             "training samples.",
             "", f"Command: `.venv/bin/python benchmarks/maps2d_scale.py --index --n {a.n}`", "",
             machine(threads_label()) + f" {time.time() - t0:.0f} s in all.", "",
             "| index that places new samples | held-out 2-D 1-NN error (%) |",
             "|---|---:|", f"| NN-descent (the fit's own, neighbors='approx') | {approx:.1f} |",
             f"| exact | {exact:.1f} |", "",
             f"Recall of the {model.n_neighbors} exact neighbours among NN-descent's "
             f"{model.n_neighbors}: {recall:.3f} "
             f"({m} new samples); placement width {model.placement_width_:g}."]
    (RESULTS / "maps2d_scale_index.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:3]))


if __name__ == "__main__":
    main()
