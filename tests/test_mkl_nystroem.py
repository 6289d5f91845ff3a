"""MKL-DR with Nystroem base kernels: exact with every sample as landmark, consistent transform,
robust weights with few landmarks, no n x n allocation, clear errors."""

import tracemalloc

import numpy as np
import pytest
from conftest import make_classes
from scipy.linalg import subspace_angles

from graphdr.blocks import graphs as G
from graphdr.graph_embedding.linear import class_neighbour_graphs
from graphdr.multiview import (
    MKLDR,
    ViewKernel,
    _LandmarkProblem,
    a_step,
    beta_matrices,
    make_multiview_digits,
)

# Kernel weights: both fits solve the same M x M beta-step SDP, whose matrices agree to about
# 1e-12 relative (measured); Clarabel stops at relative gap and feasibility 1e-8, so its beta
# may land anywhere in a ~1e-8 neighbourhood of the optimum and the next A-step carries that
# on. Measured differences: 2.5e-9 (MKL-LDA), 3.3e-8 (MKL-LDE), 4 iterations, n = 240.
# 1e-6 leaves a margin of 30 over the worst measured case and is far below any meaningful
# change of a weight (the noise view's weight is ~2e-4).
BETA_ATOL = 1e-6


def max_angle(U, V):
    return float(np.max(subspace_angles(U, V)))


@pytest.fixture(scope="module")
def digits():
    return make_multiview_digits(views=("pixels", "orientation", "moments", "noise"),
                                 n_samples=240, random_state=0)


# ----- the D-dimensional algebra against the n x n one ---------------------------------------
@pytest.fixture(scope="module")
def tiny():
    X, y = make_classes(seed=2)
    n = len(y)
    idx = np.random.default_rng(0).permutation(n)[:20]
    Phis = [ViewKernel("rbf").fit_features(X[:, :2], idx),
            ViewKernel("rbf", sigma=3.0).fit_features(X[:, 2:], idx)]
    Ks = [P @ P.T for P in Phis]  # the kernels the landmark features represent
    return X, y, Phis, Ks


