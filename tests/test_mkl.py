import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_classes, max_angle
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

import graphdr
from graphdr.blocks import graphs as G
from graphdr.multiview import (
    MKLDR,
    SDPSolverError,
    ViewKernel,
    a_step,
    beta_matrices,
    beta_step,
    kernel_scatter,
    make_multiview_digits,
)


def random_psd(n, rng, rank=None):
    F = rng.normal(size=(n, rank or n))
    return F @ F.T / n


def columns(K, i):
    """K_(i) of eq. 11: the n x M matrix whose column m is K_m[:, i]."""
    return np.column_stack([Km[:, i] for Km in K])


def pairwise_S_A(W, Ks, A):
    """Eqs. 23-24 literally: sum_ij w_ij (K_(i) - K_(j))^T A A^T (K_(i) - K_(j))."""
    n, M = W.shape[0], len(Ks)
    AAt = np.eye(n) if A is None else A @ A.T
    S = np.zeros((M, M))
    for i in range(n):
        for j in range(n):
            D = columns(Ks, i) - columns(Ks, j)
            S += W[i, j] * D.T @ AAt @ D
    return S


def pairwise_S_beta(W, Ks, beta):
    """Eqs. 19-20 literally: sum_ij w_ij (K_(i) - K_(j)) beta beta^T (K_(i) - K_(j))^T."""
    n = W.shape[0]
    S = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d = (columns(Ks, i) - columns(Ks, j)) @ beta
            S += W[i, j] * np.outer(d, d)
    return S


def tiny_graphs(rng, n=9):
    y = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])[:n]
    Wd = rng.random((n, n))
    Wd = (Wd + Wd.T) / 2
    np.fill_diagonal(Wd, 0)
    Wd[Wd < 0.4] = 0
    return [
        (G.within_class_graph(y), G.within_class_graph(y).toarray()),
        (G.total_graph(y), G.total_graph(y).toarray()),
        (sp.csr_matrix(Wd), Wd),
        (Wd, Wd),
    ]


# ----- fast forms versus the paper's pairwise sums --------------------------------------
@pytest.mark.parametrize("with_A", [True, False])
def test_beta_matrices_equal_pairwise_sums(rng, with_A):
    n, M = 9, 3
    Ks = [random_psd(n, rng) for _ in range(M)]
    A = rng.normal(size=(n, 2)) if with_A else None
    for graph, dense in tiny_graphs(rng, n):
        np.testing.assert_allclose(beta_matrices(graph, Ks, A), pairwise_S_A(dense, Ks, A),
                                   rtol=1e-10, atol=1e-12)


def test_kernel_scatter_equals_pairwise_sum_and_identity(rng):
    n, M = 9, 3
    Ks = [random_psd(n, rng) for _ in range(M)]
    beta = rng.random(M)
    A = rng.normal(size=(n, 2))
    for graph, dense in tiny_graphs(rng, n):
        S_beta = kernel_scatter(graph, Ks, beta)
        np.testing.assert_allclose(S_beta, pairwise_S_beta(dense, Ks, beta), rtol=1e-10,
                                   atol=1e-12)
        # beta^T S_W^A beta = tr(A^T S_W^beta A)  (notes, section 5)
        np.testing.assert_allclose(beta @ beta_matrices(graph, Ks, A) @ beta,
                                   np.trace(A.T @ S_beta @ A), rtol=1e-10)


def centred(K):
    n = len(K)
    H = np.eye(n) - 1.0 / n
    return H @ K @ H


