"""Sampled pairs (graphdr.blocks.pairs, method='approx'): the sample, its estimates, the estimators.

Oracles: the exact pairwise sums of the same objectives (row-block code paths written
independently), brute-force double loops on tiny inputs, finite differences, and the mean of
many independent draws (unbiasedness).
"""

import numpy as np
import pytest
from conftest import make_classes

from graphdr.blocks import pairs as P
from graphdr.blocks.graphs import knn_graph
from graphdr.neighbor_embedding import (
    DEE,
    DSNE,
    ElasticEmbedding,
    _DEEObjective,
    _DSNEObjective,
    _EEObjective,
    _mean_same_class_sq_dist,
    _sample_groups,
    _SampledDSNEObjective,
)
from graphdr.qmi import QMIProjection, _criterion_and_gradient, qmi_potential_blocks


def _labels(n=40, seed=0, C=3):
    y = np.random.default_rng(seed).integers(0, C, n)
    y[0] = C  # a class of one sample: it has no same-class partner
    return y


def _terms(sample):
    """All (row, partner, weight) terms of a sample, as Python tuples."""
    out = []
    for rows, partners, w in sample:
        for r, ps in zip(rows, partners):
            out.extend((int(r), int(p), w) for p in ps)
    return out


# ----- the sample --------------------------------------------------------------------------
@pytest.mark.parametrize("group", ["same", "different", "all"])
def test_partners_are_in_the_group_and_never_the_row_itself(group):
    y = _labels()
    s = P.sample_pairs(y, 5, group, random_state=0)
    terms = _terms(s)
    assert terms
    for r, p, _w in terms:
        assert r != p
        if group == "same":
            assert y[r] == y[p]
        elif group == "different":
            assert y[r] != y[p]
    # every sample is a row, except the singleton class in the 'same' group
    rows = {r for r, _p, _w in terms}
    expected = set(range(len(y))) - ({0} if group == "same" else set())
    assert rows == expected


def test_small_groups_are_enumerated_with_weight_one():
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 2])
    s = P.sample_pairs(y, 4, "same", random_state=0)
    by_row = {}
    for r, p, w in _terms(s):
        by_row.setdefault(r, []).append((p, w))
    # classes 0 and 1 (groups of 2 and 1 <= 4 partners): all partners once, weight 1
    for r in range(5):
        partners = sorted(p for p, _ in by_row[r])
        assert partners == sorted(set(np.flatnonzero(y == y[r])) - {r})
        assert all(w == 1.0 for _, w in by_row[r])
    # class 2 (groups of 6 > 4): 4 draws each, weight 6 / 4
    for r in range(5, 12):
        assert len(by_row[r]) == 4
        assert all(w == pytest.approx(6 / 4) for _, w in by_row[r])


def test_sample_is_reproducible_and_compact():
    y = _labels(200)
    a, b = (P.sample_pairs(y, 7, "different", random_state=3) for _ in range(2))
    assert _terms(a) == _terms(b)
    assert all(blk.partners.dtype == np.int32 for blk in a.blocks)
    assert a.n_terms == 7 * 200


def test_with_enough_partners_the_estimate_is_the_exact_sum():
    """m >= n - 1 enumerates every ordered pair: a brute-force double loop agrees."""
    rng = np.random.default_rng(1)
    y = _labels(25)
    Y = rng.normal(size=(25, 2))
    f = lambda D2: np.exp(-D2) * (1 + D2)  # noqa: E731
    for group, keep in [("same", lambda a, b: a == b), ("different", lambda a, b: a != b)]:
        s = P.sample_pairs(y, 100, group, random_state=0)
        totals, _ = s.evaluate(Y, lambda j, r, p, D2: ((f(D2),), None))
        brute = sum(f(np.sum((Y[i] - Y[k]) ** 2)) for i in range(25) for k in range(25)
                    if i != k and keep(y[i], y[k]))
        assert totals[0] == pytest.approx(brute, rel=1e-12)


