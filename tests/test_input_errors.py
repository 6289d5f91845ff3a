"""Bad input gives a ValueError that names the problem; awkward but valid input gives no NaN."""

import numpy as np
import pytest
from conftest import make_classes

import graphdr
from graphdr._validation import SEMI_SUPERVISED

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
        (graphdr.GraphEmbedding(kernel_params={"bogus": 1}), "kernel_params.*kernel=None"),
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
@pytest.mark.slow
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


# ----- issue 37: the reproducers of the bad-input sweep (first part) --------------------------
@pytest.fixture
def sweep():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 6)) + 3 * rng.normal(size=(3, 6))[y]
    return X, y


def _views(X):
    return [X, X[:, :3]]


@pytest.mark.parametrize("name", ["KFD", "ViewKernel", "MKLDR", "MKLDR-lde"])
def test_float32_in_float32_out(sweep, name):
    """The README's promise, for the multi-kernel estimators too; the float32 output is the
    float64 computation cast (compared with the float64 fit)."""
    X, y = sweep
    X32 = X.astype(np.float32)
    if name == "KFD":
        Z32 = graphdr.KFD().fit(X32, y).transform(X32)
        Z64 = graphdr.KFD().fit(X32.astype(np.float64), y).transform(X32.astype(np.float64))
    elif name == "ViewKernel":
        Z32 = graphdr.ViewKernel().fit(X32).transform(X32)
        Z64 = graphdr.ViewKernel().fit(X32.astype(np.float64)).transform(
            X32.astype(np.float64))
    else:
        graph = "lde" if name.endswith("lde") else "lda"
        est = graphdr.MKLDR(graph=graph, weight_shrinkage=0.0, max_iter=3)
        Z32 = est.fit(_views(X32), y).transform(_views(X32))
        assert est.fit_transform(_views(X32), y).dtype == np.float32
        V64 = [V.astype(np.float64) for V in _views(X32)]
        Z64 = graphdr.MKLDR(graph=graph, weight_shrinkage=0.0, max_iter=3).fit(
            V64, y).transform(V64)
    assert Z32.dtype == np.float32
    np.testing.assert_array_equal(Z32, Z64.astype(np.float32))


def test_view_kernel_refuses_what_is_not_a_dense_2d_view(sweep):
    import scipy.sparse as sp

    X, _ = sweep
    with pytest.raises(ValueError, match=r"got a sparse matrix \(pass X.toarray\(\)"):
        graphdr.ViewKernel().fit(sp.csr_matrix(X))
    with pytest.raises(ValueError, match=r"2-D array .* got shape \(60,\).*reshape\(-1, 1\)"):
        graphdr.ViewKernel().fit(X[:, 0])
    est = graphdr.ViewKernel().fit(X)
    with pytest.raises(ValueError, match="2-D array"):
        est.transform(X[0])


@pytest.mark.parametrize("est, match", [
    (graphdr.KernelLDA(rank_tol=np.nan), "rank_tol must be a finite real number; got nan"),
    (graphdr.KQMI(rank_tol=np.nan), "rank_tol must be a finite real number"),
    (graphdr.LDA(rank_tol=-1), "rank_tol must be >= 0; got -1"),
    (graphdr.MMPA(rank_tol=-1), "rank_tol must be >= 0"),
    (graphdr.DCV(rank_tol=-1), "rank_tol must be >= 0"),
    (graphdr.LPP(supervised="yes"), "supervised must be True or False; got 'yes'"),
    (graphdr.KernelLPP(supervised="yes"), "supervised must be True or False"),
    (graphdr.DEE(normalize="yes"), "normalize must be True or False"),
    (graphdr.DEE(max_iter=-1), "max_iter must be an integer >= 0"),
    (graphdr.DSNE(tol=np.nan), "tol must be a finite real number"),
    (graphdr.DEEMap(verbose=-1), "verbose must be an integer >= 0"),
    (graphdr.KernelLDA(kernel_params="x"), "kernel_params must be None or a dict"),
    # LDA(reg=0) does not use rank_tol's default path, yet the value is refused at fit
    (graphdr.LDA(reg=0.0, rank_tol=float("inf")), "rank_tol must be a finite real number"),
])
def test_invalid_hyper_parameters_refused_at_fit(sweep, est, match):
    X, y = sweep
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


@pytest.mark.parametrize("est", [graphdr.MKLDR(graph="lde", rank_tol=-1),
                                 graphdr.MKLDR(rank_tol=np.nan), graphdr.MKLDR(max_iter=-2)])
