import numpy as np
from conftest import max_angle
from scipy import linalg

from graphdr.blocks.solvers import (
    class_means,
    data_subspace,
    embedding_signs,
    generalized_eigh,
    orientation_signs,
)


def spd(rng, m, rank=None):
    G = rng.normal(size=(m, rank or m))
    return G @ G.T


def test_generalized_eigh_equals_scipy_on_definite_problem(rng):
    A, B = spd(rng, 6), spd(rng, 6) + np.eye(6)
    mu, V = generalized_eigh(A, B)
    ref_mu, ref_V = linalg.eigh(A, B)
    np.testing.assert_allclose(mu, ref_mu, rtol=1e-9)
    np.testing.assert_allclose(V.T @ B @ V, np.eye(6), atol=1e-9)
    np.testing.assert_allclose(A @ V, B @ V * mu, atol=1e-8)
    mu_l, V_l = generalized_eigh(A, B, largest=True)
    np.testing.assert_allclose(mu_l, ref_mu[::-1], rtol=1e-9)
    assert max_angle(V_l[:, :2], ref_V[:, -2:]) < 1e-8


def test_generalized_eigh_regularisation_is_relative_ridge(rng):
    A, B = spd(rng, 5), spd(rng, 5)
    mu, V = generalized_eigh(A, B, reg=0.1)
    ridge = 0.1 * np.trace(B) / 5 * np.eye(5)
    np.testing.assert_allclose(mu, linalg.eigh(A + ridge, B + ridge, eigvals_only=True), rtol=1e-9)
    # maximising: ridge on the constraint only
    mu, V = generalized_eigh(A, B, reg=0.1, largest=True)
    np.testing.assert_allclose(mu, linalg.eigh(A, B + ridge, eigvals_only=True)[::-1], rtol=1e-9)


def test_ridge_on_both_sides_is_the_regularised_maximisation(rng):
    """min (B - P + eps)/(B + eps) has the eigenvectors of max P/(B + eps)."""
    P, B = spd(rng, 6, rank=2), spd(rng, 6)
    _, V_min = generalized_eigh(B - P, B, reg=0.05)
    _, V_max = generalized_eigh(P, B, reg=0.05, largest=True)
    assert max_angle(V_min[:, :2], V_max[:, :2]) < 1e-8


def test_generalized_eigh_singular_constraint_leaves_out_its_null_space(rng):
    A = spd(rng, 6)
    B = spd(rng, 6, rank=3)
    mu, V = generalized_eigh(A, B)
    assert V.shape == (6, 3) and np.all(np.isfinite(V))
    np.testing.assert_allclose(V.T @ B @ V, np.eye(3), atol=1e-8)
    # the eigen-equation holds once A is projected onto the range of B
    U = linalg.orth(B)
    Pa = U @ U.T @ A @ U @ U.T
    np.testing.assert_allclose(Pa @ V, B @ V * mu, atol=1e-7)


def test_data_subspace_drops_constant_and_duplicate_directions(rng):
    X = rng.normal(size=(30, 4))
    X = np.column_stack([X, np.full(30, 7.0), X[:, 0] * 2.0])  # constant and collinear columns
    X = np.vstack([X, X[:5]])  # duplicate rows
    basis, coords = data_subspace(X, X.mean(0))
    assert coords is None and basis.shape == (6, 4)
    np.testing.assert_allclose(basis.T @ basis, np.eye(4), atol=1e-12)
    assert np.allclose(basis[4], 0, atol=1e-12)  # the constant feature is never used
    # the basis spans the rows of the centred data
    Xc = X - X.mean(0)
    np.testing.assert_allclose(Xc @ basis @ basis.T, Xc, atol=1e-10)


def test_data_subspace_wide_data_uses_svd(rng):
    X = rng.normal(size=(8, 20))
    basis, coords = data_subspace(X, X.mean(0))
    assert basis.shape == (20, 7)  # n - 1 directions after centring
    np.testing.assert_allclose(coords, (X - X.mean(0)) @ basis, atol=1e-10)


def test_class_means_are_the_means_of_each_class(rng):
    Z = rng.normal(size=(9, 2))
    y = np.array([0, 1, 2, 0, 1, 2, 0, 0, 1])
    want = np.vstack([Z[y == c].mean(axis=0) for c in range(3)])
    np.testing.assert_allclose(class_means(Z, y), want, rtol=1e-14)


def test_orientation_follows_the_largest_class_mean(rng):
    # component 0: class 2 has the largest |mean| and it is negative -> flipped;
    # component 1: class 1 has the largest |mean| and it is positive -> kept
    y = np.repeat([0, 1, 2], 4)
    Z = np.zeros((12, 2))
    Z[:, 0] = np.repeat([1.0, 0.5, -3.0], 4) + 0.01 * rng.normal(size=12)
    Z[:, 1] = np.repeat([-1.0, 2.0, 0.2], 4) + 0.01 * rng.normal(size=12)
    np.testing.assert_array_equal(embedding_signs(Z, y), [-1.0, 1.0])
    np.testing.assert_array_equal(embedding_signs(-Z, y), [1.0, -1.0])


def test_tied_class_means_go_to_the_first_class():
    # two balanced classes: m_0 = -m_1 exactly; a 1e-12 change must not move the decision
    # (the largest-entry rule decides such ties by rounding)
    y = np.array([0, 0, 1, 1])
    for eps in (0.0, 1e-12, -1e-12):
        Z = np.array([[-1.0 - eps], [-1.0], [1.0], [1.0 + eps]])
        assert embedding_signs(Z, y)[0] == -1.0  # class 0 (mean -1) made positive


def test_orientation_falls_back_to_the_samples_when_class_means_vanish():
    # symmetric within each class: every class mean is exactly zero
    y = np.array([0, 0, 1, 1])
    Z = np.array([[2.0], [-2.0], [-3.0], [3.0]])
    assert embedding_signs(Z, y)[0] == -1.0  # the sample of largest |z| is row 2 (-3)
    # no labels: the samples decide, ties to the first row
    Z = np.array([[-3.0], [3.0], [1.0]])
    assert embedding_signs(Z)[0] == -1.0
    assert embedding_signs(Z * (1 + np.array([[0.0], [1e-12], [0.0]])))[0] == -1.0


def test_orientation_signs_without_samples_use_the_weights():
    means = np.zeros((3, 2))
    W = np.array([[0.1, -0.2], [-0.5, 0.1], [0.3, 0.1]])
    np.testing.assert_array_equal(orientation_signs(means, W, np.ones(2)), [-1.0, -1.0])
    np.testing.assert_array_equal(orientation_signs(None, W, np.ones(2)), [-1.0, -1.0])
