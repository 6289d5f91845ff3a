"""Read the array files users have: LIBSVM / svmlight and ``.npz`` (tables:
:mod:`graphdr.io.files`).

LIBSVM / svmlight
    Read sparse; features that no row uses are left out before the matrix is made dense (a line
    ``1 2000000000:1.0`` is one feature, not two billion). Labels that are whole numbers stay
    integers.

``.npz``
    Plain arrays only: a file holding pickled objects is refused, never unpickled.
"""

from __future__ import annotations

import re
import zipfile

import numpy as np

from .paths import check_readable

__all__ = ["read_svmlight", "read_npz", "MAX_DENSE_BYTES"]

#: the largest dense matrix a LIBSVM file may become (bytes)
MAX_DENSE_BYTES = 4 << 30


def read_svmlight(path):
    """A LIBSVM/svmlight file as a dense ``(X, y, feature_names)``: only the features that some
    row uses are kept (their original 1-based indices as names); labels that are whole numbers
    become integers."""
    from sklearn.datasets import load_svmlight_file

    path = str(path)
    check_readable(path)
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if b"\x00" in head or not _utf8(head, cut=len(head) == 65536):
        raise ValueError(f"{path}: not a text file; a LIBSVM file is text lines "
                         "'label index:value ...'.")
    try:
        X, y = load_svmlight_file(path)
    except (ValueError, UnicodeDecodeError, OverflowError) as exc:
        detail = str(exc) if str(exc).isprintable() and len(str(exc)) < 200 else "unreadable line"
        raise ValueError(f"{path}: not a valid LIBSVM/svmlight file ({detail}).") from None
    import scipy.sparse as sp

    X.eliminate_zeros()
    used = np.unique(X.indices)  # never a column per index up to the largest one
    if len(used) == 0:
        raise ValueError(f"{path}: no row has a nonzero feature.")
    X = sp.csr_matrix((X.data, np.searchsorted(used, X.indices), X.indptr),
                      shape=(X.shape[0], len(used)))
    size = X.shape[0] * X.shape[1] * 8
    if size > MAX_DENSE_BYTES:
        raise ValueError(f"{path}: {X.shape[0]} rows x {X.shape[1]} used features would take "
                         f"{size / 2**30:.1f} GiB as a dense matrix (at most "
                         f"{MAX_DENSE_BYTES / 2**30:.0f} GiB); reduce the features first.")
    y = np.asarray(y)
    if np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53):
        y = y.astype(np.int64)
    # load_svmlight_file counts features from 0 when the file does; name them as written
    base = 0 if _zero_based(path) else 1
    return X.toarray(), y, [str(int(j) + base) for j in used]


def _utf8(raw, cut=False):
    """Whether ``raw`` is UTF-8 text (``cut``: it may end inside a character)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return cut and exc.reason == "unexpected end of data"
    return True


def _zero_based(path):
    with open(path, "rb") as fh:
        for line in fh:
            if re.search(rb"(^|\s)0:", line.split(b"#")[0]):
                return True
    return False


def read_npz(path):
    """The arrays of an ``.npz`` file (a dict), with a clear error for a broken or pickled one."""
    path = str(path)
    check_readable(path)
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic not in (b"PK\x03\x04", b"PK\x05\x06"):
        raise ValueError(f"{path}: not an .npz file (an .npz is a zip archive of arrays, "
                         "written by numpy.savez).")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ValueError(f"{path}: not a readable .npz file ({type(exc).__name__}: {exc}); "
                         "write it with numpy.savez.") from None
    except ValueError as exc:
        if "pickle" in str(exc):
            raise ValueError(f"{path}: an array in this .npz holds Python objects; graphdr "
                             "never unpickles files: save plain numeric or text arrays.") \
                from None
        raise ValueError(f"{path}: not a readable .npz file ({exc}).") from None