def test_the_estimate_is_unbiased():
    """The mean of 400 independent estimates is within 4 standard errors of the exact sum."""
    rng = np.random.default_rng(2)
    y = _labels(60)
    Y = rng.normal(size=(60, 2))
    exact = P.sample_pairs(y, 100, "different", 0).evaluate(
        Y, lambda j, r, p, D2: ((np.exp(-D2),), None))[0][0]
    draws = [P.sample_pairs(y, 3, "different", seed).evaluate(
        Y, lambda j, r, p, D2: ((np.exp(-D2),), None))[0][0] for seed in range(400)]
    se = np.std(draws) / np.sqrt(len(draws))
    assert np.std(draws) > 0
    assert abs(np.mean(draws) - exact) < 4 * se


def test_evaluate_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    y = _labels(30)
    Y = rng.normal(size=(30, 3))
    s = P.sample_pairs(y, 4, "different", random_state=0)

    def term(j, r, p, D2):
        return (np.exp(-D2), np.log1p(D2)), (-np.exp(-D2), 1.0 / (1.0 + D2))

    _, G = s.evaluate(Y, term, n_out=2)
    E = rng.normal(size=Y.shape)
    h = 1e-6
    for q in range(2):
        fd = (s.evaluate(Y + h * E, term, n_out=2)[0][q]
              - s.evaluate(Y - h * E, term, n_out=2)[0][q]) / (2 * h)
        assert np.sum(G[q] * E) == pytest.approx(fd, rel=1e-6)


def test_sq_distances_in_bounded_chunks(monkeypatch):
    monkeypatch.setattr(P, "CHUNK_FLOATS", 50)  # force many slices
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(30, 7))
    rows = np.arange(10)
    partners = rng.integers(0, 30, size=(10, 4))
    brute = np.array([[np.sum((Z[r] - Z[p]) ** 2) for p in ps] for r, ps in zip(rows, partners)])
    assert np.allclose(P.sq_distances(Z, rows, partners), brute)


# ----- objectives: exact when m >= n - 1, close for moderate m --------------------------------
def _A(rng, r, d=2):
    return rng.normal(size=(d, r)) * 0.3


@pytest.mark.parametrize("shrinkage", [0.0, 0.3])
def test_dee_sampled_equals_exact_with_all_partners(shrinkage):
    rng = np.random.default_rng(5)
    y = _labels(45)
    Z = rng.normal(size=(45, 6))
    A = _A(rng, 6)
    ex = _DEEObjective(Z, y, 10.0, 1.5, shrinkage=shrinkage)
    ap = _DEEObjective(Z, y, 10.0, 1.5, shrinkage=shrinkage, pairs=_sample_groups(y, 100, 0))
    (e1, g1), (e2, g2) = ex.value_grad(A), ap.value_grad(A)
    assert e2 == pytest.approx(e1, rel=1e-12)
    assert np.allclose(g2, g1, rtol=1e-10, atol=1e-14)
    assert np.allclose(ap.H, ex.H) and np.allclose(ap.Hdeg, ex.Hdeg)


@pytest.mark.parametrize("normalization", ["joint", "classwise"])
def test_dsne_sampled_equals_exact_with_all_partners(normalization):
    rng = np.random.default_rng(6)
    y = _labels(45)
    Z = rng.normal(size=(45, 6))
    A = _A(rng, 6)
    ex = _DSNEObjective(Z, y, 1.2, normalization=normalization, intra_mass=0.8)
    ap = _SampledDSNEObjective(Z, y, 1.2, _sample_groups(y, 100, 0),
                               normalization=normalization, intra_mass=0.8)
    (e1, g1), (e2, g2) = ex.value_grad(A), ap.value_grad(A)
    assert e2 == pytest.approx(e1, rel=1e-12)
    assert np.allclose(g2, g1, rtol=1e-10, atol=1e-14)


