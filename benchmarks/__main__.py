"""``python -m benchmarks list | run NAME [-- ARGS] | run --all | index``.

* ``list``: every benchmark with what it shows and its result files;
* ``run NAME [-- ARGS]``: run one (``ARGS`` go to its script; ``--help`` after ``--`` shows
  them), with the environment's BLAS threads unless ``--threads N`` sets them, then regenerate
  the index; ``run NAME -- --quick``: its smoke run (tiny data, optional baselines skipped,
  nothing written in the repository; CI runs every benchmark so);
* ``run --all``: every benchmark with its default arguments, in name order (hours: most
  reproduce a paper's protocol on every data set);
* ``index``: regenerate ``benchmarks/results/README.md``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # ``python benchmarks/__main__.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import registry  # noqa: E402


def _list():
    """One line per benchmark: its name and the question it answers (its result files are in
    the results index)."""
    for b in registry.benchmarks():
        tables = sum(p.suffix == ".md" for p in b.results)
        said = f"{tables} result file{'s' * (tables != 1)}" if tables else "prints its tables"
        question = b.summary.split("? ", 1)[0] + "?" if "? " in b.summary else b.summary
        print(f"{b.name:16s} {question} ({said})")


def _run(bench, extra, threads):
    env = dict(os.environ)
    if threads is not None:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
    command = bench.command(extra)
    print(f"== {bench.name}: {' '.join(command)}", flush=True)
    start = time.perf_counter()
    code = subprocess.run(command, env=env, cwd=registry.HERE.parent, check=False).returncode
    print(f"== {bench.name}: exit {code} after {time.perf_counter() - start:.0f} s", flush=True)
    return code


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    sub.add_parser("list", help="every benchmark, what it shows, its results")
    run = sub.add_parser("run", help="run one benchmark (or --all), then regenerate the index")
    run.add_argument("name", nargs="?", help="the benchmark (see 'list')")
    run.add_argument("--all", action="store_true", help="every benchmark with its defaults")
    run.add_argument("--threads", type=int, default=0,
                     help="BLAS threads of the run (default 0: the environment's, as users "
                          "run graphdr)")
    run.add_argument("args", nargs=argparse.REMAINDER, help="after --: the script's arguments")
    sub.add_parser("index", help="regenerate benchmarks/results/README.md")
    a = p.parse_args(argv)
    if a.verb == "list":
        _list()
        return 0
    if a.verb == "index":
        registry.write_index()
        print(f"wrote {registry.INDEX}")
        return 0
    if a.all == (a.name is not None):
        p.error("run takes a benchmark name or --all (not both)")
    extra = [x for x in (a.args or []) if x != "--"]
    threads = None if a.threads == 0 else a.threads
    try:
        chosen = registry.benchmarks() if a.all else [registry.find(a.name)]
    except KeyError as exc:
        p.error(str(exc.args[0]))
    codes = [_run(b, extra if not a.all else [], threads) for b in chosen]
    if "--quick" not in extra:  # a smoke run writes nothing in the repository
        registry.write_index()
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
