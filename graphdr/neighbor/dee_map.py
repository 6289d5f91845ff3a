r"""Discriminative elastic embedding as a nonparametric 2-D map, with an out-of-sample transform.

The objective of paper 003 (attract neighbours of the same class, repel samples of different
classes) over free coordinates ``Y`` instead of a linear map, so that classes that no linear map
separates get their own regions of the plane:

.. math::

    E(Y) = \sum_{i<j} a_{ij} \lVert y_i - y_j\rVert^2
         + \lambda_d \sum_{i<j,\ l_i \ne l_j} e^{-\lVert y_i - y_j\rVert^2}
         + \lambda_s \sum_{i<j,\ l_i = l_j} e^{-\lVert y_i - y_j\rVert^2},

with :math:`a_{ij} = 1` when ``j`` is one of the ``n_neighbors`` nearest samples of ``i`` in its
own class or the other way round (sparse, :func:`graphdr.graphs.knn_graph`), else 0. The
different-class repulsion :math:`\lambda_d` separates the classes; the weaker same-class
repulsion :math:`\lambda_s` (elastic embedding's term) keeps each class's inner structure from
collapsing to a point. The repulsions are summed over all pairs on a grid
(:mod:`graphdr.neighbor.grid_field`): ``O(n)`` time and memory per evaluation.

The gradient is :math:`2 L Y + \lambda_d (\nabla F - \nabla F_{l}) + \lambda_s \nabla F_{l}`,
:math:`L` the graph Laplacian, :math:`F` the Gaussian field of all samples and :math:`F_l` that
of the sample's class. The optimiser is :func:`graphdr.optim.descent` along the Laplacian
direction :math:`-(2L + \mu I)^{-1} \nabla E` (paper 003's fourth optimiser): Jacobi-
preconditioned conjugate gradients on the sparse Laplacian, ``O(n k)`` per solve.

Start: the class means laid out by their two principal components and pushed apart until no
two classes' discs overlap; each class's samples on its own two principal components inside
its disc (no randomness: the same data give the same start).

Out of sample (:meth:`DEEMap.transform`): by the new sample's nearest training samples, at the
mode of their map positions weighted by their input distances (:mod:`graphdr.neighbor.placement`).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse import linalg as splinalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import graphs as _graphs
from .._threads import managed_threads, map_threads
from .._validation import (
    check_int,
    check_label_values,
    check_labels,
    check_not_constant,
    check_option,
    check_positive,
    checked_parameters,
)
from ..optim import descent
from ..sampling import canonical_order, row_keys, smallest_keys
from ..solvers import embedding_signs
from ..stats import power_of_two_scale
from ._core import _DTYPES, _check_descent_params, _store_descent
from .elastic import _sparse_preconditioner
from .grid_field import block_fields, gaussian_field
from .map_start import _start
from .map_view import MapViewMixin
from .placement import (
    PLACEMENT_SAMPLES,
    best_width,
    drop_self,
    leave_one_out_errors,
    place,
)

#: weight of each sample's attraction to its class mean (a fraction of one neighbour edge)
TETHER = 0.01
#: the shift of the Laplacian preconditioner, relative to the larger repulsion weight (the
#: curvature of e^{-r^2} is at most 2 per unit weight)
PRECONDITIONER_SHIFT = 1.0
#: relative residual of the conjugate-gradient solves behind the Laplacian direction: the
#: direction needs no more (at 10^5 and 10^6 samples, 0.03 instead of 1e-3 halved the CG
#: iterations and reached an equal or lower objective; 0.1 stopped the descent early)
CG_RTOL = 0.03
#: samples from which the Laplacian's two columns are multiplied on two threads
_PARALLEL_ROWS = 1 << 15
#: query rows per block of the out-of-sample transform
TRANSFORM_BLOCK = 4096
#: new samples searched (NN-descent) before their blocks are placed
_SEARCH_CHUNK = 16 * TRANSFORM_BLOCK


class _MapObjective:
    r"""Value and gradient of :math:`E(Y)` (module docstring).

    With unlabelled samples (-1) the different-class repulsion acts between labelled samples
    of different classes and the same-class weight between every other pair:
    :math:`\tfrac12\lambda_s \sum_i (F(y_i) - 1) + \tfrac12(\lambda_d - \lambda_s)
    \sum_{i \in \mathcal L} (F_{\mathcal L}(y_i) - F_{l_i}(y_i))`, with :math:`F_{\mathcal L}`
    the field of the labelled samples; the tether holds the labelled samples only.

    The work is done with the rows sorted by class (unlabelled first), so that every class is
    a block of consecutive rows (views, no gathers); :func:`_class_order` gives that order,
    and a caller that passes its rows in it (as :meth:`DEEMap.fit` does) saves two
    permutations per evaluation.
    """

    def __init__(self, A, y_enc, n_classes, lam_diff, lam_same, tether=TETHER):
        order = _class_order(y_enc)
        self.order = None if np.array_equal(order, np.arange(len(order))) else order
        A = sp.csr_matrix(A)
        if self.order is not None:
            A, y_enc = A[order][:, order], y_enc[order]
        # L = diag(degree) - A, applied as such: no second copy of the graph
        self.A, self.degree = A, np.asarray(A.sum(axis=1), dtype=np.float64).ravel()
        #: class c holds the sorted rows starts[c]:starts[c + 1]; the unlabelled, 0:starts[0]
        self.starts = np.searchsorted(y_enc, np.arange(n_classes + 1))
        self.partial = self.starts[0] > 0
        self.lam_diff, self.lam_same = float(lam_diff), float(lam_same)
        self.tether = float(tether)

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
        is not copied) and its diagonal, for :func:`~graphdr.neighbor.elastic.
        _sparse_preconditioner`."""
        shifted = 2.0 * self.degree + float(mu)

        def matvec(x):
            x = np.ravel(x)
            return shifted * x - 2.0 * (self.A @ x)

        diagonal = shifted - 2.0 * self.A.diagonal()  # L_ii = d_i - a_ii

        n = len(diagonal)
        return splinalg.LinearOperator((n, n), matvec=matvec, dtype=np.float64), diagonal

    def _sorted_value_grad(self, Y):
        LY = self._laplacian(Y)
        s = self.starts
        # the tether, tether * sum_i ||y_i - mean of its class||^2, holds together the pieces
        # of a class whose neighbour graph is not connected
        off = np.zeros_like(Y)
        for a, b in zip(s[:-1], s[1:]):
            if b > a:
                off[a:b] = Y[a:b] - Y[a:b].mean(axis=0)
        F, G = gaussian_field(Y)
        F_own, G_own = block_fields(Y, s)  # each class's own field (0 on unlabelled rows)
        value = float(np.sum(Y * LY)) + self.tether * float(np.sum(off * off))
        grad = 2.0 * LY + 2.0 * self.tether * off
        if not self.partial:
            value += (0.5 * self.lam_diff * float(np.sum(F - F_own))
                      + 0.5 * self.lam_same * float(np.sum(F_own - 1.0)))
            grad += self.lam_diff * (G - G_own) + self.lam_same * G_own
            return value, grad
        lab = slice(int(s[0]), None)
        F_lab, G_lab = gaussian_field(Y[lab])
        extra = self.lam_diff - self.lam_same
        value += (0.5 * self.lam_same * float(np.sum(F - 1.0))
                  + 0.5 * extra * float(np.sum(F_lab - F_own[lab])))
        grad += self.lam_same * G
        grad[lab] += extra * (G_lab - G_own[lab])
        return value, grad


