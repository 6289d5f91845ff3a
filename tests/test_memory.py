"""The class-structured LDA path allocates O(n D) at most, never O(n^2)."""

import tracemalloc

import numpy as np

import graphdr


def test_lda_fit_memory_is_linear_in_n():
    rng = np.random.default_rng(0)
    n, D, C = 30_000, 12, 10
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) + y[:, None] * 0.1
    tracemalloc.start()
    graphdr.LDA().fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # an n x n float64 array would be 7.2 GB; X itself is 2.9 MB
    assert peak < 3 * X.nbytes, f"peak {peak / 1e6:.1f} MB for X of {X.nbytes / 1e6:.1f} MB"
