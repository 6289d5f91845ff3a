"""A partially labelled fit prepares its rows once (graphdr.training.prepared): the same fit, bit for
bit, as each trial fit validating its own rows, and X validated at most three times."""

import dataclasses
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

import graphdr
from graphdr.training.prepared import PreparedInput, digest


def _data(n=240, seed=0):
    X, y = make_classification(n_samples=n, n_features=8, n_informative=5, n_redundant=1,
                               n_classes=3, n_clusters_per_class=1, random_state=seed)
    partial = y.copy()
    partial[np.random.default_rng(seed).random(n) < 0.85] = -1
    return X, partial


#: scikit-learn's modules whose checks of their own arguments are not validations of X
INDEXES = ("sklearn/neighbors", "sklearn/metrics/pairwise")
ESTIMATORS = [graphdr.LDA, graphdr.KernelLDA, graphdr.LFDA, graphdr.DEEMap]
ids = [c.__name__ for c in ESTIMATORS]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=ids)
@pytest.mark.slow
def test_prepared_rows_give_the_fit_of_rows_validated_by_each_fit(cls, monkeypatch):
    """The same estimator with the trial fits fed raw rows (``_supports.prepared`` off: each fit
    validates, scales and searches on its own, as before the prepared rows) gives the same
    choice, the same embedding and the same transform, bit for bit."""
    X, y = _data()
    kw = dict(max_iter=30) if cls is graphdr.DEEMap else {}
    prepared = cls(**kw).fit(X, y)
    monkeypatch.setattr(cls, "_supports", dataclasses.replace(cls._supports, prepared=False))
    raw = cls(**kw).fit(X, y)
    assert prepared.unlabelled_ == raw.unlabelled_
    assert prepared.unlabelled_results_ == raw.unlabelled_results_
    np.testing.assert_array_equal(prepared.transform(X), raw.transform(X))


def _validations_of_X(est, X, y, monkeypatch):
    """``check_array`` calls on an array of X's shape, but those of scikit-learn's neighbour
    indexes checking the rows they index (a search of all rows: the propagation's, the
    smoothness term's) and of its kernel functions checking their arguments (a kernel with the
    training rows: the fit's, each transform's)."""
    import traceback

    import sklearn.utils.validation as validation

    original, seen = validation.check_array, []

    def check_array(array, *args, **kwargs):
        if getattr(array, "shape", None) == X.shape:
            seen.append(not any(any(part in f.filename.replace("\\", "/") for part in INDEXES)
                                for f in traceback.extract_stack()))
        return original(array, *args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "check_array", None) is original:
            monkeypatch.setattr(module, "check_array", check_array)
    est.fit(X, y)
    return sum(seen)


