"""Tests of QMIProjection's metric, solvers, sigma path and inner validation (issue 12)."""

import math
import warnings

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from scipy.spatial.distance import pdist
from sklearn.covariance import ledoit_wolf_shrinkage
from sklearn.datasets import load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.blocks.sampling import canonical_order, row_keys, stratified_folds
from graphdr.qmi import (
    QMIProjection,
    _qmi_objective_and_grad_W,
    _retract,
    qmi_potential_blocks,
    qmi_potentials,
)

FACTORS = (1.0, 0.5, 0.25)


def _iris():
    X, y = load_iris(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y


def _within_cov(X, y):
    R = X - X.mean(axis=0)
    for c in np.unique(y):
        R[y == c] = X[y == c] - X[y == c].mean(axis=0)
    return R.T @ R / len(X), R


# ----- metric ------------------------------------------------------------------------------------
def test_within_metric_whitens_the_shrunk_within_class_covariance():
    X, y = load_wine(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)  # full rank: the span of the data is the whole space
    S, R = _within_cov(X, y)
    for shrinkage in (0.0, 0.3, "auto"):
        est = QMIProjection(n_components=2, shrinkage=shrinkage, max_iter=0, cv=None).fit(X, y)
        alpha = ledoit_wolf_shrinkage(R, assume_centered=True) if shrinkage == "auto" else \
            shrinkage
        np.testing.assert_allclose(est.shrinkage_, alpha, rtol=1e-10)
        S_shrunk = (1 - alpha) * S + alpha * np.trace(S) / S.shape[0] * np.eye(S.shape[0])
        W = est.components_.T
        np.testing.assert_allclose(W.T @ S_shrunk @ W, np.eye(2), atol=1e-8)


def test_within_metric_start_is_sklearn_lda_up_to_rotation_and_scale():
    X, y = _iris()
    ours = QMIProjection(n_components=2, shrinkage=0.0, max_iter=0, cv=None).fit(X, y)
    sk = LinearDiscriminantAnalysis(n_components=2).fit(X, y)
    a, b = pdist(ours.transform(X)), pdist(sk.transform(X))
    np.testing.assert_allclose(a[b == 0], 0.0, atol=1e-12)  # iris has duplicate rows
    ratio = a[b > 0] / b[b > 0]
    # pairwise distances are proportional: the same 1-NN classifier
    np.testing.assert_allclose(ratio, ratio.mean(), rtol=1e-8)


def test_euclidean_metric_keeps_orthonormal_projection():
    X, y = _iris()
    est = QMIProjection(n_components=2, metric="euclidean", cv=None, criterion="mi_a").fit(X, y)
    W = est.components_.T
    np.testing.assert_allclose(W.T @ W, np.eye(2), atol=1e-10)
    assert est.shrinkage_ is None


def test_previous_behaviour_reachable_and_degenerate_data_finite():
    rng = np.random.default_rng(0)
    X = np.hstack([rng.normal(size=(30, 3)), np.ones((30, 2))])  # constant features
    X = np.vstack([X, X[:5]])  # duplicate rows
    y = np.r_[np.repeat([0, 1, 2], 10), [0, 0, 0, 0, 0]]
    for kw in ({}, {"shrinkage": 0.0}, {"metric": "euclidean"}):
        est = QMIProjection(n_components=2, criterion="mi_a", **kw).fit(X, y)
        Z = est.transform(X)
        assert np.all(np.isfinite(Z)) and np.all(np.isfinite(est.components_))
        # constant features get no weight in the whitened metric
        if kw.get("metric") != "euclidean":
            np.testing.assert_allclose(est.components_[:, 3:], 0.0, atol=1e-12)
    # n < D
    Xw = rng.normal(size=(12, 40))
    yw = np.repeat([0, 1, 2], 4)
    Z = QMIProjection(n_components=2).fit_transform(Xw, yw)
    assert np.all(np.isfinite(Z))


# ----- solvers -----------------------------------------------------------------------------------
def _sorted_iris(seed=0):
    X, y = _iris()
    order = np.argsort(y, kind="stable")
    Xs = X[order] - X.mean(axis=0)
    ys = y[order]
    sizes = np.bincount(ys)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    W = _retract(np.random.default_rng(seed).normal(size=(4, 2)))
    return Xs, ys, bounds, qmi_potential_blocks(sizes), W


@pytest.mark.parametrize("criterion", ["qmi", "mi_a", "mi_b"])
def test_riemannian_direction_matches_finite_difference_along_the_retraction(criterion):
    Xs, ys, bounds, blocks, W = _sorted_iris()
    sigma = 0.3

    def f(W):
        return _qmi_objective_and_grad_W(W, Xs, bounds, ys, blocks, sigma, criterion,
                                         grad=False)[0]

    _, G = _qmi_objective_and_grad_W(W, Xs, bounds, ys, blocks, sigma, criterion)
    xi = G - W @ ((W.T @ G + G.T @ W) / 2.0)  # the solvers' tangent direction
    h = 1e-5
    fd = (f(_retract(W + h * xi)) - f(_retract(W - h * xi))) / (2 * h)
    np.testing.assert_allclose(fd, np.sum(xi * xi), rtol=1e-5)
    # the criterion is invariant under rotations W -> W Q, so W^T G is symmetric
    np.testing.assert_allclose(W.T @ G, (W.T @ G).T, atol=1e-10 * np.abs(G).max())


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_paper_solver_is_eq15_with_gram_schmidt():
    X, y = _iris()
    seen = []
    kw = dict(n_components=2, criterion="mi_a", metric="euclidean", solver="paper",
              sigma=0.2, sigma_factors=(1.0,), cv=None, step_size=0.05)
    QMIProjection(max_iter=1, callback=lambda it, W, f: seen.append(W), **kw).fit(X, y)
    W0 = QMIProjection(max_iter=0, **kw).fit(X, y).components_.T
    Xs, ys, bounds, blocks, _ = _sorted_iris()
    _, G = _qmi_objective_and_grad_W(W0, Xs, bounds, ys, blocks, 0.2, "mi_a")
    Q, R = np.linalg.qr(W0 + 0.05 * G)
    expected = Q * np.sign(np.diag(R))
    assert _max_angle(seen[0], expected) < 1e-8
    np.testing.assert_allclose(np.abs(seen[0]), np.abs(expected), atol=1e-10)


def _max_angle(A, B):
    return float(np.max(subspace_angles(A, B)))


@pytest.mark.parametrize("solver", ["cg", "gradient"])
@pytest.mark.parametrize("criterion", ["qmi", "mi_a", "mi_b"])
def test_objective_non_decreasing_within_each_level(solver, criterion):
    X, y = _iris()
    est = QMIProjection(n_components=2, criterion=criterion, solver=solver, cv=None,
                        init="random", random_state=0).fit(X, y)
    obj = np.asarray(est.history_["objective"])
    level = np.asarray(est.history_["level"])
    assert set(level) == {0, 1, 2} and np.all(np.diff(level) >= 0)
    for k in range(3):
        assert np.all(np.diff(obj[level == k]) >= 0)
        np.testing.assert_allclose(np.asarray(est.history_["sigma"])[level == k], est.sigmas_[k])
    assert obj[0] >= est.init_objective_
    np.testing.assert_allclose(est.sigmas_, est.sigmas_[0] * np.asarray(FACTORS))
    key = {"qmi": "I_T", "mi_a": "MI_A", "mi_b": "MI_B"}[criterion]
    np.testing.assert_allclose(qmi_potentials(est.transform(X), y, est.sigma_)[key],
                               est.objective_, rtol=1e-9)


def test_cg_reaches_the_gradient_solution_in_fewer_iterations():
    X, y = load_wine(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    kw = dict(n_components=2, criterion="mi_a", cv=None, sigma_factors=(0.5,), tol=1e-9,
              max_iter=400, init="pca")
    cg = QMIProjection(solver="cg", **kw).fit(X, y)
    gd = QMIProjection(solver="gradient", **kw).fit(X, y)
    assert cg.objective_ >= gd.objective_ - 1e-6 * abs(gd.objective_)
    assert cg.n_iter_ < gd.n_iter_


def test_defaults_converge_without_warning():
    for load in (load_iris, load_wine):
        X, y = load(return_X_y=True)
        X = MinMaxScaler().fit_transform(X)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            for criterion in ("qmi", "mi_a"):
                QMIProjection(n_components=2, criterion=criterion).fit(X, y)


def test_warns_only_when_a_level_hits_max_iter():
    X, y = _iris()
    with pytest.warns(ConvergenceWarning, match="sigma level"):
        QMIProjection(n_components=2, max_iter=2, tol=0.0, cv=None, init="random",
                      random_state=0).fit(X, y)


# ----- inner validation --------------------------------------------------------------------------
def test_validation_errors_match_brute_force_and_final_fit_stops_at_the_kept_level():
    X, y = _iris()
    kw = dict(n_components=2, criterion="mi_a", sigma_factors=FACTORS)
    est = QMIProjection(cv=3, **kw).fit(X, y)
    wrong = np.zeros((len(y), len(FACTORS) + 1), dtype=bool)
    # the documented folds: dealt by the rows' content, training rows in canonical order
    keys = row_keys(X)
    for tr, va in stratified_folds(y, 3, keys):
        tr = tr[canonical_order(keys[tr], y[tr])]
        for k in range(len(FACTORS) + 1):
            if k == 0:
                inner = QMIProjection(cv=None, max_iter=0, **kw)
            else:
                inner = QMIProjection(cv=None, **dict(kw, sigma_factors=FACTORS[:k]))
            inner.fit(X[tr], y[tr])
            knn = KNeighborsClassifier(n_neighbors=1).fit(inner.transform(X[tr]), y[tr])
            wrong[va, k] = knn.predict(inner.transform(X[va])) != y[va]
    np.testing.assert_allclose(est.cv_errors_, wrong.mean(axis=0))
    # the best checkpoint replaces the start only if it corrects c samples and breaks b with
    # the exact two-sided McNemar test (binomial, p = 1/2 over the b + c discordant samples)
    # at the 5 % level
    from scipy.stats import binomtest

    best = int(np.argmin(wrong.sum(axis=0)))
    c = int(np.sum(wrong[:, 0] & ~wrong[:, best]))
    b = int(np.sum(~wrong[:, 0] & wrong[:, best]))
    keep = best if best > 0 and c > b and binomtest(c, b + c).pvalue <= 0.05 else 0
    assert est.checkpoint_ == keep
    ref = (QMIProjection(cv=None, max_iter=0, **kw) if keep == 0 else
           QMIProjection(cv=None, **dict(kw, sigma_factors=FACTORS[:keep]))).fit(X, y)
    np.testing.assert_allclose(est.components_, ref.components_, atol=1e-10)


def test_validation_prefers_the_start_on_ties():
    # well-separated classes: every checkpoint has zero validation error -> keep the start
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(loc=10.0 * c, size=(20, 3)) for c in range(3)])
    y = np.repeat([0, 1, 2], 20)
    est = QMIProjection(n_components=2, criterion="mi_a").fit(X, y)
    assert np.all(est.cv_errors_ == 0) and est.checkpoint_ == 0
    assert est.n_iter_ >= 1 and est.objective_ == est.init_objective_
    start = QMIProjection(n_components=2, criterion="mi_a", max_iter=0, cv=None).fit(X, y)
    np.testing.assert_allclose(est.components_, start.components_)


