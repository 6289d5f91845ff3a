"""Where does each core fit stand against its reference? graphdr's benchmark suite: one command,
ratios measured side by side in one run.

    make bench          # = .venv/bin/python benchmarks/run_all.py
    python -m benchmarks run run_all -- --quick   # a smoke run: sizes / 100, nothing written

Every measurement runs in a fresh subprocess (clean memory figures) with the environment's
BLAS threads, as users run graphdr (``--threads N`` sets OMP/OPENBLAS/MKL_NUM_THREADS for the
children). Absolute times on a shared machine are noisy; compare the ratios, which come from
the same run. Output: a markdown table on stdout,
also written to ``benchmarks/results/bench_suite.md``.

Measurements
------------
* ``lda``: graphdr.LDA vs scikit-learn LinearDiscriminantAnalysis(solver='eigen') on
  200,000 x 100 float64 with 10 classes. Time: best of 3 fits; peak memory: tracemalloc peak of
  one more fit (allocations during fit, the input excluded). graphdr reads X once
  (class counts, class sums, centred Gram: ``graphdr.blocks.stats.class_statistics``).
* ``lqmi``: graphdr.qmi.LQMI on the same data.
* ``lda_dask``: graphdr.LDA on the same data as a dask array (20 row chunks, local threaded
  scheduler), against the in-memory fit.
* ``lda``, ``lqmi`` also time one ``X.T @ X`` on the same array in the same process, the
  hardware limit of a closed-form fit (target: fit <= 2 x that pass).
* ``kernel``: exact KernelLDA and KQMI (solver='auto' -> class-structured Cholesky path,
  gamma=0.05, reg=1e-3 fixed) at n = 2000 and 5000 (10 classes, 20 features, RBF) vs one dense
  ``scipy.linalg.eigh`` of an n x n symmetric matrix, vs scikit-learn's KernelPCA(n_components=9,
  kernel='rbf', eigen_solver='arpack') and vs the limit of the route, one RBF kernel matrix
  (scikit-learn's ``rbf_kernel``) plus one in-place Cholesky factorisation of it, all in the
  same process (targets: <= 0.8 x KernelPCA and <= 1.3 x the limit at n = 5000); plus the
  largest principal angle between the Cholesky and the eigendecomposition ('eigh') solutions
  at n = 1000.
* ``nystroem``: KQMI(approximation='nystroem', n_landmarks=1000) on 20,000 letter-like samples
  (26 classes, 16 integer features, generated) vs the exact KQMI on the first 5000 of them;
  1-NN test error (4000 test samples) in each embedding.
* ``dee``: graphdr.neighbor_embedding.DEE (optimizer 'ld' and 'fp', defaults otherwise) on mnist5k
  (n = 5000, PCA to 50 dimensions; generated 5000 x 50 data if the file is absent): seconds
  per iteration (mean spacing of ``history_['time']``) and iterations to converge.
* ``qmiproj``: graphdr.qmi.QMIProjection (d = 9, 5 iterations) on the same 5000 x 50 data:
  seconds per iteration.
* ``dee_200k``: DEE 2-D with its defaults (sampled pairs above 5000 samples) on 200,000 x 50
  generated data (10 classes): wall time and the peak resident memory of the process.
* ``dee_approx``: DEE d = 2 and 10 with ``method='exact'`` and ``'approx'`` on mnist5k halves
  (PCA to 50 fitted on the training half): 1-NN test error of each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "bench_suite.md"
sys.path.insert(0, str(HERE))
import common  # noqa: E402
from common import SHARED  # noqa: E402

MNIST = SHARED / "mnist5k.npz"
#: ``--quick`` (read by the measuring processes too): every size divided by 100, no mnist5k
QUICK = os.environ.get("GRAPHDR_BENCH_QUICK") == "1"
N_LDA, D_LDA, C_LDA = 200_000, 100, 10


def size(n):
    """``n``, or a hundredth of it (at least 200) in a smoke run."""
    return max(n // 100, 200) if QUICK else n


# ----- data -----------------------------------------------------------------------------
def lda_data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, C_LDA, size(N_LDA))
    means = rng.normal(scale=0.5, size=(C_LDA, D_LDA))
    return rng.normal(size=(len(y), D_LDA)) + means[y], y


def kernel_data(n, D=20, C=10, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    return rng.normal(size=(n, D)) + rng.normal(scale=0.8, size=(C, D))[y], y


def letter_like(n, seed, C=26, D=16, sub=4, noise=2.4):
    """Letter-sized data: 26 classes of 4 prototypes each, 16 integer features in 0..15."""
    protos_rng = np.random.default_rng(12345)
    centers = protos_rng.uniform(3, 12, size=(C, D))
    protos = centers[:, None, :] + protos_rng.normal(scale=2.0, size=(C, sub, D))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    k = rng.integers(0, sub, n)
    X = np.clip(np.rint(protos[y, k] + rng.normal(scale=noise, size=(n, D))), 0, 15)
    return X, y


def mnist50():
    from sklearn.decomposition import PCA

    if MNIST.exists() and not QUICK:
        data = np.load(MNIST)
        X, y, source = data["X"].astype(np.float64) / 255.0, data["y"], "mnist5k, PCA to 50"
    else:
        X, y = kernel_data(size(5000), D=100)
        source = f"generated {len(y)} x 100, PCA to 50" + ("" if QUICK else " (no mnist5k)")
    return PCA(50, random_state=0).fit_transform(X), y, source


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def fit_time_and_peak(make, X, y, repeats=3):
    """Best of ``repeats`` fits, the tracemalloc peak of one more, and the best of ``repeats``
    ``X.T @ X`` passes interleaved with the fits (the limit, measured in the same process; a
    pause after each, whose threads would otherwise still spin into the next fit)."""
    seconds, gram = np.inf, np.inf
    for _ in range(repeats):
        seconds = min(seconds, timed(lambda: make().fit(X, y))[0])
        gram = min(gram, timed(lambda: X.T @ X)[0])
        time.sleep(0.3)  # OpenBLAS's workers spin for 0.1-0.3 s after the threaded product
    tracemalloc.start()
    make().fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak, gram


# ----- measurements (each run in its own process) ------------------------------------------
def m_lda(which):
    X, y = lda_data()
    if which in ("graphdr", "classical"):
        import graphdr

        make = graphdr.LDA if which == "graphdr" else (lambda: graphdr.LDA(reg=0.0))
    elif which == "lqmi":
        from graphdr.qmi import LQMI

        make = LQMI
    else:
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        def make():
            return LinearDiscriminantAnalysis(solver="eigen")

    seconds, peak, gram = fit_time_and_peak(make, X, y)
    return dict(seconds=seconds, peak=peak, input=X.nbytes, gram=gram)


def m_lda_dask():
    import dask
    import dask.array as da
    from scipy.linalg import subspace_angles

    import graphdr

    X, y = lda_data()
    Xd = da.from_array(X, chunks=(len(y) // 20, -1))
    eager = graphdr.LDA(reg=0.0).fit(X, y)
    with dask.config.set(scheduler="threads", num_workers=1):
        seconds = min(timed(lambda: graphdr.LDA(reg=0.0).fit(Xd, y))[0] for _ in range(2))
        lazy = graphdr.LDA(reg=0.0).fit(Xd, y)
    memory = min(timed(lambda: graphdr.LDA(reg=0.0).fit(X, y))[0] for _ in range(2))
    angle = float(np.max(subspace_angles(lazy.components_.T, eager.components_.T)))
    return dict(seconds=seconds, memory_seconds=memory, angle=angle)


def m_kernel(n):
    from scipy import linalg
    from sklearn.decomposition import KernelPCA
    from sklearn.metrics.pairwise import rbf_kernel

    import graphdr
    from graphdr.qmi import KQMI

    X, y = kernel_data(size(n))
    n = len(y)
    gamma = 1.0 / X.shape[1]
    Xw, yw = kernel_data(200, seed=1)  # warm-up: imports and first calls out of the timings
    graphdr.KernelLDA(gamma=gamma, reg=1e-3).fit(Xw, yw)
    KQMI(gamma=gamma, reg=1e-3).fit(Xw, yw)
    KernelPCA(n_components=9, kernel="rbf", gamma=gamma, eigen_solver="arpack").fit(Xw)

    def limit():  # one kernel matrix and one in-place Cholesky factorisation of it
        K = rbf_kernel(X, gamma=gamma)
        K[np.diag_indices(n)] += 1e-3
        linalg.cho_factor(K.T, lower=True, overwrite_a=True, check_finite=False)

    def kpca():
        KernelPCA(n_components=9, kernel="rbf", gamma=gamma, eigen_solver="arpack").fit(X)

    # best of two each, interleaved: the first large allocations of a process pay for page
    # faults, and a shared machine's load shifts
    fits = dict(klda=lambda: graphdr.KernelLDA(gamma=gamma, reg=1e-3).fit(X, y),
                kqmi=lambda: KQMI(gamma=gamma, reg=1e-3).fit(X, y), limit=limit, kpca=kpca)
    out = dict.fromkeys(fits, np.inf)
    for _ in range(2):
        for name, fn in fits.items():
            out[name] = min(out[name], timed(fn)[0])
            if name in ("limit", "kpca"):  # multi-threaded BLAS: its workers spin after it
                time.sleep(0.3)
    S = np.random.default_rng(1).normal(size=(n, n))
    S = S + S.T
    out["eigh"], _ = timed(lambda S=S: linalg.eigh(S))
    del S
    out["kpca_solver"] = "arpack"
    return out


def m_kernel_agreement(n=1000):
    from scipy.linalg import subspace_angles

    import graphdr
    from graphdr.qmi import KQMI

    X, y = kernel_data(size(n))
    gamma = 1.0 / X.shape[1]
    out = {}
    for name, Est in (("klda", graphdr.KernelLDA), ("kqmi", KQMI)):
        fast = Est(gamma=gamma, reg=1e-3, solver="cholesky").fit(X, y)
        slow = Est(gamma=gamma, reg=1e-3, solver="eigh").fit(X, y)
        out[name] = float(np.max(subspace_angles(fast.embedding_, slow.embedding_)))
    return out


def m_nystroem():
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.qmi import KQMI

    Xtr, ytr = letter_like(size(20_000), seed=1)
    Xte, yte = letter_like(size(4000), seed=2)
    exact = size(5000)
    mean, std = Xtr.mean(axis=0), Xtr.std(axis=0)
    Xtr, Xte = (Xtr - mean) / std, (Xte - mean) / std
    gamma = 1.0 / Xtr.shape[1]

    def error(est, X, y):
        knn = KNeighborsClassifier(1).fit(est.transform(X), y)
        return 100.0 * (1.0 - knn.score(est.transform(Xte), yte))

    t_nys, nys = timed(
        lambda: KQMI(gamma=gamma, reg=1e-3, approximation="nystroem", n_landmarks=size(1000),
                     random_state=0).fit(Xtr, ytr)
    )
    t_exact, fit = timed(lambda: KQMI(gamma=gamma, reg=1e-3).fit(Xtr[:exact], ytr[:exact]))
    return dict(
        nys_seconds=t_nys, exact_seconds=t_exact, nys_error=error(nys, Xtr, ytr),
        exact_error=error(fit, Xtr[:exact], ytr[:exact]),
    )


def m_dee():
    try:
        from graphdr.neighbor_embedding import DEE
    except Exception as exc:  # written by a colleague; may be absent
        return dict(available=False, reason=f"{type(exc).__name__}: {exc}")
    X, y, source = mnist50()
    out = dict(available=True, source=source)
    for optimizer in ("ld", "fp"):
        seconds, est = timed(lambda o=optimizer: DEE(optimizer=o, random_state=0,
                                                     significance=None).fit(X, y))
        t = np.asarray(est.history_["time"])
        per_iter = float(np.mean(np.diff(t))) if t.size > 1 else float(seconds / max(est.n_iter_, 1))
        out[optimizer] = dict(seconds=seconds, n_iter=int(est.n_iter_), per_iter=per_iter,
                              converged=bool(getattr(est, "converged_", True)))
    return out


def m_qmiproj():
    import warnings

    from graphdr.qmi import QMIProjection

    X, y, source = mnist50()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seconds, est = timed(lambda: QMIProjection(n_components=9, max_iter=5).fit(X, y))
    t = np.asarray(est.history_["time"])
    per_iter = float(np.mean(np.diff(t))) if t.size > 1 else float(seconds)
    return dict(source=source, seconds=seconds, n_iter=int(est.n_iter_), per_iter=per_iter)


def m_dee_200k():
    from graphdr.neighbor_embedding import DEE

    rng = np.random.default_rng(0)
    n, D, C = size(200_000), 50, 10
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) + rng.normal(scale=0.6, size=(C, D))[y]
    seconds, est = timed(lambda: DEE(n_components=2, random_state=0).fit(X, y))
    return dict(seconds=seconds, peak_mb=common.peak_rss_mb(), data_mb=X.nbytes / 2**20,
                method=est.method_, n_iter=int(est.n_iter_))


def m_dee_approx():
    from sklearn.decomposition import PCA
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.neighbor_embedding import DEE

    if not MNIST.exists() and not QUICK:
        return dict(available=False)
    if QUICK:
        X, y = kernel_data(600, D=60)
    else:
        data = np.load(MNIST)
        X, y = data["X"].astype(np.float64) / 255.0, data["y"]
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    pca = PCA(50, random_state=0).fit(Xtr)
    Xtr, Xte = pca.transform(Xtr), pca.transform(Xte)
    out = dict(available=True)
    for d in (2, 10):
        for method in ("exact", "approx"):
            seconds, est = timed(lambda d=d, m=method: DEE(d, method=m, random_state=0).fit(Xtr, ytr))
            err = 1 - KNeighborsClassifier(1).fit(est.transform(Xtr), ytr).score(
                est.transform(Xte), yte)
            out[f"{method}_{d}"] = dict(error=100 * err, seconds=seconds)
    return out


MEASUREMENTS = {
    "lda_graphdr": lambda: m_lda("graphdr"),
    "lda_classical": lambda: m_lda("classical"),
    "lda_sklearn": lambda: m_lda("sklearn"),
    "lqmi": lambda: m_lda("lqmi"),
    "lda_dask": m_lda_dask,
    "kernel_2000": lambda: m_kernel(2000),
    "kernel_5000": lambda: m_kernel(5000),
    "kernel_agreement": lambda: m_kernel_agreement(),
    "nystroem": m_nystroem,
    "dee": m_dee,
    "qmiproj": m_qmiproj,
    "dee_200k": m_dee_200k,
    "dee_approx": m_dee_approx,
}


def run_child(name, threads=None):
    env = dict(os.environ)
    if threads:  # else the environment's threads, as users run graphdr
        env.update(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                   MKL_NUM_THREADS=str(threads))
    t0 = time.perf_counter()
    out = common.json_from([__file__, "--one", name], env=env)
    if "error" in out:
        return out
    out["_wall"] = time.perf_counter() - t0
    print(f"  {name}: done in {out['_wall']:.1f} s", file=sys.stderr, flush=True)
    return out


# ----- report ----------------------------------------------------------------------------------
def ok(flag):
    return "yes" if flag else "**no**"


def _threads_label(threads):
    if threads:
        return f"{threads} BLAS thread{'s' if threads > 1 else ''} (set for the run)"
    env = [f"{k}={os.environ[k]}" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
           if k in os.environ]
    return "the default threads (" + (", ".join(env) or "no thread variable set") + ")"


def report(r, command, total, threads=None):
    lines = [
        "# graphdr benchmark suite",
        "",
        f"Command: `{command}` (every measurement in a fresh process, "
        f"{_threads_label(threads)}).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, {_threads_label(threads)}; "
        f"total wall time {total:.0f} s. Ratios compare measurements of the same run.",
        "",
        "| measurement | graphdr | reference | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    add = lines.append
    g, s, q = r["lda_graphdr"], r["lda_sklearn"], r["lqmi"]
    if not any("error" in x for x in (g, s, q)):
        mb = 1e6
        add(f"| LDA fit 200k x 100, 10 classes: seconds | {g['seconds']:.2f} | sklearn LDA(eigen) "
            f"{s['seconds']:.2f} | {g['seconds'] / s['seconds']:.2f} | < 1 | "
            f"{ok(g['seconds'] < s['seconds'])} |")
        add(f"| LDA peak memory during fit (tracemalloc), MB | {g['peak'] / mb:.1f} | sklearn "
            f"{s['peak'] / mb:.1f}; input {g['input'] / mb:.0f} | {g['peak'] / g['input']:.2f} x input"
            f" | < 3 x input | {ok(g['peak'] < 3 * g['input'])} |")
        add(f"| LQMI fit 200k x 100: seconds | {q['seconds']:.2f} | sklearn LDA(eigen) "
            f"{s['seconds']:.2f} | {q['seconds'] / s['seconds']:.2f} | <= 1 (about LDA's cost) | "
            f"{ok(q['seconds'] <= s['seconds'])} |")
        add(f"| LQMI peak memory, MB | {q['peak'] / mb:.1f} | sklearn {s['peak'] / mb:.1f} | "
            f"{q['peak'] / q['input']:.2f} x input | < 3 x input | {ok(q['peak'] < 3 * q['input'])} |")
        classical = r.get("lda_classical", {})
        fits = [("LDA() (its reg='auto' included)", g), ("LQMI()", q)]
        if "error" not in classical and classical:
            fits.insert(1, ("LDA(reg=0), the closed form alone", classical))
        for label, m in fits:
            add(f"| {label} fit 200k x 100 vs the limit: seconds | {m['seconds']:.3f} | one "
                f"`X.T @ X` on the same array, same process {m['gram']:.3f} | "
                f"{m['seconds'] / m['gram']:.2f} | <= 2 | {ok(m['seconds'] <= 2 * m['gram'])} |")
    else:
        add(f"| LDA / LQMI | failed: {g.get('error') or s.get('error') or q.get('error')} | | | | |")
    dk = r["lda_dask"]
    if "error" not in dk:
        add(f"| LDA on a dask array (20 chunks, threaded scheduler): seconds | {dk['seconds']:.2f} "
            f"| in-memory graphdr.LDA {dk['memory_seconds']:.2f} | "
            f"{dk['seconds'] / dk['memory_seconds']:.2f} | same fit (angle {dk['angle']:.1e}) | "
            f"{ok(dk['angle'] < 1e-10)} |")
    else:
        add(f"| LDA on a dask array | failed: {dk['error']} | | | | |")
    for n in (2000, 5000):
        k = r[f"kernel_{n}"]
        if "error" in k:
            add(f"| kernel n={n} | failed: {k['error']} | | | | |")
            continue
        targets = n == 5000  # the targets are set at n = 5000
        for name, label in (("klda", "KernelLDA"), ("kqmi", "KQMI")):
            add(f"| {label} exact (Cholesky path) n={n}: seconds | {k[name]:.2f} | one dense "
                f"eigh n x n {k['eigh']:.2f} | {k[name] / k['eigh']:.2f} | < 0.5 | "
                f"{ok(k[name] < 0.5 * k['eigh'])} |")
            add(f"| {label} exact n={n} vs the limit | {k[name]:.2f} | one RBF kernel + one "
                f"Cholesky n x n {k['limit']:.2f} | {k[name] / k['limit']:.2f} | "
                + (f"<= 1.3 | {ok(k[name] <= 1.3 * k['limit'])} |" if targets else "(reported) | - |"))
            add(f"| {label} exact n={n} vs KernelPCA | {k[name]:.2f} | sklearn KernelPCA(9, rbf, "
                f"{k['kpca_solver']}) {k['kpca']:.2f} | {k[name] / k['kpca']:.2f} | "
                + (f"<= 0.8 | {ok(k[name] <= 0.8 * k['kpca'])} |" if targets else "(reported) | - |"))
        add(f"| the limit itself n={n} vs KernelPCA | {k['limit']:.2f} | KernelPCA "
            f"{k['kpca']:.2f} | {k['limit'] / k['kpca']:.2f} | (reported: a Cholesky route "
            "cannot beat this) | - |")
    a = r["kernel_agreement"]
    if "error" not in a:
        add(f"| Cholesky path vs eigendecomposition path, n=1000: max principal angle | "
            f"KernelLDA {a['klda']:.1e}, KQMI {a['kqmi']:.1e} | - | - | < 1e-6 | "
            f"{ok(max(a['klda'], a['kqmi']) < 1e-6)} |")
    ny = r["nystroem"]
    if "error" not in ny:
        add(f"| Nystroem KQMI (1000 landmarks), 20,000 letter-like samples: seconds | "
            f"{ny['nys_seconds']:.2f} | exact KQMI on 5000: {ny['exact_seconds']:.2f} | - | < 30 s | "
            f"{ok(ny['nys_seconds'] < 30)} |")
        add(f"| Nystroem KQMI 1-NN test error, % | {ny['nys_error']:.2f} | exact KQMI on 5000: "
            f"{ny['exact_error']:.2f} | {ny['nys_error'] - ny['exact_error']:+.2f} points | "
            f"<= +2 points | {ok(ny['nys_error'] <= ny['exact_error'] + 2)} |")
    de = r["dee"]
    if "error" in de or not de.get("available"):
        add(f"| DEE (LD, FP) n=5000 | not available ({de.get('reason') or de.get('error')}) "
            "| | | | |")
    else:
        for opt in ("ld", "fp"):
            d = de[opt]
            add(f"| DEE {opt.upper()} n=5000 ({de['source']}): seconds / iteration | "
                f"{d['per_iter']:.3f} | {d['n_iter']} iterations, fit {d['seconds']:.2f} s, "
                f"converged {d['converged']} | - | (reported) | - |")
    qp = r["qmiproj"]
    if "error" not in qp:
        add(f"| QMIProjection n=5000, d=9 ({qp['source']}): seconds / iteration | "
            f"{qp['per_iter']:.3f} | {qp['n_iter']} iterations, fit {qp['seconds']:.2f} s | - | "
            "(reported) | - |")
    else:
        add(f"| QMIProjection | failed: {qp['error']} | | | | |")
    big = r["dee_200k"]
    if "error" not in big:
        add(f"| DEE 2-D defaults ({big['method']} pairs), 200,000 x 50, 10 classes: seconds | "
            f"{big['seconds']:.1f} | {big['n_iter']} iterations | - | < 120 s | "
            f"{ok(big['seconds'] < 120)} |")
        add(f"| DEE 200,000 x 50: peak resident memory of the process (VmHWM), MB | "
            f"{big['peak_mb']:.0f} | data {big['data_mb']:.0f} MB | - | < 2048 MB | "
            f"{ok(big['peak_mb'] < 2048)} |")
    else:
        add(f"| DEE 200,000 x 50 | failed: {big['error']} | | | | |")
    ap = r["dee_approx"]
    if "error" not in ap and ap.get("available"):
        for d in (2, 10):
            e, a = ap[f"exact_{d}"], ap[f"approx_{d}"]
            add(f"| DEE d={d} on mnist5k halves (PCA 50), sampled pairs: 1-NN test error % | "
                f"{a['error']:.2f} ({a['seconds']:.1f} s) | exact pairs {e['error']:.2f} "
                f"({e['seconds']:.1f} s) | {a['error'] - e['error']:+.2f} points | <= +1 point | "
                f"{ok(a['error'] <= e['error'] + 1)} |")
    else:
        add(f"| DEE exact against sampled pairs | {ap.get('error', 'mnist5k not found')} "
            "| | | | |")
    return "\n".join(lines) + "\n"


def main():
    global QUICK
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one", choices=sorted(MEASUREMENTS), help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="+", choices=sorted(MEASUREMENTS),
                        help="run only these measurements (for development)")
    parser.add_argument("--no-write", action="store_true", help="do not write the results file")
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS threads of the measurements (default: the environment's)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: every size divided by 100, nothing written")
    args = parser.parse_args()
    if args.quick:
        os.environ["GRAPHDR_BENCH_QUICK"] = "1"
        QUICK = args.no_write = True
    if args.one:
        print(json.dumps(MEASUREMENTS[args.one]()))
        return
    names = args.only or list(MEASUREMENTS)
    t0 = time.perf_counter()
    results = {name: dict(error="not run") for name in MEASUREMENTS}
    for name in names:  # a smoke run measures in this process after its first child
        results[name] = (MEASUREMENTS[name]() if args.quick and name != names[0]
                         else run_child(name, args.threads))
    total = time.perf_counter() - t0
    command = ".venv/bin/python benchmarks/run_all.py" + (
        " --only " + " ".join(names) if args.only else "") + (
        f" --threads {args.threads}" if args.threads else "")
    text = report(results, "make bench` = `" + command if not args.only and not args.threads
                  else command, total, args.threads)
    print(text)
    if not args.no_write and not args.only:
        RESULTS.write_text(text)
        print(f"written to {RESULTS.relative_to(HERE.parent)}", file=sys.stderr)


if __name__ == "__main__":
    main()
