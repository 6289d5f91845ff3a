"""gamma='auto' and reg='auto' (issue 11, item 2): the search against a brute-force grid."""

import numpy as np
import pytest
from conftest import make_classes
from sklearn.datasets import load_wine
from sklearn.preprocessing import minmax_scale

import graphdr
from graphdr import tuning


def _data():
    X, y = load_wine(return_X_y=True)
    return minmax_scale(X, (-1, 1))[::2], y[::2]


@pytest.mark.parametrize("scaling", ["within", "total"])
def test_fast_path_equals_refitting_the_estimator_on_every_pair(scaling):
    X, y = _data()
    est = graphdr.KernelLDA(scaling=scaling)
    kw = dict(n_components=None, scaling=scaling, regs=[1e-4, 1e-2, 1.0], random_state=0)
    block = lambda sizes: np.diag(1.0 / sizes)  # noqa: E731 - kernel LDA's between-class block
    fast = tuning.search(est, X, y, block_of=block, **kw)[2]
    # brute force: KernelLDA refitted with explicit (gamma, reg) on the same folds
    brute = tuning.search(est, X, y, block_of=None, **kw)[2]
    np.testing.assert_allclose(fast["param_gamma"], brute["param_gamma"])
    np.testing.assert_allclose(fast["param_reg"], brute["param_reg"])
    n_test = len(y) / 3
    np.testing.assert_allclose(fast["mean_test_error_1nn"], brute["mean_test_error_1nn"],
                               atol=1.01 / n_test)  # at most one tie broken differently
    np.testing.assert_allclose(fast["mean_test_error_nc"], brute["mean_test_error_nc"],
                               atol=1.01 / n_test)


def test_auto_picks_the_best_pair_of_its_table_and_refits_with_it():
    X, y = _data()
    est = graphdr.KQMI(random_state=0).fit(X, y)
    table = est.cv_results_
    chosen = table["rank_test_error"] == 1
    assert chosen.sum() == 1
    # the chosen pair has the lowest error (ties go to the larger ridge)
    assert np.isclose(table["mean_test_error"][chosen][0], table["mean_test_error"].min())
    assert est.gamma_ == pytest.approx(table["param_gamma"][chosen][0])
    assert est.reg_ == pytest.approx(table["param_reg"][chosen][0])
    # the grid is 7 widths around the median heuristic times 13 ridges
    assert len(table["param_gamma"]) == 7 * 13
    g0 = tuning.median_gamma(X)
    np.testing.assert_allclose(np.unique(table["param_gamma"]), g0 * tuning.GAMMA_FACTORS)
    explicit = graphdr.KQMI(gamma=est.gamma_, reg=est.reg_).fit(X, y)
    np.testing.assert_allclose(est.transform(X), explicit.transform(X), atol=1e-10)


def test_median_heuristic_is_the_median_squared_distance():
    X, _ = make_classes(seed=3)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)[np.triu_indices(len(X), 1)]
    assert tuning.median_gamma(X) == pytest.approx(1.0 / np.median(d2))


def test_explicit_values_skip_the_search_and_random_state_reproduces():
    X, y = _data()
    est = graphdr.KernelLDA(gamma=0.3, reg=1e-2).fit(X, y)
    assert est.gamma_ == 0.3 and est.reg_ == 1e-2 and not hasattr(est, "cv_results_")
    a = graphdr.KernelLDA(random_state=3).fit(X, y)
    b = graphdr.KernelLDA(random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.cv_results_["mean_test_error"], b.cv_results_["mean_test_error"])
    np.testing.assert_allclose(a.transform(X), b.transform(X))


def test_refit_path_for_kernel_lpp_and_ckfd():
    X, y = _data()
    lpp = graphdr.KernelLPP(n_components=2, supervised=True, random_state=0).fit(X, y)
    assert len(lpp.cv_results_["param_reg"]) == 7 * len(tuning.REG_GRID_REFIT)
    ckfd = graphdr.CKFD(random_state=0).fit(X, y)
    assert len(ckfd.cv_results_["param_gamma"]) == 7 and ckfd.gamma_ > 0
    # without labels there is nothing to cross-validate: the median heuristic
    unsup = graphdr.KernelLPP(n_components=2).fit(X)
    assert unsup.gamma_ == pytest.approx(tuning.median_gamma(X)) and unsup.reg_ == 1e-3


@pytest.mark.parametrize("params, match", [
    (dict(gamma="median"), r"gamma must be 'auto', None or a positive number"),
    (dict(gamma=-1.0), r"gamma must be 'auto', None or a positive number"),
    (dict(reg="best"), r"reg must be 'auto' or a number >= 0"),
    (dict(reg=-0.1), r"reg must be 'auto' or a number >= 0"),
])
def test_bad_auto_parameters(params, match):
    X, y = make_classes()
    for est in (graphdr.KernelLDA, graphdr.KQMI):
        with pytest.raises(ValueError, match=match):
            est(**params).fit(X, y)


def test_a_class_too_small_for_the_inner_folds_is_a_clear_error():
    X, y = make_classes(n_per_class=(10, 1, 8))
    with pytest.raises(ValueError, match="at least 2 samples in every class"):
        graphdr.KernelLDA().fit(X, y)
    # explicit values need no inner folds
    graphdr.KernelLDA(gamma=0.1, reg=1e-3).fit(X, y)
