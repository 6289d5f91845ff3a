"""How fast and how far does the 2-D map scale? DEEMap at scale: fit time, peak memory and where
the time goes, for 10^5, 10^6 (and, with ``--sizes``, 10^7) samples of 50 features in 20 classes
with sub-clusters. The map is ``DEEMap(repulsion='gaussian')`` unless ``--params`` (JSON)
names other parameters.

Data: :func:`subclusters`; 10^5 more samples from the same generator are placed with
``transform`` (``--new``). Each size runs in its own process (``--one N`` prints its JSON);
``cProfile`` gives where the fit's time goes.

    .venv/bin/python benchmarks/maps2d_scale.py [--sizes 100000 1000000] [--new 100000]
        [--busy] [--threads N] [--params JSON] [--unlabelled F] [--note TEXT] [--quick]

``--unlabelled``, ``--busy``, ``--threads`` (their help says what) and ``--params`` give rows
of their own; ``--baseline DIR``: each size again with the graphdr of the checkout ``DIR``.
Writes ``benchmarks/results/maps2d_scale.md`` (rows in ``maps2d_scale.json``). The studies of
the neighbour-search engines and of ``graphdr map`` on a local Dask cluster are retired:
``docs/history.rst``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import time
from pathlib import Path

import common
import numpy as np

RESULTS = common.RESULTS


def subclusters(n, seed=0, n_classes=20, sub=5, n_features=50, chunk=500_000):
    """``(X, y)``: ``n`` samples (float32) of ``n_classes`` classes, each a mixture of ``sub``
    Gaussian sub-clusters; the same centres for every seed, the samples from ``seed``."""
    centres_rng = np.random.default_rng(20261125)
    centres = centres_rng.normal(scale=0.4, size=(n_classes, 1, n_features))
    protos = (centres + centres_rng.normal(scale=0.6, size=(n_classes, sub, n_features))
              ).astype(np.float32)
    rng = np.random.default_rng(seed)
    X = np.empty((n, n_features), dtype=np.float32)
    y = rng.integers(0, n_classes, n)
    k = rng.integers(0, sub, n)
    for a in range(0, n, chunk):
        b = min(a + chunk, n)
        X[a:b] = protos[y[a:b], k[a:b]] + rng.standard_normal((b - a, n_features),
                                                               dtype=np.float32)
    return X, y


#: functions whose cumulative time the profile reports (module, name)
#: (the class fields and the CG columns run on worker threads, which the profile does not
#: see: their time is that of the calls that wait for them, block_fields and precondition)
PROFILED = {
    # the class graphs with NN-descent's placing index in one pool (rows from 2026-11-27 on)
    "graphs and index": ("maps/inputs.py", ("attraction_graph",)),
    "neighbour graph": ("blocks/graphs.py", ("knn_graph",)),
    "start": ("maps/start.py", ("_start",)),
    "descent": ("optim.py", ("descent",)),
    "grid fields": ("grid_field.py", ("gaussian_field", "block_fields")),
    "preconditioner (CG)": ("elastic.py", ("precondition",)),
    "transform index": ("dee_map.py", ("_transform_index",)),
}
#: every size measured so far (merged: a run replaces the sizes it measures)
ROWS = RESULTS / "maps2d_scale.json"


def one(n, n_new, params=None, unlabelled=0.0):
    """Fit DEEMap on ``n`` samples (a fraction ``unlabelled`` of them -1), place ``n_new`` new
    ones; a dict of figures."""
    import cProfile
    import pstats
    import resource

    import graphdr

    X, y = subclusters(n + n_new, seed=1)
    Xtr, ytr, Xnew, ynew = X[:n], y[:n], X[n:], y[n:]
    yfit = ytr.copy()
    yfit[np.random.default_rng(7).random(n) < unlabelled] = -1
    model = graphdr.DEEMap(**{"repulsion": "gaussian", **(params or {})})
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    model.fit(Xtr, yfit)
    prof.disable()
    fit = time.perf_counter() - start
    stats = pstats.Stats(prof)
    shares = {}
    for label, (module, names) in PROFILED.items():
        cum = sum(v[3] for k, v in stats.stats.items()
                  if k[0].endswith(module) and k[2] in names)
        shares[label] = cum
    if shares["graphs and index"]:  # the graph and the index run inside it (worker threads)
        shares["neighbour graph"] = shares["transform index"] = None
    start = time.perf_counter()
    Znew = model.transform(Xnew)
    place = time.perf_counter() - start
    from graphdr.bench.maps import one_nn_error, trustworthiness

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # before the scores
    m = min(n_new, 20_000)
    err = one_nn_error(model.embedding_, ytr, Znew[:m], ynew[:m])
    trust = trustworthiness(Xnew[:m], Znew[:m], 10)
    return dict(n=n, fit=fit, iterations=model.n_iter_, converged=bool(model.converged_),
                peak=peak, place=place, n_new=n_new, error=err, trust=trust, shares=shares,
                neighbors=getattr(model, "neighbors_", "exact"))


def _label(row):
    """A row's name: its size, its parameters when they are not the defaults, and "busy"
    when it ran beside a busy process."""
    return (f"{row['n']:,}" + (f" ({row['params']})" if row.get("params") else "")
            + (f", {row['unlabelled']:.0%} unlabelled" if row.get("unlabelled") else "")
            + (" beside a busy process" if row.get("load") == "busy" else "")
            + (f", {row['threads']} thread{'s' * (row['threads'] > 1)}"
               if row.get("threads") else ""))


def _key(row):
    return (row["n"], row.get("params", ""), row.get("load", "quiet"), row.get("threads"),
            row.get("unlabelled", 0.0))


#: the variables that set the number of threads of BLAS, OpenMP, numba and graphdr's workers
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS")


def measure(a):
    """The rows of the sizes ``a.sizes``, each measured in a fresh process (and with the
    baseline's graphdr after it)."""
    from threads import BusyProcess

    rows, env = [], common.thread_env(a.threads, THREAD_VARIABLES)
    label = (f"{a.threads} thread(s): {', '.join(THREAD_VARIABLES)}={a.threads}"
             if a.threads is not None else common.threads_label())
    for n in a.sizes:
        with BusyProcess() if a.busy else contextlib.nullcontext():
            r = common.json_from([__file__, "--one", n, "--new", a.new, "--params", a.params,
                                  "--unlabelled", a.unlabelled], env=env, strict=True)
        if a.baseline:
            r["baseline"] = _baseline(a, n, env)
        r["params"] = a.params
        r.update({k: v for k, v in (("unlabelled", a.unlabelled), ("load", "busy" * a.busy),
                                    ("threads", a.threads)) if v})
        r["measured"] = (f"{time.strftime('%Y-%m-%d')}, {common.machine(label)}"
                         f" Python {platform.python_version()}" + (f"; {a.note}" if a.note else "")
                         + _beside(r.get("baseline")))
        print(f"{n}: fit {r['fit']:.1f} s, {r['iterations']} it, peak {r['peak'] / 2**30:.2f} "
              f"GiB, place {r['n_new']} in {r['place']:.1f} s, error {r['error']:.1f} %",
              flush=True)
        rows.append(r)
    return rows


def write(rows):
    """``maps2d_scale.md`` from every row measured so far."""
    head = ["# DEEMap at scale", ""]
    for r in rows:
        if r["n"] >= 1_000_000 and not (r.get("params") or r.get("unlabelled") or r.get("threads")):
            busy = " beside a busy process" if r.get("load") == "busy" else ""
            head += [f"Headline{busy}: {r['n']:,} samples x 50 features mapped in {r['fit']:.0f} "
                     f"s ({r['fit'] / 60:.1f} min), peak memory {r['peak'] / 2**30:.2f} GiB; "
                     f"{r['n_new']:,} new samples placed in {r['place']:.1f} s.", ""]
    head += ["Command: `.venv/bin/python benchmarks/maps2d_scale.py --sizes N [N ...] "
             "--new 100000 [--busy] [--threads 1]` (each run measures its sizes and keeps the "
             "others' rows, `maps2d_scale.json`; `--busy`: beside one process spinning on one "
             "of the two cores; `--threads 1`: the one-thread figure, every thread variable "
             "set to 1; without it, the machine's default threads).", ""]
    head += [f"- {_label(r)}: measured {r.get('measured', 'before 2026-11-26')}" for r in rows]
    head += ["", "", "Data: :func:`subclusters` (20 classes x 5 sub-clusters, 50 features, "
             "float32); the new samples from the same generator. Peak memory: the process's peak "
             "resident set (the data included). Error: 2-D 1-NN error of up to 20,000 new "
             "samples against the training map; trustworthiness (k = 10) of the map of those "
             "samples (blockwise, :func:`graphdr.bench.maps.trustworthiness`; n/a: not "
             "measured then).", ""]
    head += common.table(
        ("samples", "neighbours", "fit (s)", "iterations", "converged", "peak memory (GiB)",
         "place new (s)", "new samples", "1-NN error (%)", "trustworthiness"),
        [(_label(r), r["neighbors"], f"{r['fit']:.1f}", r["iterations"], r["converged"],
          f"{r['peak'] / 2**30:.2f}", f"{r['place']:.1f}", f"{r['n_new']:,}", f"{r['error']:.1f}",
          f"{r['trust']:.3f}" if r.get("trust") is not None else "n/a") for r in rows],
        "rlrrlrrrrr")
    head += ["", "Where the fit's time goes (cumulative seconds of the profiled functions; the "
             "grid field and the preconditioner run inside the descent):", ""]
    head += common.table(("samples", *PROFILED), [(_label(r), *(
        f"{r['shares'][k]:.1f} ({100 * r['shares'][k] / r['fit']:.0f} %)"
        if r["shares"].get(k) is not None else "n/a" for k in PROFILED)) for r in rows],
        "r" * (len(PROFILED) + 1))
    common.write_lines(RESULTS / "maps2d_scale.md", head)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000],
                   help="sizes to measure (none: only rewrite the results file)")
    p.add_argument("--new", type=int, default=100_000)
    p.add_argument("--one", type=int, default=None)
    p.add_argument("--params", default="",
                   help="DEEMap's parameters other than the defaults, as JSON (a row of its own)")
    p.add_argument("--unlabelled", type=float, default=0.0,
                   help="the fraction of training labels set to -1 (rows of their own)")
    p.add_argument("--note", default="",
                   help="how busy the machine was, stored with the sizes of this run")
    p.add_argument("--busy", action="store_true",
                   help="run beside one process spinning on one core (rows of their own)")
    p.add_argument("--threads", type=int, default=None,
                   help="set the thread variables to this number (rows of their own; "
                        "default: the machine's default threads)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run on 3000 samples, nothing written here")
    p.add_argument("--baseline", default=None, metavar="DIR",
                   help="after each size, the same size with the graphdr of the checkout DIR "
                        "(its own maps2d_scale.py), one after the other: the side-by-side "
                        "figures stored with the row")
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    if a.quick:
        return _quick()
    if a.one is not None:
        print(json.dumps(one(a.one, a.new, json.loads(a.params) if a.params else None,
                             a.unlabelled)))
        return
    rows = measure(a)
    measured = {_key(r) for r in rows}
    rows += [r for r in (json.loads(ROWS.read_text()) if ROWS.exists() else [])
             if _key(r) not in measured]
    rows.sort(key=lambda r: (r.get("params", ""), r.get("unlabelled", 0.0),
                             r.get("load", "quiet") == "busy", r.get("threads") or 0, r["n"]))
    ROWS.write_text(json.dumps(rows, indent=1) + "\n")
    write(rows)


