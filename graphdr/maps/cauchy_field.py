r"""The heavy-tailed (Cauchy) field of points in the plane: all-pairs repulsion by FFT.

For points :math:`y_1, \dots, y_n \in \mathbb R^2` and :math:`\alpha > 0`,

.. math::

    k(d^2) = \Big(1 + \frac{d^2}{\alpha}\Big)^{-\alpha}, \qquad
    F(y) = \sum_{j=1}^n k\big(\lVert y - y_j\rVert^2\big), \qquad
    \nabla F(y) = -2 \sum_{j=1}^n (y - y_j)
        \Big(1 + \frac{\lVert y - y_j\rVert^2}{\alpha}\Big)^{-(\alpha + 1)},

evaluated at every :math:`y_i` (the term ``j = i`` adds 1 to ``F`` and nothing to its
gradient), or at other points ``t`` (then no term is a point's own:
:math:`F(t) = \sum_j k(\lVert t - y_j\rVert^2)`). :math:`\alpha = 1` is t-SNE's kernel,
:math:`\alpha < 1` has heavier tails (Kobak et al. 2019), and as :math:`\alpha \to \infty`
the kernel tends to :math:`e^{-d^2}`, that of :mod:`graphdr.maps.grid_field`. The repulsions
follow: :math:`\sum_{i<j} k_{ij} = \tfrac12 \sum_i (F(y_i) - 1)`, with gradient
:math:`\nabla F(y_i)` at :math:`y_i` (elastic embedding's form); and t-SNE's normaliser
:math:`Z = \sum_{i \ne j} k_{ij} = \sum_i (F(y_i) - 1)`, with
:math:`\partial \log Z / \partial y_i = 2 \nabla F(y_i) / Z`: at :math:`\alpha = 1`,
:math:`\sum_j q_{ij} k_{ij} (y_i - y_j) = -\nabla F(y_i) / (2Z)`, the repulsive force that
t-SNE's gradient :math:`4 \sum_j (p_{ij} - q_{ij}) k_{ij} (y_i - y_j)` multiplies by 4.

Method (FIt-SNE's, Linderman et al. 2019). The points' unit masses are spread onto a regular
grid of spacing ``h`` with Lagrange interpolation weights (the ``order`` nearest nodes per
axis, tensor product), the grid is convolved with :math:`k` and with its derivatives
:math:`\partial_x k = -2x (1 + d^2/\alpha)^{-(\alpha+1)}`, :math:`\partial_y k` tabulated at
every grid offset, and the three fields are read back at the points with the same weights.
The kernel is not cut off: the grid is padded to twice its size and the convolutions are
products of discrete Fourier transforms (``scipy.fft``); the kernels' transforms come from one
quadrant by type-1 DCT and DST and are kept for the next calls on the same grid (the last four
grids; 25 MB for the largest). Each point's own term, which the grid smears, is replaced by
the exact 1. Cost ``O(n p^2 + G log G)`` for ``G`` grid nodes and ``p = order``, memory
``O(n + G)``; no pair of points is formed. The grid has spacing ``spacing`` up to
``max_nodes`` nodes per axis (extent 254 at the defaults); beyond, the spacing grows with the
extent in steps of 2^(1/16) (so that grids, and their kernels, repeat).

Error, measured at the defaults (``order=5``, ``spacing=0.25``) against the brute-force sum on
Gaussian blobs (5 clusters, centres spread over 5, 30 and 200 map units, ``n`` = 50, 500,
5000, three layouts each):
:math:`F` within ``1.5e-3`` of itself at every point, :math:`Z` within ``2.5e-4``, the gradient
within ``1.3e-2`` (:math:`\alpha = 0.5`), ``7e-3`` (1), ``4.5e-3`` (2) of its largest norm;
for :math:`\alpha` = 10 to 1000, ``2.5e-3`` (:math:`Z`: ``1.1e-3``). The error is that of
interpolating the kernel's peak, of width :math:`\sqrt{\alpha}`: at :math:`\alpha` = 0.25 and
0.1 the gradient is within ``3e-2`` and ``7.5e-2``, within ``1e-2`` again with ``spacing``
times :math:`\sqrt{2\alpha}` (below the cap). Beyond ``max_nodes`` distant pairs stay exact but
pairs closer than a few ``h`` are blurred: at extent 500 (``h = 0.5``) the gradient is within
``0.24``, ``F`` within ``3e-2``; at extent 1000, ``0.65`` and ``0.14`` (``max_nodes=2048``:
``2.6e-2`` and ``2.5e-3`` at extent 500). On one thread it takes 2 to 6 times as long as
:func:`~graphdr.maps.grid_field.gaussian_field` on the same points (10^4 to 10^6 points,
extents 50 and 200: 0.01 to 0.6 s); ``order=3`` (openTSNE's choice) is 1.6 times faster on
10^6 points, its gradient within ``3e-2`` only.

Determinism. The kernel is tabulated with IEEE-exact operations only (for :math:`\alpha` not
a multiple of 1/2, ``exp`` and ``log1p`` by series: NumPy's ``power``, ``exp`` and ``log`` give
other bits on CPUs with and without AVX-512); the masses are added in a fixed order (points
sorted by grid cell and index, ``np.bincount`` in blocks), the read-back sums too, and pocketfft
computes each 1-D transform alike whichever of its ``workers`` threads runs it: the same bits on
every run, thread count and CPU (``tests/test_cauchy_field.py`` checks threads, and NumPy with
its SIMD paths off).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import fft as sfft

from .._threads import _WORKER, allowed_threads, map_threads

#: grid spacing in map units
SPACING = 0.25
#: interpolation nodes per axis around each point
ORDER = 5
#: largest number of grid nodes along one axis; beyond it the spacing grows with the extent
MAX_NODES_PER_AXIS = 1024

_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # ln 2 = hi + lo


def _atanh_series(s):
    """``2 atanh(s) = log((1 + s) / (1 - s))`` for ``|s| <= 0.2`` (to ``1e-17``)."""
    s2 = s * s
    acc = np.full_like(s, 1.0 / 25.0)
    for k in range(23, 0, -2):
        acc *= s2
        acc += 1.0 / k
    return 2.0 * s * acc


def _log1p(x):
    """``log(1 + x)`` for ``x >= 0`` with IEEE operations only (same bits on every CPU)."""
    out = np.empty_like(x)
    small = x < 0.5
    xs = x[small]
    out[small] = _atanh_series(xs / (2.0 + xs))
    m, e = np.frexp(1.0 + x[~small])  # 1 + x = m 2^e, m in [1/2, 1)
    low = m < 0.70710678118654752440  # m in [1/sqrt(2), sqrt(2))
    m[low] *= 2.0
    e[low] -= 1
    out[~small] = _atanh_series((m - 1.0) / (m + 1.0)) + e * _LN2_HI + e * _LN2_LO
    return out


def _exp(y):
    """``exp(y)`` for ``y <= 0`` with IEEE operations only (same bits on every CPU)."""
    y = np.maximum(y, -1100.0)
    q = np.floor(y / (_LN2_HI + _LN2_LO) + 0.5)
    r = (y - q * _LN2_HI) - q * _LN2_LO  # |r| <= ln(2) / 2
    acc = np.full_like(r, 1.0 / 87178291200.0)  # 1 / 14!
    for k in range(13, 0, -1):
        acc *= r / k
        acc += 1.0
    return np.ldexp(acc, q.astype(np.int64))


def _kernel(d2, alpha):
    """``(k, k / (1 + d2 / alpha))`` at the squared distances ``d2``."""
    b = 1.0 + d2 / alpha
    twice = 2.0 * alpha
    if twice == round(twice) and twice <= 64:  # alpha a multiple of 1/2: exact products
        k = 1.0 / np.sqrt(b) if round(twice) % 2 else np.ones_like(b)
        for _ in range(int(alpha)):
            k /= b
    else:
        k = _exp(-alpha * _log1p(d2 / alpha))
    return k, k / b


@functools.lru_cache(maxsize=4)
def _spectra(alpha, h, m0, m1):
    """The transforms of :math:`k` and :math:`\\partial_x k`, :math:`\\partial_y k` on the
    periodic ``2 m0 x 2 m1`` grid, for rows ``0..m0`` and columns ``0..m1`` (real arrays: the
    first is the transform, the other two its product with ``-i``), and the kernel's values
    at the offsets ``(a h, c h)``, ``a, c < 10`` (for the points' own terms)."""
    a = h * np.arange(m0 + 1.0)[:, None]
    c = h * np.arange(m1 + 1.0)[None, :]
    k, k1 = _kernel(a * a + c * c, alpha)
    spec = sfft.dctn(k, type=1, workers=1)
    gx = np.zeros_like(k)
    gx[1:m0] = sfft.dct(sfft.dst((-2.0 * a * k1)[1:m0], type=1, axis=0), type=1, axis=1)
    gy = np.zeros_like(k)
    gy[:, 1:m1] = sfft.dct(sfft.dst((-2.0 * c * k1)[:, 1:m1], type=1, axis=1), type=1, axis=0)
    near = np.ascontiguousarray(k[:10, :10])
    for arr in (spec, gx, gy, near):
        arr.flags.writeable = False
    return spec, gx, gy, near


#: points spread and read together (a block's nodes, weights and values: ``24 p^2`` bytes each)
_BLOCK = 1 << 13
#: growth of the spacing beyond ``max_nodes`` (2^(1/16), so that the grids repeat)
_STEP = 1.0442737824274138


def _lagrange(t, p):
    """The ``p`` Lagrange weights (``p x n``) of the nodes ``0..p - 1`` at ``t`` (node units)."""
    diffs = [t - j for j in range(p)]
    w = np.empty((p, len(t)))
    for j in range(p):
        w[j] = 1.0 / math.prod(j - i for i in range(p) if i != j)
        for i in range(p):
            if i != j:
                w[j] *= diffs[i]
    return w


def _convolve(D, S, m0, odd, imag, rows, cols, workers):
    """The field on the first ``rows x cols`` nodes of the grid whose transform is ``D``,
    convolved with the kernel whose transform is kept in ``S`` (rows ``0..m0``; the rows beyond
    are mirrored, with their sign flipped when the kernel is ``odd`` along the rows), times
    ``-i`` when ``imag``."""
    Q = np.empty_like(D)
    np.multiply(D[:m0 + 1], S, out=Q[:m0 + 1])
    np.multiply(D[m0 + 1:], S[m0 - 1:0:-1], out=Q[m0 + 1:])
    if odd:
        np.negative(Q[m0 + 1:], out=Q[m0 + 1:])
    q = sfft.ifft(Q, axis=0, overwrite_x=True, workers=workers)[:rows]
    if imag:
        q *= -1j  # (a + ib)(-i) = b - ia: exact
    f = sfft.irfft(q, n=2 * (D.shape[1] - 1), axis=1, workers=workers)[:, :cols]
    return np.ascontiguousarray(f).ravel()


def _points(A, name):
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] != 2:
        raise ValueError(f"cauchy_field needs points in the plane ({name}: an n x 2 array); "
                         f"got shape {A.shape}.")
    At = np.ascontiguousarray(A.T)  # two contiguous rows: every pass below streams
    if not np.isfinite(At).all():
        row = int(np.flatnonzero(~np.isfinite(A).all(axis=1))[0])
        raise ValueError(f"cauchy_field needs finite coordinates; {name} has NaN or infinite "
                         f"entries (row {row}).")
    return At


