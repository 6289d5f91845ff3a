"""Checks of the paths a command reads and writes, made before any long computation: a
``ValueError`` naming the path and what is wrong."""

from __future__ import annotations

import os

__all__ = ["check_readable", "check_writable"]


def check_readable(path):
    """Raise ``ValueError`` unless ``path`` is a readable, non-empty regular file."""
    path = str(path)
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file.")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory; give a data file.")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{path}: cannot be read (permission denied).")
    if os.path.getsize(path) == 0:
        raise ValueError(f"{path}: the file is empty.")


def parquet_file(path):
    """``pyarrow.parquet.ParquetFile`` of ``path``, or a ``ValueError`` naming the file and
    saying what it is instead: a Parquet file begins and ends with ``PAR1``."""
    path = str(path)
    check_readable(path)
    with open(path, "rb") as fh:
        head = fh.read(4)
        fh.seek(max(0, os.path.getsize(path) - 4))
        tail = fh.read(4)
    if head != b"PAR1":
        try:
            with open(path, encoding="utf-8-sig") as fh:
                fh.read(4096).encode()
            kind = "it is text (a CSV file? name it .csv)"
        except UnicodeDecodeError:
            kind = "it does not begin with the Parquet mark PAR1"
        raise ValueError(f"{path}: not a Parquet file: {kind}.")
    if tail != b"PAR1":
        raise ValueError(f"{path}: a truncated or damaged Parquet file (it does not end with "
                         "the Parquet mark PAR1: was it still being written?).")
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow).") \
            from None
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises its own error types
        raise ValueError(f"{path}: not a readable Parquet file ({exc}).") from None


def check_writable(folder, *, create=False):
    """Raise ``ValueError`` unless files can be written in ``folder`` (created with its parents
    when ``create``), before any long computation."""
    import tempfile

    folder = str(folder) or "."
    probe = folder
    while probe and not os.path.exists(probe):
        probe = os.path.dirname(probe.rstrip(os.sep))
    if probe and not os.path.isdir(probe):
        raise ValueError(f"{folder}: cannot write there: {probe} is a file, not a folder.")
    if not os.path.exists(folder):
        if not create:
            raise ValueError(f"{folder}: no such folder.")
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"{folder}: cannot create the folder ({exc.strerror}).") from None
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ValueError(f"{folder}: cannot write there ({exc.strerror}).") from None
