r"""Line-search descent methods shared by graphdr's iterative estimators.

Every iterative estimator of graphdr minimises a smooth objective :math:`f(x)` (or maximises
one, ``maximize=True``) of a parameter array ``x`` of any shape by

.. math::

    x_{k+1} = x_k + \alpha_k p_k, \qquad \langle \nabla f(x_k), p_k \rangle < 0,

with the step :math:`\alpha_k` from a line search satisfying the Wolfe conditions

.. math::

    f(x_k + \alpha p_k) \le f(x_k) + c_1 \alpha \langle g_k, p_k\rangle, \qquad
    \langle g(x_k + \alpha p_k), p_k\rangle \ge c_2 \langle g_k, p_k\rangle

(strong Wolfe: :math:`|\langle g(x_k+\alpha p_k), p_k\rangle| \le c_2 |\langle g_k,
p_k\rangle|`). Search directions (:func:`descent`):

* ``'gd'`` -- steepest descent, :math:`p = -g`;
* ``'cg'`` -- nonlinear conjugate gradients, Polak-Ribiere+ (:math:`\beta =
  \max(0, g_{k+1}^\top (g_{k+1} - g_k) / g_k^\top g_k)`) with a restart whenever the direction
  is not a descent direction; uses the strong Wolfe line search (``c2 = 0.1``);
* ``'preconditioned'`` -- :math:`p = -M^{-1} g` with a user-supplied positive definite
  ``M`` (``precondition(g, x)`` returns :math:`M^{-1} g`); the fixed-point and Laplacian
  directions of discriminative elastic embedding are of this kind. As for a Newton-like
  method the first trial step is 1; later ones are ``min(1, 1.5 * previous step)``, which
  saves evaluations when the preconditioner systematically overestimates the step.

Only steps satisfying the sufficient-decrease (Armijo) condition are ever accepted, so the
recorded objective never increases. The driver records one history entry per iteration
(objective, step, gradient norm, function evaluations, seconds since ``t_start``), stops when
the relative decrease of the objective falls below ``tol``, prints progress when ``verbose``
and calls ``callback`` after each iteration.

Every inner product and norm is summed in NumPy's fixed pairwise order, not by BLAS (whose
``ddot`` sums in a kernel-dependent order that hundreds of iterations amplify), and
:func:`jacobi_cg`, the Jacobi-preconditioned conjugate gradients of the Laplacian direction,
does the same: given the objective's bits, a descent has the same bits under every BLAS
kernel.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_int, check_option, check_positive

__all__ = ["LineSearchResult", "OptimizeResult", "line_search_wolfe", "descent", "jacobi_cg"]


@dataclass
class LineSearchResult:
    """Outcome of :func:`line_search_wolfe`.

    ``success`` is True when the returned step satisfies the requested Wolfe conditions. When
    it is False but ``alpha > 0``, the step still satisfies the sufficient-decrease condition
    (the best such step found); ``alpha == 0`` means no decrease was found.
    """

    alpha: float
    f: float
    g: np.ndarray
    x: np.ndarray
    n_evals: int
    success: bool


@dataclass
class OptimizeResult:
    """Outcome of :func:`descent`.

    Attributes
    ----------
    x : ndarray
        Final iterate.
    fun : float
        Objective at ``x`` (in the caller's sign convention).
    grad : ndarray
        Gradient at ``x`` (caller's sign convention).
    n_iter : int
        Accepted steps (= length of every list in ``history``).
    converged : bool
        True when the tolerance or the gradient test stopped the iteration.
    message : str
    f0 : float
        Objective at the starting point.
    history : dict of lists
        ``'objective'``, ``'step'``, ``'grad_norm'``, ``'n_evals'``, ``'time'``; one entry per
        iteration, after the step.
    n_evals : int
        Objective/gradient evaluations in total.
    """

    x: np.ndarray
    fun: float
    grad: np.ndarray
    n_iter: int
    converged: bool
    message: str
    f0: float
    history: dict = field(default_factory=dict)
    n_evals: int = 0


def _dot(a, b):
    """``<a, b>`` summed in numpy's fixed pairwise order: the same bits under every BLAS kernel
    (BLAS's ``ddot`` sums in a kernel-dependent order, and an iteration amplifies the last
    bit)."""
    return float(np.sum(np.multiply(a, b)))


def _norm(a):
    """``||a||_2`` in the fixed order of :func:`_dot`."""
    return float(np.sqrt(_dot(a, a)))


def jacobi_cg(matvec, b, diagonal, rtol=1e-3, maxiter=100):
    r"""Solve :math:`M x = b` for a symmetric positive definite :math:`M` by conjugate
    gradients preconditioned by its diagonal, from :math:`x_0 = 0`, until
    :math:`\lVert b - M x\rVert \le` ``rtol`` :math:`\lVert b\rVert` or ``maxiter``
    iterations.

    The iterations of scipy's ``cg``, with every inner product in the fixed order of
    :func:`_dot`: given ``matvec``'s bits, ``x``'s bits are the same under every BLAS kernel.
    Every iterate has :math:`b^\top x > 0` (for ``b != 0``), so ``x`` used as
    :math:`M^{-1} g` is a descent direction.
    """
    b = np.asarray(b, dtype=np.float64)
    inverse = 1.0 / np.asarray(diagonal, dtype=np.float64)
    x = np.zeros_like(b)
    stop = rtol * _norm(b)
    if stop == 0.0:
        return x
    r = b.copy()
    z = inverse * r
    p = z.copy()
    rz = _dot(r, z)
    for _ in range(int(maxiter)):
        q = np.asarray(matvec(p), dtype=np.float64).reshape(b.shape)
        curvature = _dot(p, q)
        if not curvature > 0.0:  # breakdown (M not positive definite along p, or p = 0)
            break
        alpha = rz / curvature
        x += alpha * p
        r -= alpha * q
        if _norm(r) <= stop:
            break
        z = inverse * r
        rz, rz_old = _dot(r, z), rz
        p = z + (rz / rz_old) * p
    return x


def _cubic_min(a, fa, da, b, fb, db):
    """Minimiser of the cubic interpolating (a, fa, da), (b, fb, db); None if it fails."""
    d1 = da + db - 3.0 * (fa - fb) / (a - b)
    rad = d1 * d1 - da * db
    if rad < 0:
        return None
    d2 = np.sign(b - a) * np.sqrt(rad)
    denom = db - da + 2.0 * d2
    if denom == 0:
        return None
    t = b - (b - a) * (db + d2 - d1) / denom
    return t if np.isfinite(t) else None


def line_search_wolfe(
    fun, x, p, f0, g0, *, alpha0=1.0, c1=1e-4, c2=0.9, strong=False, max_evals=40,
    alpha_max=1e12,
):
    r"""Step length satisfying the (weak or strong) Wolfe conditions along ``p``.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (f, g)``, objective and gradient (``g`` shaped like ``x``).
    x, p : ndarray
        Current point and search direction (any shape, the same for both).
    f0 : float
        ``f(x)``.
    g0 : ndarray
        Gradient at ``x``; ``<g0, p>`` must be negative.
    alpha0 : float
        First trial step.
    c1, c2 : float
        Wolfe constants, ``0 < c1 < c2 < 1``.
    strong : bool
        Strong Wolfe conditions (bracketing and zoom with cubic interpolation, Nocedal and
        Wright, Algorithms 3.5-3.6). Otherwise the weak Wolfe conditions by doubling and
        bisection (Lewis and Overton), with quadratic-interpolation backtracking while no
        step has satisfied the sufficient-decrease condition.
    max_evals : int
        Largest number of evaluations of ``fun``.
    alpha_max : float
        Largest step tried.

    Returns
    -------
    LineSearchResult
    """
    d0 = _check_wolfe(c1, c2, g0, p)
    evals = 0
    best = [0.0, f0, g0, x]  # best Armijo point found so far (alpha=0: the start)

    def phi(a):
        nonlocal evals
        evals += 1
        xa = x + a * p
        fa, ga = fun(xa)
        fa = float(fa)
        if not np.isfinite(fa):
            fa = np.inf
        if fa <= f0 + c1 * a * d0 and fa < best[1]:
            best[:] = [a, fa, ga, xa]
        return fa, _dot(ga, p) if np.isfinite(fa) else np.nan, ga, xa

    def done(a, fa, ga, xa):
        return LineSearchResult(a, fa, ga, xa, evals, True)

    def fallback():
        a, fa, ga, xa = best
        return LineSearchResult(a, fa, ga, xa, evals, False)

    if not strong:
        return _weak_wolfe(phi, float(alpha0), f0, d0, c1, c2, evals, max_evals, alpha_max,
                           done, fallback)
    return _bracket(phi, float(alpha0), f0, d0, c1, c2, evals, max_evals, alpha_max, best,
                    done, fallback)


def _check_wolfe(c1, c2, g0, p):
    """The slope ``<g0, p>`` at the start, once the Wolfe constants and the direction (a
    descent direction) are checked."""
    if not 0 < c1 < c2 < 1:
        raise ValueError(f"Wolfe constants need 0 < c1 < c2 < 1; got c1={c1}, c2={c2}.")
    d0 = _dot(g0, p)
    if not d0 < 0:
        raise ValueError(
            f"The search direction is not a descent direction (<g, p> = {d0:.3e} >= 0)."
        )
    return d0


def _weak_wolfe(phi, a, f0, d0, c1, c2, evals, max_evals, alpha_max, done, fallback):
    """Weak Wolfe search by doubling and bisection (Lewis and Overton), from the trial step
    ``a``, backtracking by quadratic interpolation while no step has decreased enough."""
    lo, hi = 0.0, np.inf
    n = evals
    while n < max_evals:
        fa, da, ga, xa = phi(a)
        n += 1
        if not fa <= f0 + c1 * a * d0:  # not Armijo
            hi = a
            if lo == 0.0 and np.isfinite(fa):
                # backtrack to the minimiser of the quadratic through f0, d0 and fa,
                # safeguarded to [0.1, 0.5] times the failed step
                q = -d0 * a * a / (2.0 * (fa - f0 - d0 * a))
                a = min(max(q, 0.1 * a), 0.5 * a)
                continue
        elif not da >= c2 * d0:  # not the (weak) curvature condition
            lo = a
        else:
            return done(a, fa, ga, xa)
        a = 0.5 * (lo + hi) if np.isfinite(hi) else min(2.0 * lo, alpha_max)
        if hi - lo <= 1e-16 * max(hi, 1.0) or (lo >= alpha_max):
            break
    return fallback()


def _bracket(phi, a, f0, d0, c1, c2, evals, max_evals, alpha_max, best, done, fallback):
    """Bracketing phase of the strong Wolfe search (Nocedal and Wright, Algorithm 3.5), from
    the trial step ``a``, doubling it until :func:`_zoom` has an interval to shrink."""
    a_prev, f_prev, d_prev = 0.0, f0, d0
    first = True
    n = evals
    while n < max_evals:
        fa, da, ga, xa = phi(a)
        n += 1
        if not fa <= f0 + c1 * a * d0 or (not first and fa >= f_prev):
            return _zoom(phi, a_prev, f_prev, d_prev, a, fa, da, f0, d0, c1, c2, n,
                         max_evals, best, done, fallback)
        if abs(da) <= -c2 * d0:
            return done(a, fa, ga, xa)
        if da >= 0:
            return _zoom(phi, a, fa, da, a_prev, f_prev, d_prev, f0, d0, c1, c2, n,
                         max_evals, best, done, fallback)
        a_prev, f_prev, d_prev = a, fa, da
        if a >= alpha_max:
            break
        a = min(2.0 * a, alpha_max)
        first = False
    return fallback()


def _zoom(phi, a_lo, f_lo, d_lo, a_hi, f_hi, d_hi, f0, d0, c1, c2, evals, max_evals, best,
          done, fallback):
    """Zoom phase of the strong Wolfe search (Nocedal and Wright, Algorithm 3.6)."""
    n = evals
    while n < max_evals:
        lo, hi = min(a_lo, a_hi), max(a_lo, a_hi)
        width = hi - lo
        if width <= 1e-16 * max(hi, 1.0):
            break
        a = None
        if np.isfinite(f_hi) and np.isfinite(d_hi):
            a = _cubic_min(a_lo, f_lo, d_lo, a_hi, f_hi, d_hi)
        if a is None or not (lo + 0.1 * width <= a <= hi - 0.1 * width):
            a = 0.5 * (a_lo + a_hi)
        fa, da, ga, xa = phi(a)
        n += 1
        if fa > f0 + c1 * a * d0 or fa >= f_lo:
            a_hi, f_hi, d_hi = a, fa, da
        else:
            if abs(da) <= -c2 * d0:
                return done(a, fa, ga, xa)
            if da * (a_hi - a_lo) >= 0:
                a_hi, f_hi, d_hi = a_lo, f_lo, d_lo
            a_lo, f_lo, d_lo = a, fa, da
    return fallback()


_METHODS = {"gd", "cg", "preconditioned"}


def descent(
    fun, x0, *, method="gd", precondition=None, maximize=False, max_iter=1000, tol=1e-3,
    gtol=1e-12, c1=1e-4, c2=None, max_evals=40, verbose=0, callback=None, name="descent",
    t_start=None, print_fn=print,
):
    r"""Minimise (or maximise) a smooth function by line-search descent.

    .. math::

        x_{k+1} = x_k + \alpha_k p_k,\quad p_k \in \{-g_k,\ -g_k + \beta_k p_{k-1},\
        -M^{-1} g_k\},

    with :math:`\alpha_k` satisfying the Wolfe conditions (see the module docstring).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (f, g)``: objective and its gradient, ``g`` shaped like ``x``.
    x0 : ndarray
        Starting point (any shape; not modified).
    method : {'gd', 'cg', 'preconditioned'}
        Search direction: steepest descent, Polak-Ribiere+ conjugate gradients, or
        ``-precondition(g, x)``.
    precondition : callable or None
        ``precondition(g, x) -> M^{-1} g`` for ``method='preconditioned'``; ``M`` must be
        symmetric positive definite, so that the direction is a descent direction.
    maximize : bool
        Maximise ``fun`` instead (gradient ascent; ``fun`` keeps its own sign, the history
        records its values).
    max_iter : int
        Largest number of iterations (accepted steps).
    tol : float
        Stop when the relative decrease of the objective over one iteration,
        :math:`(f_k - f_{k+1}) / \max(|f_k|, \text{tiny})`, is at most ``tol``.
    gtol : float
        Also stop when the gradient norm is at most ``gtol`` (absolute).
    c1, c2 : float
        Wolfe constants. ``c2=None`` means 0.1 for ``'cg'`` (strong Wolfe) and 0.9 otherwise
        (weak Wolfe).
    max_evals : int
        Evaluation budget of one line search.
    verbose : int
        0: silent; 1: every 10th iteration and the end; 2 or more: every iteration.
    callback : callable or None
        ``callback(x, info)`` after every iteration; ``info`` holds ``iteration``,
        ``objective``, ``step``, ``grad_norm`` and ``time``. Returning True stops the run.
    name : str
        Prefix of the progress lines.
    t_start : float or None
        ``time.perf_counter()`` value the recorded times count from (default: the call).
    print_fn : callable
        Where progress lines go.

    Returns
    -------
    OptimizeResult
    """
    max_iter, tol, strong, c2 = _descent_options(method, max_iter, tol, precondition, c2)
    t_start = time.perf_counter() if t_start is None else t_start
    sign = -1.0 if maximize else 1.0
    f_signed = _signed(fun, sign)
    x, f, g, gnorm = _start(f_signed, x0, sign, name, verbose, print_fn)
    f0, n_evals, it, previous = f, 1, 0, None  # previous: the last step's (p, g, alpha, slope)
    history = {"objective": [], "step": [], "grad_norm": [], "n_evals": [], "time": []}
    converged = gnorm <= gtol
    message = ("gradient norm below gtol at the start" if converged
               else "maximum number of iterations reached")
    while not converged and it < max_iter:
        p, slope = _direction(method, x, g, gnorm, previous, precondition)
        if not slope < 0:
            message = f"no descent direction (<g, p> = {slope:.3e})"
            break
        alpha0 = _first_step(method, x, p, slope, previous)
        ls = line_search_wolfe(f_signed, x, p, f, g, alpha0=alpha0, c1=c1, c2=c2, strong=strong,
                               max_evals=max_evals)
        n_evals += ls.n_evals
        if ls.alpha <= 0:  # no further progress is possible along descent directions
            converged, message = True, "line search found no decrease"
            break
        previous, f_old = (p, g, ls.alpha, slope), f
        x, f, g = ls.x, ls.f, np.asarray(ls.g, dtype=np.float64)
        gnorm, it, elapsed = _norm(g), it + 1, time.perf_counter() - t_start
        info = _record(history, it, sign * f, ls, gnorm, elapsed)
        if verbose and (verbose >= 2 or it % 10 == 0 or it == 1):
            print_fn(_progress_line(name, info, ls))
        converged, message = _stop_test(f_old, f, gnorm, tol, gtol, message)
        if callback is not None and callback(x, info):
            message = "stopped by the callback"
            break
    if verbose:
        print_fn(f"[{name}] end after {it} iterations ({n_evals} evaluations, "
                 f"{time.perf_counter() - t_start:.2f} s): objective {sign * f:.6e}; {message}")
    return OptimizeResult(
        x=x, fun=sign * f, grad=sign * g, n_iter=it, converged=converged, message=message,
        f0=sign * f0, history=history, n_evals=n_evals,
    )


def _descent_options(method, max_iter, tol, precondition, c2):
    """The checked ``max_iter`` and ``tol`` of :func:`descent`, whether its line search is the
    strong Wolfe one (``'cg'``), and ``c2`` (its default: 0.1 strong, 0.9 weak)."""
    check_option(method, "method", _METHODS)
    max_iter = check_int(max_iter, "max_iter", min_value=0)
    tol = check_positive(tol, "tol", allow_zero=True)
    if method == "preconditioned" and not callable(precondition):
        raise ValueError("method='preconditioned' needs a callable precondition(g, x).")
    strong = method == "cg"
    if c2 is None:
        c2 = 0.1 if strong else 0.9
    return max_iter, tol, strong, c2


def _signed(fun, sign):
    """``fun`` times ``sign`` (-1 to maximise): objective as a float, gradient as float64."""

    def f_signed(x):
        f, g = fun(x)
        return sign * float(f), sign * np.asarray(g, dtype=np.float64)

    return f_signed


def _start(f_signed, x0, sign, name, verbose, print_fn):
    """The starting point (a float64 copy of ``x0``), ``f_signed``'s objective (checked to be
    finite) and gradient there and the gradient's norm; a progress line when ``verbose``."""
    x = np.array(x0, dtype=np.float64, copy=True)
    f, g = f_signed(x)
    if not np.isfinite(f):
        raise ValueError(f"{name}: the objective is not finite at the starting point ({f}).")
    gnorm = _norm(g)
    if verbose:
        print_fn(f"[{name}] start: objective {sign * f:.6e}, |grad| {gnorm:.3e}")
    return x, f, g, gnorm


def _direction(method, x, g, gnorm, previous, precondition):
    """One iteration's search direction ``p`` of ``method`` and its slope ``<g, p>``;
    ``previous``: the last step's ``(p, g, alpha, slope)``, None at the first."""
    if method == "gd":
        p = -g
    elif method == "cg":
        if previous is None:
            p = -g
        else:
            p_prev, g_prev = previous[0], previous[1]
            beta = max(0.0, _dot(g, g - g_prev) / max(_dot(g_prev, g_prev), 1e-300))
            p = -g + beta * p_prev
            if _dot(g, p) >= -1e-12 * gnorm * _norm(p):
                p = -g  # restart
    else:
        p = -np.asarray(precondition(g, x), dtype=np.float64).reshape(x.shape)
    return p, _dot(g, p)


def _first_step(method, x, p, slope, previous):
    """The line search's first trial step: 1, then ``min(1, 1.5 alpha_prev)`` for
    ``'preconditioned'``; else ``1e-2 max(|x|, 1) / |p|``, then the last step scaled by the
    ratio of the slopes (at most 10 times the last step)."""
    if method == "preconditioned":
        return 1.0 if previous is None else min(1.0, 1.5 * previous[2])
    if previous is None:
        return max(_norm(x), 1.0) * 1e-2 / _norm(p)
    alpha_prev, slope_prev = previous[2], previous[3]
    alpha0 = alpha_prev * slope_prev / slope
    return min(alpha0, 10.0 * alpha_prev)


def _record(history, it, objective, ls, gnorm, elapsed):
    """Append iteration ``it`` (after its step ``ls``) to ``history``; returns what the
    callback is told of it."""
    history["objective"].append(objective)
    history["step"].append(float(ls.alpha))
    history["grad_norm"].append(gnorm)
    history["n_evals"].append(int(ls.n_evals))
    history["time"].append(elapsed)
    return dict(iteration=it, objective=objective, step=float(ls.alpha), grad_norm=gnorm,
                time=elapsed)


def _progress_line(name, info, ls):
    """The progress line of an iteration (``info`` of :func:`_record`, step ``ls``)."""
    return (
        f"[{name}] iter {info['iteration']:4d}: objective {info['objective']:.6e}, step "
        f"{ls.alpha:.3e}, |grad| {info['grad_norm']:.3e}, evals {ls.n_evals}, "
        f"{info['time']:.2f} s" + ("" if ls.success else " (Wolfe not met; Armijo step taken)")
    )


def _stop_test(f_old, f, gnorm, tol, gtol, message):
    """``(converged, message)`` after a step from ``f_old`` to ``f``: the relative decrease at
    most ``tol``, or the gradient norm at most ``gtol``; else ``(False, message)``."""
    rel = (f_old - f) / max(abs(f_old), np.finfo(np.float64).tiny)
    if rel <= tol:
        return True, f"relative decrease {rel:.2e} <= tol"
    if gnorm <= gtol:
        return True, "gradient norm below gtol"
    return False, message
