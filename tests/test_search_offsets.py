"""Every neighbour search the maps use finds the neighbours of data far from 0 and at any
scale (issue 79): the exact search, inverted lists, NN-descent and the map's placement
against brute force in float64, at offsets 0 to 1e6 and scales 1e-20 to 1e20."""

import numpy as np
import pytest

from graphdr.blocks.knn import _search_groups
from graphdr.blocks.lists import InvertedLists
from graphdr.blocks.scaling import FLOAT32_SPAN, feature_scaling, in_frame, search_frame

OFFSETS = [0.0, 1e3, 1e4, 1e6]
SCALES = [1e-20, 1e-6, 1.0, 1e6, 1e20]


def _data(n=500, nq=50, d=4, seed=0):
    r = np.random.default_rng(seed)
    return r.normal(size=(n, d)), r.normal(size=(nq, d))


def _moved(A, offset, scale):
    return (A + offset) * scale


def _brute(X, Q, k, self_in=False):
    """``(squared distances, indices)`` of each query's ``k`` nearest rows, float64 numpy,
    ties to the smaller row (``self_in``: ``Q`` is ``X`` and a row is not its own
    neighbour)."""
    D = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    if self_in:
        np.fill_diagonal(D, np.inf)
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, idx, 1), idx


def _recall(found, truth):
    return np.mean([len(np.intersect1d(f, t)) for f, t in zip(found, truth)]) / truth.shape[1]


# -- the frame ------------------------------------------------------------------------------

def test_the_frame_moves_with_the_data_and_is_the_same_in_any_row_order():
    X, _ = _data()
    c0, s0 = search_frame(X)
    c1, s1 = search_frame(X + 1e4)
    assert s0 == s1 == 1.0 and np.all(c0 == 0) and np.all(c1 == 1e4)
    assert np.array_equal(in_frame(X + 1e4, c1, s1), (X + 1e4) - 1e4)
    perm = np.random.default_rng(1).permutation(len(X))
    for A in (X + 1e4, (X + 3.7) * 1e-20):
        assert all(np.array_equal(a, b) for a, b in zip(search_frame(A), search_frame(A[perm])))


@pytest.mark.parametrize("scale", SCALES + [1e-300, 1e300])
@pytest.mark.parametrize("offset", OFFSETS)
def test_the_frame_brings_any_data_into_range_and_a_frame_is_its_own(offset, scale):
    X, _ = _data()
    A = _moved(X, offset, scale)
    centre, s = search_frame(A, FLOAT32_SPAN)
    Z = in_frame(A, centre, s, np.float32)
    reach = np.abs(Z).max()
    assert FLOAT32_SPAN[0] <= reach <= FLOAT32_SPAN[1]
    assert np.log2(s) == np.round(np.log2(s))  # an exact power of two
    # the frame's own frame is the identity (no second copy of the rows)
    c2, s2 = search_frame(Z, FLOAT32_SPAN)
    assert s2 == 1.0 and not np.any(c2)
    assert in_frame(Z, c2, s2, np.float32, copy=False) is Z


def test_a_non_finite_value_is_named():
    X, _ = _data()
    X[7, 2] = np.nan
    with pytest.raises(ValueError, match="nan at row 7, column 2"):
        search_frame(X, name="X")


@pytest.mark.parametrize("option, atol", [("none", 1e-10), ("standard", 1e-7)])
def test_feature_scaling_centres_the_features(option, atol):
    """'none' now centres too (a translation changes no distance): the map sees the same
    features at any offset, up to the rounding of the offset itself (``X + 1e6`` keeps
    ``X`` to 1.2e-10; 'standard' adds the rounding of its mean's sum)."""
    X, _ = _data(d=6)
    seen = []
    for offset in (0.0, 1e4, 1e6):
        resolved, mean, scale = feature_scaling(X + offset, option)
        assert resolved == option
        seen.append(((X + offset) - mean) / scale)
    for other in seen[1:]:
        np.testing.assert_allclose(other, seen[0], rtol=0, atol=atol)


# -- the exact search (scikit-learn's NearestNeighbors, kd-tree and brute force) -----------

