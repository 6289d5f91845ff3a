"""Content-keyed subsamples and folds (graphdr.blocks.sampling): deterministic and order-free."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphdr.blocks import sampling
from graphdr.blocks.sampling import (
    KEY_BITS,
    RowKeys,
    canonical_order,
    landmark_indices,
    row_keys,
    seeded,
    stratified_folds,
    stratified_subsample,
)


def _data(n=300, D=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    X[rng.random(size=X.shape) < 0.3] = 0.0  # zeros, as sparse data have
    y = rng.integers(0, 3, n)
    return X, y


def test_keys_move_with_the_rows_and_agree_across_input_types():
    X, _ = _data()
    keys = row_keys(X)
    assert isinstance(keys, RowKeys) and len(keys) == len(X)
    perm = np.random.default_rng(1).permutation(len(X))
    np.testing.assert_array_equal(row_keys(X[perm]).rounded, keys.rounded[perm])
    np.testing.assert_array_equal(row_keys(sp.csr_matrix(X)).rounded, keys.rounded)
    np.testing.assert_array_equal(row_keys(np.asfortranarray(X)).rounded, keys.rounded)
    negative_zeros = X.copy()
    negative_zeros[X == 0] = -0.0
    assert np.signbit(negative_zeros).sum() > np.signbit(X).sum()
    assert np.all(row_keys(negative_zeros) == keys)  # -0.0 is 0.0, for both keys
    assert np.all(row_keys(sp.csr_matrix(negative_zeros)) == keys)
    assert len(np.unique(keys.rounded)) == len(X)  # distinct rows, distinct keys


def test_rounded_key_ignores_float32_and_tiny_perturbations_exact_key_does_not():
    X, _ = _data()
    keys = row_keys(X)
    X32 = X.astype(np.float32)
    # float32 keeps 24 bits: a value moves across a KEY_BITS rounding boundary with
    # probability about 2**(KEY_BITS - 24) (here 6 values in 1800: at most a few rows)
    assert KEY_BITS < 24
    assert np.mean(row_keys(X32).rounded == keys.rounded) > 0.97
    perturbed = X * (1 + 1e-10 * np.random.default_rng(2).normal(size=X.shape))
    assert np.mean(row_keys(perturbed).rounded == keys.rounded) > 0.99
    # the exact key (computed only where rounded keys tie, so asked for here directly)
    assert np.all(row_keys(perturbed).exact() != keys.exact())


def test_precomputed_keys_do_not_depend_on_the_sample_order():
    X, _ = _data(n=50)
    K = X @ X.T
    perm = np.random.default_rng(3).permutation(50)
    got = row_keys(K[np.ix_(perm, perm)], precomputed=True)
    want = row_keys(K, precomputed=True)[perm]
    np.testing.assert_array_equal(got.rounded, want.rounded)
    np.testing.assert_array_equal(got.exact(), want.exact())


def test_views_combine_their_keys():
    X, _ = _data()
    views = [X[:, :3], X[:, 3:]]
    perm = np.random.default_rng(4).permutation(len(X))
    assert np.all(row_keys([V[perm] for V in views]) == row_keys(views)[perm])
    assert not np.array_equal(row_keys(views).rounded, row_keys(views[::-1]).rounded)


def test_subsample_and_folds_are_the_same_set_in_any_row_order():
    X, y = _data(n=900)
    keys = row_keys(X)
    idx = stratified_subsample(y, 300, keys)
    perm = np.random.default_rng(5).permutation(len(y))
    idx_p = stratified_subsample(y[perm], 300, keys[perm])
    np.testing.assert_array_equal(X[perm][idx_p], X[idx])  # same rows, same (canonical) order
    # stratified: every class keeps its share (within rounding) and at least 3 rows
    for c in range(3):
        share = np.mean(y[idx] == c)
        assert share == pytest.approx(np.mean(y == c), abs=0.01)
    folds = stratified_folds(y[idx], 3, keys[idx])
    folds_p = stratified_folds(y[perm][idx_p], 3, keys[perm][idx_p])
    for (_, te), (_, te_p) in zip(folds, folds_p):
        np.testing.assert_array_equal(te, te_p)
    tests = np.concatenate([te for _, te in folds])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(idx)))  # a partition
    for tr, te in folds:
        assert np.intersect1d(tr, te).size == 0
        for c in range(3):  # stratified: each fold holds a third of every class (+-1)
            assert abs(np.sum(y[idx][te] == c) - np.sum(y[idx] == c) / 3) <= 1


def test_small_data_keep_every_row_in_canonical_order():
    X, y = _data(n=40)
    keys = row_keys(X)
    idx = stratified_subsample(y, 600, keys)
    np.testing.assert_array_equal(idx, canonical_order(keys, y))
    assert sorted(idx) == list(range(40))


def test_landmarks_by_content_unless_a_seed_is_given():
    X, _ = _data()
    perm = np.random.default_rng(6).permutation(len(X))
    a = landmark_indices(X, 50)
    b = landmark_indices(X[perm], 50)
    np.testing.assert_array_equal(X[perm][b], X[a])
    np.testing.assert_array_equal(landmark_indices(X, 50, 0),
                                  np.random.RandomState(0).permutation(len(X))[:50])
    assert len(landmark_indices(X, 10_000)) == len(X)


def test_seeded_reads_none_as_zero():
    assert seeded(None).randint(10**9) == seeded(0).randint(10**9)
    assert seeded(3).randint(10**9) == np.random.RandomState(3).randint(10**9)


_M64 = 2**64


def _splitmix(z):
    """SplitMix64's finaliser on a Python integer (independent of NumPy's uint64)."""
    z ^= z >> 30
    z = z * 0xBF58476D1CE4E5B9 % _M64
    z ^= z >> 27
    z = z * 0x94D049BB133111EB % _M64
    return z ^ (z >> 31)


def _key_by_formula(row, group=2**16):
    """The module docstring's keys of one row (rounded, exact), in Python integers."""
    row = np.asarray(row, dtype=np.float64) + 0.0
    D = len(row)
    bits = [int(b) for b in row.view(np.uint64)]
    codes = [(b + 2**39) >> 40 for b in bits]  # sign, exponent, 12 bits, rounded to nearest
    codes = [0 if c == 2**23 else c for c in codes]  # a value that rounds to -0.0 counts as 0
    weight_bits = 53 - 24 - int(np.ceil(np.log2(min(D, group))))
    salt = 0x9E3779B97F4A7C15
    total = salt
    for k in range(4):
        weights = [(_splitmix(salt + 4 * j + k) >> (64 - weight_bits)) + 1 for j in range(D)]
        projection = sum(w * c for w, c in zip(weights, codes))
        total += (_splitmix(k) | 1) * projection
    rounded = _splitmix(total % _M64)
    exact = sum(_splitmix(b ^ _splitmix(j + 1)) for j, b in enumerate(bits) if row[j] != 0)
    return rounded, exact % _M64


