"""Which neighbour search should the map use? Every candidate engine on the map's three
searches, part of ``maps2d_scale.py`` (``--engines``): build and search time, recall against
exact neighbours, peak memory, and whether the result is the same on every run and with one
thread or the machine's default threads.

The map (:class:`graphdr.DEEMap`) searches three times: the **class graphs** (each sample's 20
nearest others of its own class), the **placing index** over every sample (its 10 nearest
others, which also give the cross-class pairs), and the **placement** of new samples (their 20
nearest training samples). Each engine here runs those three on the data of ``maps2d_scale.py``
(:func:`maps2d_scale.subclusters`: 20 classes of 5 sub-clusters, 50 features, float32), the
samples in content order as the map puts them (so that an engine deterministic for a fixed
input gives the same map in any row order):

* ``exact``: brute force with BLAS (faiss ``IndexFlatL2``, blocked), the reference;
* ``pynndescent``: :class:`graphdr.blocks.knn.ApproxNeighbors` with NN-descent's own search
  (one thread, classes under 5,000 samples exact; the placing index of degree 10, queries one
  sample per call, ``epsilon=0.2``), what the map used before the inverted lists;
* ``pynndescent+lists``: what the map used before its graphs came from the lists: NN-descent
  for the class graphs and the placing index's graph, graphdr's inverted lists
  (:class:`graphdr.blocks.lists.InvertedLists`, ``sqrt(n)`` lists, 8 probed) for the
  placement;
* ``lists``: graphdr's inverted lists for all three, 8 probed, every sample a query of the
  placement's search for the graphs;
* ``list-graph``: what the map uses: the graph of every row by blocked inverted lists
  (:func:`graphdr.blocks.list_graph.list_graph`, as many probes as reach 90 % recall on a
  sample) for the class graphs and the placing index's graph (on the placing index's lists),
  the same blocks for the placement (8 probed);
* ``faiss-ivf-P``: faiss ``IndexIVFFlat``, ``4 sqrt(n)`` lists whose centroids are k-means
  (10 iterations, seed 0) of the first ``64`` samples per list in content order, searched with
  ``nprobe=P``; a query's answer depends on the index alone (exact distances inside the lists
  it visits);
* ``faiss-hnsw``: faiss ``IndexHNSWFlat`` (M = 32, efConstruction 40, efSearch 64), built on
  the default threads;
* ``usearch``: USearch's HNSW (connectivity 16, expansion 128 / 64), inserted on one thread
  (``usearch-1t``, the insertion order fixed) or on the default threads.

Recall: the share of the true k nearest (exact, same data) found, over a fixed sample of at
most 10^4 queries of each search, at k = 20 (class graphs, placement) and k = 10 (placing
index). Time: wall seconds, default threads. Memory: the peak resident memory of the engine's
own process (``resource.getrusage``), the data included. ``same``: two builds and searches
give identical neighbours (``runs``), and with one thread the same as with the default threads
(``threads``); checked at the smallest size of the run.

    .venv/bin/python benchmarks/maps2d_scale.py --engines [--sizes 100000 1000000]
        [--only ENGINE ...] [--note TEXT]

Writes ``benchmarks/results/maps2d_scale_engines.md`` and ``.json`` (rows of earlier runs of
other sizes or engines kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
OUT_MD = RESULTS / "maps2d_scale_engines.md"
OUT_JSON = RESULTS / "maps2d_scale_engines.json"
sys.path.insert(0, str(HERE))

CLASS_K, INDEX_K, PLACE_K = 20, 10, 20
#: USearch's threads for searches (and inserts of ``usearch``): 0, all; 1 in the one-thread run
_USEARCH_THREADS = [0]
ENGINES = ("exact", "pynndescent", "pynndescent+lists", "lists", "list-graph", "faiss-ivf-8",
           "faiss-ivf-16", "faiss-ivf-32", "faiss-hnsw", "usearch-1t", "usearch")
#: the smoke run's engines (a fresh process each)
QUICK_ENGINES = ("exact", "list-graph", "faiss-ivf-16", "usearch-1t")


# -- the engines: build(X) -> search(Q or None, k) -> (idx); None: the samples' own neighbours
def _drop_self(idx, k):
    """The ``k`` neighbours of each training sample without itself (its own index dropped, or
    the last when a duplicate pushed it out)."""
    n = len(idx)
    own = idx == np.arange(n)[:, None]
    own[~own.any(axis=1), -1] = True
    own &= np.cumsum(own, axis=1) == 1
    return idx[~own].reshape(n, -1)[:, :k]


def _faiss_search(index, Q, k):
    _, idx = index.search(np.ascontiguousarray(Q, dtype=np.float32), k)
    return idx.astype(np.int64)


def build_exact(X):
    import faiss

    index = faiss.IndexFlatL2(X.shape[1])
    index.add(X)
    return lambda Q, k: _drop_self(_faiss_search(index, X, k + 1), k) if Q is None else \
        _faiss_search(index, Q, k)


def build_ivf(nprobe):
    def build(X):
        import faiss

        n, d = X.shape
        nlist = max(1, int(round(4 * np.sqrt(n))))
        train = X[:min(n, 64 * nlist)]  # the first rows in content order: deterministic
        quantizer = faiss.IndexFlatL2(d)
        index = faiss.IndexIVFFlat(quantizer, d, nlist)
        if nlist > 1:
            km = faiss.Kmeans(d, nlist, niter=10, seed=0, verbose=False)
            km.train(train)
            index.quantizer.add(km.centroids)
            index.is_trained = True
        else:
            index.train(train)
        index.add(X)
        index.nprobe = min(nprobe, nlist)
        return lambda Q, k: _drop_self(_faiss_search(index, X, k + 1), k) if Q is None else \
            _faiss_search(index, Q, k)
    return build


def build_hnsw(X):
    import faiss

    index = faiss.IndexHNSWFlat(X.shape[1], 32)
    index.hnsw.efConstruction = 40
    index.hnsw.efSearch = 64
    index.add(X)
    return lambda Q, k: _drop_self(_faiss_search(index, X, k + 1), k) if Q is None else \
        _faiss_search(index, Q, k)


def build_usearch(threads):
    def build(X):
        from usearch.index import Index

        index = Index(ndim=X.shape[1], metric="l2sq", dtype="f32", connectivity=16,
                      expansion_add=128, expansion_search=64)
        index.add(np.arange(len(X)), X, threads=threads or _USEARCH_THREADS[0])

        def search(Q, k):
            if Q is None:
                found = index.search(X, k + 1, threads=_USEARCH_THREADS[0])
                return _drop_self(np.asarray(found.keys, dtype=np.int64), k)
            return np.asarray(index.search(np.ascontiguousarray(Q), k,
                                           threads=_USEARCH_THREADS[0]).keys,
                              dtype=np.int64)
        return search
    return build


def build_pynndescent(degree, epsilon):
    def build(X):
        from graphdr.blocks.knn import APPROX_MIN_GROUP, ApproxNeighbors

        if len(X) < APPROX_MIN_GROUP:  # as the map: small classes exact
            return build_exact(X)
        nn = ApproxNeighbors(degree, 0, epsilon=epsilon).fit(X)

        def search(Q, k):
            if Q is None:
                return nn.kneighbors(n_neighbors=min(k, degree))[1]
            return nn.kneighbors(Q, n_neighbors=k)[1]
        return search
    return build


def build_lists(X):
    from graphdr.blocks.lists import InvertedLists

    index = InvertedLists().fit(X)
    return lambda Q, k: _drop_self(index.search(X, k + 1), k) if Q is None else \
        index.search(Q, k)


def build_nndescent_map_index(X):
    """The map's placing index before its graph came from the lists: NN-descent's graph of
    degree 10 for the training samples, inverted lists of ``sqrt(n)`` rows for new ones."""
    from graphdr.blocks.knn import ApproxNeighbors
    from graphdr.blocks.lists import InvertedLists

    nn = ApproxNeighbors(PLACE_K, 0, graph_neighbors=INDEX_K).fit(X)
    lists = InvertedLists(n_lists=int(np.ceil(np.sqrt(len(X))))).fit(X)
    return lambda Q, k: nn.kneighbors(n_neighbors=k)[1] if Q is None else lists.search(Q, k)


def build_list_graph(X):
    """The class graphs as the map builds them: the graph of every row by blocked inverted
    lists, probes for 90 % recall."""
    from graphdr.blocks.list_graph import list_graph

    return lambda Q, k: list_graph(X, k)[1]


def build_map_index(X):
    """The map's placing index: inverted lists, their graph of degree 10 for the training
    samples, their blocked search for new ones (``ApproxNeighbors(search='lists')``)."""
    from graphdr.blocks.knn import ApproxNeighbors

    nn = ApproxNeighbors(PLACE_K, 0, graph_neighbors=INDEX_K, search="lists").fit(X)
    return lambda Q, k: nn.kneighbors(None if Q is None else Q, n_neighbors=k)[1]


def builders(engine):
    """``(class_build, index_build)`` of an engine: the class graphs' and the placing
    index's (pynndescent: degree 20 within a class, 10 for the index, as the map)."""
    if engine == "exact":
        return build_exact, build_exact
    if engine == "pynndescent":
        return build_pynndescent(CLASS_K, 0.1), build_pynndescent(INDEX_K, 0.2)
    if engine == "pynndescent+lists":
        return build_pynndescent(CLASS_K, 0.1), build_nndescent_map_index
    if engine == "lists":
        return build_lists, build_lists
    if engine == "list-graph":
        return build_list_graph, build_map_index
    if engine.startswith("faiss-ivf-"):
        b = build_ivf(int(engine.rsplit("-", 1)[1]))
        return b, b
    if engine == "faiss-hnsw":
        return build_hnsw, build_hnsw
    if engine in ("usearch", "usearch-1t"):
        b = build_usearch(1 if engine == "usearch-1t" else 0)
        return b, b
    raise ValueError(engine)


