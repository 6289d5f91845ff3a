r"""Spectral discriminant baselines of paper 003: MMPA and discriminative common vectors (DCV).

* :class:`MMPA` -- min-max projection analysis as paper 003 uses it (eq. 9): the ratio of the
  intra-class and inter-class neighbour-graph scatters, solved as a generalized eigenproblem on
  :func:`graphdr.blocks.solvers.generalized_eigh` through the shared graph-embedding machinery.
* :class:`DCV` -- discriminative common vectors (Cevikalp et al., 2005): in the null space of
  the within-class scatter every training class collapses to one *common vector*; the
  principal directions of the common vectors (at most ``C - 1``) are the projection; without
  a null space (``n > D``), the orthonormalised Fisher directions, the limit of the same
  criterion.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.utils.validation import validate_data

from .._threads import managed_threads, map_threads
from .._validation import (
    check_int,
    check_label_values,
    check_labels,
    check_n_components,
    check_positive,
    checked_parameters,
)
from ..blocks import graphs as _graphs
from ..blocks.solvers import data_subspace, embedding_signs
from ..blocks.stats import input_scale
from ..training.selected import Selected
from .estimator import _BaseGraphEmbedding
from .projection import _LinearProjection
from .routes import GraphProblem

__all__ = ["MMPA", "DCV", "mean_class_distances"]

_DTYPES = [np.float64, np.float32]
_BLOCK_PAIRS = 1 << 18


def mean_class_distances(X, y, *, metric="euclidean"):
    """Average Euclidean distance between two samples of the same class and of different ones.

    Computed over all ordered pairs ``n != m`` in row blocks (bounded memory).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Samples, or a square distance matrix when ``metric='precomputed'``.
    y : ndarray of shape (n_samples,)
        Encoded labels.

    Returns
    -------
    intra, inter : float
        Mean same-class and different-class distances (0 when there is no such pair).
    """
    y = np.asarray(y)
    n = X.shape[0]
    b = max(1, _BLOCK_PAIRS // max(n, 1))
    if metric != "precomputed":
        Xf = np.asarray(X, dtype=np.float64)
        sq = np.einsum("ij,ij->i", Xf, Xf)

    def block_sums(s):  # the blocks on the environment's threads, summed in block order
        e = min(s + b, n)
        if metric == "precomputed":
            Dist = np.array(X[s:e], dtype=np.float64)
        else:
            S = sq[s:e, None] + sq[None, :] - 2.0 * (Xf[s:e] @ Xf.T)
            Dist = np.sqrt(np.maximum(S, 0.0))
        Dist[np.arange(e - s), np.arange(s, e)] = 0.0
        M = y[s:e, None] == y[None, :]
        same = float(np.sum(Dist, where=M))
        return same, float(Dist.sum()) - same

    s_same = s_diff = 0.0
    for same, diff in map_threads(block_sums, range(0, n, b)):
        s_same += same
        s_diff += diff
    n_same = int(np.sum(np.bincount(y) ** 2) - n)
    n_diff = n * n - n - n_same
    return (s_same / n_same if n_same else 0.0), (s_diff / n_diff if n_diff else 0.0)


class MMPA(_BaseGraphEmbedding):
    r"""Min-max projection analysis, as used in paper 003 (eq. 9).

    .. math::

        \min_A \frac{\operatorname{tr}(A X^\top L_\text{intra} X A^\top)}
                    {\operatorname{tr}(A X^\top L_\text{inter} X A^\top)}

    with :math:`L_\text{intra}` the Laplacian of the intra-class neighbour graph (each sample
    joined to its ``n_neighbors_intra`` nearest samples of its class) and
    :math:`L_\text{inter}` that of the inter-class neighbour graph (its
    ``n_neighbors_inter`` nearest samples of other classes), both with heat weights
    :math:`\exp(-\lVert x_i - x_j\rVert^2 / \varepsilon^2)`. Following paper 003,
    :math:`\varepsilon_w` and :math:`\varepsilon_b` default to the average intra-class and
    inter-class Euclidean distances. The ratio is solved in its usual ratio-trace form, the
    generalized eigenproblem :math:`X^\top L_\text{intra} X v = \mu (X^\top L_\text{inter} X +
    \epsilon I) v` (smallest :math:`\mu`), in the span of the centred data; the graphs are
    sparse (no ``n x n`` array).

    When to use it. With the default ``d = D``, 1-NN in MMPA's embedding loses to 1-NN on the
    raw features on 5 of 12 sets (``benchmarks/results/defaults.md``: paper 000's protocol,
    10-fold CV, [-1, 1] scaling): wdbc 12.3 % against 4.7 %, breast_cancer 13.4 %
    against 4.6 %, wine 10.1 % against 5.1 %, mnist2k 51.5 % against 8.8 %. At
    ``n_components = C - 1`` it wins on the small sets (4.2 %, 3.9 %, 0.6 %) but not on sonar
    (26.4 %) or mnist2k (21.9 %). In the small-sample regime of paper 003 (60 digits per
    class, raw pixels) it is far behind DEE (66.7 % against 11.4 % at d = 30,
    ``docs/history.rst``).

    Parameters
    ----------
    n_components : int or None, default=None
        At most the rank of the inter-class scatter (None takes all).
    n_neighbors_intra : int, default=5
    n_neighbors_inter : int, default=10
    eps_intra, eps_inter : float or None, default=None
        Heat-kernel widths :math:`\varepsilon_w, \varepsilon_b`; None: the average intra-class
        and inter-class distances.
    reg : float, default=0.0
        Ridge relative to the mean eigenvalue of the inter-class scatter.
    rank_tol : float or None, default=None

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        ``transform(X) = (X - mean_) @ components_.T``;
        :math:`V^\top X^\top L_\text{inter} X V = I`.
    mean_, eigenvalues_, n_components_, classes_, n_features_in_
        As in :class:`graphdr.LDA`.
    eps_intra_, eps_inter_ : float
        Widths used.
    """

    def __init__(
        self, n_components=None, *, n_neighbors_intra=5, n_neighbors_inter=10, eps_intra=None,
        eps_inter=None, reg=0.0, rank_tol=None,
    ):
        self.n_components = n_components
        self.n_neighbors_intra = n_neighbors_intra
        self.n_neighbors_inter = n_neighbors_inter
        self.eps_intra = eps_intra
        self.eps_inter = eps_inter
        self.reg = reg
        self.rank_tol = rank_tol

    def _check_params(self):
        check_int(self.n_neighbors_intra, "n_neighbors_intra")
        check_int(self.n_neighbors_inter, "n_neighbors_inter")
        check_positive(self.eps_intra, "eps_intra", allow_none=True)
        check_positive(self.eps_inter, "eps_inter", allow_none=True)

    def _problem(self, X_graph, y_enc, metric):
        """The graphs, and the heat widths they were built with (``eps_intra_``,
        ``eps_inter_``: the given ones, or the mean distances)."""
        intra, inter = mean_class_distances(X_graph, y_enc, metric=metric)
        eps_w = float(self.eps_intra if self.eps_intra is not None else (intra or 1.0))
        eps_b = float(self.eps_inter if self.eps_inter is not None else (inter or 1.0))
        return GraphProblem(*self._build_graphs(X_graph, y_enc, metric, (eps_w, eps_b)),
                            selected=Selected(dict(eps_intra_=eps_w, eps_inter_=eps_b)))

    def _build_graphs(self, X_graph, y_enc, metric, widths):
        eps_w, eps_b = widths
        kw = dict(y=y_enc, weights="heat", metric=metric)
        # exp(-d^2 / eps^2) is the heat kernel of width sigma = eps / sqrt(2)
        W_intra = _graphs.knn_graph(
            X_graph, self.n_neighbors_intra, restrict="same", sigma=eps_w / np.sqrt(2), **kw
        )
        W_inter = _graphs.knn_graph(
            X_graph, self.n_neighbors_inter, restrict="different", sigma=eps_b / np.sqrt(2), **kw
        )
        return W_intra, W_inter

    def _max_components(self, n_available, n_classes):
        return n_available, "the rank of the inter-class neighbour scatter"


class DCV(_LinearProjection):
    r"""Discriminative common vectors (Cevikalp, Neamtu, Wilkes and Barkana, 2005).

    .. math::

        \max_{W^\top W = I} \operatorname{tr}(W^\top S_\text{com} W), \qquad
        W \subset \operatorname{null}(S_w),

    where :math:`S_w` is the within-class scatter and :math:`S_\text{com}` the scatter of the
    *common vectors* :math:`x^c_\text{com} = N N^\top x` (``N`` an orthonormal basis of the null
    space of :math:`S_w` within the span of the centred data), which are the same for every
    training sample of class ``c``. The projection therefore maps all training samples of a
    class to one point, and has at most ``C - 1`` directions (the rank of
    :math:`S_\text{com}`).

    The null space exists in the small-sample-size case, ``n_features > n_samples - n_classes``
    (more exactly: when the data rank exceeds that of :math:`S_w`); there DCV is exact.

    **No null space** (``n > D``, the usual case), ``null_dim=None``: DCV's criterion is the
    limit :math:`\varepsilon \to 0` of the regularised Fisher criterion
    :math:`\operatorname{tr}((W^\top (S_w + \varepsilon I) W)^{-1} W^\top S_b W)`, whose limit
    subspace is the null-space solution when :math:`S_w` is singular and Fisher's LDA
    subspace when it is not. DCV then returns the leading generalized eigenvectors of
    :math:`S_b v = \rho S_w v` (:math:`S_b = \sum_c n_c (m_c - m)(m_c - m)^\top`),
    orthonormalised by Gram-Schmidt in order of decreasing :math:`\rho` (as DCV
    orthonormalises its difference vectors): the first ``k`` rows span the first ``k`` Fisher
    directions, and ``eigenvalues_`` holds the ratios :math:`\rho`. 1-NN error, 10-fold CV,
    [-1, 1]: equal to scikit-learn's LDA on the two-class sets, vehicle 25.7 % (LDA 24.5 %),
    led7digit 36.0 % (LDA 40.8 %); the smallest-eigenvalue variant is far worse (vehicle
    54.0 % with ``null_dim=C-1``): ``docs/history.rst``. Before, this case
    raised a ``ValueError``.

    With an integer ``null_dim`` the ``null_dim`` eigenvectors of :math:`S_w` with the
    smallest eigenvalues stand in for the null space (the approximate variant of Cevikalp et
    al. for ``n - C >= D``; classes then no longer collapse exactly, and class means replace
    the common vectors).

    When to use it. DCV is built for the small-sample case (more features than samples); it
    then keeps at most ``C - 1`` directions. On data with more samples than features it loses to
    1-NN on the raw features on sonar (27.9 % against 15.4 %, one dimension) and mnist2k
    (25.9 % against 8.8 %) (``benchmarks/results/defaults.md``: paper 000's protocol, 10-fold
    CV, [-1, 1] scaling), and in paper 003's small-sample protocol DEE is far better
    (``docs/history.rst``: 81.9 % against 11.4 % at 60 digits per
    class). Use :class:`KernelLDA` or :class:`DEE` instead unless you need DCV's common vectors.

    Parameters
    ----------
    n_components : int or None, default=None
        At most the rank of the common-vector scatter (``<= n_classes - 1``); None takes all.
    null_dim : int or None, default=None
        None: the exact null space of :math:`S_w`, or the Fisher limit when it has none (see
        above). An integer: that many eigenvectors of :math:`S_w` with the smallest
        eigenvalues.
    rank_tol : float or None, default=None
        Eigenvalues below ``rank_tol * largest`` count as zero (default ``m * machine eps``
        with ``m`` the data rank, times 100).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Orthonormal rows; ``transform(X) = (X - mean_) @ components_.T``.
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (n_components_,)
        Variance of the common vectors along each direction, decreasing (Fisher ratios
        :math:`\rho` when :math:`S_w` has no null space).
        For data whose largest magnitude is outside ``[2**-64, 2**64]``, of ``X / 2**e``
        (the exact power of two the fit divides them by; their squares would underflow or
        overflow).
    null_dim_ : int
        Dimension of the (approximate) null space used (0 for the Fisher limit).
    n_components_ : int
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    """

    def __init__(self, n_components=None, *, null_dim=None, rank_tol=None):
        self.n_components = n_components
        self.null_dim = null_dim
        self.rank_tol = rank_tol

    @managed_threads
    @checked_parameters
    def fit(self, X, y):
        """Fit the projection onto the common vectors' differences.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels; every class needs a sample (-1 is not a label here).

        Returns
        -------
        self : object
        """
        if self.null_dim is not None:
            check_int(self.null_dim, "null_dim")
        check_positive(self.rank_tol, "rank_tol", allow_none=True)
        check_label_values(y, type(self).__name__)
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
        classes, y_enc, sizes = check_labels(y, method="DCV")
        C = len(classes)
        # X / 2**e when max|X| is outside [2**-64, 2**64] (exact): the directions are
        # orthonormal, mean_ is scaled back, eigenvalues_ are those of X / 2**e
        x_scale = input_scale(X)
        Xs = X if x_scale == 1.0 else X / x_scale
        mean = np.mean(Xs, axis=0, dtype=np.float64)
        basis, Z = data_subspace(Xs, mean)
        r = basis.shape[1]
        if r == 0:
            raise ValueError("DCV cannot project constant data: every feature has zero variance.")
        if Z is None:
            Z = (np.asarray(Xs, dtype=np.float64) - mean) @ basis
        means = np.zeros((C, r))
        np.add.at(means, y_enc, Z)
        means /= sizes[:, None]
        Zw = Z - means[y_enc]
        Sw = Zw.T @ Zw
        lam, U = linalg.eigh((Sw + Sw.T) / 2)
        scale = max(float(np.sum(Z * Z)) / max(r, 1), np.finfo(np.float64).tiny)
        tol = 100 * r * np.finfo(np.float64).eps if self.rank_tol is None else self.rank_tol
        null = lam <= tol * max(lam[-1], scale)
        if self.null_dim is None:
            if not np.any(null):
                solved = self._fisher_limit(Z, y_enc, basis, means, sizes, lam, U, C)
                return self._store(X, classes, x_scale, mean, *solved)
            N = U[:, null]
        else:
            if self.null_dim > r:
                raise ValueError(
                    f"null_dim={self.null_dim} is too large: the centred data span has "
                    f"dimension {r}."
                )
            N = U[:, : self.null_dim]
        common = means @ N  # C x k, the common vectors (class means in the null space)
        Cc = common - common.mean(axis=0)
        mu, V = linalg.eigh(Cc.T @ Cc)
        mu, V = mu[::-1], V[:, ::-1]
        keep = mu > 1e-10 * max(mu[0] if mu.size else 0.0, np.finfo(np.float64).tiny)
        max_components = int(np.sum(keep))
        n_components = check_n_components(
            self.n_components, max_components,
            reason=f"the rank of the common-vector scatter (at most n_classes - 1 = {C - 1})",
        )
        V = N @ V[:, :n_components]
        W = (basis @ V) * embedding_signs(Z @ V, y_enc)  # the sign convention (solvers)
        return self._store(X, classes, x_scale, mean, int(N.shape[1]), W, mu[:n_components])

    def _store(self, X, classes, x_scale, mean, null_dim, W, eigenvalues):
        """The fit's one writer of fitted attributes: the directions ``W`` (columns, of the
        rows divided by ``x_scale``) and what the fit found."""
        self.classes_, self._input_scale, self.null_dim_ = classes, x_scale, null_dim
        self.components_ = W.T.astype(X.dtype, copy=False)
        self.eigenvalues_ = eigenvalues
        self.mean_ = (mean * x_scale).astype(X.dtype, copy=False)
        self.n_components_ = W.shape[1]
        return self

    def _fisher_limit(self, Z, y_enc, basis, means, sizes, lam, U, C):
        """Nonsingular S_w: orthonormal basis (Gram-Schmidt, in order) of Fisher's subspace,
        as ``(null_dim, W, eigenvalues)``."""
        # S_w^{-1/2} S_b S_w^{-1/2} in the eigenbasis of S_w, with S_b = sum_c n_c m_c m_c^T
        # (class means of centred data)
        Mw = (means * np.sqrt(sizes)[:, None]) @ U / np.sqrt(lam)  # C x r
        _, s, Vt = linalg.svd(Mw, full_matrices=False)
        ratios = s**2
        keep = ratios > 1e-10 * max(ratios[0] if ratios.size else 0.0,
                                    np.finfo(np.float64).tiny)
        n_components = check_n_components(
            self.n_components, int(np.sum(keep)),
            reason=f"the rank of the between-class scatter (at most n_classes - 1 = {C - 1})",
        )
        V = U @ (Vt[:n_components].T / np.sqrt(lam)[:, None])  # S_w-orthogonal directions
        Q, R = linalg.qr(V, mode="economic")
        Q = Q * np.sign(np.diag(R))[None, :]  # Gram-Schmidt of V's columns, in order
        W = (basis @ Q) * embedding_signs(Z @ Q, y_enc)  # the sign convention (solvers)
        return 0, W, ratios[:n_components]

