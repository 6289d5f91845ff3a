"""The same data give the same model: on every fit, whatever the row order, random_state and
rounding.

* Two fits with default parameters are identical bit for bit (fitted attributes and output).
* Hyper-parameters chosen from the data (``gamma_``, ``reg_``, ``sigma_``, ...) do not depend on
  the row order of the training data nor on ``random_state``.
* Signs follow the documented convention (:func:`graphdr.blocks.solvers.orientation_signs`): a
  relative perturbation of the input of 1e-10 keeps every component's sign.
"""

import numbers
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import graphdr

#: every public estimator, with its default parameters (multi-view ones take views)
SINGLE_VIEW = [
    graphdr.LDA(), graphdr.LPP(), graphdr.LPP(supervised=True), graphdr.MFA(), graphdr.LDE(),
    graphdr.GraphEmbedding(), graphdr.KernelLDA(), graphdr.KernelLPP(), graphdr.CKFD(),
    graphdr.LQMI(), graphdr.KQMI(), graphdr.QMIProjection(), graphdr.DEE(), graphdr.DSNE(),
    graphdr.MMPA(), graphdr.DCV(), graphdr.KFD(),
]
MULTI_VIEW = [graphdr.MKLDR(), graphdr.KFDVoting(), graphdr.KFDSAMME()]
UNSUPERVISED = [graphdr.ElasticEmbedding()]
ALL = SINGLE_VIEW + MULTI_VIEW + UNSUPERVISED

#: attributes that hold hyper-parameters chosen from the data
CHOSEN = ("gamma_", "reg_", "sigma_", "shrinkage_", "weight_shrinkage_", "n_components_",
          "checkpoint_", "approximation_")


def _data(n_per_class=(30, 24, 26), D=5, seed=0):
    """Continuous Gaussian classes: no repeated values, no tied distances."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(len(n_per_class), D))
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    X = centres[y] + rng.normal(size=(len(y), D)) * (1 + 0.2 * np.arange(D))
    return X, np.array(["a", "b", "c"])[y]


def _views(X):
    return [X[:, :3], X[:, 2:], np.tanh(X)]


def _name(est):
    return repr(est)


def _fit(est, X, y):
    """Fitted clone and its output on the training data (predict for classifiers)."""
    est = clone(est)
    Xin = _views(X) if any(isinstance(est, type(m)) for m in MULTI_VIEW) else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if any(isinstance(est, type(u)) for u in UNSUPERVISED):
            return est, est.fit_transform(Xin)
        est.fit(Xin, y)
    out = est.transform(Xin) if hasattr(est, "transform") else est.predict(Xin)
    return est, np.asarray(out)


def _fitted_arrays(est):
    """Fitted attributes (name -> value) that can be compared."""
    out = {}
    for key, value in vars(est).items():
        if not key.endswith("_") or key.startswith("_"):
            continue
        if isinstance(value, (np.ndarray, numbers.Number, str, bool, type(None))):
            out[key] = value
    return out


@pytest.mark.parametrize("est", ALL, ids=_name)
@pytest.mark.slow
def test_two_default_fits_are_identical(est):
    X, y = _data()
    a, out_a = _fit(est, X, y)
    b, out_b = _fit(est, X, y)
    np.testing.assert_array_equal(out_a, out_b)
    fa, fb = _fitted_arrays(a), _fitted_arrays(b)
    assert fa.keys() == fb.keys()
    for key in fa:
        np.testing.assert_array_equal(np.asarray(fa[key]), np.asarray(fb[key]), err_msg=key)


def _chosen(est):
    return {k: getattr(est, k) for k in CHOSEN if hasattr(est, k)}


def _assert_same_choice(got, want):
    """The same grid points and counts exactly; a value computed from all rows (a median
    distance, a Ledoit-Wolf shrinkage) up to the rounding that the row order changes."""
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, float) and not isinstance(value, bool):
            assert got[key] == pytest.approx(value, rel=1e-12, abs=0), key
        else:
            assert got[key] == value, key


@pytest.mark.parametrize("est", [e for e in ALL if not isinstance(e, graphdr.ElasticEmbedding)],
                         ids=_name)
@pytest.mark.slow
def test_chosen_hyperparameters_ignore_row_order_and_random_state(est):
    X, y = _data()
    perm = np.random.default_rng(5).permutation(len(y))
    reference = _chosen(_fit(est, X, y)[0])
    _assert_same_choice(_chosen(_fit(est, X[perm], y[perm])[0]), reference)
    if "random_state" in est.get_params():
        _assert_same_choice(_chosen(_fit(est.set_params(random_state=7), X, y)[0]), reference)


def _signed_agreement(A, B):
    """Per column: the correlation of A's and B's columns (1: same sign, -1: flipped)."""
    A, B = A - A.mean(axis=0), B - B.mean(axis=0)
    return np.sum(A * B, axis=0) / np.sqrt(np.sum(A * A, axis=0) * np.sum(B * B, axis=0))


@pytest.mark.parametrize("est", [e for e in ALL if hasattr(e, "transform")
                                 or isinstance(e, graphdr.ElasticEmbedding)], ids=_name)
@pytest.mark.slow
def test_signs_survive_a_relative_perturbation_of_1e_10(est):
    X, y = _data()
    perturbed = X * (1 + 1e-10 * np.random.default_rng(1).normal(size=X.shape))
    _, out = _fit(est, X, y)
    _, out_p = _fit(est, perturbed, y)
    assert out.shape == out_p.shape
    agreement = _signed_agreement(out, out_p)
    assert np.all(agreement > 0.999), agreement


@pytest.mark.parametrize("est", [graphdr.LFDA(), graphdr.MFA(), graphdr.LDE(),
                                 graphdr.LPP(supervised=True)], ids=_name)
def test_components_past_c_minus_one_do_not_depend_on_row_order_layout_or_rounding(est):
    """Past C - 1 components the between-class variance is zero and any basis of that space
    would do for the 'within' metric: the components there are ordered by the method's own
    criterion, so every leading block Z[:, :k] -- its pairwise distances, hence any kNN on
    it -- is the same for X, X in Fortran order, X's rows permuted, and X * (1 + 1e-10 e)."""
    from scipy.spatial.distance import pdist

    X, y = _data(n_per_class=(40, 36, 44), D=8, seed=3)
    X = np.hstack([X, np.tanh(X[:, :4]) + 0.1 * X[:, 4:]])  # 12 features, 3 classes
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    base = clone(est).fit(X, y)
    assert base.n_components_ > 2
    Z = base.transform(X)
    fits = [clone(est).fit(np.asfortranarray(X), y), clone(est).fit(X[perm], y[perm]),
            clone(est).fit(X * (1 + 1e-10 * rng.standard_normal(X.shape)), y)]
    for other in fits:
        Zo = other.transform(X)
        for k in range(1, base.n_components_ + 1):
            D, Do = pdist(Z[:, :k]), pdist(Zo[:, :k])
            assert np.max(np.abs(D - Do)) <= 1e-6 * D.max(), (k, np.max(np.abs(D - Do)))


