"""Cost of gamma='auto', reg='auto' against a fixed-parameter fit.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/auto_cost.py

Data: 2000 samples of ../shared/datasets/mnist5k.npz (pixels / 255, PCA to 50 dimensions;
scikit-learn's digits, 1797 x 64, when the shared data are absent). Both fits of a row run in
the same process, one after the other, so the ratio holds on a loaded machine; the target is
an 'auto' fit at most 10 times a fixed-parameter fit. Writes benchmarks/results/auto_cost.md.
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

import graphdr
from graphdr.tuning import median_gamma

ROOT = Path(__file__).resolve().parent
from common import SHARED, best_time  # noqa: E402  (the shared data directory)


def load():
    path = SHARED / "mnist5k.npz"
    if path.exists():
        d = np.load(path)
        idx = np.random.default_rng(0).choice(len(d["y"]), 2000, replace=False)
        X, y = d["X"][idx] / 255.0, d["y"][idx]
        return PCA(50, random_state=0).fit_transform(X), y, "mnist5k (2000 at random), PCA 50"
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y, "digits (1797 x 64)"


def timed(make, X, y, repeats=3):
    return best_time(lambda: make().fit(X, y), repeats)


def main():
    X, y, name = load()
    g0 = median_gamma(X, random_state=0)
    rows = []
    for label, cls in (("KernelLDA", graphdr.KernelLDA), ("KQMI", graphdr.KQMI),
                       ("CKFD", graphdr.CKFD)):
        fixed_kw = dict(gamma=g0) if cls is graphdr.CKFD else dict(gamma=g0, reg=1e-3)
        t_fixed, _ = timed(lambda cls=cls, kw=fixed_kw: cls(**kw), X, y)
        t_auto, est = timed(lambda cls=cls: cls(random_state=0), X, y, repeats=1)
        rows.append((label, t_fixed, t_auto, est.gamma_ / g0, est.reg_))
        print(rows[-1], flush=True)
    lines = [
        "# Cost of `gamma='auto', reg='auto'` (issue 11, item 2)",
        "",
        "Command: `OMP_NUM_THREADS=1 .venv/bin/python benchmarks/auto_cost.py`",
        "",
        f"Data: {name}, {len(y)} samples, {len(np.unique(y))} classes. Fixed fit: gamma = the "
        "median heuristic, reg = 1e-3 (best of 3 runs); 'auto' fit: one run, search on a "
        "stratified subsample of 600, 3 folds, 7 widths x 17 ridges (CKFD: 500 samples, 7 "
        "widths, refitted). Machine: "
        f"{platform.machine()}, 1 BLAS thread, shared with other work (ratios from one run).",
        "",
        "| estimator | fixed fit (s) | 'auto' fit (s) | ratio | chosen gamma / median | chosen reg |",
        "|---|---|---|---|---|---|",
    ]
    for label, tf, ta, g, r in rows:
        lines.append(f"| {label} | {tf:.2f} | {ta:.2f} | {ta / tf:.1f} | {g:.3g} | {r:.3g} |")
    out = ROOT / "results" / "auto_cost.md"
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
