"""Threads (graphdr._threads, issue 35): BLAS and OpenMP on one thread inside a fit, graphdr's
own pieces on the threads the environment allows, and the same bits whatever their number."""

import threading
import time

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import graphdr
from graphdr import _threads
from graphdr.blocks import stats


def _blas_settings():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


# ----- the primitives -----------------------------------------------------------------------
def test_one_thread_limits_blas_and_restores_what_the_environment_set():
    with threadpool_limits(limits=2, user_api="blas"):
        allowed = _threads.allowed_threads()
        before = _blas_settings()
        with _threads.one_thread():
            assert set(_blas_settings()) == {1}
            assert _threads.allowed_threads() == allowed  # what the environment allows
            with _threads.one_thread():  # nested: still one, still the outer allowance
                assert set(_blas_settings()) == {1}
                assert _threads.allowed_threads() == allowed
            assert set(_blas_settings()) == {1}
        assert _blas_settings() == before


def test_allowed_threads_follows_an_enclosing_limit():
    with threadpool_limits(limits=1):
        assert _threads.allowed_threads() == 1
        with _threads.one_thread():
            assert _threads.allowed_threads() == 1


def test_map_threads_keeps_the_order_and_uses_several_threads():
    seen = set()

    def work(i):
        seen.add(threading.get_ident())
        time.sleep(0.01)  # releases the GIL, as NumPy's heavy calls do
        return i * i

    out = _threads.map_threads(work, range(12), n_workers=3)
    assert out == [i * i for i in range(12)]
    assert len(seen) > 1


def _every_piece_at_one_thread():
    """Whether BLAS and every OpenMP runtime are at one thread in every piece of a map."""
    def settings(_):
        return [i["num_threads"] for i in threadpool_info()
                if i["user_api"] in ("blas", "openmp")]

    with threadpool_limits(limits=2):
        seen = _threads.map_threads(settings, range(4), n_workers=2)
    return all(set(s) == {1} for s in seen)


def test_map_threads_runs_its_pieces_with_one_blas_and_one_openmp_thread():
    """BLAS's setting is process-wide, OpenMP's per thread: both at one in every piece."""
    assert _every_piece_at_one_thread()


def test_map_threads_passes_the_error_state_and_the_errors():
    def divide(i):
        return np.float64(1.0) / np.float64(i)

    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            _threads.map_threads(divide, [1, 0, 2], n_workers=2)
    with np.errstate(divide="ignore"):
        assert np.isinf(_threads.map_threads(divide, [0, 1], n_workers=2)[0])

    def fail(i):
        if i == 3:
            raise ValueError("piece 3")
        return i

    with pytest.raises(ValueError, match="piece 3"):
        _threads.map_threads(fail, range(6), n_workers=2)


