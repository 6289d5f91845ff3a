"""Discriminative stochastic neighbour embedding (DSNE): its objectives and the estimator."""

from __future__ import annotations

import numbers

import numpy as np

from .._threads import managed_threads
from .._validation import check_int, check_option, check_positive, checked_parameters
from ..blocks import pairs as _pairs
from ..blocks.sampling import seeded
from ..training.selected import Selected
from ..training.supports import Supports
from ..tuning import check_significance, choose_checkpoint
from ._core import (
    _CACHE_BYTES,
    _check_descent_params,
    _check_init_option,
    _LinearNeighborEmbedding,
    _pair_sq_dist,
    _PairWeights,
    _validation_subsample,
    _zero_diag,
    refuse_sampled_unlabelled,
    unlabelled_neighbours,
)


# ----- DSNE --------------------------------------------------------------------------------
class _DSNEObjective:
    r"""KL objective of DSNE (eq. 7) and its gradient (eq. 8) in coordinates ``Z``."""

    def __init__(self, Z, y, sigma2, *, normalization="classwise", intra_mass=0.5,
                 block_rows=None, cache_bytes=_CACHE_BYTES, extra_same=None):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        kernel = lambda S: np.exp(-S / (2.0 * sigma2))  # noqa: E731
        self.joint = normalization == "joint"
        masses = (1.0, 1.0)
        if self.joint:
            y = np.asarray(y)
            n_same = int(np.sum(np.bincount(y[y >= 0]) ** 2) - np.sum(y >= 0)) + (
                0 if extra_same is None else int(extra_same.nnz))
            # with no same-class pair all the mass is on the different-class pairs
            masses = (intra_mass, 1.0 - intra_mass) if n_same > 0 else (0.0, 1.0)
        self.weights = P = _PairWeights(
            self.Z, y, kernel, kernel, normalize=True, block_rows=block_rows,
            cache_bytes=cache_bytes, masses=masses, extra_same=extra_same,
        )
        self.has_same = P.n_same_pairs > 0
        plogp = 0.0
        for _s, _e, W, _M, _D in P:
            pos = W > 0
            plogp += float(np.sum(W[pos] * np.log(W[pos])))
        self.plogp = plogp

    def _blocks(self, Y, ny):
        for s, e, W, M, D in self.weights:
            Dy = ny[s:e, None] + ny[None, :] - 2.0 * (Y[s:e] @ Y.T)
            np.maximum(Dy, 0.0, out=Dy)
            U = 1.0 / (1.0 + Dy)
            _zero_diag(U, s, e)
            if D is not None:  # unlabelled samples: pairs outside both groups count nowhere
                U *= M | D
            yield s, e, W, M, Dy, U

    def value_grad_Y(self, Y):
        ny = _pair_sq_dist(Y)
        Zs = Zd = 0.0
        cross = 0.0
        for _s, _e, W, M, Dy, U in self._blocks(Y, ny):
            zs = float(np.sum(U, where=M))
            Zs += zs
            Zd += float(U.sum()) - zs
            cross += float(np.sum(W * np.log1p(Dy)))
        if self.joint:
            E = self.plogp + cross + np.log(Zs + Zd)
            inv_s = inv_d = 1.0 / (Zs + Zd)
        else:
            E = self.plogp + cross + np.log(Zd) + (np.log(Zs) if self.has_same else 0.0)
            inv_s = 1.0 / Zs if self.has_same else 0.0
            inv_d = 1.0 / Zd
        LY = np.empty_like(Y)
        for s, e, W, M, _Dy, U in self._blocks(Y, ny):
            Q = (W - U * np.where(M, inv_s, inv_d)) * U
            LY[s:e] = Q.sum(axis=1)[:, None] * Y[s:e] - Q @ Y
        return float(E), LY

    def value_grad(self, A):
        Y = self.Z @ A.T
        E, LY = self.value_grad_Y(Y)
        return E, 4.0 * (LY.T @ self.Z)


