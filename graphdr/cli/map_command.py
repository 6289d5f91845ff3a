"""``graphdr map`` and the options of ``graphdr map`` and ``graphdr bench`` that say how data
files are read (:mod:`graphdr.io.files`)."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings

from . import arguments

__all__ = ["add_file_options", "add_scale_options", "read_options", "run_map"]


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
    """How CSV/TSV/Parquet files are read (graphdr.io.files)."""
    g = p.add_argument_group(
        "reading files", "CSV and other delimited text, Parquet: the separator (, ; tab |), a "
        "byte-order mark, quoted fields and a header row are found by themselves; columns are "
        "named or numbered from 0 (negative from the end)")
    g.add_argument("--label-column", type=_column, default=None, metavar="COL",
                   help="label column (default: the column named label/class/target/y; in a "
                   "file without a header, the only non-numeric column)")
    g.add_argument("--id-column", type=_id_column, default=None, metavar="COL",
                   help="column of sample ids (never a feature; shown on the map). Default: a "
                   "column whose name says so (id, index, sample, key, *_id, '* ID', sampleId, "
                   "...), else a numeric column counting the rows; 'none': no id column, "
                   "every column a feature")
    g.add_argument("--drop-columns", type=arguments.csv_list, default=(), metavar="A,B",
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
    """The :class:`graphdr.io.files.ReadOptions` of the command line; ``unlabelled``: an
    empty label cell is an unlabelled row (-1), as ``graphdr map`` reads them."""
    from ..io.files import ReadOptions

    return ReadOptions(label_column=args.label_column, id_column=args.id_column,
                       drop_columns=tuple(args.drop_columns), sep=args.sep, decimal=args.decimal,
                       header=args.header, na=args.na, categorical=args.categorical,
                       encoding=args.encoding, unlabelled=unlabelled,
                       every_label_empty=getattr(args, "repulsion", None) == "cauchy",
                       hover_columns=tuple(getattr(args, "hover_columns", None) or ())
                       + ((args.color_column,) if getattr(args, "color_column", None) else ()),
                       hover_features=bool(getattr(args, "hover_features", False)))


def add_scale_options(p):
    """``graphdr map`` past one process's memory (:mod:`graphdr.maps.partitions`)."""
    g = p.add_argument_group(
        "data past memory", "a table larger than the memory budget (or with --scheduler) is "
        "mapped on a Dask cluster: fitted on a sample of --fit-samples rows, every row placed "
        "where it lives, the places written as Parquet partitions OUT.parquet/ (id, label, "
        "x, y) beside a page and picture of a uniform sample of at most 10^6 rows")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="address of a running Dask scheduler (e.g. tcp://10.0.0.5:8786), or "
                   "'local' for a local cluster: map there, whatever the size (default: a "
                   "local cluster when the map would not fit --memory-budget and the cluster "
                   "takes less memory in all)")
    g.add_argument("--memory-budget", type=_size, default=None, metavar="SIZE",
                   help="above this estimated memory (e.g. 8GiB) the map is made on a local "
                   "Dask cluster, fitted on what the budget holds, when that takes less "
                   "memory in all (default: half of the memory now available)")
    g.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                   help="processes of the local cluster, one thread each (default: the "
                   "machine's cores)")
    g.add_argument("--worker-memory", type=_size, default=None, metavar="SIZE",
                   help="memory limit of each local worker (default: the machine's memory "
                   "shared among them)")
    g.add_argument("--fit-samples", type=_fit_samples, default="auto", metavar="N",
                   help="rows the map is fitted on (in the graphdr map process), chosen by "
                   "content, every class kept; the rest are placed on the workers (default "
                   "auto: the most whose fit stays within --memory-budget and, with the local "
                   "workers, below the in-memory map's memory; 20000 to 1000000)")


_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9,
          "gb": 10**9, "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30,
          "tib": 2**40}


def _size(text):
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise argparse.ArgumentTypeError(
            f"a size such as 3GiB, 500MB or 2G; got {text!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def _fit_samples(text):
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"a positive integer or auto; got {text!r}") from None


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a positive integer; got {text!r}")
    return value


