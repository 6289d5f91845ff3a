"""``maps2d_scale.py --dask N``: DEEMap past memory, ``graphdr map`` of a Parquet dataset on a
local Dask cluster (peak memory of every worker, equality with the in-memory path) and the
placement's throughput with 1 and 2 workers.

The data are :func:`maps2d_scale.subclusters` (seed 1, float32), written once as a folder of
Parquet files of 250,000 rows (``f0..f49``, ``label``) under ``--data-dir``. Then:

1. the README's command, ``graphdr map DIR --workers 2 --worker-memory 3GiB --memory-budget
   1GiB`` with ``--repulsion gaussian`` (the map whose fit the memory budget sizes, up to 10^6
   rows; the default heavy-tailed map fits 20,000), in a process of its own; the resident
   memory of it and of every process it starts (the Dask workers) is sampled every 0.2 s
   (``psutil``), and its wall time measured;
2. the in-memory path on the same sample: the rows :func:`graphdr.maps.dask_fit.fit_sample`
   chooses, fitted by ``DEEMap(repulsion='gaussian').fit`` of a NumPy array, its
   ``embedding_`` compared with those rows' coordinates in the partitions and ``transform``
   of ``--check`` other rows (a uniform
   sample) compared with theirs, bit for bit;
3. the throughput of placing the first ``--place`` rows or more with that model
   (``place_dask``) on a local cluster of 1 and of 2 worker processes of one thread each, 3 GiB
   each: rows per second, the model's transfer to the workers included. The rows placed are
   whole files, an even number of them where there are: the 2 workers get equal blocks.

    .venv/bin/python benchmarks/maps2d_scale.py --dask 10000000 [--place 1000000]
        [--check 100000] [--data-dir /tmp] [--note TEXT]

Writes ``benchmarks/results/maps2d_scale_dask.md`` (and ``.json``).
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
ROWS_PER_FILE = 250_000
WORKER_MEMORY = 3 * 2**30


def write_parquet(n, folder, rows_per_file=ROWS_PER_FILE, columns="f{}", id_column=None,
                  file_name="part-{:04d}.parquet", **data):
    """The scale data of ``n`` rows (:func:`maps2d_scale.subclusters` with ``data``, seed 1) as
    Parquet files of ``rows_per_file`` rows, the features named ``columns``, an int64 id column
    ``id_column`` if named (kept: a second run reuses them)."""
    import numpy as np
    import pandas as pd
    from maps2d_scale import subclusters

    folder = Path(folder)
    if written(folder, n):
        return folder
    X, y = subclusters(n, seed=1, **data)
    ids = np.random.default_rng(2).permutation(n).astype(np.int64) + 10**9 if id_column else y
    for i, a in enumerate(range(0, n, rows_per_file)):
        b = min(a + rows_per_file, n)
        frame = pd.DataFrame(X[a:b], columns=[columns.format(j) for j in range(X.shape[1])])
        if id_column:
            frame.insert(0, id_column, ids[a:b])
        frame["label"] = y[a:b]
        frame.to_parquet(folder / file_name.format(i), index=False)
    (folder / "_SUCCESS").write_text(str(n))
    return folder


def written(folder, n):
    """Whether ``folder`` holds the Parquet files of ``n`` rows written before (its
    ``_SUCCESS`` says ``n``); if not, the folder is made ready for them (emptied of Parquet
    files)."""
    done = Path(folder) / "_SUCCESS"
    if done.exists() and done.read_text() == str(n):
        return True
    Path(folder).mkdir(parents=True, exist_ok=True)
    for old in Path(folder).glob("*.parquet"):
        old.unlink()
    return False


class MemorySampler:
    """The peak resident memory of a process and of each process it starts, sampled."""

    def __init__(self, pid, every=0.2):
        import psutil

        self.root, self.every, self.peaks = psutil.Process(pid), every, {}
        self.total_peak = 0  # the peak of the sum over the processes
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        import psutil

        while not self._stop.is_set():
            try:
                procs = [self.root] + self.root.children(recursive=True)
            except psutil.Error:
                return
            total = 0
            for p in procs:
                try:
                    rss = p.memory_info().rss
                    name = "client" if p.pid == self.root.pid else f"child {p.pid}"
                    self.peaks[name] = max(self.peaks.get(name, 0), rss)
                    total += rss
                except psutil.Error:
                    pass
            self.total_peak = max(self.total_peak, total)
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def run_cli(folder, out, n):
    # the Dask path for a small trial too (there the local cluster is the heavier route)
    # and the fit of 10^6 rows this benchmark measures (--fit-samples auto fits what
    # --memory-budget holds: maps2d_scale_routes.md)
    route = (["--memory-budget", "1GiB", "--fit-samples", "1000000"] if n >= ROWS_PER_FILE
             else ["--scheduler", "local"])
    command, wall, mem, _ = run_map_command(
        folder, out, ["--workers", "2", "--worker-memory", "3GiB", *route, "--quiet"])
    children = sorted((v for k, v in mem.peaks.items() if k != "client"), reverse=True)
    return dict(command=" ".join(["graphdr"] + command[1:]), wall=wall,
                client_peak=mem.peaks.get("client", 0), worker_peaks=children[:2])


def run_map_command(folder, out, options):
    """``graphdr map folder --out out options`` in a process of its own, its memory and that
    of every process it starts sampled: ``(command, wall seconds, MemorySampler, stderr)``."""
    command = [str(Path(sys.executable).with_name("graphdr")), "map", str(folder), "--out",
               str(out), "--repulsion", "gaussian", *options]  # (the map fitted on 10^6 rows)
    start = time.perf_counter()
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    with MemorySampler(proc.pid) as mem:
        _, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{err[-3000:]}")
    return command, wall, mem, err


def check_equal(folder, out, n_check):
    """The in-memory fit of the same sample against the partitions (bit for bit)."""
    import pandas as pd

    from graphdr import DEEMap
    from graphdr.io.file_parts import read_parts
    from graphdr.maps.dask_fit import fit_limit, fit_sample

    table = read_parts(folder)
    X = table.features()
    start = time.perf_counter()
    gaussian = DEEMap(repulsion="gaussian")  # (as the command line's --repulsion gaussian)
    rows = fit_sample(X, table.y, fit_limit(gaussian.fit_samples, gaussian.repulsion))
    from graphdr.blocks.sampling import take_rows

    Xfit = take_rows(X, rows)
    model = DEEMap(repulsion="gaussian").fit(Xfit, table.y[rows])
    fit = time.perf_counter() - start
    parts = sorted(Path(f"{out}.parquet").glob("part-*.parquet"))
    got = np.vstack([pd.read_parquet(p, columns=["x", "y"]).to_numpy() for p in parts])
    others = np.setdiff1d(np.arange(len(table.y)), rows)
    check = np.sort(np.random.default_rng(0).choice(others, min(n_check, len(others)),
                                                    replace=False))
    equal_fit = bool(np.array_equal(got[rows], model.embedding_))
    equal_placed = bool(len(check) == 0 or np.array_equal(got[check],
                                                          model.transform(take_rows(X, check))))
    return model, X, dict(fit_in_memory=fit, fitted_rows=len(rows), checked_rows=len(check),
                          equal_fitted=equal_fit, equal_placed=equal_placed,
                          n=len(table.y))


def throughput(model, X, n_place):
    from dask.distributed import Client, LocalCluster

    from graphdr.maps.dask_fit import place_dask

    # whole files, an even number of them where there are (the 2 workers get equal blocks)
    ends = np.cumsum(X.chunks[0])
    blocks = int(np.searchsorted(ends, min(n_place, ends[-1])) + 1)
    if blocks % 2 and blocks < len(ends):
        blocks += 1
    Xp = X[:int(ends[blocks - 1])]
    n_place = len(Xp)
    out = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          memory_limit=WORKER_MEMORY, dashboard_address=":0") as cluster, \
                Client(cluster):
            start = time.perf_counter()
            Y = place_dask(model, Xp).compute()
            out[workers] = time.perf_counter() - start
        assert Y.shape == (n_place, 2)
    return dict(place_rows=n_place, one_worker=out[1], two_workers=out[2],
                speedup=out[1] / out[2])


def run(n, n_place, n_check, data_dir, note="", out=RESULTS):
    from common import machine, threads_label

    folder = write_parquet(n, Path(data_dir) / f"scale-{n}")
    mapped = Path(data_dir) / f"map-{n}" / "map"
    row = dict(n=n, measured=f"{time.strftime('%Y-%m-%d')}, {machine(threads_label())} Python "
                             f"{platform.python_version()}" + (f"; {note}" if note else ""))
    row.update(run_cli(folder, mapped, n))
    print(f"graphdr map: {row['wall']:.0f} s, client {row['client_peak'] / 2**30:.2f} GiB, "
          f"workers {[round(p / 2**30, 2) for p in row['worker_peaks']]} GiB", flush=True)
    model, X, checked = check_equal(folder, mapped, n_check)
    row.update(checked)
    print(f"equal bit for bit: fitted {checked['equal_fitted']}, placed "
          f"{checked['equal_placed']}", flush=True)
    row.update(throughput(model, X, n_place))
    print(f"throughput: 1 worker {row['one_worker']:.1f} s, 2 workers {row['two_workers']:.1f} "
          f"s ({row['speedup']:.2f}x)", flush=True)
    write(row, out)
    return row


def _before(row):
    """The lines of the earlier code's run of the same command, if the row has one (``before``:
    its ``command``, ``wall``, ``client_peak``, ``worker_peaks`` and ``measured``)."""
    b = row.get("before")
    if not b:
        return []
    gib = 2**30
    return [
        f"The same map by earlier code, in the same session ({b['measured']}): `{b['command']}` "
        f"took {b['wall']:.0f} s (this code: {row['wall']:.0f} s, {row['wall'] / b['wall']:.2f}x), "
        f"its `graphdr map` process peaked at {b['client_peak'] / gib:.2f} GiB and its workers at "
        + ", ".join(f"{p / gib:.2f}" for p in b["worker_peaks"]) + " GiB.", ""]


def write(row, out=RESULTS):
    (out / "maps2d_scale_dask.json").write_text(json.dumps(row, indent=1) + "\n")
    gib = 2**30
    n, m = row["n"], row["place_rows"]
    lines = [
        "# DEEMap past memory: `graphdr map` of a Parquet dataset on a local Dask cluster", "",
        f"Headline: {n:,} x 50 (float32 Parquet, {-(-n // ROWS_PER_FILE)} files) mapped by "
        f"`graphdr map` on 2 workers of 3 GiB in {row['wall'] / 60:.1f} min; largest worker "
        f"peak {max(row['worker_peaks']) / gib:.2f} GiB; coordinates equal to the in-memory "
        f"path's bit for bit: {'yes' if row['equal_fitted'] and row['equal_placed'] else 'NO'}"
        f"; placement 2 workers / 1 worker: {row['speedup']:.2f}x"
        + (f"; {row['wall'] / row['before']['wall']:.2f}x the earlier code's time"
           if row.get("before") else "") + ".", "",
        f"Command: `.venv/bin/python benchmarks/maps2d_scale.py --dask {n} --place {m}` "
        "(the data written once under `--data-dir`, default /tmp).", "",
        f"Machine: {row['measured']}.", "",
        "| what | figure |", "|---|---:|",
        f"| command | `{row['command']}` |",
        f"| wall time (read, keys, fit on the sample, place, write) | {row['wall']:.0f} s |",
        f"| peak memory of the `graphdr map` process (fit of the sample) | "
        f"{row['client_peak'] / gib:.2f} GiB |",
        "| peak memory of each worker (limit 3 GiB) | "
        + ", ".join(f"{p / gib:.2f} GiB" for p in row["worker_peaks"]) + " |",
        f"| rows fitted (the content-keyed sample) | {row['fitted_rows']:,} |",
        f"| their coordinates equal `embedding_` of the in-memory fit | "
        f"{row['equal_fitted']} |",
        f"| {row['checked_rows']:,} other rows equal the in-memory `transform` | "
        f"{row['equal_placed']} |",
        f"| placing {m:,} rows, 1 worker of 1 thread | {row['one_worker']:.1f} s "
        f"({m / row['one_worker']:,.0f} rows/s) |",
        f"| placing {m:,} rows, 2 workers of 1 thread | {row['two_workers']:.1f} s "
        f"({m / row['two_workers']:,.0f} rows/s) |",
        f"| throughput, 2 workers / 1 | {row['speedup']:.2f}x |", "",
        *_before(row),
        "The peak memory is the resident set sampled every 0.2 s (`psutil`) of the process and of "
        "every process it started; the two largest of these are the workers. The throughput "
        "includes sending the fitted model to each worker once.",
    ]
    (out / "maps2d_scale_dask.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'maps2d_scale_dask.md'}")
