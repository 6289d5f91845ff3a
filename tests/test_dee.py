"""Tests of DEE, DSNE and ElasticEmbedding (graphdr.neighbor_embedding)."""

import numpy as np
import pytest
from conftest import make_classes
from sklearn.datasets import load_iris
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr.neighbor_embedding import (
    DEE,
    DSNE,
    ElasticEmbedding,
    _DEEObjective,
    _DSNEObjective,
    _EEObjective,
)


# ----- independent references -------------------------------------------------------------
def dee_brute(A, X, y, lam, sigma2, normalize, shrinkage=0.0):
    """Eq. (12) and its gradient by a double loop over all ordered pairs; with ``shrinkage``
    g the attraction becomes (1 - g) * attraction + 2 g nu ||A||_F^2, nu = the mean eigenvalue
    of X^T L(w+) X = (sum_nm w+_nm ||x_nm||^2 / 2) / rank (X full column rank here)."""
    n = X.shape[0]
    wp = np.zeros((n, n))
    wn = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dx = X[i] - X[j]
            if y[i] == y[j]:
                wp[i, j] = np.exp(-dx @ dx / (2 * sigma2))
            else:
                wn[i, j] = dx @ dx
    if normalize:
        wp /= wp.sum()
        wn /= wn.sum()
    E, G = 0.0, np.zeros_like(A)
    for i in range(n):
        for j in range(n):
            dx = X[i] - X[j]
            v = A @ dx
            q = v @ v
            E += (1 - shrinkage) * wp[i, j] * q + lam * wn[i, j] * np.exp(-q)
            G += 2 * ((1 - shrinkage) * wp[i, j] - lam * wn[i, j] * np.exp(-q)) * np.outer(v, dx)
    if shrinkage:
        nu = sum(wp[i, j] * np.sum((X[i] - X[j]) ** 2) for i in range(n) for j in range(n)) / 2
        nu /= np.linalg.matrix_rank(X - X.mean(0))
        E += 2 * shrinkage * nu * np.sum(A * A)
        G += 4 * shrinkage * nu * A
    return E, G


def dsne_brute(A, X, y, sigma2, joint=False, intra_mass=0.5):
    """Eq. (7) by loops; ``joint``: p puts mass intra_mass / 1 - intra_mass on the same-class /
    different-class pairs and q is normalised over all pairs at once."""
    n = X.shape[0]
    P = np.zeros((n, n))
    U = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = X[i] - X[j]
                P[i, j] = np.exp(-dx @ dx / (2 * sigma2))
                U[i, j] = 1.0 / (1.0 + np.sum((A @ dx) ** 2))
    same = (y[:, None] == y[None, :]) & ~np.eye(n, dtype=bool)
    diff = y[:, None] != y[None, :]
    E = 0.0
    if joint:
        p = np.zeros((n, n))
        p[same] = intra_mass * P[same] / P[same].sum()
        p[diff] = (1 - intra_mass) * P[diff] / P[diff].sum()
        q = U / U.sum()
        off = ~np.eye(n, dtype=bool)
        return np.sum(p[off] * np.log(p[off] / q[off]))
    for mask in (same, diff):
        p = P[mask] / P[mask].sum()
        q = U[mask] / U[mask].sum()
        E += np.sum(p * np.log(p / q))
    return E


def central_fd(f, A, h=1e-6):
    G = np.zeros_like(A)
    for idx in np.ndindex(A.shape):
        Ap, Am = A.copy(), A.copy()
        Ap[idx] += h
        Am[idx] -= h
        G[idx] = (f(Ap) - f(Am)) / (2 * h)
    return G


