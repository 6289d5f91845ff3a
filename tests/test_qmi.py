"""Tests of graphdr.qmi: the QMI graph, the potentials, LQMI/KQMI and QMIProjection."""

import warnings

import numpy as np
import pytest
from scipy.linalg import eigh, subspace_angles
from sklearn.datasets import load_iris, load_wine, make_blobs
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import KernelCenterer, StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr.blocks.kernel_matrices import compute_kernel
from graphdr.graph_embedding.linear import LDA
from graphdr.qmi import (
    KQMI,
    LQMI,
    QMIProjection,
    _potentials_sorted,
    _qmi_objective_and_grad_W,
    qmi_graph,
    qmi_potential_blocks,
    qmi_potentials,
)

ANGLE_TOL = 1e-6


def _max_angle(A, B):
    return float(np.max(subspace_angles(np.asarray(A, float), np.asarray(B, float))))


def _unbalanced(seed=0, n_per=(9, 5, 12), D=4):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(loc=2.0 * c, size=(m, D)) for c, m in enumerate(n_per)])
    y = np.repeat(np.arange(len(n_per)), n_per)
    perm = rng.permutation(len(y))
    return X[perm], y[perm]


def _dense_paper_M(y):
    """Paper 000 eq. 19, built literally with n x n matrices, then symmetrised."""
    y = np.asarray(y)
    n = len(y)
    classes = np.unique(y)
    J = np.array([np.sum(y == c) for c in classes])
    C_all = np.sum(J.astype(float) ** 2) / n**4  # (1/n^2) sum (J_c/n)^2
    C_in = 1.0 / n**2
    ones = np.ones((n, 1))
    M = C_all * ones @ ones.T
    btw = np.zeros((n, 1))
    for c, Jc in zip(classes, J):
        one_c = (y == c).astype(float)[:, None]
        M += C_in * one_c @ one_c.T
        btw += (Jc / n**3) * one_c
    M -= 2.0 * ones @ btw.T
    return (M + M.T) / 2.0


