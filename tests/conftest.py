import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def make_classes(n_per_class=(12, 15, 10), n_features=5, sep=3.0, seed=0):
    """Gaussian classes with distinct means: a tiny, full-rank, well-conditioned problem."""
    r = np.random.default_rng(seed)
    X, y = [], []
    for c, m in enumerate(n_per_class):
        center = r.normal(scale=sep, size=n_features)
        X.append(center + r.normal(size=(m, n_features)) * (1 + 0.3 * np.arange(n_features)))
        y.append(np.full(m, c))
    return np.vstack(X), np.concatenate(y)


def max_angle(U, V):
    """Largest principal angle between the column spans of U and V."""
    from scipy.linalg import subspace_angles

    return float(np.max(subspace_angles(np.asarray(U), np.asarray(V))))


def send_ctrl_c_at(monkeypatch, moment):
    """Ctrl-C (a real SIGINT) at the ``moment``-th rename of a file or folder into place
    (``graphdr._outputs``); returns the function that stops it."""
    import os
    import signal

    from graphdr import _outputs

    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == moment:
            os.kill(os.getpid(), signal.SIGINT)
        real_replace(src, dst)

    monkeypatch.setattr(_outputs.os, "replace", replace)
    return lambda: monkeypatch.setattr(_outputs.os, "replace", real_replace)
