"""How much time and memory does each estimator take? Speed and memory at scale: peak memory and
time of every public estimator with its defaults at n = 20,000, and (parts) the scaling of the
core fits.

Data: 20,000 x 50, 10 Gaussian classes (:data:`CHILD`). Each fit runs in a fresh process: its
wall time and the growth of the process's peak resident memory during ``fit``.

    .venv/bin/python benchmarks/scale.py [--n 20000] [--only DEE LDA ...] [--timeout 1800]

The core fits against their references are ``run_all.py``; the 2-D map at scale is
``maps2d_scale.py``; the studies of the sampled pairs and of Nystroem KQMI on a Dask array are
retired (``docs/history.rst``). ``--quick``: a smoke run (three estimators at n = 400),
nothing written here.
"""

from __future__ import annotations

import argparse
import sys

import common

RESULTS = common.RESULTS

ESTIMATORS = [
    "LDA", "LPP", "MFA", "LDE", "GraphEmbedding", "LQMI", "KernelLDA", "KernelLPP", "CKFD", "KQMI",
    "QMIProjection", "DEE", "DSNE", "ElasticEmbedding", "MMPA", "DCV", "MKLDR", "KFD",
    "KFDVoting", "KFDSAMME",
]
MULTIVIEW = {"MKLDR", "KFDVoting", "KFDSAMME"}

CHILD = r"""
import json, sys, time
import numpy as np
name, n = sys.argv[1], int(sys.argv[2])
from common import peak_rss_mb as peak_mb

rng = np.random.default_rng(0)
C, D = 10, 50
y = rng.integers(0, C, n)
X = rng.normal(size=(n, D)) + rng.normal(scale=0.6, size=(C, D))[y]
import graphdr
MULTIVIEW = set(sys.argv[3].split(","))
est = getattr(graphdr, name)()
data = [X[:, :25], X[:, 25:]] if name in MULTIVIEW else X
before = peak_mb()
t0 = time.perf_counter()
if name == "ElasticEmbedding":
    est.fit(X)
else:
    est.fit(data, y)
secs = time.perf_counter() - t0
after = peak_mb()
info = {}
for attr in ("method_", "approximation_", "gamma_", "n_iter_"):
    if hasattr(est, attr):
        v = getattr(est, attr)
        info[attr] = v if isinstance(v, (int, float, str, type(None))) else str(v)
print(json.dumps({"secs": secs, "peak_growth_mb": after - before, "peak_mb": after,
                  "info": info}))
"""


def run(name, n, timeout):
    return common.json_from(["-c", CHILD, name, n, ",".join(sorted(MULTIVIEW))], timeout=timeout)


def _quick():
    """The table for three estimators at n = 400, in a temporary folder."""
    with common.smoke_outputs(sys.modules[__name__]):
        main(["--n", "400", "--only", "LDA", "KernelLDA", "DEE", "--timeout", "120"])


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, {}, quick=_quick)) is not common.NO_PART:
        return done
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--only", nargs="+", default=ESTIMATORS)
    p.add_argument("--timeout", type=int, default=1800)
    p.add_argument("--out", default="scale_memory")
    args = p.parse_args(argv)
    nn_mb = args.n**2 * 8 / 2**20
    lines = [
        f"# Peak memory of every estimator with its defaults, n = {args.n:,}",
        "",
        f"Command: `{common.thread_variables()}.venv/bin/python benchmarks/scale.py "
        + " ".join(argv if argv is not None else sys.argv[1:]) + f"` ({common.threads_label()}; "
        "one process per fit).",
        "",
        f"Data: {args.n:,} x 50 float64, 10 classes (multi-view estimators: two views of 25 "
        f"columns). One n x n float64 matrix: {nn_mb:,.0f} MB.",
        "",
        *common.table(("estimator", "fit seconds", "peak memory growth during fit, MB",
                       "forms an n x n matrix?", "fitted details")),
    ]
    path = RESULTS / f"{args.out}.md"
    kept = {}  # rows of estimators not rerun, from the existing file (with their command)
    if path.exists() and set(args.only) != set(ESTIMATORS):
        text = path.read_text()
        old_cmd = text.split("Command: `", 1)[1].split("`", 1)[0] if "Command: `" in text else "?"
        for line in text.splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 2 and cells[1] in ESTIMATORS and cells[1] not in args.only:
                kept[cells[1]] = line.rstrip()
    for name in ESTIMATORS:
        if name in kept:
            lines.append(kept[name])
            continue
        if name not in args.only:
            continue
        r = run(name, args.n, args.timeout)
        print(name, r, flush=True)
        if "error" in r:
            lines.append(f"| {name} | - | - | - | {r['error']} |")
            continue
        dense = "yes" if r["peak_growth_mb"] >= 0.9 * nn_mb else "no"
        details = ", ".join(f"{k}={v}" for k, v in r["info"].items())
        lines.append(f"| {name} | {r['secs']:.1f} | {r['peak_growth_mb']:,.0f} | {dense} | "
                     f"{details} |")
    if kept:
        lines += ["", f"Rows kept from the previous file (made by `{old_cmd}`): "
                  + ", ".join(kept) + "."]
    common.write_lines(path, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
