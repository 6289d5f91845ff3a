"""``graphdr map`` and the options of ``graphdr map`` and ``graphdr bench`` that say how data
files are read (:mod:`graphdr.bench.files`)."""

from __future__ import annotations

import argparse
import sys
import time

__all__ = ["add_file_options", "read_options", "run_map"]


def _csv_list(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def _column(text):
    return text.strip()


def _id_column(text):
    return False if text.strip().lower() in ("none", "no", "false") else text.strip()


def _separator(text):
    names = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    value = names.get(text.lower(), text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"--sep must be one character (or tab); got {text!r}")
    return value


def add_file_options(p):
    """How CSV/TSV/Parquet files are read (graphdr.bench.files)."""
    g = p.add_argument_group(
        "reading files", "CSV and other delimited text, Parquet: the separator (, ; tab |), a "
        "byte-order mark, quoted fields and a header row are found by themselves; columns are "
        "named or numbered from 0 (negative from the end)")
    g.add_argument("--label-column", type=_column, default=None, metavar="COL",
                   help="label column (default: the column named label/class/target/y; in a "
                   "file without a header, the only non-numeric column)")
    g.add_argument("--id-column", type=_id_column, default=None, metavar="COL",
                   help="column of sample ids (never a feature; shown on the map). Default: a "
                   "column named id/index whose values are distinct integers; 'none': no id "
                   "column")
    g.add_argument("--drop-columns", type=_csv_list, default=(), metavar="A,B",
                   help="columns to leave out")
    g.add_argument("--sep", type=_separator, default=None, metavar="CHAR",
                   help="field separator (default: sniffed among , ; tab |)")
    g.add_argument("--decimal", choices=(".", ","), default=None,
                   help="decimal mark (default '.', or ',' when the separator is not a comma "
                   "and the numbers are written 1,5)")
    hdr = g.add_mutually_exclusive_group()
    hdr.add_argument("--header", dest="header", action="store_true", default=None,
                     help="the first row is a header (default: detected)")
    hdr.add_argument("--no-header", dest="header", action="store_false",
                     help="the first row is data")
    g.add_argument("--na", choices=("error", "drop"), default="error",
                   help="missing cells: an error naming them (default) or drop their rows")
    g.add_argument("--categorical", choices=("error", "onehot"), default="error",
                   help="non-numeric feature columns: an error naming them (default) or one 0/1 "
                   "column per value")
    g.add_argument("--encoding", default=None,
                   help="text encoding of the file (default UTF-8, with or without BOM)")


def read_options(args, unlabelled=False):
    """The :class:`graphdr.bench.files.ReadOptions` of the command line; ``unlabelled``: an
    empty label cell is an unlabelled row (-1), as ``graphdr map`` reads them."""
    from .bench.files import ReadOptions

    return ReadOptions(label_column=args.label_column, id_column=args.id_column,
                       drop_columns=tuple(args.drop_columns), sep=args.sep, decimal=args.decimal,
                       header=args.header, na=args.na, categorical=args.categorical,
                       encoding=args.encoding, unlabelled=unlabelled,
                       hover_columns=tuple(getattr(args, "hover_columns", None) or ()),
                       hover_features=bool(getattr(args, "hover_features", False)))


def run_map(args):
    from ._outputs import refuse_inputs
    from .bench.datasets import input_files, load_dataset
    from .bench.files import check_writable
    from .map2d import map2d, map_files

    files = map_files(args.out)
    refuse_inputs(files.values(), input_files(args.data))
    ds = load_dataset(args.data, options=read_options(args, unlabelled=True))
    labels = ds.classes[ds.y]
    _check_labelled_rows(labels, args.data)
    check_writable(files["html"].parent, create=True)
    hover = _hover_columns(ds, args.hover_columns)
    if not args.quiet:
        for note in ds.notes:
            print(f"graphdr map: {note}.", file=sys.stderr)
    start = time.perf_counter()
    params = dict(feature_scaling=args.feature_scaling, placement_width=args.placement_width)
    write = dict(out=args.out, title=args.title, ids=ds.ids, hover=hover,
                 label_name=_label_name(ds, args), png=not args.no_png,
                 id_name=ds.id_name or "id")
    if args.quiet:
        model = map2d(ds.X, labels, **write, **params)
    else:
        from tqdm.auto import tqdm

        from .neighbor import DEEMap

        with tqdm(total=DEEMap().max_iter, desc="graphdr map", unit="it", leave=False) as bar:
            def progress(Y, info):
                bar.update(1)
                bar.set_postfix(objective=f"{info['objective']:.5g}", refresh=False)

            model = map2d(ds.X, labels, callback=progress, **write, **params)
    if not args.quiet:
        written = [str(files[k]) for k in ("html", "csv", "png") if k != "png" or not args.no_png]
        n_unlabelled = int(_unlabelled(labels).sum())
        unlabelled = f" ({n_unlabelled} unlabelled)" if n_unlabelled else ""
        print(f"graphdr map: {ds.name}, {len(ds.y)} samples{unlabelled}, "
              f"{len(model.classes_)} classes, "
              f"{model.n_iter_} iterations in {time.perf_counter() - start:.1f} s: wrote "
              f"{', '.join(written)}", file=sys.stderr)
    return 0


def _unlabelled(labels):
    from ._validation import unlabelled_mask

    return unlabelled_mask(labels)


def _check_labelled_rows(labels, source):
    """Rows labelled -1 or with an empty label are unlabelled (scikit-learn's convention) and
    join the map's graph; the labelled rows need two classes (checked before the fit)."""
    import numpy as np

    unlabelled = _unlabelled(labels)
    classes = np.unique(np.asarray(labels)[~unlabelled].astype(str))
    if len(classes) < 2:
        raise ValueError(
            f"{source}: the map needs labelled rows of at least 2 classes; found "
            f"{len(classes)} ({', '.join(classes[:3])}) and {int(unlabelled.sum())} unlabelled "
            "rows (label -1 or empty).")


def _label_name(ds, args):
    if ds.columns and args.label_column is not None:
        return str(args.label_column)
    if ds.columns:
        from .bench.files import LABEL_NAMES

        return next((c for c in ds.columns if c.lower() in LABEL_NAMES), "label")
    return "label"


def _hover_columns(ds, names):
    """Values shown on hover: columns of the file by name (or index), else features."""
    if not names:
        return None
    columns = ds.columns
    if columns is None:
        feature_names = ds.feature_names or [str(j) for j in range(ds.X.shape[1])]
        columns = {f: [f"{v:.6g}" for v in ds.X[:, j]] for j, f in enumerate(feature_names)}
    keys = list(columns)
    out = {}
    for name in names:
        if name in columns:
            out[name] = columns[name]
        elif name.lstrip("-").isdigit() and -len(keys) <= int(name) < len(keys):
            out[keys[int(name)]] = columns[keys[int(name)]]
        else:
            raise ValueError(f"--hover-columns: no column {name!r} in {ds.name}; columns: "
                             f"{', '.join(keys[:12])}{' ...' if len(keys) > 12 else ''}.")
    return out
