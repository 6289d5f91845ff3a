"""``scale.py --kernel``: exact KernelLDA (Cholesky fast path) versus the eigendecomposition floor.

For n = 2000 and 5000 (10 classes, 20 features, RBF kernel) it times, in the same run:
- graphdr.KernelLDA() (solver='auto' -> class-structured Cholesky path), whole fit;
- graphdr.KernelLDA(solver='eigh'), whole fit;
- one dense scipy.linalg.eigh of an n x n symmetric matrix (the floor of the textbook algorithm);
- scikit-learn's KernelPCA(n_components=C-1, eigen_solver='dense').

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/scale.py --kernel [--sizes 2000 5000] [--quick]

Prints its table (``--quick``: n = 300, a smoke run).
"""

import argparse
import time

import numpy as np
from scipy import linalg
from scipy.linalg import subspace_angles
from sklearn.decomposition import KernelPCA

import graphdr


def make_data(n, D=20, C=10, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    return rng.normal(size=(n, D)) + rng.normal(scale=0.8, size=(C, D))[y], y


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def run(sizes):
    print("| n | KernelLDA (cholesky) s | KernelLDA (eigh) s | one dense eigh s "
          "| sklearn KernelPCA s | cholesky / eigh-floor | max angle cholesky vs eigh |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for n in sizes:
        X, y = make_data(n)
        gamma = 1.0 / X.shape[1]
        t_fast, fast = timed(graphdr.KernelLDA(gamma=gamma, reg=1e-3).fit, X, y)
        t_slow, slow = timed(graphdr.KernelLDA(gamma=gamma, reg=1e-3, solver="eigh").fit, X, y)
        S = np.random.default_rng(1).normal(size=(n, n))
        S = S + S.T
        t_eigh, _ = timed(linalg.eigh, S)
        t_kpca, _ = timed(KernelPCA(9, kernel="rbf", gamma=gamma, eigen_solver="dense").fit, X)
        angle = float(np.max(subspace_angles(fast.embedding_, slow.embedding_)))
        rows.append((n, t_fast, t_slow, t_eigh, t_kpca))
        print(f"| {n} | {t_fast:.2f} | {t_slow:.2f} | {t_eigh:.2f} | {t_kpca:.2f} "
              f"| {t_fast / t_eigh:.2f} | {angle:.1e} |")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000])
    parser.add_argument("--quick", action="store_true", help="a smoke run: n = 300")
    args = parser.parse_args(argv)
    return run([300] if args.quick else args.sizes)


if __name__ == "__main__":
    main()
