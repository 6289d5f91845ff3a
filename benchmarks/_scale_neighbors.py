"""``scale.py --neighbors``: Sampled pairs (``method='approx'``): their error, and the neighbour
methods at scale.

Three parts, each a section of ``benchmarks/results/scale_neighbors.md``:

* ``gradient``: relative error of the sampled objective and gradient against the exact ones at
  the PCA start, on mnist5k (5000 digits, pixels / 255, PCA to 50), for DEE (d = 2), DSNE
  (d = 2) and QMIProjection's QMI (d = 9), per ``n_partners``; mean over 5 draws of the pairs.
* ``accuracy``: 1-NN test error of the embedding fitted with ``method='exact'`` and with
  ``method='approx'`` (defaults otherwise), mnist5k split in halves (stratified, ``--splits``
  random splits; PCA to 50 fitted on the training half), for DEE (d = 2, 10), DSNE (d = 2, 10),
  QMIProjection (d = 9) and ElasticEmbedding (d = 2, unsupervised: leave-one-out 1-NN error of
  the training embedding).
* ``scale``: DEE (d = 2, defaults) and the other methods on generated data (10 Gaussian classes,
  50 features) of growing size; every fit in a fresh process: wall time and peak resident
  memory (``VmHWM`` of the child, which includes Python, the libraries and the data:
  200,000 x 50 float64 = 76 MB).

Usage::

    .venv/bin/python benchmarks/scale.py --neighbors [--parts gradient accuracy
        scale] [--splits 3] [--sizes 20000 50000 200000 1000000]

(with the machine's default threads, as users run graphdr; each section says the threads it
ran with)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
import common  # noqa: E402
from common import SHARED  # noqa: E402  (the shared data directory)


def mnist():
    d = np.load(SHARED / "mnist5k.npz")
    return d["X"].astype(np.float64) / 255.0, d["y"]


def rel(a, b):
    return float(np.linalg.norm(np.ravel(a) - np.ravel(b)) / np.linalg.norm(np.ravel(b)))


# ----- part 1: sampled objective and gradient against the exact ones --------------------------
def part_gradient(partners=(16, 32, 64, 128, 256), draws=5):
    from graphdr import pairs as P
    from graphdr.neighbor import (
        _DEEObjective,
        _DSNEObjective,
        _init_scaled,
        _mean_same_class_sq_dist,
        _sample_groups,
        _SampledDSNEObjective,
    )
    from graphdr.qmi import _criterion_and_gradient, qmi_potential_blocks

    X, y = mnist()
    Z = PCA(50, random_state=0).fit_transform(X)
    sigma2 = _mean_same_class_sq_dist(Z, y) / 2.0
    A2 = _init_scaled(np.eye(2, 50), Z)
    order = np.argsort(y, kind="stable")
    cls = y[order]
    sizes = np.bincount(cls)
    bounds = np.r_[0, np.cumsum(sizes)]
    blocks = qmi_potential_blocks(sizes)
    Y9 = Z[order][:, :9]
    sig = 0.5 * np.median(np.linalg.norm(Y9[::7][:, None] - Y9[::7][None], axis=2))
    exact = {
        "DEE": _DEEObjective(Z, y, 100.0, sigma2).value_grad(A2),
        "DSNE": _DSNEObjective(Z, y, sigma2, normalization="joint", intra_mass=0.9)
        .value_grad(A2),
        "QMI": _criterion_and_gradient(Y9, bounds, cls, blocks, sig, "qmi"),
    }
    rows = []
    for m in partners:
        errs = {k: [] for k in exact}
        for seed in range(draws):
            pr = _sample_groups(y, m, seed)
            approx = {
                "DEE": _DEEObjective(Z, y, 100.0, sigma2, pairs=pr).value_grad(A2),
                "DSNE": _SampledDSNEObjective(Z, y, sigma2, pr, normalization="joint",
                                              intra_mass=0.9).value_grad(A2),
                "QMI": _criterion_and_gradient(
                    Y9, bounds, cls, blocks, sig, "qmi",
                    pairs=tuple(P.sample_pairs(cls, m, g, seed) for g in ("same", "different"))),
            }
            for k in exact:
                errs[k].append((abs(approx[k][0] - exact[k][0]) / abs(exact[k][0]),
                                rel(approx[k][1], exact[k][1])))
        rows.append((m, {k: np.mean(v, axis=0) for k, v in errs.items()}))
    lines = ["| n_partners | DEE objective | DEE gradient | DSNE objective | DSNE gradient "
             "| QMI objective | QMI gradient |", "|---|---|---|---|---|---|---|"]
    for m, e in rows:
        lines.append(f"| {m} | " + " | ".join(
            f"{100 * e[k][0]:.2f} % | {100 * e[k][1]:.2f} %" for k in ("DEE", "DSNE", "QMI"))
            + " |")
    return "\n".join(lines)


# ----- part 2: embeddings fitted exactly and with sampled pairs -------------------------------
def part_accuracy(splits):
    from graphdr.neighbor import DEE, DSNE, ElasticEmbedding
    from graphdr.qmi import QMIProjection

    X, y = mnist()
    cases = [("DEE", 2), ("DEE", 10), ("DSNE", 2), ("DSNE", 10), ("QMIProjection", 9),
             ("ElasticEmbedding", 2)]
    res = {(c, d, m): [] for c, d in cases for m in ("exact", "approx")}
    secs = {k: 0.0 for k in res}
    for s in range(splits):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=s)
        pca = PCA(50, random_state=0).fit(Xtr)
        Xtr, Xte = pca.transform(Xtr), pca.transform(Xte)
        for name, d in cases:
            for method in ("exact", "approx"):
                t0 = time.perf_counter()
                if name == "ElasticEmbedding":
                    Ytr = ElasticEmbedding(d, method=method, random_state=s).fit_transform(Xtr)
                    knn = KNeighborsClassifier(2).fit(Ytr, ytr)
                    nb = knn.kneighbors(Ytr, return_distance=False)[:, 1]
                    err = float(np.mean(ytr[nb] != ytr))
                else:
                    cls = {"DEE": DEE, "DSNE": DSNE, "QMIProjection": QMIProjection}[name]
                    est = cls(d, method=method, random_state=s).fit(Xtr, ytr)
                    err = 1.0 - KNeighborsClassifier(1).fit(est.transform(Xtr), ytr).score(
                        est.transform(Xte), yte)
                secs[(name, d, method)] += time.perf_counter() - t0
                res[(name, d, method)].append(100 * err)
                print(f"split {s} {name} d={d} {method}: {100 * err:.2f} %", flush=True)
    lines = ["| method | d | exact: error % (mean +- std) | approx: error % | difference "
             "(approx - exact), points | fit seconds exact / approx |", "|---|---|---|---|---|---|"]
    for name, d in cases:
        e, a = np.array(res[(name, d, "exact")]), np.array(res[(name, d, "approx")])
        lines.append(
            f"| {name} | {d} | {e.mean():.2f} +- {e.std():.2f} | {a.mean():.2f} +- "
            f"{a.std():.2f} | {np.mean(a - e):+.2f} (per split: "
            f"{', '.join(f'{v:+.2f}' for v in a - e)}) | "
            f"{secs[(name, d, 'exact')] / splits:.1f} / {secs[(name, d, 'approx')] / splits:.1f} |")
    return "\n".join(lines)


# ----- part 3: time and memory at scale, one process per fit ----------------------------------
CHILD = r"""
import json, sys, time
import numpy as np
name, n, kwargs = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
from common import peak_rss_mb as peak_mb