def _baseline(a, n, env):
    """The same ``--one`` run with the graphdr of the checkout ``a.baseline``: its figures and
    commit."""
    base = Path(a.baseline).resolve()
    commit, env = common.commit(base), {**env, "PYTHONPATH": str(base)}
    out = common.json_from([base / "benchmarks" / "maps2d_scale.py", "--one", n, "--new",
                            a.new, "--params", a.params, "--unlabelled", a.unlabelled],
                           env=env, strict=True)
    return {"commit": commit, **{k: out[k] for k in ("fit", "place", "error", "trust", "peak")},
            "graphs": out["shares"].get("graphs and index")}


def _beside(b):
    """The words that give a row's side-by-side baseline run."""
    if not b:
        return ""
    return (f"; run beside {b['commit']}'s --one (fit {b['fit']:.1f} s, of it "
            f"{b['graphs']:.1f} s graphs and index; 10^5 placed in {b['place']:.1f} s, 1-NN "
            f"error {b['error']:.1f} %, trustworthiness {b['trust']:.3f}, peak "
            f"{b['peak'] / 2**30:.2f} GiB), one after the other")


def _quick():
    """3000 samples in a fresh process, the table in a temporary folder."""
    with common.smoke_outputs(sys.modules[__name__]):
        main(["--sizes", "3000", "--new", "500"])


if __name__ == "__main__":
    main()
