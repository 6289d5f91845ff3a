r"""The heavy-tailed map: t-SNE's objective with a Cauchy kernel of tail :math:`\alpha`, its
repulsion summed over all pairs on a grid, the labels as edits of the input affinities.

.. math::

    C(Y) = \sum_{i \ne j} p_{ij}\, \alpha \log\Big(1 + \frac{\lVert y_i - y_j\rVert^2}{\alpha}
    \Big) + \log Z, \qquad
    Z = \sum_{i \ne j} \Big(1 + \frac{\lVert y_i - y_j\rVert^2}{\alpha}\Big)^{-\alpha},

the Kullback-Leibler divergence :math:`\mathrm{KL}(P \,\Vert\, Q)` of
:math:`q_{ij} = k_{ij} / Z` from the input affinities :math:`p_{ij}` up to a constant
(:math:`\alpha = 1`: t-SNE; :math:`\alpha < 1`: heavier tails, finer clusters, Kobak et al.
2019). Its gradient,

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_j p_{ij} w_{ij} (y_i - y_j)
    + \frac{2}{Z} \nabla F(y_i), \qquad w_{ij} = \Big(1 + \frac{\lVert y_i - y_j\rVert^2}
    {\alpha}\Big)^{-1},

takes the attraction from the sparse :math:`P` (``O(nk)``) and the repulsion from the field
:math:`F` of :func:`graphdr.maps.cauchy_field.cauchy_field` (``O(n + G \log G)``, no pair of
points formed); a small map sums it exactly over every pair
(:func:`~graphdr.maps.cauchy_field.exact_cauchy_field`) at the steps where that costs less
than the grid (:meth:`KLObjective.exact_here`: the grid's cost grows with the map's span, the
exact sum's with the square of the samples).

Affinities (:func:`perplexity_affinities`): each sample's ``3 perplexity`` nearest input
neighbours weighted :math:`p_{j|i} \propto e^{-\beta_i d_{ij}^2}`, :math:`\beta_i` set so that
the entropy of :math:`p_{\cdot|i}` is :math:`\log(\text{perplexity})`, symmetrised
:math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2n`. The labels edit them
(:func:`labelled_affinities`): a pair of labelled samples of different classes keeps the weight
``cross_weight`` of its affinity (1: the labels are not used; 0: no attraction across classes),
then :math:`P` is normalised again. Unlabelled samples keep every affinity.

The descent (:func:`optimize`) is t-SNE's: early exaggeration of the attraction, momentum and
per-coordinate gains, a learning rate of :math:`n / (4 \cdot \text{exaggeration})` (Belkina et
al. 2019, with the gradient's factor 4); no randomness: the same start gives the same map.
Every sum runs in a fixed order and the kernels use exactly rounded operations only, so the same
data give the same bits on every run, thread count and CPU.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from .cauchy_field import MAX_NODES_PER_AXIS, _exp, _log1p, cauchy_field, exact_cauchy_field
from .inputs import input_neighbours
from .start import _principal_plane

#: the grid spacing of the repulsion's field (map units; t-SNE's maps span tens to hundreds)
FIELD_SPACING = 0.5
#: iterations of ``max_iter='auto'``: t-SNE's 250 with the attraction exaggerated, then 500
CAUCHY_ITER, CAUCHY_EARLY_ITER, CAUCHY_EXAGGERATION = 750, 250, 12.0
#: the standard deviation of the start's first axis (openTSNE's)
CAUCHY_START_STD = 1e-4
#: the exact field costs about ``n^2`` pair operations and the grid's about
#: ``EXACT_PER_NODE`` of them per grid node (``(span / spacing)^2``) plus ``EXACT_FIXED``
#: (measured on two cores: 5.5 ns a pair; 0.12 us a node and 1.5 ms a field)
EXACT_PER_NODE, EXACT_FIXED = 22.0, 270_000.0
#: bisection steps of each sample's precision, at most
_BISECTION_STEPS = 64
#: a sample's bisection stops once its entropy is this close to log(perplexity) (nats)
ENTROPY_TOL = 1e-10


def perplexity_affinities(dist, ind, perplexity):
    r"""The symmetric affinities :math:`P` (``n x n`` sparse, sum 1, zero diagonal) of samples
    whose nearest neighbours are ``ind`` at input distances ``dist`` (``n x k``, each row
    without the sample itself), each row's precision set by bisection so that its entropy is
    :math:`\log(\text{perplexity})` (module docstring; at most :math:`\log k`) to within
    :data:`ENTROPY_TOL`, each row stopped there."""
    dist = np.asarray(dist, dtype=np.float64)
    ind = np.asarray(ind)
    n, k = ind.shape
    d2 = dist * dist
    d2 = d2 - d2[:, :1]  # (the nearest at 0: no underflow of a whole row)
    target = np.log(min(float(perplexity), float(k)))
    lo, hi = np.zeros(n), np.full(n, np.inf)
    scale = np.maximum(d2[:, -1], np.finfo(float).tiny)
    beta = 1.0 / scale  # (starting from the neighbourhood's own scale)
    rows = np.arange(n)  # the rows whose entropy is not yet within ENTROPY_TOL of the target
    for _ in range(_BISECTION_STEPS):
        b, d = beta[rows], d2[rows]
        W = _exp(-d * b[:, None])
        S = W.sum(axis=1)
        H = _log1p(S - 1.0) + b * np.sum(d * W, axis=1) / S  # (S >= 1: the nearest is 1)
        going = np.abs(H - target) > ENTROPY_TOL
        rows, b, H = rows[going], b[going], H[going]
        if not len(rows):
            break
        too_flat = H > target  # entropy too high: sharpen
        lo[rows] = np.where(too_flat, b, lo[rows])
        hi[rows] = np.where(too_flat, hi[rows], b)
        beta[rows] = np.where(np.isinf(hi[rows]), b * 2.0, 0.5 * (lo[rows] + hi[rows]))
    W = _exp(-d2 * beta[:, None])
    W /= W.sum(axis=1, keepdims=True)
    rows = np.repeat(np.arange(n), k)
    P = sp.csr_matrix((W.ravel(), (rows, ind.ravel())), shape=(n, n))
    P = P + P.T
    P.sum_duplicates()
    P.sort_indices()
    P.data /= 2.0 * n
    return P


def labelled_affinities(P, y_enc, cross_weight):
    """``P`` with the affinity of every pair of labelled samples of different classes times
    ``cross_weight``, normalised to sum 1 again (unlabelled samples: -1, every affinity kept)."""
    P = sp.csr_matrix(P, copy=True)
    y = np.asarray(y_enc)
    rows = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
    a, b = y[rows], y[P.indices]
    cross = (a >= 0) & (b >= 0) & (a != b)
    P.data[cross] *= float(cross_weight)
    P.eliminate_zeros()
    total = P.data.sum()
    if total > 0:
        P.data /= total
    return P


class KLObjective:
    r""":math:`C(Y)` (module docstring) of the affinities ``P`` (symmetric, sum 1) with tail
    ``alpha``; :meth:`value_grad` at an exaggeration of the attraction."""

    def __init__(self, P, alpha=1.0, spacing=FIELD_SPACING):
        full = sp.csr_matrix(P, copy=True)
        full.sum_duplicates()
        full.sort_indices()
        rows = np.repeat(np.arange(full.shape[0]), np.diff(full.indptr))
        upper = rows < full.indices  # each pair once (P is symmetric)
        self.i, self.j, self.p = rows[upper], full.indices[upper], full.data[upper]
        # the pairs as the upper triangle U of the symmetric matrix (its entries in pair order:
        # a step writes them in place), S = U + U^T applied as two products
        n = full.shape[0]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.i, minlength=n), out=indptr[1:])
        self.upper = sp.csr_matrix((np.empty(len(self.i)), self.j, indptr), shape=(n, n))
        self.n = full.shape[0]
        self.alpha = float(alpha)
        self.spacing = float(spacing)

    def exact_here(self, Y):
        """Whether the exact sum over every pair costs less than the grid at the map ``Y``
        (:data:`EXACT_PER_NODE`; the grid has at most ``MAX_NODES_PER_AXIS`` nodes per axis);
        the choice follows the map, so the same map chooses the same."""
        span = min(float(np.max(np.ptp(Y, axis=0))) / self.spacing, MAX_NODES_PER_AXIS)
        return float(self.n) ** 2 <= EXACT_PER_NODE * span * span + EXACT_FIXED

    def _buffers(self):
        """Three work arrays of one value per pair, allocated at the first step."""
        if getattr(self, "_work", None) is None:
            self._work = tuple(np.empty(len(self.i)) for _ in range(3))
        return self._work

    def value_grad(self, Y, exaggeration=1.0, value=True):
        """``(C, dC/dY)`` at the map ``Y`` (``n x 2``), the attraction times ``exaggeration``;
        ``C`` is None unless ``value``."""
        i, j, a = self.i, self.j, self.alpha
        x, y = np.ascontiguousarray(Y[:, 0]), np.ascontiguousarray(Y[:, 1])
        dx, dy, r2 = self._buffers()  # (one allocation per fit: no new pages each step)
        np.take(x, i, out=dx)
        dx -= np.take(x, j, out=r2)
        np.take(y, i, out=dy)
        dy -= np.take(y, j, out=r2)
        np.multiply(dx, dx, out=r2)
        dy *= dy
        r2 += dy
        # the attraction 4 sum_j p_ij w_ij (y_i - y_j) = 4 (deg_i y_i - (S Y)_i), S the
        # symmetric matrix of p_ij w_ij
        pw, denominator = dy, dx
        np.divide(r2, a, out=denominator)
        denominator += 1.0
        np.multiply(self.p, 4.0 * exaggeration, out=pw)
        pw /= denominator
        U = self.upper
        U.data = pw
        V = np.column_stack([Y, np.ones(self.n)])  # (S Y and the degrees at once)
        SY = U @ V
        SY += U.T @ V
        grad = SY[:, 2:] * Y - SY[:, :2]
        F, G = (exact_cauchy_field(Y, a) if self.exact_here(Y) else
                cauchy_field(Y, alpha=a, spacing=self.spacing))
        Z = float(np.sum(F - 1.0))
        grad += (2.0 / Z) * G
        if not value:
            return None, grad
        # sum_{i != j} p_ij a log(1 + r2 / a): each pair twice
        log_z = float(_log1p(np.array([Z - 1.0]))[0]) if Z >= 1.0 else float(np.log(Z))
        return exaggeration * 2.0 * a * float(np.sum(self.p * _log1p(r2 / a))) + log_z, grad


def optimize(objective, Y0, *, n_iter=750, early_iter=250, exaggeration=12.0,
             learning_rate="auto", callback=None, every=50):
    """t-SNE's descent of ``objective`` (:class:`KLObjective`) from ``Y0``: ``early_iter``
    iterations with the attraction times ``exaggeration`` and momentum 0.5, then momentum 0.8;
    per-coordinate gains (+0.2 where the step keeps its sign, x0.8 where it flips, at least
    0.01); the map centred after each step. ``callback(Y, iteration, objective)`` after each
    step (``objective``: None except every ``every`` iterations and at the last, where it is
    computed; its value costs as much as its gradient and the descent needs only the
    gradient); returning True stops. Returns ``(Y, history, n_iter)``: the last map,
    ``(iteration, objective)`` where it was computed, and the iterations run."""
    Y = np.array(Y0, dtype=np.float64, copy=True)
    n = len(Y)
    rate = max(n / (4.0 * exaggeration), 50.0) if learning_rate == "auto" else float(learning_rate)
    update = np.zeros_like(Y)
    gains = np.ones_like(Y)
    history = []
    it = -1
    for it in range(int(n_iter)):
        early = it < early_iter
        last = it == int(n_iter) - 1
        value, grad = objective.value_grad(Y, exaggeration if early else 1.0,
                                           value=last or it % every == 0)
        if value is not None:
            history.append((it, value))
        same = update * grad < 0  # the step keeps its sign (update and -grad agree)
        gains = np.where(same, gains + 0.2, gains * 0.8)
        np.maximum(gains, 0.01, out=gains)
        update *= 0.5 if early else 0.8
        update -= rate * gains * grad
        Y += update
        Y -= Y.mean(axis=0)
        if callback is not None and callback(Y, it, value):
            break
    return Y, history, it + 1


def descent_inputs(Xs, perplexity, neighbors):
    """``(P, Y0)``: the perplexity affinities of the rows ``Xs``' ``3 perplexity`` input
    neighbours (``neighbors``: 'exact' or 'approx') and the start on their principal plane
    scaled to :data:`CAUCHY_START_STD`: what the heavy-tailed maps of the same rows share
    whatever their labels' separation."""
    k = max(1, min(len(Xs) - 1, int(3 * perplexity)))
    dist, ind = input_neighbours(Xs, k, neighbors)
    P = perplexity_affinities(dist, ind, perplexity)
    Y0 = _principal_plane(Xs)
    spread = float(np.std(Y0[:, 0]))
    return P, (Y0 * (CAUCHY_START_STD / spread) if spread > 0 else Y0)


