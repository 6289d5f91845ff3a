r"""MKL-DR's problem in its exact and Nystroem (stacked landmark features) forms, on the graph
algebra of :mod:`graphdr.multiview.algebra`."""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..blocks import graphs as _graphs
from ..blocks.solvers import class_ratio_eigh, generalized_eigh
from .algebra import (  # noqa: F401  (SDPSolverError: importable from here as before)
    SDPSolverError,
    _laplacian_apply,
    _laplacian_trace,
    _ridge_matrix,
    beta_matrices,
    kernel_scatter,
)
from .steps import a_step


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
            # A = (K_beta + eps I)^{-1} E c, as graphdr.blocks.solvers.class_kernel_eigh. With
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
