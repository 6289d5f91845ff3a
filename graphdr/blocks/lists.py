r"""Nearest neighbours of new samples by inverted lists, in NumPy and BLAS: the search that
places new samples on a large map (:class:`graphdr.blocks.knn.ApproxNeighbors` with
``search='lists'``).

The training samples :math:`x_1, \dots, x_n` are split into :math:`L` lists by their nearest
centre :math:`c_l`, and a query :math:`q` looks for its :math:`k` nearest training samples
among the lists of its ``n_probe`` nearest centres only:

.. math::

    N_k(q) = \operatorname{arg\,min}^{(k)}_{i \,:\, \ell(x_i) \in P(q)} \|q - x_i\|^2,
    \qquad P(q) = \operatorname{arg\,min}^{(n_{probe})}_{l} \|q - c_l\|^2 .

The centres are the training samples at :math:`L` evenly spaced positions of the order the
samples come in, moved once to the mean of their list (one Lloyd step): no random draw, so the
index depends on the samples and their order alone (the map gives them in content order, which
does not depend on the caller's). Each list is searched for every query that probes it with
one matrix product (:math:`\|x\|^2 - 2 q^\top x`, float32) on the environment's threads, list
by list, in two passes: first each query's nearest list, whose :math:`m`-th distance
(:math:`m = k +` :data:`RANK_MARGIN`) bounds the others', then its other lists, where only
the rows within that bound are kept (one comparison, no selection, for most of them). The
:math:`m` nearest of all the rows probed by (float32 distance, row) are then ranked by their
distances recomputed in float64. A query's answer depends on the index and the query alone;
where its lists hold fewer than ``k`` samples, it is searched exactly.

Measured on ``benchmarks/maps2d_scale.py``'s data (20 classes, 50 features, 10^6 training
samples, 10^5 new, 2 cores, ``benchmarks/results/maps2d_scale_engines.md``): 1000 lists and 8
probes found 83 % of the 20 true nearest in 8.7 s, where NN-descent's queries on its graph of
degree 10 found 64 % in 33 s; on one thread the bound of the nearest list took the search
from 19.8 s to 12.9 s with the same 83 %. For the training samples' own neighbours (every
sample a query) NN-descent remains the faster: inverted lists reached 74 % of a class's 20
nearest in the time NN-descent reached 82 %.
"""

from __future__ import annotations

import threading

import numpy as np

from .._threads import map_threads

__all__ = ["InvertedLists"]

#: distances of one list to its queries computed at once (float32; 4 MiB)
_SCAN_ENTRIES = 1 << 20
#: candidates beyond ``k`` ranked exactly (float32 rounding can only swap near-equal ones)
RANK_MARGIN = 8
#: queries whose candidates are ranked exactly at once
_RANK_CHUNK = 1024
#: training samples assigned to their nearest centre per block
_ASSIGN_BLOCK = 8192


def _squared_norms(X):
    return np.einsum("ij,ij->i", X, X, dtype=np.float64).astype(np.float32)


def _centre_distances(Q, C, C_norms, out=None):
    """``|c|^2 - 2 q^T c`` for each row ``q`` of ``Q`` and centre ``c`` (float32): the ranking
    of the centres by distance to ``q``, the same bits wherever it is computed."""
    D = np.matmul(Q, C.T, out=out)
    D *= -2.0  # (exact: a power of two)
    D += C_norms
    return D


def _positions(r, n_rows):
    """Each entry's position among its row's entries, for the rows ``r`` (sorted, each in
    ``range(n_rows)``) of entries taken row-major."""
    return np.arange(len(r)) - np.searchsorted(r, np.arange(n_rows))[r]


def _nearest_centres(Q, C, C_norms):
    """The nearest centre of each row of ``Q`` (ties to the smaller index)."""
    out = np.empty(len(Q), dtype=np.intp)

    def block(a):
        out[a:a + _ASSIGN_BLOCK] = np.argmin(
            _centre_distances(Q[a:a + _ASSIGN_BLOCK], C, C_norms), axis=1)

    map_threads(block, range(0, len(Q), _ASSIGN_BLOCK))
    return out