def test_invalid_hyper_parameters_of_multiview_estimators(sweep, est):
    X, y = sweep
    with pytest.raises(ValueError, match="rank_tol must be|max_iter must be"):
        est.fit(_views(X), y)


def test_kfd_samme_with_more_folds_than_samples(sweep):
    X, y = sweep
    with pytest.raises(ValueError, match="cv=1000 folds for 60 samples; cv must be between 2"):
        graphdr.KFDSAMME(cv=1000).fit(_views(X), y)


def test_every_public_fit_checks_its_parameters():
    """The declarative rules (graphdr._validation.SHARED_RULES and each class's
    ``_parameter_rules``) run at the start of every public fit."""
    import inspect

    classes = [getattr(graphdr, n) for n in graphdr.__all__
               if inspect.isclass(getattr(graphdr, n)) and hasattr(getattr(graphdr, n), "fit")]
    unchecked = [f"{cls.__name__}.{m}" for cls in classes for m in ("fit", "fit_transform")
                 if hasattr(cls, m) and m in {k for c in cls.__mro__ for k in vars(c)}
                 and not getattr(getattr(cls, m), "checked_parameters", False)
                 and getattr(getattr(cls, m), "__module__", "").startswith("graphdr")]
    assert not unchecked, unchecked


def test_map2d_takes_a_column_vector_of_labels(sweep, tmp_path):
    X, y = sweep
    with pytest.warns(Warning, match="column-vector y"):
        model = graphdr.map2d(X, y.reshape(-1, 1), out=tmp_path / "m", png=True)
    assert (tmp_path / "m.png").stat().st_size > 1000 and model.embedding_.shape == (60, 2)


@pytest.mark.parametrize("make, scale", [
    (graphdr.DEE, 1e-300), (graphdr.DEE, 2.0**-1000), (graphdr.DEE, 1e300),
    (graphdr.DSNE, 1e-300), (graphdr.DSNE, 2.0**-1000), (graphdr.DSNE, 1e300),
    # a given width and a random start: exact powers of two (the data, scaled back, are the
    # same numbers); at 1e300 the rounded data move this start's descent by ~2 % under some
    # OpenBLAS kernels (Prescott), as any perturbation of 1e-16 would
    (lambda: graphdr.DEE(sigma=2.0, init="random", random_state=0), 2.0**-1000),
    (lambda: graphdr.DEE(sigma=2.0, init="random", random_state=0), 2.0**1000),
])
def test_dee_and_dsne_fit_extreme_scales_as_the_data_itself(sweep, make, scale):
    """As LDA does: the fit of ``X * s`` embeds ``X * s`` as the fit of ``X`` embeds ``X`` (a
    given width scales with the data), where squares of ``X * s`` underflow or overflow."""
    X, y = sweep
    ref = make().fit(X, y)
    est = make()
    if est.sigma is not None:
        est.set_params(sigma=est.sigma * scale)
    est.fit(X * scale, y)
    Z, Zs = ref.transform(X), est.transform(X * scale)
    assert np.all(np.isfinite(Zs))
    np.testing.assert_allclose(Zs, Z, rtol=1e-6, atol=1e-7 * np.abs(Z).max())
    assert est.sigma_ == pytest.approx(ref.sigma_ * scale, rel=1e-9)


def test_elastic_embedding_refuses_constant_data_and_fits_extreme_scales(sweep):
    X, _ = sweep
    with pytest.raises(ValueError, match="constant data: every sample is the same point"):
        graphdr.ElasticEmbedding().fit_transform(np.ones((60, 6)))
    ref = graphdr.ElasticEmbedding(max_iter=20).fit_transform(X / 2.0**3)
    # X / 8 has max |x| in [0.5, 1): the scale every extreme input is brought to, exactly
    top = np.abs(X).max()
    assert 0.5 <= top / 8 < 1
    for e in (-1000, 1000):
        Y = graphdr.ElasticEmbedding(max_iter=20).fit_transform(X / 2.0**3 * 2.0**e)
        np.testing.assert_array_equal(Y, ref)


def test_qmi_projection_refuses_constant_data(sweep):
    _, y = sweep
    with pytest.raises(ValueError, match="QMIProjection cannot project constant data"):
        graphdr.QMIProjection().fit(np.full((60, 6), 3.0), y)


