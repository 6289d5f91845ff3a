r"""Single-pass sufficient statistics of labelled data, for NumPy and Dask arrays.

Every class-structured linear method (LDA, LQMI, graph embedding with class graphs) needs only

* ``n`` and the class counts :math:`J_c`,
* the class sums :math:`u_c = \sum_{i \in c} x_i` (``C x D``),
* the centred Gram matrix :math:`G_c = \sum_i (x_i - m)(x_i - m)^\top` (``D x D``),

from which the total scatter :math:`S_t = G_c`, the centred class sums
:math:`\tilde U = U - J m^\top` and the within-class scatter
:math:`S_w = G_c - \tilde U^\top \operatorname{diag}(1/J) \tilde U` follow, as does any other
class-graph quadratic form :math:`d\,G_c - \tilde U^\top B\, \tilde U`.

Precision. The naive formula :math:`\sum_i x_i x_i^\top - n m m^\top` loses every digit the
data share (with ``X + 1e8`` nothing is left). Here each chunk is first *shifted* by a point
:math:`s` near the data (its own mean; for a dense NumPy array one shift for all blocks, the
mean of about 1024 rows spread over the array) and only :math:`x - s` is squared; with
:math:`G_s = \sum_i (x_i - s)(x_i - s)^\top` and :math:`t = \sum_i (x_i - s) = n (m - s)`,

.. math::

    G_c = G_s - n (m - s)(m - s)^\top = G_s - t t^\top / n ,

where :math:`m - s` is small, so the subtraction cancels nothing of importance. Two chunks
with shifts :math:`s_a, s_b` are merged on the shift :math:`s_a` with :math:`d = s_b - s_a`:

.. math::

    G_{s_a} = G_a + G_b + t_b d^\top + d\, t_b^\top + n_b d d^\top, \qquad
    U_{s_a} = U_a + U_b + J_b d^\top, \qquad t_{s_a} = t_a + t_b + n_b d ,

exact algebra in which ``d`` is a difference of chunk means (the data's spread, not their
offset).

Memory and time. A NumPy array is read in row blocks of ``block_rows`` rows
(``O(block_rows x D)`` temporary memory, one pass whose cost is about that of one
:math:`X^\top X`: per block a shifted copy in cache, a symmetric rank-k update and a one-hot
product for the class sums). A ``dask.array`` is never materialised: each row chunk's
statistics are computed by Dask (on whatever scheduler or ``distributed`` cluster is active)
and merged in a tree; only ``D x D`` and ``C x D`` arrays travel. NaN/inf are detected in the
same pass (a flag per chunk).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets

from .._threads import map_threads

__all__ = ["ClassStatistics", "class_statistics", "is_dask_array", "check_class_counts",
           "lazy_class_statistics",
           "check_dask_input", "scaled_class_statistics", "power_of_two_scale", "input_scale"]

_BLOCK_ROWS = 8192
_DENSE_BLOCK_ROWS = 4096


def is_dask_array(X):
    """True for a ``dask.array.Array`` (checked without importing Dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks") and hasattr(
        X, "to_delayed"
    )