def _buffer(work, name, shape, dtype):
    """A reused array of ``shape`` from the dict ``work`` (None: a new one). A search makes
    the same temporaries list after list: taken afresh, each would be new pages from the
    system where an allocator returns freed memory at once: Dask's workers set
    ``MALLOC_TRIM_THRESHOLD_``, under which 10^5 queries among 10^6 took 21.4 s on one thread
    with fresh temporaries and 12.5 s with these."""
    if work is None:
        return np.empty(shape, dtype=dtype)
    size = int(np.prod(shape))
    buf = work.get(name)
    if buf is None or buf.size < size or buf.dtype != dtype:
        buf = work[name] = np.empty(max(size, 1), dtype=dtype)
    return buf[:size].reshape(shape)


def _smallest(D, m, bound=None, key=None, work=None):
    """``(r, c)``, row-major: the entries of each row of ``D`` among its ``m`` smallest by
    (value, ``key``; ``key`` None: the column), and (``bound`` given) at most ``bound[r]``.

    The ``m``-th smallest value by a partition of the values, then one comparison (a
    partition of indices costs twice as much); only the rows with more entries within it
    than ``m`` (ties at it, or a bound above it) are cut, to the first tied ones by key."""
    w = D.shape[1]
    if bound is None and m < w:
        part = _buffer(work, "part", D.shape, D.dtype)
        np.copyto(part, D)
        part.partition(m - 1, axis=1)
        bound = part[:, m - 1].copy()
    elif bound is None:
        bound = np.full(len(D), np.inf, dtype=D.dtype)
    within = np.less_equal(D, bound[:, None], out=_buffer(work, "within", D.shape, bool))
    r, c = np.divmod(np.flatnonzero(within), w)
    over = np.bincount(r, minlength=len(D)) > m
    if not over.any():
        return r, c
    at = np.flatnonzero(over[r])  # the entries of the rows to cut
    t = np.full(len(D), np.inf, dtype=D.dtype)
    t[over] = np.partition(D[over], m - 1, axis=1)[:, m - 1]
    ra, ca = r[at], c[at]
    v = D[ra, ca]
    less, tie = v < t[ra], v == t[ra]
    room = m - np.bincount(ra[less], minlength=len(D))  # the ties each row keeps
    tied = at[tie]
    if key is not None:  # the ties by key within each row
        tied = tied[np.lexsort((key[r[tied], c[tied]], r[tied]))]
    rt = r[tied]
    keep = np.ones(len(r), dtype=bool)
    keep[at[~less]] = False
    keep[tied[_positions(rt, len(D)) < room[rt]]] = True
    return r[keep], c[keep]


def _list_means(X, label, C):
    """The mean of each list's rows (``C``'s row for an empty list): one Lloyd step. Summed
    in float64 over the rows sorted by list, in blocks of fixed size (no copy of ``X``)."""
    order = np.argsort(label, kind="stable")
    counts = np.bincount(label, minlength=len(C))
    sums = np.zeros(C.shape)
    for a in range(0, len(X), _ASSIGN_BLOCK):
        rows = order[a:a + _ASSIGN_BLOCK]
        lists, first = np.unique(label[rows], return_index=True)
        sums[lists] += np.add.reduceat(X[rows].astype(np.float64), first, axis=0)
    C = C.copy()
    filled = counts > 0
    C[filled] = (sums[filled] / counts[filled, None]).astype(np.float32)
    return C


