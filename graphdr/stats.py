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
from scipy.linalg import blas as _blas
from sklearn.utils.multiclass import check_classification_targets

from .sampling import RoundedKeyPass, row_keys

__all__ = ["ClassStatistics", "class_statistics", "is_dask_array", "check_class_counts",
           "check_dask_input", "scaled_class_statistics", "power_of_two_scale"]

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


def _dense_statistics(X, codes, classes, block_rows=_BLOCK_ROWS, key_pass=None):
    r"""Statistics of a dense NumPy array in one pass, on one shift for all row blocks.

    The shift :math:`s` is the mean of about 1024 rows spread evenly over ``X`` (close to the
    mean :math:`m`, so :math:`m - s` is of the order of the data's spread, not its offset). Each
    block of rows is shifted into a reused float64 buffer (which also converts float32 input),
    then :math:`G_s \mathrel{+}= X_s^\top X_s` (a symmetric rank-k update of the upper
    triangle, in place) and :math:`U_s \mathrel{+}= E_b^\top X_s` with the block's one-hot
    class indicator ``E_b``:
    one read of ``X``, no copy of it, no separate mean pass and no merge. With a ``key_pass``
    (:class:`graphdr.sampling.RoundedKeyPass`) each block is first copied as float64 and fed
    to it, and shifted from that copy: the rows' content keys in the same read of ``X``.
    """
    n, D = X.shape
    C = len(classes)
    counts = np.bincount(codes, minlength=C).astype(np.int64)
    if n == 0:
        return _empty(D, classes)
    b = max(1, min(int(block_rows), n))
    with np.errstate(all="ignore"):
        shift = np.mean(X[:: max(1, n // 1024)], axis=0, dtype=np.float64)
        gram = np.zeros((D, D), order="F")  # upper triangle, updated in place by dsyrk
        sums = np.zeros((C, D))
        buf = np.empty((b, D))
        values = None if key_pass is None else np.empty((b, D))
        onehot = np.zeros((b, C))
        for a in range(0, n, b):
            Xb = X[a : a + b]
            m = Xb.shape[0]
            Xs, E = buf[:m], onehot[:m]
            if key_pass is not None:
                np.add(Xb, 0.0, out=values[:m])  # float64, -0.0 as 0.0: the keys' input
                key_pass.add(a, values[:m])
                Xb = values[:m]
            np.subtract(Xb, shift, out=Xs)
            gram = _blas.dsyrk(1.0, Xs.T, beta=1.0, c=gram, trans=0, lower=0, overwrite_c=1)
            E[:] = 0.0
            E[np.arange(m), codes[a : a + b]] = 1.0
            sums += E.T @ Xs
    gram = np.triu(gram) + np.triu(gram, 1).T
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


def class_statistics(X, y, *, n_classes=None, block_rows=None, with_row_keys=False):
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
        in cache, 1024 when the row keys are computed too, and 8192 for sparse ones).
    with_row_keys : bool
        Also return the rows' content keys (:func:`graphdr.sampling.row_keys`), computed in
        the same pass for a dense NumPy array (a separate pass for other input).

    Returns
    -------
    stats : ClassStatistics
        Check ``stats.nonfinite`` before use.
    keys : graphdr.sampling.RowKeys
        Only with ``with_row_keys``.
    """
    if is_dask_array(X):
        stats = _dask_statistics(X, y, n_classes)
        return (stats, row_keys(X)) if with_row_keys else stats
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
        # a block of at most ~4 MB (but 256 rows) stays in cache for wide data too; with the
        # keys' buffers beside it, at most 1024 rows
        default = max(256, min(1024 if with_row_keys else _DENSE_BLOCK_ROWS,
                               (1 << 19) // max(X.shape[1], 1)))
        b = block_rows or default
        key_pass = RoundedKeyPass(*X.shape, b) if with_row_keys else None
        stats = _dense_statistics(X, codes, classes, b, key_pass)
        return (stats, key_pass.row_keys(X)) if with_row_keys else stats
    block_rows = block_rows or _BLOCK_ROWS
    parts = [
        chunk_statistics(X[a : a + block_rows], y[a : a + block_rows], n_classes)
        for a in range(0, X.shape[0], block_rows)
    ]
    stats = _merge_all(parts) if parts else _empty(X.shape[1], np.arange(n_classes or 0))
    return (stats, row_keys(X)) if with_row_keys else stats


def power_of_two_scale(top):
    """``2**e`` with ``top / 2**e`` in ``[0.5, 1)`` when ``top`` is outside ``[2**-64, 2**64]``,
    else 1.0 (dividing by a power of two is exact)."""
    top = float(top)
    if top == 0.0 or 2.0**-64 <= top <= 2.0**64:
        return 1.0
    return float(2.0 ** np.frexp(top)[1])


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


def scaled_class_statistics(X, y_encoded, n_classes, *, with_row_keys=False):
    """:func:`class_statistics` of ``X / scale``, ``scale`` = :func:`power_of_two_scale` of
    ``max |X|``, for a validated NumPy or sparse ``X``; returns ``(stats, scale)``, and the
    row keys of ``X`` (not of ``X / scale``) with ``with_row_keys``.

    Squares of ``X * 1e-300`` underflow and those of ``X * 1e150`` overflow. ``max |X|`` is only
    computed (one more pass) when the bounds of :func:`_magnitude_bounds` leave the scale in
    doubt; otherwise the statistics of the single pass are used as they are. NaN/inf raise the
    errors of :func:`raise_if_nonfinite`.
    """
    result = class_statistics(X, y_encoded, n_classes=n_classes, with_row_keys=with_row_keys)
    stats, keys = result if with_row_keys else (result, None)
    extra = (keys,) if with_row_keys else ()
    if stats.nonfinite in ("nan", "inf"):
        raise_if_nonfinite(stats)
    if stats.nonfinite is None and stats.n > 0:
        lower, upper = _magnitude_bounds(stats)
        if 2.0**-64 <= lower and upper <= 2.0**64:
            return (stats, 1.0) + extra
    values = X.data if sp.issparse(X) else X
    scale = power_of_two_scale(abs(values).max()) if values.size else 1.0
    if scale != 1.0:
        stats = class_statistics(X / scale, y_encoded, n_classes=n_classes)
    raise_if_nonfinite(stats)
    return (stats, scale) + extra


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