@pytest.mark.parametrize("make", [
    graphdr.KernelLDA, graphdr.KQMI, graphdr.CKFD, graphdr.KernelLPP,
    lambda: graphdr.KernelLDA(gamma=0.05),                       # a given width
    lambda: graphdr.KernelLDA(kernel="laplacian", gamma=0.1),    # gamma * |x - y|_1
    lambda: graphdr.KernelLDA(approximation="nystroem", n_landmarks=30, random_state=0),
])
@pytest.mark.parametrize("scale", [1e-300, 2.0**-1000, 2.0**1000, 1e300])
@pytest.mark.slow
def test_kernel_methods_fit_extreme_scales_as_the_data_itself(sweep, make, scale):
    """The kernel of ``X * s`` with ``gamma / s**2`` is the kernel of ``X`` with ``gamma``: the
    fit divides extreme data by a power of two and scales a given width with it. Compared
    with the fit of ``X`` (a given width scaled as the data), by the embedding."""
    X, y = sweep
    ref = make()
    est = make()
    gamma = ref.gamma
    if not isinstance(gamma, str):
        power = 1 if ref.kernel == "laplacian" else 2
        with np.errstate(all="ignore"):
            given = float(np.float64(gamma) / np.float64(scale) ** power)
        if not 0.0 < given < np.inf:
            pytest.skip("the width itself is not representable at this scale")
        est.set_params(gamma=given)
    Z = ref.fit(X, y).transform(X)
    Zs = est.fit(X * scale, y).transform(X * scale)
    assert np.all(np.isfinite(Zs))
    np.testing.assert_allclose(Zs, Z, rtol=1e-6, atol=1e-6 * np.abs(Z).max())


@pytest.mark.parametrize("name", ["ViewKernel", "KFD", "KFD-nystroem", "MKLDR", "KFDVoting",
                                  "KFDSAMME"])
@pytest.mark.parametrize("scale", [1e-300, 2.0**-1000, 1e300])
def test_view_kernels_fit_extreme_scales_as_the_data_itself(sweep, name, scale):
    """A data-driven width (the default sigma='auto') makes a view's kernel blind to its
    scale: the view is divided by a power of two, and new samples with it."""
    X, y = sweep

    def run(s):
        Xs = X * s
        if name == "ViewKernel":
            return graphdr.ViewKernel().fit(Xs).transform(Xs[:20])
        if name.startswith("KFD") and name != "KFDVoting" and name != "KFDSAMME":
            approximation = "nystroem" if name.endswith("nystroem") else None
            return graphdr.KFD(approximation=approximation, n_landmarks=30,
                               random_state=0).fit(Xs, y).transform(Xs)
        if name == "MKLDR":
            return graphdr.MKLDR(weight_shrinkage=0.0, max_iter=3).fit(
                _views(Xs), y).transform(_views(Xs))
        est = getattr(graphdr, name)().fit(_views(Xs), y)
        return est.predict(_views(Xs)).astype(float)

    ref, got = run(1.0), run(scale)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def test_view_kernel_with_a_given_width_keeps_the_data_as_given(sweep):
    X, _ = sweep
    vk = graphdr.ViewKernel(sigma=3.0).fit(X)
    assert vk.sigma_ == 3.0 and vk._input_scale == 1.0
    np.testing.assert_array_equal(vk.transform(X[:5]), graphdr.ViewKernel(sigma=3.0).fit(
        X).transform(X[:5]))


@pytest.mark.parametrize("make, equivariant", [
    (graphdr.DCV, True),                                        # orthonormal directions
    (lambda: graphdr.DCV(null_dim=3), True),                    # the common-vector path
    (lambda: graphdr.QMIProjection(max_iter=20), False),        # whitened: scale-free
    (lambda: graphdr.QMIProjection(metric="euclidean", max_iter=20), True),
    (lambda: graphdr.QMIProjection(metric="euclidean", sigma=2.0, max_iter=20), True),
])
@pytest.mark.parametrize("scale", [1e-300, 2.0**-1000, 2.0**1000, 1e300])
@pytest.mark.slow
def test_dcv_and_qmi_projection_fit_extreme_scales(sweep, make, equivariant, scale):
    """An orthonormal projection of ``X * s`` is ``s`` times that of ``X``; the whitened QMI
    embedding is the same at every scale. A given width scales with the data."""
    X, y = sweep
    ref = make()
    est = make()
    if getattr(est, "sigma", None) is not None:
        est.set_params(sigma=est.sigma * scale)
    Z = ref.fit(X, y).transform(X)
    Zs = est.fit(X * scale, y).transform(X * scale)
    assert np.all(np.isfinite(Zs))
    if equivariant:
        Zs = Zs / scale
    np.testing.assert_allclose(Zs, Z, rtol=1e-6, atol=1e-6 * np.abs(Z).max())
    if hasattr(ref, "sigma_") and equivariant:
        assert est.sigma_ == pytest.approx(ref.sigma_ * scale, rel=1e-6)


