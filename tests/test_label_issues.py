"""LabelIssues (graphdr.audit): the confident-learning rule and the neighbour votes against
brute-force loops on tiny inputs, the stacking weights against a dense search, and the estimator
on flipped labels: found, deterministic, independent of the row order, unlabelled rows never
flagged, bad input refused."""

import itertools

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.utils.estimator_checks import parametrize_with_checks

import graphdr
from graphdr.audit.confident import (
    calibrated_joint,
    class_thresholds,
    confident_joint,
    label_issues,
    prune_by_noise_rate,
)
from graphdr.audit.probabilities import (
    neighbour_probabilities,
    neighbour_weights,
    stacking_weights,
)


def _brute_confident_learning(P, y):
    """The rule of graphdr.audit.confident written as plain loops."""
    n, C = P.shape
    t = [np.mean([P[i, c] for i in range(n) if y[i] == c]) if np.any(y == c) else 1.0
         for c in range(C)]
    joint = np.zeros((C, C), dtype=int)
    for i in range(n):
        above = [c for c in range(C) if P[i, c] >= t[c]]
        if above:
            joint[y[i], max(above, key=lambda c: (P[i, c], -c))] += 1
    cal = np.zeros((C, C))
    for a in range(C):
        size = int(np.sum(y == a))
        total = joint[a].sum()
        for b in range(C):
            cal[a, b] = size * joint[a, b] / total if total else (size if a == b else 0)
    by_rate, by_class = set(), set()
    for a in range(C):
        members = [i for i in range(n) if y[i] == a]
        if len(members) < 2:
            continue
        for b in range(C):
            if b == a:
                continue
            m = min(int(np.round(cal[a, b])), len(members) - 1)
            ranked = sorted(members, key=lambda i: (-(P[i, b] - P[i, a]), i))
            by_rate.update(ranked[:m])
        m = min(int(np.round(sum(cal[a, b] for b in range(C) if b != a))), len(members) - 1)
        by_class.update(sorted(members, key=lambda i: (P[i, a], i))[:m])
    rate = np.array([i in by_rate for i in range(n)])
    both = np.array([i in by_rate and i in by_class and np.argmax(P[i]) != y[i]
                     for i in range(n)])
    return np.array(t), joint, cal, rate, both


@pytest.mark.parametrize("seed", range(6))
def test_the_confident_learning_rule_matches_plain_loops(seed):
    rng = np.random.default_rng(seed)
    n, C = 40, 3
    y = rng.integers(0, C, n)
    P = rng.dirichlet(np.ones(C) * 0.7, n)
    P[np.arange(n), y] += 0.6 * rng.random(n)  # mostly agreeing with the labels
    P /= P.sum(axis=1, keepdims=True)
    t, joint, cal, rate, both = _brute_confident_learning(P, y)
    assert np.allclose(class_thresholds(P, y), t)
    assert np.array_equal(confident_joint(P, y, t), joint)
    assert np.allclose(calibrated_joint(joint, y), cal)
    assert np.allclose(calibrated_joint(joint, y).sum(axis=1), np.bincount(y, minlength=C))
    ours = prune_by_noise_rate(P, y, cal)
    assert ours.sum() > 0
    assert np.array_equal(ours, rate)
    issue, thresholds, C_joint = label_issues(P, y)
    assert np.array_equal(issue, both) and np.array_equal(C_joint, joint)
    assert 0 < both.sum() <= rate.sum()


def test_a_sample_whose_probabilities_point_elsewhere_is_flagged_and_the_others_not():
    y = np.array([0] * 10 + [1] * 10)
    P = np.where(np.eye(2)[y] > 0, 0.9, 0.1)
    P[3] = [0.05, 0.95]  # given 0, the data says 1
    t = class_thresholds(P, y)
    cal = calibrated_joint(confident_joint(P, y, t), y)
    assert np.flatnonzero(prune_by_noise_rate(P, y, cal)).tolist() == [3]
    assert np.flatnonzero(label_issues(P, y)[0]).tolist() == [3]


