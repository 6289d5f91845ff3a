r"""``LabelIssues``: the samples whose given label the data contradicts (:mod:`graphdr.audit`)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from .._outputs import held_interrupts
from .._threads import managed_threads
from .._validation import (
    check_int,
    check_label_values,
    check_labels,
    check_not_constant,
    check_option,
    checked_parameters,
    fraction_rule,
)
from ..blocks.knn import _approx_search_groups, _search_groups, resolve_algorithm
from ..blocks.sampling import canonical_order, row_keys, stratified_folds
from ..blocks.scaling import FEATURE_SCALINGS, feature_scaling
from ..training.prepared import PreparedInput
from .confident import auto_min_suspicion, label_issues, suspicion
from .probabilities import (
    FOLD_MODELS,
    fold_features,
    fold_probabilities,
    neighbour_probabilities,
    neighbour_weights,
    prior_part,
    stacking_weights,
)

__all__ = ["LabelIssues"]

#: the models ``models='auto'`` stacks
AUTO_MODELS = ("neighbors", "discriminant", "logistic")


def _models_rule(value, name):
    if isinstance(value, str) and value == "auto":
        return
    allowed = ("neighbors", *FOLD_MODELS)
    if (not isinstance(value, (tuple, list)) or not value
            or any(not isinstance(v, str) or v not in allowed for v in value)
            or len(set(value)) != len(value)):
        raise ValueError(f"{name} must be 'auto' or a non-empty list of distinct names among "
                         f"{list(allowed)}; got {value!r}.")



class LabelIssues(BaseEstimator):
    r"""Find the samples whose given label the data contradicts (confident learning).

    Every labelled sample :math:`i` gets out-of-sample class probabilities :math:`\hat p_i` from
    models that never saw its label, stacked (:mod:`graphdr.audit.probabilities`):

    .. math::

        \hat p_i = \sum_m w_m \hat p^{\,m}_i, \qquad
        w = \arg\min_{w \in \Delta} \sum_{i \in \mathcal L} \Big\lVert \sum_m w_m
        \hat p^{\,m}_i - e_{\tilde y_i} \Big\rVert^2 ,

    where :math:`\hat p^{\,nn}` is the vote of the :math:`k` nearest other samples, weighted
    :math:`\exp(-d_{ij}^2 / d_{ik}^2)` (through unlabelled neighbours: two steps), :math:`\hat
    p^{\,lda}` and :math:`\hat p^{\,lr}` the posteriors of a shrunk linear discriminant and of a
    logistic regression fitted on the other ``n_folds - 1`` folds (standardised features, or
    the 64 leading whitened principal components of more), :math:`\hat p^{\,\pi} = \pi` the
    labelled samples' class frequencies (its weight shrinks probabilities that claim more than
    the labels bear out), :math:`\Delta` the simplex and :math:`\mathcal L` the labelled
    samples. Then the rule of confident learning (Northcutt,
    Jiang & Chuang, JAIR 2021; :mod:`graphdr.audit.confident`): per-class thresholds
    :math:`t_c`, the mean of :math:`\hat p_{ic}` over the samples given class :math:`c`, so that
    classes of different size and difficulty are treated alike; the confident joint
    :math:`C_{ab}`, the number of samples given :math:`a` whose most probable class above its
    threshold is :math:`b`, calibrated to the class sizes (:math:`\tilde C_{ab}`, the estimated
    number of samples given :math:`a` whose class is :math:`b`). A sample given :math:`a` is
    flagged when it is among the :math:`\tilde C_{ab}` of largest margin :math:`\hat p_{ib} -
    \hat p_{ia}` for some :math:`b \ne a`, among the :math:`\sum_{b \ne a} \tilde C_{ab}` of
    lowest :math:`\hat p_{ia}`, and its **suspicion**, the probability of its most probable
    other class, reaches the cut (``min_suspicion``):

    .. math::

        s_i = \max_{c \ne \tilde y_i} \hat p_{ic} \;\ge\; s_{\min}, \qquad
        s_{\min} = \begin{cases} 1/2 & \text{if } \min_c n_c < 30, \\
                                 0 & \text{otherwise} \end{cases}
        \quad (\texttt{'auto'}),

    with :math:`n_c` the labelled samples of class :math:`c`. The rule of confident learning
    is relative (each class against its own mean self-confidence), so it names as many samples
    when the probabilities are weak as when they are strong. With a few labels per class the
    out-of-sample models are weak and it flags many correct labels (39 % of vowel's with 4 per
    class): the default then asks another class to be more probable than all the others, the
    given one included (12 %). With 30 or more per class the probabilities bear the rule out
    and the cut would cost flipped labels found (10^5 x 50, ten overlapping classes: F1 0.627
    without it, 0.530 with 1/2, cleanlab's 0.575), so the default keeps the rule alone. A flag
    carries how sure it is: :math:`s_i`.

    The label quality of a sample is its self-confidence :math:`\hat p_{i \tilde y_i}` (low:
    suspect), its suggested label :math:`\arg\max_c \hat p_{ic}`.

    Flags on clean labels (``benchmarks/results/label_issues.md``): at most 0.3 % of the rows
    on the sets whose classes separate (digits, vowel, wdbc, MNIST); where classes overlap,
    the samples the data contradict are flagged whoever labelled them (pima 15 %, led7digit
    15 %, vehicle 12 %, heart 10 %, ionosphere 5 %, sonar 4 %), as cleanlab's do: the same
    samples as the flipped labels it finds at the noise benchmark's F1, which no cut separates
    (the table there gives the cost of a higher ``min_suspicion``).

    ``fit(X, y)`` takes ``y = -1`` for an unlabelled sample: it is never flagged
    (``label_quality_`` NaN) but carries the neighbour graph, and gets a suggested label.
    Deterministic and independent of the row order (every step runs on the samples in content
    order, :func:`graphdr.blocks.sampling.canonical_order`); memory :math:`O(n k + d^2)`, no
    :math:`n \times n` array; approximate neighbours (inverted lists) from the size where exact search is slow
    (``neighbors='auto'``).

    When to use it: before trusting labels (a public benchmark's test set, crowd labels,
    labels from rules), and to audit a map (:class:`graphdr.DEEMap`). It ranks suspects; a
    person still decides.

    Parameters
    ----------
    n_neighbors : int, default=10
        Neighbours per sample of the neighbour model.
    models : 'auto' or list of str, default='auto'
        The models stacked: among ``'neighbors'``, ``'discriminant'``, ``'logistic'``;
        ``'auto'`` stacks all three.
    n_folds : int, default=5
        Folds of the discriminant and logistic models (dealt by content, stratified); fewer
        when no class has that many labelled samples (as many as the largest class has; a note
        says so), none with one labelled sample per class (the neighbour model alone).
    min_suspicion : 'auto' or float in [0, 1], default='auto'
        The suspicion :math:`s_i` a flag needs; 0 flags every sample the rule of confident
        learning names; ``'auto'``: 1/2 when a class has fewer than 30 labelled samples, else
        0 (:func:`graphdr.audit.confident.auto_min_suspicion`; the cut taken is
        ``min_suspicion_``). 0.5 gives the flags of the previous version.
    feature_scaling : {'auto', 'standard', 'none'}, default='auto'
        How the features are scaled for the neighbour search, as :class:`graphdr.DEEMap`
        (:func:`graphdr.blocks.scaling.feature_scaling`): ``'auto'`` standardises when one
        feature holds more than half of the total variance.
    neighbors : {'auto', 'exact', 'approx'}, default='auto'
        Exact neighbour search, or inverted lists (:func:`graphdr.blocks.list_graph.list_graph`,
        90 % recall) from 200,000 samples on.
    random_state : int, RandomState instance or None, default=None
        Kept for compatibility: the approximate search draws nothing at random.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    is_issue_ : ndarray of bool, shape (n_samples,)
        The flagged samples (never an unlabelled one): the ``suspect`` column of
        :meth:`to_frame`, the samples a map rings.
    suspicion_ : ndarray of shape (n_samples,)
        :math:`s_i`, the probability of the most probable class other than the given one
        (NaN for an unlabelled sample): how sure a flag is.
    label_quality_ : ndarray of shape (n_samples,)
        :math:`\hat p_{i \tilde y_i}` in [0, 1] (NaN for an unlabelled sample): sort by it to
        see the most suspect first.
    suggested_label_ : ndarray of shape (n_samples,)
        The class the data supports, :math:`\arg\max_c \hat p_{ic}`, for every sample.
    probabilities_ : ndarray of shape (n_samples, n_classes)
        The stacked out-of-sample probabilities :math:`\hat p` (columns: ``classes_``).
    model_weights_ : dict
        The stacking weight of each model, and of the class frequencies (``'prior'``).
    notes_ : list of str
        What could not be checked and why (a model left out, fewer folds), also given as
        warnings.
    min_suspicion_ : float
        The cut :math:`s_{\min}` the flags took (``min_suspicion``, or what ``'auto'`` chose).
    thresholds_ : ndarray of shape (n_classes,)
        The per-class thresholds :math:`t_c`.
    confident_joint_ : ndarray of shape (n_classes, n_classes)
        :math:`C_{ab}` (rows: given label, columns: the class above its threshold).
    feature_scaling_ : {'standard', 'none'}
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> from graphdr import LabelIssues
    >>> X, y = load_digits(return_X_y=True)
    >>> rng = np.random.default_rng(0)
    >>> wrong = rng.choice(len(y), 90, replace=False)          # 90 wrong labels
    >>> noisy = y.copy()
    >>> noisy[wrong] = (y[wrong] + rng.integers(1, 10, 90)) % 10
    >>> audit = LabelIssues().fit(X, noisy)
    >>> found = np.flatnonzero(audit.is_issue_)
    >>> bool(np.isin(found, wrong).mean() > 0.9 and np.isin(wrong, found).mean() > 0.8)
    True
    >>> audit.to_frame().columns.tolist()      # the most suspect first
    ['given label', 'suggested label', 'label quality', 'suspicion', 'suspect']
    """

    _parameter_rules = {"models": _models_rule,
                        "n_folds": lambda value, name: check_int(value, name, min_value=2),
                        "min_suspicion": fraction_rule(auto=True)}

    def __init__(self, n_neighbors=10, *, models="auto", n_folds=5, min_suspicion="auto",
                 feature_scaling="auto", neighbors="auto", random_state=None):
        self.n_neighbors = n_neighbors
        self.models = models
        self.n_folds = n_folds
        self.min_suspicion = min_suspicion
        self.feature_scaling = feature_scaling
        self.neighbors = neighbors
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    @managed_threads
    @checked_parameters
    def fit(self, X, y):
        """Find the label issues of ``y`` (-1: unlabelled) given the features ``X`` (an
        estimator's audit may pass its rows validated already, a dense
        :class:`~graphdr.training.prepared.PreparedInput`: they are not validated or keyed
        again)."""
        name = type(self).__name__
        check_option(self.feature_scaling, "feature_scaling", set(FEATURE_SCALINGS))
        check_label_values(y, name)
        prepared = X if isinstance(X, PreparedInput) else None
        if prepared is not None:  # (dense rows, validated by the estimator that audits them)
            prepared.found().write(self)
            X, y = np.asarray(prepared.X, dtype=np.float64), np.asarray(y)
            check_consistent_length(X, y)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_not_constant(X, name, "check labels on")
        classes, y_enc, _ = check_labels(y, min_classes=2, method=name, unlabelled="allow")
        n, C = len(y_enc), len(classes)
        algorithm = resolve_algorithm(self.neighbors, n)
        models = AUTO_MODELS if self.models == "auto" else tuple(self.models)

        resolved, mean, scale = feature_scaling(X, self.feature_scaling)
        # the set's keys where its rows are these bytes (float64), else a pass over them
        keys = prepared.row_keys() if prepared is not None and X is prepared.X else row_keys(X)
        order = canonical_order(keys, y_enc)
        Z = (X[order] - mean) / scale
        yo = y_enc[order]
        models, parts, notes = self._model_parts(Z, yo, keys[order], C, algorithm, models)
        models, parts = (*models, "prior"), [*parts, prior_part(yo, C)]
        weights = stacking_weights(parts, yo)
        P_sorted = sum(w * p for w, p in zip(weights, parts))

        lab = np.flatnonzero(yo >= 0)
        P_lab, y_lab = P_sorted[lab], yo[lab]
        issue_sorted = np.zeros(n, dtype=bool)
        cut = (auto_min_suspicion(y_lab) if self.min_suspicion == "auto"
               else float(self.min_suspicion))
        issue_sorted[lab], thresholds, joint = label_issues(P_lab, y_lab, cut)

        P = np.empty_like(P_sorted)
        P[order] = P_sorted
        is_issue = np.empty(n, dtype=bool)
        is_issue[order] = issue_sorted
        quality = np.full(n, np.nan)
        suspected = np.full(n, np.nan)
        labelled = y_enc >= 0
        quality[labelled] = P[np.flatnonzero(labelled), y_enc[labelled]]
        suspected[labelled] = suspicion(P[labelled], y_enc[labelled])
        for note in notes:
            warnings.warn(note + ".", UserWarning, stacklevel=4)
        with held_interrupts():
            self.classes_ = classes
            self._given_labels = np.asarray(y)
            self.feature_scaling_ = resolved
            self.probabilities_ = P
            self.model_weights_ = {m: float(w) for m, w in zip(models, weights)}
            self.notes_ = notes
            self.min_suspicion_ = cut
            self.thresholds_ = thresholds
            self.confident_joint_ = joint
            self.is_issue_ = is_issue
            self.label_quality_ = np.clip(quality, 0.0, 1.0)
            self.suspicion_ = np.clip(suspected, 0.0, 1.0)
            self.suggested_label_ = classes[np.argmax(P, axis=1)]
        return self

    def _model_parts(self, Z, yo, keys, C, algorithm, models):
        """``(models, parts, notes)``: the models that can check these labels, their
        out-of-sample probabilities (rows in content order) and what was left out and why.

        The fold models take ``k = min(n_folds, largest class)`` folds (a class of fewer rows
        than folds leaves folds without it, not empty ones); with ``k < 2`` they cannot hold
        any label out, and the discriminant also needs more training rows than classes in
        every fold; a model that cannot run is left out (a note says so) and the others
        check the labels."""
        name = type(self).__name__
        labelled = np.flatnonzero(yo >= 0)
        largest = int(np.bincount(yo[labelled], minlength=C).max())
        k = min(int(self.n_folds), largest)
        folds = stratified_folds(yo[labelled], k, keys[labelled]) if k >= 2 else []
        notes, kept, parts = [], [], []
        fold_models = [m for m in models if m != "neighbors"]
        if fold_models and k >= 2:
            Zf = fold_features(Z)
        for model in models:
            if model == "neighbors":
                kept.append(model)
                parts.append(self._neighbour_part(Z, yo, C, algorithm))
                continue
            if k < 2:
                why = "every class has one labelled sample: no fold can hold a label out"
            elif model == "discriminant" and any(
                    len(train) <= len(np.unique(yo[labelled[train]])) for train, _ in folds):
                why = ("a fold's training samples do not outnumber its classes (at most "
                       f"{largest} labelled samples per class)")
            else:
                kept.append(model)
                parts.append(fold_probabilities(model, Zf, yo, folds, C))
                continue
            notes.append(f"{name}: the {model} model was left out ({why})")
        if not kept:
            raise ValueError(f"{name}: no model can check these labels ({'; '.join(notes)}); "
                             "pass models='auto' or add 'neighbors'.")
        folded = [m for m in kept if m != "neighbors"]
        if folded and k < int(self.n_folds):
            notes.insert(0, f"{name}: no class has {int(self.n_folds)} labelled samples (the "
                            f"largest has {largest}): the {' and '.join(folded)} "
                            f"model{'s' if len(folded) > 1 else ''} held the labels out in "
                            f"{k} folds, not {int(self.n_folds)}")
        return tuple(kept), parts, notes

    def _neighbour_part(self, Z, yo, C, algorithm):
        n = Z.shape[0]
        k = min(int(self.n_neighbors), n - 1)
        group = [(np.arange(n), np.arange(n), k)]
        if algorithm == "approx":
            ((dist, idx),) = _approx_search_groups(Z, group)
        else:
            ((dist, idx),) = _search_groups(Z, group, "euclidean", True)
        return neighbour_probabilities(np.asarray(idx), yo, C, neighbour_weights(dist))

    def to_frame(self, *, issues_only=True):
        """The audit as a :class:`pandas.DataFrame`, the most suspect first (by ``suspicion``,
        then ``label quality``): one row per sample (index: its position in ``X``) with its
        ``given label``, ``suggested label``, ``label quality``, ``suspicion`` and ``suspect``
        (True for the flagged samples, ``is_issue_``: the rows a map rings);
        ``issues_only=False`` keeps every labelled sample."""
        import pandas as pd

        check_is_fitted(self, "is_issue_")
        rows = np.flatnonzero(self.is_issue_ if issues_only
                              else ~np.isnan(self.label_quality_))
        rows = rows[np.lexsort((rows, self.label_quality_[rows], -self.suspicion_[rows]))]
        return pd.DataFrame({
            "given label": self._given_labels[rows],
            "suggested label": self.suggested_label_[rows],
            "label quality": self.label_quality_[rows],
            "suspicion": self.suspicion_[rows],
            "suspect": self.is_issue_[rows],
        }, index=pd.Index(rows, name="sample"))