def rel_err(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.fixture
def tiny():
    r = np.random.default_rng(3)
    X = r.normal(size=(11, 4))
    y = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    A = r.normal(size=(2, 4)) * 0.4
    return X, y, A


# ----- DEE objective and gradient -----------------------------------------------------------
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("cache", [True, False])
def test_dee_objective_and_gradient_match_double_loop(tiny, normalize, cache):
    X, y, A = tiny
    lam, sigma2 = 0.7, 1.3
    kw = {} if cache else dict(cache_bytes=0, block_rows=3)
    ob = _DEEObjective(X, y, lam, sigma2, normalize=normalize, **kw)
    E, G = ob.value_grad(A)
    Eb, Gb = dee_brute(A, X, y, lam, sigma2, normalize)
    assert E == pytest.approx(Eb, rel=1e-12)
    assert rel_err(G, Gb) < 1e-10
    G_fd = central_fd(lambda B: ob.value_grad(B)[0], A)
    assert rel_err(G, G_fd) < 1e-6


@pytest.mark.parametrize("shrinkage", [0.3, 1.0])
@pytest.mark.parametrize("cache", [True, False])
def test_dee_shrunk_objective_and_gradient(tiny, shrinkage, cache):
    X, y, A = tiny
    Xc = X - X.mean(0)
    kw = {} if cache else dict(cache_bytes=0, block_rows=3)
    ob = _DEEObjective(Xc, y, 0.7, 1.3, shrinkage=shrinkage, **kw)
    E, G = ob.value_grad(A)
    Eb, Gb = dee_brute(A, Xc, y, 0.7, 1.3, True, shrinkage=shrinkage)
    assert E == pytest.approx(Eb, rel=1e-12)
    assert rel_err(G, Gb) < 1e-10
    assert rel_err(G, central_fd(lambda B: ob.value_grad(B)[0], A)) < 1e-6


def test_dee_plain_objective_collapses_wide_data_and_shrinkage_generalises():
    """D >= n, linearly separable classes: the paper's objective goes to 0 with an unbounded
    projection that does not generalise; the shrunk objective stays bounded and does."""
    r = np.random.default_rng(5)
    D, C = 120, 3
    means = np.zeros((C, D))
    means[:, :10] = r.normal(size=(C, 10))  # class differences along high-variance axes
    scales = np.linspace(2.0, 0.2, D)

    def sample(m):
        y = np.repeat(np.arange(C), m)
        return means[y] + r.normal(size=(len(y), D)) * scales, y

    X, y = sample(8)
    Xt, yt = sample(60)
    plain = DEE(n_components=3, shrinkage=0.0, lam=10.0).fit(X, y)
    shrunk = DEE(n_components=3, shrinkage=0.8, lam=10.0).fit(X, y)
    assert plain.objective_ < 1e-3 * plain.initial_objective_
    assert np.linalg.norm(shrunk.components_) < 1e-2 * np.linalg.norm(plain.components_)

    def error(est):
        from sklearn.neighbors import KNeighborsClassifier

        knn = KNeighborsClassifier(1).fit(est.transform(X), y)
        return 1 - knn.score(est.transform(Xt), yt)

    assert error(shrunk) < error(plain) - 0.05


def test_dee_auto_shrinkage_rule():
    X, y = make_classes(n_per_class=(9, 8, 10), n_features=30, sep=1.0)
    est = DEE(n_components=2, max_iter=30, significance=None).fit(X, y)
    assert est.checkpoint_ == 1  # significance=None: no comparison with the start
    scores = est.shrinkage_scores_
    assert set(scores) == {0.0, 0.2, 0.5, 0.8}
    assert all(0 <= v <= 1 for v in scores.values())
    best = min(scores.values())
    margin = np.sqrt(best * (1 - best) / len(y))
    assert est.shrinkage_ == min(g for g, v in scores.items() if v <= best + margin)
    # the selected shrinkage is the one of the final fit
    same = DEE(n_components=2, max_iter=30, shrinkage=est.shrinkage_).fit(X, y)
    np.testing.assert_allclose(est.components_, same.components_, rtol=1e-10, atol=1e-12)
    assert same.shrinkage_scores_ is None
    # too few samples per class to validate: no shrinkage
    tiny = DEE(n_components=1, max_iter=5).fit(X[[0, 1, 9]], y[[0, 1, 9]])
    assert tiny.shrinkage_ == 0.0


def test_dee_laplacian_direction_is_a_descent_direction(tiny):
    X, y, A = tiny
    est = DEE(optimizer="ld", max_iter=1, shrinkage=0.0).fit(X, y)
    ob = _DEEObjective(X - X.mean(0), y, est.lam, est.sigma_ ** 2)
    H = 4 * ob.H + est.mu_ * np.eye(X.shape[1])
    assert np.all(np.linalg.eigvalsh(H) > 0)
    for seed in range(5):
        B = np.random.default_rng(seed).normal(size=(2, 4))
        E, G = ob.value_grad(B)
        P = -np.linalg.solve(H, G.T).T
        assert np.sum(G * P) < 0
        # and a small step along it decreases E
        assert ob.value_grad(B + 1e-4 * P)[0] < E


@pytest.mark.parametrize("optimizer", ["ld", "fp", "cg", "gd"])
def test_dee_history_is_non_increasing(optimizer):
    X, y = make_classes(n_per_class=(15, 12, 18), n_features=6)
    est = DEE(optimizer=optimizer, max_iter=60, tol=1e-6, significance=None).fit(X, y)
    h = est.history_
    assert est.n_iter_ >= 2
    assert {len(v) for v in h.values()} == {est.n_iter_}
    obj = np.array([est.initial_objective_] + h["objective"])
    assert np.all(np.diff(obj) <= 0)
    assert obj[-1] < obj[0]
    assert np.all(np.array(h["step"]) > 0)
    assert np.all(np.diff(h["time"]) >= 0) and h["time"][0] >= 0
    assert est.objective_ == h["objective"][-1]


def test_dee_objective_of_fitted_components_and_exact_transform():
    X, y = make_classes(n_per_class=(9, 7, 8), n_features=5)
    est = DEE(n_components=2, lam=3.0, max_iter=50, shrinkage=0.0).fit(X, y)
    A = est.components_
    # the fitted objective is eq. (12) at components_ (independent double loop)
    Eb, _ = dee_brute(A, X, y, 3.0, est.sigma_ ** 2, normalize=True)
    assert est.objective_ == pytest.approx(Eb, rel=1e-9)
    Xn = np.random.default_rng(1).normal(size=(6, 5))
    np.testing.assert_array_equal(est.transform(Xn), (Xn - est.mean_) @ A.T)
    assert est.fit_transform(X, y).shape == (X.shape[0], 2)


def test_dee_default_sigma_is_mean_same_class_distance():
    X, y = make_classes()
    est = DEE(max_iter=1).fit(X, y)
    d2 = [np.sum((X[i] - X[j]) ** 2) for i in range(len(y)) for j in range(len(y))
          if i != j and y[i] == y[j]]
    assert 2 * est.sigma_ ** 2 == pytest.approx(np.mean(d2))


def test_ld_needs_fewer_iterations_than_gd():
    X, y = load_iris(return_X_y=True)
    kw = dict(n_components=2, max_iter=500, tol=1e-6, shrinkage=0.0)
    ld = DEE(optimizer="ld", **kw).fit(X, y)
    gd = DEE(optimizer="gd", **kw).fit(X, y)
    assert ld.n_iter_ < gd.n_iter_
    assert ld.objective_ <= gd.objective_ * (1 + 1e-3)


def test_dee_rank_deficient_duplicate_and_wide_data():
    r = np.random.default_rng(0)
    X = r.normal(size=(10, 30))  # D > n
    X[:, 5] = 2.0  # constant feature
    X[3] = X[2]  # duplicate row
    y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    for opt in ["ld", "fp"]:
        est = DEE(n_components=3, optimizer=opt, max_iter=30).fit(X, y)
        assert np.all(np.isfinite(est.components_))
        assert np.all(np.diff([est.initial_objective_] + est.history_["objective"]) <= 0)


def test_dee_init_options_callback_and_verbose(capsys):
    X, y = make_classes()
    A0 = np.random.default_rng(0).normal(size=(2, 5)) * 0.05
    calls = []

    def cb(A, info):
        calls.append(A.shape)
        return info["iteration"] == 2

    est = DEE(init=A0, callback=cb, verbose=2, max_iter=50, shrinkage=0.0).fit(X, y)
    assert calls == [(2, 5), (2, 5)] and est.n_iter_ == 2
    out = capsys.readouterr().out
    assert "[DEE-ld] iter    1" in out
    from graphdr.neighbor_embedding import _DEEObjective as Obj

    ob = Obj(X - X.mean(0), y, est.lam, est.sigma_ ** 2)
    assert est.initial_objective_ == pytest.approx(ob.value_grad(A0)[0])
    r1 = DEE(init="random", random_state=0, max_iter=3).fit(X, y)
    r2 = DEE(init="random", random_state=0, max_iter=3).fit(X, y)
    np.testing.assert_array_equal(r1.components_, r2.components_)


def test_dee_float32_and_string_labels():
    X, y = make_classes()
    labels = np.array(["a", "b", "c"])[y]
    est = DEE(max_iter=5).fit(X.astype(np.float32), labels)
    assert est.transform(X.astype(np.float32)).dtype == np.float32
    assert list(est.classes_) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(lam=0.0), "lam must be > 0"),
        (dict(lam=-1.0), "lam must be > 0"),
        (dict(sigma=0.0), "sigma must be > 0"),
        (dict(sigma=-2.0), "sigma must be > 0"),
        (dict(optimizer="newton"), "optimizer must be one of"),
        (dict(n_components=6), "n_components=6 is too large"),
        (dict(init="spectral"), "init must be one of"),
        (dict(init=np.zeros((3, 5))), "init must have shape"),
        (dict(max_iter=-1), "max_iter must be an integer"),
        (dict(shrinkage=1.5), r"shrinkage must be 'auto' or a real number in \[0, 1\]"),
        (dict(shrinkage=-0.1), r"shrinkage must be 'auto' or a real number in \[0, 1\]"),
        (dict(shrinkage="ledoit"), r"shrinkage must be 'auto' or a real number in \[0, 1\]"),
        (dict(shrinkage=None), r"shrinkage must be 'auto' or a real number in \[0, 1\]"),
        (dict(shrinkage=float("nan")), r"shrinkage must be 'auto'"),
    ],
)
def test_dee_bad_input(params, match):
    X, y = make_classes()
    with pytest.raises(ValueError, match=match):
        DEE(**params).fit(X, y)


