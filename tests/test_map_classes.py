"""The one class a map gives each unlabelled row (``inferred class``, ``inferred by``):
from the propagation, or from the label check where that predicts held-out labels better;
checked against the hidden labels on data where each is the clear winner."""

import numpy as np
import pytest
from sklearn.datasets import make_circles

from graphdr import DEEMap
from graphdr.maps.views.fitted import propagated_columns


def _accuracy(model, y_true, unlabelled, P):
    return float(np.mean(model.classes_[np.argmax(P, axis=1)][unlabelled] == y_true[unlabelled]))


def _hide(y, rate, seed):
    r = np.random.default_rng(seed)
    hidden = y.copy()
    keep = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        keep[r.choice(rows, max(5, int(rate * len(rows))), replace=False)] = True
    hidden[~keep] = -1
    return hidden, ~keep


def _sources(X, y_true, rate, seed=0):
    y, unlabelled = _hide(y_true, rate, seed)
    model = DEEMap(labels="flag", max_iter=10).fit(X, y)
    columns = propagated_columns(model, y)
    from graphdr.semi.propagation import propagate

    classes = model.classes_
    y_enc = np.where(y >= 0, np.searchsorted(classes, np.maximum(y, 0)), -1)
    P_prop = propagate(model._training_features(), y_enc, len(classes))[0]
    P_audit = model.label_issues_.probabilities_
    return columns, unlabelled, model, _accuracy(model, y_true, unlabelled, P_prop), \
        _accuracy(model, y_true, unlabelled, P_audit)


def test_rings_take_the_propagation():
    """Two rings, few labels: the neighbour graph follows a ring, a linear model cannot."""
    X, y = make_circles(400, factor=0.4, noise=0.05, random_state=0)
    columns, unlabelled, model, prop, audit = _sources(X, y, 0.03)
    assert prop > audit + 0.05  # (the data make the propagation the clear winner)
    assert set(columns["inferred by"][i] for i in np.flatnonzero(unlabelled)) == {"propagation"}
    inferred = np.array(columns["inferred class"])[unlabelled].astype(int)
    assert np.mean(inferred == y[unlabelled]) == pytest.approx(prop)


def test_a_linear_class_among_noise_features_takes_the_label_check():
    """One informative feature among 200 of noise, many labels: the neighbours are noise, the
    label check's linear models find the boundary."""
    r = np.random.default_rng(1)
    y = r.integers(0, 2, 500)
    X = r.normal(size=(500, 200))
    X[:, 0] += 1.5 * (2 * y - 1)
    columns, unlabelled, model, prop, audit = _sources(X, y, 0.4)
    assert audit > prop + 0.05
    assert set(columns["inferred by"][i] for i in np.flatnonzero(unlabelled)) == {"label check"}
    inferred = np.array(columns["inferred class"])[unlabelled].astype(int)
    assert np.mean(inferred == y[unlabelled]) == pytest.approx(audit)
    # labelled rows have no inferred class; their confidence is empty too
    assert all(columns["inferred class"][i] == "" == columns["confidence"][i]
               for i in np.flatnonzero(~unlabelled))


def test_labels_taken_as_given_give_the_propagation():
    X, y = make_circles(200, factor=0.4, noise=0.05, random_state=0)
    y_few, unlabelled = _hide(y, 0.05, 0)
    model = DEEMap(max_iter=5).fit(X, y_few)
    columns = propagated_columns(model, y_few)
    assert {columns["inferred by"][i] for i in np.flatnonzero(unlabelled)} == {"propagation"}
    assert propagated_columns(DEEMap(max_iter=5).fit(X, y), y) == {}
