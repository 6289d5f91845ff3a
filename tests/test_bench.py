"""Unit tests of graphdr.bench: registry, data sets, protocols, one CV cell, results.csv."""

import csv
import os

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.bench import datasets as bd
from graphdr.bench import methods as bm
from graphdr.bench.evaluation import make_classifier, make_scaler, run_cell, run_embedding
from graphdr.bench.protocols import PROTOCOLS, get_protocol
from graphdr.bench.report import aggregate, read_results, write_results


# ----- method registry -------------------------------------------------------------------
def test_registry_names_aliases_and_unknown():
    assert bm.get_method("GDA").name == "kernel-lda"
    assert bm.get_method("slpp").params == {"supervised": True}
    with pytest.raises(ValueError, match="Unknown method 'nope'.*Known methods: .*lda"):
        bm.get_method("nope")


@pytest.mark.parametrize(
    "target, message",
    [("graphdr.not_written_yet:Foo", "module graphdr.not_written_yet does not exist yet"),
     ("graphdr.graph_embedding.linear:NotAClass", "graphdr.graph_embedding.linear has no NotAClass")],
)
def test_unavailable_method_says_so(target, message):
    spec = bm.MethodSpec(name="future", target=target, label="F")
    assert not spec.is_available()
    with pytest.raises(bm.MethodUnavailableError, match="not available in this version") as exc:
        spec.resolve()
    assert message in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_register_is_one_line(monkeypatch):
    monkeypatch.setattr(bm, "REGISTRY", dict(bm.REGISTRY))
    bm.register("my-pca", "sklearn.decomposition:PCA", label="myPCA", kind="reference",
                supervised=False, max_dims="features")
    ident, spec, params = bm.parse_method("my-pca")
    assert (ident, spec.label, params) == ("my-pca", "myPCA", {})
    assert spec.build(2, random_state=0).n_components == 2
    with pytest.raises(ValueError, match="kind must be one of"):
        bm.register("bad", "x:y", label="B", kind="magic")


def test_parse_method_parameters_and_build():
    ident, spec, params = bm.parse_method("kernel-lda:gamma=0.1:reg=0.01")
    assert ident == "kernel-lda:gamma=0.1:reg=0.01" and params == {"gamma": 0.1, "reg": 0.01}
    est = spec.build(2, params=params, gamma=0.5)
    assert est.gamma == 0.1 and est.n_components == 2  # explicit parameter wins over protocol
    assert bm.get_method("kernel-lda").build(1, gamma=0.5).gamma == 0.5
    assert bm.get_method("lda").build(1, gamma=0.5).get_params()["n_components"] == 1
    assert bm.get_method("nca").build(1, random_state=7).random_state == 7
    with pytest.raises(ValueError, match="name:key=value"):
        bm.parse_method("lda:oops")
    with pytest.raises(ValueError, match="has no parameter.*'bogus'"):
        bm.get_method("lda").build(1, params={"bogus": 1})


def test_dim_limits():
    assert bm.get_method("lda").dim_limit(100, 13, 3) == 2
    assert bm.get_method("pca").dim_limit(100, 13, 3) == 13
    assert bm.get_method("kernel-pca").dim_limit(100, 13, 3) == 99
    assert bm.get_method("tsne").dim_limit(100, 13, 3) == 2


# ----- data sets ---------------------------------------------------------------------------
def test_sklearn_and_vendored_sets():
    iris = bd.load_dataset("iris")
    assert iris.X.shape == (150, 4) and iris.n_classes == 3 and list(iris.classes)[0] == "setosa"
    sonar = bd.load_dataset("sonar")
    assert sonar.X.shape == (208, 60) and sonar.n_classes == 2
    assert {"sonar", "ionosphere", "heart", "vehicle", "vowel"} <= set(bd.vendored_names())
    root = os.path.join(os.path.dirname(bd.__file__), "..", "data")
    size = sum(os.path.getsize(os.path.join(root, f)) for f in os.listdir(root))
    assert size < 1_000_000


def test_unknown_dataset_message():
    with pytest.raises(ValueError, match="Unknown data set 'nosuch'.*iris.*sonar.*swiss_roll"):
        bd.load_dataset("nosuch")
    with pytest.raises(ValueError, match="Only swiss_roll and digits_views take options"):
        bd.load_dataset("iris:n=3")


