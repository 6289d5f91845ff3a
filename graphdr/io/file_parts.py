"""One table stored as several files -- a Parquet dataset's files, CSV files with the same
columns -- or as one file larger than memory, read lazily with the rules of
:func:`graphdr.io.files.read_table`.

A file larger than ``part_bytes`` is read in pieces (:class:`~graphdr.io.files.Part`): a
text file by byte ranges that end at a line's end (one row per line: a quoted cell holding a
line break cannot be split, and such a file is read whole), a Parquet file by its row groups.

The first file decides the columns' roles (the label, the ids, the features) as
:func:`~graphdr.io.files.read_table` finds them; every file is then read with those roles
given by name, so a file whose columns differ is an error naming it. :func:`read_parts` reads
every file once, one at a time (its labels and ids are kept, its features dropped), so that a
bad cell anywhere is a :class:`ValueError` naming its file and line before any long
computation (the text of the hover and colour columns the options name is kept too,
:class:`KeptColumns`); :meth:`PartedTable.features` is a ``dask.array`` that reads each file again when
it is computed, one chunk per file, the same numbers as the in-memory reader's.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from .._validation import unlabelled_mask
from .columns import column_index
from .files import Part, ReadOptions, read_features, read_table
from .paths import parquet_file

__all__ = ["PartedTable", "KeptColumns", "data_files", "read_parts", "table_parts", "in_memory_bytes",
           "map_bytes", "table_bytes", "table_shape", "dask_route_bytes",
           "fit_rows_within"]

#: a file larger than this is read in pieces of about this size
PART_BYTES = 256 * 2**20

#: the suffixes of the files a folder's table is read from
TABLE_SUFFIXES = (".parquet", ".pq", ".csv", ".tsv", ".txt")


def data_files(source):
    """The files of one table: a folder (its files of one :data:`TABLE_SUFFIXES` kind, sorted
    by name), a glob pattern, or a list of paths; ``ValueError`` naming ``source`` when none."""
    if isinstance(source, (list, tuple)):
        paths = [str(p) for p in source]
    elif os.path.isdir(source):
        found = sorted(os.path.join(source, f) for f in os.listdir(source)
                       if f.lower().endswith(TABLE_SUFFIXES) and not f.startswith((".", "_")))
        kinds = {os.path.splitext(f)[1].lower() in (".parquet", ".pq") for f in found}
        if len(kinds) > 1:
            raise ValueError(f"{source}: the folder holds both Parquet and text files; give a "
                             "glob pattern of the ones to read (for example "
                             f"{os.path.join(str(source), '*.parquet')!r}).")
        paths = found
    else:
        paths = sorted(glob.glob(str(source)))
    if not paths:
        raise ValueError(f"{source}: no data files (a folder of .parquet or .csv files, a glob "
                         "pattern such as 'parts/*.csv', or a list of files).")
    return paths


def table_parts(source, part_bytes=PART_BYTES):
    """The pieces the table of ``source`` is read in: ``(path, part)`` pairs, ``part`` None
    for a whole file or a :class:`~graphdr.io.files.Part` of a large one."""
    out = []
    for path in data_files(source):
        size = os.path.getsize(path)
        if size <= part_bytes:
            out.append((path, None))
        elif path.lower().endswith((".parquet", ".pq")):
            out += [(path, p) for p in _parquet_parts(path, part_bytes)]
        else:
            out += [(path, p) for p in _text_parts(path, part_bytes)]
    return out


def _parquet_parts(path, part_bytes):
    meta = parquet_file(path).metadata
    parts, start, row, size = [], 0, 1, 0
    for g in range(meta.num_row_groups):
        size += meta.row_group(g).total_byte_size
        if size >= part_bytes or g == meta.num_row_groups - 1:
            parts.append(Part(start, g + 1, row))
            row += sum(meta.row_group(k).num_rows for k in range(start, g + 1))
            start, size = g + 1, 0
    return parts


def _text_parts(path, part_bytes):
    """Byte ranges of about ``part_bytes`` ending at line ends, each with its first line's
    number; the whole file when its encoding is not ASCII-compatible (UTF-16) or a quote
    mark could hold a line break across a range's end."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        head = fh.read(4)
        if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head:
            return [Part(0, size, 1)]
        parts, start, line = [], 0, 1
        while start < size:
            stop = min(start + part_bytes, size)
            fh.seek(stop)
            stop += len(fh.readline()) if stop < size else 0
            fh.seek(start)
            chunk = fh.read(stop - start)
            if b'"' in chunk:  # quoted cells may span lines: no safe place to cut
                return [Part(0, size, 1)]
            if chunk.strip():
                parts.append(Part(start, stop, line))
            line += chunk.count(b"\n")
            start = stop
    return parts


