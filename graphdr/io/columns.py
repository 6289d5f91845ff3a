"""The roles of a table's columns: which is the label, which holds the sample ids, and how a
column is named on the command line (a name, any case when unique, or an index).

The rules are stated in :mod:`graphdr.io.files`; every file reader (one file, or the pieces
of a table in several files) applies them through these functions.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["LABEL_NAMES", "ID_NAMES", "is_id_name", "row_counter", "column_index", "name_list",
           "find_label", "find_ids"]

LABEL_NAMES = ("label", "class", "target", "y")
#: column names (any case) that say a column holds the sample ids; so do names that end in
#: ``_id``, `` id``, ``-id`` or ``.id``, begin with ``id_`` or ``id ``, or end in ``Id`` / ``ID``
#: after a lower-case letter or a digit (``sampleId``, ``pixelID``): :func:`is_id_name`
ID_NAMES = ("id", "ids", "index", "unnamed: 0", "sample", "sampleid", "uuid", "guid", "uid",
            "key", "row", "rowid", "row number")
_ID_SUFFIXES = ("_id", " id", "-id", ".id")
_ID_PREFIXES = ("id_", "id ")


def column_index(path, spec, names, what):
    """Index of the column ``spec`` (name, or index negative from the end) among ``names``."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        k = int(spec)
    elif str(spec) in names:
        return names.index(str(spec))
    elif re.fullmatch(r"[+-]?\d+", str(spec).strip()):
        k = int(str(spec))
    else:
        lowered = [n.lower() for n in names]
        if str(spec).lower() in lowered and lowered.count(str(spec).lower()) == 1:
            return lowered.index(str(spec).lower())
        raise ValueError(f"{path}: no {what} {spec!r}; columns: {name_list(names)}.")
    if not -len(names) <= k < len(names):
        raise ValueError(f"{path}: {what} {k} is out of range; the file has {len(names)} "
                         f"columns (0..{len(names) - 1}, or -1 for the last).")
    return k % len(names)


def name_list(names, k=12):
    """``names`` joined by commas, the first ``k`` and how many in all."""
    names = [str(n) for n in names]
    return ", ".join(names[:k]) + (f", ... ({len(names)} in all)" if len(names) > k else "")


def find_label(path, names, numeric, options, has_header, notes):
    """The label column's index: ``options.label_column``, else the column named as
    :data:`LABEL_NAMES` says, else (a file without a header) the only non-numeric column;
    else a ``ValueError`` that lists the text columns first (the likely labels)."""
    if options.label_column is not None:
        return column_index(path, options.label_column, names, "label column")
    matches = [j for j, n in enumerate(names) if n.lower() in LABEL_NAMES]
    text_columns = [j for j, num in enumerate(numeric) if not num]
    if matches:
        return matches[0]
    if not has_header and len(text_columns) == 1:
        notes.append(f"{path}: labels taken from column {text_columns[0]}, the only "
                     "non-numeric one (give --label-column to choose another)")
        return text_columns[0]
    text_names = [names[j] for j in text_columns]
    numeric_names = [n for j, n in enumerate(names) if j not in text_columns]
    listed = (f"Text columns: {name_list(text_names)}; numeric columns: "
              f"{name_list(numeric_names)}." if text_names else
              f"Columns (all numeric): {name_list(names)}.")
    raise ValueError(
        f"{path}: say which column holds the labels with --label-column (a name, or an "
        f"index such as -1 for the last); none is named {'/'.join(LABEL_NAMES)}. " + listed)


def is_id_name(name):
    """Whether a column's name says it holds sample ids (:data:`ID_NAMES` and the rules
    beside it), whatever the column's type."""
    name = str(name).strip()
    low = name.lower()
    if low in ID_NAMES or low.endswith(_ID_SUFFIXES) or low.startswith(_ID_PREFIXES):
        return True
    return len(name) > 2 and name[-2:] in ("Id", "ID") and (name[-3].islower()
                                                             or name[-3].isdigit())


def row_counter(values):
    """Whether a numeric column counts the rows: whole numbers, each one more than the one
    before (at least three rows)."""
    v = np.asarray(values, dtype=np.float64)
    return len(v) >= 3 and bool(np.all(np.isfinite(v))) and bool(np.all(v == np.round(v))) \
        and bool(np.all(np.diff(v) == 1.0))


def find_ids(path, frame, names, label, options, notes, dropped=()):
    """The id column (its index, or None) and the columns left out of the features because
    their names say they are ids. By name first (:func:`is_id_name`); else a numeric column
    that counts the rows (a counter is never silently a feature: in a file sorted by class
    it would give the class away). ``id_column=False``: none, every column stays a feature."""
    if options.id_column is False:
        return None, set()
    by_name = [j for j, n in enumerate(names) if j != label and j not in dropped
               and is_id_name(n)]
    if options.id_column is not None:
        id_col = column_index(path, options.id_column, names, "id column")
    elif by_name:
        exact = [j for j in by_name if names[j].lower() in ID_NAMES]
        id_col = (exact or by_name)[0]
        notes.append(f"{path}: column {names[id_col]!r} taken as the sample ids, not as a "
                     "feature (its name says so; give --id-column none to fit it as a "
                     "feature)")
    else:
        import pandas as pd

        counters = [j for j, n in enumerate(names) if j != label and j not in dropped
                    and pd.api.types.is_numeric_dtype(frame[n]) and row_counter(frame[n])]
        id_col = counters[0] if counters else None
        if id_col is not None:
            v = frame[names[id_col]].to_numpy()
            notes.append(f"{path}: column {names[id_col]!r} counts the rows ({v[0]:.0f}, "
                         f"{v[1]:.0f}, {v[2]:.0f}, ...): taken as the sample ids, not as a "
                         "feature (give --id-column none to fit it as a feature)")
    others = {j for j in by_name if j != id_col}
    if others:
        notes.append(f"{path}: column(s) {', '.join(repr(names[j]) for j in sorted(others))} left out "
                     "of the features: their names say they are ids (rename them, or give "
                     "--id-column none, to fit them)")
    return id_col, others
