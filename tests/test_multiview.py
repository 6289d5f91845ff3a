import numpy as np
import pytest
from conftest import make_classes, max_angle
from sklearn.base import clone
from sklearn.metrics.pairwise import chi2_kernel, manhattan_distances, rbf_kernel
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import graphdr
from graphdr.multiview import (
    KFD,
    KFDSAMME,
    MKLDR,
    KFDVoting,
    ViewKernel,
    check_views,
    make_multiview_digits,
    make_view_kernels,
)


def centred(K):
    n = len(K)
    H = np.eye(n) - 1.0 / n
    return H @ K @ H


# ----- base kernels ---------------------------------------------------------------------
def test_rbf_view_kernel_default_sigma_centring_and_scale(rng):
    X = rng.normal(size=(30, 4))
    vk = ViewKernel("rbf")
    K = vk.fit_kernel(X)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    sigma2 = d2[~np.eye(30, dtype=bool)].mean()
    assert vk.sigma_ == pytest.approx(np.sqrt(sigma2))
    ref = centred(rbf_kernel(X, gamma=1 / sigma2))
    np.testing.assert_allclose(K, ref * 30 / np.trace(ref), atol=1e-12)
    assert np.mean(np.diag(K)) == pytest.approx(1.0)
    Kt = ViewKernel("rbf", normalize="trace").fit_kernel(X)
    assert np.trace(Kt) == pytest.approx(1.0)
    # new rows: centred with the training statistics; the training rows are reproduced
    np.testing.assert_allclose(vk.transform(X), K, atol=1e-12)
    Xn = rng.normal(size=(5, 4))
    Kn = rbf_kernel(Xn, X, gamma=1 / sigma2)
    Kraw = rbf_kernel(X, gamma=1 / sigma2)
    Kn_c = Kn - Kn.mean(1, keepdims=True) - Kraw.mean(0) + Kraw.mean()
    np.testing.assert_allclose(vk.transform(Xn), Kn_c * 30 / np.trace(ref), atol=1e-12)


def test_chi2_and_linear_view_kernels(rng):
    H = rng.random((25, 6))
    H /= H.sum(1, keepdims=True)
    vk = ViewKernel("chi2", sigma=0.5, normalize=None)
    np.testing.assert_allclose(vk.fit_kernel(H), centred(chi2_kernel(H, gamma=4.0)), atol=1e-12)
    with pytest.raises(ValueError, match="non-negative"):
        ViewKernel("chi2").fit_kernel(H - 0.5)
    X = rng.normal(size=(20, 3))
    np.testing.assert_allclose(ViewKernel("linear", normalize=None).fit_kernel(X),
                               centred(X @ X.T), atol=1e-12)


def test_indefinite_distance_kernel_is_repaired(rng):
    X = rng.normal(size=(40, 5))
    raw = np.exp(-manhattan_distances(X) ** 2 / 64.0)
    assert np.linalg.eigvalsh(raw).min() < -1e-2  # this kernel is indefinite
    vk = ViewKernel("distance", metric="manhattan", sigma=8.0, normalize=None)
    K = vk.fit_kernel(X)
    assert vk.psd_basis_ is not None
    assert np.linalg.eigvalsh(K).min() > -1e-10
    lam, U = np.linalg.eigh(raw)
    np.testing.assert_allclose(K, centred((U * np.maximum(lam, 0)) @ U.T), atol=1e-8)
    np.testing.assert_allclose(vk.transform(X), K, atol=1e-8)
    # precomputed indefinite matrices are repaired too; PSD ones are left alone
    assert ViewKernel("precomputed").fit(raw).psd_basis_ is not None
    assert ViewKernel("precomputed").fit(rbf_kernel(X)).psd_basis_ is None


