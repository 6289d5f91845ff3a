r"""Paper 002's gradient ascent over orthonormal projections: criteria and gradients with respect
to ``W`` (exact or from sampled pairs), the QR retraction, the starting points, the ascent loop."""

from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.covariance import ledoit_wolf_shrinkage
from sklearn.neighbors import NearestNeighbors

from ..blocks.solvers import data_subspace
from .potentials import (
    _POTENTIALS,
    _criteria,
    _gaussian_constant,
    _potentials_sorted,
)

_DTYPES = [np.float64, np.float32]

_CRITERIA = {"qmi": "I_T", "mi_a": "MI_A", "mi_b": "MI_B"}
_TINY = np.finfo(np.float64).tiny
#: largest number of query x reference distances of the brute-force 1-NN of the validation
_BRUTE_MAX = 10**8


def _sampled_potentials(Y, class_of_row, blocks, sigma, pairs, *, grad=True):
    r"""Unbiased estimates of the potentials (and gradients) from sampled pairs.

    ``pairs = (same, different)`` (:mod:`graphdr.blocks.pairs`): the sums over ordered pairs
    :math:`k \ne l` of :math:`B[c_k, c_l]\,G_{kl}` are estimated from them; the diagonal
    (:math:`G_{kk} = 1`) is added exactly. Same conventions as :func:`_potentials_sorted`.
    """
    names = list(blocks)
    B = np.stack([blocks[k] for k in names])  # (3, C, C)
    diag = {k: float(np.sum(np.diagonal(blocks[k])[class_of_row])) for k in names}
    scale = 1.0 / (4.0 * sigma**2)
    values = dict(diag)
    grads = {k: np.zeros_like(Y) for k in names} if grad else None
    for P in pairs:
        def term(_j, rows, partners, D2):
            G = np.exp(-scale * D2)
            Bt = B[:, class_of_row[rows][:, None], class_of_row[partners]]  # (3, k, m)
            vals = [Bt[q] * G for q in range(len(names))]
            return vals, ([-scale * v for v in vals] if grad else None)

        totals, g = P.evaluate(Y, term, n_out=len(names))
        for q, k in enumerate(names):
            values[k] += totals[q]
            if grad and g is not None:
                grads[k] += g[q]
    return values, grads


def _sampled_criterion(Y, class_of_row, blocks, sigma, key, pairs, *, grad=True):
    """The criterion ``key`` and its gradient from sampled pairs: only the potentials it needs
    (``I_T`` as one combined weight block)."""
    if key == "I_T":
        const = _gaussian_constant(sigma, Y.shape[1])
        combined = {"I_T": blocks["V_IN"] + blocks["V_ALL"] - 2.0 * blocks["V_BTW"]}
        raw, graw = _sampled_potentials(Y, class_of_row, combined, sigma, pairs, grad=grad)
        return const * raw["I_T"], (const * graw["I_T"] if grad else None)
    den = "V_ALL" if key == "MI_A" else "V_BTW"
    raw, graw = _sampled_potentials(Y, class_of_row, {"V_IN": blocks["V_IN"], den: blocks[den]},
                                    sigma, pairs, grad=grad)
    value = raw["V_IN"] / raw[den]
    if not grad:
        return value, None
    return value, (raw[den] * graw["V_IN"] - raw["V_IN"] * graw[den]) / raw[den] ** 2


