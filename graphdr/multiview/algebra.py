r"""MKL-DR's graph algebra: the Laplacian of a graph applied and traced against kernels, the
kernel scatters and the beta-step's matrices (shared by the problems and the steps)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..blocks import graphs as _graphs

__all__ = ["SDPSolverError", "kernel_scatter", "beta_matrices"]


class SDPSolverError(RuntimeError):
    """The conic solvers could not solve the beta-step SDP."""


# ----- graph algebra -------------------------------------------------------------------------
def _laplacian_apply(graph, U):
    """L(W) @ U for a ClassGraph, a sparse or a dense graph, without forming L for ClassGraph."""
    if isinstance(graph, _graphs.ClassGraph):
        E = graph.indicator()
        return graph.degrees()[:, None] * U - E @ (graph.block @ np.asarray(E.T @ U))
    if sp.issparse(graph):
        d = np.asarray(graph.sum(axis=1)).ravel()
        return d[:, None] * U - np.asarray(graph @ U)
    W = np.asarray(graph, dtype=np.float64)
    return W.sum(axis=1)[:, None] * U - W @ U


def _laplacian_trace(graph, K):
    """tr(L(W) K) for a symmetric K."""
    if isinstance(graph, _graphs.ClassGraph):
        E = graph.indicator()
        KE = np.asarray(E.T @ np.asarray(E.T @ K).T)  # E^T K E (C x C)
        return float(graph.degrees() @ np.diag(K) - np.sum(graph.block * KE))
    if sp.issparse(graph):
        Wc = sp.coo_matrix(graph)
        d = np.asarray(graph.sum(axis=1)).ravel()
        return float(d @ np.diag(K) - np.sum(Wc.data * K[Wc.row, Wc.col]))
    W = np.asarray(graph, dtype=np.float64)
    return float(W.sum(axis=1) @ np.diag(K) - np.sum(W * K))


def kernel_scatter(graph, Ks, beta):
    r""":math:`S^\beta_W = 2 K_\beta L(W) K_\beta` (eqs. 19-20), an ``n x n`` matrix.

    For tests and small problems only; the solver never forms it.
    """
    Kb = sum(b * K for b, K in zip(beta, Ks))
    return 2.0 * Kb @ _laplacian_apply(graph, Kb)


def beta_matrices(graph, Ks, A=None):
    r"""The ``M x M`` matrix :math:`S^A_W[m, m'] = 2\operatorname{tr}(A^\top K_m L(W) K_{m'} A)`.

    Equals the paper's pairwise sum (eqs. 23-24)
    :math:`\sum_{ij} w_{ij} (K_{(i)}-K_{(j)})^\top A A^\top (K_{(i)}-K_{(j)})`, from
    :math:`U_m = K_m A` and :math:`L U_m` at cost :math:`O(M n^2 P + M^2 n P)`.

    Parameters
    ----------
    graph : ClassGraph, sparse or dense (n, n)
        The graph ``W``.
    Ks : list of ndarray of shape (n, n)
        Symmetric base kernels.
    A : ndarray of shape (n, P) or None
        Sample coefficients; None means :math:`A A^\top = I` (the paper's default start).
    """
    Us = [K if A is None else K @ A for K in Ks]
    LUs = [_laplacian_apply(graph, U) for U in Us]
    M = len(Us)
    S = np.empty((M, M))
    for m in range(M):
        for k in range(m, M):
            S[m, k] = S[k, m] = 2.0 * np.vdot(Us[m], LUs[k])
    return (S + S.T) / 2.0


def _ridge_matrix(t, k, reg, n):
    r"""Quadratic form of the ridge :math:`2\epsilon_\beta\operatorname{tr}(A^\top K_\beta A)`.

    :math:`2 (\text{reg}/(n-1))(t^\top\beta)(k^\top\beta) = \beta^\top R \beta` with
    :math:`R = (\text{reg}/(n-1))(t k^\top + k t^\top)` (non-negative entries).
    """
    return (reg / max(n - 1, 1)) * (np.outer(t, k) + np.outer(k, t))