def test_swiss_roll_labelled():
    ds = bd.load_dataset("swiss_roll:n=300:classes=3")
    assert ds.X.shape == (300, 3) and ds.n_classes == 3
    again = bd.load_dataset("swiss_roll:n=300:classes=3")
    np.testing.assert_array_equal(ds.X, again.X)
    with pytest.raises(ValueError, match="Unknown data set option"):
        bd.load_dataset("swiss_roll:size=3")


def test_npz_and_multiview(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 3)), np.repeat(["a", "b"], 10)
    np.savez(tmp_path / "plain.npz", X=X, y=y)
    ds = bd.load_dataset(str(tmp_path / "plain.npz"))
    assert ds.name == "plain" and list(ds.classes) == ["a", "b"] and ds.views is None
    np.testing.assert_array_equal(ds.X, X)
    v0, v1 = rng.normal(size=(20, 2)), rng.normal(size=(20, 4))
    np.savez(tmp_path / "mv.npz", view_1=v1, view_0=v0, y=np.repeat([0, 1], 10))
    mv = bd.load_dataset(str(tmp_path / "mv.npz"))
    assert mv.views == [slice(0, 2), slice(2, 6)]
    np.testing.assert_array_equal(mv.X[:, mv.views[1]], v1)
    np.savez(tmp_path / "bad.npz", X=X)
    with pytest.raises(ValueError, match="needs an array 'y'"):
        bd.load_dataset(str(tmp_path / "bad.npz"))


def test_csv_label_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("f1,species,f2\n1.0,cat,2\n3,dog,4\n5,cat,6.5\n")
    ds = bd.load_dataset(str(path), label_column="species")
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6.5]])
    np.testing.assert_array_equal(ds.classes[ds.y], ["cat", "dog", "cat"])
    assert bd.load_dataset(str(path), label_column="1").X.shape == (3, 2)
    with pytest.raises(ValueError, match="--label-column.*Text columns: species; numeric columns: f1, f2"):
        bd.load_dataset(str(path))
    with pytest.raises(ValueError, match="no label column 'kind'"):
        bd.load_dataset(str(path), label_column="kind")
    with pytest.raises(ValueError, match="column 'species' is not numeric"):
        bd.load_dataset(str(path), label_column="f1")


def test_svmlight_and_unknown_extension(tmp_path):
    X, y = load_iris(return_X_y=True)
    dump_svmlight_file(X, y, str(tmp_path / "iris.svm"))
    ds = bd.load_dataset(str(tmp_path / "iris.svm"))
    np.testing.assert_allclose(ds.X, X)
    (tmp_path / "x.xyz").write_text("1")
    with pytest.raises(ValueError, match="unknown file type '.xyz'"):
        bd.load_dataset(str(tmp_path / "x.xyz"))


# ----- protocols ---------------------------------------------------------------------------
def test_protocols_known_and_unknown():
    assert set(PROTOCOLS) >= {"bouzas", "gavriilidis", "dee", "mkldr", "demo"}
    with pytest.raises(ValueError, match="Unknown protocol 'paper9'.*bouzas"):
        get_protocol("paper9")
    b = get_protocol("bouzas")
    assert b.classifiers == ("ncc", "3nn", "linear-svm", "rbf-svm") and b.kernel_gamma == 0.5
    assert b.dims(n_classes=4, method_limit=10) == [1, 2, 3]
    assert b.dims(n_classes=4, method_limit=2) == [1, 2]
    assert b.replace(max_dim=5).dims(4, 10) == [1, 2, 3, 4, 5]