_KERNEL_FIT = """
import sys
import numpy as np
from sklearn.datasets import load_digits
import graphdr
X, y = load_digits(return_X_y=True)
rows = np.random.default_rng(0).permutation(len(X))[:{n}]
y = y.copy()
if {partial}:
    y[rows[::3]] = -1  # a third unlabelled, in the map's graph: the start of its clusters
steps = []
model = graphdr.DEEMap(neighbors="exact", max_iter={max_iter},
                       unlabelled="smooth" if {partial} else "auto",
                       callback=lambda Y, info: steps.append(Y.copy()))
model.fit(X[rows], y[rows])
place = model.transform(X[:200])
np.save(sys.argv[1], np.concatenate([np.ravel(s) for s in steps] + [np.ravel(place)]))
"""


@pytest.mark.slow  # two fresh interpreters per case: in make test-slow and make test-portable
@pytest.mark.parametrize(("kernel", "partial"), [("Prescott", False), ("Sandybridge", True)])
def test_deemap_descent_has_the_same_bits_under_another_blas_kernel(tmp_path, kernel, partial):
    """Each iterate of DEEMap's descent, and the placed points, bit for bit the same under
    another OpenBLAS kernel (finding 8o of issue 58: 3e-3 relative after 100 iterations,
    from a 3e-15 difference in the start's principal axes amplified by the descent); with
    unlabelled rows too."""
    import os
    import subprocess
    import sys

    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not any(i.get("internal_api") == "openblas"
               for i in threadpoolctl.threadpool_info()):
        pytest.skip("numpy's BLAS is not OpenBLAS")
    script = tmp_path / "fit.py"
    script.write_text(_KERNEL_FIT.format(n=500, max_iter=40, partial=partial))
    runs = {}
    for name in ("default", kernel):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        if name != "default":
            env["OPENBLAS_CORETYPE"] = name
        out = tmp_path / f"{name}.npy"
        subprocess.run([sys.executable, str(script), str(out)], env=env, check=True,
                       timeout=300)
        runs[name] = np.load(out)
    assert runs["default"].shape == runs[kernel].shape  # the same number of iterations
    assert np.array_equal(runs["default"], runs[kernel]), (
        f"differs by {np.abs(runs['default'] - runs[kernel]).max():.1e} under {kernel}")
