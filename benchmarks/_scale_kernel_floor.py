"""``scale.py --kernel-floor``: Why exact KernelLDA/KQMI cannot reach 0.8 x KernelPCA(arpack) at n
= 5000.

Exact kernel LDA with the ridge ``eps`` needs :math:`(\\tilde K + \\epsilon I)^{-1} E` for the
``n x C`` centred class indicator ``E`` (kernel ridge regression of the classes; every ratio
of the problem depends on it). KernelPCA(arpack) needs only the top few eigenvectors of
:math:`\\tilde K`, which Lanczos finds in a few dozen products with the kernel. This script
measures, on the data of ``make bench`` (n = 5000, 20 features, 10 classes, RBF with
gamma = 1/20, graphdr's default relative ridge 1e-3), in one process with the environment's
threads:

* the RBF kernel matrix alone (scikit-learn's ``rbf_kernel``) and KernelPCA(9, arpack);
* one Cholesky factorisation of the n x n matrix in float64 and in float32 (the cheapest
  direct solve there is);
* the spectrum: effective dimension :math:`\\sum_i \\lambda_i/(\\lambda_i+\\epsilon)` and the
  condition number of :math:`\\tilde K + \\epsilon I`; a low-rank (Nystroem-type)
  preconditioner only helps when the effective dimension is small against n;
* block conjugate gradients (the iterative alternative, ``C`` right-hand sides at once) to a
  relative residual of 1e-8: iterations and seconds.

Usage::

    .venv/bin/python benchmarks/scale.py --kernel-floor

Writes ``benchmarks/results/scale_kernel_floor.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import common  # noqa: E402
from run_all import kernel_data  # noqa: E402  (the data of make bench)


def best_of(fn, repeats=2):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def block_cg(K, eps, B, tol=1e-8, max_iter=5000):
    """(K + eps I) X = B by conjugate gradients on every column at once; iterations used."""
    X = np.zeros_like(B)
    R = B.copy()
    P = R.copy()
    rs = np.sum(R * R, axis=0)
    norm_b = np.sqrt(rs)
    for it in range(1, max_iter + 1):
        AP = K @ P + eps * P
        alpha = rs / np.sum(P * AP, axis=0)
        X += alpha * P
        R -= alpha * AP
        rs_new = np.sum(R * R, axis=0)
        if np.max(np.sqrt(rs_new) / norm_b) < tol:
            return X, it
        P = R + (rs_new / rs) * P
        rs = rs_new
    return X, max_iter


def main(n=5000):
    from scipy import linalg
    from sklearn.decomposition import KernelPCA
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    X, y = kernel_data(n)
    gamma = 1.0 / X.shape[1]
    KernelPCA(n_components=9, kernel="rbf", gamma=gamma, eigen_solver="arpack").fit(X[:300])
    t_kernel = best_of(lambda: rbf_kernel(X, gamma=gamma))
    t_kpca = best_of(lambda: KernelPCA(n_components=9, kernel="rbf", gamma=gamma,
                                       eigen_solver="arpack").fit(X))
    K = KernelCenterer().fit_transform(rbf_kernel(X, gamma=gamma))
    eps = 1e-3 * np.trace(K) / (n - 1)
    A = K + eps * np.eye(n)

    def chol(A, dtype):
        M = A.astype(dtype)  # a fresh copy each time: factorised in place
        t0 = time.perf_counter()
        linalg.cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
        return time.perf_counter() - t0

    t_chol64 = min(chol(A, np.float64) for _ in range(2))
    t_chol32 = min(chol(A, np.float32) for _ in range(2))
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # as graphdr's fit runs it (docs/development.rst)
        t_chol64_one = min(chol(A, np.float64) for _ in range(2))
        t_kernel_one = best_of(lambda: rbf_kernel(X, gamma=gamma))
    del A
    lam = np.clip(np.linalg.eigvalsh(K)[::-1], 0.0, None)
    d_eff = float(np.sum(lam / (lam + eps)))
    cond = float((lam[0] + eps) / (lam[-1] + eps))
    E = np.eye(int(y.max()) + 1)[y]
    E -= E.mean(axis=0)
    t0 = time.perf_counter()
    _, iters = block_cg(K, eps, E)
    t_cg = time.perf_counter() - t0
    t_matvec = best_of(lambda: K @ E, repeats=3)

    target = 0.8 * t_kpca
    rows = [
        ("RBF kernel matrix (scikit-learn `rbf_kernel`)", t_kernel),
        ("KernelPCA(9, rbf, arpack) fit", t_kpca),
        ("the target: 0.8 x KernelPCA", target),
        ("Cholesky of K + eps I, float64", t_chol64),
        ("Cholesky of K + eps I, float64, one thread (as in graphdr's fit)", t_chol64_one),
        ("RBF kernel matrix, one thread", t_kernel_one),
        ("Cholesky of K + eps I, float32", t_chol32),
        ("kernel + float32 Cholesky (lower bound of any direct exact solve)",
         t_kernel + t_chol32),
        (f"block CG to 1e-8 ({iters} iterations of one n x n times n x C product)", t_cg),
        ("one n x n times n x C product", t_matvec),
    ]
    lines = [
        "# The floor of an exact kernel LDA solve against KernelPCA(arpack), n = 5000",
        "",
        f"Command: `{common.thread_variables()}.venv/bin/python "
        f"benchmarks/scale.py --kernel-floor` ({common.threads_label()}; the steps are timed "
        "outside graphdr, each with the BLAS threads the environment gives it).",
        "",
        f"Data: `make bench`'s kernel data, {n} x {X.shape[1]}, 10 classes, RBF gamma = "
        f"{gamma:.3g}; ridge eps = 1e-3 tr(K~)/(n-1) = {eps:.3g} (graphdr's default relative "
        "ridge).",
        "",
        "| step | seconds |",
        "|---|---:|",
    ] + [f"| {name} | {secs:.3f} |" for name, secs in rows] + [
        "",
        f"Spectrum of the centred kernel: effective dimension sum lambda/(lambda + eps) = "
        f"{d_eff:.0f} of {n}; condition number of K~ + eps I = {cond:.3g}.",
        "",
        "Reading: an exact solve needs the kernel matrix "
        f"({t_kernel:.2f} s) and then either a factorisation (float32 Cholesky "
        f"{t_chol32:.2f} s) or about sqrt(condition) CG iterations ({iters} here, "
        f"{t_cg:.1f} s). The effective dimension is close to n, so no low-rank "
        "preconditioner shortens CG. Kernel plus the cheapest factorisation takes "
        f"{t_kernel + t_chol32:.2f} s, which is {(t_kernel + t_chol32) / t_kpca:.2f} x "
        f"KernelPCA: {'above' if t_kernel + t_chol32 > target else 'below'} the 0.8 x target "
        f"({target:.2f} s); with float64 and one thread, as graphdr's fit factorises (its "
        "factor the same with any number of threads, and no slower beside a busy process), "
        f"kernel plus Cholesky takes {t_kernel_one + t_chol64_one:.2f} s, "
        f"{(t_kernel_one + t_chol64_one) / t_kpca:.2f} x KernelPCA. KernelPCA(arpack) needs "
        "only the top 9 eigenvectors, a few dozen kernel products. Approximate kernels "
        "(`approximation='nystroem'`) are the route below that cost.",
        "",
    ]
    out = ROOT / "results" / "scale_kernel_floor.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