@pytest.mark.parametrize("spec", [
    dict(kernel="rbf"),
    dict(kernel="rbf", sigma=1.5, normalize="trace"),
    dict(kernel="chi2"),
    dict(kernel="linear", normalize=None),
    dict(kernel="distance", metric="manhattan"),  # indefinite: repaired by both paths
])
def test_nystroem_features_with_all_landmarks_give_the_exact_kernel(rng, spec):
    X = rng.random((50, 4))
    Xn = rng.random((6, 4))
    exact = ViewKernel(**spec)
    K = exact.fit_kernel(X)
    approx = ViewKernel(**spec)
    Phi = approx.fit_features(X, rng.permutation(50))
    assert Phi.shape[0] == 50 and Phi.shape[1] <= 50
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-10)
    np.testing.assert_allclose(approx.transform_features(X), Phi, atol=1e-12)
    np.testing.assert_allclose(approx.transform_features(Xn) @ Phi.T, exact.transform(Xn),
                               atol=1e-10)
    if exact.sigma_ is not None:
        assert approx.sigma_ == pytest.approx(exact.sigma_, rel=1e-12)


def test_nystroem_features_with_few_landmarks_match_scikit_learn(rng):
    from sklearn.kernel_approximation import Nystroem

    X = rng.normal(size=(60, 3))
    idx = np.random.RandomState(0).permutation(60)[:15]
    vk = ViewKernel("rbf", sigma=2.0)
    Phi = vk.fit_features(X, idx)
    # scikit-learn picks the same landmarks from the same seed: K_nm K_mm^-1 K_mn
    sk = Nystroem(gamma=1 / 4.0, n_components=15, random_state=0).fit(X)
    np.testing.assert_array_equal(np.sort(sk.component_indices_), np.sort(idx))
    F = sk.transform(X)
    Kc = centred(F @ F.T)
    np.testing.assert_allclose(Phi @ Phi.T, Kc * 60 / np.trace(Kc), atol=1e-8)
    Xn = rng.normal(size=(4, 3))
    Fn = sk.transform(Xn)
    ref = (Fn - F.mean(0)) @ (F - F.mean(0)).T * 60 / np.trace(Kc)
    np.testing.assert_allclose(vk.transform_features(Xn) @ Phi.T, ref, atol=1e-8)


def test_nystroem_data_driven_sigma(rng):
    X = rng.random((37, 3))
    off = ~np.eye(37, dtype=bool)
    # rbf: the exact mean over pairs of distinct samples (closed form), whatever the landmarks
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    vk = ViewKernel("rbf")
    vk.fit_features(X, [3, 5, 8])
    assert vk.sigma_ ** 2 == pytest.approx(d2[off].mean(), rel=1e-12)
    # other distances: the mean over the pairs (sample, landmark) of distinct samples
    idx = np.array([30, 2, 11, 7])
    for spec in (dict(kernel="chi2"), dict(kernel="distance", metric="manhattan")):
        vk = ViewKernel(**spec)
        vk.fit_features(X, idx)
        D2 = vk._sq_dist(X, X)
        assert vk.sigma_ ** 2 == pytest.approx(D2[:, idx][off[:, idx]].mean(), rel=1e-12)


def test_nystroem_feature_errors(rng):
    X = rng.normal(size=(10, 3))
    with pytest.raises(ValueError, match="needs the kernel function"):
        ViewKernel("precomputed").fit_features(rbf_kernel(X), np.arange(5))
    with pytest.raises(ValueError, match="constant"):
        ViewKernel("rbf").fit_features(np.ones((10, 3)), np.arange(5))
    vk = ViewKernel("rbf")
    vk.fit_features(X, np.arange(5))
    with pytest.raises(ValueError, match="use transform_features"):
        vk.transform(X)
    with pytest.raises(ValueError, match="2 features but was fitted with 3"):
        vk.transform_features(X[:, :2])
    with pytest.raises(ValueError, match="needs fit_features"):
        ViewKernel("rbf").fit(X).transform_features(X)


