"""How :class:`graphdr.DEEMap` places samples on its fitted map: new ones (:meth:`transform`),
each training sample as if new (:meth:`transform_left_out`), and the index and width behind
both (the placement itself: :mod:`graphdr.maps.placement`)."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threads import managed_threads, map_threads
from ..blocks import graphs as _graphs
from ..blocks.stats import is_dask_array
from ..neighbor_embedding._core import _DTYPES
from .dask_fit import place_dask
from .inputs import CROSS_NEIGHBORS, _gathered
from .placement import (
    best_width,
    drop_self,
    leave_one_out_errors,
    leave_one_out_misses,
    place,
    row_distances,
)

#: a large map's placing index: its graph's degree (the training samples' own neighbours,
#: :func:`graphdr.blocks.list_graph.list_graph` on the index's lists) and the lists probed for
#: a new sample (10^5 new among 10^6 of ``benchmarks/maps2d_scale.py``, 489 lists: 80 % of the
#: 20 nearest in 3.3 s with 4, 86 % in 3.9 s with 6, 89 % in 4.5 s with 8; the lists of 1000
#: rows before, 8 probed: 83 % in 4.7 s)
INDEX_DEGREE, INDEX_PROBES = CROSS_NEIGHBORS, 6
#: query rows per block of the out-of-sample transform
TRANSFORM_BLOCK = 4096
#: new samples searched at once before their blocks are placed
_SEARCH_CHUNK = 16 * TRANSFORM_BLOCK


class PlacingMixin:
    """The placing methods of :class:`graphdr.DEEMap` over its fitted attributes
    (``_neighbors``: the index of the scaled training rows in the fit's order, ``_features``,
    ``_order``, ``_map_rows``, ``_placed``, ``placement_width_``)."""

    @managed_threads
    def transform(self, X):
        """Place new samples on the map (module docstring): the mode of their nearest training
        samples' positions, weighted by input distance.

        A sample equal to training samples goes to their place: ``transform(X_train)`` is
        ``embedding_``; :meth:`transform_left_out` places each training sample as if new.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Y : ndarray of shape (n_samples, 2)
            A ``dask.array`` for a ``dask.array`` ``X``, computed block by block.
        """
        check_is_fitted(self, "embedding_")
        if is_dask_array(X):
            return place_dask(self, X)
        return self._embed_rows(validate_data(self, X, dtype=_DTYPES, reset=False))

    def _embed_rows(self, X):
        """:meth:`transform` of rows validated already (as the rows of the training set a fit
        took)."""
        out = np.empty((X.shape[0], 2), dtype=X.dtype)
        if self.neighbors_ == "approx":
            # a chunk searched at once (the inverted lists' blocked search, on the
            # environment's threads), then placed in blocks on the threads
            for a in range(0, X.shape[0], _SEARCH_CHUNK):
                dist, ind = self._neighbors.kneighbors(self._scaled(X[a:a + _SEARCH_CHUNK]))

                def place_searched(b, a=a, dist=dist, ind=ind):
                    block = self._place_from(dist[b:b + TRANSFORM_BLOCK],
                                             ind[b:b + TRANSFORM_BLOCK])
                    out[a + b:a + b + len(block)] = block

                map_threads(place_searched, range(0, len(ind), TRANSFORM_BLOCK))
            return out

        def place(a):  # blocks of queries on the environment's threads
            out[a:a + TRANSFORM_BLOCK] = self._place(self._scaled(X[a:a + TRANSFORM_BLOCK]))

        map_threads(place, range(0, X.shape[0], TRANSFORM_BLOCK))
        return out

    def _transform_index(self, Xf, neighbors=None):
        """The index of the training samples that places new ones: exact, or
        (``neighbors_='approx'``) the graph of the inverted lists for the training samples' own neighbours
        and inverted lists for new samples; ``neighbors``: the search of a fit in progress,
        else the fitted ``neighbors_``."""
        k = min(self.n_neighbors, len(Xf))
        if (self.neighbors_ if neighbors is None else neighbors) == "approx":
            return _graphs.ApproxNeighbors(k, self.random_state, graph_neighbors=INDEX_DEGREE,
                                           search="lists", n_probe=INDEX_PROBES).fit(Xf)
        return NearestNeighbors(n_neighbors=k).fit(Xf)

    def _scaled_rows(self, X, order, gathered=None, scaling=None):
        """``X[order]`` as the map sees it, scaled in place (the bits of :meth:`_scaled`);
        ``scaling``: the ``(mean, scale)`` of a fit in progress, else the fitted ones."""
        Xs = _gathered(X, order) if gathered is None else gathered
        mean, scale = (self.feature_mean_, self.feature_scale_) if scaling is None else scaling
        Xs -= mean
        Xs /= scale
        return Xs

    def _scaled(self, X):
        """``X`` as the map sees it: ``(X - feature_mean_) / feature_scale_``, float64."""
        return (np.asarray(X, dtype=np.float64) - self.feature_mean_) / self.feature_scale_

    def transform_left_out(self):
        """Each training sample placed as :meth:`transform` would place it were it new: from
        its ``n_neighbors`` nearest *other* training samples (leave-one-out). The distance in
        the map between a sample's left-out place and the nearest other training sample tells
        how new samples land; :func:`graphdr.maps.views.fitted.held_out_errors` turns it into an error.

        Returns
        -------
        Y : ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "embedding_")
        n = len(self._order)
        out = np.empty((n, 2))

        def place(a):  # rows of the index (the sorted order); out in the caller's
            rows = np.arange(a, min(a + TRANSFORM_BLOCK, n))
            k = min(self._neighbors.n_neighbors + 1, n)
            dist, ind = self._neighbors.kneighbors(self._features[rows], n_neighbors=k)
            out[self._order[rows]] = self._place_from(*drop_self(dist, ind, rows))

        map_threads(place, range(0, n, TRANSFORM_BLOCK))
        if self._placed is None:
            return out
        kept, placed, _ = self._placed  # the placed rows were new samples: their own places
        full = np.empty((len(self.embedding_), 2))
        full[kept], full[placed] = out, self.embedding_[placed]
        return full

    def _training_features(self):
        """The scaled training features in the caller's row order (with
        ``unlabelled_='ignore'``, those of the rows placed on the map too)."""
        out = np.empty_like(self._features)
        out[self._order] = self._features
        if self._placed is None:
            return out
        kept, placed, Xp = self._placed
        full = np.empty((len(self.embedding_), out.shape[1]))
        full[kept], full[placed] = out, Xp
        return full

    def _nearest_other(self):
        """Each training sample's nearest other one (scaled features; caller's order)."""
        _, near = self._neighbors.kneighbors(n_neighbors=1)
        out = np.empty(len(self._order), dtype=np.intp)
        out[self._order] = self._order[near[:, 0]]
        return out

    def _choose_width(self, ys, rows):
        """``(width, errors)`` (:func:`graphdr.maps.placement.leave_one_out_errors`) of
        the training samples ``rows`` (:func:`graphdr.maps.placement.probe_rows`), each placed
        from its ``n_neighbors`` nearest others on the fitted map; a map without labels
        (``rows`` of every sample) by :func:`graphdr.maps.placement.leave_one_out_misses`."""
        k = min(self._neighbors.n_neighbors + 1, len(self._order))
        dist, ind = self._neighbors.kneighbors(self._features[rows], n_neighbors=k)
        dist, ind = drop_self(dist, ind, rows)
        if not np.any(ys >= 0):
            errors = leave_one_out_misses(self._map_rows, rows, dist, ind)
        else:
            errors = leave_one_out_errors(self._map_rows, ys, rows, dist, ind)
        return best_width(errors), errors

    def _place(self, X):
        _, ind = self._neighbors.kneighbors(X)
        return self._place_from(*row_distances(X, self._features, ind))

    def _place_from(self, dist, ind, width=None):
        """Places from neighbours given as rows of the index (the fit's order)."""
        width = self.placement_width_ if width is None else width
        return place(self._map_rows, dist, ind, width)