@pytest.mark.parametrize("labels", ["full", "partial"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=ids)
@pytest.mark.slow
def test_a_fit_validates_X_at_most_twice_or_three_times_with_unlabelled_rows(
        cls, labels, monkeypatch):
    X, y = _data()
    if labels == "full":
        y = make_classification(n_samples=240, n_features=8, n_informative=5, n_redundant=1,
                                n_classes=3, n_clusters_per_class=1, random_state=0)[1]
    kw = dict(max_iter=20) if cls is graphdr.DEEMap else {}
    n = _validations_of_X(cls(**kw), X, y, monkeypatch)
    assert 1 <= n <= (2 if labels == "full" else 3), n


def test_prepared_rows_share_what_is_computed_from_them():
    X, y = _data(60)
    p = PreparedInput(X.astype(np.float32), y, np.arange(3), y, {"n_features_in_": 8})
    assert p.scaled.dtype == np.float64 and p.keys() is p.keys()
    assert p.with_labels(np.zeros_like(y))._memo is p._memo
    trials = p.for_trials("LDA")
    assert trials.X.dtype == np.float64 and trials is not p
    np.testing.assert_array_equal(trials.X, X.astype(np.float32).astype(np.float64))
    sub = p.take(np.arange(0, 60, 2))
    np.testing.assert_array_equal(sub.scaled, p.scaled[::2])
    calls = []
    assert p.memo("k", lambda: calls.append(1) or 5) == 5 == p.memo("k", lambda: 6)
    assert calls == [1]
    s = PreparedInput(sp.csr_matrix(X), y, np.arange(3), y, {"n_features_in_": 8})
    assert not sp.issparse(s.for_trials("KernelLDA").X)


@pytest.mark.parametrize("scale", [1.0, 1e30, 3e-200])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_subset_keeps_its_set_s_keys(scale, dtype):
    """The keys of a subset (:meth:`take`, :meth:`labelled_rows`, a subset of a subset) are
    those that ``row_keys`` computes from its own rows, as validated and scaled; the set's
    rows are keyed once for all of them."""
    from graphdr.blocks import sampling

    X, y = _data(90)
    X = (X * scale).astype(dtype)
    X[::3] *= 0.25  # the labelled rows' own scale may differ from the set's
    p = PreparedInput(X, y, np.arange(3), y, {"n_features_in_": 8})
    sub = p.take(np.arange(0, 90, 2))
    rows, labelled = p.labelled_rows()
    for part in (p, sub, labelled, sub.take(np.arange(0, 45, 3)), sub.labelled_rows()[1]):
        for mine, theirs in ((part.row_keys(), sampling.row_keys(part.X)),
                             (part.keys(), sampling.row_keys(part.scaled))):
            assert np.all(mine == theirs)
            np.testing.assert_array_equal(mine.rounded, theirs.rounded)


def test_a_partially_labelled_fit_keys_its_rows_once(monkeypatch):
    """LDA with reg='auto' and unlabelled='auto' on partially labelled rows: the trial fits,
    their leave-one-out ridges, the propagation graph and the final fit share one pass of
    content keys over the rows (each trial used to key its own)."""
    import graphdr.graph_embedding.fitting as fitting
    import graphdr.semi.propagation as propagation
    import graphdr.training.prepared as prepared
    import graphdr.tuning.loo as loo
    from graphdr.blocks import sampling

    X, y = _data(600)
    original, calls = sampling.row_keys, []

    def counted(*args, **kwargs):
        calls.append(len(args[0]))
        return original(*args, **kwargs)

    for module in (sampling, fitting, prepared, propagation, loo):
        monkeypatch.setattr(module, "row_keys", counted)
    est = graphdr.LDA().fit(X, y)
    assert est.unlabelled_results_["n_folds"] == 2  # the trial fits ran
    assert calls == [600], calls


def test_the_choice_s_nearest_labels_are_scikit_learn_s_1_nn():
    """The choice's 1-NN of held-out rows (no validation of rows validated already) gives
    scikit-learn's KNeighborsClassifier(1) on data without ties, and the smaller row on a
    tie."""
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.semi import choice as semi

    rng = np.random.default_rng(3)
    for dims in (1, 2, 5, 19):
        A, B = rng.normal(size=(300, dims)), rng.normal(size=(120, dims))
        labels = rng.integers(0, 4, 300)
        want = KNeighborsClassifier(1).fit(A, labels).predict(B)
        np.testing.assert_array_equal(semi._nearest_labels(A, labels, B), want)
    A = np.array([[0.0, 1.0], [0.0, -1.0], [5.0, 5.0]])
    assert list(semi._nearest_labels(A, np.array([7, 8, 9]), np.zeros((1, 2)))) == [7]


@pytest.mark.parametrize("cls", [graphdr.LDA, graphdr.LFDA], ids=["LDA", "LFDA"])
def test_a_partially_labelled_fit_checks_arrays_at_most_ten_times(cls, monkeypatch):
    """scikit-learn's check_array, outside its neighbour indexes' checks of the rows they
    index: at most 10 calls in a partially labelled fit with unlabelled='auto' (the trial
    fits embed the set's rows without validating them again; they once validated them in
    every trial's transforms and 1-NN classifier)."""
    import traceback

    import sklearn.utils.validation as validation

    X, y = _data(600)
    original, seen = validation.check_array, []

    def counted(*args, **kwargs):
        seen.append(not any(any(part in f.filename.replace("\\", "/") for part in INDEXES)
                            for f in traceback.extract_stack()))
        return original(*args, **kwargs)

    for m in [m for m in list(sys.modules.values())
              if getattr(m, "check_array", None) is original]:
        monkeypatch.setattr(m, "check_array", counted)
    est = cls().fit(X, y)
    assert est.unlabelled_results_["n_folds"] == 2  # the trial fits ran
    assert 0 < sum(seen) <= 10, sum(seen)


def test_digest_tells_arrays_apart_by_any_bit():
    a = np.arange(12.0).reshape(3, 4)
    b = a.copy()
    b[2, 3] = np.nextafter(b[2, 3], np.inf)
    assert digest(a) == digest(a.copy()) != digest(b)
    assert digest(a) != digest(a.reshape(4, 3)) != digest(a.astype(np.float32))
    assert digest(sp.csr_matrix(a)) == digest(sp.csc_matrix(a))



#: what a fit chooses from the data (validation records n_features_in_ and classes_ apart)
CHOSEN = {"reg_", "gamma_", "cv_results_", "approximation_", "smoothing_",
          "smoothing_results_", "unlabelled_", "unlabelled_results_"}


@pytest.mark.parametrize("cls", [graphdr.LDA, graphdr.KernelLDA, graphdr.LFDA])
@pytest.mark.slow
def test_the_choices_of_a_fit_set_nothing_and_the_fit_writes_them(cls):
    """The use of the unlabelled rows, the ridge, the kernel's width, exact or Nystroem and
    the smoothing are chosen by functions that return a ``Selected`` and set none of them on
    the estimator; the fit writes what they chose (the values a fit ends with)."""
    from graphdr.graph_embedding.estimator import fit_traits, unlabelled_uses
    from graphdr.graph_embedding.fitting import select_kernel_and_approximation
    from graphdr.semi.choice import prepare_unlabelled

    X, y = make_classification(300, 8, n_informative=5, n_classes=3, random_state=0)
    y = y.copy()
    y[np.arange(len(y)) % 3 != 0] = -1
    est = cls()
    X_fit, y_fit, chosen = prepare_unlabelled(est, X, y, uses=unlabelled_uses(est))
    data = est._training_data(X_fit, y_fit)
    selected = chosen | data.selected
    if est._is_kernel():
        selected = selected | select_kernel_and_approximation(est, fit_traits(est), data)
        assert {"gamma_", "reg_", "approximation_"} <= set(selected.values)
    assert not CHOSEN & set(vars(est))
    assert {"unlabelled_", "unlabelled_results_", "reg_"} <= set(selected.values)
    fitted = cls().fit(X, y)
    for name, value in selected.values.items():
        got = getattr(fitted, name)
        assert got.keys() == value.keys() if isinstance(value, dict) else got == value
    selected.write(est)
    assert {name: getattr(est, name) for name in selected.values if name.endswith("reg_")} == {
        name: getattr(fitted, name) for name in selected.values if name.endswith("reg_")}


@pytest.mark.slow
def test_the_map_and_its_label_audit_share_one_validation(monkeypatch):
    """DEEMap(labels='flag') hands the rows it validated to its audit: the audit is
    LabelIssues' own fit of X (the same probabilities and flags, bit for bit), and in the map's
    fit X is validated once in all and keyed once by the audit (its keys then the choice's)."""
    import graphdr.audit.label_issues as label_issues
    import graphdr.maps.dee_map as dee_map
    import graphdr.training.prepared as prepared

    X, y = _data(400)
    direct = graphdr.LabelIssues(random_state=0).fit(X, y)
    validations, keyed = [], []
    for module in (dee_map, label_issues):
        original = module.validate_data
        monkeypatch.setattr(module, "validate_data", lambda *a, _o=original, **k: (
            validations.append(1), _o(*a, **k))[1])
    for module in (prepared, label_issues):
        original = module.row_keys
        monkeypatch.setattr(module, "row_keys", lambda Z, *a, _o=original, **k: (
            keyed.append(len(Z)), _o(Z, *a, **k))[1])
    m = graphdr.DEEMap(labels="flag", random_state=0, max_iter=5).fit(X, y)
    assert np.array_equal(m.label_issues_.probabilities_, direct.probabilities_)
    assert np.array_equal(m.label_issues_.is_issue_, direct.is_issue_)
    assert validations == [1] and keyed == [400], (validations, keyed)


@pytest.mark.parametrize("labels", ["flag", "audit"])
def test_a_fit_and_its_label_audit_share_one_validation(labels, monkeypatch):
    """LDA(labels=...) prepares its rows once for LabelIssues and for the fit: X validated
    once in all (was twice), the audit LabelIssues' own, and the fit that of the labels the
    audit leaves (as given for 'flag'; its suspects -1 for 'audit'), bit for bit."""
    import graphdr.audit.label_issues as label_issues
    import graphdr.graph_embedding.estimator as estimator

    X, y = _data(400)
    y[:40] = (y[:40] + 1) % 3 * (y[:40] >= 0) - (y[:40] < 0)  # some wrong labels
    audit = graphdr.LabelIssues(random_state=None).fit(X, y)
    kept = np.where(audit.is_issue_, -1, y) if labels == "audit" else y
    expected = graphdr.LDA().fit(X, kept).transform(X)
    validations = []
    for module in (estimator, label_issues):
        original = module.validate_data
        monkeypatch.setattr(module, "validate_data", lambda *a, _o=original, **k: (
            validations.append(1), _o(*a, **k))[1])
    est = graphdr.LDA(labels=labels).fit(X, y)
    assert validations == [1], validations
    assert np.array_equal(est.label_issues_.probabilities_, audit.probabilities_)
    assert np.array_equal(est.transform(X), expected)


#: what scikit-learn's ``validate_data`` records on the estimator as it validates
VALIDATION_RECORDS = {"n_features_in_", "feature_names_in_"}


@pytest.mark.parametrize("cls, kw", [
    (graphdr.LDA, dict(reg="auto")), (graphdr.KernelLDA, {}), (graphdr.LFDA, {}),
    (graphdr.MMPA, {}), (graphdr.CKFD, {}), (graphdr.KQMI, {}), (graphdr.MFA, {}),
    (graphdr.KernelLDA, dict(approximation="nystroem", n_landmarks=40, labels="flag"))],
    ids=["LDA", "KernelLDA", "LFDA", "MMPA", "CKFD", "KQMI", "MFA", "KernelLDA-flag"])
@pytest.mark.parametrize("partial", [False, True], ids=["labelled", "partially"])
def test_a_graph_embedding_fit_writes_its_attributes_in_its_store_only(cls, kw, partial,
                                                                       monkeypatch):
    """Until ``_store`` runs, a fit (its choices, trial fits, space and solve) has set nothing
    on the estimator but what ``validate_data`` records; ``_store`` then writes what the fit
    found and chose: the fitted estimator's attributes, each once."""
    from graphdr.graph_embedding.estimator import _BaseGraphEmbedding

    if partial and cls in (graphdr.CKFD, graphdr.MMPA):
        pytest.skip(f"{cls.__name__} fits labelled rows only")
    X, y = make_classification(150, 6, n_informative=4, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=1)
    if partial:
        y = np.where(np.arange(len(y)) % 4 == 0, y, -1)
    est = cls(**kw)
    params = set(vars(est))
    seen = []
    store = _BaseGraphEmbedding._store

    def watched(self, space, solution, data):
        if self is est:
            seen.append(set(vars(self)) - params)
        return store(self, space, solution, data)

    monkeypatch.setattr(_BaseGraphEmbedding, "_store", watched)
    if cls is graphdr.CKFD:  # (its own _store, which calls the base's)
        monkeypatch.setattr(cls, "_store", lambda self, *a: (watched(self, *a), setattr(
            self, "n_irregular_", min(self.n_irregular_, self.n_components_)))[0])
    est.fit(X, y)
    assert len(seen) == 1 and seen[0] <= VALIDATION_RECORDS, seen
    fitted = set(vars(est)) - params
    assert {"classes_", "_input_scale", "n_components_", "eigenvalues_"} <= fitted
    assert fitted & {"components_", "dual_coef_", "nystroem_"}
    if kw.get("labels") == "flag":
        assert est.label_issues_.is_issue_.shape == (len(y),)
    if cls is graphdr.MMPA:
        assert est.eps_intra_ > 0 and est.eps_inter_ > 0
    if partial:
        assert est.unlabelled_ in ("ignore", "smooth", "propagate")