@pytest.mark.parametrize("lda", [True, False])
def test_a_step_solves_the_regularised_eq21(rng, lda):
    X, y = make_classes(seed=3)
    n = len(y)
    Ks = [centred(rbf_kernel(X[:, :3], gamma=0.1)), centred(rbf_kernel(X[:, 3:], gamma=0.2))]
    beta = np.array([0.3, 0.7])
    if lda:
        W, Wp = G.within_class_graph(y), G.total_graph(y)
    else:
        W, Wp = (g for g in graphdr.graph_embedding.linear.class_neighbour_graphs(X, y, 4, 6))
    Wd = W.toarray() if hasattr(W, "toarray") else W
    Wpd = Wp.toarray() if hasattr(Wp, "toarray") else Wp
    reg = 1e-2
    lam, A = a_step(Ks, beta, W, Wp, reg=reg, y_encoded=y if lda else None)
    k = 2
    lam, A = lam[:k], A[:, :k]
    Kb = beta[0] * Ks[0] + beta[1] * Ks[1]
    Lp = np.diag(Wpd.sum(1)) - Wpd
    eps = reg * np.trace(Lp @ Kb) / (n - 1)
    num = pairwise_S_beta(Wd, Ks, beta) / 2 + eps * Kb
    den = pairwise_S_beta(Wpd, Ks, beta) / 2 + eps * Kb
    np.testing.assert_allclose(A.T @ den @ A, np.eye(k), atol=1e-7)
    np.testing.assert_allclose(A.T @ num @ A, np.diag(lam), atol=1e-7)
    # and these are the smallest generalized eigenvalues of the dense problem on 1-perp
    Q, _ = np.linalg.qr(np.column_stack([np.ones(n), np.eye(n)[:, : n - 1]]))
    Q = Q[:, 1:]
    from scipy.linalg import eigh

    mu = eigh(Q.T @ num @ Q, Q.T @ den @ Q, eigvals_only=True)
    np.testing.assert_allclose(lam, mu[:k], rtol=1e-6, atol=1e-10)


# ----- the beta-step ------------------------------------------------------------------
def test_beta_step_is_feasible_and_bounds_the_qcqp(rng):
    M = 3
    F = rng.normal(size=(M, M))
    S_W = F @ F.T + 0.1 * np.eye(M)
    F = rng.normal(size=(M, M))
    S_Wp = F @ F.T + 0.5 * np.eye(M)
    beta, B, info = beta_step(S_W, S_Wp)
    assert np.all(beta >= -1e-9) and beta.sum() > 0
    assert np.all(B >= -1e-7)
    np.testing.assert_allclose(np.trace(S_Wp @ B), 1.0, rtol=1e-5)
    Y = np.block([[np.ones((1, 1)), beta[None]], [beta[:, None], B]])
    assert np.linalg.eigvalsh(Y).min() > -1e-6
    # brute force of the nonconvex QCQP on the simplex: SDP value <= optimum <= ratio at beta
    g = np.linspace(0, 1, 201)
    grid = np.array([(a, b, 1 - a - b) for a in g for b in g if a + b <= 1 + 1e-12])
    ratios = np.einsum("ij,jk,ik->i", grid, S_W, grid) / np.einsum("ij,jk,ik->i", grid, S_Wp, grid)
    best = ratios.min()
    assert info["sdp_value"] <= best * (1 + 1e-5)
    assert info["ratio"] >= info["sdp_value"] * (1 - 1e-6)
    np.testing.assert_allclose(info["ratio"], (beta @ S_W @ beta) / (beta @ S_Wp @ beta))
    # the true optimum is reached here up to the grid's resolution
    assert abs(info["ratio"] - best) <= 1e-3 * best


def test_beta_step_prefers_the_informative_kernel():
    # kernel 0 has a small ratio, kernel 1 a large one, no coupling
    beta, _, _ = beta_step(np.diag([0.1, 5.0]), np.eye(2))
    assert beta[1] / beta.sum() < 1e-4


def test_sdp_failure_raises_a_clear_error(monkeypatch):
    import cvxpy as cp

    def broken(self, *args, **kwargs):
        raise cp.error.SolverError("mocked failure")

    monkeypatch.setattr(cp.Problem, "solve", broken)
    with pytest.raises(SDPSolverError, match="could not be solved.*clarabel.*mocked.*scs"):
        beta_step(np.eye(2), np.eye(2))
    X, y = make_classes(seed=1)
    with pytest.raises(SDPSolverError, match="beta-step SDP"):
        MKLDR().fit([X[:, :2], X[:, 2:]], y)


