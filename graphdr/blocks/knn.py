r"""Nearest-neighbour searches behind :func:`graphdr.blocks.graphs.knn_graph` and the maps: exact
(scikit-learn's ``NearestNeighbors``, with ties to the smaller index on every machine) and
approximate (the graph of every row by inverted lists,
:func:`graphdr.blocks.list_graph.list_graph`, and :class:`ApproxNeighbors`), a group of
queries against its own candidates at a time, the groups and query chunks on the
environment's threads. NN-descent (pynndescent) remains as ``ApproxNeighbors(search='graph')``.

Every Euclidean search works in the frame of :func:`graphdr.blocks.scaling.search_frame`:
the candidates centred by each feature's median and scaled by a power of two (in float64,
before any cast to float32), the queries moved alike, the distances given back in the caller's
units. A translation changes no distance, but a search that ranks by
:math:`\|x\|^2 - 2 q^\top x` (scikit-learn's brute force above 15 features, NN-descent's
float32, inverted lists) loses the differences between distances to the rounding of
:math:`\|x\|^2` when the data sit far from 0 (``ApproxNeighbors(search='lists')`` found 3 %
of the true neighbours of ``X + 1e4``). The exact search then ranks its candidates by their
distances recomputed from the coordinates' differences in float64."""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from .. import _threads
from .._threads import map_threads
from .._validation import check_option
from .list_blocks import kept_others, list_search
from .list_graph import list_graph
from .lists import InvertedLists
from .scaling import FLOAT32_SPAN, FLOAT64_SPAN, in_frame, search_frame

__all__ = ["ApproxNeighbors", "neighbours_within", "resolve_algorithm"]


#: distances within this relative gap of a query's k-th distance count as tied with it
TIE_RTOL = 1e-9


def _first_k_with_ties(dist, idx, k, rtol=TIE_RTOL):
    """The ``k`` nearest of each row's sorted candidates (``dist``, ``idx``: ``q x m``, ``m >= k``),
    ties at the k-th distance resolved by the smaller index.

    Returns ``(dist, idx)`` of shape ``(q, k)`` and a mask of the rows whose tie at the k-th
    distance reaches the last candidate (more candidates may tie: ask for more).
    """
    q, m = dist.shape
    kth = dist[:, k - 1 : k]
    tied = np.abs(dist - kth) <= rtol * kth
    below = (dist < kth) & ~tied
    # order: the certainly nearer first (by distance), then the tied ones by index
    key_rank = np.where(below, 0, np.where(tied, 1, 2))
    order = np.lexsort((np.where(tied, idx, 0), np.where(below, dist, 0.0), key_rank), axis=1)
    order = order[:, :k]
    incomplete = tied[:, -1] if m > k else np.zeros(q, dtype=bool)
    return np.take_along_axis(dist, order, 1), np.take_along_axis(idx, order, 1), incomplete


#: queries searched as one piece (fixed: the pieces do not depend on the number of threads)
_QUERY_CHUNK = 2048
#: metrics searched in the frame of :func:`search_frame` (a translation keeps their distances,
#: a power of two divides them exactly), with the power of the scale their distances carry
_FRAMED_METRICS = {"euclidean": 1, "l2": 1, "minkowski": 1, "sqeuclidean": 2}
#: differences in float64 held at once by :func:`_direct_distances`
_DIRECT_ENTRIES = 1 << 21


def _search_groups(X, groups, metric, self_in):
    """The neighbour searches of every group ``(queries, candidates, k)`` of :func:`knn_graph`:
    one index per group, then every group's queries in chunks of :data:`_QUERY_CHUNK`, all the
    pieces on the threads the environment allows. Returns ``(dist, idx)`` per group, ``idx``
    into the group's candidates.

    Euclidean metrics (:data:`_FRAMED_METRICS`, dense ``X``): each group searched in the frame
    of its candidates (:func:`graphdr.blocks.scaling.search_frame`, float64), its candidates ranked
    by their distances recomputed from the differences (:func:`_kneighbors_of`), the
    distances given back in the units of ``X``."""
    power = (_FRAMED_METRICS.get(metric) if isinstance(metric, str) and not sp.issparse(X)
             else None)  # (a sparse X keeps its zeros: searched as given)
    fitted, frames = [], []
    for _, candidates, _ in groups:
        F = X[candidates]
        frame = search_frame(F, FLOAT64_SPAN) if power else (None, 1.0)
        fitted.append(F if frame[0] is None else in_frame(F, *frame, copy=False))
        frames.append(frame)
    # a few thousand queries in all: one thread (handing pieces over would cost more)
    workers = 1 if sum(len(g[0]) for g in groups) < _QUERY_CHUNK else None
    indexes = map_threads(lambda F: NearestNeighbors(metric=metric).fit(F), fitted, workers)
    pieces = []
    for gi, group in enumerate(groups):
        n_queries = len(group[0])
        pieces += [(gi, np.arange(a, min(a + _QUERY_CHUNK, n_queries)))
                   for a in range(0, n_queries, _QUERY_CHUNK)]

    def search(piece):
        gi, rows = piece
        queries, _, k = groups[gi]
        centre, scale = frames[gi]
        Q = None
        if not self_in:
            Q = X[queries[rows]]
            Q = Q if centre is None else in_frame(Q, centre, scale, copy=False)
        d, i = _kneighbors_of(indexes[gi], fitted[gi], Q, k, self_in, rows, power)
        if scale != 1.0:
            d *= scale ** power
        return d, i

    found = map_threads(search, pieces, workers)
    out = []
    for gi in range(len(groups)):
        parts = [f for (g, _), f in zip(pieces, found) if g == gi]
        out.append((np.concatenate([d for d, _ in parts]), np.concatenate([i for _, i in parts])))
    return out


