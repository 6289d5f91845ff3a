import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_classes, max_angle
from scipy import linalg
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from test_graphs import brute_knn

import graphdr
from graphdr.blocks import graphs


@pytest.mark.parametrize("load", [load_iris, load_wine, load_breast_cancer])
def test_lda_spans_sklearn_eigen_subspace(load):
    X, y = load(return_X_y=True)
    ours = graphdr.LDA(reg=0.0).fit(X, y)
    ref = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    k = len(np.unique(y)) - 1
    assert ours.n_components_ == k
    assert max_angle(ours.components_.T, ref.scalings_[:, :k]) < 1e-6
    # each leading direction also matches one by one (the order is the Fisher order)
    for j in range(k):
        assert max_angle(ours.components_[j : j + 1].T, ref.scalings_[:, j : j + 1]) < 1e-6


def test_lda_on_digits_where_sklearn_eigen_fails():
    X, y = load_digits(return_X_y=True)
    with pytest.raises(np.linalg.LinAlgError):
        LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    ours = graphdr.LDA(reg=0.0).fit(X, y)
    assert ours.n_components_ == 9 and np.all(np.isfinite(ours.components_))
    # constant pixels get no weight
    constant = X.std(0) == 0
    assert constant.any() and np.allclose(ours.components_[:, constant], 0, atol=1e-12)
    # same subspace as scikit-learn's SVD solver, which handles the singular scatter
    ref = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    assert max_angle(ours.components_.T, ref.scalings_[:, :9]) < 1e-6
    acc = cross_val_score(make_pipeline(graphdr.LDA(reg=0.0), KNeighborsClassifier(1)), X, y, cv=3)
    assert acc.mean() > 0.9


def test_lda_class_structured_path_equals_dense_path():
    X, y = make_classes(seed=11)
    Xc = X - X.mean(0)
    n = len(X)
    Lw = graphs.laplacian(graphs.within_class_graph(y))  # dense n x n, test only
    Lt = np.eye(n) - np.ones((n, n)) / n
    mu, V = linalg.eigh(Xc.T @ Lw @ Xc, Xc.T @ Lt @ Xc)
    lda = graphdr.LDA(reg=0.0, scaling="total").fit(X, y)
    np.testing.assert_allclose(lda.eigenvalues_, mu[:2], rtol=1e-9)
    assert max_angle(lda.components_.T, V[:, :2]) < 1e-8
    # scaling: unit total scatter per component
    Y = lda.transform(X)
    np.testing.assert_allclose(Y.T @ Y, np.eye(2), atol=1e-9)


def test_lda_small_sample_size_collapses_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(15, 40))
    y = np.repeat([0, 1, 2], 5)
    Y = graphdr.LDA(reg=0.0).fit_transform(X, y)
    assert np.all(np.isfinite(Y))
    for c in range(3):
        assert np.ptp(Y[y == c], axis=0).max() < 1e-8 * np.ptp(Y, axis=0).max()


def test_constant_feature_and_duplicate_rows_change_nothing():
    X, y = make_classes(seed=12)
    X2 = np.vstack([np.column_stack([X, np.full(len(X), 3.0)]), np.column_stack([X[:4], np.full(4, 3.0)])])
    y2 = np.concatenate([y, y[:4]])
    for est in (graphdr.LDA(reg=0.0), graphdr.LPP(n_components=2), graphdr.MFA(n_components=2),
                graphdr.LDE(n_components=2)):
        Y = est.fit_transform(X2, y2)
        assert np.all(np.isfinite(Y))
        assert np.allclose(est.components_[:, -1], 0, atol=1e-12)
    a = graphdr.LDA(reg=0.0).fit(X2, y2).components_[:, :-1]
    b = graphdr.LDA(reg=0.0).fit(np.vstack([X, X[:4]]), y2).components_
    np.testing.assert_allclose(a, b, atol=1e-9)


