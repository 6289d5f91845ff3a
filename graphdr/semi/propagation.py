r"""Labels propagated over the data's own neighbour graph: Poisson learning.

Poisson learning (Calder, Cook, Thorpe & Slepcev, ICML 2020) spreads a few labels over the
graph of *all* samples by solving one Poisson equation per class. With the symmetric,
self-tuned kNN graph :math:`W` (:func:`propagation_graph`), its degrees :math:`d_i` and
Laplacian :math:`L = D - W`, the labelled set :math:`\Lambda` and the one-hot labels
:math:`y_j \in \{0, 1\}^C`:

.. math::

    L U = B, \qquad B_i = y_i - \bar y_{c(i)} \ (i \in \Lambda), \quad B_i = 0 \ (i \notin
    \Lambda), \qquad \sum_{i \in c} d_i U_i = 0 \ \text{for every connected component } c,

where :math:`\bar y_c` is the mean label of the labelled samples of component :math:`c` (the
paper's mean shift of the sources, per component so that each component's equation has a
solution). Sample :math:`i`'s class is :math:`\arg\max_j U_{ij}`. Unlike Laplace learning
(scikit-learn's ``LabelPropagation``), whose solution flattens to a constant away from the few
labelled samples, the Poisson solution keeps the sources' signal: at one label per class it
classifies most of MNIST where Laplace learning is at chance.

Where the equation says nothing, the answer says so:

- a component holding labelled samples of one class only gives that class;
- a component with no labelled sample gives the class of the nearest labelled sample in the
  features, with confidence 0;
- duplicate rows and repeated values: the graph's widths have a floor, ties in the neighbour
  search go to the smaller index (:mod:`graphdr.blocks.knn`).

The solve is a conjugate-gradient iteration with the degrees as preconditioner, ``O(n k C)`` per
step; no ``n x n`` array. The rows are put in content order first
(:func:`graphdr.blocks.sampling.canonical_order`): the scores do not depend on the order of the rows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.neighbors import NearestNeighbors

from ..blocks.knn import _approx_search_groups, _search_groups
from ..blocks.sampling import canonical_order, row_keys

__all__ = ["propagation_graph", "poisson_scores", "scores_to_distributions", "PoissonResult",
           "PropagationGraph", "propagate"]

#: a sample's width is at least this fraction of the largest width (duplicate rows)
WIDTH_FLOOR = 1e-12


def _self_tuned_weights(dist):
    r""":math:`\exp(-4 d_{ij}^2 / d_{ik}^2)` with :math:`d_{ik}` the distance to the k-th
    neighbour (floored: duplicates)."""
    sq = np.asarray(dist, dtype=np.float64) ** 2
    width = sq[:, -1:]
    floor = WIDTH_FLOOR * max(float(width.max()), np.finfo(np.float64).tiny)
    return np.exp(-4.0 * sq / np.maximum(width, floor))


def propagation_graph(X, n_neighbors=10, algorithm="exact", random_state=None):
    r"""The symmetric self-tuned kNN graph of Poisson learning, sparse ``n x n``.

    Each sample is joined to its ``n_neighbors`` nearest others (``algorithm='exact'``: exact
    search, ties to the smaller index; ``'approx'``: inverted lists, no random draw,
    :func:`graphdr.blocks.knn._approx_search_groups`) with weight
    :math:`\exp(-4 d_{ij}^2 / d_{ik}^2)`; the graph is :math:`(A + A^\top) / 2`, zero
    diagonal. Every sample has an edge of weight at least :math:`e^{-4}`.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    k = min(int(n_neighbors), n - 1)
    if k < 1:
        raise ValueError(f"the propagation graph needs at least 2 samples; got {n}.")
    group = [(np.arange(n), np.arange(n), k)]
    if algorithm == "approx":
        ((dist, idx),) = _approx_search_groups(X, group)
    else:
        ((dist, idx),) = _search_groups(X, group, "euclidean", True)
    A = sp.csr_matrix((_self_tuned_weights(dist).ravel(), idx.ravel(),
                       np.arange(0, n * k + 1, k)), shape=(n, n))
    W = ((A + A.T) * 0.5).tocsr()
    W.setdiag(0.0)
    W.eliminate_zeros()
    W.sort_indices()
    return W


