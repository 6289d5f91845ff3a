r"""Sampled pairs: unbiased estimates of sums over all pairs of samples in ``O(n m)`` time.

The neighbour embeddings (:class:`~graphdr.neighbor_embedding.DEE`, :class:`~graphdr.neighbor_embedding.DSNE`,
:class:`~graphdr.neighbor_embedding.ElasticEmbedding`) and the QMI ascent
(:class:`~graphdr.qmi.QMIProjection`) minimise or maximise sums over all ordered pairs,

.. math::

    F = \sum_{n} \sum_{m \in G(n)} f(n, m),

where the group :math:`G(n)` of partners of sample ``n`` is either the other samples of its class
(``'same'``), the samples of the other classes (``'different'``) or all other samples
(``'all'``). Their exact evaluation costs :math:`O(n^2)` per iteration. A :class:`PairSample`
replaces each inner sum by an average over ``m`` partners drawn uniformly (with replacement,
once per fit) from :math:`G(n)`,

.. math::

    \hat F = \sum_n \frac{|G(n)|}{m} \sum_{k=1}^{m} f(n, m_k), \qquad
    \mathbb E\,\hat F = F,

and enumerates :math:`G(n)` exactly (weight 1) when :math:`|G(n)| \le m`, so that
``m >= n - 1`` gives the exact sum. The sample is fixed during a fit: :math:`\hat F` is a
deterministic function of the embedding and its gradient is the exact gradient of
:math:`\hat F`, so line searches and preconditioners work unchanged. Each term is an
independent draw, so the relative standard error of :math:`\hat F` (and of each entry of its
gradient) is of order :math:`(\text{effective number of terms})^{-1/2}`; for a linear
projection with ``d x D`` parameters fitted on ``n m`` pairs that is far below the
statistical error of the data themselves (measured: ``docs/history.rst`` (sampled pairs)).

Storage: partners are kept as one ``(rows, m)`` index matrix per class (the row of a term is
implicit), i.e. ``4 n m`` bytes per group; evaluations go over row chunks of at most
:data:`CHUNK_PAIRS` terms.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

__all__ = [
    "PairSample", "sample_pairs", "resolve_method", "check_n_partners", "term_slices",
    "sq_distances",
]

#: terms per evaluation chunk (bounds the temporary ``chunk x d`` arrays)
CHUNK_PAIRS = 1 << 18
#: floats per temporary ``rows x m x D`` array of input-space differences
CHUNK_FLOATS = 1 << 22
#: ``method='auto'`` sums over all pairs up to this many samples, and samples pairs above it
AUTO_EXACT_MAX = 5000
_GROUPS = ("same", "different", "all")


@dataclass
class _Block:
    rows: np.ndarray  # (k,) sample indices, distinct
    partners: np.ndarray  # (k, m) partner indices
    weight: float  # |G(n)| / m for sampled rows, 1 for enumerated ones


class PairSample:
    """A fixed set of (row, partner) terms with estimator weights, stored in blocks.

    Build with :func:`sample_pairs`. Iterating yields ``(rows, partners, weight)`` chunks:
    ``rows`` of shape ``(k,)`` (distinct), ``partners`` of shape ``(k, m)`` and the scalar
    weight of their terms.
    """

    def __init__(self, blocks, n_samples, group):
        self.blocks = blocks
        self.n_samples = int(n_samples)
        self.group = group

    @property
    def n_terms(self):
        """Number of stored (row, partner) terms."""
        return int(sum(b.partners.size for b in self.blocks))

    @property
    def nbytes(self):
        return int(sum(b.partners.nbytes + b.rows.nbytes for b in self.blocks))

    def __iter__(self):
        for b in self.blocks:
            k, m = b.partners.shape
            if k == 0 or m == 0:
                continue
            step = max(1, CHUNK_PAIRS // m)
            for s in range(0, k, step):
                yield b.rows[s : s + step], b.partners[s : s + step], b.weight

    def chunk_arrays(self, fn):
        """``[fn(rows, partners) for each chunk]``: per-term quantities computed once per fit."""
        return [fn(rows, partners) for rows, partners, _w in self]

    def evaluate(self, Y, term_fn, n_out=1):
        r"""Weighted sums of per-term functions of the embedded distances, with gradients.

        For each chunk ``j``, ``term_fn(j, rows, partners, D2)`` receives the squared distances
        :math:`D2_t = \lVert y_{r_t} - y_{p_t}\rVert^2` (``k x m``) and returns two sequences of
        ``n_out`` arrays: the values :math:`f^{(q)}_t` and their derivatives
        :math:`\partial f^{(q)}_t / \partial D2_t` (or None for no gradient). Returns
        ``(totals, grads)``: :math:`\hat F^{(q)} = \sum_t w_t f^{(q)}_t` (``n_out`` floats)
        and :math:`\partial \hat F^{(q)} / \partial Y` (``n_out x n x d``; None without
        gradient).
        """
        n, d = Y.shape
        cols = [np.ascontiguousarray(Y[:, a]) for a in range(d)]
        totals = np.zeros(n_out)
        grads = None
        for j, (rows, partners, w) in enumerate(self):
            # per coordinate: 1-D gathers are much faster than gathering k x m x d rows
            Delta = [c[rows][:, None] - c[partners] for c in cols]
            D2 = Delta[0] * Delta[0]
            for Da in Delta[1:]:
                D2 += Da * Da
            values, derivs = term_fn(j, rows, partners, D2)
            for q in range(n_out):
                totals[q] += w * float(np.sum(values[q]))
            if derivs is None:
                continue
            if grads is None:
                grads = np.zeros((n_out, n, d))
            flat = partners.ravel().astype(np.intp, copy=False)
            for q in range(n_out):
                # d D2_t / d y_row = 2 Delta_t, d D2_t / d y_partner = -2 Delta_t
                coef = (2.0 * w) * derivs[q]
                for a in range(d):
                    F = coef * Delta[a]
                    grads[q, rows, a] += F.sum(axis=1)
                    grads[q, :, a] -= np.bincount(flat, F.ravel(), minlength=n)
        return totals, grads


def term_slices(k, m, width):
    """Row slices of a ``k x m`` chunk such that ``rows x m x width`` <= :data:`CHUNK_FLOATS`."""
    step = max(1, CHUNK_FLOATS // max(m * width, 1))
    return [slice(s, min(s + step, k)) for s in range(0, k, step)]


def sq_distances(Z, rows, partners):
    """``||z_r - z_p||^2`` for every term of a chunk (``k x m``), in bounded memory."""
    out = np.empty(partners.shape)
    for sl in term_slices(*partners.shape, Z.shape[1]):
        Delta = Z[rows[sl]][:, None, :] - Z[partners[sl]]
        out[sl] = np.einsum("kmr,kmr->km", Delta, Delta)
    return out


def check_n_partners(n_partners):
    """``n_partners`` must be an integer >= 1."""
    if (not isinstance(n_partners, numbers.Integral) or isinstance(n_partners, bool)
            or n_partners < 1):
        raise ValueError(
            f"n_partners must be an integer >= 1 (partners sampled per sample and per group "
            f"when method='approx'); got {n_partners!r}."
        )
    return int(n_partners)


def resolve_method(method, n_samples, name="This estimator"):
    """``'exact'`` or ``'approx'`` for ``method`` in {'auto', 'exact', 'approx'}."""
    if not isinstance(method, str) or method not in ("auto", "exact", "approx"):
        raise ValueError(
            f"{name}: method must be 'auto', 'exact' or 'approx'; got {method!r}."
        )
    if method == "auto":
        return "exact" if n_samples <= AUTO_EXACT_MAX else "approx"
    return method


def _index_dtype(n):
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def sample_pairs(y, n_partners, group, random_state=None):
    """Draw ``n_partners`` partners of every sample from its group (see the module docstring).

    Parameters
    ----------
    y : ndarray of shape (n_samples,), dtype int
        Encoded labels (``0 .. C-1``). For ``group='all'`` they are ignored.
    n_partners : int
        Partners per sample, ``m``; groups of at most ``m`` samples are enumerated.
    group : {'same', 'different', 'all'}
    random_state : int, RandomState instance or None

    Returns
    -------
    PairSample
    """
    if group not in _GROUPS:
        raise ValueError(f"group must be one of {_GROUPS}; got {group!r}.")
    m = check_n_partners(n_partners)
    rng = check_random_state(random_state)
    y = np.asarray(y)
    n = y.shape[0]
    idx = _index_dtype(n)
    if group == "all":
        y = np.zeros(n, dtype=np.intp)
    order = np.argsort(y, kind="stable").astype(idx)
    sizes = np.bincount(y)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    blocks = []
    for c, n_c in enumerate(sizes):
        if n_c == 0:
            continue
        s, e = starts[c], starts[c + 1]
        rows = order[s:e]
        if group == "different":
            g = n - n_c
            blocks.append(_draw(rows, g, m, rng, lambda k, s=s, n_c=n_c: order[k + (k >= s) * n_c]))
        else:
            g = n_c - 1
            pos = np.arange(n_c)[:, None]
            blocks.append(_draw(rows, g, m, rng, lambda k, pos=pos, s=s: order[s + k + (k >= pos)]))
    return PairSample(blocks, n, group)


def _draw(rows, g, m, rng, position_to_index):
    """Block of ``rows`` with partners ``position_to_index(k)`` for positions ``k`` in
    ``0 .. g-1`` of the group: all of them when ``g <= m``, else ``m`` uniform draws."""
    k = rows.shape[0]
    if g <= 0:
        return _Block(rows, np.empty((k, 0), dtype=rows.dtype), 1.0)
    if g <= m:
        positions = np.broadcast_to(np.arange(g), (k, g))
        return _Block(rows, position_to_index(positions).astype(rows.dtype), 1.0)
    positions = rng.randint(0, g, size=(k, m))
    return _Block(rows, position_to_index(positions).astype(rows.dtype), g / m)
