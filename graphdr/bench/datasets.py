"""Data sets of ``graphdr bench``: named sets, files, a labelled Swiss roll and an offline suite.

A data set is given on the command line as one of

* a scikit-learn set: ``iris``, ``wine``, ``breast_cancer``, ``digits``;
* a set of the vendored offline suite (package data in ``graphdr/data``, from the UCI machine
  learning repository, CC BY 4.0): ``sonar``, ``ionosphere``, ``heart``, ``led7digit``, ``pima``,
  ``vehicle``, ``vowel``, ``wdbc``;
* ``digits_views`` -- six incomplete views of scikit-learn's digits for multi-view methods
  (:func:`graphdr.multiview.make_multiview_digits`: pooled pixels, orientation histograms,
  Fourier magnitudes, moments, profiles, pure noise); ``digits_views:n=500`` takes a subset,
  ``digits_views:views=5`` the first five views (without the pure-noise one);
* ``balance_scale`` -- the UCI Balance Scale data set, generated from its definition (the UCI
  file is exactly the 625 combinations of left weight, left distance, right weight and right
  distance in 1..5, labelled by which side tips: L, B or R);
* ``swiss_roll`` -- a labelled Swiss roll (paper 000, Figs. 1-2): points of a 2-D strip rolled
  up in 3-D, the class being one of four equal stretches along the roll. Options as
  ``swiss_roll:n=1000:classes=4:noise=0.5``;
* a file path: ``.npz`` with ``X`` and ``y`` (or multi-view ``view_*`` arrays and ``y``; the views
  are concatenated for single-view methods and their column ranges passed to multi-view
  methods), delimited text (``.csv``, ``.tsv``, ``.txt``, ``.tab``, ``.dat``) or Parquet
  (``.parquet``) with a label column, or LIBSVM/svmlight text (``.svm``, ``.libsvm``,
  ``.svmlight``, or any path prefixed ``svmlight:``). How files are read -- separator,
  encoding, header, label and id columns, missing cells, text columns -- is
  :mod:`graphdr.io.files`.

Any named set takes ``per_class=K``: a random subset of ``K`` samples of each class (all of a
class that has fewer), drawn with the seed, e.g. ``digits:per_class=32``.

Labels may be of any type; they are encoded as 0..C-1 with the original names in ``classes``.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from .._validation import unlabelled_mask
from ..io.files import ReadOptions, check_readable, read_npz, read_svmlight, read_table

__all__ = ["Dataset", "load_dataset", "input_files", "without_unlabelled", "builtin_names", "vendored_names",
           "make_labelled_swiss_roll", "make_balance_scale"]

SKLEARN_SETS = ("iris", "wine", "breast_cancer", "digits")
_SVMLIGHT_EXT = (".svm", ".libsvm", ".svmlight")
_TABLE_EXT = (".csv", ".tsv", ".txt", ".tab", ".dat", ".parquet", ".pq")


@dataclass
class Dataset:
    """A labelled data set: ``X`` (float64), ``y`` (0..C-1), class names, optional views."""

    name: str
    X: np.ndarray
    y: np.ndarray
    classes: np.ndarray
    source: str
    views: list | None = None
    ids: np.ndarray | None = None  # sample ids of a file's id column (text)
    id_name: str | None = None
    columns: dict | None = None  # a file's columns by name, as text
    feature_names: list | None = None
    notes: list = field(default_factory=list)  # what the reader decided (printed by the CLI)
    label_name: str | None = None  # a file's label column
    label_empty: np.ndarray | None = None  # rows of a file whose label cell was empty

    @property
    def n_classes(self):
        return len(self.classes)

    def describe(self):
        views = f", {len(self.views)} views" if self.views else ""
        return (
            f"{self.name}: {self.X.shape[0]} samples, {self.X.shape[1]} features, "
            f"{self.n_classes} classes{views} ({self.source})"
        )


def vendored_names():
    """Names of the data sets shipped in ``graphdr/data``."""
    root = resources.files("graphdr") / "data"
    if not root.is_dir():
        return []
    return sorted(p.name[:-4] for p in root.iterdir() if p.name.endswith(".npz"))


def builtin_names():
    """Every data set name that needs no file."""
    return list(SKLEARN_SETS) + vendored_names() + ["balance_scale", "digits_views", "swiss_roll"]


def _encode(name, X, y, source, classes=None, views=None, unlabelled_only=False):
    """The :class:`Dataset` of ``X`` and labels ``y`` (at least two classes; with
    ``unlabelled_only``, also one when every row is unlabelled: a table read for the map of
    the data alone)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"Data set {name!r}: X must be 2-D (samples x features); got {X.shape}.")
    if y.shape != (X.shape[0],):
        raise ValueError(
            f"Data set {name!r}: y must have one label per sample ({X.shape[0]}); got {y.shape}."
        )
    if not np.all(np.isfinite(X)):
        raise ValueError(
            f"Data set {name!r} contains missing or infinite values; impute or drop them first."
        )
    labels, y_enc = np.unique(y, return_inverse=True)
    if classes is not None and len(classes) == len(labels) and np.issubdtype(y.dtype, np.integer):
        names = np.asarray(classes)[labels]
    else:
        names = labels
    if len(labels) < 2 and not (unlabelled_only and unlabelled_mask(labels).all()):
        raise ValueError(f"Data set {name!r} has a single class; at least two are needed.")
    return Dataset(name, X, y_enc.astype(np.intp), np.asarray(names), source, views)


