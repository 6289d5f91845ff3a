r"""The Gaussian field of points in the plane on a grid: all-pairs repulsion in ``O(n + G)``.

For points :math:`y_1, \dots, y_n \in \mathbb R^2`,

.. math::

    F(y) = \sum_{j=1}^n \exp\big(-\lVert y - y_j\rVert^2\big), \qquad
    \nabla F(y) = -2 \sum_{j=1}^n (y - y_j) \exp\big(-\lVert y - y_j\rVert^2\big),

evaluated at every :math:`y_i`: the value and gradient of the elastic-embedding repulsion
:math:`\sum_{i<j} \exp(-\lVert y_i - y_j\rVert^2) = \tfrac12 \sum_i (F(y_i) - 1)`, whose
gradient with respect to :math:`y_i` is :math:`\nabla F(y_i)` (the term ``j = i`` adds 1 to
``F`` and nothing to its gradient).

The points are spread onto a regular grid of spacing ``h`` by bilinear weights, the grid is
convolved with the kernel and its two derivatives (the Gaussian is separable: four 1-D passes),
and the fields are read back at the points with the same bilinear weights. Cost ``O(n + G R)``
for ``G`` grid nodes and kernels of ``2R + 1`` taps (the kernel is cut at distance 4, where it is
``1e-7``); memory ``O(n + G)``; no pair of points is ever formed. The error is that of bilinear
interpolation, ``O(h^2)`` relative to the kernel's curvature: with the default spacing ``0.25``
(0.35 kernel standard deviations) the field is within a few per cent of the exact sum
(``tests/test_maps.py`` compares it with the brute-force sum).

The summation order is fixed (``np.bincount`` adds in index order), so the same points give
the same field on every run.

A small map (at most :data:`EXACT_MAX` points) gets the exact sums instead
(:func:`exact_gaussian_field`, rows of pairs at a time: ``O(n^2)`` time, ``O(n)`` memory): a
grid of a few thousand nodes costs more there than every pair, and the few-label maps and the
trial fits of ``unlabelled='auto'`` are of that size (digits, 90 labelled rows: 0.42 to 0.12 s a
map).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from .._threads import map_threads

#: distance beyond which the kernel is dropped (``exp(-16) ~ 1e-7``)
CUTOFF = 4.0
#: grid spacing in embedding units (the kernel's standard deviation is ``1/sqrt(2)``)
SPACING = 0.25
#: largest number of grid nodes along one axis; beyond it the spacing grows with the extent
MAX_NODES_PER_AXIS = 1024
#: points up to which a map's fields are summed exactly, pair by pair
EXACT_MAX = 400
#: rows of pairs formed at a time by :func:`exact_gaussian_field`
_EXACT_ROWS = 64


def grid_spacing(extent, spacing=SPACING, max_nodes=MAX_NODES_PER_AXIS):
    """The spacing for a layout of the given extent: ``spacing``, or coarser so that one axis
    has at most ``max_nodes`` nodes."""
    return max(spacing, float(extent) / max(max_nodes - 1, 1))


def _kernels(h):
    """The 1-D kernel ``exp(-t^2)`` and its derivative ``-2 t exp(-t^2)`` at the grid offsets."""
    radius = int(np.ceil(CUTOFF / h))
    t = h * np.arange(-radius, radius + 1)
    k0 = np.exp(-t * t)
    return k0, -2.0 * t * k0


def _bilinear(Yt, lo, h, shape):
    """Flat indices (``4 x n``) of the four grid nodes around each point and their bilinear
    weights (``4 x n``); ``Yt`` holds the points' coordinates as two contiguous rows."""
    U = (Yt - lo[:, None]) / h
    I = np.floor(U)
    frac = U - I
    I = I.astype(np.intp)
    np.clip(I[0], 0, shape[0] - 2, out=I[0])  # the grid has a margin: rounding only
    np.clip(I[1], 0, shape[1] - 2, out=I[1])
    idx = (I[0] * shape[1] + I[1]) + np.array([0, shape[1], 1, shape[1] + 1])[:, None]
    fx, fy = frac
    gx, gy = 1.0 - fx, 1.0 - fy
    return idx, np.stack([gx * gy, fx * gy, gx * fy, fx * fy])


#: grid nodes from which the convolutions run on two threads
_PARALLEL_NODES = 1 << 15


