"""The ``scaling`` parameter: the metric inside the learned subspace (issue 11, item 1)."""

import numpy as np
import pytest
from conftest import make_classes, max_angle
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.preprocessing import StandardScaler

import graphdr


def _within_covariance(Y, y):
    """Pooled within-class covariance sum_c sum_{i in c} (y_i - mu_c)(y_i - mu_c)^T / (n - C)."""
    classes = np.unique(y)
    S = sum((Y[y == c] - Y[y == c].mean(0)).T @ (Y[y == c] - Y[y == c].mean(0)) for c in classes)
    return S / (len(Y) - len(classes))


@pytest.mark.parametrize("load", [load_iris, load_wine, load_digits])
def test_within_scaling_is_scikit_learns_transform(load):
    X, y = load(return_X_y=True)
    ours = graphdr.LDA(reg=0.0).fit_transform(X, y)  # scaling='within' is the default
    ref = LinearDiscriminantAnalysis(solver="svd").fit(X, y).transform(X)
    k = ours.shape[1]
    ref = ref[:, :k]
    # equal up to the sign of each component and one common factor
    signs = np.sign(np.sum(ours * ref, axis=0))
    factor = np.linalg.norm(ours) / np.linalg.norm(ref)
    np.testing.assert_allclose(ours, factor * ref * signs, atol=1e-4 * np.abs(ref).max() * factor)
    # scikit-learn divides the within-class scatter by a slightly different count than n - C
    assert abs(factor - 1) < 0.02


@pytest.mark.parametrize(
    "make",
    [
        lambda: graphdr.LDA(reg=0.0),
        lambda: graphdr.LQMI(reg=0.0),
        # a linear kernel keeps the within-class scatter non-singular (an RBF kernel collapses
        # training classes, and the ridge then sets the metric: see the test below)
        lambda: graphdr.KernelLDA(kernel="linear", reg=1e-9),
        lambda: graphdr.KernelLDA(kernel="linear", reg=1e-9, solver="eigh"),
        lambda: graphdr.KernelLDA(kernel="linear", reg=1e-9, approximation="nystroem",
                                  n_landmarks=40, random_state=0),
        lambda: graphdr.KQMI(kernel="linear", reg=1e-9),
        lambda: graphdr.CKFD(kernel="linear"),
    ],
)
def test_within_scaling_whitens_the_embedded_within_class_covariance(make):
    X, y = make_classes(n_per_class=(30, 25, 35, 20), n_features=5, sep=2.0, seed=4)
    Y = make().fit(X, y).transform(X)
    cov = _within_covariance(Y, y)
    # identity up to the ridge (1e-6 of the mean total variance here)
    np.testing.assert_allclose(cov, np.eye(Y.shape[1]), atol=1e-3)
    # components come by decreasing between-class variance of the whitened embedding
    means = np.array([Y[y == c].mean(0) for c in np.unique(y)])
    between = np.bincount(y) @ (means - Y.mean(0)) ** 2
    assert np.all(np.diff(between) <= 1e-8 * between.max())


def test_scalings_span_the_same_subspace_and_none_gives_unit_norm():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    fits = {s: graphdr.LQMI(reg=0.0, scaling=s).fit(X, y) for s in ("within", "total", "none")}
    for s in ("within", "none"):
        assert max_angle(fits[s].components_.T, fits["total"].components_.T) < 1e-8
    np.testing.assert_allclose(np.linalg.norm(fits["none"].components_, axis=1), 1.0, rtol=1e-12)
    # 'total': unit total scatter of each embedded coordinate (the solver's normalisation)
    Yt = fits["total"].transform(X)
    np.testing.assert_allclose(np.diag(Yt.T @ Yt), 1.0, rtol=1e-8)


def test_none_scaling_of_a_kernel_method_gives_unit_norm_in_feature_space():
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    X, y = make_classes(seed=2)
    est = graphdr.KernelLDA(gamma=0.2, reg=1e-3, scaling="none").fit(X, y)
    Kc = KernelCenterer().fit_transform(rbf_kernel(X, gamma=0.2))
    a = est.dual_coef_
    np.testing.assert_allclose(np.diag(a.T @ Kc @ a), 1.0, rtol=1e-8)