@pytest.mark.parametrize("d", [4, 20])  # 20: scikit-learn's brute force, |x|^2 - 2 q.x
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("offset", OFFSETS)
def test_the_exact_search_is_brute_force_at_any_offset_and_scale(offset, scale, d):
    X, _ = _data(n=300, d=d, seed=2)
    A = _moved(X, offset, scale)
    everyone = np.arange(len(A))
    ((dist, idx),) = _search_groups(A, [(everyone, everyone, 5)], "euclidean", True)
    want_d, want_i = _brute(A, A, 5, self_in=True)
    assert np.array_equal(idx, want_i)
    np.testing.assert_allclose(dist, np.sqrt(want_d), rtol=1e-12)
    # queries against other candidates (restrict='different')
    q, c = everyone[:80], everyone[80:]
    ((dist, idx),) = _search_groups(A, [(q, c, 5)], "euclidean", False)
    want_d, want_i = _brute(A[c], A[q], 5)
    assert np.array_equal(idx, want_i)
    np.testing.assert_allclose(dist, np.sqrt(want_d), rtol=1e-12)


def test_duplicates_in_many_features_are_at_distance_zero_ties_to_the_smaller_index():
    """scikit-learn's brute force gives duplicates a distance of rounding noise; the
    candidates' distances recomputed from the differences are exactly 0."""
    X, _ = _data(n=200, d=30, seed=3)
    X = np.concatenate([X, X[:40], X[:40]]) + 1e4  # rows 200.. and 240.. repeat rows 0..39
    everyone = np.arange(len(X))
    ((dist, idx),) = _search_groups(X, [(everyone, everyone, 2)], "euclidean", True)
    assert np.all(dist[:40] == 0.0)
    assert np.array_equal(idx[:40], np.c_[np.arange(200, 240), np.arange(240, 280)])


# -- inverted lists -------------------------------------------------------------------------

@pytest.mark.parametrize("d", [4, 20])
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("offset", OFFSETS)
def test_every_list_probed_is_brute_force_at_any_offset_and_scale(offset, scale, d):
    """The reproducer of issue 79: 0 of 50 queries found their neighbours at X + 1e4."""
    X, Q = _data(d=d)
    A, B = _moved(X, offset, scale), _moved(Q, offset, scale)
    index = InvertedLists(n_lists=23, n_probe=23).fit(A)
    found = index.search(B, 5)
    want_d, want_i = _brute(A, B, 5)
    assert np.array_equal(found, want_i)
    # squared distances in the caller's units, of the float32 rows of the frame (relative
    # rounding 2**-24 of the spread, a few units of it on the squares)
    np.testing.assert_allclose(index.distances(B, found), want_d, rtol=1e-5)


@pytest.mark.parametrize("offset", [1e4, 1e6])
def test_a_few_lists_find_as_many_neighbours_far_from_zero(offset):
    X, Q = _data(n=3000, nq=300, d=8, seed=4)
    truth = _brute(X, Q, 10)[1]
    near = _recall(InvertedLists(n_probe=8).fit(X).search(Q, 10), truth)  # (the map's probes)
    far = _recall(InvertedLists(n_probe=8).fit(X + offset).search(Q + offset, 10), truth)
    assert near > 0.85 and abs(far - near) <= 0.01


def test_clusters_far_apart_are_searched_in_their_own_coordinates():
    """Two clusters of spread 1, 1e4 apart: the frame's centre is in one of them, the other
    sits far from 0. Each list's distances are taken from its own centre, the centres ranked
    in float64: the far cluster's queries find their neighbours as the near one's do (ranked
    by ``|x|^2 - 2 q.x`` in float32, 8 probes found 98 % of the near cluster's neighbours and
    2 % of the far one's). The far rows are held in float32 at 1e4 (a rounding of 2**-10 of
    each coordinate): with every list probed, the distances found are the nearest up to
    it."""
    r = np.random.default_rng(5)
    X = np.concatenate([r.normal(size=(1500, 6)), r.normal(size=(1500, 6)) + 1e4])
    Q = np.concatenate([r.normal(size=(100, 6)), r.normal(size=(100, 6)) + 1e4])
    want_d, truth = _brute(X, Q, 6)
    found = InvertedLists(n_lists=20, n_probe=20).fit(X).search(Q, 6)
    assert np.array_equal(found[:100], truth[:100])
    got_d = ((X[found[100:]] - Q[100:, None, :]) ** 2).sum(-1)
    np.testing.assert_allclose(got_d, want_d[100:], rtol=0, atol=0.02)
    found = InvertedLists(n_probe=8).fit(X).search(Q, 6)
    near, far = _recall(found[:100], truth[:100]), _recall(found[100:], truth[100:])
    assert near > 0.9 and far >= near - 0.03


def _bad_search(index, Q, k):
    return lambda: index.search(Q, k)


