"""The sweep: plan the cells, run the missing ones (in parallel), then write every output."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import traceback
import zlib
from dataclasses import dataclass

from .._outputs import StagedFolder, atomic_open, refuse_inputs
from ..io.files import check_writable
from . import plots
from .datasets import input_files, load_dataset, without_unlabelled
from .evaluation import (
    LABELLED_ONLY,
    check_classifier,
    method_dims,
    result_name,
    run_cell,
    run_embedding,
)
from .methods import MethodUnavailableError, get_method, method_label, parse_method
from .report import (
    aggregate,
    markdown_tables,
    read_results,
    write_html,
    write_results,
)

__all__ = ["run_bench", "BenchResult"]


class BenchResult:
    """What a run produced: rows of results.csv, failed cells, written files."""

    def __init__(self, out, rows, failures, files, n_computed, n_skipped, notes):
        self.out = out
        self.rows = rows
        self.failures = failures
        self.files = files
        self.n_computed = n_computed
        self.n_skipped = n_skipped
        self.notes = notes


def _safe(fn, task):
    try:
        return fn(task), None
    except Exception as exc:  # reported per cell; the sweep goes on
        return None, "".join(traceback.format_exception_only(type(exc), exc)).strip()


@contextlib.contextmanager
def _workers_ignore_interrupts():
    """Worker processes started inside inherit Ctrl-C ignored (an ignored signal survives
    ``exec``), so that an interrupt while they start prints nothing; the parent's own handler
    is back as soon as they are launched (about 15 ms on digits: a Ctrl-C within that window is
    lost, the next one stops the run)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _job(fn, task, parent):
    if os.getpid() != parent:  # a worker: Ctrl-C is the parent's to handle (no tracebacks)
        with contextlib.suppress(ValueError, AttributeError):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    return (task, *_safe(fn, task))


def _slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def _parse_methods(names, explicit, notes):
    parsed = []
    for name in names:
        try:
            parsed.append(parse_method(name))
        except MethodUnavailableError as exc:
            if explicit:
                raise
            notes.append(f"Skipped {name}: {exc}")
    if not parsed:
        raise ValueError("No method to run: every requested method is unavailable.")
    return parsed


def _expand_views(parsed, ds):
    out = []
    for ident, spec, params in parsed:
        if params.get("view") == "each":
            if not ds.views:
                raise ValueError(
                    f"{ident}: view=each needs multi-view data (view_* arrays); data set "
                    f"{ds.name!r} has a single view."
                )
            for v in range(len(ds.views)):
                p = dict(params, view=v)
                out.append(":".join([spec.name] + [f"{k}={p[k]}" for k in sorted(p)]))
        else:
            out.append(ident)
    return out


