"""Scale-invariant methods give the same embedding at any scale of X; complex X is refused."""

import numpy as np
import pytest
from sklearn.datasets import load_wine

import graphdr
from graphdr.multiview import check_views

SCALE_INVARIANT = [
    lambda: graphdr.LDA(),
    lambda: graphdr.LQMI(),
    lambda: graphdr.LPP(n_components=3),
    lambda: graphdr.LPP(n_components=3, supervised=True),
    lambda: graphdr.MFA(n_components=3),
    lambda: graphdr.LDE(n_components=3),
    lambda: graphdr.MMPA(n_components=3),
    lambda: graphdr.GraphEmbedding(n_components=2, intrinsic="within_class", penalty="total"),
]


@pytest.mark.parametrize("make", SCALE_INVARIANT)
@pytest.mark.parametrize("factor", [1e-300, 1e150])
def test_embedding_does_not_depend_on_the_scale_of_x(make, factor):
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    ref = make().fit(X, y).transform(X)
    scaled = make().fit(X * factor, y)
    Y = scaled.transform(X * factor)
    assert np.all(np.isfinite(Y))
    np.testing.assert_allclose(Y, ref, atol=1e-8 * np.abs(ref).max())


def _complex_estimators():
    from sklearn.base import BaseEstimator

    for name in graphdr.__all__:
        obj = getattr(graphdr, name)
        if isinstance(obj, type) and issubclass(obj, BaseEstimator):
            yield obj


@pytest.mark.parametrize("est", list(_complex_estimators()), ids=lambda c: c.__name__)
def test_complex_input_is_refused(est):
    X, y = load_wine(return_X_y=True)
    Xc = X[:60] + 1j * X[:60]
    y = y[:60]
    if est in (graphdr.MKLDR, graphdr.KFDVoting, graphdr.KFDSAMME):
        with pytest.raises(ValueError, match="complex"):
            est().fit([Xc, X[:60]], y)
        return
    with pytest.raises(ValueError, match="[Cc]omplex"):
        est().fit(Xc, y)


def test_views_check_names_the_complex_view():
    X = np.ones((5, 2))
    with pytest.raises(ValueError, match="View 1 is complex"):
        check_views([X, X + 1j])