def cauchy_field(Y, *, alpha=1.0, targets=None, spacing=SPACING, order=ORDER,
                 max_nodes=MAX_NODES_PER_AXIS, workers=None):
    """``(F, G)``: the field :math:`F` (``m``) and its gradient :math:`\\nabla F` (``m x 2``) of
    the points ``Y`` (``n x 2``) at the points themselves (``m = n``) or at ``targets``
    (``m x 2``), with the kernel :math:`(1 + d^2/\\alpha)^{-\\alpha}` (module docstring).

    Parameters
    ----------
    Y : array of shape (n, 2)
        The points whose field it is.
    alpha : float, default=1.0
        The tail exponent, > 0 (1: t-SNE's kernel; smaller: heavier tails).
    targets : array of shape (m, 2), optional
        Where to evaluate the field (no term is then a point's own); default ``Y``.
    spacing : float, default=0.25
        Grid spacing in map units while the grid has at most ``max_nodes`` nodes per axis.
    order : int, default=5
        Interpolation nodes per axis around each point (1 to 9; 2 is bilinear).
    max_nodes : int, default=1024
        Largest number of grid nodes per axis (the padded grid has twice as many).
    workers : int, optional
        Threads (at least 1) of the Fourier transforms and the read-back; default the
        environment's (one inside a piece of :func:`graphdr._threads.map_threads`). The result
        does not depend on it.

    Returns
    -------
    F : ndarray of shape (m,)
    G : ndarray of shape (m, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from graphdr.maps.cauchy_field import cauchy_field
    >>> F, G = cauchy_field(np.array([[0.0, 0.0], [1.0, 0.0]]))  # k = 1/2 at distance 1
    >>> np.round(F, 4), np.round(G[:, 0], 4)
    (array([1.5, 1.5]), array([ 0.5, -0.5]))
    """
    Y = _points(Y, "Y")
    T = None if targets is None else _points(targets, "targets")
    alpha, p = _checked_options(alpha, spacing, order, max_nodes)
    m = Y.shape[1] if T is None else T.shape[1]
    if Y.shape[1] == 0 or m == 0:
        return np.zeros(m), np.zeros((m, 2))
    if workers is None:
        workers = 1 if getattr(_WORKER, "active", False) else allowed_threads()
    lo, h, N0, N1 = _grid(Y if T is None else np.hstack([Y, T]), spacing, p, max_nodes)
    M0, M1 = sfft.next_fast_len(N0, real=True), sfft.next_fast_len(N1, real=True)
    spec, gx, gy, near = _spectra(alpha, h, M0, M1)
    offsets = (N1 * np.arange(p)[:, None] + np.arange(p)).ravel()[:, None]
    perm, base, frac = _stencil(Y, lo, h, p, N0, N1)
    density = _spread(base, frac, offsets, p, N0 * N1)
    D = sfft.fft(sfft.rfft(density.reshape(N0, N1), n=2 * M1, axis=1, workers=workers),
                 n=2 * M0, axis=0, workers=workers)
    fields = [_convolve(D, S, M0, odd, imag, N0, N1, workers)
              for S, odd, imag in ((spec, False, False), (gx, True, True), (gy, False, True))]
    if T is not None:
        perm, base, frac = _stencil(T, lo, h, p, N0, N1)
    out = np.empty((3, m))
    # the grid's smeared own term of a point: sum_{a,a',c,c'} wx_a wx_a' wy_c wy_c'
    # k((a - a') h, (c - c') h), replaced by the exact 1 (autocorrelations of the weights)
    twice = np.where(np.arange(p) > 0, 2.0, 1.0)
    near = near[:p, :p] * twice[:, None] * twice[None, :]

    def read(b):
        idx, w, wx, wy = _block(b, base, frac, offsets, p)
        where = perm[b:b + _BLOCK]
        for which, f in enumerate(fields):
            total = _read_back(f, idx, w)
            if T is None and which == 0:
                _remove_own_terms(total, wx, wy, near, p)
            out[which, where] = total

    map_threads(read, range(0, m, _BLOCK), n_workers=workers)
    F, G = out[0], np.ascontiguousarray(out[1:].T)
    if T is None:
        F += 1.0  # the points' own terms, exact
    return F, G


