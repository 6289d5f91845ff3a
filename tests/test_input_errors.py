"""Bad input gives a ValueError that names the problem; awkward but valid input gives no NaN."""

import numpy as np
import pytest
from conftest import make_classes

import graphdr

SUPERVISED = [
    graphdr.LDA,
    lambda **kw: graphdr.LPP(supervised=True, **kw),
    graphdr.MFA,
    graphdr.LDE,
    graphdr.KernelLDA,
    lambda **kw: graphdr.KernelLPP(supervised=True, **kw),
    graphdr.CKFD,
]
ALL = SUPERVISED + [graphdr.LPP, graphdr.KernelLPP]


@pytest.fixture
def data():
    return make_classes(n_per_class=(10, 12, 9), seed=30)


@pytest.mark.parametrize("make", ALL)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_inf_in_x(make, bad, data):
    X, y = data
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        make().fit(X, y)


@pytest.mark.parametrize("make", SUPERVISED)
def test_single_class(make, data):
    X, _ = data
    with pytest.raises(ValueError, match="at least 2 classes"):
        make().fit(X, np.zeros(len(X)))


@pytest.mark.parametrize("make", SUPERVISED)
def test_mismatched_lengths(make, data):
    X, y = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        make().fit(X, y[:-1])


@pytest.mark.parametrize("make", SUPERVISED)
def test_missing_y(make, data):
    X, _ = data
    with pytest.raises(ValueError, match="requires y"):
        make().fit(X)


@pytest.mark.parametrize(
    "make, maximum",
    [(graphdr.LDA, 2), (graphdr.KernelLDA, 2), (graphdr.LPP, 5), (graphdr.MFA, 5), (graphdr.CKFD, 4)],
)
def test_too_many_components_names_the_maximum(make, maximum, data):
    X, y = data
    with pytest.raises(ValueError, match=rf"n_components={maximum + 1} is too large: at most {maximum}"):
        make(n_components=maximum + 1).fit(X, y)
    assert make(n_components=maximum).fit(X, y).n_components_ == maximum


@pytest.mark.parametrize("value", [0, -1, 1.5, "two"])
def test_invalid_n_components(value, data):
    X, y = data
    with pytest.raises(ValueError, match="n_components"):
        graphdr.LDA(n_components=value).fit(X, y)


@pytest.mark.parametrize(
    "make", [lambda: graphdr.LPP(supervised=True), graphdr.MFA, graphdr.LDE,
             lambda: graphdr.KernelLPP(supervised=True)]
)
def test_class_with_one_sample_where_neighbours_are_needed(make, data):
    X, y = data
    y = y.copy()
    y[0] = 7  # a class of one sample
    with pytest.raises(ValueError, match="at least 2 samples in every class"):
        make().fit(X, y)


@pytest.mark.parametrize(
    "est, match",
    [
        (graphdr.LPP(n_neighbors=0), "n_neighbors"),
        (graphdr.LPP(weights="gauss"), "weights"),
        (graphdr.LPP(sigma=-1.0), "sigma"),
        (graphdr.LDA(reg=-0.1), "reg"),
        (graphdr.KernelLDA(kernel="nope"), "kernel must be one of"),
        (graphdr.KernelLDA(gamma=-2.0), "gamma"),
        (graphdr.GraphEmbedding(intrinsic="nope"), "intrinsic must be one of"),
        (graphdr.GraphEmbedding(penalty=np.eye(3)), "penalty must be an n_samples x n_samples"),
        (graphdr.CKFD(fusion_weight=0), "fusion_weight"),
    ],
)
def test_invalid_hyper_parameters(est, match, data):
    X, y = data
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_continuous_targets_are_rejected(data):
    X, _ = data
    with pytest.raises(ValueError, match="Unknown label type"):
        graphdr.LDA().fit(X, np.linspace(0, 1, len(X)))


def test_constant_data_is_rejected():
    with pytest.raises(ValueError, match="zero variance"):
        graphdr.LDA().fit(np.ones((10, 3)), np.repeat([0, 1], 5))


def test_precomputed_kernel_must_be_square(data):
    X, y = data
    with pytest.raises(ValueError, match="square"):
        graphdr.KernelLDA(kernel="precomputed").fit(X, y)


def test_transform_checks_feature_count(data):
    X, y = data
    est = graphdr.LDA().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :3])


@pytest.mark.parametrize("make", ALL)
def test_constant_feature_and_duplicate_rows_give_no_nan(make, data):
    X, y = data
    X = np.column_stack([X, np.full(len(X), -2.0)])
    X = np.vstack([X, X[:6]])
    y = np.concatenate([y, y[:6]])
    Y = make(n_components=2).fit(X, y).transform(X)
    assert Y.shape == (len(X), 2) and np.all(np.isfinite(Y))


@pytest.mark.parametrize("make", SUPERVISED)
def test_string_labels(make, data):
    X, y = data
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    est = make().fit(X, labels)
    assert list(est.classes_) == ["setosa", "versicolor", "virginica"]
    assert np.all(np.isfinite(est.transform(X)))
