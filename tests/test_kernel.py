import numpy as np
import pytest
from conftest import make_classes, max_angle
from scipy import linalg
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler
from test_graphs import brute_knn

import graphdr


def centred(K):
    n = len(K)
    H = np.eye(n) - np.ones((n, n)) / n
    return H @ K @ H


def complement_of_ones(n):
    """Orthonormal basis of the vectors orthogonal to the constant vector."""
    Q, _ = np.linalg.qr(np.column_stack([np.ones(n), np.eye(n)[:, : n - 1]]))
    return Q[:, 1:]


def brute_kernel_problem(Kc, L, B_graph_form, eps, k):
    """Dense dual problem (Kc L Kc + eps Kc) a = lam (Kc B Kc + eps Kc) a on 1-perp.

    Returns the smallest eigenvalues and the in-sample embedding Kc a."""
    Q = complement_of_ones(len(Kc))
    A = Q.T @ (Kc @ L @ Kc + eps * Kc) @ Q
    B = Q.T @ (Kc @ B_graph_form @ Kc + eps * Kc) @ Q
    mu, C = linalg.eigh(A, B)
    return mu[:k], Kc @ Q @ C[:, :k]


def test_kernel_lda_linear_kernel_matches_lda_in_sample():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    klda = graphdr.KernelLDA(kernel="linear", reg=1e-10).fit(X, y)
    lda = graphdr.LDA(reg=0.0).fit(X, y)
    assert max_angle(klda.embedding_, lda.transform(X)) < 1e-6
    np.testing.assert_allclose(klda.transform(X), klda.embedding_, atol=1e-8)


def test_kernel_lda_equals_dense_dual_problem():
    X, y = make_classes(seed=21)
    gamma = 0.05
    klda = graphdr.KernelLDA(gamma=gamma, reg=1e-2).fit(X, y)
    Kc = centred(rbf_kernel(X, gamma=gamma))
    n = len(X)
    Wc = (y[:, None] == y[None, :]) / np.bincount(y)[y][:, None]
    L = np.diag(Wc.sum(1)) - Wc
    Lt = np.eye(n) - np.ones((n, n)) / n
    lam = np.linalg.eigvalsh(Kc)
    lam = lam[lam > n * np.finfo(float).eps * lam.max()]
    eps = 1e-2 * lam.mean()  # reg times the mean eigenvalue of the total scatter in feature space
    mu, Y = brute_kernel_problem(Kc, L, Lt, eps, 2)
    np.testing.assert_allclose(klda.eigenvalues_, mu, rtol=1e-6)
    assert max_angle(klda.embedding_, Y) < 1e-6


@pytest.mark.parametrize("supervised", [False, True])
def test_kernel_lpp_equals_dense_dual_problem(supervised):
    X, y = make_classes(seed=22)
    A = brute_knn(X, 4, y, "same" if supervised else None)
    W = np.maximum(A, A.T)
    est = graphdr.KernelLPP(n_components=3, supervised=supervised, n_neighbors=4, weights="binary",
                            gamma=0.05, reg=1e-2).fit(X, y)
    Kc = centred(rbf_kernel(X, gamma=0.05))
    Ddeg = np.diag(W.sum(1))
    lam = np.linalg.eigvalsh(Kc)
    lam = lam[lam > len(X) * np.finfo(float).eps * lam.max()]
    # eps = reg * mean eigenvalue of the constraint Z^T D Z, whose trace is tr(Kc D)
    eps = 1e-2 * np.trace(Kc @ Ddeg) / len(lam)
    mu, Y = brute_kernel_problem(Kc, Ddeg - W, Ddeg, eps, 3)
    np.testing.assert_allclose(est.eigenvalues_, mu, rtol=1e-6)
    assert max_angle(est.embedding_, Y) < 1e-6


def test_precomputed_kernel_equals_rbf():
    X, y = load_iris(return_X_y=True)
    Xtr, Xte, ytr = X[::2], X[1::2], y[::2]
    a = graphdr.KernelLDA(gamma=0.3, reg=1e-3).fit(Xtr, ytr)
    b = graphdr.KernelLDA(kernel="precomputed").fit(rbf_kernel(Xtr, gamma=0.3), ytr)
    np.testing.assert_allclose(a.transform(Xte), b.transform(rbf_kernel(Xte, Xtr, gamma=0.3)), atol=1e-8)
    with pytest.raises(ValueError, match="columns|features"):
        b.transform(rbf_kernel(Xte, Xtr[:10], gamma=0.3))


def test_unregularised_kernel_lda_collapses_training_classes():
    """With reg=0 and an RBF kernel (full rank), training classes collapse onto points."""
    X, y = make_classes(seed=23)
    Y = graphdr.KernelLDA(gamma=0.5, reg=0.0).fit(X, y).embedding_
    spread = max(np.ptp(Y[y == c], axis=0).max() for c in range(3))
    assert spread < 1e-6 * np.ptp(Y, axis=0).max()
    # the default ridge keeps a within-class spread many orders of magnitude larger
    Y_reg = graphdr.KernelLDA(gamma=0.5).fit(X, y).embedding_
    spread_reg = max(np.ptp(Y_reg[y == c], axis=0).max() for c in range(3)) / np.ptp(Y_reg, axis=0).max()
    assert spread_reg > 1e4 * spread / np.ptp(Y, axis=0).max()


