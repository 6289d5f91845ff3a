"""What the benchmark scripts share: where the data are, how a set is loaded, how a fit is timed.

Data: scikit-learn's built-in sets (:data:`SKLEARN_SETS`) and the shared directory
``$GRAPHDR_SHARED/datasets`` (default ``../shared/datasets`` next to the repository: the UCI
``.npz`` sets and ``mnist5k``). Timing: :func:`best_time`; :func:`machine` is the ``Machine:``
line the results index reads. Parts and smoke runs: :func:`run_part`, :func:`smoke_outputs`.
Result files: :func:`row` and :func:`table` (markdown), :func:`write_lines`.

Not a benchmark itself (:data:`registry.NOT_BENCHMARKS`). Scripts import it as ``common``: the
directory of the script being run is on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: the repository root
REPO = HERE.parent
#: the benchmarks' results directory
RESULTS = HERE / "results"
#: the shared data sets (``$GRAPHDR_SHARED/datasets``, default ``../shared/datasets``)
SHARED = Path(os.environ.get("GRAPHDR_SHARED", REPO.parent / "shared")) / "datasets"
#: scikit-learn's sets that :func:`load` knows
SKLEARN_SETS = ("iris", "wine", "breast_cancer", "digits")


def shared_path(name):
    """The path of the shared set ``name`` (``name.npz``), or ``FileNotFoundError`` saying how
    to point the benchmarks at the shared data."""
    path = SHARED / f"{name}.npz"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: benchmarks read the shared data sets from "
            "$GRAPHDR_SHARED/datasets (default ../shared/datasets next to the repository); "
            "set GRAPHDR_SHARED to the directory that holds 'datasets/'.")
    return path


def load_shared(name):
    """``(X, y)`` of a shared set: float64 features, labels as stored.

    ``mnist5k``: the 5000 x 784 pixels divided by 255. ``vowel``: the 10 acoustic features
    (an older shared copy stored the train/test flag, speaker and sex as its first 3 columns).
    """
    d = np.load(shared_path(name))
    y = d["y"]
    X = d["X"].reshape(len(y), -1).astype(np.float64)
    if name == "mnist5k":
        X /= 255.0
    if name == "vowel" and X.shape[1] == 13:
        X = X[:, 3:]
    return X, y


def load(name, scaled=False):
    """``(X, y)`` of a scikit-learn set or a shared set, labels encoded 0..C-1; ``scaled``: the
    digits divided by 16, mnist5k as it is, the others standardised (on every row)."""
    if name in SKLEARN_SETS:
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        X = X.astype(np.float64)
    else:
        X, y = load_shared(name)
    if scaled and name == "digits":
        X = X / 16.0
    elif scaled and name != "mnist5k":
        from sklearn.preprocessing import StandardScaler

        X = StandardScaler().fit_transform(X)
    return X, np.unique(y, return_inverse=True)[1].astype(np.intp)


def estimator_class(name):
    """The graphdr estimator ``name`` as the studies of partially labelled data and label noise
    (``semi.py`` and its parts, ``fit_path.py``) measured it: ``DEEMap`` with
    the Gaussian objective (``repulsion='gaussian'``, the default until the heavy-tailed map
    became it; the heavy-tailed map's few-label study: ``semi.py --maps --heavy``)."""
    import functools

    import graphdr

    cls = getattr(graphdr, name)
    return functools.partial(cls, repulsion="gaussian") if name == "DEEMap" else cls


#: pause after a multi-threaded BLAS call (``X.T @ X``): OpenBLAS's workers spin for about 0.1
#: to 0.3 s after a call, and would take the cores from the next fit's threads
SETTLE = 0.3


def best_in_turn(fns, repeats=5, settle_after=("gram",)):
    """Best time of each function, the functions called in turn ``repeats`` times (a pause of
    :data:`SETTLE` after those of ``settle_after``)."""
    best = dict.fromkeys(fns, np.inf)
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
            if name in settle_after:
                time.sleep(SETTLE)
    return best


def best_time(fn, repeats=1):
    """``(seconds, result)``: the smallest wall-clock time of ``repeats`` calls of ``fn()`` and
    the result of the last call."""
    best, out = np.inf, None
    for _ in range(max(int(repeats), 1)):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def peak_rss_mb():
    """This process's peak resident memory in MiB (``VmHWM``; ``ru_maxrss`` would include the
    parent's)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024


def json_from(args, *, timeout=None, env=None, strict=False):
    """Run ``python ARGS`` in a fresh process (clean memory figures, its own threads; this
    folder on its path, so that it can import this module) and return the JSON its last line
    of output prints, or ``{"error": ...}``: its last line of errors (all of them echoed), or
    the timeout. ``strict``: raise ``RuntimeError`` instead."""
    if strict:
        out = json_from(args, timeout=timeout, env=env)
        if set(out) == {"error"}:
            raise RuntimeError(f"python {' '.join(map(str, args))} failed: {out['error']}")
        return out
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    try:
        out = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                             timeout=timeout, env=env, check=True)
    except subprocess.CalledProcessError as exc:
        print(exc.stderr, file=sys.stderr)
        lines = (exc.stderr or "").strip().splitlines()
        return {"error": lines[-1][:300] if lines else f"exit status {exc.returncode}"}
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def thread_env(threads, variables=THREAD_VARIABLES):
    """The environment with each of ``variables`` set to ``threads`` (``None``: as it is)."""
    env = dict(os.environ)
    if threads is not None:
        env.update(dict.fromkeys(variables, str(threads)))
    return env


def commit(root=REPO):
    """The commit checked out at ``root`` (short), or ``""``."""
    return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()


def thread_variables():
    """The thread variables of the environment as a command prefix (``"OMP_NUM_THREADS=1 "``),
    or ``""`` when none is set (the machine's default threads)."""
    return "".join(f"{k}={os.environ[k]} " for k in THREAD_VARIABLES if k in os.environ)


def threads_label():
    """What a result file says of its threads: the variables set, or the default threads."""
    set_ = thread_variables().strip()
    return (f"threads set by {set_}" if set_
            else f"the machine's default threads ({os.cpu_count()} cores, no thread variable "
                 "set)")


def machine(threads="BLAS threads as the machine sets"):
    """The ``Machine:`` line of a results file: architecture, processor, cores, threads."""
    cpu = platform.processor() or platform.machine()
    return f"Machine: {cpu}, {os.cpu_count()} cores ({threads})."


#: what :func:`run_part` returns when the options name no part
NO_PART = object()


def run_part(argv, parts, quick=None):
    """Run the part of a benchmark that ``argv`` names, if any, or its smoke run.

    ``parts`` maps a flag (``"--knobs"``) to the module of the part (``"_maps2d_knobs"``, in
    this folder). The first flag found runs that module's ``main`` with the other options. A
    ``main`` without parameters takes no option: any option (``--help`` included) prints the
    part's docstring instead of running it, since a run rewrites its result files. Returns the
    part's result; else ``quick()`` when ``argv`` holds ``--quick`` (the benchmark's own smoke
    run), or :data:`NO_PART`.
    """
    for flag, module in parts.items():
        if flag in argv:
            rest = [x for x in argv if x != flag]
            part = importlib.import_module(module)
            if not part.main.__code__.co_argcount and rest:
                print(part.__doc__)
                return 0 if set(rest) <= {"-h", "--help"} else 2
            saved, sys.argv = sys.argv, [sys.argv[0]] + rest  # the part sees its own options
            try:
                return part.main(rest) if part.main.__code__.co_argcount else part.main()
            finally:
                sys.argv = saved
    if quick is not None and "--quick" in argv:
        return quick()
    return NO_PART


def row(*cells):
    """One row of a markdown table."""
    return "| " + " | ".join(map(str, cells)) + " |"


def table(header, rows=(), align=None):
    """A markdown table's lines: ``header``, its rule (``align``: a letter a column, ``l`` or
    ``r``; default every column left) and ``rows`` (each a sequence of cells)."""
    rule = "".join("---:|" if a == "r" else "---|" for a in align or "l" * len(header))
    return [row(*header), "|" + rule, *(row(*r) for r in rows)]


def write_lines(path, lines):
    """Write a result file (its folder made if needed) and say where."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


#: module-level output paths that :func:`smoke_outputs` moves (``RESULTS`` a folder, the
#: others files)
OUTPUT_NAMES = ("RESULTS", "OUT", "ROWS", "CSV_PATH", "MD_PATH", "RUNS_PATH")


@contextlib.contextmanager
def smoke_outputs(*modules):
    """A temporary folder (yielded) that the output paths of ``modules`` (modules or their
    names; :data:`OUTPUT_NAMES`) point into until the block ends: a smoke run writes nothing
    in the repository."""
    saved = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for module in modules:
                if isinstance(module, str):
                    module = importlib.import_module(module)
                for name in OUTPUT_NAMES:
                    if hasattr(module, name):
                        old = getattr(module, name)
                        saved.append((module, name, old))
                        new = Path(tmp) if name == "RESULTS" else Path(tmp) / Path(old).name
                        setattr(module, name, new if isinstance(old, Path) else str(new))
            yield Path(tmp)
        finally:
            for module, name, old in reversed(saved):
                setattr(module, name, old)
