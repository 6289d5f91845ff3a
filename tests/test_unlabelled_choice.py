"""The choice of ``unlabelled='auto'`` (graphdr.semi.choice.compare_unlabelled_uses) stops the
trials that cannot change it: the same choice, and the same counts for every use it fits on
every fold, as the comparison that fits every trial (``CHOICE_STOP = False``).

Oracles: the comparison with every trial fitted; the sign test evaluated on every count of a
grid (the stop's bound); seeded synthetic trial outcomes, so that every way of stopping is
reached on a small input."""

import numpy as np
import pytest

import graphdr
import graphdr.semi.choice as semi


def _blobs(n=240, labelled=60, seed=0, spread=1.0):
    """Three classes of ``n / 3`` Gaussian samples in 4-D, ``labelled`` of them labelled."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    X = rng.normal(size=(n, 4)) * spread + 2.0 * np.eye(4)[y]
    few = np.full(n, -1)
    for c in range(3):
        few[rng.choice(np.flatnonzero(y == c), labelled // 3, replace=False)] = c
    return X, few


def _compare(monkeypatch, est, X, few, stop):
    """``unlabelled_results_`` of ``est`` fitted with the trials stopped or not."""
    monkeypatch.setattr(semi, "CHOICE_STOP", stop)
    return est.fit(X, few).unlabelled_results_


def _check_same(full, stopped):
    """The stopped comparison against the one of every trial: same choice, same counts of
    the labelled rows alone, the propagation, and each use fitted on every fold; a stopped use
    is neither supported nor chosen."""
    assert stopped["choice"] == full["choice"], (full, stopped)
    for key in ("n_folds", "n_held_out", "ignore_error"):
        assert stopped[key] == full[key] or np.isnan(stopped[key]) and np.isnan(full[key])
    k = full["n_folds"]
    assert full["propagation_folds"] == k
    if stopped["propagation_folds"] == k:  # the gate: its counts whole, or stopped shut
        for key in ("error", "b", "c", "supported"):
            assert stopped[f"propagation_{key}"] == full[f"propagation_{key}"], (full, stopped)
    else:
        assert not stopped["propagation_supported"] and not full["propagation_supported"]
        assert np.isnan(stopped["propagation_error"])
        assert stopped["propagation_b"] <= full["propagation_b"]
        assert stopped["propagation_c"] <= full["propagation_c"]
    for use in semi.USES:
        assert full[f"{use}_folds"] == k
        if stopped[f"{use}_folds"] == k:
            for key in ("b", "c", "error", "supported"):
                assert stopped[f"{use}_{key}"] == full[f"{use}_{key}"], (use, full, stopped)
        else:
            assert not stopped[f"{use}_supported"] and np.isnan(stopped[f"{use}_error"])
            assert full["choice"] != use
            assert stopped[f"{use}_b"] <= full[f"{use}_b"]
            assert stopped[f"{use}_c"] <= full[f"{use}_c"]


def test_the_stop_bound_is_the_best_the_sign_test_can_reach():
    """Brute force over a grid of counts: when the sign test fails at ``b + gain`` and ``c``
    (the bound), it fails at every ``b' <= b + gain`` and ``c' >= c`` (the counts a use can
    end with), and when it passes there, some such counts pass."""
    passes = np.array([[semi._passes(b, c) for c in range(60)] for b in range(60)])
    for b in range(25):
        for c in range(25):
            for gain in range(25):
                reachable = bool(passes[b:b + gain + 1, c:c + 30].any())
                assert semi._may_change("smooth", b, c, 0, gain, None, "smooth") == reachable


def test_the_stop_loses_to_a_supported_use_exactly():
    """A use whose errors so far exceed those of a use already supported cannot be chosen;
    equal errors: it can only where it wins the tie."""
    best = (5, "smooth")
    assert semi._may_change("propagate", 0, 0, 4, 50, best, "smooth")
    assert not semi._may_change("propagate", 0, 0, 5, 50, best, "smooth")
    assert semi._may_change("propagate", 0, 0, 5, 50, best, "propagate")
    assert not semi._may_change("propagate", 0, 0, 6, 50, best, "propagate")


def test_stopped_trials_choose_as_every_trial_on_synthetic_outcomes(monkeypatch):
    """Each trial's held-out outcome drawn from a seeded generator (a use right more or less
    often than the labelled rows alone, sometimes not fittable): the stopped comparison gives
    the choice and the counts of the comparison of every trial, whatever the outcomes; the
    cases stop a use before its first fold, after it, and behind a use already supported."""
    kinds, calls = set(), []
    for seed in range(40):
        X, few = _blobs(seed=seed % 4)
        rates = np.random.default_rng(seed).uniform(0.3, 1.0, size=3)

        def right(self, trial, use, trials, seed=seed, rates=rates):
            index = ("ignore",) + semi.USES
            rng = np.random.default_rng([seed, int(self.held[0]), index.index(use)])
            calls.append(use)
            if use != "ignore" and rng.uniform() < 0.1:
                raise ValueError("a class left one sample")
            return rng.uniform(size=len(self.held)) < rates[index.index(use)]

        monkeypatch.setattr(semi._ChoiceFold, "right", right)
        full = _compare(monkeypatch, graphdr.LDA(), X, few, False)
        calls.clear()
        stopped = _compare(monkeypatch, graphdr.LDA(), X, few, True)
        _check_same(full, stopped)
        assert len(calls) == 2 + sum(stopped[f"{u}_folds"] for u in semi.USES)
        for use in semi.USES:
            folds = stopped[f"{use}_folds"]
            if folds < full["n_folds"]:
                beaten = semi._passes(full[f"{use}_b"], full[f"{use}_c"])
                kinds.add("beaten" if beaten else f"after {folds}")
    assert {"after 0", "after 1", "beaten"} <= kinds, kinds


@pytest.mark.parametrize("name", ["LDA", "LFDA", "SemiLFDA", "DEEMap"])
def test_stopped_trials_choose_as_every_trial(monkeypatch, name):
    """Real fits: the same choice and counts as the comparison of every trial, on classes
    the labelled rows alone separate (the uses stop early) and on overlapping ones."""
    kw = dict(max_iter=20, repulsion="gaussian") if name == "DEEMap" else {}  # (trials)
    for spread in (0.3, 1.5):
        X, few = _blobs(n=150, labelled=30, seed=1, spread=spread)
        est = getattr(graphdr, name)(**kw)
        _check_same(_compare(monkeypatch, est, X, few, False),
                    _compare(monkeypatch, est, X, few, True))


def test_the_gate_counts_the_propagation_against_the_labelled_rows_alone(monkeypatch):
    """The propagated classes' counts recomputed fold by fold: PoissonPropagation of the
    labels with the fold's hidden against LDA of the other labelled rows alone (1-NN of the
    held-out rows in its embedding); the gate is their sign test at CHOICE_GATE."""
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.blocks.sampling import row_keys, stratified_folds

    X, few = _blobs(n=180, labelled=36, seed=2, spread=1.2)
    stopped = _compare(monkeypatch, graphdr.LDA(), X, few, True)
    got = _compare(monkeypatch, graphdr.LDA(), X, few, False)  # every fold's counts
    assert stopped["propagation_supported"] == got["propagation_supported"]
    lab = np.flatnonzero(few >= 0)
    b = c = wrong = 0
    for train, test in stratified_folds(few[lab], got["n_folds"], row_keys(X[lab])):
        hidden = few.copy()
        hidden[lab[test]] = -1
        truth = few[lab[test]]
        spread = graphdr.PoissonPropagation().fit(X, hidden).transduction_[lab[test]] == truth
        alone = graphdr.LDA().fit(X[lab[train]], few[lab[train]])
        knn = KNeighborsClassifier(1).fit(alone.transform(X[lab[train]]), few[lab[train]])
        ignore = knn.predict(alone.transform(X[lab[test]])) == truth
        b += int(np.sum(spread & ~ignore))
        c += int(np.sum(~spread & ignore))
        wrong += int(np.sum(~spread))
    assert (got["propagation_b"], got["propagation_c"]) == (b, c)
    assert got["propagation_error"] == wrong / len(lab)
    assert got["propagation_supported"] == (b - c > semi.CHOICE_GATE * np.sqrt(b + c))


@pytest.mark.parametrize("gate", [False, True])
def test_a_shut_gate_fits_no_use_and_keeps_the_labelled_rows(monkeypatch, gate):
    """Uses right on every held-out row, and the labelled rows alone right exactly where the
    propagation is (shut: b = c = 0) or nowhere (open): shut, no use's trial is fitted and
    'ignore' is chosen although each use passes its own test; every trial fitted, the same
    choice, the uses' counts whole and not supported. Open: the use of the tie."""
    X, few = _blobs(seed=3)
    calls = []

    def right(self, trial, use, trials):
        calls.append(use)
        if use == "ignore":
            return self.spread.copy() if not gate else np.zeros(len(self.held), dtype=bool)
        return np.ones(len(self.held), dtype=bool)

    monkeypatch.setattr(semi._ChoiceFold, "right", right)
    full = _compare(monkeypatch, graphdr.LDA(), X, few, False)
    calls.clear()
    stopped = _compare(monkeypatch, graphdr.LDA(), X, few, True)
    _check_same(full, stopped)
    assert full["propagation_supported"] == gate
    for use in semi.USES:
        assert semi._passes(full[f"{use}_b"], full[f"{use}_c"])
        assert full[f"{use}_supported"] == gate
    if gate:
        assert stopped["choice"] == "smooth"  # (equal errors: LDA's tie)
    else:
        assert stopped["choice"] == "ignore" and calls == ["ignore", "ignore"]