def test_default_components_never_cut_a_tied_block(sweep):
    """GraphEmbedding(within_class, total): the directions without between-class variance all
    have the ratio 1 -- a tied block whose basis follows the row order. The default keeps the
    directions before it (the whole block or none, graphdr.blocks.solvers.untied_count); asked for,
    they are given."""
    from graphdr.blocks.solvers import untied_count

    X, y = sweep
    make = lambda **kw: graphdr.GraphEmbedding(intrinsic="within_class", penalty="total", **kw)  # noqa: E731
    est = make().fit(X, y)
    assert est.n_components_ == 2 and np.all(est.eigenvalues_ < 0.5)
    assert make(n_components=6).fit(X, y).n_components_ == 6
    # the kept directions do not depend on the row order (up to sign)
    p = np.random.default_rng(1).permutation(len(y))
    Z, Zp = est.transform(X), make().fit(X[p], y[p]).transform(X)
    np.testing.assert_allclose(np.abs(Zp), np.abs(Z), atol=1e-10 * np.abs(Z).max())
    # the rule on its own: a block at the cut is dropped, a block that is everything is kept
    assert untied_count([0.1, 0.2, 1.0, 1.0, 1.0], 5) == 2
    assert untied_count([0.1, 0.2, 0.5, 0.5, 0.9], 3) == 2
    assert untied_count([0.1, 0.2, 0.5, 0.5, 0.9], 4) == 2
    assert untied_count([0.1, 0.2, 0.5, 0.6], 4) == 4
    assert untied_count([1e-15, 2e-15, -1e-16], 3) == 3


@pytest.mark.slow
def test_mkl_lde_default_keeps_the_class_separating_directions(sweep):
    X, y = sweep
    est = graphdr.MKLDR(graph="lde").fit(_views(X), y)
    assert est.n_components_ == 2
    assert graphdr.MKLDR(graph="lde", n_components=5).fit(_views(X), y).n_components_ == 5


@pytest.mark.parametrize("approximation", [None, "nystroem"])
def test_kernel_params_must_be_parameters_of_the_kernel(sweep, approximation):
    X, y = sweep
    est = graphdr.KernelLDA(approximation=approximation, n_landmarks=20, random_state=0,
                            kernel_params={"foo": 1})
    with pytest.raises(ValueError, match=r"kernel_params \['foo'\] are not parameters of the "
                                         r"'rbf' kernel; it takes \['gamma'\]"):
        est.fit(X, y)
    ok = graphdr.KernelLDA(kernel="poly", kernel_params={"degree": 2}).fit(X, y)
    assert ok.n_components_ == 2


@pytest.mark.parametrize("make", [graphdr.DEEMap, graphdr.ElasticEmbedding, graphdr.KernelLDA,
                                  graphdr.KQMI, graphdr.CKFD, graphdr.KernelLPP, graphdr.LPP])
def test_constant_data_is_refused_by_every_estimator(make):
    """DEEMap drew three discs from the labels alone; the kernel estimators returned zeros."""
    y = np.repeat([0, 1, 2], 20)
    for value in (1.0, 0.3):  # 0.3: the rounded mean leaves residues that are not variance
        est = make()
        with pytest.raises(ValueError, match="constant data"):
            if make is graphdr.ElasticEmbedding:
                est.fit_transform(np.full((60, 6), value))
            else:
                est.fit(np.full((60, 6), value), y)


