r"""Where each class of a map is dense: the contours the page draws when asked.

For each class :math:`c` with samples at :math:`y_i \in \mathbb{R}^2`, the density is a
Gaussian kernel estimate on a grid over the map,

.. math:: \hat f_c(z) \propto \sum_{i : y_i = c} \exp\!\left(-\frac{\|z - y_i\|^2}{2 h_c^2}
   \right),

binned (the samples counted in grid cells, then smoothed by the Gaussian filter of width
:math:`h_c`), with Scott's width :math:`h_c = n_c^{-1/6} \sigma_c` from a robust spread
:math:`\sigma_c` (the smaller of the standard deviation and the interquartile range / 1.349,
averaged over the two axes; at least one cell). The contour of level :math:`p` bounds the
highest-density region holding a share :math:`p` of the class: the cells of largest density
whose total is :math:`p` of the whole. Computed once when the page is written
(:data:`GRID` cells a side), so that the page draws them at any number of points.
"""

from __future__ import annotations

import numpy as np

__all__ = ["density_contours", "LEVELS", "GRID", "MIN_SAMPLES"]

#: the shares of a class its contours enclose (the page draws the first solid, the second dashed)
LEVELS = (0.5, 0.9)
#: cells a side of the grid over the map
GRID = 160
#: a class with fewer samples gets no contour
MIN_SAMPLES = 10


def density_contours(Y, codes, n_classes, levels=LEVELS, grid=GRID):
    """The contours of each class's highest-density regions (module docstring).

    Parameters
    ----------
    Y : array of shape (n, 2)
        The map.
    codes : int array of shape (n,)
        Each sample's class, 0 to ``n_classes - 1`` (other values: no class, skipped).
    n_classes : int
    levels : sequence of float in (0, 1)
    grid : int

    Returns
    -------
    lines : list of ``(class, level index, array of shape (m, 2))``, each a polyline in map
        coordinates (closed lines repeat their first point), classes in order.
    """
    from contourpy import contour_generator
    from scipy.ndimage import gaussian_filter

    Y = np.asarray(Y, dtype=np.float64)
    codes = np.asarray(codes)
    if len(Y) == 0:
        return []
    lo, hi = Y.min(axis=0), Y.max(axis=0)
    pad = 0.08 * np.maximum(hi - lo, 1e-12)
    lo, hi = lo - pad, hi + pad
    cell = (hi - lo) / grid
    at = np.minimum(((Y - lo) / cell).astype(np.int64), grid - 1)
    flat = at[:, 0] * grid + at[:, 1]
    centres = [lo[a] + cell[a] * (np.arange(grid) + 0.5) for a in range(2)]
    lines = []
    for c in range(n_classes):
        members = codes == c
        m = int(members.sum())
        if m < MIN_SAMPLES:
            continue
        counts = np.bincount(flat[members], minlength=grid * grid).reshape(grid, grid)
        P = Y[members]
        q1, q3 = np.percentile(P, [25, 75], axis=0)
        spread = np.minimum(P.std(axis=0), (q3 - q1) / 1.349)
        spread = np.where(spread > 0, spread, P.std(axis=0))
        width = m ** (-1 / 6) * spread / cell  # (in cells, per axis)
        D = gaussian_filter(counts.astype(np.float64), sigma=np.maximum(width, 1.0),
                            mode="constant", truncate=3.0)
        values = np.sort(D.ravel())[::-1]
        total = np.cumsum(values)
        if total[-1] <= 0:
            continue
        generator = contour_generator(x=centres[1], y=centres[0], z=D)  # (D[i, j]: x_i, y_j)
        for k, share in enumerate(levels):
            level = float(values[min(np.searchsorted(total, share * total[-1]), len(values) - 1)])
            for line in generator.lines(level):
                if len(line) >= 3:
                    lines.append((c, k, np.asarray(line)[:, ::-1]))
    return lines
