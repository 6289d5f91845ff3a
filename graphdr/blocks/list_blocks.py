r"""The search of inverted lists on blocks: many queries at once, one matrix product per list and
block of the queries that probe it (:func:`list_search`), the engine of
:meth:`graphdr.blocks.lists.InvertedLists.search` and of the graph of every row
(:func:`graphdr.blocks.list_graph.list_graph`).

The queries are grouped by their nearest list and taken in runs of up to :data:`SUPER_ROWS`:
the queries of a run that probe list :math:`B` meet all of :math:`B`'s rows in one product
(float32, one BLAS thread per run, the runs on the environment's threads), on the residuals
from its centre :math:`c_B`,

.. math::

    \|q - x\|^2 = \|q - c_B\|^2 + \bigl[\, \|x - c_B\|^2 - 2 (q - c_B)^\top (x - c_B) \,\bigr],

the bracket one product of the queries with an extra column of ones and the list's residuals
times -2 with their squared norms beside them: distances accurate wherever the data sit
(:math:`|x|^2 - 2 q^\top x` in float32 loses every neighbour at :math:`X + 10^4`). A query's
own list comes first; its bound is the :math:`m`-th smallest of the minima of groups of
:data:`GROUP` columns (:math:`m = k +` :data:`RANK_MARGIN`: the :math:`m` smallest minima are
:math:`m` distances, so the bound is at least the :math:`m`-th distance), and in every list
probed only the rows within it are kept, by one comparison. A selection (a partition) costs
ten times the product per distance on this machine; the comparison a third of it. Each
query's :math:`m` nearest kept by float32 distance (ties to the smaller row) are then ranked
by their distances recomputed from the coordinates in float64, ties to the smaller row. The
result depends on the index and the queries alone: not on the number of threads, nor on
which thread takes a run, nor (:func:`list_search`) on the other queries.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._threads import allowed_threads, map_threads

__all__ = ["list_search", "kept_others"]

#: candidates beyond ``k`` ranked exactly (float32 rounding can only swap near-equal ones)
RANK_MARGIN = 8
#: columns per group whose minimum bounds a row's m-th distance in its own list
GROUP = 8
#: distances of one product held at once (float32: 16 MiB)
_BLOCK_ENTRIES = 1 << 22
#: rows of one list per piece of work
_BLOCK_ROWS = 1024
#: rows whose candidates are ranked in float64 at once
_RANK_ROWS = 1 << 14
#: rows searched together (a run of lists, at most this many unless one list holds more): the
#: rows that probe a list meet it in one product
SUPER_ROWS = 1 << 15
#: rows whose distances to every centre are computed at once (float64)
_CENTRE_BLOCK = 4096


def _squared_norms(X):
    return _squared_norms64(X).astype(np.float32)


def _squared_norms64(X):
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def _product(a, b, out=None):
    """``a @ b`` of finite factors, without the invalid-operation flag that some BLAS kernels
    raise reading lanes beyond the data (a product of finite rows in the index's frame is
    finite: the flag is never about the result). Seen once, on another CPU, in a one-row
    float32 product of a list search; a CPU-dependent warning would be an error where
    warnings are errors."""
    with np.errstate(invalid="ignore"):
        return np.matmul(a, b, out=out)


def _centre_distances(Q, C, C_norms, out=None):
    """``|c|^2 - 2 q^T c`` for each row ``q`` of ``Q`` and centre ``c``, in float64 (``C``,
    ``C_norms`` float64): the ranking of the centres by distance to ``q``, the same bits
    wherever it is computed. In float32 the rounding of ``|c|^2`` hid the order of the
    centres of a cluster far from the frame's centre (two clusters of spread 1 in 8
    features, 10^4 apart: 8 probes found 27 % of the far cluster's 10 nearest, 96 % of the
    other's; 95 % of both in float64)."""
    D = _product(Q.astype(np.float64), C.T, out=out)
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
        out[a:a + _CENTRE_BLOCK] = np.argmin(
            _centre_distances(Q[a:a + _CENTRE_BLOCK], C, C_norms), axis=1)

    map_threads(block, range(0, len(Q), _CENTRE_BLOCK))
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


