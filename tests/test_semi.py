"""Partially labelled data (issue 38): y = -1 marks an unlabelled sample.

Oracles: semi-supervised discriminant analysis (SDA) as the explicit generalized eigenproblem on
a tiny input; the supervised fit when every sample is labelled; a brute-force leave-one-out
for the closed-form choice of the smoothing weight.
"""

import numpy as np
import pytest
from conftest import make_classes, max_angle
from scipy import linalg
from sklearn.neighbors import NearestNeighbors

import graphdr
from graphdr._validation import SEMI_SUPERVISED
from graphdr.tuning import press_smoothing

GRAPH_SEMI = ["LDA", "KernelLDA", "LQMI", "KQMI", "MFA", "LDE"]


def _partial(n_per_class=(20, 24, 18), seed=3, every=3, n_features=5):
    X, y = make_classes(n_per_class=n_per_class, n_features=n_features, seed=seed)
    ys = y.copy()
    ys[np.arange(len(y)) % every != 0] = -1  # two thirds unlabelled, every class keeps some
    return X, y, ys


def _make(name, **kw):
    return getattr(graphdr, name)(**kw)


def _numerical_gradient(f, A, h=1e-6):
    """Central differences of the scalar function ``f`` at ``A``."""
    out = np.zeros_like(A)
    for idx in np.ndindex(A.shape):
        E = np.zeros_like(A)
        E[idx] = h
        out[idx] = (f(A + E) - f(A - E)) / (2 * h)
    return out


def _binary_knn_laplacian(X, k):
    nn = NearestNeighbors(n_neighbors=k + 1).fit(X)
    _, idx = nn.kneighbors(X)
    n = X.shape[0]
    W = np.zeros((n, n))
    for i in range(n):
        W[i, idx[i, 1:]] = 1.0
    W = np.maximum(W, W.T)
    return np.diag(W.sum(axis=1)) - W