def dense_problem(X, W_int, W_pen=None):
    """A and B of the brute-force generalized eigenproblem, from dense n x n Laplacians."""
    Xc = X - X.mean(0)
    L = np.diag(W_int.sum(1)) - W_int
    if W_pen is None:
        B = Xc.T @ np.diag(W_int.sum(1)) @ Xc
    else:
        B = Xc.T @ (np.diag(W_pen.sum(1)) - W_pen) @ Xc
    return Xc.T @ L @ Xc, B


@pytest.mark.parametrize("supervised", [False, True])
def test_lpp_equals_brute_force(supervised):
    X, y = make_classes(seed=13)
    A = brute_knn(X, 4, y, "same" if supervised else None)
    W = np.maximum(A, A.T)
    est = graphdr.LPP(n_components=3, supervised=supervised, n_neighbors=4, weights="binary").fit(X, y)
    mu, V = linalg.eigh(*dense_problem(X, W))
    np.testing.assert_allclose(est.eigenvalues_, mu[:3], rtol=1e-8)
    assert max_angle(est.components_.T, V[:, :3]) < 1e-7


def test_lpp_heat_weights_equal_brute_force():
    X, y = make_classes(seed=14)
    A = brute_knn(X, 5)
    mask = np.maximum(A, A.T) > 0
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    W = np.where(mask, np.exp(-d2 / (2 * 1.5**2)), 0.0)
    est = graphdr.LPP(n_components=2, n_neighbors=5, sigma=1.5).fit(X)
    mu, V = linalg.eigh(*dense_problem(X, W))
    np.testing.assert_allclose(est.eigenvalues_, mu[:2], rtol=1e-8)
    assert max_angle(est.components_.T, V[:, :2]) < 1e-7


def test_mfa_equals_brute_force():
    X, y = make_classes(seed=15)
    Wi = brute_knn(X, 3, y, "same")
    Wp = brute_knn(X, 6, y, "different")
    est = graphdr.MFA(n_components=2, n_neighbors=3, n_neighbors_penalty=6).fit(X, y)
    mu, V = linalg.eigh(*dense_problem(X, np.maximum(Wi, Wi.T), np.maximum(Wp, Wp.T)))
    np.testing.assert_allclose(est.eigenvalues_, mu[:2], rtol=1e-8)
    assert max_angle(est.components_.T, V[:, :2]) < 1e-7


def test_lde_equals_brute_force_and_maximises_between_over_within():
    X, y = make_classes(seed=16)
    Ww = brute_knn(X, 3, y, "same")
    Wb = brute_knn(X, 5, y, "different")
    Ww, Wb = np.maximum(Ww, Ww.T), np.maximum(Wb, Wb.T)
    est = graphdr.LDE(n_components=2, n_neighbors=3, n_neighbors_between=5, weights="binary").fit(X, y)
    A, B = dense_problem(X, Ww, Wb)
    # LDE as published: max between s.t. within -- same leading eigenvectors
    mu, V = linalg.eigh(B, A)
    assert max_angle(est.components_.T, V[:, -2:]) < 1e-7


def test_graph_embedding_with_user_graphs_equals_brute_force():
    X, y = make_classes(seed=17)
    rng = np.random.default_rng(1)
    W = rng.random((len(X), len(X)))
    W = (W + W.T) * (rng.random((len(X), len(X))) < 0.2)
    W = np.triu(W, 1) + np.triu(W, 1).T
    for graph in (W, sp.csr_matrix(W), lambda X_, y_: W):
        est = graphdr.GraphEmbedding(n_components=2, intrinsic=graph, penalty="total").fit(X)
        Xc = X - X.mean(0)
        mu, V = linalg.eigh(dense_problem(X, W)[0], Xc.T @ Xc)
        assert max_angle(est.components_.T, V[:, :2]) < 1e-7
    lda = graphdr.GraphEmbedding(intrinsic="within_class", penalty="total").fit(X, y)
    assert max_angle(lda.components_[:2].T, graphdr.LDA(reg=0.0).fit(X, y).components_.T) < 1e-8


