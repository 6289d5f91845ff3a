"""gamma='auto' and reg='auto' (issue 11, item 2): the search against a brute-force grid."""

import numpy as np
import pytest
from conftest import make_classes
from sklearn.datasets import load_wine
from sklearn.preprocessing import minmax_scale

import graphdr
from graphdr import tuning
from graphdr.blocks.sampling import row_keys


def _data():
    X, y = load_wine(return_X_y=True)
    return minmax_scale(X, (-1, 1))[::2], y[::2]


@pytest.mark.parametrize("scaling", ["within", "total"])
@pytest.mark.slow
def test_cross_validated_fast_path_equals_refitting_the_estimator_on_every_pair(scaling):
    X, y = _data()  # 89 samples: no subsample, all rows in canonical order
    est = graphdr.KernelLDA(scaling=scaling)
    regs = [1e-4, 1e-2, 1.0, 30.0]
    block = lambda sizes: np.diag(1.0 / sizes)  # noqa: E731 - kernel LDA's between-class block
    fast = tuning.search(est, X, y, block_of=block, n_components=None, scaling=scaling,
                         regs=regs)[2]
    # brute force: KernelLDA refitted with explicit (gamma, reg) on the same rows and folds
    idx, y, folds = tuning.search_rows(row_keys(X), y, tuning.MAX_SAMPLES, tuning.N_FOLDS, "t")
    X = X[idx]
    assert len(folds) == tuning.N_FOLDS and len(idx) == 89
    g0 = tuning.median_gamma(X)
    brute = []
    for gamma in g0 * tuning.GAMMA_FACTORS:
        for reg in regs:
            errors = np.zeros(3)
            for train, test in folds:
                fitted = graphdr.KernelLDA(gamma=gamma, reg=reg, scaling=scaling).fit(
                    X[train], y[train])
                errors += tuning.classifier_errors(fitted.transform(X[train]), y[train],
                                                   fitted.transform(X[test]), y[test])
            brute.append(np.r_[gamma, reg, errors / len(folds)])
    brute = np.array(brute)
    np.testing.assert_allclose(fast["param_gamma"], brute[:, 0])
    np.testing.assert_allclose(fast["param_reg"], brute[:, 1])
    n_test = len(y) / len(folds)
    for col, key in zip((2, 3, 4), ("1nn", "3nn", "nc")):
        # at most one near-tie broken differently in one fold
        np.testing.assert_allclose(fast[f"mean_test_error_{key}"], brute[:, col],
                                   atol=1.01 / n_test / len(folds))
    # the criterion: the mean of the three, averaged with the neighbouring ridges of a width
    mean = brute[:, 2:].mean(axis=1).reshape(len(tuning.GAMMA_FACTORS), len(regs))
    padded = np.c_[mean[:, 0], mean, mean[:, -1]]
    smoothed = (padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:]) / 3
    np.testing.assert_allclose(fast["mean_test_error"], smoothed.ravel(), atol=1.01 / len(y))


def test_classifier_errors_against_scikit_learn_and_a_hand_count():
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

    rng = np.random.RandomState(0)
    A, B = rng.randn(60, 3), rng.randn(40, 3)
    ya, yb = rng.randint(0, 3, 60), rng.randint(0, 3, 40)
    e1, e3, enc = tuning.classifier_errors(A, ya, B, yb)
    for k, e in ((1, e1), (3, e3)):
        pred = KNeighborsClassifier(n_neighbors=k).fit(A, ya).predict(B)
        assert e == pytest.approx(np.mean(pred != yb))
    assert enc == pytest.approx(np.mean(NearestCentroid().fit(A, ya).predict(B) != yb))
    # repeated rows: the 1-NN vote goes to the majority of the samples at distance 0
    A = np.array([[0.0, 0.0]] * 3 + [[5.0, 5.0]] * 2)
    ya = np.array([1, 1, 0, 0, 2])
    e1, _, _ = tuning.classifier_errors(A, ya, np.array([[0.0, 0.0], [5.0, 5.0]]),
                                        np.array([1, 0]))
    assert e1 == 0.0  # (two 1s against one 0; one 0 against one 2: the smaller label)


