"""The map's input: its features scaled, its rows ordered by class, its attraction graph
(:class:`graphdr.DEEMap`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..blocks import graphs as _graphs
from ..blocks.knn import APPROX_MIN_GROUP, _approx_search_groups, _search_groups
from ..blocks.sampling import row_keys, smallest_keys
from ..blocks.scaling import (  # noqa: F401
    DOMINANT_FEATURE,
    FEATURE_SCALINGS,
    feature_scaling,
    lower_medians,
)


def _gathered(X, rows, block=1 << 14):
    """``X[rows]`` as a new float64 array, gathered in row blocks (no float32 copy of the
    whole of ``X`` on the way)."""
    out = np.empty((len(rows), X.shape[1]))
    for a in range(0, len(rows), block):
        out[a:a + block] = X[rows[a:a + block]]
    return out


def content_keys(X):
    """The content keys of the map's rows (:func:`graphdr.blocks.sampling.row_keys`) of their
    values about each feature's median (:func:`graphdr.blocks.scaling.lower_medians`): data
    moved by a constant come in the same order, so give the same map to the rounding of the
    move (keys of the raw values would all change)."""
    return row_keys(X, centre=lower_medians(X))


def _class_order(y_enc, within=None):
    """The rows sorted by class, unlabelled (-1) first, each class in the order ``within``
    (indices of all rows; default: the rows' own order)."""
    if within is None:
        return np.argsort(y_enc, kind="stable")
    return within[np.argsort(y_enc[within], kind="stable")]


def input_neighbours(X, k, algorithm="exact"):
    """``(dist, ind)`` (``n x k``): each row's ``k`` nearest other rows of ``X``, exactly (ties
    to the smaller index) or by inverted lists (``algorithm='approx'``, from
    :data:`~graphdr.blocks.knn.APPROX_MIN_GROUP` rows), in increasing distance."""
    rows = np.arange(len(X))
    group = [(rows, rows, int(k))]
    if algorithm == "approx" and len(X) >= APPROX_MIN_GROUP:
        return _approx_search_groups(X, group)[0]
    return _search_groups(X, group, "euclidean", True)[0]


def attraction_graph(X, y_enc, n_neighbors, algorithm="exact", n_neighbors_unlabelled=None,
                     beside=None):
    """The map's attraction graph (binary, symmetric): each labelled sample's ``n_neighbors``
    nearest samples of its class, and, when some samples are unlabelled (-1), the edges of the
    ``n_neighbors_unlabelled``-nearest-neighbour graph over all samples (default:
    ``n_neighbors``) that touch an unlabelled one (exact or approximate neighbours,
    :func:`graphdr.blocks.graphs.knn_graph`).

    ``beside``: a task to run as well, ``(graph, beside())`` returned; when it gives
    :class:`CrossPairs` whose placing index holds its graph over all samples, that
    graph gives the unlabelled samples' edges (no second search). The task runs first: its
    search and the class graphs' each use the environment's threads."""
    kw = dict(weights="binary", algorithm=algorithm)
    extra = beside() if beside is not None else None
    A = sp.csr_matrix(_graphs.knn_graph(X, n_neighbors, y=y_enc, restrict="same", **kw))
    if np.any(y_enc < 0):
        k = n_neighbors if n_neighbors_unlabelled is None else n_neighbors_unlabelled
        near = extra.all_neighbours(k) if isinstance(extra, CrossPairs) else None
        U = _graphs.knn_graph(X, k, **kw) if near is None else _graphs.binary_knn_graph(near)
        A = sp.csr_matrix(A.maximum(_graphs.unlabelled_edges(U, y_enc)))
    return A if beside is None else (A, extra)


#: input neighbours per sample whose pairs of different classes attract (``cross_attraction``)
CROSS_NEIGHBORS = 10
#: with exact neighbours, the pairs come from the samples of smallest content key up to this
#: many (a search among ``m``, not ``n``: at 10^5 samples of ``benchmarks/maps2d_scale.py``
#: the search among all made the fit 38 s instead of 14 s)
CROSS_EXACT_SAMPLES = 20_000


def exact_cross_pairs(Xs, y_enc, keys):
    """:func:`cross_class_pairs` from the exact :data:`CROSS_NEIGHBORS` nearest neighbours
    (machine-independent ties, :mod:`graphdr.blocks.knn`) among the samples of smallest content key
    ``keys`` up to :data:`CROSS_EXACT_SAMPLES` (all of them below it)."""
    n = len(Xs)
    rows = np.arange(n) if n <= CROSS_EXACT_SAMPLES else np.sort(
        smallest_keys(keys, CROSS_EXACT_SAMPLES))
    k = min(CROSS_NEIGHBORS, len(rows) - 1)
    if k < 1:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    ((_, idx),) = _search_groups(Xs, [(rows, rows, k)], "euclidean", True)
    return cross_class_pairs(rows[idx], y_enc, rows)


def cross_class_pairs(neighbours, y_enc, rows=None):
    """The pairs ``(i, j)``, ``i < j``, of labelled samples of different classes where one is
    among the other's input neighbours (``neighbours``: ``n x k`` row indices, each row's own
    excluded; the neighbours of the samples ``rows`` when given), each pair once, sorted: the
    edges of the map's saturating attraction. A class of at most :data:`CROSS_NEIGHBORS`
    samples has none: it cannot fill a neighbourhood of its own, its few samples are held by
    little, and the pull of the other classes would fold it into their region (with two
    labelled samples per class the held-out error of heart's map rose from 25.5 % to 43.2 %;
    a class of one sample was drawn onto the others); it keeps a place of its own."""
    n = len(y_enc)
    k = neighbours.shape[1]
    i = np.repeat(np.arange(n) if rows is None else np.asarray(rows, dtype=np.intp), k)
    j = np.asarray(neighbours, dtype=np.intp).ravel()
    sizes = np.bincount(y_enc[y_enc >= 0])
    member = np.zeros(n, dtype=bool)
    member[y_enc >= 0] = sizes[y_enc[y_enc >= 0]] > CROSS_NEIGHBORS
    keep = member[i] & member[j] & (y_enc[i] != y_enc[j])
    lo, hi = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
    codes = np.unique(lo.astype(np.int64) * n + hi)
    return (codes // n).astype(np.intp), (codes % n).astype(np.intp)


class CrossPairs(NamedTuple):
    """:func:`map_cross_pairs`' result: ``pairs`` ``(i, j)`` and the placing ``index``
    (approximate: an :class:`graphdr.blocks.knn.ApproxNeighbors`; exact: None)."""

    pairs: tuple
    index: object

    def all_neighbours(self, k):
        """The ``k`` nearest others of every sample (``n x k``) from the index's
        graph, or None where :func:`graphdr.blocks.graphs.knn_graph` would search otherwise:
        no index, a graph of fewer than ``k`` neighbours, or fewer samples than the lists
        search (they are searched exactly). For ``k`` equal to the graph's degree these
        are ``knn_graph(..., algorithm='approx')``'s own neighbours: the lists' graph of the same
        degree on the same rows."""
        index = self.index
        if index is None or index._n < APPROX_MIN_GROUP:
            return None
        degree = index.n_neighbors if index.graph_neighbors is None else index.graph_neighbors
        if k > min(degree, index._n - 1):
            return None
        return index.training_neighbors(np.arange(index._n), k)[1]


def map_cross_pairs(Xs, y_enc, keys, algorithm, make_index):
    """``(pairs, index)`` of :class:`graphdr.DEEMap`'s saturating attraction. Approximate
    (``algorithm='approx'``): the index that places new samples (``make_index(Xs)``) is built
    before the fit (from a float32 copy, the precision it searches in, so that the caller can
    free ``Xs`` for the descent) and its training neighbours give the pairs for free.
    Exact: :func:`exact_cross_pairs`, index None (built after the fit, as without pairs)."""
    if algorithm != "approx":
        return CrossPairs(exact_cross_pairs(Xs, y_enc, keys), None)
    index = make_index(np.asarray(Xs, dtype=np.float32))  # the lists' own precision
    n = len(Xs)
    k = min(CROSS_NEIGHBORS, index.n_neighbors, n - 1)
    graph = index.neighbor_graph  # (pynndescent's property copies it: once)
    codes = []
    for a in range(0, n, _PAIR_BLOCK):  # in blocks of rows: no n x k temporaries
        rows = np.arange(a, min(a + _PAIR_BLOCK, n))
        _, near = index.training_neighbors(rows, k, graph=graph)
        i, j = cross_class_pairs(near, y_enc, rows)
        codes.append(i.astype(np.int64) * n + j)
    del graph
    codes = np.unique(np.concatenate(codes))
    return CrossPairs(((codes // n).astype(np.intp), (codes % n).astype(np.intp)), index)


#: training samples whose approximate neighbours become cross pairs at once
_PAIR_BLOCK = 1 << 16

