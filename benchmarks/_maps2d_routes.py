"""``maps2d_scale.py --routes N``: ``graphdr map`` of one Parquet dataset in memory and on a
local Dask cluster, side by side: wall time and the peak memory of all its processes together.

The question it answers is the user's: "my table is past the memory budget I gave; is the Dask
route worth it?" The data are :func:`maps2d_scale.subclusters` with 36 features and 6 classes
(seed 1, float32; the shape of a satellite-image table), written once as ``N / 50,000`` Parquet
files with an int64 ``pixel_id`` column, as a Spark job writes them. Each route is one
``graphdr map --repulsion gaussian`` process (the map whose fit the budget sizes; the
default heavy-tailed map fits 20,000 rows on either route); its wall time is measured and
the resident memory of it and of every process it starts (the Dask workers) is sampled
every 0.2 s (``psutil``): the table gives the
peak of their sum (what the machine must hold) and of the ``graphdr map`` process alone.

The routes (:data:`ROUTES`): in memory (``--memory-budget`` above the table); on a local
cluster of 2 workers with ``--memory-budget 1GiB`` and the default ``--fit-samples`` (``auto``:
the rows whose fit fits that budget); with ``--memory-budget`` 2GiB, 512MiB and 128MiB (a
table past the budget whose cluster would be heavier is mapped in memory: "processes" says
which route ran). Every route's held-out 2-D 1-NN error is the one its page states (read back
from the page), and the placement's progress bar is read back to compare the time left it
showed with the time the placement took.

    .venv/bin/python benchmarks/maps2d_scale.py --routes 1000000 [--data-dir /tmp]
        [--only NAME ...] [--note TEXT]

Writes ``benchmarks/results/maps2d_scale_routes.md`` (and ``.json``); a rerun of some routes
(``--only``) keeps the other routes' rows.
"""

from __future__ import annotations

import json
import platform
import re
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
ROWS_PER_FILE = 50_000
N_FEATURES = 36
N_CLASSES = 6
#: (name, extra options of ``graphdr map``, what it is)
ROUTES = [
    ("in memory", ["--memory-budget", "1TB"], "in memory (the table within the budget)"),
    ("dask, auto", ["--memory-budget", "1GiB", "--workers", "2"],
     "Dask, --memory-budget 1GiB, --fit-samples auto (the default)"),
    ("dask, 2GiB", ["--memory-budget", "2GiB", "--workers", "2"],
     "Dask, --memory-budget 2GiB, --fit-samples auto"),
    ("dask, 512MiB", ["--memory-budget", "512MiB", "--workers", "2"],
     "Dask, --memory-budget 512MiB, --fit-samples auto"),
    ("dask, 128MiB", ["--memory-budget", "128MiB", "--workers", "2"],
     "--memory-budget 128MiB, --fit-samples auto"),
]


def run_route(folder, out, options):
    """One ``graphdr map`` process: wall time, peak of the sum of its processes' memory, peak
    of its own, the page's error, the rows fitted."""
    from _maps2d_scale_dask import run_map_command

    command, wall, mem, err = run_map_command(folder, out, options)
    error = page_error(Path(f"{out}.html"))
    fitted = re.search(r"fitted on (\d+)", err)
    samples = re.search(r", (\d+) samples", err)
    return dict(command=" ".join(["graphdr"] + command[1:]), wall=wall,
                total_peak=mem.total_peak, client_peak=mem.peaks.get("client", 0),
                processes=len(mem.peaks), error=error,
                fitted=int((fitted or samples).group(1)), estimates=eta_check(err),
                stderr=err.strip().split("\r")[-1][-600:])


def _seconds(text):
    parts = [int(p) for p in text.split(":")]
    return sum(p * 60 ** i for i, p in enumerate(reversed(parts)))


def eta_check(err):
    """The placement bar's estimates of the time left against the time it then took: at the
    first update past 10 % and past 50 % of the rows, ``(shown, actual)`` seconds."""
    updates = []
    for m in re.finditer(r"place:\s+(\d+)%[^\[]*\[([0-9:]+)<([0-9:?]+)", err):
        if m.group(3) != "?":
            updates.append((int(m.group(1)), _seconds(m.group(2)), _seconds(m.group(3))))
    if not updates:
        return {}
    end = updates[-1][1]
    out = {}
    for share in (10, 50):
        past = [u for u in updates if u[0] >= share]
        if past:
            pct, elapsed, left = past[0]
            out[f"{share}%"] = (left, end - elapsed)
    return out


def page_error(path):
    """The held-out error a map's page states (its first bold percentage after "honest")."""
    page = Path(path).read_text(encoding="utf-8")
    found = re.search(r'class="honest">.*?<b>([0-9.]+) %</b>', page, re.S)
    return f"{found.group(1)} %" if found else "?"


