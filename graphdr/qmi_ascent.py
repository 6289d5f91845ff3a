r"""QMIProjection: paper 002's gradient ascent of quadratic mutual information.

The criteria (``QMI = V_IN + V_ALL - 2 V_BTW``, ``MI_A = V_IN / V_ALL``, ``MI_B = V_IN / V_BTW``)
and their potentials are those of :mod:`graphdr.qmi`; this module holds only the ascent over
orthonormal projections: the gradient with respect to ``W``, the QR retraction, the
initialisation and the estimator.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from ._validation import check_int, check_labels, check_n_components, check_option, check_positive
from .base import _LinearProjection
from .linear import LDA
from .qmi import (
    _POTENTIALS,
    _criteria,
    _gaussian_constant,
    _potentials_sorted,
    qmi_potential_blocks,
)
from .solvers import flip_signs

__all__ = ["QMIProjection"]

_DTYPES = [np.float64, np.float32]

_CRITERIA = {"qmi": "I_T", "mi_a": "MI_A", "mi_b": "MI_B"}


def _criterion_and_gradient(Y, bounds, class_of_row, blocks, sigma, criterion, *, grad=True,
                            block_size=None):
    """Value of the criterion and its gradient with respect to Y (rows sorted by class)."""
    raw, graw = _potentials_sorted(
        Y, bounds, class_of_row, blocks, sigma, grad=grad, block_size=block_size
    )
    key = _CRITERIA[criterion]
    # the Gaussian constant multiplies I_T but cancels in the ratios: leave it out of those
    const = _gaussian_constant(sigma, Y.shape[1]) if key == "I_T" else 1.0
    V = {k: const * raw[k] for k in _POTENTIALS}
    value = _criteria(V)[key]
    if not grad:
        return value, None
    dV = {k: const * graw[k] for k in _POTENTIALS}
    if key == "I_T":
        g = dV["V_IN"] + dV["V_ALL"] - 2.0 * dV["V_BTW"]
    else:
        den = "V_ALL" if key == "MI_A" else "V_BTW"
        # quotient rule: d(N/D) = (D dN - N dD) / D^2
        g = (V[den] * dV["V_IN"] - V["V_IN"] * dV[den]) / V[den] ** 2
    return value, g


def _qmi_objective_and_grad_W(W, X_sorted, bounds, class_of_row, blocks, sigma, criterion,
                              grad=True, block_size=None):
    """Criterion of Y = X W and its Euclidean gradient X^T dI/dY with respect to W."""
    Y = X_sorted @ W
    value, gY = _criterion_and_gradient(
        Y, bounds, class_of_row, blocks, sigma, criterion, grad=grad, block_size=block_size
    )
    return value, (X_sorted.T @ gY if grad else None)


def _retract(M):
    """QR retraction onto the Stiefel manifold (R with positive diagonal)."""
    Q, R = linalg.qr(M, mode="economic")
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def _complete_basis(Q, Xc, d, rng):
    """Extend the orthonormal columns of Q to d columns: principal directions of the data
    in the orthogonal complement of span(Q), then random directions if the data run out."""
    D = Xc.shape[1]
    k = Q.shape[1]
    if k >= d:
        return Q[:, :d]
    R = Xc - (Xc @ Q) @ Q.T if k else Xc
    lam, U = linalg.eigh(R.T @ R)
    lam, U = lam[::-1], U[:, ::-1]
    good = lam > D * np.finfo(np.float64).eps * max(lam[0], 0.0) if lam.size else lam > 0
    extra = U[:, good][:, : d - k]
    Q = np.hstack([Q, extra]) if k else extra
    while Q.shape[1] < d:
        v = rng.standard_normal((D, d - Q.shape[1]))
        if Q.shape[1]:
            v -= Q @ (Q.T @ v)
        Q = np.hstack([Q, _retract(v)]) if Q.shape[1] else _retract(v)
        Q = _retract(Q)
    return Q


class QMIProjection(_LinearProjection):
    r"""Orthonormal projection maximising quadratic mutual information by gradient ascent.

    .. math::

        \max_{W \in \mathbb R^{D\times d},\; W^\top W = I} \; J(XW), \qquad
        J \in \{ I_T = V_{IN} + V_{ALL} - 2V_{BTW},\;
        MI_A = V_{IN}/V_{ALL},\; MI_B = V_{IN}/V_{BTW} \},

    with the Parzen potentials of :func:`qmi_potentials` (paper 002, eqs. 2, 6, 7, 11-13).

    Gradients are the matrix forms (``notes/algorithms.md``, section 4)
    :math:`\partial V/\partial W = -\sigma^{-2} X^\top L(\Omega_V \circ G) X W` with
    :math:`G_{kl}` the pair Gaussians, and the quotient rule for the ratios; they are
    accumulated in row blocks of the pairwise matrix: ``O(n^2 d + n D d)`` time and
    ``O(block x n)`` memory per iteration.

    Optimisation. ``W`` stays orthonormal (the scale of ``Y`` is fixed by ``W^T W = I``; the
    criterion grows without bound if ``W`` may grow). Each iteration moves along the
    Riemannian gradient :math:`\xi = \Gamma - W\,\mathrm{sym}(W^\top\Gamma)` (``Gamma`` the
    Euclidean gradient), normalised to unit Frobenius norm, by a step ``t`` and retracts with
    a QR factorisation: :math:`W \leftarrow \mathrm{qf}(W + t\,\xi/\lVert\xi\rVert)`. The step is
    accepted only if the Armijo condition :math:`J_{new} \ge J + 10^{-4} t \lVert\xi\rVert`
    holds; otherwise ``t`` is halved (backtracking). After an accepted step ``t`` doubles (up to
    1). Hence the objective never decreases at a fixed ``sigma``. The fit stops when the
    relative gain of an iteration is below ``tol``, when no step down to ``1e-10`` is accepted,
    or after ``max_iter`` iterations (with a ``ConvergenceWarning``).

    Parameters
    ----------
    n_components : int or None, default=None
        Dimension ``d`` of the projection, at most ``n_features``; None means
        ``min(n_classes - 1, n_features)``. Values above ``n_classes - 1`` are allowed (the
        criterion is not rank-limited).
    criterion : {'qmi', 'mi_a', 'mi_b'}, default='qmi'
        ``I_T`` (Torkkola's QMI), ``V_IN / V_ALL`` or ``V_IN / V_BTW``.
    init : {'lda', 'pca', 'random'}, default='lda'
        Initial ``W``: the orthonormalised :class:`graphdr.LDA` directions (when
        ``n_components > n_classes - 1``, completed by the principal directions of the data in
        the orthogonal complement of the LDA subspace), the principal directions, or a random
        orthonormal matrix drawn from ``random_state``.
    sigma : float or None, default=None
        Parzen window width in the projected space (a pair interacts through
        :math:`\exp(-\lVert y_k-y_l\rVert^2 / 4\sigma^2)`). None: half the median pairwise
        distance of the initial projection (over at most 1000 evenly spaced samples), so that
        a pair at the median distance interacts with weight :math:`e^{-1}`.
    anneal : float or None, default=None
        Optional annealing of ``sigma``: start at ``anneal * sigma`` (``anneal >= 1``) and
        decrease geometrically to ``sigma`` over the first half of ``max_iter`` iterations. The
        objective is recorded at the current ``sigma`` and is non-decreasing within each value
        of ``sigma``; the convergence test applies only once ``sigma`` is final.
    max_iter : int, default=100
        Maximum number of gradient iterations.
    tol : float, default=1e-6
        Stop when an iteration raises the objective by less than ``tol`` times its magnitude.
    step_size : float, default=0.1
        Initial step ``t`` (a move of Frobenius length ``t`` before retraction).
    block_size : int or None, default=None
        Rows of the pairwise matrix formed at once (default about ``2e6 / n``).
    random_state : int, RandomState instance or None, default=None
        Seed of ``init='random'`` (and of the random completion of an initial basis).
    verbose : int, default=0
        Print the objective, step, ``sigma`` and elapsed time of every iteration.
    callback : callable or None, default=None
        Called as ``callback(n_iter, W, objective)`` after each iteration; returning True stops.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Orthonormal rows :math:`W^\top`; ``transform(X) = (X - mean_) @ components_.T``.
    mean_ : ndarray of shape (n_features,)
    n_components_ : int
    sigma_ : float
        The final Parzen width used.
    objective_ : float
        Final value of the criterion.
    init_objective_ : float
        Value of the criterion at the initial ``W`` (at the initial ``sigma``).
    n_iter_ : int
        Number of iterations run.
    history_ : dict of lists
        One entry per iteration (``n_iter_`` entries each): ``'objective'`` (after the
        iteration), ``'time'`` (seconds since the start of fit), ``'step'`` (step accepted, 0
        if none), ``'sigma'`` and ``'grad_norm'`` (Riemannian gradient norm before the step).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr.qmi import QMIProjection
    >>> X, y = load_iris(return_X_y=True)
    >>> est = QMIProjection(n_components=2, criterion='mi_a').fit(X, y)
    >>> est.transform(X).shape
    (150, 2)
    """

    def __init__(
        self, n_components=None, *, criterion="qmi", init="lda", sigma=None, anneal=None,
        max_iter=100, tol=1e-6, step_size=0.1, block_size=None, random_state=None, verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.criterion = criterion
        self.init = init
        self.sigma = sigma
        self.anneal = anneal
        self.max_iter = max_iter
        self.tol = tol
        self.step_size = step_size
        self.block_size = block_size
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    # ----- helpers -----------------------------------------------------------------------
    def _check_params(self):
        check_option(self.criterion, "criterion", set(_CRITERIA))
        check_option(self.init, "init", {"lda", "pca", "random"})
        check_positive(self.sigma, "sigma", allow_none=True)
        if self.anneal is not None:
            a = check_positive(self.anneal, "anneal")
            if a < 1:
                raise ValueError(f"anneal must be >= 1 (or None); got {self.anneal!r}.")
        check_int(self.max_iter, "max_iter", min_value=0)
        check_positive(self.tol, "tol", allow_zero=True)
        check_positive(self.step_size, "step_size")
        if self.block_size is not None:
            check_int(self.block_size, "block_size")
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"callback must be callable or None; got {self.callback!r}.")

    def _initial_W(self, X, y, Xc, d, rng):
        D = X.shape[1]
        if self.init == "random":
            return _retract(rng.standard_normal((D, d)))
        if self.init == "pca":
            return _complete_basis(np.zeros((D, 0)), Xc, d, rng)
        lda = LDA().fit(X, y)
        Q = _retract(lda.components_.T.astype(np.float64))[:, : min(d, lda.n_components_)]
        return _complete_basis(Q, Xc, d, rng)

    @staticmethod
    def _median_sigma(Y):
        n = Y.shape[0]
        idx = np.unique(np.linspace(0, n - 1, min(n, 1000)).astype(np.intp))
        Z = Y[idx]
        sq = np.einsum("ij,ij->i", Z, Z)
        D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)
        iu = np.triu_indices(len(idx), k=1)
        med = np.sqrt(np.median(D2[iu])) if iu[0].size else 0.0
        return 0.5 * med if med > 0 else 1.0

    # ----- fit -----------------------------------------------------------------------------
    def fit(self, X, y):
        """Fit the projection by gradient ascent on the criterion.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels of any type, at least two classes.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        self._check_params()
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
        self.classes_, y_enc, sizes = check_labels(y, method=type(self).__name__)
        n, D = X.shape
        C = len(self.classes_)
        d = check_n_components(
            self.n_components if self.n_components is not None else min(C - 1, D),
            D,
            reason=f"a projection of {D} features has at most {D} orthonormal directions",
        )
        rng = check_random_state(self.random_state)
        Xf = np.asarray(X, dtype=np.float64)
        mean = Xf.mean(axis=0)
        Xc = Xf - mean
        W = self._initial_W(X, y_enc, Xc, d, rng)

        order = np.argsort(y_enc, kind="stable")
        Xs = Xc[order]
        cls = y_enc[order]
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        blocks = qmi_potential_blocks(sizes)

        sigma_final = self.sigma if self.sigma is not None else self._median_sigma(Xc @ W)
        anneal = 1.0 if self.anneal is None else float(self.anneal)
        anneal_iters = max(1, self.max_iter // 2) if anneal > 1 else 0

        def sigma_at(it):
            if anneal_iters == 0 or it >= anneal_iters:
                return float(sigma_final)
            return float(sigma_final * anneal ** (1.0 - it / anneal_iters))

        def evaluate(W, sigma, grad=True):
            return _qmi_objective_and_grad_W(
                W, Xs, bounds, cls, blocks, sigma, self.criterion, grad=grad,
                block_size=self.block_size,
            )

        sigma = sigma_at(0)
        f, G = evaluate(W, sigma)
        self.init_objective_ = float(f)
        history = {"objective": [], "time": [], "step": [], "sigma": [], "grad_norm": []}
        step = float(self.step_size)
        converged = False
        it = 0
        if self.verbose:
            print(f"[QMIProjection] criterion={self.criterion} init={self.init} d={d} "
                  f"sigma={sigma:.4g} objective={f:.6g}")
        while it < self.max_iter:
            new_sigma = sigma_at(it)
            if new_sigma != sigma:
                sigma = new_sigma
                f, G = evaluate(W, sigma)
            xi = G - W @ ((W.T @ G + G.T @ W) / 2.0)
            gnorm = float(linalg.norm(xi))
            accepted = 0.0
            gain = 0.0
            if gnorm > 0 and np.isfinite(gnorm):
                direction = xi / gnorm
                t = step
                while t >= 1e-10:
                    W_new = _retract(W + t * direction)
                    f_new, _ = evaluate(W_new, sigma, grad=False)
                    if np.isfinite(f_new) and f_new >= f + 1e-4 * t * gnorm:
                        accepted = t
                        break
                    t /= 2.0
                if accepted:
                    gain = f_new - f
                    W = W_new
                    f, G = evaluate(W, sigma)
                    step = min(2.0 * accepted, 1.0)
                else:
                    step = float(self.step_size)
            it += 1
            elapsed = time.perf_counter() - t0
            history["objective"].append(float(f))
            history["time"].append(elapsed)
            history["step"].append(float(accepted))
            history["sigma"].append(float(sigma))
            history["grad_norm"].append(gnorm)
            if self.verbose:
                print(f"[QMIProjection] iter {it:4d}  objective {f:.8g}  step {accepted:.3g}  "
                      f"|grad| {gnorm:.3g}  sigma {sigma:.4g}  time {elapsed:.2f}s")
            if self.callback is not None and self.callback(it, W.copy(), float(f)):
                break
            if sigma == sigma_final and (
                not accepted or gain <= self.tol * max(abs(f), np.finfo(np.float64).tiny)
            ):
                converged = True
                break
        if not converged and self.max_iter > 0 and it >= self.max_iter:
            warnings.warn(
                f"QMIProjection did not converge in max_iter={self.max_iter} iterations "
                f"(tol={self.tol}); raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.n_iter_ = it
        self.history_ = history
        self.sigma_ = float(sigma_final)
        self.objective_ = float(f)
        self.n_components_ = d
        self.mean_ = mean.astype(X.dtype, copy=False)
        self.components_ = flip_signs(W, axis=0).T.astype(X.dtype, copy=False)
        return self

