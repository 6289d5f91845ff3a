r"""Placing new samples on a fitted 2-D map by their nearest training samples
(:meth:`graphdr.DEEMap.transform`).

A new sample's ``k`` nearest training samples (input distances :math:`d_1 \le \dots \le d_k`)
vote with their map positions :math:`p_j`, weighted by how much farther than the nearest one
they are,

.. math:: w_j = \exp\big(-(d_j^2 - d_1^2) / (\tau\,(\operatorname{med}_l d_l^2 - d_1^2))\big),

:math:`\tau` the placement width: small, the nearest training sample decides (1-NN in the
input space); large, all neighbours vote alike. A sample at distance 0 from training samples
takes their places alone (:math:`w_j = [d_j = 0]`): a training sample given again lands at its
own place. :func:`leave_one_out_errors` scores each width
of :data:`PLACEMENT_WIDTHS` on training samples placed from their other neighbours, and
``placement_width='auto'`` takes the best (:func:`best_width`): on vowel the nearest sample
decides (held-out 2-D 1-NN error 2.3 % chosen, 12.7 % at width 1), on heart the vote (13.5 %
chosen, 19.4 % at width 0.1; five splits, ``docs/history.rst``).

The sample goes to the mode of the weighted positions, not to their mean, which for neighbours
of two classes would land between the two regions. The mode is found by weighted mean shift in
the plane (kernel :math:`e^{-\lVert u\rVert^2}`, the map's repulsion) from the neighbour
position of highest weighted density at the scale of the gap between classes
(:data:`MODE_BANDWIDTH`), so that the start lies in the region that holds most of the
neighbours' weight (in development, on other splits than the benchmark's, it gave a lower or
equal held-out error than the density at the kernel's own scale on letters, mnist5k and
digits).
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KDTree, NearestNeighbors

from ..blocks.sampling import smallest_keys

#: the widths ``placement_width='auto'`` chooses from (relative to the spread of a new
#: sample's squared neighbour distances; the former fixed rule was close to 1-2)
PLACEMENT_WIDTHS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
#: training samples (at most; chosen by content) whose leave-one-out placement picks the width
PLACEMENT_SAMPLES = 5000
#: width of the kernel that picks the mean shift's start among the neighbours' positions: the
#: gap between two classes' starting discs (:data:`graphdr.maps.dee_map.START_GAP`), so
#: that the start is the region (class) holding most of the neighbours' weight rather than the
#: tightest group of them
MODE_BANDWIDTH = 3.0
#: mean-shift steps
MEAN_SHIFT_STEPS = 10
#: input and map neighbours compared by the label-free choice of the width
#: (:func:`leave_one_out_misses`; the benchmarks' k)
RECALL_NEIGHBOURS = 10


def probe_rows(keys, ys, order):
    """Up to :data:`PLACEMENT_SAMPLES` labelled training samples, those of smallest content
    key ``keys`` (the same ones in any row order), as rows of the fit's ``order`` (``ys``: the
    labels of the index's rows, in the fit's order)."""
    n = len(order)
    where = np.empty(n, dtype=np.intp)
    where[order] = np.arange(n)
    n_labelled = int(np.sum(ys >= 0))
    # by content (index rows in key order), labelled ones only
    rows = where[smallest_keys(keys, n if n_labelled < n else PLACEMENT_SAMPLES)]
    return np.sort(rows[ys[rows] >= 0][:PLACEMENT_SAMPLES])


def drop_self(dist, ind, rows):
    """Neighbour lists of ``k + 1`` without the query's own row (or, when duplicates pushed it
    out of the list, without the farthest): ``k`` per row, order kept."""
    own = ind == rows[:, None]
    own[~own.any(axis=1), -1] = True
    own &= np.cumsum(own, axis=1) == 1  # one per row
    keep = ~own
    k = ind.shape[1] - 1
    return dist[keep].reshape(-1, k), ind[keep].reshape(-1, k)


def row_distances(X, F, ind):
    """The distances from each row of ``X`` to its neighbours ``F[ind]``, computed row by row,
    and the neighbours sorted by them (equal ones by row): the same bits whatever rows are placed
    together (a search's matrix products round a row's distances differently in blocks of
    other sizes)."""
    m, k = ind.shape
    ind = np.sort(ind, axis=1)  # equal distances (duplicate rows): in the order of the rows
    dist = np.empty((m, k), dtype=np.result_type(X.dtype, F.dtype))
    step = max(1, (1 << 21) // max(1, k * X.shape[1]))  # at most 16 MB of differences
    for a in range(0, m, step):
        diff = F[ind[a:a + step]] - X[a:a + step, None, :]
        dist[a:a + step] = np.sqrt(np.sum(diff * diff, axis=-1))
    order = np.argsort(dist, axis=1, kind="stable")
    return np.take_along_axis(dist, order, 1), np.take_along_axis(ind, order, 1)


def place(positions, dist, ind, width):
    """The places (``m x 2``) of ``m`` new samples whose neighbours are the rows ``ind`` of
    ``positions`` (the training samples' map, ``n x 2``) at input distances ``dist``."""
    return place_at_widths(positions, dist, ind, (width,))[0]


def place_at_widths(positions, dist, ind, widths):
    """:func:`place` at each of ``widths`` (a list of ``m x 2`` places, the same bits as one
    call per width): what no width changes (the neighbours' positions and the kernel between
    them) computed once."""
    d2 = dist**2
    d1 = d2.min(axis=1, keepdims=True)
    spread = np.median(d2, axis=1, keepdims=True) - d1
    same = d1[:, 0] == 0
    P = positions[ind]  # (m, k, 2)
    # start at the neighbour position of highest weighted density, then mean shift; the
    # squared distances between a sample's neighbours as |p|^2 + |q|^2 - 2 p.q (batched
    # products: no (m, k, k, 2) difference array; 1.6 s -> 0.9 s for 10^5 samples of 20)
    sq = np.einsum("mjc,mjc->mj", P, P)
    D = sq[:, :, None] + sq[:, None, :] - 2.0 * np.matmul(P, P.transpose(0, 2, 1))
    pair = np.exp(-np.maximum(D, 0.0) / MODE_BANDWIDTH**2)  # (m, k, k)
    out = []
    for width in widths:
        # the nearest neighbour weighs 1; the others by their distance beyond it, relative
        # to the neighbourhood's spread (module docstring)
        w = np.exp(-(d2 - d1) / np.maximum(width * spread, 1e-300))
        # a sample equal to training samples goes where they are (the mode of their
        # places): a training sample given again lands at its own place, whatever its
        # neighbours' places
        w[same] = d2[same] == 0
        density = np.matmul(pair, w[:, :, None])[:, :, 0]
        density[same] = np.where(w[same] > 0, density[same], -np.inf)  # (start on a match)
        start = np.argmax(density, axis=1)
        Yq = P[np.arange(len(P)), start]
        for _ in range(MEAN_SHIFT_STEPS):
            g = w * np.exp(-np.sum((P - Yq[:, None]) ** 2, axis=-1))
            Yq = np.einsum("mj,mjk->mk", g, P) / np.maximum(g.sum(axis=1), 1e-300)[:, None]
        out.append(Yq)
    return out


def _map_neighbours(points, places, k):
    """The indices (``len(places) x k`` per array of ``places``) of the ``k`` points nearest
    each place, as scikit-learn's ``NearestNeighbors(n_neighbors=k)`` fitted on ``points``
    finds them: its k-d tree where it takes one (fewer than 2k + 2 points: its brute
    force), built once and asked once for the places of every width (a tree answers each
    query alone: the same neighbours as one query per width, without validating the points
    again for every width)."""
    if k < len(points) // 2:  # scikit-learn's choice of the tree for 2-D points
        tree = KDTree(points, leaf_size=30, metric="euclidean")
        _, near = tree.query(np.concatenate(places), k=k)
        return np.split(near, np.cumsum([len(p) for p in places])[:-1])
    index = NearestNeighbors(n_neighbors=k).fit(points)
    return [index.kneighbors(p)[1] for p in places]


def leave_one_out_errors(positions, labels, rows, dist, ind, widths=PLACEMENT_WIDTHS):
    """``{width: error}``: the training samples ``rows``, placed from their own neighbours
    (``dist``, ``ind``, themselves left out), each counted wrong when its nearest other
    labelled sample on the map (``positions``) is of another class; ``labels`` of every
    training sample, -1 for unlabelled ones (never scored, never a nearest sample)."""
    labelled = np.flatnonzero(labels >= 0)
    found = _map_neighbours(positions[labelled], place_at_widths(positions, dist, ind, widths), 2)
    errors = {}
    for width, near in zip(widths, found):
        near = labelled[near]
        other = np.where(near[:, 0] == rows, near[:, 1], near[:, 0])
        errors[width] = float(np.mean(labels[other] != labels[rows]))
    return errors


def leave_one_out_misses(positions, rows, dist, ind, widths=PLACEMENT_WIDTHS,
                         k=RECALL_NEIGHBOURS):
    """``{width: miss}``: for a map without labels, the training samples ``rows`` placed from
    their own neighbours (``dist``, ``ind``, themselves left out, nearest first), and the share
    of their ``k`` nearest input neighbours that are not among the ``k`` training samples
    nearest that place on the map (``positions``; the sample itself left out): one minus the
    placement's neighbour recall, the label-free score of the width that keeps a new sample's
    neighbourhood. (Letters, mnist5k, digits: it chose 0.5 where the former score, the distance
    from the sample's own place, chose 0.25, which snaps a new sample to one neighbour:
    continuity of the placed test samples 0.945 against 0.938 on the letters without labels,
    ``benchmarks/results/maps2d.md`` against the former ``maps2d_heavy.md``.)"""
    k = min(int(k), ind.shape[1], len(positions) - 1)
    found = _map_neighbours(positions, place_at_widths(positions, dist, ind, widths), k + 1)
    near_input = ind[:, :k]
    misses = {}
    for width, near in zip(widths, found):
        keep = near != np.asarray(rows)[:, None]  # the sample itself left out,
        keep &= np.cumsum(keep, axis=1) <= k  # then its k nearest
        hits = (near[:, :, None] == near_input[:, None, :]).any(axis=2) & keep
        misses[width] = 1.0 - int(hits.sum()) / (k * len(rows))
    return misses


def best_width(errors):
    """The width of lowest error; ties: the wider (the smoother placement)."""
    return min(errors, key=lambda w: (errors[w], -w))


#: iterations between two checks of :class:`PlacementCheck`, the first check, and the checks
#: without a lower error before it stops the descent
CHECK_EVERY, CHECK_FIRST, CHECK_PATIENCE = 5, 10, 2


class PlacementCheck:
    """Stops a map's descent once the map no longer places new samples better: every
    :data:`CHECK_EVERY` iterations from :data:`CHECK_FIRST` on, the leave-one-out error
    (:func:`leave_one_out_errors`, the best width) of the probe samples ``rows`` (their
    neighbours ``dist``, ``ind``, themselves left out); once :data:`CHECK_PATIENCE` checks
    in a row have not lowered it below the best so far, ``__call__`` returns True.

    At 10^6 samples (``benchmarks/maps2d_scale.py``'s data) the held-out 1-NN error and
    trustworthiness of the map were 2.69 % and 0.951 after 10 iterations, 2.65 % and 0.951
    after 25, and 2.71 % and 0.950 after 86 (where the objective's ``tol`` stopped it), at
    0.7 s per iteration: the descent's later iterations lower the objective without changing
    what the placement sees. ``errors`` records each check's error."""

    def __init__(self, labels, rows, dist, ind):
        self.labels, self.rows, self.dist, self.ind = labels, rows, dist, ind
        self.errors = {}

    def __call__(self, positions, iteration):
        if iteration < CHECK_FIRST or (iteration - CHECK_FIRST) % CHECK_EVERY:
            return False
        self.errors[iteration] = min(leave_one_out_errors(
            positions, self.labels, self.rows, self.dist, self.ind).values())
        best = min(self.errors, key=lambda it: (self.errors[it], it))
        return iteration - best >= CHECK_PATIENCE * CHECK_EVERY


def place_rows(model, X, rows):
    """A map of some rows of ``X`` (the labelled ones, ``unlabelled_='ignore'``) completed
    with the others (``rows``, a mask) placed on it as new samples (``model.transform``):
    ``embedding_`` gets a row for every row of ``X``; returns what the model keeps of them,
    ``(fitted rows, placed rows, their scaled features)``, so that its page and its
    leave-one-out placement see every row while its index keeps the fitted ones."""
    kept, placed = np.flatnonzero(~rows), np.flatnonzero(rows)
    fitted = model.embedding_
    Y = np.empty((len(X), fitted.shape[1]), dtype=fitted.dtype)
    Y[kept] = fitted
    Y[placed] = model.transform(X[placed]).astype(Y.dtype, copy=False)
    model.embedding_ = Y
    return kept, placed, model._scaled(X[placed])