def test_sdp_falls_back_to_scs_and_says_so(monkeypatch):
    import cvxpy as cp

    original = cp.Problem.solve

    def clarabel_breaks(self, *args, solver=None, **kwargs):
        if solver == "CLARABEL":
            raise cp.error.SolverError("mocked Clarabel failure")
        return original(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", clarabel_breaks)
    with pytest.warns(UserWarning, match="solved with scs"):
        beta, B, info = beta_step(np.diag([0.1, 5.0]), np.eye(2))
    assert info["solver"] == "scs" and beta[0] > 0


# ----- the estimator --------------------------------------------------------------------
def test_single_kernel_equals_kernel_lda():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    sigma = 2.0
    mkl = MKLDR(kernels={"kernel": "rbf", "sigma": sigma}, reg=1e-2, max_iter=2).fit([X], y)
    kl = graphdr.KernelLDA(gamma=1 / sigma**2, reg=1e-2).fit(X, y)
    np.testing.assert_allclose(mkl.kernel_weights_, [1.0])
    assert mkl.n_components_ == 2
    assert max_angle(mkl.embedding_, kl.embedding_) < 1e-6
    np.testing.assert_allclose(mkl.eigenvalues_, kl.eigenvalues_, rtol=1e-6)
    assert mkl.objective_ == pytest.approx(np.mean(mkl.eigenvalues_), rel=1e-6)
    Xte = X[::3] + 0.1
    assert max_angle(mkl.transform([Xte]), kl.transform(Xte)) < 1e-6
    # the unregularised version too, through the eigenvalue path
    kl0 = graphdr.KernelLDA(gamma=1 / sigma**2, reg=1e-6, solver="eigh").fit(X, y)
    mkl0 = MKLDR(kernels={"kernel": "rbf", "sigma": sigma}, reg=1e-6, max_iter=1).fit([X], y)
    assert max_angle(mkl0.embedding_, kl0.embedding_) < 1e-5


@pytest.fixture(scope="module")
def digits_views():
    d = make_multiview_digits(views=("pixels", "orientation", "moments", "noise"), n_samples=240,
                              random_state=0)
    return d


def test_noise_view_gets_a_small_weight_and_history(digits_views):
    d = digits_views
    est = MKLDR(kernels=d.kernels, max_iter=4, weight_shrinkage=0.0).fit(d.views, d.target)
    beta = est.kernel_weights_
    assert np.all(beta >= 0) and abs(beta.sum() - 1) < 1e-12
    assert beta[d.view_names.index("noise")] < 0.05
    h = est.history_
    lengths = {len(v) for v in h.values()}
    assert lengths == {est.n_iter_}
    assert np.all(np.isfinite(h["objective"])) and np.all(np.diff(h["time"]) >= 0)
    assert est.objective_ == pytest.approx(min(h["objective"] + h["objective_a_step"]))
    for b in h["kernel_weights"]:
        assert b.shape == (4,) and abs(b.sum() - 1) < 1e-12
    # the embedding separates the classes: 1-NN on training data (leave-one-out) is accurate
    Z = est.embedding_
    D = ((Z[:, None] - Z[None]) ** 2).sum(-1) + np.diag(np.full(len(Z), np.inf))
    assert np.mean(d.target[D.argmin(1)] != d.target) < 0.15


def test_transform_reproduces_training_embedding_and_precomputed(digits_views):
    d = digits_views
    views = d.views[:3]
    est = MKLDR(kernels=d.kernels[:3], max_iter=2, weight_shrinkage=0.0).fit(views, d.target)
    np.testing.assert_allclose(est.transform(views), est.embedding_, atol=1e-9)
    # the same model from precomputed raw kernels
    raw = [vk._raw(V, V) for vk, V in zip(est.view_kernels_, views)]
    pre = MKLDR(kernels="precomputed", max_iter=2, weight_shrinkage=0.0).fit(raw, d.target)
    np.testing.assert_allclose(pre.kernel_weights_, est.kernel_weights_, atol=1e-6)
    assert max_angle(pre.embedding_, est.embedding_) < 1e-5
    np.testing.assert_allclose(pre.transform(raw), pre.embedding_, atol=1e-9)
    new = [V[:7] + 0.01 for V in views]
    raw_new = [vk._raw(V, W) for vk, V, W in zip(est.view_kernels_, new, views)]
    assert max_angle(pre.transform(raw_new), est.transform(new)) < 1e-5


def test_mkl_lde_runs_and_reproduces_embedding(digits_views):
    d = digits_views
    est = MKLDR(graph="lde", n_components=5, kernels=d.kernels, max_iter=2, weight_shrinkage=0.0,
                n_neighbors=4, n_neighbors_between=8).fit(d.views, d.target)
    assert est.embedding_.shape == (240, 5)
    np.testing.assert_allclose(est.transform(d.views), est.embedding_, atol=1e-9)
    assert est.kernel_weights_[3] < 0.05


def test_init_uniform_and_verbose(capsys):
    X, y = make_classes(seed=5)
    est = MKLDR(init="uniform", max_iter=2, verbose=1).fit([X[:, :2], X[:, 2:]], y)
    np.testing.assert_allclose(est.initial_kernel_weights_, [0.5, 0.5])
    out = capsys.readouterr().out
    assert "[MKLDR] iter 1" in out and "beta" in out


def test_clone_params_and_manual_grid_search():
    X, y = make_classes(seed=6)
    views = [X[:, :2], X[:, 2:]]
    est = MKLDR(reg=1e-2, max_iter=2)
    assert est.get_params()["reg"] == 1e-2
    est.set_params(reg=1e-1)
    assert clone(est).get_params() == est.get_params()
    tr, te = np.arange(len(y)) % 3 != 0, np.arange(len(y)) % 3 == 0
    scores = {}
    for reg in (1e-3, 1e-1):
        model = clone(est).set_params(reg=reg).fit([V[tr] for V in views], y[tr])
        knn = KNeighborsClassifier(1).fit(model.embedding_, y[tr])
        scores[reg] = knn.score(model.transform([V[te] for V in views]), y[te])
        assert not hasattr(est, "kernel_weights_")  # fit of a clone leaves est unfitted
    assert all(0 <= s <= 1 for s in scores.values())
    with pytest.raises(Exception, match="not fitted"):
        est.transform(views)


# ----- bad input --------------------------------------------------------------------------
def test_bad_input_errors():
    X, y = make_classes(seed=7)
    est = MKLDR(max_iter=1)
    with pytest.raises(ValueError, match="same number of rows"):
        est.fit([X, X[:-1]], y)
    with pytest.raises(ValueError, match="empty list"):
        est.fit([], y)
    with pytest.raises(ValueError, match="list of views"):
        est.fit(X, y)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="View 1 contains NaN"):
        est.fit([X, bad], y)
    with pytest.raises(ValueError, match="square"):
        MKLDR(kernels="precomputed").fit([rbf_kernel(X)[:, :-1]], y)
    with pytest.raises(ValueError, match="one per view"):
        MKLDR(kernels=["rbf", "rbf", "rbf"]).fit([X, X], y)
    with pytest.raises(ValueError, match="graph must be one of"):
        MKLDR(graph="pca").fit([X], y)
    with pytest.raises(ValueError, match="n_components=5 is too large"):
        MKLDR(n_components=5).fit([X], y)
    with pytest.raises(ValueError, match="labels but the views have"):
        est.fit([X], y[:-1])
    fitted = MKLDR(max_iter=1).fit([X[:, :2], X[:, 2:]], y)
    with pytest.raises(ValueError, match="fitted on 2"):
        fitted.transform([X[:, :2]])
    with pytest.raises(ValueError, match="View 1 has 2 features but MKLDR was fitted with 3"):
        fitted.transform([X[:, :2], X[:, :2]])
    bad = X[:, 2:].copy()
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="View 1 contains NaN or infinite"):
        fitted.transform([X[:, :2], bad])
    K = rbf_kernel(X)
    pre = MKLDR(kernels="precomputed", max_iter=1).fit([K], y)
    with pytest.raises(ValueError, match=f"{len(X)} columns"):
        pre.transform([K[:, :-2]])


