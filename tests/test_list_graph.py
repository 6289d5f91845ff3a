"""The neighbour graph of every row by inverted lists (graphdr.blocks.list_graph): exact when
every list is probed (against a brute force in float64), the recall it aims at, the same graph
on every run and thread count, accurate far from 0, and the routes that use it."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from graphdr.blocks import list_blocks as lb
from graphdr.blocks import list_graph as lg
from graphdr.blocks.lists import InvertedLists


def _brute(X, k):
    """Each row's k nearest others by float64 distances, ties to the smaller row."""
    X = np.asarray(X, dtype=np.float64)
    D = np.empty((len(X), len(X)))
    for a in range(0, len(X), 256):  # from the differences, in row blocks
        D[a:a + 256] = ((X[a:a + 256, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(len(X)), D.shape), D), axis=1)[:, :k]
    return np.sqrt(np.take_along_axis(D, order, 1)), order


def _clusters(n=3000, d=12, centres=15, seed=0):
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=3.0, size=(centres, d))
    return (C[rng.integers(0, centres, n)] + rng.standard_normal((n, d))).astype(np.float32)


def _recall(found, truth):
    return np.mean([len(np.intersect1d(f, t)) / truth.shape[1] for f, t in zip(found, truth)])


@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_every_list_probed_gives_the_exact_graph_with_ties_to_the_smaller_row(offset):
    X = _clusters(n=1500)
    X[700] = X[3]  # a duplicate: distance 0, the smaller row first
    X[900] = X[3]
    Xo = X.astype(np.float64) + offset
    dist, ind = lg.list_graph(Xo, 7, n_probe=10**6)
    want_d, want_i = _brute(X, 7)
    np.testing.assert_array_equal(ind, want_i)
    np.testing.assert_allclose(dist, want_d, rtol=1e-6, atol=1e-6)
    assert ind[3, 0] == 700 and ind[3, 1] == 900 and ind[700, 0] == 3


def test_auto_probes_reach_the_recall_they_aim_at_and_probe_fewer_lists_for_less():
    X = _clusters(n=4000, d=16, centres=30)
    _, truth = _brute(X, 10)
    index = InvertedLists(n_lists=64, copy=False).fit(X)
    layout = lb._Layout(index)
    p90 = lg.probes_for_recall(layout, 10, 0.9)
    p70 = lg.probes_for_recall(layout, 10, 0.7)
    assert 1 <= p70 < p90 < layout.n_lists
    _, ind = lg.list_graph(X, 10, recall=0.9, lists=index)
    assert _recall(ind, truth) >= 0.9
    _, ind70 = lg.list_graph(X, 10, n_probe=p70, lists=index)
    assert 0.7 <= _recall(ind70, truth) < _recall(ind, truth)


def test_the_same_graph_on_every_run_and_thread_count():
    X = _clusters(n=5000, d=16)

    def graph():
        return lg.list_graph(X, 9, lists=InvertedLists(n_lists=70, copy=False).fit(X))

    with threadpool_limits(1):
        one = graph()
    two = graph()
    again = graph()
    for a, b in ((one, two), (two, again)):
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(a[0], b[0])


def test_far_from_zero_the_graph_finds_what_it_finds_near_zero():
    """Products on residuals from each list's centre: the data at 1e4 keep their neighbours
    (ranked by |x|^2 - 2 q.x in float32 they would lose every one)."""
    X = _clusters(n=4000, d=16)
    _, truth = _brute(X, 8)
    _, near = lg.list_graph(X, 8, n_probe=6, lists=InvertedLists(n_lists=60).fit(X))
    Xf = X.astype(np.float64) + 1e4
    _, far = lg.list_graph(Xf, 8, n_probe=6, lists=InvertedLists(n_lists=60).fit(Xf))
    assert _recall(far, truth) >= _recall(near, truth) - 0.02 >= 0.5