def _brute_votes(idx, y, C, w):
    n = len(y)
    out = np.zeros((n, C))
    prior = np.bincount(y[y >= 0], minlength=C) / np.sum(y >= 0)
    for i in range(n):
        qs, ws = [], []
        for position, j in enumerate(idx[i]):
            if y[j] >= 0:
                qs.append(np.eye(C)[y[j]])
                ws.append(w[i, position])
            else:
                labels = [y[m] for m in idx[j] if y[m] >= 0 and not (m == i and y[i] >= 0)]
                if labels:
                    qs.append(np.mean(np.eye(C)[labels], axis=0))
                    ws.append(w[i, position])
        out[i] = np.average(qs, axis=0, weights=ws) if qs else prior
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_neighbour_votes_match_a_loop_through_unlabelled_neighbours(seed):
    rng = np.random.default_rng(seed)
    n, k, C = 30, 4, 3
    X = rng.normal(size=(n, 2))
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    idx = np.argsort(D, axis=1)[:, :k]
    dist = np.sqrt(np.take_along_axis(D, idx, axis=1))
    y = rng.integers(0, C, n)
    y[rng.random(n) < 0.4] = -1
    w = neighbour_weights(dist)
    assert np.allclose(w, np.exp(-dist**2 / dist[:, -1:] ** 2)) and np.all(w[:, -1] == np.exp(-1))
    for weights in (None, w):
        got = neighbour_probabilities(idx, y, C, weights)
        expected = _brute_votes(idx, y, C, np.ones((n, k)) if weights is None else weights)
        assert np.allclose(got, expected)
        assert np.allclose(got.sum(axis=1), 1.0)
    assert np.array_equal(neighbour_weights(np.zeros((3, 4))), np.ones((3, 4)))


def test_the_stacking_weights_minimise_the_brier_score_on_their_grid():
    rng = np.random.default_rng(0)
    n, C = 200, 3
    y = rng.integers(0, C, n)
    truth = np.eye(C)[y]
    parts = [0.5 * truth + 0.5 * rng.dirichlet(np.ones(C), n),      # good
             rng.dirichlet(np.ones(C), n),                          # noise
             0.3 * truth + 0.7 * rng.dirichlet(np.ones(C), n)]      # fair
    w = stacking_weights(parts, y)
    assert np.isclose(w.sum(), 1.0) and np.all(w >= 0)

    def brier(weights):
        return float(np.sum((sum(a * p for a, p in zip(weights, parts)) - truth) ** 2))
    grid = [np.array(g) / 20 for g in itertools.product(range(21), repeat=3) if sum(g) == 20]
    assert brier(w) <= min(brier(g) for g in grid) + 1e-9
    assert w[0] > w[1]


def _flipped_blobs(n=300, C=3, rate=0.08, seed=0):
    X, y = make_blobs(n_samples=n, centers=C, n_features=5, cluster_std=1.5, random_state=seed)
    rng = np.random.default_rng(seed)
    noisy = y.copy()
    flip = rng.choice(n, int(rate * n), replace=False)
    noisy[flip] = (y[flip] + 1 + rng.integers(0, C - 1, len(flip))) % C
    return X, y, noisy


def test_flipped_labels_are_found_and_ranked_first():
    X, y, noisy = _flipped_blobs()
    audit = graphdr.LabelIssues().fit(X, noisy)
    wrong = noisy != y
    found = audit.is_issue_
    assert np.sum(found & wrong) / wrong.sum() >= 0.9      # recall
    assert np.sum(found & wrong) / found.sum() >= 0.8      # precision
    worst = np.argsort(audit.label_quality_)[: wrong.sum()]
    assert np.mean(wrong[worst]) >= 0.9
    assert np.mean(audit.suggested_label_[wrong] == y[wrong]) >= 0.9
    assert np.all((audit.label_quality_ >= 0) & (audit.label_quality_ <= 1))
    assert np.allclose(audit.probabilities_.sum(axis=1), 1.0)
    assert np.isclose(sum(audit.model_weights_.values()), 1.0)
    frame = audit.to_frame()
    assert len(frame) == found.sum() and frame["label quality"].is_monotonic_increasing
    assert set(frame.index) == set(np.flatnonzero(found))


def test_text_labels_and_the_same_audit_in_any_row_order():
    X, y, noisy = _flipped_blobs(seed=1)
    names = np.array(["ant", "bee", "cat"])[noisy]
    audit = graphdr.LabelIssues().fit(X, names)
    assert audit.classes_.tolist() == ["ant", "bee", "cat"]
    perm = np.random.default_rng(3).permutation(len(y))
    other = graphdr.LabelIssues().fit(np.asfortranarray(X[perm]), names[perm])
    assert np.array_equal(other.is_issue_, audit.is_issue_[perm])
    assert np.array_equal(other.probabilities_, audit.probabilities_[perm])
    assert np.array_equal(other.suggested_label_, audit.suggested_label_[perm])


