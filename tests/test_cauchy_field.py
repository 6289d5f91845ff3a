"""The Cauchy field on a grid (graphdr.maps.cauchy_field) against the brute-force sum over all
pairs, finite differences, the Gaussian limit, translations, thread counts and CPUs."""

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from graphdr.maps.cauchy_field import _kernel, cauchy_field, exact_cauchy_field


def _brute(Y, alpha, T=None):
    """F and its gradient at T (default Y) summed over every pair (np.power: independent)."""
    T = Y if T is None else T
    D = T[:, None, :] - Y[None, :, :]
    b = 1.0 + np.sum(D * D, axis=-1) / alpha
    K = np.power(b, -alpha)
    return K.sum(axis=1), -2.0 * np.sum(D * (K / b)[..., None], axis=1)


def _blobs(n, extent, seed, clusters=4):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.0, extent, size=(clusters, 2))
    sd = rng.uniform(0.03, 0.12, size=clusters) * extent
    lab = rng.integers(0, clusters, n)
    return centres[lab] + rng.normal(size=(n, 2)) * sd[lab, None]


def _errors(F, G, Fb, Gb, own=True):
    """max relative error of F, relative error of Z = sum(F - own), error of the gradient
    relative to its largest entry."""
    eF = np.max(np.abs(F - Fb) / Fb)
    eZ = abs(np.sum(F - own) - np.sum(Fb - own)) / np.sum(Fb - own)
    eG = np.max(np.linalg.norm(G - Gb, axis=1)) / np.max(np.linalg.norm(Gb, axis=1))
    return eF, eZ, eG


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 0.3])  # 0.3: the kernel by exp and log
@pytest.mark.parametrize("n, extent, seed", [(300, 6.0, 0), (200, 30.0, 1), (60, 120.0, 2)])
def test_field_matches_the_brute_force_sum(alpha, n, extent, seed):
    Y = _blobs(n, extent, seed)
    eF, eZ, eG = _errors(*cauchy_field(Y, alpha=alpha), *_brute(Y, alpha))
    # the module docstring's figures (order 5, spacing 0.25), with a margin
    assert eF <= 3e-3 and eZ <= 5e-4 and eG <= (3e-2 if alpha < 0.5 else 1.5e-2)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_field_at_targets_matches_the_brute_force_sum(alpha):
    rng = np.random.default_rng(3)
    Y = _blobs(250, 15.0, 4)
    T = np.vstack([rng.uniform(-3.0, 18.0, size=(80, 2)), Y[:5]])  # beyond Y, and on Y
    F, G = cauchy_field(Y, alpha=alpha, targets=T)
    eF, eZ, eG = _errors(F, G, *_brute(Y, alpha, T), own=0.0)
    assert F.shape == (85,) and eF <= 3e-3 and eZ <= 5e-4 and eG <= 1.5e-2


@pytest.mark.parametrize("alpha", [0.5, 1.0, 0.3])
def test_exact_field_is_the_brute_force_sum_to_rounding(alpha):
    """The small map's exact sums (every pair, no grid) against the brute force: rounding
    only, with the same own term as the grid's field; one point, identical points."""
    Y = _blobs(150, 40.0, 3)
    eF, eZ, eG = _errors(*exact_cauchy_field(Y, alpha), *_brute(Y, alpha))
    assert eF <= 1e-13 and eZ <= 1e-13 and eG <= 1e-13
    F, G = exact_cauchy_field([[3.0, 4.0]], alpha)
    assert F[0] == 1.0 and not G.any()
    F, G = exact_cauchy_field(np.full((7, 2), -2.5), alpha)
    assert np.all(F == 7.0) and not G.any()
    with pytest.raises(ValueError, match="alpha must be a positive"):
        exact_cauchy_field(Y, 0.0)

def test_gradient_is_the_derivative_of_the_field():
    """The gradient formula against central differences of the brute-force F (the oracle's
    formula checked too), and the grid's gradient at targets against both."""
    Y = _blobs(120, 8.0, 5)
    T = np.random.default_rng(6).uniform(-1.0, 9.0, size=(30, 2))
    for alpha in (0.5, 1.0, 3.0):
        eps = 1e-6
        fd = np.column_stack([
            (_brute(Y, alpha, T + e)[0] - _brute(Y, alpha, T - e)[0]) / (2 * eps)
            for e in (np.array([eps, 0.0]), np.array([0.0, eps]))])
        scale = np.abs(fd).max()
        assert np.max(np.abs(_brute(Y, alpha, T)[1] - fd)) <= 1e-6 * scale
        assert np.max(np.abs(cauchy_field(Y, alpha=alpha, targets=T)[1] - fd)) <= 1e-2 * scale


