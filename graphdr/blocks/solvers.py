r"""Eigen-solvers of graph embedding.

Every spectral method of graphdr reduces to

.. math::

    \min_{V} \operatorname{tr}\big(V^\top (A + \epsilon I) V\big) \quad\text{s.t.}\quad
    V^\top (B + \epsilon I) V = I,

with ``A`` symmetric (the intrinsic graph's quadratic form) and ``B`` symmetric positive
semi-definite (the penalty or constraint), i.e. the generalized eigenproblem
:math:`(A + \epsilon I) v = \lambda (B + \epsilon I) v`, smallest eigenpairs. The ridge
:math:`\epsilon` enters both sides: when ``A = B - P`` this is exactly the regularised
maximisation :math:`\max v^\top P v / v^\top (B + \epsilon I) v` of the kernel literature
(:doc:`/user_guide/graph_embedding`, "kernel methods"), and a direction of tiny variance can no longer
reach the optimum through a zero numerator. ``largest=True`` solves
:math:`\max v^\top A v / v^\top (B + \epsilon I) v` instead (ridge on ``B`` only).

:func:`generalized_eigh` whitens ``B`` on its numerical range, so a singular ``B`` is handled
exactly: directions with ``B v = 0`` (infinite ratio) are left out instead of inverted, and
directions with ``A v = 0`` get ratio 0. :func:`data_subspace` restricts a linear problem to
the span of the centred data first, which removes constant features, duplicate rows and the
``n < D`` null space before anything is inverted.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from .graphs import _weighted_centered_gram

__all__ = ["generalized_eigh", "class_kernel_eigh", "class_ratio_eigh", "data_subspace",
           "gram_subspace", "class_means", "orientation_signs", "embedding_signs", "untied_count",
           "symmetrise_from_lower"]


def _sym(M):
    M = np.asarray(M, dtype=np.float64)
    return (M + M.T) / 2.0


def generalized_eigh(A, B, *, largest=False, reg=0.0, ridge=None, rank_tol=None):
    r"""All eigenpairs of :math:`(A + \epsilon I) v = \lambda (B + \epsilon I) v` on the range of ``B``.

    The ridge is added to ``A`` only when minimising (``largest=False``); see the module
    docstring for why.

    Parameters
    ----------
    A : ndarray of shape (m, m)
        Symmetric objective matrix.
    B : ndarray of shape (m, m)
        Symmetric positive semi-definite constraint matrix.
    largest : bool
        Order eigenpairs by decreasing (True) or increasing (False) eigenvalue.
    reg : float
        Ridge :math:`\epsilon` relative to the mean eigenvalue of ``B``:
        :math:`\epsilon = \text{reg}\cdot\operatorname{tr}(B)/m`.
    ridge : float or None
        Absolute :math:`\epsilon`; overrides ``reg`` when given.
    rank_tol : float or None
        Eigenvalues of ``B + eps I`` below ``rank_tol * max`` are treated as zero (their
        directions are left out). Default ``m * machine epsilon``.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Sorted as requested; ``k`` is the numerical rank of ``B + eps I``.
    V : ndarray of shape (m, k)
        Eigenvectors with :math:`V^\top (B+\epsilon I) V = I`.
    """
    A, B = _sym(A), _sym(B)
    m = B.shape[0]
    if ridge is None:
        ridge = reg * max(np.trace(B), 0.0) / m
    if ridge:
        B = B + ridge * np.eye(m)
        if not largest:
            A = A + ridge * np.eye(m)
    diagonal = not np.any(B - np.diag(np.diag(B)))
    if diagonal:  # (a space's own eigenbasis) the eigenvectors are coordinate axes
        order = np.argsort(np.diag(B), kind="stable")
        lam = np.diag(B)[order]
    else:
        lam, U = linalg.eigh(B)
    tol = (m * np.finfo(np.float64).eps if rank_tol is None else rank_tol) * max(lam[-1], 0.0)
    keep = lam > max(tol, np.finfo(np.float64).tiny)
    if not np.any(keep):
        return np.zeros(0), np.zeros((m, 0))
    scale = 1.0 / np.sqrt(lam[keep])
    if diagonal:
        axes = order[keep]
        reduced = A[np.ix_(axes, axes)] * np.outer(scale, scale)
    else:
        P = U[:, keep] * scale
        reduced = P.T @ A @ P
    mu, C = linalg.eigh(_sym(reduced))
    if largest:
        mu, C = mu[::-1], C[:, ::-1]
    if diagonal:
        V = np.zeros((m, C.shape[1]))
        V[axes] = C * scale[:, None]
        return mu, V
    return mu, P @ C


def class_kernel_eigh(K_centered, y_encoded, block, ridge, *, overwrite_k=False):
    r"""Regularised kernel problem with a class-structured objective, without ``eigh`` of K.

    .. math::

        \max_a \frac{a^\top \tilde K E B E^\top \tilde K a}
                     {a^\top (\tilde K^2 + \epsilon \tilde K) a}

    Every solution with a non-zero ratio has the form :math:`a = R c` with
    :math:`R = (\tilde K + \epsilon I)^{-1} E` (``n x C``): the objective's range is spanned by the
    class sums. With :math:`G = E^\top \tilde K R` the problem becomes the ``C x C`` problem
    :math:`G B G c = \mu G c`. Since :math:`(\tilde K + \epsilon I) R = E`, the products with
    :math:`\tilde K` come for free: :math:`\tilde K R = E - \epsilon R`, so
    :math:`G = E^\top E - \epsilon E^\top R` and the training embedding
    :math:`\tilde K a = (E - \epsilon R) c`. Cost: one Cholesky factorisation of the ``n x n``
    matrix and ``2 C`` triangular solves; no other ``O(n^2)`` work.

    Parameters
    ----------
    K_centered : ndarray of shape (n, n)
        Centred training kernel.
    y_encoded : ndarray of shape (n,)
        Class indices ``0 .. C-1``.
    block : ndarray of shape (C, C)
        The class block ``B`` of the objective (for kernel LDA ``diag(1 / J_c)``).
    ridge : float
        :math:`\epsilon > 0` (the Cholesky factorisation needs it).
    overwrite_k : bool
        Factorise ``K_centered`` (a C-contiguous float64 array) in place instead of a copy:
        its diagonal and upper triangle then hold the factor, its strict lower triangle is kept
        (:func:`symmetrise_from_lower` restores the matrix from it and the saved diagonal). When
        the factorisation fails the matrix is restored before the error is raised.

    Returns
    -------
    ratios : ndarray of shape (k,)
        Values of the ratio, decreasing (``k <= C - 1``).
    dual : ndarray of shape (n, k)
        Dual coefficients ``a`` with :math:`a^\top(\tilde K^2 + \epsilon \tilde K) a = 1`.
    embedding : ndarray of shape (n, k)
        :math:`\tilde K a`, the training samples embedded.
    """
    if not ridge > 0:
        raise ValueError("class_kernel_eigh needs a positive ridge (reg > 0).")
    n = K_centered.shape[0]
    E = np.zeros((n, block.shape[0]))
    E[np.arange(n), y_encoded] = 1.0
    in_place = overwrite_k and K_centered.dtype == np.float64 and K_centered.flags.c_contiguous
    if in_place:
        diag = K_centered.diagonal().copy()
        M = K_centered.T  # Fortran-ordered view of the symmetric matrix: LAPACK works in place
    else:
        M = np.array(K_centered, dtype=np.float64, copy=True)  # as before (MKL-DR is pinned)
    M[np.diag_indices(n)] += ridge
    try:
        factor = linalg.cho_factor(M, lower=in_place, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        if in_place:
            symmetrise_from_lower(K_centered, diag)
        raise
    R = linalg.cho_solve(factor, E, check_finite=False)
    # K R = E - eps R; from a copy, K R is formed as before (MKL-DR's iterations are pinned)
    KR = E - ridge * R if in_place else K_centered @ R
    ratios, C = class_ratio_eigh(E.T @ KR, block)
    return ratios, R @ C, KR @ C


def symmetrise_from_lower(K, diag, block=512):
    """Copy the strict lower triangle of the C-ordered ``K`` onto its upper triangle and set its
    diagonal to ``diag`` (undoes :func:`class_kernel_eigh` with ``overwrite_k=True``), in
    blocks of rows."""
    n = K.shape[0]
    for a in range(0, n, block):
        b = min(a + block, n)
        K[a:b, b:] = K[b:, a:b].T
        square = K[a:b, a:b]
        square[np.triu_indices(b - a, 1)] = square.T[np.triu_indices(b - a, 1)]
    K[np.diag_indices(n)] = diag
    return K


def class_ratio_eigh(G, block):
    r"""The ``C x C`` core of :func:`class_kernel_eigh`: :math:`G B G c = \mu G c`, ``mu > 0``.

    ``G`` is :math:`E^\top \tilde K (\tilde K + \epsilon I)^{-1} E` (symmetrised here);
    returns the positive ratios, decreasing, and the coefficients ``c`` of the class sums.
    """
    G = _sym(G)
    ratios, C = generalized_eigh(_sym(G @ block @ G), G, largest=True)
    keep = ratios > 0
    return ratios[keep], C[:, keep]


def data_subspace(X, mean, *, rank_tol=None, block_rows=8192):
    r"""Orthonormal basis of the span of the centred data, and the data in it when cheap.

    For ``n_features <= n_samples`` the ``D x D`` centred Gram matrix is accumulated in row
    blocks and eigendecomposed (no ``n x n`` and no centred copy of ``X``). Otherwise (``D > n``)
    the thin SVD of the centred data gives the basis and the coordinates together.

    Directions whose variance is below ``rank_tol * max variance`` (default ``max(n, D) * eps``)
    are dropped: constant features, duplicated or collinear columns and the null space of
    ``n < D`` data never reach a solver. Constant features are removed before the
    factorisation, so their rows of the basis are exactly zero (not rounding noise).

    Returns
    -------
    basis : ndarray of shape (n_features, rank)
    coordinates : ndarray of shape (n_samples, rank) or None
        ``(X - mean) @ basis`` when it came for free (the SVD branch), else None.
    """
    n, D = X.shape
    tol = max(n, D) * np.finfo(np.float64).eps if rank_tol is None else rank_tol
    # constant features (equal values: the rounding of their mean leaves ~1e-17 residues that
    # are not variance) get exactly zero weight
    varying = np.ptp(X, axis=0) > 0 if n else np.zeros(D, bool)
    if D <= n:
        G = _weighted_centered_gram(X, mean, block_rows=block_rows)
        G[~varying] = 0.0
        G[:, ~varying] = 0.0
        return gram_subspace(G, n, rank_tol=rank_tol), None
    Xc = np.asarray(X, dtype=np.float64) - mean
    U, s, Vt = linalg.svd(Xc[:, varying], full_matrices=False)
    keep = s**2 > tol * max(s[0] ** 2, 0.0) if s.size else np.zeros(0, bool)
    basis = np.zeros((D, int(keep.sum())))
    basis[varying] = Vt[keep].T
    return basis, U[:, keep] * s[keep]


def gram_subspace(G, n_samples, *, rank_tol=None, with_variances=False):
    r"""Orthonormal basis of the range of a centred Gram matrix ``G`` (``D x D``).

    The directions of variance above ``rank_tol * max variance`` (default
    ``max(n_samples, D) * eps``), by decreasing variance: the ``D <= n`` branch of
    :func:`data_subspace`, for a Gram matrix accumulated elsewhere (for example by
    :func:`graphdr.blocks.stats.class_statistics`). With ``with_variances`` also returns the kept
    eigenvalues of ``G`` (decreasing, one per basis column): ``G`` is ``diag`` of them in the
    basis.
    """
    D = G.shape[0]
    tol = max(n_samples, D) * np.finfo(np.float64).eps if rank_tol is None else rank_tol
    G = _sym(G)
    varying = np.diag(G) > 0  # a constant feature has a zero row: it gets exactly zero weight
    if not varying.any():  # every feature constant (scipy < 1.11 rejects an empty eigh)
        return (np.zeros((D, 0)), np.zeros(0)) if with_variances else np.zeros((D, 0))
    lam, U = linalg.eigh(G[np.ix_(varying, varying)])
    keep = lam > tol * max(lam[-1], 0.0) if lam.size else np.zeros(0, bool)
    basis = np.zeros((D, int(keep.sum())))
    basis[varying] = U[:, keep][:, ::-1]
    return (basis, lam[keep][::-1]) if with_variances else basis


#: relative gap under which two magnitudes count as tied in :func:`orientation_signs`, and the
#: size (relative to the component's root-mean-square) above which a class mean decides
ORIENTATION_RTOL = 1e-6


def class_means(Z, y_encoded, n_classes=None):
    """Mean of the rows of ``Z`` (``n x k``) in each class ``0 .. C-1`` (``C x k``); rows
    labelled -1 (unlabelled) count in no class."""
    Z = np.asarray(Z, dtype=np.float64)
    y_encoded = np.asarray(y_encoded)
    n_classes = int(y_encoded.max()) + 1 if n_classes is None else n_classes
    E = np.zeros((n_classes, Z.shape[0]))
    rows = np.flatnonzero(y_encoded >= 0)
    E[y_encoded[rows], rows] = 1.0
    counts = np.maximum(E.sum(axis=1), 1.0)
    return (E @ Z) / counts[:, None]


def _first_largest(S, rtol):
    """Per column of ``S``: the first row whose magnitude is within ``rtol`` of the largest."""
    a = np.abs(S)
    return np.argmax(a >= (1.0 - rtol) * a.max(axis=0), axis=0)


def orientation_signs(means, fallback, scale, rtol=ORIENTATION_RTOL):
    r"""Signs (``k``) that orient each component by a statistic far from zero.

    The sign convention of every graphdr embedding. For component ``j``:

    1. if a class mean of the embedded training data, ``means[:, j]`` (``C x k``, classes in
       the order of ``classes_``), exceeds ``rtol * scale[j]`` in magnitude (``scale`` the
       root-mean-square of the component), the class mean of largest magnitude is made
       positive;
    2. otherwise (no labels, ``means=None``, or class means that vanish by symmetry) the
       largest-magnitude entry of ``fallback[:, j]`` is made positive (the embedded training
       samples, or the component's weights when the samples are not at hand).

    Magnitudes within a relative ``rtol`` of the largest count as tied, and the first of them
    (in class or row order) decides. A sign therefore changes only when the input moves a
    statistic across one of these thresholds, not when rounding reorders two equal magnitudes
    (as "the largest entry is positive" does when two entries have the same magnitude: two
    balanced classes, symmetric data, tied eigenvalues): a perturbation of relative size
    ``1e-10`` keeps every sign unless the data sit within that distance of a threshold.
    """
    fallback = np.asarray(fallback, dtype=np.float64)
    k = fallback.shape[1]
    signs = np.ones(k)
    if k == 0:
        return signs
    use_means = np.zeros(k, dtype=bool)
    if means is not None and len(means):
        means = np.asarray(means, dtype=np.float64)
        use_means = np.abs(means).max(axis=0) > rtol * np.asarray(scale, dtype=np.float64)
        pick = _first_largest(means, rtol)
        signs[use_means] = np.sign(means[pick, np.arange(k)])[use_means]
    if fallback.shape[0] and not np.all(use_means):
        pick = _first_largest(fallback, rtol)
        signs[~use_means] = np.sign(fallback[pick, np.arange(k)])[~use_means]
    signs[signs == 0] = 1.0
    return signs


#: eigenvalues closer than this times the largest magnitude, plus :data:`TIE_ATOL`, are tied
TIE_RTOL = 1e-9
#: the rounding level of eigenvalues of order one (ratios of quadratic forms)
TIE_ATOL = 1e-14


def untied_count(eigenvalues, k, rtol=TIE_RTOL):
    """``k``, or fewer so that the kept directions do not cut into a block of tied
    eigenvalues: a tied block's directions are any basis of its span (they follow the row
    order, the memory layout and the BLAS kernel), so a default keeps the whole block or none
    of it -- none, unless that would keep nothing. ``eigenvalues`` are all those available,
    in the order of the directions."""
    e = np.asarray(eigenvalues, dtype=np.float64)
    if k <= 0 or k > len(e):
        return k
    tol = rtol * float(np.max(np.abs(e))) + TIE_ATOL
    tied = np.abs(e - e[k - 1]) <= tol
    if tied.sum() <= 1:
        return k
    first = int(np.argmax(tied))
    return first if first > 0 else k


def embedding_signs(Z, y_encoded=None, rtol=ORIENTATION_RTOL):
    """:func:`orientation_signs` of the embedded training samples ``Z`` (``n x k``) with
    their encoded labels (None: no labels, the samples alone decide)."""
    Z = np.asarray(Z, dtype=np.float64)
    means = None if y_encoded is None else class_means(Z, y_encoded)
    scale = np.sqrt(np.mean(Z**2, axis=0)) if Z.shape[0] else np.zeros(Z.shape[1])
    return orientation_signs(means, Z, scale, rtol)
