"""The heavy-tailed map's pieces (graphdr.maps.heavy_tailed) against brute-force formulas."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from graphdr.maps.heavy_tailed import (
    KLObjective,
    labelled_affinities,
    optimize,
    perplexity_affinities,
)


def _neighbours(X, k):
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    ind = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, ind, 1), ind


def _brute_affinities(dist, ind, perplexity):
    """t-SNE's P by its definition, with an independent (geometric) bisection per row."""
    n = len(ind)
    C = np.zeros((n, n))
    for i in range(n):
        d2 = dist[i] ** 2
        lo, hi = 1e-10, 1e10
        for _ in range(200):
            beta = np.sqrt(lo * hi)
            w = np.exp(-beta * (d2 - d2[0]))
            q = w / w.sum()
            H = -np.sum(q[q > 0] * np.log(q[q > 0]))
            lo, hi = (beta, hi) if H > np.log(perplexity) else (lo, beta)
        C[i, ind[i]] = q
    return (C + C.T) / (2 * n)


def _brute_objective(Y, P, alpha, exaggeration=1.0):
    """``exaggeration sum_{i != j} p_ij a log(1 + d^2 / a) + log Z``, pair by pair."""
    d2 = cdist(Y, Y, "sqeuclidean")
    K = (1.0 + d2 / alpha) ** -alpha
    np.fill_diagonal(K, 0.0)
    return exaggeration * np.sum(P * alpha * np.log1p(d2 / alpha)) + np.log(K.sum())


@pytest.fixture(scope="module", params=[4.0])
def blobs(request):
    return _blobs(request.param)


def _blobs(spread):
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 5)) * spread
    y = np.repeat([0, 1, 2], 20)
    X = centres[y] + rng.normal(size=(60, 5))
    return X, y


def test_affinities_are_t_sne_s_at_the_asked_perplexity(blobs):
    X, _ = blobs
    dist, ind = _neighbours(X, 15)
    P = perplexity_affinities(dist, ind, 5.0)
    dense = P.toarray()
    np.testing.assert_array_equal(dense, dense.T)
    assert dense.sum() == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(dense, _brute_affinities(dist, ind, 5.0), atol=1e-9)