class InvertedLists:
    """Inverted-list index of the rows of ``X`` (module docstring): ``fit(X)``,
    ``search(Q, k)`` -> the indices (``len(Q) x k``) of each query's ``k`` nearest rows found,
    nearest first by their distance recomputed in float64 (ties: the smaller row);
    ``distances(Q, ind)`` their squared distances.

    Parameters
    ----------
    n_lists : int or None, default=None
        The number of lists; None: :math:`\\lceil\\sqrt{n}\\rceil`.
    n_probe : int, default=8
        The lists searched per query (all of them when ``n_probe >= n_lists``: exact).
    copy : bool, default=True
        False: keep a reference to ``X`` when it is C-contiguous float32 (the index then
        reads the rows from it at every search; ``X`` must not change), instead of a copy.
        The index holds no other copy of the rows: each list's rows are gathered when the
        list is searched.
    """

    def __init__(self, n_lists=None, n_probe=8, copy=True):
        self.n_lists = n_lists
        self.n_probe = n_probe
        self.copy = copy

    def fit(self, X):
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        X = X32.copy() if self.copy and np.may_share_memory(X32, X) else X32
        n = len(X)
        L = int(np.ceil(np.sqrt(n))) if self.n_lists is None else int(self.n_lists)
        L = max(1, min(L, n))
        C = X[np.linspace(0, n - 1, L).round().astype(np.intp)]
        C = _list_means(X, _nearest_centres(X, C, _squared_norms(C)), C)
        self.centres_, self.centre_norms_ = C, _squared_norms(C)
        label = _nearest_centres(X, C, self.centre_norms_)
        self.rows_ = np.argsort(label, kind="stable")
        self.starts_ = np.concatenate([[0], np.cumsum(np.bincount(label, minlength=L))])
        self.data_, self.norms_ = X, _squared_norms(X)
        return self

    def search(self, Q, k):
        """The indices of the ``k`` nearest rows found for each query (``k <= n``)."""
        Q = np.ascontiguousarray(Q, dtype=np.float32)
        nq, n = len(Q), len(self.rows_)
        if nq == 0:
            return np.empty((0, k), dtype=np.intp)
        m = min(k + RANK_MARGIN, n)
        p = min(int(self.n_probe), len(self.centres_))
        first, (queries, lists, slot) = self._probes(Q, p)
        Qm = -2.0 * Q  # (exact: a power of two)
        bound = np.full(nq, np.inf, dtype=np.float32)
        # each probed list's m nearest of a query at its slot: m per list, its nearest first
        cand_d = np.full((nq, p * m), np.inf, dtype=np.float32)
        cand_i = np.full((nq, p * m), -1, dtype=np.int32 if n < 2**31 else np.intp)
        # each query's nearest list first: its m-th distance there bounds the other lists'
        by_list = np.argsort(first, kind="stable")
        self._scan(Qm, by_list, first[by_list], np.zeros(nq, dtype=np.intp), m, bound,
                   None, cand_d, cand_i)
        rest = np.lexsort((queries, lists))
        self._scan(Qm, queries[rest], lists[rest], m * slot[rest], m, bound, bound,
                   cand_d, cand_i)
        r, c = _smallest(cand_d, m, key=cand_i)  # by (distance, row) of all lists probed
        rank = _positions(r, nq)
        near_d = np.full((nq, m), np.inf, dtype=np.float32)
        near_i = np.full((nq, m), -1, dtype=np.intp)
        near_d[r, rank], near_i[r, rank] = cand_d[r, c], cand_i[r, c]
        del cand_d, cand_i
        found = self._exactly_ranked(Q, near_d, near_i, k)
        short = np.flatnonzero(found[:, -1] < 0)  # fewer than k in the lists probed
        step = max(1, (1 << 22) // n)  # at most 4 M distances at once
        for a in range(0, len(short), step):
            rows = short[a:a + step]
            D = self.norms_[None, :] - 2.0 * (Q[rows] @ self.data_.T)
            found[rows] = self._exactly_ranked(Q[rows], D, np.broadcast_to(
                np.arange(n), D.shape), k)
        return found

    def _probes(self, Q, p):
        """Each query's nearest centre, and ``(queries, lists, slots)`` of its other ``p - 1``
        nearest (ties to the smaller index; slots 1 to ``p - 1`` in the order of the lists)."""
        first = np.empty(len(Q), dtype=np.intp)
        local = threading.local()

        def block(a):
            work = local.__dict__
            Q_a = Q[a:a + _ASSIGN_BLOCK]
            D = _centre_distances(Q_a, self.centres_, self.centre_norms_, out=_buffer(
                work, "D", (len(Q_a), len(self.centres_)), np.float32))
            near = np.argmin(D, axis=1)
            first[a:a + _ASSIGN_BLOCK] = near
            r, c = _smallest(D, p, work=work)
            r, c = r[c != near[r]], c[c != near[r]]
            slot = 1 + _positions(r, len(D))
            return r + a, c, slot

        parts = map_threads(block, range(0, len(Q), _ASSIGN_BLOCK))
        return first, tuple(np.concatenate(x) if x else np.empty(0, np.intp)
                            for x in zip(*parts))

    def _scan(self, Qm, queries, lists, base, m, bound, prune, cand_d, cand_i):
        """The pairs ``(queries, lists)`` (sorted by list): each query's ``m`` nearest rows
        of each list (:func:`_smallest`) into ``cand_d, cand_i`` from column ``base``,
        within ``prune`` (a query's bound) when given; without it, ``bound`` becomes each
        query's ``m``-th distance in its list. Distances here lack the query's own norm:
        ``|x|^2 - 2 q^T x``."""
        edges = np.searchsorted(lists, np.arange(len(self.centres_) + 1))
        local = threading.local()  # each thread's temporaries, reused list after list

        def one_list(lst):
            work = local.__dict__
            s, e = self.starts_[lst], self.starts_[lst + 1]
            rows_l = self.rows_[s:e]
            X_l = np.take(self.data_, rows_l, axis=0, mode="clip",
                          out=_buffer(work, "X_l", (e - s, Qm.shape[1]), Qm.dtype))
            norms_l = self.norms_[rows_l]
            chunk = max(1, _SCAN_ENTRIES // (e - s))
            for a in range(edges[lst], edges[lst + 1], chunk):
                b = min(a + chunk, edges[lst + 1])
                qs = queries[a:b]
                Q_l = np.take(Qm, qs, axis=0, mode="clip",
                              out=_buffer(work, "Q_l", (b - a, Qm.shape[1]), Qm.dtype))
                D = np.matmul(Q_l, X_l.T, out=_buffer(work, "D", (b - a, e - s), Qm.dtype))
                D += norms_l
                r, c = _smallest(D, m, None if prune is None else prune[qs], work=work)
                d = D[r, c]
                if prune is None and m <= e - s:  # m per query, row-major
                    bound[qs] = d.reshape(len(qs), m).max(axis=1)
                at = (qs[r], base[a:b][r] + _positions(r, len(qs)))
                cand_d[at], cand_i[at] = d, rows_l[c]

        map_threads(one_list, [lst for lst in range(len(self.centres_))
                               if edges[lst + 1] > edges[lst]
                               and self.starts_[lst + 1] > self.starts_[lst]])

    def _exactly_ranked(self, Q, cand_d, cand_i, k):
        """The rows of the ``k`` nearest of each query's candidates (``cand_i``: their rows,
        -1: none; ``cand_d`` their float32 distances): the
        ``k +`` :data:`RANK_MARGIN` float32-nearest, then ranked by distances
        recomputed row by row in float64, ties to the smaller row. A matrix product rounds a
        query's distances differently beside other queries; the rounding can then only
        change which of two candidates within float32 rounding of each other is kept."""
        m = min(k + RANK_MARGIN, cand_d.shape[1])
        part = (np.argpartition(cand_d, m - 1, axis=1)[:, :m] if m < cand_d.shape[1]
                else np.broadcast_to(np.arange(m), cand_d.shape))
        rows = np.take_along_axis(cand_i, part, 1)
        d = self._squared_distances(Q, rows, self.data_)
        order = np.lexsort((np.where(rows >= 0, rows, len(self.rows_)), d), axis=1)[:, :k]
        return np.take_along_axis(rows, order, 1)

    def distances(self, Q, ind):
        """The squared distances from each query to its rows ``ind`` (row by row, float64)."""
        return self._squared_distances(np.ascontiguousarray(Q, dtype=np.float32),
                                       np.asarray(ind), self.data_)

    @staticmethod
    def _squared_distances(Q, pos, X):
        """``|Q_i - X_{pos_ij}|^2`` (``pos`` -1: inf) in float64 (the differences of float32
        values are exact in it), query by query: the same bits whatever queries come
        together."""
        d = np.empty(pos.shape)
        local = threading.local()

        def block(a):
            at = pos[a:a + _RANK_CHUNK]
            shape = (*at.shape, X.shape[1])
            rows = np.take(X, np.maximum(at, 0), axis=0, mode="clip",
                           out=_buffer(local.__dict__, "rows", shape, X.dtype))
            diff = _buffer(local.__dict__, "diff", shape, np.float64)
            np.copyto(diff, rows)
            diff -= Q[a:a + _RANK_CHUNK, None, :]
            diff *= diff
            d[a:a + _RANK_CHUNK] = np.where(at >= 0, diff.sum(axis=-1), np.inf)

        map_threads(block, range(0, len(Q), _RANK_CHUNK))
        return d
