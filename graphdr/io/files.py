"""Read the data files users have: CSV/TSV as spreadsheets save them, LIBSVM, Parquet, ``.npz``.

Every problem is a :class:`ValueError` whose message names the file and, where it applies, the
line and the column, and says what is allowed -- raised before any fit starts.

CSV and other delimited text
    Read with pandas after these checks: the encoding (UTF-8, with or without the byte-order
    mark Excel writes; another encoding with ``encoding=``), the separator (``,`` ``;`` tab or
    ``|``, sniffed from the first lines unless ``sep`` is given), quoted fields, the decimal mark
    (``decimal=','``, or found when the separator is not a comma and the numbers are written
    ``1,5``), a header row (detected: a first row whose field is text above a numeric column;
    ``header=True/False`` to say), every row as long as the header (else the line is named).

    The label column is ``label_column`` (a name, or an index, negative from the end), else the
    column named label, class, target or y (any case), else -- in a file without a header -- the
    only non-numeric column. ``id_column`` names the sample ids (shown on the map, never a
    feature). Without it, a column whose name says it holds ids is taken as the ids, of any
    type, with a note: ``id``, ``index``, ``sample``, ``key``, ``row``, ``Unnamed: 0``, ...
    (:data:`ID_NAMES`, any case), a name ending in ``_id``, `` id`` or ``-id`` (``pixel_id``,
    ``Sample ID``), beginning with ``id_``, or ending in ``Id``/``ID`` after a lower-case letter
    (``sampleId``); further such columns are left out of the features with a note. Else a
    numeric column that counts the rows (whole numbers, each one more than the one before) is
    taken as the ids with a note: a counter is never silently a feature. ``id_column=False``:
    no id column, every column a feature.
    ``drop_columns`` are left out. Missing cells (empty, NA, NaN, ...) are an error naming
    their lines and columns, or with ``na='drop'`` their rows are dropped. A non-numeric feature
    column is an error naming it, or with ``categorical='onehot'`` becomes one 0/1 column per
    value (in sorted order).

LIBSVM / svmlight, ``.npz``
    :mod:`graphdr.io.array_files` (re-exported here).

Parquet
    Read with pandas (needs pyarrow); columns as for CSV. A null cell is an empty cell, whatever
    the column's type and writer (None, NaN, NaT, the NA of pandas' nullable ``string``,
    ``Int64``, ``boolean``, ... types, Arrow's nulls of any type, dictionary-encoded or not): an
    unlabelled row in the label column, an empty id or hover value, a missing feature cell.
    Booleans are the numbers 0 and 1.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .._validation import unlabelled_mask
from .array_files import read_npz, read_svmlight
from .columns import ID_NAMES, LABEL_NAMES, column_index, find_ids, find_label, name_list
from .paths import check_readable, check_writable, parquet_file

__all__ = ["ReadOptions", "Table", "read_table", "read_features", "LABEL_NAMES", "ID_NAMES",
           "read_svmlight", "read_npz", "check_readable", "check_writable"]

SEPARATORS = (",", ";", "\t", "|")
_NA_STRINGS = ["", "NA", "N/A", "n/a", "NaN", "nan", "NULL", "null", "None", "#N/A", "?", "-"]
_SNIFF_LINES = 200
_SHOW = 5  # lines or columns named in a message


@dataclass(frozen=True)
class ReadOptions:
    """How to read a delimited or Parquet file (see the module docstring).

    ``label_column`` and ``id_column``: a name or an index (``int`` or a string of digits,
    negative from the end); ``id_column=False``: no id column, not even a detected one.
    """

    label_column: object = None
    id_column: object = None
    drop_columns: tuple = ()
    sep: str | None = None
    decimal: str | None = None
    header: bool | None = None
    na: str = "error"
    categorical: str = "error"
    encoding: str | None = None
    #: an empty label cell is an unlabelled row, labelled -1 (scikit-learn's convention;
    #: ``graphdr map``), instead of a missing cell
    unlabelled: bool = False
    #: with ``unlabelled``: a label column empty on every row is read (every row unlabelled:
    #: the heavy-tailed map of the data alone, or one part of a table), not refused
    every_label_empty: bool = False
    #: columns shown beside each sample (``graphdr map --hover-columns``): never features,
    #: unless ``hover_features``
    hover_columns: tuple = ()
    hover_features: bool = False

    def __post_init__(self):
        if self.na not in ("error", "drop"):
            raise ValueError(f"na must be 'error' or 'drop'; got {self.na!r}.")
        if self.categorical not in ("error", "onehot"):
            raise ValueError(f"categorical must be 'error' or 'onehot'; got {self.categorical!r}.")
        if self.decimal not in (None, ".", ","):
            raise ValueError(f"decimal must be '.' or ','; got {self.decimal!r}.")
        if self.sep is not None and len(self.sep) != 1:
            raise ValueError(f"sep must be one character; got {self.sep!r}.")


@dataclass
class Table:
    """What a file gave: features, labels, sample ids and the columns kept beside them."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list
    ids: np.ndarray | None = None
    id_name: str | None = None
    columns: Mapping = field(default_factory=dict)  # every column by name, as text (hover)
    notes: list = field(default_factory=list)
    label_name: str | None = None  # the label column's name (files with columns)
    header: bool = True  # whether a text file's first line names the columns
    sep: str | None = None  # a text file's separator and decimal mark, as found
    decimal: str | None = None
    #: rows whose label cell was empty (unlabelled; written back empty, not -1)
    label_empty: np.ndarray | None = None
    #: the id column's stored type (a Parquet integer column: ``'int64'``...; None: text)
    id_dtype: str | None = None


