"""Threads: graphdr parallelises its own loops; BLAS and OpenMP run on one thread inside a fit.

The convention. The number of threads follows the environment, as in scikit-learn:
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``, or
``threadpoolctl.threadpool_limits`` around a call, set it (by default, every core). graphdr never
changes it for the process. What graphdr does with it, inside ``fit`` (:func:`managed_threads`):

* BLAS and OpenMP calls run on one thread (:func:`one_thread`);
* the work that divides into independent pieces is spread over that many Python threads
  (:func:`map_threads`), each piece calling one-thread BLAS, the pieces handed out one at a
  time to whichever thread is free: the one-pass class statistics (row stripes), neighbour
  graphs (query chunks), kernel matrices (row blocks), sums over pairs of samples (row
  blocks), the leave-one-out curves (blocks of ridges).

Why. A BLAS call split over threads pays a synchronisation: its worker threads are woken,
then spin for about 0.1 s after it, waiting for the next call. On a product of a few hundred
thousand entries the synchronisation costs more than the product; on a busy machine, where a
worker waits a scheduler time slice for a core, it costs milliseconds per call, and the
static split of a factorisation makes the slowest thread decide (a 5000 x 5000 Cholesky
factorisation took 1.28 times, an ``eigh`` of 1000 x 1000 twice, the one-thread time beside
one busy process). NumPy and SciPy also load two OpenBLAS libraries with two pools of workers,
which spin while the other library works: a loop alternating their calls ran 15 to 40 times
slower with two threads than with one. Pieces handed out one at a time keep every
thread busy whatever the load, and the pieces' results are combined in a fixed order: **a fit
gives the same bits with any number of threads** (``tests/test_threads.py``).

A piece must release the GIL in its heavy work: NumPy's element-wise operations, matrix
products and ``numpy.linalg`` do, SciPy's sparse products do; SciPy's ``scipy.linalg``
factorisations and ``scipy.linalg.blas`` wrappers do not (they run one piece at a time).

``python -m benchmarks run threads`` measures every estimator's default fit with the default
threads against one thread, on a quiet and on a busy machine.
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext

import numpy as np
from threadpoolctl import ThreadpoolController

__all__ = ["allowed_threads", "one_thread", "managed_threads", "map_threads"]

_CONTROLLER = None
_LOCK = threading.Lock()
#: the threads the environment allowed when :func:`one_thread` limited them (innermost last);
#: the limit itself is process-wide, as threadpoolctl's
_ALLOWED = []
#: marks the threads of :func:`map_threads` (a map inside a piece runs in its thread)
_WORKER = threading.local()


def _controller():
    """One :class:`threadpoolctl.ThreadpoolController` per process (finding the libraries
    costs milliseconds; limiting them with it, microseconds). Made on first use, when NumPy's
    and SciPy's BLAS are loaded."""
    global _CONTROLLER
    if _CONTROLLER is None:
        with _LOCK:
            if _CONTROLLER is None:
                _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def libraries_loaded():
    """Find the libraries again at the next use: call after a library that loads its own
    OpenMP runtime has run (numba's, under pynndescent), so that :func:`one_thread` and
    :func:`map_threads` limit that runtime too."""
    global _CONTROLLER
    with _LOCK:
        _CONTROLLER = None


_POOL = None  # (pool, workers, process id): idle threads kept for the next map


def _pool(n_workers):
    """A pool of at least ``n_workers`` threads, kept between calls (starting threads for
    every call would cost more than a small piece); a new one after a fork."""
    global _POOL
    with _LOCK:
        if _POOL is None or _POOL[1] < n_workers or _POOL[2] != os.getpid():
            if _POOL is not None and _POOL[2] == os.getpid():
                _POOL[0].shutdown(wait=False)
            _POOL = (ThreadPoolExecutor(max_workers=n_workers, thread_name_prefix="graphdr"),
                     n_workers, os.getpid())
        return _POOL[0]


def _openmp():
    return _controller().select(user_api="openmp")


def _blas_threads():
    counts = [lib.num_threads for lib in _controller().select(user_api="blas").lib_controllers]
    return max([1, *[c for c in counts if c]])


def allowed_threads():
    """The number of threads the environment allows (the largest setting of the BLAS
    libraries, at least 1; ``OMP_NUM_THREADS`` or an enclosing ``threadpool_limits`` lower
    it), also inside graphdr's own :func:`one_thread`."""
    return _ALLOWED[-1] if _ALLOWED else _blas_threads()


@contextmanager
def one_thread():
    """BLAS and OpenMP limited to one thread in the block, then the environment's setting
    restored; :func:`allowed_threads` still tells what the environment allows."""
    allowed = allowed_threads()
    controller = _controller()
    limit = (controller.limit(limits=1)
             if any((lib.num_threads or 1) > 1 for lib in controller.lib_controllers)
             else nullcontext())
    with limit:
        _ALLOWED.append(allowed)
        try:
            yield
        finally:
            _ALLOWED.pop()


def managed_threads(method):
    """Decorator of a ``fit``: the method runs in :func:`one_thread`, its parallel pieces on
    :func:`map_threads`."""
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with one_thread():
            return method(*args, **kwargs)
    wrapper.managed_threads = True
    return wrapper


def map_threads(func, items, n_workers=None):
    """``[func(item) for item in items]`` on ``n_workers`` Python threads (default
    :func:`allowed_threads`), each calling one-thread BLAS.

    The items are taken in order by whichever thread is free (a thread slowed down by a busy
    core takes fewer); the results come back in the order of ``items``, so a reduction over
    them in that order gives the same bits whatever the number of threads. A map inside a
    piece runs in the piece's thread. When a piece raises, no further piece starts, the
    running ones finish, and the first error is raised. ``func`` must release the GIL in its
    heavy work (NumPy's element-wise operations and matrix products do; SciPy's
    ``scipy.linalg.blas`` wrappers do not).
    """
    items = list(items)
    n_workers = allowed_threads() if n_workers is None else int(n_workers)
    if getattr(_WORKER, "active", False):  # a piece of a piece: run in this thread
        n_workers = 1
    n_workers = max(1, min(n_workers, len(items)))
    with one_thread():
        if n_workers == 1:
            return [func(item) for item in items]
        results = [None] * len(items)
        counter = itertools.count()  # next() is atomic under the GIL
        errors = np.geterr()  # NumPy's error state is per thread: the caller's in every one

        failed = []

        def worker():
            _WORKER.active = True
            try:
                # OpenMP's thread count is per thread: one here too (scikit-learn's neighbour
                # searches would otherwise start the environment's count in every piece)
                with _openmp().limit(limits=1), np.errstate(**errors):
                    while not failed and (i := next(counter)) < len(items):
                        results[i] = func(items[i])
            except BaseException as exc:  # raised in the caller, once every thread is done
                failed.append(exc)
            finally:
                _WORKER.active = False

        pool = _pool(n_workers)
        for future in [pool.submit(worker) for _ in range(n_workers)]:
            future.result()
        if failed:
            raise failed[0]
        return results
