"""How features are scaled before a neighbour search sees them: standardised, kept, or chosen
from the data (:func:`feature_scaling`; DEEMap and LabelIssues), and the frame every
neighbour search works in (:func:`search_frame`): centred and scaled by a power of two, so
that the distances it ranks keep their precision wherever the data sit."""

from __future__ import annotations

import numpy as np

from .stats import power_of_two_scale

__all__ = ["lower_medians", "feature_scaling", "FEATURE_SCALINGS", "DOMINANT_FEATURE", "search_frame",
           "in_frame", "FLOAT32_SPAN", "FLOAT64_SPAN"]

#: rows per block of :func:`feature_scaling`'s passes
_SCALING_ROWS = 1 << 14
#: 'auto' standardises when one feature holds more than this fraction of the total variance
DOMINANT_FEATURE = 0.5
FEATURE_SCALINGS = ("auto", "standard", "none")

#: the span of ``max |X - centre|`` a search in float64 takes unscaled: squared distances
#: neither overflow nor underflow in it
FLOAT64_SPAN = (2.0**-64, 2.0**64)
#: the span of ``max |X - centre|`` a search in float32 takes unscaled: ``|x|^2 - 2 q^T x``
#: stays below ``2**128`` up to ``2**54`` features, and the square of a difference of two
#: float32 coordinates (at least ``2**-24`` of the spread) above float32's smallest normal
FLOAT32_SPAN = (2.0**-36, 2.0**36)
#: the centre is a multiple of ``2**-CENTRE_BITS`` of the spread (the power of two just above
#: ``max |X - median|``): it stays within half of that spread of the median, and is 0 unless
#: the median lies more than a quarter of the spread from 0 (float32 rows are then kept as
#: they are, not rounded again)
CENTRE_BITS = 1
#: entries of ``X`` converted to float64 at once by :func:`search_frame` and :func:`in_frame`
_FRAME_ENTRIES = 1 << 22


def _half_reach(lo, hi, centre):
    """``max_j max(hi_j - c_j, c_j - lo_j) / 2``, from halves (no overflow at any value)."""
    if len(centre) == 0:
        return 0.0
    return float(np.max(np.maximum(hi / 2 - centre / 2, centre / 2 - lo / 2)))


def search_frame(X, span=FLOAT64_SPAN, name="X"):
    r"""``(centre, scale)``: the frame a neighbour search works in, ``(X - centre) / scale``
    (float64; ``centre`` one value per feature, ``scale`` an exact power of two). A
    translation changes no Euclidean distance, and division by a power of two divides them
    all exactly by ``scale``: the neighbours are those of ``X``, their distances those of
    ``X`` divided by ``scale``.

    A search that ranks by :math:`\|x\|^2 - 2 q^\top x` (BLAS; scikit-learn's brute force,
    inverted lists) loses the differences between distances to the rounding of
    :math:`\|x\|^2`: features at ``1e4`` with a spread of 1 leave float32 no digit of them.
    In this frame :math:`\|x\|` is of the order of the spread.

    * ``centre``: each feature's lower median (the value at rank :math:`\lfloor (n-1)/2
      \rfloor`: a value of the data, the same in any row order), rounded to the nearest
      multiple of :math:`g = 2^{e-1}` (:data:`CENTRE_BITS`), where :math:`2^{e-1} \le
      \max_{ij} |x_{ij} - \mathrm{med}_j| < 2^{e}`. The centre is therefore 0 on data
      centred already (the frame of a frame is the identity) and moves by whole multiples
      of ``g`` when the data move: ``X + 1e4`` gets the centre of ``X`` plus ``1e4`` (for
      ``g`` dividing it).
    * ``scale``: 1 when ``max |X - centre|`` lies in ``span``, else the power of two that
      brings it into ``[1/2, 1)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite values; read in blocks of features (memory: one block).
    span : (float, float)
        :data:`FLOAT64_SPAN` for a search in float64, :data:`FLOAT32_SPAN` in float32.
    name : str
        How the error for a non-finite entry names ``X``.

    Returns
    -------
    centre : ndarray of shape (n_features,)
    scale : float

    Raises
    ------
    ValueError
        ``X`` holds NaN or infinity.
    """
    X = np.asarray(X)
    lo, hi, med = _extremes_and_medians(X, name)
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        bad = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(
            f"{name} holds {X[tuple(bad)]} at row {bad[0]}, column {bad[1]}: a neighbour "
            "search needs finite values (drop or impute the missing ones first).")
    half = _half_reach(lo, hi, med)
    centre = med
    if half > 0:
        g = np.ldexp(1.0, int(np.frexp(half)[1]) + 1 - CENTRE_BITS)
        if g > 0:  # (a multiple of g already where |med| >= 2**53 g)
            small = np.abs(med) / g < 2.0**53
            centre = np.where(small, np.round(np.where(small, med, 0.0) / g) * g, med)
    half = _half_reach(lo, hi, centre)
    if half == 0 or span[0] <= 2 * half <= span[1]:
        return centre, 1.0
    return centre, float(np.ldexp(1.0, min(int(np.frexp(half)[1]) + 1, 1023)))


