r"""Graphs over the samples and the quadratic forms graph embedding needs.

A graph is a symmetric weight matrix :math:`W` over the ``n`` training samples. Graph embedding
needs only quadratic forms of its Laplacian :math:`L(W) = \operatorname{diag}(W\mathbf 1) - W`,

.. math::

    \sum_{i,j} W_{ij} \lVert V^\top x_i - V^\top x_j \rVert^2
        = 2 \operatorname{tr}\big(V^\top X^\top L(W) X V\big),

so a graph is used only through :func:`graph_quadratic_form`, which never builds an
``n x n`` dense matrix when the structure allows less:

* :class:`ClassGraph` -- weights constant within each pair of classes, :math:`W = E B E^\top`
  with ``E`` the ``n x C`` class indicator and ``B`` a ``C x C`` block matrix. LDA's within- and
  between-class graphs and the QMI graph are of this kind; their quadratic forms cost
  ``O(n D C + n D^2)`` from the class sums :math:`E^\top X`.
* sparse matrices (``scipy.sparse``) -- k-nearest-neighbour graphs (:func:`knn_graph`).
* dense arrays -- a user's own graph (small ``n`` only).
"""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from . import _threads
from ._threads import map_threads
from ._validation import check_int, check_option, check_positive

__all__ = [
    "ClassGraph",
    "GraphSum",
    "within_class_graph",
    "between_class_graph",
    "total_graph",
    "knn_graph",
    "ApproxNeighbors",
    "split_by_label",
    "unlabelled_edges",
    "laplacian",
    "graph_quadratic_form",
    "as_graph",
]

_BLOCK_ROWS = 8192


class ClassGraph:
    r"""A graph whose weight depends only on the classes of the two samples.

    .. math:: W = E B E^\top, \qquad W_{ij} = B_{y_i y_j}

    Parameters
    ----------
    y_encoded : ndarray of shape (n_samples,), dtype int
        Class index of each sample, in ``0 .. C-1``; -1 for an unlabelled sample, which has
        no edge (a zero row and column of ``W``).
    block : ndarray of shape (n_classes, n_classes)
        Symmetric weight between a sample of class ``a`` and one of class ``b``. Weights may be
        negative (the QMI graph has negative blocks).
    """

    def __init__(self, y_encoded, block):
        self.y_encoded = np.asarray(y_encoded, dtype=np.intp)
        self.block = np.asarray(block, dtype=np.float64)
        n_classes = self.block.shape[0]
        if self.block.shape != (n_classes, n_classes) or not np.allclose(self.block, self.block.T):
            raise ValueError("ClassGraph block must be a symmetric C x C matrix.")
        self._labelled = self.y_encoded >= 0
        self.class_sizes = np.bincount(self.y_encoded[self._labelled], minlength=n_classes)

    @property
    def shape(self):
        n = self.y_encoded.shape[0]
        return (n, n)

    def degrees(self):
        """Row sums of ``W`` (self-weights included), shape (n_samples,)."""
        return np.where(self._labelled, (self.block @ self.class_sizes)[self.y_encoded], 0.0)

    def indicator(self):
        """Sparse class-indicator matrix ``E`` of shape (n_samples, n_classes) (an unlabelled
        sample's row is empty)."""
        n = self.y_encoded.shape[0]
        rows = np.flatnonzero(self._labelled)
        return sp.csr_matrix(
            (np.ones(rows.shape[0]), (rows, self.y_encoded[rows])), shape=(n, self.block.shape[0])
        )

    def toarray(self):
        """Dense ``W`` (n x n). For tests on tiny inputs only."""
        W = self.block[np.ix_(self.y_encoded, self.y_encoded)]
        W[~self._labelled] = 0.0
        W[:, ~self._labelled] = 0.0
        return W


class GraphSum:
    r"""A weighted sum of graphs, :math:`W = \sum_k c_k W_k`, used through its quadratic
    forms (which are linear in ``W``): class graphs and sparse graphs combine without an
    ``n x n`` array (LFDA's local mixture: a total graph, a class graph and the sparse
    same-class affinities).

    Parameters
    ----------
    terms : list of (float, graph)
        Weights and graphs (:class:`ClassGraph`, sparse or dense), all over the same samples.
    """

    def __init__(self, terms):
        self.terms = [(float(c), g) for c, g in terms]
        if not self.terms:
            raise ValueError("GraphSum needs at least one (weight, graph) term.")

    @property
    def shape(self):
        return self.terms[0][1].shape

    def toarray(self):
        """Dense ``W`` (n x n). For tests on tiny inputs only."""
        return sum(c * (g.toarray() if hasattr(g, "toarray") else np.asarray(g))
                   for c, g in self.terms)


