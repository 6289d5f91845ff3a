"""The rows of a map inside a polygon (``graphdr.maps.views.select``, ``DEEMap.select``): against
matplotlib's point-in-path test and a hand-made star, the fitted map's coordinates, bad input."""

import numpy as np
import pytest
from matplotlib.path import Path
from sklearn.datasets import load_iris

from graphdr import DEEMap
from graphdr.maps.views.select import points_inside


def _star(points=5, outer=3.0, inner=1.0):
    """A star polygon (simple, not convex): alternate outer and inner vertices."""
    angles = np.pi / 2 + np.arange(2 * points) * np.pi / points
    radii = np.where(np.arange(2 * points) % 2 == 0, outer, inner)
    return np.c_[radii * np.cos(angles), radii * np.sin(angles)]


def test_points_inside_a_simple_polygon_agree_with_matplotlib():
    rng = np.random.default_rng(0)
    P = rng.uniform(-4, 4, size=(20_000, 2))
    for polygon in (_star(), _star(7, 2.0, 0.3)[::-1], [(0, 0), (3, 0), (3, 1), (1, 1),
                                                           (1, 3), (0, 3)]):
        got = points_inside(P, polygon)
        want = Path(np.asarray(polygon, float)).contains_points(P)
        assert 0 < got.sum() < len(P)
        assert np.array_equal(got, want)


def test_even_odd_rule_on_a_self_crossing_polygon_and_nan_points():
    """A pentagram drawn in one stroke encloses its centre twice: outside by the even-odd
    rule (as the page's lasso), its five tips once: inside. NaN points are outside."""
    angles = np.pi / 2 + np.arange(5) * 4 * np.pi / 5
    pentagram = np.c_[np.cos(angles), np.sin(angles)]
    tips = 0.8 * np.c_[np.cos(np.pi / 2 + np.arange(5) * 2 * np.pi / 5),
                       np.sin(np.pi / 2 + np.arange(5) * 2 * np.pi / 5)]
    got = points_inside(np.r_[[[0.0, 0.0], [np.nan, 0.0], [5.0, 5.0]], tips], pentagram)
    assert got.tolist() == [False, False, False] + [True] * 5


def test_the_map_selects_its_rows_inside_a_polygon():
    X, y = load_iris(return_X_y=True)
    m = DEEMap(random_state=0).fit(X, y)
    Y = m.embedding_
    mid = np.median(Y[:, 0])
    lo, hi = Y.min(axis=0) - 1, Y.max(axis=0) + 1
    left = [(lo[0], lo[1]), (mid, lo[1]), (mid, hi[1]), (lo[0], hi[1])]
    rows = m.select(left)
    assert np.array_equal(rows, np.flatnonzero(Y[:, 0] < mid))
    view = m.show(max_points=None)
    assert np.array_equal(view.select(left), rows)
    assert len(m.select([lo, (hi[0], lo[1]), hi, (lo[0], hi[1])])) == len(X)


@pytest.mark.parametrize("polygon, match", [
    ([(0, 0), (1, 1)], "at least 3 vertices"),
    ([(0, 0), (1, 0), (np.nan, 1)], "NaN or infinite"),
    ([0, 1, 2], "at least 3 vertices"),
])
def test_a_bad_polygon_is_a_clear_error(polygon, match):
    with pytest.raises(ValueError, match=match):
        points_inside(np.zeros((3, 2)), polygon)
    with pytest.raises(ValueError, match="shape"):
        points_inside(np.zeros((3, 3)), [(0, 0), (1, 0), (0, 1)])
