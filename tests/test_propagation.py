"""Poisson learning (graphdr.semi.propagation, graphdr.PoissonPropagation) against a brute-force
solve of its linear system on small graphs, scikit-learn's checks, and the cases the equation
leaves open (components, duplicates, row order)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.semi_supervised import LabelPropagation
from sklearn.utils.estimator_checks import parametrize_with_checks

import graphdr
from graphdr.semi.propagation import poisson_scores, propagation_graph, scores_to_distributions


def _two_component_graph(seed=0):
    """A random weighted graph of two components (14 + 9 samples)."""
    rng = np.random.default_rng(seed)
    blocks = []
    for m in (14, 9):
        A = rng.uniform(size=(m, m)) * (rng.uniform(size=(m, m)) < 0.4)
        A = np.triu(A, 1)
        A += np.diag(np.full(m - 1, 0.5), 1)  # a path: each block connected
        blocks.append(A + A.T)
    return sp.csr_matrix(sp.block_diag(blocks))


def _brute_force(W, y, C):
    """L U = B with B's per-component mean shift, solved by the pseudo-inverse, then each
    component's columns shifted to zero degree-weighted mean."""
    W = W.toarray()
    d = W.sum(axis=1)
    L = np.diag(d) - W
    n = len(y)
    from scipy.sparse.csgraph import connected_components

    _, comp = connected_components(W, directed=False)
    B = np.zeros((n, C))
    for c in np.unique(comp):
        lab = np.flatnonzero((comp == c) & (y >= 0))
        if len(lab):
            onehot = np.eye(C)[y[lab]]
            B[lab] = onehot - onehot.mean(axis=0)
    U = np.linalg.pinv(L) @ B
    for c in np.unique(comp):
        rows = comp == c
        U[rows] -= (d[rows] @ U[rows]) / d[rows].sum()
    return U


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_solve_the_poisson_system(seed):
    W = _two_component_graph(seed)
    y = np.full(W.shape[0], -1)
    y[[0, 3, 5, 9]] = [0, 1, 2, 1]  # component one: three classes
    y[[15, 20]] = [2, 0]  # component two: two classes
    got = poisson_scores(W, y, 3, tol=1e-12)
    want = _brute_force(W, y, 3)
    np.testing.assert_allclose(got.scores, want, atol=1e-9 * np.abs(want).max())
    # the system itself: L U = B, the one-hot labels less their component's mean
    L = sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W
    B = np.zeros((W.shape[0], 3))
    B[[0, 3, 5, 9]] = np.eye(3)[[0, 1, 2, 1]] - np.array([1, 2, 1]) / 4
    B[[15, 20]] = np.eye(3)[[2, 0]] - np.array([1, 0, 1]) / 2
    np.testing.assert_allclose(L @ got.scores, B, atol=1e-9)
    assert got.residual <= 1e-12 and got.n_iter > 0


def test_components_with_one_class_or_none():
    W = _two_component_graph(3)
    n = W.shape[0]
    X = np.arange(n, dtype=float)[:, None]
    y = np.full(n, -1)
    y[[0, 4]] = [1, 1]  # component one: class 1 only; component two: no label
    result = poisson_scores(W, y, 2)
    P, confidence = scores_to_distributions(result, X, y, 2)
    assert np.all(P[:14].argmax(axis=1) == 1) and np.all(confidence[:14] == 1)
    assert np.all(P[14:].argmax(axis=1) == 1)  # the nearest labelled sample's class
    assert np.all(confidence[14:] == 0) and not result.informed[14:].any()