def _read_config(path):
    """The settings graphdr wrote to ``path`` (None when there is no such file); a file that
    is not graphdr's is refused, whatever ``--fresh`` says: graphdr never replaces it."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            old = json.load(fh)
    except (ValueError, UnicodeDecodeError) as exc:
        old = exc
    if not isinstance(old, dict) or "protocol" not in old:
        raise ValueError(f"{path} is not the settings file graphdr writes; graphdr never "
                         "replaces a file it did not write: choose another --out.")
    return old


def _resume(stage, out, work, config):
    """Refuse files in ``out`` that graphdr did not write, whatever ``--fresh`` says; take the
    rows to go on from (an unfinished run's in ``work``, else ``out``'s unless the run is
    fresh) and refuse them when other settings produced them; record ``config`` in ``work``.
    Returns (rows, the results.csv they came from or None)."""
    names = ("results.csv", "config.json")
    _read_config(os.path.join(out, "config.json"))
    read_results(os.path.join(out, "results.csv"))
    source = stage.resume_folder(out, names)
    rows, results = [], None
    if source is not None:
        results = os.path.join(source, "results.csv")
        old = _read_config(os.path.join(source, "config.json"))
        rows = read_results(results)  # refuses a results.csv that is not graphdr's
        if rows and old is not None and old != config:
            whose = " (the cells of an unfinished run)" if source == work else ""
            raise ValueError(f"{results}{whose} was produced with other settings: "
                             f"{_differences(old, config)}; rerun with --fresh to start over, "
                             "or choose another --out.")
    with atomic_open(os.path.join(work, "config.json"), "w", encoding="utf-8") as fh:
        json.dump(config, fh, indent=1, sort_keys=True)
    return rows, results


def _differences(old, new, show=4):
    """The settings that differ, in one short sentence: ``seed 0 before, 1 now; ...``."""
    def flat(d, prefix=""):
        out = {}
        for k, v in d.items():
            if isinstance(v, dict):
                out.update(flat(v, f"{prefix}{k}."))
            else:
                out[f"{prefix}{k}"] = v
        return out

    a, b = flat(old), flat(new)
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    parts = [f"{k} {_setting(a.get(k))} before, {_setting(b.get(k))} now" for k in keys[:show]]
    more = f" and {len(keys) - show} more" if len(keys) > show else ""
    return "; ".join(parts) + more


def _setting(value):
    if value is None:
        return "unset"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def _parallel(fn, tasks, n_jobs, desc, progress, threads=1, backend="loky"):
    """Yield (task, result, error) as tasks finish; joblib when n_jobs != 1.

    Each process uses at most ``threads`` BLAS/OpenMP threads: the cells are small, and
    oversubscribed BLAS threads make them several times slower on a busy machine.
    """
    from threadpoolctl import threadpool_limits
    from tqdm.auto import tqdm

    # the estimate from the average rate since the start (smoothing=0): the cells come in a
    # mixed order (see _cells), so the average stands for the rest; a moving average follows
    # the last few cells and swings several-fold when cheap and costly ones alternate
    bar = tqdm(total=len(tasks), desc=desc, unit="cell", disable=not progress or not tasks,
               file=sys.stderr, dynamic_ncols=True, smoothing=0)
    try:
        if (n_jobs == 1 and backend == "loky") or len(tasks) <= 1:
            for task in tasks:
                with threadpool_limits(limits=threads):
                    res, err = _safe(fn, task)
                bar.update()
                yield task, res, err
        else:
            from joblib import Parallel, delayed, parallel_config

            limits = dict(inner_max_num_threads=threads) if backend == "loky" else {}
            with parallel_config(backend=backend, **limits):
                with _workers_ignore_interrupts():
                    gen = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                        delayed(_job)(fn, t, os.getpid()) for t in tasks
                    )
                for task, res, err in gen:
                    bar.update()
                    yield task, res, err
    finally:
        bar.close()


def run_bench(protocol, *, datasets=None, methods=None, classifiers=None, out="graphdr-report",
              n_jobs=1, seed=0, label_column=None, plots_on=True, html_on=True, progress=True,
              timing=True, fresh=False, command="graphdr bench", title=None, echo=print,
              threads=1, backend="loky", scatter_per_method=False, pictures=True,
              read_options=None, label_fraction=None, stage=None):
    """Run ``protocol`` and write results.csv, tables.md, PNG plots and index.html into ``out``.

    Cells (data set, method, fold) already in ``out/results.csv`` are not computed again
    (``fresh``: every cell is). The run works in ``out/in-progress``
    (:class:`graphdr._outputs.StagedFolder`) and its files replace ``out``'s only when it is
    complete: stopped before (Ctrl-C), it leaves ``out`` as it was and its finished cells in
    ``out/in-progress``, where the next run (without ``fresh``) goes on from them.
    ``stage``: the :class:`~graphdr._outputs.StagedFolder` of a caller that replaces a larger
    folder (``graphdr reproduce``, ``graphdr demo``), ``out`` a folder inside it; the run then
    writes into ``stage.work(out)`` (its cells go on from there, else from ``out`` unless the
    stage is fresh; ``fresh`` is the stage's) and the caller commits.
    The 2-D pictures are one grid per data set (a panel per method), plus one PNG per method
    with ``scatter_per_method``.
    ``n_jobs`` worker processes (joblib ``backend``, default loky) run the cells, each with at
    most ``threads`` BLAS threads. ``pictures=False`` skips the 2-D pictures (and optimizer
    and kernel-weight plots), keeping the error-versus-dimension plots.
    ``read_options`` (:class:`graphdr.io.files.ReadOptions`) says how to read CSV and
    Parquet files. ``label_fraction`` (in (0, 1)): in every training fold only that fraction
    of each class keeps its label (:func:`graphdr.bench.evaluation.labelled_rows`); a method
    that fits unlabelled samples (``y = -1``, :data:`graphdr._validation.SEMI_SUPERVISED`, or
    an unsupervised one) is fitted on every training row, and every supervised method also on
    the labelled rows only (its name followed by ``@labelled``); the classifiers learn from the
    labelled rows. No 2-D pictures are drawn then. Raises ValueError for unknown data sets,
    methods, classifiers or changed settings, and for unreadable files.
    """
    plan = _plan(protocol, datasets, methods, classifiers, out=out, seed=seed,
                 label_column=label_column, pictures=pictures, read_options=read_options,
                 label_fraction=label_fraction, echo=echo)
    run = dict(timing=timing, n_jobs=n_jobs, progress=progress, threads=threads,
               backend=backend, echo=echo)
    report = dict(title=title, command=command, plots_on=plots_on, html_on=html_on,
                  scatter_per_method=scatter_per_method, n_jobs=n_jobs, progress=progress,
                  threads=threads, echo=echo)
    if stage is not None:
        if os.path.exists(out) and not os.path.isdir(out):
            raise ValueError(f"{out} exists and is not a folder; choose another --out.")
        return _report(stage, out, plan, _sweep(stage, out, plan, **run), **report)
    check_writable(out, create=True)
    with StagedFolder(out, what="bench", fresh=fresh, command=command) as own:
        # out's files replaced when it is complete
        result = _report(own, out, plan, _sweep(own, out, plan, **run), **report)
        own.commit(stale=["failures.txt"])
    return result


@dataclass
class _Plan:
    """What a run computes, resolved and checked before it writes anything: the data sets,
    the methods (in the tables' order), the classifiers, every cell (a :func:`run_cell` task,
    in the sweep's order), the 2-D embeddings to draw, the settings that identify the results,
    the fraction of labels kept, and the notes so far."""

    protocol: object
    loaded: list
    methods: list
    classifiers: list
    cells: list
    embeddings: list
    config: dict
    label_fraction: float | None
    notes: list


def _plan(protocol, datasets, methods, classifiers, *, out, seed, label_column, pictures,
          read_options, label_fraction, echo):
    """The :class:`_Plan` of :func:`run_bench`'s arguments (its data sets loaded, their notes
    said); a ValueError for unknown data sets, methods or classifiers, unreadable files."""
    if label_fraction is not None and not 0.0 < float(label_fraction) <= 1.0:
        raise ValueError(f"--label-fraction must be in (0, 1]; got {label_fraction!r}.")
    if label_fraction is not None and float(label_fraction) == 1.0:
        label_fraction = None
    if label_fraction is not None:
        pictures = False
    notes = []
    explicit = methods is not None
    method_names = list(methods) if explicit else list(protocol.methods)
    parsed = _parse_methods(method_names, explicit, notes)
    classifiers = [check_classifier(c) for c in (classifiers or protocol.classifiers)]
    loaded = _load_datasets(protocol, datasets, out, seed, label_column, read_options, echo)
    config = dict(protocol=protocol.settings(), seed=int(seed), classifiers=sorted(classifiers))
    if label_fraction is not None:
        config["label_fraction"] = float(label_fraction)
    cells, embeddings, method_order = _cells(protocol, loaded, parsed, classifiers, seed,
                                             pictures, label_fraction)
    return _Plan(protocol, loaded, method_order, classifiers, cells, embeddings, config,
                 label_fraction, notes)


def _load_datasets(protocol, datasets, out, seed, label_column, read_options, echo):
    """The data sets of the run (default the protocol's), loaded without their unlabelled
    rows, their notes said; checked to have distinct names (and views for 'mkldr')."""
    dataset_names = list(datasets) if datasets else list(protocol.datasets)
    if not dataset_names:
        raise ValueError(f"Protocol {protocol.name!r} has no default data set; pass --datasets.")
    refuse_inputs([out], [p for d in dataset_names for p in (d, *input_files(d))])
    loaded = [without_unlabelled(load_dataset(d, label_column=label_column, random_state=seed,
                                              options=read_options))
              for d in dataset_names]
    for ds in loaded:
        for note in ds.notes:
            echo(f"graphdr bench: {note}.")
    names = [d.name for d in loaded]
    if len(set(names)) != len(names):
        raise ValueError(f"Two data sets have the same name: {names}.")
    if protocol.name == "mkldr" and not all(d.views for d in loaded):
        raise ValueError("Protocol 'mkldr' needs multi-view data sets (.npz with view_* arrays).")
    return loaded


def _cells(protocol, loaded, parsed, classifiers, seed, pictures, label_fraction):
    """Every cell of the sweep (data set, method, fold, label mode: a :func:`run_cell` task) in
    a fixed, mixed order, the 2-D embeddings to draw (``pictures``), and the methods in the
    tables' order."""
    tasks, embed_tasks, method_order = [], [], []
    for ds in loaded:
        idents = _expand_views(parsed, ds)
        method_order += [m for m in idents if m not in method_order]
        splits = protocol.splits(ds.y, seed, ds.classes)
        common = dict(dataset=ds.name, X=ds.X, y=ds.y, views=ds.views, scaling=protocol.scaling,
                      gamma=protocol.kernel_gamma, svm_gamma=protocol.svm_gamma, seed=seed,
                      projection=protocol.projection)
        for ident in idents:
            spec = get_method(ident.split(":")[0])
            if not spec.predicts and pictures:
                embed_tasks.append(dict(common, method=ident, spec=spec))
            if not spec.transform:
                continue
            modes = _label_modes(spec, ident, label_fraction)
            if label_fraction is not None:
                method_order += [ident + LABELLED_ONLY for m in modes if m == "labelled"
                                 and ident + LABELLED_ONLY not in method_order]
                if "semi" not in modes and ident in method_order:
                    method_order.remove(ident)
            for fold, (train, test) in enumerate(splits):
                train = protocol.capped(ds.name, spec.name, train, ds.y, fold)
                dims = method_dims(ident, protocol, len(train), ds.X.shape[1], ds.n_classes)
                tasks += [dict(common, method=ident, spec=spec, fold=fold, train=train,
                               test=test, dims=dims, classifiers=classifiers,
                               label_fraction=label_fraction, label_mode=mode)
                          for mode in modes]
    # cells in a fixed, mixed order (a hash of their names), not data set by data set: the
    # progress bar's rate then soon stands for the whole sweep, so its time estimate holds
    # from the first minutes, whichever data sets and methods are the slow ones
    tasks.sort(key=lambda t: zlib.crc32(f"{t['dataset']}|{result_name(t)}|{t['fold']}"
                                        .encode()))
    return tasks, embed_tasks, method_order


def _sweep(stage, out, plan, *, timing, n_jobs, progress, threads, backend, echo):
    """Run the plan's cells that the results it goes on from lack, into
    ``stage.work(out)/results.csv`` (whole after each cell): ``(rows, failures, number of
    cells computed, number of rows taken up)``."""
    work = stage.work(out)
    check_writable(work, create=True)
    results_path = os.path.join(work, "results.csv")
    rows, source = _resume(stage, out, work, plan.config)
    write_results(results_path, rows, timing)  # drops a truncated line an older graphdr left
    done = {(r["dataset"], r["method"], r["fold"]) for r in rows}
    tasks = [t for t in plan.cells if (t["dataset"], result_name(t), t["fold"]) not in done]
    n_skipped = len(done)
    echo(f"graphdr bench: protocol {plan.protocol.name}, {len(plan.loaded)} data set(s), "
         f"{len(plan.methods)} method(s); {len(tasks)} cell(s) to compute, "
         f"{n_skipped} already in {source or os.path.join(out, 'results.csv')}.")
    failures = []
    for task, res, err in _parallel(run_cell, tasks, n_jobs, "sweep", progress, threads,
                                       backend):
        if err:
            failures.append(f"{task['dataset']} / {result_name(task)} / fold {task['fold']}: "
                            f"{err}")
            continue
        key, new_rows = res
        rows.extend(new_rows)
        write_results(results_path, rows, timing)  # whole after each cell: resumable
    write_results(results_path, rows, timing)
    return rows, failures, len(tasks), n_skipped


def _report(stage, out, plan, ran, *, title, command, plots_on, html_on, scatter_per_method,
            n_jobs, progress, threads, echo):
    """Write the tables, figures, index.html and failures.txt of the sweep's results ``ran``
    (:func:`_sweep`) into ``stage.work(out)`` and say the notes: the run's
    :class:`BenchResult`."""
    rows, failures, n_computed, n_skipped = ran
    work = stage.work(out)
    protocol, names = plan.protocol, [d.name for d in plan.loaded]
    table_classifiers = plan.classifiers + ["own"]
    lead = None if plan.label_fraction is None else _label_fraction_note(plan.label_fraction)
    notes = ([] if lead is None else [lead]) + plan.notes
    files = [os.path.join(work, "results.csv"),
             _write_tables(work, protocol, rows, names, plan.methods, table_classifiers,
                           title, command, lead)]
    figures = []
    if plots_on:
        figures = _figures(work, protocol, plan.loaded, rows, plan.methods, table_classifiers,
                           plan.embeddings, n_jobs, progress, failures, files, threads,
                           scatter_per_method)
    if html_on:
        html_path = os.path.join(work, "index.html")
        write_html(
            html_path, title=title or f"graphdr bench - {protocol.name}", command=command,
            protocol=protocol, dataset_info=[d.describe() for d in plan.loaded], rows=rows,
            datasets=names, methods=plan.methods, classifiers=table_classifiers,
            figures=figures, notes=notes + [f"Failed: {f}" for f in failures],
        )
        files.append(html_path)
    fail_path = _write_failures(work, failures)
    if fail_path is not None:
        files.append(fail_path)
    for note in notes:
        echo(note)
    files = [str(stage.final(f)) for f in files]
    return BenchResult(out, rows, failures, files, n_computed, n_skipped, notes)


def _write_tables(work, protocol, rows, names, methods, classifiers, title, command, note):
    """Write ``work/tables.md``: a header (title, protocol, command, and ``note`` when not
    None), then the results' tables; returns its path."""
    tables = markdown_tables(rows, datasets=names, methods=methods, classifiers=classifiers,
                             svm_gamma=protocol.svm_gamma)
    header = (f"# {title or 'graphdr bench'}: protocol `{protocol.name}` "
              f"({protocol.description})\n\nCommand: `{command}`\n\n")
    if note is not None:
        header += note + "\n\n"
    md_path = os.path.join(work, "tables.md")
    with atomic_open(md_path, "w", encoding="utf-8") as fh:
        fh.write(header + tables)
    return md_path


def _write_failures(work, failures):
    """Write ``work/failures.txt``, the failed cells one a line (an earlier run's removed):
    its path, or None when no cell failed."""
    fail_path = os.path.join(work, "failures.txt")
    if os.path.exists(fail_path):  # from an earlier run
        os.remove(fail_path)
    if not failures:
        return None
    with atomic_open(fail_path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(failures) + "\n")
    return fail_path


def _label_fraction_note(fraction):
    return (f"Labels: in every training fold {100 * float(fraction):g} % of each class keeps "
            "its label (stratified, by --seed and fold). A method's own column is its fit of "
            "every training row with y = -1 for the others (semi-supervised and unsupervised "
            "methods); a column marked 'labelled rows' (METHOD@labelled) is the fit of the "
            "labelled rows alone. The classifiers learn from the labelled rows; every test "
            "row is scored.")


def _label_modes(spec, ident, label_fraction):
    """How a method is fitted under ``--label-fraction``: ``'semi'`` (every training row,
    hidden labels -1) when it fits unlabelled samples or no labels at all, and
    ``'labelled'`` (the labelled rows only) when it is supervised; ``[None]`` without it."""
    if label_fraction is None:
        return [None]
    from .._validation import SEMI_SUPERVISED

    modes = []
    if not spec.supervised or spec.resolve().__name__ in SEMI_SUPERVISED:
        modes.append("semi")
    if spec.supervised:
        modes.append("labelled")
    return modes


def _figures(out, protocol, loaded, rows, methods, classifiers, embed_tasks, n_jobs, progress,
             failures, files, threads=1, scatter_per_method=False):
    agg = aggregate(rows)
    recognition = protocol.curves == "recognition"
    by_name = {d.name: d for d in loaded}
    figures = []
    curve_items = []
    for ds in loaded:
        for clf in classifiers:
            curves = {}
            for m in methods:
                dims = agg.get((ds.name, m, clf))
                if dims:
                    ks = sorted(dims)
                    curves[m] = (ks, [dims[k][0] for k in ks], [dims[k][1] for k in ks])
            if not curves:
                continue
            fname = f"error_vs_dim_{_slug(ds.name)}_{clf}.png"
            plots.plot_error_vs_dim(curves, os.path.join(out, fname), title=ds.name,
                                    classifier=clf, recognition=recognition)
            files.append(os.path.join(out, fname))
            what = "Recognition rate" if recognition else "Test error"
            curve_items.append((fname, f"{what} versus dimension: {ds.name}, {clf}"))
    figures.append(("Error versus dimension" if not recognition
                    else "Recognition rate versus dimension", curve_items))

    embeddings = {}
    for task, res, err in _parallel(run_embedding, embed_tasks, n_jobs, "2-D embeddings", progress,
                                      threads):
        if err:
            failures.append(f"{task['dataset']} / {task['method']} / 2-D embedding: {err}")
        else:
            embeddings[(res["dataset"], res["method"])] = res
    scatter_items, single_items, curve_figs, weight_figs = [], [], [], []
    for ds in loaded:
        embs = [embeddings[(ds.name, m)] for m in methods if (ds.name, m) in embeddings]
        if not embs:
            continue
        classes = by_name[ds.name].classes
        fname = f"scatter_{_slug(ds.name)}.png"
        plots.plot_scatter_grid(embs, classes, os.path.join(out, fname),
                                title=f"2-D embeddings of {ds.name}: held-out half of the samples "
                                "(t-SNE: all samples)")
        files.append(os.path.join(out, fname))
        panels = ", ".join(method_label(e["method"]) for e in embs)
        scatter_items.append((fname, f"{ds.name}, coloured by class; panels: {panels}. Methods "
                              "are fitted on a stratified half of the samples and draw the other "
                              "half (t-SNE, which cannot embed new samples, draws all).", "wide"))
        for e in embs if scatter_per_method else ():
            single = f"scatter_{_slug(ds.name)}_{_slug(e['method'])}.png"
            plots.plot_scatter(e, classes, os.path.join(out, single),
                               title=f"{method_label(e['method'])} - {ds.name}")
            files.append(os.path.join(out, single))
            single_items.append((single, f"{method_label(e['method'])} on {ds.name}", "small"))
        hist = {e["method"]: e["history"] for e in embs if e["history"]}
        if hist:
            fname = f"curves_{_slug(ds.name)}.png"
            plots.plot_curves(hist, os.path.join(out, fname), title=f"Optimizers on {ds.name}")
            files.append(os.path.join(out, fname))
            curve_figs.append((fname, f"objective versus iteration on {ds.name}"))
        weights = {e["method"]: e["kernel_weights"] for e in embs if e["kernel_weights"]}
        if weights:
            fname = f"kernel_weights_{_slug(ds.name)}.png"
            plots.plot_kernel_weights(weights, os.path.join(out, fname),
                                      title=f"Kernel weights on {ds.name}")
            files.append(os.path.join(out, fname))
            weight_figs.append((fname, f"learned kernel weights on {ds.name}"))
    figures.append(("2-D embeddings", scatter_items))
    figures.append(("Optimizer curves", curve_figs))
    figures.append(("Kernel weights", weight_figs))
    figures.append(("2-D embedding of each method", single_items))
    return figures