@pytest.mark.parametrize("graph", ["lda", "lde"])
def test_landmark_beta_matrices_equal_the_dense_ones(tiny, graph):
    X, y, Phis, Ks = tiny
    W, Wp = ((G.within_class_graph(y), G.total_graph(y)) if graph == "lda"
             else class_neighbour_graphs(X, y, 3, 5, weights="binary"))
    prob = _LandmarkProblem(Phis, W, Wp, y if graph == "lda" else None)
    A = np.random.default_rng(1).normal(size=(len(y), 2))
    PtA = np.vstack([P.T @ A for P in Phis])
    for arg, dense_A in ((None, None), (PtA, A)):
        S, Sp, k = prob.beta_matrices(arg)
        np.testing.assert_allclose(S, beta_matrices(W, Ks, dense_A), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(Sp, beta_matrices(Wp, Ks, dense_A), rtol=1e-9, atol=1e-12)
        ref_k = [np.trace(K) if dense_A is None else np.vdot(A, K @ A) for K in Ks]
        np.testing.assert_allclose(k, ref_k, rtol=1e-10)
    # tr(L' K_m) of the ridge
    np.testing.assert_allclose(
        prob.trace_penalty,
        [np.trace(G.laplacian(Wp if graph == "lde" else Wp.toarray()) @ K) for K in Ks],
        rtol=1e-10)


@pytest.mark.parametrize("path", ["cholesky", "eigh"])
def test_landmark_a_step_equals_the_dense_a_step(tiny, path):
    X, y, Phis, Ks = tiny
    W, Wp = G.within_class_graph(y), G.total_graph(y)
    prob = _LandmarkProblem(Phis, W, Wp, y)
    beta = np.array([0.3, 0.7])
    lda = path == "cholesky"
    mu, PtA = prob.a_step(beta, 1e-2, class_path=lda)
    mu_d, A = a_step(Ks, beta, W, Wp, reg=1e-2, y_encoded=y if lda else None)
    k = 2  # n_classes - 1 non-trivial directions
    np.testing.assert_allclose(mu[:k], mu_d[:k], rtol=1e-8)
    # the same dual coefficients (up to sign), seen through every view: Phi_m^T A
    ref = np.vstack([P.T @ A[:, :k] for P in Phis])
    got = PtA[:, :k]
    signs = np.sign(np.sum(got * ref, axis=0))
    np.testing.assert_allclose(got * signs, ref, rtol=1e-6, atol=1e-8 * np.abs(ref).max())


# ----- the estimator ------------------------------------------------------------------------
@pytest.mark.parametrize("graph, n_landmarks",
                         [("lda", 240), pytest.param("lde", 500, marks=pytest.mark.slow)])
def test_all_samples_as_landmarks_reproduce_the_exact_fit(digits, graph, n_landmarks):
    d = digits
    kw = dict(kernels=d.kernels, max_iter=3, weight_shrinkage=0.0)
    if graph == "lde":
        kw.update(graph="lde", n_components=5, n_neighbors=4, n_neighbors_between=8)
    exact = MKLDR(**kw).fit(d.views, d.target)
    approx = MKLDR(approximation="nystroem", n_landmarks=n_landmarks, random_state=0,
                   **kw).fit(d.views, d.target)
    assert len(approx.landmark_indices_) == 240  # n_landmarks is capped at n_samples
    assert approx.n_iter_ == exact.n_iter_
    np.testing.assert_allclose(approx.kernel_weights_, exact.kernel_weights_, atol=BETA_ATOL)
    assert max_angle(approx.embedding_, exact.embedding_) < 1e-6
    np.testing.assert_allclose(approx.eigenvalues_, exact.eigenvalues_, rtol=1e-5)
    assert approx.objective_ == pytest.approx(exact.objective_, rel=1e-5)
    new = [V[:15] + 0.02 for V in d.views]
    assert max_angle(approx.transform(new), exact.transform(new)) < 1e-6


def test_repaired_indefinite_view_is_reproduced(digits):
    # a Manhattan-distance Gaussian is indefinite: the exact path clips K, Nystroem K_mm
    d = digits
    kernels = [{"kernel": "distance", "metric": "cityblock"}, "chi2"]
    views = d.views[:2]
    exact = MKLDR(kernels=kernels, max_iter=2, weight_shrinkage=0.0).fit(views, d.target)
    assert exact.view_kernels_[0].psd_basis_ is not None
    approx = MKLDR(kernels=kernels, max_iter=2, weight_shrinkage=0.0, approximation="nystroem",
                   n_landmarks=240,
                   random_state=1).fit(views, d.target)
    np.testing.assert_allclose(approx.kernel_weights_, exact.kernel_weights_, atol=BETA_ATOL)
    assert max_angle(approx.embedding_, exact.embedding_) < 1e-6


@pytest.mark.parametrize("graph", ["lda", "lde"])
def test_few_landmarks_transform_and_noise_weight(digits, graph):
    d = digits
    kw = dict(n_components=5, n_neighbors=4, n_neighbors_between=8) if graph == "lde" else {}
    est = MKLDR(graph=graph, kernels=d.kernels, max_iter=3, approximation="nystroem",
                n_landmarks=60, random_state=0, weight_shrinkage=0.0, **kw).fit(d.views, d.target)
    M = len(d.views)
    assert not hasattr(est, "dual_coef_")
    assert est.components_.shape == (est.n_components_,
                                     est.landmark_feature_slices_[-1].stop)
    assert est.components_.shape[1] <= M * 60
    # transform of the training views is the training embedding
    np.testing.assert_allclose(est.transform(d.views), est.embedding_, rtol=1e-10, atol=1e-12)
    beta = est.kernel_weights_
    assert np.all(beta >= 0) and abs(beta.sum() - 1) < 1e-12
    assert beta[d.view_names.index("noise")] < 0.05
    assert est.objective_ == pytest.approx(
        min(est.history_["objective"] + est.history_["objective_a_step"]))


@pytest.mark.slow
def test_landmarks_follow_random_state(digits):
    d = digits
    kw = dict(kernels=d.kernels, max_iter=1, approximation="nystroem", n_landmarks=50)
    a = MKLDR(random_state=3, **kw).fit(d.views, d.target)
    b = MKLDR(random_state=3, **kw).fit(d.views, d.target)
    c = MKLDR(random_state=4, **kw).fit(d.views, d.target)
    np.testing.assert_array_equal(a.landmark_indices_, b.landmark_indices_)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    assert set(a.landmark_indices_) != set(c.landmark_indices_)


def test_refit_switches_between_paths(digits):
    d = digits
    est = MKLDR(kernels=d.kernels, max_iter=1, approximation="nystroem", n_landmarks=40,
                random_state=0).fit(d.views, d.target)
    est.set_params(approximation=None).fit(d.views, d.target)
    assert not hasattr(est, "components_") and hasattr(est, "dual_coef_")
    np.testing.assert_allclose(est.transform(d.views), est.embedding_, atol=1e-9)


@pytest.mark.parametrize("graph", ["lda", pytest.param("lde", marks=pytest.mark.slow)])
@pytest.mark.slow
def test_no_n_by_n_allocation(graph):
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.integers(0, 4, n)
    views = [rng.normal(size=(n, 5)) + y[:, None] * s for s in (1.0, 0.5, 0.0)]
    kw = dict(graph=graph, n_components=3, approximation="nystroem", n_landmarks=20,
              random_state=0, max_iter=2)
    MKLDR(**kw).fit([V[:200] for V in views], y[:200])  # imports and solver set-up
    tracemalloc.start()
    try:
        est = MKLDR(**kw).fit(views, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # one n x n float64 matrix is 128 MB; measured peaks: 4.2 MB (LDA), 11 MB (LDE: neighbour
    # search in chunks, a few n x D copies)
    assert peak < 8 * n * n / 4, f"peak {peak / 1e6:.1f} MB"
    assert est.embedding_.shape == (n, 3)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(approximation="landmarks"), "approximation must be one of"),
        (dict(approximation="nystroem", n_landmarks=1), "n_landmarks must be an integer >= 2"),
        (dict(approximation="nystroem", n_landmarks=50.0), "n_landmarks must be an integer"),
        (dict(approximation="nystroem", kernels=["rbf", "precomputed"]),
         "view 1 has kernel='precomputed'"),
    ],
)
def test_bad_approximation_parameters(params, match):
    X, y = make_classes(seed=4)
    with pytest.raises(ValueError, match=match):
        MKLDR(max_iter=1, **params).fit([X[:, :2], X[:, 2:]], y)


def test_precomputed_kernels_with_nystroem_are_refused():
    X, y = make_classes(seed=4)
    K = X @ X.T
    with pytest.raises(ValueError, match="needs the kernel function of every view"):
        MKLDR(kernels="precomputed", approximation="nystroem").fit([K, K], y)


def test_verbose_reports_the_landmarks(digits, capsys):
    d = digits
    MKLDR(kernels=d.kernels, max_iter=1, approximation="nystroem", n_landmarks=40,
          random_state=0, verbose=1).fit(d.views, d.target)
    out = capsys.readouterr().out
    assert "[MKLDR] Nystroem: 40 landmarks" in out and "[MKLDR] iter 1" in out