@pytest.mark.parametrize("Est", [DEE, DSNE])
def test_single_class_is_rejected(Est):
    X, _ = make_classes()
    with pytest.raises(ValueError, match="at least 2 classes"):
        Est().fit(X, np.zeros(len(X)))


# ----- DSNE -------------------------------------------------------------------------------
@pytest.mark.parametrize("cache", [True, False])
def test_dsne_objective_and_gradient(tiny, cache):
    X, y, A = tiny
    kw = {} if cache else dict(cache_bytes=0, block_rows=4)
    ob = _DSNEObjective(X, y, 0.9, **kw)
    E, G = ob.value_grad(A)
    assert E == pytest.approx(dsne_brute(A, X, y, 0.9), rel=1e-10)
    G_fd = central_fd(lambda B: ob.value_grad(B)[0], A)
    assert rel_err(G, G_fd) < 1e-6


@pytest.mark.parametrize("intra_mass", [0.5, 0.9])
@pytest.mark.parametrize("cache", [True, False])
def test_dsne_joint_objective_and_gradient(tiny, intra_mass, cache):
    X, y, A = tiny
    kw = {} if cache else dict(cache_bytes=0, block_rows=4)
    ob = _DSNEObjective(X, y, 0.9, normalization="joint", intra_mass=intra_mass, **kw)
    E, G = ob.value_grad(A)
    assert E == pytest.approx(dsne_brute(A, X, y, 0.9, joint=True, intra_mass=intra_mass),
                              rel=1e-10)
    assert rel_err(G, central_fd(lambda B: ob.value_grad(B)[0], A)) < 1e-6


