"""``mkldr_digits.py --nystroem``: MKL-DR exact vs Nystroem, one fit on 2000 samples x 6 views,
and 1-NN 10-fold CV on digits.

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/mkldr_digits.py \
    --nystroem [N_LANDMARKS] [--no-cv] [--n 2000]

Prints its tables (``benchmarks/results/mkldr_digits_nystroem.md`` holds them).
"""
import time
import tracemalloc

import numpy as np
from scipy.linalg import subspace_angles
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

from graphdr.multiview import MKLDR, make_multiview_digits

VIEWS = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")


def fit(est, views, y):
    tracemalloc.start()
    t = time.perf_counter()
    est.fit(views, y)
    dt = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return dt, peak


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("landmarks", type=int, nargs="?", default=300)
    p.add_argument("--no-cv", action="store_true", help="the one fit only")
    p.add_argument("--n", type=int, default=2000, help="samples of the one fit")
    a = p.parse_args(argv)
    L, do_cv = a.landmarks, not a.no_cv
    big = make_multiview_digits(views=VIEWS, n_samples=a.n, random_state=1)
    print(f"## one fit, n = {a.n}, 6 views, n_landmarks = {L}\n")
    print("| fit | time (s) | iterations | peak traced memory (MB) | kernel weights "
          "| max angle to exact (rad) |")
    print("|---|---|---|---|---|---|")
    for graph, kw in (("lda", {}), ("lde", dict(n_components=9, max_iter=3))):
        ests = {"exact": MKLDR(graph=graph, kernels=big.kernels, **kw),
                "nystroem": MKLDR(graph=graph, kernels=big.kernels, approximation="nystroem",
                                  n_landmarks=L, random_state=0, **kw)}
        res = {k: fit(e, big.views, big.target) for k, e in ests.items()}
        for k, e in ests.items():
            ang = np.max(subspace_angles(e.embedding_, ests["exact"].embedding_))
            print(f"| MKL-{graph.upper()} {k} | {res[k][0]:.1f} | {e.n_iter_} | {res[k][1] / 1e6:.0f} | "
                  f"{np.round(e.kernel_weights_, 3).tolist()} | {ang:.3g} |", flush=True)

    if do_cv:
        data = make_multiview_digits(views=VIEWS, random_state=0)
        views, y = data.views, data.target
        skf = StratifiedKFold(10, shuffle=True, random_state=0)
        errs = {"exact": [], "nystroem": []}
        times = {"exact": 0.0, "nystroem": 0.0}
        for fold, (tr, te) in enumerate(skf.split(y, y)):
            for k in errs:
                est = MKLDR(kernels=data.kernels) if k == "exact" else MKLDR(
                    kernels=data.kernels, approximation="nystroem", n_landmarks=L, random_state=0)
                t = time.perf_counter()
                est.fit([V[tr] for V in views], y[tr])
                Z = est.transform([V[te] for V in views])
                times[k] += time.perf_counter() - t
                pred = KNeighborsClassifier(1).fit(est.embedding_, y[tr]).predict(Z)
                errs[k].append(int(np.sum(pred != y[te])))
            print(f"fold {fold}: exact {errs['exact'][-1]}, nystroem {errs['nystroem'][-1]}", flush=True)
        print(f"\n## MKL-LDA 1-NN 10-fold CV (1797 digits, 6 views), n_landmarks = {L}\n")
        print("| fit | test errors (of 1797) | error (%) | fit+transform time over folds (s) |")
        print("|---|---|---|---|")
        for k in errs:
            print(f"| {k} | {sum(errs[k])} | {100 * sum(errs[k]) / len(y):.2f} | {times[k]:.1f} |")
