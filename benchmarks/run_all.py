"""Where does each core fit stand against its reference? graphdr's benchmark suite: one command,
ratios measured side by side in one run.

    make bench          # = .venv/bin/python benchmarks/run_all.py
    python -m benchmarks run run_all -- --quick   # a smoke run: sizes / 100, nothing written

Every measurement runs in a fresh process (clean memory figures) with the environment's BLAS
threads (``python -m benchmarks run --threads N run_all`` sets them); compare the ratios, which
come from the same run. Writes ``benchmarks/results/bench_suite.md``, one row per check
(:data:`MEASUREMENTS`, each function's code says what it times): LDA and LQMI on 200,000 x 100
against scikit-learn's LDA, one ``X.T @ X`` and a dask array; exact KernelLDA and KQMI at n =
2000 and 5000 against one ``eigh``, KernelPCA and one RBF kernel plus its Cholesky
factorisation; Nystroem KQMI on 20,000 letter-like samples; DEE and QMIProjection per iteration
on mnist5k in 50 PCA dimensions; DEE 2-D on 200,000 x 50; DEE's sampled pairs against exact.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import tracemalloc

import common
import numpy as np
from common import row

RESULTS = common.RESULTS / "bench_suite.md"
MNIST = common.SHARED / "mnist5k.npz"
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
        (X, y), source = common.load_shared("mnist5k"), "mnist5k, PCA to 50"
    else:
        X, y = kernel_data(size(5000), D=100)
        source = f"generated {len(y)} x 100, PCA to 50" + ("" if QUICK else " (no mnist5k)")
    return PCA(50, random_state=0).fit_transform(X), y, source


def fit_time_and_peak(make, X, y, repeats=3):
    """Best of ``repeats`` fits, the tracemalloc peak of one more, and the best of ``repeats``
    ``X.T @ X`` passes interleaved with the fits (the limit, measured in the same process; a
    pause after each, whose threads would otherwise still spin into the next fit)."""
    t = common.best_in_turn({"fit": lambda: make().fit(X, y), "gram": lambda: X.T @ X}, repeats)
    tracemalloc.start()
    make().fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return t["fit"], peak, t["gram"]


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
        seconds = min(common.best_time(lambda: graphdr.LDA(reg=0.0).fit(Xd, y))[0] for _ in range(2))
        lazy = graphdr.LDA(reg=0.0).fit(Xd, y)
    memory = min(common.best_time(lambda: graphdr.LDA(reg=0.0).fit(X, y))[0] for _ in range(2))
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
    out = common.best_in_turn(fits, 2, settle_after=("limit", "kpca"))
    S = np.random.default_rng(1).normal(size=(n, n))
    S = S + S.T
    out["eigh"], _ = common.best_time(lambda S=S: linalg.eigh(S))
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

    t_nys, nys = common.best_time(
        lambda: KQMI(gamma=gamma, reg=1e-3, approximation="nystroem", n_landmarks=size(1000),
                     random_state=0).fit(Xtr, ytr)
    )
    t_exact, fit = common.best_time(lambda: KQMI(gamma=gamma, reg=1e-3).fit(Xtr[:exact], ytr[:exact]))
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
        seconds, est = common.best_time(lambda o=optimizer: DEE(optimizer=o, random_state=0,
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
        seconds, est = common.best_time(lambda: QMIProjection(n_components=9, max_iter=5).fit(X, y))
    t = np.asarray(est.history_["time"])
    per_iter = float(np.mean(np.diff(t))) if t.size > 1 else float(seconds)
    return dict(source=source, seconds=seconds, n_iter=int(est.n_iter_), per_iter=per_iter)


def m_dee_200k():
    from graphdr.neighbor_embedding import DEE

    rng = np.random.default_rng(0)
    n, D, C = size(200_000), 50, 10
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, D)) + rng.normal(scale=0.6, size=(C, D))[y]
    seconds, est = common.best_time(lambda: DEE(n_components=2, random_state=0).fit(X, y))
    return dict(seconds=seconds, peak_mb=common.peak_rss_mb(), data_mb=X.nbytes / 2**20,
                method=est.method_, n_iter=int(est.n_iter_))


def m_dee_approx():
    from sklearn.decomposition import PCA
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier

    from graphdr.neighbor_embedding import DEE

    if not MNIST.exists() and not QUICK:
        return dict(available=False)
    X, y = kernel_data(600, D=60) if QUICK else common.load_shared("mnist5k")
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    pca = PCA(50, random_state=0).fit(Xtr)
    Xtr, Xte = pca.transform(Xtr), pca.transform(Xte)
    out = dict(available=True)
    for d in (2, 10):
        for method in ("exact", "approx"):
            seconds, est = common.best_time(
                lambda d=d, m=method: DEE(d, method=m, random_state=0).fit(Xtr, ytr))
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
    "kernel_agreement": m_kernel_agreement,
    "nystroem": m_nystroem,
    "dee": m_dee,
    "qmiproj": m_qmiproj,
    "dee_200k": m_dee_200k,
    "dee_approx": m_dee_approx,
}


def run_child(name):
    t0 = time.perf_counter()
    out = common.json_from([__file__, "--one", name])
    if "error" in out:
        return out
    out["_wall"] = time.perf_counter() - t0
    print(f"  {name}: done in {out['_wall']:.1f} s", file=sys.stderr, flush=True)
    return out


# ----- report ----------------------------------------------------------------------------------
def ok(flag):
    return "yes" if flag else "**no**"


def _threads_label():
    env = [f"{k}={os.environ[k]}" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
           if k in os.environ]
    return "the default threads (" + (", ".join(env) or "no thread variable set") + ")"


def _failed(what, why):
    return f"| {what} | {why} | | | | |"


def _linear_rows(r):
    """The rows of LDA and LQMI: against scikit-learn's LDA, one ``X.T @ X``, a dask array."""
    g, s, q = r["lda_graphdr"], r["lda_sklearn"], r["lqmi"]
    if any("error" in x for x in (g, s, q)):
        rows = [_failed("LDA / LQMI", f"failed: {g.get('error') or s.get('error') or q.get('error')}")]
    else:
        mb, sk = 1e6, f"sklearn LDA(eigen) {s['seconds']:.2f}"
        rows = [row("LDA fit 200k x 100, 10 classes: seconds", f"{g['seconds']:.2f}", sk,
                    f"{g['seconds'] / s['seconds']:.2f}", "< 1", ok(g["seconds"] < s["seconds"])),
                row("LDA peak memory during fit (tracemalloc), MB", f"{g['peak'] / mb:.1f}",
                    f"sklearn {s['peak'] / mb:.1f}; input {g['input'] / mb:.0f}",
                    f"{g['peak'] / g['input']:.2f} x input", "< 3 x input",
                    ok(g["peak"] < 3 * g["input"])),
                row("LQMI fit 200k x 100: seconds", f"{q['seconds']:.2f}", sk,
                    f"{q['seconds'] / s['seconds']:.2f}", "<= 1 (about LDA's cost)",
                    ok(q["seconds"] <= s["seconds"])),
                row("LQMI peak memory, MB", f"{q['peak'] / mb:.1f}", f"sklearn {s['peak'] / mb:.1f}",
                    f"{q['peak'] / q['input']:.2f} x input", "< 3 x input",
                    ok(q["peak"] < 3 * q["input"]))]
        classical = r.get("lda_classical", {})
        fits = [("LDA() (its reg='auto' included)", g), ("LQMI()", q)]
        if "error" not in classical and classical:
            fits.insert(1, ("LDA(reg=0), the closed form alone", classical))
        rows += [row(f"{label} fit 200k x 100 vs the limit: seconds", f"{m['seconds']:.3f}",
                     f"one `X.T @ X` on the same array, same process {m['gram']:.3f}",
                     f"{m['seconds'] / m['gram']:.2f}", "<= 2", ok(m["seconds"] <= 2 * m["gram"]))
                 for label, m in fits]
    dk = r["lda_dask"]
    rows.append(_failed("LDA on a dask array", f"failed: {dk['error']}") if "error" in dk else row(
        "LDA on a dask array (20 chunks, threaded scheduler): seconds", f"{dk['seconds']:.2f}",
        f"in-memory graphdr.LDA {dk['memory_seconds']:.2f}",
        f"{dk['seconds'] / dk['memory_seconds']:.2f}", f"same fit (angle {dk['angle']:.1e})",
        ok(dk["angle"] < 1e-10)))
    return rows