class _SampledDSNEObjective:
    r"""DSNE's objective on sampled pairs (:mod:`graphdr.blocks.pairs`): the sums over the same-class
    and the different-class pairs in :class:`_DSNEObjective` replaced by their unbiased
    estimates (the input normalisers too), same value and gradient otherwise."""

    def __init__(self, Z, y, sigma2, pairs, *, normalization="classwise", intra_mass=0.5):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.joint = normalization == "joint"
        self.pairs = pairs
        kappa = [P.chunk_arrays(lambda r, p: np.exp(-_pairs.sq_distances(self.Z, r, p)
                                                       / (2.0 * sigma2))) for P in pairs]
        sums = [sum(w * float(k.sum()) for (_r, _p, w), k in zip(P, K))
                for P, K in zip(pairs, kappa)]
        self.has_same = sums[0] > 0
        masses = (intra_mass, 1.0 - intra_mass) if self.joint else (1.0, 1.0)
        if not self.has_same:
            masses = (0.0, 1.0)
        self.P = [[m_g / s_g * k for k in K] if s_g > 0 else [0.0 * k for k in K]
                  for m_g, s_g, K in zip(masses, sums, kappa)]
        plogp = 0.0
        for P, probs in zip(pairs, self.P):
            for (_r, _p, w), q in zip(P, probs):
                pos = q > 0
                plogp += w * float(np.sum(q[pos] * np.log(q[pos])))
        self.plogp = plogp

    def value_grad(self, A):
        Y = self.Z @ A.T
        parts = []
        for P, probs in zip(self.pairs, self.P):
            def term(j, _rows, _partners, D2, probs=probs):
                u = 1.0 / (1.0 + D2)
                # cross entropy -p log u = p log(1 + D2), and the normaliser's sum of u
                return (probs[j] * np.log1p(D2), u), (probs[j] * u, -u * u)

            parts.append(P.evaluate(Y, term, n_out=2))
        (c_s, z_s), g_s = parts[0]
        (c_d, z_d), g_d = parts[1]
        zero = np.zeros((2,) + Y.shape)
        g_s = zero if g_s is None else g_s
        g_d = zero if g_d is None else g_d
        E = self.plogp + c_s + c_d
        G = g_s[0] + g_d[0]
        if self.joint:
            E += np.log(z_s + z_d)
            G += (g_s[1] + g_d[1]) / (z_s + z_d)
        else:
            E += np.log(z_d)
            G += g_d[1] / z_d
            if self.has_same:
                E += np.log(z_s)
                G += g_s[1] / z_s
        return float(E), G.T @ self.Z


