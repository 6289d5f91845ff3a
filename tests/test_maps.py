"""The nonparametric 2-D map (DEEMap) and its grid field: against brute-force sums, finite
differences, the classes of held-out samples and scikit-learn's contract."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_blobs
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors
from sklearn.utils.estimator_checks import parametrize_with_checks

from graphdr import DEEMap
from graphdr.maps.dee_map import _MapObjective
from graphdr.maps.grid_field import gaussian_field
from graphdr.maps.start import _separated_anchors


def _brute_field(Y):
    D = Y[:, None] - Y[None]
    K = np.exp(-np.sum(D**2, axis=-1))
    return K.sum(axis=1), -2.0 * np.einsum("ijk,ij->ik", D, K)


def _brute_objective(Y, A, y, lam_diff, lam_same, tether):
    iu = np.triu_indices(len(Y), 1)
    D2 = np.sum((Y[:, None] - Y[None]) ** 2, axis=-1)[iu]
    same = (y[:, None] == y[None])[iu]
    value = float(np.sum(A.toarray()[iu] * D2))
    value += lam_diff * np.sum(np.exp(-D2[~same])) + lam_same * np.sum(np.exp(-D2[same]))
    for c in np.unique(y):
        value += tether * np.sum((Y[y == c] - Y[y == c].mean(axis=0)) ** 2)
    return value


@pytest.fixture(scope="module")
def digits_split():
    X, y = load_digits(return_X_y=True)
    X, y = X[:600] / 16.0, y[:600]
    return train_test_split(X, y, test_size=150, stratify=y, random_state=0)


# ----- the grid field -----------------------------------------------------------------------
def test_grid_field_matches_the_brute_force_sum_to_the_interpolation_error():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(400, 2)) * 3.0
    F, G = _brute_field(Y)
    f, g = gaussian_field(Y)
    # bilinear spreading and reading, each off by at most h^2/8 max|f''| = h^2/4 (f = e^{-r^2},
    # |f''| <= 2) per unit of mass: with h = 0.25, 2 * 0.0156 of the field's scale
    assert np.max(np.abs(f - F)) <= 0.035 * F.max()
    assert np.max(np.abs(g - G)) <= 0.035 * 2.0 * F.max()  # |grad e^{-r^2}| <= 2/e^{1/2} < 1


def test_grid_field_error_shrinks_like_the_square_of_the_spacing():
    rng = np.random.default_rng(1)
    Y = rng.normal(size=(300, 2)) * 2.0
    F, G = _brute_field(Y)
    err = {h: np.max(np.abs(gaussian_field(Y, spacing=h)[1] - G)) for h in (0.4, 0.1)}
    assert err[0.1] < err[0.4] / 8.0  # O(h^2): a factor 16 in theory


def test_grid_field_of_far_apart_points_is_one_each():
    Y = np.array([[0.0, 0.0], [50.0, 0.0], [0.0, 80.0]])
    f, g = gaussian_field(Y)
    assert np.allclose(f, 1.0, atol=1e-2) and np.allclose(g, 0.0, atol=1e-2)


def test_block_fields_are_each_blocks_own_field_on_any_number_of_threads():
    from threadpoolctl import threadpool_limits

    from graphdr.maps.grid_field import block_fields

    rng = np.random.default_rng(3)
    Y = rng.normal(size=(700, 2)) * 4.0
    starts = np.array([0, 0, 250, 251, 700])  # an empty block and a block of one point
    F, G = block_fields(Y, starts)
    with threadpool_limits(limits=1):
        F1, G1 = block_fields(Y, starts)
    assert np.array_equal(F, F1) and np.array_equal(G, G1)
    for a, b in zip(starts[:-1], starts[1:]):
        if b > a:
            Fb, Gb = _brute_field(Y[a:b])
            assert np.max(np.abs(F[a:b] - Fb)) <= 0.035 * Fb.max()
            assert np.max(np.abs(G[a:b] - Gb)) <= 0.07 * Fb.max()
    assert F[250] == pytest.approx(1.0, abs=1e-2)  # alone in its block


def test_the_objective_of_shuffled_rows_is_the_objective_of_sorted_rows():
    """The objective sorts the rows by class inside: the caller's order in and out."""
    A, y, Y = _small_problem(2)
    shuffle = np.random.default_rng(5).permutation(len(y))
    A, y, Y = A[shuffle][:, shuffle], y[shuffle], Y[shuffle]
    obj = _MapObjective(A, y, 4, lam_diff=2.0, lam_same=0.5)
    order = np.argsort(y, kind="stable")
    sorted_obj = _MapObjective(A[order][:, order], y[order], 4, lam_diff=2.0, lam_same=0.5)
    assert obj.order is not None and sorted_obj.order is None
    v, g = obj.value_grad(Y)
    vs, gs = sorted_obj.value_grad(Y[order])
    assert v == pytest.approx(vs, rel=1e-12)
    np.testing.assert_allclose(g[order], gs, rtol=1e-10, atol=1e-12)


def test_grid_field_rejects_points_off_the_plane():
    with pytest.raises(ValueError, match="points in the plane"):
        gaussian_field(np.zeros((5, 3)))