def test_sda_is_the_explicit_generalized_eigenproblem():
    """LDA with unlabelled samples: max v'S_b v / v'(S_t + a J_hat + eps I) v, with S_b and S_t of
    the labelled samples, J = X'L X of the binary kNN graph over all samples scaled to the
    trace of S_t (Cai, He & Han 2007), and eps = reg * tr(S_t) / rank."""
    X, _, ys = _partial()
    alpha, reg, k = 0.7, 0.05, 6
    lab = ys >= 0
    Xl = X[lab] - X[lab].mean(axis=0)
    St = Xl.T @ Xl
    Sw = sum((Xl[ys[lab] == c] - Xl[ys[lab] == c].mean(axis=0)).T
             @ (Xl[ys[lab] == c] - Xl[ys[lab] == c].mean(axis=0)) for c in range(3))
    Sb = St - Sw
    Xc = X - X.mean(axis=0)
    J = Xc.T @ _binary_knn_laplacian(X, k) @ Xc
    J *= np.trace(St) / np.trace(J)
    eps = reg * np.trace(St) / X.shape[1]
    lam, V = linalg.eigh(Sb, St + alpha * J + eps * np.eye(X.shape[1]))
    est = graphdr.LDA(n_components=2, reg=reg, smoothing=alpha, smoothing_neighbors=k,
                      scaling="total", unlabelled="smooth").fit(X, ys)
    assert est.smoothing_ == alpha
    assert max_angle(est.components_.T, V[:, -2:]) < 1e-8
    np.testing.assert_allclose(est.eigenvalues_, 1.0 - lam[::-1][:2], rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("name", ["LQMI", "MFA"])
def test_smoothing_joins_the_denominator_of_the_maximised_ratio(name):
    """LQMI maximises the QMI form over S_t + a J_hat; MFA minimises intrinsic + a J_hat over
    the penalty scatter (the labelled samples' graphs)."""
    X, _, ys = _partial()
    alpha, k = 0.3, 6
    lab = np.flatnonzero(ys >= 0)
    Xc = X - X.mean(axis=0)
    Xl = X[lab] - X[lab].mean(axis=0)
    St = Xl.T @ Xl
    J = Xc.T @ _binary_knn_laplacian(X, k) @ Xc
    J *= np.trace(St) / np.trace(J)
    if name == "LQMI":
        from graphdr.qmi import qmi_graph

        M = qmi_graph(ys).toarray()
        A, B = Xc.T @ M @ Xc, St + alpha * J
        est = graphdr.LQMI(n_components=2, reg=0.0, smoothing=alpha, smoothing_neighbors=k,
                           scaling="total", unlabelled="smooth").fit(X, ys)
        lam, V = linalg.eigh(A, B)
        V = V[:, ::-1]
    else:
        from graphdr.graph_embedding.linear import class_neighbour_graphs

        Wi, Wp = class_neighbour_graphs(X, ys, 5, 20, weights="binary")
        Li = graphdr.blocks.graphs.laplacian(Wi).toarray()
        Lp = graphdr.blocks.graphs.laplacian(Wp).toarray()
        A, B = Xc.T @ Li @ Xc + alpha * J, Xc.T @ Lp @ Xc
        est = graphdr.MFA(n_components=2, smoothing=alpha, smoothing_neighbors=k,
                          unlabelled="smooth").fit(X, ys)
        lam, V = linalg.eigh(A, B)
    assert max_angle(est.components_.T, V[:, :2]) < 1e-7


@pytest.mark.parametrize("name", GRAPH_SEMI)
def test_every_sample_labelled_is_the_supervised_fit(name):
    """With no -1 the smoothness term is absent (smoothing_ = 0) and the fit is the
    supervised one, whatever smoothing says."""
    X, y, _ = _partial()
    a = _make(name).fit(X, y)
    b = _make(name, smoothing=5.0).fit(X, y)
    assert a.smoothing_ == 0.0 and b.smoothing_ == 0.0
    np.testing.assert_array_equal(a.transform(X), b.transform(X))


@pytest.mark.parametrize("name", GRAPH_SEMI)
@pytest.mark.parametrize("kind", ["int", "str", "object"])
def test_minus_one_is_never_a_class(name, kind):
    X, y, ys = _partial()
    if kind == "int":
        yk = ys
    elif kind == "str":
        yk = np.array([f"c{c}" if c >= 0 else "-1" for c in ys])
    else:
        yk = np.array([f"c{c}" if c >= 0 else -1 for c in ys], dtype=object)
    est = _make(name).fit(X, yk)
    assert len(est.classes_) == 3 and "-1" not in [str(c) for c in est.classes_]
    Z = est.transform(X)
    assert np.all(np.isfinite(Z)) and Z.shape[0] == X.shape[0]
    assert est.smoothing_ >= 0.0


@pytest.mark.parametrize("name", GRAPH_SEMI)
def test_too_few_labels_are_refused_clearly(name):
    X, y, _ = _partial()
    with pytest.raises(ValueError, match="every one of the .* samples is labelled -1"):
        _make(name).fit(X, np.full(len(y), -1))
    one = np.where(y == 0, 0, -1)
    with pytest.raises(ValueError, match="at least 2 classes.*more samples are unlabelled"):
        _make(name).fit(X, one)


@pytest.mark.parametrize("name", ["LDA", "KernelLDA", "KQMI", "LDE"])
@pytest.mark.slow
def test_row_order_and_refit_give_the_same_model(name):
    X, _, ys = _partial()
    perm = np.random.default_rng(1).permutation(len(ys))
    a = _make(name).fit(X, ys)
    b = _make(name).fit(X[perm], ys[perm])
    c = _make(name).fit(X, ys)
    assert a.smoothing_ == b.smoothing_ == c.smoothing_
    np.testing.assert_array_equal(a.transform(X), c.transform(X))
    # the embedding is unique up to the sign convention: compare distances
    Za, Zb = a.transform(X), b.transform(X)
    da = np.linalg.norm(Za[:, None] - Za[None], axis=2)
    db = np.linalg.norm(Zb[:, None] - Zb[None], axis=2)
    np.testing.assert_allclose(da, db, rtol=1e-6, atol=1e-8 * da.max())


def test_unlabelled_duplicates_of_labelled_rows_and_a_class_only_unlabelled():
    """Unlabelled rows that repeat labelled ones, and a class with no labelled sample in the
    training data (its samples only unlabelled): finite embeddings, two classes."""
    X, y, ys = _partial()
    Xd = np.vstack([X, X[ys >= 0]])
    yd = np.concatenate([ys, np.full(np.count_nonzero(ys >= 0), -1)])
    for name in GRAPH_SEMI:
        est = _make(name).fit(Xd, yd)
        assert np.all(np.isfinite(est.transform(Xd)))
    y2 = np.where(y == 2, -1, ys)
    est = graphdr.KernelLDA().fit(X, y2)
    assert list(est.classes_) == [0, 1]
    assert np.all(np.isfinite(est.transform(X)))


def test_press_smoothing_is_the_brute_force_leave_one_out():
    """The closed form against refitting the penalised regression without each labelled
    sample in turn."""
    X, _, ys = _partial(n_per_class=(8, 9, 7), n_features=4)
    Z = X - X.mean(axis=0)
    L = _binary_knn_laplacian(X, 4)
    J = Z.T @ L @ Z / 50.0
    ridge, grid = 0.3, np.array([0.0, 0.5, 4.0])
    _, res = press_smoothing(Z, ys, J, ridge, grid=grid)
    lab = np.flatnonzero(ys >= 0)
    Y = np.eye(3)[ys[lab]]
    for alpha, press in zip(grid, res["mean_test_error"]):
        total = 0.0
        for i in range(len(lab)):
            keep = np.delete(np.arange(len(lab)), i)
            Zk = Z[lab[keep]]
            mz, my = Zk.mean(axis=0), Y[keep].mean(axis=0)
            coef = np.linalg.solve((Zk - mz).T @ (Zk - mz) + ridge * np.eye(4) + alpha * J,
                                   (Zk - mz).T @ (Y[keep] - my))
            pred = my + (Z[lab[i]] - mz) @ coef
            total += np.sum((Y[i] - pred) ** 2)
        np.testing.assert_allclose(press, total / len(lab), rtol=1e-8)


def test_smoothing_auto_uses_the_unlabelled_samples():
    """scikit-learn's digits, 70 / 30 split, 5 % of the training labels (63): kernel LDA with
    the unlabelled samples (smoothing='auto') against kernel LDA of the labelled samples alone,
    1-NN of the test samples against the labelled ones (benchmarks/semi.py's protocol, seed 0:
    7.4 % against 12.4 %)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=0.3, stratify=y,
                                          random_state=0)
    rng = np.random.default_rng(0)
    ys = np.full(len(ytr), -1)
    for c in range(10):
        members = np.flatnonzero(ytr == c)
        ys[rng.choice(members, max(2, round(0.05 * len(members))), replace=False)] = c
    lab = ys >= 0
    semi = graphdr.KernelLDA(unlabelled="smooth").fit(Xtr, ys)
    only = graphdr.KernelLDA().fit(Xtr[lab], ys[lab])
    assert semi.smoothing_ > 0

    def error(est):
        knn = KNeighborsClassifier(1).fit(est.transform(Xtr[lab]), ys[lab])
        return np.mean(knn.predict(est.transform(Xte)) != yte)

    assert error(semi) < error(only) - 0.03


@pytest.mark.parametrize("name", sorted(set(GRAPH_SEMI) & set(SEMI_SUPERVISED)))
def test_dask_input_with_unlabelled_samples_is_refused(name):
    da = pytest.importorskip("dask.array")
    X, _, ys = _partial()
    if name in ("KernelLDA", "KQMI"):
        est = _make(name, approximation="nystroem", n_landmarks=20)
    elif name in ("MFA", "LDE"):
        return  # they compute a dask array and fit it in memory
    else:
        est = _make(name)
    with pytest.raises(ValueError, match="needs X in memory"):
        est.fit(da.from_array(X, chunks=20), da.from_array(ys, chunks=20))


# ----- DEEMap: unlabelled samples in the attraction graph -----------------------------------
def _brute_partial_objective(Y, A, y, lam_diff, lam_same, tether, lam_unlabelled=None):
    """The semi-supervised map objective pair by pair: lam_diff between labelled samples of
    different classes, lam_same between labelled samples of one class, lam_unlabelled
    (default lam_same) between every pair with an unlabelled sample, the tether on labelled
    samples."""
    lam_u = lam_same if lam_unlabelled is None else lam_unlabelled
    iu = np.triu_indices(len(Y), 1)
    D2 = np.sum((Y[:, None] - Y[None]) ** 2, axis=-1)[iu]
    both = ((y[:, None] >= 0) & (y[None] >= 0))[iu]
    diff = both & (y[:, None] != y[None])[iu]
    same = both & ~diff
    value = float(np.sum(A.toarray()[iu] * D2))
    value += (lam_diff * np.sum(np.exp(-D2[diff])) + lam_same * np.sum(np.exp(-D2[same]))
              + lam_u * np.sum(np.exp(-D2[~both])))
    for c in np.unique(y[y >= 0]):
        value += tether * np.sum((Y[y == c] - Y[y == c].mean(axis=0)) ** 2)
    return value


@pytest.mark.parametrize("lam_unlabelled", [None, 0.1])
def test_map_objective_with_unlabelled_samples_is_the_pairwise_formula(lam_unlabelled):
    from graphdr.maps.dee_map import _MapObjective
    from graphdr.maps.inputs import attraction_graph

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1, 2, 3], 10)
    y[::3] = -1
    A = attraction_graph(X, y, 3)
    # every unlabelled sample has edges; labelled samples of different classes none
    Ad = A.toarray()
    assert np.all(Ad[y < 0].sum(axis=1) > 0)
    lab = y >= 0
    assert not np.any(Ad[np.ix_(lab, lab)] * (y[lab][:, None] != y[lab][None]))
    Y = rng.normal(size=(40, 2)) * 1.5
    obj = _MapObjective(A, y, 4, lam_diff=2.0, lam_same=0.5, lam_unlabelled=lam_unlabelled)
    value, grad = obj.value_grad(Y)
    brute = _brute_partial_objective(Y, A, y, 2.0, 0.5, obj.tether, lam_unlabelled)
    assert abs(value - brute) <= 0.035 * len(Y) ** 2 / 10  # the grid field's error
    num = _numerical_gradient(
        lambda Y: _brute_partial_objective(Y, A, y, 2.0, 0.5, obj.tether, lam_unlabelled), Y,
        h=1e-5)
    assert np.corrcoef(grad.ravel(), num.ravel())[0, 1] > 0.999



def test_the_map_joins_unlabelled_samples_by_their_own_neighbour_count():
    """``n_neighbors_unlabelled`` sets the graph over all samples whose edges touch an
    unlabelled one; the graph within each class keeps ``n_neighbors``. With every sample
    labelled it does not enter at all (the same map, bit for bit)."""
    from graphdr.blocks.graphs import knn_graph, unlabelled_edges
    from graphdr.maps.inputs import attraction_graph

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = np.repeat([0, 1, 2], 20)
    ys = y.copy()
    ys[::4] = -1
    A = attraction_graph(X, ys, 6, n_neighbors_unlabelled=2)
    within = knn_graph(X, 6, y=ys, restrict="same")
    joined = unlabelled_edges(knn_graph(X, 2), ys)
    np.testing.assert_array_equal(A.toarray(), np.maximum(within.toarray(), joined.toarray()))
    assert (A != attraction_graph(X, ys, 6)).nnz > 0  # the default: n_neighbors for both
    a = graphdr.DEEMap(n_neighbors=5, n_neighbors_unlabelled=2, max_iter=10).fit(X, y)
    b = graphdr.DEEMap(n_neighbors=5, n_neighbors_unlabelled=9, max_iter=10).fit(X, y)
    assert np.array_equal(a.embedding_, b.embedding_)

def _digits_partial(n=500, every=10):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:n] / 16.0, y[:n]
    ys = np.where(np.arange(n) % every == 0, y, -1)
    return X, y, ys


@pytest.mark.slow
def test_deemap_maps_unlabelled_samples_near_their_class():
    """With the unlabelled samples in its graph, the map puts them among the labelled samples
    of their class about as often as 1-NN in the input space does (measured: 12 % wrong
    against 11 %), and as often as the map of the labelled samples alone places them with its
    chosen placement width (10.9 %; 29 % with the former fixed width)."""
    X, y, ys = _digits_partial()
    m = graphdr.DEEMap().fit(X, ys)
    lab = ys >= 0
    only = graphdr.DEEMap().fit(X[lab], ys[lab])
    assert list(m.classes_) == list(range(10))
    E = m.embedding_
    assert np.all(np.isfinite(E)) and m.objective_ < m.initial_objective_

    def nn_error(A, B):
        d = np.sum((B[:, None] - A[None]) ** 2, axis=-1)
        return np.mean(ys[lab][np.argmin(d, axis=1)] != y[~lab])

    semi, alone = nn_error(E[lab], E[~lab]), nn_error(only.embedding_, only.transform(X[~lab]))
    assert semi < alone + 0.03
    assert semi < nn_error(X[lab], X[~lab]) + 0.02
    Z = m.transform(X[:20])
    assert Z.shape == (20, 2) and np.all(np.isfinite(Z))


@pytest.mark.slow
def test_deemap_with_every_label_is_the_supervised_map_and_refuses_too_few():
    X, y, ys = _digits_partial(n=200)
    a = graphdr.DEEMap(max_iter=20).fit(X, y)
    b = graphdr.DEEMap(max_iter=20).fit(X, y.astype(str))
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    with pytest.raises(ValueError, match="labelled -1"):  # (the heavy-tailed default maps it)
        graphdr.DEEMap(repulsion="gaussian").fit(X, np.full(len(y), -1))
    perm = np.random.default_rng(0).permutation(len(y))
    c = graphdr.DEEMap(max_iter=20).fit(X, ys)
    d = graphdr.DEEMap(max_iter=20).fit(X[perm], ys[perm])
    # the fit sorts the rows by class and content: the same map whatever their order
    assert c.objective_ == pytest.approx(d.objective_, rel=1e-12)
    np.testing.assert_allclose(c.embedding_[perm], d.embedding_, rtol=0, atol=1e-9)


# ----- LFDA and SELF against their definitions -----------------------------------------------
def _local_scatters(X, y, k):
    """LFDA's S_lw and S_lb of the labelled samples (Sugiyama 2007, eqs. 9-14), pair by pair;
    the local scale from all samples."""
    D2 = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    sigma = np.sqrt(np.sort(D2, axis=1)[:, k])
    lab = np.flatnonzero(y >= 0)
    m = len(lab)
    sizes = np.bincount(y[lab])
    d = X.shape[1]
    Slw, Slb = np.zeros((d, d)), np.zeros((d, d))
    for i in lab:
        for j in lab:
            diff = np.outer(X[i] - X[j], X[i] - X[j])
            if y[i] == y[j]:
                a = np.exp(-D2[i, j] / (sigma[i] * sigma[j]))
                Slw += 0.5 * a / sizes[y[i]] * diff
                Slb += 0.5 * a * (1 / m - 1 / sizes[y[i]]) * diff
            else:
                Slb += 0.5 / m * diff
    return Slw, Slb, m


def test_lfda_is_its_published_definition():
    X, y = make_classes(n_per_class=(8, 9, 7), n_features=4, seed=5)
    Slw, Slb, _ = _local_scatters(X, y, 3)
    lam, V = linalg.eigh(Slb, Slw)
    est = graphdr.LFDA(n_components=2, n_neighbors=3, reg=0.0, smoothing=0.0).fit(X, y)
    assert max_angle(est.components_.T, V[:, -2:]) < 1e-8
    np.testing.assert_allclose(est.eigenvalues_, 1.0 / (1.0 + lam[::-1][:2]), rtol=1e-8)


def test_self_is_its_definition_and_its_two_limits():
    X, y = make_classes(n_per_class=(10, 12, 9), n_features=4, seed=6)
    ys = np.where(np.arange(len(y)) % 2 == 0, y, -1)
    beta = 0.3
    Slw, Slb, m = _local_scatters(X, ys, 3)
    Ct = np.cov(X.T, bias=True)
    Srlb = (1 - beta) * Slb / m + beta * Ct
    Srlw = (1 - beta) * Slw / m + beta * np.trace(Ct) / 4 * np.eye(4)
    lam, V = linalg.eigh(Srlb, Srlw)
    est = graphdr.SemiLFDA(n_components=2, beta=beta, n_neighbors=3,
                           unlabelled="smooth").fit(X, ys)
    assert max_angle(est.components_.T, V[:, -2:]) < 1e-8
    np.testing.assert_allclose(est.eigenvalues_, 1.0 / (1.0 + lam[::-1][:2]), rtol=1e-8)
    # beta = 1: PCA of every sample
    from sklearn.decomposition import PCA

    pca = PCA(2).fit(X)
    assert max_angle(graphdr.SemiLFDA(n_components=2, beta=1.0, unlabelled="smooth")
                     .fit(X, ys).components_.T,
                     pca.components_.T) < 1e-8
    # beta = 0 with every label: LFDA
    a = graphdr.SemiLFDA(n_components=2, beta=0.0, n_neighbors=3).fit(X, y)
    b = graphdr.LFDA(n_components=2, n_neighbors=3, reg=0.0).fit(X, y)
    assert max_angle(a.components_.T, b.components_.T) < 1e-8


def test_lfda_keeps_the_clusters_of_a_multimodal_class():
    """Class 0 is two clusters on either side of class 1 (along x): LDA's class means
    coincide along x, LFDA separates along x (Sugiyama 2007, Fig. 1)."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(40, 2)) * [0.3, 1.0] + [-3, 0]
    b = rng.normal(size=(40, 2)) * [0.3, 1.0] + [3, 0]
    c = rng.normal(size=(40, 2)) * [0.3, 1.0]
    X = np.vstack([a, b, c])
    y = np.repeat([0, 0, 1], 40)
    v = graphdr.LFDA(n_components=1).fit(X, y).components_[0]
    assert abs(v[0]) / np.linalg.norm(v) > 0.95


@pytest.mark.parametrize("name", ["LFDA", "SemiLFDA"])
def test_lfda_and_self_take_unlabelled_samples_and_text_labels(name):
    X, y, ys = _partial()
    yt = np.array([f"c{c}" if c >= 0 else "-1" for c in ys])
    est = _make(name).fit(X, yt)
    assert list(est.classes_) == ["c0", "c1", "c2"]
    assert np.all(np.isfinite(est.transform(X)))
    with pytest.raises(ValueError, match="beta must be in"):
        graphdr.SemiLFDA(beta=1.5).fit(X, ys)


# ----- DEE: unlabelled samples attract their neighbours --------------------------------------
def test_dee_objective_with_unlabelled_samples_is_the_pairwise_formula():
    """w+ = heat weights on pairs of labelled samples of one class and on the kNN edges that
    touch an unlabelled sample, w- = squared distances on labelled pairs of different classes,
    each normalised to sum 1; value against the sum over ordered pairs, gradient against
    finite differences."""
    from graphdr.blocks.graphs import knn_graph, unlabelled_edges
    from graphdr.neighbor_embedding.dee import _DEEObjective

    rng = np.random.default_rng(4)
    Z = rng.normal(size=(24, 3))
    y = np.repeat([0, 1, 2], 8)
    y[::4] = -1
    sigma2, lam, k = 1.3, 2.0, 3
    extra = unlabelled_edges(knn_graph(Z, k, weights="binary"), y)
    obj = _DEEObjective(Z, y, lam, sigma2, extra_same=extra)
    D2 = np.sum((Z[:, None] - Z[None]) ** 2, axis=-1)
    lab = y >= 0
    same = (y[:, None] == y[None]) & lab[:, None] & ~np.eye(24, dtype=bool)
    diff = (y[:, None] != y[None]) & lab[:, None] & lab[None]
    Wp = np.where(same | (extra.toarray() != 0), np.exp(-D2 / (2 * sigma2)), 0.0)
    Wm = np.where(diff, D2, 0.0)
    Wp, Wm = Wp / Wp.sum(), Wm / Wm.sum()
    A = rng.normal(size=(2, 3))

    def brute(A):
        Y = Z @ A.T
        E2 = np.sum((Y[:, None] - Y[None]) ** 2, axis=-1)
        return float(np.sum(Wp * E2) + lam * np.sum(Wm * np.exp(-E2)))

    value, grad = obj.value_grad(A)
    assert abs(value - brute(A)) < 1e-10 * abs(brute(A))
    np.testing.assert_allclose(grad, _numerical_gradient(brute, A), rtol=1e-5, atol=1e-8)


def test_dee_takes_unlabelled_samples_and_refuses_them_when_sampled():
    X, y, ys = _partial()
    est = graphdr.DEE(max_iter=20).fit(X, ys)
    assert list(est.classes_) == [0, 1, 2] and np.all(np.isfinite(est.transform(X)))
    a = graphdr.DEE(max_iter=20).fit(X, y)
    b = graphdr.DEE(max_iter=20, n_neighbors_unlabelled=3).fit(X, y)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))  # no -1: not used
    with pytest.raises(ValueError, match="method='exact' only"):
        graphdr.DEE(method="approx").fit(X, ys)


