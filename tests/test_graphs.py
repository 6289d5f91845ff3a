import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_classes
from sklearn.datasets import load_iris

from graphdr.blocks import graphs
from graphdr.blocks.graphs import knn_graph


def brute_knn(X, k, y=None, restrict=None):
    """Directed kNN adjacency by brute force (numpy distances, stable order)."""
    n = len(X)
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    A = np.zeros((n, n))
    for i in range(n):
        cand = [j for j in range(n) if j != i]
        if restrict == "same":
            cand = [j for j in cand if y[j] == y[i]]
        elif restrict == "different":
            cand = [j for j in cand if y[j] != y[i]]
        order = sorted(cand, key=lambda j: (d[i, j], j))[:k]
        A[i, order] = 1
    return A


@pytest.mark.parametrize("restrict", [None, "same", "different"])
def test_knn_graph_matches_brute_force(restrict):
    X, y = make_classes(seed=1)
    W = graphs.knn_graph(X, 3, y=y, restrict=restrict, weights="binary").toarray()
    A = brute_knn(X, 3, y, restrict)
    np.testing.assert_array_equal(W, np.maximum(A, A.T))
    if restrict == "same":
        assert np.all(W[y[:, None] != y[None, :]] == 0)
    if restrict == "different":
        assert np.all(W[y[:, None] == y[None, :]] == 0)


def test_knn_graph_and_symmetrize_and_heat_weights():
    X, y = make_classes(seed=2)
    A = brute_knn(X, 4)
    W_and = graphs.knn_graph(X, 4, symmetrize="and", weights="binary").toarray()
    np.testing.assert_array_equal(W_and, np.minimum(A, A.T))
    W = graphs.knn_graph(X, 4, weights="heat", sigma=2.0).toarray()
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    mask = np.maximum(A, A.T) > 0
    np.testing.assert_allclose(W[mask], np.exp(-d2[mask] / 8.0))
    assert np.all(W[~mask] == 0)



@pytest.mark.parametrize("symmetrize", ["or", "and"])
@pytest.mark.parametrize("restrict", [None, "same"])
def test_binary_graphs_built_group_by_group_equal_the_general_assembly(restrict, symmetrize):
    """Binary graphs of groups that search themselves are made symmetric group by group and
    written into one CSR matrix; heat weights go through the general assembly (COO, the
    transpose, their maximum). The two agree edge for edge, with unlabelled samples, a class
    of one sample and duplicate rows, and the binary one is canonical CSR."""
    X, y = make_classes(seed=4)
    X[5] = X[6]
    y = y.copy()
    y[:7] = -1
    y[10] = y.max() + 1  # a class of one sample: no edge
    W = graphs.knn_graph(X, 4, y=y, restrict=restrict, symmetrize=symmetrize)
    H = graphs.knn_graph(X, 4, y=y, restrict=restrict, symmetrize=symmetrize, weights="heat")
    np.testing.assert_array_equal(W.toarray(), (H.toarray() > 0).astype(float))
    assert W.has_canonical_format and W.nnz == np.count_nonzero(W.toarray())
    assert np.all(W.diagonal() == 0) and abs(W - W.T).max() == 0

