r"""Subsamples and folds chosen by the content of the rows: deterministic and order-free.

Hyper-parameters chosen from the data (``gamma='auto'``, ``reg='auto'``, DEE's shrinkage, the
QMI checkpoints) are chosen on a subsample and inner folds. Drawn at random, they change from
fit to fit (KQMI's width moved by a factor of 1000 between two fits on one data set) and with
the order of the rows. Here both come from a key of each row's content instead:

.. math::

    c(x_j) = \operatorname{round}_{12}(x_j) \in [0, 2^{24}), \qquad
    p_k(x) = \sum_j w_{jk}\, c(x_j), \qquad
    h(x) = \operatorname{mix}\Big(s + \sum_{k=1}^{4} a_k\, p_k(x)\Big) \bmod 2^{64},

with :math:`c(x_j)` the upper 24 bits of the IEEE-754 float64 value (sign, exponent and
:data:`KEY_BITS` = 12 significant bits, rounded to nearest; ``-0.0``, and a negative denormal
that rounds to it, as ``0.0``, so a zero adds nothing and dense and sparse rows agree), four
integer weights :math:`w_{jk} \in [1, 2^b]` drawn from the column index, odd constants
:math:`a_k`, and mix the SplitMix64 finaliser (a bijection of 64-bit integers that spreads
every input bit over the output). The bound :math:`b = 53 - 24 - \lceil\log_2 D\rceil` keeps
every partial sum of :math:`p_k` an integer below :math:`2^{53}`, so the projections are
computed by one matrix product in float64 and are exact whatever the order of summation: the
same on every machine and BLAS, for dense, sparse and Dask input, and the key moves with the
row when rows are permuted. The cost is a few element-wise operations per value and a product
with a ``D x 4`` matrix (columns beyond :math:`2^{16}` are summed in groups, the groups added
modulo :math:`2^{64}`).

The rounding keeps the key under a relative perturbation of about 1e-10 (a row changes only if
one of its values lies within that distance of a rounding boundary, a chance of about
1e-10 / 2**-12 per value) and, for all but a fraction of about 2**(12 - 24) of the values,
under a conversion to float32. Rows whose rounded keys tie (rows that agree to that
precision, or a 64-bit collision) are ordered by an exact key, the sum of
:math:`\operatorname{mix}(\operatorname{bits}(x_j) \oplus \operatorname{mix}(j + 1))` over the
non-zero entries with all 64 bits of each value, computed only for those rows and only when a
sort meets the tie (:class:`RowKeys`). Sorting rows by key is then a
pseudo-random order that depends only on the data:

* :func:`stratified_subsample` keeps, in every class, the rows of smallest key;
* :func:`stratified_folds` deals each class's rows, in key order, to the folds in turn;
* :func:`canonical_order` puts rows in key order, so that a computation on a subsample gives
  the same bits whatever the order the rows came in.

Identical rows have identical keys; which of two identical rows is taken does not matter.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._threads import map_threads

__all__ = ["RowKeys", "row_keys", "canonical_order", "stratified_subsample", "stratified_folds",
           "smallest_keys", "take_rows", "landmark_indices", "seeded"]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
#: entries of a dense block hashed at once (0.5 MB per buffer, whatever the width)
_BLOCK_ENTRIES = 1 << 16


def _mix(z):
    """SplitMix64 finaliser, element-wise on a uint64 array (arithmetic modulo 2**64)."""
    z = z ^ (z >> np.uint64(30))
    z = z * _M1
    z = z ^ (z >> np.uint64(27))
    z = z * _M2
    return z ^ (z >> np.uint64(31))


#: significant bits of each value that its row's (first) key depends on
KEY_BITS = 12
#: rounding a float64's bits to KEY_BITS significant bits, ``(bits + 2**39) >> 40``, on its
#: upper 32-bit word (sign, exponent, 20 mantissa bits): ``(bits // 2**32 + 2**7) >> 8``, the
#: same integer, as adding 2**39 carries nothing up from the lower word
_HIGH_DROP = np.uint32(20 - KEY_BITS)
_HIGH_HALF = np.uint32(1 << (20 - KEY_BITS - 1))
#: the upper 32-bit word of a float64 in a ``uint32`` view of it
_HIGH_WORD = 1 if sys.byteorder == "little" else 0
#: projections of the value codes per row (each an exact integer below 2**53)
N_PROJECTIONS = 4
#: columns per exact projection: the code (< 2**(12 + KEY_BITS)) times the weight
#: (<= 2**weight_bits) summed over a group stays below 2**53
_COLUMN_GROUP = 1 << 16
#: salt of the projection weights
_WEIGHT_SALT = np.uint64(0x9E3779B97F4A7C15)


#: the code of ``-0.0`` (and of the negative denormals that round to it), counted as 0
_NEGATIVE_ZERO_CODE = np.uint32((0x80000000 + (1 << (20 - KEY_BITS - 1))) >> (20 - KEY_BITS))


def _high_word_codes(values, out=None):
    """:func:`_value_codes` of a float64 array whose last axis is contiguous, read from its
    upper words in place (no copy of the values)."""
    high = values.view(np.uint32)[..., _HIGH_WORD::2]
    out = np.add(high, _HIGH_HALF, out=out)
    np.right_shift(out, _HIGH_DROP, out=out)
    out[out == _NEGATIVE_ZERO_CODE] = 0  # -0.0 as 0.0
    return out


def _value_codes(values):
    """The values rounded to :data:`KEY_BITS` significant bits, as integers in
    ``[0, 2**(12 + KEY_BITS))``: the upper bits of the float64, rounded to nearest, with a value
    that rounds to ``-0.0`` (``-0.0`` itself, a negative denormal below ``2**-1034``) as 0."""
    return _high_word_codes(np.ascontiguousarray(np.asarray(values, dtype=np.float64)))


def _weight_bits(n_columns):
    """Bits of the projection weights for rows of ``n_columns`` (one group of at most
    :data:`_COLUMN_GROUP`): ``n_columns * 2**bits * 2**(12 + KEY_BITS) <= 2**53``."""
    group = max(1, min(int(n_columns), _COLUMN_GROUP))
    return 53 - (12 + KEY_BITS) - int(np.ceil(np.log2(group)))


def _projection_weights(n_columns):
    """``(n_columns, N_PROJECTIONS)`` float64 integer weights in ``[1, 2**bits]``
    (:func:`_weight_bits`), from the column index alone (SplitMix64)."""
    bits = np.uint64(_weight_bits(n_columns))
    seeds = np.arange(n_columns * N_PROJECTIONS, dtype=np.uint64) + _WEIGHT_SALT
    w = (_mix(seeds) >> (np.uint64(64) - bits)) + np.uint64(1)
    return w.astype(np.float64).reshape(n_columns, N_PROJECTIONS)


def _column_groups(n_columns):
    return [slice(a, min(a + _COLUMN_GROUP, n_columns)) for a in range(0, n_columns, _COLUMN_GROUP)]


def _combine(projections):
    """One 64-bit key from the exact integer projections (``n x N_PROJECTIONS`` uint64): their
    sum with odd multipliers modulo 2**64, mixed (SplitMix64)."""
    key = np.full(projections.shape[0], _WEIGHT_SALT, dtype=np.uint64)
    for p, multiplier in enumerate(_mix(np.arange(projections.shape[1], dtype=np.uint64))):
        key += projections[:, p] * (multiplier | np.uint64(1))
    return _mix(key)


def _project(codes, weights, out):
    """``out = codes @ weights`` as exact integers: per column group (each sum below 2**53,
    so exact in float64 whatever the order of summation), the groups added modulo 2**64."""
    groups = _column_groups(weights.shape[0])
    if len(groups) == 1:
        np.copyto(out, codes @ weights, casting="unsafe")
        return
    out[:] = 0
    for g in groups:
        out += (codes[:, g] @ weights[g]).astype(np.uint64)


class RoundedKeyPass:
    """The rounded keys of the rows of a dense array, fed one row block at a time.

    Each block is float64 with its rows contiguous (a view of ``X`` itself when ``X`` is
    C-ordered float64): a pass over the data (:func:`graphdr.blocks.stats.class_statistics`) computes
    the keys on the way, while the block is in cache. Blocks of different rows may be added
    from different threads, each with its own :meth:`scratch` buffers.
    """

    def __init__(self, n_rows, n_columns, block_rows):
        self.weights = _projection_weights(n_columns)
        self.projections = np.zeros((n_rows, N_PROJECTIONS), dtype=np.uint64)
        self.block_rows = max(1, min(int(block_rows), n_rows))
        self._scratch = self.scratch()

    def scratch(self):
        """Buffers for one thread's blocks (of at most ``block_rows`` rows)."""
        shape = (self.block_rows, self.weights.shape[0])
        return np.empty(shape, dtype=np.uint32), np.empty(shape)

    def add(self, start, block, scratch=None):
        """Project the rows ``start : start + len(block)``: codes, then their exact projections."""
        m = block.shape[0]
        codes, floats = self._scratch if scratch is None else scratch
        codes, floats = codes[:m], floats[:m]
        _high_word_codes(block, out=codes)
        np.copyto(floats, codes, casting="unsafe")  # exact: codes < 2**24
        _project(floats, self.weights, self.projections[start : start + m])

    def rounded(self):
        """The rounded key of every row (``(n,)`` uint64), once every block was added."""
        return _combine(self.projections)

    def row_keys(self, X):
        """:class:`RowKeys` of ``X``, the array whose blocks were added."""
        return RowKeys(self.rounded(), _exact_of(X, _dense_exact_key, False))