def _checked_options(alpha, spacing, order, max_nodes):
    """``(alpha, p)``: the tail exponent as a float and the interpolation order as an int,
    once ``alpha``, ``spacing``, ``order`` and ``max_nodes`` are checked."""
    alpha = float(alpha)
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a positive finite number (the kernel's tail "
                         f"exponent); got {alpha}.")
    if not (np.isfinite(spacing) and spacing > 0):
        raise ValueError(f"spacing must be a positive number of map units; got {spacing}.")
    if int(order) != order or not 1 <= order <= 9:
        raise ValueError(f"order must be an integer from 1 to 9 (nodes per axis); got {order}.")
    p = int(order)
    if int(max_nodes) != max_nodes or max_nodes < p + 2:
        raise ValueError(f"max_nodes must be an integer of at least order + 2 = {p + 2}; "
                         f"got {max_nodes}.")
    return alpha, p


def _grid(pts, spacing, p, max_nodes):
    """The grid over the points ``pts`` (``2 x n``): its origin ``lo`` (the coordinates'
    minima), spacing ``h`` and nodes per axis ``N0, N1``."""
    lo = pts.min(axis=1)  # coordinates relative to the minimum: large offsets lose nothing
    with np.errstate(over="ignore"):
        span = pts.max(axis=1) - lo
    extent = float(span.max())
    if not extent <= 1e150:  # beyond, the squared offsets of the grid overflow
        raise ValueError(f"cauchy_field: the points span {extent:.3g} map units; they may "
                         "span at most 1e150.")
    h = float(spacing)
    while extent / h > max_nodes - p - 1:
        h *= _STEP
    N0, N1 = (int(s) for s in np.floor(span / h + 0.5).astype(np.int64) + p)
    return lo, h, N0, N1