@pytest.mark.parametrize("est", [graphdr.LDA, graphdr.LQMI])
@pytest.mark.parametrize("reg", [0.05, 1.0])
def test_within_scaling_whitens_the_regularised_within_class_scatter(est, reg):
    # with a ridge eps = reg * tr(S_t) / D on the total scatter, the 'within' metric whitens the
    # within-class covariance of the same regularised model: W^T (S_w + eps I) W / (n - C) = I
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    n, D = X.shape
    C = len(np.unique(y))
    S_t = (X - X.mean(0)).T @ (X - X.mean(0))
    S_w = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0))
              for c in np.unique(y))
    eps = reg * np.trace(S_t) / D
    W = est(reg=reg).fit(X, y).components_.T
    np.testing.assert_allclose(W.T @ (S_w + eps * np.eye(D)) @ W / (n - C), np.eye(W.shape[1]),
                               atol=1e-5)
    # the plain within-class covariance is not the identity: the ridge is in the metric
    assert np.abs(W.T @ S_w @ W / (n - C) - np.eye(W.shape[1])).max() > 1e-3 * reg
    # for LDA it is the solver's normalisation rescaled by its eigenvalues (V^T(S_w+eps)V = diag)
    if est is graphdr.LDA:
        total = graphdr.LDA(reg=reg, scaling="total").fit(X, y)
        expected = total.transform(X) * np.sqrt((n - C) / total.eigenvalues_)
        got = graphdr.LDA(reg=reg).fit(X, y).transform(X)
        signs = np.sign(np.sum(got * expected, axis=0))
        # (up to the 1e-6 floor of the metric's ridge)
        np.testing.assert_allclose(got, expected * signs, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("est", [graphdr.KernelLDA, graphdr.KQMI])
@pytest.mark.parametrize("solver", ["cholesky", "eigh"])
def test_kernel_within_scaling_whitens_the_regularised_within_class_scatter(est, solver):
    # feature space: a^T (K L_w K + eps K) a / (n - C) = I with eps = reg * tr(K) / (n - 1)
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = load_iris(return_X_y=True)
    n, C, reg, gamma = len(y), 3, 0.1, 0.5
    model = est(gamma=gamma, reg=reg, solver=solver).fit(X, y)
    H = np.eye(n) - 1.0 / n
    K = H @ rbf_kernel(X, gamma=gamma) @ H
    A = model.dual_coef_
    Y = model.transform(X)
    np.testing.assert_allclose(Y - Y.mean(0), K @ A, atol=1e-8 * np.abs(Y).max())
    within = sum((Y[y == c] - Y[y == c].mean(0)).T @ (Y[y == c] - Y[y == c].mean(0))
                 for c in range(C))
    eps = reg * np.trace(K) / (n - 1)
    # (up to the metric's floor of 1e-6 times the embedded total variance)
    np.testing.assert_allclose((within + eps * A.T @ K @ A) / (n - C), np.eye(A.shape[1]),
                               atol=1e-3)
    assert np.abs(within / (n - C) - np.eye(A.shape[1])).max() > 0.05


def test_within_scaling_is_finite_when_classes_separate_perfectly():
    # n < D, or an unregularised RBF kernel: training classes collapse to points, the within-class
    # scatter is zero in the learned subspace, and the ridge keeps the metric finite
    X, y = load_digits(return_X_y=True)
    X, y = X[:40], y[:40]
    for est in (graphdr.LDA(reg=0.0), graphdr.KQMI(solver="paper", gamma=0.01)):
        total = est.set_params(scaling="total").fit(X, y).transform(X)
        Y = est.set_params(scaling="within").fit(X, y).transform(X)
        assert np.all(np.isfinite(Y))
        # the ridge is 1e-6 of the mean total variance: the scale grows by about 1e3, not 1e16
        ratio = np.linalg.norm(Y) / np.linalg.norm(total)
        assert 1.0 < ratio < 1e5


@pytest.mark.parametrize("est", [graphdr.LDA, graphdr.LQMI, graphdr.KernelLDA, graphdr.KQMI,
                                 graphdr.CKFD])
def test_bad_scaling(est):
    X, y = make_classes()
    with pytest.raises(ValueError, match=r"scaling must be one of \['none', 'total', 'within'\]"):
        est(scaling="whiten").fit(X, y)


@pytest.mark.parametrize("approximation", [None, "nystroem"])
def test_mkldr_within_scaling(approximation):
    X, y = make_classes(n_per_class=(30, 25, 35, 20), n_features=6, sep=2.0, seed=5)
    views = [X[:, :3], X[:, 3:]]
    est = graphdr.MKLDR(kernels="linear", max_iter=2, reg=1e-9, approximation=approximation,
                        n_landmarks=200, weight_shrinkage=0.0).fit(views, y)
    np.testing.assert_allclose(_within_covariance(est.embedding_, y), np.eye(3), atol=1e-3)
    # (reg=1e-9 leaves the dual coefficients ill-conditioned: agreement to 1e-4 relative)
    np.testing.assert_allclose(est.transform(views), est.embedding_,
                               atol=1e-4 * np.abs(est.embedding_).max())
    total = graphdr.MKLDR(kernels="linear", max_iter=2, reg=1e-9, scaling="total",
                          weight_shrinkage=0.0,
                          approximation=approximation, n_landmarks=200).fit(views, y)
    assert max_angle(est.embedding_, total.embedding_) < 1e-6
    with pytest.raises(ValueError, match="scaling must be one of"):
        graphdr.MKLDR(scaling="whiten").fit(views, y)