def test_labels_scale_the_affinities_across_classes_only():
    X, y = _blobs(1.0)  # blobs that touch: neighbours across classes
    dist, ind = _neighbours(X, 15)
    P = perplexity_affinities(dist, ind, 5.0).toarray()
    partial = y.copy()
    partial[::4] = -1  # unlabelled rows keep every affinity
    got = labelled_affinities(P, partial, 0.25).toarray()
    cross = (partial[:, None] >= 0) & (partial[None] >= 0) & (partial[:, None] != partial[None])
    want = np.where(cross, 0.25 * P, P)
    np.testing.assert_allclose(got, want / want.sum(), rtol=1e-12, atol=1e-18)
    assert got[cross].sum() > 0
    assert labelled_affinities(P, partial, 0.0).toarray()[cross].sum() == 0.0
    np.testing.assert_allclose(labelled_affinities(P, y, 1.0).toarray(), P, rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_objective_and_gradient_are_the_formula_s(blobs, alpha):
    """The value against the pair-by-pair sum; the gradient against central differences of
    that sum (the repulsion comes from the grid: within its error)."""
    X, _ = blobs
    dist, ind = _neighbours(X, 15)
    P = perplexity_affinities(dist, ind, 5.0)
    dense = P.toarray()
    rng = np.random.default_rng(1)
    Y = rng.normal(size=(60, 2)) * 3.0
    obj = KLObjective(P, alpha, spacing=0.1)
    value, grad = obj.value_grad(Y, exaggeration=3.0)
    assert value == pytest.approx(_brute_objective(Y, dense, alpha, 3.0), rel=1e-4)
    num = np.zeros_like(Y)
    eps = 1e-5
    for i in range(len(Y)):
        for k in range(2):
            E = np.zeros_like(Y)
            E[i, k] = eps
            num[i, k] = (_brute_objective(Y + E, dense, alpha, 3.0)
                         - _brute_objective(Y - E, dense, alpha, 3.0)) / (2 * eps)
    assert np.max(np.abs(grad - num)) <= 1e-2 * np.max(np.abs(num))


def test_descent_lowers_the_divergence_and_gives_the_same_bits_again():
    X, y = _blobs(8.0)  # far apart blobs
    dist, ind = _neighbours(X, 15)
    P = perplexity_affinities(dist, ind, 5.0)
    Y0 = (X - X.mean(axis=0))[:, :2] * 1e-2
    obj = KLObjective(P)
    Y, history, _ = optimize(obj, Y0, n_iter=300, early_iter=50, learning_rate=10)
    Y2, _, _ = optimize(obj, Y0, n_iter=300, early_iter=50, learning_rate=10)
    np.testing.assert_array_equal(Y, Y2)
    dense = P.toarray()
    assert _brute_objective(Y, dense, 1.0) < _brute_objective(Y0, dense, 1.0) - 1.0
    # the three blobs come apart: each sample's nearest map neighbour is of its blob
    D = cdist(Y, Y)
    np.fill_diagonal(D, np.inf)
    assert np.mean(y[np.argmin(D, axis=1)] == y) == 1.0


# ----- DEEMap(repulsion='cauchy') -------------------------------------------------------------
@pytest.fixture(scope="module")
def digits_split():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X, y = X[:500] / 16.0, y[:500]
    return train_test_split(X, y, test_size=100, stratify=y, random_state=0)


def _one_nn_error(Z_train, y_train, Z_test, y_test):
    from sklearn.neighbors import KNeighborsClassifier

    knn = KNeighborsClassifier(1).fit(Z_train, y_train)
    return float(np.mean(knn.predict(Z_test) != y_test))


def test_cauchy_map_keeps_neighbours_and_classes_and_is_the_same_in_any_row_order(digits_split):
    """The heavy-tailed map of digits: its training neighbours are the input's (above PCA's
    trustworthiness by far), new samples fall among their class, and the map does not depend
    on the order of the rows."""
    from sklearn.decomposition import PCA
    from sklearn.manifold import trustworthiness

    from graphdr import DEEMap

    Xtr, Xte, ytr, yte = digits_split
    m = DEEMap(repulsion="cauchy", max_iter=300).fit(Xtr, ytr)
    assert m.n_iter_ == 300 and m.converged_
    pca = PCA(2).fit_transform(Xtr)
    t_map, t_pca = (trustworthiness(Xtr, Z, n_neighbors=10) for Z in (m.embedding_, pca))
    assert t_map > 0.95 and t_map > t_pca + 0.1
    assert _one_nn_error(m.embedding_, ytr, m.transform(Xte), yte) <= 0.06
    np.testing.assert_array_equal(m.transform(Xtr), m.embedding_)
    perm = np.random.default_rng(0).permutation(len(ytr))
    moved = DEEMap(repulsion="cauchy", max_iter=300).fit(Xtr[perm], ytr[perm])
    np.testing.assert_array_equal(moved.embedding_, m.embedding_[perm])


def test_cauchy_map_separation_removes_the_attraction_across_classes(digits_split):
    """The more ``separation``, the farther each sample from the nearest sample of another
    class relative to the nearest of its own (median over the samples)."""
    from graphdr import DEEMap

    Xtr, _, ytr, _ = digits_split

    def gap(Y):
        D = cdist(Y, Y)
        np.fill_diagonal(D, np.inf)
        same = ytr[:, None] == ytr[None]
        return np.median(np.where(same, np.inf, D).min(axis=1)
                         / np.where(same, D, np.inf).min(axis=1))

    gaps = [gap(DEEMap(repulsion="cauchy", separation=s, max_iter=300).fit(Xtr, ytr).embedding_)
            for s in (0.0, 0.5, 1.0)]
    assert gaps[0] < gaps[1] < gaps[2] and gaps[2] > 1.5 * gaps[0]


def test_cauchy_map_refuses_bad_parameters():
    from graphdr import DEEMap

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    for params, match in (({"separation": 1.5}, "separation must be 'auto' or a number in"),
                          ({"tail": 0.0}, "tail"), ({"perplexity": -1.0}, "perplexity"),
                          ({"repulsion": "student"}, "repulsion"),
                          ({"max_iter": "many"}, "max_iter")):
        with pytest.raises(ValueError, match=match):
            DEEMap(repulsion="cauchy", **{k: v for k, v in params.items()}).fit(X, y) \
                if "repulsion" not in params else DEEMap(**params).fit(X, y)


def test_cauchy_map_of_data_without_labels_is_t_sne_s_and_places_new_rows(digits_split):
    """No labels (y None or every y -1): the same map, that of the input affinities alone
    (the labelled map's objective at separation 0), new samples placed by a label-free
    width."""
    from sklearn.manifold import trustworthiness

    from graphdr import DEEMap

    Xtr, Xte, ytr, _ = digits_split
    m = DEEMap(repulsion="cauchy", max_iter=300).fit(Xtr)
    m1 = DEEMap(repulsion="cauchy", max_iter=300).fit(Xtr, np.full(len(Xtr), -1))
    np.testing.assert_array_equal(m.embedding_, m1.embedding_)
    # with the labels at separation 0 the same objective (rows in another order inside: another
    # path of the descent, to an equally good map)
    labelled = DEEMap(repulsion="cauchy", separation=0.0, max_iter=300).fit(Xtr, ytr)
    assert labelled.objective_ == pytest.approx(m.objective_, rel=0.02)
    assert m.unlabelled_ == "smooth" and len(m.classes_) == 0
    assert set(m.placement_errors_) and m.placement_width_ in m.placement_errors_
    assert trustworthiness(Xtr, m.embedding_, n_neighbors=10) > 0.95
    # a new sample lands near the training samples nearest to it in the input
    Z = m.transform(Xte)
    near = np.argmin(cdist(Xte, Xtr), axis=1)
    spread = np.median(cdist(m.embedding_, m.embedding_))
    assert np.median(np.linalg.norm(Z - m.embedding_[near], axis=1)) < 0.05 * spread
    with pytest.raises(ValueError, match="requires y to be passed"):
        DEEMap(repulsion="gaussian").fit(Xtr)


def test_page_of_a_map_without_labels(monkeypatch, tmp_path):
    """The page of a map of data without labels: every point drawn, no class to infer."""

    from graphdr import DEEMap
    from graphdr.maps.views import display

    monkeypatch.setattr(display, "_in_notebook", lambda: True)  # (no browser opened)
    X = np.random.default_rng(0).normal(size=(80, 4))
    X[:40] += 5.0
    view = DEEMap(repulsion="cauchy", max_iter=100).fit(X).show()
    from graphdr.maps.views.page_data import read_page_data

    data = read_page_data(view.page)
    assert data["counts"] == [80] and data["hover_names"] == []  # one group, no inferred class


_FIT = """
import numpy as np
from sklearn.datasets import load_digits
from graphdr import DEEMap
X, y = load_digits(return_X_y=True)
Y = DEEMap(repulsion="cauchy", max_iter=150).fit(X[:300] / 16.0, y[:300]).embedding_
"""


def test_cauchy_map_has_the_same_bits_without_numpys_simd_paths():
    """The perplexity's bisection, the kernel and the field use exactly rounded operations
    only: the same map with NumPy's SIMD paths off (another CPU, as far as NumPy's
    transcendental functions go)."""
    import hashlib
    import os
    import subprocess
    import sys

    from numpy._core import _multiarray_umath as um

    off = [f for f in um.__cpu_dispatch__ if um.__cpu_features__.get(f)]
    if not off:
        pytest.skip("this CPU has none of NumPy's dispatched SIMD extensions")
    code = _FIT + "import hashlib; print(hashlib.sha256(Y.tobytes()).hexdigest())"
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(off))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    scope = {}
    exec(_FIT, scope)
    assert run.stdout.strip() == hashlib.sha256(scope["Y"].tobytes()).hexdigest()