def _gathered(X, rows, block=1 << 14):
    """``X[rows]`` as a new float64 array, gathered in row blocks (no float32 copy of the
    whole of ``X`` on the way)."""
    out = np.empty((len(rows), X.shape[1]))
    for a in range(0, len(rows), block):
        out[a:a + block] = X[rows[a:a + block]]
    return out


def _class_order(y_enc, within=None):
    """The rows sorted by class, unlabelled (-1) first, each class in the order ``within``
    (indices of all rows; default: the rows' own order)."""
    if within is None:
        return np.argsort(y_enc, kind="stable")
    return within[np.argsort(y_enc[within], kind="stable")]


#: rows per block of :func:`feature_scaling`'s passes
_SCALING_ROWS = 1 << 14
#: 'auto' standardises when one feature holds more than this fraction of the total variance
DOMINANT_FEATURE = 0.5
FEATURE_SCALINGS = ("auto", "standard", "none")


def feature_scaling(X, option):
    r"""``(resolved, mean, scale)``: the map works on ``(X - mean) / scale``.

    * ``'standard'``: each feature's mean and standard deviation (1 for a constant feature);
    * ``'none'``: the features as given, divided by one exact power of two when ``max |X|`` lies
      outside :math:`[2^{-64}, 2^{64}]` (:func:`graphdr.stats.power_of_two_scale`), so that
      squared distances neither underflow nor overflow;
    * ``'auto'``: ``'standard'`` when one feature holds more than :data:`DOMINANT_FEATURE` of
      the total variance :math:`\sum_j \operatorname{var}(x_j)` (its units would decide every
      distance: the neighbour graph and the placement of new samples), else ``'none'``
      (features that share their units, such as pixels or principal components, keep their
      relative scale, which carries information).

    Computed on ``X`` divided by its power-of-two scale first: no under- or overflow at any
    magnitude; in row blocks (memory: one block, not a copy of ``X``), summed in the rows'
    order (:meth:`DEEMap.fit` passes its rows sorted by content: the same scaling in any row
    order).
    """
    X = np.asarray(X)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)
    n = X.shape[0]
    top = power_of_two_scale(max(float(X.max()), -float(X.min()))) if X.size else 1.0
    # two passes over row blocks (float64 sums, in the rows' order): no copy of X
    blocks = [slice(a, min(a + _SCALING_ROWS, n)) for a in range(0, n, _SCALING_ROWS)]
    mean = np.zeros(X.shape[1])
    for b in blocks:
        mean += np.sum(np.asarray(X[b], dtype=np.float64) / top, axis=0)
    mean /= max(n, 1)
    var = np.zeros(X.shape[1])
    for b in blocks:
        var += np.sum((np.asarray(X[b], dtype=np.float64) / top - mean) ** 2, axis=0)
    std = np.sqrt(var / max(n, 1))
    if option == "auto":
        total = float(np.sum(std**2))
        option = "standard" if total > 0 and float(np.max(std**2)) > DOMINANT_FEATURE * total \
            else "none"
    if option == "standard":
        return option, mean * top, np.where(std > 0, std, 1.0) * top
    return option, np.zeros(X.shape[1]), np.full(X.shape[1], top)


