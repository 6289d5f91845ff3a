"""Unsupervised elastic embedding (Carreira-Perpinan), paper 003's baseline."""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.sparse import linalg as splinalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import validate_data

from .._threads import managed_threads, map_threads
from .._validation import (
    check_int,
    check_n_components,
    check_not_constant,
    check_option,
    check_positive,
    checked_parameters,
)
from ..blocks import graphs as _graphs
from ..blocks import pairs as _pairs
from ..blocks.optim import descent, jacobi_cg
from ..blocks.sampling import seeded
from ..blocks.solvers import embedding_signs
from ..blocks.stats import input_scale
from ._core import (
    _CACHE_BYTES,
    _DTYPES,
    _MU_REL,
    _check_descent_params,
    _class_spread,
    _pair_sq_dist,
    _PairWeights,
    _SampledRepulsion,
    _store_descent,
)


# ----- unsupervised elastic embedding -------------------------------------------------------
def _sparse_preconditioner(M, factor=True, rtol=1e-3, diagonal=None):
    """``g -> M^-1 g`` for the sparse SPD matrix ``M`` (``n x n``): one sparse LU factor
    (``factor=True``; exact, but a kNN Laplacian's factor fills in towards ``n^2`` entries as
    ``n`` grows), or a Jacobi-preconditioned conjugate-gradient solve per column to relative
    residual ``rtol`` (:func:`graphdr.blocks.optim.jacobi_cg`: at most 100 iterations, ``O(nnz)``
    each, inner products in a fixed order; the columns on the environment's threads, each
    solved alone: the same bits with any number of threads and under every BLAS kernel).
    With ``diagonal`` (``M``'s diagonal), ``M`` may be any linear operator (a
    ``scipy.sparse.linalg.LinearOperator``: no matrix is stored). Each CG iterate ``x`` of
    an SPD system (started at 0) has ``g^T x > 0``, so the direction stays a descent
    direction."""
    if factor:
        lu = splinalg.splu(M)
        return lambda g, x: lu.solve(np.asarray(g, dtype=np.float64))
    if diagonal is None:
        M = sp.csr_matrix(M)
        diagonal = M.diagonal()
    workers = None if M.shape[0] >= _PARALLEL_CG else 1

    def precondition(g, x):
        g = np.asarray(g, dtype=np.float64)
        cols = map_threads(
            lambda k: jacobi_cg(M.dot, np.ascontiguousarray(g[:, k]), diagonal, rtol, CG_MAXITER),
            range(g.shape[1]), n_workers=workers)
        return np.column_stack(cols)

    return precondition


#: rows from which the preconditioner's columns are solved on the environment's threads
_PARALLEL_CG = 1 << 15
#: iterations of each preconditioner solve at most
CG_MAXITER = 100


class _EEObjective:
    r"""EE objective (paper 003, eq. 1) on free coordinates Y, sparse w+ and blocked w-."""

    def __init__(self, X, lam, attract, *, block_rows=None, cache_bytes=_CACHE_BYTES,
                 pairs=None):
        self.lam = float(lam)
        n = X.shape[0]
        P = sp.csr_matrix(attract, dtype=np.float64)
        total = P.sum()
        self.P = P / total if total > 0 else P
        self.Lp = sp.csr_matrix(_graphs.laplacian(self.P))
        self.n = n
        self._sampled = None
        if pairs is not None:
            spread = _class_spread(X, np.zeros(n, dtype=np.intp))[0]
            self._sampled = _SampledRepulsion(X, pairs, 1.0 / spread if spread > 0 else 1.0)
            return
        # every sample is its own "class": w- = squared input distance on all pairs n != m
        self.weights = _PairWeights(
            X, np.arange(n), lambda S: S, lambda S: S, normalize=True, store="diff",
            block_rows=block_rows, cache_bytes=cache_bytes,
        )

    def value_grad(self, Y):
        Y = np.asarray(Y, dtype=np.float64)
        lam = self.lam
        LpY = self.Lp @ Y
        E = 2.0 * float(np.sum(Y * LpY))
        if self._sampled is not None:
            rep, GY = self._sampled(Y)
            return E + lam * rep, 4.0 * LpY + lam * GY
        ny = _pair_sq_dist(Y)
        LY = LpY.copy()
        for s, e, W, _, _ in self.weights:
            Dy = ny[s:e, None] + ny[None, :] - 2.0 * (Y[s:e] @ Y.T)
            np.maximum(Dy, 0.0, out=Dy)
            R = W * np.exp(-Dy)
            E += lam * float(R.sum())
            LY[s:e] -= lam * (R.sum(axis=1)[:, None] * Y[s:e] - R @ Y)
        return E, 4.0 * LY


class ElasticEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Elastic embedding (Carreira-Perpinan, 2010): unsupervised, nonlinear.

    .. math::

        \min_Y E(Y) = \sum_{n,m} w^+_{nm} \lVert y_n - y_m \rVert^2
            + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert y_n - y_m \rVert^2\big),

    over free coordinates ``Y`` (``n x d``), with :math:`w^+` a heat kernel on the symmetrised
    ``n_neighbors``-nearest-neighbour graph (sparse) and :math:`w^-_{nm} = \lVert x_n -
    x_m\rVert^2` on all pairs (paper 003, eq. 1), each normalised to unit sum. The gradient is
    :math:`4 (L(w^+) - \lambda L(w^- \circ K)) Y`; the default optimiser follows the spectral
    direction :math:`-(4 L(w^+) + \mu I)^{-1} \nabla E`, with one sparse LU factor per fit (above
    5000 samples, where the factor of a kNN Laplacian fills in, a Jacobi-preconditioned
    conjugate-gradient solve to relative residual 1e-3 instead).

    Like :class:`sklearn.manifold.TSNE`, it has no ``transform``: the embedding of new samples
    is not defined; use :meth:`fit_transform` or ``embedding_`` (or :class:`DEE` for a linear
    map).

    Parameters
    ----------
    n_components : int, default=2
    lam : float, default=1.0
        Weight of the repulsive term.
    n_neighbors : int, default=10
        Neighbours of the attractive graph.
    sigma : float or None, default=None
        Heat-kernel width of ``w+``; None: :math:`2\sigma^2` = mean squared edge length.
    optimizer : {'sd', 'fp', 'cg', 'gd'}, default='sd'
        Spectral direction, fixed-point (degree matrix), conjugate gradients or gradient
        descent, with a Wolfe line search.
    max_iter : int, default=500
    tol : float, default=1e-3
    init : {'pca', 'random'} or ndarray of shape (n_samples, n_components), default='pca'
        Leading principal components (or Gaussian noise from ``random_state``), scaled to a
        mean squared distance of 1 between embedded samples; or given coordinates.
    method : {'auto', 'exact', 'approx'}, default='auto'
        How the sums over pairs of samples are evaluated. ``'exact'``: all ``n (n - 1)`` pairs,
        in row blocks (:math:`O(n^2 d)` time per evaluation of the repulsion, bounded memory). ``'approx'``:
        ``n_partners`` partners drawn once per fit for every sample among all other samples
        (all of them when there are at most ``n_partners``), and the sums replaced by their unbiased estimates
        (:mod:`graphdr.blocks.pairs`): :math:`O(n m D)` once, :math:`O(n m d)` per evaluation,
        ``12 n m`` bytes; the attraction is the sparse kNN graph either way. ``'auto'``:
        ``'exact'`` up to 5000 samples, ``'approx'`` above. Error and speed:
        ``docs/history.rst`` (sampled pairs).
    n_partners : int, default=128
        Partners ``m`` per sample and group for ``method='approx'`` (at least 1).
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` and of the sampled pairs; None is the fixed seed 0, so two
        default fits agree.
    verbose : int, default=0
    callback : callable or None, default=None
        ``callback(Y, info)`` after each iteration; returning True stops.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
    objective_, initial_objective_, n_iter_, history_, method_, converged_, n_features_in_
        As in :class:`DEE`.
    """

    def __init__(
        self,
        n_components=2,
        *,
        lam=1.0,
        n_neighbors=10,
        sigma=None,
        optimizer="sd",
        max_iter=500,
        tol=1e-3,
        init="pca",
        method="auto",
        n_partners=128,
        random_state=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.lam = lam
        self.method = method
        self.n_partners = n_partners
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    @managed_threads
    @checked_parameters
    def fit(self, X, y=None):
        """Compute the embedding of X (``y`` is ignored).

        Returns
        -------
        self : object
        """
        self.fit_transform(X)
        return self

    @managed_threads
    @checked_parameters
    def fit_transform(self, X, y=None):
        """Compute and return the embedding of X (``y`` is ignored).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        embedding : ndarray of shape (n_samples, n_components)
        """
        t0 = time.perf_counter()
        name = type(self).__name__
        check_positive(self.lam, "lam")
        check_positive(self.sigma, "sigma", allow_none=True)
        check_int(self.n_neighbors, "n_neighbors")
        _pairs.resolve_method(self.method, 0, name)
        _pairs.check_n_partners(self.n_partners)
        check_option(self.optimizer, "optimizer", {"sd", "fp", "cg", "gd"})
        verbose = _check_descent_params(self)
        X = validate_data(self, X, dtype=_DTYPES, ensure_min_samples=2)
        n = X.shape[0]
        d = check_n_components(self.n_components, n - 1, reason=f"n_samples - 1 = {n - 1}")
        # X / 2**e when max|X| is outside [2**-64, 2**64] (exact; squared distances of
        # X * 1e300 overflow), the width with it
        scale = input_scale(X)
        Xf = np.asarray(X, dtype=np.float64) / scale
        Xc = Xf - Xf.mean(axis=0)
        check_not_constant(X, name)  # no neighbour would be nearer than another
        k = min(self.n_neighbors, n - 1)
        sigma = None if self.sigma is None else float(self.sigma) / scale
        Wp = _graphs.knn_graph(Xc, k, weights="heat", sigma=sigma)
        self.method_ = _pairs.resolve_method(self.method, n, name)
        pairs = None
        if self.method_ == "approx":
            pairs = _pairs.sample_pairs(np.zeros(n, dtype=np.intp), self.n_partners, "all",
                                        seeded(self.random_state))
        problem = _EEObjective(Xc, self.lam, Wp, pairs=pairs)
        if isinstance(self.init, str):
            check_option(self.init, "init", {"pca", "random"})
            if self.init == "pca":
                U, s, _ = linalg.svd(Xc, full_matrices=False)
                Y0 = np.zeros((n, d))
                k0 = min(d, len(s))
                Y0[:, :k0] = U[:, :k0] * s[:k0]
                if k0 < d or not np.any(Y0):
                    Y0[:, k0:] = seeded(self.random_state).standard_normal(
                        (n, d - k0)) * 1e-2
            else:
                Y0 = seeded(self.random_state).standard_normal((n, d))
            Y0 -= Y0.mean(axis=0)
            msd = 2.0 * n / (n - 1) * float(np.sum(np.var(Y0, axis=0)))
            if msd > 0:
                Y0 /= np.sqrt(msd)
        else:
            Y0 = np.asarray(self.init, dtype=np.float64)
            if Y0.shape != (n, d):
                raise ValueError(
                    f"{name}: an array init must have shape (n_samples, n_components) = "
                    f"({n}, {d}); got {Y0.shape}."
                )
        method, precondition = self.optimizer, None
        if self.optimizer in ("sd", "fp"):
            H = 4.0 * (problem.Lp if self.optimizer == "sd" else sp.diags(problem.Lp.diagonal()))
            H = sp.csc_matrix(H)
            tr = float(H.diagonal().sum())
            mu = _MU_REL * tr / n if tr > 0 else 1.0
            precondition = _sparse_preconditioner(sp.csc_matrix(H + mu * sp.identity(n)),
                                                  factor=n <= _pairs.AUTO_EXACT_MAX)
            method = "preconditioned"
        res = descent(
            problem.value_grad, Y0, method=method, precondition=precondition,
            max_iter=self.max_iter, tol=self.tol, verbose=verbose, callback=self.callback,
            name=f"EE-{self.optimizer}", t_start=t0,
        )
        _store_descent(self, res)
        # the objective is invariant to each axis' sign: orient by the convention (solvers)
        self.embedding_ = (res.x * embedding_signs(res.x)).astype(X.dtype, copy=False)
        return self.embedding_

    @property
    def _n_features_out(self):
        return self.embedding_.shape[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
