"""``scale.py --lda``: graphdr.LDA versus scikit-learn's eigen solver on 200,000 x 100 with 10 classes.

Peak memory is measured with tracemalloc (every NumPy allocation made during fit, not counting
the input) and, independently, as the resident-set growth of a fresh process.

    .venv/bin/python benchmarks/scale.py --lda      # writes benchmarks/results/scale_lda.md
"""

import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

N, D, C = 200_000, 100, 10


def make_data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, C, N)
    means = rng.normal(scale=0.5, size=(C, D))
    return rng.normal(size=(N, D)) + means[y], y


def measure(which):
    import resource

    X, y = make_data()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if which.startswith("graphdr"):
        import graphdr

        # the default (reg='auto'), or classical LDA as scikit-learn's eigen solver
        make = graphdr.LDA if which == "graphdr" else (lambda: graphdr.LDA(reg=0.0))
    else:
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        def make():
            return LinearDiscriminantAnalysis(solver="eigen")
    make().fit(X[:2000], y[:2000])  # imports and first calls out of the figures
    est = make()
    tracemalloc.start()
    t0 = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return dict(seconds=seconds, peak_mb=peak / 1e6, rss_growth_mb=(rss_after - rss_before) / 1e3,
                input_mb=X.nbytes / 1e6)


def main():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import common

    rows = {}
    for which in ("graphdr", "graphdr0", "sklearn"):
        out = subprocess.run([sys.executable, __file__, which], capture_output=True, text=True,
                             check=True)
        rows[which] = json.loads(out.stdout.strip().splitlines()[-1])
    lines = [
        "# graphdr.LDA against scikit-learn's eigen solver at 200,000 x 100", "",
        f"Command: `{common.thread_variables()}.venv/bin/python benchmarks/scale.py --lda` "
        f"({common.threads_label()}; one fit per implementation, each in a fresh process "
        "after a warm-up fit on 2000 rows).", "",
        f"LDA fit on {N} x {D} float64, {C} classes (input "
        f"{rows['graphdr']['input_mb']:.0f} MB)", "",
        "| implementation | fit seconds | peak traced MB during fit | max RSS growth MB |",
        "|---|---|---|---|",
    ]
    for which, label in (("graphdr", "graphdr.LDA() (reg='auto')"),
                         ("graphdr0", "graphdr.LDA(reg=0)"),
                         ("sklearn", "sklearn LDA(solver='eigen')")):
        r = rows[which]
        lines.append(f"| {label} | {r['seconds']:.2f} | {r['peak_mb']:.1f} | "
                     f"{r['rss_growth_mb']:.1f} |")
    lines += ["", "Time ratio graphdr.LDA() / sklearn: "
              f"{rows['graphdr']['seconds'] / rows['sklearn']['seconds']:.2f}"]
    text = "\n".join(lines) + "\n"
    (common.RESULTS / "scale_lda.md").write_text(text)
    print(text)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(measure(sys.argv[1])))
        sys.exit(0)
    main()