@pytest.mark.parametrize("normalization", ["classwise", "joint"])
def test_dsne_objective_with_unlabelled_samples_is_the_kl_formula(normalization):
    """DSNE with unlabelled samples: the same-class group holds the labelled same-class pairs
    and the kNN edges that touch an unlabelled sample, the different-class group the labelled
    pairs of different classes; other pairs are in neither (not in q's normaliser either).
    Value against eq. (7) by loops over those groups, gradient against finite differences."""
    from graphdr.blocks.graphs import knn_graph, unlabelled_edges
    from graphdr.neighbor_embedding.dsne import _DSNEObjective

    rng = np.random.default_rng(5)
    X = rng.normal(size=(18, 3))
    y = np.repeat([0, 1, 2], 6)
    y[1::3] = -1
    extra = unlabelled_edges(knn_graph(X, 3, weights="binary"), y)
    ob = _DSNEObjective(X, y, 0.9, normalization=normalization, intra_mass=0.7,
                        extra_same=extra)
    n = len(y)
    lab = y >= 0
    off = ~np.eye(n, dtype=bool)
    same = (((y[:, None] == y[None]) & lab[:, None]) | (extra.toarray() != 0)) & off
    diff = (y[:, None] != y[None]) & lab[:, None] & lab[None]
    D2 = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    Pk = np.exp(-D2 / 1.8)
    A = rng.normal(size=(2, 3))

    def brute(A):
        Y = X @ A.T
        U = 1.0 / (1.0 + np.sum((Y[:, None] - Y[None]) ** 2, axis=-1))
        if normalization == "joint":
            p = np.zeros((n, n))
            p[same] = 0.7 * Pk[same] / Pk[same].sum()
            p[diff] = 0.3 * Pk[diff] / Pk[diff].sum()
            q = U / U[same | diff].sum()
            m = same | diff
            return float(np.sum(p[m] * np.log(p[m] / q[m])))
        E = 0.0
        for mask in (same, diff):
            p = Pk[mask] / Pk[mask].sum()
            q = U[mask] / U[mask].sum()
            E += float(np.sum(p * np.log(p / q)))
        return E

    value, grad = ob.value_grad(A)
    assert value == pytest.approx(brute(A), rel=1e-10)
    np.testing.assert_allclose(grad, _numerical_gradient(brute, A), rtol=1e-5, atol=1e-8)


