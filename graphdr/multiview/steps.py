r"""The two steps of MKL-DR's alternation: the A-step (a kernel graph embedding for fixed
weights) and the beta-step (an SDP relaxation for fixed projections)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg

from .._validation import check_option
from ..graph_embedding.routes import (
    GraphProblem,
    solve_class_kernel,
    solve_graph_problem,
)
from ..graph_embedding.spaces import KernelMap
from .algebra import (
    SDPSolverError,
    _laplacian_trace,
)


# ----- the two steps -------------------------------------------------------------------------
def a_step(Ks, beta, intrinsic, penalty, *, reg=1e-3, trace_penalty=None, rank_tol=None,
           y_encoded=None):
    r"""Kernel graph embedding on :math:`\tilde K_\beta = \sum_m \beta_m \tilde K_m` (eq. 21).

    Solves the regularised problem (ridge on both sides, as every kernel solver of graphdr)

    .. math::

        (\tilde K_\beta L \tilde K_\beta + \epsilon_\beta \tilde K_\beta) a
        = \lambda (\tilde K_\beta L' \tilde K_\beta + \epsilon_\beta \tilde K_\beta) a,
        \qquad \epsilon_\beta = \text{reg}\cdot\operatorname{tr}(L' \tilde K_\beta)/(n-1),

    in the empirical kernel map of :math:`\tilde K_\beta`, or, for LDA's graphs
    (``y_encoded`` given, ``reg > 0``), by the class-structured Cholesky path
    :func:`graphdr.blocks.solvers.class_kernel_eigh` (no eigendecomposition of the ``n x n`` kernel).

    Parameters
    ----------
    Ks : list of ndarray of shape (n, n)
        Centred base kernels.
    beta : ndarray of shape (M,)
        Non-negative kernel weights.
    intrinsic, penalty : graphs (ClassGraph, sparse or dense)
        ``W`` and ``W'``.
    reg : float
    trace_penalty : ndarray of shape (M,) or None
        :math:`\operatorname{tr}(L' \tilde K_m)`, computed when None.
    rank_tol : float or None
        See :func:`graphdr.blocks.kernel_matrices.empirical_kernel_map`.
    y_encoded : ndarray of shape (n,) or None
        Encoded labels when ``intrinsic``/``penalty`` are LDA's within-class/complete graphs:
        enables the Cholesky path.

    Returns
    -------
    eigenvalues : ndarray of shape (r,)
        Increasing ratios.
    A : ndarray of shape (n, r)
        Dual coefficients, :math:`A^\top(\tilde K_\beta L'\tilde K_\beta + \epsilon_\beta
        \tilde K_\beta)A = I`.
    """
    beta = np.asarray(beta, dtype=np.float64)
    n = Ks[0].shape[0]
    Kb = np.zeros((n, n))
    for b, K in zip(beta, Ks):
        if b != 0:
            Kb += b * K
    if trace_penalty is None:
        trace_penalty = np.array([_laplacian_trace(penalty, K) for K in Ks])
    eps = reg * float(beta @ trace_penalty) / max(n - 1, 1)
    space = KernelMap.from_centred_kernel(Kb, rank_tol)
    if y_encoded is not None and eps > 0:
        try:
            ratios, A = solve_class_kernel(space, y_encoded, np.diag(1.0 / np.bincount(y_encoded)),
                                           ridge=eps)
            return 1.0 - ratios, A
        except np.linalg.LinAlgError:  # not positive definite: use the eigenvalue path
            pass
    mu, V = solve_graph_problem(space, GraphProblem(intrinsic, penalty), ridge=eps,
                                rank_tol=rank_tol)
    return mu, space.dual(V)


_SOLVERS = {"clarabel": "CLARABEL", "scs": "SCS"}
#: values of ``weight_shrinkage`` tried by ``'auto'``
SHRINKAGE_GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def beta_step(S_W, S_Wp, *, solver="auto", verbose=0):
    r"""The SDP relaxation (paper 001, eq. 25) of the beta-step.

    .. math::

        \min_{\beta, B} \operatorname{tr}(S^A_W B) \quad\text{s.t.}\quad
        \operatorname{tr}(S^A_{W'} B) = 1,\ \beta \ge 0,\ B \ge 0 \text{ (entrywise)},\
        \begin{bmatrix} 1 & \beta^\top \\ \beta & B \end{bmatrix} \succeq 0 ,

    the relaxation of :math:`\min \beta^\top S^A_W\beta` s.t. :math:`\beta^\top S^A_{W'}\beta = 1,
    \beta\ge 0` obtained by replacing :math:`\beta\beta^\top` by :math:`B \succeq \beta\beta^\top`.
    The entrywise :math:`B \ge 0` is implied by :math:`B = \beta\beta^\top, \beta \ge 0` and
    strengthens the paper's relaxation; it makes the leading eigenvector of ``B`` non-negative.
    The equality constraint (not an inequality) is the one of the notes.

    Only :math:`B \succeq \beta\beta^\top` ties ``beta`` to ``B``, so the solver's ``beta`` is
    one point of a set. Two candidates are compared by the true ratio
    :math:`\beta^\top S^A_W \beta / \beta^\top S^A_{W'} \beta` and the better one returned: the
    solver's ``beta`` and the rank-one part :math:`\sqrt{\lambda_1} u_1` of ``B``; either is
    shrunk, if needed, so that :math:`B \succeq \beta\beta^\top` holds.

    The problem is solved after the diagonal scaling that gives :math:`S^A_{W'}` a unit
    diagonal. Kernels with :math:`S^A_{W'}[m, m] = 0` get weight 0.

    Parameters
    ----------
    S_W, S_Wp : ndarray of shape (M, M)
        Objective and constraint matrices (:func:`beta_matrices`).
    solver : {'auto', 'clarabel', 'scs'}
        ``'auto'`` tries Clarabel, then SCS (with a warning that says so).
    verbose : int

    Returns
    -------
    beta : ndarray of shape (M,)
        Feasible for the SDP together with ``B`` (not normalised).
    B : ndarray of shape (M, M)
    info : dict
        ``solver`` (the one that succeeded), ``status``, ``sdp_value`` (relaxed objective),
        ``ratio`` (true ratio at ``beta``) and ``choice`` ('solver' or 'rank_one').

    Raises
    ------
    SDPSolverError
        When no solver returns an optimal solution.
    """
    check_option(solver, "solver", {"auto", "clarabel", "scs"})
    M, active, d, Sw, Sp, scale = _scaled_matrices(S_W, S_Wp)
    problem, Y, used = _solve_relaxation(Sw, Sp, solver)
    Yv = (Y.value + Y.value.T) / 2
    B = Yv[1:, 1:]
    best_name, best, best_ratio = _best_candidate(B, Yv[1:, 0], Sw, Sp)
    beta = np.zeros(M)
    beta[active] = d * best
    B_full = np.zeros((M, M))
    B_full[np.ix_(active, active)] = B * np.outer(d, d)
    info = dict(solver=used, status=problem.status, sdp_value=float(problem.value) * scale,
                ratio=float(best_ratio) * scale, choice=best_name)
    if verbose > 1:
        print(f"    beta-step: {used} ({problem.status}), relaxed value {info['sdp_value']:.6g}, "
              f"ratio at beta {info['ratio']:.6g} ({best_name})")
    return beta, B_full, info


def _scaled_matrices(S_W, S_Wp):
    """The checked, symmetrised beta-step matrices restricted to the kernels with a positive
    ``S_Wp[m, m]`` and scaled: ``(M, active, d, Sw, Sp, scale)``, ``Sp`` of unit diagonal."""
    S_W = np.asarray(S_W, dtype=np.float64)
    S_Wp = np.asarray(S_Wp, dtype=np.float64)
    M = S_W.shape[0]
    if S_W.shape != (M, M) or S_Wp.shape != (M, M):
        raise ValueError(f"S_W and S_Wp must both be M x M; got {S_W.shape} and {S_Wp.shape}.")
    if not (np.all(np.isfinite(S_W)) and np.all(np.isfinite(S_Wp))):
        raise ValueError("The beta-step matrices contain NaN or infinite values.")
    S_W, S_Wp = (S_W + S_W.T) / 2, (S_Wp + S_Wp.T) / 2
    diag = np.diag(S_Wp)
    active = diag > 1e-12 * max(diag.max(), 0.0)
    if not np.any(active):
        raise ValueError("The beta-step constraint matrix has no positive diagonal entry: no "
                         "kernel gives a non-zero penalty-graph scatter.")
    d = 1.0 / np.sqrt(diag[active])
    Sw = S_W[np.ix_(active, active)] * np.outer(d, d)
    Sp = S_Wp[np.ix_(active, active)] * np.outer(d, d)
    scale = max(np.abs(np.diag(Sw)).max(), np.finfo(float).tiny)
    Sw = Sw / scale
    return M, active, d, Sw, Sp, scale


def _solve_relaxation(Sw, Sp, solver):
    """Solve the SDP relaxation of ``Sw``, ``Sp`` with ``solver`` (``'auto'``: Clarabel, then
    SCS with a warning): ``(problem, Y, the solver used)``, ``Y`` the ``[1, beta; beta, B]``."""
    import cvxpy as cp

    k = Sw.shape[0]
    Y = cp.Variable((k + 1, k + 1), PSD=True)
    Bv, bv = Y[1:, 1:], Y[1:, 0]
    constraints = [Y[0, 0] == 1, bv >= 0, Bv >= 0, cp.trace(Sp @ Bv) == 1]
    problem = cp.Problem(cp.Minimize(cp.trace(Sw @ Bv)), constraints)
    order = ["clarabel", "scs"] if solver == "auto" else [solver]
    failures, used = [], None
    for name in order:
        try:
            problem.solve(solver=_SOLVERS[name])
        except Exception as exc:  # noqa: BLE001 - any solver failure is reported below
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if problem.status in ("optimal", "optimal_inaccurate") and Y.value is not None \
                and np.all(np.isfinite(Y.value)):
            used = name
            break
        failures.append(f"{name}: status {problem.status!r}")
    if used is None:
        raise SDPSolverError(
            "The beta-step SDP (paper 001, eq. 25) could not be solved: "
            + "; ".join(failures) + ". Check the base kernels (NaN, constant views) or try "
            "solver='scs'."
        )
    if failures:
        warnings.warn(  # stacklevel 3: the caller of beta_step, as before
            f"The beta-step SDP failed with {failures[0]}; it was solved with {used} instead.",
            UserWarning, stacklevel=3,
        )
    return problem, Y, used


def _best_candidate(B, b_solver, Sw, Sp):
    """Of the rank-one part of ``B`` and the solver's ``beta`` (``b_solver``), each shrunk
    into ``B >= b b^T``, the one of the smaller true ratio: ``(name, beta, ratio)``."""
    lam, U = linalg.eigh(B)
    u = U[:, -1] * (1.0 if U[:, -1].sum() >= 0 else -1.0)
    cands = {"rank_one": np.sqrt(max(lam[-1], 0.0)) * np.clip(u, 0.0, None),
             "solver": np.clip(b_solver, 0.0, None)}
    Bpinv = np.linalg.pinv(B, rcond=1e-10, hermitian=True)

    def ratio(b):
        den = b @ Sp @ b
        return (b @ Sw @ b) / den if den > 0 else np.inf

    best_name, best, best_ratio = None, None, np.inf
    for name, b in cands.items():
        if not np.any(b > 0):
            continue
        q = float(b @ Bpinv @ b)  # B >= b b^T  iff  b in range(B) and b^T B^+ b <= 1
        if q > 1:
            b = b / np.sqrt(q)
        r = ratio(b)
        if r < best_ratio:
            best_name, best, best_ratio = name, b, r
    if best is None:
        raise SDPSolverError("The beta-step SDP returned beta = 0 and a zero B: no usable "
                             "kernel weights.")
    return best_name, best, best_ratio
