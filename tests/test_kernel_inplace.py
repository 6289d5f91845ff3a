"""The exact class-structured kernel route works on one n x n array: checks against copies."""

import numpy as np
import pytest
from scipy import linalg
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import KernelCenterer

import graphdr
from graphdr.blocks.kernel_matrices import TrainingCentring
from graphdr.blocks.solvers import class_kernel_eigh, symmetrise_from_lower
from graphdr.graph_embedding.routes import solve_class_kernel
from graphdr.graph_embedding.spaces import KernelMap, KernelSpec
from graphdr.qmi import KQMI


def _data(n=120, D=4, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    return rng.normal(size=(n, D)) + rng.normal(size=(C, D))[y], y


def _assert_restored(restored, K):
    """The kept lower triangle and diagonal bit for bit; the upper triangle is their mirror,
    equal to ``K``'s own up to the rounding that keeps a centred kernel from being exactly
    symmetric."""
    np.testing.assert_array_equal(np.tril(restored), np.tril(K))
    np.testing.assert_array_equal(restored, restored.T)
    np.testing.assert_allclose(restored, K, rtol=0, atol=1e-15 * np.abs(K).max())


def test_in_place_centring_is_kernelcenterers_arithmetic():
    X, _ = _data()
    K = rbf_kernel(X, gamma=0.3)
    ref = KernelCenterer().fit(K)
    Kc = K.copy()
    centring = TrainingCentring.centre_in_place(Kc, block_rows=7)
    np.testing.assert_array_equal(Kc, ref.transform(K))
    np.testing.assert_array_equal(centring.K_fit_rows_, ref.K_fit_rows_)
    Knew = rbf_kernel(X[:9] + 0.1, X, gamma=0.3)
    np.testing.assert_array_equal(centring.transform(Knew), ref.transform(Knew))


def test_symmetrise_from_lower_restores_the_matrix():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(37, 37))
    A = A + A.T
    B = A.copy()
    B[np.triu_indices(37)] = -99.0  # upper triangle and diagonal overwritten
    np.testing.assert_array_equal(symmetrise_from_lower(B, np.diag(A).copy(), block=5), A)


def test_in_place_factorisation_equals_a_copy_and_restores_the_kernel():
    X, y = _data()
    K = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.3))
    block = np.diag(1.0 / np.bincount(y))
    r_copy, a_copy, Y_copy = class_kernel_eigh(K, y, block, 1e-3)
    Kw = K.copy()
    r_in, a_in, Y_in = class_kernel_eigh(Kw, y, block, 1e-3, overwrite_k=True)
    np.testing.assert_allclose(r_in, r_copy, rtol=1e-10)
    assert np.min(np.abs(np.diff(r_copy))) > 1e-3  # distinct ratios: each direction unique up to sign
    # the solver does not orient its vectors (the estimators do, solvers.embedding_signs): the
    # two factorisations may round to opposite signs on another BLAS kernel
    flip = np.sign(np.sum(a_in * a_copy, axis=0))
    a_in, Y_in = a_in * flip, Y_in * flip
    np.testing.assert_allclose(a_in, a_copy, rtol=1e-8, atol=1e-10 * np.abs(a_copy).max())
    # the embedding comes from K R = E - eps R: the same as K @ dual
    np.testing.assert_allclose(Y_in, K @ a_in, atol=1e-9 * np.abs(Y_in).max())
    np.testing.assert_allclose(Y_copy, K @ a_copy, atol=1e-9 * np.abs(Y_copy).max())
    # the strict lower triangle is kept, the rest holds the factor of K + eps I
    np.testing.assert_array_equal(np.tril(Kw, -1), np.tril(K, -1))
    U = np.triu(Kw)
    np.testing.assert_allclose(U.T @ U, K + 1e-3 * np.eye(len(K)), atol=1e-12)
    _assert_restored(symmetrise_from_lower(Kw, np.diag(K).copy()), K)


def test_failed_in_place_factorisation_leaves_the_kernel_intact():
    X, y = _data(n=40)
    K = KernelCenterer().fit_transform(-rbf_kernel(X, gamma=0.3))  # negative definite
    Kw = K.copy()
    with pytest.raises(np.linalg.LinAlgError):
        class_kernel_eigh(Kw, y, np.diag(1.0 / np.bincount(y)), 1e-3, overwrite_k=True)
    _assert_restored(Kw, K)


def test_space_restores_its_centred_kernel_after_the_solve():
    X, y = _data()
    space = KernelMap(KernelSpec("rbf", gamma=0.3)).fit(X)
    ref = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.3))
    ratios, dual, Y = solve_class_kernel(space, y, np.diag(1.0 / np.bincount(y)), reg=1e-3,
                                         with_embedding=True)
    _assert_restored(space.K_centred, ref)  # restored on access
    np.testing.assert_allclose(Y, ref @ dual, atol=1e-9 * np.abs(Y).max())
    # the eigendecomposition route still works on the restored matrix
    assert space.coords.shape[0] == X.shape[0]


def test_precomputed_kernel_is_not_modified():
    X, y = _data()
    K = rbf_kernel(X, gamma=0.3)
    K0 = K.copy()
    est = graphdr.KernelLDA(kernel="precomputed", reg=1e-3, solver="cholesky").fit(K, y)
    np.testing.assert_array_equal(K, K0)
    ref = graphdr.KernelLDA(gamma=0.3, reg=1e-3, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(est.embedding_, ref.embedding_, atol=1e-8)


@pytest.mark.parametrize("Est", [graphdr.KernelLDA, KQMI])
@pytest.mark.parametrize("scaling", ["within", "total", "none"])
def test_fitted_embedding_is_the_centred_kernel_times_the_dual(Est, scaling):
    X, y = _data()
    est = Est(gamma=0.3, reg=1e-3, solver="cholesky", scaling=scaling).fit(X, y)
    Kc = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.3))
    direct = Kc @ est.dual_coef_
    np.testing.assert_allclose(est.embedding_, direct, atol=1e-9 * np.abs(direct).max())
    np.testing.assert_allclose(est.transform(X), direct, atol=1e-9 * np.abs(direct).max())
    slow = Est(gamma=0.3, reg=1e-3, solver="eigh", scaling=scaling).fit(X, y)
    assert np.max(linalg.subspace_angles(est.embedding_, slow.embedding_)) < 1e-6