# ----- the objective ------------------------------------------------------------------------
def _small_problem(seed=0, n=40):
    import scipy.sparse as sp

    from graphdr.blocks.graphs import knn_graph

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.repeat([0, 1, 2, 3], n // 4)
    A = sp.csr_matrix(knn_graph(X, 3, y=y, restrict="same", weights="binary"))
    return A, y, rng.normal(size=(n, 2)) * 1.5


def _central_differences(obj, Y, eps=1e-6):
    """The gradient of ``obj.value_grad``'s value by central differences, entry by entry."""
    num = np.zeros_like(Y)
    for i in range(Y.shape[0]):
        for k in range(Y.shape[1]):
            E = np.zeros_like(Y)
            E[i, k] = eps
            num[i, k] = (obj.value_grad(Y + E)[0] - obj.value_grad(Y - E)[0]) / (2 * eps)
    return num


def test_quadratic_terms_match_finite_differences_exactly():
    A, y, Y = _small_problem()
    obj = _MapObjective(A, y, 4, lam_diff=0.0, lam_same=0.0)
    _, grad = obj.value_grad(Y)
    assert np.allclose(grad, _central_differences(obj, Y), rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_cross_class_attraction_is_its_formula_with_exact_gradient():
    """rho * sum over the pairs of log(1 + |y_i - y_j|^2): the value recomputed pair by pair,
    the gradient against central differences (no grid: exact), in any row order; the pairs
    are the input neighbours of different classes, each once."""
    from graphdr.blocks.graphs import knn_graph
    from graphdr.maps.inputs import cross_class_pairs

    A, y, Y = _small_problem(4, n=60)  # classes of 15: more than CROSS_NEIGHBORS
    rng = np.random.default_rng(4)
    X = rng.normal(size=(len(y), 3))
    nbrs = np.argsort(np.sum((X[:, None] - X[None]) ** 2, axis=-1), axis=1)[:, 1:4]
    i, j = cross_class_pairs(nbrs, y)
    knn = knn_graph(X, 3, weights="binary").toarray()
    want = {(a, b) for a in range(len(y)) for b in range(a + 1, len(y))
            if (knn[a, b] or knn[b, a]) and y[a] != y[b]}
    assert set(zip(i.tolist(), j.tolist())) == want and np.all(i < j)
    small = y.copy()
    small[:50] = 0  # class 0 of 50 samples, then classes 2 and 3 of 5: theirs have no pairs
    small[50:55], small[55:] = 2, 3
    si, sj = cross_class_pairs(nbrs, small)
    assert len(si) == 0
    plain = _MapObjective(A, y, 4, lam_diff=0.0, lam_same=0.0)
    obj = _MapObjective(A, y, 4, lam_diff=0.0, lam_same=0.0, cross=(i, j), rho=0.7)
    v0, g0 = plain.value_grad(Y)
    v, g = obj.value_grad(Y)
    brute = 0.7 * sum(np.log1p(np.sum((Y[a] - Y[b]) ** 2)) for a, b in want)
    assert v - v0 == pytest.approx(brute, rel=1e-12)
    np.testing.assert_allclose(g, _central_differences(obj, Y), rtol=1e-6, atol=1e-6)
    assert not np.allclose(g, g0)
    shuffle = np.random.default_rng(6).permutation(len(y))
    where = np.empty_like(shuffle)
    where[shuffle] = np.arange(len(y))
    moved = _MapObjective(A[shuffle][:, shuffle], y[shuffle], 4, lam_diff=0.0, lam_same=0.0,
                          cross=(where[i], where[j]), rho=0.7)
    vm, gm = moved.value_grad(Y[shuffle])
    assert vm == pytest.approx(v, rel=1e-12)
    np.testing.assert_allclose(gm, g[shuffle], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("exact", [True, False])
def test_objective_and_gradient_match_the_brute_force_formula(exact, monkeypatch):
    """A small map sums its repulsion pair by pair: its value and gradient are the formula's
    to rounding; a larger one (forced here) on the grid: to the interpolation's error."""
    import graphdr.maps.objective as objective

    if not exact:
        monkeypatch.setattr(objective, "EXACT_MAX", 0)
    A, y, Y = _small_problem(1)
    obj = _MapObjective(A, y, 4, lam_diff=2.0, lam_same=0.5)
    assert obj.exact is exact
    value, grad = obj.value_grad(Y)
    brute = _brute_objective(Y, A, y, 2.0, 0.5, obj.tether)
    scale = 2.0 * len(Y) ** 2 / 2  # the repulsion's largest possible value
    assert abs(value - brute) <= (1e-12 * scale if exact else 0.035 * scale / 10)
    eps, num = 1e-5, np.zeros_like(Y)
    for i in range(Y.shape[0]):
        for k in range(2):
            E = np.zeros_like(Y)
            E[i, k] = eps
            num[i, k] = (_brute_objective(Y + E, A, y, 2.0, 0.5, obj.tether)
                         - _brute_objective(Y - E, A, y, 2.0, 0.5, obj.tether)) / (2 * eps)
    if exact:  # to the central differences' error
        np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-6)
        return
    # the repulsion's gradient comes from the grid: within its interpolation error (above)
    assert np.max(np.abs(grad - num)) <= 0.035 * 2.5 * len(Y) / 4
    assert np.corrcoef(grad.ravel(), num.ravel())[0, 1] > 0.999


def test_exact_field_is_the_pairwise_sum_and_decides_small_maps():
    from scipy.spatial.distance import cdist

    from graphdr.maps.grid_field import EXACT_MAX, block_fields, exact_gaussian_field

    rng = np.random.default_rng(7)
    Y = rng.normal(size=(150, 2)) * 2.0
    K = np.exp(-cdist(Y, Y, "sqeuclidean"))  # an independent evaluation of the same sums
    F, G = exact_gaussian_field(Y)
    np.testing.assert_allclose(F, K.sum(axis=1), rtol=1e-12)
    want = -2.0 * np.stack([((Y[:, k][:, None] - Y[:, k][None]) * K).sum(axis=1)
                            for k in (0, 1)], axis=1)
    np.testing.assert_allclose(G, want, rtol=1e-10, atol=1e-12)
    starts = np.array([0, 60, 60, 61, 150])
    Fb, Gb = block_fields(Y, starts, exact=True)
    for a, b in zip(starts[:-1], starts[1:]):
        if b > a:
            Fa, Ga = exact_gaussian_field(Y[a:b])
            assert np.array_equal(Fb[a:b], Fa) and np.array_equal(Gb[a:b], Ga)
    assert Fb[60] == 1.0 and np.all(Gb[60] == 0.0)  # alone in its block
    with pytest.raises(ValueError, match="points in the plane"):
        exact_gaussian_field(np.zeros((5, 3)))
    A, y, _ = _small_problem(2, n=EXACT_MAX + 4)  # one sample beyond: the grid
    assert not _MapObjective(A, y, 4, 2.0, 0.5).exact
    assert _MapObjective(A[:EXACT_MAX][:, :EXACT_MAX], y[:EXACT_MAX], 4, 2.0, 0.5).exact


def test_starting_discs_do_not_overlap_even_for_equal_class_means():
    means = np.zeros((6, 4))  # every class mean the same
    radii = np.linspace(1.0, 3.0, 6)
    A = _separated_anchors(means, radii, gap=2.0)
    D = np.sqrt(np.sum((A[:, None] - A[None]) ** 2, axis=-1))
    need = radii[:, None] + radii[None] + 2.0
    assert np.all(D[~np.eye(6, dtype=bool)] >= need[~np.eye(6, dtype=bool)] * (1 - 1e-6))


# ----- the map ------------------------------------------------------------------------------
def test_map_separates_classes_and_lowers_its_objective(digits_split):
    Xtr, Xte, ytr, yte = digits_split
    m = DEEMap(repulsion="gaussian").fit(Xtr, ytr)
    assert m.embedding_.shape == (len(Xtr), 2) and np.all(np.isfinite(m.embedding_))
    assert m.objective_ < m.initial_objective_
    # leave-one-out 1-NN in the map: the classes are apart
    knn = KNeighborsClassifier(2).fit(m.embedding_, ytr)
    _, idx = knn.kneighbors(m.embedding_)
    assert np.mean(ytr[idx[:, 1]] != ytr) < 0.02
    # the default max_iter caps the long tail of large maps only: a map of this size stops by
    # its relative-decrease test (89 iterations here; the content order of the rows sets the
    # descent's path: 51 to 100 over such splits, the same held-out errors)
    assert m.converged_ and m.n_iter_ < m.iterations(), m.n_iter_


@pytest.mark.parametrize("loader", ["iris", "wine"])
def test_few_classes_stay_in_one_picture(loader):
    """The attraction's Laplacian cannot move a class as a whole: the preconditioner's shift
    must damp those translations, or a few classes fly hundreds of units apart and each is a
    dot on the picture (wine went to class gaps 100 times the class spread)."""
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{loader}")(return_X_y=True)
    E = DEEMap().fit(X, y).embedding_
    centres = np.array([E[y == c].mean(axis=0) for c in np.unique(y)])
    spread = np.median([np.sqrt(np.mean(np.sum((E[y == c] - centres[i]) ** 2, axis=1)))
                        for i, c in enumerate(np.unique(y))])
    gaps = np.sqrt(np.sum((centres[:, None] - centres[None]) ** 2, axis=-1))
    assert gaps.max() < 15 * spread


def test_unseen_samples_land_near_their_class(digits_split):
    """Out of sample: the map of a held-out sample is nearest to training samples of its class
    about as often as the input-space neighbours vote for it."""
    Xtr, Xte, ytr, yte = digits_split
    m = DEEMap().fit(Xtr, ytr)
    Zte = m.transform(Xte)
    map_error = np.mean(KNeighborsClassifier(1).fit(m.embedding_, ytr).predict(Zte) != yte)
    input_error = np.mean(KNeighborsClassifier(10, weights="distance").fit(Xtr, ytr)
                          .predict(Xte) != yte)
    assert map_error <= input_error + 0.02
    # a held-out sample is closer to its class's centre on the map than to any other's
    centres = np.array([m.embedding_[ytr == c].mean(axis=0) for c in m.classes_])
    nearest_centre = m.classes_[np.argmin(np.sum((Zte[:, None] - centres[None]) ** 2, -1), 1)]
    assert np.mean(nearest_centre == yte) >= 0.9


def test_transform_of_a_training_sample_is_its_place(digits_split):
    """A training row given again lands exactly at its place in ``embedding_``, also a row
    whose label the data contradict (its neighbours, of another class, would place a new
    sample like it elsewhere: :meth:`DEEMap.transform_left_out` says where)."""
    Xtr, _, ytr, _ = digits_split
    y = ytr.copy()
    y[:6] = (y[:6] + 1) % 10  # wrong labels: the map puts these rows with their given class
    m = DEEMap(repulsion="gaussian", max_iter=40).fit(Xtr, y)
    assert np.array_equal(m.transform(Xtr), m.embedding_)
    assert np.array_equal(m.transform(Xtr[::-1]), m.embedding_[::-1])
    # the same rows left out land elsewhere: the rule is the exact match, not a narrow vote
    left_out = m.transform_left_out()
    assert np.max(np.linalg.norm(left_out[:6] - m.embedding_[:6], axis=1)) > 1.0
    # a sample that is no training row is placed by its neighbours' vote, as before
    near = Xtr[:6] + 1e-3
    assert np.max(np.linalg.norm(m.transform(near) - m.embedding_[:6], axis=1)) > 1.0


def test_a_sample_equal_to_duplicated_training_rows_lands_on_one_of_their_places():
    """Two equal training rows of different classes sit in their classes' regions; a sample
    equal to them goes to one of those places (the mode of the equal rows' places), never to
    the neighbours' vote or between the two."""
    X, y = make_blobs(n_samples=120, centers=3, cluster_std=0.5, random_state=0)
    X = np.vstack([X, X[:1], X[:1]])
    y = np.concatenate([y, [(y[0] + 1) % 3, (y[0] + 2) % 3]])
    m = DEEMap(repulsion="gaussian", max_iter=40).fit(X, y)
    twins = np.flatnonzero(np.all(X == X[0], axis=1))
    placed = m.transform(X[:1])[0]
    gaps = np.linalg.norm(m.embedding_[twins] - placed, axis=1)
    spread = np.linalg.norm(m.embedding_[twins].max(0) - m.embedding_[twins].min(0))
    assert spread > 3.0  # the twins are apart on the map
    assert gaps.min() < 0.05 * spread


@pytest.mark.slow
def test_same_fit_twice_and_under_row_permutation(digits_split):
    Xtr, Xte, ytr, yte = digits_split
    a = DEEMap().fit(Xtr, ytr)
    b = DEEMap().fit(Xtr, ytr)
    assert np.array_equal(a.embedding_, b.embedding_)
    perm = np.random.default_rng(0).permutation(len(Xtr))
    seen = []
    c = DEEMap(callback=lambda x, info: seen.append(x.copy())).fit(Xtr[perm], ytr[perm])
    # the fit sorts the rows by class and content: the same map, row for row
    assert c.objective_ == pytest.approx(a.objective_, rel=1e-12)
    np.testing.assert_allclose(c.embedding_, a.embedding_[perm], rtol=0, atol=1e-9)
    # the callback sees the caller's rows (the map before its sign rule)
    assert len(seen) == c.n_iter_
    np.testing.assert_allclose(np.abs(seen[-1]), np.abs(c.embedding_), rtol=1e-6, atol=1e-6)
    err = [np.mean(KNeighborsClassifier(1).fit(m.embedding_, y).predict(m.transform(Xte)) != yte)
           for m, y in ((a, ytr), (c, ytr[perm]))]
    assert err[0] == err[1]


@pytest.mark.slow
def test_the_map_does_not_depend_on_the_units_of_the_input(digits_split):
    """Only neighbour ranks and relative distances enter: X and 1000 X pose the same problem
    from the same start (up to rounding), so they reach the same objective up to the
    optimiser's tolerance and place held-out samples alike. (The Gaussian map: the heavy-tailed
    descent is chaotic, as t-SNE's, and carries rounding to another equally good map.)"""
    Xtr, Xte, ytr, yte = digits_split
    a, b = DEEMap(max_iter=0).fit(Xtr, ytr), DEEMap(max_iter=0).fit(1000.0 * Xtr, ytr)
    np.testing.assert_allclose(b.embedding_, a.embedding_, atol=1e-9 * np.abs(a.embedding_).max())
    gaussian = dict(repulsion="gaussian")
    a, b = DEEMap(**gaussian).fit(Xtr, ytr), DEEMap(**gaussian).fit(1000.0 * Xtr, ytr)
    assert abs(a.objective_ - b.objective_) <= 1e-2 * abs(a.objective_)
    err = [np.mean(KNeighborsClassifier(1).fit(m.embedding_, ytr).predict(m.transform(s * Xte))
                   != yte) for m, s in ((a, 1.0), (b, 1000.0))]
    assert abs(err[0] - err[1]) <= 2.0 / len(yte)


# ----- feature scaling (issue 36: any units) ----------------------------------------------------
def _wine_split():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    return train_test_split(X, y, test_size=60, stratify=y, random_state=0)


def _held_out_errors(model, Xte, yte):
    pred = KNeighborsClassifier(1).fit(model.embedding_, model._y_train).predict(
        model.transform(Xte))
    return int(np.sum(pred != yte))


def _fit(X, y, **params):
    model = DEEMap(**params).fit(X, y)
    model._y_train = y
    return model


@pytest.mark.slow
def test_raw_wine_maps_as_well_as_standardised_wine():
    """Wine's proline (hundreds) beside its ratios (about 1): by default the map standardises
    the features, so raw and standardised input give the same map; kept as given, proline
    alone decides the neighbours and held-out samples land among the wrong class."""
    from sklearn.preprocessing import StandardScaler

    Xtr, Xte, ytr, yte = _wine_split()
    scaler = StandardScaler().fit(Xtr)
    raw = _fit(Xtr, ytr)
    standardised = _fit(scaler.transform(Xtr), ytr)
    assert raw.feature_scaling_ == "standard" and standardised.feature_scaling_ == "none"
    wrong_raw = _held_out_errors(raw, Xte, yte)
    wrong_std = _held_out_errors(standardised, scaler.transform(Xte), yte)
    assert abs(wrong_raw - wrong_std) <= 1  # within one test sample
    assert wrong_std <= 4  # 60 test samples; input-space 1-NN on standardised wine errs on ~3
    as_given = _fit(Xtr, ytr, feature_scaling="none")
    assert _held_out_errors(as_given, Xte, yte) >= wrong_raw + 8


def test_the_scaling_rule_standardises_only_a_dominated_input():
    from graphdr.maps.inputs import feature_scaling

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    option, mean, scale = feature_scaling(X, "auto")
    assert option == "none" and np.all(mean == 0) and np.all(scale == 1)
    X[:, 2] *= 3.0  # 9 / 13 of the total variance
    option, mean, scale = feature_scaling(X, "auto")
    assert option == "standard"
    np.testing.assert_allclose(mean, X.mean(axis=0), atol=1e-15)
    np.testing.assert_allclose(scale, X.std(axis=0), rtol=1e-13)
    X[:, 4] = 7.0  # a constant feature keeps the scale 1
    assert feature_scaling(X, "standard")[2][4] == 1.0
    assert feature_scaling(X, "none")[0] == "none"


@pytest.mark.parametrize("factor", [1e-300, 1e-150, 1e150, 1e300])
@pytest.mark.slow
def test_extreme_magnitudes_give_the_map_of_ordinary_ones(factor, digits_split):
    """Issue 37: X * 1e-300 collapsed every class to a point. The features are now divided by
    an exact power of two first, so that squared distances neither underflow nor overflow."""
    from graphdr.maps.inputs import feature_scaling

    Xtr, Xte, ytr, yte = digits_split
    option, mean, scale = feature_scaling(Xtr * factor, "auto")
    assert np.all(np.isfinite(scale)) and np.all(scale > 0)
    a, b = _fit(Xtr, ytr), _fit(Xtr * factor, ytr)
    assert np.all(np.isfinite(b.embedding_))
    assert np.ptp(b.embedding_, axis=0).min() > 0.5 * np.ptp(a.embedding_, axis=0).min()
    assert abs(_held_out_errors(a, Xte, yte) - _held_out_errors(b, Xte * factor, yte)) <= 3


def test_the_units_of_one_feature_do_not_move_a_standardised_map():
    """With the features standardised, a feature in other units (x 1000) gives the same
    map up to rounding and places held-out samples alike (the Gaussian map: its descent is
    smooth enough for rounding to stay rounding)."""
    Xtr, Xte, ytr, yte = _wine_split()
    scaled = Xtr.copy()
    scaled[:, 0] *= 1000.0
    a, b = _fit(Xtr, ytr, repulsion="gaussian"), _fit(scaled, ytr, repulsion="gaussian")
    assert a.feature_scaling_ == b.feature_scaling_ == "standard"
    assert abs(a.objective_ - b.objective_) <= 1e-6 * abs(a.objective_)
    Xte2 = Xte.copy()
    Xte2[:, 0] *= 1000.0
    assert abs(_held_out_errors(a, Xte, yte) - _held_out_errors(b, Xte2, yte)) <= 1


def test_bad_feature_scaling_is_a_clear_error():
    X, y = make_blobs(60, 3, centers=3, random_state=0)
    with pytest.raises(ValueError, match="feature_scaling must be one of"):
        DEEMap(feature_scaling="minmax").fit(X, y)


def test_a_small_class_does_not_cut_the_neighbours_of_the_others():
    X, y = make_blobs(200, n_features=4, centers=3, random_state=2)
    y[:2] = 3  # a class of two samples
    m = DEEMap(n_neighbors=10, max_iter=0).fit(X, y)
    from graphdr.blocks.graphs import knn_graph

    A = knn_graph(X, 10, y=np.unique(y, return_inverse=True)[1], restrict="same")
    assert np.median(np.asarray(A.sum(axis=1)).ravel()) >= 10
    assert m.embedding_.shape == (200, 2)


def test_string_labels_and_float32():
    X, y = make_blobs(120, n_features=5, centers=3, random_state=0)
    names = np.array(["cat", "dog", "emu"])[y]
    m = DEEMap().fit(X.astype(np.float32), names)
    assert list(m.classes_) == ["cat", "dog", "emu"]
    assert m.embedding_.dtype == np.float32 and m.transform(X[:5].astype(np.float32)).dtype \
        == np.float32


@pytest.mark.parametrize("bad, match", [
    (dict(y=np.zeros(30)), "at least 2 classes"),
    (dict(X_nan=True), "NaN"),
])
def test_bad_input_is_a_clear_error(bad, match):
    X, y = make_blobs(30, n_features=3, centers=2, random_state=0)
    if bad.get("X_nan"):
        X[3, 1] = np.nan
    with pytest.raises(ValueError, match=match):
        DEEMap().fit(X, bad.get("y", y))


def test_a_class_of_one_sample_gets_a_place_of_its_own():
    X, y = make_blobs(60, n_features=3, centers=2, random_state=0)
    y[0] = 2  # a class of one sample
    m = DEEMap().fit(X, y)
    assert np.all(np.isfinite(m.embedding_))
    d = np.sqrt(np.sum((m.embedding_[1:] - m.embedding_[0]) ** 2, axis=1))
    spread = np.ptp(m.embedding_, axis=0).max()
    assert d.min() > 0.5 and d.max() < 10 * spread


def test_duplicate_rows_constant_features_and_more_features_than_samples():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 3)).astype(float)  # many identical rows, across classes
    X = np.hstack([X, np.ones((200, 1)), np.zeros((200, 60))])  # constant features, D > n/4
    y = rng.integers(0, 3, size=200)
    with np.errstate(invalid="raise", divide="raise", over="raise"):  # underflow is fine
        m = DEEMap(max_iter=30).fit(X, y)
        Z = m.transform(X[:20])
    assert np.all(np.isfinite(m.embedding_)) and np.all(np.isfinite(Z))
    small = DEEMap(max_iter=10).fit(rng.normal(size=(12, 50)), np.repeat([0, 1, 2], 4))
    assert np.all(np.isfinite(small.embedding_))


