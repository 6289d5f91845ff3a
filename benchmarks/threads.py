"""Do the machine's default threads help or hurt? Every estimator's default fit with the machine's
default BLAS threads against one thread, on a quiet machine and beside a busy process; LDA and
LQMI against one ``X.T @ X`` and scikit-learn's LDA.

    python -m benchmarks run threads                      # everything (about 40 minutes)
    python -m benchmarks run threads -- --part lda        # the LDA / LQMI ratios only
    python -m benchmarks run threads -- --part estimators --only LDA,KQMI,DEEMap
    python -m benchmarks run threads -- --quick   # a smoke run: 2 estimators, small data

``estimators``: the default fit of every public estimator on generated data with
sub-clusters, in a fresh process each, with the default threads and under
``threadpool_limits(1)`` taken in turn. ``lda``: the fits against one ``X.T @ X`` and
scikit-learn's ``LinearDiscriminantAnalysis(solver='svd')`` at three shapes. The shapes, the
repeats and the targets: ``threads.md``, which each part rewrites its own section of.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time

import common
import numpy as np

RESULT = common.RESULTS / "threads.md"
TARGET_RATIO = 1.1

#: every public estimator: (name, kind of data, how to build it)
ESTIMATORS = [
    ("LDA", "lda"), ("LQMI", "lda"),
    ("LPP", "linear"), ("MFA", "linear"), ("LDE", "linear"), ("GraphEmbedding", "linear"),
    ("MMPA", "linear"), ("DCV", "linear"), ("DEE", "linear"), ("DSNE", "linear"),
    ("ElasticEmbedding", "linear"), ("DEEMap", "linear"), ("QMIProjection", "linear"),
    ("KernelLDA", "kernel"), ("KernelLPP", "kernel"), ("CKFD", "kernel"), ("KQMI", "kernel"),
    ("KFD", "kernel"), ("ViewKernel", "kernel"),
    ("KFDVoting", "views"), ("KFDSAMME", "views"), ("MKLDR", "views"),
]
SIZES = {"lda": (200_000, 100), "linear": (20_000, 50), "kernel": (5_000, 20),
         "views": (5_000, 20)}
#: ``--quick`` (read by the measuring processes too): small data, two estimators
QUICK = os.environ.get("GRAPHDR_BENCH_QUICK") == "1"
if QUICK:
    SIZES = {"lda": (2_000, 20), "linear": (600, 10), "kernel": (300, 10), "views": (300, 10)}
LDA_SHAPES = ((200_000, 100), (1_000_000, 100), (100_000, 1000))


def make_data(n, d, n_classes=10, seed=0, sub=3):
    """Classes of ``sub`` Gaussian sub-clusters each, unit noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    part = rng.integers(0, sub, n)
    centres = 2.0 * rng.normal(size=(n_classes, sub, d))
    X = rng.standard_normal((n, d))
    X += centres[y, part]
    return X, y


