r"""The objective of :class:`graphdr.DEEMap`: discriminative elastic embedding over free 2-D
coordinates, its value and gradient in ``O(n)`` per evaluation.

The objective of paper 003 (attract neighbours of the same class, repel samples of different
classes) over free coordinates ``Y`` instead of a linear map, so that classes that no linear map
separates get their own regions of the plane:

.. math::

    E(Y) = \sum_{i<j} a_{ij} \lVert y_i - y_j\rVert^2
         + \rho \sum_{i<j} c_{ij} \log\big(1 + \lVert y_i - y_j\rVert^2\big)
         + \lambda_d \sum_{i<j,\ l_i \ne l_j} e^{-\lVert y_i - y_j\rVert^2}
         + \lambda_s \sum_{i<j,\ l_i = l_j} e^{-\lVert y_i - y_j\rVert^2},

with :math:`a_{ij} = 1` when ``j`` is one of the ``n_neighbors`` nearest samples of ``i`` in its
own class or the other way round (sparse, :func:`graphdr.blocks.graphs.knn_graph`), else 0, and
:math:`c_{ij} = 1` when ``i`` and ``j`` are of different classes (each of more than
:data:`~graphdr.maps.inputs.CROSS_NEIGHBORS` samples) and one is among the other's
``CROSS_NEIGHBORS`` nearest samples in the input, else 0. The
different-class repulsion :math:`\lambda_d` separates the classes; the weaker same-class
repulsion :math:`\lambda_s` (elastic embedding's term) keeps each class's inner structure from
collapsing to a point; the attraction between input neighbours of different classes,
:math:`\rho` (``cross_attraction``), keeps classes that touch in the input next to each other
on the map, and, saturating as t-SNE's and UMAP's do (its force
:math:`2\rho (y_i - y_j) / (1 + \lVert y_i - y_j\rVert^2)` fades with distance), does not drag
the samples of a boundary across the gap between two classes as a quadratic pull would. The
repulsions are summed over all pairs on a grid
(:mod:`graphdr.maps.grid_field`): ``O(n)`` time and memory per evaluation.

The gradient is :math:`2 L Y + \lambda_d (\nabla F - \nabla F_{l}) + \lambda_s \nabla F_{l}`
plus the saturating pairs' forces (``O(n)`` pairs),
:math:`L` the graph Laplacian, :math:`F` the Gaussian field of all samples and :math:`F_l` that
of the sample's class. The optimiser is :func:`graphdr.blocks.optim.descent` along the Laplacian
direction :math:`-(2L + \mu I)^{-1} \nabla E` (paper 003's fourth optimiser): Jacobi-
preconditioned conjugate gradients on the sparse Laplacian, ``O(n k)`` per solve.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse import linalg as splinalg

from .._threads import map_threads
from .grid_field import EXACT_MAX, block_fields, exact_gaussian_field, gaussian_field
from .inputs import _class_order

#: weight of each sample's attraction to its class mean (a fraction of one neighbour edge)
TETHER = 0.01
#: samples from which the Laplacian's two columns are multiplied on two threads
_PARALLEL_ROWS = 1 << 15


class _MapObjective:
    r"""Value and gradient of :math:`E(Y)` (module docstring).

    With unlabelled samples (-1) the different-class repulsion acts between labelled samples
    of different classes, the same-class weight between labelled samples of one class and
    :math:`\lambda_u` (``lam_unlabelled``, default :math:`\lambda_s`) between every pair with
    an unlabelled sample:
    :math:`\tfrac12\lambda_u \sum_i (F(y_i) - 1) + \tfrac12(\lambda_d - \lambda_u)
    \sum_{i \in \mathcal L} (F_{\mathcal L}(y_i) - F_{l_i}(y_i))
    + \tfrac12(\lambda_s - \lambda_u) \sum_{i \in \mathcal L} (F_{l_i}(y_i) - 1)`, with
    :math:`F_{\mathcal L}` the field of the labelled samples; the tether holds the labelled
    samples only.

    The work is done with the rows sorted by class (unlabelled first), so that every class is
    a block of consecutive rows (views, no gathers); :func:`_class_order` gives that order,
    and a caller that passes its rows in it (as :meth:`DEEMap.fit` does) saves two
    permutations per evaluation.
    """

    def __init__(self, A, y_enc, n_classes, lam_diff, lam_same, tether=TETHER, cross=None,
                 rho=0.0, lam_unlabelled=None):
        order = _class_order(y_enc)
        self.order = None if np.array_equal(order, np.arange(len(order))) else order
        A = sp.csr_matrix(A)
        self.rho = float(rho)
        self.cross = cross if cross is not None and self.rho > 0 and len(cross[0]) else None
        if self.order is not None:
            A, y_enc = A[order][:, order], y_enc[order]
            if self.cross is not None:  # the pairs' rows in the sorted order
                where = np.empty_like(order)
                where[order] = np.arange(len(order))
                self.cross = (where[self.cross[0]], where[self.cross[1]])
        # L = diag(degree) - A, applied as such: no second copy of the graph
        self.A, self.degree = A, np.asarray(A.sum(axis=1), dtype=np.float64).ravel()
        #: class c holds the sorted rows starts[c]:starts[c + 1]; the unlabelled, 0:starts[0]
        self.starts = np.searchsorted(y_enc, np.arange(n_classes + 1))
        self.partial = self.starts[0] > 0
        self.lam_diff, self.lam_same = float(lam_diff), float(lam_same)
        self.lam_unlabelled = self.lam_same if lam_unlabelled is None else float(lam_unlabelled)
        self.tether = float(tether)
        #: a small map's fields are summed exactly (the same choice at every evaluation)
        self.exact = len(y_enc) <= EXACT_MAX

    def _field(self, Y):
        return exact_gaussian_field(Y) if self.exact else gaussian_field(Y)

    def value_grad(self, Y):
        if self.order is None:
            return self._sorted_value_grad(Y)
        value, grad = self._sorted_value_grad(Y[self.order])
        out = np.empty_like(grad)
        out[self.order] = grad
        return value, out

    def _laplacian(self, Y):
        """``L Y``, one column per thread when the graph is large."""
        workers = None if len(Y) >= _PARALLEL_ROWS else 1

        def column(k):
            y = np.ascontiguousarray(Y[:, k])
            return self.degree * y - self.A @ y

        return np.column_stack(map_threads(column, range(Y.shape[1]), n_workers=workers))

    def shifted_laplacian(self, mu):
        r"""``(op, diagonal)``: :math:`2L + \mu I` as a linear operator on vectors (the graph
        is not copied) and its diagonal, for :func:`~graphdr.neighbor_embedding.elastic.
        _sparse_preconditioner`."""
        shifted = 2.0 * self.degree + float(mu)

        def matvec(x):
            x = np.ravel(x)
            return shifted * x - 2.0 * (self.A @ x)

        diagonal = shifted - 2.0 * self.A.diagonal()  # L_ii = d_i - a_ii

        n = len(diagonal)
        return splinalg.LinearOperator((n, n), matvec=matvec, dtype=np.float64), diagonal

    def _cross_attraction(self, Y, grad):
        r""":math:`\rho \sum c_{ij} \log(1 + \lVert y_i - y_j\rVert^2)`, its gradient added
        to ``grad`` (sums in the pairs' order: the same bits on every run)."""
        i, j = self.cross
        D = Y[i] - Y[j]
        r2 = D[:, 0] * D[:, 0] + D[:, 1] * D[:, 1]
        force = (2.0 * self.rho / (1.0 + r2))[:, None] * D
        n = len(Y)
        for axis in (0, 1):
            grad[:, axis] += (np.bincount(i, force[:, axis], minlength=n)
                              - np.bincount(j, force[:, axis], minlength=n))
        return self.rho * float(np.sum(np.log1p(r2)))

    def _sorted_value_grad(self, Y):
        LY = self._laplacian(Y)
        s = self.starts
        # the tether, tether * sum_i ||y_i - mean of its class||^2, holds together the pieces
        # of a class whose neighbour graph is not connected
        off = np.zeros_like(Y)
        for a, b in zip(s[:-1], s[1:]):
            if b > a:
                off[a:b] = Y[a:b] - Y[a:b].mean(axis=0)
        F, G = self._field(Y)
        F_own, G_own = block_fields(Y, s, exact=self.exact)  # each class's own (0 if unlabelled)
        value = float(np.sum(Y * LY)) + self.tether * float(np.sum(off * off))
        grad = 2.0 * LY + 2.0 * self.tether * off
        if self.cross is not None:
            value += self._cross_attraction(Y, grad)
        if not self.partial:
            value += (0.5 * self.lam_diff * float(np.sum(F - F_own))
                      + 0.5 * self.lam_same * float(np.sum(F_own - 1.0)))
            grad += self.lam_diff * (G - G_own) + self.lam_same * G_own
            return value, grad
        lab = slice(int(s[0]), None)
        F_lab, G_lab = self._field(Y[lab])
        lam_u = self.lam_unlabelled
        extra, own = self.lam_diff - lam_u, self.lam_same - lam_u
        value += (0.5 * lam_u * float(np.sum(F - 1.0))
                  + 0.5 * extra * float(np.sum(F_lab - F_own[lab])))
        grad += lam_u * G
        grad[lab] += extra * (G_lab - G_own[lab])
        if own != 0.0:  # the labelled classes' own repulsion where it differs
            value += 0.5 * own * float(np.sum(F_own[lab] - 1.0))
            grad[lab] += own * G_own[lab]
        return value, grad