def _class_sizes(y_encoded, n_classes):
    y_encoded = np.asarray(y_encoded)
    return np.bincount(y_encoded[y_encoded >= 0], minlength=n_classes or 0)


def within_class_graph(y_encoded, n_classes=None):
    r"""LDA's intrinsic graph, :math:`W_{ij} = 1/J_c` when both samples are in class ``c``.

    Its Laplacian gives the within-class scatter, :math:`X^\top L X = S_w` (of the labelled
    samples; unlabelled ones, -1, have no edge).
    """
    sizes = _class_sizes(y_encoded, n_classes)
    return ClassGraph(y_encoded, np.diag(1.0 / np.maximum(sizes, 1)))


def total_graph(y_encoded, n_classes=None):
    r"""The complete graph :math:`W_{ij} = 1/n`; :math:`X^\top L X = S_t`, the total scatter
    (of the labelled samples, about their mean)."""
    sizes = _class_sizes(y_encoded, n_classes)
    n_classes = len(sizes)
    return ClassGraph(y_encoded, np.full((n_classes, n_classes), 1.0 / sizes.sum()))


def between_class_graph(y_encoded, n_classes=None):
    r""":math:`W = 1/n - [y_i = y_j]/J_{y_i}`; :math:`X^\top L X = S_b = S_t - S_w`."""
    sizes = _class_sizes(y_encoded, n_classes)
    n_classes = len(sizes)
    block = np.full((n_classes, n_classes), 1.0 / sizes.sum()) - np.diag(1.0 / np.maximum(sizes, 1))
    return ClassGraph(y_encoded, block)


def _heat_weights(sq_dist, sigma):
    """exp(-d^2 / (2 sigma^2)); sigma=None uses sigma^2 = mean of the edges' d^2 / 2."""
    if sigma is None:
        scale = np.mean(sq_dist) if sq_dist.size else 1.0
        scale = scale if scale > 0 else 1.0
    else:
        scale = 2.0 * float(sigma) ** 2
    return np.exp(-sq_dist / scale)


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


def _search_groups(X, groups, metric, self_in):
    """The neighbour searches of every group ``(queries, candidates, k)`` of :func:`knn_graph`:
    one index per group, then every group's queries in chunks of :data:`_QUERY_CHUNK`, all the
    pieces on the threads the environment allows. Returns ``(dist, idx)`` per group, ``idx``
    into the group's candidates."""
    fitted = [X[candidates] for _, candidates, _ in groups]
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
        return _kneighbors_of(indexes[gi], fitted[gi], None if self_in else X[queries], k,
                              self_in, rows)

    found = map_threads(search, pieces, workers)
    out = []
    for gi in range(len(groups)):
        parts = [f for (g, _), f in zip(pieces, found) if g == gi]
        out.append((np.concatenate([d for d, _ in parts]), np.concatenate([i for _, i in parts])))
    return out


def _kneighbors_of(nn, fitted, queries, k, self_in, rows):
    """The ``k`` nearest candidates of the queries ``rows`` with machine-independent ties:
    distances within :data:`TIE_RTOL` of the k-th count as equal and go to the smaller
    candidate index (tree searches and rounding otherwise decide them, e.g. on data with
    repeated values)."""
    n_candidates = fitted.shape[0]
    available = n_candidates - (1 if self_in else 0)
    m = min(available, 2 * k + 1)
    first = rows[0] if len(rows) else 0
    out_d = np.empty((len(rows), k))
    out_i = np.empty((len(rows), k), dtype=np.intp)
    while len(rows):
        if self_in:
            all_self = len(rows) == n_candidates
            d, i = nn.kneighbors(None if all_self else fitted[rows], n_neighbors=m
                                 + (0 if all_self else 1))
            if not all_self:  # drop each query itself (kneighbors(None) does so)
                keep = i != rows[:, None]
                surplus = keep.sum(axis=1) > m  # the query was not among them: drop the last
                keep[surplus, -1] = False
                d, i = d[keep].reshape(len(rows), m), i[keep].reshape(len(rows), m)
        else:
            d, i = nn.kneighbors(queries[rows], n_neighbors=m)
        d_k, i_k, more = _first_k_with_ties(d, i, k)
        done = ~more | (m == available)
        out_d[rows[done] - first], out_i[rows[done] - first] = d_k[done], i_k[done]
        rows = rows[~done]
        m = min(available, 2 * m)
    return out_d, out_i


