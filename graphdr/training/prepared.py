r"""A training set prepared once for every fit that a partially labelled fit runs.

A fit with unlabelled rows (``y = -1``) and ``unlabelled='auto'`` runs several fits of the same
rows: the choice's trial fits (three uses of the unlabelled rows on each of two folds of the
labelled ones, :func:`graphdr.semi.choice.compare_unlabelled_uses`) and the final fit. Each used to
validate ``X`` again, divide it by its scale again and search the smoothness term's neighbour
graph again. :class:`PreparedInput` is the rows validated once (by the estimator's own rules:
dtype, sparse or dense), with what the fits share computed once when first asked for:

* the dense ``float64`` rows divided by their power-of-two scale, on which the propagation's
  neighbour graph is built (:class:`graphdr.semi.propagation.PropagationGraph`);
* the rows' content keys (:func:`graphdr.blocks.sampling.row_keys`), of the rows as validated
  (:meth:`PreparedInput.row_keys`: the leave-one-out ridge's subsample) and of the scaled rows
  (:meth:`PreparedInput.keys`: the choice's folds, the propagation's order): computed once and
  sliced for a subset (:meth:`~PreparedInput.take`, :meth:`~PreparedInput.labelled_rows`), whose
  rows are the same bytes; the same keys where the two kinds of rows are the same bytes (dense
  ``float64`` rows of scale 1);
* any array computed from an input array that every fit computes the same way (the smoothness
  term's kNN graph), keyed by the input's bytes (:meth:`PreparedInput.memo`): a fit whose input
  differs in a single bit computes its own.

Only the estimators that declare it (``_supports.prepared``: the graph-embedding family and
:class:`~graphdr.DEEMap`) are given
a :class:`PreparedInput` for ``X``; it never reaches a user: ``fit`` validates what a user passes.
Every fit computes what it computed before, from the same arrays: the results are the same bit
for bit.
"""

from __future__ import annotations

import hashlib

import numpy as np
import scipy.sparse as sp

from .._validation import dense_for_semi_supervised
from ..blocks.sampling import row_keys
from ..blocks.stats import input_scale
from .selected import Selected


def digest(*arrays):
    """A key of arrays' exact contents (shape, dtype and bytes): equal keys, equal arrays."""
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        if sp.issparse(a):
            a = a.tocsr()
            for part in (a.data, a.indices, a.indptr):
                h.update(np.ascontiguousarray(part).view(np.uint8))
            h.update(repr(a.shape).encode())
            continue
        a = np.asarray(a)
        h.update(f"{a.shape}{a.dtype.str}".encode())
        h.update(np.ascontiguousarray(a).view(np.uint8).ravel())
    return h.hexdigest()


