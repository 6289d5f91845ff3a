r"""Running a reproduction: the experiments, then ``report.md``, ``results.csv`` and the figures."""

from __future__ import annotations

import csv
import json
import os
import platform
import time

import numpy as np

from ..._outputs import SafeRows, StagedFolder, atomic_open
from ...io.files import check_writable
from .bouzas import (
    PAPER_000,
)
from .gavriilidis import (
    PAPER_002,
)
from .lin_mkl import (
    PAPER_001,
)
from .spec import (
    VERDICTS,
    Lookup,
)
from .zheng_dee import (
    PAPER_003,
)

PAPERS = {p.key: p for p in (PAPER_000, PAPER_001, PAPER_002, PAPER_003)}


def paper_numbers(paper):
    """Every transcribed number of ``paper``: list of (table key, row, column, value)."""
    p = PAPERS[paper]
    out = []
    for t in p.tables:
        for (row, col), (val, _) in t.cells.items():
            if val is not None:
                out.append((t.key, row, col, val))
    return out


# ----- running ----------------------------------------------------------------------------------
def _fmt(v, metric):
    if v is None:
        return "-"
    if metric == "ratio":
        return f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"
    return f"{v:.2f}"


def _table_markdown(t, lookup):
    """Markdown of one PaperTable, each cell 'paper / ours (difference)'; and its CSV rows."""
    unit = {"error": "error (%)", "recognition": "recognition rate (%)",
            "ratio": "ratio"}[t.metric]
    lines = [f"### {t.title}", "",
             f"Each cell: **paper / ours (ours - paper)**, {unit}; '-' where one side has no "
             "number.", "",
             "| | " + " | ".join(t.columns) + " |", "|---|" + "---:|" * len(t.columns)]
    csv_rows = []
    for row in t.rows:
        cells = []
        for col in t.columns:
            paper, ref = t.cells.get((row, col), (None, None))
            ours, note = lookup.value(ref, t.metric)
            diff = None if paper is None or ours is None else ours - paper
            txt = f"{_fmt(paper, t.metric)} / {_fmt(ours, t.metric)}"
            if diff is not None:
                txt += f" ({diff:+.2f})"
            if note:
                txt += f" [{note}]"
            cells.append(txt)
            csv_rows.append(dict(table=t.key, row=row, column=col, metric=t.metric,
                                 paper="" if paper is None else f"{paper:g}",
                                 ours="" if ours is None else f"{ours:.4f}",
                                 difference="" if diff is None else f"{diff:.4f}", note=note))
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    diffs = [float(r["difference"]) for r in csv_rows if r["difference"] != ""
             and r["table"] == t.key]
    lines.append("")
    if diffs:
        lines.append(f"Compared cells: {len(diffs)}; mean difference {np.mean(diffs):+.2f}, "
                     f"mean absolute difference {np.mean(np.abs(diffs)):.2f}.")
        lines.append("")
    lines.append(f"**Why they differ.** {t.why}")
    if t.note:
        lines += ["", t.note]
    lines.append("")
    return lines, csv_rows


