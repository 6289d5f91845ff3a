"""One table stored as several files -- a Parquet dataset's files, CSV files with the same
columns -- read lazily with the rules of :func:`graphdr.bench.files.read_table`.

The first file decides the columns' roles (the label, the ids, the features) as
:func:`~graphdr.bench.files.read_table` finds them; every file is then read with those roles
given by name, so a file whose columns differ is an error naming it. :func:`read_parts` reads
every file once, one at a time (its labels and ids are kept, its features dropped), so that a
bad cell anywhere is a :class:`ValueError` naming its file and line before any long
computation; :meth:`PartedTable.features` is a ``dask.array`` that reads each file again when
it is computed, one chunk per file, the same numbers as the in-memory reader's.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, replace

import numpy as np

from .files import ReadOptions, read_table

__all__ = ["PartedTable", "data_files", "read_parts"]

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


@dataclass
class PartedTable:
    """Labels and ids of every row of several files, and their features as a ``dask.array``
    (:meth:`features`)."""

    paths: list
    options: ReadOptions  # the roles fixed by the first file
    feature_names: list
    counts: np.ndarray  # rows per file
    y: np.ndarray
    ids: np.ndarray | None
    id_name: str | None
    notes: list

    def features(self):
        """The features of every row, a ``dask.array`` (float64) of one chunk per file, each
        read again with :func:`~graphdr.bench.files.read_table` when computed."""
        import dask
        import dask.array as da

        read = dask.delayed(lambda path, options: read_table(path, options).X, pure=True)
        parts = [da.from_delayed(read(p, self.options), shape=(int(c), len(self.feature_names)),
                                 dtype=np.float64) for p, c in zip(self.paths, self.counts)]
        return da.concatenate(parts, axis=0)


def read_parts(source, options=None):
    """A :class:`PartedTable` of the files of ``source`` (:func:`data_files`)."""
    options = options or ReadOptions()
    if options.categorical == "onehot":
        raise ValueError("categorical='onehot' (--categorical onehot) is not available for a "
                         "table in several files: its columns would depend on every file's "
                         "values. Encode the text columns before, or drop them.")
    paths = data_files(source)
    first = read_table(paths[0], options)
    fixed = replace(options, label_column=first.label_name,
                    id_column=first.id_name if first.id_name is not None else False)
    ys, ids, counts, notes = [first.y], [first.ids], [len(first.y)], list(first.notes)
    for path in paths[1:]:
        table = read_table(path, fixed)
        if table.feature_names != first.feature_names:
            raise ValueError(
                f"{path}: its feature columns differ from those of {paths[0]} "
                f"({', '.join(table.feature_names[:6])} against "
                f"{', '.join(first.feature_names[:6])}); the files of one table need the "
                "same columns.")
        ys.append(table.y)
        ids.append(table.ids)
        counts.append(len(table.y))
        notes += table.notes
    return PartedTable(paths, fixed, first.feature_names, np.array(counts), np.concatenate(ys),
                       None if first.ids is None else np.concatenate(ids), first.id_name, notes)