@dataclass
class ClassStatistics:
    r"""Class counts, class sums and Gram matrix of ``x - shift``, mergeable.

    Attributes
    ----------
    n : int
        Number of samples.
    classes : ndarray of shape (C,)
        Sorted labels (or class indices) present.
    counts : ndarray of shape (C,)
        Samples per class :math:`J_c`.
    shift : ndarray of shape (D,)
        The point :math:`s` the sums are taken about.
    sums : ndarray of shape (C, D)
        :math:`\sum_{i \in c} (x_i - s)`.
    gram : ndarray of shape (D, D)
        :math:`G_s = \sum_i (x_i - s)(x_i - s)^\top`.
    nonfinite : str or None
        ``'nan'`` or ``'inf'`` when the data contain such values (then the other fields are
        meaningless), ``'overflow'`` when finite data overflowed, else None.
    """

    n: int
    classes: np.ndarray
    counts: np.ndarray
    shift: np.ndarray
    sums: np.ndarray
    gram: np.ndarray
    nonfinite: str | None = None

    # ----- derived quantities -----------------------------------------------------------
    @property
    def n_features(self):
        return self.shift.shape[0]

    @property
    def total_shifted_sum(self):
        """:math:`t = \\sum_i (x_i - s) = n (m - s)`."""
        return self.sums.sum(axis=0)

    @property
    def mean(self):
        """The mean :math:`m = s + t / n`."""
        return self.shift + self.total_shifted_sum / self.n

    def centered_gram(self):
        """:math:`G_c = G_s - t t^\\top / n` (the total scatter :math:`S_t`)."""
        t = self.total_shifted_sum
        G = self.gram - np.outer(t, t) / self.n
        return (G + G.T) / 2.0

    def centered_class_sums(self):
        """:math:`\\tilde U = U - J m^\\top = U_s - J (m - s)^\\top` (``C x D``)."""
        return self.sums - np.outer(self.counts, self.total_shifted_sum / self.n)

    def class_means(self):
        """Class means (``C x D``)."""
        return self.shift + self.sums / self.counts[:, None]

    def within_class_scatter(self):
        """:math:`S_w = G_c - \\tilde U^\\top \\operatorname{diag}(1/J) \\tilde U`."""
        U = self.centered_class_sums()
        return self.centered_gram() - U.T @ (U / self.counts[:, None])

    # ----- combination --------------------------------------------------------------------
    def merge(self, other):
        """Statistics of the union of both samples (on this object's shift)."""
        if self.nonfinite or other.nonfinite:
            worst = "nan" if "nan" in (self.nonfinite, other.nonfinite) else (
                "inf" if "inf" in (self.nonfinite, other.nonfinite) else "overflow")
            return ClassStatistics(self.n + other.n, self.classes, self.counts, self.shift,
                                   self.sums, self.gram, worst)
        if self.n == 0 and other.n > 0:
            return other.merge(self)  # keep the shift of the side that has data
        d = other.shift - self.shift
        t_b = other.total_shifted_sum
        gram = self.gram + other.gram + np.outer(t_b, d) + np.outer(d, t_b) + other.n * np.outer(d, d)
        other_sums = other.sums + np.outer(other.counts, d)
        if len(self.classes) == len(other.classes) and np.array_equal(self.classes, other.classes):
            classes, counts, sums = self.classes, self.counts + other.counts, self.sums + other_sums
        else:
            classes = np.union1d(self.classes, other.classes)
            counts = np.zeros(len(classes), dtype=np.int64)
            sums = np.zeros((len(classes), self.n_features))
            for cls, cnt, sm in ((self.classes, self.counts, self.sums),
                                 (other.classes, other.counts, other_sums)):
                idx = np.searchsorted(classes, cls)
                counts[idx] += cnt
                sums[idx] += sm
        return ClassStatistics(self.n + other.n, classes, counts, self.shift, sums, gram, None)


def _empty(D, classes):
    return ClassStatistics(0, classes, np.zeros(len(classes), dtype=np.int64), np.zeros(D),
                           np.zeros((len(classes), D)), np.zeros((D, D)), None)


def chunk_statistics(Xb, yb, n_classes=None):
    """Statistics of one chunk, shifted by the chunk's mean.

    ``yb`` holds class indices ``0 .. n_classes-1`` when ``n_classes`` is given, otherwise raw
    labels (the chunk's distinct labels become its ``classes``).
    """
    if not sp.issparse(Xb):
        Xb = np.asarray(Xb)
    yb = np.asarray(yb).reshape(-1)
    nb, D = Xb.shape
    if yb.shape[0] != nb:
        raise ValueError(
            f"X and y must have the same number of samples in every chunk; got {nb} and "
            f"{yb.shape[0]}."
        )
    if n_classes is not None:
        classes = np.arange(n_classes)
        codes = yb.astype(np.intp, copy=False)
        counts = np.bincount(codes, minlength=n_classes).astype(np.int64)
    else:
        classes, codes, counts = np.unique(yb, return_inverse=True, return_counts=True)
        codes = codes.reshape(-1)
        counts = counts.astype(np.int64)
    if nb == 0:
        return _empty(D, classes)
    if sp.issparse(Xb):
        return _sparse_chunk_statistics(Xb, codes, classes, counts)
    Xb = Xb.astype(np.float64, copy=False)
    with np.errstate(all="ignore"):
        shift = Xb.mean(axis=0)
        Xs = Xb - shift
        gram = Xs.T @ Xs
        diag = np.diag(gram)
    nonfinite = None
    if not np.all(np.isfinite(diag)) or not np.all(np.isfinite(shift)):
        # a NaN/inf entry makes its column's sum of squares non-finite: look closer
        if np.isnan(Xb).any():
            nonfinite = "nan"
        elif not np.isfinite(Xb).all():
            nonfinite = "inf"
        else:
            nonfinite = "overflow"
    E = sp.csr_matrix((np.ones(nb), (codes, np.arange(nb))), shape=(len(classes), nb))
    sums = np.asarray(E @ Xs)
    return ClassStatistics(nb, classes, counts, shift, sums, gram, nonfinite)