def attraction_graph(X, y_enc, n_neighbors, algorithm="exact", random_state=None,
                     n_neighbors_unlabelled=None):
    """The map's attraction graph (binary, symmetric): each labelled sample's ``n_neighbors``
    nearest samples of its class, and, when some samples are unlabelled (-1), the edges of the
    ``n_neighbors_unlabelled``-nearest-neighbour graph over all samples (default:
    ``n_neighbors``) that touch an unlabelled one (exact or approximate neighbours,
    :func:`graphdr.graphs.knn_graph`)."""
    kw = dict(weights="binary", algorithm=algorithm, random_state=random_state)
    A = sp.csr_matrix(_graphs.knn_graph(X, n_neighbors, y=y_enc, restrict="same", **kw))
    if not np.any(y_enc < 0):
        return A
    k = n_neighbors if n_neighbors_unlabelled is None else n_neighbors_unlabelled
    U = _graphs.unlabelled_edges(_graphs.knn_graph(X, k, **kw), y_enc)
    return sp.csr_matrix(A.maximum(U))


class DEEMap(MapViewMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Supervised nonlinear 2-D map: discriminative elastic embedding of the samples themselves.

    .. math::

        \min_Y \sum_{i<j} a_{ij} \lVert y_i - y_j\rVert^2
            + \lambda_d \sum_{i<j,\ l_i \ne l_j} e^{-\lVert y_i - y_j\rVert^2}
            + \lambda_s \sum_{i<j,\ l_i = l_j} e^{-\lVert y_i - y_j\rVert^2}

    over the map ``Y`` (``n x 2``), :math:`a` the symmetric ``n_neighbors``-nearest-neighbour
    graph within each class (details, optimiser and start: :mod:`graphdr.neighbor.dee_map`).
    Every linear method (:class:`DEE`, :class:`LDA`, ...) draws a class that no plane separates
    on top of the others; this map gives every class its own region and keeps the neighbours
    of each sample near it. New samples are placed by their nearest training samples
    (:meth:`transform`), as supervised UMAP and openTSNE do.

    Parameters
    ----------
    n_neighbors : int, default=20
        Neighbours of each sample in its class (the attraction) and training neighbours of a
        new sample (the out-of-sample transform). More neighbours keep more of each class's
        inner structure (trustworthiness); ``benchmarks/results/maps2d_knobs.md`` measures 5,
        10 and 20 against ``lam_same``: 20 with ``lam_same=4`` kept the most on 8 of 9 data
        sets. Fewer neighbours halve the graph's memory (10 at 10^7 samples).
    n_neighbors_unlabelled : int, default=10
        Used only when ``y`` marks unlabelled samples with -1: the edges of the
        ``n_neighbors_unlabelled``-nearest-neighbour graph over all samples that touch an
        unlabelled one join the attraction. Fewer than ``n_neighbors``: across a class
        boundary, a graph over all samples reaches the other class sooner than a graph within
        one class (``benchmarks/semi.py``, 5 % of the labels: mnist5k 28.0 % with 20, 23.4 %
        with 10).
    lam : float, default=1.0
        :math:`\lambda_d`, the weight of the repulsion between classes.
    lam_same : float, default=4.0
        :math:`\lambda_s`, the weight of the repulsion within a class: it spreads each class
        over its region against the pull of the ``n_neighbors`` graph.
    feature_scaling : {'auto', 'standard', 'none'}, default='auto'
        How the features are scaled before the map sees them (:func:`feature_scaling`):
        ``'standard'`` standardises each feature, ``'none'`` keeps them as given, ``'auto'``
        standardises when one feature holds more than half of the total variance (features
        in different units, such as wine's proline beside its ratios), and otherwise keeps
        them (pixels, principal components). ``transform`` applies the same scaling.
    placement_width : 'auto' or float > 0, default='auto'
        How new samples are placed (:meth:`transform`): the width :math:`\tau` of the
        weights of their training neighbours (:mod:`graphdr.neighbor.placement`). Small: the
        nearest training sample decides; large: the ``n_neighbors`` vote alike. ``'auto'``:
        the width of ``placement.PLACEMENT_WIDTHS`` (0.1 to 4) whose leave-one-out placement of
        training samples (up to 5000, chosen by content) errs least (ties: the wider).
    neighbors : {'auto', 'exact', 'approx'}, default='auto'
        How the neighbours are found (the attraction graph and the index that places new
        samples): exactly (ties to the smaller row index), or by NN-descent (pynndescent,
        ``pip install pynndescent``), approximate but near-linear in the number of samples.
        'auto': 'approx' from 200,000 samples on when pynndescent is installed
        (:func:`graphdr.graphs.resolve_algorithm`).
    random_state : int or None, default=None
        Seed of the approximate neighbour search (None: 0). The same data and seed give the
        same map on the same machine, whatever the number of threads; on another CPU the
        approximate neighbours (float32, compiled by numba) may differ slightly.
    max_iter : int, default=100
        Iterations of the optimiser. The fully labelled benchmark sets (up to 16,000 samples)
        stop by ``tol`` before it (the letters, 16,000 samples: 25 to 97 iterations over five
        splits). Larger maps keep lowering :math:`E` by small amounts for hundreds of
        iterations without changing what the map shows: at 10^6 samples
        (``benchmarks/maps2d_scale.py``'s data) the held-out 1-NN error and trustworthiness
        were 2.54 % and 0.953 after 25 iterations and 2.57 % and 0.953 after 200, at 0.65 s
        per iteration.
    tol : float, default=1e-5
        Stop when an iteration lowers the objective by less than ``tol`` times its value.
    verbose : int, default=0
        Print the objective every ``verbose`` iterations.
    callback : callable or None, default=None
        ``callback(Y, info)`` after each iteration; returning True stops.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, 2)
        The map of the training samples.
    classes_ : ndarray of shape (n_classes,)
    feature_scaling_ : {'standard', 'none'}
        The scaling applied (``'auto'`` resolved).
    neighbors_ : {'exact', 'approx'}
        The neighbour search used (``'auto'`` resolved).
    placement_width_ : float
        The width that places new samples (``'auto'`` resolved).
    placement_errors_ : dict or None
        ``'auto'``: the leave-one-out error of each width of ``placement.PLACEMENT_WIDTHS``.
    feature_mean_, feature_scale_ : ndarray of shape (n_features,)
        The map works on ``(X - feature_mean_) / feature_scale_``.
    objective_, initial_objective_ : float
        :math:`E` at the end and at the start.
    n_iter_ : int
    converged_ : bool
    history_ : list of dict
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from graphdr import DEEMap
    >>> X, y = load_digits(return_X_y=True)
    >>> Y = DEEMap().fit_transform(X[:300], y[:300])
    >>> DEEMap().fit(X[:300], y[:300]).transform(X[300:310]).shape
    (10, 2)
    """

    def __init__(self, *, n_neighbors=20, n_neighbors_unlabelled=10, lam=1.0, lam_same=4.0,
                 feature_scaling="auto", placement_width="auto", neighbors="auto",
                 random_state=None, max_iter=100, tol=1e-5, verbose=0, callback=None):
        self.n_neighbors = n_neighbors
        self.n_neighbors_unlabelled = n_neighbors_unlabelled
        self.lam = lam
        self.lam_same = lam_same
        self.feature_scaling = feature_scaling
        self.placement_width = placement_width
        self.neighbors = neighbors
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.callback = callback

    @managed_threads
    @checked_parameters
    def fit(self, X, y):
        """Compute the map of ``X`` (``n x D``) with class labels ``y``.

        Returns
        -------
        self : object
        """
        self.fit_transform(X, y)
        return self

    @managed_threads
    @checked_parameters
    def fit_transform(self, X, y):
        """Compute and return the map of the training samples (``embedding_``)."""
        t0 = time.perf_counter()
        name = type(self).__name__
        check_int(self.n_neighbors, "n_neighbors")
        check_int(self.n_neighbors_unlabelled, "n_neighbors_unlabelled")
        check_positive(self.lam, "lam")
        check_positive(self.lam_same, "lam_same", allow_zero=True)
        check_option(self.feature_scaling, "feature_scaling", set(FEATURE_SCALINGS))
        verbose = _check_descent_params(self)
        if sp.issparse(X):
            raise ValueError(
                f"{name} needs dense X (its start takes principal components of each class): "
                "pass X.toarray(), or reduce a large sparse X first (TruncatedSVD).")
        check_label_values(y, type(self).__name__)
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
        check_not_constant(X, "DEEMap")  # else the regions would come from the labels alone
        # a class of one sample has no neighbours: it keeps its own place, away from the others
        self.classes_, y_enc, _ = check_labels(y, min_classes=2, method=name,
                                               unlabelled="allow")
        C, self._labels = len(self.classes_), y_enc  # _labels: the page's (show)
        self.neighbors_ = _graphs.resolve_algorithm(self.neighbors, len(X))
        # the fit runs with the rows sorted by class (each class a block of rows: views, no
        # gathers) and, within a class, by content, so that neighbour ties, the start's signs,
        # the feature scaling and the sums of the fields come out the same whatever the order
        # of the rows; the caller's order comes back at the end and in every callback
        keys = row_keys(X)
        order = _class_order(y_enc, canonical_order(keys))
        ys = y_enc[order]
        Xs = _gathered(X, order)  # the one scaled copy the fit keeps (float64, sorted rows)
        self.feature_scaling_, self.feature_mean_, self.feature_scale_ = feature_scaling(
            Xs, self.feature_scaling)
        Xs -= self.feature_mean_  # in place: the same bits as _scaled, no second copy
        Xs /= self.feature_scale_
        A = attraction_graph(Xs, ys, self.n_neighbors, self.neighbors_, self.random_state,
                             self.n_neighbors_unlabelled)
        Y0 = _start(Xs, ys, C, A)
        problem = _MapObjective(A, ys, C, self.lam, self.lam_same)
        unsort = np.empty_like(order)
        unsort[order] = np.arange(len(order))
        callback = self.callback
        if callback is not None:
            callback = lambda x, info: self.callback(x[unsort], info)  # noqa: E731
        # the attraction's Hessian 2 L is singular along each class's translation (and the
        # tether does not see it): mu, the repulsion's curvature scale, keeps those modes from
        # being amplified by 1 / mu (a tiny mu sent whole classes hundreds of units away)
        mu = PRECONDITIONER_SHIFT * max(float(self.lam), float(self.lam_same))
        del A  # the objective holds the graph
        operator, diagonal = problem.shifted_laplacian(mu)
        precondition = _sparse_preconditioner(operator, factor=False, rtol=CG_RTOL,
                                              diagonal=diagonal)
        res = descent(problem.value_grad, Y0, method="preconditioned",
                      precondition=precondition, max_iter=self.max_iter, tol=self.tol,
                      verbose=verbose, callback=callback, name=name, t_start=t0)
        _store_descent(self, res)
        del problem, precondition, operator  # the graph's matrices: gigabytes at 10^7 samples
        Y = res.x[unsort]
        self.embedding_ = (Y * embedding_signs(Y)).astype(X.dtype, copy=False)
        # the index that places new samples holds the scaled training features in the sorted
        # order; _map_rows are their places in that order
        self._neighbors = self._transform_index(Xs)
        self._features, self._order = Xs, order
        self._map_rows = self.embedding_.astype(np.float64)[order]
        self.placement_errors_ = None
        if self.placement_width == "auto":
            self.placement_width_, self.placement_errors_ = self._choose_width(keys, ys)
        else:
            self.placement_width_ = float(self.placement_width)
        return self.embedding_

    @managed_threads
    def transform(self, X):
        """Place new samples on the map (module docstring): the mode of their nearest training
        samples' positions, weighted by input distance.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Y : ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "embedding_")
        X = validate_data(self, X, dtype=_DTYPES, reset=False)
        out = np.empty((X.shape[0], 2), dtype=X.dtype)
        if self.neighbors_ == "approx":
            # NN-descent's search holds Python's lock: one thread searches a chunk, the
            # environment's threads place it (at 10^6 training samples, 10^5 new ones: 8.6 s
            # against 9.1 s with the searches spread over the threads)
            for a in range(0, X.shape[0], _SEARCH_CHUNK):
                dist, ind = self._neighbors.kneighbors(self._scaled(X[a:a + _SEARCH_CHUNK]))

                def place_searched(b, a=a, dist=dist, ind=ind):
                    block = self._place_from(dist[b:b + TRANSFORM_BLOCK],
                                             ind[b:b + TRANSFORM_BLOCK])
                    out[a + b:a + b + len(block)] = block

                map_threads(place_searched, range(0, len(ind), TRANSFORM_BLOCK))
            return out

        def place(a):  # blocks of queries on the environment's threads
            out[a:a + TRANSFORM_BLOCK] = self._place(self._scaled(X[a:a + TRANSFORM_BLOCK]))

        map_threads(place, range(0, X.shape[0], TRANSFORM_BLOCK))
        return out

    def _transform_index(self, Xf):
        """The index of the training samples that places new ones: exact, or NN-descent's
        (``neighbors_='approx'``)."""
        k = min(self.n_neighbors, len(Xf))
        if self.neighbors_ == "approx":
            return _graphs.ApproxNeighbors(k, self.random_state).fit(Xf)
        return NearestNeighbors(n_neighbors=k).fit(Xf)

    def _scaled(self, X):
        """``X`` as the map sees it: ``(X - feature_mean_) / feature_scale_``, float64."""
        return (np.asarray(X, dtype=np.float64) - self.feature_mean_) / self.feature_scale_

    def transform_left_out(self):
        """Each training sample placed as :meth:`transform` would place it were it new: from
        its ``n_neighbors`` nearest *other* training samples (leave-one-out). The distance in
        the map between a sample's left-out place and the nearest other training sample tells
        how new samples land; :func:`graphdr.map2d.held_out_errors` turns it into an error.

        Returns
        -------
        Y : ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "embedding_")
        n = len(self.embedding_)
        out = np.empty((n, 2))

        def place(a):  # rows of the index (the sorted order); out in the caller's
            rows = np.arange(a, min(a + TRANSFORM_BLOCK, n))
            k = min(self._neighbors.n_neighbors + 1, n)
            dist, ind = self._neighbors.kneighbors(self._features[rows], n_neighbors=k)
            out[self._order[rows]] = self._place_from(*drop_self(dist, ind, rows))

        map_threads(place, range(0, n, TRANSFORM_BLOCK))
        return out

    def _training_features(self):
        """The scaled training features in the caller's row order."""
        out = np.empty_like(self._features)
        out[self._order] = self._features
        return out

    def _nearest_other(self):
        """Each training sample's nearest other training sample in the scaled features (rows
        in the caller's order, from the placing index, itself left out)."""
        _, near = self._neighbors.kneighbors(n_neighbors=1)
        out = np.empty(len(self._order), dtype=np.intp)
        out[self._order] = self._order[near[:, 0]]
        return out

    def _choose_width(self, keys, ys):
        """``(width, errors)`` (:func:`graphdr.neighbor.placement.leave_one_out_errors`) on up
        to ``PLACEMENT_SAMPLES`` labelled training samples: those of smallest content key,
        the same ones in any row order."""
        n = len(self._order)
        where = np.empty(n, dtype=np.intp)
        where[self._order] = np.arange(n)
        n_labelled = int(np.sum(ys >= 0))  # ys: labels of the index's rows (the fit's order)
        # by content (index rows in key order), labelled ones only
        rows = where[smallest_keys(keys, n if n_labelled < n else PLACEMENT_SAMPLES)]
        rows = np.sort(rows[ys[rows] >= 0][:PLACEMENT_SAMPLES])
        k = min(self._neighbors.n_neighbors + 1, n)
        dist, ind = self._neighbors.kneighbors(self._features[rows], n_neighbors=k)
        errors = leave_one_out_errors(self._map_rows, ys, rows, *drop_self(dist, ind, rows))
        return best_width(errors), errors

    def _place(self, X):
        return self._place_from(*self._neighbors.kneighbors(X))

    def _place_from(self, dist, ind, width=None):
        """Places from neighbours given as rows of the index (the fit's order)."""
        width = self.placement_width_ if width is None else width
        return place(self._map_rows, dist, ind, width)

    @property
    def _n_features_out(self):
        return 2

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
