"""How features are scaled before a neighbour search sees them: standardised, kept, or chosen
from the data (:func:`feature_scaling`; DEEMap and LabelIssues)."""

from __future__ import annotations

import numpy as np

from .stats import power_of_two_scale

__all__ = ["feature_scaling", "FEATURE_SCALINGS", "DOMINANT_FEATURE"]

#: rows per block of :func:`feature_scaling`'s passes
_SCALING_ROWS = 1 << 14
#: 'auto' standardises when one feature holds more than this fraction of the total variance
DOMINANT_FEATURE = 0.5
FEATURE_SCALINGS = ("auto", "standard", "none")


def feature_scaling(X, option):
    r"""``(resolved, mean, scale)``: the map works on ``(X - mean) / scale``.

    * ``'standard'``: each feature's mean and standard deviation (1 for a constant feature);
    * ``'none'``: the features as given, divided by one exact power of two when ``max |X|`` lies
      outside :math:`[2^{-64}, 2^{64}]` (:func:`graphdr.blocks.stats.power_of_two_scale`), so that
      squared distances neither underflow nor overflow;
    * ``'auto'``: ``'standard'`` when one feature holds more than :data:`DOMINANT_FEATURE` of
      the total variance :math:`\sum_j \operatorname{var}(x_j)` (its units would decide every
      distance: the neighbour graph and the placement of new samples), else ``'none'``
      (features that share their units, such as pixels or principal components, keep their
      relative scale, which carries information).

    Computed on ``X`` divided by its power-of-two scale first: no under- or overflow at any
    magnitude; in row blocks (memory: one block, not a copy of ``X``), summed in the rows'
    order (:meth:`DEEMap.fit` passes its rows sorted by content: the same scaling in any row
    order).
    """
    X = np.asarray(X)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)
    n = X.shape[0]
    top = power_of_two_scale(max(float(X.max()), -float(X.min()))) if X.size else 1.0
    # two passes over row blocks (float64 sums, in the rows' order): no copy of X
    blocks = [slice(a, min(a + _SCALING_ROWS, n)) for a in range(0, n, _SCALING_ROWS)]
    mean = np.zeros(X.shape[1])
    for b in blocks:
        mean += np.sum(np.asarray(X[b], dtype=np.float64) / top, axis=0)
    mean /= max(n, 1)
    var = np.zeros(X.shape[1])
    for b in blocks:
        var += np.sum((np.asarray(X[b], dtype=np.float64) / top - mean) ** 2, axis=0)
    std = np.sqrt(var / max(n, 1))
    if option == "auto":
        total = float(np.sum(std**2))
        option = "standard" if total > 0 and float(np.max(std**2)) > DOMINANT_FEATURE * total \
            else "none"
    if option == "standard":
        return option, mean * top, np.where(std > 0, std, 1.0) * top
    return option, np.zeros(X.shape[1]), np.full(X.shape[1], top)