def test_splits_deterministic_and_stratified():
    y = np.repeat([0, 1, 2], [30, 20, 10])
    a = get_protocol("bouzas").splits(y, seed=3)
    b = get_protocol("bouzas").splits(y, seed=3)
    assert len(a) == 10
    for (_tr1, te1), (_tr2, te2) in zip(a, b):
        np.testing.assert_array_equal(te1, te2)
        np.testing.assert_array_equal(np.bincount(y[te1]), [3, 2, 1])
    assert sorted(np.concatenate([te for _, te in a])) == list(range(len(y)))
    g = get_protocol("gavriilidis").splits(y, seed=0)
    assert len(g) == 10  # 5 x 2
    d = get_protocol("dee").replace(n_train_per_class=5, n_repeats=3).splits(y, seed=0)
    assert len(d) == 3 and all(np.array_equal(np.bincount(y[tr]), [5, 5, 5]) for tr, _ in d)
    with pytest.raises(ValueError, match="smallest class has 10 samples"):
        get_protocol("bouzas").replace(n_splits=11).splits(y, seed=0)
    with pytest.raises(ValueError, match="lower --train-per-class"):
        get_protocol("dee").replace(n_train_per_class=10).splits(y, seed=0)


# ----- one cell against an independent computation ------------------------------------------
def test_run_cell_matches_sklearn_pipeline():
    X, y = load_iris(return_X_y=True)
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    task = dict(dataset="iris", method="lda", X=X, y=y, views=None, train=train, test=test,
                dims=[1, 2], classifiers=["1nn", "ncc"], scaling="minmax", gamma=None,
                svm_gamma=0.5, seed=0, fold=0)
    key, rows = run_cell(task)
    assert key == ("iris", "lda", 0) and len(rows) == 4
    scaler = MinMaxScaler((-1, 1)).fit(X[train])
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(scaler.transform(X[train]), y[train])
    # LDA's 1-D subspace is unique and 1-NN is invariant to scaling it: the errors must agree
    # with scikit-learn's LDA
    Ztr = scaler.transform(X[train]) @ lda.scalings_[:, :1]
    Zte = scaler.transform(X[test]) @ lda.scalings_[:, :1]
    ref = np.sum(KNeighborsClassifier(1).fit(Ztr, y[train]).predict(Zte) != y[test])
    row = next(r for r in rows if r["dim"] == 1 and r["classifier"] == "1nn")
    assert row["n_errors"] == ref and row["error"] == ref / len(test)
    assert all(r["n_test"] == len(test) for r in rows)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_run_cell_records_the_iterations_of_an_iterative_fit(tmp_path):
    """Each row of an iterative method carries its fit's ``n_iter_`` and ``converged_`` (a fit
    stopped at its cap: not converged), read back from ``results.csv``; a file of the earlier
    nine columns still reads, the two counts empty."""
    from graphdr.qmi import QMIProjection

    X, y = load_iris(return_X_y=True)
    train, test = np.arange(0, 150, 2), np.arange(1, 150, 2)
    base = dict(dataset="iris", X=X, y=y, views=None, train=train, test=test, dims=[1, 2],
                classifiers=["1nn"], scaling="minmax", gamma=None, svm_gamma=0.5, seed=0,
                fold=0)
    rows = []
    for cap in (3, 2000):
        _, got = run_cell(dict(base, method=f"qmi-paper:init=lda:max_iter={cap}"))
        rows += got
        Xtr = MinMaxScaler((-1, 1)).fit_transform(X[train])
        for r in got:  # the same fit outside the sweep
            est = QMIProjection(n_components=r["dim"], criterion="qmi", init="lda",
                                metric="euclidean", solver="paper", sigma_factors=(1.0,),
                                cv=None, max_iter=cap).fit(Xtr, y[train])
            assert (r["n_iter"], r["converged"]) == (est.n_iter_, est.converged_)
            assert r["n_iter"] <= cap and r["converged"] == (r["n_iter"] < cap)
        assert {r["converged"] for r in got} == ({False} if cap == 3 else {True})
    _, closed = run_cell(dict(base, method="lda"))
    assert all(r["n_iter"] == r["converged"] == "" for r in closed)
    path = str(tmp_path / "results.csv")
    write_results(path, rows + closed)
    back = read_results(path)
    assert sorted((r["method"], r["dim"], r["n_iter"], r["converged"]) for r in back) == \
        sorted((r["method"], r["dim"], r["n_iter"], r["converged"]) for r in rows + closed)
    with open(path) as fh:
        lines = fh.read().splitlines()
    with open(path, "w") as fh:  # the nine columns of a file an earlier graphdr wrote
        fh.write("\n".join(",".join(line.split(",")[:9]) for line in lines) + "\n")
    old = read_results(path)
    assert len(old) == len(back) and all(r["n_iter"] == r["converged"] == "" for r in old)