def test_view_kernel_errors(rng):
    X = rng.normal(size=(10, 3))
    with pytest.raises(ValueError, match="square"):
        ViewKernel("precomputed").fit(rbf_kernel(X)[:, :5])
    vk = ViewKernel("precomputed").fit(rbf_kernel(X))
    with pytest.raises(ValueError, match="10 columns"):
        vk.transform(rbf_kernel(X)[:, :5])
    with pytest.raises(ValueError, match="constant"):
        ViewKernel("rbf").fit(np.ones((10, 3)))
    with pytest.raises(ValueError, match="kernel must be one of"):
        ViewKernel("poly").fit(X)
    with pytest.raises(ValueError, match="2 features but was fitted with 3"):
        ViewKernel("rbf").fit(X).transform(X[:, :2])
    with pytest.raises(ValueError, match="one per view"):
        make_view_kernels(["rbf"], 2)
    with pytest.raises(ValueError, match="kernels\\[0\\]"):
        make_view_kernels(3.0, 1)


def test_check_views_errors(rng):
    X = rng.normal(size=(10, 3))
    assert len(check_views([X, X[:, :1]])) == 2
    with pytest.raises(ValueError, match="same number of rows"):
        check_views([X, X[:7]])
    with pytest.raises(ValueError, match="empty list"):
        check_views([])
    with pytest.raises(ValueError, match="list of views"):
        check_views(X)
    with pytest.raises(ValueError, match="2-D"):
        check_views([X[:, 0]])
    bad = X.copy()
    bad[2, 2] = np.nan
    with pytest.raises(ValueError, match="View 1 contains NaN"):
        check_views([X, bad])
    with pytest.raises(ValueError, match="fitted on 3"):
        check_views([X, X], n_views=3)


# ----- baselines ------------------------------------------------------------------------
@parametrize_with_checks([KFD()])
def test_kfd_sklearn_contract(estimator, check):
    check(estimator)


def test_kfd_is_kernel_lda_plus_1nn():
    X, y = make_classes(seed=11)
    Xtr, ytr, Xte = X[::2], y[::2], X[1::2]
    kfd = KFD(kernel={"kernel": "rbf", "sigma": 3.0}).fit(Xtr, ytr)
    kl = graphdr.KernelLDA(gamma=1 / 9.0, reg=1e-3).fit(Xtr, ytr)
    assert max_angle(kfd.embedding_, kl.embedding_) < 1e-6
    assert max_angle(kfd.transform(Xte), kl.transform(Xte)) < 1e-6
    ref = KNeighborsClassifier(1).fit(kfd.embedding_, ytr).predict(kfd.transform(Xte))
    np.testing.assert_array_equal(kfd.predict(Xte), ref)


def test_kfd_nystroem_with_every_landmark_matches_the_exact_kfd():
    """approximation='nystroem' with all samples as landmarks: LDA on features F with
    F F^T = the processed kernel spans kernel LDA's embedding (tiny ridge in both)."""
    X, y = make_classes(seed=12)
    Xtr, ytr, Xte = X[::2], y[::2], X[1::2]
    spec = {"kernel": "rbf", "sigma": 3.0}
    exact = KFD(kernel=spec, reg=1e-9, approximation=None).fit(Xtr, ytr)
    nys = KFD(kernel=spec, reg=1e-9, approximation="nystroem", n_landmarks=len(ytr),
              random_state=0).fit(Xtr, ytr)
    assert exact.approximation_ is None and nys.approximation_ == "nystroem"
    assert max_angle(nys.embedding_, exact.embedding_) < 1e-4
    assert max_angle(nys.transform(Xte), exact.transform(Xte)) < 1e-4


@parametrize_with_checks([KFD(discriminant="lde", n_components=2)])
def test_klde_sklearn_contract(estimator, check):
    check(estimator)


