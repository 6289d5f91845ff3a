"""Inverted lists (graphdr.blocks.lists), the search that places new samples on a large map,
against scikit-learn's exact neighbours."""

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from graphdr.blocks.lists import InvertedLists


def _clusters(n, d=8, centres=12, seed=0):
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=4.0, size=(centres, d))
    return (C[rng.integers(0, centres, n)] + rng.normal(size=(n, d))).astype(np.float32)


def _exact(X, Q, k):
    return NearestNeighbors(n_neighbors=k).fit(X.astype(np.float64)).kneighbors(
        Q.astype(np.float64), return_distance=False)


def test_every_list_probed_is_the_exact_search():
    X, Q = _clusters(900), _clusters(150, seed=1)
    index = InvertedLists(n_lists=30, n_probe=30).fit(X)
    found = index.search(Q, 7)
    assert np.array_equal(found, _exact(X, Q, 7))  # continuous data: no ties, same order


def test_a_few_lists_find_most_neighbours_and_more_lists_more():
    X, Q = _clusters(4000, d=10), _clusters(400, seed=2, d=10)
    truth = _exact(X, Q, 10)

    def recall(p):
        found = InvertedLists(n_lists=64, n_probe=p).fit(X).search(Q, 10)
        return np.mean([len(np.intersect1d(f, t)) for f, t in zip(found, truth)]) / 10

    low, high = recall(2), recall(8)
    assert high >= 0.9 and high > low


def test_a_query_does_not_depend_on_the_others_in_its_call():
    X, Q = _clusters(3000), _clusters(500, seed=3)
    index = InvertedLists(n_probe=4).fit(X)
    together = index.search(Q, 9)
    alone = np.concatenate([index.search(Q[a:a + 13], 9) for a in range(0, len(Q), 13)])
    assert np.array_equal(together, alone)
    assert np.array_equal(index.search(Q[7:8], 9)[0], together[7])


def test_lists_too_small_for_k_fall_back_to_the_exact_search():
    X, Q = _clusters(200), _clusters(40, seed=4)
    index = InvertedLists(n_lists=100, n_probe=1).fit(X)  # about 2 rows per list
    assert np.array_equal(index.search(Q, 12), _exact(X, Q, 12))


def test_duplicate_rows_and_a_constant_feature_give_whole_ties_to_the_smaller_row():
    X = _clusters(300)
    X[:, 3] = 5.0
    X = np.concatenate([X, X[:50]])  # rows 300..349 repeat rows 0..49
    index = InvertedLists(n_lists=10, n_probe=10).fit(X)
    found = index.search(X[:50], 2)
    assert np.array_equal(found, np.c_[np.arange(50), np.arange(300, 350)])
    d = index.distances(X[:50], found)
    assert np.all(np.isfinite(d)) and np.all(d == 0.0)


def test_distances_are_the_exact_squared_distances():
    X, Q = _clusters(500), _clusters(60, seed=5)
    index = InvertedLists(n_probe=3).fit(X)
    ind = index.search(Q, 5)
    want = ((X[ind].astype(np.float64) - Q[:, None, :].astype(np.float64)) ** 2).sum(-1)
    assert np.allclose(index.distances(Q, ind), want, rtol=1e-12)
    assert np.all(np.diff(index.distances(Q, ind), axis=1) >= 0)  # nearest first


@pytest.mark.slow  # numba compiles pynndescent's functions in every new process (~40 s)
def test_approx_neighbors_with_lists_keeps_the_graph_and_searches_the_lists():
    pytest.importorskip("pynndescent")
    from graphdr.blocks.knn import ApproxNeighbors

    X, Q = _clusters(2500, d=6), _clusters(100, seed=6, d=6)
    nn = ApproxNeighbors(8, graph_neighbors=5, search="lists", n_probe=50).fit(X)
    assert not hasattr(nn, "index_")  # NN-descent's index dropped, its graph kept
    dist, ind = nn.kneighbors(Q, n_neighbors=8)
    assert np.array_equal(ind, _exact(X, Q, 8))
    assert np.allclose(dist, np.linalg.norm(X[ind].astype(np.float64) - Q[:, None], axis=-1))
    _, own = nn.kneighbors(n_neighbors=5)  # training neighbours: the graph, no self
    assert own.shape == (2500, 5) and not np.any(own == np.arange(2500)[:, None])
    with pytest.raises(ValueError, match="search"):
        ApproxNeighbors(5, search="tree").fit(X)


def test_the_same_neighbours_with_another_cpu_kernel_and_one_thread(tmp_path):
    """The lists and every answer on OpenBLAS's oldest x86-64 kernel (Prescott), one thread,
    in a fresh process, are those of this process."""
    import os
    import subprocess
    import sys

    X, Q = _clusters(3000, d=20), _clusters(400, seed=7, d=20)
    mine = InvertedLists(n_probe=4).fit(X).search(Q, 10)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "Q.npy", Q)
    code = ("import numpy as np, sys; from graphdr.blocks.lists import InvertedLists; "
            "d = sys.argv[1]; X, Q = np.load(d + '/X.npy'), np.load(d + '/Q.npy'); "
            "np.save(d + '/found.npy', InvertedLists(n_probe=4).fit(X).search(Q, 10))")
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, check=True)
    assert np.array_equal(np.load(tmp_path / "found.npy"), mine)


def test_without_a_copy_the_index_reads_the_given_rows_and_finds_the_same():
    X, Q = _clusters(2000), _clusters(200, seed=8)
    kept = InvertedLists(n_probe=3, copy=False).fit(X)
    copied = InvertedLists(n_probe=3).fit(X)
    assert np.shares_memory(kept.data_, X) and not np.shares_memory(copied.data_, X)
    assert np.array_equal(kept.search(Q, 6), copied.search(Q, 6))
    # float64 rows are converted once, whatever copy says
    wide = InvertedLists(n_probe=3, copy=False).fit(X.astype(np.float64))
    assert wide.data_.dtype == np.float32 and np.array_equal(wide.search(Q, 6),
                                                             copied.search(Q, 6))


def test_the_search_finds_the_nearest_rows_of_the_lists_probed_whatever_the_ties():
    """Integer features (float32 distances exact, many duplicate rows): each query's answer is
    the ``k`` nearest rows, ties to the smaller row, among the lists of its ``n_probe``
    nearest centres, computed by brute force from the index's lists."""
    rng = np.random.default_rng(10)
    base = rng.integers(-3, 4, size=(120, 5))
    X = base[rng.integers(0, 120, 1500)].astype(np.float32)  # about 12 copies of each row
    Q = rng.integers(-3, 4, size=(200, 5)).astype(np.float32)
    index = InvertedLists(n_lists=25, n_probe=4).fit(X)
    found = index.search(Q, 15)
    dc = ((Q[:, None, :].astype(np.float64) - index.centres_[None]) ** 2).sum(-1)
    lists = np.repeat(np.arange(25), np.diff(index.starts_))[np.argsort(index.rows_)]
    for q in range(len(Q)):
        probed = np.lexsort((np.arange(25), dc[q]))[:4]
        rows = np.flatnonzero(np.isin(lists, probed))
        d = ((X[rows].astype(np.float64) - Q[q]) ** 2).sum(-1)
        assert np.array_equal(found[q], rows[np.lexsort((rows, d))][:15]), q
