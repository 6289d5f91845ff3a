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
by list, and a query's answer depends on the index and the query alone. Where a query's lists
hold fewer than ``k`` samples, the query is searched exactly.

Measured on ``benchmarks/maps2d_scale.py``'s data (20 classes, 50 features, 10^6 training
samples, 10^5 new, 2 cores, ``benchmarks/results/maps2d_scale_engines.md``): 1000 lists and 8
probes found 83 % of the 20 true nearest in 8.7 s, where NN-descent's queries on its graph of
degree 10 found 64 % in 33 s. For the training samples' own neighbours (every sample a query)
NN-descent remains the faster: inverted lists reached 74 % of a class's 20 nearest in the time
NN-descent reached 82 %.
"""

from __future__ import annotations

import numpy as np

from .._threads import map_threads

__all__ = ["InvertedLists"]

#: queries of one list searched in one matrix product (at most ``4096 x list size`` floats)
_QUERY_CHUNK = 4096
#: candidates beyond ``k`` ranked exactly (float32 rounding can only swap near-equal ones)
RANK_MARGIN = 8
#: queries whose candidates are ranked exactly at once
_RANK_CHUNK = 1024
#: training samples assigned to their nearest centre per block
_ASSIGN_BLOCK = 8192


def _squared_norms(X):
    return np.einsum("ij,ij->i", X, X, dtype=np.float64).astype(np.float32)


def _nearest_centres(Q, C, C_norms, p):
    """The ``p`` nearest centres of each row of ``Q`` (``len(Q) x p``, nearest first; ties to
    the smaller index)."""
    out = np.empty((len(Q), p), dtype=np.intp)

    def block(a):
        D = C_norms[None, :] - 2.0 * (Q[a:a + _ASSIGN_BLOCK] @ C.T)
        if p == 1:
            out[a:a + _ASSIGN_BLOCK, 0] = np.argmin(D, axis=1)
            return
        part = (np.argpartition(D, p - 1, axis=1)[:, :p] if p < D.shape[1]
                else np.broadcast_to(np.arange(D.shape[1]), D.shape))
        d = np.take_along_axis(D, part, 1)
        order = np.lexsort((part, d), axis=1)
        out[a:a + _ASSIGN_BLOCK] = np.take_along_axis(part, order, 1)

    map_threads(block, range(0, len(Q), _ASSIGN_BLOCK))
    return out


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
        C = _list_means(X, _nearest_centres(X, C, _squared_norms(C), 1)[:, 0], C)
        self.centres_, self.centre_norms_ = C, _squared_norms(C)
        label = _nearest_centres(X, C, self.centre_norms_, 1)[:, 0]
        self.rows_ = np.argsort(label, kind="stable")
        self.starts_ = np.concatenate([[0], np.cumsum(np.bincount(label, minlength=L))])
        self.data_, self.norms_ = X, _squared_norms(X)
        return self

    def search(self, Q, k):
        """The indices of the ``k`` nearest rows found for each query (``k <= n``)."""
        Q = np.ascontiguousarray(Q, dtype=np.float32)
        nq, n = len(Q), len(self.rows_)
        p = min(int(self.n_probe), len(self.centres_))
        probes = _nearest_centres(Q, self.centres_, self.centre_norms_, p)
        flat = probes.ravel()
        by_list = np.argsort(flat, kind="stable")
        bounds = np.searchsorted(flat[by_list], np.arange(len(self.centres_) + 1))
        cand_d = np.full((nq, p * k), np.inf, dtype=np.float32)
        cand_i = np.full((nq, p * k), -1, dtype=np.intp)

        def one_list(lst):
            s, e = self.starts_[lst], self.starts_[lst + 1]
            m = min(k, e - s)
            rows_l = self.rows_[s:e]
            X_l, norms_l = self.data_[rows_l], self.norms_[rows_l]
            for a in range(bounds[lst], bounds[lst + 1], _QUERY_CHUNK):
                pairs = by_list[a:min(a + _QUERY_CHUNK, bounds[lst + 1])]
                queries, slot = pairs // p, pairs % p
                D = norms_l[None, :] - 2.0 * (Q[queries] @ X_l.T)
                # each query's m nearest in the list: those within its m-th distance (a
                # partition of the values, then a comparison: half an argpartition's time),
                # equal ones by position in the list
                if m < e - s:
                    r, c = np.nonzero(D <= np.partition(D, m - 1, axis=1)[:, m - 1:m])
                    rank = np.arange(len(r)) - np.searchsorted(r, np.arange(len(D)))[r]
                    r, c, rank = r[rank < m], c[rank < m], rank[rank < m]
                else:
                    r, c = np.divmod(np.arange(D.size), m)
                    rank = c
                at = (queries[r], slot[r] * k + rank)
                cand_d[at], cand_i[at] = D[r, c], rows_l[c]

        map_threads(one_list, [lst for lst in range(len(self.centres_))
                               if bounds[lst + 1] > bounds[lst]
                               and self.starts_[lst + 1] > self.starts_[lst]])
        found = self._exactly_ranked(Q, cand_d, cand_i, k)
        short = np.flatnonzero(found[:, -1] < 0)  # fewer than k in the lists probed
        step = max(1, (1 << 22) // n)  # at most 4 M distances at once
        for a in range(0, len(short), step):
            rows = short[a:a + step]
            D = self.norms_[None, :] - 2.0 * (Q[rows] @ self.data_.T)
            found[rows] = self._exactly_ranked(Q[rows], D, np.broadcast_to(
                np.arange(n), D.shape), k)
        return found

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

        def block(a):
            at = pos[a:a + _RANK_CHUNK]
            diff = X[np.maximum(at, 0)].astype(np.float64)
            diff -= Q[a:a + _RANK_CHUNK, None, :]
            diff *= diff
            d[a:a + _RANK_CHUNK] = np.where(at >= 0, diff.sum(axis=-1), np.inf)

        map_threads(block, range(0, len(Q), _RANK_CHUNK))
        return d