def test_run_cell_nested_equals_refit_for_pca():
    X, y = load_iris(return_X_y=True)
    train, test = np.arange(0, 150, 2), np.arange(1, 150, 2)
    base = dict(dataset="iris", X=X, y=y, views=None, train=train, test=test, dims=[1, 2, 3],
                classifiers=["1nn"], scaling="standard", gamma=None, svm_gamma=0.5, seed=0,
                fold=0)
    _, nested = run_cell(dict(base, method="pca"))
    for d in (1, 2, 3):  # PCA with n_components=d, computed independently
        from sklearn.decomposition import PCA

        sc = make_scaler("standard").fit(X[train])
        p = PCA(d).fit(sc.transform(X[train]))
        pred = make_classifier("1nn").fit(p.transform(sc.transform(X[train])), y[train])
        ref = np.sum(pred.predict(p.transform(sc.transform(X[test]))) != y[test])
        assert next(r for r in nested if r["dim"] == d)["n_errors"] == ref



def test_defaults_protocol_evaluates_each_method_at_one_dimension(tmp_path):
    """``--protocol defaults``: every method once, at its estimator's own ``n_components``
    (or at min(C - 1, its limit) with ``dimension='c-1'``); the raw features at theirs. The raw
    1-NN errors are scikit-learn's on the same folds, computed independently."""
    from graphdr.bench.runner import run_bench

    X, y = load_iris(return_X_y=True)
    proto = get_protocol("defaults")
    assert proto.dims(n_classes=3, method_limit=4) == [0]
    assert proto.replace(dimension="c-1").dims(n_classes=3, method_limit=4) == [2]
    assert proto.replace(dimension="c-1").dims(n_classes=5, method_limit=2) == [2]
    methods = ["raw", "lda:reg=auto", "lpp", "dee:max_iter=5"]
    res = run_bench(proto.replace(n_splits=3), datasets=["iris"], methods=methods,
                    out=str(tmp_path / "d"), plots_on=False, html_on=False, progress=False,
                    echo=lambda *a: None)
    dims = {(r["method"], r["dim"]) for r in res.rows}
    # raw: D = 4; LDA: C - 1 = 2; LPP: D = 4; DEE: its default 2
    assert dims == {("raw", 4), ("lda:reg=auto", 2), ("lpp", 4), ("dee:max_iter=5", 2)}
    c1 = run_bench(proto.replace(n_splits=3, dimension="c-1"), datasets=["iris"],
                   methods=["raw", "lpp"], out=str(tmp_path / "c"), plots_on=False,
                   html_on=False, progress=False, echo=lambda *a: None)
    assert {(r["method"], r["dim"]) for r in c1.rows} == {("raw", 4), ("lpp", 2)}
    for fold, (train, test) in enumerate(proto.replace(n_splits=3).splits(y, 0)):
        sc = MinMaxScaler((-1, 1)).fit(X[train])
        pred = KNeighborsClassifier(1).fit(sc.transform(X[train]), y[train])
        ref = np.sum(pred.predict(sc.transform(X[test])) != y[test])
        row = next(r for r in res.rows if r["method"] == "raw" and r["fold"] == fold
                   and r["classifier"] == "1nn")
        assert row["n_errors"] == ref


def test_train_caps_subsample_the_named_cells_only():
    y = np.repeat([0, 1, 2], [40, 40, 20])
    train = np.arange(0, 100, 1)
    proto = get_protocol("defaults").replace(train_caps=(("toy", "dee", 50),))
    kept = proto.capped("toy", "dee", train, y, fold=3)
    assert len(kept) == 50 and set(kept) <= set(train)
    np.testing.assert_array_equal(np.bincount(y[kept]), [20, 20, 10])  # stratified
    np.testing.assert_array_equal(kept, proto.capped("toy", "dee", train, y, fold=3))
    assert not np.array_equal(np.sort(kept), np.sort(proto.capped("toy", "dee", train, y, 4)))
    np.testing.assert_array_equal(proto.capped("toy", "lda", train, y, 3), train)
    np.testing.assert_array_equal(proto.capped("other", "dee", train, y, 3), train)
    assert proto.settings()["train_caps"] == [["toy", "dee", 50]]
    assert "train_caps" not in get_protocol("bouzas").settings()