@pytest.mark.parametrize("make, match", [
    (lambda X, Q: _bad_search(InvertedLists().fit(X), Q, 0), "k must be an integer from 1"),
    (lambda X, Q: _bad_search(InvertedLists().fit(X), Q, len(X) + 1),
     r"k must be an integer from 1 to the 500 rows indexed; got 501"),
    (lambda X, Q: _bad_search(InvertedLists().fit(X), Q, 2.5), "k must be an integer"),
    (lambda X, Q: _bad_search(InvertedLists().fit(X), np.where(Q == Q[3, 1], np.nan, Q), 5),
     "query 3 holds nan at feature 1"),
    (lambda X, Q: _bad_search(InvertedLists().fit(X), Q[:, :3], 5), "index's 4 features"),
    (lambda X, Q: lambda: InvertedLists().fit(X[:0]), "at least one row"),
    (lambda X, Q: lambda: InvertedLists(n_probe=0).fit(X), "n_probe must be an integer >= 1"),
    (lambda X, Q: lambda: InvertedLists(n_lists=0).fit(X), "n_lists must be None .* >= 1"),
    (lambda X, Q: lambda: InvertedLists(n_lists=2.0).fit(X), "n_lists must be None"),
    (lambda X, Q: lambda: InvertedLists().fit(np.where(X == X[9, 0], np.inf, X)),
     "holds inf at row 9, column 0"),
    (lambda X, Q: lambda: InvertedLists().search(Q, 5), "not fitted"),
])
def test_bad_input_to_the_lists_is_a_clear_error(make, match):
    X, Q = _data()
    with pytest.raises(ValueError, match=match):
        make(X, Q)()


def test_n_probe_set_to_zero_after_the_fit_is_refused_at_the_search():
    X, Q = _data()
    index = InvertedLists().fit(X)
    index.n_probe = 0
    with pytest.raises(ValueError, match="n_probe must be an integer >= 1"):
        index.search(Q, 5)
    index.n_probe = 2
    assert index.search(Q[:0], 5).shape == (0, 5)


# -- the maps -------------------------------------------------------------------------------

def test_an_exact_map_and_its_placement_do_not_move_with_the_data():
    """20 features (scikit-learn's brute force): the map of X + 1e6 moved by 0.14 and placed
    new samples 0.07 away from those of X (3.0 and 8.2 at X + 1e8) when 'none' kept the
    features uncentred; now both agree to the rounding of the offset itself."""
    from graphdr import DEEMap

    r = np.random.default_rng(8)
    y = r.integers(0, 3, 500)
    X = r.normal(size=(500, 20)) + 1.5 * r.normal(size=(3, 20))[y]
    Xtr, ytr, Xte = X[:300], y[:300], X[300:]
    base = DEEMap(max_iter=5).fit(Xtr, ytr)
    assert base.feature_scaling_ == "none" and base.neighbors_ == "exact"
    for offset in (1e6, 1e8):
        moved = DEEMap(max_iter=5).fit(Xtr + offset, ytr)
        np.testing.assert_allclose(moved.embedding_, base.embedding_, rtol=0, atol=1e-6)
        np.testing.assert_allclose(moved.transform(Xte + offset), base.transform(Xte),
                                   rtol=0, atol=1e-6)


# -- NN-descent and the map's placement (pynndescent) ---------------------------------------

@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
@pytest.mark.parametrize("search", ["graph", "lists"])
def test_nn_descent_finds_as_many_neighbours_far_from_zero_and_at_any_scale(search):
    """ApproxNeighbors(search='lists') found 98 % of the true neighbours of X, 3 % of those of
    X + 1e4."""
    pytest.importorskip("pynndescent")
    from graphdr.blocks.knn import ApproxNeighbors

    X, Q = _data(n=3000, nq=200, d=8, seed=6)
    truth = _brute(X, Q, 10)[1]
    own = _brute(X, X, 10, self_in=True)[1]
    base = None
    for offset, scale in [(0.0, 1.0), (1e4, 1.0), (1e6, 1.0), (1e4, 1e-20), (0.0, 1e20)]:
        A, B = _moved(X, offset, scale), _moved(Q, offset, scale)
        nn = ApproxNeighbors(10, search=search).fit(A)
        dist, ind = nn.kneighbors(B)
        recall = (_recall(ind, truth), _recall(nn.kneighbors()[1], own))
        base = recall if base is None else base
        assert recall[0] >= base[0] - 0.01 and recall[1] >= base[1] - 0.01, (offset, scale)
        # distances in the caller's units
        want = np.sqrt(((A[ind] - B[:, None, :]) ** 2).sum(-1))
        np.testing.assert_allclose(dist, want, rtol=1e-5)
        tdist, tind = nn.training_neighbors(np.arange(50), 5)
        want = np.sqrt(((A[tind] - A[:50, None, :]) ** 2).sum(-1))
        np.testing.assert_allclose(tdist, want, rtol=1e-5)