def neighbours_within(dist, ind, members, k):
    """The ``k`` nearest other members of each of ``members`` (sorted rows of a set) among the
    members alone, ``(dist, idx)`` with ``idx`` into ``members``, from the exact neighbour
    lists ``(dist, ind)`` of every row of the set (:func:`_search_groups` of the set among
    itself, with more than ``k`` per row): each member's list without the rows outside
    ``members``, its first ``k`` with ties at the k-th to the smaller index
    (:func:`_first_k_with_ties`), as a search among the members finds them. None where a
    list does not decide: fewer than ``k + 1`` members kept in it, or a tie at the k-th that
    reaches its last member kept (a search among the members decides those)."""
    members = np.asarray(members)
    pos = np.full(len(dist), -1, dtype=np.intp)
    pos[members] = np.arange(len(members))
    sub = pos[ind[members]]
    kept = sub >= 0
    width = int(kept.sum(axis=1).min()) if len(members) else 0
    if width <= k:
        return None
    order = np.argsort(~kept, axis=1, kind="stable")[:, :width]  # the members, in list order
    d_k, i_k, more = _first_k_with_ties(np.take_along_axis(dist[members], order, 1),
                                        np.take_along_axis(sub, order, 1), k)
    return None if more.any() else (d_k, i_k)