def test_sparse_input_is_a_clear_error():
    import scipy.sparse as sp

    X, y = make_blobs(30, n_features=3, centers=2, random_state=0)
    with pytest.raises(ValueError, match="dense X"):
        DEEMap().fit(sp.csr_matrix(X), y)


def test_bad_parameters_and_feature_count():
    X, y = make_blobs(40, n_features=3, centers=2, random_state=0)
    with pytest.raises(ValueError, match="n_neighbors"):
        DEEMap(n_neighbors=0).fit(X, y)
    with pytest.raises(ValueError, match="lam"):
        DEEMap(lam=-1.0).fit(X, y)
    m = DEEMap(max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.transform(X[:, :2])


@parametrize_with_checks([DEEMap(max_iter=5, n_neighbors=3),
                          DEEMap(repulsion="cauchy", max_iter=40, n_neighbors=3, perplexity=5)])
def test_sklearn_compatible(estimator, check):
    # (check_transformer_general holds: transform of a training sample is its place)
    check(estimator)


# ----- map2d and `graphdr map` ----------------------------------------------------------------
def test_map2d_writes_a_png_a_csv_and_a_self_contained_page(tmp_path):
    import matplotlib.image as mpimg

    from graphdr import map2d

    X, y = make_blobs(150, n_features=4, centers=3, random_state=0)
    names = np.array(["a", "b", "c"])[y]
    model = map2d(X, names, out=tmp_path / "m.png", title="blobs")
    assert isinstance(model, DEEMap) and model.embedding_.shape == (150, 2)
    image = mpimg.imread(tmp_path / "m.png")
    assert image.shape[0] > 300 and image.std() > 0.01  # a drawn picture, not a blank one
    page = (tmp_path / "m.html").read_text()
    assert "<h1>blobs</h1>" in page and "150 samples, 4 features, 3 classes" in page
    assert "<script src" not in page and "<link" not in page  # nothing fetched
    assert (tmp_path / "m.csv").read_text().count("\n") == 151


def test_map_command_draws_a_csv_and_rejects_a_bad_label_column(tmp_path, capsys):
    from graphdr.cli import main

    X, y = make_blobs(90, n_features=3, centers=3, random_state=1)
    path = tmp_path / "data.csv"
    rows = ["f0,f1,f2,label"] + [f"{a},{b},{c},k{t}" for (a, b, c), t in zip(X, y)]
    path.write_text("\n".join(rows) + "\n")
    assert main(["map", str(path), "--out", str(tmp_path / "map"), "--quiet"]) == 0
    assert (tmp_path / "map.png").stat().st_size > 1000
    assert "3 classes" in (tmp_path / "map.html").read_text()
    assert main(["map", str(path), "--out", str(tmp_path / "x"), "--label-column",
                 "nosuch", "--quiet"]) == 2
    assert "error:" in capsys.readouterr().err
    assert main(["map", str(path), "--out", str(tmp_path / "kept"), "--quiet",
                 "--feature-scaling", "none"]) == 0
    assert "&#x27;feature_scaling&#x27;: &#x27;none&#x27;" in (tmp_path / "kept.html").read_text()
    capsys.readouterr()
    assert main(["map", str(path), "--out", str(tmp_path / "w"), "--quiet",
                 "--placement-width", "0.5"]) == 0
    assert "&#x27;placement_width&#x27;: 0.5" in (tmp_path / "w.html").read_text()
    for bad in ("0", "wide", "inf"):
        with pytest.raises(SystemExit) as exit_:
            main(["map", str(path), "--out", str(tmp_path / "bad"), "--placement-width", bad])
        assert exit_.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert "placement width" in err[-1] and "Traceback" not in "".join(err)
    assert not (tmp_path / "bad.html").exists()


def test_map_command_draws_the_heavy_tailed_map_with_labels_or_without(tmp_path, capsys):
    """``--repulsion cauchy``: the heavy-tailed map, its separation as asked, and a file whose
    label cells are all empty mapped without labels (the Gaussian map refuses it);
    a separation outside [0, 1] is one line, exit 2."""
    from graphdr.cli import main

    X, y = make_blobs(90, n_features=3, centers=3, random_state=1)
    path, bare = tmp_path / "data.csv", tmp_path / "bare.csv"
    path.write_text("\n".join(["f0,f1,f2,label"] + [f"{a},{b},{c},k{t}" for (a, b, c), t
                                                     in zip(X, y)]) + "\n")
    bare.write_text("\n".join(["f0,f1,f2,label"] + [f"{a},{b},{c}," for a, b, c in X]) + "\n")
    assert main(["map", str(path), "--out", str(tmp_path / "c"), "--quiet", "--repulsion",
                 "cauchy", "--separation", "0.8", "--labels", "given"]) == 0
    page = (tmp_path / "c.html").read_text().replace("&#x27;", "'")
    assert "'repulsion': 'cauchy'" in page and "'separation': 0.8" in page
    assert "separating the classes by 0.8" in page and "3 classes" in page
    assert main(["map", str(bare), "--out", str(tmp_path / "g"), "--quiet", "--repulsion",
                 "gaussian"]) == 2
    assert "the label column 'label' is empty on every row" in capsys.readouterr().err
    assert main(["map", str(bare), "--out", str(tmp_path / "n"), "--quiet", "--repulsion",
                 "cauchy"]) == 0
    page = (tmp_path / "n.html").read_text()
    assert "no labels" in page and "without labels" in page and "Fitted on" not in page
    with open(tmp_path / "n.csv") as fh:
        assert len(fh.read().strip().splitlines()) == 91
    # --fit-samples reaches the in-memory heavy-tailed map: fitted on a sample, every row drawn
    assert main(["map", str(path), "--out", str(tmp_path / "s"), "--quiet", "--repulsion",
                 "cauchy", "--fit-samples", "45", "--labels", "given"]) == 0
    page = (tmp_path / "s.html").read_text()
    assert "Fitted on 45 of the 90 samples (fit_samples" in page
    with open(tmp_path / "s.csv") as fh:
        assert len(fh.read().strip().splitlines()) == 91
    for bad in ("1.5", "-0.1", "much"):
        with pytest.raises(SystemExit) as exit_:
            main(["map", str(path), "--out", str(tmp_path / "bad"), "--repulsion", "cauchy",
                  "--separation", bad])
        assert exit_.value.code == 2
        assert "separation must be 'auto' or a number from 0 to 1" in capsys.readouterr().err
    assert not (tmp_path / "bad.html").exists()

@pytest.mark.slow
def test_maps_report_draws_each_method_and_tables_its_error(tmp_path):
    from graphdr import LDA
    from graphdr.bench.maps import write_maps_report

    X, y = load_digits(return_X_y=True)
    methods = {"LDA": lambda: LDA(n_components=2), "DEEMap": lambda: DEEMap()}
    index = write_maps_report(tmp_path / "maps", X[:500] / 16.0, y[:500], methods=methods,
                              command="graphdr demo")
    page = index.read_text()
    assert (tmp_path / "maps" / "maps.png").stat().st_size > 10_000
    errors = [float(v) for v in __import__("re").findall(r"<td>(\d+\.\d)</td><td>", page)]
    assert len(errors) == 2 and errors[1] < errors[0]  # the free map beats LDA's 2-D map
    assert "graphdr demo" in page


@pytest.mark.slow  # numba compiles pynndescent's functions in every new process (~20 s)
def test_approximate_neighbours_are_close_to_the_exact_ones_and_deterministic(monkeypatch):
    """Issue 39: NN-descent's graph (ApproxNeighbors, knn_graph(algorithm='approx')) against
    the exact one, the same on every fit, and a map with neighbors='approx'."""
    pytest.importorskip("pynndescent")
    from graphdr.blocks.graphs import ApproxNeighbors, knn_graph

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 12000)
    X = rng.normal(size=(12000, 10)) + 4 * y[:, None]
    exact = NearestNeighbors(n_neighbors=10).fit(X).kneighbors(return_distance=False)
    approx = ApproxNeighbors(10).fit(X).kneighbors(n_neighbors=10, return_distance=False)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact, approx)])
    assert recall > 0.9
    assert not np.any(approx == np.arange(len(X))[:, None])  # never itself
    a = knn_graph(X, 10, y=y, restrict="same", algorithm="approx")
    b = knn_graph(X, 10, y=y, restrict="same", algorithm="approx")
    assert (a != b).nnz == 0
    assert not np.any(y[a.tocoo().row] != y[a.tocoo().col])  # within a class
    e = knn_graph(X, 10, y=y, restrict="same")
    assert a.multiply(e).nnz > 0.9 * e.nnz
    Xs, ys = X[:3000], y[:3000]
    m = DEEMap(neighbors="approx", max_iter=20).fit(Xs, ys)
    Z = m.transform(X[3000:3100])
    assert m.neighbors_ == "approx" and np.all(np.isfinite(Z))
    # a new sample's place depends on the sample alone, not on the others of the call nor on
    # how the call is cut into searched chunks
    np.testing.assert_array_equal(m.transform(X[3000:3100][::-1]), Z[::-1])
    from graphdr.maps import placing

    monkeypatch.setattr(placing, "_SEARCH_CHUNK", 37)
    np.testing.assert_array_equal(m.transform(X[3000:3100]), Z)