class PreparedInput:
    """Rows validated once, and what the fits over them share (see the module docstring).

    Parameters
    ----------
    X : ndarray or sparse matrix
        The rows as the estimator's validation returned them.
    y : ndarray of shape (n_samples,)
        The labels given (``-1`` for an unlabelled row).
    classes, y_encoded : ndarray
        ``check_labels(y, unlabelled='allow')``.
    features : dict
        ``n_features_in_`` and, for a data frame, ``feature_names_in_`` of the validation.
    scaled : ndarray or None
        The dense ``float64`` rows divided by their scale; None: computed from ``X``.
    parent : tuple or None
        ``(set, rows, same_scale)``: these rows are ``set``'s rows ``rows`` (the same bytes),
        their scaled rows too when ``same_scale``: their keys are ``set``'s, sliced.
    """

    def __init__(self, X, y, classes, y_encoded, features, scaled=None, parent=None):
        self.X = X
        self.y = y
        self.classes = classes
        self.y_encoded = y_encoded
        self.features = features
        self._scaled = scaled
        self._scale = None
        self._parent = parent
        self._memo = {}

    @property
    def shape(self):
        return self.X.shape

    def __len__(self):
        return self.X.shape[0]

    @property
    def scaled(self):
        """The dense ``float64`` rows divided by their power-of-two scale (distances of data
        near 1e300 or 1e-300 as at unit scale): the propagation graph's input."""
        if self._scaled is None:
            dense = self.X.toarray() if sp.issparse(self.X) else self.X
            dense = np.asarray(dense, dtype=np.float64)
            self._scale = input_scale(dense)
            self._scaled = dense / self._scale
        return self._scaled

    def _divisor(self):
        """The power of two that :attr:`scaled` divides ``X`` by (dense ``X``; a subset of
        :meth:`take`: its set's)."""
        if self._scale is None:
            self._scale = input_scale(np.asarray(self.X, dtype=np.float64))
        return self._scale

    def _scaled_is_x(self):
        """Whether :attr:`scaled` holds the bytes of ``X`` (dense ``float64`` of scale 1)."""
        if sp.issparse(self.X) or self.X.dtype != np.float64:
            return False
        return self._divisor() == 1.0

    def row_keys(self):
        """The content keys of the rows as validated (``X``): a pass over the rows once for a
        set and its subsets."""
        def compute():
            if self._parent is not None:
                parent, rows, _ = self._parent
                return parent.row_keys()[rows]
            if "row keys" in self._memo and self._scaled_is_x():
                return self._memo["row keys"]
            return row_keys(self.X)
        return self.memo("validated row keys", compute)

    def keys(self):
        """The content keys of the scaled rows (:attr:`scaled`)."""
        def compute():
            if self._parent is not None and self._parent[2]:
                parent, rows, _ = self._parent
                return parent.keys()[rows]
            if self._scaled_is_x():
                return self.row_keys()
            return row_keys(self.scaled)
        return self.memo("row keys", compute)

    def memo(self, key, compute):
        """``compute()`` the first time ``key`` is asked for, the same object afterwards."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def with_labels(self, y, classes=None, y_encoded=None):
        """The same rows with labels ``y`` (the propagated classes, a fold's hidden labels;
        ``classes`` and ``y_encoded``: their encoding, where it is not this set's):
        everything computed from the rows is shared."""
        out = PreparedInput(self.X, y, self.classes if classes is None else classes,
                            self.y_encoded if y_encoded is None else y_encoded, self.features,
                            self._scaled, self._parent)
        out._scale, out._memo = self._scale, self._memo
        return out

    def for_trials(self, method):
        """The rows as the choice's trial fits take them: dense ``float64`` (this set itself
        when its rows are so; else a set of their dense ``float64`` copy)."""
        X = self.X
        if not sp.issparse(X) and X.dtype == np.float64:
            return self
        X = X.astype(np.float64)
        if sp.issparse(X):
            X = dense_for_semi_supervised(X, method)
        return PreparedInput(X, self.y, self.classes, self.y_encoded, self.features)

    def whole(self):
        """``(set, rows)`` when these rows are the rows ``rows`` of another set (the same
        bytes; :meth:`take`, :meth:`labelled_rows`), else None."""
        return None if self._parent is None else self._parent[:2]

    def take(self, rows):
        """The rows ``rows`` (sorted) with their labels: a new set; its scaled rows are those of
        this set (the propagation graph of the subset sees the same distances), its keys this
        set's, sliced."""
        subset = PreparedInput(self.X[rows], self.y[rows], self.classes, self.y_encoded[rows],
                               self.features, self.scaled[rows], parent=(self, rows, True))
        subset._scale = self._scale  # (known once this set's scaled rows are)
        return subset

    def labelled_rows(self):
        """``(rows, subset)``: the labelled rows (increasing) and a new set of them alone, its
        scale its own, as in a fit of those rows given directly: the fit that ignores the
        unlabelled rows is that fit, bit for bit. Its keys are this set's, sliced (the keys
        of its scaled rows too where its scale is this set's: the same bytes)."""
        rows = np.flatnonzero(self.y_encoded >= 0)
        X = self.X[rows]
        same_scale = (not sp.issparse(X) and X.shape[0] * X.shape[1] > 0
                      and input_scale(np.asarray(X, dtype=np.float64)) == self._divisor())
        return rows, PreparedInput(X, self.y[rows], self.classes, self.y_encoded[rows],
                                   self.features, parent=(self, rows, same_scale))

    def found(self):
        """What a fit's validation of the rows would record, as the fit writes it
        (:class:`~graphdr.training.selected.Selected`): ``n_features_in_`` and
        ``feature_names_in_`` (or none)."""
        return Selected(dict(self.features),
                        () if "feature_names_in_" in self.features else ("feature_names_in_",))


def features_of(est):
    """What a validation recorded on ``est`` (:meth:`PreparedInput.found`)."""
    out = {"n_features_in_": est.n_features_in_}
    if hasattr(est, "feature_names_in_"):
        out["feature_names_in_"] = est.feature_names_in_
    return out