def test_klde_is_single_view_mkl_lde_and_differs_from_kfd():
    """KFD(discriminant='lde') on one view is MKL-LDE with that view alone (the same LDE graphs
    from the kernel-induced distance, the same ridge): equal subspaces and eigenvalues; and it
    is not KFD. Its Nystroem route with every sample a landmark is LDE on features F with
    F F^T = the base kernel, which spans the exact route's embedding."""
    X, y = make_classes(n_per_class=(20, 25, 22, 24), seed=14)
    Xtr, ytr, Xte = X[::2], y[::2], X[1::2]
    spec = {"kernel": "rbf", "sigma": 3.0}
    klde = KFD(kernel=spec, discriminant="lde", n_components=2, approximation=None)
    klde.fit(Xtr, ytr)
    mkl = MKLDR(graph="lde", kernels=[spec], n_components=2, approximation=None, max_iter=1,
                weight_shrinkage=0.0).fit([Xtr], ytr)
    assert max_angle(klde.transform(Xte), mkl.transform([Xte])) < 1e-6
    np.testing.assert_allclose(klde.kfd_.eigenvalues_, mkl.eigenvalues_, rtol=1e-6)
    kfd = KFD(kernel=spec, n_components=2, approximation=None).fit(Xtr, ytr)
    assert max_angle(kfd.transform(Xte), klde.transform(Xte)) > 1e-2
    nys = KFD(kernel=spec, discriminant="lde", n_components=2, reg=1e-3,
              approximation="nystroem", n_landmarks=len(ytr), random_state=0).fit(Xtr, ytr)
    assert isinstance(nys.kfd_, graphdr.LDE)
    assert max_angle(nys.transform(Xte), klde.transform(Xte)) < 1e-3


def test_klde_ensembles_use_klde_learners_and_refuse_an_unknown_discriminant():
    X, y = make_classes(n_per_class=(20, 25, 22), seed=15)
    views = [X[:, :3], X[:, 2:]]
    for make in (KFDVoting, lambda **kw: KFDSAMME(n_estimators=3, **kw)):
        est = make(discriminant="lde", n_neighbors=3, n_neighbors_between=6,
                   n_components=2).fit(views, y)
        assert all(isinstance(e.kfd_, graphdr.GraphEmbedding) for e in est.estimators_)
        assert all(e.n_neighbors == 3 for e in est.estimators_)
        assert est.score(views, y) > 0.8
        with pytest.raises(ValueError, match="discriminant"):
            make(discriminant="pca").fit(views, y)


def test_kfd_baselines_take_landmarks_above_the_auto_threshold(monkeypatch):
    from graphdr.graph_embedding import spaces

    X, y = make_classes(n_per_class=(30, 30, 30), seed=13)
    monkeypatch.setattr(spaces, "AUTO_EXACT_EIGEN_MAX", 50)
    kfd = KFD(n_landmarks=20, random_state=0).fit(X, y)
    assert kfd.approximation_ == "nystroem" and kfd.view_kernel_.landmarks_.shape[0] == 20
    assert kfd.score(X, y) > 0.8
    views = [X[:, :3], X[:, 2:]]
    vote = KFDVoting(n_landmarks=20, random_state=0).fit(views, y)
    assert all(e.approximation_ == "nystroem" for e in vote.estimators_)
    samme = KFDSAMME(n_landmarks=20, random_state=0, n_estimators=3).fit(views, y)
    assert all(e.approximation_ == "nystroem" for e in samme.estimators_)
    with pytest.raises(ValueError, match="approximation"):
        KFD(approximation="fast").fit(X, y)


def brute_vote(labels, n_classes):
    """Reference of KFD-Voting's rule: cumulative votes of the 1st, 2nd, ... neighbours."""
    out = []
    for L in labels:  # M x k
        votes = np.zeros(n_classes)
        choice = None
        for j in range(L.shape[1]):
            for m in range(L.shape[0]):
                votes[L[m, j]] += 1
            top = np.flatnonzero(votes == votes.max())
            if len(top) == 1:
                choice = top[0]
                break
        out.append(np.argmax(votes) if choice is None else choice)
    return np.array(out)


@pytest.fixture(scope="module")
def small_digits():
    d = make_multiview_digits(views=("pixels", "moments", "noise"), n_samples=200, random_state=3)
    tr = np.arange(200) < 140
    return d, tr