def test_ee_sampled_equals_exact_with_all_partners():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 5))
    X -= X.mean(axis=0)
    W = knn_graph(X, 5, weights="heat")
    Y = rng.normal(size=(40, 2))
    ex = _EEObjective(X, 2.0, W)
    ap = _EEObjective(X, 2.0, W, pairs=P.sample_pairs(np.zeros(40, int), 100, "all", 0))
    (e1, g1), (e2, g2) = ex.value_grad(Y), ap.value_grad(Y)
    assert e2 == pytest.approx(e1, rel=1e-12)
    assert np.allclose(g2, g1, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("criterion", ["qmi", "mi_a", "mi_b"])
def test_qmi_sampled_equals_exact_with_all_partners(criterion):
    rng = np.random.default_rng(8)
    cls = np.sort(rng.integers(0, 3, 50))
    sizes = np.bincount(cls)
    bounds = np.r_[0, np.cumsum(sizes)]
    blocks = qmi_potential_blocks(sizes)
    Y = rng.normal(size=(50, 2))
    pr = tuple(P.sample_pairs(cls, 100, g, 0) for g in ("same", "different"))
    e1, g1 = _criterion_and_gradient(Y, bounds, cls, blocks, 0.7, criterion)
    e2, g2 = _criterion_and_gradient(Y, bounds, cls, blocks, 0.7, criterion, pairs=pr)
    assert e2 == pytest.approx(e1, rel=1e-12)
    assert np.allclose(g2, g1, rtol=1e-10, atol=1e-15)


def _fd_check(value_grad, x, rng, h=1e-6):
    _, g = value_grad(x)
    E = rng.normal(size=x.shape)
    fd = (value_grad(x + h * E)[0] - value_grad(x - h * E)[0]) / (2 * h)
    assert np.sum(g * E) == pytest.approx(fd, rel=1e-5, abs=1e-10)


def test_sampled_gradients_match_finite_differences():
    rng = np.random.default_rng(9)
    y = _labels(50)
    Z = rng.normal(size=(50, 5))
    A = _A(rng, 5)
    pr = _sample_groups(y, 6, 1)
    _fd_check(_DEEObjective(Z, y, 10.0, 1.0, pairs=pr).value_grad, A, rng)
    for norm in ("joint", "classwise"):
        _fd_check(_SampledDSNEObjective(Z, y, 1.0, pr, normalization=norm).value_grad, A, rng)
    X = Z - Z.mean(axis=0)
    ee = _EEObjective(X, 2.0, knn_graph(X, 4, weights="heat"),
                      pairs=P.sample_pairs(np.zeros(50, int), 6, "all", 1))
    _fd_check(ee.value_grad, rng.normal(size=(50, 2)), rng)


def test_sampled_gradient_error_is_bounded_and_shrinks_with_more_partners():
    """On 600 samples (default kernel width), the relative gradient error of DEE and DSNE is
    below 10 % with 32 partners and falls with m (mean over draws; 1/sqrt(m) in expectation)."""
    X, y = make_classes(n_per_class=(200, 250, 150), n_features=8, seed=3)
    Z = X - X.mean(axis=0)
    s2 = _mean_same_class_sq_dist(Z, y) / 2.0
    rng = np.random.default_rng(10)
    A = _A(rng, 8)

    def err(m, make):
        g_ex = make(None).value_grad(A)[1]
        errs = [np.linalg.norm(make(_sample_groups(y, m, s)).value_grad(A)[1] - g_ex)
                / np.linalg.norm(g_ex) for s in range(4)]
        return float(np.mean(errs))

    for make in (lambda pr: _DEEObjective(Z, y, 10.0, s2, pairs=pr),
                 lambda pr: (_DSNEObjective(Z, y, s2, normalization="joint") if pr is None
                             else _SampledDSNEObjective(Z, y, s2, pr, normalization="joint"))):
        e8, e32, e128 = err(8, make), err(32, make), err(128, make)
        assert e32 < 0.10
        assert e128 < e8 / 1.5


# ----- estimators -------------------------------------------------------------------------
@pytest.fixture
def data():
    return make_classes(n_per_class=(20, 25, 18), n_features=6, seed=11)


@pytest.mark.parametrize("make", [
    lambda **kw: DEE(shrinkage=0.0, **kw),
    lambda **kw: DSNE(max_iter=50, **kw),
    lambda **kw: QMIProjection(n_components=2, cv=None, max_iter=20, **kw),
])
def test_estimators_approx_with_all_partners_equal_exact(make, data):
    X, y = data
    ex = make(method="exact", random_state=0).fit(X, y)
    ap = make(method="approx", n_partners=200, random_state=0).fit(X, y)
    assert ex.method_ == "exact" and ap.method_ == "approx"
    assert np.allclose(ap.components_, ex.components_, rtol=1e-6, atol=1e-9)


def test_elastic_embedding_approx_with_all_partners_equals_exact(data):
    X, _ = data
    ex = ElasticEmbedding(method="exact", max_iter=30).fit(X)
    ap = ElasticEmbedding(method="approx", n_partners=200, max_iter=30).fit(X)
    assert np.allclose(ap.embedding_, ex.embedding_, rtol=1e-6, atol=1e-9)


def test_auto_switches_to_sampled_pairs_above_the_threshold(monkeypatch, data):
    X, y = data
    assert DEE(shrinkage=0.0).fit(X, y).method_ == "exact"
    monkeypatch.setattr(P, "AUTO_EXACT_MAX", 50)  # the data have 63 samples

    # the exact pairwise code must not run at all
    from graphdr.neighbor_embedding import dee, dsne, elastic

    def forbidden(*a, **k):
        raise AssertionError("exact pairwise sums used with method='approx'")

    for module in (dee, dsne, elastic):  # every estimator module that builds exact pairs
        if hasattr(module, "_PairWeights"):
            monkeypatch.setattr(module, "_PairWeights", forbidden)
    est = DEE(shrinkage=0.0, n_partners=8, random_state=0).fit(X, y)
    assert est.method_ == "approx"
    assert np.all(np.isfinite(est.components_))
    assert DSNE(n_partners=8, max_iter=20, random_state=0).fit(X, y).method_ == "approx"
    assert ElasticEmbedding(n_partners=8, max_iter=20).fit(X).method_ == "approx"


def test_sampled_fit_with_few_partners_still_separates_classes(data):
    """DEE with 8 partners on 63 samples: the embedding keeps the classes apart (training
    1-NN error below 10 %) and its objective decreased from the start."""
    from sklearn.neighbors import KNeighborsClassifier

    X, y = data
    est = DEE(method="approx", n_partners=8, shrinkage=0.0, random_state=0).fit(X, y)
    Z = est.transform(X)
    assert est.objective_ < est.initial_objective_
    assert KNeighborsClassifier(1).fit(Z[::2], y[::2]).score(Z[1::2], y[1::2]) > 0.9


@pytest.mark.parametrize("cls", [DEE, DSNE, ElasticEmbedding, QMIProjection])
@pytest.mark.parametrize("kw, match", [
    ({"method": "fast"}, "method must be 'auto', 'exact' or 'approx'"),
    ({"method": None}, "method must be 'auto', 'exact' or 'approx'"),
    ({"n_partners": 0}, "n_partners must be an integer >= 1"),
    ({"n_partners": 2.5}, "n_partners must be an integer >= 1"),
    ({"n_partners": True}, "n_partners must be an integer >= 1"),
])
def test_bad_approximation_parameters(cls, kw, match, data):
    X, y = data
    with pytest.raises(ValueError, match=match):
        cls(**kw).fit(X, y)


def test_conjugate_gradient_preconditioner_solves_the_laplacian_system():
    """ElasticEmbedding above 5000 samples replaces the sparse LU of its spectral direction by
    Jacobi-preconditioned CG: the solve has relative residual <= 1e-3 and gives a descent
    direction (positive inner product with the gradient)."""
    import scipy.sparse as sp

    from graphdr.blocks.graphs import laplacian
    from graphdr.neighbor_embedding import _sparse_preconditioner

    rng = np.random.default_rng(12)
    X = rng.normal(size=(300, 6))
    L = sp.csc_matrix(4.0 * laplacian(knn_graph(X, 8, weights="heat")))
    M = sp.csc_matrix(L + 1e-3 * sp.identity(300))
    g = rng.normal(size=(300, 2))
    exact = _sparse_preconditioner(M, factor=True)(g, None)
    approx = _sparse_preconditioner(M, factor=False)(g, None)
    assert np.allclose(M @ exact, g)
    assert np.linalg.norm(M @ approx - g) <= 1e-3 * np.linalg.norm(g) * 1.0001
    assert np.sum(approx * g) > 0