def _decode(path, encoding, part=None, header=False):
    """The text of the file, or of its bytes ``part.start:part.stop`` (a :class:`Part`), with
    the file's first line before them when ``header``; and the number to add to a line of
    that text to give the file's line."""
    with open(path, "rb") as fh:
        if part is None or part.start == 0 and part.line == 1:
            raw = fh.read() if part is None else fh.read(part.stop)
            offset = 0
        else:
            head = fh.readline() if header else b""
            fh.seek(part.start)
            raw = head + fh.read(part.stop - part.start)
            offset = part.line - (2 if header else 1)
    if encoding is None and raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"  # the byte-order mark of UTF-16 (Excel's "Unicode text")
    if encoding is None and b"\x00" in raw[:65536]:
        raise ValueError(f"{path}: not a text file (it contains NUL bytes); give a CSV, LIBSVM, "
                         ".npz or Parquet file, or the text's encoding with --encoding "
                         "(e.g. utf-16).")
    enc = encoding or "utf-8-sig"
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1 + offset
        raise ValueError(
            f"{path}: line {line} is not valid {enc.replace('-sig', '')} text (byte "
            f"0x{raw[exc.start]:02x}); give the file's encoding, e.g. --encoding latin-1."
        ) from None
    except LookupError:
        raise ValueError(f"{path}: unknown encoding {encoding!r}.") from None
    return text.lstrip("\ufeff"), offset


def _first_lines(text, k=_SNIFF_LINES):
    return [ln for ln in text.splitlines()[: 4 * k] if ln.strip()][:k]


def _sniff_separator(lines):
    """The separator that splits the most of the first lines into the same number (> 1) of
    fields (a ragged line is then named by the row-length check)."""
    best = None
    for sep in SEPARATORS:
        counts = [len(r) for r in csv.reader(lines, delimiter=sep)]
        values, freq = np.unique(counts, return_counts=True)
        mode = int(values[np.argmax(freq)])
        if mode < 2:
            continue
        key = (float(freq.max()) / len(counts), mode)
        if best is None or key > best[0]:
            best = (key, sep)
    return "," if best is None else best[1]  # one column: the label check says what is missing


_NUMBER = re.compile(r"^\s*[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?\s*$|^\s*[+-]?(inf|nan)\s*$",
                     re.I)


def _is_number(text):
    return bool(_NUMBER.match(text))


def _has_header(rows):
    """A first row is a header when one of its fields is text above a numeric column, or when
    every field of it is text and some column below is numeric."""
    if len(rows) < 2:
        return True
    first, body = rows[0], rows[1:]
    numeric_below = []
    for j in range(len(first)):
        cells = [r[j] for r in body if j < len(r) and r[j].strip() and r[j].strip() not in
                 _NA_STRINGS]
        numeric_below.append(bool(cells) and all(_is_number(c) for c in cells))
    text_first = [bool(f.strip()) and not _is_number(f) for f in first]
    if any(t and nb for t, nb in zip(text_first, numeric_below)):
        return True
    return all(text_first) and not any(_is_number(c) for r in body for c in r)


