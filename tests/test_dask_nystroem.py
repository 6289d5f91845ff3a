"""Nystroem kernel methods (KernelLDA, KQMI, MKLDR) on dask arrays, on a dask.distributed
LocalCluster, against the same fit in memory."""

import numpy as np
import pytest
from scipy.linalg import subspace_angles

import graphdr

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install graphdr[dask])")
distributed = pytest.importorskip(
    "dask.distributed", reason="dask.distributed is not installed (pip install graphdr[dask])"
)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture
def no_materialise(monkeypatch):
    """Fail if anything converts a dask array to NumPy as a whole."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("the dask array was materialised")

    monkeypatch.setattr(da.Array, "__array__", refuse)


def _data(n=600, D=8, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) + 1.5 * rng.normal(size=(C, D))[y]
    return X, y


def _equal_up_to_sign(A, B, rtol=1e-9):
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A * signs, B, rtol=rtol, atol=rtol * np.abs(B).max())


@pytest.mark.parametrize("Est", [graphdr.KernelLDA, graphdr.KQMI])
@pytest.mark.slow
def test_nystroem_fit_on_cluster_equals_in_memory_fit(client, Est, no_materialise):
    X, y = _data()
    Xd = da.from_array(X, chunks=(100, 5))  # 6 row chunks, split columns
    yd = da.from_array(y, chunks=250)  # not aligned with X's chunks
    params = dict(approximation="nystroem", n_landmarks=50, random_state=3, gamma=0.05,
                  reg=1e-3)
    with distributed.get_task_stream(client) as stream:
        lazy = Est(**params).fit(Xd, yd)
    keys = [str(task["key"]) for task in stream.data]
    assert sum("chunk_statistics" in key for key in keys) == len(Xd.chunks[0])
    eager = Est(**params).fit(X, y)
    # the same landmarks, drawn by the same seed; only those rows were computed
    np.testing.assert_array_equal(lazy.nystroem_.component_indices_,
                                  eager.nystroem_.component_indices_)
    np.testing.assert_array_equal(lazy.nystroem_.components_, eager.nystroem_.components_)
    np.testing.assert_array_equal(lazy.classes_, eager.classes_)
    assert lazy.n_features_in_ == 8 and not hasattr(lazy, "embedding_")
    np.testing.assert_allclose(lazy.mean_, eager.mean_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lazy.eigenvalues_, eager.eigenvalues_, rtol=1e-9)
    assert np.max(subspace_angles(lazy.components_.T, eager.components_.T)) < 1e-8
    np.testing.assert_allclose(lazy.components_, eager.components_, rtol=1e-8,
                               atol=1e-9 * np.abs(eager.components_).max())
    Z = lazy.transform(Xd)  # lazy, and the in-memory transform
    assert isinstance(Z, da.Array) and Z.chunks[0] == Xd.chunks[0]
    np.testing.assert_allclose(Z.compute(), eager.transform(X), rtol=1e-8,
                               atol=1e-9 * np.abs(eager.embedding_).max())
    np.testing.assert_allclose(Z.compute(), eager.embedding_, rtol=1e-8,
                               atol=1e-9 * np.abs(eager.embedding_).max())


@pytest.mark.slow
def test_auto_search_computes_its_subsample_only(client, no_materialise):
    """gamma='auto' on a dask array: the search's subsample (600 rows of 700) is the in-memory
    one, so the chosen width, ridge and table are the in-memory ones."""
    X, y = _data(n=700, D=4)
    params = dict(approximation="nystroem", n_landmarks=40, random_state=0, reg=1e-2)
    lazy = graphdr.KernelLDA(**params).fit(da.from_array(X, chunks=(100, -1)), y)
    eager = graphdr.KernelLDA(**params).fit(X, y)
    assert lazy.gamma_ == eager.gamma_ and lazy.reg_ == eager.reg_
    for key, value in eager.cv_results_.items():
        np.testing.assert_array_equal(lazy.cv_results_[key], value)
    assert np.max(subspace_angles(lazy.components_.T, eager.components_.T)) < 1e-8


def _views(X):
    return [X[:, :4], X[:, 4:]]


@pytest.mark.parametrize("kernels", [["rbf", "linear"], ["distance", "rbf"]])
@pytest.mark.slow
def test_mkldr_on_dask_views_equals_in_memory_fit(client, kernels, no_materialise):
    X, y = _data()
    views = _views(X)
    dviews = [da.from_array(views[0], chunks=(100, -1)), da.from_array(views[1], chunks=(150, 2))]
    params = dict(kernels=kernels, approximation="nystroem", n_landmarks=40, random_state=0,
                  weight_shrinkage=0.25, max_iter=3)
    lazy = graphdr.MKLDR(**params).fit(dviews, da.from_array(y, chunks=200))
    eager = graphdr.MKLDR(**params).fit(views, y)
    np.testing.assert_array_equal(lazy.landmark_indices_, eager.landmark_indices_)
    np.testing.assert_allclose(lazy.kernel_weights_, eager.kernel_weights_, rtol=1e-8)
    np.testing.assert_allclose(lazy.objective_, eager.objective_, rtol=1e-8)
    np.testing.assert_allclose(lazy.eigenvalues_, eager.eigenvalues_, rtol=1e-8)
    for a, b in zip(lazy.view_kernels_, eager.view_kernels_):
        np.testing.assert_allclose([a.sigma_ or 0, a.scale_], [b.sigma_ or 0, b.scale_],
                                   rtol=1e-10)
    # the landmark features' signs are eigenvector signs: compare the embeddings
    Z = lazy.transform(dviews)
    assert isinstance(Z, da.Array)
    Z = Z.compute()
    assert np.max(subspace_angles(Z, eager.embedding_)) < 1e-8
    _equal_up_to_sign(Z, eager.embedding_, rtol=1e-8)
    assert isinstance(lazy.fit_transform(dviews, y), da.Array)


def test_mkldr_exact_fit_transforms_dask_views_lazily(client):
    X, y = _data(n=120)
    est = graphdr.MKLDR(kernels=["rbf", "linear"], weight_shrinkage=0.0, max_iter=2).fit(
        _views(X), y)
    Z = est.transform([da.from_array(V, chunks=(50, -1)) for V in _views(X)])
    assert isinstance(Z, da.Array)
    np.testing.assert_allclose(Z.compute(), est.transform(_views(X)), rtol=1e-10, atol=1e-12)


def test_bad_dask_input(client):
    X, y = _data(n=300)
    Xd = da.from_array(X, chunks=(50, -1))
    nys = dict(approximation="nystroem", n_landmarks=20, random_state=0, gamma=0.1, reg=1e-3)
    with pytest.raises(ValueError, match="approximation='nystroem'"):
        graphdr.KernelLDA(gamma=0.1, reg=1e-3, approximation=None).fit(Xd, y)
    with pytest.raises(ValueError, match="approximation='nystroem'"):
        graphdr.KQMI(gamma=0.1, reg=1e-3, approximation=None).fit(Xd, y)
    with pytest.raises(ValueError, match="cannot fit a dask array"):
        graphdr.KernelLPP(**nys).fit(Xd, y)
    with pytest.raises(ValueError, match="same number of samples"):
        graphdr.KQMI(**nys).fit(Xd, y[:-1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        graphdr.KQMI(**nys).fit(Xd, np.zeros(300))
    landmarks = np.random.RandomState(0).permutation(300)[:20]
    for row in (landmarks[0], np.setdiff1d(np.arange(300), landmarks)[0]):  # landmark or not
        Xn = X.copy()
        Xn[row, 2] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            graphdr.KQMI(**nys).fit(da.from_array(Xn, chunks=(50, -1)), y)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        graphdr.KQMI(**nys).fit(Xd[Xd[:, 0] > -np.inf], y)
    fitted = graphdr.KQMI(**nys).fit(Xd, y)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(da.from_array(X[:, :3], chunks=(50, -1)))
    # MKLDR
    dviews = [da.from_array(V, chunks=(50, -1)) for V in _views(X)]
    mk = dict(approximation="nystroem", n_landmarks=20, random_state=0, weight_shrinkage=0.0)
    with pytest.raises(ValueError, match="approximation='nystroem'"):
        graphdr.MKLDR(weight_shrinkage=0.0, approximation=None).fit(dviews, y)
    with pytest.raises(ValueError, match="LDE"):
        graphdr.MKLDR(graph="lde", **mk).fit(dviews, y)
    with pytest.raises(ValueError, match="weight_shrinkage='auto'"):
        graphdr.MKLDR(**{**mk, "weight_shrinkage": "auto"}).fit(dviews, y)
    with pytest.raises(ValueError, match="or none"):
        graphdr.MKLDR(**mk).fit([dviews[0], _views(X)[1]], y)
    with pytest.raises(ValueError, match="labels"):
        graphdr.MKLDR(**mk).fit(dviews, y[:-1])
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        graphdr.MKLDR(**mk).fit([V[V[:, 0] > -np.inf] for V in dviews], y)
    bad = _views(X)[1].copy()
    bad[7, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        graphdr.MKLDR(**mk).fit([dviews[0], da.from_array(bad, chunks=(50, -1))], y)


def test_default_approximation_takes_nystroem_for_dask_and_large_inputs(client, monkeypatch):
    """approximation='auto': Nystroem on a dask array, and above AUTO_EXACT_KERNEL_MAX
    samples in memory (no n x n kernel); the exact kernel below it."""
    from graphdr.graph_embedding import spaces

    X, y = _data(n=300)
    Xd = da.from_array(X, chunks=(50, -1))
    est = graphdr.KQMI(gamma=0.1, reg=1e-3, n_landmarks=20, random_state=0).fit(Xd, y)
    assert hasattr(est, "nystroem_") and not hasattr(est, "dual_coef_")
    assert hasattr(graphdr.KernelLDA(gamma=0.1, reg=1e-3).fit(X, y), "dual_coef_")
    monkeypatch.setattr(spaces, "AUTO_EXACT_KERNEL_MAX", 200)
    for cls in (graphdr.KernelLDA, graphdr.KQMI):
        fitted = cls(gamma=0.1, n_landmarks=20, random_state=0).fit(X, y)
        assert hasattr(fitted, "nystroem_"), cls.__name__
    # a precomputed kernel stays exact
    from sklearn.metrics.pairwise import rbf_kernel

    K = rbf_kernel(X, gamma=0.1)
    assert hasattr(graphdr.KernelLDA(kernel="precomputed").fit(K, y), "dual_coef_")


@pytest.mark.slow
def test_auto_threshold_is_lower_where_the_exact_fit_needs_an_eigendecomposition(monkeypatch):
    """'auto' keeps the exact kernel up to AUTO_EXACT_KERNEL_MAX samples on the class-structured
    Cholesky route (KernelLDA, KQMI), and only up to AUTO_EXACT_EIGEN_MAX where the exact fit is a
    dense eigendecomposition: KernelLPP, CKFD, solver='eigh', reg=0, MKLDR."""
    from graphdr.graph_embedding import spaces

    X, y = _data(n=300)
    monkeypatch.setattr(spaces, "AUTO_EXACT_EIGEN_MAX", 200)
    kw = dict(gamma=0.1, n_landmarks=20, random_state=0)
    for est in (graphdr.KernelLDA(**kw), graphdr.KQMI(**kw)):
        assert est.fit(X, y).approximation_ is None, type(est).__name__
        assert hasattr(est, "dual_coef_")
    for est in (graphdr.KernelLPP(**kw), graphdr.CKFD(**kw),
                graphdr.KernelLDA(solver="eigh", **kw), graphdr.KQMI(solver="eigh", **kw),
                graphdr.KernelLDA(reg=0.0, **kw)):
        assert est.fit(X, y).approximation_ == "nystroem", est
        assert hasattr(est, "nystroem_") and not hasattr(est, "dual_coef_")
    mk = graphdr.MKLDR(weight_shrinkage=0.0, n_landmarks=20, random_state=0, max_iter=2)
    assert mk.fit(_views(X), y).approximation_ == "nystroem"
    monkeypatch.setattr(spaces, "AUTO_EXACT_EIGEN_MAX", 300)  # n = 300: exact again
    assert graphdr.KernelLPP(**kw).fit(X, y).approximation_ is None