def run(n, data_dir, only=(), note="", out=RESULTS):
    from _maps2d_scale_dask import write_parquet
    from common import machine, threads_label

    # Parquet files of ROWS_PER_FILE rows with an int64 pixel_id (kept for a second run)
    folder = write_parquet(n, Path(data_dir) / f"routes-{n}", ROWS_PER_FILE, "band_{}",
                           "pixel_id", "part-{:05d}.parquet", n_classes=N_CLASSES,
                           n_features=N_FEATURES)
    path = out / "maps2d_scale_routes.json"
    earlier = json.loads(path.read_text()) if path.exists() else {}
    rows = {(r["n"], r["route"]): r for r in earlier.get("rows", [])}
    for name, options, what in ROUTES:
        if only and name not in only:
            continue
        options = [str(n) if o == "ALL" else o for o in options]
        row = dict(n=n, route=name, what=what, measured=(
            f"{time.strftime('%Y-%m-%d')}, {machine(threads_label())} Python "
            f"{platform.python_version()}" + (f"; {note}" if note else "")))
        row.update(run_route(folder, Path(data_dir) / f"routes-map-{n}" / "map", options))
        print(f"{name}: {row['wall']:.0f} s, all processes {row['total_peak'] / 2**30:.2f} GiB"
              f", graphdr map {row['client_peak'] / 2**30:.2f} GiB, error {row['error']}",
              flush=True)
        rows[n, name] = row
        path.write_text(json.dumps(dict(rows=list(rows.values())), indent=1) + "\n")
        write(list(rows.values()), out)
    return rows


def _ran_in_memory(row):
    """A note for a Dask row that ran in memory (its cluster would have been heavier)."""
    return " (mapped in memory)" if row["processes"] == 1 and row["route"] != "in memory" else ""


def _estimates(row):
    est = row.get("estimates") or {}
    return "; ".join(f"at {k}: {a} s / {b} s" for k, (a, b) in est.items()) or "-"


def write(rows, out=RESULTS):
    gib = 2**30
    order = [name for name, _, _ in ROUTES]
    rows = sorted(rows, key=lambda r: (-r["n"], order.index(r["route"])
                                       if r["route"] in order else 99))
    n = rows[0]["n"]
    by = {r["route"]: r for r in rows if r["n"] == n}
    head = ""
    if "in memory" in by and "dask, auto" in by:
        a, b = by["in memory"], by["dask, auto"]
        head = (f"Headline: {n:,} x {N_FEATURES} as {-(-n // ROWS_PER_FILE)} Parquet files: in "
                f"memory {a['wall'] / 60:.1f} min and {a['total_peak'] / gib:.2f} GiB; on a "
                f"local Dask cluster with --memory-budget 1GiB {b['wall'] / 60:.1f} min and "
                f"{b['total_peak'] / gib:.2f} GiB over all processes (fitted on "
                f"{b['fitted'] or 0:,} rows); 2-D 1-NN error {a['error']} (leave-one-out: "
                f"every row fitted) and {b['error']} (the rows not fitted).")
    lines = [
        "# `graphdr map` in memory and on a local Dask cluster: time and memory", "", head, "",
        "Command: `.venv/bin/python benchmarks/maps2d_scale.py --routes N` for N = "
        f"{', '.join(str(m) for m in sorted({r['n'] for r in rows}))} (the data written "
        "once under `--data-dir`, default /tmp).", "",
        f"Machine: {rows[0]['measured']}.", "",
        "| rows | route | wall time | peak memory, all processes | peak, `graphdr map` process | "
        "processes | rows fitted | held-out 2-D 1-NN error | placement's time left, shown / "
        "taken | measured |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']:,} | {r['what']}{_ran_in_memory(r)} | {r['wall'] / 60:.1f} min | "
            f"{r['total_peak'] / gib:.2f} GiB | "
            f"{r['client_peak'] / gib:.2f} GiB | {r['processes']} | "
            f"{r['fitted'] or 0:,} | {r['error']} | {_estimates(r)} | {r['measured']} |")
    lines += [
        "", "The memory is the resident set sampled every 0.2 s (`psutil`); \"all processes\" "
        "is the peak of the sum over `graphdr map` and every process it started (the Dask "
        "workers and the nanny processes), what the machine must hold at once. The error is "
        "the one the page states: the labelled rows not fitted, placed by `transform`, wrong "
        "when their nearest fitted row on the map is of another class (leave-one-out over the "
        "fitted rows when every row is fitted). The placement's time left is what its progress "
        "bar showed at the first update past 10 % and 50 % of the rows, against the time the "
        "placement then took (the bar's lines read from the process's error output).", "",
        "Commands:", ""] + [f"- {r['n']:,}, {r['route']}: `{r['command']}`" for r in rows]
    (out / "maps2d_scale_routes.md").write_text("\n".join(lines) + "\n")
