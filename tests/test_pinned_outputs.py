"""Every estimator's fitted outputs are those pinned in tests/pinned/outputs.npz.

Refactoring must not change behaviour, and the same data must give the same model on every
machine. The comparisons are of what is unique (``tests/pinned/cases.py``, ``TOLERANCES``):

* the Gram matrix ``Y Y^T`` of the training and test embeddings stacked: unique even where
  tied eigenvalues leave the directions free to rotate inside the embedded subspace (every
  pinned case is whitened, ``scaling='total'``, so such a rotation is orthogonal);
* the principal angles between the pinned and the computed embedded subspaces;
* column by column, signs included, where the eigenvalues are not tied: this is what a user
  sees, and it checks the sign convention (:func:`graphdr.blocks.solvers.orientation_signs`).

Each tolerance is relative to the largest entry and comes from the kind of solver: machine
precision times the problem's conditioning for closed forms, the solver's own tolerance for
the SDP of MKL-DR, rounding through a fixed number of steps for the iterative estimators.
"""

import numpy as np
import pytest
from conftest import max_angle
from pinned.cases import ALIASES, CASES, KIND, PINS, TIED, TOLERANCES, _extra_cases, run_case

PINNED = np.load(PINS)


def _relative(got, want):
    return np.abs(got - want).max() / max(np.abs(want).max(), np.finfo(float).tiny)


def _assert_same(name, got, want):
    """``got`` and ``want``: the (training; test) embeddings stacked."""
    assert got.shape == want.shape, f"{name}: shape {got.shape}, pinned {want.shape}"
    assert np.all(np.isfinite(got)), f"{name}: non-finite output"
    tol = TOLERANCES[KIND.get(name, "exact")]
    gram = _relative(got @ got.T, want @ want.T)
    assert gram < tol, f"{name}: Gram matrix differs from the pinned one by {gram:.2e} (tol {tol})"
    if want.shape[1] < want.shape[0]:
        angle = max_angle(got, want)
        assert angle < tol, f"{name}: subspace {angle:.2e} rad from the pinned one (tol {tol})"
    if name not in TIED:
        raw = _relative(got, want)
        assert raw < 10 * tol, f"{name}: columns differ from the pinned ones by {raw:.2e}"


def _stacked(train, test=None):
    train = np.asarray(train, dtype=np.float64)
    return train if test is None else np.vstack([train, np.asarray(test, dtype=np.float64)])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_outputs_are_the_pinned_ones(case):
    got = _stacked(*run_case(case))
    _assert_same(case, got, _stacked(PINNED[f"{case}/train"], PINNED[f"{case}/test"]))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_elastic_embedding_is_pinned():
    for key, value in _extra_cases().items():
        _assert_same(key.split("/")[0], _stacked(value), _stacked(PINNED[key]))


def test_the_comparison_catches_a_sign_flip_and_a_rotation():
    """The checks can fail: a flipped column, a rotated untied subspace and a scaled output."""
    want = _stacked(PINNED["LDA/train"], PINNED["LDA/test"])
    flipped = want * np.array([1.0, -1.0])
    with pytest.raises(AssertionError, match="columns differ"):
        _assert_same("LDA", flipped, want)
    c, s = np.cos(1e-3), np.sin(1e-3)
    with pytest.raises(AssertionError, match="columns differ"):
        _assert_same("LDA", want @ np.array([[c, -s], [s, c]]), want)
    with pytest.raises(AssertionError, match="Gram"):
        _assert_same("LDA", want * (1 + 1e-6), want)


def test_every_public_estimator_is_pinned():
    from sklearn.base import BaseEstimator

    import graphdr

    pinned = {ALIASES.get(c[0].split("_")[0], c[0].split("_")[0]) for c in CASES}
    pinned |= {"ElasticEmbedding", "LabelIssues"}  # pinned in _extra_cases
    public = {n for n in graphdr.__all__ if isinstance(getattr(graphdr, n), type)
              and issubclass(getattr(graphdr, n), BaseEstimator)}
    assert public - pinned == set(), f"estimators without a pinned case: {sorted(public - pinned)}"