def test_projection_is_passed_as_scaling_unless_the_method_sets_it():
    assert bm.get_method("kqmi").build(1, projection="none").scaling == "none"
    assert bm.get_method("kqmi").build(1).scaling == "within"  # the estimator's default
    kept = bm.get_method("kqmi").build(1, params={"scaling": "total"}, projection="none")
    assert kept.scaling == "total"
    assert not hasattr(bm.get_method("pca").build(1, projection="none"), "scaling")
    b = get_protocol("bouzas")
    assert b.projection == "none" and b.settings()["projection"] == "none"
    assert "projection" not in get_protocol("demo").settings()  # older runs stay resumable


def test_run_cell_with_the_papers_unit_length_projections():
    # paper 000 normalises each projection vector to unit length; the RBF SVM with a fixed
    # sigma sees that scale. Checked: the cell's estimator has unit-length directions spanning
    # scikit-learn's LDA subspace, and the cell's error is the SVM's on that embedding.
    X, y = load_wine(return_X_y=True)
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    task = dict(dataset="wine", method="lda", X=X, y=y, views=None, train=train, test=test,
                dims=[2], classifiers=["rbf-svm"], scaling="minmax", gamma=None,
                svm_gamma=0.5, seed=0, fold=0, projection="none")
    _, rows = run_cell(task)
    scaler = MinMaxScaler((-1, 1)).fit(X[train])
    Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
    est = bm.get_method("lda").build(2, projection="none").fit(Xtr, y[train])
    W = est.components_.T
    np.testing.assert_allclose(np.linalg.norm(W, axis=0), 1.0, rtol=1e-10)
    ref_lda = LinearDiscriminantAnalysis(solver="eigen").fit(Xtr, y[train])
    # the same subspace as scikit-learn's LDA (cosines of the principal angles are 1)
    Q1, _ = np.linalg.qr(W)
    Q2, _ = np.linalg.qr(ref_lda.scalings_[:, :2])
    np.testing.assert_allclose(np.linalg.svd(Q1.T @ Q2, compute_uv=False), 1.0, atol=1e-8)
    svm = make_classifier("rbf-svm").fit((Xtr - est.mean_) @ W, y[train])
    ref = np.sum(svm.predict((Xte - est.mean_) @ W) != y[test])
    assert rows[0]["n_errors"] == ref
    _, within = run_cell(dict(task, projection=None))  # the default metric differs in scale
    est_w = bm.get_method("lda").build(2).fit(Xtr, y[train])
    assert not np.allclose(np.linalg.norm(est_w.components_, axis=1), 1.0)
    assert within[0]["n_errors"] == np.sum(make_classifier("rbf-svm").fit(
        est_w.transform(Xtr), y[train]).predict(est_w.transform(Xte)) != y[test])


def test_unknown_classifier_and_scaling():
    with pytest.raises(ValueError, match="Unknown classifier 'svm'.*ncc, 1nn"):
        make_classifier("svm")
    with pytest.raises(ValueError, match="Unknown scaling 'zscore'"):
        make_scaler("zscore")


@pytest.mark.slow
def test_run_embedding_held_out_and_tsne():
    X, y = load_iris(return_X_y=True)
    base = dict(dataset="iris", X=X, y=y, views=None, scaling="standard", gamma=None, seed=0)
    emb = run_embedding(dict(base, method="lda"))
    assert emb["embedding"].shape == (75, 2) and emb["held_out"]
    assert np.array_equal(np.bincount(emb["y"]), [25, 25, 25])
    tsne = run_embedding(dict(base, method="tsne:perplexity=10"))
    assert tsne["embedding"].shape == (150, 2) and not tsne["held_out"]


# ----- results.csv ---------------------------------------------------------------------------
def _row(fold, dim, err, method="lda"):
    return dict(dataset="iris", method=method, classifier="1nn", fold=fold, dim=dim, n_test=10,
                n_errors=err, error=err / 10, fit_seconds=0.5)