def without_unlabelled(ds):
    """``ds`` without its rows labelled -1 or empty, with a note, when it is a table (CSV,
    Parquet) read as ``graphdr map`` reads it: a benchmark scores every test row by its
    label. Itself otherwise (in LIBSVM and ``.npz`` files -1 is a class, as they write it)."""
    missing = unlabelled_mask(ds.classes)
    if ds.columns is None or not missing.any():
        return ds
    keep = ~missing[ds.y]
    if np.count_nonzero(keep) == 0:
        raise ValueError(f"Data set {ds.name!r}: no row has a label.")
    kept = np.flatnonzero(~missing)
    classes, y = ds.classes[kept], np.searchsorted(kept, ds.y[keep])
    if len(classes) < 2:
        raise ValueError(f"Data set {ds.name!r} has labelled rows of a single class "
                         f"({classes[0] if len(classes) else ''}) once the rows labelled -1 or "
                         "empty, which mark unlabelled rows, are left out; at least two are "
                         "needed (if -1 is one of your classes, relabel it).")
    columns = _take_columns(ds.columns, keep)
    note = (f"{ds.name}: left out {int((~keep).sum())} row(s) without a label (empty or -1): a "
            "benchmark scores every row by its label (--label-fraction hides labels itself)")
    return dataclasses.replace(
        ds, X=ds.X[keep], y=y.astype(np.intp), classes=classes,
        views=None if ds.views is None else [v[keep] for v in ds.views],
        ids=None if ds.ids is None else ds.ids[keep], columns=columns,
        notes=list(ds.notes) + [note])


def make_labelled_swiss_roll(n=1000, classes=4, noise=0.5, random_state=0):
    """Swiss roll with labels: class ``k`` is the ``k``-th of ``classes`` stretches of the roll.

    Returns ``(X, y)`` with ``X`` of shape ``(n, 3)``.
    """
    from sklearn.datasets import make_swiss_roll

    X, t = make_swiss_roll(n_samples=int(n), noise=float(noise), random_state=random_state)
    edges = np.linspace(t.min(), t.max(), int(classes) + 1)[1:-1]
    return X, np.searchsorted(edges, t)


def make_balance_scale():
    """The UCI Balance Scale data: ``(X, y)``, 625 x 4, labels ``'L'``, ``'B'``, ``'R'``.

    Every combination of left weight, left distance, right weight and right distance in 1..5
    (the UCI file lists exactly these 625 rows); the scale tips to the side with the larger
    weight x distance, or balances (B, 49 samples; L and R 288 each).
    """
    grid = np.array(np.meshgrid(*[np.arange(1, 6)] * 4, indexing="ij")).reshape(4, -1).T
    left, right = grid[:, 0] * grid[:, 1], grid[:, 2] * grid[:, 3]
    y = np.where(left > right, "L", np.where(left < right, "R", "B"))
    return grid.astype(np.float64), y


def _per_class(ds, k, random_state):
    """A random subset of ``k`` samples per class (all of a smaller class), in data order."""
    if k < 1:
        raise ValueError(f"per_class must be a positive integer; got {k}.")
    rng = np.random.default_rng(random_state)
    keep = []
    for c in range(ds.n_classes):
        members = np.flatnonzero(ds.y == c)
        keep.append(members if len(members) <= k else rng.choice(members, k, replace=False))
    keep = np.sort(np.concatenate(keep))
    return dataclasses.replace(
        ds, name=f"{ds.name}_{k}pc", X=ds.X[keep], y=ds.y[keep],
        source=f"{ds.source}; {k} random samples per class",
        ids=None if ds.ids is None else ds.ids[keep],
        columns=_take_columns(ds.columns, keep))