class DSNE(_LinearNeighborEmbedding):
    r"""Discriminative stochastic neighbour embedding: linear t-SNE with class-wise normalisation.

    .. math::

        \min_A E(A) = \sum_{l_i = l_j} p_{ij} \log\frac{p_{ij}}{q_{ij}}
                    + \sum_{l_i \ne l_k} p_{ik} \log\frac{p_{ik}}{q_{ik}},

    with input similarities :math:`p_{ij} \propto \exp(-\lVert x_i - x_j\rVert^2 / 2\sigma^2)`
    and embedded Student-t similarities
    :math:`q_{ij} \propto (1 + \lVert A (x_i - x_j)\rVert^2)^{-1}`, each normalised to sum 1
    separately over the same-class pairs and over the different-class pairs (paper 003,
    eqs. 5-7; :math:`i \ne j`). The gradient (eq. 8) is

    .. math::

        \frac{\partial E}{\partial A} = 4 A X^\top L(c) X, \qquad
        c_{ij} = (p_{ij} - q_{ij}) (1 + \lVert A (x_i - x_j)\rVert^2)^{-1},

    i.e. :math:`4 A X^\top (L_\text{intra} + L_\text{inter}) X` with the two groups of pairs,
    evaluated in row blocks (two passes: the normalisers first). ``transform(X) = (X - mean_)
    @ components_.T``.

    **Normalisation** (``normalization``). The paper's class-wise normalisation
    (``'classwise'``, above) matches the shape of the same-class similarities and, separately,
    that of the different-class ones; no term compares the two groups, so nothing pushes the
    classes apart, and minimising it can make the starting point worse (UCI vehicle, 10-fold,
    [-1, 1], d = 3, 1-NN: error 48.5 % at the PCA start, 51.1 % after, 23.4 % with the joint
    default; on one fold the KL divergence falls from 0.090 to 0.030 with CG or GD and from
    any scale of the start while the error stays at or above the start's; a diagnosis at
    commit ebf3303, :doc:`/history`). The default
    ``'joint'`` keeps the input similarities of eq. (5) but gives the same-class pairs the
    total mass ``intra_mass`` (the different-class pairs ``1 - intra_mass``) and normalises
    the embedded similarities once over all pairs,

    .. math::

        p_{ij} = \begin{cases} \pi\, \kappa_{ij} / \sum_{l_k = l_l} \kappa_{kl} &
            l_i = l_j \\ (1 - \pi)\, \kappa_{ij} / \sum_{l_k \ne l_l} \kappa_{kl} &
            l_i \ne l_j \end{cases}, \qquad
        q_{ij} = \frac{u_{ij}}{\sum_{k \ne l} u_{kl}}, \qquad
        E(A) = \sum_{i \ne j} p_{ij} \log\frac{p_{ij}}{q_{ij}},

    with :math:`\kappa_{ij} = \exp(-\lVert x_i - x_j\rVert^2 / 2\sigma^2)`,
    :math:`u_{ij} = (1 + \lVert A(x_i - x_j)\rVert^2)^{-1}` and :math:`\pi` =
    ``intra_mass``: the embedding must then put a share :math:`\pi` of its similarity on the
    (few) same-class pairs, which draws the classes together and apart from each other. The
    gradient keeps the form above with :math:`c_{ij} = (p_{ij} - q_{ij}) u_{ij}`. Against
    the start on the shared UCI sets: ``docs/history.rst``.

    **Inner validation** (not in the paper). With ``cv`` folds, DSNE is first fitted on
    ``cv - 1`` folds of the training data (a stratified subsample of at most 5000 samples) and
    the held-out samples are classified by 1-nearest-neighbour both in the starting projection
    and in the optimised one. The optimised projection is kept only if it wins the exact
    McNemar test against the start at the level ``significance``
    (:func:`graphdr.tuning.choose_checkpoint`); otherwise ``fit`` returns the start
    (``checkpoint_ = 0``, no iteration). A class with fewer than two samples, ``cv=None`` or
    ``max_iter=0`` skips it. Why: where DSNE's neighbourhoods carry little class information
    (led7digit: 85 distinct rows among 500, so 1-NN breaks many ties) the optimum can be
    worse than the start on held-out data, or better by a hair (10-fold CV, d = 3: 37.2 %
    against the start's 38.2 %, a gain that another rounding of the ties turned into a loss).
    With the validation DSNE is not worse than its start on 7 of the 8 shared UCI
    sets and 1.1 points worse on heart (24.8 % against 23.7 %, 3 of 270 samples), and keeps
    its large gains (vehicle 48.5 -> 23.4 %, vowel 26.0 -> 12.9 %); where the folds are too
    small to show a gain it keeps the start in most folds (ionosphere 14.0 % against 11.1 %
    without validation, pima 34.0 % against 28.6 %). ``cv=None`` optimises without
    validation; ``significance=1`` keeps whichever has fewer held-out errors (worse than the
    start on heart). The validation costs ``cv`` extra fits on ``(cv - 1) / cv`` of the data
    (``docs/history.rst``).

    When to use it. The default ``d = 2`` is for pictures; 1-NN in it loses to 1-NN on the
    raw features on digits (30.4 % against 1.3 %), vowel (32.7 % against 1.1 %), mnist2k
    (63.4 % against 8.8 %), sonar (30.3 % against 15.4 %) and pima (36.3 % against 29.7 %)
    (``benchmarks/results/defaults.md``: paper 000's protocol, 10-fold CV, [-1, 1] scaling).
    At ``C - 1`` dimensions it matches the raw features on vowel (1.1 %) and is close on
    digits (4.6 %) but not on mnist2k (20.6 %); :class:`DEE` is better at ``C - 1`` on digits
    and mnist2k (2.5 %, 10.3 %).

    Parameters
    ----------
    n_components : int, default=2
        At most ``n_features``.
    sigma : float or None, default=None
        Width of the input Gaussian. None sets :math:`2\sigma^2` to the mean squared distance
        between two samples of the same class.
    normalization : {'joint', 'classwise'}, default='joint'
        One normaliser of the embedded similarities over all pairs, or the paper's two
        (eqs. 5-7; the default before).
    intra_mass : float in (0, 1), default=0.9
        Share :math:`\pi` of the input similarity mass on same-class pairs
        (``normalization='joint'`` only).
    optimizer : {'cg', 'gd'}, default='cg'
        Conjugate gradients (as in the original DSNE) or gradient descent, with a Wolfe line
        search.
    max_iter : int, default=1000
    tol : float, default=1e-4
        Relative decrease of the objective below which the iteration stops.
    init : {'pca', 'random'} or ndarray of shape (n_components, n_features), default='pca'
        As in :class:`DEE`.
    cv : int or None, default=3
        Number of stratified folds (at least 2) of the inner validation against the start
        (reduced to the size of the smallest class; folds dealt by the rows' content);
        None keeps the optimised projection without validation (the paper's algorithm).
    significance : float in (0, 1], default=0.05
        Level of the exact McNemar test by which the optimised projection must beat the start
        on the inner validation; 1 keeps whichever has fewer held-out errors.
    method : {'auto', 'exact', 'approx'}, default='auto'
        How the sums over pairs of samples are evaluated. ``'exact'``: all ``n (n - 1)`` pairs,
        in row blocks (:math:`O(n^2 d)` time per evaluation, bounded memory). ``'approx'``:
        ``n_partners`` partners drawn once per fit for every sample from each group (the other
        samples of its class, and the samples of the other classes; groups of at most
        ``n_partners`` taken whole), and the sums (the input normalisers and the embedded ones)
        replaced by their unbiased estimates (:mod:`graphdr.blocks.pairs`): :math:`O(n m D)` once,
        :math:`O(n m d)` per evaluation, ``8 n m`` bytes. ``'auto'``: ``'exact'`` up to 5000
        samples, ``'approx'`` above. Error and speed: ``docs/history.rst`` (sampled pairs).
    n_partners : int, default=128
        Partners ``m`` per sample and group for ``method='approx'`` (at least 1).
    n_neighbors_unlabelled : int, default=10
        Used only when ``y`` marks unlabelled samples with -1 (scikit-learn's convention): the
        edges of the ``n_neighbors_unlabelled``-nearest-neighbour graph over all samples that
        touch an unlabelled one join the same-class group (its neighbour probabilities), the
        different-class group stays between labelled samples, other pairs with an unlabelled
        sample count in neither; the checkpoint is chosen on the labelled samples.
        ``method='exact'`` only.
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` and of the sampled pairs; None is the fixed seed 0, so two
        default fits agree.
    verbose : int, default=0
    callback : callable or None, default=None
        As in :class:`DEE`.

    Attributes
    ----------
    components_, mean_, objective_, initial_objective_, n_iter_, history_, sigma_, method_,
    converged_, cv_errors_, checkpoint_, classes_, n_features_in_
        As in :class:`DEE` (``cv_errors_`` and ``checkpoint_`` from the inner validation).
    """

    _supports = Supports(unlabelled_rows=True)

    _optimizers = {"cg", "gd"}

    def __init__(
        self,
        n_components=2,
        *,
        sigma=None,
        normalization="joint",
        intra_mass=0.9,
        optimizer="cg",
        max_iter=1000,
        tol=1e-4,
        init="pca",
        cv=3,
        significance=0.05,
        method="auto",
        n_partners=128,
        n_neighbors_unlabelled=10,
        random_state=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.sigma = sigma
        self.normalization = normalization
        self.intra_mass = intra_mass
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.cv = cv
        self.significance = significance
        self.method = method
        self.n_partners = n_partners
        self.n_neighbors_unlabelled = n_neighbors_unlabelled
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback


    def _check_params(self):
        check_positive(self.sigma, "sigma", allow_none=True)
        _pairs.resolve_method(self.method, 0, type(self).__name__)
        _pairs.check_n_partners(self.n_partners)
        check_option(self.normalization, "normalization", {"joint", "classwise"})
        if (not isinstance(self.intra_mass, numbers.Real) or isinstance(self.intra_mass, bool)
                or not 0.0 < self.intra_mass < 1.0):
            raise ValueError(
                f"intra_mass must be a real number in the open interval (0, 1); "
                f"got {self.intra_mass!r}."
            )
        check_option(self.optimizer, "optimizer", self._optimizers)
        if self.cv is not None:
            check_int(self.cv, "cv", min_value=2)
        check_significance(self.significance)
        _check_init_option(self.init)
        _check_descent_params(self)

    @managed_threads
    @checked_parameters
    def fit(self, X, y):
        """Fit the projection by minimising :math:`E(A)` from the start ``init``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
        """
        return self._fit(X, y)

    def _build(self, Z, y_enc, sigma2, rng, method):
        """The objective for one fit (``method`` 'exact', or on pairs sampled from ``rng``)."""
        pairs = self._pairs(y_enc, method, rng)
        if pairs is None:
            problem = _DSNEObjective(Z, y_enc, sigma2, normalization=self.normalization,
                                     intra_mass=self.intra_mass,
                                     extra_same=unlabelled_neighbours(
                                         Z, y_enc, self.n_neighbors_unlabelled))
        else:
            problem = _SampledDSNEObjective(Z, y_enc, sigma2, pairs,
                                            normalization=self.normalization,
                                            intra_mass=self.intra_mass)
        return problem, self.optimizer, None

    def _problem(self, Z, y_enc, sigma2, A0, keys, pairs):
        """``(problem, method, precondition, chosen)``: the objective and its descent, and what
        the inner validation chose (``checkpoint_``, ``cv_errors_``)."""
        wrong = None
        lab = y_enc >= 0
        refuse_sampled_unlabelled(type(self).__name__, lab, pairs)
        if self.cv is not None and self.max_iter > 0:
            # subsample and folds by content, sampled pairs from the fixed seed 0: the
            # checkpoint depends on neither row order nor random_state (labelled samples)
            Zv, yv, kv = _validation_subsample(Z[lab], y_enc[lab], keys[lab])
            folds = self._folds(yv, self.cv, kv)
            rng = seeded(0)
            if folds is not None:
                wrong = self._held_out_wrong(
                    Zv, yv, folds, A0, lambda tr: self._build(Zv[tr], yv[tr], sigma2, rng, pairs))
        chosen = Selected(dict(
            cv_errors_=None if wrong is None else wrong.mean(axis=0),
            checkpoint_=1 if wrong is None else choose_checkpoint(wrong, self.significance)))
        return (*self._build(Z, y_enc, sigma2, seeded(self.random_state), pairs), chosen)
