r"""Nearest neighbours of new samples by inverted lists, in NumPy and BLAS: the search that
places new samples on a large map (:class:`graphdr.blocks.knn.ApproxNeighbors` with
``search='lists'``), and the lists of the graph of every row
(:mod:`graphdr.blocks.list_graph`).

The training samples :math:`x_1, \dots, x_n` are split into :math:`L` lists by their nearest
centre :math:`c_l`, and a query :math:`q` looks for its :math:`k` nearest training samples
among the lists of its ``n_probe`` nearest centres only:

.. math::

    N_k(q) = \operatorname{arg\,min}^{(k)}_{i \,:\, \ell(x_i) \in P(q)} \|q - x_i\|^2,
    \qquad P(q) = \operatorname{arg\,min}^{(n_{probe})}_{l} \|q - c_l\|^2 .

The centres are the training samples at :math:`L` evenly spaced positions of the order the
samples come in, moved once to the mean of their list (one Lloyd step) and rounded to a
multiple of :math:`2^{-8}` of the list's extent (:func:`_rounded_centres`): no random draw,
so the index depends on the samples and their order alone (the map gives them in content
order, which does not depend on the caller's).

Every distance is taken where it keeps its digits. The samples and queries are first moved to
the frame of :func:`graphdr.blocks.scaling.search_frame` (centred by each feature's median,
scaled by a power of two, in float64) and only then cast to float32; within list :math:`l` the
distances are computed on the residuals :math:`q - c_l` and :math:`x - c_l`,

.. math::

    \|q - x\|^2 = \|q - c_l\|^2 + \|x - c_l\|^2 - 2 (q - c_l)^\top (x - c_l),

whose terms are of the order of the list's extent, not of the data's distance from 0 (ranked
by :math:`\|x\|^2 - 2 q^\top x` as given, features at ``1e4`` with a spread of 1 left float32
no digit of the differences: 0 of 50 queries found their nearest with every list probed).
The centres are ranked, and the samples assigned to them, by
:math:`\|c\|^2 - 2 q^\top c` in float64 (:func:`_centre_distances`).
Each list is searched for every query that probes it with one matrix product (float32) on the
environment's threads, list by list, in two passes: first each query's nearest list, whose
:math:`m`-th distance (:math:`m = k +` :data:`RANK_MARGIN`) bounds the others', then its other
lists, where only the rows within that bound are kept (one comparison, no selection, for most
of them). The :math:`m` nearest of all the rows probed by (float32 distance, row) are then
ranked by their distances recomputed in float64. A query's answer depends on the index and the
query alone; where its lists hold fewer than ``k`` samples, every list is searched.

With every list probed (``n_probe >= n_lists``) the search is exact at any offset and scale
of the data: the ``k`` nearest rows, ties to the smaller row, of the rows as the index holds
them (float32 in the frame: a rounding of :math:`2^{-24}` of the spread, which can swap two
rows only where their distances to the query differ by less).

Measured on ``benchmarks/maps2d_scale.py``'s data (20 classes, 50 features, 10^6 training
samples, 10^5 new, 2 cores, ``benchmarks/results/maps2d_scale_engines.md``): 1000 lists and 8
probes found 83 % of the 20 true nearest in 8.7 s, where NN-descent's queries on its graph of
degree 10 found 64 % in 33 s. The graph of every row (every row a query) is
:func:`graphdr.blocks.list_graph.list_graph`, on these lists: one product per block of rows
and list probed.
"""

from __future__ import annotations

import numbers
import threading

import numpy as np
from sklearn.exceptions import NotFittedError

from .._threads import map_threads
from .scaling import FLOAT32_SPAN, in_frame, search_frame

__all__ = ["InvertedLists"]