def _kernel_rows(r):
    """The rows of the exact kernel fits against their limits, and of Nystroem KQMI."""
    rows = []
    for n in (2000, 5000):
        k = r[f"kernel_{n}"]
        if "error" in k:
            rows.append(_failed(f"kernel n={n}", f"failed: {k['error']}"))
            continue
        targets = n == 5000  # the targets are set at n = 5000

        def target(limit, x, of, targets=targets):
            return (f"<= {limit} | {ok(x <= limit * of)}" if targets else "(reported) | -")

        for name, label in (("klda", "KernelLDA"), ("kqmi", "KQMI")):
            x = k[name]
            rows += [row(f"{label} exact (Cholesky path) n={n}: seconds", f"{x:.2f}",
                         f"one dense eigh n x n {k['eigh']:.2f}", f"{x / k['eigh']:.2f}", "< 0.5",
                         ok(x < 0.5 * k["eigh"])),
                     row(f"{label} exact n={n} vs the limit", f"{x:.2f}", "one RBF kernel + one "
                         f"Cholesky n x n {k['limit']:.2f}", f"{x / k['limit']:.2f}",
                         target(1.3, x, k["limit"])),
                     row(f"{label} exact n={n} vs KernelPCA", f"{x:.2f}", "sklearn KernelPCA(9, "
                         f"rbf, {k['kpca_solver']}) {k['kpca']:.2f}", f"{x / k['kpca']:.2f}",
                         target(0.8, x, k["kpca"]))]
        rows.append(row(f"the limit itself n={n} vs KernelPCA", f"{k['limit']:.2f}",
                        f"KernelPCA {k['kpca']:.2f}", f"{k['limit'] / k['kpca']:.2f}",
                        "(reported: a Cholesky route cannot beat this)", "-"))
    a = r["kernel_agreement"]
    if "error" not in a:
        rows.append(row("Cholesky path vs eigendecomposition path, n=1000: max principal angle",
                        f"KernelLDA {a['klda']:.1e}, KQMI {a['kqmi']:.1e}", "-", "-", "< 1e-6",
                        ok(max(a["klda"], a["kqmi"]) < 1e-6)))
    ny = r["nystroem"]
    if "error" not in ny:
        exact = "exact KQMI on 5000:"
        rows += [row("Nystroem KQMI (1000 landmarks), 20,000 letter-like samples: seconds",
                     f"{ny['nys_seconds']:.2f}", f"{exact} {ny['exact_seconds']:.2f}", "-",
                     "< 30 s", ok(ny["nys_seconds"] < 30)),
                 row("Nystroem KQMI 1-NN test error, %", f"{ny['nys_error']:.2f}",
                     f"{exact} {ny['exact_error']:.2f}",
                     f"{ny['nys_error'] - ny['exact_error']:+.2f} points", "<= +2 points",
                     ok(ny["nys_error"] <= ny["exact_error"] + 2))]
    return rows


