"""The start of :class:`~graphdr.DEEMap`: no randomness, the same data give the same
start.

The class means laid out by their two principal components and pushed apart until no two
classes' discs overlap (:func:`_separated_anchors`); each class's samples on its own two
principal components inside its disc. A partially labelled map starts from the data's
clusters instead (:func:`_cluster_start`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..blocks.solvers import embedding_signs

#: samples per unit area of a class's starting disc
START_DENSITY = 4.0
#: gap between the starting discs of two classes (embedding units; the kernel reaches ~2)
START_GAP = 3.0
#: steps of the random walk that gathers a partially labelled map's start by its graph
#: (:func:`_cluster_start`; 50 erred a little less than 20 in development, ten sets at 1 %)
DIFFUSION_STEPS = 50


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
    """The starting map (module docstring); with unlabelled samples (-1), the start of the
    data's own clusters (:func:`_cluster_start`)."""
    if np.any(y_enc < 0):
        return _cluster_start(X, A)
    sizes = np.bincount(y_enc, minlength=n_classes)
    radii = np.sqrt(sizes / (np.pi * START_DENSITY))
    means = np.array([X[y_enc == c].mean(axis=0) for c in range(n_classes)])
    anchors = _separated_anchors(means, radii)
    Y = np.empty((len(X), 2))
    for c in range(n_classes):
        rows = np.flatnonzero(y_enc == c)
        P = _principal_plane(X[rows])
        r = float(np.sqrt(np.mean(np.sum(P**2, axis=1))))
        Y[rows] = anchors[c] + (P * (0.5 * radii[c] / r) if r > 0 else 0.0)
    return Y


def _cluster_start(X, A, steps=DIFFUSION_STEPS):
    r"""Start of a partially labelled map: every sample on the two principal axes of all of
    them, then ``steps`` steps of the lazy random walk on the attraction graph ``A``,
    :math:`Z \leftarrow \tfrac12 (Z + D^{-1} A Z)` (a sample without edges stays), so that
    each cluster of the graph gathers where its members' mean lies; then centred and scaled to
    the root-mean-square radius of a disc holding every sample at :data:`START_DENSITY`. The
    labels play no part: the few labelled samples do not pull the
    others into islands around them before the descent starts."""
    A = sp.csr_matrix(A, dtype=np.float64)
    d = np.asarray(A.sum(axis=1)).ravel()
    alone = d == 0
    walk = sp.diags(np.where(alone, 0.0, 1.0 / np.where(alone, 1.0, d))) @ A
    Z = _principal_plane(X)
    for _ in range(steps):  # sparse products sum in the rows' order: the same bits each run
        Z = 0.5 * (Z + np.where(alone[:, None], Z, walk @ Z))
    Z = Z - Z.mean(axis=0)
    r = float(np.sqrt(np.mean(np.sum(Z**2, axis=1))))
    radius = np.sqrt(len(X) / (np.pi * START_DENSITY))
    return Z * (radius / r) if r > 0 else Z