#: entries of a dense block keyed at once by :func:`_dense_rounded_key` (at most 2 MB per
#: buffer, and 2048 rows: the per-block work of NumPy's calls outweighs their Python
#: overhead, so threads share the work well), and blocks per piece
_KEY_BLOCK_ENTRIES = 1 << 18
_BLOCKS_PER_PIECE = 4


def _dense_rounded_key(X, centre=None):
    """The rounded key of each row of a dense array (less ``centre``, when given), in row
    blocks (memory bounded by :data:`_KEY_BLOCK_ENTRIES` per thread), pieces of
    :data:`_BLOCKS_PER_PIECE` blocks on the threads the environment allows
    (:func:`graphdr._threads.map_threads`)."""
    X = np.asarray(X)
    n, D = X.shape
    rows = max(1, min(2048, _KEY_BLOCK_ENTRIES // max(D, 1)))
    key_pass = RoundedKeyPass(n, D, rows)
    direct = X.dtype == np.float64 and X.flags.c_contiguous and centre is None
    keys = np.empty(n, dtype=np.uint64)
    step = rows * _BLOCKS_PER_PIECE

    def piece(start):
        stop = min(start + step, n)
        scratch = key_pass.scratch()
        values = None if direct else np.empty((min(rows, n), D))
        for a in range(start, stop, rows):
            block = X[a : min(a + rows, stop)]
            if not direct:
                block = values[: block.shape[0]]
                np.copyto(block, X[a : a + block.shape[0]])  # float64, rows contiguous
                if centre is not None:
                    block -= centre
            key_pass.add(a, block, scratch)
        keys[start:stop] = _combine(key_pass.projections[start:stop])

    map_threads(piece, range(0, n, step))
    return keys


def _sparse_rounded_key(X):
    X = sp.csr_matrix(X)
    X.sum_duplicates()
    codes = sp.csr_matrix((_value_codes(X.data).astype(np.float64), X.indices, X.indptr),
                          shape=X.shape)
    projections = np.zeros((X.shape[0], N_PROJECTIONS), dtype=np.uint64)
    weights = _projection_weights(X.shape[1])
    for g in _column_groups(X.shape[1]):
        projections += np.asarray(codes[:, g] @ weights[g]).astype(np.uint64)
    return _combine(projections)


def _exact_bits(values):
    """IEEE-754 bits of the values as float64 (``-0.0`` as ``0.0``)."""
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)


def _hash_entries(values, columns):
    """The mixed contributions of entries (their exact bits) with their column codes; 0 for a
    zero entry."""
    h = _mix(_exact_bits(values) ^ columns)
    h[np.asarray(values) == 0] = 0
    return h


def _dense_exact_key(X, centre=None):
    """The exact key of each row of a dense array (less ``centre``, when given): the sum of
    the mixed contributions of its entries, in row blocks (memory bounded by
    :data:`_BLOCK_ENTRIES`)."""
    X = np.asarray(X)
    n, D = X.shape
    columns = _mix(np.arange(1, D + 1, dtype=np.uint64))[None, :]
    keys = np.empty(n, dtype=np.uint64)
    rows = max(1, _BLOCK_ENTRIES // max(D, 1))
    for a in range(0, n, rows):
        block = X[a : a + rows]
        if centre is not None:
            block = np.asarray(block, dtype=np.float64) - centre
        keys[a : a + rows] = _hash_entries(block, columns).sum(axis=1, dtype=np.uint64)
    return keys


def _sparse_exact_key(X):
    X = sp.csr_matrix(X)
    X.sum_duplicates()
    columns = _mix(X.indices.astype(np.uint64) + np.uint64(1))
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    keys = np.zeros(X.shape[0], dtype=np.uint64)
    np.add.at(keys, rows, _hash_entries(X.data, columns))
    return keys


class RowKeys:
    """Content keys of the rows of a data set: the rounded key of every row, computed up
    front, and the exact key of a row computed only when a sort needs it (when its rounded
    key ties with another row's among the rows being ordered).

    ``keys[idx]`` are the keys of rows ``idx`` (the exact keys still on demand); ``len(keys)``
    is their number. The order is a function of the rows' content alone, so the canonical
    order of any subset of rows is the order they have among all rows.
    """

    def __init__(self, rounded, exact_of, rows=None):
        #: ``(n,)`` uint64: the key of each row's values rounded to :data:`KEY_BITS` bits
        self.rounded = np.asarray(rounded, dtype=np.uint64)
        self._exact_of = exact_of
        self._rows = np.arange(len(self.rounded)) if rows is None else np.asarray(rows)

    def __len__(self):
        return len(self.rounded)

    def __getitem__(self, idx):
        return RowKeys(self.rounded[idx], self._exact_of, self._rows[idx])

    def exact(self, idx=None):
        """The exact keys (``uint64``) of rows ``idx`` (all by default) of these keys."""
        rows = self._rows if idx is None else self._rows[idx]
        if len(rows) == 0:
            return np.zeros(0, dtype=np.uint64)
        return np.asarray(self._exact_of(rows), dtype=np.uint64)

    def __eq__(self, other):
        """Equal keys row by row (``(n,)`` bool): the same rounded and exact keys."""
        if not isinstance(other, RowKeys):
            return NotImplemented
        same = self.rounded == other.rounded
        if np.any(same):
            idx = np.flatnonzero(same)
            same[idx] = self.exact(idx) == other.exact(idx)
        return same

    __hash__ = None


def _exact_of(X, exact, precomputed):
    """``rows -> exact keys`` of those rows of ``X`` (sorted first for a precomputed kernel)."""
    def of(rows):
        block = take_rows(X, rows)
        if precomputed:
            block = np.sort(np.asarray(block, dtype=np.float64), axis=1)
        return exact(block)
    return of


def _combined_keys(views, flags):
    """The keys of rows in several views: each view's keys mixed with its position, summed."""
    parts = [row_keys(view, precomputed=flag) for view, flag in zip(views, flags)]
    salts = [np.uint64(m + 1) for m in range(len(parts))]
    rounded = sum(_mix(k.rounded + salt) for k, salt in zip(parts, salts))

    def exact_of(rows):
        return sum(_mix(k.exact(rows) + salt) for k, salt in zip(parts, salts))
    return RowKeys(rounded, exact_of)


def row_keys(X, *, precomputed=False, centre=None):
    """The content keys (:class:`RowKeys`) of the rows of ``X`` (see the module docstring).

    ``centre`` (dense NumPy ``X`` only; one value per feature): the keys of the rows' values
    less ``centre`` (float64), so that data moved by a constant and keyed about a centre that
    moves with them (:func:`graphdr.blocks.scaling.lower_medians`) keep their keys and order.

    The rounded key of every row is computed here, in one pass; the exact key, which only
    orders rows whose rounded keys are equal, when a sort needs it (:func:`canonical_order`),
    for those rows only.

    ``X`` is a NumPy array, a SciPy sparse matrix, a ``dask.array`` (one pass, one key per
    row computed; later only the rows whose exact keys are needed) or a list of views (their
    keys combined; ``precomputed`` then one flag per view). With ``precomputed=True`` ``X`` is
    a square kernel between the samples: a row's key is that of its sorted values, which
    permuting the samples (rows and columns together) does not change.
    """
    if centre is not None:
        if sp.issparse(X) or _is_dask(X) or precomputed or isinstance(X, (list, tuple)):
            raise ValueError("row_keys: a centre is for a dense NumPy array of features.")
        centre = np.asarray(centre, dtype=np.float64)

        def exact(block):
            return _dense_exact_key(block, centre)
        return RowKeys(_dense_rounded_key(X, centre), _exact_of(X, exact, False))
    if isinstance(X, (list, tuple)):
        flags = precomputed if isinstance(precomputed, (list, tuple)) else [precomputed] * len(X)
        return _combined_keys(X, flags)
    if sp.issparse(X):
        rounded, exact = _sparse_rounded_key, _sparse_exact_key
    else:
        rounded, exact = _dense_rounded_key, _dense_exact_key
    if precomputed:
        keys = rounded(np.sort(np.asarray(X, dtype=np.float64), axis=1))
    elif _is_dask(X):
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        keys = np.asarray(X.map_blocks(rounded, chunks=(X.chunks[0],), drop_axis=1,
                                       dtype=np.uint64).compute())
    else:
        keys = rounded(X)
    return RowKeys(keys, _exact_of(X, exact, precomputed))


def canonical_order(keys, y_enc=None):
    """Indices that put the rows in key order: by the rounded key, then the exact one (computed
    here for the rows whose rounded keys tie), then the label (only identical rows with
    different labels tie on both keys)."""
    label = np.zeros(len(keys), dtype=np.intp) if y_enc is None else np.asarray(y_enc)
    order = np.lexsort((label, keys.rounded))
    ordered = keys.rounded[order]
    same = ordered[1:] == ordered[:-1]
    if not np.any(same):
        return order
    mark = np.zeros(len(order), dtype=bool)
    mark[1:] |= same
    mark[:-1] |= same
    exact = np.zeros(len(order), dtype=np.uint64)
    exact[order[mark]] = keys.exact(order[mark])
    return np.lexsort((label, exact, keys.rounded))


def smallest_keys(keys, m):
    """Indices of the ``m`` rows of smallest key, in key order."""
    return _first_in_key_order(keys, min(int(m), len(keys)))


def _first_in_key_order(keys, m):
    """``canonical_order(keys)[:m]`` without sorting every row: the rows whose rounded key is
    at most the ``m``-th smallest are the only candidates (a linear-time partition), and only
    they are sorted (stably, as the full sort would order them)."""
    if m >= len(keys):
        return canonical_order(keys)
    if m <= 0:
        return np.zeros(0, dtype=np.intp)
    threshold = np.partition(keys.rounded, m - 1)[m - 1]
    candidates = np.flatnonzero(keys.rounded <= threshold)
    return candidates[canonical_order(keys[candidates])[:m]]


def _rows_by_class(y_enc):
    """Each class's row indices (increasing), for the class indices present in order (one
    stable sort of the labels, a radix sort for fewer than 65,536 classes)."""
    y_enc = np.asarray(y_enc, dtype=np.intp)
    if not len(y_enc):
        return []
    counts = np.bincount(y_enc)
    small = np.uint8 if counts.size <= 256 else np.uint16 if counts.size <= 65536 else np.intp
    order = np.argsort(y_enc.astype(small), kind="stable")
    groups = np.split(order, np.cumsum(counts)[:-1])
    return [g for g, c in zip(groups, counts) if c]


def stratified_subsample(y_enc, max_samples, keys):
    """At most about ``max_samples`` indices, in canonical order, every class kept.

    Class ``c`` of ``n_c`` rows keeps ``max(round(max_samples n_c / n), min(n_c, 3))`` rows,
    those of smallest key; all rows when ``n <= max_samples``.
    """
    y_enc = np.asarray(y_enc)
    n = len(y_enc)
    if n <= max_samples:
        return canonical_order(keys, y_enc)
    keep = []
    for idx in _rows_by_class(y_enc):
        m = max(int(round(max_samples * len(idx) / n)), min(len(idx), 3))
        keep.append(idx[_first_in_key_order(keys[idx], m)])
    keep = np.concatenate(keep)
    return keep[canonical_order(keys[keep], y_enc[keep])]


def stratified_folds(y_enc, n_folds, keys):
    """``n_folds`` stratified (train, test) index pairs: each class's rows, in key order, are
    dealt to the folds in turn. Indices are increasing within each fold."""
    y_enc = np.asarray(y_enc)
    fold = np.empty(len(y_enc), dtype=np.intp)
    for idx in _rows_by_class(y_enc):
        fold[idx[canonical_order(keys[idx])]] = np.arange(len(idx)) % n_folds
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(n_folds)]


def _is_dask(X):
    return hasattr(X, "map_blocks") and hasattr(X, "compute")


def take_rows(X, idx):
    """``X[idx]`` as a NumPy array; of a ``dask.array`` only these rows are computed (fetched
    in increasing order, then put in the order of ``idx``)."""
    if not _is_dask(X):
        return X[idx]
    order = np.argsort(idx)
    fetched = np.asarray(X[np.asarray(idx)[order]].compute())
    rows = np.empty_like(fetched)
    rows[order] = fetched
    return rows


def landmark_indices(X, n_landmarks, random_state=None, *, precomputed=False, keys=None):
    """Indices of ``m = min(n_landmarks, n)`` landmarks of ``X`` (array, Dask array or views).

    ``random_state=None`` (the default of every estimator) takes the ``m`` rows of smallest
    content key (:func:`row_keys`): a pseudo-random choice that is the same on every fit and
    whatever the row order. A seed (or ``RandomState``) takes
    ``check_random_state(random_state).permutation(n)[:m]``, the draw of scikit-learn's
    ``Nystroem``. ``keys``: the rows' content keys, when already computed.
    """
    n = X[0].shape[0] if isinstance(X, (list, tuple)) else X.shape[0]
    m = min(int(n_landmarks), n)
    if random_state is None:
        return smallest_keys(row_keys(X, precomputed=precomputed) if keys is None else keys, m)
    return check_random_state(random_state).permutation(n)[:m]


def seeded(random_state):
    """``check_random_state`` with ``None`` read as the fixed seed 0: the randomness an
    estimator needs (a random start, sampled pairs) is then the same on every default fit;
    another seed is a deliberate choice."""
    return check_random_state(0 if random_state is None else random_state)