def _brute_force_loo(K, y, regs):
    """Leave each sample out, fit ridge regression of the centred class indicators with an
    unpenalised intercept on explicit kernel features, predict the left-out sample."""
    n, n_classes = len(y), y.max() + 1
    Kc = K - K.mean(0) - K.mean(1)[:, None] + K.mean()
    unit = np.trace(Kc) / (n - 1)
    d, V = np.linalg.eigh(K)
    features = V * np.sqrt(np.maximum(d, 0.0))  # K = features features^T
    Y = np.eye(n_classes)[y]
    Y -= Y.mean(axis=0)
    targets = np.eye(n_classes) - np.eye(n_classes)[y].mean(axis=0)
    press, wrong = [], []
    for reg in regs:
        penalty = np.sqrt(reg * unit) * np.eye(n)
        sq, errors = 0.0, 0
        for i in range(n):
            rest = np.arange(n) != i
            A = np.vstack([np.c_[features[rest], np.ones(n - 1)], np.c_[penalty, np.zeros(n)]])
            coef = np.linalg.lstsq(A, np.vstack([Y[rest], np.zeros((n, n_classes))]),
                                   rcond=None)[0]
            fitted = np.r_[features[i], 1.0] @ coef
            sq += np.sum((Y[i] - fitted) ** 2)
            errors += np.argmin(((targets - fitted) ** 2).sum(axis=1)) != y[i]
        press.append(sq / n)
        wrong.append(errors / n)
    return np.array(press), np.array(wrong)


def test_kernel_press_path_is_the_brute_force_leave_one_out():
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.RandomState(0)
    X, y = rng.randn(30, 4), np.arange(30) % 3
    X[y == 1] += 1.0
    K, regs = rbf_kernel(X, gamma=0.3), [1e-3, 1e-1, 1.0, 30.0]
    press, wrong = tuning.kernel_press_path(K, y, regs)
    want_press, want_wrong = _brute_force_loo(K, y, regs)
    # one eigendecomposition against 30 least-squares solves per ridge: rounding only
    np.testing.assert_allclose(press, want_press, rtol=1e-8)
    np.testing.assert_array_equal(wrong, want_wrong)
    assert len(set(np.round(press, 6))) == len(regs)  # the ridges do differ


def test_kernel_press_path_in_blocks_of_ridges_is_the_same(monkeypatch):
    """The fitted values of several ridges come from one product, in blocks of at most
    PRESS_BLOCK_ENTRIES entries: any block size gives the same curve, and a ridge that
    interpolates a sample scores inf in every block."""
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.RandomState(1)
    X, y = rng.randn(40, 3), np.arange(40) % 4
    K = rbf_kernel(X, gamma=50.0)  # nearly the identity: the tiny ridges interpolate
    regs = 10.0 ** np.arange(-12.0, 2.0)
    whole = tuning.kernel_press_path(K, y, regs)
    monkeypatch.setattr(tuning.loo, "PRESS_BLOCK_ENTRIES", 3 * 40 * 4)  # 3 ridges per block
    blocks = tuning.kernel_press_path(K, y, regs)
    np.testing.assert_allclose(blocks[0], whole[0], rtol=1e-12)
    np.testing.assert_array_equal(blocks[1], whole[1])
    assert np.isinf(whole[0][0]) and np.all(np.isfinite(whole[0][-5:]))
    want_press, want_wrong = _brute_force_loo(K, y, regs[-5:])
    np.testing.assert_allclose(whole[0][-5:], want_press, rtol=1e-8)


def test_auto_picks_the_smallest_leave_one_out_error_and_refits_with_it():
    X, y = _data()
    est = graphdr.KQMI(random_state=0).fit(X, y)
    table = est.cv_results_
    chosen = table["rank_test_error"] == 1
    assert chosen.sum() == 1
    # the chosen pair is on the flat end of the curve (within 0.1 % of the smallest PRESS),
    # with the largest ridge there
    press = table["mean_test_error"]
    plateau = press <= press.min() * (1 + tuning.PLATEAU_RTOL)
    assert plateau[chosen][0]
    assert table["param_reg"][chosen][0] == table["param_reg"][plateau].max()
    # and the criterion is the exact leave-one-out error of its width and ridge
    from sklearn.metrics.pairwise import rbf_kernel

    idx = tuning.stratified_subsample(y, tuning.MAX_SAMPLES_LOO, row_keys(X))
    gamma = table["param_gamma"][chosen][0]
    regs = np.unique(table["param_reg"])
    press, _ = tuning.kernel_press_path(rbf_kernel(X[idx], gamma=gamma), y[idx], regs)
    at_gamma = table["param_gamma"] == gamma
    np.testing.assert_allclose(table["mean_test_error"][at_gamma], press, rtol=1e-9)
    assert est.gamma_ == pytest.approx(table["param_gamma"][chosen][0])
    assert est.reg_ == pytest.approx(table["param_reg"][chosen][0])
    # the grid is 7 widths around the median heuristic times 17 ridges
    assert len(table["param_gamma"]) == 7 * 17
    g0 = tuning.median_gamma(X)
    np.testing.assert_allclose(np.unique(table["param_gamma"]), g0 * tuning.GAMMA_FACTORS)
    explicit = graphdr.KQMI(gamma=est.gamma_, reg=est.reg_).fit(X, y)
    np.testing.assert_allclose(est.transform(X), explicit.transform(X), atol=1e-10)