@pytest.mark.slow  # numba compiles pynndescent's search in every new process
def test_approximate_queries_are_the_same_from_any_thread_or_batch():
    """Issue 39: pynndescent's search shares a visited set between calls, so concurrent
    queries from transform's threads returned wrong neighbours (27 % error at 10^6); the
    queries now run one call at a time. Its search also draws random starting points from one
    stream per call: in a batch of 3000 queries on 50 clustered features, 0.7 % of them found
    other neighbours with the batch reversed. Each query now has a call of its own."""
    pytest.importorskip("pynndescent")
    from graphdr._threads import map_threads
    from graphdr.blocks.graphs import ApproxNeighbors

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(50, 50))
    X = (centres[rng.integers(0, 50, 20000)] + rng.normal(size=(20000, 50))).astype(np.float32)
    Q = (centres[rng.integers(0, 50, 3000)] + rng.normal(size=(3000, 50))).astype(np.float32)
    nn = ApproxNeighbors(20).fit(X)
    one = nn.kneighbors(Q, 20)[1]
    pieces = map_threads(lambda a: nn.kneighbors(Q[a:a + 500], 20)[1], range(0, 3000, 500), 2)
    assert np.array_equal(np.vstack(pieces), one)
    perm = rng.permutation(len(Q))
    assert np.array_equal(nn.kneighbors(Q[perm], 20)[1], one[perm])


