"""LDA and LQMI on dask arrays, on a two-worker dask.distributed LocalCluster on loopback."""

import numpy as np
import pytest
from scipy.linalg import subspace_angles

import graphdr
from graphdr.blocks.stats import class_statistics
from graphdr.qmi import LQMI

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install graphdr[dask])")
distributed = pytest.importorskip(
    "dask.distributed", reason="dask.distributed is not installed (pip install graphdr[dask])"
)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, protocol="tcp", host="127.0.0.1",
        dashboard_address=None,
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _data(n=2000, D=8, C=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) + 2.0 * rng.normal(size=(C, D))[y] + 50.0
    return X, y


@pytest.fixture
def no_materialise(monkeypatch):
    """Fail if anything converts a dask array to NumPy as a whole."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("the dask array was materialised")

    monkeypatch.setattr(da.Array, "__array__", refuse)


@pytest.mark.slow  # a cluster, a browser or a kernel to start: in `make test-slow` (CI)
@pytest.mark.parametrize("Est", [graphdr.LDA, LQMI])
def test_fit_on_cluster_equals_in_memory_fit(client, Est, no_materialise):
    X, y = _data()
    Xd = da.from_array(X, chunks=(300, 5))  # uneven row chunks, split columns
    yd = da.from_array(y, chunks=500)  # not aligned with X's chunks: rechunked
    with distributed.get_task_stream(client) as stream:
        lazy = Est().fit(Xd, yd)
    # the per-chunk statistics ran on the cluster's workers
    keys = [str(task["key"]) for task in stream.data]
    assert sum("chunk_statistics" in key for key in keys) == len(Xd.chunks[0])
    eager = Est().fit(X, y)
    assert lazy.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(lazy.classes_, eager.classes_)
    np.testing.assert_allclose(lazy.mean_, eager.mean_, rtol=1e-13)
    np.testing.assert_allclose(lazy.eigenvalues_, eager.eigenvalues_, rtol=1e-9, atol=1e-12)
    assert np.max(subspace_angles(lazy.components_.T, eager.components_.T)) < 1e-10
    np.testing.assert_allclose(lazy.components_, eager.components_, rtol=1e-8, atol=1e-12)
    # transform of a dask array stays lazy and equals the in-memory transform
    Z = lazy.transform(Xd)
    assert isinstance(Z, da.Array)
    np.testing.assert_allclose(Z.compute(), eager.transform(X), rtol=1e-8, atol=1e-10)


@pytest.mark.slow
def test_numpy_labels_and_string_labels(client):
    X, y = _data(n=600)
    labels = np.array(["a", "b", "c", "d"])[y]
    Xd = da.from_array(X, chunks=(128, -1))
    lazy = graphdr.LDA(n_components=2).fit(Xd, labels)
    eager = graphdr.LDA(n_components=2).fit(X, labels)
    np.testing.assert_array_equal(lazy.classes_, ["a", "b", "c", "d"])
    assert np.max(subspace_angles(lazy.components_.T, eager.components_.T)) < 1e-10


@pytest.mark.slow
def test_statistics_on_cluster_equal_numpy(client):
    X, y = _data(n=1000)
    lazy = class_statistics(da.from_array(X, chunks=(97, -1)), y)
    eager = class_statistics(X, y)
    np.testing.assert_array_equal(lazy.counts, eager.counts)
    np.testing.assert_allclose(lazy.centered_gram(), eager.centered_gram(), rtol=1e-12)
    np.testing.assert_allclose(lazy.centered_class_sums(), eager.centered_class_sums(),
                               rtol=1e-10, atol=1e-9)


def test_bad_dask_input(client):
    X, y = _data(n=300)
    X[123, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        graphdr.LDA().fit(da.from_array(X, chunks=(50, -1)), y)
    X[123, 4] = 0.0
    with pytest.raises(ValueError, match="same number of samples"):
        graphdr.LDA().fit(da.from_array(X, chunks=(50, -1)), y[:-1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        graphdr.LDA().fit(da.from_array(X, chunks=(50, -1)), np.zeros(300))
    fitted = graphdr.LDA().fit(da.from_array(X, chunks=(50, -1)), y)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(da.from_array(X[:, :3], chunks=(50, -1)))


@pytest.mark.parametrize("name", ["LDA", "KernelLDA", "LQMI", "KQMI", "MFA", "LDE", "LFDA",
                                  "SemiLFDA"])
@pytest.mark.parametrize("lazy_y", [False, True])
def test_a_dask_fit_with_unlabelled_rows_is_refused_never_silently_labelled_only(name, lazy_y):
    """In memory these fits use the unlabelled rows (smoothing or propagation); on a dask
    array they would silently drop them: refused in one clear error instead."""
    da = pytest.importorskip("dask.array")
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[::4] = -1
    params = {"approximation": "nystroem", "n_landmarks": 20} if name in ("KernelLDA",
                                                                         "KQMI") else {}
    est = getattr(graphdr, name)(**params)
    labels = da.from_array(y, chunks=50) if lazy_y else y
    with pytest.raises(ValueError, match="y = -1 marks unlabelled samples.*X.compute"):
        est.fit(da.from_array(X, chunks=50), labels)


@pytest.mark.parametrize("name", ["DEE", "DSNE", "PoissonPropagation"])
def test_fits_that_read_a_dask_array_into_memory_use_its_unlabelled_rows_alike(name):
    da = pytest.importorskip("dask.array")
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[::4] = -1
    params = {"max_iter": 20} if name in ("DEE", "DSNE") else {}
    lazy = getattr(graphdr, name)(**params).fit(da.from_array(X, chunks=50), y)
    eager = getattr(graphdr, name)(**params).fit(X, y)
    if name == "PoissonPropagation":
        np.testing.assert_array_equal(lazy.transduction_, eager.transduction_)
    else:
        assert np.max(subspace_angles(lazy.components_.T, eager.components_.T)) < 1e-8
