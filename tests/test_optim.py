"""Tests of the line search and descent driver (graphdr.blocks.optim)."""

import numpy as np
import pytest

from graphdr.blocks.optim import descent, jacobi_cg, line_search_wolfe


def _rosenbrock(x):
    x = np.asarray(x, dtype=float)
    f = 100.0 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2
    g = np.array([-400.0 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0]), 200.0 * (x[1] - x[0] ** 2)])
    return f, g


def _quadratic(n=6, seed=0):
    r = np.random.default_rng(seed)
    M = r.normal(size=(n, n))
    H = M @ M.T + 0.5 * np.eye(n)
    b = r.normal(size=n)

    def fun(x):
        return 0.5 * x @ H @ x - b @ x, H @ x - b

    return fun, H, b


@pytest.mark.parametrize("strong", [False, True])
@pytest.mark.parametrize("alpha0", [1e-4, 1.0, 50.0])
def test_line_search_satisfies_wolfe(strong, alpha0):
    x = np.array([-1.2, 1.0])
    f0, g0 = _rosenbrock(x)
    p = -g0
    c1, c2 = 1e-4, (0.1 if strong else 0.9)
    res = line_search_wolfe(_rosenbrock, x, p, f0, g0, alpha0=alpha0, c1=c1, c2=c2, strong=strong)
    assert res.success
    f, g = _rosenbrock(x + res.alpha * p)
    assert np.isclose(f, res.f)
    assert f <= f0 + c1 * res.alpha * (g0 @ p)
    if strong:
        assert abs(g @ p) <= c2 * abs(g0 @ p)
    else:
        assert g @ p >= c2 * (g0 @ p)


def test_line_search_rejects_ascent_direction_and_bad_constants():
    x = np.array([0.5, 0.5])
    f0, g0 = _rosenbrock(x)
    with pytest.raises(ValueError, match="not a descent direction"):
        line_search_wolfe(_rosenbrock, x, g0, f0, g0)
    with pytest.raises(ValueError, match="0 < c1 < c2 < 1"):
        line_search_wolfe(_rosenbrock, x, -g0, f0, g0, c1=0.5, c2=0.1)


@pytest.mark.parametrize("method", ["gd", "cg", "preconditioned"])
def test_descent_minimises_a_quadratic(method):
    fun, H, b = _quadratic()
    x_star = np.linalg.solve(H, b)
    pre = None
    if method == "preconditioned":
        Hinv = np.linalg.inv(H + np.diag(np.diag(H)))  # any SPD preconditioner

        def pre(g, x):
            return Hinv @ g

    res = descent(fun, np.zeros_like(b), method=method, precondition=pre, max_iter=5000,
                  tol=0.0, gtol=1e-9)
    assert res.converged
    # where the objective stops changing in floating point (gd stops there, its gradient
    # near 1e-6), ||x - x*|| <= ||grad|| / lambda_min for a strongly convex quadratic
    gnorm = np.linalg.norm(H @ res.x - b)
    assert gnorm < 1e-5
    assert np.linalg.norm(res.x - x_star) <= gnorm / np.linalg.eigvalsh(H)[0] * (1 + 1e-6)
    h = res.history
    assert {len(v) for v in h.values()} == {res.n_iter}
    assert np.all(np.diff(h["objective"]) <= 0)
    assert h["objective"][0] <= res.f0
    assert np.all(np.diff(h["time"]) >= 0)


def test_cg_beats_gd_on_an_ill_conditioned_quadratic():
    H = np.diag(np.logspace(0, 3, 20))
    b = np.ones(20)

    def fun(x):
        return 0.5 * x @ H @ x - b @ x, H @ x - b

    kw = dict(max_iter=20000, tol=0.0, gtol=1e-8)
    gd = descent(fun, np.zeros(20), method="gd", **kw)
    cg = descent(fun, np.zeros(20), method="cg", **kw)
    assert cg.converged and gd.converged
    assert cg.n_iter < gd.n_iter / 5


def test_exact_newton_preconditioner_takes_one_step():
    fun, H, b = _quadratic()
    res = descent(fun, np.zeros_like(b), method="preconditioned",
                  precondition=lambda g, x: np.linalg.solve(H, g), tol=0.0, gtol=1e-9)
    assert res.history["step"][0] == 1.0
    np.testing.assert_allclose(res.x, np.linalg.solve(H, b), atol=1e-9)
    assert res.n_iter <= 2


def test_maximize_and_matrix_shaped_parameters():
    # maximise -||X - T||^2 over a 3 x 2 matrix
    T = np.arange(6.0).reshape(3, 2)

    def fun(X):
        return -np.sum((X - T) ** 2), -2 * (X - T)

    res = descent(fun, np.zeros((3, 2)), method="cg", maximize=True, tol=0.0, gtol=1e-10)
    np.testing.assert_allclose(res.x, T, atol=1e-8)
    assert np.all(np.diff(res.history["objective"]) >= 0)
    assert res.fun == pytest.approx(0.0, abs=1e-12)


def test_tol_stops_on_relative_decrease():
    res = descent(_rosenbrock, np.array([-1.2, 1.0]), method="gd", tol=1e-2, max_iter=10000)
    obj = [res.f0] + res.history["objective"]
    rel = (obj[-2] - obj[-1]) / abs(obj[-2])
    assert rel <= 1e-2
    assert all((a - b) / abs(a) > 1e-2 for a, b in zip(obj[:-2], obj[1:-1]))


def test_callback_verbose_and_max_iter(capsys):
    seen = []

    def cb(x, info):
        seen.append(info["iteration"])
        return info["iteration"] == 3

    res = descent(_rosenbrock, np.array([-1.2, 1.0]), method="cg", tol=0.0, callback=cb,
                  verbose=2, name="rb")
    assert seen == [1, 2, 3] and res.n_iter == 3
    assert res.message == "stopped by the callback"
    out = capsys.readouterr().out
    assert "[rb] iter    2" in out and "[rb] end after 3 iterations" in out
    res = descent(_rosenbrock, np.array([-1.2, 1.0]), method="gd", tol=0.0, max_iter=7)
    assert res.n_iter == 7 and not res.converged


def test_descent_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        descent(_rosenbrock, np.zeros(2), method="newton")
    with pytest.raises(ValueError, match="needs a callable precondition"):
        descent(_rosenbrock, np.zeros(2), method="preconditioned")
    with pytest.raises(ValueError, match="not finite at the starting point"):
        descent(lambda x: (np.nan, x), np.zeros(2))


def test_jacobi_cg_solves_a_sparse_spd_system_and_keeps_descent():
    """Against scipy's direct solve; each truncated solve still has b^T x > 0; b = 0 gives 0."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import spsolve

    rng = np.random.default_rng(0)
    n = 300
    A = sp.random(n, n, density=0.02, random_state=1)
    A = A + A.T
    M = sp.csr_matrix(sp.diags(np.asarray(abs(A).sum(axis=1)).ravel() + 0.5) - A)
    b = rng.standard_normal(n)
    want = spsolve(sp.csc_matrix(M), b)
    got = jacobi_cg(M.dot, b, M.diagonal(), rtol=1e-12, maxiter=1000)
    assert np.linalg.norm(got - want) <= 1e-10 * np.linalg.norm(want)
    for it in (1, 2, 5):
        x = jacobi_cg(M.dot, b, M.diagonal(), rtol=1e-12, maxiter=it)
        assert b @ x > 0
        assert np.linalg.norm(M @ x - b) < np.linalg.norm(b)
    assert not np.any(jacobi_cg(M.dot, np.zeros(n), M.diagonal()))