def test_ckfd_irregular_and_regular_discriminants():
    X, y = make_classes(seed=24)
    est = graphdr.CKFD(gamma=0.2, scaling="total").fit(X, y)
    assert est.n_irregular_ == 2 and est.n_components_ == 4
    Y = est.embedding_
    irregular = Y[:, : est.n_irregular_]
    # irregular features: every training class is one point, classes distinct
    for c in range(3):
        assert np.ptp(irregular[y == c], axis=0).max() < 1e-6 * np.ptp(irregular, axis=0).max()
    means = np.array([irregular[y == c].mean(0) for c in range(3)])
    assert np.min(linalg.norm(means[:, None] - means[None], axis=-1) + np.eye(3)) > 1e-3
    # regular features: the Fisher ratio is positive and finite, unit total scatter
    reg_part = Y[:, est.n_irregular_ :]
    np.testing.assert_allclose(reg_part.T @ reg_part, np.eye(2), atol=1e-6)
    assert np.all(est.eigenvalues_[2:] > 0) and np.all(est.eigenvalues_[:2] == 0)
    # with a linear kernel on n >> D data there is no null space of S_w
    lin = graphdr.CKFD(kernel="linear").fit(X, y)
    assert lin.n_irregular_ == 0
    assert max_angle(lin.embedding_, graphdr.LDA(reg=0.0).fit_transform(X, y)) < 1e-6


def test_cholesky_fast_path_equals_eigendecomposition_path():
    X, y = make_classes(n_per_class=(30, 25, 35), seed=25)
    Xte = X[::3] + 0.1
    fast = graphdr.KernelLDA(gamma=0.05, reg=1e-3, solver="cholesky").fit(X, y)
    slow = graphdr.KernelLDA(gamma=0.05, reg=1e-3, solver="eigh").fit(X, y)
    np.testing.assert_allclose(fast.eigenvalues_, slow.eigenvalues_, rtol=1e-8)
    assert max_angle(fast.embedding_, slow.embedding_) < 1e-6
    np.testing.assert_allclose(fast.transform(Xte), slow.transform(Xte), atol=1e-7)
    with pytest.raises(ValueError, match="reg > 0"):
        graphdr.KernelLDA(reg=0.0, solver="cholesky").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        graphdr.KernelLDA(solver="lu").fit(X, y)


def test_indefinite_precomputed_kernel_falls_back_to_eigh_with_a_warning():
    X, y = make_classes(seed=26)
    v = np.random.default_rng(0).normal(size=len(X))
    v -= v.mean()
    K = rbf_kernel(X, gamma=0.1) - 5.0 * np.outer(v, v) / (v @ v)  # one negative eigenvalue
    with pytest.warns(RuntimeWarning, match="not positive semi-definite"):
        est = graphdr.KernelLDA(kernel="precomputed").fit(K, y)
    assert np.all(np.isfinite(est.embedding_))
    with pytest.warns(RuntimeWarning), pytest.raises(ValueError, match="no positive eigenvalue"):
        graphdr.KernelLDA(kernel="precomputed").fit(-rbf_kernel(X, gamma=0.1), y)


def test_nystroem_with_every_sample_as_landmark_is_exact():
    X, y = make_classes(n_per_class=(20, 18, 22), seed=27)
    exact = graphdr.KernelLDA(gamma=0.05, reg=1e-3, solver="eigh").fit(X, y)
    approx = graphdr.KernelLDA(gamma=0.05, reg=1e-3, approximation="nystroem",
                               n_landmarks=len(X), random_state=0).fit(X, y)
    np.testing.assert_allclose(approx.eigenvalues_, exact.eigenvalues_, rtol=1e-6)
    assert max_angle(approx.embedding_, exact.embedding_) < 1e-6
    np.testing.assert_allclose(approx.transform(X), approx.embedding_, atol=1e-8)
    assert approx.components_.shape[0] == 2 and not hasattr(approx, "dual_coef_")


@pytest.mark.parametrize("make", [lambda **k: graphdr.KernelLPP(supervised=True, **k), graphdr.CKFD])
@pytest.mark.slow
def test_nystroem_embeds_new_samples_consistently(make):
    X, y = load_iris(return_X_y=True)
    est = make(n_components=2, approximation="nystroem", n_landmarks=40, random_state=0).fit(X, y)
    np.testing.assert_allclose(est.transform(X), est.embedding_, atol=1e-8)
    assert est.nystroem_.components_.shape[0] == 40
    with pytest.raises(ValueError, match="precomputed"):
        make(kernel="precomputed", approximation="nystroem").fit(rbf_kernel(X), y)
    with pytest.raises(ValueError, match="approximation"):
        make(approximation="random").fit(X, y)
