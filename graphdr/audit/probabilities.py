r"""Out-of-sample class probabilities of labelled samples, from models that never saw their label.

Three models, each giving every labelled sample :math:`i` a distribution :math:`\hat p_i` over
the classes from the other samples' labels only:

* **neighbours** (:func:`neighbour_probabilities`): the labels of the :math:`k` nearest other
  samples, :math:`\hat p^{\,nn}_i = \sum_{j \in N_i} w_{ij} q_{j \setminus i} / \sum_{j \in
  N_i} w_{ij}`, weighted :math:`w_{ij} = \exp(-d_{ij}^2 / d_{ik}^2)` by the distance relative
  to the :math:`k`-th neighbour's (:func:`neighbour_weights`: the nearest count up to
  :math:`e` times the farthest), with
  :math:`q_j = e_{\tilde y_j}` for a labelled neighbour and, for an unlabelled one, the mean
  label of *its* labelled neighbours other than :math:`i` (unlabelled samples carry the
  graph: two steps through them); the class frequencies where no neighbour says anything;
* **discriminant** (:func:`fold_probabilities` with linear discriminant analysis): the class
  posterior of a Gaussian model with shared, Ledoit-Wolf shrunk covariance, fitted on the other
  folds;
* **logistic** (the same with multinomial logistic regression): a linear model of the
  posterior that assumes no Gaussian classes.

They are **stacked** (:func:`stacking_weights`) with the labelled samples' class frequencies
:math:`\pi` (:func:`prior_part`, the same for every sample): the convex weights :math:`w` (on a
grid of step 1/20 over the simplex) that minimise the Brier score of :math:`\sum_m w_m \hat
p^{\,m}` against the given labels, :math:`\sum_i \lVert \sum_m w_m \hat p^{\,m}_i -
e_{\tilde y_i} \rVert^2` -- a choice made on the noisy labels themselves, which most samples
still carry right. The frequencies' weight shrinks probabilities that claim more than the
labels bear out (few labels: a vote of one or two labelled neighbours, a model fitted on a
handful of rows) towards them, so that their size means what it says (0 when the models are
calibrated; on the sets of ``benchmarks/label_issues.py``, seed 0: 0 with their own labels, up
to 0.15 with 10-20 % of them flipped, up to 0.6 with 5 % of them kept).
Every computation runs on the samples in content order, so nothing depends on the row order.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

__all__ = ["neighbour_weights", "neighbour_probabilities", "fold_features", "fold_probabilities",
           "prior_part", "stacking_weights", "FOLD_MODELS"]


def _class_prior(y_enc, n_classes):
    counts = np.bincount(y_enc[y_enc >= 0], minlength=n_classes).astype(np.float64)
    return counts / counts.sum()


def neighbour_weights(dist):
    r""":math:`w_{ij} = \exp(-d_{ij}^2 / d_{ik}^2)` of each sample's sorted neighbour distances
    ``dist`` (``n x k``); 1 for every neighbour of a sample whose :math:`k` neighbours are all
    at distance 0 (duplicates). (Measured beside the plain vote and the sharper
    :math:`\exp(-4 d^2 / d_k^2)` of the propagation graph in ``benchmarks/label_issues.py``:
    the plain vote lost on the sets of many small classes, the sharper weights on digits.)"""
    sq = np.asarray(dist, dtype=np.float64) ** 2
    kth = sq[:, -1:]
    return np.exp(-np.divide(sq, kth, out=np.zeros_like(sq), where=kth > 0))


def neighbour_probabilities(idx, y_enc, n_classes, weights=None):
    r""":math:`\hat p^{\,nn}` of every sample (``n x n_classes``) from ``idx`` (``n x k``: each
    sample's nearest other samples), their ``weights`` (default: 1) and ``y_enc`` (-1:
    unlabelled).

    A labelled neighbour votes its label; an unlabelled neighbour :math:`j` the mean label of its
    own labelled neighbours other than the sample asking (none: no vote)."""
    n, k = idx.shape
    w = np.ones((n, k)) if weights is None else np.asarray(weights, dtype=np.float64)
    labelled = y_enc >= 0
    onehot = np.zeros((n, n_classes))
    onehot[np.flatnonzero(labelled), y_enc[labelled]] = 1.0
    votes = np.einsum("ik,ikc->ic", w, onehot[idx])  # labelled neighbours' labels
    count = (w * labelled[idx]).sum(axis=1)
    rows, cols = np.nonzero(~labelled[idx])        # (asking sample, position) of unlabelled ones
    if len(rows):
        j = idx[rows, cols]
        # each unlabelled neighbour's labelled-neighbour sum, less the asking sample's own label
        sums = onehot[idx[j]].sum(axis=1)
        counts = labelled[idx[j]].sum(axis=1).astype(np.float64)
        own = (idx[j] == rows[:, None]).any(axis=1) & labelled[rows]
        sums[own, y_enc[rows[own]]] -= 1.0
        counts[own] -= 1.0
        said = counts > 0
        np.add.at(votes, rows[said], w[rows[said], cols[said], None] * sums[said]
                  / counts[said, None])
        np.add.at(count, rows[said], w[rows[said], cols[said]])
    prior = _class_prior(y_enc, n_classes)
    safe = np.where(count > 0, count, 1.0)
    return np.where(count[:, None] > 0, votes / safe[:, None], prior[None, :])


def _discriminant():
    return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")


#: the gradient tolerance of the logistic model's Newton steps: its optimum (unique: the loss
#: is strictly convex) to within rounding, so that every BLAS kernel and thread count gives
#: the same probabilities to 1e-9 (lbfgs stopped at scikit-learn's 1e-4 moved them by up to
#: 0.1 under another OpenBLAS kernel; Newton steps to 1e-10 by 2e-9)
LOGISTIC_TOL = 1e-12


def _logistic():
    # each fold starts from the previous fold's solution (the folds share 3/4 of their rows:
    # fewer Newton steps; the optimum is unique, the start does not change it)
    return LogisticRegression(C=1.0, solver="newton-cg", tol=LOGISTIC_TOL, max_iter=100,
                              warm_start=True)


#: above this many features the fold models see the leading principal components
FOLD_FEATURES = 64


def fold_features(Z):
    r"""The features of the fold models, from ``Z`` (``n x d``, rows in content order):
    centred and divided by one factor, the root mean variance :math:`s = (\sum_j
    \operatorname{var}(z_j) / d)^{1/2}` (1 when every feature is constant), :math:`Z_f = (Z -
    \bar z) / s`, up to :data:`FOLD_FEATURES` features; above, the leading
    :data:`FOLD_FEATURES` principal components, whitened, :math:`Z_f = (Z - \bar z) V_m
    \Lambda_m^{-1/2}` (those of variance above :math:`10^{-10}` times the largest).

    Up to :data:`FOLD_FEATURES` features they keep the relative scale the neighbour model sees
    (``feature_scaling``): the logistic model's penalty :math:`\lVert w \rVert^2` is a ridge
    that shrinks the directions of little variance most, where standardising would blow a
    near-constant feature up to the weight of the others (digits' border pixels: the audit's
    F1 with a pair of classes confused 0.888, against 0.896 the best cleanlab anchor's and
    0.896 here; ``benchmarks/label_issues.py``, 3 seeds); the discriminant's posterior does
    not depend on :math:`s`. The Newton steps reach the optimum to within rounding either way
    (the same probabilities to 1e-9 under every BLAS kernel). Above, the components keep the
    logistic model's cost low on images (MNIST, 784 pixels: 0.5 s per fold instead of 10 s,
    held-out accuracy 0.904 against 0.907 on every pixel); whitening the leading components
    does not blow up a near-constant direction."""
    centre = Z.mean(axis=0)
    Zc = Z - centre
    if Z.shape[1] <= FOLD_FEATURES:
        total = float(np.sum(Zc * Zc)) / len(Z)
        return Zc / np.sqrt(total / Z.shape[1]) if total > 0 else Zc
    cov = Zc.T @ Zc / len(Z)
    values, vectors = np.linalg.eigh((cov + cov.T) / 2.0)
    order = np.argsort(values, kind="stable")[::-1][:FOLD_FEATURES]
    values, vectors = values[order], vectors[:, order]
    keep = values > 1e-10 * max(float(values[0]), 0.0)
    if not keep.any():  # every feature constant: nothing to fit on
        return np.zeros((len(Z), 1))
    return Zc @ (vectors[:, keep] / np.sqrt(values[keep]))


#: the fold models by name
FOLD_MODELS = {"discriminant": _discriminant, "logistic": _logistic}


def fold_probabilities(model, X, y_enc, folds, n_classes):
    """The out-of-sample posterior of ``model`` (a name of :data:`FOLD_MODELS`) for every sample:
    a labelled sample's from the model fitted on the folds without it, an unlabelled one's the
    mean over the folds' models. ``folds``: ``(train, test)`` index pairs into the labelled
    samples (``y_enc >= 0``), in the order of ``X``'s labelled rows."""
    labelled = np.flatnonzero(y_enc >= 0)
    unlabelled = np.flatnonzero(y_enc < 0)
    P = np.zeros((len(y_enc), n_classes))
    estimator, classes = FOLD_MODELS[model](), None
    for train, test in folds:
        rows = labelled[train]
        present = np.unique(y_enc[rows])
        fitted = None
        if len(present) > 1:  # (a fold of one class gives that class)
            if classes is not None and not np.array_equal(classes, present):
                estimator = FOLD_MODELS[model]()  # (no warm start across other classes)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                # (a class of one training sample: scikit-learn warns of its covariance; the
                # Newton steps' line search stops where rounding leaves nothing to gain)
                warnings.filterwarnings("ignore", "Only one sample available", UserWarning)
                warnings.filterwarnings("ignore", "Line Search failed", UserWarning)
                warnings.filterwarnings("ignore", "The line search algorithm did not")
                warnings.filterwarnings("ignore", "Rounding errors prevent the line search")
                fitted = estimator.fit(X[rows], y_enc[rows])
            classes = present

        def proba(where, fitted=fitted):
            return np.ones((len(where), 1)) if fitted is None else fitted.predict_proba(X[where])
        where = labelled[test]
        P[np.ix_(where, present)] = proba(where)
        if len(unlabelled):
            P[np.ix_(unlabelled, present)] += proba(unlabelled) / len(folds)
    return P