def _check_row_lengths(path, text, sep, n_fields, header, offset=0):
    """Every row has as many fields as the first (the line of the first that has not is named)."""
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    for row in reader:
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) != n_fields:
            what = "the header has" if header else "the first row has"
            raise ValueError(f"{path}: line {reader.line_num + offset} has {len(row)} fields, {what} "
                             f"{n_fields} (separator {sep!r}); fix the line or give --sep.")


def _lines(rows, first_line):
    rows = np.asarray(rows)
    shown = ", ".join(str(int(r) + first_line) for r in rows[:_SHOW])
    return shown + (f" and {len(rows) - _SHOW} more" if len(rows) > _SHOW else "")


def read_table(path, options=None, part=None):
    """Read a delimited text or Parquet file into a :class:`Table` (see the module docstring);
    ``part`` (a :class:`Part`): only that piece of the file, its lines named as the file's."""
    return _read(path, options, part, features_only=False)


def read_features(path, options=None, part=None):
    """``read_table(path, options, part).X``, the same numbers, without making the labels' and
    the ids' text (where ``options.unlabelled`` lets the labels decide no row's fate)."""
    return _read(path, options, part, features_only=True)


def _read(path, options, part, features_only):
    import pandas as pd

    options = options or ReadOptions()
    path = str(path)
    check_readable(path)
    notes = []
    if path.lower().endswith((".parquet", ".pq")):
        parquet_file(path)  # a clear error for what is not one
        try:
            frame = pd.read_parquet(path) if part is None else _row_groups(path, part)
        except ImportError:
            raise ValueError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow).") \
                from None
        except Exception as exc:  # pyarrow raises its own error types
            raise ValueError(f"{path}: not a readable Parquet file ({exc}).") from None
        frame.columns = [str(c) for c in frame.columns]
        first_line, has_header = 1 if part is None else part.line, True
        stored = frame
        text = _cached(lambda name: _column_text(stored[name]))
        frame = _numbers(list(stored.columns), text, ".", numeric=stored)
    else:
        text, offset = _decode(path, options.encoding, part, bool(options.header))
        lines = _first_lines(text)
        if not lines:
            raise ValueError(f"{path}: the file has no data (only blank lines).")
        sep = options.sep or _sniff_separator(lines)
        rows = list(csv.reader(lines, delimiter=sep))
        has_header = _has_header(rows) if options.header is None else options.header
        _check_row_lengths(path, text, sep, len(rows[0]), has_header, offset)
        if has_header:
            _check_names(path, [h.strip() for h in rows[0]])
        decimal = options.decimal
        if decimal is None:
            decimal = "." if sep == "," else _sniff_decimal(rows[1 if has_header else 0:])
        if decimal == "," and sep == ",":
            raise ValueError(f"{path}: the separator and the decimal mark are both ','; give "
                             "--sep.")
        try:
            raw = pd.read_csv(io.StringIO(text), sep=sep, header=0 if has_header else None,
                              keep_default_na=False, na_filter=False, skip_blank_lines=True,
                              dtype=str)
        except (pd.errors.ParserError, ValueError) as exc:
            raise ValueError(f"{path}: cannot be read as a table ({exc}).") from None
        if not has_header:
            raw.columns = [str(j) for j in range(raw.shape[1])]
            notes.append(f"{path}: no header row found; columns are numbered 0..."
                         f"{raw.shape[1] - 1} (give --header if the first row is one)")
        table_text = raw
        text = _cached(lambda name: table_text[name].astype(str).str.strip()
                       .to_numpy(dtype=object))
        frame = _numbers(list(raw.columns), text, decimal)
        first_line = (2 if has_header else 1) + offset
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: the file has a header but no data rows.")
    names = [str(c).strip() for c in frame.columns]
    _check_names(path, names)
    renamed = dict(zip(names, frame.columns))
    frame.columns = names
    table = _split(path, frame, lambda name: text(renamed[name]), options, has_header,
                   first_line, notes, features_only)
    if features_only:
        return table  # the features alone
    table.header = has_header
    if not path.lower().endswith((".parquet", ".pq")):
        table.sep, table.decimal = sep, decimal
    elif table.id_name is not None:
        stored_id = stored[renamed[table.id_name]]
        if pd.api.types.is_integer_dtype(stored_id) and not stored_id.isna().any():
            table.id_dtype = str(stored_id.dtype).lower()
    return table