def _stencil(P, lo, h, p, N0, N1):
    """The points ``P`` (``2 x n``) sorted by grid cell (cache-friendly): ``(perm, base,
    frac)``, the order, each point's first node (flat) and its offset from it (node units)."""
    U = (P - lo[:, None]) / h + (p - 1) // 2
    first = np.clip(np.floor(U - 0.5 * p + 1.0), 0, np.array([[N0 - p], [N1 - p]]))
    base = first[0].astype(np.intp) * N1 + first[1].astype(np.intp)
    n = P.shape[1]
    perm = np.argsort(base * n + np.arange(n))  # unique keys: one order on every CPU
    U -= first
    return perm, base[perm], U[:, perm]


def _block(b, base, frac, offsets, p):
    """The flat nodes, weights (``p^2 x B``) and 1-D weights of the block of points from
    ``b``."""
    s = slice(b, b + _BLOCK)
    wx, wy = _lagrange(frac[0, s], p), _lagrange(frac[1, s], p)
    return base[s] + offsets, (wx[:, None] * wy[None, :]).reshape(p * p, -1), wx, wy


def _spread(base, frac, offsets, p, size):
    """The points' unit masses spread onto the grid's ``size`` nodes (flat): added in index
    order, blocks in order."""
    density = np.zeros(size)
    for b in range(0, len(base), _BLOCK):
        idx, w, _, _ = _block(b, base, frac, offsets, p)
        first = int(idx[0, 0])
        part = np.bincount((idx - first).ravel(), w.ravel())
        density[first:first + len(part)] += part
    return density