def _sparse_chunk_statistics(Xb, codes, classes, counts):
    r"""Statistics of a sparse chunk from sparse products: ``X`` is never densified.

    With the chunk mean ``s``, :math:`G_s = X^\top X - n_b\, s s^\top` and the class sums
    :math:`E^\top X - J s^\top`: memory ``O(D^2 + C D)`` besides ``X``. (The shift is applied
    after the product, so the data's common offset is not removed first; sparse data, counts or
    one-hot codes, have none worth speaking of.)
    """
    Xb = sp.csr_matrix(Xb, dtype=np.float64)
    nb = Xb.shape[0]
    nonfinite = None
    if not np.all(np.isfinite(Xb.data)):
        nonfinite = "nan" if np.isnan(Xb.data).any() else "inf"
    with np.errstate(all="ignore"):
        shift = np.asarray(Xb.mean(axis=0)).ravel()
        gram = (Xb.T @ Xb).toarray() - nb * np.outer(shift, shift)
        E = sp.csr_matrix((np.ones(nb), (codes, np.arange(nb))), shape=(len(classes), nb))
        sums = np.asarray((E @ Xb).todense()) - np.outer(counts, shift)
    if nonfinite is None and not np.all(np.isfinite(gram)):
        nonfinite = "overflow"
    return ClassStatistics(nb, classes, counts, shift, sums, (gram + gram.T) / 2.0, nonfinite)


def _merge_all(parts):
    """Pairwise tree merge (keeps the numbers combined of similar size)."""
    parts = list(parts)
    while len(parts) > 1:
        merged = [parts[i].merge(parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        if len(parts) % 2:
            merged.append(parts[-1])
        parts = merged
    return parts[0]


def _dask_statistics(X, y, n_classes=None, split_every=8):
    import dask
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D dask array (n_samples, n_features); got {X.ndim}-D.")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            "The dask array has unknown chunk sizes; call X.compute_chunk_sizes() first."
        )
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    y = y if is_dask_array(y) else np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of class labels; got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and y must have the same number of samples; got {X.shape[0]} and {y.shape[0]}."
        )
    y = y.rechunk((X.chunks[0],)) if is_dask_array(y) else da.from_array(y, chunks=(X.chunks[0],))
    xs = X.to_delayed().ravel()
    ys = y.to_delayed().ravel()
    parts = [dask.delayed(chunk_statistics)(xb, yb, n_classes) for xb, yb in zip(xs, ys)]
    while len(parts) > 1:  # tree reduction on the workers
        parts = [
            dask.delayed(_merge_all)(parts[i : i + split_every])
            for i in range(0, len(parts), split_every)
        ]
    return parts[0].compute()


#: at most this many row stripes (the unit of work of one thread) ...
_MAX_STRIPES = 16
#: ... and at most this many bytes of their partial sums (``(D + C)**2`` floats each)
_STRIPE_BYTES = 1 << 26