def test_large_alpha_gives_the_gaussian_field():
    """(1 + d^2/alpha)^-alpha -> exp(-d^2): at alpha = 1e4 within d^4 / (2 alpha)."""
    Y = _blobs(200, 8.0, 7)
    D2 = np.sum((Y[:, None] - Y[None]) ** 2, axis=-1)
    F, G = cauchy_field(Y, alpha=1e4)
    Fg = np.exp(-D2).sum(axis=1)
    Gg = -2.0 * np.sum((Y[:, None] - Y[None]) * np.exp(-D2)[..., None], axis=1)
    assert np.max(np.abs(F - Fg) / Fg) <= 2e-3
    assert np.max(np.abs(G - Gg)) <= 1e-2 * np.abs(Gg).max()


def test_portable_power_matches_numpy():
    d2 = np.concatenate([[0.0, 1e-300, 1e-12], np.geomspace(1e-8, 1e8, 2000)])
    for alpha in (0.3, 0.77, 1.0, 1.5, 2.0, 7.3, 1e6):
        k, k1 = _kernel(d2, alpha)
        log_b = np.log1p(d2 / alpha)
        keep = (alpha + 1.0) * log_b < 300.0  # exp(y) is known to |y| eps at best
        np.testing.assert_allclose(k[keep], np.exp(-alpha * log_b[keep]), rtol=1e-13)
        np.testing.assert_allclose(k1[keep], np.exp(-(alpha + 1.0) * log_b[keep]), rtol=1e-13)
        assert np.all(np.isfinite(k)) and np.all(k >= 0) and np.all(np.diff(k) <= 0)


def test_error_shrinks_with_the_spacing_at_the_interpolation_order():
    Y = _blobs(150, 6.0, 8)
    Fb, Gb = _brute(Y, 1.0)
    err = {h: _errors(*cauchy_field(Y, spacing=h), Fb, Gb)[2] for h in (0.5, 0.25)}
    assert err[0.25] < err[0.5] / 6.0  # order 5: O(h^4) to O(h^5) in theory
    err3 = _errors(*cauchy_field(Y, spacing=0.25, order=3), Fb, Gb)[2]
    assert err[0.25] < err3  # more nodes per point, closer


def test_sparse_layout_keeps_z():
    """Z of points far apart is a sum of small terms: the points' own terms, which the grid
    smears, must not leak into it."""
    Y = np.random.default_rng(9).uniform(0.0, 150.0, size=(40, 2))
    F, G = cauchy_field(Y)
    Fb, Gb = _brute(Y, 1.0)
    assert np.sum(Fb - 1.0) < 0.1 * len(Y)  # a smeared own term of 1e-3 would show
    assert _errors(F, G, Fb, Gb)[1] <= 1e-3


def test_coarse_grid_keeps_distant_pairs_exact():
    """Beyond max_nodes the spacing grows; the field at distances of many spacings stays
    exact."""
    Y = _blobs(100, 5.0, 10)
    T = np.array([[200.0, 0.0], [0.0, 250.0], [-180.0, -40.0]])
    F, G = cauchy_field(Y, targets=T, max_nodes=64)  # spacing ~ 7 map units
    Fb, Gb = _brute(Y, 1.0, T)
    assert np.max(np.abs(F - Fb) / Fb) <= 1e-3
    assert np.max(np.linalg.norm(G - Gb, axis=1) / np.linalg.norm(Gb, axis=1)) <= 1e-3


def test_translation_changes_nothing():
    Y = np.round(_blobs(300, 20.0, 11) * 64.0) / 64.0  # dyadic: Y + 2^20 is exact
    F, G = cauchy_field(Y)
    F1, G1 = cauchy_field(Y + 2.0 ** 20)
    assert np.array_equal(F, F1) and np.array_equal(G, G1)
    Z = Y + 1e6  # huge offsets: the field of the coordinates as stored
    Fz, Gz = cauchy_field(Z)
    F0, G0 = cauchy_field(Z - 1e6)
    assert np.array_equal(Fz, F0) and np.array_equal(Gz, G0)
    assert _errors(Fz, Gz, *_brute(Z - 1e6, 1.0))[0] <= 3e-3