def descend_heavy_tailed(Xs, ys, order, *, n_iter, perplexity, separation, tail, neighbors,
                         verbose=0, callback=None, t0=None, early_iter=CAUCHY_EARLY_ITER,
                         inputs=None):
    """The heavy-tailed map of the rows ``Xs`` (scaled features) with encoded labels ``ys``
    (-1: none), both in the fit's sorted ``order``: the affinities of their ``3 perplexity``
    input neighbours (``neighbors``: 'exact' or 'approx'), the labels' edit (``separation``,
    :func:`labelled_affinities` with ``cross_weight = 1 - separation``), a start on the
    principal plane scaled to :data:`CAUCHY_START_STD`, :func:`optimize` for ``n_iter``
    iterations (the first ``early_iter`` exaggerated). ``callback(Y, info)`` sees the map in
    the caller's order. Returns the descent's result (an ``OptimizeResult``, rows in the
    sorted order). ``inputs``: :func:`descent_inputs` of these rows, computed already (the
    trial maps of one fold at several separations; ``Xs`` then unused), else computed
    here."""
    from scipy.optimize import OptimizeResult

    t0 = time.perf_counter() if t0 is None else t0
    n = len(ys)
    P, Y0 = descent_inputs(Xs, perplexity, neighbors) if inputs is None else inputs
    if np.any(ys >= 0) and separation > 0:
        P = labelled_affinities(P, ys, 1.0 - separation)
    objective = KLObjective(P, tail)
    unsort = np.empty_like(order)
    unsort[order] = np.arange(n)
    last = {"objective": np.nan}
    history = {"objective": [], "iteration": [], "time": []}

    def step(Y, it, value):
        if value is not None:
            last["objective"] = value
            history["objective"].append(value)
            history["iteration"].append(it)
            history["time"].append(time.perf_counter() - t0)
            if verbose and (it % verbose == 0 or it == n_iter - 1):
                print(f"[DEEMap] iteration {it}: objective {value:.6e}")
        info = {"iteration": it + 1, "objective": last["objective"],
                "time": time.perf_counter() - t0}
        return bool(callback is not None and callback(Y[unsort], info))

    Y, _, done = optimize(objective, Y0, n_iter=n_iter, early_iter=min(early_iter, n_iter),
                          exaggeration=CAUCHY_EXAGGERATION, callback=step)
    f0 = history["objective"][0] if history["objective"] else np.nan
    # (a fixed schedule: it converged when it ran to its end)
    return OptimizeResult(x=Y, fun=last["objective"], f0=f0, history=history,
                          n_iter=int(done), converged=bool(done == n_iter))