# -- one engine at one size, in a process of its own --------------------------------------------
def _content_order(X, y):
    from graphdr.blocks.sampling import canonical_order, row_keys

    order = canonical_order(row_keys(X))
    return np.ascontiguousarray(X[order]), y[order]


def run_searches(engine, X, y, Q):
    """The three searches: ``(times, class_idx, index_idx, place_idx)``; ``class_idx`` a list
    per class (indices into the class)."""
    class_build, index_build = builders(engine)
    times = {}
    t = time.perf_counter()
    class_idx = []
    for c in np.unique(y):
        Xc = np.ascontiguousarray(X[y == c])
        class_idx.append(class_build(Xc)(None, CLASS_K))
    times["class graphs s"] = time.perf_counter() - t
    t = time.perf_counter()
    search = index_build(X)
    times["index build s"] = time.perf_counter() - t
    t = time.perf_counter()
    index_idx = search(None, INDEX_K)
    times["index graph s"] = time.perf_counter() - t
    t = time.perf_counter()
    place_idx = search(Q, PLACE_K)
    times["place s"] = time.perf_counter() - t
    return times, class_idx, index_idx, place_idx


def _recall(found, truth):
    k = truth.shape[1]
    return float(np.mean([len(np.intersect1d(f[:k], t)) / k for f, t in zip(found, truth)]))