@dataclass(frozen=True)
class Part:
    """A piece of one file: the bytes ``start:stop`` of a text file, whose first line is the
    file's line ``line`` (the file's header line is read before them); or the row groups
    ``start:stop`` of a Parquet file, whose first row is the file's row ``line``."""

    start: int
    stop: int
    line: int


def _row_groups(path, part):

    return parquet_file(path).read_row_groups(range(part.start, part.stop)).to_pandas()


def _check_names(path, names):
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"{path}: repeated column names {name_list(dup)}; give each column its "
                         "own name.")


def _sniff_decimal(rows):
    cells = [c.strip() for r in rows[:_SNIFF_LINES] for c in r if c.strip()]
    comma = sum(bool(re.fullmatch(r"[+-]?\d*,\d+([eE][+-]?\d+)?", c)) for c in cells)
    point = sum(bool(re.fullmatch(r"[+-]?\d*\.\d+([eE][+-]?\d+)?", c)) for c in cells)
    return "," if comma > point else "."


def _numbers(names, text, decimal, numeric=None):
    """The feature view of the columns ``names`` whose text (as written, stripped) ``text(name)``
    gives: a cell in :data:`_NA_STRINGS` is missing (NaN); a column whose every present cell
    is a number becomes float64, the others stay text. ``numeric``: the columns a Parquet file
    already stores as numbers, kept as they are (their text is never made)."""
    import pandas as pd

    out = {}
    for name in names:
        if numeric is not None and _stored_numbers(numeric[name]):
            out[name] = _stored_floats(numeric[name])
            continue
        values = pd.Series(text(name), dtype=object)
        missing = values.isin(_NA_STRINGS)
        values = values.str.replace(",", ".", regex=False) if decimal == "," else values
        parsed = pd.to_numeric(values.where(~missing), errors="coerce")
        if bool((parsed.notna() == ~missing).all()):
            out[name] = _exact_floats(values, missing, parsed)
        else:
            out[name] = pd.Series(text(name), dtype=object).where(~missing)
    return pd.DataFrame(out)


def _exact_floats(values, missing, parsed):
    """The numbers of a column's text, each the float nearest its decimal text (Python's
    ``float``: the same bits as the text written by ``repr``, on every pandas version; pandas 2's
    parser can be one unit in the last place off); ``parsed`` where a text is not one Python
    reads."""
    out = np.full(len(values), np.nan)
    present = ~missing.to_numpy()
    try:
        out[present] = values.to_numpy(dtype=object)[present].astype(np.float64)
    except (TypeError, ValueError):
        return parsed.to_numpy(dtype=np.float64)
    return out


def _cached(text):
    """``text`` (a column's name -> its text) computed once per column."""
    import functools

    return functools.lru_cache(maxsize=None)(text)


class TextColumns(Mapping):
    """Every column of a file by name, as the text written in it (stripped): what
    ``graphdr map`` shows on hover. A column is turned into text when first asked for, so a
    large file's numeric columns never are unless shown."""

    def __init__(self, text, names, rows=None):
        self._text, self._names, self._rows = text, list(names), rows

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        values = np.asarray(self._text(name), dtype=object)
        return values if self._rows is None else values[self._rows]

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def take(self, rows):
        """The same columns at ``rows`` (indices or a mask) of these."""
        rows = np.asarray(rows)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows
        return TextColumns(self._text, self._names,
                           rows if self._rows is None else self._rows[rows])