def _available_memory():
    """Bytes of memory available now (Linux's MemAvailable; else the physical memory)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import os

    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _past_memory(args):
    """Whether ``graphdr map`` takes the Dask path: a scheduler is given, or the table (CSV or
    Parquet files) would not fit the memory budget in one process, and a local cluster would
    take less memory in all than the one process (else a line says why the table is mapped
    in memory all the same)."""
    if getattr(args, "scheduler", None):
        return True
    import os

    from ..io.file_parts import (
        IN_MEMORY_SHARE,
        PROCESS_BYTES,
        TABLE_SUFFIXES,
        dask_route_bytes,
        data_files,
        fit_rows_within,
        map_bytes,
        table_shape,
    )

    try:
        paths = data_files(args.data)
    except ValueError:
        return False  # a named data set, or no such file: the in-memory reader says what
    if not all(p.lower().endswith(TABLE_SUFFIXES) for p in paths):
        return False
    budget = args.memory_budget or _available_memory() // 2
    n, cols = table_shape(args.data)
    if map_bytes(n, cols) <= budget:
        return False
    workers = args.workers or os.cpu_count() or 1
    m = (_heavy_tailed_cap(args, fit_rows_within(budget, n, cols, workers))
         if args.fit_samples == "auto" else min(n, args.fit_samples))
    here, there = PROCESS_BYTES + map_bytes(n, cols), dask_route_bytes(m, n, cols, workers)
    if there > IN_MEMORY_SHARE * here:
        if not args.quiet:
            print(f"graphdr map: {args.data}: the map (about {here / 2**30:.2f} GiB) is past "
                  f"--memory-budget ({budget / 2**30:.2f} GiB), but a local Dask cluster of "
                  f"{workers} workers fitting {m:,} of its {n:,} rows would take more (about "
                  f"{there / 2**30:.2f} GiB in all): mapped in memory; --scheduler ADDRESS "
                  "maps it on your cluster.", file=sys.stderr)
        return False
    return True


def run_map(args):
    if _past_memory(args):
        return _run_map_parts(args)
    from .._outputs import refuse_inputs
    from ..bench.datasets import input_files, load_dataset
    from ..io.files import check_writable
    from ..maps.dee_map import DEEMap
    from ..maps.separation import TRIAL_MIN
    from ..maps.views.draw import map_files, write_map

    files = map_files(args.out)
    refuse_inputs(files.values(), [args.data, *input_files(args.data)]
                  + ([args.label_fixes] if args.label_fixes else []))
    ds = load_dataset(args.data, options=read_options(args, unlabelled=True))
    labels, label_empty = ds.classes[ds.y], ds.label_empty
    if args.label_fixes:  # (before any long computation: a bad file is said at once)
        from ..io.label_fixes import apply_label_fixes

        labels, label_empty, changed = apply_label_fixes(
            args.label_fixes, labels, ds.ids, label_empty, source=args.data)
        if not args.quiet:
            print(f"graphdr map: {args.label_fixes}: {changed} label"
                  f"{'' if changed == 1 else 's'} changed.",
                  file=sys.stderr)
    _check_labelled_rows(labels, args.data, args.repulsion)
    check_writable(files["html"].parent, create=True)
    hover = _hover_columns(ds, args.hover_columns)
    color = None
    if args.color_column:
        color_name, color = next(iter(
            _hover_columns(ds, [args.color_column], "--color-column").items()))
    if not args.quiet:
        for note in ds.notes:
            print(f"graphdr map: {note}.", file=sys.stderr)
    start = time.perf_counter()
    params = dict(feature_scaling=args.feature_scaling, placement_width=args.placement_width,
                  labels=args.labels or "flag", **_objective(args))
    if args.repulsion == "cauchy":  # (the heavy-tailed map fits a sample of a large table)
        params["fit_samples"] = args.fit_samples
    n_labelled = int((~_unlabelled(labels)).sum())
    if params["labels"] != "given" and n_labelled and not args.quiet:
        print("graphdr map: checking the labels (graphdr.LabelIssues; --labels given skips "
              "it) ...", file=sys.stderr)
    if params.get("separation") == "auto" and n_labelled >= TRIAL_MIN and not args.quiet:
        print("graphdr map: choosing --separation by held-out labels (six small maps) ...",
              file=sys.stderr)
    write = dict(title=args.title, ids=ds.ids, hover=hover, label_name=_label_name(ds, args),
                 id_name=ds.id_name or "id", label_empty=label_empty, color=color,
                 color_name=color_name if color is not None else "colour", **_written(args))
    with warnings.catch_warnings():  # (the audit's notes: said below, in one line each)
        warnings.filterwarnings("ignore", "LabelIssues: ", UserWarning)
        if args.quiet:
            model = DEEMap(**params).fit(ds.X, labels)
        else:
            from tqdm.auto import tqdm

            with tqdm(total=DEEMap(**_objective(args)).iterations(), desc="graphdr map", unit="it",
                      leave=False) as bar:
                def progress(Y, info):
                    bar.update(1)
                    bar.set_postfix(objective=f"{info['objective']:.5g}", refresh=False)

                model = DEEMap(callback=progress, **params).fit(ds.X, labels)
    if model.label_issues_ is not None and not args.quiet:
        for note in model.label_issues_.notes_:
            print(f"graphdr map: {note}.", file=sys.stderr)
    write_map(model, labels, args.out, **write)
    if not args.quiet:
        kinds = _written(args)
        written = [str(files[k]) for k, kind in (("html", "page"), ("csv", "table"),
                                                 ("png", "png")) if kinds[kind]]
        n_unlabelled = int(_unlabelled(labels).sum())
        unlabelled = f" ({n_unlabelled} unlabelled)" if n_unlabelled else ""
        audit = model.label_issues_
        suspects = "" if audit is None else \
            f", {int(audit.is_issue_.sum())} suspect labels (ringed)"
        print(f"graphdr map: {ds.name}, {len(ds.y)} samples{unlabelled}, "
              f"{len(model.classes_)} classes{suspects}, "
              f"{model.n_iter_} iterations in {time.perf_counter() - start:.1f} s: wrote "
              f"{', '.join(written)}", file=sys.stderr)
    return 0


def _written(args):
    """``{'page': ..., 'table': ..., 'png': ...}``: which files ``--outputs`` (less
    ``--no-png``) asks for; a ValueError when none is left."""
    kinds = set(getattr(args, "outputs", ("page", "table", "png")))
    if args.no_png:
        kinds.discard("png")
    if not kinds:
        raise ValueError("--outputs png with --no-png: nothing left to write.")
    return {k: k in kinds for k in ("page", "table", "png")}


def _unlabelled(labels):
    from .._validation import unlabelled_mask

    return unlabelled_mask(labels)


def _objective(args):
    """The map's objective as ``--repulsion`` and ``--separation`` ask (DEEMap's parameters;
    the separation only with the heavy-tailed map)."""
    if args.repulsion == "cauchy":
        return dict(repulsion="cauchy", separation=args.separation)
    return dict(repulsion=args.repulsion)


def _check_labelled_rows(labels, source, repulsion="gaussian"):
    """Rows labelled -1 or with an empty label are unlabelled (scikit-learn's convention) and
    join the map's graph; the labelled rows need two classes (checked before the fit), or, for
    the heavy-tailed map, none at all (the map of the data alone)."""
    import numpy as np

    unlabelled = _unlabelled(labels)
    classes = np.unique(np.asarray(labels)[~unlabelled].astype(str))
    if len(classes) < 2 and not (repulsion == "cauchy" and len(classes) == 0):
        also = " (or none, with --repulsion cauchy)"
        raise ValueError(
            f"{source}: the map needs labelled rows of at least 2 classes{also}; found "
            f"{len(classes)} ({', '.join(classes[:3])}) and {int(unlabelled.sum())} unlabelled "
            "rows (label -1 or empty).")


def _label_name(ds, args):
    if ds.label_name is not None:
        return str(ds.label_name)
    if ds.columns and args.label_column is not None:
        return str(args.label_column)
    if ds.columns:
        from ..io.files import LABEL_NAMES

        return next((c for c in ds.columns if c.lower() in LABEL_NAMES), "label")
    return "label"


def _hover_columns(ds, names, option="--hover-columns"):
    """Values shown on hover: columns of the file (or files) by name (any case when unique)
    or index, as the reader names them (:func:`graphdr.io.columns.column_index`), else
    features."""
    from ..io.columns import column_index

    if not names:
        return None
    columns = ds.columns
    if columns is None:
        feature_names = ds.feature_names or [str(j) for j in range(ds.X.shape[1])]
        columns = {f: [f"{v:.6g}" for v in ds.X[:, j]] for j, f in enumerate(feature_names)}
    keys = list(getattr(columns, "names", None) or columns)  # every column, kept or not
    out = {}
    for name in names:
        try:
            key = keys[column_index(ds.name, name, keys, "column")]
            out[key] = columns[key]
        except (ValueError, KeyError):
            raise ValueError(f"{option}: no column {name!r} in {ds.name}; columns: "
                             f"{', '.join(keys[:12])}{' ...' if len(keys) > 12 else ''}.") \
                from None
    return out


def _run_map_parts(args):
    """``graphdr map`` on a Dask cluster (:func:`add_scale_options`)."""
    from .._outputs import refuse_inputs
    from ..io.file_parts import read_parts
    from ..io.files import check_writable
    from ..maps.partitions import map_files_parts
    from .dask_cluster import dask_client

    files = map_files_parts(args.out)
    if args.label_fixes:
        raise ValueError("--label-fixes: not available for a map made on a Dask cluster "
                         "(--scheduler, or data past --memory-budget); apply the fixes to "
                         "the table's label column.")
    if args.hover_columns or args.color_column:
        option = "--hover-columns" if args.hover_columns else "--color-column"
        raise ValueError(f"{option}: not available for a map made on a Dask cluster "
                         "(--scheduler, or data past --memory-budget); the Parquet "
                         "partitions carry the id to join them with your columns.")
    if args.labels in ("flag", "audit"):
        raise ValueError(f"--labels {args.labels}: not available for a map made on a Dask "
                         "cluster (--scheduler, or data past --memory-budget): the audit of "
                         "the labels needs every row in memory; leave --labels out (the labels "
                         "are then taken as given) or raise --memory-budget.")
    refuse_inputs(files.values(), [args.data])  # before anything is read
    _written(args)
    if args.worker_memory is not None and args.worker_memory < MIN_WORKER_MEMORY:
        raise ValueError(
            f"--worker-memory {args.worker_memory} bytes: a worker needs at least 1 GiB (its "
            "Python with NumPy, pandas and graphdr takes about 0.3 GiB before any data, and "
            "each piece of the table some hundred MB more); give 1GiB or more.")
    echo = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    start = time.perf_counter()
    # every file read and checked once (a bad cell named before any cluster starts)
    table = read_parts(args.data, read_options(args, unlabelled=True))
    refuse_inputs(files.values(), table.paths)
    _check_labelled_rows(table.y, args.data, args.repulsion)
    check_writable(files["html"].parent, create=True)
    for note in table.notes:
        echo(f"graphdr map: {note}.")
    echo("graphdr map: labels taken as given on a Dask cluster (suspect labels are found in "
         "memory only).")
    fit_samples = _fit_rows(args, len(table.y), len(table.feature_names), echo)
    with dask_client(args.scheduler, args.workers, args.worker_memory, "graphdr map", echo):
        model = _on_cluster(lambda: _map_table(args, table, fit_samples))
    n = len(table.y)
    kinds = _written(args)
    written = [str(files[k]) for k, kind in (("html", "page"), ("parquet", "table"),
                                             ("png", "png")) if kinds[kind]]
    n_unlabelled = int(_unlabelled(table.y).sum())
    unlabelled = f" ({n_unlabelled} unlabelled)" if n_unlabelled else ""
    echo(f"graphdr map: {args.data}, {n} samples{unlabelled}, {len(model.classes_)} classes, "
         f"fitted on {len(model.fit_rows_)} in {model.n_iter_} iterations, all placed in "
         f"{time.perf_counter() - start:.1f} s: wrote {', '.join(written)}")
    return 0


def _on_cluster(work):
    """``work()``, a lost worker or a cancelled task of the cluster turned into
    :class:`graphdr.maps.partitions.ClusterFailure` (one line on the command line)."""
    from ..maps.dask_fit import cluster_errors

    with cluster_errors("the map", " (--worker-memory)"):
        return work()


#: a local worker's least memory: its Python with NumPy, pandas, scikit-learn and graphdr
#: takes about 0.3 GiB before any data (measured), and a piece of a table a few hundred MB
MIN_WORKER_MEMORY = 2**30


def _fit_rows(args, n, d, echo):
    """``--fit-samples``, or the rows ``auto`` picks (:func:`graphdr.io.file_parts.
    fit_rows_within`: the ``graphdr map`` process within ``--memory-budget``, the route's
    total with the local workers below the in-memory map's), said in one line."""
    import os

    from ..io.file_parts import fit_rows_within

    if args.fit_samples != "auto":
        return args.fit_samples
    budget = args.memory_budget or _available_memory() // 2
    remote = args.scheduler and args.scheduler != "local"
    workers = 0 if remote else (args.workers or os.cpu_count() or 1)
    within = fit_rows_within(budget, n, d, workers)
    rows = _heavy_tailed_cap(args, within)
    if rows < n:
        why = (f"the most whose fit stays within the memory budget of {budget / 2**30:.2f} "
               f"GiB{' with the local workers' if workers else ''}" if rows == within else
               "the heavy-tailed map's fit_samples='auto'")
        echo(f"graphdr map: fitting on {rows:,} of the {n:,} rows (chosen by content, every "
             f"class kept; {why}), placing the others on the workers; --fit-samples N to "
             "choose.")
    return rows


def _heavy_tailed_cap(args, rows):
    """``rows``, at most :data:`graphdr.maps.dask_fit.HEAVY_FIT_SAMPLES` for ``--repulsion
    cauchy`` (its 750 iterations over more rows would take hours)."""
    from ..maps.dask_fit import HEAVY_FIT_SAMPLES

    return min(rows, HEAVY_FIT_SAMPLES) if args.repulsion == "cauchy" else rows


def _map_table(args, table, fit_samples):
    from ..maps.partitions import map_dask

    with _progress(args, len(table.y)) as (fit_progress, place_progress):
        return map_dask(
            table.features(), table.y, out=args.out, ids=table.ids,
            id_name=table.id_name or "id", label_name=str(table.options.label_column),
            title=args.title, progress=place_progress, **_written(args),
            callback=fit_progress, fit_samples=fit_samples,
            label_empty=table.label_empty, id_dtype=table.id_dtype,
            feature_scaling=args.feature_scaling, placement_width=args.placement_width,
            **_objective(args))


@contextlib.contextmanager
def _progress(args, n):
    """Progress bars of the fit (iterations) and of the rows placed and written."""
    if args.quiet:
        yield None, None
        return
    from tqdm.auto import tqdm

    from ..maps.dee_map import DEEMap

    # the placement's rate is its average since it started (smoothing=0): its pieces arrive
    # in bursts, and its clock starts with the placement, not with the fit before it
    with tqdm(total=DEEMap(**_objective(args)).iterations(), desc="graphdr map: fit", unit="it",
              leave=False) as fit, \
            tqdm(total=n, desc="graphdr map: place", unit="rows", unit_scale=True,
                 leave=False, smoothing=0) as place:
        def fitted(Y, info):
            fit.update(1)
            fit.set_postfix(objective=f"{info['objective']:.5g}", refresh=False)

        def placed(rows):
            if rows == 0:  # the placement starts
                place.reset(total=n)
            else:
                place.update(rows)

        yield fitted, placed