#: the in-memory map's bytes per cell of the table and per row beside them (its graphs,
#: embedding, index and page), above the process's own (:data:`PROCESS_BYTES`); an upper
#: bound of the measurements in ``docs/history.rst``, "graphdr map in memory and on a Dask
#: cluster": 10^6 x 36 features took 2.24 GiB in all
MAP_CELL_BYTES, MAP_ROW_BYTES = 48, 400
#: a map process's own memory before any data (Python, NumPy, pandas, scikit-learn, graphdr)
#: with NN-descent's compiled code and its search's temporaries: a Dask route's process
#: fitting 95,000 of 10^6 rows by NN-descent took 0.44 GiB more than one fitting 20,000 by
#: the exact search (the same section of ``docs/history.rst``), 4.5 times what :func:`map_bytes` counts
PROCESS_BYTES = 600 * 2**20
#: the ``graphdr map`` process's memory on the Dask route, whatever is fitted: per row of the
#: table (its labels, ids and content keys) and per row of its page (at most 10^6: their
#: places, hover and the page's text); upper bounds of the same measurements (0.71 GiB with
#: 33,000 rows of 10^6 fitted; 3.03 GiB with 10^6 of 10^7 fitted; ``docs/history.rst``,
#: "graphdr map of 10^7 rows on a Dask cluster")
TABLE_ROW_BYTES, PAGE_ROW_BYTES = 60, 340
#: the map's page and picture draw at most this many rows
PAGE_POINTS = 1_000_000
#: a local Dask worker's memory before its model (with its nanny process; 0.35 to 0.5 GiB
#: measured, the more with the NN-descent index's compiled code) ...
WORKER_BYTES = 500 * 2**20
#: ... and per row of the fitted model it places with (training features, map and neighbour
#: index), per feature and per row (1.15 GiB a worker with 10^6 rows of 36 features fitted)
MODEL_CELL_BYTES, MODEL_ROW_BYTES = 12, 270
#: the Dask route is held below this share of the in-memory map's estimate (which is an upper
#: bound: 2.57 GiB estimated, 2.25 GiB measured at 10^6 x 36; a route fitting 192,000 rows
#: held below the whole estimate took 2.34 GiB in all)
IN_MEMORY_SHARE = 0.85
#: the rows the Dask route fits by default at most: past 10^6 a larger fit bought no accuracy
#: on the scale benchmark (``benchmarks/results/maps2d_scale.md``), and costs time
FIT_ROWS_MAX = 1_000_000
#: ... and at least (a budget too small for this many is exceeded rather than the map spoilt)
FIT_ROWS_MIN = 20_000


def map_bytes(rows, cols):
    """About the memory the map of ``rows`` x ``cols`` takes in one process beside the
    process's own: :data:`MAP_CELL_BYTES` per cell, :data:`MAP_ROW_BYTES` per row."""
    return int(rows * (MAP_CELL_BYTES * cols + MAP_ROW_BYTES))