def test_auto_separation_is_the_least_not_significantly_worse_than_the_best(monkeypatch):
    """The rule of ``separation='auto'`` on designed held-out errors, against scipy's exact
    binomial test: the best candidate (0.9) beats 0 significantly, not 0.5: 0.5 is chosen;
    where nothing is significant, the least (0); with too few labels, 0.5; without, 0."""
    from scipy.stats import binomtest

    from graphdr.blocks.sampling import row_keys
    from graphdr.maps import separation as sep

    n = 400
    y = np.arange(n) % 2
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    keys = row_keys(X)
    def rows(a, b):
        w = np.zeros(n, dtype=bool)
        w[a:b] = True
        return w

    # decided: 0 errs on 84 more rows than 0.9 (significant), 0.5 on 4 more (not);
    # noise: 0 and 0.9 err on 40 and 36 rows, mostly different ones (not significant)
    designs = {"decided": {0.0: rows(0, 120), 0.5: rows(0, 40), 0.9: rows(0, 36)},
               "noise": {0.0: rows(0, 40), 0.5: rows(20, 58), 0.9: rows(40, 76)}}
    for name, wrong in designs.items():
        monkeypatch.setattr(sep, "_held_out_wrong",
                            lambda yy, train, test, s, *fold, wrong=wrong, **kw: wrong[s][test])
        chosen, errors = sep.choose_separation(X, y, keys, n_neighbors=5, perplexity=5.0,
                                               tail=1.0)
        assert errors == pytest.approx({s: float(np.mean(w)) for s, w in wrong.items()})
        best = min(errors, key=lambda s: (errors[s], s))

        def significantly_worse(s, wrong=wrong, best=best):
            b = int(np.sum(~wrong[s] & wrong[best]))
            c = int(np.sum(wrong[s] & ~wrong[best]))
            return c > b and binomtest(c, b + c, 0.5).pvalue <= 0.05

        expected = next(s for s in sep.SEPARATIONS if s == best or not significantly_worse(s))
        assert chosen == expected
        assert chosen == (0.5 if name == "decided" else 0.0)
    assert sep.choose_separation(X[:100], y[:100], keys[:100], n_neighbors=5,
                                 perplexity=5.0, tail=1.0) == (0.5, {})
    assert sep.choose_separation(X, np.full(n, -1), keys, n_neighbors=5, perplexity=5.0,
                                 tail=1.0) == (0.0, {})