rng = np.random.default_rng(0)
C, D = 10, 50
y = rng.integers(0, C, n)
X = rng.normal(size=(n, D)) + rng.normal(scale=0.6, size=(C, D))[y]
from graphdr.neighbor import DEE, DSNE, ElasticEmbedding
from graphdr.qmi import QMIProjection
cls = {"DEE": DEE, "DSNE": DSNE, "ElasticEmbedding": ElasticEmbedding,
       "QMIProjection": QMIProjection}[name]
t0 = time.perf_counter()
est = cls(**kwargs).fit(X, y)
secs = time.perf_counter() - t0
h = min(n // 2, 20000)
Ztr = est.transform(X[:h]) if hasattr(est, "transform") else None
out = {"secs": secs, "peak_mb": peak_mb(),
       "data_mb": X.nbytes / 2**20, "n_iter": int(getattr(est, "n_iter_", -1)),
       "method": getattr(est, "method_", "?")}
if Ztr is not None:
    from sklearn.neighbors import KNeighborsClassifier
    Zte = est.transform(X[-h:])
    out["err"] = 100 * (1 - KNeighborsClassifier(1).fit(Ztr, y[:h]).score(Zte, y[-h:]))
print(json.dumps(out))
"""


def run_child(name, n, kwargs, timeout=3600):
    return common.json_from(["-c", CHILD, name, n, json.dumps(kwargs)], timeout=timeout)


def part_scale(sizes):
    runs = []
    for n in sizes:
        runs.append(("DEE", n, {"n_components": 2, "random_state": 0}))
    for n in [s for s in sizes if s <= 50_000]:
        runs.append(("DSNE", n, {"n_components": 2, "random_state": 0, "max_iter": 200}))
        runs.append(("QMIProjection", n, {"n_components": 2, "random_state": 0, "cv": None,
                                          "sigma_factors": [1.0, 0.5]}))
        runs.append(("ElasticEmbedding", n, {"n_components": 2, "random_state": 0,
                                             "max_iter": 200}))
    lines = ["| method | parameters | n | evaluation | fit seconds | iterations | peak RSS, MB "
             "(data MB) | 1-NN error %, first half -> second half of the data (at most 20k rows "
             "each) |", "|---|---|---|---|---|---|---|---|"]
    for name, n, kw in runs:
        r = run_child(name, n, kw)
        print(name, n, r, flush=True)
        params = ", ".join(f"{k}={v}" for k, v in kw.items() if k != "random_state") or "defaults"
        if "error" in r:
            lines.append(f"| {name} | {params} | {n:,} | - | {r['error']} | | | |")
            continue
        err = f"{r['err']:.2f}" if "err" in r else "-"
        lines.append(f"| {name} | {params} | {n:,} | {r['method']} | {r['secs']:.1f} | "
                     f"{r['n_iter']} | {r['peak_mb']:.0f} ({r['data_mb']:.0f}) | {err} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--parts", nargs="+", default=["gradient", "accuracy", "scale"])
    p.add_argument("--splits", type=int, default=3)
    p.add_argument("--sizes", nargs="+", type=int, default=[20_000, 50_000, 200_000, 1_000_000])
    p.add_argument("--out", default="scale_neighbors")
    args = p.parse_args(argv)
    cmd = common.thread_variables() + ".venv/bin/python benchmarks/scale.py --neighbors " + " ".join(
        argv if argv is not None else sys.argv[1:])
    path = RESULTS / f"{args.out}.md"
    RESULTS.mkdir(exist_ok=True)
    titles = {
        "gradient": "## Sampled objective and gradient at the PCA start (mnist5k, PCA 50)",
        "accuracy": "## Exact against sampled fits (mnist5k halves, 1-NN error)",
        "scale": "## Time and memory (generated: 10 classes, 50 features)",
    }
    # sections of parts not rerun are kept from the existing file (each says its command)
    sections = {}
    if path.exists():
        for chunk in path.read_text().split("\n## ")[1:]:
            title = "## " + chunk.split("\n", 1)[0]
            for part, t in titles.items():
                if t == title:
                    sections[part] = "## " + chunk.strip()
    runners = {
        "gradient": lambda: "Relative error, mean of 5 draws of the pairs.\n\n"
        + part_gradient(),
        "accuracy": lambda: f"{args.splits} random splits.\n\n" + part_accuracy(args.splits),
        "scale": lambda: part_scale(args.sizes),
    }
    for part in ("gradient", "accuracy", "scale"):
        if part not in args.parts:
            continue
        sections[part] = f"{titles[part]}\n\nCommand: `{cmd.strip()}` " \
            f"({common.threads_label()}).\n\n" + runners[part]()
        text = "# Sampled pairs: error and scale\n\n" + "\n\n".join(
            sections[p] for p in ("gradient", "accuracy", "scale") if p in sections) + "\n"
        path.write_text(text)  # after every part: a later failure loses nothing
    print(path.read_text())


if __name__ == "__main__":
    main()
