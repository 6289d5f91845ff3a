r"""Subsamples and folds chosen by the content of the rows: deterministic and order-free.

Hyper-parameters chosen from the data (``gamma='auto'``, ``reg='auto'``, DEE's shrinkage, the
QMI checkpoints) are chosen on a subsample and inner folds. Drawn at random, they change from
fit to fit (KQMI's width moved by a factor of 1000 between two fits on one data set) and with
the order of the rows. Here both come from a key of each row's content instead:

.. math::

    h(x) = \sum_{j:\ x_j \neq 0} \operatorname{mix}\big(\operatorname{bits}(x_j) \oplus
    \operatorname{mix}(j + 1)\big) \bmod 2^{64},

with :math:`\operatorname{bits}(x_j)` the IEEE-754 bits of the float64 value rounded to
:data:`KEY_BITS` significant bits and mix the SplitMix64 finaliser (a bijection of 64-bit
integers that spreads every input bit over the output). The key is exact integer arithmetic
on the values themselves, so it is the same on every machine, for dense, sparse and Dask
input, and it moves with the row when rows are permuted. The rounding keeps it under a
relative perturbation of about 1e-10 (a row changes only if one of its values lies within
that distance of a rounding boundary, a chance of about 1e-10 / 2**-12 per value) and, for
all but a fraction of about 2**(12 - 24) of the values, under a conversion to float32; rows
that agree to that precision are ordered by the key of their exact bits. Sorting rows by key is then a
pseudo-random order that depends only on the data:

* :func:`stratified_subsample` keeps, in every class, the rows of smallest key;
* :func:`stratified_folds` deals each class's rows, in key order, to the folds in turn;
* :func:`canonical_order` puts rows in key order, so that a computation on a subsample gives
  the same bits whatever the order the rows came in.

Identical rows have identical keys; which of two identical rows is taken does not matter.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

__all__ = ["row_keys", "canonical_order", "stratified_subsample", "stratified_folds",
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


def _mix_in_place(z, tmp):
    """:func:`_mix` of ``z`` in place (``tmp``: a buffer of its shape): the same bits, no
    temporary arrays."""
    for shift, multiplier in ((30, _M1), (27, _M2)):
        np.right_shift(z, np.uint64(shift), out=tmp)
        z ^= tmp
        z *= multiplier
    np.right_shift(z, np.uint64(31), out=tmp)
    z ^= tmp
    return z


#: significant bits of each value that its row's (first) key depends on
KEY_BITS = 12
_DROP = np.uint64(52 - KEY_BITS)
_HALF = np.uint64(1) << (_DROP - np.uint64(1))
_MASK = ~((np.uint64(1) << _DROP) - np.uint64(1))


def _value_bits(values):
    """IEEE-754 bits of the values as float64 (``-0.0`` as ``0.0``): exact, and rounded to
    :data:`KEY_BITS` significant bits (round half up on the magnitude, in integer arithmetic)."""
    v = np.ascontiguousarray(np.asarray(values, dtype=np.float64) + 0.0)
    exact = v.view(np.uint64)
    return (exact + _HALF) & _MASK, exact


def _hash_entries(values, columns, exact_bits=False):
    """The mixed contributions of entries with their column codes: of the rounded values, or
    (``exact_bits``) of the exact ones; 0 for a zero entry."""
    rounded, exact = _value_bits(values)
    h = _mix((exact if exact_bits else rounded) ^ columns)
    h[np.asarray(values) == 0] = 0
    return h


def _dense_key(X, exact_bits=False):
    """One key per row of a dense array: the sum of the mixed contributions of its entries,
    rounded to :data:`KEY_BITS` bits or (``exact_bits``) exact; in row blocks with reused
    buffers (memory bounded by :data:`_BLOCK_ENTRIES`)."""
    X = np.asarray(X)
    n, D = X.shape
    columns = _mix(np.arange(1, D + 1, dtype=np.uint64))[None, :]
    keys = np.empty(n, dtype=np.uint64)
    rows = max(1, _BLOCK_ENTRIES // max(D, 1))
    values = np.empty((min(rows, n), D))
    z, tmp = np.empty(values.shape, dtype=np.uint64), np.empty(values.shape, dtype=np.uint64)
    for a in range(0, n, rows):
        block = X[a : a + rows]
        m = block.shape[0]
        v, zb, tb = values[:m], z[:m], tmp[:m]
        np.add(block, 0.0, out=v)  # float64, -0.0 as 0.0
        exact = v.view(np.uint64)
        if exact_bits:
            np.bitwise_xor(exact, columns, out=zb)
        else:
            np.add(exact, _HALF, out=zb)  # rounded to KEY_BITS bits (as _value_bits)
            zb &= _MASK
            zb ^= columns
        _mix_in_place(zb, tb)
        zb *= block != 0  # a zero entry contributes nothing
        keys[a : a + m] = zb.sum(axis=1, dtype=np.uint64)
    return keys


def _sparse_key(X, exact_bits=False):
    X = sp.csr_matrix(X)
    X.sum_duplicates()
    columns = _mix(X.indices.astype(np.uint64) + np.uint64(1))
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    keys = np.zeros(X.shape[0], dtype=np.uint64)
    np.add.at(keys, rows, _hash_entries(X.data, columns, exact_bits))
    return keys


def _tied(values):
    """Indices (increasing) of the entries whose value occurs more than once."""
    if len(values) < 2:
        return np.zeros(0, dtype=np.intp)
    in_order = np.sort(values)  # cheaper than the argsort, which only ties need
    if not np.any(in_order[1:] == in_order[:-1]):
        return np.zeros(0, dtype=np.intp)
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    same = sorted_values[1:] == sorted_values[:-1]
    mark = np.zeros(len(values), dtype=bool)
    mark[1:] |= same
    mark[:-1] |= same
    return np.sort(order[mark])


def row_keys(X, *, precomputed=False):
    """Keys of each row's content, ``(n, 2)`` uint64: of the values rounded to
    :data:`KEY_BITS` significant bits, and of the exact values (see the module docstring).

    The exact key only orders rows whose rounded keys are equal (:func:`canonical_order`): it
    is computed for those rows only and is 0 for the others, which gives the order of exact
    keys everywhere at about half the cost (one hash per value instead of two, when few rows
    are near-duplicates).

    ``X`` is a NumPy array, a SciPy sparse matrix, a ``dask.array`` (one pass, one key per
    row computed; then the rows with equal rounded keys) or a list of views (their keys
    combined; ``precomputed`` then one flag per view). With ``precomputed=True`` ``X`` is a
    square kernel between the samples: a row's key is that of its sorted values, which
    permuting the samples (rows and columns together) does not change.
    """
    if isinstance(X, (list, tuple)):
        flags = precomputed if isinstance(precomputed, (list, tuple)) else [precomputed] * len(X)
        keys = np.zeros((X[0].shape[0], 2), dtype=np.uint64)
        for m, (view, flag) in enumerate(zip(X, flags)):
            keys = keys + _mix(row_keys(view, precomputed=flag) + np.uint64(m + 1))
        return keys
    if precomputed:
        X = np.sort(np.asarray(X, dtype=np.float64), axis=1)
    if sp.issparse(X):
        key = _sparse_key
    elif _is_dask(X):
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        key = None
    else:
        key = _dense_key
    keys = np.zeros((X.shape[0], 2), dtype=np.uint64)
    if key is None:
        keys[:, 0] = np.asarray(X.map_blocks(_dense_key, chunks=(X.chunks[0],), drop_axis=1,
                                             dtype=np.uint64).compute())
        key = _dense_key
    else:
        keys[:, 0] = key(X)
    tied = _tied(keys[:, 0])
    if len(tied):
        keys[tied, 1] = key(take_rows(X, tied), exact_bits=True)
    return keys


def canonical_order(keys, y_enc=None):
    """Indices that put the rows in key order: by the rounded key, then the exact one, then
    the label (only identical rows with different labels tie on both keys)."""
    keys = np.asarray(keys)
    label = np.zeros(len(keys), dtype=np.intp) if y_enc is None else np.asarray(y_enc)
    return np.lexsort((label, keys[:, 1], keys[:, 0]))


def smallest_keys(keys, m):
    """Indices of the ``m`` rows of smallest key, in key order."""
    order = canonical_order(keys)
    return order[: min(int(m), len(order))]


def _first_in_key_order(keys, m):
    """``canonical_order(keys)[:m]`` without sorting every row: the rows whose rounded key is
    at most the ``m``-th smallest are the only candidates (a linear-time partition), and only
    they are sorted (stably, as the full sort would order them)."""
    if m >= len(keys):
        return canonical_order(keys)
    threshold = np.partition(keys[:, 0], m - 1)[m - 1]
    candidates = np.flatnonzero(keys[:, 0] <= threshold)
    return candidates[canonical_order(keys[candidates])[:m]]


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
    for c in np.unique(y_enc):
        idx = np.flatnonzero(y_enc == c)
        m = max(int(round(max_samples * len(idx) / n)), min(len(idx), 3))
        keep.append(idx[_first_in_key_order(keys[idx], m)])
    keep = np.concatenate(keep)
    return keep[canonical_order(keys[keep], y_enc[keep])]


def stratified_folds(y_enc, n_folds, keys):
    """``n_folds`` stratified (train, test) index pairs: each class's rows, in key order, are
    dealt to the folds in turn. Indices are increasing within each fold."""
    y_enc = np.asarray(y_enc)
    fold = np.empty(len(y_enc), dtype=np.intp)
    for c in np.unique(y_enc):
        idx = np.flatnonzero(y_enc == c)
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


def landmark_indices(X, n_landmarks, random_state=None, *, precomputed=False):
    """Indices of ``m = min(n_landmarks, n)`` landmarks of ``X`` (array, Dask array or views).

    ``random_state=None`` (the default of every estimator) takes the ``m`` rows of smallest
    content key (:func:`row_keys`): a pseudo-random choice that is the same on every fit and
    whatever the row order. A seed (or ``RandomState``) takes
    ``check_random_state(random_state).permutation(n)[:m]``, the draw of scikit-learn's
    ``Nystroem``.
    """
    n = X[0].shape[0] if isinstance(X, (list, tuple)) else X.shape[0]
    m = min(int(n_landmarks), n)
    if random_state is None:
        return smallest_keys(row_keys(X, precomputed=precomputed), m)
    return check_random_state(random_state).permutation(n)[:m]


def seeded(random_state):
    """``check_random_state`` with ``None`` read as the fixed seed 0: the randomness an
    estimator needs (a random start, sampled pairs) is then the same on every default fit;
    another seed is a deliberate choice."""
    return check_random_state(0 if random_state is None else random_state)
