"""Every estimator's fitted outputs are those pinned in tests/pinned/outputs.npz.

Refactoring must not change behaviour: the training and test embeddings of each case in
``tests/pinned/cases.py`` agree with the pinned arrays to 1e-9 relative (bit for bit where the
arithmetic is unchanged), and the embedded subspaces to principal angles below 1e-10.
"""

import numpy as np
import pytest
from conftest import max_angle
from pinned.cases import ALIASES, CASES, PINS, _extra_cases, run_case

PINNED = np.load(PINS)


def _assert_same(name, got, want):
    assert got.shape == want.shape, f"{name}: shape {got.shape}, pinned {want.shape}"
    assert np.all(np.isfinite(got)), f"{name}: non-finite output"
    scale = max(np.abs(want).max(), np.finfo(float).tiny)
    rel = np.abs(got - want).max() / scale
    assert rel < 1e-9, f"{name}: differs from the pinned output by {rel:.2e} (relative)"
    if want.shape[1] <= want.shape[0]:
        assert max_angle(got, want) < 1e-10


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_outputs_are_the_pinned_ones(case):
    train, test = run_case(case)
    _assert_same(f"{case}/train", np.asarray(train), PINNED[f"{case}/train"])
    _assert_same(f"{case}/test", np.asarray(test), PINNED[f"{case}/test"])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_elastic_embedding_is_pinned():
    for key, value in _extra_cases().items():
        _assert_same(key, value, PINNED[key])


def test_every_public_estimator_is_pinned():
    from sklearn.base import BaseEstimator

    import graphdr

    pinned = {ALIASES.get(c[0].split("_")[0], c[0].split("_")[0]) for c in CASES}
    pinned.add("ElasticEmbedding")
    public = {n for n in graphdr.__all__ if isinstance(getattr(graphdr, n), type)
              and issubclass(getattr(graphdr, n), BaseEstimator)}
    assert public - pinned == set(), f"estimators without a pinned case: {sorted(public - pinned)}"