def title_counts(ledger_rows):
    """The title's account of the ledger: 'claims: reproduced 1, direction only 5, ...'."""
    counts = {v: sum(r["difference"] == v for r in ledger_rows) for v in VERDICTS}
    return "claims: " + ", ".join(f"{v} {n}" for v, n in counts.items() if n) + \
        f" of {len(ledger_rows)}"


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _ledger_markdown(ledger, lookup, sensitivity_note=""):
    """The ``## Claims`` section: one row per claim (both recipes, the test, the verdict),
    then the experiment behind each claim that is not reproduced; and its CSV rows."""
    lines = ["## Claims", "",
             "Every claim of the paper (a statement of its text, or an ordering its tables "
             "show), with our numbers under the paper's recipe (as printed) and under "
             "graphdr's defaults. The verdict is on the as-printed recipe, from the named "
             "test, and weighs the effect's size (the rule: "
             "`docs/user_guide/command_line.rst`): **reproduced** (the paper's direction, "
             "significant at the 5 % level, and of the paper's size: within half to twice "
             "the paper's gap where it prints one, at least 1 point where it does not; for "
             "'comparable' claims, equivalence within 1 point shown by two one-sided tests), "
             "**direction only** (the paper's direction, not significant or of another size; "
             "an equivalence within the margin on average but not shown), **not reproduced** "
             "(the other direction, or a difference beyond the margin where the paper claims "
             "none), **not testable** (nothing of ours to compare).", "",
             "| claim | paper | as printed | graphdr default | test | size | verdict |",
             "|---|---|---|---|---|---|---|"]
    csv_rows, behind = [], []
    for row in ledger:
        got = row.check(lookup)
        verdict = got["verdict"]
        if verdict not in VERDICTS:
            raise ValueError(f"ledger verdict {verdict!r} is not one of {VERDICTS}")
        lines.append("| " + " | ".join(_cell(x) for x in (
            row.claim, row.paper, got["as_printed"], got["default"], got["test"],
            got.get("size", "-"), f"**{verdict}**")) + " |")
        csv_rows.append(dict(table="claims", row=row.claim, column=row.paper, metric="claim",
                             paper=got["as_printed"], ours=got["default"],
                             difference=verdict, note=got["test"]))
        if verdict == "not reproduced":
            text = row.explain(lookup) if row.explain is not None else None
            behind.append((row.claim, text or "**No experiment explains it yet.**"))
    counts = {v: sum(r["difference"] == v for r in csv_rows) for v in VERDICTS}
    lines += ["", "Verdicts: " + ", ".join(f"{v} {n}" for v, n in counts.items()) + ".", ""]
    lines += _sensitivity_markdown(ledger, lookup, sensitivity_note)
    if behind:
        lines += ["### Behind each claim not reproduced", ""]
        for claim, text in behind:
            lines += [f"**{claim}** {text}", ""]
    return lines, csv_rows


def _sensitivity_markdown(ledger, lookup, note=""):
    """A table of each claim under the settings the paper leaves open (as printed)."""
    rows = [(row.claim, dict(row.sensitivity(lookup))) for row in ledger
            if row.sensitivity is not None]
    rows = [(claim, cells) for claim, cells in rows if cells]
    if not rows:
        return []
    settings = list(dict.fromkeys(k for _, cells in rows for k in cells))
    lines = ["### The claims under the settings the paper leaves open", "",
             note or "The as-printed recipe with each open setting changed: our two numbers "
             "and the verdict by the same test.", "",
             "| claim | " + " | ".join(settings) + " |", "|---|" + "---|" * len(settings)]
    for claim, cells in rows:
        lines.append(f"| {_cell(claim)} | "
                     + " | ".join(_cell(cells.get(k, "-")) for k in settings) + " |")
    return lines + [""]


def _command(argv):
    import shlex

    return "graphdr " + " ".join(shlex.quote(a) for a in argv)


def reproduce(paper, *, out=None, quick=False, n_jobs=1, threads=1, seed=0, fresh=False,
              progress=True, timing=True, echo=print, argv=None, plots_on=True):
    """Rerun paper ``paper``'s experiments and write the comparison report into ``out``.

    The run works in ``out/in-progress`` (:class:`graphdr._outputs.StagedFolder`) and its
    files replace ``out``'s only when the report is written: stopped before (Ctrl-C), it leaves
    ``out`` as it was and its finished cells in ``out/in-progress``, where the next run without
    ``fresh`` goes on from them (with ``fresh`` it starts over).
    Returns ``(report path, failures)``; raises ValueError for an unknown paper.
    """
    key = str(paper).strip()
    if key not in PAPERS:
        raise ValueError(f"Unknown paper {paper!r}; reproducible papers: {', '.join(PAPERS)}.")
    out = out or f"graphdr-reproduce-{key}"
    _refuse_foreign_files(out)
    check_writable(out, create=True)
    command = _command(argv) if argv is not None else f"graphdr reproduce {key}" + \
        (" --quick" if quick else "")
    with StagedFolder(out, what=f"reproduce {key}", fresh=fresh, command=command) as stage:
        failures, elapsed = _run_paper(
            PAPERS[key], stage, quick=quick, n_jobs=n_jobs, threads=threads, seed=seed,
            progress=progress, timing=timing, echo=echo, command=command, plots_on=plots_on)
        stage.commit(stale=[os.path.join(e.key, "failures.txt")
                            for e in PAPERS[key].experiments])
    path = os.path.join(out, "report.md")
    echo(f"graphdr reproduce {key}: wrote {path} in {elapsed / 60:.1f} min.")
    return path, failures


