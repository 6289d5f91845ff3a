"""``mkldr_digits.py --nystroem-large``: Nystroem MKL-DR beyond what the exact path holds, n
samples x 6 digit views (shifted copies).

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/mkldr_digits.py \
    --nystroem-large N L
(``--quick``: 300 samples, 40 landmarks, a smoke run). Prints its table.
"""
import argparse
import time
import tracemalloc

import numpy as np

from graphdr.multiview import MKLDR, make_multiview_digits

VIEWS = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=20_000)
    parser.add_argument("landmarks", type=int, nargs="?", default=1000)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 300 samples")
    args = parser.parse_args(argv)
    n, L = (300, 40) if args.quick else (args.n, args.landmarks)
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