def test_dsne_joint_separates_classes_where_classwise_does_not():
    """The class-wise objective has no term comparing same- and different-class distances;
    the joint normaliser has, and its optimum puts same-class pairs closer."""
    X, y = make_classes(n_per_class=(20, 20, 20), n_features=5, sep=1.0)

    def ratio(est):
        Z = est.transform(X)
        D2 = np.sum((Z[:, None] - Z[None]) ** 2, axis=-1)
        same = (y[:, None] == y[None]) & ~np.eye(len(y), dtype=bool)
        return D2[y[:, None] != y[None]].mean() / D2[same].mean()

    joint = DSNE(max_iter=200, cv=None).fit(X, y)
    classwise = DSNE(max_iter=200, normalization="classwise", cv=None).fit(X, y)
    start = DSNE(max_iter=0).fit(X, y)
    assert ratio(joint) > 1.5 * ratio(start)
    assert ratio(joint) > 1.5 * ratio(classwise)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(normalization="global"), "normalization must be one of"),
        (dict(intra_mass=1.0), r"intra_mass must be a real number in the open interval"),
        (dict(intra_mass=0), r"intra_mass must be a real number in the open interval"),
        (dict(intra_mass="half"), r"intra_mass must be a real number in the open interval"),
    ],
)
def test_dsne_bad_new_parameters(params, match):
    X, y = make_classes()
    with pytest.raises(ValueError, match=match):
        DSNE(**params).fit(X, y)