def _direct_distances(Q, F, idx, power):
    """``|Q_r - F_{idx_rj}|`` (``power`` 1) or its square (2) from the differences, summed in
    float64 in numpy's order: no cancellation, the same bits on every machine."""
    out = np.empty(idx.shape)
    step = max(1, _DIRECT_ENTRIES // max(idx.shape[1] * F.shape[1], 1))
    for a in range(0, len(idx), step):
        diff = F[idx[a:a + step]].astype(np.float64, copy=False) - Q[a:a + step, None, :]
        diff *= diff
        out[a:a + step] = diff.sum(axis=-1)
    return np.sqrt(out, out=out) if power == 1 else out


def _kneighbors_of(nn, fitted, queries, k, self_in, rows, power=None):
    """The ``k`` nearest candidates of the queries ``rows`` (``self_in``: rows of ``fitted``;
    else ``queries``, one row per entry of ``rows``) with machine-independent ties:
    distances within :data:`TIE_RTOL` of the k-th count as equal and go to the smaller
    candidate index (tree searches and rounding otherwise decide them, e.g. on data with
    repeated values). ``power`` (a Euclidean metric, :data:`_FRAMED_METRICS`): the
    candidates are ranked by :func:`_direct_distances` (scikit-learn's brute force takes
    them from ``|x|^2 - 2 q^T x + |q|^2``, whose rounding depends on the BLAS and on the
    data's distance from 0)."""
    n_candidates = fitted.shape[0]
    available = n_candidates - (1 if self_in else 0)
    m = min(available, 2 * k + 1)
    out_d = np.empty((len(rows), k))
    out_i = np.empty((len(rows), k), dtype=np.intp)
    at = np.arange(len(rows))  # the entries of rows not done yet
    while len(at):
        r = rows[at]
        if self_in:
            all_self = len(r) == n_candidates
            d, i = nn.kneighbors(None if all_self else fitted[r], n_neighbors=m
                                 + (0 if all_self else 1))
            if not all_self:  # drop each query itself (kneighbors(None) does so)
                keep = i != r[:, None]
                surplus = keep.sum(axis=1) > m  # the query was not among them: drop the last
                keep[surplus, -1] = False
                d, i = d[keep].reshape(len(r), m), i[keep].reshape(len(r), m)
        else:
            d, i = nn.kneighbors(queries[at], n_neighbors=m)
        if power:
            d = _direct_distances(fitted[r] if self_in else queries[at], fitted, i, power)
            order = np.lexsort((i, d), axis=1)
            d, i = np.take_along_axis(d, order, 1), np.take_along_axis(i, order, 1)
        d_k, i_k, more = _first_k_with_ties(d, i, k)
        done = ~more | (m == available)
        out_d[at[done]], out_i[at[done]] = d_k[done], i_k[done]
        at = at[~done]
        m = min(available, 2 * m)
    return out_d, out_i


#: ``algorithm='auto'`` of :func:`knn_graph` searches approximately from this many samples on:
#: the exact search of a class grows as its size squared
APPROX_MIN_SAMPLES = 200_000


def resolve_algorithm(algorithm, n_samples, n_queries=0):
    """``'exact'`` or ``'approx'`` for ``algorithm`` in {'auto', 'exact', 'approx'}: 'auto' is
    'approx' from :data:`APPROX_MIN_SAMPLES` samples on, or
    earlier when ``n_queries`` more rows will be searched among the ``n_samples`` (the rows a
    Dask map places after its fit): when the exact search's pairs, ``n_samples x (n_samples +
    n_queries)``, reach those of :data:`APPROX_MIN_SAMPLES` samples alone (a map fitted on
    169,000 rows had not placed 831,000 others after 8 minutes by brute force on 2 cores)."""
    check_option(algorithm, "neighbors", {"auto", "exact", "approx"})
    if algorithm == "approx":
        return "approx"
    pairs = n_samples * (n_samples + n_queries)
    if algorithm == "auto" and pairs >= APPROX_MIN_SAMPLES ** 2:
        return "approx"
    return "exact"


def _import_pynndescent():
    try:
        from pynndescent import NNDescent
    except ImportError:
        raise ValueError(
            "NN-descent (ApproxNeighbors(search='graph')) needs pynndescent: pip install pynndescent "
            "(or 'graphdr[large]'); neighbors='exact' needs nothing more.") from None
    _cache_compiled_code()
    return NNDescent


#: pynndescent's compiled functions that numba cannot cache (they read dynamic globals)
_NOT_CACHEABLE = frozenset({"nn_descent", "nn_descent_internal"})
#: parameters that carry a compiled function: numba types such an argument by the function
#: object of the process, so a cache would gain an entry in every process and never be read
_FUNCTION_PARAMETERS = frozenset({"dist", "metric", "kernel", "deheap_sort_function"})
_CACHE_LOCK = threading.Lock()
_cache_enabled = False


def _cache_compiled_code():
    """Keep pynndescent's compiled code across processes: numba's on-disk cache for the
    functions it compiles without one (``Dispatcher.enable_caching``; the others ask for it
    themselves). NN-descent's first fit in a process compiled for 23 s (3000 x 50); with the
    cache, from the second process on, 13 s (the rest: ``nn_descent`` itself, which numba
    cannot cache, and the functions that take a compiled function as an argument: numba
    types it by the function object of the process, so their cache would gain an entry in
    every process and never be read). The cache lives where numba keeps it
    (``__pycache__`` beside pynndescent, or ``NUMBA_CACHE_DIR``); numba checks each entry
    against the source and the CPU, and compiles afresh when they differ. Without a
    writable place it compiles as before."""
    global _cache_enabled
    with _CACHE_LOCK:
        if _cache_enabled:
            return
        _cache_enabled = True
        try:
            import inspect
            import sys

            from numba.core.registry import CPUDispatcher
        except ImportError:  # pragma: no cover - pynndescent needs numba
            return
        for name, module in list(sys.modules.items()):
            if not (name == "pynndescent" or name.startswith("pynndescent.")):
                continue
            for attr, obj in list(vars(module).items()):
                if (isinstance(obj, CPUDispatcher) and attr not in _NOT_CACHEABLE
                        and not obj.signatures
                        and type(getattr(obj, "_cache", None)).__name__ == "NullCache"):
                    try:
                        parameters = set(inspect.signature(obj.py_func).parameters)
                        if not parameters & _FUNCTION_PARAMETERS:
                            obj.enable_caching()
                    except Exception:  # noqa: BLE001 - no cache: compile as before
                        pass


class ApproxNeighbors:
    """Approximate nearest neighbours with the part of scikit-learn's
    ``NearestNeighbors`` interface graphdr uses: ``fit(X)``, ``kneighbors(X, n_neighbors)``
    and ``kneighbors(n_neighbors=k)`` (the training samples' neighbours, each without
    itself). One thread and a fixed ``random_state`` (None: 0): the same neighbours on every
    fit, whatever the number of threads. A query's neighbours depend on the query alone, not
    on the other rows of its call.

    The samples are searched in the frame of :func:`graphdr.blocks.scaling.search_frame`
    (``centre_``, ``scale_``: centred by each feature's median and divided by a power of two
    in float64, then cast to float32), the queries moved alike: the neighbours of ``X + 1e4``
    are those of ``X``, and float32 neither overflows nor underflows at any scale. Distances
    are float32 ones in that frame, given back in the units of ``X``.

    ``graph_neighbors`` (default ``n_neighbors``): the degree of the NN-descent graph, which
    sets the build's cost (about quadratic in it) and the training samples' own neighbours
    (``kneighbors()`` gives at most that many); queries of new samples ask for
    ``n_neighbors`` whatever the degree.

    ``search``: the index. ``'lists'``: inverted lists
    (:class:`graphdr.blocks.lists.InvertedLists`, ``n_probe`` lists per query), searched with
    matrix products on the environment's threads, and the training samples' own graph from
    the same lists (:func:`graphdr.blocks.list_graph.list_graph`, its probes for 90 % recall):
    no random draw, nothing beyond NumPy. ``'graph'``: NN-descent (pynndescent, seeded by
    ``random_state``; new samples by its search on the graph, widened by ``epsilon``, one
    sample per call under a lock). At 10^6 samples of ``benchmarks/maps2d_scale.py``'s data
    the lists' graph of degree 10 holds 91 % of the true neighbours where NN-descent's holds
    45 %, in less time (``docs/history.rst``, "The map's neighbour search engines")."""

    def __init__(self, n_neighbors=5, random_state=None, graph_neighbors=None, epsilon=0.1,
                 search="graph", n_probe=8):
        self.n_neighbors = n_neighbors
        self.random_state = random_state
        self.graph_neighbors = graph_neighbors
        self.epsilon = epsilon
        self.search = search
        self.n_probe = n_probe

    def fit(self, X):
        check_option(self.search, "search", {"graph", "lists"})
        X = np.asarray(X)
        self.centre_, self.scale_ = search_frame(X, FLOAT32_SPAN, name="ApproxNeighbors: X")
        X = in_frame(X, self.centre_, self.scale_, np.float32, copy=False)
        self._n = X.shape[0]
        degree = self.n_neighbors if self.graph_neighbors is None else self.graph_neighbors
        k = min(degree + 1, self._n)
        self.lists_ = None
        if self.search == "lists":  # the lists, and their own graph of every row
            # (X kept by reference: no second copy of the rows)
            self.lists_ = InvertedLists(n_probe=self.n_probe, copy=False).fit(X)
            # (as NN-descent's: each row first, int32 rows and float32 distances)
            rows = np.int32 if self._n < 2**31 else np.intp
            ind = np.empty((self._n, k), dtype=rows)
            dist = np.zeros((self._n, k), dtype=np.float32)
            ind[:, 0] = np.arange(self._n)
            if k >= 2:
                dist[:, 1:], ind[:, 1:] = list_graph(X, k - 1, lists=self.lists_)
            self._graph = (ind, dist)
            return self
        NNDescent = _import_pynndescent()
        seed = 0 if self.random_state is None else self.random_state
        # queries run one call at a time (kneighbors): pynndescent's search reuses one visited
        # set between calls; a query's answer does not depend on the others in its call
        self.index_ = NNDescent(X, n_neighbors=k, random_state=seed, n_jobs=1,
                                low_memory=True)
        _threads.libraries_loaded()  # numba may have loaded an OpenMP runtime of its own
        return self

    @property
    def neighbor_graph(self):
        """``(indices, distances)`` of the NN-descent graph (each row's own index among
        them; distances in the units of ``X``): ``graph_neighbors + 1`` per training
        sample."""
        graph = getattr(self, "_graph", None)
        ind, dist = self.index_.neighbor_graph if graph is None else graph
        return ind, dist if self.scale_ == 1.0 else dist.astype(np.float64) * self.scale_

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        if X is None:  # the training samples, each without itself
            dist, ind = self.training_neighbors(np.arange(self._n), k)
        elif getattr(self, "lists_", None) is not None:
            X = self._queries(X)
            ind = (list_search(self.lists_, self.lists_._queries(X), k, self.n_probe)
                   if len(X) else np.empty((0, k), dtype=np.intp))
            dist = np.sqrt(self.lists_.distances(X, ind)) * self.scale_
        else:
            self._prepare_search()
            X = self._queries(X)
            ind = np.empty((X.shape[0], k), dtype=np.intp)
            dist = np.empty((X.shape[0], k), dtype=np.float64)
            query = self.index_.query
            # one call per sample: pynndescent draws a search's random starting points from
            # one stream per call, so in a batch a sample's neighbours would depend on the
            # samples before it (0.5 % of them on 50 features); a call of its own costs about
            # 10 % more search time
            with _QUERY_LOCK:  # pynndescent's search shares state between calls
                for r in range(X.shape[0]):
                    ind[r], dist[r] = query(X[r:r + 1], k=k, epsilon=self.epsilon)
            dist *= self.scale_
        ind, dist = ind.astype(np.intp, copy=False), dist.astype(np.float64, copy=False)
        return (dist, ind) if return_distance else ind

    def _queries(self, X):
        """The query rows ``X`` (finite, the index's features) in the index's frame, float32."""
        X = np.asarray(X)
        d = len(self.centre_)
        if X.ndim != 2 or X.shape[1] != d:
            raise ValueError(f"ApproxNeighbors: the queries must be 2-D with the index's {d} "
                             f"features; got shape {X.shape}.")
        if X.size and not np.all(np.isfinite(X)):
            bad = np.argwhere(~np.isfinite(X))[0]
            raise ValueError(f"ApproxNeighbors: query {bad[0]} holds {X[tuple(bad)]} at "
                             f"feature {bad[1]}; a search needs finite values.")
        return in_frame(X, self.centre_, self.scale_, np.float32, copy=False)

    def training_neighbors(self, rows, n_neighbors, graph=None):
        """``(dist, ind)`` of the training samples ``rows`` from the NN-descent graph, each
        without itself (or, when duplicates pushed it out, without the farthest): at most
        ``graph_neighbors`` per row, no search. ``graph``: :attr:`neighbor_graph` when the
        caller holds it (pynndescent copies it on every access)."""
        graph_ind, graph_dist = self.neighbor_graph if graph is None else graph
        rows = np.asarray(rows, dtype=np.intp)
        ind, dist = graph_ind[rows], graph_dist[rows]
        keep = kept_others(ind, rows)
        m = ind.shape[1] - 1
        dist, ind = dist[keep].reshape(-1, m), ind[keep].reshape(-1, m)
        return dist[:, :n_neighbors], ind[:, :n_neighbors]

    def _prepare_search(self):
        """The search graph of the index, built once before the first query (pynndescent
        builds it lazily inside ``query``, which is not safe from several threads at once)."""
        if not getattr(self, "_search_ready", False):
            with _PREPARE_LOCK:
                if not getattr(self, "_search_ready", False):
                    self.index_.prepare()
                    self._search_ready = True


_PREPARE_LOCK = threading.Lock()
_QUERY_LOCK = threading.Lock()


def _approx_search_groups(X, groups, finish=None, first=None):
    """:func:`_search_groups` by inverted lists (:func:`graphdr.blocks.list_graph.list_graph`,
    probes for 90 % recall): each group's candidates searched for their own ``k`` nearest
    others (``self_in`` groups only), the groups on the environment's threads (one thread
    each: the result does not depend on the number of threads). ``finish(dist,
    idx)``, when given, turns each group's result into what is kept, on the group's thread.
    ``first``, when given, is one more task, run first in the same pool (a long piece that
    does not divide, such as one NN-descent over all samples: the groups fill the other
    threads meanwhile); then ``(first(), found)`` is returned."""
    def search(group):
        if group is None:
            return first()
        queries, candidates, k = group
        if len(candidates) < APPROX_MIN_GROUP:  # small: exact is as fast
            found = _search_groups(X, [group], "euclidean", True)[0]
        else:
            found = list_graph(X[candidates], k)
        return found if finish is None else finish(*found)

    if first is None:
        return map_threads(search, groups)
    out = map_threads(search, [None, *groups])
    return out[0], out[1:]


#: groups smaller than this are searched exactly even with ``algorithm='approx'``
APPROX_MIN_GROUP = 5000


def _precomputed_neighbours(D, queries, candidates, k, self_in):
    """The ``k`` nearest candidates of each query from a square distance matrix ``D``."""
    sub = D[np.ix_(queries, candidates)]
    order = np.argsort(sub, axis=1, kind="stable")
    if self_in:
        # drop the sample itself (distance 0 at its own column), keep the k next
        pos = np.searchsorted(candidates, queries)
        keep = order != pos[:, None]
        order = order[keep].reshape(len(queries), -1)
    dist, idx, _ = _first_k_with_ties(np.take_along_axis(sub, order, axis=1), order, k)
    return dist, idx