def test_results_roundtrip_and_truncated_cell(tmp_path):
    path = str(tmp_path / "results.csv")
    rows = [_row(f, d, f + d) for f in range(2) for d in (1, 2)]
    write_results(path, rows)
    back = read_results(path)
    assert [(r["fold"], r["dim"], r["n_errors"]) for r in back] == [(0, 1, 1), (0, 2, 2),
                                                                    (1, 1, 2), (1, 2, 3)]
    write_results(path, rows + [_row(2, 1, 4), _row(2, 2, 5)])
    with open(path) as fh:
        text = fh.read()
    with open(path, "w") as fh:  # a file an older graphdr left mid-write: the last line cut
        fh.write(text[:-7])
    assert {r["fold"] for r in read_results(path)} == {0, 1}  # fold 2 dropped entirely
    agg = aggregate(back)
    assert agg[("iris", "lda", "1nn")][2][0] == pytest.approx((0.2 + 0.3) / 2)


def test_cell_seed_shared_by_methods_of_a_fold():
    from graphdr.bench.evaluation import cell_seed

    assert cell_seed(0, "iris", "qmi:init=random", 3) == cell_seed(0, "iris", "mi-a:init=random", 3)
    seeds = {cell_seed(s, d, "m", f) for s in (0, 1) for d in ("iris", "wine") for f in (0, 1)}
    assert len(seeds) == 8


# ----- equal-weight kernel baseline of MKL-DR (kfd-average) -----------------------------------


def _processed_rbf(Xtr, Xte):
    """Base kernel computed by hand (independently of ViewKernel): RBF with sigma^2 the mean
    squared distance of distinct training pairs, centred on the training set, unit mean
    diagonal."""
    def sq(A, B):
        return np.sum(A**2, 1)[:, None] + np.sum(B**2, 1)[None, :] - 2 * A @ B.T

    n = len(Xtr)
    d2 = np.maximum(sq(Xtr, Xtr), 0)
    s2 = d2[~np.eye(n, dtype=bool)].mean()
    K, Kt = np.exp(-d2 / s2), np.exp(-np.maximum(sq(Xte, Xtr), 0) / s2)
    H = np.eye(n) - 1.0 / n
    Kc = H @ K @ H
    Ktc = Kt - Kt.mean(1, keepdims=True) - K.mean(0)[None, :] + K.mean()
    scale = n / np.trace(Kc)
    return Kc * scale, Ktc * scale


def _same_embedding(Z1, Z2):
    """Embeddings equal up to the sign of each component (pairwise distances agree)."""
    from sklearn.metrics import pairwise_distances

    D1, D2 = pairwise_distances(Z1), pairwise_distances(Z2)
    np.testing.assert_allclose(D1, D2, rtol=1e-6, atol=1e-8 * D1.max())


def test_kfd_average_one_view_is_kernel_lda_on_its_kernel():
    from graphdr import KernelLDA
    from graphdr.bench.baselines import AverageKernelLDA

    X, y = load_iris(return_X_y=True)
    tr, te = np.arange(0, 150, 2), np.arange(1, 150, 2)
    K, Kt = _processed_rbf(X[tr], X[te])
    ref = KernelLDA(kernel="precomputed").fit(K, y[tr])
    est = AverageKernelLDA().fit([X[tr]], y[tr])
    assert est.n_components_ == 2 and est.n_views_ == 1
    _same_embedding(est.transform([X[te]]), ref.transform(Kt))
    _same_embedding(est.embedding_, ref.transform(K))


def test_kfd_average_is_kernel_lda_on_the_mean_kernel():
    from graphdr import KernelLDA
    from graphdr.bench.baselines import AverageKernelLDA

    X, y = load_iris(return_X_y=True)
    tr, te = np.arange(0, 150, 2), np.arange(1, 150, 2)
    views = [X[:, :2], X[:, 2:]]
    parts = [_processed_rbf(V[tr], V[te]) for V in views]
    K = (parts[0][0] + parts[1][0]) / 2
    Kt = (parts[0][1] + parts[1][1]) / 2
    ref = KernelLDA(kernel="precomputed").fit(K, y[tr])
    est = AverageKernelLDA().fit([V[tr] for V in views], y[tr])
    _same_embedding(est.transform([V[te] for V in views]), ref.transform(Kt))
    # a duplicated view changes nothing: the average of equal kernels is that kernel
    one = AverageKernelLDA().fit([views[0][tr]], y[tr])
    two = AverageKernelLDA().fit([views[0][tr], views[0][tr]], y[tr])
    _same_embedding(one.transform([views[0][te]]), two.transform([views[0][te]] * 2))
    with pytest.raises(ValueError, match="list of views"):
        est.transform(X[te])
    with pytest.raises(ValueError, match="views but the estimator was fitted on 2"):
        est.transform([X[te]])
    with pytest.raises(ValueError, match="reg"):
        AverageKernelLDA(reg=-1.0).fit(views, y)


