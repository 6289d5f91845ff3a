"""The pieces of DEEMap's large-map path: the placing index of low degree, the class graphs
and the index in one pool, the cross pairs in blocks, the stop by the placement check, and
the numba cache of pynndescent's compiled code."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphdr import DEEMap
from graphdr.blocks.graphs import knn_graph
from graphdr.maps import placement

pytest.importorskip("pynndescent")


def _clusters(n=3000, d=8, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    X = rng.normal(size=(n, d)) + 2.5 * rng.normal(size=(classes, d))[y]
    return X, y


def test_placement_check_stops_after_its_patience(monkeypatch):
    errors = iter([0.30, 0.20, 0.21, 0.19, 0.19, 0.25])  # checks at 10, 15, ..., 35
    monkeypatch.setattr(placement, "leave_one_out_errors", lambda *a: {1.0: next(errors)})
    check = placement.PlacementCheck(None, None, None, None)
    stopped = next(it for it in range(1, 60) if check(None, it))
    # best 0.20 at 15; 20 is not lower, 25 is (0.19); 30 ties it and 35 is higher: stop at 35
    assert stopped == 35
    assert sorted(check.errors) == [10, 15, 20, 25, 30, 35]


@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
def test_a_large_map_stops_when_its_placement_settles_and_is_the_same_on_every_fit():
    X, y = _clusters()  # (the Gaussian map: the heavy-tailed one has no placement check)
    a = DEEMap(repulsion="gaussian", neighbors="approx", max_iter=100, tol=0.0).fit(X, y)
    b = DEEMap(repulsion="gaussian", neighbors="approx", max_iter=100, tol=0.0).fit(X, y)
    assert a.n_iter_ < 100  # stopped by the placement check, not by tol (0) or max_iter
    assert np.array_equal(a.embedding_, b.embedding_)
    # a training row given again lands at its own place (the inverted lists find it at 0)
    assert np.array_equal(a.transform(X[::7]), a.embedding_[::7])
    exact = DEEMap(repulsion="gaussian", neighbors="exact", max_iter=40, tol=0.0).fit(X, y)
    assert exact.n_iter_ == 40  # exact (small) maps keep the full descent


@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
def test_class_graphs_beside_a_task_are_knn_graphs():
    from graphdr.maps.inputs import attraction_graph

    X, y = _clusters(n=12000, classes=2)
    want = knn_graph(X, 10, y=y, restrict="same", weights="binary", algorithm="approx")
    got, extra = attraction_graph(X, y, 10, "approx", beside=lambda: "task")
    assert extra == "task" and (got != want).nnz == 0
    assert (attraction_graph(X, y, 10, "approx") != want).nnz == 0


@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
def test_the_placing_index_gives_the_unlabelled_edges_of_their_own_search():
    """With unlabelled samples, the edges over all samples come from the placing index built
    beside the class graphs (no second NN-descent): the same graph as their own search."""
    from graphdr.blocks.knn import ApproxNeighbors
    from graphdr.maps import inputs as map_input

    X, y = _clusters(n=7000, classes=2)
    y[np.random.default_rng(1).random(len(y)) < 0.4] = -1
    built = []

    def make(F):
        built.append(ApproxNeighbors(10, graph_neighbors=10, search="lists").fit(F))
        return built[-1]

    def pairs():
        return map_input.map_cross_pairs(X, y, None, "approx", make)

    want = map_input.attraction_graph(X, y, 10, "approx")  # its own search over all samples
    got, (cross, index) = map_input.attraction_graph(X, y, 10, "approx", beside=pairs)
    assert index is built[0] and (got != want).nnz == 0
    assert map_input.CrossPairs(cross, index).all_neighbours(11) is None  # beyond the degree
    fewer = map_input.attraction_graph(X, y, 10, "approx", n_neighbors_unlabelled=4,
                                       beside=pairs)[0]
    # k below the degree: the graph's first 4, each pair joined either way, kept where it
    # touches an unlabelled sample, beside the class graphs
    near = index.kneighbors(n_neighbors=4, return_distance=False)
    E = sp.coo_matrix((np.ones(near.size), (np.repeat(np.arange(7000), 4), near.ravel())),
                      shape=(7000, 7000)).tocsr()
    E = E.maximum(E.T).tocoo()
    touch = (y[E.row] < 0) | (y[E.col] < 0)
    E = sp.csr_matrix((np.ones(touch.sum()), (E.row[touch], E.col[touch])), shape=E.shape)
    classes = knn_graph(X, 10, y=y, restrict="same", weights="binary", algorithm="approx")
    assert (fewer != classes.maximum(E)).nnz == 0 and (fewer != want).nnz > 0


@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
def test_cross_pairs_in_blocks_and_training_neighbours(monkeypatch):
    from graphdr.blocks.knn import ApproxNeighbors
    from graphdr.maps import inputs as map_input

    X, y = _clusters(n=2000)
    make = lambda F: ApproxNeighbors(20, graph_neighbors=10).fit(F)  # noqa: E731
    (i, j), index = map_input.map_cross_pairs(X, y, None, "approx", make)
    assert index.index_.neighbor_graph[0].shape[1] == 11  # the degree: 10 and itself
    near = index.kneighbors(n_neighbors=10, return_distance=False)
    assert not np.any(near == np.arange(len(X))[:, None])
    wi, wj = map_input.cross_class_pairs(near, y)
    assert np.array_equal(i, wi) and np.array_equal(j, wj)
    monkeypatch.setattr(map_input, "_PAIR_BLOCK", 7)
    (bi, bj), _ = map_input.map_cross_pairs(X, y, None, "approx", make)
    assert np.array_equal(bi, wi) and np.array_equal(bj, wj)
    rows = np.array([3, 500, 1999])
    dist, ind = index.training_neighbors(rows, 10)
    assert np.array_equal(ind, near[rows]) and dist.shape == (3, 10)
    # queries of new samples ask for n_neighbors (20), beyond the graph's degree
    assert index.kneighbors(X[:5] + 0.01)[1].shape == (5, 20)


def test_pynndescent_code_is_cached_only_where_a_cache_can_be_read_again():
    import pynndescent.pynndescent_ as nnd
    import pynndescent.utils as utils

    from graphdr.blocks.knn import _import_pynndescent

    _import_pynndescent()

    def cached(f):
        return type(f._cache).__name__ != "NullCache"

    assert cached(utils.deheap_sort)  # plain arguments: kept between processes
    # a compiled-function argument (dist) would add an entry in every process, never read
    assert not cached(nnd.process_candidates) and not cached(nnd.init_random)
    assert not cached(nnd.nn_descent)  # reads dynamic globals: numba cannot cache it
