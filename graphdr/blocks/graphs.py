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

import numpy as np
import scipy.sparse as sp

from .._validation import check_int, check_option, check_positive
from .knn import (  # noqa: F401  (ApproxNeighbors: graphdr.blocks.graphs' public name too)
    ApproxNeighbors,
    _approx_search_groups,
    _precomputed_neighbours,
    _search_groups,
    resolve_algorithm,
)

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
        Exact neighbours (ties to the smaller index), or approximate ones by inverted lists
        (:func:`graphdr.blocks.list_graph.list_graph`, 90 % recall, Euclidean, ``restrict``
        None or 'same'; deterministic); 'auto': :func:`resolve_algorithm`.
    random_state : int or None
        Kept for compatibility: the approximate search draws nothing at random.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal.
    """
    n_neighbors = _check_knn_options(n_neighbors, restrict, weights, symmetrize, sigma)
    n = X.shape[0]
    if restrict is not None and y is None:
        raise ValueError("knn_graph with restrict='same' or 'different' needs the labels y.")
    self_in = restrict in (None, "same")
    groups = _search_groups_of(n, y, restrict, n_neighbors, self_in)
    # binary weights and groups that search themselves (restrict None or 'same'): each
    # group's graph is made symmetric on its own, in its own indices, and the groups are
    # written into one CSR matrix (memory: the final graph and one group's pieces, instead of
    # a COO copy, its transpose and their maximum: a third as much at 10^7 samples)
    lean = weights == "binary" and self_in
    finish = (lambda dist, idx: _symmetric_pattern(idx, symmetrize)) if lean else None
    if resolve_algorithm(algorithm, n) == "approx" and metric == "euclidean" and self_in \
            and not sp.issparse(X):
        found = _approx_search_groups(X, groups, finish)
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
    return _weighted_graph(n, groups, found, weights, sigma, symmetrize)


def _check_knn_options(n_neighbors, restrict, weights, symmetrize, sigma):
    """The checked ``n_neighbors`` of :func:`knn_graph`, once its options are checked."""
    n_neighbors = check_int(n_neighbors, "n_neighbors")
    if restrict is not None:
        check_option(restrict, "restrict", {None, "same", "different"})
    check_option(weights, "weights", {"binary", "heat"})
    check_option(symmetrize, "symmetrize", {"or", "and"})
    if sigma is not None:
        check_positive(sigma, "sigma")
    return n_neighbors


def _search_groups_of(n, y, restrict, n_neighbors, self_in):
    """The searches of :func:`knn_graph`: ``(queries, candidates, k)``, every sample among all
    (``restrict`` None) or each class's samples among their candidates, groups with ``k >= 1``
    only (``self_in``: the queries are among their candidates)."""
    if restrict is None:
        groups = [(np.arange(n), np.arange(n))]
    else:
        y = np.asarray(y)
        groups = []
        for c in np.unique(y[y >= 0]):  # -1: an unlabelled sample, no edge
            members = np.flatnonzero(y == c)
            candidates = members if restrict == "same" else np.flatnonzero((y != c) & (y >= 0))
            groups.append((members, candidates))
    groups = [(queries, candidates, min(n_neighbors, len(candidates) - (1 if self_in else 0)))
              for queries, candidates in groups]
    return [g for g in groups if g[2] >= 1]


def _weighted_graph(n, groups, found, weights, sigma, symmetrize):
    """The symmetric ``n x n`` CSR graph of the neighbour lists ``found`` (``(dist, idx)`` of
    each group), weighted by ``weights``, with a zero diagonal."""
    rows, cols, dists = [], [], []
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


def binary_knn_graph(idx):
    """The binary symmetric ('or') graph of neighbour lists ``idx`` (``n x k``, each row's
    neighbours among the ``n`` rows, itself not among them): :func:`knn_graph`'s with
    ``weights='binary'`` when ``idx`` are its neighbours."""
    n = len(idx)
    return _assemble_patterns(n, [np.arange(n)], [_symmetric_pattern(idx)])


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