def test_kfd_voting_rule(small_digits):
    d, tr = small_digits
    Vtr, Vte = [V[tr] for V in d.views], [V[~tr] for V in d.views]
    vote = KFDVoting(kernels=d.kernels, max_neighbors=5).fit(Vtr, d.target[tr])
    labels = np.stack([est.neighbour_labels(V, 5) for est, V in zip(vote.estimators_, Vte)], 1)
    np.testing.assert_array_equal(vote.predict(Vte), vote.classes_[brute_vote(labels, 10)])
    assert np.mean(vote.predict(Vte) != d.target[~tr]) < 0.5
    with pytest.raises(ValueError, match="fitted on 3"):
        vote.predict(Vte[:2])


def test_kfd_samme_weights_and_vote(small_digits):
    d, tr = small_digits
    Vtr, Vte = [V[tr] for V in d.views], [V[~tr] for V in d.views]
    y = d.target[tr]
    est = KFDSAMME(kernels=d.kernels, n_estimators=5).fit(Vtr, y)
    # cross-fitted mistakes: view m's KFD fitted without the fold, 1-NN on the fold; the
    # folds are dealt by the rows' content (graphdr.blocks.sampling), the same whatever the row order
    from graphdr.blocks.sampling import row_keys, stratified_folds

    precomputed = [getattr(k, "kernel", k) == "precomputed" for k in d.kernels]
    wrong = np.zeros((3, len(y)), dtype=bool)
    for a, b in stratified_folds(y, 3, row_keys(Vtr, precomputed=precomputed)):
        for m in range(3):
            kfd = KFD(kernel=d.kernels[m]).fit(Vtr[m][a], y[a])
            wrong[m, b] = kfd.predict(Vtr[m][b]) != y[b]
    np.testing.assert_array_equal(est.training_mistakes_, wrong)
    assert wrong[2].mean() > 0.6  # the noise view's learner is near chance
    # replay SAMME: weighted errors, alpha = log((1-e)/e) + log(C-1)
    w = np.full(len(y), 1 / len(y))
    for m, a, e in zip(est.learner_indices_, est.learner_weights_, est.learner_errors_):
        err = wrong @ w
        assert m == np.argmin(err) and e == pytest.approx(err[m])
        if e == 0:  # a perfect learner ends boosting and votes alone
            assert a == 1.0 and len(est.learner_indices_) == 1
            break
        assert a == pytest.approx(np.log((1 - e) / e) + np.log(9))
        w = w * np.exp(a * wrong[m])
        w /= w.sum()
    assert 2 not in est.learner_indices_[:1]  # the noise view is never the first learner
    scores = np.zeros((int((~tr).sum()), 10))
    for m, a in zip(est.learner_indices_, est.learner_weights_):
        scores[np.arange(len(scores)), est.estimators_[m].neighbour_labels(Vte[m], 1)[:, 0]] += a
    np.testing.assert_array_equal(est.predict(Vte), est.classes_[scores.argmax(1)])
    assert clone(est).get_params() == est.get_params()
    loo = KFDSAMME(kernels=d.kernels, n_estimators=5, cv=None).fit(Vtr, y)
    np.testing.assert_array_equal(
        loo.training_mistakes_,
        np.stack([k.neighbour_labels(None, 1)[:, 0] != y for k in loo.estimators_]))


# ----- data set -------------------------------------------------------------------------
def test_make_multiview_digits():
    d = make_multiview_digits(views=("pixels", "orientation", "fourier", "moments", "profiles",
                                     "noise"))
    assert [V.shape for V in d.views] == [(1797, 16), (1797, 32), (1797, 16), (1797, 10),
                                          (1797, 16), (1797, 16)]
    H = d.views[1]
    assert np.all(H >= 0) and np.allclose(H.sum(1), 1.0)
    assert d.kernels[1] == "chi2" and len(d.descriptions) == 6
    noise = d.views[5]
    # the noise view carries no class information: class means are within noise level
    means = np.array([noise[d.target == c].mean(0) for c in range(10)])
    assert np.abs(means).max() < 0.5
    Xs, y = make_multiview_digits(views=("pixels",), n_samples=2000, return_X_y=True)
    assert Xs[0].shape == (2000, 16) and y.shape == (2000,)
    with pytest.raises(ValueError, match="views must be"):
        make_multiview_digits(views=("colour",))
