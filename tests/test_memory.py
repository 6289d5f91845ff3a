"""The class-structured LDA path allocates O(n D) at most, never O(n^2)."""

import tracemalloc

import numpy as np
import pytest

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


@pytest.mark.slow
def test_binary_knn_graph_within_classes_peaks_near_its_own_size():
    """DEEMap's attraction graph is assembled group by group: at 10^7 samples the old route
    (COO triplets, the transpose and their maximum) took several copies of the graph. The
    heat-weighted graph still takes that route, and is the reference here."""
    from graphdr.blocks.graphs import knn_graph

    rng = np.random.default_rng(0)
    n, C = 40_000, 20
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, 5)) + y[:, None] * 0.1
    peaks = {}
    for weights in ("binary", "heat"):
        tracemalloc.start()
        W = knn_graph(X, 20, y=y, restrict="same", weights=weights)
        peaks[weights] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    size = W.data.nbytes + W.indices.nbytes + W.indptr.nbytes
    assert peaks["binary"] < 3 * size, f"{peaks['binary'] / size:.1f} x the graph"
    assert peaks["binary"] < 0.5 * peaks["heat"]