def test_kfd_average_registered_in_the_mkldr_protocol():
    X, y = load_iris(return_X_y=True)
    spec = bm.get_method("kfd-average")
    assert spec.kind == "multiview" and "kfd-average" in get_protocol("mkldr").methods
    assert bm.get_method("kfd-uniform") is spec
    train, test = np.arange(0, 150, 2), np.arange(1, 150, 2)
    views = [slice(0, 2), slice(2, 4)]
    task = dict(dataset="iris", method="kfd-average", X=X, y=y, views=views, train=train,
                test=test, dims=[1, 2], classifiers=["1nn"], scaling="standard", gamma=None,
                svm_gamma=0.5, seed=0, fold=0)
    _, rows = run_cell(task)
    from graphdr import KernelLDA

    sc = make_scaler("standard").fit(X[train])
    Xtr, Xte = sc.transform(X[train]), sc.transform(X[test])
    parts = [_processed_rbf(Xtr[:, s], Xte[:, s]) for s in views]
    ref = KernelLDA(kernel="precomputed").fit((parts[0][0] + parts[1][0]) / 2, y[train])
    Ztr, Zte = ref.transform((parts[0][0] + parts[1][0]) / 2), ref.transform(
        (parts[0][1] + parts[1][1]) / 2)
    for d in (1, 2):
        pred = KNeighborsClassifier(1).fit(Ztr[:, :d], y[train]).predict(Zte[:, :d])
        assert next(r for r in rows if r["dim"] == d)["n_errors"] == np.sum(pred != y[test])


def test_sklearn_lda_methods_registered():
    for name, solver in (("sklearn-lda", "svd"), ("sklearn-lda-shrinkage", "eigen")):
        est = bm.get_method(name).build(2)
        assert isinstance(est, LinearDiscriminantAnalysis) and est.solver == solver
    assert bm.get_method("sklearn-lda-shrinkage").build(1).shrinkage == "auto"


def test_bench_runs_the_map_with_its_parameters(tmp_path):
    """`graphdr bench --methods deemap` (issue 36): the map like every method, parameters set."""
    from graphdr.bench.protocols import get_protocol
    from graphdr.bench.runner import run_bench

    run_bench(get_protocol("demo").replace(n_splits=2), datasets=["iris"],
              methods=["deemap", "deemap:n_neighbors=3:max_iter=3"], out=str(tmp_path),
              progress=False, plots_on=False, html_on=False, echo=lambda *a: None)
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    by = {}
    for r in rows:
        by.setdefault(r["method"], set()).add(int(r["dim"]))
    assert by == {"deemap": {1, 2}, "deemap:max_iter=3:n_neighbors=3": {1, 2}}
    errors = {r["method"]: float(r["error"]) for r in rows if r["dim"] == "2"
              and r["fold"] == "0"}
    assert errors["deemap"] < 0.2  # iris is easy for the full map


# ----- --label-fraction (issue 38) --------------------------------------------------------------
def test_labelled_rows_are_stratified_and_deterministic():
    from graphdr.bench.evaluation import labelled_rows

    y = np.repeat([0, 1, 2], [40, 25, 3])
    a, b = labelled_rows(y, 0.1, 7), labelled_rows(y, 0.1, 7)
    assert np.array_equal(a, b) and not np.array_equal(a, labelled_rows(y, 0.1, 8))
    assert [int(a[y == c].sum()) for c in range(3)] == [4, 2, 1]  # at least one per class