@pytest.mark.parametrize("layout", ["fortran", "dataframe", "sparse"])
def test_default_directions_do_not_follow_the_memory_layout(sweep, layout):
    """The outputs that the tied block used to make depend on: memory layout and input type
    (the BLAS kernel: this file runs under OPENBLAS_CORETYPE=Prescott in make test-portable)."""
    X, y = sweep
    make = lambda: graphdr.GraphEmbedding(intrinsic="within_class", penalty="total")  # noqa: E731
    Z = make().fit(X, y).transform(X)
    if layout == "fortran":
        Xl = np.asfortranarray(X)
    elif layout == "sparse":
        import scipy.sparse as sp

        Xl = sp.csr_matrix(X)
    else:
        pd = pytest.importorskip("pandas")
        Xl = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    Zl = make().fit(Xl, y).transform(Xl)
    np.testing.assert_allclose(np.abs(Zl), np.abs(Z), atol=1e-10 * np.abs(Z).max())
    lde = graphdr.MKLDR(graph="lde", max_iter=3, weight_shrinkage=0.0)
    A = lde.fit(_views(X), y).transform(_views(X))
    p = np.random.default_rng(2).permutation(len(y))
    B = graphdr.MKLDR(graph="lde", max_iter=3, weight_shrinkage=0.0).fit(
        [V[p] for V in _views(X)], y[p]).transform(_views(X))
    np.testing.assert_allclose(np.abs(B), np.abs(A), atol=1e-7 * np.abs(A).max())


def _fit(est, name, X, y):
    """Fit ``est`` (public class ``name``) as it takes data: views, no labels, or X and y."""
    if name in ("MKLDR", "KFDVoting", "KFDSAMME"):
        return est.fit(_views(X), y)
    if name in ("ViewKernel", "ElasticEmbedding"):
        return est.fit(X)
    return est.fit(X, y)


def _estimator_names():
    import inspect

    return sorted(n for n in graphdr.__all__ if inspect.isclass(getattr(graphdr, n))
                  and hasattr(getattr(graphdr, n), "fit"))


@pytest.mark.parametrize("name", _estimator_names())
def test_every_ruled_parameter_refuses_a_bad_value_at_fit(sweep, name):
    """For every hyper-parameter with a declarative rule, a value the rule refuses makes
    ``fit`` raise a ValueError that names the parameter -- whether or not the other settings
    would use it (n_landmarks with an exact kernel, sigma with a given graph, ...)."""
    from graphdr._validation import SHARED_RULES

    X, y = sweep
    cls = getattr(graphdr, name)
    rules = {**SHARED_RULES, **getattr(cls, "_parameter_rules", {})}
    candidates = [-1, 0, np.nan, "yes", 1.5, 2**40, np.inf]
    checked = 0
    for param in cls().get_params(deep=False):
        rule = rules.get(param)
        if rule is None:
            continue
        bad = None
        for value in candidates:
            try:
                rule(value, param)
            except ValueError:
                bad = value
                break
        assert bad is not None, (name, param)
        est = cls().set_params(**{param: bad})
        with pytest.raises(ValueError, match=param):
            _fit(est, name, X, y)
        checked += 1
    assert checked >= 1 or name == "ViewKernel"  # its parameters are checked in _check_params


@pytest.mark.parametrize("name", _estimator_names())
def test_every_option_refuses_an_unknown_value_at_fit(sweep, name):
    """Every hyper-parameter whose default is a named option refuses an unknown name at fit,
    naming the parameter, whether or not the other settings use it."""
    X, y = sweep
    cls = getattr(graphdr, name)
    options = [k for k, v in cls().get_params(deep=False).items() if isinstance(v, str)]
    for param in options:
        est = cls().set_params(**{param: "no-such-option"})
        with pytest.raises(ValueError, match=param):
            _fit(est, name, X, y)


# ----- issue 38, item 1: y = -1 marks an unlabelled sample -----------------------------------
# the estimators whose default fit uses the labels (GraphEmbedding, LPP and KernelLPP are
# unsupervised by default: they ignore y), and supervised LPP
# (the semi-supervised estimators fit unlabelled samples: tests/test_semi.py)
LABEL_USERS = [n for n in _estimator_names()
               if n not in ("ViewKernel", "ElasticEmbedding", "KFD", "KFDVoting", "KFDSAMME",
                            "GraphEmbedding", "LPP", "KernelLPP")
               and n not in SEMI_SUPERVISED] + ["LPP-supervised"]


@pytest.mark.parametrize("name", LABEL_USERS)
@pytest.mark.parametrize("kind", ["int", "str", "object"])
def test_unlabelled_samples_are_refused_never_a_class(sweep, name, kind):
    """scikit-learn's semi-supervised convention: y = -1 (also '-1' among text labels) is an
    unlabelled sample. An estimator that needs every label refuses it clearly instead of
    taking -1 as one more class."""
    X, y = sweep
    y = y.copy()
    if kind == "int":
        yl = y.copy()
        yl[::7] = -1
    elif kind == "str":
        yl = np.array([f"c{c}" for c in y])
        yl[::7] = "-1"
    else:
        yl = np.array([f"c{c}" for c in y], dtype=object)
        yl[::7] = -1
    est = graphdr.LPP(supervised=True) if name == "LPP-supervised" else getattr(graphdr, name)()
    with pytest.raises(ValueError, match=r"y = -1 marks an unlabelled sample .* 9 of 60 "
                                         r"samples are unlabelled.*use an estimator that fits "
                                         r"unlabelled samples \(LDA, KernelLDA"):
        if name == "MKLDR":
            est.fit(_views(X), yl)
        else:
            est.fit(X, yl)