def test_large_maps_split_the_laplacian_and_its_solves_over_threads_without_changing_bits():
    """From 2^15 samples ``L Y`` and the preconditioner's two CG solves run one column per
    thread: the same numbers as the whole product and as one thread."""
    import scipy.sparse as sp
    from threadpoolctl import threadpool_limits

    from graphdr.neighbor_embedding import _sparse_preconditioner

    n = 1 << 15
    rng = np.random.default_rng(4)
    rows = np.repeat(np.arange(n), 4)
    A = sp.csr_matrix((np.ones(4 * n), (rows, rng.integers(0, n, 4 * n))), shape=(n, n))
    A = ((A + A.T) > 0).astype(float)
    y = rng.integers(0, 3, n)
    obj = _MapObjective(A, np.sort(y), 3, lam_diff=1.0, lam_same=1.0)
    Y = rng.normal(size=(n, 2))
    L = sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A  # built here, independently
    np.testing.assert_allclose(obj._laplacian(Y), L @ Y, rtol=1e-12, atol=1e-12)
    M = sp.csr_matrix(2.0 * L + sp.identity(n))
    operator, diagonal = obj.shifted_laplacian(1.0)
    np.testing.assert_allclose(diagonal, M.diagonal(), rtol=0, atol=0)
    np.testing.assert_allclose(operator.matvec(Y[:, 0]), M @ Y[:, 0], rtol=1e-12, atol=1e-12)
    g = rng.normal(size=(n, 2))
    two = _sparse_preconditioner(operator, factor=False, rtol=0.03, diagonal=diagonal)(g, None)
    with threadpool_limits(limits=1):
        one = _sparse_preconditioner(operator, factor=False, rtol=0.03,
                                     diagonal=diagonal)(g, None)
    assert np.array_equal(two, one)
    # the operator solves as the matrix does (the same Jacobi preconditioner)
    matrix = _sparse_preconditioner(M, factor=False, rtol=0.03)(g, None)
    np.testing.assert_allclose(two, matrix, rtol=1e-8, atol=1e-10)
    # a descent direction, and the CG answer close to M^-1 g
    assert np.sum(two * g) > 0
    assert np.linalg.norm(M @ two - g) <= 0.03 * np.linalg.norm(g) * 1.0001