def _extremes_and_medians(X, name="X"):
    """Each feature's least and largest value and its lower median (the value at rank
    :math:`\\lfloor (n-1)/2 \rfloor`), values of the data in its own float type, the same in
    any row order; read in blocks of features (memory: one block)."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (samples x features); got shape {X.shape}.")
    n, d = X.shape
    lo, hi, med = np.zeros(d), np.zeros(d), np.zeros(d)
    step = max(1, _FRAME_ENTRIES // max(n, 1))
    # (in the data's own float type: the extremes and the median are values of the data)
    dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else np.float64
    for a in range(0, d if n else 0, step):
        cols = np.array(X[:, a:a + step].T, dtype=dtype, order="C")
        lo[a:a + step], hi[a:a + step] = cols.min(axis=1), cols.max(axis=1)
        cols.partition((n - 1) // 2, axis=1)
        med[a:a + step] = cols[:, (n - 1) // 2]
    return lo, hi, med


def lower_medians(X):
    """Each feature's lower median (:func:`search_frame`'s, before its rounding): a centre
    that moves with the data, ``X + c`` getting ``med + c`` up to the rounding of ``X + c``
    itself. :meth:`graphdr.DEEMap.fit` keys its rows by their values about it, so that a
    shifted copy of the data is put in the same content order."""
    return _extremes_and_medians(np.asarray(X))[2]


def in_frame(X, centre, scale, dtype=np.float64, copy=True):
    """``(X - centre) / scale`` (:func:`search_frame`) as a C-contiguous ``dtype`` array,
    computed in float64 (as ``X / scale - centre / scale``: exact divisions, one rounding, no
    overflow) in blocks of rows and cast once. ``copy=False``: ``X`` itself when the frame is
    the identity and ``X`` is C-contiguous ``dtype``."""
    X = np.asarray(X)
    identity = scale == 1.0 and not np.any(centre)
    if identity:
        out = np.ascontiguousarray(X, dtype=dtype)
        return out.copy() if copy and np.may_share_memory(out, X) else out
    out = np.empty(X.shape, dtype=dtype)
    shift = np.asarray(centre, dtype=np.float64) / scale
    step = max(1, _FRAME_ENTRIES // max(X.shape[1], 1))
    for a in range(0, len(X), step):
        block = np.array(X[a:a + step], dtype=np.float64)
        if scale != 1.0:
            block /= scale
        block -= shift
        out[a:a + step] = block
    return out


def feature_scaling(X, option):
    r"""``(resolved, mean, scale)``: the map works on ``(X - mean) / scale``.

    * ``'standard'``: each feature's mean and standard deviation (1 for a constant feature);
    * ``'none'``: the features as given up to a translation, centred and scaled by one exact
      power of two by :func:`search_frame` (the centre: each feature's median, rounded; the
      scale 1 unless ``max |X - centre|`` lies outside :math:`[2^{-64}, 2^{64}]`, so that
      squared distances neither underflow nor overflow). No distance changes but for that
      power of two; the neighbour searches then rank distances of the order of the data's
      spread, not of their distance from 0 (features at ``1e4`` with a spread of 1 lost
      their neighbours to float32 rounding);
    * ``'auto'``: ``'standard'`` when one feature holds more than :data:`DOMINANT_FEATURE` of
      the total variance :math:`\sum_j \operatorname{var}(x_j)` (its units would decide every
      distance: the neighbour graph and the placement of new samples), else ``'none'``
      (features that share their units, such as pixels or principal components, keep their
      relative scale, which carries information).

    Computed on ``X`` divided by its power-of-two scale first: no under- or overflow at any
    magnitude; in row blocks (memory: one block, not a copy of ``X``), summed in the rows'
    order (:meth:`DEEMap.fit` passes its rows sorted by content: the same scaling in any row
    order; the centre of ``'none'`` is the same in any row order).
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
    centre, scale = search_frame(X, FLOAT64_SPAN)
    return option, centre, np.full(X.shape[1], scale)