#: distances of one list to its queries computed at once (float32; 4 MiB)
_SCAN_ENTRIES = 1 << 20
#: the fewest rows of a list by default (below ``LIST_ROWS**2`` rows, ``n / LIST_ROWS`` lists,
#: above, :math:`\sqrt{n}`): a product per list and block of queries costs its calls and
#: selections beyond its multiply-adds, and a list's own rows bound its queries' distances
#: better when it holds more of their neighbours (the graph of 10^6 rows of
#: ``benchmarks/maps2d_scale.py`` at 90 % recall: 36 s with 489 lists, 40 s with 1000; a class
#: of 50,000 rows: 1.1 s with 25 lists, 3.2 s with 224)
LIST_ROWS = 2048
#: candidates beyond ``k`` ranked exactly (float32 rounding can only swap near-equal ones)
RANK_MARGIN = 8
#: queries whose candidates are ranked exactly at once
_RANK_CHUNK = 1024
#: training samples per block of the passes over the rows
_ASSIGN_BLOCK = 8192
#: rows whose distances to every centre are computed at once (float64)
_CENTRE_BLOCK = 4096


def _squared_norms(X):
    return _squared_norms64(X).astype(np.float32)


def _squared_norms64(X):
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def _centre_distances(Q, C, C_norms, out=None):
    """``|c|^2 - 2 q^T c`` for each row ``q`` of ``Q`` and centre ``c``, in float64 (``C``,
    ``C_norms`` float64): the ranking of the centres by distance to ``q``, the same bits
    wherever it is computed. In float32 the rounding of ``|c|^2`` hid the order of the
    centres of a cluster far from the frame's centre (two clusters of spread 1 in 8
    features, 10^4 apart: 8 probes found 27 % of the far cluster's 10 nearest, 96 % of the
    other's; 95 % of both in float64)."""
    D = np.matmul(Q.astype(np.float64), C.T, out=out)
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