# ----- the placement of new samples -----------------------------------------------------------
def test_a_narrow_placement_puts_a_new_sample_on_its_nearest_training_sample(digits_split):
    Xtr, Xte, ytr, yte = digits_split
    m = DEEMap(placement_width=1e-6, max_iter=30).fit(Xtr, ytr)
    Z = m.transform(Xte)
    near = NearestNeighbors(n_neighbors=1).fit(m._scaled(Xtr)).kneighbors(
        m._scaled(Xte), return_distance=False)[:, 0]
    # the mean shift may move it only within the nearest sample's own kernel
    gap = np.linalg.norm(Z - m.embedding_[near], axis=1)
    assert np.median(gap) < 1e-6
    # so the map's 1-NN error is the input space's 1-NN error (bar ties on the map)
    map_pred = KNeighborsClassifier(1).fit(m.embedding_, ytr).predict(Z)
    assert np.mean(map_pred != ytr[near]) <= 2.0 / len(yte)


@pytest.mark.slow
def test_auto_placement_width_is_the_one_of_lowest_leave_one_out_error(digits_split):
    from graphdr.maps.placement import PLACEMENT_WIDTHS

    Xtr, _, ytr, _ = digits_split
    m = DEEMap(max_iter=30).fit(Xtr, ytr)
    assert set(m.placement_errors_) == set(PLACEMENT_WIDTHS)
    assert m.placement_width_ in PLACEMENT_WIDTHS
    # against the leave-one-out placement of every sample (fewer than PLACEMENT_SAMPLES here),
    # each width set by hand, scored by brute force on the map
    errors = {}
    for w in PLACEMENT_WIDTHS:
        fixed = DEEMap(placement_width=w, max_iter=30).fit(Xtr, ytr)
        assert np.array_equal(fixed.embedding_, m.embedding_)  # the width does not move the map
        Z = fixed.transform_left_out()
        D = np.sum((Z[:, None] - m.embedding_[None]) ** 2, axis=-1)
        np.fill_diagonal(D, np.inf)
        errors[w] = float(np.mean(ytr[np.argmin(D, axis=1)] != ytr))
    assert errors == pytest.approx(m.placement_errors_, abs=1.0 / len(ytr))
    assert errors[m.placement_width_] <= min(errors.values()) + 1.0 / len(ytr)