def test_knn_graph_precomputed_distances_equal_features():
    X, y = make_classes(seed=3)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    for restrict in (None, "same", "different"):
        a = graphs.knn_graph(X, 3, y=y, restrict=restrict, weights="heat").toarray()
        b = graphs.knn_graph(D, 3, y=y, restrict=restrict, weights="heat", metric="precomputed").toarray()
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda X, y: graphs.knn_graph(X, 3),
        lambda X, y: graphs.within_class_graph(y),
        lambda X, y: graphs.between_class_graph(y),
        lambda X, y: graphs.total_graph(y),
        lambda X, y: graphs.knn_graph(X, 3).toarray(),
    ],
)
def test_laplacians_have_zero_row_sums(make):
    X, y = make_classes(seed=4)
    L = graphs.laplacian(make(X, y))
    L = L.toarray() if sp.issparse(L) else L
    np.testing.assert_allclose(L.sum(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(L, L.T, atol=1e-14)


def test_class_graph_forms_equal_dense_forms():
    X, y = make_classes(seed=5)
    rng = np.random.default_rng(0)
    block = rng.normal(size=(3, 3))
    G = graphs.ClassGraph(y, block + block.T)
    W = G.toarray()
    mean = X.mean(0) + 0.5
    Xc = X - mean
    Ddeg = np.diag(W.sum(1))
    dense = {"adjacency": Xc.T @ W @ Xc, "degree": Xc.T @ Ddeg @ Xc,
             "laplacian": Xc.T @ (Ddeg - W) @ Xc}
    for kind, expected in dense.items():
        np.testing.assert_allclose(graphs.graph_quadratic_form(G, X, kind=kind, mean=mean),
                                   expected, atol=1e-9)
        np.testing.assert_allclose(graphs.graph_quadratic_form(W, X, kind=kind, mean=mean),
                                   expected, atol=1e-9)
        np.testing.assert_allclose(
            graphs.graph_quadratic_form(sp.csr_matrix(W), X, kind=kind, mean=mean), expected, atol=1e-9
        )


def test_class_graphs_give_the_scatter_matrices():
    X, y = make_classes(seed=6)
    m = X.mean(0)
    S_t = (X - m).T @ (X - m)
    S_w = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in range(3))
    S_b = sum((y == c).sum() * np.outer(X[y == c].mean(0) - m, X[y == c].mean(0) - m) for c in range(3))
    q = graphs.graph_quadratic_form
    np.testing.assert_allclose(q(graphs.within_class_graph(y), X), S_w, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(q(graphs.between_class_graph(y), X), S_b, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(q(graphs.total_graph(y), X), S_t, rtol=1e-10, atol=1e-9)


def test_split_by_label():
    X, y = make_classes(seed=7)
    W = graphs.knn_graph(X, 6)
    within, between = graphs.split_by_label(W, y)
    np.testing.assert_allclose((within + between).toarray(), W.toarray())
    same = y[:, None] == y[None, :]
    assert np.all(within.toarray()[~same] == 0) and np.all(between.toarray()[same] == 0)


def test_as_graph_rejects_bad_graphs():
    with pytest.raises(ValueError, match="symmetric"):
        graphs.as_graph(np.triu(np.ones((4, 4))), 4)
    with pytest.raises(ValueError, match="4 x 4"):
        graphs.as_graph(np.ones((3, 3)), 4)
    with pytest.raises(ValueError, match="NaN"):
        graphs.as_graph(np.full((4, 4), np.nan), 4)
    with pytest.raises(ValueError, match="restrict"):
        graphs.knn_graph(np.ones((4, 2)), 2, restrict="same")


def _brute_knn(X, k, y=None, restrict=None, rtol=1e-9):
    """Brute-force oracle: the k nearest by distance, distances within rtol of the k-th tied
    and taken by the smaller index; symmetrised with 'or'."""
    n = len(X)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    A = np.zeros((n, n))
    for i in range(n):
        if restrict is None:
            cand = [j for j in range(n) if j != i]
        elif restrict == "same":
            cand = [j for j in range(n) if y[j] == y[i] and j != i]
        else:
            cand = [j for j in range(n) if y[j] != y[i]]
        d = D[i, cand]
        kth = np.sort(d)[k - 1]
        below = [cand[o] for o in np.argsort(d, kind="stable") if d[o] < kth * (1 - rtol)]
        tied = sorted(c for c, dc in zip(cand, d) if abs(dc - kth) <= rtol * kth)
        A[i, (below + tied)[:k]] = 1
    return np.maximum(A, A.T)


@pytest.mark.parametrize("restrict", [None, "same", "different"])
@pytest.mark.parametrize("k", [1, 4, 9])
def test_knn_ties_go_to_the_smaller_index_on_every_machine(restrict, k):
    """Iris has repeated rows and many equal distances: which tied neighbour is kept must not
    depend on the tree search or on rounding (a 1e-12 perturbation keeps the graph)."""
    X, y = load_iris(return_X_y=True)
    W = knn_graph(X, k, y=y, restrict=restrict)
    np.testing.assert_array_equal(W.toarray(), _brute_knn(X, k, y, restrict))
    Xp = X * (1 + 1e-12 * np.random.default_rng(0).normal(size=X.shape))
    assert abs(knn_graph(Xp, k, y=y, restrict=restrict) - W).sum() == 0


def test_a_subsets_graph_from_its_sets_wider_search_is_its_own_search():
    """The graph of some rows from one exact search of all rows with more neighbours
    (:func:`neighbours_within`, the choice's folds) is the graph a search of those rows alone
    finds, ties to the smaller row included: on rounded data full of equal distances and
    duplicate rows; where a list does not decide, None (never another graph)."""
    from graphdr.blocks.graphs import binary_knn_graph
    from graphdr.blocks.knn import _search_groups, neighbours_within

    rng = np.random.default_rng(0)
    decided = undecided = 0
    for trial in range(40):
        n, k = int(rng.integers(100, 400)), int(rng.integers(5, 11))
        X = np.round(rng.normal(size=(n, int(rng.integers(2, 9)))), trial % 3 + 1)
        if trial % 4 == 0:
            X[: n // 5] = X[0]  # duplicate rows
        members = np.sort(rng.choice(n, size=int(n * rng.uniform(0.9, 0.99)), replace=False))
        every = np.arange(n)
        dist, ind = _search_groups(X, [(every, every, min(n - 1, 2 * k))], "euclidean", True)[0]
        near = neighbours_within(dist, ind, members, k)
        if near is None:
            undecided += 1
            continue
        decided += 1
        want = knn_graph(X[members], k, weights="binary")
        got = binary_knn_graph(near[1])
        assert (got != want).nnz == 0
        sub = np.arange(len(members))
        d_sub, _ = _search_groups(X[members], [(sub, sub, k)], "euclidean", True)[0]
        np.testing.assert_allclose(np.sort(near[0], axis=1), np.sort(d_sub, axis=1),
                                   rtol=1e-12)
    assert decided >= 20 and undecided >= 1
