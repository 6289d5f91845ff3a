"""Tests of MMPA and DCV (graphdr.graph_embedding.discriminant)."""

import numpy as np
import pytest
from conftest import make_classes, max_angle
from scipy import linalg
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr.graph_embedding.discriminant import DCV, MMPA, mean_class_distances


def _sss_data(seed=0, n_per_class=(4, 5, 3, 6), D=40):
    r = np.random.default_rng(seed)
    X = np.vstack([r.normal(loc=r.normal(scale=2, size=D), size=(m, D)) for m in n_per_class])
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    return X, y


# ----- DCV ----------------------------------------------------------------------------------
def test_dcv_collapses_each_class_to_one_point():
    X, y = _sss_data()  # D = 40 > n - C = 14
    est = DCV().fit(X, y)
    C = len(np.unique(y))
    assert est.n_components_ == C - 1
    Z = est.transform(X)
    spread = max(np.ptp(Z[y == c], axis=0).max() for c in range(C))
    gaps = min(np.linalg.norm(Z[y == a][0] - Z[y == b][0]) for a in range(C) for b in range(a))
    assert spread < 1e-8 * gaps
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(C - 1), atol=1e-10)
    np.testing.assert_array_equal(Z, (X - est.mean_) @ est.components_.T)


def test_dcv_matches_null_space_construction():
    """Independent construction: null space of S_w inside the span of the centred data,
    then the principal directions of the projected class means."""
    X, y = _sss_data(seed=1)
    Xc = X - X.mean(0)
    span = linalg.orth(Xc.T)
    Sw = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0))
             for c in np.unique(y))
    N = span @ linalg.null_space(span.T @ Sw @ span, rcond=1e-9)
    Mc = np.array([X[y == c].mean(0) for c in np.unique(y)]) @ N
    U, s, Vt = linalg.svd(Mc - Mc.mean(0), full_matrices=False)
    W_ref = N @ Vt[: len(s) - 1].T
    est = DCV().fit(X, y)
    assert max_angle(est.components_.T, W_ref) < 1e-6


def test_dcv_without_null_space_is_the_orthonormalised_fisher_subspace():
    """n > D: S_w is nonsingular, DCV returns the Gram-Schmidt basis of Fisher's directions,
    checked against scikit-learn's LDA (independent) direction by direction."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y = make_classes(n_per_class=(30, 25, 35, 20), n_features=7)
    X[:, 6] = 1.5  # a constant feature
    est = DCV().fit(X, y)
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(X[:, :6], y)
    scalings = np.vstack([lda.scalings_[:, :3], np.zeros((1, 3))])
    assert est.n_components_ == 3 and est.null_dim_ == 0
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(3), atol=1e-10)
    assert np.all(est.components_[:, 6] == 0)
    for k in (1, 2, 3):  # nested: the first k rows span the first k Fisher directions
        assert max_angle(est.components_[:k].T, scalings[:, :k]) < 1e-6
    # eigenvalues_: Fisher ratios v^T S_b v / v^T S_w v of the directions, decreasing
    Xc = X - X.mean(0)
    M = np.array([Xc[y == c].mean(0) for c in range(4)])
    Sb = sum(np.sum(y == c) * np.outer(M[c], M[c]) for c in range(4))
    Sw = sum((Xc[y == c] - M[c]).T @ (Xc[y == c] - M[c]) for c in range(4))
    V = scalings
    ratios = np.diag(V.T @ Sb @ V) / np.diag(V.T @ Sw @ V)
    np.testing.assert_allclose(est.eigenvalues_, ratios, rtol=1e-8)
    np.testing.assert_array_equal(est.transform(X), (X - est.mean_) @ est.components_.T)
    with pytest.raises(ValueError, match="n_components=4 is too large"):
        DCV(n_components=4).fit(X, y)


def test_dcv_null_dim_and_bad_input():
    X, y = make_classes(n_per_class=(20, 20, 20), n_features=5)
    est = DCV(null_dim=3).fit(X, y)
    assert est.null_dim_ == 3 and est.n_components_ == 2
    with pytest.raises(ValueError, match="null_dim=9 is too large"):
        DCV(null_dim=9).fit(X, y)
    with pytest.raises(ValueError, match="n_components=3 is too large"):
        DCV(n_components=3, null_dim=3).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        DCV().fit(X, np.zeros(len(X)))


# ----- MMPA ---------------------------------------------------------------------------------
def test_mean_class_distances_brute_force():
    X, y = make_classes(n_per_class=(5, 4, 6))
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    same = (y[:, None] == y[None]) & ~np.eye(len(y), dtype=bool)
    diff = y[:, None] != y[None]
    intra, inter = mean_class_distances(X, y)
    assert intra == pytest.approx(D[same].mean())
    assert inter == pytest.approx(D[diff].mean())


def test_mmpa_matches_dense_generalized_eigenproblem():
    X, y = make_classes(n_per_class=(25, 20, 30), n_features=6)
    n = len(y)
    k_w, k_b = 4, 6
    D2 = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    D = np.sqrt(D2)
    same = y[:, None] == y[None]
    eps_w = D[same & ~np.eye(n, dtype=bool)].mean()
    eps_b = D[~same].mean()

    def graph(mask, k, eps):
        W = np.zeros((n, n))
        for i in range(n):
            cand = np.flatnonzero(mask[i] & (np.arange(n) != i))
            nn = cand[np.argsort(D2[i, cand], kind="stable")[:k]]
            W[i, nn] = np.exp(-D2[i, nn] / eps**2)
        return np.maximum(W, W.T)

    Ww, Wb = graph(same, k_w, eps_w), graph(~same, k_b, eps_b)
    Lw = np.diag(Ww.sum(1)) - Ww
    Lb = np.diag(Wb.sum(1)) - Wb
    vals, V = linalg.eigh(X.T @ Lw @ X, X.T @ Lb @ X)
    est = MMPA(n_components=3, n_neighbors_intra=k_w, n_neighbors_inter=k_b).fit(X, y)
    assert est.eps_intra_ == pytest.approx(eps_w) and est.eps_inter_ == pytest.approx(eps_b)
    np.testing.assert_allclose(est.eigenvalues_, vals[:3], rtol=1e-8)
    assert max_angle(est.components_.T, V[:, :3]) < 1e-6
    np.testing.assert_array_equal(est.transform(X), (X - est.mean_) @ est.components_.T)


def test_mmpa_bad_input():
    X, y = make_classes()
    with pytest.raises(ValueError, match="n_neighbors_intra must be an integer"):
        MMPA(n_neighbors_intra=0).fit(X, y)
    with pytest.raises(ValueError, match="eps_inter must be > 0"):
        MMPA(eps_inter=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        MMPA().fit(X, np.zeros(len(X)))


@parametrize_with_checks([MMPA(n_components=1), DCV(null_dim=1), DCV()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