def kept_others(found, rows):
    """The entries of ``found`` (the nearest rows of each of ``rows``, itself among them) to
    keep: all but the row itself, or, where duplicates pushed it out, all but the farthest."""
    own = found == np.asarray(rows)[:, None]
    own[~own.any(axis=1), -1] = True
    own &= np.cumsum(own, axis=1) == 1
    return ~own


def _count(value, allowed):
    """``value`` as an int when it is an integer (not a bool) that ``allowed`` accepts, else
    None."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and allowed(value):
        return int(value)
    return None


def list_search(index, Q, k, n_probe):
    """The indices (``len(Q) x k``) of each query's ``k`` nearest rows of the fitted
    :class:`~graphdr.blocks.lists.InvertedLists` ``index`` among its ``n_probe`` nearest
    lists, nearest first by their distance recomputed in float64 (ties: the smaller row);
    ``Q`` in the index's frame (float32). The queries are grouped by their nearest list and
    searched on blocks (module docstring): a query's answer depends on the index and the
    query alone. Where the lists probed hold fewer than ``k`` rows, every list is searched
    (exact). (:meth:`~graphdr.blocks.lists.InvertedLists.search`, and
    :class:`graphdr.blocks.knn.ApproxNeighbors`' placement of new samples.)"""
    n = len(index.rows_)
    if _count(k, lambda v: 1 <= v <= n) is None:
        raise ValueError(f"list_search: k must be an integer from 1 to the {n} rows indexed; "
                         f"got {k!r}.")
    layout = _Layout(index, residuals=False)
    return _searched(layout, Q, int(k), min(int(n_probe), layout.n_lists))


def _searched(layout, Q, k, P):
    """:func:`list_search` on ``layout`` (``1 <= k <= n``, ``1 <= P <= n_lists``)."""
    index = layout.index
    own = _nearest_centres(Q, layout.C64, index.centre_norms_)
    order = np.argsort(own, kind="stable")
    queries = _Queries(Q, order, np.concatenate(
        [[0], np.cumsum(np.bincount(own, minlength=layout.n_lists))]))
    cand = layout.candidates(queries, P, min(k + RANK_MARGIN, layout.n))
    rows = np.where(cand >= 0, layout.rows[np.maximum(cand, 0)], -1)
    found = np.empty_like(rows)
    found[order] = rows
    found = index._exactly_ranked(Q, np.where(found >= 0, 0.0, np.inf).astype(np.float32),
                                  found, k)
    short = np.flatnonzero(found[:, -1] < 0)
    if len(short) and P < layout.n_lists:  # fewer than k rows in the lists probed
        found[short] = _searched(layout, Q[short], k, layout.n_lists)
    return found


def _others(found, rows):
    """``found`` without each row's own entry (:func:`~graphdr.blocks.lists.kept_others`)."""
    return found[kept_others(found, rows)].reshape(len(found), found.shape[1] - 1)


class _Rows:
    """The index's own rows as the queries (:func:`~graphdr.blocks.list_graph.list_graph`):
    query ``i`` is the row at position ``i`` of the list order."""

    def __init__(self, layout):
        self.layout = layout
        self.starts = layout.starts
        self.n = layout.n

    def take(self, at):
        return np.take(self.layout.index.data_, self.layout.rows[at], axis=0)


class _Queries:
    """New queries (:func:`list_search`), in the order ``order`` (by nearest list)."""

    def __init__(self, Q, order, starts):
        self.Q, self.order, self.starts = Q, order, starts
        self.n = len(Q)

    def take(self, at):
        return np.take(self.Q, self.order[at], axis=0)


class _Layout:
    """The rows of fitted :class:`~graphdr.blocks.lists.InvertedLists` in list order, as the
    products take them: each list's residuals from its centre times -2, their squared norms
    in a last column (``residuals=True``: all of them kept, ``n x (d + 1)`` float32, for the
    many runs of a graph; else made when a list is searched, the same bits)."""

    def __init__(self, index, residuals=True):
        self.index = index
        X = index.data_
        self.n, d = X.shape
        self.d = d
        self.rows = index.rows_  # position -> row
        self.starts = index.starts_
        self.n_lists = len(index.centres_)
        self.position = np.empty(self.n, dtype=np.intp)
        self.position[self.rows] = np.arange(self.n)
        self.owner = np.repeat(np.arange(self.n_lists), np.diff(self.starts))  # by position
        self.C = index.centres_
        self.C64 = self.C.astype(np.float64)
        self.M = None
        if residuals:
            M = np.empty((self.n, d + 1), dtype=np.float32)

            def fill(A):
                M[self.starts[A]:self.starts[A + 1]] = self.residuals(A)

            map_threads(fill, range(self.n_lists))
            self.M = M

    def residuals(self, B):
        """List ``B``'s ``[-2 (x - c_B), |x - c_B|^2]`` (float32; ``|.|^2`` summed in
        float64)."""
        sB, eB = int(self.starts[B]), int(self.starts[B + 1])
        if self.M is not None:
            return self.M[sB:eB]
        out = np.empty((eB - sB, self.d + 1), dtype=np.float32)
        R = np.take(self.index.data_, self.rows[sB:eB], axis=0)
        R -= self.C[B]
        out[:, self.d] = _squared_norms(R)
        np.multiply(R, np.float32(-2.0), out=out[:, :self.d])  # (exact: a power of two)
        return out

    def probes(self, A, R, P):
        """``(lists, gap)``: the ``P`` lists the queries of list ``A`` probe (``R``: their
        residuals ``q - c_A``), own list first then by distance (ties to the smaller list),
        and ``|q - c_B|^2 - |q - c_A|^2`` of each (float64)."""
        delta = self.C64[A][None, :] - self.C64  # c_A - c_B
        # |q - c_B|^2 - |q - c_A|^2 = 2 (q - c_A).(c_A - c_B) + |c_A - c_B|^2
        D = _product(R.astype(np.float64), delta.T)
        D *= 2.0
        D += np.einsum("ij,ij->i", delta, delta)[None, :]
        D[:, A] = -np.inf  # its own list first
        lists = _smallest_sorted(D, P)
        gap = np.take_along_axis(D, lists, 1)
        gap[:, 0] = 0.0
        return lists, gap

    def exact_neighbours(self, rows, k):
        """The exact ``k`` nearest others (positions in list order) of the rows ``rows``."""
        found = _searched(self, self.index.data_[rows], k + 1, self.n_lists)
        return self.position[_others(found, rows)]

    def candidates(self, queries, P, m):
        """``cand`` (``queries.n x m``, positions in list order, -1: none): each query's
        ``m`` nearest rows by float32 distance in its ``P`` nearest lists, the runs of
        :data:`SUPER_ROWS` queries on the environment's threads, each in one thread (with
        fewer runs than twice the threads, one run after the other, its lists on the
        threads: the same result)."""
        cand = np.full((queries.n, m), -1, dtype=np.int32 if self.n < 2**31 else np.intp)
        runs, first = [], 0
        starts = queries.starts
        for A in range(self.n_lists):
            if A == self.n_lists - 1 or starts[A + 2] - starts[first] > SUPER_ROWS:
                if starts[A + 1] > starts[first]:
                    runs.append((first, A + 1))
                first = A + 1
        if len(runs) >= 2 * allowed_threads():  # the runs on the threads, each in one
            map_threads(lambda run: self._run(queries, *run, P, m, cand), runs)
        else:  # a few runs (a search of new samples): the lists of each on the threads
            for run in runs:
                self._run(queries, *run, P, m, cand)
        return cand

    def _run(self, queries, first, last, P, m, cand):
        """The queries of lists ``first:last``: each list's own rows (which give each query's
        bound), then every other list probed, with all the queries of the run that probe
        it, in one product; each query's ``m`` nearest into ``cand``."""
        s0, s1 = int(queries.starts[first]), int(queries.starts[last])
        bound = np.empty(s1 - s0, dtype=np.float32)
        probes = np.empty((s1 - s0, P), dtype=np.intp)
        qn = np.empty((s1 - s0, P), dtype=np.float32)
        pieces = [(A, a, min(a + _BLOCK_ROWS, queries.starts[A + 1]))
                  for A in range(first, last)
                  for a in range(queries.starts[A], queries.starts[A + 1], _BLOCK_ROWS)]
        found = map_threads(
            lambda piece: self._own(queries, *piece, P, m, s0, bound, probes, qn), pieces)
        # the pairs (query, list) beyond the own list, by list (queries ascending within)
        flat_B = probes[:, 1:].ravel()
        order = np.argsort(flat_B, kind="stable")
        flat_B = flat_B[order]
        flat_r = (order // max(P - 1, 1)).astype(np.intp)
        flat_qn = qn[:, 1:].ravel()[order]
        lists_probed, edges = np.unique(flat_B, return_index=True)
        edges = np.append(edges, len(flat_B))
        found += map_threads(lambda t: self._other(
            queries, lists_probed[t], flat_r[edges[t]:edges[t + 1]],
            flat_qn[edges[t]:edges[t + 1]], s0, bound), range(len(lists_probed)))
        r = np.concatenate([f[0] for f in found])
        j = np.concatenate([f[2] for f in found])
        rows, at = _nearest_per_row(r, np.concatenate([f[1] for f in found]), s1 - s0, m,
                                    self.rows[j])
        cand[s0 + rows, _positions(rows, s1 - s0)] = j[at]

    def _own(self, queries, A, a, b, P, m, s0, bound, probes, qn):
        """Queries ``a:b`` (of list ``A``): their probes and ``|q - c_B|^2`` of each into
        ``probes, qn`` (from ``s0``), their bound, and ``(queries, distances, positions)`` of
        the rows of ``A`` within it."""
        d = self.d
        Q = np.empty((b - a, d + 1), dtype=np.float32)
        Q[:, :d] = queries.take(np.arange(a, b))
        Q[:, :d] -= self.C[A]  # q - c_A, rounded as the rows' residuals are
        Q[:, d] = 1.0
        own = _squared_norms(Q[:, :d])
        lists, gap = self.probes(A, Q[:, :d], P)
        at = slice(a - s0, b - s0)
        probes[at] = lists
        qn[at] = gap + own[:, None]
        D = _product(Q, self.residuals(A).T)
        D += own[:, None]
        bound[at] = limit = _group_bound(D, m)
        r, j = np.divmod(np.flatnonzero(D <= limit[:, None]), D.shape[1])
        return r + (a - s0), D[r, j], j + int(self.starts[A])

    def _other(self, queries, B, rows, qn, s0, bound):
        """The queries ``rows`` (from ``s0``) that probe list ``B`` (``qn``: their
        ``|q - c_B|^2``): ``(queries, distances, positions)`` of the rows of ``B`` within their
        bounds."""
        d = self.d
        sB = int(self.starts[B])
        MB = self.residuals(B)
        work = {}
        out_r, out_d, out_j = [], [], []
        step = max(1, _BLOCK_ENTRIES // max(len(MB), 1))
        for c0 in range(0, len(rows), step):
            c1 = min(c0 + step, len(rows))
            Q = _buffer(work, "Q", (c1 - c0, d + 1), np.float32)
            Q[:, :d] = queries.take(s0 + rows[c0:c1])
            Q[:, :d] -= self.C[B]  # q - c_B, rounded as the rows' residuals are
            Q[:, d] = 1.0
            D = _product(Q, MB.T, out=_buffer(work, "D", (c1 - c0, len(MB)), np.float32))
            limit = bound[rows[c0:c1]] - qn[c0:c1]
            mask = np.less_equal(D, limit[:, None], out=_buffer(work, "mask", D.shape, bool))
            r, j = np.divmod(np.flatnonzero(mask), D.shape[1])
            dd = D[r, j]
            dd += qn[c0:c1][r]
            out_r.append(rows[c0:c1][r])
            out_d.append(dd)
            out_j.append(j + sB)
        if not out_r:
            return (np.empty(0, np.intp), np.empty(0, np.float32), np.empty(0, np.intp))
        return np.concatenate(out_r), np.concatenate(out_d), np.concatenate(out_j)

    def ranked_rows(self, cand, k):
        """``(dist, ind)`` in the rows' own order: each row's ``k`` nearest of its candidates
        ``cand`` (positions, by row position; -1: none) by float64 distance, itself left out,
        ties to the smaller row; rows with fewer than ``k`` candidates searched among every
        list."""
        index = self.index
        n = self.n
        X = index.data_
        dist = np.empty((n, k))
        ind = np.empty((n, k), dtype=np.intp)

        def block(a):  # rows a:b, in the rows' own order
            b = min(a + _RANK_ROWS, n)
            c = cand[self.position[a:b]]
            rows = np.where(c >= 0, self.rows[np.maximum(c, 0)], -1)
            d2 = index._squared_distances(X[a:b], rows, X)
            d2[rows == np.arange(a, b)[:, None]] = np.inf  # itself
            rows[~np.isfinite(d2)] = -1
            order = np.lexsort((np.where(rows >= 0, rows, n), d2), axis=1)[:, :k]
            ind[a:b] = np.take_along_axis(rows, order, 1)
            dist[a:b] = np.take_along_axis(d2, order, 1)

        map_threads(block, range(0, n, _RANK_ROWS))
        short = np.flatnonzero(ind[:, -1] < 0)
        if len(short):  # fewer than k found: every list (exact)
            ind[short] = _others(_searched(self, X[short], k + 1, self.n_lists), short)
            dist[short] = index._squared_distances(X[short], ind[short], X)
        dist = np.sqrt(dist)
        if index.scale_ != 1.0:
            dist *= index.scale_
        return dist, ind


def _nearest_per_row(r, d, n_rows, m, ids):
    """``(rows, at)``: the entries ``at`` of each row's ``m`` smallest ``d`` (``r``: each
    entry's row in ``range(n_rows)``; ``d`` float32), by row then distance, ties to the
    smaller ``ids``: one stable sort of ``row * 2**32 +`` the bits of ``max(d, 0)`` (whose
    order as integers is that of the values); the rows with a tie across the cut sorted again
    with ``ids``."""
    bits = np.maximum(d, np.float32(0)).view(np.uint32).astype(np.uint64)
    key = (r.astype(np.uint64) << np.uint64(32)) | bits
    order = np.argsort(key, kind="stable")
    key = key[order]
    rank = _positions(r[order], n_rows)
    keep = rank < m
    cut = np.flatnonzero((rank[1:] == m) & (key[1:] == key[:-1]))  # the m-th ties the next
    if len(cut):  # those rows' entries by (distance, id)
        tied = np.isin(r[order], r[order][cut + 1])
        at = np.flatnonzero(tied)
        again = at[np.lexsort((ids[order[at]], key[at]))]
        order[at] = order[again]
        keep[at] = _positions(r[order[at]], n_rows) < m
    return r[order[keep]], order[keep]


def _smallest_sorted(D, P):
    """The columns of each row's ``P`` smallest values of ``D``, sorted by (value, column):
    the rows within the bound of :func:`_group_bound`, then ordered."""
    bound = _group_bound(D, P)
    r, c = np.divmod(np.flatnonzero(D <= bound[:, None]), D.shape[1])
    v = D[r, c]
    order = np.lexsort((c, v, r))
    r, c = r[order], c[order]
    rank = _positions(r, len(D))
    keep = rank < P
    out = np.empty((len(D), P), dtype=np.intp)
    out[r[keep], rank[keep]] = c[keep]
    return out


def _group_bound(D, m):
    """Each row's ``m``-th smallest minimum of :data:`GROUP`-column groups of ``D`` (columns
    ``j, j + g, j + 2g, ...`` with ``g = w // GROUP``; the last ``w % GROUP`` columns a group of
    their own): its ``m``-th smallest value or more; inf when the row has fewer than ``m``."""
    r, w = D.shape
    if w < m:
        return np.full(r, np.inf, dtype=D.dtype)
    g = w // GROUP
    if g + 1 < m:  # too few groups: the values themselves
        return np.partition(D, m - 1, axis=1)[:, m - 1]
    mins = np.empty((r, g + 1), dtype=D.dtype)
    np.minimum(D[:, :g], D[:, g:2 * g], out=mins[:, :g])
    for i in range(2, GROUP):  # contiguous slabs: one vectorised pass each
        np.minimum(mins[:, :g], D[:, i * g:(i + 1) * g], out=mins[:, :g])
    if w > GROUP * g:
        mins[:, g] = D[:, GROUP * g:].min(axis=1)
    else:
        mins[:, g] = np.inf
    return np.partition(mins, m - 1, axis=1)[:, m - 1]
