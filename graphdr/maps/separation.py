r"""``separation='auto'`` of the heavy-tailed map: the least class separation that held-out
labels support.

The labels enter the heavy-tailed map (:mod:`graphdr.maps.heavy_tailed`) as one number, the
separation :math:`s`: an affinity between labelled samples of different classes keeps the
share :math:`1 - s`. At 0 the map is the data's alone (the most faithful); towards 1 the
classes pull apart, whether or not the data separate them. The choice asks held-out labels
whether pulling them apart helps:

* up to :data:`TRIAL_ROWS` labelled samples (those of smallest content key in each class:
  the same whatever the row order) are dealt to two stratified folds;
* for each candidate :math:`s` of :data:`SEPARATIONS`, the map of one fold
  (:data:`TRIAL_ITER` iterations of t-SNE's schedule), the other fold placed on it from its
  ``n_neighbors`` nearest input neighbours (:func:`graphdr.maps.placement.place`, width 1),
  and each placed sample's 2-D nearest neighbour's class against its label, both ways round;
* the chosen :math:`s` is the least candidate whose held-out errors are not worse than the
  best candidate's by the exact McNemar test at level :data:`LEVEL`
  (:func:`graphdr.tuning.common.mcnemar_pvalue`): the labels shape the map only as far as
  held-out samples say they help.

With fewer than :data:`TRIAL_MIN` labelled samples, or one class, no test has the power to
decide, and the separation is :data:`FALLBACK`; a map without labelled samples has nothing to
separate (0).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from .._threads import map_threads
from ..blocks.knn import _search_groups
from ..blocks.sampling import stratified_folds, stratified_subsample
from ..tuning.common import mcnemar_pvalue
from .heavy_tailed import descend_heavy_tailed, descent_inputs
from .placement import place, row_distances

__all__ = ["choose_separation", "SEPARATIONS"]

#: the candidates of ``separation='auto'``, least first
SEPARATIONS = (0.0, 0.5, 0.9)
#: labelled samples (at most) of the trial maps, dealt to two folds
TRIAL_ROWS = 800
#: fewer labelled samples than this: :data:`FALLBACK`
TRIAL_MIN = 200
#: the separation when the held-out labels cannot decide
FALLBACK = 0.5
#: iterations of a trial map, and how many of them exaggerated (a map of 400 samples settles
#: in fewer than the fit's 750 and 250)
TRIAL_ITER, TRIAL_EARLY_ITER = 350, 150
#: level of the McNemar test by which a larger separation must beat a smaller one
LEVEL = 0.05


def _fold_inputs(Xs, train, test, *, n_neighbors, perplexity):
    """What every trial map of the fold ``train`` shares whatever its separation: its
    descent's inputs (:func:`graphdr.maps.heavy_tailed.descent_inputs`) and the ``test``
    samples' ``n_neighbors`` nearest ``train`` samples, with their distances recomputed row by
    row as transform does (the exact search with machine-independent ties,
    :mod:`graphdr.blocks.knn`)."""
    Xt = Xs[train]
    k = min(int(n_neighbors), len(train))
    _, ind = _search_groups(Xs, [(test, train, k)], "euclidean", False)[0]
    return descent_inputs(Xt, perplexity, "exact"), row_distances(Xs[test], Xt, ind)


def _held_out_wrong(y, train, test, separation, inputs, held_out, *, perplexity, tail):
    """Which ``test`` samples the map of ``train`` at ``separation`` misplaces (their 2-D
    nearest training sample of another class); ``inputs, held_out``: the fold's
    :func:`_fold_inputs`."""
    Y = descend_heavy_tailed(None, y[train], np.arange(len(train)), n_iter=TRIAL_ITER,
                             early_iter=TRIAL_EARLY_ITER, perplexity=perplexity,
                             separation=separation, tail=tail, neighbors="exact",
                             inputs=inputs).x
    placed = place(Y, *held_out, 1.0)
    near = cKDTree(Y).query(placed, k=1)[1]
    return y[train][near] != y[test]


def choose_separation(Xs, labels, keys, *, n_neighbors, perplexity, tail):
    """``(separation, errors)``: the separation of the map of the scaled rows ``Xs`` whose
    given labels are ``labels`` (encoded, -1 for none; ``keys`` their content keys), and the
    held-out error (fraction) of each candidate, ``{}`` when none was tried (module
    docstring)."""
    labels = np.asarray(labels)
    lab = np.flatnonzero(labels >= 0)
    if not len(lab):
        return 0.0, {}
    if len(lab) < TRIAL_MIN or len(np.unique(labels[lab])) < 2:
        return FALLBACK, {}
    if len(lab) > TRIAL_ROWS:
        lab = lab[np.sort(stratified_subsample(labels[lab], TRIAL_ROWS, keys[lab]))]
    y = labels[lab]
    X = np.asarray(Xs[lab], dtype=np.float64)
    wrong = np.zeros((len(lab), len(SEPARATIONS)), dtype=bool)
    folds = list(stratified_folds(y, 2, keys[lab]))
    shared = map_threads(lambda fold: _fold_inputs(
        X, *fold, n_neighbors=n_neighbors, perplexity=perplexity), folds)
    trials = [(f, c) for f in range(len(folds)) for c in range(len(SEPARATIONS))]

    def trial(job):  # each trial map on its own thread: the same maps, in any number of them
        f, c = job
        return _held_out_wrong(y, *folds[f], SEPARATIONS[c], *shared[f],
                               perplexity=perplexity, tail=tail)

    for (f, c), got in zip(trials, map_threads(trial, trials)):
        test = folds[f][1]
        wrong[test, c] = got
    errors = wrong.mean(axis=0)
    best = int(np.argmin(errors))  # (ties: the least)
    chosen = best
    for c in range(best):  # the least candidate not significantly worse than the best
        b = int(np.sum(~wrong[:, c] & wrong[:, best]))
        worse = int(np.sum(wrong[:, c] & ~wrong[:, best]))
        if not (worse > b and mcnemar_pvalue(b, worse) <= LEVEL):
            chosen = c
            break
    return SEPARATIONS[chosen], {s: float(e) for s, e in zip(SEPARATIONS, errors)}