def _stripes(n, block_rows, width):
    """Fixed row stripes of whole blocks: their number depends on ``n`` and the width only
    (never on the threads), about four blocks each, at most :data:`_MAX_STRIPES` and
    :data:`_STRIPE_BYTES` of partial sums."""
    blocks = -(-n // block_rows)
    cap = max(1, min(_MAX_STRIPES, _STRIPE_BYTES // (8 * width * width)))
    count = max(1, min(cap, -(-blocks // 4)))
    edges = np.linspace(0, blocks, count + 1).round().astype(int) * block_rows
    return [(int(lo), int(min(hi, n))) for lo, hi in zip(edges[:-1], edges[1:]) if lo < n]


def _stripe_statistics(X, codes, C, shift, start, stop, b):
    r"""``(G_s, U_s)`` over the rows ``start:stop`` of ``X`` in blocks of ``b`` rows: the Gram
    matrix of the shifted block by NumPy's symmetric rank-k update, the class sums by the
    product with the block's sparse one-hot class indicator (a scatter-add of its rows); both
    run without the GIL."""
    D = X.shape[1]
    Xs = np.empty((b, D))
    out = np.empty((D, D))
    gram = np.zeros((D, D))
    sums = np.zeros((C, D))
    ones, indptr = np.ones(b), np.arange(b + 1)
    direct = shift is None  # float64 data near the origin: no shifted copy
    with np.errstate(all="ignore"):  # the caller flags NaN/inf
        for a in range(start, stop, b):
            Xb = X[a : min(a + b, stop)]
            m = Xb.shape[0]
            if direct:
                Xm = Xb
            else:
                Xm = Xs[:m]
                np.subtract(Xb, shift, out=Xm)  # also converts float32 and integers
            np.matmul(Xm.T, Xm, out=out)  # NumPy's symmetric rank-k update
            gram += out
            onehot_t = sp.csc_matrix((ones[:m], codes[a : a + m], indptr[: m + 1]), shape=(C, m))
            sums += onehot_t @ Xm
    return gram, sums


def _dense_statistics(X, codes, classes, block_rows=_BLOCK_ROWS, beside=None):
    r"""Statistics of a dense NumPy array in one pass, on one shift for all row blocks.

    The shift :math:`s` is the mean of about 1024 rows spread evenly over ``X`` (close to the
    mean :math:`m`, so :math:`m - s` is of the order of the data's spread, not its offset), or 0
    for float64 data whose mean is within half a spread of the origin (then the unshifted sums
    lose at most a quarter of a bit, and the shifted copy is skipped). Each block of rows is
    shifted into a reused float64 buffer (which also converts float32 input), then
    :math:`G_s \mathrel{+}= X_s^\top X_s` (NumPy's symmetric rank-k update) and
    :math:`U_s \mathrel{+}= E_b^\top X_s` with the block's one-hot class indicator ``E_b``
    (sparse): one read of ``X``, no copy of it, no separate mean pass.

    The rows are cut into fixed stripes (:func:`_stripes`), summed by as many threads as the
    environment allows BLAS threads, each with one-thread BLAS
    (:func:`graphdr._threads.map_threads`), and the stripes' sums added in stripe order: the
    same bits with any number of threads. ``beside`` (a callable) runs as one more piece,
    first: work that does not need the statistics (the leave-one-out ridge) done on the same
    threads while the others sum.
    """
    n, D = X.shape
    C = len(classes)
    counts = np.bincount(codes, minlength=C).astype(np.int64)
    if n == 0:
        if beside is not None:
            beside()
        return _empty(D, classes)
    b = max(1, min(int(block_rows), n))
    with np.errstate(all="ignore"):
        sample = X[:: max(1, n // 1024)]
        shift = np.mean(sample, axis=0, dtype=np.float64)
        spread = np.std(sample, axis=0, dtype=np.float64)
    # data whose mean is within half a spread of the origin lose at most a quarter of a bit
    # to the unshifted sums (G_c = G_0 - t t^T / n): the shifted copy is skipped
    direct = X.dtype == np.float64 and X.flags.c_contiguous and bool(
        np.all(np.abs(shift) <= 0.5 * spread))
    if direct:
        shift = np.zeros(D)
    pieces = ([None] if beside is not None else []) + _stripes(n, b, D)

    def run(piece):
        if piece is None:
            return beside()
        return _stripe_statistics(X, codes, C, None if direct else shift, piece[0], piece[1],
                                  b)

    parts = map_threads(run, pieces)[1 if beside is not None else 0 :]
    gram, sums = parts[0]
    for part_gram, part_sums in parts[1:]:
        gram += part_gram
        sums += part_sums
    nonfinite = None
    if not (np.all(np.isfinite(np.diag(gram))) and np.all(np.isfinite(shift))):
        # a NaN/inf entry makes its column's sum of squares non-finite: look closer
        if np.isnan(X).any():
            nonfinite = "nan"
        elif not np.isfinite(X).all():
            nonfinite = "inf"
        else:
            nonfinite = "overflow"
    return ClassStatistics(n, classes, counts, shift, sums, gram, nonfinite)


def class_statistics(X, y, *, n_classes=None, block_rows=None, beside=None):
    """Class counts, class sums and centred Gram matrix in one pass over ``X``.

    Parameters
    ----------
    X : ndarray or dask.array.Array of shape (n_samples, n_features)
        NumPy arrays are read in row blocks; a Dask array chunk by chunk on the active Dask
        scheduler (never materialised). Column chunks of a Dask array are merged first.
    y : array-like or dask.array.Array of shape (n_samples,)
        Class labels (raw labels, or class indices when ``n_classes`` is given). A Dask ``y``
        is rechunked to ``X``'s row chunks.
    n_classes : int or None
        Number of classes when ``y`` holds indices ``0 .. n_classes-1``.
    block_rows : int or None
        Rows per block for NumPy input (None: up to 4096 for dense arrays, a block that stays
        in cache, and 8192 for sparse ones).
    beside : callable or None
        Called once during the pass, on the pass's threads, for a dense NumPy array (after
        the pass for other input); its result is dropped.

    Returns
    -------
    stats : ClassStatistics
        Check ``stats.nonfinite`` before use.
    """
    if is_dask_array(X):
        stats = _dask_statistics(X, y, n_classes)
        if beside is not None:
            beside()
        return stats
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
    y = np.asarray(y).reshape(-1)
    if X.ndim != 2 or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X must be 2-D and y have one label per row; got shapes {X.shape} and {y.shape}."
        )
    if not sp.issparse(X) and X.dtype.kind in "fiub":
        if n_classes is None:
            classes, codes = np.unique(y, return_inverse=True)
            codes = codes.reshape(-1)
        else:
            classes, codes = np.arange(n_classes), y.astype(np.intp, copy=False)
        # blocks of 4096 rows, of at most 16 MB (but 256 rows) for wide data: large enough
        # that adding a block's D x D product to the sum costs little beside computing it
        default = max(256, min(_DENSE_BLOCK_ROWS, (1 << 21) // max(X.shape[1], 1)))
        return _dense_statistics(X, codes, classes, block_rows or default, beside)
    block_rows = block_rows or _BLOCK_ROWS
    parts = [
        chunk_statistics(X[a : a + block_rows], y[a : a + block_rows], n_classes)
        for a in range(0, X.shape[0], block_rows)
    ]
    stats = _merge_all(parts) if parts else _empty(X.shape[1], np.arange(n_classes or 0))
    if beside is not None:
        beside()
    return stats


def power_of_two_scale(top):
    """``2**e`` with ``top / 2**e`` in ``[0.5, 1)`` when ``top`` is outside ``[2**-64, 2**64]``,
    else 1.0 (dividing by a power of two is exact)."""
    top = float(top)
    if top == 0.0 or 2.0**-64 <= top <= 2.0**64:
        return 1.0
    return float(2.0 ** np.frexp(top)[1])


def input_scale(X):
    """:func:`power_of_two_scale` of ``max |X|`` (NumPy or sparse; 1.0 for an empty ``X``): the
    exact power of two a fit divides extreme data by, so that their squares neither overflow
    nor underflow."""
    return power_of_two_scale(abs(X).max()) if X.size else 1.0


def _magnitude_bounds(stats):
    r"""Lower and upper bounds on :math:`\max_{ij} |x_{ij}|` from the statistics alone.

    Upper: :math:`|x_{ij}| \le |s_j| + \sqrt{(G_s)_{jj}}`. Lower: the mean,
    :math:`|m_j|`, and half the centred root mean square, :math:`\sqrt{(G_c)_{jj} / n} / 2`
    (:math:`|x_{ij} - m_j| \le 2 \max |x|`).
    """
    with np.errstate(all="ignore"):
        upper = np.max(np.abs(stats.shift) + np.sqrt(np.maximum(np.diag(stats.gram), 0.0)))
        lower = max(np.max(np.abs(stats.mean)),
                    np.sqrt(max(np.max(np.diag(stats.centered_gram())), 0.0) / stats.n) / 2.0)
    return float(lower), float(upper)


def scaled_class_statistics(X, y_encoded, n_classes, *, beside=None):
    """:func:`class_statistics` of ``X / scale``, ``scale`` = :func:`power_of_two_scale` of
    ``max |X|``, for a validated NumPy or sparse ``X``; returns ``(stats, scale)``. ``beside``
    runs during the first pass (:func:`class_statistics`).

    Squares of ``X * 1e-300`` underflow and those of ``X * 1e150`` overflow. ``max |X|`` is only
    computed (one more pass) when the bounds of :func:`_magnitude_bounds` leave the scale in
    doubt; otherwise the statistics of the single pass are used as they are. NaN/inf raise the
    errors of :func:`raise_if_nonfinite`.
    """
    stats = class_statistics(X, y_encoded, n_classes=n_classes, beside=beside)
    if stats.nonfinite in ("nan", "inf"):
        raise_if_nonfinite(stats)
    if stats.nonfinite is None and stats.n > 0:
        lower, upper = _magnitude_bounds(stats)
        if 2.0**-64 <= lower and upper <= 2.0**64:
            return stats, 1.0
    values = X.data if sp.issparse(X) else X
    scale = power_of_two_scale(abs(values).max()) if values.size else 1.0
    if scale != 1.0:
        stats = class_statistics(X / scale, y_encoded, n_classes=n_classes)
    raise_if_nonfinite(stats)
    return stats, scale


def lazy_class_statistics(X, y, name, requirements):
    """:func:`class_statistics` of a Dask array ``X``, checked as ``validate_data`` and
    :func:`graphdr._validation.check_labels` check arrays in memory: its shape and dtype
    first (:func:`check_dask_input`), then from the same pass NaN/inf
    (:func:`raise_if_nonfinite`) and the classes' counts (:func:`check_class_counts`,
    ``requirements`` its keywords)."""
    check_dask_input(X, name)
    stats = class_statistics(X, y)
    raise_if_nonfinite(stats)
    check_class_counts(stats.classes, stats.counts, **requirements)
    return stats


def check_dask_input(X, name="This estimator"):
    """Check a ``dask.array`` input's shape and dtype without computing it."""
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D array (n_samples, n_features); got a {X.ndim}-D dask array."
        )
    if X.dtype.kind not in "fiub":
        raise ValueError(f"{name} expects numeric X; got a dask array of dtype {X.dtype}.")
    n, D = X.shape
    if n < 2:
        raise ValueError(
            f"Found array with {n} sample(s) (shape={X.shape}) while a minimum of 2 is required."
        )
    if D < 1:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required."
        )


def raise_if_nonfinite(stats, input_name="X"):
    """Raise scikit-learn's messages for NaN / infinite input."""
    if stats.nonfinite == "nan":
        raise ValueError(f"Input {input_name} contains NaN.")
    if stats.nonfinite == "inf":
        raise ValueError(
            f"Input {input_name} contains infinity or a value too large for dtype('float64')."
        )
    if stats.nonfinite == "overflow":
        raise ValueError(
            f"Input {input_name} has values so large that their squares overflow float64; "
            "rescale the data."
        )


def check_class_counts(classes, counts, *, min_classes=2, min_per_class=1, method="This method"):
    """:func:`graphdr._validation.check_labels` for labels seen only as (classes, counts)."""
    classes = np.asarray(classes)
    check_classification_targets(classes)
    if len(classes) < min_classes:
        raise ValueError(
            f"{method} needs at least {min_classes} classes in y; got {len(classes)} "
            f"(labels: {classes.tolist()[:5]}). Supervised dimensionality reduction "
            "cannot separate a single class."
        )
    counts = np.asarray(counts)
    if min_per_class > 1 and counts.min() < min_per_class:
        small = classes[counts < min_per_class].tolist()[:5]
        raise ValueError(
            f"{method} needs at least {min_per_class} samples in every class; classes "
            f"{small} have fewer ({counts.min()} at the least)."
        )