def test_minus_one_and_one_labels_get_a_hint(sweep):
    X, y = sweep
    y2 = np.where(y == 0, -1, 1)
    with pytest.raises(ValueError, match=r"labels -1 and 1\), relabel it, e.g. y = \(y \+ 1\)"):
        graphdr.LDA().fit(X, y2)


def test_label_free_fits_and_classifiers_take_minus_one(sweep):
    """An unsupervised fit ignores y; the KFD classifiers follow scikit-learn's classifier
    contract, where -1 is a class (labels -1 and 1)."""
    X, y = sweep
    y2 = np.where(y == 0, -1, y)
    graphdr.LPP(supervised=False).fit(X, y2)
    assert list(graphdr.KFD().fit(X, y2).classes_) == [-1, 1, 2]
    assert list(graphdr.KFDVoting().fit(_views(X), y2).classes_) == [-1, 1, 2]


# ----- labels as pandas leaves them, parameters not in use, sparse X with y = -1 -------------
SUPERVISED_AND_SEMI = ["LDA", "KernelLDA", "MFA", "LFDA", "DEE", "DEEMap"]


@pytest.mark.parametrize("name", SUPERVISED_AND_SEMI + ["KFD", "CKFD", "LPP"])
@pytest.mark.parametrize("kind", ["nan", "none", "empty", "pd.NA"])
def test_missing_or_empty_labels_name_y_and_the_minus_one_convention(sweep, name, kind):
    X, y = sweep
    if kind == "nan":
        yl = y.astype(np.float64)
        yl[4] = np.nan
    else:
        import pandas as pd

        yl = np.array([f"c{c}" for c in y], dtype=object)
        yl[4] = {"none": None, "empty": "", "pd.NA": pd.NA}[kind]
    est = getattr(graphdr, name)()
    with pytest.raises(ValueError) as info:
        est.fit(X, yl)
    msg = str(info.value)
    assert f"{name}: y has 1 " in msg and "first at sample 4" in msg and "y = -1" in msg, msg
    if name in SEMI_SUPERVISED:
        assert f"{name} fits them with y = -1" in msg


@pytest.mark.parametrize("make", [lambda: graphdr.GraphEmbedding(),
                                  lambda: graphdr.LPP(), lambda: graphdr.KernelLPP()])
def test_unsupervised_fits_ignore_mixed_label_types(sweep, make):
    X, y = sweep
    mixed = np.array(["a", 1, "b"] * (len(y) // 3), dtype=object)
    Z = make().fit(X, mixed).transform(X)
    assert np.all(np.isfinite(Z))
    with pytest.raises(ValueError, match=r"LDA: y mixes label types \('a' \(text\), 1 \(int\)"):
        graphdr.LDA().fit(X, mixed)


@pytest.mark.parametrize("params, match", [
    (dict(gamma=-1), "gamma must be > 0"),
    (dict(kernel_params="bogus_value"), "kernel_params must be None or a dict"),
    (dict(weights="bogus_value"), r"weights must be one of \['binary', 'heat'\]"),
])
def test_graph_embedding_checks_parameters_it_does_not_use(sweep, params, match):
    X, y = sweep
    with pytest.raises(ValueError, match=match):
        graphdr.GraphEmbedding(**params).fit(X, y)  # linear, kNN graph: gamma unused


@pytest.mark.parametrize("name", ["LDA", "LQMI"])
def test_sparse_x_with_unlabelled_rows_fits_as_dense(sweep, name):
    import scipy.sparse as sparse
    from scipy.linalg import subspace_angles

    X, y = sweep
    X = np.where(X > 0.2, X, 0.0)
    yl = y.copy()
    yl[::3] = -1
    dense = getattr(graphdr, name)().fit(X, yl)
    est = getattr(graphdr, name)().fit(sparse.csr_matrix(X), yl)
    assert np.max(subspace_angles(est.components_.T, dense.components_.T)) < 1e-8