def test_lde_graphs_are_the_average_of_per_view_graphs():
    X, y = make_classes(seed=8)
    views = [X[:, :2], X[:, 2:]]
    est = MKLDR(graph="lde", n_neighbors=3, n_neighbors_between=4)
    Ks = [ViewKernel("rbf").fit_kernel(V) for V in views]
    within, between = est._graphs(Ks, y)
    # an RBF kernel distance is monotone in the Euclidean distance: same neighbours
    per_view = [graphdr.graph_embedding.linear.class_neighbour_graphs(V, y, 3, 4,
                                                                      weights="binary")
                for V in views]
    np.testing.assert_allclose(within.toarray(), sum(w.toarray() for w, _ in per_view) / 2)
    np.testing.assert_allclose(between.toarray(), sum(b.toarray() for _, b in per_view) / 2)


def test_weight_shrinkage_pulls_towards_equal_weights_and_auto_picks_by_inner_cv(digits_views):
    d = digits_views
    views, kernels = d.views[:4], d.kernels[:4]
    paper = MKLDR(kernels=kernels, max_iter=2, weight_shrinkage=0.0).fit(views, d.target)
    half = MKLDR(kernels=kernels, max_iter=2, weight_shrinkage=0.5).fit(views, d.target)
    np.testing.assert_allclose(half.learned_kernel_weights_, paper.kernel_weights_, atol=1e-12)
    np.testing.assert_allclose(half.kernel_weights_, 0.5 * paper.kernel_weights_ + 0.5 / 4)
    np.testing.assert_allclose(half.transform(views), half.embedding_, atol=1e-9)
    # t = 1 is kernel LDA on the average of the processed base kernels
    avg = MKLDR(kernels=kernels, max_iter=2, weight_shrinkage=1.0, scaling="total").fit(
        views, d.target)
    K = sum(vk.fit_kernel(V) for vk, V in zip(avg.view_kernels_, views)) / 4
    ref = graphdr.KernelLDA(kernel="precomputed", reg=1e-3, scaling="total").fit(K, d.target)
    assert max_angle(avg.embedding_, ref.embedding_) < 1e-6
    # 'auto': the grid value with the lowest inner-CV error, ties to more shrinkage
    auto = MKLDR(kernels=kernels, max_iter=2, random_state=0).fit(views, d.target)
    errors = auto.shrinkage_cv_errors_
    assert errors.shape == (5,) and np.all((errors >= 0) & (errors <= 1))
    best = np.flatnonzero(errors <= errors.min() + 1e-12)[-1]
    assert auto.weight_shrinkage_ == (0.0, 0.25, 0.5, 0.75, 1.0)[best]
    with pytest.raises(ValueError, match=r"weight_shrinkage must be 'auto' or a number in \[0, 1\]"):
        MKLDR(weight_shrinkage=1.5).fit(views, d.target)