def test_string_labels_equal_integer_labels():
    X, y = make_classes(seed=18)
    names = np.array(["cat", "dog", "emu"])[y]
    for est in (graphdr.LDA(), graphdr.MFA(n_components=2), graphdr.LPP(supervised=True, n_components=2)):
        a = est.fit(X, names).transform(X)
        assert list(est.classes_) == ["cat", "dog", "emu"]
        np.testing.assert_allclose(a, est.fit(X, y).transform(X), atol=1e-10)


def test_float32_stays_float32():
    X, y = make_classes(seed=19)
    for est in (graphdr.LDA(reg=0.0), graphdr.LPP(n_components=2)):
        Y = est.fit_transform(X.astype(np.float32), y)
        assert Y.dtype == np.float32 and est.components_.dtype == np.float32
        np.testing.assert_allclose(Y, est.fit_transform(X, y), rtol=1e-3, atol=1e-3)


def test_pipeline_and_grid_search_over_n_components():
    X, y = load_wine(return_X_y=True)
    pipe = make_pipeline(graphdr.LDA(reg=0.0), KNeighborsClassifier(1))
    search = GridSearchCV(pipe, {"lda__n_components": [1, 2]}, cv=3).fit(X, y)
    assert search.best_params_["lda__n_components"] in (1, 2)
    assert search.best_score_ > 0.9
    lpp = GridSearchCV(make_pipeline(graphdr.LPP(supervised=True), KNeighborsClassifier(1)),
                       {"lpp__n_components": [2, 5]}, cv=3).fit(X, y)
    assert lpp.best_estimator_[0].n_components_ in (2, 5)


def test_feature_names_and_deterministic_signs():
    X, y = load_iris(return_X_y=True)
    lda = graphdr.LDA().fit(X, y)
    assert list(lda.get_feature_names_out()) == ["lda0", "lda1"]
    perm = np.random.default_rng(0).permutation(len(X))
    np.testing.assert_allclose(graphdr.LDA().fit(X[perm], y[perm]).components_, lda.components_, atol=1e-10)
    # negating X negates every direction; the sign rule (class means of the embedded training
    # data) gives both the same embedding, so the components are negated
    negated = graphdr.LDA().fit(-X, y)
    np.testing.assert_allclose(negated.transform(-X), lda.transform(X), atol=1e-10)
    np.testing.assert_allclose(negated.components_, -lda.components_, atol=1e-10)


def test_default_n_components_leaves_out_directions_without_between_class_variance():
    """Four classes whose means lie exactly on a line: the between-class scatter has rank 1.
    n_components=None keeps that one direction, as scikit-learn's LDA does; an explicit
    n_components is honoured."""
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(4), 40)
    X = rng.normal(size=(160, 3))
    for c in range(4):  # class means exactly c * (1, 2, 0)
        X[y == c] += c * np.array([1.0, 2.0, 0.0]) - X[y == c].mean(axis=0)
    sk = LinearDiscriminantAnalysis().fit(X, y)
    assert sk.transform(X).shape[1] == 1
    for est in (graphdr.LDA(reg=0.0), graphdr.KernelLDA(kernel="linear", reg=1e-9), graphdr.LQMI(reg=0.0),
                graphdr.KQMI(kernel="linear", reg=1e-9)):
        est.fit(X, y)
        assert est.n_components_ == 1, type(est).__name__
        assert max_angle(est.transform(X), sk.transform(X)) < 1e-6
    assert graphdr.LDA(reg=0.0, n_components=3).fit(X, y).n_components_ == 3
    # generic class means: all C - 1 directions
    assert graphdr.LDA(reg=0.0).fit(X + rng.normal(scale=0.3, size=(4, 3))[y], y).n_components_ == 3