def _iterative_rows(r):
    """The rows of DEE and QMIProjection: time per iteration, at scale, sampled pairs."""
    de, qp, big, ap = r["dee"], r["qmiproj"], r["dee_200k"], r["dee_approx"]
    if "error" in de or not de.get("available"):
        rows = [_failed("DEE (LD, FP) n=5000",
                        f"not available ({de.get('reason') or de.get('error')})")]
    else:
        rows = [row(f"DEE {opt.upper()} n=5000 ({de['source']}): seconds / iteration",
                    f"{de[opt]['per_iter']:.3f}", f"{de[opt]['n_iter']} iterations, fit "
                    f"{de[opt]['seconds']:.2f} s, converged {de[opt]['converged']}", "-",
                    "(reported)", "-") for opt in ("ld", "fp")]
    rows.append(_failed("QMIProjection", f"failed: {qp['error']}") if "error" in qp else row(
        f"QMIProjection n=5000, d=9 ({qp['source']}): seconds / iteration",
        f"{qp['per_iter']:.3f}", f"{qp['n_iter']} iterations, fit {qp['seconds']:.2f} s", "-",
        "(reported)", "-"))
    if "error" in big:
        rows.append(_failed("DEE 200,000 x 50", f"failed: {big['error']}"))
    else:
        rows += [row(f"DEE 2-D defaults ({big['method']} pairs), 200,000 x 50, 10 classes: "
                     "seconds", f"{big['seconds']:.1f}", f"{big['n_iter']} iterations", "-",
                     "< 120 s", ok(big["seconds"] < 120)),
                 row("DEE 200,000 x 50: peak resident memory of the process (VmHWM), MB",
                     f"{big['peak_mb']:.0f}", f"data {big['data_mb']:.0f} MB", "-", "< 2048 MB",
                     ok(big["peak_mb"] < 2048))]
    if "error" in ap or not ap.get("available"):
        return rows + [_failed("DEE exact against sampled pairs",
                               ap.get("error", "mnist5k not found"))]
    for d in (2, 10):
        e, a = ap[f"exact_{d}"], ap[f"approx_{d}"]
        rows.append(row(f"DEE d={d} on mnist5k halves (PCA 50), sampled pairs: 1-NN test error "
                        "%", f"{a['error']:.2f} ({a['seconds']:.1f} s)",
                        f"exact pairs {e['error']:.2f} ({e['seconds']:.1f} s)",
                        f"{a['error'] - e['error']:+.2f} points", "<= +1 point",
                        ok(a["error"] <= e["error"] + 1)))
    return rows


def report(r, command, total):
    threads = _threads_label()
    lines = [
        "# graphdr benchmark suite", "",
        f"Command: `{command}` (every measurement in a fresh process, {threads}).", "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, {threads}; "
        f"total wall time {total:.0f} s. Ratios compare measurements of the same run.", "",
        *common.table(("measurement", "graphdr", "reference", "ratio", "target", "met")),
        *_linear_rows(r), *_kernel_rows(r), *_iterative_rows(r)]
    return "\n".join(lines) + "\n"


def main():
    global QUICK
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one", choices=sorted(MEASUREMENTS), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: every size divided by 100, nothing written")
    args = parser.parse_args()
    if args.quick:
        os.environ["GRAPHDR_BENCH_QUICK"] = "1"
        QUICK = True
    if args.one:
        print(json.dumps(MEASUREMENTS[args.one]()))
        return
    names = list(MEASUREMENTS)
    t0 = time.perf_counter()
    # a smoke run measures in this process after its first child
    results = {name: MEASUREMENTS[name]() if args.quick and name != names[0] else run_child(name)
               for name in names}
    text = report(results, "make bench` = `.venv/bin/python benchmarks/run_all.py",
                  time.perf_counter() - t0)
    print(text)
    if not args.quick:
        RESULTS.write_text(text)
        print(f"written to {RESULTS.relative_to(common.REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