def test_unlabelled_rows_are_never_flagged_but_get_a_suggested_label():
    X, y, noisy = _flipped_blobs(n=400, seed=2)
    partial = noisy.copy()
    hidden = np.random.default_rng(0).random(len(y)) < 0.5
    partial[hidden] = -1
    audit = graphdr.LabelIssues().fit(X, partial)
    assert not audit.is_issue_[hidden].any()
    assert np.all(np.isnan(audit.label_quality_[hidden]))
    assert np.mean(audit.suggested_label_[hidden] == y[hidden]) >= 0.9
    wrong = (partial != y) & ~hidden
    assert np.mean(audit.is_issue_[wrong]) >= 0.8


def test_clean_separated_classes_give_no_issue():
    X, y = make_blobs(n_samples=200, centers=[[0, 0], [20, 0], [0, 20]], random_state=0)
    audit = graphdr.LabelIssues().fit(X, y)
    assert not audit.is_issue_.any()
    assert np.all(audit.suggested_label_ == y)


def test_constant_features_duplicate_rows_and_extreme_scales_give_no_nan():
    X, y, noisy = _flipped_blobs(n=120, seed=4)
    X = np.hstack([X, np.ones((len(X), 2))])
    X = np.vstack([X, X[:20]])
    noisy = np.concatenate([noisy, noisy[:20]])
    for scale in (1e-300, 1.0, 1e300):
        audit = graphdr.LabelIssues().fit(X * scale, noisy)
        assert np.all(np.isfinite(audit.probabilities_))
        assert np.all(np.isfinite(audit.label_quality_))
    reference = graphdr.LabelIssues().fit(X, noisy)
    tiny = graphdr.LabelIssues().fit(X * 1e-300, noisy)
    assert np.array_equal(tiny.is_issue_, reference.is_issue_)


@pytest.mark.parametrize("params, y_kind, message", [
    ({"models": ["svm"]}, "ok", "models must be"),
    ({"models": []}, "ok", "models must be"),
    ({"n_folds": 1}, "ok", "n_folds must be an integer >= 2"),
    ({"feature_scaling": "minmax"}, "ok", "feature_scaling must be one of"),
    ({}, "one class", "at least 2 classes"),
    ({}, "all unlabelled", "unlabelled"),
])
def test_bad_input_gets_a_clear_error(params, y_kind, message):
    X, _, noisy = _flipped_blobs(n=60)
    y = {"ok": noisy, "one class": np.zeros(60, dtype=int),
         "all unlabelled": np.full(60, -1)}[y_kind]
    with pytest.raises(ValueError, match=message):
        graphdr.LabelIssues(**params).fit(X, y)


@parametrize_with_checks([graphdr.LabelIssues(), graphdr.LabelIssues(models=["neighbors"])])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", ["LDA", "KernelLDA", "LFDA", "SemiLFDA",
                                  pytest.param("DEEMap", marks=pytest.mark.slow)])
@pytest.mark.slow
def test_labels_flag_and_audit_on_the_class_separating_estimators(name):
    X, y, noisy = _flipped_blobs(n=240, seed=5)
    cls = getattr(graphdr, name)
    params = {"max_iter": 20} if name == "DEEMap" else {}
    given = cls(**params).fit(X, noisy)
    assert given.label_issues_ is None
    flag = cls(labels="flag", **params).fit(X, noisy)
    audit = graphdr.LabelIssues().fit(X, noisy)
    assert np.array_equal(flag.label_issues_.is_issue_, audit.is_issue_)
    assert flag.label_issues_.is_issue_.sum() > 0
    # 'flag' fits the labels as given: the same fit
    assert np.array_equal(flag.transform(X[:20]), given.transform(X[:20]))
    audited = cls(labels="audit", **params).fit(X, noisy)
    # 'audit' is the fit of the labels with the flagged samples -1
    partial = np.where(audit.is_issue_, -1, noisy)
    same = cls(**params).fit(X, partial)
    assert np.allclose(audited.transform(X[:20]), same.transform(X[:20]))
    assert audited.unlabelled_ == same.unlabelled_
    assert np.array_equal(audited.classes_, given.classes_)


def test_labels_audit_keeps_text_labels_and_refuses_what_it_cannot_audit():
    X, y, noisy = _flipped_blobs(n=150, seed=6)
    names = np.array(["ant", "bee", "cat"])[noisy]
    lda = graphdr.LDA(labels="audit").fit(X, names)
    assert lda.classes_.tolist() == ["ant", "bee", "cat"]
    assert lda.unlabelled_ is not None
    with pytest.raises(ValueError, match="labels must be one of"):
        graphdr.LDA(labels="clean").fit(X, noisy)
    K = X @ X.T
    with pytest.raises(ValueError, match="kernel='precomputed'"):
        graphdr.KernelLDA(kernel="precomputed", labels="audit").fit(K, noisy)