def table_shape(source):
    """``(rows, columns)`` of the table of ``source`` (every column, ids and labels too): from
    the Parquet files' metadata, or estimated from a text file's size and first lines."""
    rows = cols = 0
    for path in data_files(source):
        if path.lower().endswith((".parquet", ".pq")):
            meta = parquet_file(path).metadata
            rows, cols = rows + meta.num_rows, max(cols, meta.num_columns)
        else:
            with open(path, "rb") as fh:
                lines = fh.read(2**20).splitlines()[:1000]
            if not lines:
                continue
            width = max(1, sum(len(ln) + 1 for ln in lines) // len(lines))
            sep = max((b",", b";", b"\t", b"|"), key=lambda c: lines[0].count(c))
            rows += os.path.getsize(path) // width
            cols = max(cols, lines[0].count(sep) + 1)
    return rows, cols


def in_memory_bytes(source, options=None):
    """About the memory a map of the table of ``source`` takes in one process beside the
    process's own (:func:`map_bytes` of :func:`table_shape`)."""
    return map_bytes(*table_shape(source))


def dask_route_bytes(m, n, d, local_workers=0):
    """About the memory of the Dask route fitting ``m`` of ``n`` rows of ``d`` features: the
    ``graphdr map`` process (its own, :func:`table_bytes`, the fit) and ``local_workers``
    local workers holding the fitted model (:func:`fit_rows_within`)."""
    model_row = MODEL_CELL_BYTES * d + MODEL_ROW_BYTES
    return (PROCESS_BYTES + table_bytes(n) + map_bytes(m, d)
            + local_workers * (WORKER_BYTES + m * model_row))


def table_bytes(n):
    """The ``graphdr map`` process's memory on the Dask route for a table of ``n`` rows beside
    its fit: :data:`TABLE_ROW_BYTES` per row, :data:`PAGE_ROW_BYTES` per row of its page."""
    return n * TABLE_ROW_BYTES + min(n, PAGE_POINTS) * PAGE_ROW_BYTES


def fit_rows_within(budget, n, d, local_workers=0):
    r"""The rows the Dask route fits when ``--fit-samples`` is ``auto``: the most whose map
    in the ``graphdr map`` process stays within ``budget`` bytes and, with ``local_workers``
    local Dask workers on this machine (each holding the fitted model), keeps the route's total
    below the in-memory map of all ``n`` rows that it replaces:

    .. math::

        P + T + m f \le B, \qquad
        P + T + m f + w (W + m g) \le s\,(P + n f)

    (:math:`P` :data:`PROCESS_BYTES`, :math:`T` the table's and the page's rows
    (:func:`table_bytes`), :math:`f` the map's bytes per row :func:`map_bytes`, :math:`W`
    :data:`WORKER_BYTES`, :math:`g` the model's bytes per row on a worker, :math:`s`
    :data:`IN_MEMORY_SHARE`); ``m`` then clipped to ``[FIT_ROWS_MIN, FIT_ROWS_MAX]`` and to
    ``n``."""
    f = map_bytes(1, d)
    g = MODEL_CELL_BYTES * d + MODEL_ROW_BYTES
    T = table_bytes(n)
    within = max(0, budget - PROCESS_BYTES - T) // f
    below = max(0, int(IN_MEMORY_SHARE * (PROCESS_BYTES + n * f)) - PROCESS_BYTES - T
                - local_workers * WORKER_BYTES) // (f + local_workers * g)
    rows = min(within, below)
    return int(min(n, max(FIT_ROWS_MIN, min(FIT_ROWS_MAX, rows))))


class KeptColumns(Mapping):
    """Some columns of a table by name, as the text written in them, one value per row: the
    hover and colour columns of a table in several files (``graphdr map --hover-columns``,
    ``--color-column``), kept as each file is read. ``names``: every column of the table, in
    its order (a column given by its index is found among them)."""

    def __init__(self, values, names):
        self._values, self.names = dict(values), list(names)

    def __getitem__(self, name):
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def take(self, rows):
        """The same columns at ``rows`` (indices or a mask) of these."""
        return KeptColumns({k: v[np.asarray(rows)] for k, v in self._values.items()},
                           self.names)


@dataclass
class PartedTable:
    """Labels, ids and hover columns of every row of several files (or pieces of a file), and
    their features as a ``dask.array`` (:meth:`features`)."""

    parts: list  # (path, Part or None)
    options: ReadOptions  # the roles fixed by the first file
    feature_names: list
    counts: np.ndarray  # rows per file
    y: np.ndarray
    ids: np.ndarray | None
    id_name: str | None
    notes: list
    label_empty: np.ndarray | None = None  # rows whose label cell was empty
    id_dtype: str | None = None  # the id column's stored type (Parquet integers), else text
    stamps: dict | None = None  # each file's (size, modification time) when it was read
    #: the text of the columns ``options.hover_columns`` names, every row (:class:`KeptColumns`)
    columns: Mapping | None = None

    def features(self):
        """The features of every row, a ``dask.array`` (float64) of one chunk per file, each
        read again with :func:`~graphdr.io.files.read_features` when computed."""
        import dask
        import dask.array as da

        read = dask.delayed(_features, pure=True)
        stamps = self.stamps or {}
        parts = [da.from_delayed(read(path, self.options, part, stamps.get(path)),
                                 shape=(int(c), len(self.feature_names)), dtype=np.float64)
                 for (path, part), c in zip(self.parts, self.counts)]
        return da.concatenate(parts, axis=0)

    @property
    def paths(self):
        """The files read (each once)."""
        return list(dict.fromkeys(path for path, _ in self.parts))


def file_stamp(path):
    """``(size, modification time)`` of a file: what tells that it changed."""
    info = os.stat(path)
    return info.st_size, info.st_mtime_ns


def _features(path, options, part, stamp=None):
    if stamp is not None and file_stamp(path) != tuple(stamp):
        raise ValueError(f"{path}: the file changed while graphdr was mapping it (its rows were "
                         "read and checked before); rerun once it no longer changes.")
    return read_features(path, options, part)


def read_parts(source, options=None, part_bytes=PART_BYTES):
    """A :class:`PartedTable` of the files of ``source`` (:func:`data_files`), a file larger
    than ``part_bytes`` in pieces (:func:`table_parts`)."""
    options = options or ReadOptions()
    if options.categorical == "onehot":
        raise ValueError("categorical='onehot' (--categorical onehot) is not available for a "
                         "table in several files: its columns would depend on every file's "
                         "values. Encode the text columns before, or drop them.")
    parts = table_parts(source, part_bytes)
    stamps = {path: file_stamp(path) for path, _ in parts}  # before any is read
    first_path, first_part = parts[0]
    # a part may be empty of labels; the table may not, unless the options allow it
    first = read_table(first_path, replace(options, every_label_empty=True), first_part)
    fixed = replace(options, every_label_empty=True, label_column=first.label_name,
                    id_column=first.id_name if first.id_name is not None else False,
                    header=first.header, sep=first.sep, decimal=first.decimal)
    ys, ids, counts, notes = [first.y], [first.ids], [len(first.y)], list(first.notes)
    empty, id_dtypes = [first.label_empty], {first.id_dtype}
    names = list(first.columns)
    shown = {names[column_index(first_path, c, names, "hover or colour column")]: []
             for c in options.hover_columns}
    for name, values in shown.items():
        values.append(first.columns[name])
    for path, part in parts[1:]:
        table = read_table(path, fixed, part)
        if table.feature_names != first.feature_names:
            raise ValueError(
                f"{path}: its feature columns differ from those of {first_path} "
                f"({', '.join(table.feature_names[:6])} against "
                f"{', '.join(first.feature_names[:6])}); the files of one table need the "
                "same columns.")
        ys.append(table.y)
        ids.append(table.ids)
        empty.append(table.label_empty)
        id_dtypes.add(table.id_dtype)
        counts.append(len(table.y))
        here = list(table.columns)
        for name, values in shown.items():
            values.append(table.columns[here[column_index(path, name, here,
                                                          "hover or colour column")]])
        notes += table.notes
    if options.unlabelled and not options.every_label_empty and all(
            unlabelled_mask(y).all() for y in ys):
        raise ValueError(f"{source}: every row of the label column {first.label_name!r} is "
                         "unlabelled (-1 or empty) in every file; label the rows of at least 2 "
                         "classes.")
    if len({y.dtype == object for y in ys}) > 1:  # numbers in some files, text in others
        ys = [y if y.dtype == object else np.array([str(v) for v in y.tolist()], dtype=object)
              for y in ys]
        notes.append(f"{source}: the label column holds numbers in some files and text in "
                     "others; every label is read as text")
    return PartedTable(parts, fixed, first.feature_names, np.array(counts), np.concatenate(ys),
                       None if first.ids is None else np.concatenate(ids), first.id_name, notes,
                       np.concatenate(empty), id_dtypes.pop() if len(id_dtypes) == 1 else None,
                       stamps, KeptColumns({k: np.concatenate(v) for k, v in shown.items()},
                                           names))
