"""DEEMap on Dask arrays (graphdr.maps.dask_fit) against the in-memory path, bit for bit."""

import pickle

import numpy as np
import pytest

from graphdr import DEEMap
from graphdr.maps.dask_fit import fit_sample

da = pytest.importorskip("dask.array")


def _blobs(n=300, d=6, classes=3, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(size=(n, d)) + 3.0 * rng.normal(size=(classes, d))[y]
    return X.astype(dtype), y


def _small():
    return DEEMap(n_neighbors=5, max_iter=15, fit_samples=120)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dask_fit_is_the_fit_of_its_sample_and_the_rest_placed(dtype):
    X, y = _blobs(dtype=dtype)
    Xd = da.from_array(X, chunks=(70, 6))
    model = _small()
    Yd = model.fit_transform(Xd, y)
    rows = model.fit_rows_
    assert 120 <= len(rows) <= 126 and np.all(np.diff(rows) > 0)
    # the sample keeps the classes' shares (stratified by content)
    assert np.array_equal(np.bincount(y[rows]), [40, 40, 40])
    ref = _small().fit(X[rows], y[rows])
    assert np.array_equal(model.embedding_, ref.embedding_)
    Y = Yd.compute(scheduler="threads")
    assert Y.dtype == ref.embedding_.dtype == dtype
    others = np.setdiff1d(np.arange(len(X)), rows)
    assert np.array_equal(Y[rows], ref.embedding_)
    assert np.array_equal(Y[others], ref.transform(X[others]))
    # transform of a Dask array: the in-memory transform, block by block
    Xnew = _blobs(n=90, seed=5, dtype=dtype)[0]
    got = model.transform(da.from_array(Xnew, chunks=(40, 3))).compute(scheduler="threads")
    assert np.array_equal(got, ref.transform(Xnew))


@pytest.mark.parametrize("labels", ["all", "none"])
def test_dask_fit_of_the_heavy_tailed_map_is_its_samples_in_memory(labels):
    """repulsion='cauchy' on a Dask array, with labels and without (y None): the map of its
    sample fitted in memory, bit for bit, the other rows placed by its transform."""
    X, y = _blobs()
    Xd = da.from_array(X, chunks=(70, 6))

    def small():
        return DEEMap(repulsion="cauchy", perplexity=5.0, max_iter=60, fit_samples=120)

    model = small()
    Y = model.fit_transform(Xd, y if labels == "all" else None).compute(scheduler="threads")
    rows = model.fit_rows_
    ref = small().fit(X[rows], y[rows] if labels == "all" else None)
    assert len(ref.classes_) == (3 if labels == "all" else 0)
    assert np.array_equal(model.embedding_, ref.embedding_)
    others = np.setdiff1d(np.arange(len(X)), rows)
    assert np.array_equal(Y[rows], ref.embedding_)
    assert np.array_equal(Y[others], ref.transform(X[others]))
    # a NumPy array larger than fit_samples: the same sample fitted, the rest placed, and
    # embedding_ holds every row
    whole = small().fit(X, y if labels == "all" else None)
    assert np.array_equal(whole.embedding_, Y)
    assert not hasattr(whole, "fit_rows_")
    # the page's header says so
    from graphdr.maps.views.fitted import fitted_with

    assert f"Fitted on {len(rows)} of the 300 samples" in fitted_with(whole, 0)
    assert "Fitted on" not in fitted_with(ref, 0)


def test_dask_heavy_tailed_sample_is_fitted_whole_when_a_small_class_makes_it_larger():
    """A class of 3 rows keeps all 3: the Dask sample exceeds fit_samples, and is fitted as it
    is (no second sample in memory), the NumPy fit of the same rows with fit_samples at least
    their number, bit for bit."""
    X, y = _blobs(n=120, classes=3)
    y = y.copy()
    y[np.flatnonzero(y == 2)[3:]] = 1  # class 2: 3 rows of 120

    def small(m):
        return DEEMap(repulsion="cauchy", perplexity=5.0, max_iter=40, fit_samples=m)

    model = small(40).fit(da.from_array(X, chunks=(50, 6)), y)
    rows = model.fit_rows_
    assert len(rows) > 40 and np.sum(y[rows] == 2) == 3
    assert len(model.embedding_) == len(rows)
    ref = small(len(rows)).fit(X[rows], y[rows])
    np.testing.assert_array_equal(model.embedding_, ref.embedding_)


def test_heavy_tailed_fit_samples_auto_and_bad_values():
    """'auto' fits a heavy-tailed map on at most 20,000 rows and a Gaussian NumPy map whole;
    a value that is neither 'auto' nor an integer >= 2 is a clear error."""
    from graphdr.maps.dask_fit import HEAVY_FIT_SAMPLES, fit_limit

    assert fit_limit("auto", "cauchy") == HEAVY_FIT_SAMPLES == 20_000
    assert fit_limit("auto", "gaussian") == 1_000_000 and fit_limit(300, "cauchy") == 300
    X, y = _blobs()
    for bad in ("all", 1, 2.5, True):
        with pytest.raises(ValueError, match="fit_samples must be an integer >= 2 or 'auto'"):
            DEEMap(repulsion="cauchy", fit_samples=bad).fit(X, y)


def test_dask_sample_ignores_chunks_and_row_order():
    X, y = _blobs()
    a = _small().fit(da.from_array(X, chunks=(50, 6)), y)
    b = _small().fit(da.from_array(X, chunks=(33, 2)), da.from_array(y, chunks=40))
    assert np.array_equal(a.fit_rows_, b.fit_rows_)
    assert np.array_equal(a.embedding_, b.embedding_)
    perm = np.random.default_rng(1).permutation(len(X))
    c = _small().fit(da.from_array(X[perm], chunks=(64, 6)), y[perm])
    original = perm[c.fit_rows_]  # the rows c fitted, as rows of X
    order = np.argsort(original)
    assert np.array_equal(original[order], a.fit_rows_)
    assert np.array_equal(c.embedding_[order], a.embedding_)


def test_dask_below_fit_samples_fits_every_row():
    X, y = _blobs(n=100)
    model = _small().fit(da.from_array(X, chunks=(30, 6)), y)
    assert np.array_equal(model.fit_rows_, np.arange(100))
    assert np.array_equal(model.embedding_, _small().fit(X, y).embedding_)


def test_dask_keeps_unlabelled_rows_and_small_classes():
    X, y = _blobs(n=400, classes=4)
    y = y.copy()
    y[y == 3] = -1  # unlabelled rows: a group of the sample as a class is
    y[:5] = 3  # a class of 5 rows among 400: kept (at least 3 of it)
    rows = fit_sample(da.from_array(X, chunks=(100, 6)), y, 100)
    assert np.sum(y[rows] == 3) >= 3 and np.sum(y[rows] == -1) > 0
    assert set(np.unique(y[rows])) == set(np.unique(y))


def test_dask_bad_input_is_a_clear_error():
    X, y = _blobs(n=100)
    Xd = da.from_array(X, chunks=(30, 6))
    with pytest.raises(ValueError, match="one label per row"):
        _small().fit(Xd, y[:50])
    with pytest.raises(ValueError, match="fit_samples must be an integer >= 2"):
        DEEMap(fit_samples=1).fit(Xd, y)
    model = _small().fit(Xd, y)
    with pytest.raises(ValueError, match="expecting 6 features"):
        model.transform(da.from_array(X[:, :4], chunks=(30, 4)))


@pytest.mark.parametrize("neighbors", [
    "exact",
    # numba compiles pynndescent in every new process (a minute in a fresh environment)
    pytest.param("approx", marks=pytest.mark.slow),
])
def test_pickled_model_places_as_the_original(neighbors):
    # a worker receives the fitted model pickled: it must place new samples as the original
    if neighbors == "approx":
        pytest.importorskip("pynndescent")
    X, y = _blobs(n=400)
    Xnew = _blobs(n=60, seed=3)[0]
    model = DEEMap(n_neighbors=5, max_iter=10, neighbors=neighbors).fit(X, y)
    clone = pickle.loads(pickle.dumps(model))
    assert np.array_equal(clone.transform(Xnew), model.transform(Xnew))


@pytest.mark.slow  # a cluster, a browser or a kernel to start: in `make test-slow` (CI)
def test_dask_on_a_local_cluster_equals_the_in_memory_path():
    distributed = pytest.importorskip("distributed")
    X, y = _blobs(n=300)
    Xd = da.from_array(X, chunks=(60, 6))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        model = _small()
        Y = model.fit_transform(Xd, y).compute()
    ref = _small().fit(X[model.fit_rows_], y[model.fit_rows_])
    others = np.setdiff1d(np.arange(len(X)), model.fit_rows_)
    assert np.array_equal(Y[model.fit_rows_], ref.embedding_)
    assert np.array_equal(Y[others], ref.transform(X[others]))


def test_dask_rows_to_place_count_in_the_choice_of_neighbours(monkeypatch):
    """neighbors='auto' weighs the rows to place after a Dask fit: the rule, and the count the
    fit hands it (an exact search of each placed row among the fitted ones had not finished
    after 8 minutes for 169,000 fitted and 831,000 placed on 2 cores)."""
    from graphdr.blocks import knn

    monkeypatch.setattr(knn, "APPROX_MIN_SAMPLES", 200)  # the rule at a test's size
    monkeypatch.setattr(knn, "_import_pynndescent", lambda: None)  # installed or not
    assert knn.resolve_algorithm("auto", 199) == "exact"
    assert knn.resolve_algorithm("auto", 200) == "approx"
    assert knn.resolve_algorithm("auto", 120, 214) == "approx"  # 120 x 334 >= 200^2
    assert knn.resolve_algorithm("auto", 120, 213) == "exact"  # 120 x 333 < 200^2
    assert knn.resolve_algorithm("exact", 120, 10**9) == "exact"
    seen = []
    fit_array = DEEMap._fit_array

    def spy(self, X, y, n_placed=0, sampled=None):
        seen.append((len(X), n_placed, sampled))
        return fit_array(self, X, y, n_placed, sampled)

    monkeypatch.setattr(DEEMap, "_fit_array", spy)
    monkeypatch.setattr(knn, "APPROX_MIN_SAMPLES", 10**6)  # exact here: no compilation
    X, y = _blobs(n=400)
    model = _small().fit(da.from_array(X, chunks=(100, 6)), y)
    assert len(seen) == 1 and seen[0][:2] == (len(model.fit_rows_), 400 - len(model.fit_rows_))
    assert np.array_equal(seen[0][2], model.fit_rows_)  # (the sample's rows: no second sample)


@pytest.mark.slow  # NN-descent's first compilation in a fresh environment takes minutes
def test_dask_fit_with_many_rows_to_place_is_the_approximate_fit_of_its_sample(monkeypatch):
    """A Dask fit on few rows with many to place searches approximately, and is then the
    in-memory fit of its sample with neighbors='approx', bit for bit."""
    pytest.importorskip("pynndescent")
    from graphdr.blocks import knn

    monkeypatch.setattr(knn, "APPROX_MIN_SAMPLES", 200)
    X, y = _blobs(n=400)
    model = _small().fit(da.from_array(X, chunks=(100, 6)), y)
    rows = model.fit_rows_
    assert len(rows) < 200 and model.neighbors_ == "approx"
    ref = DEEMap(n_neighbors=5, max_iter=15, neighbors="approx").fit(X[rows], y[rows])
    assert _small().fit(X[rows], y[rows]).neighbors_ == "exact"  # in memory: as before
    assert np.array_equal(model.embedding_, ref.embedding_)
    # few rows to place: exact, as in memory
    few = DEEMap(n_neighbors=5, max_iter=15, fit_samples=150).fit(
        da.from_array(X[:240], chunks=(100, 6)), y[:240])
    assert len(few.fit_rows_) * 240 < 200**2 and few.neighbors_ == "exact"


def test_dask_x_of_unknown_chunk_sizes_says_to_compute_them():
    """A masked dask array (``X[mask]``) has unknown chunk sizes: every estimator that fits a
    dask array says so and what to call (it said "one label per row of X (nan rows)"); once
    computed, the fit is that of the masked rows. Placing such rows needs no sizes."""
    from graphdr import LDA, KernelLDA, map2d

    X, y = _blobs(n=300)
    keep = (np.arange(300) % 4) != 1
    Xm = da.from_array(X, chunks=(70, 6))[da.from_array(keep, chunks=70)]
    assert np.isnan(Xm.shape[0])
    hint = r"unknown chunk sizes.*call X\.compute_chunk_sizes\(\) first"
    for fit in (lambda: _small().fit(Xm, y[keep]), lambda: _small().fit_transform(Xm, y[keep]),
                lambda: map2d(Xm, y[keep], n_neighbors=5, max_iter=15),
                lambda: LDA().fit(Xm, y[keep]),
                lambda: KernelLDA(approximation="nystroem", n_landmarks=30).fit(Xm, y[keep])):
        with pytest.raises(ValueError, match=hint):
            fit()
    model = _small().fit(Xm.compute_chunk_sizes(), y[keep])
    ref = _small().fit(da.from_array(X[keep], chunks=(50, 6)), y[keep])
    assert np.array_equal(model.fit_rows_, ref.fit_rows_)
    assert np.array_equal(model.embedding_, ref.embedding_)
    unknown = da.from_array(X, chunks=(70, 6))[da.from_array(~keep, chunks=70)]
    placed = model.transform(unknown).compute(scheduler="sync")
    assert np.array_equal(placed, ref.transform(X[~keep]))


def _killed_block(block):
    import types

    distributed = pytest.importorskip("distributed")
    raise distributed.KilledWorker("block", types.SimpleNamespace(address="tcp://127.0.0.1:1"),
                                   3)


def test_a_worker_lost_under_the_fit_is_a_cluster_failure():
    """Dask's KilledWorker under the fit of a dask array (its rows read on the cluster) is
    graphdr's ClusterFailure, a RuntimeError saying what was lost and what to do."""
    pytest.importorskip("distributed")
    from graphdr.maps.partitions import ClusterFailure

    X, y = _blobs(n=200)
    Xd = da.from_array(X, chunks=(50, 6)).map_blocks(_killed_block, dtype=X.dtype)
    with pytest.raises(ClusterFailure, match=r"lost workers under the fit of DEEMap "
                       r"\(KilledWorker: .*rerun, and give the workers more memory"):
        _small().fit(Xd, y)
    assert issubclass(ClusterFailure, RuntimeError)


def _slow_block(block):
    import time

    time.sleep(0.3)
    return block


@pytest.mark.slow  # a cluster of processes, killed twice and restarted: about 20 s
def test_workers_killed_under_transform_is_a_cluster_failure():
    """Every worker killed (SIGKILL, restarted by their nannies) after ``transform`` and while
    its places are computed: graphdr's ClusterFailure saying the fitted model was lost and to
    rerun, where Dask said "FutureCancelledError ... already forgotten"; rerun, the places
    are those of the in-memory transform."""
    import os
    import signal
    import threading
    import time

    distributed = pytest.importorskip("distributed")
    from graphdr.maps.partitions import ClusterFailure

    X, y = _blobs(n=300)
    Xnew = _blobs(n=300, seed=5)[0]
    lost = r"lost the fitted DEEMap that places the rows.*rerun"

    def kill_all(client):
        pids = client.run(os.getpid)
        for pid in pids.values():
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 120  # the nannies start new workers
        while time.monotonic() < deadline:
            workers = client.scheduler_info()["workers"]
            if len(workers) == 2 and not set(workers) & set(pids):
                return
            time.sleep(0.2)
        raise AssertionError("the workers were not restarted")

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        model = _small().fit(da.from_array(X, chunks=(60, 6)), y)
        ref = _small().fit(X[model.fit_rows_], y[model.fit_rows_])
        # killed between transform and the computation of its places
        Y = model.transform(da.from_array(Xnew, chunks=(30, 6)))
        kill_all(client)
        with pytest.raises(ClusterFailure, match=lost):
            Y.compute()
        # killed while the places are computed (each block takes 0.3 s)
        slow = da.from_array(Xnew, chunks=(15, 6)).map_blocks(_slow_block, dtype=Xnew.dtype)
        Y = model.transform(slow)
        killer = threading.Timer(1.0, kill_all, [client])
        killer.start()
        with pytest.raises(ClusterFailure, match=lost):
            Y.compute()
        killer.join()
        # what the message says to do: rerun
        got = model.transform(da.from_array(Xnew, chunks=(30, 6))).compute()
    assert np.array_equal(got, ref.transform(Xnew))
