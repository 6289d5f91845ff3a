r""":class:`graphdr.DEEMap` on Dask arrays: fit on a sample chosen by content, place the rest
block by block.

Every engine that maps past one machine fits on one node and distributes the out-of-sample
transform; so does this one. For a ``dask.array`` ``X`` of ``n`` rows:

* ``fit`` reads the content key of every row (:func:`graphdr.blocks.sampling.row_keys`, one pass
  over ``X`` on the active scheduler) and fits on the rows ``s`` of smallest key in each class
  (:func:`graphdr.blocks.sampling.stratified_subsample`, at most about ``fit_samples`` rows, every
  class kept; all rows when ``n <= fit_samples``), fetched into this process. The sample
  depends on the rows' content alone: the same whatever the chunking and the row order, and
  ``fit(X)`` equals ``fit(X[s])`` of a NumPy array, bit for bit (with ``neighbors='auto'``,
  the rows to place count in its choice: ``fit(X[s])`` with ``neighbors=model.neighbors_``;
  a heavy-tailed map, with ``fit_samples`` at least ``len(s)``, since a class keeps at least
  three rows and the sample may exceed ``fit_samples``). A NumPy array of more rows than
  the heavy-tailed map's ``fit_samples`` is sampled in memory the same way after its labels
  are checked and its unlabelled rows' use chosen on every row: the same map as this route's
  when every row is labelled (or none is) and ``labels='given'``;
* ``transform`` returns a ``dask.array`` of the places of ``X``'s rows, computed block by
  block where ``X`` lives (:meth:`DEEMap.transform` on each block; the fitted model enters the
  graph once, as one task, and reaches each worker once; on a distributed cluster it is
  sent to one worker and held by a task of its own, so that a cluster that loses every
  worker holding it says so: :class:`ClusterFailure`, raised where the places are computed);
* ``fit_transform`` is the two together: the sample's rows take their places in
  ``embedding_``, the others are placed as by ``transform``.

The labels ``y`` (a NumPy array or a ``dask.array``, one value per row) are brought into this
process: ``n`` integers, a few bytes per row.

A distributed cluster that loses its workers under the fit or the placement (workers killed,
out of memory, restarted) raises :class:`ClusterFailure`, a ``RuntimeError`` that says so and
what to do, instead of Dask's ``KilledWorker`` or ``FutureCancelledError``.
"""

from __future__ import annotations

import contextlib
import copy

import numpy as np

from ..blocks.sampling import row_keys, stratified_subsample, take_rows
from ..blocks.stats import check_dask_input

__all__ = ["fit_limit", "fit_sample", "fit_dask", "place_dask", "check_known_rows", "ClusterFailure",
           "cluster_errors"]


class ClusterFailure(RuntimeError):
    """The Dask cluster failed under a map (workers lost, tasks cancelled, the fitted model
    lost with the workers that held it): the message says what was lost and what to do (the
    command line says it in one line)."""


#: what to do when the cluster lost workers
RERUN = "rerun, and give the workers more memory if they were killed"


def _lost_work_errors():
    """Dask's exceptions for work lost with the cluster's workers (none without
    ``distributed``)."""
    try:
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError
    except ImportError:
        return ()
    return KilledWorker, FutureCancelledError


@contextlib.contextmanager
def cluster_errors(what, hint=""):
    """Dask's ``KilledWorker`` or ``FutureCancelledError`` under the block raised as
    :class:`ClusterFailure` naming ``what`` was running (the fit, the placement); ``hint``
    follows the advice (the command line's option)."""
    try:
        yield
    except _lost_work_errors() as exc:
        raise ClusterFailure(f"the Dask cluster lost workers under {what} "
                             f"({type(exc).__name__}: {exc}); {RERUN}{hint}") from exc


def check_known_rows(X, name):
    """A ``ValueError`` saying what to do when the ``dask.array`` ``X``'s chunk sizes (its
    rows per chunk) are unknown, as after boolean indexing (``X[mask]``): its rows can then
    be neither counted nor matched with the labels."""
    if X.ndim and any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            f"{name}: X is a dask array of unknown chunk sizes (shape {X.shape}: its rows per "
            "chunk are not known, as after boolean indexing X[mask]), so its rows cannot be "
            "matched with y; call X.compute_chunk_sizes() first (one pass over X).")


#: ``fit_samples='auto'``: the rows a Gaussian map of a ``dask.array`` is fitted on, and those
#: of any heavy-tailed map (NumPy or Dask; openTSNE's guide to large data fits a sample too)
GAUSSIAN_FIT_SAMPLES, HEAVY_FIT_SAMPLES = 1_000_000, 20_000


def fit_limit(fit_samples, repulsion):
    """The most rows a map is fitted on: ``fit_samples``, or with 'auto' by ``repulsion``."""
    if isinstance(fit_samples, str) and fit_samples == "auto":
        return HEAVY_FIT_SAMPLES if repulsion == "cauchy" else GAUSSIAN_FIT_SAMPLES
    if isinstance(fit_samples, (int, np.integer)) and not isinstance(fit_samples, bool) and (
            fit_samples >= 2):
        return int(fit_samples)
    raise ValueError(f"fit_samples must be an integer >= 2 or 'auto'; got {fit_samples!r}.")