def _criterion_and_gradient(Y, bounds, class_of_row, blocks, sigma, criterion, *, grad=True,
                            block_size=None, pairs=None):
    """Value of the criterion and its gradient with respect to Y (rows sorted by class); the
    potentials from ``pairs`` (sampled, :func:`_sampled_potentials`) when given."""
    key = _CRITERIA[criterion]
    if pairs is not None:
        return _sampled_criterion(Y, class_of_row, blocks, sigma, key, pairs, grad=grad)
    raw, graw = _potentials_sorted(
        Y, bounds, class_of_row, blocks, sigma, grad=grad, block_size=block_size
    )
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
                              grad=True, block_size=None, pairs=None):
    """Criterion of Y = X W and its Euclidean gradient X^T dI/dY with respect to W."""
    Y = X_sorted @ W
    value, gY = _criterion_and_gradient(
        Y, bounds, class_of_row, blocks, sigma, criterion, grad=grad, block_size=block_size,
        pairs=pairs,
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


def _within_metric(Xc, y_enc, shrinkage):
    r"""Whitening ``P`` (``D x r``) of the shrunk within-class scatter in the span of the data.

    With ``B`` an orthonormal basis of the span of the centred data (:func:`data_subspace`) and
    ``R`` the within-class residuals in it (each sample minus its class mean),
    :math:`S = (1-\alpha) R^\top R / n + \alpha \mu I` (``mu`` the mean eigenvalue of
    :math:`R^\top R / n`), and ``P = B S^{-1/2}``: the coordinates ``Z = Xc P`` have identity
    (shrunk) within-class covariance. ``alpha`` is the Ledoit-Wolf estimate for
    ``shrinkage='auto'``. Eigenvalues of ``S`` below ``1e-10`` times the largest are raised to
    that floor (no division by zero for ``shrinkage=0`` and singular scatter).
    Returns ``(P, Z, alpha)``.
    """
    B, Z = data_subspace(Xc, np.zeros(Xc.shape[1]))
    if Z is None:
        Z = Xc @ B
    r = B.shape[1]
    if r == 0:
        return B, Z, 0.0
    R = Z.copy()
    for c in np.unique(y_enc):
        rows = y_enc == c
        R[rows] -= R[rows].mean(axis=0)
    n = Z.shape[0]
    S = R.T @ R / n
    mu = np.trace(S) / r
    if shrinkage == "auto":
        alpha = float(ledoit_wolf_shrinkage(R, assume_centered=True)) if mu > 0 else 1.0
    else:
        alpha = float(shrinkage)
    S = (1.0 - alpha) * S
    S[np.diag_indices(r)] += alpha * mu
    lam, U = linalg.eigh(S)
    top = lam[-1] if lam[-1] > 0 else 1.0
    lam = np.maximum(lam, 1e-10 * top)
    M = U / np.sqrt(lam)
    return B @ M, Z @ M, alpha


def _between_directions(Z, y_enc, d, rng):
    """Top ``d`` eigenvectors of the between-class scatter of ``Z`` (LDA in whitened
    coordinates), completed by principal directions of ``Z`` if ``d`` exceeds its rank."""
    classes = np.unique(y_enc)
    mean = Z.mean(axis=0)
    M = np.vstack([np.sqrt(np.sum(y_enc == c)) * (Z[y_enc == c].mean(axis=0) - mean)
                   for c in classes])
    lam, U = linalg.eigh(M.T @ M)
    lam, U = lam[::-1], U[:, ::-1]
    good = lam > Z.shape[1] * np.finfo(np.float64).eps * max(lam[0], 0.0) if lam.size else lam
    Q = U[:, good][:, :d] if lam.size else np.zeros((Z.shape[1], 0))
    return _complete_basis(Q, Z - mean, d, rng)


def _ascent(W, evaluate, *, solver, max_iter, tol, step_size, sigma_at, sigma_final, record):
    """Maximise ``evaluate(W, sigma)`` over orthonormal ``W`` for at most ``max_iter`` iterations.

    ``sigma_at(i)`` gives the width of iteration ``i`` (annealing); the convergence test applies
    once it equals ``sigma_final``. ``record(W, f, step, grad_norm, sigma)`` is called after every
    iteration; returning True stops. Returns ``(W, f, n_iter, converged, stopped)``.
    """
    sigma = sigma_at(0)
    f, G = evaluate(W, sigma)
    step = float(step_size)
    prev_xi = prev_eta = None
    it = 0
    converged = stopped = False
    while it < max_iter:
        s_new = sigma_at(it)
        if s_new != sigma:
            sigma = s_new
            f, G = evaluate(W, sigma)
            prev_xi = prev_eta = None
        final_sigma = sigma == sigma_final
        if solver == "paper":
            # eq. 15 as printed: W <- W + rho dI/dW, then Gram-Schmidt (QR); no step control
            gnorm = float(linalg.norm(G - W @ ((W.T @ G + G.T @ W) / 2.0)))
            W_new = _retract(W + step_size * G)
            f_new, G_new = evaluate(W_new, sigma)
            gain = f_new - f
            accepted = float(step_size) if np.isfinite(f_new) else 0.0
            if accepted:
                W, f, G = W_new, f_new, G_new
            it += 1
            stopped = bool(record(W, f, accepted, gnorm, sigma))
            if stopped:
                break
            if final_sigma and (not accepted or abs(gain) <= tol * max(abs(f), _TINY)):
                converged = True
                break
            continue
        xi = G - W @ ((W.T @ G + G.T @ W) / 2.0)
        gnorm = float(linalg.norm(xi))
        accepted = 0.0
        gain = 0.0
        was_cg = False
        if gnorm > 0 and np.isfinite(gnorm):
            if solver == "cg" and prev_eta is not None:
                # Polak-Ribiere+ with the previous direction carried over by projection onto
                # the tangent space at W; restart if the result is not an ascent direction
                t_prev = prev_eta - W @ ((W.T @ prev_eta + prev_eta.T @ W) / 2.0)
                t_xi = prev_xi - W @ ((W.T @ prev_xi + prev_xi.T @ W) / 2.0)
                beta = max(0.0, float(np.sum(xi * (xi - t_xi))) / float(np.sum(prev_xi ** 2)))
                eta = xi + beta * t_prev
                slope = float(np.sum(xi * eta))
                was_cg = slope > 0
                if not was_cg:
                    eta, slope = xi, gnorm**2
            else:
                eta, slope = xi, gnorm**2
            enorm = float(linalg.norm(eta))
            direction = eta / enorm
            slope /= enorm
            t = step
            while t >= 1e-10:
                W_new = _retract(W + t * direction)
                f_new, _ = evaluate(W_new, sigma, grad=False)
                if np.isfinite(f_new) and f_new >= f + 1e-4 * t * slope:
                    accepted = t
                    break
                t /= 2.0
            if accepted:
                gain = f_new - f
                prev_xi, prev_eta = xi, eta
                W = W_new
                f, G = evaluate(W, sigma)
                step = min(2.0 * accepted, 1.0)
            else:
                step = float(step_size)
                prev_xi = prev_eta = None
        it += 1
        stopped = bool(record(W, f, accepted, gnorm, sigma))
        if stopped:
            break
        if final_sigma and (not accepted or gain <= tol * max(abs(f), _TINY)):
            if was_cg and not accepted:
                continue  # retry along the gradient before declaring convergence
            converged = True
            break
    return W, f, it, converged, stopped



def _nearest_labels(R, labels, Q, block=2048):
    """Label of the nearest row of ``R`` for each row of ``Q`` (squared distances in blocks;
    a k-d tree when ``R`` and ``Q`` are large and of low dimension)."""
    if R.shape[0] * Q.shape[0] > _BRUTE_MAX and R.shape[1] <= 15:
        nearest = NearestNeighbors(n_neighbors=1).fit(R).kneighbors(Q, return_distance=False)
        return labels[nearest[:, 0]]
    sq = np.einsum("ij,ij->i", R, R)
    out = np.empty(Q.shape[0], dtype=labels.dtype)
    for a in range(0, Q.shape[0], block):
        Qb = Q[a : a + block]
        D2 = sq[None, :] - 2.0 * Qb @ R.T
        out[a : a + block] = labels[np.argmin(D2, axis=1)]
    return out
