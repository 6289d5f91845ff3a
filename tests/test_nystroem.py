"""KQMI with the Nystroem approximation: exact with all samples as landmarks, consistent transform."""

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.datasets import load_iris, load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr.qmi import KQMI


def _wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("solver", ["eigh", "cholesky"])
def test_all_samples_as_landmarks_reproduce_the_exact_fit(solver):
    X, y = _wine()
    rng = np.random.default_rng(0)
    test = rng.normal(size=(40, X.shape[1]))
    kw = dict(kernel="rbf", gamma=0.05, reg=1e-3)
    exact = KQMI(solver=solver, **kw).fit(X, y)
    approx = KQMI(approximation="nystroem", n_landmarks=X.shape[0], random_state=0, **kw).fit(X, y)
    assert approx.n_components_ == exact.n_components_ == 2
    np.testing.assert_allclose(approx.eigenvalues_, exact.eigenvalues_, rtol=1e-6)
    # same training embedding and same projection of new samples (as subspaces)
    assert np.max(subspace_angles(approx.embedding_, exact.embedding_)) < 1e-6
    assert np.max(subspace_angles(approx.transform(test), exact.transform(test))) < 1e-6


def test_transform_of_training_data_is_the_embedding():
    X, y = _wine()
    est = KQMI(approximation="nystroem", n_landmarks=60, random_state=1, gamma=0.05).fit(X, y)
    assert est.components_.shape == (2, 60)
    np.testing.assert_allclose(est.transform(X), est.embedding_, rtol=1e-10, atol=1e-12)
    assert not hasattr(est, "dual_coef_")


def test_landmarks_depend_on_random_state_only():
    X, y = _wine()
    kw = dict(approximation="nystroem", n_landmarks=40, gamma=0.05)
    a = KQMI(random_state=3, **kw).fit(X, y).transform(X)
    b = KQMI(random_state=3, **kw).fit(X, y).transform(X)
    np.testing.assert_array_equal(a, b)


def test_few_landmarks_stay_close_to_the_exact_subspace():
    X, y = load_iris(return_X_y=True)
    kw = dict(kernel="rbf", gamma=0.5, reg=1e-2)
    exact = KQMI(**kw).fit(X, y).embedding_
    approx = KQMI(approximation="nystroem", n_landmarks=100, random_state=0, **kw).fit(X, y)
    # iris' RBF kernel has a fast-decaying spectrum: 100 of 150 landmarks give nearly the same
    # subspace (measured 0.013 rad; an unrelated 2-D subspace of R^150 is near pi/2)
    assert np.max(subspace_angles(approx.embedding_, exact)) < 0.05


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(approximation="nystroem", solver="paper"), "solver='paper'"),
        (dict(approximation="landmarks"), "approximation must be one of"),
        (dict(approximation="nystroem", n_landmarks=1), "n_landmarks must be an integer >= 2"),
        (dict(approximation="nystroem", kernel="precomputed"), "precomputed"),
    ],
)
def test_bad_approximation_parameters(params, match):
    X, y = _wine()
    with pytest.raises(ValueError, match=match):
        KQMI(**params).fit(X, y)


@parametrize_with_checks([KQMI(approximation="nystroem", n_landmarks=20, random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