def test_graph_is_graphlearnings_self_tuned_knn_graph():
    """w_ij = exp(-4 d_ij^2 / d_ik^2), (A + A^T) / 2: checked entry by entry on a tiny set."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    k = 3
    W = propagation_graph(X, k).toarray()
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    A = np.zeros_like(D)
    for i in range(12):
        nn = np.argsort(D[i])[1:k + 1]
        A[i, nn] = np.exp(-4 * D[i, nn] ** 2 / D[i, nn[-1]] ** 2)
    np.testing.assert_allclose(W, (A + A.T) / 2, rtol=1e-12, atol=1e-15)


def test_duplicates_and_row_order():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(40, 4)), np.repeat(rng.normal(size=(1, 4)), 15, axis=0),
                   rng.normal(size=(40, 4)) + 4])
    y = np.full(len(X), -1)
    y[[0, 45, 60]] = [0, 0, 1]
    model = graphdr.PoissonPropagation().fit(X, y)
    assert np.all(np.isfinite(model.scores_))
    perm = rng.permutation(len(X))
    other = graphdr.PoissonPropagation().fit(np.asfortranarray(X[perm]), y[perm])
    np.testing.assert_array_equal(other.scores_, model.scores_[perm])
    np.testing.assert_array_equal(other.transduction_, model.transduction_[perm])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # Laplace's
@pytest.mark.slow
def test_few_labels_beat_laplace_learning_on_digits():
    """One label per class: Poisson learning labels most of the digits; Laplace learning
    (scikit-learn's LabelPropagation, knn kernel) much fewer."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    accs = {}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        few = np.full_like(y, -1)
        first = [rng.choice(np.flatnonzero(y == c)) for c in range(10)]
        few[first] = y[first]
        unl = few < 0
        ours = graphdr.PoissonPropagation().fit(X, few).transduction_
        laplace = LabelPropagation(kernel="knn", n_neighbors=10, max_iter=2000).fit(X, few)
        accs.setdefault("poisson", []).append(np.mean(ours[unl] == y[unl]))
        accs.setdefault("laplace", []).append(np.mean(laplace.transduction_[unl] == y[unl]))
    assert np.mean(accs["poisson"]) > 0.8
    assert np.mean(accs["poisson"]) > np.mean(accs["laplace"]) + 0.2


def test_labelled_samples_keep_their_labels_and_new_samples_follow_neighbours():
    from sklearn.datasets import make_blobs

    X, y = make_blobs(200, centers=3, n_features=5, random_state=0)
    few = np.full_like(y, -1)
    few[:12] = y[:12]
    model = graphdr.PoissonPropagation().fit(X[:150], few[:150])
    assert np.all(model.transduction_[:12] == y[:12])
    proba = model.predict_proba(X[150:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(model.predict(X[150:]) == y[150:]) > 0.95


@pytest.mark.parametrize("bad, match", [
    (dict(n_neighbors=0), "n_neighbors"), (dict(tol=-1.0), "tol"), (dict(max_iter=-1), "max_iter")])
def test_invalid_parameters(bad, match):
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match=match):
        graphdr.PoissonPropagation(**bad).fit(X, y)


def test_all_unlabelled_or_one_class_is_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="every one of the 20 samples is labelled -1"):
        graphdr.PoissonPropagation().fit(X, np.full(20, -1))
    y = np.full(20, -1)
    y[:3] = 1
    with pytest.raises(ValueError, match="at least 2 classes"):
        graphdr.PoissonPropagation().fit(X, y)


#: -1 marks an unlabelled sample (scikit-learn's semi-supervised convention); scikit-learn
#: exempts its own LabelPropagation, LabelSpreading and SelfTrainingClassifier from this check
#: by name (sklearn.utils.estimator_checks._choose_check_classifiers_labels)
EXPECTED_FAILURES = {"check_classifiers_classes": "labels -1 and 1: -1 is an unlabelled sample, "
                     "as for scikit-learn's own semi-supervised classifiers"}


@parametrize_with_checks([graphdr.PoissonPropagation()],
                         expected_failed_checks=lambda est: EXPECTED_FAILURES)
def test_sklearn_checks(estimator, check):
    check(estimator)


def test_too_few_iterations_warn():
    from sklearn.datasets import make_blobs
    from sklearn.exceptions import ConvergenceWarning

    X, y = make_blobs(100, centers=3, random_state=0)
    few = np.where(np.arange(100) < 9, y, -1)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        graphdr.PoissonPropagation(max_iter=2).fit(X, few)


# ----- the estimators' use of propagation (unlabelled='auto'|'smooth'|'propagate') ---------
PROPAGATING = ["LDA", "LQMI", "KernelLDA", "KQMI", "MFA", "LDE", "LFDA", "SemiLFDA"]


def _moons(n=300, labels_per_class=2, seed=0):
    """Two interleaved half-moons with a few labels: their nearest labelled sample misleads,
    the graph does not."""
    from sklearn.datasets import make_moons

    X, y = make_moons(n, noise=0.06, random_state=seed)
    X = np.hstack([X, 0.05 * np.random.default_rng(seed).normal(size=(n, 2))])
    few = np.full(n, -1)
    for c in (0, 1):
        members = np.flatnonzero(y == c)
        few[members[np.argsort(X[members, 0])[:: len(members) // labels_per_class][
            :labels_per_class]]] = c
    return X, y, few


@pytest.mark.parametrize("name", PROPAGATING)
def test_propagate_is_the_fit_of_the_propagated_labels(name):
    X, _, few = _moons(labels_per_class=3)
    est = getattr(graphdr, name)(unlabelled="propagate").fit(X, few)
    labels = graphdr.PoissonPropagation().fit(X, few).transduction_
    plain = getattr(graphdr, name)().fit(X, labels)  # every sample labelled
    np.testing.assert_array_equal(est.transform(X), plain.transform(X))
    assert est.unlabelled_ == "propagate" and "unlabelled_results_" not in est.__dict__


def _circles(labels_per_class=4, seed=0):
    """Two concentric circles, a few labels evenly round each: a held-out sample's nearest
    labelled sample is often on the other circle, its graph neighbours are on its own."""
    from sklearn.datasets import make_circles

    X, y = make_circles(400, noise=0.03, factor=0.4, random_state=seed)
    X = np.hstack([X, 0.02 * np.random.default_rng(seed).normal(size=(400, 2))])
    few = np.full(400, -1)
    for c in (0, 1):
        members = np.flatnonzero(y == c)
        round_ = members[np.argsort(np.arctan2(X[members, 1], X[members, 0]))]
        few[round_[:: len(round_) // labels_per_class][:labels_per_class]] = c
    return X, y, few


def _few_digits(per_class=3, seed=0):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:900] / 16.0, y[:900]
    rng = np.random.default_rng(seed)
    few = np.full_like(y, -1)
    for c in range(10):
        members = np.flatnonzero(y == c)
        few[rng.choice(members, per_class, replace=False)] = c
    return X, y, few


def _rule(results, ties="smooth"):
    """The choice of ``unlabelled='auto'`` recomputed from its counts: a use is supported
    when it (on every fold) and the propagated classes (at CHOICE_GATE) beat the fit of the
    labelled rows alone by b - c > z sqrt(b + c); the supported use of fewer held-out errors
    (equal: ``ties``), else 'ignore'."""
    from graphdr.semi.choice import CHOICE_GATE, CHOICE_MARGIN

    def beats(u, z):
        return results[f"{u}_b"] - results[f"{u}_c"] > z * np.sqrt(results[f"{u}_b"]
                                                                    + results[f"{u}_c"])

    supported = [u for u in ("smooth", "propagate")  # (a use whose trials stopped: not)
                 if beats(u, CHOICE_MARGIN) and beats("propagation", CHOICE_GATE)
                 and results[f"{u}_folds"] == results["n_folds"]]
    for u in ("smooth", "propagate"):
        assert results[f"{u}_supported"] == (u in supported)
    if not supported:
        return "ignore"
    return min(supported, key=lambda u: (results[f"{u}_error"], u != ties))


@pytest.mark.slow  # several seconds of fitting: in `make test-slow` (CI runs it)
@pytest.mark.parametrize("name", ["LDA", "KernelLDA"])
def test_auto_uses_the_unlabelled_rows_only_where_held_out_labels_back_it(name):
    """Five labels per digit: kernel LDA of the propagated classes places held-out labels
    better than kernel LDA of the labelled rows alone, and 'auto' takes it; linear LDA gains
    too little for the sign test and keeps the labelled rows; labels that do not follow the
    data's neighbourhoods (noise) back no use of the unlabelled rows."""
    X, y, few = _few_digits(per_class=5, seed=1)
    est = getattr(graphdr, name)().fit(X, few)
    results = est.unlabelled_results_
    assert est.unlabelled_ == results["choice"] == _rule(results)
    assert est.unlabelled_ == {"LDA": "ignore", "KernelLDA": "propagate"}[name], results
    if name == "KernelLDA":
        assert results["propagate_error"] < results["ignore_error"]
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(300, 4))
    labels = np.where(rng.uniform(size=300) < 0.1, rng.integers(0, 2, 300), -1)
    other = getattr(graphdr, name)().fit(noise, labels)
    assert other.unlabelled_ == "ignore" == _rule(other.unlabelled_results_)
    # row order: the same choice from the same comparison
    perm = rng.permutation(len(y))
    again = getattr(graphdr, name)().fit(X[perm], few[perm])
    assert again.unlabelled_results_ == results


def test_the_choice_counts_as_a_direct_computation(monkeypatch):
    """The counts recomputed fold by fold: LDA of the other labelled rows alone, LDA of every
    other row with the smoothness term and with PoissonPropagation's classes (propagated over
    every row, the fold's unlabelled), the fold's rows transformed as new samples and
    classified by 1-NN in each embedding; each use's b and c against the labelled rows
    alone."""
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.blocks.sampling import row_keys, stratified_folds

    X, y, few = _circles(labels_per_class=6, seed=2)
    monkeypatch.setattr("graphdr.semi.choice.CHOICE_STOP", False)  # every trial fitted
    got = graphdr.LDA().fit(X, few).unlabelled_results_
    lab = np.flatnonzero(few >= 0)
    counts = {u: [0, 0] for u in ("smooth", "propagate")}
    wrong = {u: 0 for u in ("ignore", "smooth", "propagate")}
    for train, test in stratified_folds(few[lab], got["n_folds"], row_keys(X[lab])):
        hidden = few.copy()
        hidden[lab[test]] = -1
        rest = np.setdiff1d(np.arange(len(X)), lab[test])  # held-out rows: new samples
        spread = graphdr.PoissonPropagation().fit(X, hidden).transduction_
        fits = {"ignore": graphdr.LDA().fit(X[lab[train]], few[lab[train]]),
                "smooth": graphdr.LDA(unlabelled="smooth").fit(X[rest], hidden[rest]),
                "propagate": graphdr.LDA().fit(X[rest], spread[rest])}
        truth = few[lab[test]]
        right = {}
        for use, m in fits.items():
            knn = KNeighborsClassifier(1).fit(m.transform(X[lab[train]]), few[lab[train]])
            right[use] = knn.predict(m.transform(X[lab[test]])) == truth
            wrong[use] += int(np.sum(~right[use]))
        for use in counts:
            counts[use][0] += int(np.sum(right[use] & ~right["ignore"]))
            counts[use][1] += int(np.sum(~right[use] & right["ignore"]))
    assert got["n_held_out"] == len(lab)
    for use, (b, c) in counts.items():
        assert (got[f"{use}_b"], got[f"{use}_c"]) == (b, c)
    for use, w in wrong.items():
        assert got[f"{use}_error"] == w / len(lab)
    assert got["choice"] == _rule(got)


@pytest.mark.parametrize("name", PROPAGATING)
def test_ignore_is_the_fit_of_the_labelled_rows(name):
    """unlabelled='ignore': the fit of the labelled rows alone, bit for bit (a map places the
    unlabelled rows on it as new samples); so is 'auto' where nothing backs a use."""
    X, _, few = _moons(labels_per_class=5)
    lab = few >= 0
    est = getattr(graphdr, name)(unlabelled="ignore").fit(X, few)
    alone = getattr(graphdr, name)().fit(X[lab], few[lab])
    np.testing.assert_array_equal(est.transform(X), alone.transform(X))
    assert est.unlabelled_ == "ignore" and "unlabelled_results_" not in est.__dict__
    if name == "DEEMap":
        np.testing.assert_array_equal(est.embedding_[lab], alone.embedding_)
        np.testing.assert_array_equal(est.embedding_[~lab], alone.transform(X[~lab]))
        # its page's errors and propagated classes see every row
        from graphdr.maps.views.fitted import held_out_errors, propagated_columns

        assert held_out_errors(est, few) == held_out_errors(alone, few[lab])
        assert len(propagated_columns(est, few)["inferred class"]) == len(X)


@pytest.mark.slow  # every estimator with the choice, 5 s: in `make test-slow` (CI)
def test_one_labelled_sample_in_a_class_leaves_the_unlabelled_rows_out():
    """No held-out comparison with one label in a class: 'auto' keeps the simplest fit (the
    map of the labelled rows); two labels a class: kernel LDA of a fold's single labels takes
    the kernel that the fit of every label chooses, and the comparison is made."""
    X, _, few = _few_digits(per_class=3, seed=1)
    one = few.copy()
    one[np.flatnonzero(few == 4)[1:]] = -1
    est = graphdr.DEEMap(repulsion="gaussian", max_iter=20).fit(X, one)
    assert est.unlabelled_ == "ignore" and est.unlabelled_results_["n_folds"] == 0
    two = few.copy()
    for c in range(10):
        two[np.flatnonzero(few == c)[0]] = -1
    assert np.all(np.bincount(two[two >= 0]) == 2)
    results = graphdr.KernelLDA().fit(X, two).unlabelled_results_
    assert results["n_folds"] == 2 and results["choice"] == _rule(results)


@pytest.mark.parametrize("name", PROPAGATING)
def test_every_sample_labelled_ignores_unlabelled(name):
    X, y, _ = _moons()
    a = getattr(graphdr, name)(unlabelled="propagate").fit(X, y)
    b = getattr(graphdr, name)(unlabelled="smooth").fit(X, y)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert a.unlabelled_ is None


def test_precomputed_kernels_cannot_propagate():
    X, _, few = _moons()
    K = X @ X.T
    with pytest.raises(ValueError, match="unlabelled='propagate' needs the samples' features"):
        graphdr.KernelLDA(kernel="precomputed", unlabelled="propagate").fit(K, few)
    assert graphdr.KernelLDA(kernel="precomputed").fit(K, few).unlabelled_ == "smooth"


def test_invalid_unlabelled_is_refused():
    X, _, few = _moons()
    with pytest.raises(ValueError, match=r"unlabelled must be one of \['auto', 'ignore', 'prop"):
        graphdr.LDA(unlabelled="both").fit(X, few)


def test_a_propagation_that_empties_a_class_is_not_fitted(monkeypatch):
    """Propagated classes that leave a class a single sample: 'auto' takes the smoothness
    term where it is backed too, else the labelled rows alone; 'propagate' says why it cannot
    fit."""
    from graphdr.semi.propagation import PropagationGraph

    X, y, few = _few_digits(per_class=3, seed=1)
    real = PropagationGraph.propagate

    def starving(self, y_enc, n_classes, **kw):
        P, confidence, result = real(self, y_enc, n_classes, **kw)
        P = P.copy()
        P[y_enc < 0, 7] = -1.0  # class 7 keeps its labelled samples only
        P[y_enc == 7] = np.eye(n_classes)[7]
        P[np.flatnonzero(y_enc == 7)[1:], :] = np.eye(n_classes)[0]
        return P, confidence, result

    monkeypatch.setattr(PropagationGraph, "propagate", starving)
    monkeypatch.setattr(graphdr.semi.choice, "compare_unlabelled_uses",
                        lambda *a, **k: {"choice": "propagate", "smooth_supported": True})
    assert graphdr.LDA().fit(X, few).unlabelled_ == "smooth"  # the next supported use
    monkeypatch.setattr(graphdr.semi.choice, "compare_unlabelled_uses",
                        lambda *a, **k: {"choice": "propagate", "smooth_supported": False})
    assert graphdr.LDA().fit(X, few).unlabelled_ == "ignore"
    with pytest.raises(ValueError, match="leave class 7 1 sample"):
        graphdr.LDA(unlabelled="propagate").fit(X, few)


def test_the_choice_on_large_data_uses_a_content_keyed_subsample(monkeypatch):
    """Above CHOICE_MAX_SAMPLES the choice fits every labelled sample and the unlabelled ones
    of smallest content key: the same comparison whatever the row order."""
    import graphdr.semi.choice as semi

    monkeypatch.setattr(semi, "CHOICE_MAX_SAMPLES", 300)
    X, y, few = _few_digits(per_class=3, seed=1)
    est = graphdr.LDA().fit(X, few)
    assert est.unlabelled_results_["n_held_out"] == 30
    perm = np.random.default_rng(4).permutation(len(y))
    assert graphdr.LDA().fit(X[perm], few[perm]).unlabelled_results_ == est.unlabelled_results_


def test_no_step_is_not_a_solution():
    from sklearn.exceptions import ConvergenceWarning

    X, y, few = _few_digits(per_class=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=0"):
        graphdr.PoissonPropagation(max_iter=0).fit(X, few)


# ----- the map: DEEMap's unlabelled='auto'|'smooth'|'propagate' -------------------------------
@pytest.mark.parametrize("objective", [dict(repulsion="gaussian"), dict(separation=0.5)])
def test_the_map_of_propagated_classes_is_the_map_of_those_labels(objective):
    """'propagate': the map of PoissonPropagation's classes, bit for bit; the page and
    ``_labels`` keep the given labels (-1 stays unlabelled). (The heavy-tailed map's
    ``separation='auto'`` is chosen on the given labels, not the propagated ones: fixed here.)"""
    X, _, few = _moons(labels_per_class=3)
    est = graphdr.DEEMap(unlabelled="propagate", max_iter=20, **objective).fit(X, few)
    labels = graphdr.PoissonPropagation().fit(X, few).transduction_
    plain = graphdr.DEEMap(max_iter=20, **objective).fit(X, labels)
    np.testing.assert_array_equal(est.embedding_, plain.embedding_)
    np.testing.assert_array_equal(est.transform(X[:50]), plain.transform(X[:50]))
    assert est.unlabelled_ == "propagate"
    np.testing.assert_array_equal(est._labels < 0, few < 0)
    smooth = graphdr.DEEMap(unlabelled="smooth", max_iter=20, **objective).fit(X, few)
    assert smooth.unlabelled_ == "smooth" and not np.array_equal(smooth.embedding_,
                                                                 est.embedding_)


@pytest.mark.slow  # several seconds of fitting: in `make test-slow` (CI runs it)
def test_the_map_uses_unlabelled_digits_where_held_out_labels_back_it():
    """Five labels per digit: the map with the unlabelled digits ('auto' takes a use that its
    held-out labels back) puts an unlabelled digit nearest a labelled sample of another class
    at least a fifth less often than the map of the labelled digits alone does; where both
    uses are backed and tie, the propagation."""
    X, y, few = _few_digits(per_class=5, seed=1)
    lab = few >= 0

    def error(m):
        E = m.embedding_
        d = np.sum((E[~lab][:, None] - E[lab][None]) ** 2, axis=-1)
        return np.mean(few[lab][np.argmin(d, axis=1)] != y[~lab])

    auto = graphdr.DEEMap(repulsion="gaussian").fit(X, few)  # (the uses' trial comparison)
    alone = graphdr.DEEMap(repulsion="gaussian", unlabelled="ignore").fit(X, few)
    r = auto.unlabelled_results_
    assert auto.unlabelled_ in ("smooth", "propagate")
    assert auto.unlabelled_ == _rule(r, ties="propagate")
    assert error(auto) < 0.8 * error(alone), (error(auto), error(alone))
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(300, 4))
    labels = np.where(rng.uniform(size=300) < 0.1, rng.integers(0, 2, 300), -1)
    other = graphdr.DEEMap(repulsion="gaussian", max_iter=30).fit(noise, labels)
    assert other.unlabelled_ == _rule(other.unlabelled_results_, ties="propagate")


def test_an_interrupted_refit_leaves_the_earlier_model_whole(monkeypatch):
    """Ctrl-C in the middle of a refit on other classes: the model predicts as before (its
    classes and distributions from the same fit), never the new names with the old rows."""
    from sklearn.datasets import make_blobs

    import graphdr.semi.poisson as poisson
    from graphdr import PoissonPropagation

    X, y = make_blobs(n_samples=90, centers=3, n_features=3, random_state=0)
    first = np.where(y == 0, -1, y)
    model = PoissonPropagation().fit(X, first)
    before = model.predict(X)
    names = np.array(["ant", "bee", "cow"], dtype=object)[y]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(poisson, "propagate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, names)
    assert list(model.classes_) == [1, 2]
    np.testing.assert_array_equal(model.predict(X), before)