def _data(kind, n=None):
    n0, d = SIZES[kind]
    X, y = make_data(n or n0, d)
    if kind == "views":
        return [X[:, : d // 2], X[:, d // 2 :]], y
    return X, y


# ----- one estimator, in its own process ---------------------------------------------------
def measure_estimator(name, kind):
    """Default-thread and one-thread fit times of one estimator, taken in turn."""
    import warnings

    from threadpoolctl import threadpool_limits

    import graphdr

    warnings.filterwarnings("ignore")
    cls = getattr(graphdr, name)
    Xw, yw = _data(kind, 300)
    cls().fit(Xw, yw)  # imports and first calls out of the timings
    X, y = _data(kind)
    times = {"default": [], "one": []}

    def fit(mode):
        start = time.perf_counter()
        if mode == "one":
            with threadpool_limits(limits=1):
                cls().fit(X, y)
        else:
            cls().fit(X, y)
        times[mode].append(time.perf_counter() - start)

    fit("default")
    fit("one")
    slowest = max(times["default"][0], times["one"][0])
    rounds = 3 if slowest < 5.0 else 2 if slowest < 60.0 else 1
    for r in range(1, rounds):  # the order alternates: neither mode always runs first
        for mode in (("one", "default") if r % 2 else ("default", "one")):
            fit(mode)
    return {mode: min(t) for mode, t in times.items()}


class BusyProcess:
    """One other process spinning on one core while the block runs."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def _in_subprocess(function, *args):
    code = f"import json, threads; print(json.dumps(threads.{function}(*{args!r})))"
    return common.json_from(["-c", code], strict=True)


def run_estimators(only=None):
    rows = []
    for name, kind in ESTIMATORS:
        if only and name not in only:
            continue
        row = {"name": name, "shape": "{} x {}".format(*SIZES[kind])}
        for load in ("quiet", "busy"):
            with BusyProcess() if load == "busy" else contextlib.nullcontext():
                row[load] = _in_subprocess("measure_estimator", name, kind)
        q, b = row["quiet"], row["busy"]
        print(f"{name:18s} quiet {q['default']:7.2f} / {q['one']:7.2f} s = "
              f"{q['default'] / q['one']:.2f}   busy {b['default']:7.2f} / {b['one']:7.2f} s = "
              f"{b['default'] / b['one']:.2f}", flush=True)
        rows.append(row)
    return rows


def estimators_section(rows):
    lines = ["## Every estimator's default fit: default threads / one thread", "",
             f"Target: <= {TARGET_RATIO} on a quiet machine and beside one busy process. "
             "Seconds are the best of the fits of each kind (3 below 5 s, 2 below 60 s, 1 "
             "above; taken in turn, the order alternating), in a fresh process per estimator "
             "and load.", "", *common.table(
                 ("estimator", "data", "quiet: default", "one thread", "ratio", "busy: default",
                  "one thread", "ratio", "target met"), align="llrrrrrrl")]
    met = 0
    for r in rows:
        q, b = r["quiet"], r["busy"]
        rq, rb = q["default"] / q["one"], b["default"] / b["one"]
        ok = rq <= TARGET_RATIO and rb <= TARGET_RATIO
        met += ok
        lines.append(common.row(r["name"], r["shape"], *(f"{x:.2f}" for x in (
            q["default"], q["one"], rq, b["default"], b["one"], rb)), "yes" if ok else "**no**"))
    worst_q = max(r["quiet"]["default"] / r["quiet"]["one"] for r in rows)
    worst_b = max(r["busy"]["default"] / r["busy"]["one"] for r in rows)
    head = (f"Headline: default threads / one thread at most {worst_q:.2f} (quiet) and "
            f"{worst_b:.2f} (busy) over {len(rows)} estimators; target <= {TARGET_RATIO} met "
            f"by {met} of {len(rows)}")
    return head, lines


# ----- LDA and LQMI against their floors -----------------------------------------------------
def measure_lda(n, d, repeats):
    """Best-of times of one ``X.T @ X`` and of the fits, default threads, then one thread."""
    import warnings

    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from threadpoolctl import threadpool_limits

    import graphdr

    warnings.filterwarnings("ignore")
    X, y = make_data(n, d, sub=1)
    fits = {
        "gram": lambda: X.T @ X,
        "LDA()": lambda: graphdr.LDA().fit(X, y),
        "LDA(reg=0)": lambda: graphdr.LDA(reg=0.0).fit(X, y),
        "LQMI()": lambda: graphdr.LQMI().fit(X, y),
        "LQMI(reg=0)": lambda: graphdr.LQMI(reg=0.0).fit(X, y),
    }
    graphdr.LDA().fit(X[:2000], y[:2000])  # first calls out of the timings
    out = {}
    for threads in ("default", "one"):
        with threadpool_limits(limits=1 if threads == "one" else None):
            best = common.best_in_turn(fits, repeats)
            start = time.perf_counter()
            LinearDiscriminantAnalysis(solver="svd").fit(X, y)
            best["sklearn"] = time.perf_counter() - start
        out[threads] = best
    return out


def run_lda():
    results = []
    for n, d in LDA_SHAPES:
        repeats = 5 if n * d <= 2 * 10**7 else 3
        r = _in_subprocess("measure_lda", n, d, repeats)
        r["shape"] = (n, d)
        results.append(r)
        t = r["default"]
        print(f"{n} x {d}: X.T@X {t['gram']:.3f} s; " + ", ".join(
            f"{k} {t[k] / t['gram']:.2f}" for k in ("LDA()", "LDA(reg=0)", "LQMI()",
                                                    "LQMI(reg=0)"))
              + f"; LDA() / sklearn {t['LDA()'] / t['sklearn']:.3f}", flush=True)
    return results


def lda_section(results):
    lines = ["## LDA and LQMI against one X.T @ X and scikit-learn's LDA(svd)", "",
             "Fits and one `X.T @ X` taken in turn in one process per shape (10 classes, "
             "float64, generated), best of 5 (3 at the larger shapes); scikit-learn's "
             "`LinearDiscriminantAnalysis(solver='svd')` once. Targets with the default "
             "threads: `LDA()`, `LQMI()` <= 2 x `X.T @ X` and <= 0.5 x scikit-learn's; "
             "`reg=0` <= 1.5 x `X.T @ X`.", "", *common.table(
                 ("n x D", "threads", "X.T @ X (s)", "LDA()", "LDA(reg=0)", "LQMI()",
                  "LQMI(reg=0)", "sklearn LDA(svd) (s)", "LDA() / sklearn", "targets met"),
                 align="llrrrrrrrl")]
    failures = []
    for r in results:
        n, d = r["shape"]
        for threads in ("default", "one"):
            t = r[threads]
            g = t["gram"]
            ratios = {k: t[k] / g for k in ("LDA()", "LDA(reg=0)", "LQMI()", "LQMI(reg=0)")}
            vs_sk = t["LDA()"] / t["sklearn"]
            if threads == "default":
                missed = [k for k in ("LDA()", "LQMI()") if ratios[k] > 2.0]
                missed += [k for k in ("LDA(reg=0)", "LQMI(reg=0)") if ratios[k] > 1.5]
                missed += ["vs sklearn"] if max(t["LDA()"], t["LQMI()"]) > 0.5 * t["sklearn"] \
                    else []
                failures += [f"{k} at {n:,} x {d}" for k in missed]
                verdict = "yes" if not missed else "**no**: " + ", ".join(missed)
            else:
                verdict = "(one thread: for reference)"
            lines.append(
                f"| {n:,} x {d} | {threads} | {g:.3f} | {ratios['LDA()']:.2f} x "
                f"({t['LDA()']:.3f} s) | {ratios['LDA(reg=0)']:.2f} x | {ratios['LQMI()']:.2f} x "
                f"| {ratios['LQMI(reg=0)']:.2f} x | {t['sklearn']:.2f} | {vs_sk:.3f} | "
                f"{verdict} |")
    worst = max(r["default"]["LDA()"] / r["default"]["gram"] for r in results)
    head = (f"Headline: LDA() with the default threads at most {worst:.2f} x one X.T @ X; "
            + ("every LDA/LQMI target met" if not failures
               else "targets missed: " + "; ".join(failures)))
    return head, lines


# ----- the result file ------------------------------------------------------------------------
def _machine():
    from threadpoolctl import threadpool_info

    import graphdr  # noqa: F401  (loads SciPy's BLAS too)

    libs = [f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads, "
            f"{i.get('architecture', '')})" for i in threadpool_info()
            if i.get("user_api") == "blas"]
    env = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                       "MKL_NUM_THREADS") if k in os.environ}
    return (common.machine("default threads: " + (", ".join(f"{k}={v}" for k, v in env.items())
                                                  or "no thread variable set"))
            + f" BLAS: {'; '.join(libs)}. 1-minute load average when this file was written "
            f"(this run's own work included): {os.getloadavg()[0]:.2f}. Busy: one other "
            "process spinning on one core.")


def _sections(text):
    """``{title: body lines}`` of the ``## `` sections of a result file."""
    parts, current = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line
            parts[current] = []
        elif current:
            parts[current].append(line)
    return parts


def write(sections):
    """Rewrite the sections run now (each opens with its ``Headline:`` line), keep the
    others."""
    kept = _sections(RESULT.read_text()) if RESULT.exists() else {}
    kept.update(sections)
    lines = ["# Default threads against one thread", "",
             "Command: `python -m benchmarks run threads` (`-- --part estimators` or "
             "`-- --part lda` for one part; a part not run keeps its last figures)", "",
             _machine(), ""]
    for title in sorted(kept, key=lambda t: "0" if "estimator" in t else "1"):
        lines += [title] + kept[title]
    RESULT.write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {RESULT}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--part", choices=("all", "estimators", "lda"), default="all")
    p.add_argument("--only", default="", help="comma-separated estimator names")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: LDA and KernelLDA on small data, printed only")
    a = p.parse_args(argv)
    if a.quick:
        os.environ["GRAPHDR_BENCH_QUICK"] = "1"
        code = subprocess.run([sys.executable, __file__, "--part", "estimators", "--only",
                               "LDA,KernelLDA"], check=False).returncode
        return code
    sections = {}
    if a.part in ("all", "estimators"):
        head, lines = estimators_section(run_estimators(set(filter(None, a.only.split(",")))))
        sections[lines[0]] = ["", head] + lines[1:] + [""]
        print(head)
    if a.part in ("all", "lda"):
        head, lines = lda_section(run_lda())
        sections[lines[0]] = ["", head] + lines[1:] + [""]
        print(head)
    if not a.only:  # (a part of the estimators: printed only)
        write(sections)
    return 0


if __name__ == "__main__":
    sys.exit(main())
