r"""Confident learning: which given labels the out-of-sample class probabilities contradict.

The rule of Northcutt, Jiang & Chuang (JAIR 2021), written from the paper. With
:math:`\hat p_{ic}` the out-of-sample probability that labelled sample :math:`i` is of class
:math:`c`, :math:`\tilde y_i` its given label and :math:`n_a` the number of samples given label
:math:`a`:

1. **per-class thresholds**, each class's mean self-confidence,
   :math:`t_c = \frac{1}{n_c} \sum_{i : \tilde y_i = c} \hat p_{ic}` -- a class that is hard to
   recognise (or rare) gets a lower bar than an easy one;
2. **the confident joint** :math:`C_{ab} = |\{i : \tilde y_i = a,\ b = \arg\max_{c : \hat p_{ic}
   \ge t_c} \hat p_{ic}\}|` (a sample above no threshold is not counted);
3. **calibrated** to the given class sizes, :math:`\tilde C_{ab} = n_a C_{ab} / \sum_{b'}
   C_{ab'}`: the estimated number of samples given label :math:`a` whose class is :math:`b`;
4. **pruned by noise rate**: for every :math:`a \ne b`, the :math:`\operatorname{round}(\tilde
   C_{ab})` samples given label :math:`a` with the largest margin :math:`\hat p_{ib} - \hat
   p_{ia}` are candidates;
5. **pruned by class**: for every class :math:`a`, the :math:`\operatorname{round}(\sum_{b \ne
   a} \tilde C_{ab})` samples given label :math:`a` of lowest self-confidence :math:`\hat
   p_{ia}` are candidates;
6. a sample is a **candidate** when both rules name it and its given label is not its most
   probable class (the paper's "both" method, with the argmax agreement its reference
   implementation adds). At least one sample of each class keeps its label;
7. a candidate is an **issue** when its **suspicion**, the probability of its most probable
   other class, :math:`s_i = \max_{c \ne \tilde y_i} \hat p_{ic}`, is at least
   ``min_suspicion``. Steps 1-6 are relative (each class against its own mean
   self-confidence), so weak probabilities -- few labels -- still give as many candidates as
   strong ones; the suspicion asks the probabilities themselves to say it. ``'auto'`` (the
   default, :func:`auto_min_suspicion`): 1/2 -- another class more probable than every other
   one, the given one included, together -- when a class has fewer than
   :data:`FEW_LABELS` labelled samples, 0 (steps 1-6 alone, the paper's rule) otherwise.
   With 5 % of the labels (3 to 25 per class) steps 1-6 alone flag up to 39 % of the correct
   labels (vowel), 1/2 brings that to 12 %; with all of them (37 or more per class) the cut
   changes the correct labels flagged by at most 2.2 points (vehicle) and costs flipped labels
   found where many classes overlap (``benchmarks/results/label_issues.md`` and
   ``label_issues_scale.md``).

Ties of the margin go to the smaller index: the caller passes the samples in content order
(:func:`graphdr.blocks.sampling.canonical_order`), so the flags do not depend on the row order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["class_thresholds", "confident_joint", "calibrated_joint", "prune_by_noise_rate",
           "prune_by_class", "suspicion", "auto_min_suspicion", "label_issues", "FEW_LABELS"]

#: the labelled samples per class below which ``min_suspicion='auto'`` asks for 1/2
FEW_LABELS = 30


def class_thresholds(P, y_enc):
    r"""The per-class thresholds :math:`t_c` (mean of :math:`\hat p_{ic}` over the samples given
    class :math:`c`; 1 for a class with no sample, which then catches none)."""
    n_classes = P.shape[1]
    counts = np.bincount(y_enc, minlength=n_classes).astype(np.float64)
    sums = np.zeros(n_classes)
    np.add.at(sums, y_enc, P[np.arange(len(y_enc)), y_enc])
    return np.divide(sums, counts, out=np.ones(n_classes), where=counts > 0)


def confident_joint(P, y_enc, thresholds):
    """The confident joint ``C`` (``n_classes x n_classes`` counts, rows: given label)."""
    n_classes = P.shape[1]
    above = P >= thresholds[None, :]
    masked = np.where(above, P, -np.inf)
    confident = np.argmax(masked, axis=1)
    counted = above.any(axis=1)
    C = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(C, (y_enc[counted], confident[counted]), 1)
    return C


def calibrated_joint(C, y_enc):
    """The confident joint calibrated to the given class sizes (rows sum to them); a class
    whose samples were counted nowhere keeps them on the diagonal."""
    n_classes = C.shape[0]
    sizes = np.bincount(y_enc, minlength=n_classes).astype(np.float64)
    rows = C.sum(axis=1).astype(np.float64)
    out = np.diag(sizes)
    counted = rows > 0
    out[counted] = C[counted] * (sizes[counted] / rows[counted])[:, None]
    return out


def prune_by_noise_rate(P, y_enc, calibrated):
    """The samples flagged by step 4 (bool per sample): for each off-diagonal ``(a, b)`` the
    ``round(calibrated[a, b])`` samples given ``a`` of largest margin ``P[:, b] - P[:, a]``."""
    n, n_classes = P.shape
    issue = np.zeros(n, dtype=bool)
    for a in range(n_classes):
        members = np.flatnonzero(y_enc == a)
        if len(members) < 2:
            continue
        # never every sample of a class: one keeps its label
        budget = len(members) - 1
        for b in range(n_classes):
            if b == a:
                continue
            m = min(int(np.round(calibrated[a, b])), budget)
            if m <= 0:
                continue
            margin = P[members, b] - P[members, a]
            # the m largest margins, ties to the smaller index (a stable sort of -margin)
            top = members[np.argsort(-margin, kind="stable")[:m]]
            issue[top] = True
        flagged = int(issue[members].sum())
        if flagged > budget:  # (several pairs flagged every sample: keep the most confident)
            keep = members[np.argsort(-P[members, a], kind="stable")[0]]
            issue[keep] = False
    return issue


def prune_by_class(P, y_enc, calibrated):
    """The samples named by step 5 (bool per sample): for each class ``a`` the
    ``round(sum of calibrated[a, b != a])`` samples given ``a`` of lowest ``P[:, a]``."""
    issue = np.zeros(P.shape[0], dtype=bool)
    for a in range(P.shape[1]):
        members = np.flatnonzero(y_enc == a)
        if len(members) < 2:
            continue
        m = min(int(np.round(calibrated[a].sum() - calibrated[a, a])), len(members) - 1)
        if m > 0:
            issue[members[np.argsort(P[members, a], kind="stable")[:m]]] = True
    return issue


def suspicion(P, y_enc):
    r"""The suspicion of each sample, :math:`s_i = \max_{c \ne \tilde y_i} \hat p_{ic}` (the
    probability of its most probable other class)."""
    other = np.array(P, dtype=np.float64, copy=True)
    other[np.arange(len(y_enc)), y_enc] = -np.inf
    return other.max(axis=1)


def auto_min_suspicion(y_enc):
    """The cut ``min_suspicion='auto'`` takes for labels ``y_enc`` (0..C-1, labelled samples
    only): 1/2 when a class present has fewer than :data:`FEW_LABELS` samples, else 0."""
    counts = np.bincount(y_enc)
    return 0.5 if counts[counts > 0].min() < FEW_LABELS else 0.0


def label_issues(P, y_enc, min_suspicion="auto"):
    """Steps 1-7: ``(is_issue, thresholds, confident joint)`` of the labelled samples ``P``
    (``n x n_classes``, in content order) given labels ``y_enc`` (0..C-1); ``min_suspicion``
    a number or ``'auto'`` (:func:`auto_min_suspicion`)."""
    if isinstance(min_suspicion, str):
        min_suspicion = auto_min_suspicion(y_enc)
    thresholds = class_thresholds(P, y_enc)
    joint = confident_joint(P, y_enc, thresholds)
    calibrated = calibrated_joint(joint, y_enc)
    issue = prune_by_noise_rate(P, y_enc, calibrated) & prune_by_class(P, y_enc, calibrated)
    issue &= np.argmax(P, axis=1) != y_enc
    issue &= suspicion(P, y_enc) >= min_suspicion
    return issue, thresholds, joint