@pytest.mark.parametrize("ignore_right, spread_right, chosen", [
    (True, False, "ignore"), (False, True, "propagate"), (True, True, "propagate")])
def test_the_heavy_tailed_map_keeps_the_propagated_classes_unless_shown_worse(
        monkeypatch, ignore_right, spread_right, chosen):
    """repulsion='cauchy': 'propagate' unless the labelled rows' fold maps beat the folds'
    propagated classes by the sign test (c - b > z sqrt(b + c)); no use's trial is fitted;
    the counts are those of every fold."""
    X, few = _blobs(seed=4)
    calls = []

    def right(self, trial, use, trials):
        calls.append(use)
        return np.full(len(self.held), ignore_right)

    monkeypatch.setattr(semi._ChoiceFold, "right", right)
    monkeypatch.setattr(semi._ChoiceFold, "spread", property(
        lambda self: np.full(len(self.held), spread_right)))
    model = _heavy_map().fit(X, few)
    got = model.unlabelled_results_
    assert got["choice"] == model.unlabelled_ == chosen
    assert set(calls) == {"ignore"} and got["propagation_folds"] == got["n_folds"] == 2
    n = got["n_held_out"]
    b, c = (n, 0) if spread_right and not ignore_right else (0, n) if ignore_right and not \
        spread_right else (0, 0)
    assert (got["propagation_b"], got["propagation_c"]) == (b, c)


def _heavy_map():  # (small and quick)
    return graphdr.DEEMap(repulsion="cauchy", max_iter=30, perplexity=5.0)


def test_the_heavy_tailed_map_without_a_held_out_comparison_keeps_the_propagation():
    """One labelled sample in a class: no held-out comparison; the heavy-tailed map keeps its
    unlabelled rows in the picture with the propagated classes (the Gaussian map: 'ignore')."""
    X, few = _blobs(seed=5)
    few[np.flatnonzero(few == 2)[1:]] = -1  # class 2: one label
    assert _heavy_map().fit(X, few).unlabelled_ in ("propagate", "smooth")
    assert graphdr.DEEMap(repulsion="gaussian", max_iter=10).fit(X, few).unlabelled_ == "ignore"