def _read_back(f, idx, w):
    """The field ``f`` read at a block of points: its nodes ``idx`` times the weights ``w``,
    summed in a fixed order."""
    v = np.take(f, idx)
    v *= w
    total = v[0].copy()
    for row in v[1:]:  # a fixed order of summation
        total += row
    return total


def _remove_own_terms(total, wx, wy, near, p):
    """Subtract from ``total`` (in place) the points' own terms the grid smears, ``near`` the
    kernel's values at the node offsets times the autocorrelations' multiplicities."""
    cx = [sum(wx[a] * wx[a + d] for a in range(p - d)) for d in range(p)]
    cy = [sum(wy[c] * wy[c + e] for c in range(p - e)) for e in range(p)]
    for d in range(p):
        total -= cx[d] * sum(cy[e] * near[d, e] for e in range(p))


#: rows of pairs formed at once by :func:`exact_cauchy_field`
_EXACT_ROWS = 64


def exact_cauchy_field(Y, alpha=1.0):
    """``(F, G)`` of :func:`cauchy_field` at the points themselves, summed exactly over every
    pair (a small map's: ``O(n^2)`` time, pairs formed :data:`_EXACT_ROWS` rows at a time; no
    grid). Each point's sum runs down one column of pairs, in the order of the points, with the
    kernel's exactly rounded operations: the same bits on every run and CPU."""
    Y = _points(Y, "Y")
    alpha = float(alpha)
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a positive finite number (the kernel's tail "
                         f"exponent); got {alpha}.")
    x, y = Y
    n = len(x)
    F, G = np.empty(n), np.empty((n, 2))
    for a in range(0, n, _EXACT_ROWS):
        # the pairs of rows a:b as columns (n x (b - a)): each row's sum over the pairs runs
        # down a column, in column order (:func:`_column_sums`)
        b = min(a + _EXACT_ROWS, n)
        dx = x[None, a:b] - x[:, None]
        dy = y[None, a:b] - y[:, None]
        k, k1 = _kernel(dx * dx + dy * dy, alpha)
        F[a:b] = _column_sums(k)
        dx *= k1
        dy *= k1
        G[a:b, 0] = -2.0 * _column_sums(dx)
        G[a:b, 1] = -2.0 * _column_sums(dy)
    return F, G


def _column_sums(A):
    """Each column's sum, its rows added one after another: NumPy reduces the first axis of a
    C-ordered array of two columns or more row by row (no pairwise or SIMD-width order; one
    column alone, it would add pairwise, so it is added in a loop)."""
    if A.shape[1] > 1:
        return np.add.reduce(A, axis=0)
    total = A[0].copy()
    for row in A[1:]:
        total += row
    return total