def _take_columns(columns, rows):
    """A file's text columns at ``rows``, still converted only when asked for."""
    if columns is None:
        return None
    if hasattr(columns, "take"):
        return columns.take(rows)
    return {k: np.asarray(v)[rows] for k, v in columns.items()}


def _load_npz(name, path, source):
    data = read_npz(path)
    keys = list(data)
    if "y" not in keys:
        raise ValueError(f"{path}: an .npz data set needs an array 'y'; it has {keys}.")
    view_keys = sorted(
        (k for k in keys if k.startswith("view_")),
        key=lambda k: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", k)],
    )
    classes = data.get("classes")
    y = data["y"]
    if y.ndim != 1:
        raise ValueError(f"{path}: 'y' must be one label per sample; it has shape {y.shape}.")
    if len(y) == 0:
        raise ValueError(f"{path}: the data set has no samples ('y' is empty).")
    try:
        if view_keys:
            blocks = [np.asarray(data[k], dtype=np.float64).reshape(len(y), -1)
                      for k in view_keys]
            stops = np.cumsum([b.shape[1] for b in blocks])
            views = [slice(int(a), int(b)) for a, b in zip(np.r_[0, stops[:-1]], stops)]
            return _encode(name, np.hstack(blocks), y, source, classes, views)
        if "X" not in keys:
            raise ValueError(
                f"{path}: an .npz data set needs 'X' (or multi-view 'view_*' arrays); "
                f"it has {keys}."
            )
        X = np.asarray(data["X"], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith(str(path)):
            raise
        raise ValueError(f"{path}: the arrays are not numeric samples x features matching 'y' "
                         f"({exc}).") from None
    if X.ndim < 2 or X.shape[0] != len(y):
        raise ValueError(f"{path}: 'X' must have one row per label ({len(y)}); it has shape "
                         f"{X.shape}.")
    return _encode(name, X.reshape(X.shape[0], -1), y, source, classes)


def _load_parts(source, options):
    from ..io.file_parts import read_parts

    table = read_parts(source, options)
    name = os.path.basename(os.path.normpath(source.split("*")[0])) or "table"
    ds = _encode(name, table.features().compute(scheduler="sync"), table.y,
                 f"{len(table.paths)} files of {source}",
                 unlabelled_only=options is not None and options.every_label_empty)
    ds.ids, ds.id_name, ds.feature_names = table.ids, table.id_name, table.feature_names
    ds.notes, ds.label_name = table.notes, table.options.label_column
    ds.label_empty, ds.columns = table.label_empty, table.columns
    return ds


def _load_table(name, path, options):
    table = read_table(path, options)
    kind = "Parquet" if path.lower().endswith((".parquet", ".pq")) else "CSV"
    ds = _encode(name, table.X, table.y, f"{kind} file {path}",
                 unlabelled_only=options is not None and options.every_label_empty)
    ds.ids, ds.id_name, ds.columns = table.ids, table.id_name, table.columns
    ds.feature_names, ds.notes = table.feature_names, table.notes
    ds.label_name, ds.label_empty = table.label_name, table.label_empty
    return ds


def _load_svmlight(name, path):
    X, y, features = read_svmlight(path)
    ds = _encode(name, X, y, f"LIBSVM file {path}")
    ds.feature_names = features
    return ds


def _options(parts, allowed):
    opts = {}
    for item in parts:
        key, sep, value = item.partition("=")
        if not sep or key not in allowed:
            raise ValueError(f"Unknown data set option {item!r}; allowed: {', '.join(allowed)}.")
        opts[key] = float(value) if key == "noise" else int(value)
    return opts


def input_files(spec):
    """The files a data set spec reads (none for a built-in or generated set): what an output
    path must never be (:func:`graphdr._outputs.refuse_inputs`)."""
    text = str(spec).strip()
    text = text[len("svmlight:"):] if text.startswith("svmlight:") else text
    if os.path.isdir(text) or glob.has_magic(text):
        from ..io.file_parts import data_files

        try:
            return data_files(text)
        except ValueError:
            return []
    return [p for p in dict.fromkeys([text, text.split(":")[0]]) if os.path.isfile(p)]


def load_dataset(spec, *, label_column=None, random_state=0, options=None):
    """Load a data set from a name or a path (see the module docstring).

    ``options`` (:class:`graphdr.io.files.ReadOptions`) says how to read a CSV or Parquet
    file; ``label_column`` is a shortcut for its label column.

    Raises
    ------
    ValueError
        For an unknown name or an unreadable file, naming what is allowed.
    """
    text = str(spec).strip()
    if options is None:
        options = ReadOptions(label_column=label_column)
    elif label_column is not None:
        options = dataclasses.replace(options, label_column=label_column)
    if text.startswith("svmlight:"):
        path = text[len("svmlight:") :]
        return _load_svmlight(os.path.splitext(os.path.basename(path))[0], path)
    if os.path.isdir(text) or glob.has_magic(text):  # one table in several files
        return _load_parts(text, options)
    if os.path.exists(text) or os.path.islink(text):
        check_readable(text)
        stem, ext = os.path.splitext(os.path.basename(text))
        ext = ext.lower()
        if ext == ".npz":
            return _load_npz(stem, text, f"file {text}")
        if ext in _TABLE_EXT:
            return _load_table(stem, text, options)
        if ext in _SVMLIGHT_EXT:
            return _load_svmlight(stem, text)
        raise ValueError(
            f"{text}: unknown file type {ext!r}; use .csv/.tsv/.txt (delimited text), .parquet, "
            ".npz, .svm/.libsvm/.svmlight, or prefix an svmlight file with 'svmlight:'."
        )
    head, *opts = text.split(":")
    key = head.lower().replace("-", "_")
    per_class = [o for o in opts if o.startswith("per_class=")]
    if per_class and not os.path.exists(head):
        rest = ":".join([head] + [o for o in opts if not o.startswith("per_class=")])
        try:
            k = int(per_class[-1].partition("=")[2])
        except ValueError:
            raise ValueError(
                f"per_class must be a positive integer; got {per_class[-1]!r}."
            ) from None
        return _per_class(load_dataset(rest, label_column=label_column,
                                       random_state=random_state), k, random_state)
    if key == "balance_scale":
        if opts:
            raise ValueError(f"balance_scale takes only per_class=K; got {text!r}.")
        X, y = make_balance_scale()
        return _encode("balance_scale", X, y, "UCI Balance Scale, generated from its definition")
    if key in ("swiss_roll", "swissroll"):
        o = _options(opts, ("n", "classes", "noise"))
        X, y = make_labelled_swiss_roll(random_state=random_state, **o)
        return _encode("swiss_roll", X, y, "generated labelled Swiss roll")
    if key == "digits_views":
        from ..multiview import make_multiview_digits

        o = _options(opts, ("n", "views"))
        names = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")
        if not 1 <= o.get("views", len(names)) <= len(names):
            raise ValueError(f"digits_views:views=K takes K in 1..{len(names)} (the first K of "
                             f"{', '.join(names)}); got {o['views']}.")
        data = make_multiview_digits(names[:o.get("views", len(names))], n_samples=o.get("n"),
                                     random_state=random_state)
        stops = np.cumsum([v.shape[1] for v in data.views])
        views = [slice(int(a), int(b)) for a, b in zip(np.r_[0, stops[:-1]], stops)]
        k = len(data.views)
        return _encode("digits_views" if k == len(names) else f"digits_views_{k}views",
                       np.hstack(data.views), data.target,
                       "graphdr.multiview.make_multiview_digits", None, views)
    if opts:
        raise ValueError(
            f"Only swiss_roll and digits_views take options (any named set takes per_class=K); "
            f"got {text!r}."
        )
    if key in SKLEARN_SETS:
        import sklearn.datasets as skd

        bunch = getattr(skd, f"load_{key}")()
        names = getattr(bunch, "target_names", None)
        return _encode(key, bunch.data, bunch.target, "scikit-learn", names)
    if key in vendored_names():
        path = resources.files("graphdr") / "data" / f"{key}.npz"
        with resources.as_file(path) as p:
            return _load_npz(key, p, "graphdr offline suite (UCI)")
    if os.sep in text or text.lower().endswith(_TABLE_EXT + _SVMLIGHT_EXT + (".npz",)):
        raise ValueError(f"{text}: no such file.")
    raise ValueError(
        f"Unknown data set {spec!r}: not a file and not one of {', '.join(builtin_names())}."
    )
