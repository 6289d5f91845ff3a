r"""Local Fisher discriminant analysis (LFDA) and its semi-supervised form (SELF).

LFDA (Sugiyama, JMLR 8, 2007) weights the pairs of Fisher's scatters by a local affinity, so
that a class made of several clusters is not pulled into one:

.. math::

    S^{(lw)} = \tfrac12 \sum_{i,j} W^{(lw)}_{ij} (x_i - x_j)(x_i - x_j)^\top, \qquad
    S^{(lb)} = \tfrac12 \sum_{i,j} W^{(lb)}_{ij} (x_i - x_j)(x_i - x_j)^\top,

    W^{(lw)}_{ij} = \begin{cases} A_{ij} / n_c & y_i = y_j = c \\ 0 & y_i \ne y_j \end{cases},
    \qquad
    W^{(lb)}_{ij} = \begin{cases} A_{ij} (1/n - 1/n_c) & y_i = y_j = c \\ 1/n & y_i \ne y_j
    \end{cases},

with the local-scaling affinity :math:`A_{ij} = \exp(-\lVert x_i - x_j\rVert^2 /
(\sigma_i \sigma_j))`, :math:`\sigma_i` the distance from :math:`x_i` to its
``n_neighbors``-th nearest neighbour (Zelnik-Manor & Perona, 2005). LFDA maximises
:math:`\operatorname{tr}((V^\top S^{(lw)} V)^{-1} V^\top S^{(lb)} V)`. In graph-embedding form
(paper 000's framework) both are Laplacian forms :math:`X^\top L(W) X`, and the fit solves
:math:`\min v^\top S^{(lw)} v / v^\top S^{(lm)} v` with the local mixture
:math:`S^{(lm)} = S^{(lb)} + S^{(lw)}`, whose graph is :math:`1/n` between classes and
:math:`A_{ij}/n` within one (:class:`graphdr.blocks.graphs.GraphSum` of a total graph, a class graph
and the sparse same-class affinities: no ``n x n`` array). Its eigenvalues are
:math:`\mu = 1 / (1 + \lambda)` of LFDA's :math:`\lambda`; the directions are the same.

SELF (Sugiyama, Idé, Nakajima & Sese, Machine Learning 78, 2010) mixes LFDA on the labelled
samples with PCA on all samples:

.. math::

    \max_V \operatorname{tr}\big((V^\top S^{(rlw)} V)^{-1} V^\top S^{(rlb)} V\big), \qquad
    S^{(rlb)} = (1 - \beta) \frac{S^{(lb)}}{m} + \beta\, C_t, \qquad
    S^{(rlw)} = (1 - \beta) \frac{S^{(lw)}}{m} + \beta\, \bar c\, I,

with the ``m`` labelled samples' LFDA scatters, the covariance :math:`C_t` of all ``n``
samples and :math:`\bar c = \operatorname{tr}(C_t) / r` its mean non-zero eigenvalue (``r`` the
rank of the data). :math:`\beta = 0` is LFDA of the labelled samples, :math:`\beta = 1` is
PCA. The published form mixes the raw scatters with :math:`\beta I`; here each term is at the
covariance scale (divided by ``m``) and the identity at the data's mean variance, so that
:math:`\beta` means the same for any units and any number of samples.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NearestNeighbors

from .._validation import check_int, check_positive
from ..blocks import graphs as _graphs
from ..blocks.kernel_matrices import euclidean_distances
from ..training.supports import Supports
from .estimator import _BaseGraphEmbedding
from .fitting import Solution
from .routes import SCALING_DOC, SMOOTHING_DOC, GraphProblem, solve_graph_problem

__all__ = ["LFDA", "SemiLFDA", "SELF", "local_scaling_affinity", "local_fisher_graphs"]


def local_scaling_affinity(X, y_encoded, n_neighbors=7, metric="euclidean"):
    r"""Same-class local-scaling affinities, sparse ``n x n``.

    :math:`A_{ij} = \exp(-d_{ij}^2 / (\sigma_i\sigma_j))` for two labelled samples of one
    class (``i != j``), 0 otherwise; :math:`\sigma_i` is the distance from sample ``i`` to its
    ``n_neighbors``-th nearest other sample among *all* samples (unlabelled ones, -1,
    included), floored at ``1e-12`` times the largest so that duplicates keep a finite
    weight. ``O(sum_c n_c^2)`` time and memory (each class's block is dense).
    """
    n = X.shape[0]
    k = min(int(n_neighbors), n - 1)
    dist = NearestNeighbors(n_neighbors=k + 1, metric=metric).fit(X).kneighbors(X)[0]
    sigma = dist[:, k]
    sigma = np.maximum(sigma, 1e-12 * max(float(sigma.max()), np.finfo(float).tiny))
    y = np.asarray(y_encoded)
    rows, cols, vals = [], [], []
    for c in np.unique(y[y >= 0]):
        idx = np.flatnonzero(y == c)
        if len(idx) < 2:
            continue
        Xc = X[idx]
        if metric == "euclidean" and isinstance(Xc, np.ndarray) and Xc.dtype == np.float64:
            d2 = euclidean_distances(Xc) ** 2  # (scikit-learn's, without its checks again)
        else:
            d2 = pairwise_distances(Xc, metric=metric) ** 2
        block = np.exp(-d2 / np.outer(sigma[idx], sigma[idx]))
        np.fill_diagonal(block, 0.0)
        r, q = np.nonzero(block)
        rows.append(idx[r])
        cols.append(idx[q])
        vals.append(block[r, q])
    if not rows:
        return sp.csr_matrix((n, n))
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n, n))
    return (A + A.T) / 2.0  # exactly symmetric


def local_fisher_graphs(A, y_encoded):
    r"""LFDA's graphs ``(W_lw, W_lm)`` from the same-class affinities ``A`` (module docstring):
    :math:`W^{(lw)}_{ij} = A_{ij}/n_c` and the local mixture :math:`W^{(lm)} = W^{(lb)} +
    W^{(lw)}` (:math:`1/m` between classes, :math:`A_{ij}/m` within one, ``m`` the labelled
    samples; unlabelled samples have no edge)."""
    y = np.asarray(y_encoded)
    sizes = np.bincount(y[y >= 0])
    m = float(sizes.sum())
    A = sp.csr_matrix(A)
    coo = A.tocoo()
    within = sp.csr_matrix((coo.data / sizes[y[coo.row]], (coo.row, coo.col)), shape=A.shape)
    mixture = _graphs.GraphSum([
        (1.0, _graphs.total_graph(y, len(sizes))),  # 1/m between every two labelled samples
        (-1.0 / m, _graphs.ClassGraph(y, np.eye(len(sizes)))),  # less 1/m within a class
        (1.0 / m, A),  # plus A/m within a class
    ])
    return within, mixture


class _LocalFisher(_BaseGraphEmbedding):
    """Shared pieces of LFDA and SELF. Not public."""

    def _check_params(self):
        check_int(self.n_neighbors, "n_neighbors")

    def _local_graphs(self, X_graph, y_enc, metric):
        return local_fisher_graphs(
            local_scaling_affinity(X_graph, y_enc, self.n_neighbors, metric), y_enc)


class LFDA(_LocalFisher):
    r"""Local Fisher discriminant analysis (Sugiyama, JMLR 2007).

    .. math::

        \min_V \operatorname{tr}(V^\top (S^{(lw)} + \epsilon I) V) \quad\text{s.t.}\quad
        V^\top (S^{(lm)} + \epsilon I) V = I ,

    the local within-class scatter over the local mixture scatter
    :math:`S^{(lm)} = S^{(lb)} + S^{(lw)}` (definitions: :mod:`graphdr.graph_embedding.local_fisher`), which
    has the directions of LFDA's :math:`\max \operatorname{tr}((V^\top S^{(lw)} V)^{-1}
    V^\top S^{(lb)} V)` and stays well posed where :math:`S^{(lw)}` is singular. Pairs of one
    class are weighted by their local-scaling affinity, so a class made of several clusters
    keeps them apart instead of being drawn to one mean (Fisher's LDA), and the embedding may
    have more than ``n_classes - 1`` useful dimensions.

    When to use it: classes that are multimodal (several clusters per class) or labels that
    group unlike samples; for Gaussian-like classes :class:`LDA` is the same at a fraction of
    the cost (LFDA forms each class's ``n_c x n_c`` affinities). With samples labelled -1 the
    smoothness term of :mod:`graphdr.semi.choice` adds them (``smoothing``); :class:`SemiLFDA`
    (SELF) is the published semi-supervised form.

    Parameters
    ----------
    n_components : int or None, default=None
        At most the rank of the data; None keeps every direction (LFDA's eigenvalues do not
        say where the class information ends: choose ``n_components`` for a small embedding).
    n_neighbors : int, default=7
        The neighbour whose distance is a sample's local scale :math:`\sigma_i` (Sugiyama's
        choice, 7).
    reg : 'auto' or float, default='auto'
        Ridge :math:`\epsilon` relative to the mean eigenvalue of :math:`S^{(lm)}`. 'auto':
        :class:`LDA`'s leave-one-out choice (:func:`graphdr.tuning.press_ridge`: ridge
        regression of the class indicators), the regularisation the data's conditioning asks
        for. Few labelled samples need it: on 63 labelled digits (5 % of a 70 % split,
        ``benchmarks/semi.py``) LFDA's 1-NN error is 78 % with ``reg=0`` and 17 % with
        ``reg=1``; with every label, 2.2 % and 1.1 %.
%(scaling)s
%(smoothing)s
    rank_tol : float or None, default=None

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (n_components_,)
        :math:`v^\top S^{(lw)} v / v^\top S^{(lm)} v = 1 / (1 + \lambda)`, increasing
        (:math:`\lambda` LFDA's ratio, decreasing).
    n_components_ : int
    reg_ : float
        The ridge used (chosen, or ``reg``).
    smoothing_ : float
        The weight of the smoothness term used (0 when every sample is labelled).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr import LFDA
    >>> X, y = load_iris(return_X_y=True)
    >>> LFDA(n_components=2).fit_transform(X, y).shape
    (150, 2)
    """

    _supports = Supports(
        unlabelled_rows=True, unlabelled_choice=True, smoothing=True, scaling=True, ridge=True,
        prepared=True, label_audit=True)

    _smoothing_in_constraint = True  # min (S_lw + aJ) / (S_lm + aJ) = max S_lb / (S_lw + aJ)
    _auto_linear_reg = True

    def __init__(self, n_components=None, *, n_neighbors=7, reg="auto", scaling="within",
                 smoothing="auto", smoothing_neighbors=10, unlabelled="auto", labels="given",
                 rank_tol=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.scaling = scaling
        self.smoothing = smoothing
        self.smoothing_neighbors = smoothing_neighbors
        self.unlabelled = unlabelled
        self.labels = labels
        self.rank_tol = rank_tol

    def _build_graphs(self, X_graph, y_enc, metric):
        return self._local_graphs(X_graph, y_enc, metric)


class SemiLFDA(_LocalFisher):
    r"""Semi-supervised local Fisher discriminant analysis, SELF (Sugiyama et al., 2010).

    .. math::

        \min_V \operatorname{tr}(V^\top S^{(rlw)} V) \quad\text{s.t.}\quad
        V^\top (S^{(rlb)} + S^{(rlw)}) V = I , \qquad
        S^{(rlb)} = (1 - \beta) \tfrac{S^{(lb)}}{m} + \beta C_t , \quad
        S^{(rlw)} = (1 - \beta) \tfrac{S^{(lw)}}{m} + \beta \bar c I ,

    LFDA's local scatters of the ``m`` labelled samples mixed with the covariance :math:`C_t`
    of every sample, labelled or not (``y = -1``), and :math:`\bar c` its mean eigenvalue
    (:mod:`graphdr.graph_embedding.local_fisher`): the directions of SELF's :math:`\max
    \operatorname{tr}((V^\top S^{(rlw)} V)^{-1} V^\top S^{(rlb)} V)`. ``beta = 0`` is
    :class:`LFDA` of the labelled samples, ``beta = 1`` is PCA of all samples; between, the
    unlabelled samples keep the directions of large variance when labels are few.

    Also importable as ``graphdr.SELF``, the paper's name. The class is not called ``SELF``:
    scikit-learn's ``make_pipeline`` names a step after its class in lower case, and a step
    named ``'self'`` breaks ``Pipeline.fit`` (its metadata routing passes the step names as
    keyword arguments).

    Parameters
    ----------
    n_components : int or None, default=None
        At most the rank of the data; None keeps every direction.
    beta : float, default=0.5
        The mixture: 0 supervised (LFDA), 1 unsupervised (PCA). 0.5 is the published default.
    n_neighbors : int, default=7
        The neighbour whose distance is a sample's local scale.
    scaling : {'within', 'total', 'none'}, default='none'
        Metric inside the learned subspace, as in :class:`LDA`; the default, unit-norm
        directions, is Sugiyama's 'plain' metric. The within-class scatter of a few labelled
        samples is singular in most directions, and whitening it (``'within'``) then blows
        those directions up: on 63 labelled digits the 1-NN error is 76 % with ``'within'``,
        21 % with ``'total'`` and 15 % with ``'none'`` (``benchmarks/semi.py``, seed 0).
    unlabelled : {'auto', 'ignore', 'smooth', 'propagate'}, default='auto'
        As in :class:`LFDA`: 'smooth' is SELF's mixture with the covariance of all samples;
        'propagate' fits the classes propagated to the unlabelled samples; 'ignore' fits the
        labelled samples alone; 'auto' chooses.
    labels : {'given', 'flag', 'audit'}, default='given'
        As in :class:`LFDA`: the labels audited first (:class:`graphdr.LabelIssues`).
    rank_tol : float or None, default=None

    Attributes
    ----------
    components_, mean_, n_components_, classes_, n_features_in_
        As in :class:`LFDA`.
    eigenvalues_ : ndarray of shape (n_components_,)
        :math:`v^\top S^{(rlw)} v / v^\top (S^{(rlb)} + S^{(rlw)}) v`, increasing.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from graphdr import SemiLFDA
    >>> X, y = load_iris(return_X_y=True)
    >>> y_partial = np.where(np.arange(150) % 5 == 0, y, -1)  # 30 labels, 120 unlabelled
    >>> SemiLFDA(n_components=2).fit_transform(X, y_partial).shape
    (150, 2)
    """

    _supports = Supports(unlabelled_rows=True, unlabelled_choice=True, scaling=True, prepared=True,
                         label_audit=True)

    _parameter_rules = {"beta": lambda value, name: _unit_interval(value, name)}

    def __init__(self, n_components=None, *, beta=0.5, n_neighbors=7, scaling="none",
                 unlabelled="auto", labels="given", rank_tol=None):
        self.n_components = n_components
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.scaling = scaling
        self.unlabelled = unlabelled
        self.labels = labels
        self.rank_tol = rank_tol

    def _build_graphs(self, X_graph, y_enc, metric):
        beta = float(self.beta)
        within, mixture = self._local_graphs(X_graph, y_enc, metric)
        m = float(np.count_nonzero(y_enc >= 0))
        n = len(y_enc)
        everyone = _graphs.total_graph(np.zeros(n, dtype=np.intp))  # its form: n C_t
        objective = _graphs.GraphSum([((1.0 - beta) / m, within)])
        constraint = _graphs.GraphSum([((1.0 - beta) / m, mixture), (beta / n, everyone)])
        return objective, constraint

    def _solve(self, space, data, problem=None):
        if problem is None:
            problem = self._graph_problem(space, data)
        n = data.n_samples
        covariance = space.quadratic_form(_graphs.total_graph(np.zeros(n, dtype=np.intp))) / n
        ridge = float(self.beta) * max(float(np.trace(covariance)), 0.0) / max(space.rank, 1)
        return Solution(*solve_graph_problem(space, GraphProblem(problem.objective,
                                                                 problem.constraint),
                                             ridge=ridge, rank_tol=self.rank_tol))


def _unit_interval(value, name):
    check_positive(value, name, allow_zero=True)
    if value > 1:
        raise ValueError(f"{name} must be in [0, 1]; got {value!r}.")


#: the paper's name (:class:`SemiLFDA`)
SELF = SemiLFDA

for _cls in (LFDA, SemiLFDA):
    _cls.__doc__ = _cls.__doc__.replace("%(scaling)s", SCALING_DOC).replace(
        "%(smoothing)s", SMOOTHING_DOC)
del _cls