# ----- the QMI graph -------------------------------------------------------------------------
def test_qmi_graph_equals_dense_paper_matrix():
    _, y = _unbalanced()
    G = qmi_graph(y)
    M = _dense_paper_M(y)
    E = G.indicator().toarray()
    np.testing.assert_allclose(G.toarray(), M, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(E @ G.block @ E.T, M, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(M.sum(axis=1), 0.0, atol=1e-15)
    assert np.linalg.matrix_rank(M, tol=1e-10 * np.abs(M).max()) == 3 - 1
    # positive semi-definite: x^T M x = n^-2 sum_c (u_c - p_c U)^2 with class sums u_c
    x = np.random.default_rng(0).normal(size=len(y))
    u = np.bincount(y, weights=x)
    p = np.bincount(y) / len(y)
    np.testing.assert_allclose(x @ M @ x, np.sum((u - p * x.sum()) ** 2) / len(y) ** 2)
    assert np.linalg.eigvalsh(M).min() > -1e-14
    # the potential blocks combine to M: Omega_IN + Omega_ALL - 2 Omega_BTW
    b = qmi_potential_blocks(np.bincount(y))
    np.testing.assert_allclose(b["V_IN"] + b["V_ALL"] - 2 * b["V_BTW"], G.block)


# ----- potentials ------------------------------------------------------------------------------
def _brute_potentials(Y, y, sigma):
    """Paper 002 eqs. 11-13 as triple loops, G = Gaussian density of covariance 2 sigma^2 I."""
    Y = np.asarray(Y, float)
    n, d = Y.shape
    classes = list(np.unique(y))
    J = {c: int(np.sum(y == c)) for c in classes}

    def G(u):
        return (4 * np.pi * sigma**2) ** (-d / 2) * np.exp(-np.dot(u, u) / (4 * sigma**2))

    v_in = sum(
        G(Y[k] - Y[l]) for c in classes for k in range(n) for l in range(n)
        if y[k] == c and y[l] == c
    ) / n**2
    s = sum((J[c] / n) ** 2 for c in classes)
    v_all = s * sum(G(Y[k] - Y[l]) for k in range(n) for l in range(n)) / n**2
    v_btw = sum(
        (J[c] / n) * G(Y[j] - Y[k]) for c in classes for j in range(n) if y[j] == c
        for k in range(n)
    ) / n**2
    return {
        "V_IN": v_in, "V_ALL": v_all, "V_BTW": v_btw, "I_T": v_in + v_all - 2 * v_btw,
        "MI_A": v_in / v_all, "MI_B": v_in / v_btw,
    }


@pytest.mark.parametrize("block_size", [None, 1, 4])
@pytest.mark.parametrize("d", [1, 2])
def test_qmi_potentials_match_triple_loop(block_size, d):
    X, y = _unbalanced(seed=1)
    Y = X[:, :d] * 0.7
    labels = np.array(["a", "b", "c"])[y]  # labels of any type
    got = qmi_potentials(Y, labels, sigma=0.8, block_size=block_size)
    ref = _brute_potentials(Y, y, 0.8)
    assert set(got) == {"V_IN", "V_ALL", "V_BTW", "I_T", "MI_A", "MI_B"}
    for key, value in ref.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-10, err_msg=key)


def test_mi_a_equals_mi_b_for_balanced_classes():
    X, y = make_blobs(n_samples=60, centers=3, n_features=3, random_state=0)
    assert np.all(np.bincount(y) == 20)
    p = qmi_potentials(X[:, :2], y, sigma=1.3)
    np.testing.assert_allclose(p["V_ALL"], p["V_BTW"], rtol=1e-12)
    np.testing.assert_allclose(p["MI_A"], p["MI_B"], rtol=1e-12)
    Xu, yu = _unbalanced()
    pu = qmi_potentials(Xu[:, :2], yu, sigma=1.3)
    assert not np.isclose(pu["MI_A"], pu["MI_B"], rtol=1e-6)


def test_large_sigma_tends_to_linear_qmi():
    # exp(-u/4s^2) ~ 1 - u/4s^2 and sum_kl M_kl = 0, sum_kl M_kl |y_k - y_l|^2 = -2 tr(Y^T M Y):
    # I_T / const -> tr(Y^T M Y) / (2 sigma^2)
    X, y = _unbalanced(seed=3)
    Y = X[:, :2]
    M = qmi_graph(y).toarray()
    sigma = 1e3
    const = (4 * np.pi * sigma**2) ** (-1)
    p = qmi_potentials(Y, y, sigma)
    expected = np.trace(Y.T @ M @ Y) / (2 * sigma**2)
    np.testing.assert_allclose(p["I_T"] / const, expected, rtol=1e-4)


# ----- gradients ---------------------------------------------------------------------------------
def _sorted_problem(seed=2):
    X, y = _unbalanced(seed=seed, n_per=(5, 3, 6), D=4)
    order = np.argsort(y, kind="stable")
    Xs, ys = X[order], y[order]
    sizes = np.bincount(ys)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    W = np.linalg.qr(np.random.default_rng(seed).normal(size=(4, 2)))[0]
    return Xs, ys, sizes, bounds, W


def _fd_gradient(f, W, h=1e-5):
    g = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        E = np.zeros_like(W)
        E[idx] = h
        g[idx] = (f(W + E) - f(W - E)) / (2 * h)
    return g


@pytest.mark.parametrize("potential", ["V_IN", "V_ALL", "V_BTW"])
def test_potential_gradients_match_finite_differences(potential):
    Xs, ys, sizes, bounds, W = _sorted_problem()
    blocks = {potential: qmi_potential_blocks(sizes)[potential]}
    sigma = 0.9

    def value(W):
        return _potentials_sorted(Xs @ W, bounds, ys, blocks, sigma, grad=False, block_size=4)[0][
            potential
        ]

    _, gY = _potentials_sorted(Xs @ W, bounds, ys, blocks, sigma, block_size=4)
    g = Xs.T @ gY[potential]
    g_fd = _fd_gradient(value, W)
    assert np.linalg.norm(g - g_fd) / np.linalg.norm(g) < 1e-6


@pytest.mark.parametrize("criterion", ["qmi", "mi_a", "mi_b"])
def test_criterion_gradients_match_finite_differences(criterion):
    Xs, ys, sizes, bounds, W = _sorted_problem(seed=4)
    blocks = qmi_potential_blocks(sizes)
    sigma = 0.7

    def value(W):
        return _qmi_objective_and_grad_W(
            W, Xs, bounds, ys, blocks, sigma, criterion, grad=False, block_size=5
        )[0]

    f, g = _qmi_objective_and_grad_W(W, Xs, bounds, ys, blocks, sigma, criterion, block_size=5)
    key = {"qmi": "I_T", "mi_a": "MI_A", "mi_b": "MI_B"}[criterion]
    # the objective is the documented potential-based criterion
    np.testing.assert_allclose(f, qmi_potentials(Xs @ W, ys, sigma)[key], rtol=1e-10)
    g_fd = _fd_gradient(value, W)
    assert np.linalg.norm(g - g_fd) / np.linalg.norm(g) < 1e-6


# ----- LQMI -------------------------------------------------------------------------------------
def _sklearn_lda_basis(X, y, k):
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    return lda.scalings_[:, :k]


def test_lqmi_spans_lda_subspace_unbalanced():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    assert len(set(np.bincount(y))) > 1  # unbalanced
    lq = LQMI(reg=0.0, scaling="total").fit(X, y)
    assert lq.n_components_ == 2
    assert _max_angle(lq.components_.T, LDA(reg=0.0).fit(X, y).components_.T) < ANGLE_TOL
    assert _max_angle(lq.components_.T, _sklearn_lda_basis(X, y, 2)) < ANGLE_TOL
    assert np.all(np.diff(lq.eigenvalues_) <= 0)
    # the eigenvalues are the QMI quotients v^T X^T M X v / v^T X^T X v
    Xc = X - X.mean(0)
    M = qmi_graph(y).toarray()
    v = lq.components_.T
    quot = np.diag(v.T @ Xc.T @ M @ Xc @ v) / np.diag(v.T @ Xc.T @ Xc @ v)
    np.testing.assert_allclose(quot, lq.eigenvalues_, rtol=1e-8)


def test_lqmi_matches_dense_generalized_eigenproblem():
    X, y = _unbalanced(seed=5, n_per=(8, 14, 6, 10), D=5)
    Xc = X - X.mean(0)
    M = _dense_paper_M(y)
    gam, V = eigh(Xc.T @ M @ Xc, Xc.T @ Xc)
    lq = LQMI(reg=0.0).fit(X, y)
    np.testing.assert_allclose(lq.eigenvalues_, gam[::-1][:3], rtol=1e-8)
    for k in (1, 2, 3):
        est = LQMI(reg=0.0, n_components=k).fit(X, y)
        assert _max_angle(est.components_.T, V[:, ::-1][:, :k]) < ANGLE_TOL


def test_lqmi_equals_lda_for_balanced_classes_at_every_dimension():
    X, y = make_blobs(n_samples=100, centers=5, n_features=7, cluster_std=2.0, random_state=3)
    assert np.all(np.bincount(y) == 20)
    for k in range(1, 5):
        lq = LQMI(reg=0.0, n_components=k).fit(X, y)
        assert _max_angle(lq.components_.T, LDA(reg=0.0, n_components=k).fit(X, y).components_.T) < ANGLE_TOL
        assert _max_angle(lq.components_.T, _sklearn_lda_basis(X, y, k)) < ANGLE_TOL


def test_lqmi_no_nan_on_degenerate_data():
    X, y = _unbalanced(seed=6, n_per=(3, 4, 3), D=15)  # n < D
    X[:, 3] = 1.0  # a constant feature
    X = np.vstack([X, X[:2]])  # duplicate rows
    y = np.concatenate([y, y[:2]])
    Z = LQMI(reg=0.0).fit_transform(X, y)
    assert Z.shape == (12, 2) and np.all(np.isfinite(Z))


# ----- KQMI -------------------------------------------------------------------------------------
def test_kqmi_linear_kernel_matches_lqmi_in_sample():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    lq = LQMI(reg=0.0).fit(X, y)
    kq = KQMI(kernel="linear", reg=1e-12, solver="eigh").fit(X, y)
    assert _max_angle(kq.embedding_, lq.transform(X)) < ANGLE_TOL
    assert _max_angle(kq.transform(X), lq.transform(X)) < ANGLE_TOL
    # balanced: every n_components
    Xb, yb = make_blobs(n_samples=60, centers=4, n_features=5, random_state=1)
    for k in (1, 2, 3):
        a = KQMI(n_components=k, kernel="linear", reg=1e-12, solver="eigh").fit(Xb, yb).embedding_
        b = LQMI(reg=0.0, n_components=k).fit(Xb, yb).transform(Xb)
        assert _max_angle(a, b) < ANGLE_TOL


def _tiny_kernel_problem():
    X, y = _unbalanced(seed=7, n_per=(12, 8, 15), D=3)
    return StandardScaler().fit_transform(X), y


def test_kqmi_paper_solver_is_algorithm_1_as_printed():
    X, y = _tiny_kernel_problem()
    est = KQMI(kernel="rbf", gamma=0.5, solver="paper").fit(X, y)
    # Algorithm 1, literally: centred K = P L P^T, eigenvectors B of P^T M P, A = P L^-1 B.
    Kc = KernelCenterer().fit_transform(compute_kernel(X, kernel="rbf", gamma=0.5))
    L, P = np.linalg.eigh(Kc)
    keep = L > 1e-10 * L.max()
    L, P = L[keep], P[:, keep]
    H, B = np.linalg.eigh(P.T @ _dense_paper_M(y) @ P)
    A = P @ (B[:, ::-1][:, :2] / L[:, None])
    np.testing.assert_allclose(est.eigenvalues_, H[::-1][:2], rtol=1e-8)
    assert _max_angle(est.dual_coef_, A) < 1e-6
    assert _max_angle(est.embedding_, Kc @ A) < 1e-6


@pytest.mark.parametrize("solver", ["eigh", "cholesky", "auto"])
def test_kqmi_regularized_matches_eigenbasis_formula(solver):
    # notes section 3: r = sqrt(L^2 + eps L), S = L / r, top eigenvectors c of S P^T M P S,
    # A = P (c / r), eps = reg * mean eigenvalue of the centred kernel (over n - 1 dimensions).
    X, y = _tiny_kernel_problem()
    reg = 1e-2
    est = KQMI(kernel="rbf", gamma=0.3, reg=reg, solver=solver, scaling="total").fit(X, y)
    Kc = KernelCenterer().fit_transform(compute_kernel(X, kernel="rbf", gamma=0.3))
    eps = reg * np.trace(Kc) / (len(X) - 1)
    L, P = np.linalg.eigh(Kc)
    keep = L > len(L) * np.finfo(float).eps * L.max()
    L, P = L[keep], P[:, keep]
    r = np.sqrt(L**2 + eps * L)
    S = L / r
    _, c = np.linalg.eigh(S[:, None] * (P.T @ _dense_paper_M(y) @ P) * S[None, :])
    A = P @ (c[:, ::-1][:, :2] / r[:, None])
    # dual coefficients matter up to the constant vector (the null space of the centred kernel)
    dual = est.dual_coef_ - est.dual_coef_.mean(axis=0)
    assert _max_angle(dual, A) < 1e-6
    # eigenvalues: the QMI ratio a^T K M K a / a^T (K K + eps K) a of each component, decreasing
    M = _dense_paper_M(y)
    a = dual
    ratio = np.diag(a.T @ Kc @ M @ Kc @ a) / np.diag(a.T @ (Kc @ Kc + eps * Kc) @ a)
    np.testing.assert_allclose(est.eigenvalues_, ratio, rtol=1e-6)
    Xnew = X[:5] + 0.1
    Knew = KernelCenterer().fit(compute_kernel(X, kernel="rbf", gamma=0.3)).transform(
        compute_kernel(Xnew, X, kernel="rbf", gamma=0.3)
    )
    assert _max_angle(est.transform(Xnew), Knew @ A) < 1e-6


def test_kqmi_paper_and_regularized_agree_as_reg_goes_to_zero():
    # a well-conditioned problem: a degree-2 polynomial kernel on 3 features has rank 9 << n
    X, y = _tiny_kernel_problem()
    kw = dict(kernel="poly", degree=2, gamma=0.5, coef0=1.0)
    paper = KQMI(solver="paper", **kw).fit(X, y)
    angles = []
    for reg in (1e-2, 1e-5, 1e-8, 1e-11):
        default = KQMI(reg=reg, solver="eigh", **kw).fit(X, y)
        angles.append(_max_angle(default.embedding_, paper.embedding_))
    assert angles[-1] < 1e-6
    assert angles[0] > angles[-1]
    # the Cholesky path (needs reg > 0) approaches it too
    chol = [_max_angle(KQMI(reg=r, solver="cholesky", **kw).fit(X, y).embedding_,
                       paper.embedding_) for r in (1e-2, 1e-7)]
    assert chol[1] < 1e-4 and chol[1] < chol[0]


# ----- QMIProjection ----------------------------------------------------------------------------
@pytest.mark.parametrize("criterion", ["qmi", "mi_a", "mi_b"])
@pytest.mark.parametrize("init", ["lda", "random", "pca"])
@pytest.mark.parametrize("metric", ["euclidean", "within"])
def test_qmi_projection_history_non_decreasing(criterion, init, metric):
    X, y = load_iris(return_X_y=True)
    est = QMIProjection(
        n_components=2, criterion=criterion, init=init, random_state=0, max_iter=200,
        metric=metric, sigma_factors=(1.0,), cv=None,
    ).fit(X, y)
    h = est.history_
    assert set(h) >= {"objective", "time", "step", "sigma", "level"}
    lengths = {len(v) for v in h.values()}
    assert lengths == {est.n_iter_}
    obj = np.array(h["objective"])
    assert np.all(np.diff(obj) >= 0)
    assert obj[0] >= est.init_objective_ and est.objective_ == obj[-1]
    assert np.all(np.diff(h["time"]) >= 0)
    W = est.components_.T
    if metric == "euclidean":
        np.testing.assert_allclose(W.T @ W, np.eye(2), atol=1e-10)
    # the recorded objective is the criterion of the final projection
    key = {"qmi": "I_T", "mi_a": "MI_A", "mi_b": "MI_B"}[criterion]
    np.testing.assert_allclose(
        qmi_potentials(est.transform(X), y, est.sigma_)[key], est.objective_, rtol=1e-9
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_qmi_projection_lda_init_and_completion():
    X, y = load_iris(return_X_y=True)
    kw = dict(metric="euclidean", cv=None)
    est = QMIProjection(n_components=3, max_iter=0, **kw).fit(X, y)
    W = est.components_.T
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-10)
    # the first two directions span the LDA subspace
    lda = LDA(reg=0.0).fit(X, y).components_.T
    assert _max_angle(W[:, :2], lda) < 1e-8
    # in the within-class metric without shrinkage the start spans the same LDA subspace
    Ww = QMIProjection(n_components=3, max_iter=0, cv=None, shrinkage=0.0).fit(X, y)
    assert _max_angle(Ww.components_.T[:, :2], lda) < 1e-8
    # n_components beyond C-1 also optimises
    est = QMIProjection(n_components=3, criterion="mi_a", max_iter=30, **kw).fit(X, y)
    assert est.objective_ >= est.init_objective_


def test_qmi_projection_fixed_sigma_annealing_verbose_callback(capsys):
    X, y = load_iris(return_X_y=True)
    seen = []

    def cb(it, W, f):
        seen.append(f)
        return it >= 3

    est = QMIProjection(
        n_components=1, sigma=0.5, anneal=4.0, max_iter=40, verbose=1, callback=cb,
        criterion="mi_b", sigma_factors=(1.0,), cv=None,
    ).fit(X, y)
    assert est.sigma_ == 0.5 and est.n_iter_ == 3 and len(seen) == 3
    assert est.history_["sigma"][0] > 0.5  # annealing starts wider
    out = capsys.readouterr().out
    assert "objective" in out and "iter" in out


def test_qmi_projection_max_iter_warns():
    X, y = load_iris(return_X_y=True)
    with pytest.warns(ConvergenceWarning):
        QMIProjection(init="random", random_state=0, max_iter=1, tol=0.0, cv=None).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_qmi_projection_deterministic():
    X, y = load_iris(return_X_y=True)
    a = QMIProjection(init="random", random_state=3, max_iter=10).fit(X, y)
    b = QMIProjection(init="random", random_state=3, max_iter=10).fit(X, y)
    np.testing.assert_array_equal(a.components_, b.components_)


# ----- bad input ---------------------------------------------------------------------------------
def test_bad_sigma():
    X, y = load_iris(return_X_y=True)
    for sigma in (0.0, -1.0):
        with pytest.raises(ValueError, match="sigma must be > 0"):
            qmi_potentials(X, y, sigma)
        with pytest.raises(ValueError, match="sigma must be > 0"):
            QMIProjection(sigma=sigma).fit(X, y)


def test_n_components_too_large():
    X, y = load_iris(return_X_y=True)
    for est in (LQMI(n_components=3), KQMI(n_components=3)):
        with pytest.raises(ValueError, match="at most 2 components.*n_classes - 1"):
            est.fit(X, y)
    with pytest.raises(ValueError, match="at most 4 components"):
        QMIProjection(n_components=5).fit(X, y)


def test_single_class():
    X, _ = load_iris(return_X_y=True)
    y = np.zeros(len(X), dtype=int)
    for est in (LQMI(), KQMI(), QMIProjection()):
        with pytest.raises(ValueError, match="at least 2 classes"):
            est.fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        qmi_potentials(X, y, 1.0)


def test_bad_options():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="solver must be one of"):
        KQMI(solver="fast").fit(X, y)
    with pytest.raises(ValueError, match="needs a kernel"):
        KQMI(kernel=None).fit(X, y)
    with pytest.raises(ValueError, match="criterion must be one of"):
        QMIProjection(criterion="mi").fit(X, y)
    with pytest.raises(ValueError, match="init must be one of"):
        QMIProjection(init="ica").fit(X, y)
    with pytest.raises(ValueError, match="anneal must be >= 1"):
        QMIProjection(anneal=0.5).fit(X, y)
    with pytest.raises(ValueError, match="same number of samples"):
        qmi_potentials(X, y[:-1], 1.0)


# ----- scikit-learn contract ---------------------------------------------------------------------
@parametrize_with_checks(
    [LQMI(), KQMI(), QMIProjection(max_iter=5)],
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_potentials_and_gradient_memory_is_blockwise():
    import tracemalloc

    rng = np.random.default_rng(0)
    n, d = 4000, 2
    y = rng.integers(0, 4, n)
    Y = rng.normal(size=(n, d)) + y[:, None]
    tracemalloc.start()
    qmi_potentials(Y, y, 0.5)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # an n x n float64 array would be 128 MB; the row blocks hold about 2e6 entries (16 MB)
    assert peak < 35e6, f"peak {peak / 1e6:.1f} MB"
    order = np.argsort(y, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(y))])
    X = np.hstack([Y, rng.normal(size=(n, 3))])[order]
    W = np.linalg.qr(rng.normal(size=(5, d)))[0]
    tracemalloc.start()
    _qmi_objective_and_grad_W(W, X, bounds, y[order], qmi_potential_blocks(np.bincount(y)), 0.5,
                              "mi_a")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 35e6, f"peak {peak / 1e6:.1f} MB"