def test_dsne_takes_unlabelled_samples():
    X, y, ys = _partial()
    est = graphdr.DSNE(max_iter=20).fit(X, ys)
    assert list(est.classes_) == [0, 1, 2] and np.all(np.isfinite(est.transform(X)))
    with pytest.raises(ValueError, match="method='exact' only"):
        graphdr.DSNE(method="approx").fit(X, ys)


@pytest.mark.slow
def test_map_page_errors_score_the_labelled_samples_against_the_labelled_ones():
    """held_out_errors of a partially labelled map, against brute force: each labelled
    sample, placed from its neighbours (leave-one-out), against the other labelled samples on
    the map and in the features."""
    from sklearn.datasets import make_blobs
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.maps.views.fitted import held_out_errors

    X, y = make_blobs(n_samples=90, centers=3, n_features=4, cluster_std=2.5, random_state=2)
    ys = np.where(np.arange(90) % 3 == 0, y, -1)
    model = graphdr.DEEMap().fit(X, ys)
    got = held_out_errors(model, ys)
    Z, Xs = model.transform_left_out(), model._scaled(X)
    lab = np.flatnonzero(ys >= 0)
    wrong_map = wrong_features = 0
    for i in lab:
        others = lab[lab != i]
        knn = KNeighborsClassifier(1).fit(model.embedding_[others], ys[others])
        wrong_map += knn.predict(Z[i:i + 1])[0] != ys[i]
        knn = KNeighborsClassifier(1).fit(Xs[others], ys[others])
        wrong_features += knn.predict(Xs[i:i + 1])[0] != ys[i]
    assert got["n"] == len(lab)
    assert got["map_error"] == wrong_map / len(lab)
    assert got["feature_error"] == wrong_features / len(lab)


