r"""GraphEmbedding: any pair of graphs (intrinsic, penalty), linear or kernel."""

from __future__ import annotations

import numpy as np

from .._validation import check_option, optional_positive_rule
from ..blocks import graphs as _graphs
from .estimator import (
    _BaseGraphEmbedding,
)
from .routes import (
    ClassForms,
)

_LABEL_GRAPHS = {"within_class", "between_class", "supervised_knn", "inter_class_knn"}
_CLASS_GRAPHS = {"within_class", "between_class", "total"}


def class_graph_block(name, class_sizes):
    """(constant degree, C x C block) of a named class graph for class sizes ``J``."""
    J = np.asarray(class_sizes, dtype=np.float64)
    n, C = J.sum(), J.shape[0]
    if name == "within_class":
        return 1.0, np.diag(1.0 / J)
    if name == "total":
        return 1.0, np.full((C, C), 1.0 / n)
    return 0.0, np.full((C, C), 1.0 / n) - np.diag(1.0 / J)  # between_class
_GRAPH_NAMES = _LABEL_GRAPHS | {"total", "knn"}


class GraphEmbedding(_BaseGraphEmbedding):
    r"""Generic (kernel) graph embedding with any intrinsic and penalty graph.

    .. math::

        \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
        V^\top \big(X^\top Q X + \epsilon I\big) V = I ,

    where ``W`` is the intrinsic graph, ``Q`` the Laplacian of the penalty graph, the degree
    matrix of ``W`` (``penalty='degree'``, LPP's constraint) or the identity
    (``penalty='identity'``, i.e. ``V^T V = I``). With a ``kernel`` the problem is solved in the
    empirical kernel map of the centred kernel matrix (dual form
    :math:`(K L K + \epsilon K) a = \lambda (K Q K + \epsilon K) a`). The ridge on both sides
    makes :math:`\epsilon` penalise directions of small variance (see :mod:`graphdr.blocks.solvers`).

    Parameters
    ----------
    n_components : int or None, default=None
        Dimension of the embedding. None takes all directions the penalty matrix allows; a larger
        number raises a ``ValueError`` naming the maximum.
    intrinsic : str, callable, array or sparse matrix, default='knn'
        The graph whose joined samples are kept close. A name: ``'knn'``, ``'supervised_knn'``
        (neighbours of the same class), ``'inter_class_knn'`` (neighbours of other classes),
        ``'within_class'`` (LDA), ``'between_class'``, ``'total'``; a callable
        ``graph(X, y_encoded) -> W``; or a fixed ``n x n`` weight matrix (dense, sparse or
        :class:`graphdr.blocks.graphs.ClassGraph`) for the training samples.
    penalty : str, callable, array or sparse matrix, default='degree'
        The constraint graph, given like ``intrinsic``, or ``'degree'`` or ``'identity'``.
    kernel : None or {'rbf', 'linear', 'poly', 'sigmoid', 'precomputed', ...} or callable
        None for the linear method; otherwise the kernel of the kernel method.
    n_neighbors : int, default=5
        Neighbours of the kNN graphs.
    weights : {'heat', 'binary'}, default='heat'
        Edge weights of kNN graphs.
    sigma : float or None, default=None
        Heat-kernel width of kNN graphs (None: data-driven, see :func:`graphdr.blocks.graphs.knn_graph`).
    reg : float or None, default=None
        Ridge :math:`\epsilon` relative to the mean eigenvalue of the constraint matrix.
        None means 0 for the linear method and 1e-3 with a kernel.
    gamma, degree, coef0, kernel_params
        Kernel parameters (see :func:`graphdr.blocks.kernel_matrices.compute_kernel`).
    rank_tol : float or None, default=None
        Relative tolerance below which data variance and constraint eigenvalues count as zero.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Projection directions (linear method). ``transform(X) = (X - mean_) @ components_.T``.
    mean_ : ndarray of shape (n_features,)
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
        Dual coefficients (kernel method): ``transform(X) = K_c(X, X_fit_) @ dual_coef_``.
    X_fit_ : ndarray
        Training data kept for the kernel of new samples (kernel method).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding (kernel method).
    eigenvalues_ : ndarray of shape (n_components_,)
        Values of the ratio ``v^T A v / v^T B v`` of each component, increasing.
    n_components_ : int
    classes_ : ndarray
        Class labels seen in ``fit`` (when ``y`` was given).
    """

    def __init__(
        self,
        n_components=None,
        *,
        intrinsic="knn",
        penalty="degree",
        kernel=None,
        n_neighbors=5,
        weights="heat",
        sigma=None,
        reg=None,
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        rank_tol=None,
    ):
        self.n_components = n_components
        self.intrinsic = intrinsic
        self.penalty = penalty
        self.kernel = kernel
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.reg = reg
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank_tol = rank_tol

    #: checked in every fit, whether or not a kernel uses it
    _parameter_rules = {"gamma": optional_positive_rule()}

    def _uses_labels(self):
        return any(
            isinstance(g, str) and g in _LABEL_GRAPHS for g in (self.intrinsic, self.penalty)
        )

    def _has_class_forms(self, y):
        return (
            super()._has_class_forms(y)
            and isinstance(self.intrinsic, str) and self.intrinsic in _CLASS_GRAPHS
            and isinstance(self.penalty, str)
            and self.penalty in _CLASS_GRAPHS | {"degree", "identity"}
        )

    def _class_forms(self, class_sizes):
        A = class_graph_block(self.intrinsic, class_sizes)
        if self.penalty == "identity":
            B = "identity"
        elif self.penalty == "degree":
            B = (A[0], np.zeros_like(A[1]))
        else:
            B = class_graph_block(self.penalty, class_sizes)
        return ClassForms(A, B)

    def _check_params(self):
        for name, spec in (("intrinsic", self.intrinsic), ("penalty", self.penalty)):
            allowed = _GRAPH_NAMES | ({"degree", "identity"} if name == "penalty" else set())
            if isinstance(spec, str):
                check_option(spec, name, allowed)

    def _graph(self, spec, X_graph, y_enc, metric, name):
        n = X_graph.shape[0]
        if callable(spec):
            return _graphs.as_graph(spec(X_graph, y_enc), n, name)
        if not isinstance(spec, str):
            return _graphs.as_graph(spec, n, name)
        if spec in _LABEL_GRAPHS and y_enc is None:
            raise ValueError(f"{name}={spec!r} needs class labels: pass y to fit.")
        knn = dict(weights=self.weights, sigma=self.sigma, metric=metric)
        if spec == "within_class":
            return _graphs.within_class_graph(y_enc)
        if spec == "between_class":
            return _graphs.between_class_graph(y_enc)
        if spec == "total":
            return _graphs.total_graph(np.zeros(n, dtype=np.intp) if y_enc is None else y_enc)
        if spec == "knn":
            return _graphs.knn_graph(X_graph, self.n_neighbors, **knn)
        restrict = "same" if spec == "supervised_knn" else "different"
        return _graphs.knn_graph(X_graph, self.n_neighbors, y=y_enc, restrict=restrict, **knn)

    def _build_graphs(self, X_graph, y_enc, metric):
        intrinsic = self._graph(self.intrinsic, X_graph, y_enc, metric, "intrinsic")
        if isinstance(self.penalty, str) and self.penalty in ("degree", "identity"):
            return intrinsic, self.penalty
        return intrinsic, self._graph(self.penalty, X_graph, y_enc, metric, "penalty")