def _exact_mcnemar_brute(b, c):
    """Two-sided exact McNemar p-value by summing binomial(b + c, 1/2) terms by hand."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(max(b, c), n + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


@pytest.mark.parametrize("b, c", [(0, 0), (0, 4), (0, 5), (0, 6), (1, 6), (2, 9), (3, 3),
                                  (5, 1), (10, 25), (40, 62)])
def test_mcnemar_pvalue_against_the_binomial_sum(b, c):
    from graphdr.tuning import mcnemar_pvalue

    assert mcnemar_pvalue(b, c) == pytest.approx(_exact_mcnemar_brute(b, c), rel=1e-12)
    assert mcnemar_pvalue(b, c) == pytest.approx(mcnemar_pvalue(c, b), rel=1e-12)


def test_choose_checkpoint_rule():
    from graphdr.tuning import choose_checkpoint

    wrong = np.zeros((40, 3), dtype=bool)
    wrong[:5, 0] = True  # the start misses 5 samples
    wrong[:1, 1] = True  # checkpoint 1 corrects 4 of them: p = 2/16 = 0.125
    wrong[:2, 2] = True
    assert choose_checkpoint(wrong) == 0  # not significant at 5 %
    assert choose_checkpoint(wrong, 0.2) == 1  # significant at 20 %
    assert choose_checkpoint(wrong, 1.0) == 1  # level 1: the fewest errors
    wrong[:, 0] = False
    wrong[:8, 0] = True  # the start misses 8; checkpoint 1 corrects 7, breaks 0: p = 2/128
    wrong[:, 2] = True  # checkpoint 2 misses everything
    assert choose_checkpoint(wrong) == 1 and choose_checkpoint(wrong, 0.01) == 0
    wrong[8:10, 1] = True  # now it also breaks 2: p(2, 7) = 0.18 -> not at 5 %
    assert _exact_mcnemar_brute(2, 7) > 0.05
    assert choose_checkpoint(wrong) == 0
    wrong[:, 2] = False  # checkpoint 2 corrects all 8: fewest errors, p = 2/256
    assert choose_checkpoint(wrong) == 2
    no_gain = np.zeros((10, 2), dtype=bool)
    assert choose_checkpoint(no_gain, 1.0) == 0  # ties go to the start


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, float("nan"), "0.05", True, None])
def test_significance_domain(bad):
    from graphdr.tuning import check_significance

    with pytest.raises(ValueError, match="significance must be a float in"):
        check_significance(bad)


def test_validation_skipped_for_a_singleton_class():
    X, y = _iris()
    X, y = X[:101], y[:101]  # class 2 has one sample
    est = QMIProjection(n_components=2).fit(X, y)
    assert est.cv_errors_ is None and est.checkpoint_ == len(FACTORS)


# ----- bad hyper-parameters ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(metric="mahalanobis"), "metric must be one of"),
        (dict(solver="adam"), "solver must be one of"),
        (dict(shrinkage=-0.1), "shrinkage must be 'auto' or a float in \\[0, 1\\]"),
        (dict(shrinkage=1.5), "shrinkage must be 'auto' or a float in \\[0, 1\\]"),
        (dict(shrinkage="lw"), "shrinkage must be 'auto'"),
        (dict(shrinkage=True), "shrinkage must be 'auto'"),
        (dict(sigma_factors=()), "sigma_factors must be a non-empty sequence"),
        (dict(sigma_factors=(1.0, 2.0)), "strictly decreasing"),
        (dict(sigma_factors=(1.0, 0.0)), "positive"),
        (dict(sigma_factors="abc"), "sigma_factors"),
        (dict(sigma_factors=((1.0, 0.5),)), "sigma_factors"),
        (dict(sigma_factors=(1.0, np.nan)), "sigma_factors"),
        (dict(cv=1), "cv must be an integer >= 2"),
        (dict(cv=2.5), "cv must be an integer >= 2"),
        (dict(significance=0.0), "significance must be a float in \\(0, 1\\]"),
        (dict(significance=1.5), "significance must be a float in \\(0, 1\\]"),
        (dict(significance="5%"), "significance must be a float"),
        (dict(max_iter=-1), "max_iter must be an integer >= 0"),
        (dict(step_size=0.0), "step_size must be > 0"),
    ],
)
def test_bad_hyper_parameters(params, match):
    X, y = _iris()
    with pytest.raises(ValueError, match=match):
        QMIProjection(**params).fit(X, y)