def test_a_fit_runs_blas_on_one_thread_inside():
    """The optimiser's callback runs inside ``fit``: BLAS is at one thread there, and the
    environment's setting is back afterwards."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 30)
    X = rng.normal(size=(90, 4)) + 3 * rng.normal(size=(3, 4))[y]
    inside = []

    def callback(x, info):
        inside.append(_blas_settings())

    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_settings()
        graphdr.DEEMap(max_iter=3, callback=callback).fit(X, y)
        assert _blas_settings() == before
    assert inside and all(set(s) == {1} for s in inside)


# ----- the statistics pass in stripes --------------------------------------------------------
def test_the_striped_statistics_are_the_brute_force_ones_with_any_number_of_threads():
    rng = np.random.default_rng(1)
    n, D, C = 9000, 7, 4
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) * [1, 10, 1e-3, 1, 1, 5, 2] + 1e3
    assert len(stats._stripes(n, 512, D)) > 2
    results = []
    for workers in (1, 3):
        with threadpool_limits(limits=workers, user_api="blas"):
            s = stats.class_statistics(X, y, n_classes=C, block_rows=512)
        results.append(s)
    a, b = results
    assert np.array_equal(a.gram, b.gram) and np.array_equal(a.sums, b.sums)
    m = X.mean(axis=0)
    np.testing.assert_allclose(a.centered_gram(), (X - m).T @ (X - m), rtol=1e-11, atol=1e-6)
    U = np.array([(X[y == c] - m).sum(axis=0) for c in range(C)])
    np.testing.assert_allclose(a.centered_class_sums(), U, rtol=1e-9, atol=1e-6)
    np.testing.assert_array_equal(a.counts, np.bincount(y, minlength=C))


def test_the_stripes_depend_on_the_size_only():
    for n in (1, 4095, 4096, 4097, 10**6):
        stripes = stats._stripes(n, 4096, 100)
        assert stripes[0][0] == 0 and stripes[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(stripes, stripes[1:]))
        assert len(stripes) <= stats._MAX_STRIPES


# ----- the same bits with one thread or several ----------------------------------------------
def _data(n, d, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % C
    return rng.normal(size=(n, d)) + 2.0 * rng.normal(size=(C, d))[y], y


CASES = [
    # a pass of several stripes and the leave-one-out ridge
    ("LDA", lambda: graphdr.LDA(), (40_000, 12)),
    # neighbour graphs searched in several chunks
    ("LPP", lambda: graphdr.LPP(n_components=3), (4_500, 6)),
    ("MMPA", lambda: graphdr.MMPA(n_components=3), (1_200, 6)),
    # kernel matrices in several row blocks, the kernel width by leave-one-out
    ("KernelLDA", lambda: graphdr.KernelLDA(), (1_500, 5)),
    ("KQMI", lambda: graphdr.KQMI(), (1_500, 5)),
    ("DEEMap", lambda: graphdr.DEEMap(max_iter=30), (2_500, 5)),
]


@pytest.mark.parametrize("name,make,shape", CASES, ids=[c[0] for c in CASES])
@pytest.mark.slow
def test_a_fit_gives_the_same_bits_with_one_thread_or_several(name, make, shape):
    X, y = _data(*shape)
    with threadpool_limits(limits=1):
        one = make().fit(X, y).transform(X)
    with threadpool_limits(limits=3):
        assert _threads.allowed_threads() == 3
        several = make().fit(X, y).transform(X)
    assert np.array_equal(one, several), np.max(np.abs(one - several))


# ----- the pieces against what they replace ---------------------------------------------------
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "laplacian", "cosine"])
def test_a_kernel_in_row_blocks_is_scikit_learns(kernel):
    from sklearn.metrics.pairwise import pairwise_kernels

    from graphdr.blocks.kernel_matrices import KERNEL_BLOCK_ENTRIES, compute_kernel

    rng = np.random.default_rng(3)
    X = rng.normal(size=(1500, 4))
    Y = rng.normal(size=(1400, 4))
    assert X.shape[0] * Y.shape[0] > 2 * KERNEL_BLOCK_ENTRIES  # three blocks
    params = {"gamma": 0.3} if kernel in ("rbf", "poly", "laplacian") else {}
    with threadpool_limits(limits=2, user_api="blas"):
        K = compute_kernel(X, kernel=kernel, **params)
        KY = compute_kernel(X, Y, kernel=kernel, **params)
    np.testing.assert_allclose(K, pairwise_kernels(X, metric=kernel, **params),
                               rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(KY, pairwise_kernels(X, Y, metric=kernel, **params),
                               rtol=1e-13, atol=1e-13)
    if kernel == "rbf":  # the exact 1 of a zero distance, as scikit-learn's
        assert np.all(np.diag(K) == 1.0)


@pytest.mark.parametrize("kernel, params", [
    ("rbf", {"gamma": 0.3}), ("rbf", {}), ("linear", {}), ("poly", {"gamma": 0.2}),
    ("poly", {"gamma": 0.5, "degree": 2, "coef0": 0.0}), ("sigmoid", {"gamma": 0.1}),
    ("cosine", {}), ("laplacian", {"gamma": 0.2})])
def test_graphdr_s_dense_kernels_are_scikit_learns_bit_for_bit(kernel, params):
    """The kernels and Euclidean distances graphdr computes itself on rows validated already
    (dense float64) are scikit-learn's to the last bit: of X with itself (the RBF's zero
    diagonal distance), of X with other rows, one piece and in row blocks, on data of any
    scale and with duplicate rows; float32 and sparse rows go to scikit-learn."""
    import scipy.sparse as sp
    from sklearn.metrics.pairwise import euclidean_distances as sk_euclidean
    from sklearn.metrics.pairwise import pairwise_distances, pairwise_kernels

    from graphdr.blocks.kernel_matrices import (
        KERNEL_BLOCK_ENTRIES,
        _dense_kernel,
        compute_kernel,
        euclidean_distances,
    )

    def blocks(X, Y=None):  # scikit-learn's kernel of each row block (one BLAS thread each)
        other = X if Y is None else Y
        step = KERNEL_BLOCK_ENTRIES // other.shape[0]
        with threadpool_limits(limits=1, user_api="blas"):
            K = np.vstack([pairwise_kernels(X[a:a + step], other, metric=kernel, **params)
                           for a in range(0, len(X), step)])
        if Y is None and kernel == "rbf":
            np.fill_diagonal(K, 1.0)
        return K

    rng = np.random.default_rng(5)
    for X, Y in ((rng.normal(size=(60, 5)) * 1e3, rng.normal(size=(40, 5))),
                 (np.repeat(rng.normal(size=(30, 3)), 2, axis=0), rng.normal(size=(7, 3)))):
        want = pairwise_kernels(X, metric=kernel, **params)
        assert np.array_equal(compute_kernel(X, kernel=kernel, **params), want)
        assert np.array_equal(compute_kernel(X, Y, kernel=kernel, **params),
                              pairwise_kernels(X, Y, metric=kernel, **params))
        if kernel not in ("cosine", "laplacian"):  # (those two: scikit-learn's own)
            assert np.array_equal(_dense_kernel(X, X, kernel, **params), want)
        assert np.array_equal(euclidean_distances(X), pairwise_distances(X))
        assert np.array_equal(euclidean_distances(X, Y, squared=True),
                              sk_euclidean(X, Y, squared=True))
    X, Y = rng.normal(size=(1100, 4)), rng.normal(size=(1000, 4))
    assert X.shape[0] * Y.shape[0] > KERNEL_BLOCK_ENTRIES  # in row blocks
    with threadpool_limits(limits=2, user_api="blas"):
        assert np.array_equal(compute_kernel(X, kernel=kernel, **params), blocks(X))
        assert np.array_equal(compute_kernel(X, Y, kernel=kernel, **params), blocks(X, Y))
    X32 = X.astype(np.float32)
    assert np.array_equal(compute_kernel(X32[:50], kernel=kernel, **params),
                          pairwise_kernels(X32[:50], metric=kernel, **params))
    Xs = sp.csr_matrix(X[:50])
    assert np.array_equal(compute_kernel(Xs, kernel=kernel, **params),
                          pairwise_kernels(Xs, metric=kernel, **params))


def test_neighbours_in_chunks_are_the_whole_search():
    from graphdr.blocks.graphs import knn_graph
    from graphdr.blocks.knn import _QUERY_CHUNK

    rng = np.random.default_rng(4)
    n = 2 * _QUERY_CHUNK + 100
    X = np.round(rng.normal(size=(n, 3)), 1)  # repeated values: ties everywhere
    y = np.arange(n) % 2
    for restrict in (None, "same", "different"):
        chunked = knn_graph(X, 6, y=y, restrict=restrict)
        import graphdr.blocks.knn as knn

        saved = knn._QUERY_CHUNK
        knn._QUERY_CHUNK = 10**9  # one piece
        try:
            whole = knn_graph(X, 6, y=y, restrict=restrict)
        finally:
            knn._QUERY_CHUNK = saved
        assert (chunked != whole).nnz == 0


def test_every_public_estimator_manages_its_threads():
    """``fit`` and ``transform`` of every public estimator run under ``managed_threads``
    (a new estimator cannot forget it)."""
    classes = [getattr(graphdr, name) for name in graphdr.__all__
               if isinstance(getattr(graphdr, name), type)
               and hasattr(getattr(graphdr, name), "fit")]
    assert len(classes) >= 20

    def own(cls, method):  # defined by graphdr (scikit-learn's mixins call fit and transform)
        return any(method in vars(base) for base in cls.__mro__
                   if base.__module__.startswith("graphdr"))

    unmanaged = [f"{cls.__name__}.{method}" for cls in classes
                 for method in ("fit", "transform", "fit_transform")
                 if own(cls, method)
                 and not getattr(getattr(cls, method), "managed_threads", False)]
    assert not unmanaged, unmanaged


def test_after_a_failed_piece_no_further_piece_starts():
    started = []

    def piece(i):
        started.append(i)
        if i == 1:
            raise ValueError("piece 1")
        time.sleep(0.01)
        return i

    with pytest.raises(ValueError, match="piece 1"):
        _threads.map_threads(piece, range(50), n_workers=2)
    time.sleep(0.05)
    assert len(started) < 10  # the running piece finished; none began after the failure


def test_an_openmp_runtime_loaded_later_is_limited_once_announced():
    """numba (pynndescent, UMAP) loads an OpenMP runtime of its own when it first runs in
    parallel; after :func:`graphdr._threads.libraries_loaded` the pieces limit it too."""
    numba = pytest.importorskip("numba")
    _threads.map_threads(lambda _: None, range(2), n_workers=2)  # libraries found before

    @numba.njit(parallel=True)
    def total(a):
        s = 0.0
        for i in numba.prange(a.shape[0]):
            s += a[i]
        return s

    assert total(np.ones(1000)) == 1000.0
    _threads.libraries_loaded()
    assert _every_piece_at_one_thread()
