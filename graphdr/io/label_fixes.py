"""Label fixes made on a map's page, applied to a data set's labels (``graphdr map
--label-fixes FILE``).

The page downloads the fixes as CSV with the header ``id,old label,new label``: one row per
sample whose label was changed, ``old label`` the label the page showed (empty for an
unlabelled sample), ``new label`` the one chosen (empty: no label). Text cells follow graphdr's
spreadsheet rule (:func:`graphdr._outputs.spreadsheet_safe`) and are read back through
:func:`graphdr._outputs.from_spreadsheet_safe`. A file is applied whole or not at all: an id
the data does not have, an id fixed twice, or an old label that is not the data's label (fixes
made on another version of the data) is a ``ValueError`` naming the file and its line, and
nothing is changed.
"""

from __future__ import annotations

import csv

import numpy as np

from .._outputs import from_spreadsheet_safe
from .._validation import unlabelled_mask

__all__ = ["FIXES_HEADER", "read_label_fixes", "apply_label_fixes"]

#: the header of a label-fixes file, as the page writes it
FIXES_HEADER = ("id", "old label", "new label")


def read_label_fixes(path):
    """The fixes of the file at ``path``: a list of ``(line, id, old label, new label)``
    (texts as the page meant them); a ``ValueError`` naming the file and line when the file
    is not such a file."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.reader(fh))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such label-fixes file.") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text; a label-fixes file is the CSV the map's "
                         "page downloads.") from None
    except csv.Error as exc:
        raise ValueError(f"{path}: not a readable CSV ({exc}).") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror}).") from None
    if not rows:
        raise ValueError(f"{path}: empty; a label-fixes file begins with the header "
                         f"{','.join(FIXES_HEADER)}.")
    header = tuple(from_spreadsheet_safe(c).strip().lower() for c in rows[0])
    if header != FIXES_HEADER:
        raise ValueError(f"{path}: line 1: the header must be {','.join(FIXES_HEADER)} (the "
                         f"map page's download); got {','.join(rows[0])[:80]!r}.")
    fixes = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue  # (a blank line)
        if len(row) != 3:
            raise ValueError(f"{path}: line {line}: {len(row)} cells; a fix has 3 (id, old "
                             "label, new label).")
        fixes.append((line, *(from_spreadsheet_safe(c) for c in row)))
    return fixes


def apply_label_fixes(path, labels, ids=None, label_empty=None, source="the data"):
    """The ``labels`` of ``source`` with the fixes of the file at ``path`` applied.

    Parameters
    ----------
    path : str or Path
        A label-fixes file (module docstring).
    labels : array of shape (n,)
        The labels as read (unlabelled rows ``-1``, as text or number).
    ids : array of shape (n,) or None
        The rows' ids (the file's id column); None: the row numbers from 0, as the page and
        the map's CSV name them.
    label_empty : array of bool of shape (n,) or None
        Rows whose label cell was empty (written empty again).
    source : str
        The data's name, for the messages.

    Returns
    -------
    labels, label_empty, changed : the new labels (a copy; text labels where a new label is
        not of the labels' number type), the rows now without a label cell, and the number of
        rows whose label changed.
    """
    fixes = read_label_fixes(path)
    labels = np.asarray(labels)
    n = len(labels)
    names = [str(i) for i in range(n)] if ids is None else [str(i) for i in np.asarray(ids)]
    row_of = {}
    for r, name in enumerate(names):
        row_of.setdefault(name, []).append(r)
    unlabelled = unlabelled_mask(labels)
    empty = np.zeros(n, bool) if label_empty is None else np.asarray(label_empty, bool).copy()
    seen, planned = {}, []
    for line, name, old, new in fixes:
        rows = row_of.get(name)
        what = "ids (its id column)" if ids is not None else "row numbers (from 0; no id column)"
        if rows is None:
            raise ValueError(f"{path}: line {line}: id {name!r} is not one of {source}'s "
                             f"{what}; nothing applied.")
        if len(rows) > 1:
            raise ValueError(f"{path}: line {line}: id {name!r} names {len(rows)} rows of "
                             f"{source}; nothing applied.")
        if name in seen:
            raise ValueError(f"{path}: line {line}: id {name!r} is fixed twice (line "
                             f"{seen[name]} too); nothing applied.")
        seen[name] = line
        r = rows[0]
        now = "" if unlabelled[r] else str(labels[r])
        if old != now:
            raise ValueError(f"{path}: line {line}: id {name!r}: the file says its label was "
                             f"{old!r}, {source} says {now!r} (fixes made on another version "
                             "of the data?); nothing applied.")
        planned.append((r, new))
    out = labels.copy()
    if labels.dtype.kind in "iuf":
        try:  # (number labels stay numbers when every new label is one)
            values = [labels.dtype.type(new) if new else -1 for _, new in planned]
        except (TypeError, ValueError):
            out, values = labels.astype(str).astype(object), [new or "-1" for _, new in planned]
    else:
        out = labels.astype(object)
        values = [new or "-1" for _, new in planned]
    changed = 0
    for (r, new), value in zip(planned, values):
        changed += int(("" if unlabelled[r] else str(labels[r])) != new)
        out[r] = value
        empty[r] = not new
    return out, empty, changed
