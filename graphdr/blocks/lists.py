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
:math:`\|c\|^2 - 2 q^\top c` in float64 (:func:`graphdr.blocks.list_blocks._centre_distances`).
The queries are searched on blocks (:func:`graphdr.blocks.list_blocks.list_search`): grouped
by their nearest list, each list probed meets all the queries that probe it in one matrix
product (float32), a query's own list bounding the distances kept from the others; the
:math:`m = k +` :data:`RANK_MARGIN` nearest by (float32 distance, row) are then ranked by their
distances recomputed in float64. A query's answer depends on the index and the query alone;
where its lists hold fewer than ``k`` samples, every list is searched.

With every list probed (``n_probe >= n_lists``) the search is exact at any offset and scale
of the data: the ``k`` nearest rows, ties to the smaller row, of the rows as the index holds
them (float32 in the frame: a rounding of :math:`2^{-24}` of the spread, which can swap two
rows only where their distances to the query differ by less).

Measured on ``benchmarks/maps2d_scale.py``'s data (20 classes, 50 features, 10^6 training
samples, 10^5 new, 2 cores; ``docs/history.rst``, "The map's neighbour search engines"): the map's 6 probes
of lists of about 2048 rows found 88 % of the 20 true nearest in 4.5 s, where NN-descent's
queries on its graph of degree 10 found 64 % in 33 s. The graph of every row (every row a
query) is :func:`graphdr.blocks.list_graph.list_graph`, on these lists.
"""

from __future__ import annotations

import threading

import numpy as np
from sklearn.exceptions import NotFittedError

from .._threads import map_threads
from .list_blocks import (
    RANK_MARGIN,
    _buffer,
    _count,
    _nearest_centres,
    _squared_norms,
    _squared_norms64,
    list_search,
)
from .scaling import FLOAT32_SPAN, in_frame, search_frame

__all__ = ["InvertedLists"]

#: the fewest rows of a list by default (below ``LIST_ROWS**2`` rows, ``n / LIST_ROWS`` lists,
#: above, :math:`\sqrt{n}`): a product per list and block of queries costs its calls and
#: selections beyond its multiply-adds, and a list's own rows bound its queries' distances
#: better when it holds more of their neighbours (the graph of 10^6 rows of
#: ``benchmarks/maps2d_scale.py`` at 90 % recall: 36 s with 489 lists, 40 s with 1000; a class
#: of 50,000 rows: 1.1 s with 25 lists, 3.2 s with 224)
LIST_ROWS = 2048
#: queries whose candidates are ranked exactly at once
_RANK_CHUNK = 1024
#: training samples per block of the passes over the rows
_ASSIGN_BLOCK = 8192

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
        return list_search(self, Q, kk, p)

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