@pytest.mark.parametrize("name", ["KernelLDA", "KQMI"])
def test_nystroem_kernel_fits_unlabelled_samples(name):
    """The Nystroem features of every sample (labelled or not) carry the smoothness term."""
    X, _, ys = _partial()
    est = _make(name, approximation="nystroem", n_landmarks=20, unlabelled="smooth").fit(X, ys)
    assert est.approximation_ == "nystroem" and est.smoothing_ >= 0
    assert np.all(np.isfinite(est.transform(X))) and list(est.classes_) == [0, 1, 2]


@pytest.mark.slow  # several seconds of fitting: in `make test-slow` (CI runs it)
@pytest.mark.parametrize("name", ["KernelLDA", "KQMI"])
def test_partially_labelled_kernel_fits_take_nystroem_above_the_semi_limit(name):
    """approximation='auto': a partially labelled kernel fit keeps the exact kernel up to
    spaces.AUTO_EXACT_SEMI_MAX samples (its smoothness term needs dense n x n
    eigendecompositions) and takes the Nystroem features above, where the fully labelled fit
    keeps its exact class-structured route; the Nystroem fit still uses the unlabelled
    samples and classifies new ones as well as the labelled rows alone do, or better."""
    from sklearn.datasets import make_classification
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.graph_embedding.spaces import AUTO_EXACT_SEMI_MAX

    X, y = make_classification(AUTO_EXACT_SEMI_MAX + 600, n_features=8, n_informative=5,
                               n_classes=3, n_clusters_per_class=1, class_sep=1.5,
                               random_state=0)
    Xte, yte = X[-300:], y[-300:]
    X, y = X[:-300], y[:-300]
    hidden = np.where(np.random.default_rng(0).uniform(size=len(y)) < 0.9, -1, y)
    labelled = hidden >= 0
    semi = _make(name, unlabelled="smooth").fit(X, hidden)
    assert semi.approximation_ == "nystroem"
    assert _make(name).fit(X, y).approximation_ is None  # fully labelled: exact
    assert _make(name, unlabelled="smooth").fit(X[:AUTO_EXACT_SEMI_MAX],
                                              hidden[:AUTO_EXACT_SEMI_MAX]) \
        .approximation_ is None
    alone = _make(name).fit(X[labelled], y[labelled])

    def error(model):
        knn = KNeighborsClassifier(1).fit(model.transform(X[labelled]), y[labelled])
        return np.mean(knn.predict(model.transform(Xte)) != yte)

    assert error(semi) <= error(alone) + 0.02