@pytest.mark.parametrize("bad", [0, -1.0, "wide", np.inf])
def test_a_bad_placement_width_is_a_clear_error(bad):
    X, y = make_blobs(60, centers=3, random_state=0)
    with pytest.raises(ValueError, match="placement_width"):
        DEEMap(placement_width=bad).fit(X, y)


def test_cross_attraction_keeps_the_neighbourhoods_that_cross_classes():
    """Three overlapping classes: the saturating attraction between input neighbours of
    different classes raises the map's continuity (measured: 0.836 at 0, 0.923 at 3) and costs
    trustworthiness less than it gains; 0 is the map without the term."""
    from sklearn.datasets import make_classification
    from sklearn.manifold import trustworthiness

    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_redundant=0,
                               class_sep=0.6, n_classes=3, n_clusters_per_class=1,
                               random_state=0)
    maps = {rho: DEEMap(repulsion="gaussian", cross_attraction=rho).fit_transform(X, y)
            for rho in (0.0, 3.0)}
    cont = {r: trustworthiness(E, X, n_neighbors=10) for r, E in maps.items()}
    trust = {r: trustworthiness(X, E, n_neighbors=10) for r, E in maps.items()}
    assert cont[3.0] > cont[0.0] + 0.05, cont
    assert cont[3.0] - cont[0.0] > trust[0.0] - trust[3.0], (cont, trust)
    with pytest.raises(ValueError, match="cross_attraction"):
        DEEMap(cross_attraction=-1.0).fit(X, y)


