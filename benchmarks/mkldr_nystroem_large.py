"""Nystroem MKL-DR beyond what the exact path holds: n samples x 6 digit views (shifted copies).

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/mkldr_nystroem_large.py N L
"""
import sys
import time
import tracemalloc

import numpy as np

from graphdr.multiview import MKLDR, make_multiview_digits

VIEWS = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")
n, L = int(sys.argv[1]), int(sys.argv[2])
d = make_multiview_digits(views=VIEWS, n_samples=n, random_state=1)
est = MKLDR(kernels=d.kernels, approximation="nystroem", n_landmarks=L, random_state=0)
print("| fit | n | landmarks | time (s) | iterations | s / iteration | peak traced MB "
      "| one n x n float64 (MB) | kernel weights |")
print("|---|---|---|---|---|---|---|---|---|")
tracemalloc.start()
t = time.perf_counter()
est.fit(d.views, d.target)
dt = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
h = np.diff([0.0] + est.history_["time"])
print(f"| MKL-LDA nystroem | {n} | {L} | {dt:.1f} | {est.n_iter_} | {np.mean(h[1:]):.2f} "
      f"| {peak / 1e6:.0f} | {8 * n * n / 1e6:.0f} | {np.round(est.kernel_weights_, 3).tolist()} |")
