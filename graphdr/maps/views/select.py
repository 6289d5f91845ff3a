"""Rows of a map inside a region: the selection a user draws on the page, from Python."""

from __future__ import annotations

import numpy as np

__all__ = ["points_inside"]


def points_inside(points, polygon):
    r"""Which ``points`` lie inside ``polygon``, by the even-odd rule.

    A point is inside when a ray from it towards :math:`+x` crosses the polygon's boundary an
    odd number of times: an edge from :math:`(x_1, y_1)` to :math:`(x_2, y_2)` is crossed when
    :math:`(y_1 > y) \ne (y_2 > y)` and :math:`x < x_1 + (y - y_1)(x_2 - x_1) / (y_2 - y_1)`.
    A self-intersecting polygon selects the regions an odd number of its loops enclose, as
    the page's lasso does. Points on the boundary itself may fall on either side.

    Parameters
    ----------
    points : array-like of shape (n_points, 2)
        Map coordinates (a map's ``embedding_``).
    polygon : array-like of shape (n_vertices, 2)
        The region's vertices in order, at least 3; the last joins the first.

    Returns
    -------
    inside : ndarray of bool, shape (n_points,)
    """
    P = np.asarray(points, dtype=float)
    V = np.asarray(polygon, dtype=float)
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"points must be of shape (n_points, 2); got shape {P.shape}.")
    if V.ndim != 2 or V.shape[1] != 2 or len(V) < 3:
        raise ValueError("polygon must be at least 3 vertices of map coordinates, shape "
                         f"(n_vertices, 2); got shape {V.shape}.")
    if not np.all(np.isfinite(V)):
        raise ValueError("polygon has a NaN or infinite coordinate; its vertices must be "
                         "finite map coordinates.")
    inside = np.zeros(len(P), dtype=bool)
    lo, hi = V.min(axis=0), V.max(axis=0)
    box = np.flatnonzero(np.all((P >= lo) & (P <= hi), axis=1))  # NaN points are outside
    x, y = P[box, 0], P[box, 1]
    odd = np.zeros(len(box), dtype=bool)
    for (x1, y1), (x2, y2) in zip(V, np.roll(V, -1, axis=0)):
        if y1 == y2:  # a horizontal edge is never crossed by a horizontal ray
            continue
        spans = (y1 > y) != (y2 > y)
        odd ^= spans & (x < x1 + (y - y1) * (x2 - x1) / (y2 - y1))
    inside[box] = odd
    return inside