class PoissonResult:
    """What :func:`poisson_scores` found: ``scores`` (``n x C``, the solution :math:`U`),
    ``components`` (each sample's connected component), ``informed`` (whether the sample's
    component holds a labelled sample), ``n_iter`` and ``residual`` (the largest relative
    residual over the classes)."""

    def __init__(self, scores, components, informed, n_iter, residual):
        self.scores = scores
        self.components = components
        self.informed = informed
        self.n_iter = n_iter
        self.residual = residual


def poisson_scores(W, y_encoded, n_classes, *, tol=1e-6, max_iter=2000):
    r"""Solve Poisson learning's equation (module docstring) on the graph ``W``.

    Parameters
    ----------
    W : sparse matrix of shape (n, n)
        Symmetric, non-negative, every degree positive (:func:`propagation_graph`).
    y_encoded : ndarray of shape (n,)
        Classes ``0..n_classes-1`` of the labelled samples, -1 for the others.
    n_classes : int
    tol : float
        Relative residual (in the inverse-degree norm) at which the iteration stops.
    max_iter : int

    Returns
    -------
    PoissonResult
    """
    W = sp.csr_matrix(W, dtype=np.float64)
    y = np.asarray(y_encoded)
    n = W.shape[0]
    degree = np.asarray(W.sum(axis=1)).ravel()
    if not np.all(degree > 0):
        raise ValueError("every sample of the propagation graph needs an edge.")
    n_comp, comp = connected_components(W, directed=False)
    labelled = y >= 0
    onehot = np.zeros((n, n_classes))
    onehot[np.flatnonzero(labelled), y[labelled]] = 1.0
    counts = np.bincount(comp[labelled], minlength=n_comp).astype(np.float64)
    sums = np.zeros((n_comp, n_classes))
    np.add.at(sums, comp[labelled], onehot[labelled])
    means = sums / np.maximum(counts, 1.0)[:, None]
    B = np.where(labelled[:, None], onehot - means[comp], 0.0)
    U, n_iter, residual = _block_pcg(W, degree, B, tol, max_iter)
    # the solution of each component is unique up to a constant per class: the one with
    # zero degree-weighted mean
    mass = np.bincount(comp, weights=degree, minlength=n_comp)
    shift = np.zeros((n_comp, n_classes))
    np.add.at(shift, comp, U * degree[:, None])
    U -= (shift / mass[:, None])[comp]
    return PoissonResult(U, comp, counts[comp] > 0, n_iter, residual)


def _block_pcg(W, degree, B, tol, max_iter):
    """Conjugate gradients on :math:`(D - W) U = B`, one independent iteration per column of
    ``B`` (all columns in one sparse product per step), preconditioned by ``D``."""
    U = np.zeros_like(B)
    R = B.copy()
    Z = R / degree[:, None]
    P = Z.copy()
    rz = np.einsum("ij,ij->j", R, Z)
    start = np.sqrt(np.maximum(rz, 0.0))
    active = start > 0
    residual = active.astype(np.float64)  # 1 before the first step (0 for a zero source)
    it = 0
    for it in range(1, max_iter + 1):
        if not active.any():
            it -= 1
            break
        AP = degree[:, None] * P - W @ P
        curvature = np.einsum("ij,ij->j", P, AP)
        alpha = np.where(active & (curvature > 0), rz / np.where(curvature > 0, curvature, 1.0),
                         0.0)
        U += alpha * P
        R -= alpha * AP
        Z = R / degree[:, None]
        rz_new = np.einsum("ij,ij->j", R, Z)
        residual = np.where(start > 0, np.sqrt(np.maximum(rz_new, 0.0)) / np.where(
            start > 0, start, 1.0), 0.0)
        active &= residual > tol
        beta = np.where(active, rz_new / np.where(rz > 0, rz, 1.0), 0.0)
        P = Z + beta * P
        rz = rz_new
    return U, it, float(residual.max()) if residual.size else 0.0


