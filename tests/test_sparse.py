"""Sparse input (issue 14, item 2): class-structured linear methods from sparse products,
kernel methods through scikit-learn's kernels, a clear error elsewhere."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import max_angle
from sklearn.datasets import load_digits

import graphdr


def _sparse_data():
    X, y = load_digits(return_X_y=True)
    X = X[:400] * (np.random.default_rng(0).random(X[:400].shape) < 0.5)  # about 75 % zeros
    return X, sp.csr_matrix(X), y[:400]


@pytest.mark.parametrize("make", [
    lambda: graphdr.LDA(),
    lambda: graphdr.LQMI(),
    lambda: graphdr.GraphEmbedding(n_components=5, intrinsic="within_class", penalty="total"),
])
def test_class_structured_fit_on_sparse_equals_dense(make):
    X, Xs, y = _sparse_data()
    dense, sparse = make().fit(X, y), make().fit(Xs, y)
    assert max_angle(sparse.components_.T, dense.components_.T) < 1e-8
    np.testing.assert_allclose(sparse.transform(Xs), dense.transform(X),
                               atol=1e-8 * np.abs(dense.transform(X)).max())
    assert isinstance(sparse.transform(Xs), np.ndarray)


@pytest.mark.parametrize("make", [
    lambda: graphdr.KernelLDA(gamma=0.001, reg=1e-3),
    lambda: graphdr.KQMI(gamma=0.001, reg=1e-3),
    lambda: graphdr.KernelLPP(n_components=3, supervised=True, gamma=0.001, reg=1e-3),
])
def test_kernel_methods_take_sparse_input(make):
    X, Xs, y = _sparse_data()
    np.testing.assert_allclose(make().fit(Xs, y).transform(Xs), make().fit(X, y).transform(X),
                               atol=1e-8)


def test_auto_kernel_search_takes_sparse_input():
    X, Xs, y = _sparse_data()
    a = graphdr.KernelLDA(random_state=0).fit(Xs, y)
    b = graphdr.KernelLDA(random_state=0).fit(X, y)
    assert a.gamma_ == pytest.approx(b.gamma_) and a.reg_ == b.reg_


@pytest.mark.parametrize("est", [graphdr.LPP(), graphdr.MFA(), graphdr.LDE(), graphdr.MMPA()])
def test_neighbour_graph_methods_ask_for_dense_input(est):
    _, Xs, y = _sparse_data()
    with pytest.raises(ValueError, match=r"needs dense X.*X\.toarray\(\).*LDA, LQMI"):
        est.fit(Xs, y)