@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
def test_the_large_maps_placement_moves_no_new_sample_when_the_data_move(monkeypatch):
    """DEEMap(neighbors='approx') placed 362 of 400 new samples elsewhere at X + 1e4. With
    every list probed its placement is exact: the same places at any offset, to rounding;
    with the default probes it finds as many of the true neighbours there as at X."""
    pytest.importorskip("pynndescent")
    from sklearn.neighbors import NearestNeighbors

    from graphdr import DEEMap
    from graphdr.maps import placing

    r = np.random.default_rng(7)
    y = r.integers(0, 4, 1000)
    X = r.normal(size=(1000, 8)) + 2.0 * r.normal(size=(4, 8))[y]
    Xtr, ytr, Xte = X[:600], y[:600], X[600:]
    k = DEEMap().n_neighbors  # the neighbours a new sample is placed from
    truth = NearestNeighbors(n_neighbors=k).fit(Xtr).kneighbors(Xte, return_distance=False)

    def fit(offset):
        return DEEMap(neighbors="approx", max_iter=5, cross_attraction=0.0).fit(Xtr + offset,
                                                                              ytr)

    def neighbours(model, offset):  # rows of the caller's X
        return model._order[model._neighbors.kneighbors(model._scaled(Xte + offset))[1]]

    recall = [_recall(neighbours(fit(o), o), truth) for o in (0.0, 1e4)]
    assert recall[0] > 0.95 and recall[1] >= recall[0] - 0.01
    monkeypatch.setattr(placing, "INDEX_PROBES", 1000)  # every list
    maps = {o: fit(o) for o in (0.0, 1e4, 1e6)}
    assert all(m.neighbors_ == "approx" for m in maps.values())
    places = {o: m.transform(Xte + o) for o, m in maps.items()}
    for o in (1e4, 1e6):
        assert np.array_equal(np.sort(neighbours(maps[o], o), axis=1), np.sort(truth, axis=1))
        np.testing.assert_allclose(places[o], places[0.0], rtol=0, atol=1e-6)


def test_rows_keyed_about_their_medians_keep_their_order_when_the_data_move():
    """DEEMap orders its rows by keys of their values about each feature's median: a copy of
    the data moved by a constant gets the same keys (the same order, so the same map to the
    rounding of the move), where keys of the raw values all change."""
    from graphdr.blocks.sampling import canonical_order, row_keys
    from graphdr.blocks.scaling import lower_medians

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 6)) * [1.0, 2.0, 0.5, 3.0, 1.0, 0.1]
    for shift in (1e4, 1234.567, -3e5):
        moved = X + shift
        assert np.all(row_keys(X).rounded != row_keys(moved).rounded)  # (raw: all change)
        same = row_keys(X, centre=lower_medians(X)).rounded == row_keys(
            moved, centre=lower_medians(moved)).rounded
        assert same.mean() >= 0.99
    order = canonical_order(row_keys(X, centre=lower_medians(X)))
    perm = rng.permutation(len(X))
    # the same order whatever the rows' order (the median is a value of the data)
    again = canonical_order(row_keys(X[perm], centre=lower_medians(X[perm])))
    assert np.array_equal(perm[again], order)
    with pytest.raises(ValueError, match="dense"):
        row_keys([X], centre=np.zeros(6))


@pytest.mark.slow  # NN-descent: numba compiles pynndescent in every new process
def test_an_approximate_map_of_moved_data_places_new_samples_at_the_same_places():
    """The large map (NN-descent and inverted lists, default probes) of data moved by a
    constant: the same map and the same places of new samples, to the rounding of the move."""
    from sklearn.datasets import load_digits

    from graphdr import DEEMap

    X, y = load_digits(return_X_y=True)
    X = X + np.random.default_rng(0).normal(scale=0.1, size=X.shape)  # (no exact sums)
    Xtr, Xte, ytr = X[:1300], X[1300:], y[:1300]
    # (the Gaussian map, fitted on every row by NN-descent; the heavy-tailed map is exact here)
    a = DEEMap(repulsion="gaussian", neighbors="approx", max_iter=30).fit(Xtr, ytr)
    b = DEEMap(repulsion="gaussian", neighbors="approx", max_iter=30).fit(Xtr + 1e4, ytr)
    span = np.ptp(a.embedding_)
    assert np.abs(a.embedding_ - b.embedding_).max() < 1e-6 * span
    moved = np.linalg.norm(a.transform(Xte) - b.transform(Xte + 1e4), axis=1)
    assert moved.max() < 1e-6 * span
