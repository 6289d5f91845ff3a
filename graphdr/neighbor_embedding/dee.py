"""Discriminative elastic embedding (paper 003): its objective and the DEE estimator."""

from __future__ import annotations

import numpy as np

from .._threads import managed_threads
from .._validation import boolean_rule, check_option, check_positive, checked_parameters
from ..blocks import pairs as _pairs
from ..blocks.sampling import seeded
from ..training.selected import Selected
from ..training.supports import Supports
from ..tuning import check_significance, choose_checkpoint
from ._core import (
    _CACHE_BYTES,
    _CV_FOLDS,
    _SHRINKAGE_GRID,
    _check_descent_params,
    _check_init_option,
    _check_shrinkage,
    _cholesky_preconditioner,
    _class_spread,
    _LinearNeighborEmbedding,
    _pair_sq_dist,
    _PairWeights,
    _sampled_forms,
    _SampledRepulsion,
    _validation_subsample,
    refuse_sampled_unlabelled,
    unlabelled_neighbours,
)


class _DEEObjective:
    r"""Objective and gradient of DEE (eq. 12) in coordinates ``Z`` (rows are samples).

    The attraction is a quadratic form, :math:`\sum w^+_{nm}\lVert A z_{nm}\rVert^2 =
    2 \operatorname{tr}(A Z^\top L(w^+) Z A^\top)`, evaluated from the ``r x r`` matrix
    ``H = Z^T L(w+) Z`` computed once; only the repulsion needs the pairwise loop.
    ``value_grad(A)`` returns :math:`E(A)` and :math:`\partial E/\partial A = 4 A H +
    \lambda (\partial R/\partial Y)^\top Z`, ``Y = Z A^T``, ``R`` the repulsion.
    With ``pairs = (same, different)`` sampled pairs (:mod:`graphdr.blocks.pairs`), ``H`` and ``R``
    are their unbiased sampled estimates (the normaliser of ``w-`` is exact, in closed form).
    """

    def __init__(self, Z, y, lam, sigma2, *, normalize=True, shrinkage=0.0, block_rows=None,
                 cache_bytes=_CACHE_BYTES, pairs=None, extra_same=None):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.lam = float(lam)
        self.sigma2 = float(sigma2)
        heat = lambda S: np.exp(-S / (2.0 * self.sigma2))  # noqa: E731
        if pairs is None:
            self.weights = _PairWeights(
                self.Z, y, heat, lambda S: S, normalize=normalize, store="diff",
                block_rows=block_rows, cache_bytes=cache_bytes, extra_same=extra_same,
            )
            H, Hdeg = self.weights.forms
            self._sampled = None
        else:
            total, H, Hdeg = _sampled_forms(self.Z, pairs[0], heat)
            spread_all, spread_same = _class_spread(self.Z, y)
            s_same = 1.0 / total if normalize and total > 0 else 1.0
            diff = spread_all - spread_same
            s_diff = 1.0 / diff if normalize and diff > 0 else 1.0
            H, Hdeg = H * s_same, Hdeg * s_same
            self._sampled = _SampledRepulsion(self.Z, pairs[1], s_diff)
        self.shrinkage = g = float(shrinkage)
        r = H.shape[0]
        # ridge target: the mean eigenvalue of the attraction matrix on the data span
        self.nu = float(np.trace(H)) / r if r else 0.0
        if g > 0:
            H = (1.0 - g) * H + (g * self.nu) * np.eye(r)
            Hdeg = (1.0 - g) * Hdeg + (g * self.nu) * np.eye(r)
        self.H, self.Hdeg = H, Hdeg

    def repulsion(self, Y):
        """``(R, dR/dY)``, ``R = sum w- K`` with ``K = exp(-||y_n - y_m||^2)``."""
        if self._sampled is not None:
            return self._sampled(Y)
        ny = _pair_sq_dist(Y)
        total = 0.0
        LY = np.empty_like(Y)
        for s, e, W, _, _ in self.weights:
            Dy = Y[s:e] @ Y.T
            Dy *= -2.0
            Dy += ny[s:e, None]
            Dy += ny[None, :]
            np.maximum(Dy, 0.0, out=Dy)
            np.negative(Dy, out=Dy)
            np.exp(Dy, out=Dy)
            Dy *= W
            total += float(Dy.sum())
            LY[s:e] = Dy.sum(axis=1)[:, None] * Y[s:e] - Dy @ Y
        return total, -4.0 * LY

    def value_grad(self, A):
        A = np.asarray(A, dtype=np.float64)
        Y = self.Z @ A.T
        AH = A @ self.H
        rep, GY = self.repulsion(Y)
        E = 2.0 * float(np.sum(AH * A)) + self.lam * rep
        G = 4.0 * AH + self.lam * (GY.T @ self.Z)
        return E, G