def test_exact_cross_pairs_above_the_limit_come_from_a_content_keyed_subset(monkeypatch):
    """Above CROSS_EXACT_SAMPLES the pairs join only the samples of smallest content key
    (their exact neighbours among themselves): the same pairs whatever the row order."""
    import graphdr.maps.inputs as mi
    from graphdr.blocks.sampling import row_keys, smallest_keys

    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = np.repeat([0, 1, 2], 40)
    monkeypatch.setattr(mi, "CROSS_EXACT_SAMPLES", 50)
    keys = row_keys(X)
    i, j = mi.exact_cross_pairs(X, y, keys)
    chosen = np.sort(smallest_keys(keys, 50))
    assert set(i) | set(j) <= set(chosen.tolist()) and len(i) > 0
    sub = X[chosen]
    d = np.sum((sub[:, None] - sub[None]) ** 2, axis=-1)
    np.fill_diagonal(d, np.inf)
    nbrs = chosen[np.argsort(d, axis=1, kind="stable")[:, :10]]
    want = {(min(a, b), max(a, b)) for a, row in zip(chosen, nbrs) for b in row if y[a] != y[b]}
    assert set(zip(i.tolist(), j.tolist())) == want
    perm = rng.permutation(120)
    pi, pj = mi.exact_cross_pairs(X[perm], y[perm], keys[perm])
    back = {tuple(sorted((perm[a], perm[b]))) for a, b in zip(pi.tolist(), pj.tolist())}
    assert back == want


def test_blockwise_trustworthiness_is_scikit_learns():
    from sklearn.manifold import trustworthiness as reference

    from graphdr.bench.maps import trustworthiness

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    Z = X[:, :2] + 0.5 * rng.normal(size=(400, 2))
    for k in (1, 5, 10):
        for A, B in ((X, Z), (Z, X)):  # trustworthiness, then continuity
            want = reference(A, B, n_neighbors=k)
            assert trustworthiness(A, B, k, block=37) == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match="below n_samples / 2"):
        trustworthiness(X[:10], Z[:10], 5)


@pytest.mark.slow
def test_transform_is_row_by_row_whatever_rows_come_together():
    """A new sample's place has the same bits whichever other samples are placed with it (the
    Dask path places blocks of any size): the digits hold duplicate rows, neighbours at equal
    distances that a search returns in an order that depends on the batch."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:900], y[:900].copy()
    y[::7] = -1
    model = DEEMap(max_iter=20).fit(X[::2], y[::2])
    whole = model.transform(X)
    for rows in (np.arange(1, 900, 2), slice(3, 40), np.array([55, 2, 71, 30]), slice(0, 1)):
        assert np.array_equal(model.transform(X[rows]), whole[rows])


def test_the_placement_widths_map_neighbours_are_scikit_learns_in_ties():
    """One k-d tree asked for every width's places finds the neighbours that scikit-learn's
    ``NearestNeighbors`` finds with one query per width (its brute force below 2k + 2
    points), on rounded points and places full of equal distances."""
    from sklearn.neighbors import NearestNeighbors

    from graphdr.maps.placement import _map_neighbours

    rng = np.random.default_rng(0)
    for trial in range(60):
        n = int(rng.integers(3, 300))
        pts = np.round(rng.normal(size=(n, 2)) * rng.choice([1, 3, 10]), trial % 3)
        pts = pts.astype(np.float32 if trial % 2 else np.float64)
        places = [np.round(rng.normal(size=(int(rng.integers(1, 40)), 2)) * 3, 1)
                  for _ in range(6)]
        for k in (1, 2, 5, 11):
            if k > n:
                continue
            nn = NearestNeighbors(n_neighbors=k).fit(pts)
            got = _map_neighbours(pts, places, k)
            assert len(got) == len(places)
            for p, g in zip(places, got):
                np.testing.assert_array_equal(g, nn.kneighbors(p)[1])


def test_places_at_several_widths_are_the_places_at_each():
    """The places at every width from one call, with what no width changes computed once,
    are those of one call per width, bit for bit (training samples given again included)."""
    from graphdr.maps.placement import PLACEMENT_WIDTHS, place, place_at_widths

    rng = np.random.default_rng(2)
    positions = rng.normal(size=(200, 2)) * 5
    ind = np.stack([rng.choice(200, size=12, replace=False) for _ in range(80)])
    dist = np.sort(rng.random((80, 12)), axis=1)
    dist[:5, :2] = 0.0  # samples equal to training samples
    together = place_at_widths(positions, dist, ind, PLACEMENT_WIDTHS)
    assert len(together) == len(PLACEMENT_WIDTHS)
    for width, got in zip(PLACEMENT_WIDTHS, together):
        np.testing.assert_array_equal(got, place(positions, dist, ind, width))
    assert not np.array_equal(together[0], together[-1])  # the widths place differently