def test_auto_separation_is_the_fit_at_the_chosen_value_in_any_row_order(digits_split):
    """``separation='auto'`` fits the map at ``separation_``, bit for bit, and chooses the
    same value (from the same held-out errors) whatever the order of the rows."""
    from graphdr import DEEMap

    Xtr, _, ytr, _ = digits_split
    auto = DEEMap(repulsion="cauchy", max_iter=100).fit(Xtr, ytr)
    assert auto.separation_ in (0.0, 0.5, 0.9) and len(auto.separation_errors_) == 3
    fixed = DEEMap(repulsion="cauchy", max_iter=100, separation=auto.separation_).fit(Xtr, ytr)
    np.testing.assert_array_equal(auto.embedding_, fixed.embedding_)
    assert fixed.separation_errors_ == {}
    perm = np.random.default_rng(3).permutation(len(ytr))
    moved = DEEMap(repulsion="cauchy", max_iter=100).fit(Xtr[perm], ytr[perm])
    assert moved.separation_errors_ == auto.separation_errors_
    np.testing.assert_array_equal(moved.embedding_, auto.embedding_[perm])


def test_the_exact_field_is_taken_where_it_costs_less_than_the_capped_grid():
    """The choice of the exact sum counts the grid's nodes up to its cap: 5,000 points spread
    over 10^5 units take the grid (1024 nodes per axis), 300 points the exact sum."""
    import scipy.sparse as sp

    from graphdr.maps.cauchy_field import MAX_NODES_PER_AXIS

    for n, exact in ((5000, False), (300, True)):
        i = np.arange(n - 1)
        P = sp.coo_matrix((np.full(n - 1, 0.5 / (n - 1)), (i, i + 1)), shape=(n, n))
        objective = KLObjective((P + P.T).tocsr())
        Y = np.column_stack([np.linspace(0.0, 1e5, n), np.zeros(n)])
        assert objective.exact_here(Y) is exact
        assert float(n) ** 2 > 22.0 * MAX_NODES_PER_AXIS ** 2 + 270_000.0 or exact


def test_label_free_width_score_is_the_brute_force_neighbour_recall():
    """The width of a map without labels: one minus the share of each left-out sample's k
    nearest input neighbours found among the k training samples nearest its place on the map
    (itself left out), against sets formed one sample at a time."""
    from graphdr.maps.placement import leave_one_out_misses, place

    rng = np.random.default_rng(3)
    X, P = rng.normal(size=(60, 5)), rng.normal(size=(60, 2)) * 5
    rows = np.arange(0, 60, 3)
    D = cdist(X[rows], X)
    D[np.arange(len(rows)), rows] = np.inf  # itself left out
    ind = np.argsort(D, axis=1, kind="stable")[:, :8]
    dist = np.take_along_axis(D, ind, axis=1)
    got = leave_one_out_misses(P, rows, dist, ind, widths=(0.1, 1.0, 4.0), k=4)
    for width, miss in got.items():
        Z = place(P, dist, ind, width)
        found = 0
        for z, want, row in zip(Z, ind[:, :4], rows):
            d = np.linalg.norm(P - z, axis=1)
            d[row] = np.inf
            found += len(set(np.argsort(d, kind="stable")[:4]) & set(want))
        assert miss == pytest.approx(1 - found / (4 * len(rows)), abs=1e-12)
    assert len(set(got.values())) > 1  # the widths differ