def test_dsne_fit_decreases_kl_and_bad_input():
    X, y = make_classes()
    est = DSNE(max_iter=40, cv=None).fit(X, y)
    obj = [est.initial_objective_] + est.history_["objective"]
    assert np.all(np.diff(obj) <= 0) and obj[-1] < obj[0]
    assert est.objective_ >= 0  # a sum of KL divergences
    np.testing.assert_array_equal(est.transform(X), (X - est.mean_) @ est.components_.T)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        DSNE(optimizer="ld").fit(X, y)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        DSNE(sigma=0).fit(X, y)
    with pytest.raises(ValueError, match="n_components=9 is too large"):
        DSNE(n_components=9).fit(X, y)


# ----- unsupervised elastic embedding -----------------------------------------------------------
def test_ee_gradient_and_objective():
    r = np.random.default_rng(0)
    n = 10
    X = r.normal(size=(n, 3))
    P = r.random((n, n)) * (r.random((n, n)) > 0.5)
    P = P + P.T
    np.fill_diagonal(P, 0)
    ob = _EEObjective(X, 2.0, P)
    Y = r.normal(size=(n, 2))
    E, G = ob.value_grad(Y)
    Wp = P / P.sum()
    Wn = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    Wn /= Wn.sum()
    Dy = np.sum((Y[:, None] - Y[None]) ** 2, axis=-1)
    assert E == pytest.approx(np.sum(Wp * Dy) + 2.0 * np.sum(Wn * np.exp(-Dy)), rel=1e-12)
    assert rel_err(G, central_fd(lambda Z: ob.value_grad(Z)[0], Y)) < 1e-6


@pytest.mark.parametrize("optimizer", ["sd", "fp", "cg", "gd"])
def test_ee_fit(optimizer):
    X, _ = make_classes()
    est = ElasticEmbedding(optimizer=optimizer, max_iter=40)
    Y = est.fit_transform(X)
    assert Y.shape == (len(X), 2) and np.all(np.isfinite(Y))
    obj = [est.initial_objective_] + est.history_["objective"]
    assert np.all(np.diff(obj) <= 0) and obj[-1] < obj[0]
    assert not hasattr(est, "transform")
    with pytest.raises(ValueError, match="lam must be > 0"):
        ElasticEmbedding(lam=0).fit(X)


# ----- inner validation against the start ---------------------------------------------------
def _start_errors_by_hand(X, y, start_components, n_folds=3):
    """1-NN misclassifications of the held-out folds in a fixed projection (scikit-learn's
    KNeighborsClassifier; the start is the same projection in every fold up to scale). The
    folds are the documented content-keyed folds (graphdr.blocks.sampling)."""
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.blocks.sampling import row_keys, stratified_folds

    Z = (X - X.mean(axis=0)) @ start_components.T
    wrong = np.zeros(len(y), dtype=bool)
    for tr, va in stratified_folds(y, n_folds, row_keys(X)):
        pred = KNeighborsClassifier(1, algorithm="brute").fit(Z[tr], y[tr]).predict(Z[va])
        wrong[va] = pred != y[va]
    return wrong