def fit_sample(X, y, fit_samples, keys=None):
    """The increasing row indices of the rows the map is fitted on (module docstring);
    ``keys``: the rows' :func:`~graphdr.blocks.sampling.row_keys`, when already computed."""
    codes = np.unique(y, return_inverse=True)[1].ravel()  # -1 (unlabelled): a group as well
    if len(codes) <= fit_samples:
        return np.arange(len(codes))
    keys = row_keys(X) if keys is None else keys
    return np.sort(stratified_subsample(codes, fit_samples, keys))


def fit_dask(est, X, y, keys=None):
    """Fit ``est`` (a :class:`~graphdr.DEEMap`) on the sample of a ``dask.array`` ``X``;
    ``fit_rows_``, the sample's row indices, in the order of ``embedding_``."""
    check_dask_input(X, type(est).__name__)
    check_known_rows(X, type(est).__name__)
    if y is None and est.repulsion == "cauchy":  # (the map of the data alone)
        y = np.full(X.shape[0], -1)
    with cluster_errors(f"the fit of {type(est).__name__}"):
        y = np.asarray(y.compute() if hasattr(y, "compute") else y)
    if y.ndim != 1 or len(y) != X.shape[0]:
        raise ValueError(
            f"y must hold one label per row of X ({X.shape[0]} rows); got shape {y.shape}.")
    if X.ndim == 2 and len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    with cluster_errors(f"the fit of {type(est).__name__}"):
        rows = fit_sample(X, y, fit_limit(est.fit_samples, est.repulsion), keys)
        X_fit = take_rows(X, rows)
    # the rows placed after the fit count in neighbors='auto' (an exact search of each
    # among the fitted rows would cost more than the fit)
    est._fit_array(X_fit, y[rows], n_placed=len(y) - len(rows), sampled=rows)
    return est


def place_dask(est, X, rows=None):
    """The places of a ``dask.array`` ``X``'s rows (``n x 2``, a ``dask.array`` chunked as
    ``X``'s rows): the rows ``rows`` (increasing; the fit's sample) from ``embedding_``, the
    others by :meth:`~graphdr.DEEMap.transform`, block by block; with ``rows``, ``X``'s
    chunk sizes must be known (those rows are found by their positions)."""
    import dask

    if rows is not None:
        check_known_rows(X, type(est).__name__)
    check_dask_input(X, type(est).__name__)
    if X.shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input.")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    sent = copy.copy(est)
    sent.callback = None  # a progress bar's function stays here (it need not pickle)
    model = _shared(sent)
    sample = None if rows is None else dask.delayed(np.asarray(rows), pure=False)
    return X.map_blocks(_place_block, model, sample, dtype=dtype, chunks=(X.chunks[0], (2,)),
                        meta=np.empty((0, 2), dtype=dtype))


def _shared(model):
    """The fitted model as one piece of the task graph: on a distributed cluster, a future of
    it held on a worker (:func:`_held`: the graph stays small); else one ``dask.delayed``
    task."""
    import dask

    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        return dask.delayed(model, pure=False)
    with cluster_errors(f"the placement of {type(model).__name__}"):
        return _held(client, model)


def _held(client, model):
    """A future of ``model`` on the cluster of ``client``, the result of a task of its own.

    Dask cannot rebuild scattered data: had the blocks depended on the scattered model,
    losing every worker that held it would cancel them ("FutureCancelledError ... already
    forgotten"). So a first task (:func:`_where`) runs on some worker, the model is scattered
    to that worker, and a second task (:func:`_take_over`), which depends on the first and so
    runs where its result is, takes the model over there (the same object, not a copy); the
    scattered copy is then released. The blocks depend on the second task, whose result each
    worker fetches once. Dask reruns a lost task instead: the second one, finding no model
    where it runs, raises :class:`ClusterFailure`, which the computation of the places then
    raises."""
    from distributed import wait

    here = client.submit(_where, pure=False)
    [scattered] = client.scatter([model], workers=[here.result()], hash=False)
    held = client.submit(_take_over, scattered.key, type(model).__name__, here, pure=False)
    wait(held)
    scattered.release()
    here.release()
    if held.status == "error":
        held.result()  # raises the task's error
    return held


def _where():
    """The address of the worker this task runs on."""
    from distributed import get_worker

    return get_worker().address


def _take_over(key, name, here):
    """On the worker that ran :func:`_where` (``here``, its result): the object scattered
    there as ``key``; :class:`ClusterFailure` when it is not there (this task runs again only
    when its result was lost with the workers that held it, after the scattered copy was
    released)."""
    from distributed import get_worker

    data = get_worker().data
    if key in data:
        return data[key]
    raise ClusterFailure(f"the Dask cluster lost the fitted {name} that places the rows: every "
                         "worker that held it was lost (killed, out of memory or restarted); "
                         f"{RERUN} (the model is sent anew)")


def _place_block(block, model, rows, block_info=None):
    """One block's places: the fitted rows' from ``embedding_``, the others' by ``transform``."""
    out = np.empty((len(block), 2), dtype=np.float32 if block.dtype == np.float32
                   else np.float64)
    others = np.ones(len(block), dtype=bool)
    if rows is not None:
        start, stop = block_info[0]["array-location"][0]
        lo, hi = np.searchsorted(rows, [start, stop])
        fitted = rows[lo:hi] - start
        out[fitted] = model.embedding_[lo:hi]
        others[fitted] = False
    if np.any(others):
        out[others] = model.transform(np.asarray(block)[others])
    return out