#: ``algorithm='auto'`` of :func:`knn_graph` searches approximately from this many samples on
#: (when pynndescent is installed): the exact search of a class grows as its size squared
APPROX_MIN_SAMPLES = 200_000


def resolve_algorithm(algorithm, n_samples):
    """``'exact'`` or ``'approx'`` for ``algorithm`` in {'auto', 'exact', 'approx'}: 'auto' is
    'approx' from :data:`APPROX_MIN_SAMPLES` samples on when pynndescent is installed."""
    check_option(algorithm, "neighbors", {"auto", "exact", "approx"})
    if algorithm == "approx":
        _import_pynndescent()
        return "approx"
    if algorithm == "auto" and n_samples >= APPROX_MIN_SAMPLES:
        try:
            _import_pynndescent()
        except ValueError:
            return "exact"
        return "approx"
    return "exact"


def _import_pynndescent():
    try:
        from pynndescent import NNDescent
    except ImportError:
        raise ValueError(
            "The approximate neighbour search needs pynndescent: pip install pynndescent "
            "(or 'graphdr[large]'); neighbors='exact' needs nothing more.") from None
    return NNDescent


class ApproxNeighbors:
    """Approximate nearest neighbours (NN-descent, pynndescent) with the part of scikit-learn's
    ``NearestNeighbors`` interface graphdr uses: ``fit(X)``, ``kneighbors(X, n_neighbors)``
    and ``kneighbors(n_neighbors=k)`` (the training samples' neighbours, each without
    itself). One thread and a fixed ``random_state`` (None: 0): the same neighbours on every
    fit, whatever the number of threads. Float32 distances."""

    def __init__(self, n_neighbors=5, random_state=None):
        self.n_neighbors = n_neighbors
        self.random_state = random_state

    def fit(self, X):
        NNDescent = _import_pynndescent()
        X = np.ascontiguousarray(X, dtype=np.float32)
        self._n = X.shape[0]
        k = min(self.n_neighbors + 1, self._n)
        seed = 0 if self.random_state is None else self.random_state
        # queries run one call at a time (kneighbors): pynndescent's search reuses one visited
        # set between calls; a query's answer does not depend on the others in its call
        self.index_ = NNDescent(X, n_neighbors=k, random_state=seed, n_jobs=1,
                                low_memory=True)
        _threads.libraries_loaded()  # numba may have loaded an OpenMP runtime of its own
        return self

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        if X is None:  # the training samples, each without itself
            ind, dist = self.index_.neighbor_graph
            rows = np.arange(self._n)
            own = ind == rows[:, None]
            own[~own.any(axis=1), -1] = True  # itself missed (duplicates): drop the farthest
            own &= np.cumsum(own, axis=1) == 1
            keep = ~own
            m = ind.shape[1] - 1
            ind, dist = ind[keep].reshape(-1, m)[:, :k], dist[keep].reshape(-1, m)[:, :k]
        else:
            self._prepare_search()
            with _QUERY_LOCK:  # pynndescent's search shares state between calls
                ind, dist = self.index_.query(np.ascontiguousarray(X, dtype=np.float32), k=k)
        ind, dist = ind.astype(np.intp), dist.astype(np.float64)
        return (dist, ind) if return_distance else ind

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


def _approx_search_groups(X, groups, random_state, finish=None):
    """:func:`_search_groups` by NN-descent: each group's candidates searched for their own
    ``k`` nearest others (``self_in`` groups only), the groups on the environment's threads
    (one thread each: the result does not depend on the number of threads). ``finish(dist,
    idx)``, when given, turns each group's result into what is kept, on the group's thread."""
    def search(group):
        queries, candidates, k = group
        if len(candidates) < APPROX_MIN_GROUP:  # small: exact is as fast
            found = _search_groups(X, [group], "euclidean", True)[0]
        else:
            found = ApproxNeighbors(k, random_state).fit(X[candidates]).kneighbors(
                n_neighbors=k)
        return found if finish is None else finish(*found)

    return map_threads(search, groups)


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