class DEE(_LinearNeighborEmbedding):
    r"""Discriminative elastic embedding (paper 003): a linear, supervised elastic embedding.

    .. math::

        \min_A E(A) = \sum_{n,m} w^+_{nm} \lVert A x_{nm} \rVert^2
            + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert A x_{nm} \rVert^2\big),
        \qquad x_{nm} = x_n - x_m,

    with :math:`w^+_{nm} = \exp(-\lVert x_{nm}\rVert^2 / 2\sigma^2)` on pairs of the same class
    and 0 otherwise, and :math:`w^-_{nm} = \lVert x_{nm}\rVert^2` on pairs of different classes
    and 0 otherwise (eqs. 10-12; :math:`w^\pm_{nn} = 0`). Same-class samples attract, samples of
    different classes repel until they are about one unit apart in the embedding.

    **Weight normalisation** (the paper gives none): ``w+`` and ``w-`` are each divided by
    their sum over all pairs, so that the attraction and the repulsion are on the same scale
    whatever the data's units and size; then ``E(0) = lam``. ``normalize=False`` keeps the raw
    weights of eqs. (10)-(11).

    **Shrinkage** (not in the paper). The attraction is the quadratic form
    :math:`2\operatorname{tr}(A H A^\top)`, :math:`H = X^\top L(w^+) X` (centred data). With
    ``shrinkage`` :math:`\gamma \in [0, 1]`, DEE minimises

    .. math::

        E_\gamma(A) = 2\operatorname{tr}\big(A [(1-\gamma) H + \gamma \nu I] A^\top\big)
            + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert A x_{nm} \rVert^2\big),
        \qquad \nu = \operatorname{tr}(H) / r,

    over projections in the span of the centred training data (``r`` its dimension): ``H`` is
    shrunk towards its mean eigenvalue, like a shrunk within-class covariance, i.e. a ridge
    :math:`2\gamma\nu\lVert A\rVert_F^2`. ``shrinkage=0`` is the paper's objective (eq. 12).
    Why: when ``D >= n`` (few samples per class, raw pixels) the training classes are
    linearly separable, ``H`` is singular, and the plain objective goes to 0 by collapsing
    each class to a point along directions of tiny variance with an unbounded ``A``; that
    does not generalise (250 mnist5k digits, 25 per class, 1-NN on the other 4750 at d = 20:
    18.0 % error at the PCA start, 45.8 % after the plain objective, whose first LD step takes
    :math:`\lVert A\rVert_F` from 0.53 to 2.9e3; 20.5 / 17.1 / 15.5 % with :math:`\gamma` =
    0.2 / 0.5 / 0.8; a diagnosis at commit ebf3303, :doc:`/history`). On data with
    ``n >> D`` and informative low-variance directions (UCI vehicle) any shrinkage hurts
    (10-fold CV, d = 3: 25.2 % error at 0, 38.7 % at 0.2, 48.4 % at 0.5;
    ``docs/history.rst``). ``shrinkage='auto'`` (default) therefore picks
    :math:`\gamma` from ``(0, 0.2, 0.5, 0.8)`` by stratified 3-fold cross-validation of the
    1-NN error in the embedding (folds dealt by the rows' content, :mod:`graphdr.blocks.sampling`,
    so the choice depends on neither the row order nor ``random_state``): the smallest
    value whose error is within one binomial standard error of the lowest. The same folds then
    decide whether the optimisation helps at all: the start is one more candidate, and ``fit``
    returns it (``checkpoint_ = 0``, no iteration) when it makes fewer held-out 1-NN errors
    than the embedding of the chosen shrinkage (``significance=1``, the default; a level below
    1 keeps the start unless the optimum wins the exact McNemar test at that level,
    :func:`graphdr.tuning.choose_checkpoint`). Not a stricter level by default: with 25 mnist
    digits per class the validation folds are too small for a test at 5 %, which then kept
    the PCA start in most splits where DEE was 2-6 points better on the test digits. This
    costs twelve extra fits on two thirds of the data; a class
    with fewer than two samples disables it (:math:`\gamma = 0`, no comparison). The shrunk
    matrix also replaces ``H`` in the Laplacian and
    fixed-point directions, which keeps them well conditioned.

    The gradient is :math:`\partial E/\partial A = 4 Y^\top L X` (:math:`Y = X A^\top`,
    :math:`L = L(w^+) - \lambda L(w^- \circ K)`, :math:`K_{nm} = e^{-\lVert y_n-y_m\rVert^2}`),
    evaluated in row blocks in :math:`O(n^2 d + n D d)` time with bounded memory. Optimisers
    (all with a Wolfe line search, :mod:`graphdr.blocks.optim`):

    * ``'ld'`` -- the Laplacian direction
      :math:`\Delta = -\tfrac{\partial E}{\partial A}(4 X^\top L(w^+) X + \mu I)^{-1}`,
      with one Cholesky factor computed per fit (paper section 3.3);
    * ``'fp'`` -- the fixed-point direction of EE, the degree matrix :math:`D(w^+)` in place of
      :math:`L(w^+)` (eq. 14);
    * ``'cg'`` -- Polak-Ribiere+ conjugate gradients (strong Wolfe line search);
    * ``'gd'`` -- gradient descent.

    :math:`\mu` is ``1e-4`` times the mean eigenvalue of the matrix, which keeps it positive
    definite when the data are rank-deficient or a class is a single point.

    The problem is solved in the span of the centred training data, so
    ``transform(X) = (X - mean_) @ components_.T`` exactly (centring does not change ``E``).

    When to use it. The default ``d = 2`` is for pictures: two dimensions cannot hold 10 or
    11 classes, and 1-NN in them loses to 1-NN on the raw features on digits (30.1 % against
    1.3 %), vowel (33.1 % against 1.1 %), mnist2k (39.9 % against 8.8 %), sonar (24.0 %
    against 15.4 %) and led7digit (40.2 % against 35.6 %) (``benchmarks/results/defaults.md``:
    paper 000's protocol, 10-fold CV, [-1, 1] scaling). For classification set
    ``n_components``: at ``C - 1`` DEE gets digits 2.5 %, vowel 1.3 %, mnist2k 10.3 %,
    led7digit 34.4 %; in the small-sample regime (25 digits per class, raw pixels) it beats PCA, MMPA,
    DCV and DSNE at every dimension (``docs/history.rst``). Sonar
    stays behind (43.3 % at one
    dimension): use :class:`KernelLDA` there.

    Parameters
    ----------
    n_components : int, default=2
        Dimension ``d`` of the embedding, at most ``n_features``.
    lam : float, default=100.0
        Weight :math:`\lambda > 0` of the repulsive term relative to the normalised
        attraction. Larger values spread the embedding, so that the repulsion acts only on
        nearby pairs of different classes. 1-NN error, stratified 10-fold CV, [-1, 1] scaling,
        d = max(C - 1, 2), ``shrinkage=0``: ``lam`` = 10 / 100 gave vehicle 26.2 / 25.2 %,
        vowel 2.8 / 1.8 %, ionosphere 13.4 / 11.4 %, wdbc 3.3 / 3.0 %, sonar 23.5 / 21.5 %,
        pima 30.9 / 30.2 %, led7digit 42.2 / 35.0 %, heart 22.6 / 25.2 %
        (``docs/history.rst``); on 25 mnist digits
        per class (raw pixels) 100 beat 10 at every shrinkage tried. The default was 10 before.
    sigma : float or None, default=None
        Width of the heat kernel of ``w+``. None sets :math:`2\sigma^2` to the mean squared
        distance between two samples of the same class.
    optimizer : {'ld', 'fp', 'cg', 'gd'}, default='ld'
    max_iter : int, default=1000
        Largest number of iterations.
    tol : float, default=1e-3
        Stop when one iteration decreases the objective by at most ``tol`` relative to it.
    init : {'pca', 'random'} or ndarray of shape (n_components, n_features), default='pca'
        Starting projection: the leading principal directions, or a Gaussian random matrix
        (from ``random_state``), scaled so that the mean squared distance between embedded
        training samples is 1; or a given matrix, used as is.
    normalize : bool, default=True
        Scale ``w+`` and ``w-`` to unit sums (see above).
    shrinkage : 'auto' or float in [0, 1], default='auto'
        Shrinkage :math:`\gamma` of the attraction matrix (see above); 0 is the paper's plain
        objective. Above 5000 samples the cross-validation runs on a stratified subsample of
        5000, with the pairs evaluated as in the main fit (``method_``).
    significance : float in (0, 1] or None, default=1.0
        ``shrinkage='auto'`` only: level of the exact McNemar test by which the optimised
        projection must beat the start on the inner folds to be kept (1: whichever has fewer
        held-out errors, the start on ties; None: always the optimised projection, as
        before).
    method : {'auto', 'exact', 'approx'}, default='auto'
        How the sums over pairs of samples are evaluated. ``'exact'``: all ``n (n - 1)`` pairs,
        in row blocks (:math:`O(n^2 d)` time per evaluation, bounded memory). ``'approx'``:
        ``n_partners`` partners drawn once per fit for every sample from each group (the other
        samples of its class, and the samples of the other classes; groups of at most
        ``n_partners`` taken whole), and the attraction matrix ``H`` and the repulsion replaced
        by their unbiased estimates (:mod:`graphdr.blocks.pairs`): :math:`O(n m D)` once,
        :math:`O(n m d)` per evaluation, ``8 n m`` bytes. ``'auto'``: ``'exact'`` up to 5000 samples,
        ``'approx'`` above. Error and speed: ``docs/history.rst`` (sampled pairs).
    n_partners : int, default=128
        Partners ``m`` per sample and group for ``method='approx'`` (at least 1).
    n_neighbors_unlabelled : int, default=10
        Used only when ``y`` marks unlabelled samples with -1 (scikit-learn's convention):
        the edges of the ``n_neighbors_unlabelled``-nearest-neighbour graph over all samples
        that touch an unlabelled one join the attraction :math:`w^+` (heat weights); the
        repulsion stays between labelled samples of different classes, and ``shrinkage='auto'``
        and the checkpoint are chosen on the labelled samples. ``method='exact'`` only.
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` (and of the extra rows of ``'pca'`` when ``n_components``
        exceeds the data rank) and of the sampled pairs; None is the fixed seed 0, so two
        default fits agree. The inner validation does not use it (content-keyed folds, seed
        0 for its sampled pairs).
    verbose : int, default=0
        Print the optimiser's progress (1: every 10 iterations, 2: every iteration).
    callback : callable or None, default=None
        ``callback(A, info)`` after every iteration, with ``A`` the current
        ``(n_components, n_features)`` projection (of centred data) and ``info`` a dict
        (``iteration``, ``objective``, ``step``, ``grad_norm``, ``time``). Returning True stops.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The projection ``A``.
    mean_ : ndarray of shape (n_features,)
        Training mean, subtracted by ``transform``.
    objective_ : float
        Final value of :math:`E`.
    n_iter_ : int
        Iterations run.
    history_ : dict of lists
        ``'objective'``, ``'step'``, ``'grad_norm'``, ``'n_evals'`` and ``'time'`` (seconds since
        the start of ``fit``), one entry per iteration (all of length ``n_iter_``).
    initial_objective_ : float
        :math:`E` at the starting projection.
    sigma_ : float
        Heat-kernel width used.
    shrinkage_ : float
        Shrinkage :math:`\gamma` used.
    shrinkage_scores_ : dict or None
        ``shrinkage='auto'``: cross-validated 1-NN error of each candidate (empty when the
        classes are too small to validate); None otherwise.
    cv_errors_ : ndarray of shape (2,) or None
        Inner-validation 1-NN error of the start and of the optimised projection (of the
        chosen shrinkage); None without validation.
    checkpoint_ : int
        1 if ``components_`` is the optimised projection, 0 if the validation kept the start.
    mu_ : float or None
        Ridge :math:`\mu` added to the Laplacian (``'ld'``) or degree (``'fp'``) matrix; None
        for ``'cg'`` and ``'gd'``.
    method_ : str
        ``'exact'`` or ``'approx'``: how the pairwise sums were evaluated.
    converged_ : bool
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr.neighbor_embedding import DEE
    >>> X, y = load_iris(return_X_y=True)
    >>> DEE(n_components=2).fit_transform(X, y).shape
    (150, 2)
    """

    _supports = Supports(unlabelled_rows=True)

    _optimizers = {"ld", "fp", "cg", "gd"}

    _parameter_rules = {"normalize": boolean_rule()}

    def __init__(
        self,
        n_components=2,
        *,
        lam=100.0,
        sigma=None,
        optimizer="ld",
        max_iter=1000,
        tol=1e-3,
        init="pca",
        normalize=True,
        shrinkage="auto",
        significance=1.0,
        method="auto",
        n_partners=128,
        n_neighbors_unlabelled=10,
        random_state=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.lam = lam
        self.sigma = sigma
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.normalize = normalize
        self.shrinkage = shrinkage
        self.significance = significance
        self.method = method
        self.n_partners = n_partners
        self.n_neighbors_unlabelled = n_neighbors_unlabelled
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _check_params(self):
        check_positive(self.lam, "lam")
        _check_shrinkage(self.shrinkage)
        check_significance(self.significance, allow_none=True)
        _pairs.resolve_method(self.method, 0, type(self).__name__)
        _pairs.check_n_partners(self.n_partners)
        check_positive(self.sigma, "sigma", allow_none=True)
        check_option(self.optimizer, "optimizer", self._optimizers)
        _check_init_option(self.init)
        _check_descent_params(self)

    @managed_threads
    @checked_parameters
    def fit(self, X, y):
        """Fit the projection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels of any type (at least two classes).

        Returns
        -------
        self : object
        """
        return self._fit(X, y)

    def _build(self, Z, y_enc, sigma2, shrinkage, rng, method):
        """The objective, the descent method and its preconditioner (and mu) for one fit (the
        cross-validation fits of ``shrinkage='auto'`` evaluate the pairs as the main fit:
        ``method``, exact or sampled)."""
        # unlabelled samples attract their neighbours (heat weights, as same-class pairs)
        extra = unlabelled_neighbours(Z, y_enc, self.n_neighbors_unlabelled)
        problem = _DEEObjective(Z, y_enc, self.lam, sigma2, normalize=self.normalize,
                                shrinkage=shrinkage, pairs=self._pairs(y_enc, method, rng),
                                extra_same=extra)
        if self.optimizer in ("ld", "fp"):
            H = 4.0 * (problem.H if self.optimizer == "ld" else problem.Hdeg)
            precondition, mu = _cholesky_preconditioner(H, type(self).__name__)
            return problem, "preconditioned", precondition, mu
        return problem, self.optimizer, None, None

    def _select_shrinkage(self, Z, y_enc, sigma2, A0, keys, pairs):
        """``(shrinkage, wrong, scores)``: the smallest shrinkage of the grid within one
        standard error of the best CV error, the held-out 1-NN misclassifications ``(n, 2)``
        of the start and of that shrinkage, and each shrinkage's CV error. The subsample and
        folds come from the rows' content, the sampled pairs of the inner fits (``pairs``:
        exact or sampled) from the fixed seed 0: the choice depends on neither row order nor
        ``random_state``."""
        scores = {}
        Z, y_enc, keys = _validation_subsample(Z, y_enc, keys)
        folds = self._folds(y_enc, _CV_FOLDS, keys)
        rng = seeded(0)
        if folds is None:
            return 0.0, None, scores
        wrong = {}
        for g in _SHRINKAGE_GRID:
            wrong[g] = self._held_out_wrong(
                Z, y_enc, folds, A0, lambda tr, g=g: self._build(Z[tr], y_enc[tr], sigma2, g,
                                                                 rng, pairs)[:3])
            scores[g] = float(wrong[g][:, 1].mean())
        # the smallest shrinkage within one binomial standard error of the best error
        best = min(scores.values())
        margin = np.sqrt(best * (1.0 - best) / len(y_enc))
        g = min(g for g, e in scores.items() if e <= best + margin)
        return g, wrong[g], scores

    def _problem(self, Z, y_enc, sigma2, A0, keys, pairs):
        """``(problem, method, precondition, chosen)``: the objective and its descent, and what
        the inner validation chose (``shrinkage_``, ``checkpoint_``, ...)."""
        rng = seeded(self.random_state)
        wrong, scores = None, None
        lab = y_enc >= 0
        refuse_sampled_unlabelled(type(self).__name__, lab, pairs)
        if isinstance(self.shrinkage, str):
            # chosen, like the checkpoint, by the inner validation of the labelled samples
            shrinkage, wrong, scores = self._select_shrinkage(Z[lab], y_enc[lab], sigma2, A0,
                                                              keys[lab], pairs)
        else:
            shrinkage = float(self.shrinkage)
        checkpoint = 1
        if wrong is not None and self.significance is not None:
            checkpoint = choose_checkpoint(wrong, self.significance)
        problem, method, precondition, mu = self._build(Z, y_enc, sigma2, shrinkage, rng, pairs)
        return problem, method, precondition, Selected(dict(
            shrinkage_scores_=scores, shrinkage_=shrinkage, checkpoint_=checkpoint, mu_=mu,
            cv_errors_=None if wrong is None else wrong.mean(axis=0)))