def _run_paper(p, stage, *, quick, n_jobs, threads, seed, progress, timing, echo, command,
               plots_on):
    """The experiments, figures and report of paper ``p``, written into ``stage.path``."""
    out, work = str(stage.out), str(stage.path)
    start = time.perf_counter()
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    done = _run_experiments(p, stage, quick=quick, n_jobs=n_jobs, threads=threads, seed=seed,
                            progress=progress, timing=timing, echo=echo, command=command,
                            plots_on=plots_on)
    aggs, folds, iters, failures, exp_info, exp_seconds, extra_figs = done
    elapsed = time.perf_counter() - start
    lookup = Lookup(aggs, folds, iters)
    runs = _runs_logged(stage.resume_folder(out, ["runs.json"]), dict(
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), command=command,
        wall_seconds=round(elapsed, 1), quick=bool(quick),
        computed_cells=sum(i[4].n_computed for i in exp_info),
        reused_cells=sum(i[4].n_skipped for i in exp_info),
        load_start=round(load0, 1),
        load_end=round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
        seconds={k: round(v, 1) for k, v in exp_seconds.items()}))
    lines = _report_head(p, quick=quick, command=command, elapsed=elapsed,
                         exp_seconds=exp_seconds, load0=load0, n_jobs=n_jobs, threads=threads,
                         seed=seed, runs=runs, exp_info=exp_info)
    csv_rows = _report_results(p, lines, lookup, exp_info, extra_figs, failures)
    _write_report(work, lines, csv_rows, runs)
    return failures, elapsed


def _run_experiments(p, stage, *, quick, n_jobs, threads, seed, progress, timing, echo,
                     command, plots_on):
    """Paper ``p``'s experiments (one ``run_bench`` each) and figures: ``(aggs, folds, iters,
    failures, exp_info, exp_seconds, extra_figs)``."""
    from ..report import aggregate, fit_iterations, fold_errors
    from ..runner import run_bench

    key, out, work = p.key, str(stage.out), str(stage.path)
    aggs, folds, iters, failures, exp_info, exp_seconds = {}, {}, {}, [], [], {}
    steps = len(p.experiments) + len(p.figures)
    for step, exp in enumerate(p.experiments, 1):
        protocol, datasets, methods = exp.resolved(quick)
        echo(f"graphdr reproduce {key} [{step}/{steps}]: {exp.key} ({exp.title})")
        t0 = time.perf_counter()
        res = run_bench(
            protocol, datasets=datasets, methods=methods, classifiers=exp.classifiers,
            out=os.path.join(out, exp.key), stage=stage, n_jobs=n_jobs, seed=seed,
            plots_on=plots_on and exp.plots, pictures=exp.pictures,
            html_on=True, progress=progress, timing=timing,
            command=command, title=f"Paper {key}: {exp.title}", echo=echo, threads=threads,
        )
        exp_seconds[exp.key] = time.perf_counter() - t0
        aggs[exp.key] = aggregate(res.rows)
        folds[exp.key] = fold_errors(res.rows)
        iters[exp.key] = fit_iterations(res.rows)
        failures += [f"{exp.key}: {f}" for f in res.failures]
        exp_info.append((exp, protocol, datasets, methods, res))
    extra_figs = []
    for step, maker in enumerate(p.figures, len(p.experiments) + 1):
        echo(f"graphdr reproduce {key} [{step}/{steps}]: {maker.__name__.strip('_')}")
        t0 = time.perf_counter()
        figs, rows = maker(work, quick, progress, seed, echo)
        exp_seconds[maker.__name__.strip("_")] = time.perf_counter() - t0
        extra_figs += figs
        aggs[maker.__name__.strip("_")] = rows
    return aggs, folds, iters, failures, exp_info, exp_seconds, extra_figs


