"""The start of :class:`~graphdr.DEEMap`: no randomness, the same data give the same
start.

The class means laid out by their two principal components and pushed apart until no two
classes' discs overlap (:func:`_separated_anchors`); each class's samples on its own two
principal components inside its disc; unlabelled samples at the harmonic extension of the
labelled ones' start over the attraction graph (:func:`_harmonic_start`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from ..blocks.optim import jacobi_cg
from ..blocks.solvers import embedding_signs

#: samples per unit area of a class's starting disc
START_DENSITY = 4.0
#: gap between the starting discs of two classes (embedding units; the kernel reaches ~2)
START_GAP = 3.0
#: weight of the pull of an unlabelled sample's start towards its nearest labelled sample's
#: start (a fraction of its degree, :func:`_harmonic_start`)
HARMONIC_PULL = 0.1


def _principal_plane(Z):
    """The rows of ``Z`` (centred) on their two leading principal axes, signs by the rule of
    :func:`graphdr.blocks.solvers.embedding_signs`; zeros where the rank is below 2.

    LAPACK's axes differ in their last bits between BLAS kernels, and the map's descent
    would amplify that: the axes are rounded to multiples of ``2**-AXIS_BITS`` (a change far
    below what the start needs, and one that a difference of a few ulps crosses with odds
    of about ``d * 1e-8``) and the rows projected in a fixed order (:func:`_project`)."""
    Z = Z - Z.mean(axis=0)
    out = np.zeros((len(Z), 2))
    if len(Z) < 2 or not np.any(Z):
        return out
    _, s, Vt = np.linalg.svd(Z, full_matrices=False)
    k = min(2, int(np.sum(s > 1e-12 * s[0])))
    axes = np.round(Vt[:k].T * 2.0**AXIS_BITS) / 2.0**AXIS_BITS  # symmetric: -v gives -round(v)
    out[:, :k] = _project(Z, axes)
    return out * embedding_signs(out)


#: the start's principal axes are rounded to multiples of 2**-AXIS_BITS
AXIS_BITS = 24
#: rows projected at a time by :func:`_project`
_PROJECT_ROWS = 2048


def _project(Z, axes):
    """``Z @ axes`` summed over the features in numpy's fixed order (a BLAS product sums in a
    kernel-dependent order), a block of rows at a time."""
    out = np.empty((len(Z), axes.shape[1]))
    for a in range(0, len(Z), _PROJECT_ROWS):
        block = Z[a:a + _PROJECT_ROWS]
        out[a:a + len(block)] = np.sum(block[:, :, None] * axes[None], axis=1)
    return out


def _separated_anchors(means, radii, gap=START_GAP, max_rounds=2000):
    """Disc centres for the classes: the class means on their principal plane, scaled and then
    pushed apart pairwise until every two discs are at least ``gap`` apart."""
    C = len(means)
    A = _principal_plane(means)
    spread = float(np.sqrt(np.mean(np.sum(A**2, axis=1))))
    A = A / spread if spread > 0 else A  # unit spread: the layout does not see the units
    # a deterministic spiral for classes whose means coincide on the plane
    angle = 2.399963 * np.arange(C)  # the golden angle
    A += 1e-3 * np.column_stack([np.cos(angle), np.sin(angle)]) * np.sqrt(np.arange(C) + 1.0)[:, None]
    need = radii[:, None] + radii[None, :] + gap
    D = np.sqrt(np.sum((A[:, None] - A[None]) ** 2, axis=-1))
    off = ~np.eye(C, dtype=bool)
    A *= float(np.median(need[off] / np.maximum(D[off], 1e-12)))
    for _ in range(max_rounds):
        diff = A[:, None] - A[None]
        D = np.sqrt(np.sum(diff**2, axis=-1))
        short = off & (D < need * (1 - 1e-9))
        if not short.any():
            break
        push = np.where(short, (need - D) / (2 * np.maximum(D, 1e-12)), 0.0)
        A += np.sum(push[:, :, None] * diff, axis=1)  # no einsum: its order depends on the CPU
    return A


def _start(X, y_enc, n_classes, A=None):
    """The starting map (module docstring). Unlabelled samples (-1) count, for the discs'
    sizes, in the class of their nearest labelled sample, and start at the harmonic extension
    of the labelled samples' start over the attraction graph ``A`` (:func:`_harmonic_start`)."""
    labelled = y_enc >= 0
    nearest = None
    sizes = np.bincount(y_enc[labelled], minlength=n_classes)
    if not labelled.all():
        nn = NearestNeighbors(n_neighbors=1).fit(X[labelled])
        nearest = np.flatnonzero(labelled)[nn.kneighbors(X[~labelled], return_distance=False)[:, 0]]
        sizes = sizes + np.bincount(y_enc[nearest], minlength=n_classes)
    radii = np.sqrt(sizes / (np.pi * START_DENSITY))
    means = np.array([X[y_enc == c].mean(axis=0) for c in range(n_classes)])
    anchors = _separated_anchors(means, radii)
    Y = np.empty((len(X), 2))
    for c in range(n_classes):
        rows = np.flatnonzero(y_enc == c)
        P = _principal_plane(X[rows])
        r = float(np.sqrt(np.mean(np.sum(P**2, axis=1))))
        Y[rows] = anchors[c] + (P * (0.5 * radii[c] / r) if r > 0 else 0.0)
    if nearest is not None:
        Y[~labelled] = _harmonic_start(A, labelled, Y, Y[nearest])
    return Y


def _harmonic_start(A, labelled, Y, fallback, pull=HARMONIC_PULL):
    r"""Start of the unlabelled samples ``u`` given the labelled ones ``l``: the minimiser of
    the attraction with the labelled samples held, plus a weak pull towards ``fallback`` (the
    start of each one's nearest labelled sample), which fixes the parts of the graph that hold
    no labelled sample:

    .. math:: (L_{uu} + \rho D_{uu} + \rho I) Y_u = A_{ul} Y_l + \rho (D_{uu} + I) Y^0_u .
    """
    u = np.flatnonzero(~labelled)
    A = sp.csr_matrix(A)
    d = np.asarray(A.sum(axis=1)).ravel()
    Auu = A[u][:, u]
    weight = pull * (d[u] + 1.0)
    M = sp.csr_matrix(sp.diags(d[u] + weight) - Auu)
    rhs = A[u][:, np.flatnonzero(labelled)] @ Y[labelled] + weight[:, None] * fallback
    # strictly diagonally dominant (weight > 0): Jacobi-CG converges fast, in a fixed order
    diagonal = M.diagonal()
    return np.column_stack([
        jacobi_cg(M.dot, np.ascontiguousarray(rhs[:, k]), diagonal, HARMONIC_RTOL,
                  HARMONIC_MAXITER) for k in range(2)])


#: relative residual and iterations of the harmonic start's solves
HARMONIC_RTOL, HARMONIC_MAXITER = 1e-12, 2000
