r"""The nearest-neighbour graph of every row by inverted lists, one matrix product per block of
rows and probed list (:func:`list_graph`): the graphs of a large map and the searches of
``neighbors='approx'``.

Every row :math:`x_i` is a query: its :math:`k` nearest other rows are searched among the lists
of its ``n_probe`` nearest centres (:class:`graphdr.blocks.lists.InvertedLists`, whose lists
and frame it shares),

.. math::

    N_k(x_i) = \operatorname{arg\,min}^{(k)}_{j \ne i \,:\, \ell(x_j) \in P(x_i)}
        \|x_i - x_j\|^2,
    \qquad P(x_i) = \operatorname{arg\,min}^{(n_{probe})}_{l} \|x_i - c_l\|^2 .

The rows are the queries of the blocked search (:mod:`graphdr.blocks.list_blocks`), taken in
list order, each row's own list first; each keeps its :math:`k + 1 +`
:data:`~graphdr.blocks.list_blocks.RANK_MARGIN` nearest by float32 distance (itself among
them), ranked by their distances recomputed in float64, itself left out, ties to the smaller
row. The result depends on the rows and their order alone: not on the number of threads, nor
on which thread takes a run.

``n_probe='auto'`` probes as few lists as reach ``recall`` on a sample of
:data:`RECALL_SAMPLE` rows evenly spaced in the given order: their exact neighbours, and for
each number of probes the share of them that lies in the lists probed (a search within the
lists probed finds every one of those), the estimate minus two of its standard errors.
``n_probe >= n_lists`` searches every list: the exact graph.
"""

from __future__ import annotations

import numpy as np

from .list_blocks import RANK_MARGIN, _count, _Layout, _Rows
from .lists import InvertedLists

__all__ = ["list_graph", "probes_for_recall"]

#: rows whose exact neighbours estimate the recall of a number of probes (``n_probe='auto'``)
RECALL_SAMPLE = 2048

def list_graph(X, k, n_probe="auto", recall=0.9, lists=None):
    """``(dist, ind)`` (``n x k``): each row's ``k`` nearest other rows of ``X`` found among
    its ``n_probe`` nearest lists (module docstring), nearest first, ties to the smaller row;
    distances in the units of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    k : int, 1 <= k < n_samples
    n_probe : int >= 1 or 'auto'
        The lists each row searches; 'auto': the fewest that reach ``recall``
        (:func:`probes_for_recall`).
    recall : float in (0, 1]
        What ``n_probe='auto'`` aims at.
    lists : InvertedLists or None
        The lists of ``X`` (fitted on these rows, in this order), or None to build them.

    Returns
    -------
    dist : ndarray of shape (n_samples, k), float64
    ind : ndarray of shape (n_samples, k), intp
    """
    X = np.asarray(X)
    n = len(X)
    kk = _count(k, lambda v: 1 <= v < n)
    if kk is None:
        raise ValueError(f"list_graph: k must be an integer from 1 to {n - 1} (the other rows); "
                         f"got {k!r}.")
    auto = isinstance(n_probe, str) and n_probe == "auto"
    P = None if auto else _count(n_probe, lambda v: v >= 1)
    if not auto and P is None:
        raise ValueError(f"list_graph: n_probe must be 'auto' or an integer >= 1; got "
                         f"{n_probe!r}.")
    if auto and not 0 < recall <= 1:
        raise ValueError(f"list_graph: recall must be in (0, 1]; got {recall!r}.")
    index = InvertedLists(copy=False).fit(X) if lists is None else lists
    layout = _Layout(index, residuals=True)
    P = probes_for_recall(layout, kk, recall) if auto else min(P, layout.n_lists)
    m = min(kk + 1 + RANK_MARGIN, n)
    queries = _Rows(layout)
    cand = layout.candidates(queries, P, m)
    layout.M = None  # (the residuals freed before the ranking's temporaries)
    return layout.ranked_rows(cand, kk)


def probes_for_recall(layout, k, recall):
    """The fewest lists to probe for the share ``recall`` of the ``k`` nearest others of
    :data:`RECALL_SAMPLE` rows (evenly spaced in the rows' order) to lie in the lists probed,
    less two standard errors of the estimate (by row); all the lists when none fewer do."""
    n = layout.n
    rows = np.unique(np.linspace(0, n - 1, min(RECALL_SAMPLE, n)).round().astype(np.intp))
    pos = layout.position[rows]
    truth_owner = layout.owner[layout.exact_neighbours(rows, k)]
    ranking = np.empty((len(rows), layout.n_lists), dtype=np.intp)
    owner = layout.owner[pos]
    for A in np.unique(owner):  # each row's lists, nearest first (its own first)
        at = np.flatnonzero(owner == A)
        R = layout.index.data_[rows[at]] - layout.C[A]
        ranking[at] = layout.probes(A, R, layout.n_lists)[0]
    need = np.full(truth_owner.shape, layout.n_lists + 1, dtype=np.intp)
    for P in range(ranking.shape[1]):  # the probes each true neighbour needs
        need[truth_owner == ranking[:, P:P + 1]] = P + 1
    for P in range(1, ranking.shape[1] + 1):
        found = (need <= P).mean(axis=1)
        if found.mean() - 2 * found.std() / np.sqrt(len(found)) >= recall:
            return P
    return layout.n_lists