def knn_graph(
    X,
    n_neighbors=5,
    *,
    y=None,
    restrict=None,
    weights="binary",
    sigma=None,
    symmetrize="or",
    metric="euclidean",
    algorithm="exact",
    random_state=None,
):
    r"""Sparse k-nearest-neighbour graph.

    Sample ``j`` is joined to ``i`` when it is one of the ``n_neighbors`` nearest samples of
    ``i`` among the candidates ``restrict`` allows; the graph is then made symmetric.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Samples, or a square distance matrix when ``metric='precomputed'``.
    n_neighbors : int
        Neighbours per sample (fewer when a class has fewer candidates).
    y : ndarray of shape (n_samples,), optional
        Encoded labels; needed when ``restrict`` is set (then a sample labelled -1,
        unlabelled, has no edge).
    restrict : {None, 'same', 'different'}
        Candidates: all samples (None), samples of the same class ('same', supervised LPP and
        MFA's intrinsic graph) or of the other classes ('different', MFA's penalty graph).
    weights : {'binary', 'heat'}
        Edge weight: 1, or the heat kernel :math:`\exp(-\lVert x_i-x_j\rVert^2 / 2\sigma^2)`.
    sigma : float or None
        Heat-kernel width; None sets :math:`2\sigma^2` to the mean squared length of the edges.
    symmetrize : {'or', 'and'}
        Keep an edge when either sample is a neighbour of the other ('or'), or both ('and').
    metric : str
        Any metric of :class:`sklearn.neighbors.NearestNeighbors`, or 'precomputed'.
    algorithm : {'exact', 'approx', 'auto'}
        Exact neighbours (ties to the smaller index), or NN-descent's approximate ones
        (:class:`ApproxNeighbors`, Euclidean, ``restrict`` None or 'same'; ``random_state``
        fixes them); 'auto': :func:`resolve_algorithm`.
    random_state : int or None
        Seed of the approximate search (None: 0).

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal.
    """
    n_neighbors = check_int(n_neighbors, "n_neighbors")
    check_option(restrict, "restrict", {None, "same", "different"}) if restrict is not None else None
    check_option(weights, "weights", {"binary", "heat"})
    check_option(symmetrize, "symmetrize", {"or", "and"})
    if sigma is not None:
        check_positive(sigma, "sigma")
    n = X.shape[0]
    if restrict is not None and y is None:
        raise ValueError("knn_graph with restrict='same' or 'different' needs the labels y.")
    rows, cols, dists = [], [], []
    if restrict is None:
        groups = [(np.arange(n), np.arange(n))]
    else:
        y = np.asarray(y)
        groups = []
        for c in np.unique(y[y >= 0]):  # -1: an unlabelled sample, no edge
            members = np.flatnonzero(y == c)
            candidates = members if restrict == "same" else np.flatnonzero((y != c) & (y >= 0))
            groups.append((members, candidates))
    self_in = restrict in (None, "same")
    groups = [(queries, candidates, min(n_neighbors, len(candidates) - (1 if self_in else 0)))
              for queries, candidates in groups]
    groups = [g for g in groups if g[2] >= 1]
    # binary weights and groups that search themselves (restrict None or 'same'): each
    # group's graph is made symmetric on its own, in its own indices, and the groups are
    # written into one CSR matrix (memory: the final graph and one group's pieces, instead of
    # a COO copy, its transpose and their maximum: a third as much at 10^7 samples)
    lean = weights == "binary" and self_in
    finish = (lambda dist, idx: _symmetric_pattern(idx, symmetrize)) if lean else None
    if resolve_algorithm(algorithm, n) == "approx" and metric == "euclidean" and self_in \
            and not sp.issparse(X):
        found = _approx_search_groups(X, groups, random_state, finish)
    else:
        if metric == "precomputed":
            found = [_precomputed_neighbours(X, queries, candidates, k, self_in)
                     for queries, candidates, k in groups]
        else:
            found = _search_groups(X, groups, metric, self_in)
        if lean:
            for i in range(len(found)):  # one group at a time: each search freed when done
                found[i] = finish(*found[i])
    if lean:
        return _assemble_patterns(n, [g[1] for g in groups], found)
    for (queries, candidates, k), (dist, idx) in zip(groups, found):
        rows.append(np.repeat(queries, k))
        cols.append(candidates[idx.ravel()])
        dists.append(dist.ravel())
    if rows:
        rows, cols, dists = np.concatenate(rows), np.concatenate(cols), np.concatenate(dists)
    else:
        rows = cols = np.zeros(0, dtype=np.intp)
        dists = np.zeros(0)
    sq = np.asarray(dists, dtype=np.float64) ** 2
    w = np.ones_like(sq) if weights == "binary" else _heat_weights(sq, sigma)
    A = sp.csr_matrix((w, (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    if symmetrize == "or":
        W = A.maximum(A.T)
    else:
        W = A.minimum(A.T)
    W = sp.csr_matrix(W)
    W.setdiag(0)
    W.eliminate_zeros()
    return W


def _symmetric_pattern(idx, symmetrize="or"):
    """The binary graph of one group that searched itself, from its neighbour lists ``idx``
    (``m x k``, local indices): ``(counts, indices)``, each row's number of edges and their
    local column indices (sorted within each row, no self-edge) after symmetrisation
    ('or': either is a neighbour of the other; 'and': both)."""
    m, k = idx.shape
    A = sp.csr_matrix((np.ones(idx.size, dtype=np.int8), idx.ravel(), np.arange(m + 1) * k),
                      shape=(m, m))
    A.sum_duplicates()
    A.data[:] = 1
    S = sp.csr_matrix(A + A.T)
    del A
    S.sum_duplicates()  # canonical: sorted indices, no repeats
    rows = np.repeat(np.arange(m), np.diff(S.indptr))
    keep = S.indices != rows
    if symmetrize == "and":
        keep &= S.data == 2
    return np.bincount(rows[keep], minlength=m), S.indices[keep]


def _assemble_patterns(n, members, patterns):
    """The binary ``n x n`` CSR graph whose rows ``members[g]`` hold the edges
    ``patterns[g] = (counts, local indices)`` of :func:`_symmetric_pattern` (local index ``j``
    is sample ``members[g][j]``; ``members`` sorted, so the rows stay sorted). ``patterns`` is
    emptied on the way: each group's pieces are freed once written."""
    degree = np.zeros(n, dtype=np.int64)
    for rows, (counts, _) in zip(members, patterns):
        degree[rows] = counts
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    del degree
    nnz = int(indptr[-1])
    index_dtype = np.int32 if max(nnz, n) < np.iinfo(np.int32).max else np.int64
    indices = np.empty(nnz, dtype=index_dtype)
    for g, rows in enumerate(members):
        counts, local = patterns[g]
        patterns[g] = None
        first = np.zeros(len(counts), dtype=np.int64)
        np.cumsum(counts[:-1], out=first[1:])
        dest = np.repeat(indptr[rows] - first, counts) + np.arange(len(local))
        indices[dest] = rows[local]
    return sp.csr_matrix((np.ones(nnz), indices, indptr.astype(index_dtype)), shape=(n, n))


def unlabelled_edges(W, y):
    """The edges of ``W`` that touch an unlabelled sample (``y == -1``), sparse: how the
    neighbour graph over all samples joins the unlabelled ones to the others."""
    W = sp.coo_matrix(W)
    unlabelled = np.asarray(y) < 0
    touch = unlabelled[W.row] | unlabelled[W.col]
    return sp.csr_matrix((W.data[touch], (W.row[touch], W.col[touch])), shape=W.shape)


def split_by_label(W, y):
    """Split a graph into its same-class and different-class edges (LDE's two graphs)."""
    W = sp.coo_matrix(W)
    y = np.asarray(y)
    same = y[W.row] == y[W.col]
    n = W.shape[0]
    within = sp.csr_matrix((W.data[same], (W.row[same], W.col[same])), shape=(n, n))
    between = sp.csr_matrix((W.data[~same], (W.row[~same], W.col[~same])), shape=(n, n))
    return within, between


def laplacian(W):
    r"""Graph Laplacian :math:`L = \operatorname{diag}(W\mathbf 1) - W` (zero row sums).

    Sparse in, sparse out; a :class:`ClassGraph` or :class:`GraphSum` gives a dense matrix
    (tests only).
    """
    if isinstance(W, (ClassGraph, GraphSum)):
        W = W.toarray()
    if sp.issparse(W):
        W = sp.csr_matrix(W)
        return sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W
    W = np.asarray(W, dtype=np.float64)
    return np.diag(W.sum(axis=1)) - W


def _weighted_centered_gram(X, mean, weights=None, block_rows=_BLOCK_ROWS):
    """sum_i w_i (x_i - mean)(x_i - mean)^T, row block by row block (bounded memory)."""
    D = X.shape[1]
    out = np.zeros((D, D))
    for start in range(0, X.shape[0], block_rows):
        Xb = np.asarray(X[start : start + block_rows], dtype=np.float64) - mean
        if weights is None:
            out += Xb.T @ Xb
        else:
            out += (Xb * weights[start : start + block_rows, None]).T @ Xb
    return out


def graph_quadratic_form(W, X, *, kind="laplacian", mean=None):
    r"""The ``D x D`` matrix :math:`(X-\mathbf 1\mu^\top)^\top Q (X-\mathbf 1\mu^\top)`.

    ``Q`` is the Laplacian ``L(W)`` (``kind='laplacian'``), the degree matrix ``diag(W 1)``
    (``'degree'``) or ``W`` itself (``'adjacency'``). ``mean`` defaults to zero (no centring);
    the Laplacian form does not depend on it.

    A :class:`ClassGraph` is evaluated from class sums and a degree-weighted Gram matrix, in
    row blocks: no ``n x n`` and no extra ``n x D`` array is allocated.
    """
    check_option(kind, "kind", {"laplacian", "degree", "adjacency"})
    if isinstance(W, GraphSum):
        return sum(c * graph_quadratic_form(g, X, kind=kind, mean=mean) for c, g in W.terms)
    D = X.shape[1]
    mean = np.zeros(D) if mean is None else np.asarray(mean, dtype=np.float64)
    if isinstance(W, ClassGraph):
        E = W.indicator()
        sums = np.asarray(E.T @ X, dtype=np.float64) - np.outer(W.class_sizes, mean)
        adjacency = sums.T @ W.block @ sums
        if kind == "adjacency":
            return adjacency
        degree = _weighted_centered_gram(X, mean, W.degrees())
        return degree if kind == "degree" else degree - adjacency
    Xc = np.asarray(X, dtype=np.float64) - mean
    Wm = W if sp.issparse(W) else np.asarray(W, dtype=np.float64)
    if kind == "adjacency":
        return Xc.T @ np.asarray(Wm @ Xc)
    d = np.asarray(Wm.sum(axis=1)).ravel()
    degree = (Xc * d[:, None]).T @ Xc
    if kind == "degree":
        return degree
    return degree - Xc.T @ np.asarray(Wm @ Xc)


def as_graph(graph, n_samples, name="graph"):
    """Check a user-supplied graph: a ClassGraph, a sparse or dense symmetric n x n matrix."""
    if isinstance(graph, ClassGraph):
        if graph.shape[0] != n_samples:
            raise ValueError(
                f"{name} has {graph.shape[0]} samples but X has {n_samples}."
            )
        return graph
    if sp.issparse(graph):
        G = sp.csr_matrix(graph, dtype=np.float64)
    else:
        G = np.asarray(graph, dtype=np.float64)
        if G.ndim != 2:
            raise ValueError(f"{name} must be a 2-D n x n weight matrix; got shape {G.shape}.")
    if G.shape != (n_samples, n_samples):
        raise ValueError(
            f"{name} must be an n_samples x n_samples weight matrix ({n_samples} x {n_samples}); "
            f"got shape {G.shape}."
        )
    data = G.data if sp.issparse(G) else G
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contains NaN or infinite weights.")
    asymmetry = abs(G - G.T).max()
    if asymmetry > 1e-10 * max(1.0, abs(G).max()):
        raise ValueError(f"{name} must be symmetric (W == W.T).")
    return G