class PropagationGraph:
    """The graph of ``X`` (:func:`propagation_graph`), its rows in content order
    (:func:`graphdr.blocks.sampling.canonical_order`, ties of identical rows by ``y_encoded``) so that
    nothing depends on the order of the rows: built once, it propagates any labels of the
    same samples (:meth:`propagate`). ``keys``: the content keys of ``X``'s rows
    (:func:`graphdr.blocks.sampling.row_keys`) when the caller holds them."""

    def __init__(self, X, y_encoded, n_neighbors=10, algorithm="exact", random_state=None,
                 keys=None):
        X = np.asarray(X, dtype=np.float64)
        self.order = canonical_order(row_keys(X) if keys is None else keys,
                                     np.asarray(y_encoded))
        self.unsort = np.empty_like(self.order)
        self.unsort[self.order] = np.arange(len(self.order))
        self.X = X[self.order]
        self.W = propagation_graph(self.X, n_neighbors, algorithm, random_state)

    def propagate(self, y_encoded, n_classes, *, tol=1e-6, max_iter=2000):
        """``(distributions, confidence, result)`` of labels ``y_encoded`` (-1: unlabelled)
        in the caller's row order (:func:`scores_to_distributions`; ``result`` too)."""
        ys = np.asarray(y_encoded)[self.order]
        result = poisson_scores(self.W, ys, n_classes, tol=tol, max_iter=max_iter)
        P, confidence = scores_to_distributions(result, self.X, ys, n_classes)
        u = self.unsort
        result.scores, result.components, result.informed = (
            result.scores[u], result.components[u], result.informed[u])
        return P[u], confidence[u], result


def propagate(X, y_encoded, n_classes, *, n_neighbors=10, tol=1e-6, max_iter=2000):
    """Poisson learning of ``X`` with labels ``y_encoded`` (-1: unlabelled), whatever the
    order of the rows (:class:`PropagationGraph`). Returns ``(distributions, confidence,
    result)`` in the caller's row order."""
    return PropagationGraph(X, y_encoded, n_neighbors).propagate(
        y_encoded, n_classes, tol=tol, max_iter=max_iter)


def scores_to_distributions(result, X, y_encoded, n_classes):
    """Class distributions (rows sum to 1) and the confidence of each sample from a
    :class:`PoissonResult`.

    A sample's distribution is its scores shifted to a minimum of 0 and normalised (uniform
    when they are all equal); its confidence is the gap between its two largest entries
    (scores are not calibrated probabilities: the gap orders samples by how clearly the
    propagation decides them). A component with labelled samples of one class gives that
    class with confidence 1; a component with none takes the class of the nearest labelled
    sample in ``X``, confidence 0. Labelled samples keep their own label (one-hot, 1).
    """
    y = np.asarray(y_encoded)
    U = result.scores
    n = U.shape[0]
    shifted = U - U.min(axis=1, keepdims=True)
    total = shifted.sum(axis=1, keepdims=True)
    P = np.where(total > 0, shifted / np.where(total > 0, total, 1.0), 1.0 / n_classes)
    labelled = y >= 0
    comp = result.components
    classes_in = np.zeros((comp.max() + 1, n_classes), dtype=bool)
    classes_in[comp[labelled], y[labelled]] = True
    single = classes_in.sum(axis=1) == 1
    one = single[comp] & ~labelled
    P[one] = classes_in[comp[one]].astype(np.float64)
    blind = ~result.informed
    if blind.any():
        lab = np.flatnonzero(labelled)
        nearest = NearestNeighbors(n_neighbors=1).fit(X[lab]).kneighbors(
            X[blind], return_distance=False)[:, 0]
        P[blind] = np.eye(n_classes)[y[lab[nearest]]]
    P[labelled] = np.eye(n_classes)[y[labelled]]
    top2 = np.sort(P, axis=1)[:, -2:] if n_classes > 1 else np.hstack([np.zeros((n, 1)), P])
    confidence = top2[:, 1] - top2[:, 0]
    confidence[blind & ~labelled] = 0.0
    return P, confidence