def _report_head(p, *, quick, command, elapsed, exp_seconds, load0, n_jobs, threads, seed,
                 runs, exp_info):
    """The lines of the report before its results: the command, the runs, the data and the
    experiments run."""
    key = p.key
    lines = [f"# Paper {key}: {p.citation}", "",
             f"Command: `{command}`", ""]
    if quick:
        lines += ["**QUICK RUN**: every experiment shrunk to a few seconds (one small data "
                  "set, two or three methods, fewer folds). These numbers are a smoke test, "
                  "not a reproduction; run without `--quick` for the report.", ""]
    import graphdr

    load = (f"; load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
            "(the machine is shared: times are inflated by other jobs)"
            if hasattr(os, "getloadavg") else "")
    lines += [f"Wall time {elapsed / 60:.1f} min ("
              + ", ".join(f"{k} {v:.0f} s" for k, v in exp_seconds.items())
              + f") with --n-jobs {n_jobs}, {threads} BLAS thread(s) per process, seed {seed}; "
              f"graphdr {getattr(graphdr, '__version__', '?')}, Python "
              f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
              f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}{load}. "
              f"Paper text: "
              f"`papers/{p.file}`. The numbers below are whatever graphdr's methods compute "
              "today: rerun the command after changing a method to update them.", ""]
    lines += ["Runs into this directory (cells already in a results.csv are reused, so "
              "only a run that computed every cell measures the full cost):", "",
              "| date | command | wall time | cells computed / reused | load average "
              "start / end |", "|---|---|---:|---|---|"]
    lines += [f"| {r['date']} | `{r['command']}` | {r['wall_seconds'] / 60:.1f} min | "
              f"{r['computed_cells']} / {r['reused_cells']} | {r['load_start']} / "
              f"{r['load_end']} |" for r in runs]
    lines += [""]
    lines += ["## Data: the paper's and ours", "", "| paper | ours | note |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in p.stand_ins]
    if p.recipes:
        lines += ["", "## Two recipes: as printed and graphdr's defaults", "", p.recipes]
    lines += ["", "## Experiments run", ""]
    for exp, protocol, datasets, methods, _res in exp_info:
        lines.append(f"- **{exp.key}** -- {exp.title}. Protocol `{protocol.name}` "
                     f"({_describe_protocol(protocol, exp.classifiers)}); "
                     f"data: {', '.join(datasets)}; methods: "
                     f"{', '.join(methods)}. Files: [{exp.key}/index.html]({exp.key}/index.html)"
                     f", [{exp.key}/results.csv]({exp.key}/results.csv) (every fold and "
                     f"dimension), [{exp.key}/tables.md]({exp.key}/tables.md).")
    lines.append("")
    return lines


def _report_results(p, lines, lookup, exp_info, extra_figs, failures):
    """The report's results appended to ``lines`` (the paper's tables beside ours, the claims'
    ledger, observations, summaries, figures, what was not reproduced, failed cells); the
    rows of its results.csv."""
    from ..report import markdown_tables

    key = p.key
    csv_rows = []
    if p.tables:
        lines += ["## The paper's numbers beside ours", ""]
        for t in p.tables:
            tl, tr = _table_markdown(t, lookup)
            lines += tl
            csv_rows += tr
    if p.ledger:
        ledger_lines, ledger_rows = _ledger_markdown(p.ledger, lookup, p.sensitivity_note)
        lines[0] = f"# Paper {key} ({title_counts(ledger_rows)}): {p.citation}"
        lines += ledger_lines
        csv_rows += ledger_rows
    notes = [n for n in (f(lookup) for f in p.observations) if n]
    if notes:
        lines += ["## Observations (computed from our numbers)", ""]
        lines += [f"- {n}" for n in notes] + [""]
    for exp_key, heading in p.summary_tables:
        info = next(i for i in exp_info if i[0].key == exp_key)
        exp, protocol, datasets, methods, res = info
        names = sorted({r["dataset"] for r in res.rows})
        tables = markdown_tables(res.rows, methods=methods, classifiers=list(
            exp.classifiers or protocol.classifiers), svm_gamma=protocol.svm_gamma,
            datasets=names)
        tables = tables.split("### Error (%) per dimension")[0].rstrip()
        lines += [f"## {heading}", "", tables.replace("### ", "#### "), "",
                  f"Errors at every dimension: [{exp_key}/tables.md]({exp_key}/tables.md).", ""]
    lines += ["## Figures", ""]
    for exp, _protocol, _datasets, _methods, res in exp_info:
        pngs = sorted(os.path.basename(f) for f in res.files if f.endswith(".png"))
        curves = [f for f in pngs if f.startswith("error_vs_dim")]
        if len(curves) > 2:  # one per data set and classifier: leave them to index.html
            pngs = [f for f in pngs if f not in curves]
        for png in pngs:
            lines += [f"![{exp.key}: {png}]({exp.key}/{png})", "", f"*{exp.key}/{png}*", ""]
        if len(curves) > 2:
            lines += [f"Error versus dimension per data set and classifier: "
                      f"[{exp.key}/index.html]({exp.key}/index.html).", ""]
    for fname, caption in extra_figs:
        lines += [f"![{caption}]({fname})", "", f"*{caption}*", ""]
    if p.not_reproduced:
        lines += ["## Not reproduced", ""] + [f"- {n}" for n in p.not_reproduced] + [""]
    if failures:
        lines += ["## Failed cells", ""] + [f"- {f}" for f in failures] + [""]
    return csv_rows


def _write_report(work, lines, csv_rows, runs):
    """report.md, results.csv and runs.json into ``work`` (runs.json last: a run that logged
    itself has its report)."""
    with atomic_open(os.path.join(work, "report.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines).rstrip() + "\n")
    with atomic_open(os.path.join(work, "results.csv"), "w", newline="", encoding="utf-8") as fh:
        w = SafeRows(csv.DictWriter(fh, fieldnames=_RESULT_FIELDS, lineterminator="\n"))
        w.writeheader()
        w.writerows(csv_rows)
    with atomic_open(os.path.join(work, "runs.json"), "w", encoding="utf-8") as fh:
        json.dump(runs, fh, indent=1)  # last: a run that logged itself has its report


#: the columns of the report's results.csv
_RESULT_FIELDS = ["table", "row", "column", "metric", "paper", "ours", "difference", "note"]


def _refuse_foreign_files(out):
    """Refuse an ``out`` whose report.md, results.csv or runs.json graphdr did not write (a
    reproduction replaces its own): checked before any work, so no file of the user's is lost."""
    checks = {
        "report.md": lambda text: text.startswith("# Paper "),
        "results.csv": lambda text: text.splitlines()[:1] == [",".join(_RESULT_FIELDS)],
        "runs.json": lambda text: isinstance(json.loads(text), list),
    }
    for name, ours in checks.items():
        path = os.path.join(out, name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                mine = ours(fh.read())
        except (OSError, ValueError):
            mine = False
        if not mine:
            raise ValueError(f"{path} is not a file graphdr reproduce writes; graphdr never "
                             "replaces a file it did not write: choose another --out.")


def _runs_logged(source, entry):
    """The runs logged in ``source/runs.json`` (none when ``source`` is None) and ``entry``."""
    runs = []
    if source is not None and os.path.exists(os.path.join(source, "runs.json")):
        try:
            with open(os.path.join(source, "runs.json")) as fh:
                runs = json.load(fh)
        except ValueError:
            runs = []
    return runs + [entry]


def _describe_protocol(protocol, classifiers=None):
    if protocol.split == "kfold":
        split = f"stratified {protocol.n_splits}-fold CV" + (
            f" x {protocol.n_repeats}" if protocol.n_repeats > 1 else "")
    else:
        split = (f"{protocol.n_repeats} random splits, {protocol.n_train_per_class:g} training "
                 "samples per class")
    dims = "dimensions 1..C-1" if protocol.max_dim is None else \
        f"dimensions up to {protocol.max_dim}"
    if protocol.dim_grid is not None:
        dims = ("the largest dimension only" if not protocol.dim_grid else
                f"dimensions {', '.join(map(str, protocol.dim_grid))} (and each method's "
                "largest)")
    gamma = ("" if protocol.kernel_gamma is None
             else f", RBF kernel gamma {protocol.kernel_gamma:g}")
    projection = ("" if protocol.projection is None
                  else f", projections with scaling='{protocol.projection}'")
    return (f"scaling {protocol.scaling}, {split}, classifiers "
            f"{', '.join(classifiers or protocol.classifiers)}, {dims}{gamma}{projection}")