def prior_part(y_enc, n_classes):
    """The labelled samples' class frequencies as every sample's probabilities (``n x
    n_classes``), the stacking's shrinkage target."""
    return np.tile(_class_prior(y_enc, n_classes), (len(y_enc), 1))


#: the step of the stacking weights' grid over the simplex
STACKING_STEP = 1.0 / 20


def stacking_weights(parts, y_enc):
    r"""The convex weights of the models ``parts`` (list of ``n x C`` probabilities) that minimise
    the Brier score against the labelled samples' labels, on a grid of step
    :data:`STACKING_STEP` (ties, to 1e-8 relative: the first in the grid's order, which puts
    weight on the earlier models first)."""
    labelled = np.flatnonzero(y_enc >= 0)
    m = len(parts)
    if m == 1:
        return np.ones(1)
    flat = [p[labelled] for p in parts]
    G = np.array([[float(np.sum(a * b)) for b in flat] for a in flat])
    b = np.array([float(np.sum(a[np.arange(len(labelled)), y_enc[labelled]])) for a in flat])
    steps = round(1.0 / STACKING_STEP)
    best, best_w = np.inf, None
    for head in itertools.product(range(steps + 1), repeat=m - 1):
        if sum(head) > steps:
            continue
        w = np.array([*head, steps - sum(head)], dtype=np.float64) / steps
        value = float(w @ G @ w - 2.0 * w @ b)
        # (better by 1e-8 relative: the 1e-10 that BLAS kernels leave in the fold models'
        # probabilities do not pick another weight)
        if best_w is None or value < best - 1e-8 * max(1.0, abs(best)):
            best, best_w = value, w
    return best_w