def _keys_by_formula(X, group=2**16):
    return np.array([_key_by_formula(row, group) for row in X], dtype=np.uint64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_keys_in_blocks_are_the_formula(monkeypatch, dtype):
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(3)
    X = rng.normal(size=(23, 5)).astype(dtype)
    X[::4, 1] = 0.0
    X[1::6, 3] = -0.0
    if dtype == np.float64:  # negative denormals that round to -0.0, and one that does not
        X[2, 4], X[7, 0], X[9, 2] = -5e-324, -1e-312, -3e-308
    # blocks of 2 rows, a short last one, pieces of 3 blocks on two threads
    monkeypatch.setattr(sampling, "_KEY_BLOCK_ENTRIES", 12)
    monkeypatch.setattr(sampling, "_BLOCKS_PER_PIECE", 3)
    with threadpool_limits(limits=2, user_api="blas"):
        keys = sampling.row_keys(X)
    want = _keys_by_formula(X)
    np.testing.assert_array_equal(keys.rounded, want[:, 0])
    np.testing.assert_array_equal(keys.exact(), want[:, 1])
    assert len(np.unique(keys.rounded)) == len(X)  # the rows differ, and so do their keys


def test_projections_stay_exact_at_their_bound():
    """The largest codes (negative values of the largest exponent) in 1000 columns: every
    partial sum near 2**53, still exact in float64 (a weight bit more and they would not be)."""
    rng = np.random.default_rng(8)
    X = -rng.uniform(1.0, 1.7, size=(6, 1000)) * 2.0**1023
    np.testing.assert_array_equal(row_keys(X).rounded, _keys_by_formula(X)[:, 0])
    weights = sampling._projection_weights(1000)
    assert 1000 * weights.max() * (2**24 - 1) < 2**53


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_wide_rows_are_projected_in_column_groups(monkeypatch, kind):
    monkeypatch.setattr(sampling, "_COLUMN_GROUP", 4)  # 10 columns: groups of 4, 4 and 2
    X, _ = _data(n=30, D=10)
    data = sp.csr_matrix(X) if kind == "sparse" else X
    np.testing.assert_array_equal(row_keys(data).rounded, _keys_by_formula(X, group=4)[:, 0])


@pytest.mark.parametrize("kind", ["dense", "sparse", "dask"])
def test_exact_keys_only_where_rounded_keys_tie_give_the_full_order(monkeypatch, kind):
    """Rows equal to 12 bits but not exactly (near-duplicates) and identical rows: the exact
    keys of those rows only are computed, and the order is that of every exact key."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 4))
    X[10] = X[3] * (1 + 1e-9)  # the same rounded key as row 3, another exact one
    X[20] = X[3]
    X[30, 2] = 0.0
    monkeypatch.setattr(sampling, "_BLOCK_ENTRIES", 12)
    want = _keys_by_formula(X)
    if kind == "sparse":
        data = sp.csr_matrix(X)
    elif kind == "dask":
        da = pytest.importorskip("dask.array")
        data = da.from_array(X, chunks=(7, 4))  # the tied rows in different chunks
    else:
        data = X
    computed = []
    exact = sampling._sparse_exact_key if kind == "sparse" else sampling._dense_exact_key

    def counting(block):
        computed.append(np.asarray(block).shape[0] if not sp.issparse(block) else block.shape[0])
        return exact(block)

    monkeypatch.setattr(sampling, "_sparse_exact_key" if kind == "sparse" else "_dense_exact_key",
                        counting)
    keys = sampling.row_keys(data)
    np.testing.assert_array_equal(keys.rounded, want[:, 0])
    assert keys.rounded[3] == keys.rounded[10] == keys.rounded[20]
    assert computed == []  # nothing exact until a sort meets a tie
    order = sampling.canonical_order(keys)
    assert computed == [3]  # then only the three tied rows
    np.testing.assert_array_equal(order, np.lexsort((want[:, 1], want[:, 0])))
    tied = [3, 10, 20]
    np.testing.assert_array_equal(keys.exact(tied), want[tied, 1])
    assert want[3, 1] != want[10, 1] and want[3, 1] == want[20, 1]
    # a subset without the tie sorts by the rounded key alone
    computed.clear()
    sampling.canonical_order(keys[np.arange(10)])
    assert computed == []


def test_subsample_by_partition_is_the_first_rows_in_key_order():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(400, 2)).astype(float)  # many identical rows: tied keys
    y = rng.integers(0, 3, size=400)
    keys = sampling.row_keys(X)
    got = sampling.stratified_subsample(y, 60, keys)
    keep = []
    for c in range(3):
        idx = np.flatnonzero(y == c)
        m = max(int(round(60 * len(idx) / 400)), 3)
        keep.append(idx[sampling.canonical_order(keys[idx])[:m]])  # a full sort per class
    keep = np.concatenate(keep)
    np.testing.assert_array_equal(got, keep[sampling.canonical_order(keys[keep], y[keep])])