def _count(value, allowed):
    """``value`` as an int when it is an integer (not a bool) that ``allowed`` accepts, else
    None."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and allowed(value):
        return int(value)
    return None


#: a list's centre is a multiple of ``2**-CENTRE_BITS`` of the list's extent (the power of
#: two just above its largest coordinate difference from the centre)
CENTRE_BITS = 8


def _rounded_centres(X, label, C):
    """The centres ``C`` rounded to multiples of a power of two ``2**-CENTRE_BITS`` of each
    list's extent (``label``: each row's list): a move far below the extent, after which
    the residuals ``x - c`` of data on a coarser grid (integers, say) are exact in float32,
    and with them the distances the scan ranks: ties stay ties, decided by the row."""
    extent = np.zeros(len(C))
    for a in range(0, len(X), _ASSIGN_BLOCK):
        lab = label[a:a + _ASSIGN_BLOCK]
        far = np.abs(X[a:a + _ASSIGN_BLOCK] - C[lab]).max(axis=1)
        np.maximum.at(extent, lab, far)
    grid = np.where(extent > 0, np.ldexp(1.0, np.frexp(extent)[1] - CENTRE_BITS), 1.0)
    C64 = C.astype(np.float64)
    coarse = (extent > 0)[:, None] & (np.abs(C64) < 2.0**24 * grid[:, None])
    return np.where(coarse, np.round(C64 / grid[:, None]) * grid[:, None], C64).astype(
        np.float32)


def _residual_norms(X, C, label):
    """``|x_i - c_{label_i}|^2`` of each row (the difference in float32, its square summed in
    float64, then float32), in blocks of rows."""
    out = np.empty(len(X), dtype=np.float32)
    for a in range(0, len(X), _ASSIGN_BLOCK):
        R = X[a:a + _ASSIGN_BLOCK] - C[label[a:a + _ASSIGN_BLOCK]]
        out[a:a + _ASSIGN_BLOCK] = _squared_norms(R)
    return out


class InvertedLists:
    """Inverted-list index of the rows of ``X`` (module docstring): ``fit(X)``,
    ``search(Q, k)`` -> the indices (``len(Q) x k``) of each query's ``k`` nearest rows found,
    nearest first by their distance recomputed in float64 (ties: the smaller row);
    ``distances(Q, ind)`` their squared distances.

    Parameters
    ----------
    n_lists : int >= 1 or None, default=None
        The number of lists (at most the number of rows); None:
        :math:`\\lceil \\min(\\sqrt{n}, n / 2048) \\rceil` (:data:`LIST_ROWS`).
    n_probe : int >= 1, default=8
        The lists searched per query (all of them when ``n_probe >= n_lists``: exact).
    copy : bool, default=True
        False: keep a reference to ``X`` when it is C-contiguous float32 and centred already
        (its frame, :func:`graphdr.blocks.scaling.search_frame`, is the identity: the rows
        :class:`graphdr.blocks.knn.ApproxNeighbors` passes), instead of a copy; the index
        then reads the rows from it at every search (``X`` must not change). The index holds
        no other copy of the rows: each list's rows are gathered when the list is searched.

    Attributes
    ----------
    centre_, scale_ : ndarray of shape (n_features,), float
        The frame the index works in: ``(X - centre_) / scale_``, float32.
    centres_ : ndarray of shape (n_lists, n_features)
        The lists' centres, in that frame.
    """

    def __init__(self, n_lists=None, n_probe=8, copy=True):
        self.n_lists = n_lists
        self.n_probe = n_probe
        self.copy = copy

    def _checked_probe(self):
        p = _count(self.n_probe, lambda v: v >= 1)
        if p is None:
            raise ValueError(
                f"InvertedLists: n_probe must be an integer >= 1 (the lists searched per "
                f"query; n_probe >= n_lists searches them all); got {self.n_probe!r}.")
        return p

    def fit(self, X):
        """Index the rows of ``X`` (finite, at least one row)."""
        L = None if self.n_lists is None else _count(self.n_lists, lambda v: v >= 1)
        if self.n_lists is not None and L is None:
            raise ValueError(
                f"InvertedLists: n_lists must be None (the square root of the number of rows) "
                f"or an integer >= 1; got {self.n_lists!r}.")
        self._checked_probe()
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(
                "InvertedLists needs X of shape (n_samples, n_features) with at least one "
                f"row and one feature to index; got shape {X.shape}.")
        centre, scale = search_frame(X, FLOAT32_SPAN, name="InvertedLists: X")
        X = in_frame(X, centre, scale, np.float32, copy=bool(self.copy))
        n = len(X)
        L = int(np.ceil(min(np.sqrt(n), n / LIST_ROWS))) if L is None else L
        L = max(1, min(L, n))
        C = X[np.linspace(0, n - 1, L).round().astype(np.intp)]
        label = _nearest_centres(X, C.astype(np.float64), _squared_norms64(C))
        C = _list_means(X, label, C)
        C = _rounded_centres(X, label, C)
        self.centre_, self.scale_ = centre, scale
        self.centres_, self.centre_norms_ = C, _squared_norms64(C)
        label = _nearest_centres(X, C.astype(np.float64), self.centre_norms_)
        self.rows_ = np.argsort(label, kind="stable")
        self.starts_ = np.concatenate([[0], np.cumsum(np.bincount(label, minlength=L))])
        self.data_, self.norms_ = X, _residual_norms(X, C, label)
        return self

    def _queries(self, Q):
        """``Q`` checked (fitted index, 2-D, the index's features, finite) and moved to the
        index's frame (float32)."""
        if not hasattr(self, "data_"):
            raise NotFittedError("This InvertedLists is not fitted yet: call fit(X) first.")
        Q = np.asarray(Q)
        d = self.data_.shape[1]
        if Q.ndim != 2 or Q.shape[1] != d:
            raise ValueError(
                f"InvertedLists: the queries must be 2-D with the index's {d} features; got "
                f"shape {Q.shape}.")
        if Q.size and not np.all(np.isfinite(Q)):
            bad = np.argwhere(~np.isfinite(Q))[0]
            raise ValueError(
                f"InvertedLists: query {bad[0]} holds {Q[tuple(bad)]} at feature {bad[1]}; "
                "a search needs finite values.")
        return in_frame(Q, self.centre_, self.scale_, np.float32, copy=False)

    def search(self, Q, k):
        """The indices of the ``k`` nearest rows found for each query (``1 <= k <= n``)."""
        Q = self._queries(Q)
        n = len(self.rows_)
        kk = _count(k, lambda v: 1 <= v <= n)
        if kk is None:
            raise ValueError(
                f"InvertedLists: k must be an integer from 1 to the {n} rows indexed; "
                f"got {k!r}.")
        p = min(self._checked_probe(), len(self.centres_))
        if len(Q) == 0:
            return np.empty((0, kk), dtype=np.intp)
        found = self._search(Q, kk, p)
        short = np.flatnonzero(found[:, -1] < 0)  # fewer than k in the lists probed
        if len(short):  # every list for them (they hold n >= k rows)
            found[short] = self._search(Q[short], kk, len(self.centres_))
        return found

    def _search(self, Q, k, p):
        """:meth:`search` of the queries ``Q`` (in the index's frame) among their ``p``
        nearest lists; -1 where those lists hold fewer than ``k`` rows."""
        nq, n = len(Q), len(self.rows_)
        m = min(k + RANK_MARGIN, n)
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
        return self._exactly_ranked(Q, near_d, near_i, k)

    def _probes(self, Q, p):
        """Each query's nearest centre, and ``(queries, lists, slots)`` of its other ``p - 1``
        nearest (ties to the smaller index; slots 1 to ``p - 1`` in the order of the lists)."""
        first = np.empty(len(Q), dtype=np.intp)
        C = self.centres_.astype(np.float64)
        local = threading.local()

        def block(a):
            work = local.__dict__
            Q_a = Q[a:a + _CENTRE_BLOCK]
            D = _centre_distances(Q_a, C, self.centre_norms_, out=_buffer(
                work, "D", (len(Q_a), len(C)), np.float64))
            near = np.argmin(D, axis=1)
            first[a:a + _CENTRE_BLOCK] = near
            r, c = _smallest(D, p, work=work)
            r, c = r[c != near[r]], c[c != near[r]]
            slot = 1 + _positions(r, len(D))
            return r + a, c, slot

        parts = map_threads(block, range(0, len(Q), _CENTRE_BLOCK))
        return first, tuple(np.concatenate(x) if x else np.empty(0, np.intp)
                            for x in zip(*parts))

    def _scan(self, Qm, queries, lists, base, m, bound, prune, cand_d, cand_i):
        """The pairs ``(queries, lists)`` (sorted by list): each query's ``m`` nearest rows
        of each list (:func:`_smallest`) into ``cand_d, cand_i`` from column ``base``,
        within ``prune`` (a query's bound) when given; without it, ``bound`` becomes each
        query's ``m``-th distance in its list. ``Qm``: the queries times -2. The distances
        are taken on the residuals from the list's centre ``c`` (module docstring):
        ``|q - c|^2 + |x - c|^2 - 2 (q - c)^T (x - c)``, float32."""
        edges = np.searchsorted(lists, np.arange(len(self.centres_) + 1))
        twice = 2.0 * self.centres_  # (exact: a power of two)
        local = threading.local()  # each thread's temporaries, reused list after list

        def one_list(lst):
            work = local.__dict__
            s, e = self.starts_[lst], self.starts_[lst + 1]
            rows_l = self.rows_[s:e]
            X_l = np.take(self.data_, rows_l, axis=0, mode="clip",
                          out=_buffer(work, "X_l", (e - s, Qm.shape[1]), Qm.dtype))
            X_l -= self.centres_[lst]  # (the bits of fit's norms_)
            norms_l = self.norms_[rows_l]
            chunk = max(1, _SCAN_ENTRIES // (e - s))
            for a in range(edges[lst], edges[lst + 1], chunk):
                b = min(a + chunk, edges[lst + 1])
                qs = queries[a:b]
                Q_l = np.take(Qm, qs, axis=0, mode="clip",
                              out=_buffer(work, "Q_l", (b - a, Qm.shape[1]), Qm.dtype))
                Q_l += twice[lst]  # -2 (q - c): -2 times q - c rounded to float32
                q_norms = _squared_norms(Q_l)
                q_norms *= 0.25  # |q - c|^2 (exact: a power of two)
                D = np.matmul(Q_l, X_l.T, out=_buffer(work, "D", (b - a, e - s), Qm.dtype))
                D += norms_l
                D += q_norms[:, None]
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
        """The squared distances from each query to its rows ``ind`` (-1: inf), in the units
        of ``X``: those of the index's float32 rows and queries, computed row by row in
        float64 and multiplied by ``scale_**2``."""
        d = self._squared_distances(self._queries(Q), np.asarray(ind), self.data_)
        if self.scale_ != 1.0:
            d *= self.scale_ ** 2
        return d

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