def one(engine, n, n_new, n_truth, check):
    import resource

    from maps2d_scale import subclusters

    X, y = _content_order(*subclusters(n, seed=0))
    Q = subclusters(n_new, seed=1)[0]
    times, class_idx, index_idx, place_idx = run_searches(engine, X, y, Q)
    row = dict(engine=engine, n=n, n_new=n_new, **{k: round(v, 2) for k, v in times.items()})
    row["total s"] = round(sum(times.values()), 2)
    # recall on a fixed sample of queries against exact search (faiss IndexFlatL2)
    rng = np.random.default_rng(7)
    c0 = int(np.argmax(np.bincount(y)))  # the largest class
    Xc = np.ascontiguousarray(X[y == c0])
    rows_c = np.sort(rng.choice(len(Xc), min(n_truth, len(Xc)), replace=False))
    truth_c = _self_truth(Xc, rows_c, CLASS_K)
    rows_i = np.sort(rng.choice(n, min(n_truth, n), replace=False))
    truth_i = _self_truth(X, rows_i, INDEX_K)
    rows_q = np.sort(rng.choice(n_new, min(n_truth, n_new), replace=False))
    truth_q = build_exact(X)(Q[rows_q], PLACE_K)
    classes = np.unique(y)
    row["class recall@20"] = round(_recall(class_idx[int(np.searchsorted(classes, c0))][rows_c],
                                           truth_c), 4)
    row["index recall@10"] = round(_recall(index_idx[rows_i], truth_i), 4)
    row["place recall@20"] = round(_recall(place_idx[rows_q], truth_q), 4)
    row["peak GiB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    if check:  # the same on a second run, and with one thread
        again = run_searches(engine, X, y, Q)[1:]
        row["same runs"] = _same((class_idx, index_idx, place_idx), again)
        import faiss
        from threadpoolctl import threadpool_limits

        faiss.omp_set_num_threads(1)
        _USEARCH_THREADS[0] = 1
        with threadpool_limits(1):
            single = run_searches(engine, X, y, Q)[1:]
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        _USEARCH_THREADS[0] = 0
        row["same threads"] = _same((class_idx, index_idx, place_idx), single)
    return row


def _flat(X):
    import faiss

    index = faiss.IndexFlatL2(X.shape[1])
    index.add(X)
    return index


def _self_truth(X, rows, k):
    """The exact ``k`` nearest others of the samples ``rows`` of ``X``."""
    idx = _faiss_search(_flat(X), X[rows], k + 1)
    own = idx == rows[:, None]
    own[~own.any(axis=1), -1] = True
    own &= np.cumsum(own, axis=1) == 1
    return idx[~own].reshape(len(rows), -1)[:, :k]


def _same(a, b):
    (ca, ia, pa), (cb, ib, pb) = a, b
    return bool(all(np.array_equal(x, z) for x, z in zip(ca, cb)) and np.array_equal(ia, ib)
                and np.array_equal(pa, pb))


# -- the table -----------------------------------------------------------------------------------
COLUMNS = ("class graphs s", "index build s", "index graph s", "place s", "total s",
           "class recall@20", "index recall@10", "place recall@20", "graph rows/s/core",
           "peak GiB", "same runs", "same threads")


def rows_per_core(row, cores=2):
    """The placing index's graph of every row (its build and its own neighbours), rows per
    second per core."""
    seconds = row.get("index build s", 0) + row.get("index graph s", 0)
    return round(row["n"] / seconds / cores) if seconds else "-"


#: the command of rows stored without one (the first run, every engine at 10^5 with checks)
DEFAULT_COMMAND = ".venv/bin/python benchmarks/maps2d_scale.py --engines --sizes 100000"


def _command(a):
    """The command line of this run, as ``maps2d_scale.py`` takes it."""
    only = "" if tuple(a.only) == ENGINES else " --only-engines " + " ".join(a.only)
    return (".venv/bin/python benchmarks/maps2d_scale.py --engines --sizes "
            + " ".join(map(str, a.sizes)) + (" --no-check" if a.no_check else "") + only)


def write(rows, note):
    from common import machine, write_lines

    commands = sorted({r.get("command", DEFAULT_COMMAND) for r in rows})
    lines = ["# The map's neighbour searches, engine by engine", "",
             "Commands: " + "; ".join(f"`{c}`" for c in commands), "",
             f"{machine()}; default threads (each engine in a process of its own). "
             + (note or ""), "",
             "The three searches of `DEEMap.fit` and `transform` (class graphs: 20 nearest of "
             "the same class; placing index: 10 nearest of all; placement: 20 nearest training "
             "samples of 10^5 new ones), on `maps2d_scale.subclusters` (20 classes, 50 "
             "features) in content order. Recall against exact search on a fixed sample of 10^4 "
             "queries (the largest class for the class graphs). `graph rows/s/core`: the "
             "placing index's graph (its build and every row's neighbours), rows a second per "
             "core of the machine's 2. `same runs`: a second run "
             "gives identical neighbours; `same threads`: one thread gives the default "
             "threads' neighbours (checked at the smallest size). `-`: not measured.", ""]
    for n in sorted({r["n"] for r in rows}):
        lines += [f"## {n:,} samples", "", "| engine | " + " | ".join(COLUMNS) + " |",
                  "|---|" + "---:|" * len(COLUMNS)]
        for r in sorted((r for r in rows if r["n"] == n), key=lambda r: ENGINES.index(r["engine"])):
            r = {**r, "graph rows/s/core": rows_per_core(r)}
            cells = [("yes" if r[c] else "**no**") if isinstance(r.get(c), bool)
                     else str(r.get(c, "-")) for c in COLUMNS]
            lines.append(f"| {r['engine']} | " + " | ".join(cells) + " |")
        lines.append("")
    write_lines(OUT_MD, lines)
    OUT_JSON.write_text(json.dumps(rows, indent=1) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    p.add_argument("--only", nargs="*", default=ENGINES, choices=ENGINES)
    p.add_argument("--new", type=int, default=100_000)
    p.add_argument("--truth", type=int, default=10_000)
    p.add_argument("--note", default="")
    p.add_argument("--one", nargs=2, default=None, metavar=("ENGINE", "N"))
    p.add_argument("--check", action="store_true")
    p.add_argument("--no-check", action="store_true",
                   help="no determinism checks (they run at the smallest size otherwise)")
    p.add_argument("--quick", action="store_true",
                   help="three engines on 3,000 samples, nothing written")
    p.add_argument("--rewrite", action="store_true", help="only rewrite the table")
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    if a.rewrite:
        write(json.loads(OUT_JSON.read_text()), a.note)
        return 0
    if a.one is not None:
        print(json.dumps(one(a.one[0], int(a.one[1]), a.new, a.truth, a.check)))
        return 0
    sizes, new, truth = ([3_000], 500, 300) if a.quick else (a.sizes, a.new, a.truth)
    engines = [e for e in a.only if e in QUICK_ENGINES] if a.quick else a.only
    if not _has("faiss"):  # the reference (exact) and two candidates
        if a.quick:
            print("faiss-cpu is not installed: the engines' smoke run is skipped "
                  "(pip install -e '.[bench]')", file=sys.stderr)
            return 0
        raise SystemExit("--engines: faiss-cpu is not installed (pip install -e '.[bench]')")
    earlier = [] if a.quick or not OUT_JSON.exists() else json.loads(OUT_JSON.read_text())
    rows = []
    for n in sizes:
        for engine in engines:
            if engine in ("usearch", "usearch-1t") and not _has("usearch"):
                print(f"{engine}: usearch is not installed; skipped", file=sys.stderr)
                continue
            cmd = [sys.executable, __file__, "--one", engine, str(n), "--new", str(new),
                   "--truth", str(truth)] + (["--check"] if n == min(sizes) and not a.no_check else [])
            out = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
            if out.returncode:
                print(f"{engine} at {n}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
                continue
            row = {**json.loads(out.stdout.strip().splitlines()[-1]), "command": _command(a)}
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    if a.quick:
        assert rows and all(r["index recall@10"] > 0.5 for r in rows), rows
        return 0
    done = {(r["engine"], r["n"]) for r in rows}
    write([r for r in earlier if (r["engine"], r["n"]) not in done] + rows, a.note)
    return 0


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    sys.exit(main())