@pytest.mark.parametrize("Est", [DEE, DSNE])
def test_inner_validation_keeps_the_start_unless_the_optimum_wins(Est):
    def make(**kw):
        return Est(**{"n_components": 2, "max_iter": 40, **kw})

    X, y = make_classes(n_per_class=(25, 25, 25), n_features=6, sep=1.0)
    start = make(max_iter=0, **({"shrinkage": 0.0} if Est is DEE else {})).fit(X, y)
    # the start's held-out error, recomputed independently
    wrong0 = _start_errors_by_hand(X, y, start.components_)
    loose = make(significance=1.0).fit(X, y)
    assert loose.cv_errors_[0] == pytest.approx(wrong0.mean())
    # at level 1 the projection with fewer held-out errors is kept
    assert loose.checkpoint_ == int(loose.cv_errors_[1] < loose.cv_errors_[0])
    # at a level no small fold can reach, the start is returned without iterating
    strict = make(significance=1e-12).fit(X, y)
    assert strict.checkpoint_ == 0 and strict.n_iter_ == 0
    np.testing.assert_allclose(strict.components_, start.components_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(strict.cv_errors_, loose.cv_errors_)


def test_inner_validation_keeps_an_optimum_that_clearly_wins():
    """Class differences along the lowest-variance axis: the PCA start misses them, DSNE finds
    them, and the held-out gain is far beyond noise."""
    r = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 40)
    X = r.normal(size=(120, 5)) * np.array([5.0, 4.0, 3.0, 2.0, 0.3])
    X[:, 4] += 2.0 * y
    est = DSNE(n_components=2, max_iter=100).fit(X, y)
    assert est.checkpoint_ == 1 and est.n_iter_ > 0
    assert est.cv_errors_[1] < est.cv_errors_[0] - 0.3
    off = DSNE(n_components=2, max_iter=100, cv=None).fit(X, y)
    assert off.cv_errors_ is None and off.checkpoint_ == 1
    np.testing.assert_allclose(est.components_, off.components_, rtol=1e-10, atol=1e-12)


def test_inner_validation_verbose_and_bad_parameters(capsys):
    X, y = make_classes()
    DSNE(max_iter=5, verbose=1).fit(X, y)
    assert "inner validation 1-NN error: start" in capsys.readouterr().out
    for bad in (0, 1.5, "0.05", None):
        with pytest.raises(ValueError, match="significance must be a float in"):
            DSNE(significance=bad).fit(X, y)
    with pytest.raises(ValueError, match="significance must be a float in"):
        DEE(significance=0).fit(X, y)
    with pytest.raises(ValueError, match="cv must be an integer"):
        DSNE(cv=1).fit(X, y)


# ----- scikit-learn contract ----------------------------------------------------------------------
def _expected_failures(estimator):
    """The default inner validation may keep the starting projection: the final fit then runs
    no iteration and reports ``n_iter_ = 0``, which ``check_transformer_n_iter`` rejects."""
    validated = (isinstance(estimator, DSNE) and estimator.cv is not None) or (
        isinstance(estimator, DEE) and estimator.shrinkage == "auto"
        and estimator.significance is not None)
    return {"check_transformer_n_iter": "the inner validation may keep the start (n_iter_=0)"
            } if validated else {}


@parametrize_with_checks(
    [
        DEE(max_iter=5),
        DEE(max_iter=5, significance=None),
        DSNE(max_iter=5, cv=None),
        DEE(optimizer="cg", max_iter=5, shrinkage=0.5),
        DSNE(max_iter=5),
        DSNE(max_iter=5, normalization="classwise"),
        ElasticEmbedding(max_iter=5, n_neighbors=3),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