def gaussian_field(Y, *, spacing=SPACING, max_nodes=MAX_NODES_PER_AXIS):
    """``(F, G)``: the field :math:`F(y_i)` (``n``) and its gradient :math:`\\nabla F(y_i)`
    (``n x 2``) of the points ``Y`` (``n x 2``) at the points themselves (module docstring)."""
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[1] != 2:
        raise ValueError(f"gaussian_field needs points in the plane (n x 2); got {Y.shape}.")
    Yt = np.ascontiguousarray(Y.T)  # two contiguous rows: every pass below streams
    lo = Yt.min(axis=1) - CUTOFF
    hi = Yt.max(axis=1) + CUTOFF
    h = grid_spacing(float(np.max(hi - lo)), spacing, max_nodes)
    shape = tuple(int(s) for s in np.ceil((hi - lo) / h).astype(int) + 2)
    idx, w = _bilinear(Yt, lo, h, shape)
    density = np.bincount(idx.ravel(), weights=w.ravel(), minlength=shape[0] * shape[1])
    density = density.reshape(shape)
    k0, k1 = _kernels(h)

    def convolve(which):  # two independent pieces on the environment's threads
        if which == 0:
            along_y = ndimage.convolve1d(density, k0, axis=1, mode="constant")
            return (ndimage.convolve1d(along_y, k0, axis=0, mode="constant"),
                    ndimage.convolve1d(along_y, k1, axis=0, mode="constant"))
        return ndimage.convolve1d(ndimage.convolve1d(density, k1, axis=1, mode="constant"),
                                  k0, axis=0, mode="constant")

    # the two pieces on two threads when the grid is large enough to pay for the hand-off
    workers = None if shape[0] * shape[1] >= _PARALLEL_NODES else 1
    (value, grad_x), grad_y = map_threads(convolve, (0, 1), n_workers=workers)

    def read(field):  # flat gathers (gathering rows of a stacked field is 10x slower); no
        # einsum, whose fused multiply-adds would make the bits depend on the CPU
        g = np.take(field.ravel(), idx)
        g *= w
        return np.sum(g, axis=0)

    return read(value), np.column_stack([read(grad_x), read(grad_y)])


def exact_gaussian_field(Y):
    """``(F, G)`` of :func:`gaussian_field`, summed exactly over every pair (a small map's:
    ``O(n^2)`` time, pairs formed :data:`_EXACT_ROWS` rows at a time). Each sum runs over one
    row of pairs in column order: the same bits on every run."""
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[1] != 2:
        raise ValueError(f"exact_gaussian_field needs points in the plane (n x 2); got {Y.shape}.")
    x, y = Y[:, 0], Y[:, 1]
    F, G = np.empty(len(Y)), np.empty((len(Y), 2))
    for a in range(0, len(Y), _EXACT_ROWS):
        dx = x[a:a + _EXACT_ROWS, None] - x[None, :]
        dy = y[a:a + _EXACT_ROWS, None] - y[None, :]
        k = np.exp(-(dx * dx + dy * dy))
        F[a:a + _EXACT_ROWS] = np.sum(k, axis=1)
        dx *= k
        dy *= k
        G[a:a + _EXACT_ROWS, 0] = -2.0 * np.sum(dx, axis=1)
        G[a:a + _EXACT_ROWS, 1] = -2.0 * np.sum(dy, axis=1)
    return F, G


def block_fields(Y, starts, *, spacing=SPACING, max_nodes=MAX_NODES_PER_AXIS, exact=False):
    """``(F, G)`` of each block of consecutive rows ``Y[starts[b]:starts[b + 1]]`` on its own
    points (:func:`gaussian_field` per block, each on its own grid; with ``exact``,
    :func:`exact_gaussian_field`), the blocks on the environment's threads (one thread when
    exact: they are small); the rows outside every block get 0. The same bits whatever the
    number of threads: every block is computed alone."""
    Y = np.asarray(Y, dtype=np.float64)
    F, G = np.zeros(len(Y)), np.zeros((len(Y), 2))

    def one(b):
        a, e = int(starts[b]), int(starts[b + 1])
        if e > a:
            F[a:e], G[a:e] = (exact_gaussian_field(Y[a:e]) if exact else
                              gaussian_field(Y[a:e], spacing=spacing, max_nodes=max_nodes))

    map_threads(one, range(len(starts) - 1), n_workers=1 if exact else None)
    return F, G
