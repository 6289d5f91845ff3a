"""graphdr.LDA versus scikit-learn's eigen solver on 200,000 x 100 with 10 classes.

Peak memory is measured with tracemalloc (every NumPy allocation made during fit, not counting
the input) and, independently, as the resident-set growth of a fresh process.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/lda_scale.py
"""

import json
import subprocess
import sys
import time
import tracemalloc

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
    if which == "graphdr":
        import graphdr

        est = graphdr.LDA(reg=0.0)  # classical LDA, as scikit-learn's eigen solver
    else:
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        est = LinearDiscriminantAnalysis(solver="eigen")
    tracemalloc.start()
    t0 = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return dict(seconds=seconds, peak_mb=peak / 1e6, rss_growth_mb=(rss_after - rss_before) / 1e3,
                input_mb=X.nbytes / 1e6)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(measure(sys.argv[1])))
        sys.exit(0)
    rows = {}
    for which in ("graphdr", "sklearn"):
        out = subprocess.run([sys.executable, __file__, which], capture_output=True, text=True, check=True)
        rows[which] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"LDA fit on {N} x {D} float64, {C} classes (input {rows['graphdr']['input_mb']:.0f} MB)\n")
    print("| implementation | fit seconds | peak traced MB during fit | max RSS growth MB |")
    print("|---|---|---|---|")
    for which, label in (("graphdr", "graphdr.LDA(reg=0)"), ("sklearn", "sklearn LDA(solver='eigen')")):
        r = rows[which]
        print(f"| {label} | {r['seconds']:.2f} | {r['peak_mb']:.1f} | {r['rss_growth_mb']:.1f} |")
    print(f"\ntime ratio graphdr/sklearn: {rows['graphdr']['seconds'] / rows['sklearn']['seconds']:.2f}")