def test_median_heuristic_is_the_median_squared_distance():
    X, _ = make_classes(seed=3)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)[np.triu_indices(len(X), 1)]
    assert tuning.median_gamma(X) == pytest.approx(1.0 / np.median(d2))


@pytest.mark.slow
def test_explicit_values_skip_the_search_and_random_state_reproduces():
    X, y = _data()
    est = graphdr.KernelLDA(gamma=0.3, reg=1e-2).fit(X, y)
    assert est.gamma_ == 0.3 and est.reg_ == 1e-2 and not hasattr(est, "cv_results_")
    a = graphdr.KernelLDA(random_state=3).fit(X, y)
    b = graphdr.KernelLDA(random_state=3, n_jobs=2).fit(X, y)
    # worker processes may use another number of BLAS threads: the criterion agrees to
    # rounding (eigendecompositions of 89 x 89 kernels), the choice exactly
    np.testing.assert_allclose(a.cv_results_["mean_test_error"], b.cv_results_["mean_test_error"],
                               rtol=1e-7)
    assert (a.gamma_, a.reg_) == (b.gamma_, b.reg_)
    np.testing.assert_allclose(a.transform(X), b.transform(X), atol=1e-8)


def test_refit_path_for_kernel_lpp_and_ckfd():
    X, y = _data()
    lpp = graphdr.KernelLPP(n_components=2, supervised=True, random_state=0).fit(X, y)
    assert len(lpp.cv_results_["param_reg"]) == 7 * len(tuning.REG_GRID_REFIT)
    np.testing.assert_allclose(np.unique(lpp.cv_results_["param_gamma"]),
                               tuning.median_gamma(X) * tuning.GAMMA_FACTORS_REFIT)
    assert "mean_test_error_3nn" not in lpp.cv_results_
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
    for est in (graphdr.KernelLDA(), graphdr.KernelLPP(supervised=True)):
        with pytest.raises(ValueError, match="at least 2 samples in every class"):
            est.fit(X, y)
    # explicit values need no inner folds
    graphdr.KernelLDA(gamma=0.1, reg=1e-3).fit(X, y)


def test_search_kernels_with_an_rbf_family_is_the_estimator_search():
    from sklearn.metrics.pairwise import euclidean_distances

    X, y = _data()
    block = lambda sizes: np.diag(1.0 / sizes)  # noqa: E731

    def rbf_family(rows):
        D2 = euclidean_distances(X[rows], squared=True)
        return tuning.median_gamma(X[rows]), lambda g: np.exp(-g * D2)

    got = tuning.search_kernels(rbf_family, y, keys=row_keys(X), block_of=block, name="test")
    want = tuning.search(graphdr.KernelLDA(), X, y, block_of=block, scaling="within")
    assert got[0] == pytest.approx(want[0]) and got[1] == want[1]
    for key in want[2]:
        np.testing.assert_allclose(got[2][key], want[2][key], atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: graphdr.KernelLPP(n_components=3, supervised=True, gamma=0.3),
    lambda: graphdr.KernelLPP(n_components=2, gamma=0.3),
    lambda: graphdr.LPP(n_components=2, supervised=True),
    lambda: graphdr.KernelLDA(gamma=0.3, solver="eigh"),
])
def test_ridge_path_equals_one_fit_per_ridge(make):
    """The refitted search's shared fits: the kernel map and the graphs once, the same models
    as a whole fit per ridge, bit for bit."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = X[::2]
    y = y[::2]
    regs = [1e-6, 1e-3, 0.1]
    path = make()._fit_ridge_path(X, y, regs)
    for reg, est in zip(regs, path):
        single = make().set_params(reg=reg).fit(X, y)
        assert est.reg == reg
        np.testing.assert_array_equal(est.transform(X), single.transform(X))
        np.testing.assert_array_equal(est.eigenvalues_, single.eigenvalues_)
