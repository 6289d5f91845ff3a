r"""Linear graph-embedding methods: LDA, LPP (unsupervised and supervised), MFA and LDE.

Each is :class:`graphdr.graph_embedding.generic.GraphEmbedding` with a fixed pair of graphs; the graph choice
lives in a small mixin that the kernel versions in :mod:`graphdr.graph_embedding.kernel_methods` reuse.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_option, check_positive
from ..blocks import graphs as _graphs
from ..training.supports import Supports
from .class_discriminants import _LinearDiscriminant
from .estimator import _BaseGraphEmbedding
from .routes import SCALING_DOC, SMOOTHING_DOC, ClassForms, discriminative_count

__all__ = ["LDA", "LPP", "MFA", "LDE"]


# ----- graph choices shared by the linear and kernel versions ---------------------------
class _LDAGraphs:
    _ridge_on_total_scatter = True  # min S_w subject to the regularised total scatter
    _smoothing_in_constraint = True  # min (S_w + aJ) / (S_t + aJ) = max S_b / (S_t + aJ)

    def _build_graphs(self, X_graph, y_enc, metric):
        return _graphs.within_class_graph(y_enc), _graphs.total_graph(y_enc)

    def _max_components(self, n_available, n_classes):
        return min(n_classes - 1, n_available), (
            f"n_classes - 1 = {n_classes - 1} for {n_classes} classes"
            + (f", and the data have rank {n_available}" if n_available < n_classes - 1 else "")
        )

    def _default_n_components(self, eigenvalues, k):
        # between-class share of each direction: 1 - v^T S_w v / v^T S_t v
        return discriminative_count(1.0 - np.asarray(eigenvalues[:k], dtype=np.float64))

    def _class_forms(self, class_sizes):
        # S_w = G_c - U^T diag(1/J) U (within-class graph), S_t = G_c - U^T (1/n) U (= G_c)
        J = np.asarray(class_sizes, dtype=np.float64)
        return ClassForms((1.0, np.diag(1.0 / J)), (1.0, np.full((J.shape[0], J.shape[0]), 1.0 / J.sum())))


class _LPPGraphs:
    @property
    def _min_per_class(self):
        return 2 if self.supervised else 1

    def _uses_labels(self):
        return bool(self.supervised)

    def _check_params(self):
        check_int(self.n_neighbors, "n_neighbors")
        check_option(self.weights, "weights", {"heat", "binary"})
        check_positive(self.sigma, "sigma", allow_none=True)

    def _build_graphs(self, X_graph, y_enc, metric):
        W = _graphs.knn_graph(
            X_graph, self.n_neighbors, y=y_enc, restrict="same" if self.supervised else None,
            weights=self.weights, sigma=self.sigma, metric=metric,
        )
        return W, "degree"

    def _max_components(self, n_available, n_classes):
        return n_available, "the rank of the data"


# ----- estimators ---------------------------------------------------------------------
class LDA(_LDAGraphs, _LinearDiscriminant):
    r"""Linear discriminant analysis as graph embedding.

    .. math::

        \min_V \operatorname{tr}(V^\top (S_w + \epsilon I) V) \quad\text{s.t.}\quad
        V^\top (S_t + \epsilon I) V = I ,

    with the within-class scatter :math:`S_w = X^\top L(W) X`, :math:`W_{ij} = 1/J_c` for two
    samples of class ``c``, and the total scatter :math:`S_t`. Both come from the class counts,
    class sums and centred Gram matrix collected in one pass over ``X`` in row blocks
    (:func:`graphdr.blocks.stats.class_statistics`: :math:`S_t = G_c`,
    :math:`S_w = G_c - \tilde U^\top \operatorname{diag}(1/J)\, \tilde U`; memory
    ``O(D^2 + C D)`` besides ``X``, no ``n x n`` array). ``X`` (and ``y``) may be a
    ``dask.array``: the statistics are then computed chunk by chunk on the active Dask scheduler
    or cluster without materialising ``X``, and ``transform`` of a Dask array returns a lazy
    Dask array (``map_blocks``). The components maximise the
    Fisher ratio :math:`v^\top S_b v / v^\top S_w v` and span the same subspace as
    scikit-learn's ``LinearDiscriminantAnalysis(solver='eigen')``.

    The problem is solved in the span of the centred data, so constant features, duplicated
    rows and ``n < D`` need no special care; where :math:`S_w` is singular inside that span the
    directions of its null space (perfect separation on the training set) come first.

    The ridge is chosen from the data by default (``reg='auto'``): the value whose ridge
    regression of the class indicators on ``X`` has the smallest leave-one-out squared error
    (closed form, :func:`graphdr.tuning.press_ridge`). Ridge regression of the indicators
    spans the regularised discriminant subspace (optimal scoring), and its leave-one-out error
    is a smooth, low-variance criterion: across the 10 training folds of a set of
    ``benchmarks/results/defaults.md`` the choice stays within one step of its grid (a
    factor 1.8) on 10 of the 12 sets (wdbc and breast_cancer: ``3e-4`` to ``6e-3``). ``reg=0`` is
    classical LDA, scikit-learn's ``LinearDiscriminantAnalysis()`` subspace.

    When to use it. The default ``d = C - 1`` is one dimension for two classes. Mean error over
    the 36 (set, classifier) cells of ``benchmarks/results/defaults.md`` (paper 000's protocol,
    10-fold CV, [-1, 1] scaling; 1-NN, 3-NN, nearest centroid): 14.9 %, against 16.4 % for
    scikit-learn's LDA and 15.4 % for its Ledoit-Wolf shrinkage LDA; the chosen ridge helps
    most where features are many for the samples (mnist2k 1-NN 11.6 % against 21.6 % with
    ``reg=0``, breast_cancer 4.4 % against 6.3 %) and costs up to 0.7 points in single cells
    where classical LDA is best (vehicle 1-NN 25.2 % against 24.5 %). Over five shuffles of
    the folds (``docs/history.rst``, "The defaults over five shuffles of the folds") no
    cell is significantly worse than
    scikit-learn's LDA or its shrinkage LDA; the largest gap is heart with 1-NN (23.5 %
    against 20.4 %, p = 0.37), where ``reg=0`` is the better choice. scikit-learn's shrinkage
    LDA (which shrinks the within-class covariance of standardised features, i.e. towards the
    per-feature variances, not towards a multiple of the identity) is ahead on the two
    breast-cancer sets with 3-NN and nearest centroid (wdbc nearest centroid 2.9 % against
    3.6 %, p = 0.12; breast_cancer 2.9 % against 3.7 %, p = 0.09) and behind on vehicle
    (30.4 % against 25.3 % with 1-NN, p = 0.03). 1-NN in it loses to 1-NN
    on the raw features where the classes are far from Gaussian with a shared covariance:
    sonar 28.4 % against 15.4 % (one dimension). It wins where that model holds: heart 19.3 %
    against 24.4 %, vehicle 25.2 % against 30.3 %, wine 1.1 % against 5.1 %. A
    nearest-centroid classifier is its natural partner (led7digit 25.8 %, 1-NN 37.6 %). For
    1-NN on curved classes use :class:`KernelLDA` or :class:`KQMI` (sonar 11.5 %, mnist2k
    4.5 %).

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_classes - 1``. None takes that many, less the directions without
        between-class variance (between-class share of variance below ``1e-6`` times the
        largest: a rank-deficient between-class scatter, as scikit-learn's LDA drops them);
        ``n_components_`` records the number kept.
    reg : 'auto' or float, default='auto'
        Ridge :math:`\epsilon` relative to the mean eigenvalue of :math:`S_t`; the problem is then
        :math:`\max v^\top S_b v / v^\top (S_t + \epsilon I) v` (shrinkage towards
        large-variance directions). 0 reproduces classical LDA. 'auto': the leave-one-out
        choice above, over ``10**(-6, -5.75, ..., 2)`` on a stratified subsample of at most
        2000 rows (the value found on ``m`` of ``n`` rows is multiplied by ``m / n``: a ridge
        penalty is a prior precision, while :math:`S_t` grows with ``n``); ``O(m r C)`` per
        value after one SVD. The subsample is chosen by the rows' content (:mod:`graphdr.blocks.sampling`),
        so the fit is deterministic and does not depend on the row order.
        On mnist5k (4500 training rows; a study at commit ebf3303, :doc:`/history`) the
        transferred choice is within one grid step of the choice on all rows (geometric mean
        ratio 0.99; 2.2 without the factor); a subsample with fewer rows than the data's rank
        (250 of them on mnist5k) transfers less well (ratio 0.31).
%(scaling)s
%(smoothing)s
    rank_tol : float or None, default=None
        Relative variance below which a direction of the data counts as absent.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Discriminant directions in the metric of ``scaling`` (with ``'total'``,
        :math:`V^\top S_t V = I`), with deterministic signs.
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (n_components_,)
        :math:`v^\top S_w v / v^\top S_t v` per component, increasing (0 = perfect separation).
    n_components_ : int
    reg_ : float
        The ridge used (chosen, or ``reg``).
    cv_results_ : dict of ndarray
        Only with ``reg='auto'``: ``param_reg``, ``mean_test_error`` (leave-one-out squared
        error per sample of the subsample) and ``rank_test_error``, one entry per value
        (``pandas.DataFrame(lda.cv_results_)``).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr import LDA
    >>> X, y = load_iris(return_X_y=True)
    >>> LDA(n_components=2).fit_transform(X, y).shape
    (150, 2)
    """


class LPP(_LPPGraphs, _BaseGraphEmbedding):
    r"""Locality preserving projections, unsupervised or supervised.

    .. math::

        \min_V \operatorname{tr}(V^\top (X^\top L(W) X + \epsilon I) V) \quad\text{s.t.}\quad
        V^\top (X^\top D X + \epsilon I) V = I ,

    with ``W`` the symmetrised k-nearest-neighbour graph (sparse) and ``D = diag(W 1)``.
    ``supervised=True`` keeps only neighbours of the same class (paper 000's supervised LPP).
    ``X`` is centred first.

    When to use it. LPP preserves neighbourhoods; it does not separate classes. With the
    default (every direction of the data, ``d = D``) it only changes the metric, and 1-NN in
    it loses to 1-NN on the raw features on 8 of 12 sets (``benchmarks/results/defaults.md``:
    paper 000's protocol, 10-fold CV, [-1, 1] scaling): wdbc 16.7 % against 4.7 %,
    breast_cancer 16.2 % against 4.6 %, mnist2k 66.5 % against 8.8 % (supervised: 16.9 %,
    16.2 %, 66.3 %). Fewer directions help (``n_components = C - 1``: wdbc 9.1 %, mnist2k
    22.6 %) but still lose. Use it for unsupervised structure and pictures; for class
    separation use :class:`LDA`, :class:`MFA` or the kernel discriminants.

    Parameters
    ----------
    n_components : int or None, default=None
        At most the rank of the centred data.
    supervised : bool, default=False
        Restrict neighbours to the same class (then ``y`` is required and every class needs two
        samples).
    n_neighbors : int, default=5
    weights : {'heat', 'binary'}, default='heat'
    sigma : float or None, default=None
        Heat-kernel width; None: :math:`2\sigma^2` = mean squared edge length.
    reg : float, default=0.0
        Ridge relative to the mean eigenvalue of :math:`X^\top D X`.
    rank_tol : float or None, default=None

    Attributes
    ----------
    components_, mean_, eigenvalues_, n_components_, n_features_in_
        As in :class:`LDA`; :math:`V^\top X^\top D X V = I`.
    classes_ : ndarray
        Only when ``y`` was given.
    """

    def __init__(
        self, n_components=None, *, supervised=False, n_neighbors=5, weights="heat", sigma=None,
        reg=0.0, rank_tol=None,
    ):
        self.n_components = n_components
        self.supervised = supervised
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.reg = reg
        self.rank_tol = rank_tol


class MFA(_BaseGraphEmbedding):
    r"""Marginal Fisher analysis.

    .. math::

        \min_V \operatorname{tr}(V^\top (X^\top L(W) X + \epsilon I) V) \quad\text{s.t.}\quad
        V^\top (X^\top L(W^p) X + \epsilon I) V = I ,

    where the intrinsic graph ``W`` joins each sample to its ``n_neighbors`` nearest neighbours
    of the same class and the penalty graph ``W^p`` joins it to its ``n_neighbors_penalty``
    nearest neighbours of other classes (the marginal pairs). Both graphs are sparse.

    When to use it. With the default ``d = D`` MFA reweights every direction and 1-NN in it
    loses to 1-NN on the raw features on 5 of 12 sets (``benchmarks/results/defaults.md``: paper
    000's protocol, 10-fold CV, [-1, 1] scaling): wdbc 15.3 % against 4.7 %,
    breast_cancer 16.3 % against 4.6 %, wine 10.1 % against 5.1 %, mnist2k 53.5 % against
    8.8 %. At ``n_components = C - 1`` it beats the raw features on those three small sets
    (4.0 %, 4.0 %, 1.7 %) but not on sonar (37.5 % in one dimension) or mnist2k (20.9 %):
    choose a small ``n_components``, and prefer the kernel discriminants for images.

    Parameters
    ----------
    n_components : int or None, default=None
        At most the rank of the penalty scatter.
    n_neighbors : int, default=5
    n_neighbors_penalty : int, default=20
    weights : {'binary', 'heat'}, default='binary'
    sigma : float or None, default=None
    reg : float, default=0.0
%(smoothing)s
    rank_tol : float or None, default=None

    Attributes
    ----------
    components_, mean_, eigenvalues_, n_components_, classes_, n_features_in_
        As in :class:`LDA`; :math:`V^\top X^\top L(W^p) X V = I`.
    """

    _supports = Supports(
        unlabelled_rows=True, unlabelled_choice=True, smoothing=True, ridge=True, prepared=True,
        label_audit=True)

    _min_per_class = 2

    def __init__(
        self, n_components=None, *, n_neighbors=5, n_neighbors_penalty=20, weights="binary",
        sigma=None, reg=0.0, smoothing="auto", smoothing_neighbors=10, unlabelled="auto",
        labels="given", rank_tol=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.n_neighbors_penalty = n_neighbors_penalty
        self.weights = weights
        self.sigma = sigma
        self.reg = reg
        self.smoothing = smoothing
        self.smoothing_neighbors = smoothing_neighbors
        self.unlabelled = unlabelled
        self.labels = labels
        self.rank_tol = rank_tol

    def _check_params(self):
        check_int(self.n_neighbors, "n_neighbors")
        check_int(self.n_neighbors_penalty, "n_neighbors_penalty")
        check_option(self.weights, "weights", {"heat", "binary"})
        check_positive(self.sigma, "sigma", allow_none=True)

    def _build_graphs(self, X_graph, y_enc, metric):
        return class_neighbour_graphs(
            X_graph, y_enc, self.n_neighbors, self.n_neighbors_penalty,
            weights=self.weights, sigma=self.sigma, metric=metric,
        )


class LDE(_BaseGraphEmbedding):
    r"""Local discriminant embedding (Chen, Chang and Liu, 2005; paper 001, eqs. 31-32).

    .. math::

        \min_V \operatorname{tr}(V^\top (X^\top L(W) X + \epsilon I) V) \quad\text{s.t.}\quad
        V^\top (X^\top L(W') X + \epsilon I) V = I ,

    with :math:`W_{ij} > 0` when ``i`` and ``j`` share a class and one is among the
    ``n_neighbors`` nearest samples *of its class* to the other, and :math:`W'_{ij} > 0` when
    their classes differ and one is among the ``n_neighbors_between`` nearest samples *of the
    other classes* to the other (paper 001, eqs. 31-32, reading "each pair of points from the
    same / from different classes" as the candidate set, so ``W'`` is never empty). This is
    LDE's ``max tr(V^T X^T L(W') X V)`` s.t. ``V^T X^T L(W) X V = I`` with the roles of
    objective and constraint swapped, which has the same eigenvectors and stays well-posed when
    the within-class scatter is singular.

    When to use it. With the default ``d = D``, 1-NN in LDE's embedding loses to 1-NN on the
    raw features on 6 of 12 sets (``benchmarks/results/defaults.md``: paper 000's protocol,
    10-fold CV, [-1, 1] scaling): wdbc 10.7 % against 4.7 %, breast_cancer 10.2 %
    against 4.6 %, wine 10.1 % against 5.1 %, mnist2k 51.5 % against 8.8 %. At
    ``n_components = C - 1`` it wins on those small sets (4.4 %, 4.0 %, 0.6 %) but not on
    sonar (26.9 %) or mnist2k (23.7 %): choose a small ``n_components``.

    Parameters
    ----------
    n_components : int or None, default=None
    n_neighbors : int, default=5
    n_neighbors_between : int, default=10
    weights : {'heat', 'binary'}, default='heat'
        The original LDE uses heat weights; paper 001 uses binary ones.
    sigma : float or None, default=None
    reg : float, default=0.0
%(smoothing)s
    rank_tol : float or None, default=None

    Attributes
    ----------
    components_, mean_, eigenvalues_, n_components_, classes_, n_features_in_
        As in :class:`LDA`; :math:`V^\top X^\top L(W') X V = I`.
    """

    _supports = Supports(
        unlabelled_rows=True, unlabelled_choice=True, smoothing=True, ridge=True, prepared=True,
        label_audit=True)

    _min_per_class = 2

    def __init__(
        self, n_components=None, *, n_neighbors=5, n_neighbors_between=10, weights="heat",
        sigma=None, reg=0.0, smoothing="auto", smoothing_neighbors=10, unlabelled="auto",
        labels="given", rank_tol=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.n_neighbors_between = n_neighbors_between
        self.weights = weights
        self.sigma = sigma
        self.reg = reg
        self.smoothing = smoothing
        self.smoothing_neighbors = smoothing_neighbors
        self.unlabelled = unlabelled
        self.labels = labels
        self.rank_tol = rank_tol

    def _check_params(self):
        check_int(self.n_neighbors, "n_neighbors")
        check_int(self.n_neighbors_between, "n_neighbors_between")
        check_option(self.weights, "weights", {"heat", "binary"})
        check_positive(self.sigma, "sigma", allow_none=True)

    def _build_graphs(self, X_graph, y_enc, metric):
        return class_neighbour_graphs(
            X_graph, y_enc, self.n_neighbors, self.n_neighbors_between,
            weights=self.weights, sigma=self.sigma, metric=metric,
        )

def class_neighbour_graphs(X, y_enc, n_neighbors, n_neighbors_between, *, weights="heat",
                           sigma=None, metric="euclidean"):
    """Same-class and other-class k-nearest-neighbour graphs (sparse).

    MFA's intrinsic and penalty graphs, and LDE's within-class and between-class graphs (paper
    001, eqs. 31-32): each sample is joined to its ``n_neighbors`` nearest samples of its class
    and to its ``n_neighbors_between`` nearest samples of other classes.
    """
    kw = dict(y=y_enc, weights=weights, sigma=sigma, metric=metric)
    within = _graphs.knn_graph(X, n_neighbors, restrict="same", **kw)
    between = _graphs.knn_graph(X, n_neighbors_between, restrict="different", **kw)
    return within, between


LDA.__doc__ = LDA.__doc__.replace("%(scaling)s", SCALING_DOC)
for _cls in (LDA, MFA, LDE):
    _cls.__doc__ = _cls.__doc__.replace("%(smoothing)s", SMOOTHING_DOC)
del _cls