@pytest.mark.slow
def test_auto_widths_and_ridge_come_from_their_tables(digits_views):
    d = digits_views
    kernels = [{"kernel": k, "sigma": "auto"} for k in d.kernels]
    est = MKLDR(kernels=kernels, reg="auto", max_iter=2, weight_shrinkage=0.0,
                random_state=0).fit(d.views, d.target)
    for vk, table in zip(est.view_kernels_, est.kernel_cv_results_):
        best = np.argmin(table["rank_test_error"])
        assert vk.sigma_ == pytest.approx(1.0 / np.sqrt(table["param_gamma"][best]))
        assert table["mean_test_error"][best] == pytest.approx(table["mean_test_error"].min())
    reg_table = est.reg_cv_results_
    assert est.reg_ == reg_table["param_reg"][np.argmin(reg_table["rank_test_error"])]
    # the chosen values given explicitly give the same fit, with no search
    fixed = MKLDR(kernels=[{"kernel": k, "sigma": vk.sigma_}
                           for k, vk in zip(d.kernels, est.view_kernels_)],
                  reg=est.reg_, max_iter=2, weight_shrinkage=0.0).fit(d.views, d.target)
    assert fixed.kernel_cv_results_ is None and fixed.reg_cv_results_ is None
    np.testing.assert_allclose(fixed.kernel_weights_, est.kernel_weights_, atol=1e-8)
    assert max_angle(fixed.embedding_, est.embedding_) < 1e-6
    # a ViewKernel fitted without labels reads 'auto' as paper 001's mean-distance width
    from graphdr.multiview import ViewKernel
    a = ViewKernel(sigma="auto").fit_kernel(d.views[0])
    np.testing.assert_allclose(a, ViewKernel().fit_kernel(d.views[0]))


@pytest.mark.parametrize("params, match", [
    (dict(reg="best"), r"reg must be 'auto' or a number >= 0"),
    (dict(kernels={"kernel": "rbf", "sigma": "median"}), r"sigma must be 'auto', None or a "),
])
def test_bad_auto_values_of_mkldr(digits_views, params, match):
    with pytest.raises(ValueError, match=match):
        MKLDR(max_iter=1, weight_shrinkage=0.0, **params).fit(digits_views.views,
                                                             digits_views.target)