def test_row_order_changes_only_rounding():
    Y = _blobs(300, 10.0, 12)
    perm = np.random.default_rng(13).permutation(300)
    F, G = cauchy_field(Y)
    Fp, Gp = cauchy_field(Y[perm])
    np.testing.assert_allclose(Fp, F[perm], rtol=1e-13)
    np.testing.assert_allclose(Gp, G[perm], rtol=0, atol=1e-13 * np.abs(G).max())


def _digest(arrays):
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()


_CASE = """
import numpy as np
from graphdr.maps.cauchy_field import cauchy_field, exact_cauchy_field
rng = np.random.default_rng(14)
Y = rng.normal(size=(3000, 2)) * 8.0
T = rng.normal(size=(500, 2)) * 10.0
out = [*cauchy_field(Y, workers={w}), *cauchy_field(Y, alpha=0.3, targets=T, workers={w}),
       *exact_cauchy_field(Y[:300], alpha=0.3), *exact_cauchy_field(Y[:300])]
"""


def test_same_bits_with_any_number_of_threads():
    from graphdr._threads import map_threads

    digests = set()
    for w in (1, 2, 3):
        scope = {}
        exec(_CASE.format(w=w), scope)
        digests.add(_digest(scope["out"]))
    scope = {}
    map_threads(lambda _: exec(_CASE.format(w=None), scope), [0], n_workers=2)
    digests.add(_digest(scope["out"]))
    assert len(digests) == 1


def test_same_bits_without_numpys_simd_paths():
    """NumPy's power, exp and log give other bits without AVX-512 (its SIMD paths off):
    the kernels avoid them."""
    from numpy._core import _multiarray_umath as um

    off = [f for f in um.__cpu_dispatch__ if um.__cpu_features__.get(f)]
    if not off:
        pytest.skip("this CPU has none of NumPy's dispatched SIMD extensions")
    here = os.path.dirname(os.path.abspath(__file__))
    code = (_CASE.format(w=2) + f"import sys; sys.path.insert(0, {here!r})\n"
            "from test_cauchy_field import _digest; print(_digest(out))")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(off))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    scope = {}
    exec(_CASE.format(w=2), scope)
    assert run.stdout.strip() == _digest(scope["out"])


def test_edge_cases_without_nan():
    F, G = cauchy_field([[3.0, 4.0]])  # one point: its own term only
    assert abs(F[0] - 1.0) <= 1e-15 and np.abs(G).max() <= 1e-15
    F, G = cauchy_field(np.full((7, 2), -2.5))  # all identical
    np.testing.assert_allclose(F, 7.0, rtol=1e-14)
    assert np.abs(G).max() <= 1e-14
    Y = np.array([[0.0, 0.0], [1e4, 0.0]])  # far apart: the grid at its cap
    F, G = cauchy_field(Y)
    np.testing.assert_allclose(F - 1.0, 1.0 / (1.0 + 1e8), rtol=1e-6)
    np.testing.assert_allclose(G[:, 0], [2e4 / (1.0 + 1e8) ** 2, -2e4 / (1.0 + 1e8) ** 2],
                               rtol=1e-6)
    F, G = cauchy_field(np.zeros((0, 2)), targets=[[1.0, 1.0]])
    assert F.tolist() == [0.0] and G.tolist() == [[0.0, 0.0]]
    F, G = cauchy_field([[0.0, 0.0]], targets=np.zeros((0, 2)))
    assert F.shape == (0,) and G.shape == (0, 2)


@pytest.mark.parametrize("kwargs, match", [
    ({"Y": np.zeros((5, 3))}, "points in the plane"),
    ({"Y": np.zeros(4)}, "points in the plane"),
    ({"Y": [[0.0, 1.0], [np.nan, 0.0]]}, r"finite coordinates; Y .*row 1"),
    ({"Y": [[0.0, 1.0]], "targets": [[np.inf, 0.0]]}, r"targets .*row 0"),
    ({"Y": [[0.0, 1.0]], "targets": [[1.0, 2.0, 3.0]]}, "points in the plane"),
    ({"Y": [[0.0, 1.0]], "alpha": 0.0}, "alpha must be a positive"),
    ({"Y": [[0.0, 1.0]], "alpha": np.inf}, "alpha must be a positive"),
    ({"Y": [[0.0, 1.0]], "spacing": -1.0}, "spacing"),
    ({"Y": [[0.0, 1.0]], "order": 2.5}, "order must be an integer"),
    ({"Y": [[0.0, 1.0]], "max_nodes": 3}, "max_nodes"),
    ({"Y": [[0.0, 0.0], [1e308, -1e308]]}, "span at most 1e150"),
])
def test_bad_input_is_refused_in_words(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cauchy_field(**kwargs)
