import numpy as np
from conftest import max_angle
from scipy import linalg

from graphdr.solvers import data_subspace, flip_signs, generalized_eigh


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


def test_flip_signs_is_deterministic(rng):
    V = rng.normal(size=(5, 3))
    flipped = flip_signs(V * np.array([-1, 1, -1]))
    np.testing.assert_allclose(flipped, flip_signs(V))
    assert np.all(flipped[np.argmax(np.abs(flipped), axis=0), range(3)] > 0)
    np.testing.assert_allclose(flip_signs(V.T, axis=1), flip_signs(V).T)