def test_the_smooth_map_of_few_labels_keeps_the_data_clusters():
    """Four separated clusters, two per class, two labels in one cluster of each class: the
    map with the unlabelled rows in its graph ('smooth', started from the clusters) keeps
    every cluster apart (each row's 10 nearest rows on the map from its own cluster), where
    the map of the four labelled rows ('ignore') lands the unlabelled clusters on top of
    each other; the same map whatever the row order."""
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(0)
    centres = rng.normal(scale=4.0, size=(4, 5))
    cluster = np.repeat(np.arange(4), 60)
    X = centres[cluster] + rng.normal(size=(240, 5))
    few = np.full(240, -1)
    for c, label in ((0, 0), (2, 1)):
        few[np.flatnonzero(cluster == c)[:2]] = label

    def purity(E):
        ind = NearestNeighbors(n_neighbors=11).fit(E).kneighbors(E, return_distance=False)
        return np.mean(cluster[ind[:, 1:]] == cluster[:, None])

    smooth = graphdr.DEEMap(unlabelled="smooth").fit(X, few)
    alone = graphdr.DEEMap(unlabelled="ignore").fit(X, few)
    assert purity(smooth.embedding_) >= 0.95
    assert purity(alone.embedding_) < purity(smooth.embedding_) - 0.1
    perm = rng.permutation(240)
    moved = graphdr.DEEMap(unlabelled="smooth").fit(X[perm], few[perm])
    assert np.array_equal(moved.embedding_, smooth.embedding_[perm])