def test_row_selection_helpers_against_a_sort():
    rng = np.random.default_rng(3)
    D = rng.random((40, 203)).astype(np.float32)
    for m in (1, 5, 26, 40):
        bound = lb._group_bound(D, m)
        assert np.all(bound >= np.sort(D, axis=1)[:, m - 1])
        assert np.all((D <= bound[:, None]).sum(axis=1) >= m)
    cols = lb._smallest_sorted(D.astype(np.float64), 6)
    np.testing.assert_array_equal(cols, np.argsort(D, axis=1, kind="stable")[:, :6])
    r = rng.integers(0, 9, 500)
    d = rng.random(500).astype(np.float32)
    d[::3] = d[1::3][:len(d[::3])]  # ties
    ids = rng.permutation(500)
    rows, at = lb._nearest_per_row(r, d, 9, 4, ids)
    for row in range(9):
        mine = np.flatnonzero(r == row)
        want = mine[np.lexsort((ids[mine], d[mine]))[:4]]
        np.testing.assert_array_equal(np.sort(at[rows == row]), np.sort(want))


@pytest.mark.parametrize("kwargs, match", [
    (dict(k=0), "k must be an integer from 1"),
    (dict(k=300), "k must be an integer from 1"),
    (dict(k=3, n_probe=0), "n_probe must be 'auto' or an integer"),
    (dict(k=3, n_probe="many"), "n_probe must be 'auto' or an integer"),
    (dict(k=3, recall=1.5), "recall must be in"),
])
def test_bad_arguments_are_refused(kwargs, match):
    X = _clusters(n=300)
    with pytest.raises(ValueError, match=match):
        lg.list_graph(X, **kwargs)


def test_the_approximate_routes_use_the_lists_without_pynndescent(monkeypatch):
    from graphdr.blocks import knn
    from graphdr.blocks.graphs import knn_graph

    def missing():
        raise ValueError("pynndescent is not installed")

    monkeypatch.setattr(knn, "_import_pynndescent", missing)
    X = _clusters(n=6000, d=10)
    y = np.arange(len(X)) % 3
    W = knn_graph(X, 5, y=y, restrict="same", weights="binary", algorithm="approx")
    exact = knn_graph(X, 5, y=y, restrict="same", weights="binary", algorithm="exact")
    assert (W != 0).multiply(exact != 0).nnz >= 0.9 * (exact != 0).nnz
    nn = knn.ApproxNeighbors(5, graph_neighbors=6, search="lists").fit(X)
    dist, ind = nn.kneighbors(n_neighbors=6)
    want_d, want_i = lg.list_graph(X, 6, lists=nn.lists_)
    np.testing.assert_array_equal(ind, want_i)
    np.testing.assert_allclose(dist, want_d)
    assert knn.resolve_algorithm("approx", 10) == "approx"


def test_new_samples_on_the_same_blocks_depend_on_themselves_alone_and_probe_every_list_exactly():
    """list_search (the placement): a query's neighbours do not depend on the other queries of
    its call; with every list probed they are the exact ones, ties to the smaller row."""
    X = _clusters(n=4000, d=12)
    Q = _clusters(n=700, d=12, seed=5)
    index = InvertedLists(n_lists=50, copy=False).fit(X)
    Qf = index._queries(Q)
    together = lb.list_search(index, Qf, 9, 5)
    alone = np.concatenate([lb.list_search(index, Qf[a:a + 37], 9, 5)
                            for a in range(0, len(Q), 37)])
    np.testing.assert_array_equal(together, alone)
    D = np.concatenate([((Q[a:a + 100, None, :].astype(np.float64) - X[None]) ** 2).sum(-1)
                        for a in range(0, len(Q), 100)])
    exact = np.lexsort((np.broadcast_to(np.arange(len(X)), D.shape), D), axis=1)[:, :9]
    np.testing.assert_array_equal(lb.list_search(index, Qf, 9, 50), exact)
    assert 0.8 <= _recall(together, exact) < 1.0
    with pytest.raises(ValueError, match="k must be an integer from 1"):
        lb.list_search(index, Qf, 0, 5)
