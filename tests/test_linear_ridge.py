"""reg='auto' of LDA and LQMI: the leave-one-out (PRESS) ridge against brute force."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import subspace_angles
from sklearn.datasets import load_wine
from sklearn.linear_model import Ridge
from sklearn.preprocessing import minmax_scale

import graphdr
from graphdr import tuning
from graphdr.blocks.sampling import row_keys, stratified_subsample


def _wine():
    X, y = load_wine(return_X_y=True)
    return minmax_scale(X, (-1, 1)), y


def _brute_press(X, y, ridge):
    """Leave one sample out, fit ridge regression (with intercept) of the one-hot labels on
    the others, predict it: the mean squared prediction error."""
    Y = np.eye(y.max() + 1)[y]
    errs = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        # the targets are centred over all samples: a constant shift the intercept absorbs
        model = Ridge(alpha=ridge).fit(X[keep], Y[keep])
        errs.append(np.sum((model.predict(X[i:i + 1])[0] - Y[i]) ** 2))
    return np.mean(errs)


def test_press_curve_equals_brute_force_leave_one_out():
    X, y = _wine()
    X, y = X[::4], y[::4]  # 45 samples, 13 features
    U, lam = tuning._principal_coordinates(X)
    unit = lam.sum() / lam.size
    regs = [1e-3, 0.1, 3.0]
    fast = tuning.press_curve(U, lam, y, regs, unit)
    brute = [_brute_press(X, y, r * unit) for r in regs]
    np.testing.assert_allclose(fast, brute, rtol=1e-8)


def test_press_curve_gram_route_equals_svd_route_and_sparse():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 50))  # more features than rows: the Gram route
    y = np.arange(30) % 3
    U, lam = tuning._principal_coordinates(X)
    U2, lam2 = tuning._principal_coordinates(X[:, :29])  # the SVD route on fewer features
    assert U.shape[1] == 29 and U2.shape[1] == 29
    # same rows, full-rank centred data in both: the same hat matrices, the same curve
    regs = [1e-2, 1.0]
    a = tuning.press_curve(U, lam, y, regs, 1.0)
    X3 = X @ np.linalg.qr(rng.normal(size=(50, 50)))[0]  # rotated features: same Gram matrix
    U3, lam3 = tuning._principal_coordinates(sp.csr_matrix(X3))
    np.testing.assert_allclose(tuning.press_curve(U3, lam3, y, regs, 1.0), a, rtol=1e-7)
    np.testing.assert_allclose(np.sort(lam3), np.sort(lam), rtol=1e-8)


def test_lda_auto_reg_is_the_press_minimum_and_explicit_value_reproduces_it():
    X, y = _wine()
    lda = graphdr.LDA().fit(X, y)
    cv = lda.cv_results_
    finite = np.isfinite(cv["mean_test_error"])
    best = cv["param_reg"][finite][np.argmin(cv["mean_test_error"][finite])]
    assert lda.reg_ == best  # 178 samples: no subsample, no transfer
    assert cv["rank_test_error"][cv["param_reg"] == best] == 1
    # the PRESS curve itself against brute force at the chosen value
    U, lam = tuning._principal_coordinates(X)
    unit = lam.sum() / lam.size
    np.testing.assert_allclose(cv["mean_test_error"][cv["param_reg"] == best],
                               _brute_press(X, y, best * unit), rtol=1e-8)
    fixed = graphdr.LDA(reg=lda.reg_).fit(X, y)
    np.testing.assert_allclose(fixed.components_, lda.components_, atol=1e-12)
    assert not hasattr(fixed, "cv_results_") and fixed.reg_ == lda.reg_
    # LQMI regularises the same total scatter: the same ridge, LDA's subspace at C - 1
    lq = graphdr.LQMI().fit(X, y)
    assert lq.reg_ == lda.reg_
    assert np.max(subspace_angles(lq.components_.T, lda.components_.T)) < 1e-6


def test_auto_reg_shrinks_where_features_outnumber_samples():
    """80 samples of 60 noisy features, one informative (Bayes error 6.7 %): classical LDA
    fits the noise (22.6 % test error); the chosen ridge is large and the error far lower."""
    rng = np.random.default_rng(0)

    def draw(n):
        y = np.arange(n) % 2
        X = rng.normal(size=(n, 60))
        X[:, 0] += 3.0 * y
        return X, y

    X, y = draw(80)
    Xt, yt = draw(2000)
    auto = graphdr.LDA().fit(X, y)
    assert auto.reg_ >= 0.1
    classical = graphdr.LDA(reg=0.0).fit(X, y)

    def error(est):
        Z, Zt = est.transform(X), est.transform(Xt)
        centroids = np.array([Z[y == c].mean(axis=0) for c in (0, 1)])
        pred = np.argmin(np.abs(Zt - centroids.T), axis=1)
        return np.mean(pred != yt)

    assert error(auto) < error(classical) - 0.1


def test_subsample_transfers_the_ridge_by_the_sample_ratio():
    rng = np.random.default_rng(1)
    y = np.arange(600) % 3
    X = rng.normal(size=(600, 4)) + y[:, None]
    reg, cv = tuning.press_ridge(X, y, name="LDA", max_samples=200)
    best = cv["param_reg"][cv["rank_test_error"] == 1][0]
    m = len(stratified_subsample(y, 200, row_keys(X)))  # the subsample press_ridge takes
    assert 195 <= m <= 205
    assert reg == pytest.approx(best * m / 600, rel=1e-12)


def test_sparse_and_dense_choose_the_same_ridge():
    X, y = _wine()
    a = graphdr.LDA().fit(X, y)
    b = graphdr.LDA().fit(sp.csr_matrix(X), y)
    assert a.reg_ == b.reg_
    np.testing.assert_allclose(a.cv_results_["mean_test_error"], b.cv_results_["mean_test_error"],
                               rtol=1e-8)


@pytest.mark.parametrize("bad", ["automatic", -1.0, np.nan])
def test_bad_reg_names_the_allowed_values(bad):
    X, y = _wine()
    with pytest.raises(ValueError, match="reg must be 'auto' or a number >= 0"):
        graphdr.LDA(reg=bad).fit(X, y)


def test_auto_reg_elsewhere_and_too_small_classes_are_clear_errors():
    X, y = _wine()
    with pytest.raises(ValueError, match="reg='auto' is available for LDA, LQMI"):
        graphdr.LPP(reg="auto").fit(X, y)
    y1 = y.copy()
    y1[0] = 5  # a class with one sample
    with pytest.raises(ValueError, match="at least 2 samples in every class.*Pass reg"):
        graphdr.LDA().fit(X, y1)
    assert graphdr.LDA(reg=0.0).fit(X, y1).n_components_ >= 1
