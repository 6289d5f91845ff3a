"""Single-pass class statistics (graphdr.blocks.stats) against NumPy formulas, and the LDA/LQMI route."""

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

import graphdr
from graphdr.blocks.stats import ClassStatistics, check_class_counts, class_statistics
from graphdr.qmi import LQMI


def _data(n=500, D=6, C=3, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) + rng.normal(size=(C, D))[y] + offset
    return X, y


def _reference(X, y):
    classes = np.unique(y)
    m = X.mean(axis=0)
    Xc = X - m
    sums = np.array([X[y == c].sum(axis=0) for c in classes])
    counts = np.array([(y == c).sum() for c in classes])
    Sw = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in classes)
    return dict(classes=classes, counts=counts, mean=m, sums=sums, gram=Xc.T @ Xc, Sw=Sw)


def test_statistics_equal_numpy_formulas():
    X, y = _data()
    ref = _reference(X, y)
    st = class_statistics(X, y)
    assert st.n == X.shape[0]
    np.testing.assert_array_equal(st.classes, ref["classes"])
    np.testing.assert_array_equal(st.counts, ref["counts"])
    np.testing.assert_allclose(st.mean, ref["mean"], atol=1e-13)
    np.testing.assert_allclose(st.class_means() * st.counts[:, None], ref["sums"], atol=1e-10)
    np.testing.assert_allclose(st.centered_gram(), ref["gram"], rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(
        st.centered_class_sums(), ref["sums"] - np.outer(ref["counts"], ref["mean"]), atol=1e-10
    )
    np.testing.assert_allclose(st.within_class_scatter(), ref["Sw"], rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("block_rows", [1, 7, 64, 10_000])
def test_chunked_equals_unchunked(block_rows):
    X, y = _data(n=300)
    whole = class_statistics(X, y, block_rows=10_000)
    part = class_statistics(X, y, block_rows=block_rows)
    assert part.n == whole.n
    np.testing.assert_array_equal(part.counts, whole.counts)
    np.testing.assert_allclose(part.mean, whole.mean, atol=1e-13)
    np.testing.assert_allclose(part.centered_gram(), whole.centered_gram(), rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(part.centered_class_sums(), whole.centered_class_sums(), atol=1e-10)


def test_string_labels_missing_in_some_chunks():
    # blocks see different label sets: the merge aligns them
    X, y = _data(n=60)
    labels = np.array(["ant", "bee", "cat"])[y]
    order = np.argsort(labels, kind="stable")
    X, labels = X[order], labels[order]
    st = class_statistics(X, labels, block_rows=11)
    ref = _reference(X, labels)
    np.testing.assert_array_equal(st.classes, ["ant", "bee", "cat"])
    np.testing.assert_array_equal(st.counts, ref["counts"])
    np.testing.assert_allclose(st.within_class_scatter(), ref["Sw"], rtol=1e-12, atol=1e-10)


def test_large_offset_keeps_precision():
    X, y = _data(n=4000, offset=0.0)
    exact = _reference(X, y)["gram"]
    Xo = X + 1e8  # same centred data, huge common offset
    st = class_statistics(Xo, y, block_rows=512)
    err_shifted = np.abs(st.centered_gram() - exact).max() / np.abs(exact).max()
    m = Xo.mean(axis=0)
    naive = Xo.T @ Xo - Xo.shape[0] * np.outer(m, m)
    err_naive = np.abs(naive - exact).max() / np.abs(exact).max()
    assert err_shifted < 1e-7
    assert err_naive > 1e-2  # the textbook formula has lost every digit
    # and LDA on the offset data equals LDA on the original data
    a = graphdr.LDA(reg=0.0).fit(X, y).components_
    b = graphdr.LDA(reg=0.0).fit(Xo, y).components_
    assert np.max(subspace_angles(a.T, b.T)) < 1e-6


def test_nonfinite_flag():
    X, y = _data(n=50)
    X[17, 2] = np.nan
    assert class_statistics(X, y, block_rows=8).nonfinite == "nan"
    X[17, 2] = np.inf
    assert class_statistics(X, y, block_rows=8).nonfinite == "inf"


def test_merge_is_associative_and_exact():
    X, y = _data(n=90)
    parts = [class_statistics(X[a : a + 30], y[a : a + 30]) for a in (0, 30, 60)]
    left = parts[0].merge(parts[1]).merge(parts[2])
    right = parts[0].merge(parts[1].merge(parts[2]))
    assert isinstance(left, ClassStatistics)
    np.testing.assert_allclose(left.centered_gram(), right.centered_gram(), rtol=1e-12)
    np.testing.assert_allclose(left.centered_gram(), _reference(X, y)["gram"], rtol=1e-12)


def test_empty_chunk_keeps_the_shift_of_the_data():
    X, y = _data(n=200, offset=1e8)
    empty = class_statistics(X[:0], y[:0])
    full = class_statistics(X, y)
    merged = empty.merge(full)
    np.testing.assert_array_equal(merged.shift, full.shift)
    np.testing.assert_allclose(merged.centered_gram(), full.centered_gram(), rtol=1e-12)
    np.testing.assert_array_equal(merged.counts, full.counts)


def test_check_class_counts_errors():
    with pytest.raises(ValueError, match="at least 2 classes"):
        check_class_counts(np.array([1]), np.array([5]), method="LDA")
    with pytest.raises(ValueError, match="at least 2 samples in every class"):
        check_class_counts(np.array([0, 1]), np.array([5, 1]), min_per_class=2, method="X")
    with pytest.raises(ValueError, match="Unknown label type"):
        check_class_counts(np.array([0.5, 1.5]), np.array([5, 5]))


@pytest.mark.parametrize("Est", [graphdr.LDA, LQMI])
def test_class_structured_fit_matches_sklearn_with_offset(Est):
    X, y = _data(n=400, D=5, C=4, offset=1e6)
    ours = Est(reg=0.0).fit(X, y).components_
    ref = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).scalings_[:, :3]
    assert np.max(subspace_angles(ours.T, ref)) < 1e-6


@pytest.mark.parametrize("penalty", ["total", "between_class", "degree", "identity"])
def test_graph_embedding_class_graphs_statistics_equal_general_path(penalty, monkeypatch):
    X, y = _data(n=300, D=5, C=3)
    est = graphdr.GraphEmbedding(intrinsic="within_class", penalty=penalty)
    fast = est.fit(X, y)
    fast_components, fast_values = fast.components_.copy(), fast.eigenvalues_.copy()
    # the general path (graphs and quadratic forms from X) on the same problem
    monkeypatch.setattr(graphdr.GraphEmbedding, "_has_class_forms", lambda self, y: False)
    slow = graphdr.GraphEmbedding(intrinsic="within_class", penalty=penalty).fit(X, y)
    k = min(2, fast_components.shape[0])  # S_b has rank C - 1 = 2: compare those components
    np.testing.assert_allclose(fast_values[:k], slow.eigenvalues_[:k], rtol=1e-8, atol=1e-10)
    assert np.max(subspace_angles(fast_components[:k].T, slow.components_[:k].T)) < 1e-6
    if penalty == "total":
        lda = graphdr.LDA(reg=0.0).fit(X, y)
        assert np.max(subspace_angles(fast_components[:2].T, lda.components_.T)) < 1e-8


# ----- the one-pass dense path (graphdr.blocks.stats._dense_statistics) ----------------------------
def _brute_force(X, y):
    """Class counts, sums, centred Gram (= (n-1) np.cov) and S_w by loops over classes."""
    X = np.asarray(X, dtype=np.float64)
    classes = np.unique(y)
    sums = np.array([X[y == c].sum(axis=0) for c in classes])
    Sw = sum(np.cov(X[y == c].T, bias=True) * (y == c).sum() for c in classes)
    return classes, np.bincount(np.searchsorted(classes, y)), sums, np.cov(X.T) * (len(X) - 1), Sw


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("block_rows", [None, 1, 13, 4096])
def test_one_pass_statistics_equal_brute_force(dtype, block_rows):
    rng = np.random.default_rng(3)
    n, D = 257, 7
    y = rng.choice([-3, 0, 5, 11], size=n)  # integer labels with gaps and a negative one
    X = (rng.normal(size=(n, D)) + 0.5 * y[:, None]).astype(dtype)
    X[:, 2] = 4.25  # a constant feature
    st = class_statistics(X, y, block_rows=block_rows)
    classes, counts, sums, gram, Sw = _brute_force(X, y)
    np.testing.assert_array_equal(st.classes, classes)
    np.testing.assert_array_equal(st.counts, counts)
    np.testing.assert_allclose(st.class_means() * st.counts[:, None], sums, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(st.centered_gram(), gram, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(st.within_class_scatter(), Sw, rtol=1e-12, atol=1e-10)
    # the constant feature: zero variance up to rounding of its (exactly representable) value
    assert np.abs(st.centered_gram()[2]).max() == 0.0
    assert st.nonfinite is None


def test_one_pass_statistics_with_class_indices_and_sorted_rows():
    # rows sorted by class (the single shift is taken from rows spread over the array)
    X, y = _data(n=3000, D=4, C=5, offset=1e7)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    st = class_statistics(X, y, n_classes=5, block_rows=100)
    ref = _reference(X - 1e7, y)
    np.testing.assert_allclose(st.centered_gram(), ref["gram"], rtol=1e-8)
    np.testing.assert_allclose(st.within_class_scatter(), ref["Sw"], rtol=1e-8)


def test_labels_encoded_by_counting_equal_np_unique():
    from graphdr._validation import check_labels

    rng = np.random.default_rng(0)
    negative = rng.integers(-50, 50, 400).astype(np.int8)
    negative[negative == -1] = -2  # -1 marks an unlabelled sample (refused by check_labels)
    for y in (negative, rng.integers(0, 7, 100).astype(np.uint16),
              np.array([10**12, 5, 10**12, 5]), rng.integers(0, 3, 50).astype(float)):
        classes, codes, sizes = check_labels(y)
        ref = np.unique(y, return_inverse=True, return_counts=True)
        assert classes.dtype == ref[0].dtype
        np.testing.assert_array_equal(classes, ref[0])
        np.testing.assert_array_equal(codes, ref[1].ravel())
        np.testing.assert_array_equal(sizes, ref[2])


@pytest.mark.parametrize("scale", [1e-300, 1e-30, 1.0, 1e30, 1e200])
def test_magnitude_bounds_bracket_the_largest_entry(scale):
    from graphdr.blocks.stats import _magnitude_bounds, scaled_class_statistics

    X, y = _data(n=300, D=5)
    X = X * scale
    st = class_statistics(X, y)
    top = np.abs(X).max()
    if st.nonfinite is None and np.all(np.diag(st.gram) > 0):
        lower, upper = _magnitude_bounds(st)
        assert lower <= top * (1 + 1e-12) and top <= upper * (1 + 1e-12)
    # the scaled statistics are those of X / 2**e, with 2**e chosen as before from max|X|
    stats, factor = scaled_class_statistics(X, y, 3)
    expected = 1.0 if 2.0**-64 <= top <= 2.0**64 else 2.0 ** np.frexp(top)[1]
    assert factor == expected
    ref = _reference(X / factor, y)
    np.testing.assert_allclose(stats.centered_gram(), ref["gram"], rtol=1e-10)


@pytest.mark.parametrize("layout", ["C", "F", "float32", "sparse", "dask"])
@pytest.mark.parametrize("block_rows", [None, 7])
def test_work_beside_the_statistics_pass_runs_once_and_changes_nothing(layout, block_rows):
    """``beside`` (LDA's leave-one-out ridge) runs once, on the pass's threads for a dense
    array, and the statistics are those of the pass without it."""
    import threading

    import scipy.sparse as sp

    X, y = _data(n=300, D=5)
    data = {"C": X, "F": np.asfortranarray(X), "float32": X.astype(np.float32),
            "sparse": sp.csr_matrix(X)}.get(layout)
    if layout == "dask":
        da = pytest.importorskip("dask.array")
        data = da.from_array(X, chunks=(60, 5))
    calls = []
    stats = class_statistics(data, y, block_rows=block_rows,
                             beside=lambda: calls.append(threading.get_ident()))
    assert len(calls) == 1
    plain = class_statistics(data, y, block_rows=block_rows)
    np.testing.assert_array_equal(stats.gram, plain.gram)
    np.testing.assert_array_equal(stats.sums, plain.sums)


def test_lda_auto_ridge_with_keys_from_the_pass_is_the_standalone_choice():
    """LDA(reg='auto') chooses its ridge beside the statistics pass, from keys computed before
    it: the same ridge and leave-one-out curve as press_ridge on its own, on more rows than
    the subsample holds."""
    from graphdr.tuning.loo import press_ridge

    X, y = _data(n=2600, D=8, C=4, seed=5)
    est = graphdr.LDA().fit(X, y)
    reg, cv = press_ridge(X, np.searchsorted(est.classes_, y), name="LDA")
    assert est.reg_ == reg
    np.testing.assert_array_equal(est.cv_results_["mean_test_error"], cv["mean_test_error"])