def _stored_numbers(col):
    """Whether a Parquet column is stored as numbers: a numeric type (nullable ones too; bool
    as 0/1), or booleans with nulls (which pandas reads as objects)."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(col):
        return True
    return col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) == "boolean"


def _stored_floats(col):
    """A column stored as numbers (:func:`_stored_numbers`) as float64, NaN where a cell is
    null (NaN, None, or the NA of pandas' nullable types)."""
    if col.dtype == object:
        col = col.astype("boolean")
    return col.to_numpy(dtype=np.float64, na_value=np.nan)


def _column_text(col):
    """A Parquet column as text, cell by cell (null cells empty, stripped): the same column
    rules as a CSV file's then apply to it (text numbers and decimals are numbers, dates are
    text). A null is empty whatever the column's type: None, NaN, NaT and the NA of pandas'
    nullable types (``string``, ``Int64``, ``boolean``, ...), never the text ``<NA>``."""
    import pandas as pd

    if _stored_numbers(col):
        values = _as_text(pd.Series(_stored_floats(col)))
    else:
        missing = col.isna().to_numpy(dtype=bool)
        values = ["" if m else str(v) for v, m in zip(col, missing)]
    return np.array([v.strip() for v in values], dtype=object)


def _split(path, frame, text, options, has_header, first_line, notes, features_only=False):
    """The columns' roles: ``frame`` is the feature view (numbers, NaN where missing),
    ``text(name)`` a column's text as written (labels, ids and hover values come from it).
    ``features_only``: the features' array alone."""
    import pandas as pd

    names = list(frame.columns)
    numeric = [pd.api.types.is_numeric_dtype(frame[n]) for n in names]
    label = find_label(path, names, numeric, options, has_header, notes)
    # the id column, and columns whose names say they are ids
    dropped = {column_index(path, c, names, "column to drop") for c in options.drop_columns}
    id_col, id_like = find_ids(path, frame, names, label, options, notes, dropped)
    if id_col == label:
        raise ValueError(f"{path}: the id column and the label column are the same "
                         f"({names[label]!r}).")
    if id_col is not None and not features_only:
        _note_repeated_ids(path, names[id_col], text(names[id_col]), notes)
    features = _feature_columns(path, names, label, id_col, dropped, id_like, options)
    # missing cells; an empty label is an unlabelled row when the reader is told so, and
    # any other text (NA, None, ?) is a class
    labels = None
    if not (features_only and options.unlabelled):
        labels = pd.Series(text(names[label]), dtype=object).where(lambda s: s != "", None)
    frame, labels, rows_kept = _missing_cells(path, frame, labels, names, label, features,
                                              options, first_line, notes)
    X, feature_names = _feature_array(path, frame, names, features, options.categorical,
                                      first_line)
    if features_only:
        return X
    y = _labels(path, names[label], labels, frame[names[label]],
                options.unlabelled and not options.every_label_empty)
    ids = None
    if id_col is not None:
        ids = np.asarray(text(names[id_col]), dtype=object)
        ids = ids if rows_kept is None else ids[rows_kept]
    columns = TextColumns(text, names, rows_kept)
    table = Table(X, y, feature_names, ids, names[id_col] if id_col is not None else None,
                  columns, notes, names[label])
    table.label_empty = labels.isna().to_numpy()
    return table


def _note_repeated_ids(path, name, values, notes):
    """Note the rows that repeat an id of the id column ``name`` (``values``: its text)."""
    import pandas as pd

    ids = pd.Series(values, dtype=object)
    repeated = int(ids.duplicated().sum())
    if repeated:
        notes.append(f"{path}: {repeated} row(s) repeat an id of column {name!r} "
                     f"(e.g. {ids[ids.duplicated()].iloc[0]!r}); kept as they are")


def _feature_columns(path, names, label, id_col, dropped, id_like, options):
    """The indices of the feature columns: neither the label nor the ids, nor dropped, nor
    shown only (hover columns, unless ``hover_features``), nor named as ids (``id_like``)."""
    if label in dropped or id_col in dropped:
        raise ValueError(f"{path}: --drop-columns names the label or the id column.")
    shown = {column_index(path, c, names, "hover or colour column")
             for c in options.hover_columns}
    if not options.hover_features:
        dropped |= shown  # for looking, not for fitting
    dropped |= id_like
    features = [j for j in range(len(names)) if j not in dropped and j not in (label, id_col)]
    if not features:
        raise ValueError(f"{path}: no feature columns are left (columns: {name_list(names)}).")
    return features


def _missing_cells(path, frame, labels, names, label, features, options, first_line, notes):
    """``(frame, labels, rows_kept)`` once the rows with a missing feature (or, unless the
    reader takes unlabelled rows, label) are dropped (``na='drop'``; ``rows_kept`` None when
    none is) or refused."""
    rows_kept = None
    missing = frame.iloc[:, features].isna()
    if not options.unlabelled:
        missing.insert(0, names[label], labels.isna())
    used = ([] if options.unlabelled else [label]) + features
    if bool(missing.to_numpy().any()):
        rows = np.flatnonzero(missing.to_numpy().any(axis=1))
        cols = [names[used[j]] for j in np.flatnonzero(missing.to_numpy().any(axis=0))]
        if options.na == "drop":
            notes.append(f"{path}: dropped {len(rows)} row(s) with missing cells (lines "
                         f"{_lines(rows, first_line)})")
            keep = ~missing.to_numpy().any(axis=1)
            frame = frame[keep].reset_index(drop=True)
            rows_kept = np.flatnonzero(keep)
            labels = None if labels is None else labels[keep].reset_index(drop=True)
            if frame.shape[0] == 0:
                raise ValueError(f"{path}: every row has a missing cell.")
        else:
            raise ValueError(
                f"{path}: missing cells in column(s) {name_list(cols, _SHOW)} on line(s) "
                f"{_lines(rows, first_line)}; fill them, or drop those rows with --na drop.")
    return frame, labels, rows_kept


def _feature_array(path, frame, names, features, categorical, first_line):
    """``(X, feature names)``: the numeric feature columns, text ones one-hot encoded
    (``categorical='onehot'``) or refused, and every value checked to be finite."""
    import pandas as pd

    blocks, feature_names = [], []
    for j in features:
        col = frame[names[j]]
        if pd.api.types.is_numeric_dtype(col):
            blocks.append(col.to_numpy(dtype=np.float64)[:, None])
            feature_names.append(names[j])
            continue
        if categorical == "onehot":
            values = col.astype(str).str.strip()
            levels = sorted(set(values))
            blocks.append((values.to_numpy()[:, None] == np.array(levels)[None, :])
                          .astype(np.float64))
            feature_names.extend(f"{names[j]}={v}" for v in levels)
            continue
        raise _not_numeric(path, names[j], col, first_line)
    X = np.hstack(blocks)
    if not np.all(np.isfinite(X)):
        rows, cols = np.nonzero(~np.isfinite(X))
        raise ValueError(f"{path}: infinite or NaN value in column {feature_names[cols[0]]!r} "
                         f"on line {rows[0] + first_line}.")
    return X, feature_names


def _not_numeric(path, name, col, first_line):
    """The error of the text feature column ``name``, naming its first cell that is no number
    (with a hint when it is written with a decimal comma)."""
    import pandas as pd

    present = col.notna().to_numpy()
    # a cell that is no number with either decimal mark, else (a file of points with one
    # "1,5" cell) one that is no number as written
    bad = np.flatnonzero(present & pd.to_numeric(
        col.str.replace(",", ".", regex=False), errors="coerce").isna().to_numpy())
    if not len(bad):
        bad = np.flatnonzero(present & pd.to_numeric(col, errors="coerce").isna().to_numpy())
    example = str(col.iloc[bad[0]])
    comma = bool(re.fullmatch(r"[+-]?\d*,\d+([eE][+-]?\d+)?", example.strip()))
    return ValueError(
        f"{path}: column {name!r} is not numeric (line {bad[0] + first_line}: "
        f"{example!r}"
        + ("; a number with a decimal comma where the file's numbers use a point: write "
           "it with a point" if comma else "")
        + "); drop it with --drop-columns, show it with --hover-columns (map), "
        "name it with --id-column, or encode text columns with --categorical onehot.")


def _labels(path, name, labels, numbers, refuse_empty):
    """The label column: an empty cell (or -1) is an unlabelled row, any other text a class;
    labels that are all numbers stay numbers (whole numbers as integers). ``refuse_empty``: a
    column empty on every row is an error."""
    import pandas as pd

    empty = labels.isna().to_numpy()
    if empty.all() and refuse_empty:
        raise ValueError(f"{path}: the label column {name!r} is empty on every row.")
    if pd.api.types.is_numeric_dtype(numbers) and bool((numbers.notna() == ~labels.isna()).all()):
        y = np.array(numbers.to_numpy(dtype=np.float64))
        y[empty] = -1.0
        whole = np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53)
        y = y.astype(np.int64) if whole else y
    else:
        y = np.array(labels.to_numpy(dtype=object), dtype=object)
        y[empty] = "-1"
    if refuse_empty and unlabelled_mask(y).all():
        raise ValueError(f"{path}: every row of the label column {name!r} is unlabelled (-1 "
                         "or empty); label the rows of at least 2 classes.")
    return y


def _as_text(col):
    import pandas as pd

    if pd.api.types.is_numeric_dtype(col):
        stored = col.to_numpy()
        v = stored.astype(np.float64)
        finite = v[np.isfinite(v)]
        whole = np.all(finite == np.round(finite)) and np.all(np.abs(finite) < 2**53)
        return np.array(["" if a != a else str(int(a)) if whole and np.isfinite(a) else str(s)
                         for a, s in zip(v.tolist(), stored)], dtype=object)
    return col.astype(str).to_numpy(dtype=object)
