r"""MKL-DR: dimensionality reduction with multiple kernels (Lin, Liu and Chen; paper 001).

One base kernel :math:`\tilde K_m` per view (:class:`graphdr.multiview.ViewKernel`: centred and
scale-normalised) and the ensemble :math:`\tilde K_\beta = \sum_m \beta_m \tilde K_m`,
:math:`\beta \ge 0`. A sample :math:`x` maps to :math:`A^\top \tilde K(x)\beta` (eq. 29) and the
graph-embedding problem (eq. 17) becomes, with :math:`L`, :math:`L'` the Laplacians of the
intrinsic and penalty graphs,

.. math::

    \min_{A,\ \beta \ge 0}\ J(A, \beta) = \frac{\operatorname{tr}\big(A^\top (S_W^\beta
        + 2\epsilon_\beta \tilde K_\beta) A\big)}
        {\operatorname{tr}\big(A^\top (S_{W'}^\beta + 2\epsilon_\beta \tilde K_\beta) A\big)},
    \qquad S_W^\beta = 2 \tilde K_\beta L \tilde K_\beta,\
    S_{W'}^\beta = 2 \tilde K_\beta L' \tilde K_\beta,

with the ridge :math:`\epsilon_\beta = \text{reg}\cdot\operatorname{tr}(L'\tilde K_\beta)/(n-1)`
on both sides, as in every kernel solver of graphdr (``../shared/notes/algorithms.md`` section
3; ``reg=0`` is the paper's problem, whose optimum collapses training classes to points so that
``J = 0`` for almost any ``beta``). Both sides are
homogeneous of degree 2 in :math:`\beta`, so only the direction of :math:`\beta` matters and
``kernel_weights_`` is normalised to sum 1.

Algorithm 1 alternates

* **A-step** (eq. 21): for fixed :math:`\beta`, kernel graph embedding on
  :math:`\tilde K_\beta`, solved in its empirical kernel map ``Z`` by
  :func:`graphdr.solvers.generalized_eigh`, or for LDA's class graphs by one Cholesky
  factorisation (:func:`graphdr.solvers.class_kernel_eigh`) (:func:`a_step`);
* **beta-step** (eq. 25): for fixed ``A``, the :math:`M \times M` matrices
  :math:`S^A_W[m, m'] = 2\operatorname{tr}(A^\top \tilde K_m L \tilde K_{m'} A)` (eqs. 23-24, no
  loop over pairs: :func:`beta_matrices`), plus the ridge's
  :math:`\beta^\top R \beta` on both, and the SDP relaxation of
  :math:`\min \beta^\top (S^A_W + R) \beta` s.t. :math:`\beta^\top (S^A_{W'} + R) \beta = 1`,
  :math:`\beta \ge 0` (:func:`beta_step`).

The relaxation is not tight, so :math:`J` may rise between iterations: it is evaluated exactly
at every iterate and the best pair :math:`(A, \beta)` is kept.

**Nystroem** (``approximation='nystroem'``): each base kernel is replaced by landmark features,
:math:`\tilde K_m \approx \Phi_m\Phi_m^\top` (:meth:`graphdr.multiview.ViewKernel.fit_features`),
so :math:`\tilde K_\beta = \Psi\Psi^\top` with :math:`\Psi = [\sqrt{\beta_m}\Phi_m]`
(``n x D``, :math:`D = \sum_m r_m`). ``A`` enters both steps only through
:math:`\Phi^\top A` (``D x P``), and :math:`\Phi^\top\Phi`, :math:`\Phi^\top L\Phi`,
:math:`\Phi^\top L'\Phi` are computed once (:class:`_LandmarkProblem`): the A-step is the same
problem in ``D`` dimensions (the Cholesky path becomes a ``D x D`` factorisation, the eigenvalue
path the eigendecomposition of :math:`\Psi^\top\Psi`), with the same dual ``A`` as the exact
path, and the beta-step matrices are traces of ``D``-dimensional blocks. No ``n x n`` matrix is
formed; with every sample as a landmark the fit is the exact one up to rounding.
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from sklearn import config_context
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from . import graphs as _graphs
from ._validation import check_int, check_labels, check_n_components, check_option, check_positive
from .kernel_matrices import kernel_distances
from .linear import class_neighbour_graphs
from .multiview import (
    check_views,
    finish_landmark_features,
    lazy_landmark_features,
    make_view_kernels,
)
from .routes import (
    SCALINGS,
    GraphProblem,
    metric_transform,
    solve_class_kernel,
    solve_graph_problem,
)
from .sampling import canonical_order, landmark_indices, row_keys, stratified_folds
from .solvers import class_ratio_eigh, embedding_signs, generalized_eigh, orientation_signs
from .spaces import KernelMap, resolve_approximation, take_rows
from .stats import class_statistics, is_dask_array, raise_if_nonfinite
from .tuning import check_auto, inverse_median, neighbour_errors, search_kernels

__all__ = [
    "MKLDR",
    "SDPSolverError",
    "a_step",
    "beta_step",
    "beta_matrices",
    "kernel_scatter",
]


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


# ----- Nystroem path: everything in the stacked landmark-feature space --------------------------
class _LandmarkProblem:
    r"""The MKL-DR problem on Nystroem features :math:`\Phi_m` (``n x r_m``, centred).

    With :math:`\Phi = [\Phi_1, \dots, \Phi_M]` (``n x D``) it keeps the ``D x D`` matrices
    :math:`G = \Phi^\top\Phi`, :math:`Q = \Phi^\top L \Phi` and :math:`Q' = \Phi^\top L'\Phi`
    (and the class sums :math:`\Phi^\top E` for LDA), computed once at cost ``O(n D^2)``.
    Since :math:`\tilde K_\beta = \Psi\Psi^\top` with :math:`\Psi = \Phi\,\mathrm{diag}(d)`,
    :math:`d = (\sqrt{\beta_m})` repeated over the block of view ``m``, both steps then work
    in ``D`` dimensions: a sample-coefficient matrix ``A`` (``n x P``) is represented by
    :math:`\Phi^\top A` (``D x P``, its block ``m`` is :math:`\Phi_m^\top A`), from which
    :math:`\tilde K_m A = \Phi_m \Phi_m^\top A` and
    :math:`\operatorname{tr}(A^\top \tilde K_m L \tilde K_{m'} A)
    = \operatorname{tr}\big((\Phi_m^\top A)^\top Q_{mm'} (\Phi_{m'}^\top A)\big)`.
    """

    def __init__(self, Phis, intrinsic, penalty, y_enc=None):
        sizes = [P.shape[1] for P in Phis]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.blocks = [slice(int(a), int(b)) for a, b in zip(offsets[:-1], offsets[1:])]
        Phi = np.hstack(Phis) if len(Phis) > 1 else Phis[0]
        self.Phi = Phi  # n x D: the stacked features (the caller may drop its list)
        self.n = Phi.shape[0]
        self.gram = _sym_np(Phi.T @ Phi)
        self.class_sums = None
        if y_enc is not None:
            self.class_sums = np.asarray(
                _graphs.within_class_graph(y_enc).indicator().T @ Phi).T  # D x C
            self.class_sizes = np.bincount(y_enc)
        self.Q = self._form(intrinsic, Phi)
        self.Qp = self._form(penalty, Phi)
        self.trace_penalty = np.array([np.trace(self.Qp[b, b]) for b in self.blocks])

    @classmethod
    def from_statistics(cls, gram, class_sums, y_enc, blocks, intrinsic, penalty):
        """The problem of class graphs of constant degree (LDA's) from the centred Gram matrix
        and class sums of the features (``C x D``): no features in memory (Dask views)."""
        self = cls.__new__(cls)
        self.blocks, self.Phi, self.n = list(blocks), None, len(y_enc)
        self.gram = _sym_np(gram)
        self.class_sums, self.class_sizes = class_sums.T, np.bincount(y_enc)
        self.Q, self.Qp = self._class_form(intrinsic, class_sums), self._class_form(penalty,
                                                                                class_sums)
        self.trace_penalty = np.array([np.trace(self.Qp[b, b]) for b in self.blocks])
        return self

    def _class_form(self, graph, sums):
        """d G - S^T B S for a class graph of constant degree d and class sums S (C x D)."""
        return _sym_np(graph.degrees()[0] * self.gram - sums.T @ graph.block @ sums)

    def _form(self, graph, Phi):
        """Phi^T L Phi, reusing the Gram matrix for a class graph of constant degree."""
        if isinstance(graph, _graphs.ClassGraph):
            deg = graph.degrees()
            if np.allclose(deg, deg[0], rtol=1e-14, atol=0):
                return self._class_form(graph, np.asarray(graph.indicator().T @ Phi))
        return _sym_np(_graphs.graph_quadratic_form(graph, Phi))

    def scaling(self, beta):
        return np.concatenate([np.full(b.stop - b.start, np.sqrt(max(w, 0.0)))
                               for w, b in zip(beta, self.blocks)])

    def ridge(self, beta, reg):
        return reg * float(beta @ self.trace_penalty) / max(self.n - 1, 1)

    def a_step(self, beta, reg, rank_tol=None, class_path=False):
        """A-step (eq. 21) in D dimensions; returns (ratios, Phi^T A), same A as :func:`a_step`."""
        beta = np.asarray(beta, dtype=np.float64)
        d = self.scaling(beta)
        eps = self.ridge(beta, reg)

        def scaled(Q):  # diag(d) Q diag(d), one D x D array
            out = Q * d[:, None]
            out *= d[None, :]
            return out

        if class_path and eps > 0 and self.class_sums is not None:
            # A = (K_beta + eps I)^{-1} E c, as graphdr.solvers.class_kernel_eigh. With
            # R = (Psi^T Psi + eps I)^{-1} Psi^T E (push-through identity):
            # E^T K_beta (K_beta + eps I)^{-1} E = (Psi^T E)^T R
            try:
                Mb = d[:, None] * self.class_sums
                Gb = scaled(self.gram)  # Psi^T Psi
                Gb[np.diag_indices_from(Gb)] += eps
                R = linalg.cho_solve(
                    linalg.cho_factor(Gb, overwrite_a=True, check_finite=False), Mb,
                    check_finite=False)
                del Gb
                ratios, C = class_ratio_eigh(Mb.T @ R, np.diag(1.0 / self.class_sizes))
                # Phi^T A = Phi^T (E c - Psi w) / eps with w = Psi^T A = R c
                PtA = (self.class_sums @ C - self.gram @ (d[:, None] * (R @ C))) / eps
                return 1.0 - ratios, PtA
            except np.linalg.LinAlgError:  # not positive definite: use the eigenvalue path
                pass
        # empirical kernel map of K_beta: Z = Psi V with Psi^T Psi = V Lambda V^T
        lam, V = linalg.eigh(scaled(self.gram), overwrite_a=True)
        lam, V = lam[::-1], V[:, ::-1]
        tol = (self.n * np.finfo(np.float64).eps if rank_tol is None else rank_tol) * max(
            lam[0], 0.0)
        keep = lam > max(tol, 0.0)
        if not np.any(keep):
            raise ValueError("The combined kernel is zero on the landmark features.")
        lam, V = lam[keep], V[:, keep]
        Aq = V.T @ (scaled(self.Q) @ V)
        Bq = V.T @ (scaled(self.Qp) @ V)
        mu, Vz = generalized_eigh(Aq, Bq, largest=False, ridge=eps, rank_tol=rank_tol)
        # A = P Lambda^{-1/2} v = Psi V Lambda^{-1} v
        return mu, self.gram @ (d[:, None] * (V @ (Vz / lam[:, None])))

    def beta_matrices(self, PtA=None):
        """S_W^A and S_W'^A (M x M) and the ridge vector k (k_m = tr(A^T K_m A))."""
        M = len(self.blocks)
        S, Sp = np.empty((M, M)), np.empty((M, M))
        k = np.empty(M)
        for m, bm in enumerate(self.blocks):
            Gm = self.gram[bm, bm] if PtA is None else PtA[bm]
            k[m] = np.trace(Gm) if PtA is None else np.vdot(Gm, Gm)
            for j in range(m, M):
                bj = self.blocks[j]
                if PtA is None:  # A A^T = I: tr(K_m L K_j) = <Phi_m^T Phi_j, Phi_m^T L Phi_j>
                    S[m, j] = S[j, m] = 2.0 * np.vdot(self.gram[bm, bj], self.Q[bm, bj])
                    Sp[m, j] = Sp[j, m] = 2.0 * np.vdot(self.gram[bm, bj], self.Qp[bm, bj])
                else:
                    S[m, j] = S[j, m] = 2.0 * np.vdot(PtA[bm], self.Q[bm, bj] @ PtA[bj])
                    Sp[m, j] = Sp[j, m] = 2.0 * np.vdot(PtA[bm], self.Qp[bm, bj] @ PtA[bj])
        return S, Sp, k

    def weights(self, beta, PtA):
        """Weights W on the stacked features with K_beta A = Phi W."""
        return (self.scaling(beta) ** 2)[:, None] * PtA

    def fitted(self, beta, PtA, reg):
        """``components_`` on the stacked features, ``embedding_`` and the ratios (without
        features in memory: ``_scatters``, the within-class and total scatter of the embedding,
        instead of ``embedding_``)."""
        W = self.weights(beta, PtA)
        U = np.zeros((self.n, W.shape[1])) if self.Phi is not None else None
        for b, blk in zip(beta, self.blocks):
            if b != 0 and U is not None:
                U += self.Phi[:, blk] @ W[blk]
        # tr(A^T K_beta A) = sum_m beta_m |Phi_m^T A|^2
        sq_norms = np.sum(self.scaling(beta)[:, None] ** 2 * PtA**2, axis=0)
        ridge = self.ridge(beta, reg) * sq_norms
        ratios = (np.sum(W * (self.Q @ W), axis=0) + ridge) / (
            np.sum(W * (self.Qp @ W), axis=0) + ridge)
        fitted = dict(components_=W.T, landmark_feature_slices_=list(self.blocks),
                      eigenvalues_=ratios)
        if U is None:  # LDA's graphs: the within-class scatter is Q
            fitted["_scatters"] = (W.T @ self.Q @ W, W.T @ self.gram @ W, self.n)
            fitted["_class_means"] = (self.class_sums.T @ W) / self.class_sizes[:, None]
        else:
            fitted["embedding_"] = U
        return fitted, np.sqrt(sq_norms)


def _sym_np(M):
    return (M + M.T) / 2.0


class _KernelProblem:
    r"""The MKL-DR problem on the exact centred base kernels :math:`\tilde K_m` (``n x n``)."""

    def __init__(self, Ks, intrinsic, penalty, y_enc=None):
        self.Ks, self.intrinsic, self.penalty, self.y_enc = Ks, intrinsic, penalty, y_enc
        self.n = Ks[0].shape[0]
        self.trace_penalty = np.array([_laplacian_trace(penalty, K) for K in Ks])

    def a_step(self, beta, reg, rank_tol=None, class_path=False):
        return a_step(self.Ks, beta, self.intrinsic, self.penalty, reg=reg,
                      trace_penalty=self.trace_penalty, rank_tol=rank_tol,
                      y_encoded=self.y_enc if class_path else None)

    def beta_matrices(self, A=None):
        S_W = beta_matrices(self.intrinsic, self.Ks, A)
        S_Wp = beta_matrices(self.penalty, self.Ks, A)
        k = np.array([np.trace(K) if A is None else np.vdot(A, K @ A) for K in self.Ks])
        return S_W, S_Wp, k

    def fitted(self, beta, A, reg):
        """``dual_coef_``, ``embedding_`` and the per-component ratios of the best iterate."""
        dual = A
        U = sum(b * K for b, K in zip(beta, self.Ks) if b != 0) @ dual
        ridge = reg * float(beta @ self.trace_penalty) / max(self.n - 1, 1) * np.sum(
            dual * U, axis=0)
        ratios = (np.sum(U * _laplacian_apply(self.intrinsic, U), axis=0) + ridge) / (
            np.sum(U * _laplacian_apply(self.penalty, U), axis=0) + ridge)
        norms = np.sqrt(np.maximum(np.sum(dual * U, axis=0), 0.0))  # ||w|| = sqrt(a^T K a)
        return dict(dual_coef_=dual, embedding_=U, eigenvalues_=ratios), norms


def _regularised_beta_matrices(problem, A, reg):
    """The beta-step's M x M matrices with the ridge's quadratic form on both sides."""
    S_W, S_Wp, k = problem.beta_matrices(A)
    R = _ridge_matrix(problem.trace_penalty, k, reg, problem.n)
    return S_W + R, S_Wp + R


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
    :func:`graphdr.solvers.class_kernel_eigh` (no eigendecomposition of the ``n x n`` kernel).

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
        See :func:`graphdr.kernel_matrices.empirical_kernel_map`.
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
    import cvxpy as cp

    check_option(solver, "solver", {"auto", "clarabel", "scs"})
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
        warnings.warn(
            f"The beta-step SDP failed with {failures[0]}; it was solved with {used} instead.",
            UserWarning, stacklevel=2,
        )
    Yv = (Y.value + Y.value.T) / 2
    B = Yv[1:, 1:]
    lam, U = linalg.eigh(B)
    u = U[:, -1] * (1.0 if U[:, -1].sum() >= 0 else -1.0)
    cands = {"rank_one": np.sqrt(max(lam[-1], 0.0)) * np.clip(u, 0.0, None),
             "solver": np.clip(Yv[1:, 0], 0.0, None)}
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


def choose_weight_shrinkage(estimator, views, y_enc, kernels=None):
    """``weight_shrinkage`` of an MKLDR, or the grid value with the lowest inner-CV error.

    For ``'auto'``: each of 3 stratified folds learns its own weights (Algorithm 1) on the other
    folds, then every ``t`` of :data:`SHRINKAGE_GRID` is scored by the mean of the 1-NN and
    nearest-centroid errors of the held-out fold, with the base kernels ``kernels`` (their
    widths chosen on all the training data) and the estimator's ``reg_``. Returns
    ``(t, errors or None)``.
    """
    if not (isinstance(estimator.weight_shrinkage, str) and estimator.weight_shrinkage == "auto"):
        return float(estimator.weight_shrinkage), None
    counts = np.bincount(y_enc)
    if counts.min() < 2:
        raise ValueError(
            "weight_shrinkage='auto' chooses the pull towards equal weights by an inner "
            "stratified cross-validation, which needs at least 2 samples in every class (a "
            f"class has {counts.min()}). Pass weight_shrinkage=0.0 (the paper's weights) or "
            "a value in [0, 1]."
        )
    errors = np.zeros(len(SHRINKAGE_GRID))
    precomputed = [vk.kernel == "precomputed"
                   for vk in make_view_kernels(estimator.kernels, len(views))]
    # folds dealt by content key, each in canonical order: the same whatever the row order
    keys = row_keys(views, precomputed=precomputed)
    folds = stratified_folds(y_enc, int(min(3, counts.min())), keys)
    for train, test in folds:
        train = train[canonical_order(keys[train], y_enc[train])]
        inner = clone(estimator).set_params(weight_shrinkage=0.0, verbose=0)
        if kernels is not None:
            inner.set_params(kernels=list(kernels))
        inner.classes_, inner.reg_ = estimator.classes_, estimator.reg_
        y_train = y_enc[train]
        problem = inner._learn_weights(
            [V[np.ix_(train, train)] if pre else V[train] for V, pre in zip(views, precomputed)],
            y_train)
        test_views = [V[np.ix_(test, train)] if pre else V[test]
                      for V, pre in zip(views, precomputed)]
        for i, t in enumerate(SHRINKAGE_GRID):
            inner._finish(problem, t, y_train)
            Y_test = inner.transform(test_views)
            errors[i] += np.mean(neighbour_errors(inner.embedding_, y_train, Y_test,
                                                y_enc[test]))
    errors /= len(folds)
    best = int(np.flatnonzero(errors <= errors.min() + 1e-12)[-1])  # ties: more shrinkage
    if estimator.verbose:
        print(f"[MKLDR] weight_shrinkage by inner CV: errors {np.round(errors, 4).tolist()} "
              f"for {list(SHRINKAGE_GRID)} -> {SHRINKAGE_GRID[best]}")
    return float(SHRINKAGE_GRID[best]), errors


#: base kernels with a width that ``sigma='auto'`` chooses
_WIDTH_KINDS = ("rbf", "chi2", "distance")


def _subsample_rows(views, kernels, m, rows):
    """Rows ``rows`` of view ``m`` in memory (the kernel block for a precomputed view)."""
    V = views[m]
    sub = V[np.ix_(rows, rows)] if kernels[m].kernel == "precomputed" else V[rows]
    return np.asarray(sub.compute() if is_dask_array(sub) else sub, dtype=np.float64)


def choose_kernels(estimator, views, y_enc):
    r"""The base kernels of an MKLDR with their widths, and its ridge.

    A base kernel with ``sigma='auto'`` (``'rbf'``, ``'chi2'``, ``'distance'``) gets the width
    that kernel LDA on its view alone prefers: :func:`graphdr.tuning.search_kernels` over
    :math:`\sigma^{-2} \in \gamma_0 \cdot 4^{\{-5..1\}}` (:math:`\gamma_0` the inverse median
    of :math:`d^2`) with the ridge searched jointly. ``reg='auto'`` is the ridge kernel LDA
    prefers on the equal-weight average of the base kernels (the ``weight_shrinkage=1`` end of
    MKL-DR, where its problem is kernel LDA's). Every search uses the same stratified
    subsample and folds (chosen by the rows' content keys). Returns ``(kernels, reg, per-view
    cv_results or None, cv_results of the ridge or None)``.
    """
    kernels = make_view_kernels(estimator.kernels, len(views))
    auto_reg = isinstance(estimator.reg, str)
    widths = [vk.kernel in _WIDTH_KINDS and isinstance(vk.sigma, str) and vk.sigma == "auto"
              for vk in kernels]
    if not (auto_reg or any(widths)):
        return kernels, float(estimator.reg), None, None
    kw = dict(block_of=lambda sizes: np.diag(1.0 / sizes), name="MKLDR",
              keys=row_keys(views, precomputed=[vk.kernel == "precomputed" for vk in kernels]))
    cv = [None] * len(views)
    for m, vk in enumerate(kernels):
        if not widths[m]:
            continue

        def width_family(rows, m=m, vk=vk):
            Vs = _subsample_rows(views, kernels, m, rows)
            D2 = vk._sq_dist(Vs, Vs)
            gamma0 = inverse_median(D2)
            if gamma0 is None:
                raise ValueError(f"View {m}: every pair of samples is at distance 0 (a constant "
                                 "view): a kernel width cannot be chosen. Remove the view.")
            return gamma0, lambda g: np.exp(-g * D2)

        gamma, _, cv[m] = search_kernels(width_family, y_enc, **kw)
        vk.set_params(sigma=float(1.0 / np.sqrt(gamma)))
    def average_kernel(rows):
        K = sum(clone(vk).fit_kernel(_subsample_rows(views, kernels, m, rows))
                for m, vk in enumerate(kernels)) / len(kernels)
        return None, lambda g: K

    if auto_reg:
        _, reg, reg_cv = search_kernels(average_kernel, y_enc, **kw)
    else:
        reg, reg_cv = float(estimator.reg), None
    if estimator.verbose:
        sig = [None if vk.sigma in (None, "auto") else round(float(vk.sigma), 4) for vk in kernels]
        print(f"[MKLDR] base kernel widths {sig}, reg {reg:g}")
    return kernels, reg, cv, reg_cv


def _fitted_in_metric(estimator, fitted, norms, y_enc):
    """Fitted attributes in the metric of ``scaling`` (:func:`graphdr.routes.metric_transform`)."""
    scatters = fitted.pop("_scatters", None)
    means = fitted.pop("_class_means", None)
    U = fitted.get("embedding_")
    if U is not None:
        scatters = (_graphs.graph_quadratic_form(_graphs.within_class_graph(y_enc), U), U.T @ U,
                    U.shape[0])
    within, total, n = scatters
    if estimator.scaling == "total":
        R = np.eye(total.shape[0])
    else:
        R = metric_transform(estimator.scaling, within, total, norms, n_samples=n,
                             n_classes=len(estimator.classes_), reg=estimator.reg_)
    key = "dual_coef_" if "dual_coef_" in fitted else "components_"
    coef = fitted[key] @ R if key == "dual_coef_" else fitted[key].T @ R
    # the sign convention (graphdr.solvers.orientation_signs)
    if U is not None:
        U = U @ R
        signs = embedding_signs(U, y_enc)
        fitted["embedding_"] = U * signs
    else:  # class statistics only: class means and root-mean-square of the embedding
        scale = np.sqrt(np.maximum(np.diag(R.T @ total @ R), 0.0) / n)
        signs = orientation_signs(means @ R, coef, scale)
    coef = coef * signs
    fitted[key] = coef if key == "dual_coef_" else coef.T
    return fitted


# ----- Dask views (Nystroem, LDA's graphs) -----------------------------------------------------
def _check_dask_views(estimator, Xs, y):
    """Views given as ``dask.array``: what the lazy path supports, checked without computing.

    Returns the views (one column chunk each, row chunks of the first view) and the encoded
    labels (computed: one per sample).
    """
    if not all(is_dask_array(X) for X in Xs):
        raise ValueError("Give every view as a dask array, or none: a list mixing dask and "
                         "in-memory views is not supported.")
    if estimator.approximation not in ("nystroem", "auto"):
        raise ValueError(
            "MKLDR on dask views needs approximation='nystroem' (with n_landmarks): the exact "
            "base kernels are n x n matrices in memory. Pass approximation='nystroem', or "
            "compute the views."
        )
    if estimator.graph != "lda":
        raise ValueError(
            f"MKLDR(graph={estimator.graph!r}) on dask views is not supported: LDE's "
            "neighbour graphs need every sample's features in memory. Use graph='lda', or "
            "compute the views."
        )
    if isinstance(estimator.weight_shrinkage, str):
        raise ValueError(
            "weight_shrinkage='auto' chooses the shrinkage by an inner cross-validation that "
            "refits on folds, which is not done on dask views: pass a number in [0, 1] (0 is "
            "the paper's weights, 1 equal weights), for example the one 'auto' chooses on an "
            "in-memory subsample (its weight_shrinkage_)."
        )
    views = []
    for m, X in enumerate(Xs):
        if any(np.isnan(c) for c in X.chunks[0]):
            raise ValueError(f"View {m} has unknown chunk sizes; call compute_chunk_sizes() "
                             "first.")
        if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
            raise ValueError(f"View {m} must be a 2-D array with at least 2 samples and 1 "
                             f"feature; got shape {X.shape}.")
        if X.dtype.kind not in "fiub":
            raise ValueError(f"View {m} must be numeric; got dtype {X.dtype}.")
        if X.shape[0] != Xs[0].shape[0]:
            raise ValueError("All views must have the same number of rows (samples); got "
                             f"{[V.shape[0] for V in Xs]}.")
        views.append(X.rechunk((Xs[0].chunks[0], -1)))
    y = np.asarray(y.compute() if is_dask_array(y) else y)
    estimator.classes_, y_enc, _ = check_labels(y, min_per_class=1, method="MKLDR")
    if len(y_enc) != views[0].shape[0]:
        raise ValueError(f"y has {len(y_enc)} labels but the views have {views[0].shape[0]} rows.")
    return views, y_enc


def _dask_landmark_problem(estimator, views, kernels, y_enc):
    r""":class:`_LandmarkProblem` of dask views from one pass over the data.

    The landmark rows are computed (the same rows as in memory for the same ``random_state``),
    each view's uncentred features are computed per chunk
    (:func:`graphdr.multiview.lazy_landmark_features`) and reduced with the labels to class
    statistics of the stacked features (:func:`graphdr.stats.class_statistics`): mean, centred
    Gram matrix :math:`G_c` and centred class sums :math:`	ilde U`. With the per-view scales
    :math:`s_m` (from the diagonal blocks of :math:`G_c`) and
    :math:`S = \operatorname{diag}(\sqrt{s_m})`, the problem's matrices are :math:`S G_c S`
    and :math:`	ilde U S`: the features of the in-memory path, never formed.
    """
    import dask.array as da

    n = views[0].shape[0]
    landmarks = landmark_indices(views, estimator.n_landmarks, estimator.random_state)
    feats = [lazy_landmark_features(vk, V, landmarks, take_rows(V, landmarks),
                                    rank_tol=None) for vk, V in zip(kernels, views)]
    stats = class_statistics(da.concatenate(feats, axis=1), y_enc,
                             n_classes=len(estimator.classes_))
    raise_if_nonfinite(stats, "Xs")
    offsets = np.concatenate([[0], np.cumsum([F.shape[1] for F in feats])])
    blocks = [slice(int(a), int(b)) for a, b in zip(offsets[:-1], offsets[1:])]
    G, mean = stats.centered_gram(), stats.mean
    d = np.concatenate([
        np.full(b.stop - b.start, np.sqrt(finish_landmark_features(vk, mean[b], G[b, b], n)))
        for vk, b in zip(kernels, blocks)])
    problem = _LandmarkProblem.from_statistics(
        G * d[:, None] * d[None, :], stats.centered_class_sums() * d[None, :], y_enc, blocks,
        *estimator._graphs(None, y_enc))
    problem.landmarks = landmarks
    return problem


def _view_embedding(V, estimator, m):
    """View ``m``'s term of :math:`A^\top \tilde K(z)\beta` for the rows ``V`` of that view."""
    V = np.asarray(V, dtype=np.float64)
    if not np.all(np.isfinite(V)):
        raise ValueError(f"View {m} contains NaN or infinite values.")
    vk = estimator.view_kernels_[m]
    if hasattr(estimator, "components_"):
        W_m = estimator.components_[:, estimator.landmark_feature_slices_[m]]
        return vk.transform_features(V) @ W_m.T
    return estimator.kernel_weights_[m] * (vk.transform(V) @ estimator.dual_coef_)


def _lazy_transform(estimator, Xs):
    """``transform`` of dask views: a lazy dask array (row chunks of the first view)."""
    if len(Xs) != estimator.n_views_ or not all(is_dask_array(X) for X in Xs):
        raise ValueError(f"Xs must hold {estimator.n_views_} views, all dask arrays or none; got "
                         f"{len(Xs)} views of types {[type(X).__name__ for X in Xs]}.")
    rows, parts = Xs[0].chunks[0], []
    for m, (vk, V, b) in enumerate(zip(estimator.view_kernels_, Xs, estimator.kernel_weights_)):
        width = vk.n_train_ if vk.kernel == "precomputed" else estimator.n_features_in_views_[m]
        if V.ndim != 2 or V.shape != (Xs[0].shape[0], width):
            raise ValueError(f"View {m} must have shape ({Xs[0].shape[0]}, {width}); got "
                             f"{V.shape}.")
        if b != 0:
            parts.append(V.rechunk((rows, -1)).map_blocks(
                _view_embedding, estimator, m, dtype=np.float64,
                chunks=(rows, (estimator.n_components_,))))
    return sum(parts[1:], parts[0])


# ----- the estimator -------------------------------------------------------------------------
class MKLDR(TransformerMixin, BaseEstimator):
    r"""Multiple-kernel dimensionality reduction (MKL-DR; paper 001, Algorithm 1).

    .. math::

        \min_{A,\ \beta \ge 0}\ \frac{\operatorname{tr}\big(A^\top (\tilde K_\beta L
        \tilde K_\beta + \epsilon_\beta \tilde K_\beta) A\big)}
        {\operatorname{tr}\big(A^\top (\tilde K_\beta L' \tilde K_\beta + \epsilon_\beta
        \tilde K_\beta) A\big)}, \qquad \tilde K_\beta = \sum_{m=1}^M \beta_m \tilde K_m ,

    with one base kernel :math:`\tilde K_m` per view, ``L``/``L'`` the Laplacians of the
    intrinsic/penalty graphs of LDA (within-class graph / complete graph, eq. 30) or LDE
    (within-class / between-class neighbour graphs, eqs. 31-32, averaged over the views) and the
    ridge :math:`\epsilon_\beta = \text{reg}\operatorname{tr}(L'\tilde K_\beta)/(n-1)` (on both
    sides; for one kernel this is :class:`graphdr.KernelLDA`'s problem). New samples map
    to :math:`A^\top \tilde K(z) \beta` (eq. 29). See :mod:`graphdr.mkl` for the algorithm.

    Parameters
    ----------
    graph : {'lda', 'lde'}, default='lda'
        The graph-embedding method generalised (MKL-LDA or MKL-LDE).
    n_components : int or None, default=None
        Dimension ``P``. None takes all: ``n_classes - 1`` for LDA; for LDE the rank of the
        penalty scatter (usually large: set it).
    kernels : str, dict, ViewKernel or list of those, default='rbf'
        Base kernel of each view (:func:`graphdr.multiview.make_view_kernels`): ``'rbf'``,
        ``'chi2'``, ``'distance'``, ``'linear'`` or ``'precomputed'`` (then every view of ``fit``
        is an ``n x n`` kernel matrix and of ``transform`` an ``n_new x n_train`` one). A kind
        name has paper 001's mean-distance width; ``{'kernel': 'rbf', 'sigma': 'auto'}`` gets
        the width kernel LDA prefers on its view, chosen from the labels by inner
        cross-validation (:func:`choose_kernels`, ``kernel_cv_results_``). Not the default
        yet: on 240 multi-view digits the chosen widths vary up to 16-fold with the seed and
        the pure-noise view then kept up to 22 % of the weight (under 3 % with the paper's
        widths); on all 1797 (5-fold CV, ``benchmarks/results/mkldr_auto.md``) ``sigma='auto'``
        with ``reg='auto'`` made the same 20 1-NN errors as the defaults at 1.5-3 times the
        fit time, and gave the noise view 27 % of the weight on one fold.
    max_iter : int, default=10
        Iterations (A-step + beta-step) of Algorithm 1.
    tol : float, default=1e-4
        Stop when no entry of the normalised ``beta`` moves by more than ``tol``, or when the
        objective changes by less than ``tol`` relative to its value.
    init : {'identity', 'uniform'}, default='identity'
        Start with a beta-step at :math:`AA^\top = I` (the paper's choice) or with equal weights.
    reg : 'auto' or float, default=1e-3
        Relative ridge of the A-step (0: the paper's unregularised problem). ``'auto'`` is the
        ridge kernel LDA prefers on the equal-weight average of the base kernels, by the inner
        cross-validation of :func:`graphdr.tuning.search_kernels` (``reg_``,
        ``reg_cv_results_``); see :func:`choose_kernels`. Not the default yet: the choice is
        noisy on small training sets (240 digits: 0.001 to 0.32 with the seed).
    scaling : {'within', 'total', 'none'}, default='within'
        Metric inside the learned subspace, as in :class:`graphdr.KernelLDA`: ``'within'``
        whitens the embedded within-class covariance of the training samples (with a ridge of
        ``max(reg, 1e-6)`` times the mean total variance), ``'total'`` keeps the A-step's
        normalisation (the paper's), ``'none'`` gives unit-norm directions in the combined
        feature space. The learned subspace and kernel weights do not depend on it.
    weight_shrinkage : 'auto' or float in [0, 1], default='auto'
        Pull of the learned weights towards equal weights: the final weights are
        :math:`(1-t)\beta + t/M` (then one more A-step). 0 is the paper's algorithm, 1 kernel LDA
        on the average kernel. ``'auto'`` chooses ``t`` in (0, 0.25, 0.5, 0.75, 1) by an inner
        stratified 3-fold cross-validation of the mean 1-NN and nearest-centroid error in the
        embedding (each fold learns its own weights; ties go to more shrinkage): Algorithm 1's
        weights fit the training graph and can lose to equal weights on new samples. About
        three more fits' time.
    n_neighbors, n_neighbors_between : int, default=5, 10
        ``k`` and ``k'`` of LDE's graphs (eqs. 31-32): binary weights, neighbours found with
        the distance each base kernel induces,
        :math:`d^2(i, j) = \tilde K_{ii} + \tilde K_{jj} - 2\tilde K_{ij}` (the view's own
        distance order for RBF, chi-squared and distance kernels), one pair of graphs per view,
        averaged over the views as in the paper.
    solver : {'auto', 'clarabel', 'scs'}, default='auto'
        Conic solver of the beta-step; 'auto' is Clarabel with SCS as fall-back.
    rank_tol : float or None, default=None
        Relative eigenvalue below which a direction of :math:`\tilde K_\beta` is dropped.
    approximation : {'auto', None, 'nystroem'}, default='auto'
        ``'auto'`` (default) is the exact problem up to 3,000 samples (every iteration
        solves a dense ``n x n`` eigenproblem) and ``'nystroem'`` above
        (and for a ``dask.array``), so that no ``n x n`` matrix is formed for larger data unless
        asked for with None; with a precomputed base kernel it is always exact.
        The choice made is stored in ``approximation_`` (None or ``'nystroem'``).
        None uses the exact ``n x n`` base kernels. ``'nystroem'`` replaces each view's
        processed base kernel by landmark features :math:`\Phi_m` (``n x r_m``,
        :math:`r_m \le` ``n_landmarks``, :meth:`ViewKernel.fit_features
        <graphdr.multiview.ViewKernel.fit_features>`: same width, repair, centring and
        normalisation, applied to :math:`\Phi_m\Phi_m^\top \approx \tilde K_m`), so that
        :math:`\tilde K_\beta = \Psi\Psi^\top`, :math:`\Psi = [\sqrt{\beta_m}\Phi_m]`. The
        A-step is then a linear graph embedding on :math:`\Psi` and the beta-step matrices
        :math:`S^A_W[m, m'] = 2\operatorname{tr}((\Phi_m^\top A)^\top\Phi_m^\top L
        \Phi_{m'}(\Phi_{m'}^\top A))` come from ``D x D`` matrices
        (:math:`D = \sum_m r_m \le M\,` ``n_landmarks``) computed once: memory
        :math:`O(nD + D^2)`, time :math:`O(nD^2)` once and :math:`O(D^3)` per iteration; no
        ``n x n`` matrix is formed. With ``n_landmarks >= n_samples`` it is the exact problem
        up to rounding. Not available with ``kernels='precomputed'``. With ``graph='lda'``
        the views may be ``dask.array`` s (see ``fit``).
    n_landmarks : int, default=500
        Landmark samples of the Nystroem approximation (at least 2; capped at ``n_samples``);
        the same samples serve every view.
    random_state : None, int or RandomState, default=None
        Seed of a random choice of the Nystroem landmarks. None takes them by the content of
        the rows (:mod:`graphdr.sampling`): the same on every fit and whatever the row order.
        The exact algorithm and the ``'auto'`` choices (widths, ridge, weight shrinkage, by
        subsample and folds chosen by content) do not use it.
    verbose : int, default=0
        1 prints the objective and weights per iteration, 2 also the SDP details.

    Attributes
    ----------
    kernel_weights_ : ndarray of shape (n_views,)
        :math:`\beta` of the best iterate, non-negative, summing to 1.
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
        ``A`` of the best iterate (exact path only).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding :math:`\tilde K_\beta A` (not stored after a fit on Dask views).
    objective_ : float
        :math:`J` at the best iterate.
    eigenvalues_ : ndarray of shape (n_components_,)
        Regularised ratio (intrinsic over penalty scatter) of each component at the best
        iterate; their mean is ``objective_`` when the A-step's normalisation holds.
    n_iter_ : int
    history_ : dict of lists
        One entry per iteration: ``'objective'`` (J after the beta-step), ``'objective_a_step'``
        (J after the A-step), ``'time'`` (seconds since the start of fit), ``'kernel_weights'``
        (normalised beta after the beta-step), ``'solver'``.
    initial_kernel_weights_ : ndarray of shape (n_views,)
        Weights the first A-step used.
    learned_kernel_weights_ : ndarray of shape (n_views,)
        Algorithm 1's weights before ``weight_shrinkage``.
    weight_shrinkage_ : float
        The ``t`` used.
    shrinkage_cv_errors_ : ndarray of shape (5,) or None
        Inner-CV error of each grid value (``'auto'`` only).
    view_kernels_ : list of ViewKernel
        Fitted base kernels (keep what ``transform`` needs; ``sigma_`` is each width).
    reg_ : float
        The ridge used (``reg``, or the one ``'auto'`` chose).
    kernel_cv_results_ : list of (dict or None) or None
        Per view, the table of the width search (``param_gamma`` is :math:`\sigma^{-2}`),
        None for a view without one; None when nothing was searched.
    reg_cv_results_ : dict or None
        The table of the ridge search (``reg='auto'``).
    components_ : ndarray of shape (n_components_, n_landmark_features)
        Nystroem only (instead of ``dual_coef_``): weights ``W`` on the stacked landmark
        features, :math:`\tilde K_\beta A = [\Phi_1, \dots, \Phi_M] W^\top`; view ``m``
        owns the columns ``landmark_feature_slices_[m]``.
    landmark_indices_ : ndarray of shape (min(n_landmarks, n_samples),)
        Nystroem only: training samples used as landmarks.
    landmark_feature_slices_ : list of slice
        Nystroem only: columns of each view in ``components_``.
    classes_ : ndarray of shape (n_classes,)
    n_components_ : int
    n_views_ : int
    n_features_in_views_ : list of int
    """

    def __init__(
        self, graph="lda", n_components=None, *, kernels="rbf", max_iter=10, tol=1e-4,
        init="identity", reg=1e-3, scaling="within", weight_shrinkage="auto", n_neighbors=5,
        n_neighbors_between=10,
        solver="auto", rank_tol=None, approximation="auto", n_landmarks=500, random_state=None,
        verbose=0,
    ):
        self.graph = graph
        self.n_components = n_components
        self.kernels = kernels
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.reg = reg
        self.scaling = scaling
        self.weight_shrinkage = weight_shrinkage
        self.n_neighbors = n_neighbors
        self.n_neighbors_between = n_neighbors_between
        self.solver = solver
        self.rank_tol = rank_tol
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        check_option(self.graph, "graph", {"lda", "lde"})
        check_option(self.scaling, "scaling", set(SCALINGS))
        if not (isinstance(self.weight_shrinkage, str) and self.weight_shrinkage == "auto"):
            if (not isinstance(self.weight_shrinkage, numbers.Real)
                    or isinstance(self.weight_shrinkage, bool)
                    or not 0.0 <= self.weight_shrinkage <= 1.0):
                raise ValueError("weight_shrinkage must be 'auto' or a number in [0, 1]; got "
                                 f"{self.weight_shrinkage!r}.")
        check_int(self.max_iter, "max_iter")
        check_positive(self.tol, "tol", allow_zero=True)
        check_option(self.init, "init", {"identity", "uniform"})
        check_auto(self.reg, "reg")
        check_int(self.n_neighbors, "n_neighbors")
        check_int(self.n_neighbors_between, "n_neighbors_between")
        check_option(self.solver, "solver", {"auto", "clarabel", "scs"})
        check_int(self.verbose, "verbose", min_value=0)
        if self.approximation is not None:
            check_option(self.approximation, "approximation", {"auto", "nystroem"})
            check_int(self.n_landmarks, "n_landmarks", min_value=2)

    def _graphs(self, Ks, y_enc, features=False):
        r"""LDA's class graphs, or LDE's graphs averaged over the views.

        ``features=True``: ``Ks`` are Nystroem features, whose Euclidean distance is the
        kernel-induced distance of :math:`\Phi_m\Phi_m^\top` (neighbours found in chunks of
        at most 16 MB of distances: no ``n x n`` matrix).
        """
        if self.graph == "lda":
            return _graphs.within_class_graph(y_enc), _graphs.total_graph(y_enc)
        within, between = None, None
        for K in Ks:
            if features:
                # bounded chunks of query-candidate distances (scikit-learn's working memory)
                with config_context(working_memory=16):
                    w, b = class_neighbour_graphs(K, y_enc, self.n_neighbors, self.n_neighbors_between,
                                      weights="binary")
                within = w if within is None else within + w
                between = b if between is None else between + b
                continue
            dist = kernel_distances(K)
            w, b = class_neighbour_graphs(dist, y_enc, self.n_neighbors, self.n_neighbors_between,
                              weights="binary", metric="precomputed")
            within = w if within is None else within + w
            between = b if between is None else between + b
        return within / len(Ks), between / len(Ks)

    @staticmethod
    def _objective(S_num, S_den, beta):
        den = float(beta @ S_den @ beta)
        return float(beta @ S_num @ beta) / den if den > 0 else np.inf

    def fit(self, Xs, y):
        """Learn the kernel weights and the projection (paper 001, Algorithm 1).

        Parameters
        ----------
        Xs : list of array-like or of dask.array.Array
            One array of shape ``(n_samples, n_features_m)`` per view, or one ``n x n`` kernel
            matrix per view with ``kernels='precomputed'``. Dask arrays (every view, or none)
            are accepted with ``approximation='nystroem'``, ``graph='lda'`` and a numeric
            ``weight_shrinkage`` (see Notes).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object

        Notes
        -----
        Dask views are never materialised: the landmark rows (the rows an in-memory fit with
        the same ``random_state`` draws) are computed, each view's landmark features are
        computed per chunk and reduced with the labels to the class statistics of the stacked
        features (``D x D`` and ``C x D``; LDA's graphs need nothing else), and the labels,
        one per sample, are computed. The fit is the in-memory fit up to rounding (the signs of
        individual landmark features, eigenvector signs of the landmark kernel, may differ;
        the embedding does not). ``embedding_`` is not stored (``transform`` gives it lazily).
        Not supported, with a ``ValueError``: the exact kernels, ``graph='lde'`` (neighbour
        graphs need every sample's features) and ``weight_shrinkage='auto'`` (its inner
        cross-validation refits on folds; choose ``t`` on an in-memory subsample instead).
        """
        start = time.perf_counter()
        self._check_params()
        views, y_enc = self._validate(Xs, y)
        kernels, self.reg_, self.kernel_cv_results_, self.reg_cv_results_ = choose_kernels(
            self, views, y_enc)
        problem = self._learn_weights(views, y_enc, start, kernels)
        shrinkage, self.shrinkage_cv_errors_ = self._choose_shrinkage(views, y_enc, kernels)
        self._finish(problem, shrinkage, y_enc)
        if self.verbose:
            print(f"[MKLDR] done after {self.n_iter_} iterations: best J = "
                  f"{self.objective_:.6g}, beta = {np.round(self.kernel_weights_, 4).tolist()}")
        return self

    def _learn_weights(self, views, y_enc, start=None, kernels=None):
        """Algorithm 1 (A-steps and beta-steps); returns the problem for :meth:`_finish`."""
        start = time.perf_counter() if start is None else start
        kernels = make_view_kernels(self.kernels if kernels is None else kernels, len(views))
        problem = self._problem(views, kernels, y_enc)
        beta = self._initial_weights(problem)
        self.initial_kernel_weights_ = beta.copy()
        (obj, A, beta), self.history_, self.n_iter_ = self._alternate(problem, beta, start)
        self.objective_, self.learned_kernel_weights_ = float(obj), beta
        self._best_A = A
        self.view_kernels_ = kernels
        self.n_views_ = len(views)
        self.n_features_in_views_ = [V.shape[1] for V in views]
        return problem

    def _finish(self, problem, shrinkage, y_enc):
        r"""Final weights :math:`(1-t)\beta + t/M`, their A-step, and the fitted attributes."""
        beta, A, reg = self.learned_kernel_weights_, self._best_A, self.reg_
        if shrinkage > 0:
            beta = (1.0 - shrinkage) * beta + shrinkage / len(beta)
            A = problem.a_step(beta, reg, self.rank_tol, class_path=self.graph == "lda")[1]
            A = A[:, : self._best_A.shape[1]]
            self.objective_ = self._objective(*_regularised_beta_matrices(problem, A, reg), beta)
        self.weight_shrinkage_ = float(shrinkage)
        self.kernel_weights_ = beta
        self.n_components_ = A.shape[1]
        for name in ("dual_coef_", "components_", "landmark_indices_", "embedding_",
                     "landmark_feature_slices_"):  # a previous fit of the other path
            self.__dict__.pop(name, None)
        fitted, norms = problem.fitted(beta, A, reg)
        for name, value in self._in_metric(fitted, norms, y_enc).items():
            setattr(self, name, value)
        if isinstance(problem, _LandmarkProblem):
            self.landmark_indices_ = problem.landmarks

    def _choose_shrinkage(self, views, y_enc, kernels):
        return choose_weight_shrinkage(self, views, y_enc, kernels)

    def _in_metric(self, fitted, norms, y_enc):
        return _fitted_in_metric(self, fitted, norms, y_enc)

    def _validate(self, Xs, y):
        if isinstance(Xs, (list, tuple)) and any(is_dask_array(X) for X in Xs):
            return _check_dask_views(self, Xs, y)
        views = check_views(Xs)
        n = views[0].shape[0]
        self.classes_, y_enc, _ = check_labels(y, min_per_class=1, method="MKLDR")
        if len(y_enc) != n:
            raise ValueError(f"y has {len(y_enc)} labels but the views have {n} rows.")
        if n < 2:
            raise ValueError("MKLDR needs at least 2 samples.")
        return views, y_enc

    def _problem(self, views, kernels, y_enc):
        """Base kernels (exact) or their landmark features (Nystroem), with the graphs."""
        lda = self.graph == "lda"
        exact_only = any(vk.kernel == "precomputed" for vk in kernels)
        self.approximation_ = resolve_approximation(self.approximation, len(y_enc), exact_only)
        if self.approximation_ != "nystroem":
            Ks = [vk.fit_kernel(V) for vk, V in zip(kernels, views)]
            return _KernelProblem(Ks, *self._graphs(Ks, y_enc), y_enc if lda else None)
        for m, vk in enumerate(kernels):
            if vk.kernel == "precomputed":
                raise ValueError(
                    f"approximation='nystroem' needs the kernel function of every view; "
                    f"view {m} has kernel='precomputed'. Use approximation=None with "
                    "precomputed kernels, or pass the views' features."
                )
        if is_dask_array(views[0]):
            return _dask_landmark_problem(self, views, kernels, y_enc)
        n = views[0].shape[0]
        n_land = min(int(self.n_landmarks), n)
        landmarks = landmark_indices(views, n_land, self.random_state)
        Phis = [vk.fit_features(V, landmarks) for vk, V in zip(kernels, views)]
        problem = _LandmarkProblem(Phis, *self._graphs(Phis, y_enc, features=True),
                                   y_enc if lda else None)
        problem.landmarks = landmarks
        if self.verbose:
            print(f"[MKLDR] Nystroem: {n_land} landmarks, {problem.gram.shape[0]} landmark "
                  f"features over {len(views)} views")
        return problem

    def _initial_weights(self, problem):
        M = len(problem.trace_penalty)
        if self.init != "identity":
            return np.full(M, 1.0 / M)
        S_num, S_den = _regularised_beta_matrices(problem, None, self.reg_)
        beta, _, info = beta_step(S_num, S_den, solver=self.solver, verbose=self.verbose)
        beta = beta / beta.sum()
        if self.verbose:
            print(f"[MKLDR] init (A A^T = I): beta = {np.round(beta, 4).tolist()} "
                  f"({info['solver']})")
        return beta

    def _n_components(self, A, it):
        if self.graph == "lda":
            C = len(self.classes_)
            max_c, reason = min(C - 1, A.shape[1]), f"n_classes - 1 = {C - 1} for {C} classes"
        else:
            max_c, reason = A.shape[1], "the rank of the penalty scatter of the combined kernel"
        return check_n_components(self.n_components, max_c, reason=reason)

    def _alternate(self, problem, beta, start):
        """A-step and beta-step in turn; returns the best (J, A, beta), history, iterations."""
        reg, lda = self.reg_, self.graph == "lda"
        history = dict(objective=[], objective_a_step=[], time=[], kernel_weights=[], solver=[])
        best, n_components, prev_obj = (np.inf, None, None), None, None
        for it in range(1, self.max_iter + 1):
            _, A = problem.a_step(beta, reg, self.rank_tol, class_path=lda)
            if n_components is None:
                n_components = self._n_components(A, it)
            if A.shape[1] < n_components:
                raise ValueError(
                    f"n_components={n_components} is too large: the combined kernel at "
                    f"iteration {it} gives only {A.shape[1]} directions."
                )
            A = A[:, :n_components]
            S_num, S_den = _regularised_beta_matrices(problem, A, reg)
            obj_a = self._objective(S_num, S_den, beta)
            if obj_a <= best[0]:
                best = (obj_a, A, beta.copy())
            new_beta, _, info = beta_step(S_num, S_den, solver=self.solver,
                                          verbose=self.verbose)
            new_beta = new_beta / new_beta.sum()
            obj_b = self._objective(S_num, S_den, new_beta)
            if obj_b <= best[0]:
                best = (obj_b, A, new_beta.copy())
            for key, value in (("objective", obj_b), ("objective_a_step", obj_a),
                               ("time", time.perf_counter() - start),
                               ("kernel_weights", new_beta.copy()), ("solver", info["solver"])):
                history[key].append(value)
            if self.verbose:
                print(f"[MKLDR] iter {it}: J after A-step {obj_a:.6g}, after beta-step "
                      f"{obj_b:.6g}, beta = {np.round(new_beta, 4).tolist()} "
                      f"({info['solver']}, {history['time'][-1]:.2f}s)")
            change = np.max(np.abs(new_beta - beta))
            beta = new_beta
            rel = (abs(obj_b - prev_obj) / max(abs(prev_obj), np.finfo(float).tiny)
                   if prev_obj is not None else np.inf)
            prev_obj = obj_b
            if change <= self.tol or rel <= self.tol:
                break
        return best, history, it

    def transform(self, Xs):
        """Embed new samples, :math:`z \\mapsto A^\\top \\tilde K(z)\\beta` (eq. 29).

        Parameters
        ----------
        Xs : list of array-like or of dask.array.Array
            The same views as in ``fit`` (kernels against the training samples, of shape
            ``(n_new, n_train)``, for precomputed views).

        Returns
        -------
        X_new : ndarray of shape (n_new, n_components_)
            A lazy ``dask.array.Array`` (row chunks of the first view) for Dask views.
        """
        check_is_fitted(self)
        if isinstance(Xs, (list, tuple)) and any(is_dask_array(X) for X in Xs):
            return _lazy_transform(self, Xs)
        views = check_views(Xs, n_views=self.n_views_)
        out = np.zeros((views[0].shape[0], self.n_components_))
        for m, (vk, V, b) in enumerate(zip(self.view_kernels_, views, self.kernel_weights_)):
            if vk.kernel == "precomputed":
                if V.shape[1] != vk.n_train_:
                    raise ValueError(
                        f"View {m} is a precomputed kernel: transform needs the kernel between "
                        f"new and training samples, with {vk.n_train_} columns; got shape "
                        f"{V.shape}."
                    )
            elif V.shape[1] != self.n_features_in_views_[m]:
                raise ValueError(
                    f"View {m} has {V.shape[1]} features but MKLDR was fitted with "
                    f"{self.n_features_in_views_[m]}."
                )
            if b != 0:
                out += _view_embedding(V, self, m)
        return out

    def fit_transform(self, Xs, y=None, **fit_params):
        """Fit, then return the training embedding (lazy for dask views)."""
        self.fit(Xs, y)
        return self.embedding_.copy() if hasattr(self, "embedding_") else self.transform(Xs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