def test_run_cell_with_a_label_fraction_against_its_definition():
    """The semi-supervised cell fits every training row with -1 for the hidden labels, the
    labelled-only cell the labelled rows; both classify with the labelled rows' embedding."""
    import graphdr
    from graphdr.bench.evaluation import cell_seed, labelled_rows

    X, y = load_wine(return_X_y=True)
    train, test = next(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    base = dict(dataset="wine", method="lda", X=X, y=y, views=None, train=train, test=test,
                dims=[2], classifiers=["1nn"], scaling="minmax", gamma=None, svm_gamma=0.5,
                seed=0, fold=0, label_fraction=0.2)
    scaler = MinMaxScaler((-1, 1)).fit(X[train])
    Xtr, Xte, ytr = scaler.transform(X[train]), scaler.transform(X[test]), y[train]
    keep = labelled_rows(ytr, 0.2, cell_seed(0, "wine", "lda", 0))
    for mode, fit in (("semi", lambda: graphdr.LDA(n_components=2, reg=0.0).fit(
            Xtr, np.where(keep, ytr, -1))),
                      ("labelled", lambda: graphdr.LDA(n_components=2, reg=0.0).fit(Xtr[keep],
                                                                           ytr[keep]))):
        key, rows = run_cell(dict(base, label_mode=mode))
        est = fit()
        knn = KNeighborsClassifier(1).fit(est.transform(Xtr[keep]), ytr[keep])
        ref = int(np.sum(knn.predict(est.transform(Xte)) != y[test]))
        assert key[1] == ("lda" if mode == "semi" else "lda@labelled")
        assert rows[0]["n_errors"] == ref


def test_bench_label_fraction_names_its_methods(tmp_path):
    from graphdr.bench.runner import run_bench

    res = run_bench(get_protocol("bouzas").replace(n_splits=2), datasets=["iris"],
                    methods=["lda", "pca", "mmpa"], classifiers=["1nn"], out=str(tmp_path),
                    progress=False, echo=lambda *a: None, label_fraction=0.2)
    assert not res.failures
    # LDA fits y = -1 and also the labelled rows; PCA uses no labels; MMPA refuses -1
    assert {r["method"] for r in res.rows} == {"lda", "lda@labelled", "pca", "mmpa@labelled"}
    with pytest.raises(ValueError, match="label-fraction must be in"):
        run_bench(get_protocol("bouzas"), datasets=["iris"], methods=["lda"],
                  out=str(tmp_path / "b"), progress=False, label_fraction=0.0)


def test_sweep_runs_its_cells_in_a_mixed_fixed_order(tmp_path, monkeypatch):
    """The sweep runs its cells in one fixed order (a hash of their names) that mixes data sets
    and methods, so that the progress bar's early rate stands for the whole sweep; the results
    are those of any order."""
    import zlib

    import graphdr.bench.runner as runner
    from graphdr.bench.evaluation import result_name
    from graphdr.bench.protocols import get_protocol

    seen, real = [], runner.run_cell

    def run_cell(task):
        seen.append((task["dataset"], result_name(task), task["fold"]))
        return real(task)

    monkeypatch.setattr(runner, "run_cell", run_cell)
    kwargs = dict(datasets=["iris", "wine"], methods=["lda", "pca"], progress=False,
                  plots_on=False, html_on=False, pictures=False, timing=False,
                  echo=lambda *a: None)
    runner.run_bench(get_protocol("demo").replace(n_splits=3), out=str(tmp_path / "a"),
                     **kwargs)
    assert sorted(seen) == sorted((d, m, f) for d in ("iris", "wine") for m in ("lda", "pca")
                                  for f in range(3))
    assert seen == sorted(seen, key=lambda c: zlib.crc32(f"{c[0]}|{c[1]}|{c[2]}".encode()))
    first_half = {d for d, _m, _f in seen[:6]}
    assert first_half == {"iris", "wine"}  # not one data set after the other
    seen.clear()  # the reversed order gives the same results, byte for byte
    monkeypatch.setattr(runner, "zlib", type("Reversed", (), {
        "crc32": staticmethod(lambda b: -zlib.crc32(b))}))
    runner.run_bench(get_protocol("demo").replace(n_splits=3), out=str(tmp_path / "b"),
                     **kwargs)
    assert seen == sorted(seen, key=lambda c: -zlib.crc32(f"{c[0]}|{c[1]}|{c[2]}".encode()))
    assert (tmp_path / "a" / "results.csv").read_bytes() == \
        (tmp_path / "b" / "results.csv").read_bytes()
