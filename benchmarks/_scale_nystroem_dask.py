"""``scale.py --nystroem-dask``: KQMI(approximation='nystroem') on a 200,000 x 20 dask array versus
the same data in memory.

The data (10 classes, Gaussian classes around random means) are generated chunk by chunk from
per-chunk seeds, so the dask array is lazy (no chunk exists before a task needs it) and the
NumPy array is the same numbers concatenated. Both fits use 1000 landmarks, the same
``random_state`` and explicit ``gamma`` and ``reg``. Each side runs in a fresh process; peak
memory is measured with tracemalloc (NumPy allocations during fit; the NumPy input is made
before tracing starts) and, independently, as the growth of the resident set (ru_maxrss). Dask
runs on its threaded scheduler with one worker thread (the single-core comparison).

    .venv/bin/python benchmarks/scale.py --nystroem-dask   # writes benchmarks/results/scale_nystroem_dask.md

In a smoke run (``GRAPHDR_BENCH_QUICK=1``, set by ``scale.py --quick``): 5000 rows, 100
landmarks.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

#: a smoke run (read by the measuring processes too)
QUICK = os.environ.get("GRAPHDR_BENCH_QUICK") == "1"
N, D, C, CHUNK, M = (5_000, 20, 10, 500, 100) if QUICK else (200_000, 20, 10, 10_000, 1000)
PARAMS = dict(approximation="nystroem", n_landmarks=M, random_state=0, gamma=0.05, reg=1e-3)


def _block(b):
    rng = np.random.default_rng(1000 + b)
    means = np.random.default_rng(0).normal(scale=0.6, size=(C, D))
    yb = rng.integers(0, C, CHUNK)
    return rng.normal(size=(CHUNK, D)) + means[yb], yb


def labels():
    return np.concatenate([_block(b)[1] for b in range(N // CHUNK)])


def numpy_data():
    return np.vstack([_block(b)[0] for b in range(N // CHUNK)]), labels()


def dask_data():
    import dask
    import dask.array as da

    blocks = [da.from_delayed(dask.delayed(lambda b: _block(b)[0])(b), shape=(CHUNK, D),
                              dtype=np.float64) for b in range(N // CHUNK)]
    return da.concatenate(blocks, axis=0), labels()


def measure(which, folder):
    import resource

    import dask

    import graphdr

    X, y = dask_data() if which == "dask" else numpy_data()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with dask.config.set(scheduler="threads", num_workers=1):
        tracemalloc.start()
        t0 = time.perf_counter()
        est = graphdr.KQMI(**PARAMS).fit(X, y)
        seconds = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        Z = est.transform(X)
        lazy = type(Z).__module__.startswith("dask")
        Z = np.asarray(Z.compute() if lazy else Z)
        transform_seconds = time.perf_counter() - t0
    np.savez(os.path.join(folder, f"{which}.npz"), components=est.components_, Z=Z[:5000],
             landmarks=est.nystroem_.component_indices_)
    return dict(seconds=seconds, peak_mb=peak / 1e6, rss_growth_mb=(rss_after - rss_before) / 1e3,
                transform_seconds=transform_seconds, lazy_transform=lazy,
                input_mb=N * D * 8 / 1e6)


def _report():
    from scipy.linalg import subspace_angles

    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        for which in ("numpy", "dask"):
            out = subprocess.run([sys.executable, __file__, which, folder], capture_output=True,
                                 text=True, check=True)
            rows[which] = json.loads(out.stdout.strip().splitlines()[-1])
        a, b = (dict(np.load(os.path.join(folder, f"{w}.npz"))) for w in ("numpy", "dask"))
    angle = float(np.max(subspace_angles(a["components"].T, b["components"].T)))
    signs = np.sign(np.sum(a["Z"] * b["Z"], axis=0))
    zdiff = float(np.max(np.abs(a["Z"] * signs - b["Z"])) / np.max(np.abs(a["Z"])))
    print(f"KQMI(approximation='nystroem', n_landmarks={M}, gamma=0.05, reg=1e-3) fit on "
          f"{N} x {D} float64, {C} classes (input {rows['numpy']['input_mb']:.0f} MB; the "
          f"feature matrix would be {N * M * 8 / 1e6:.0f} MB), dask chunks of {CHUNK} rows\n")
    print("| input | fit seconds | peak traced MB during fit | max RSS growth MB | "
          "transform seconds (all rows) |")
    print("|---|---|---|---|---|")
    for which, label in (("numpy", "NumPy array (in memory)"),
                         ("dask", "dask array (lazy, 1 worker thread)")):
        r = rows[which]
        print(f"| {label} | {r['seconds']:.1f} | {r['peak_mb']:.0f} | {r['rss_growth_mb']:.0f} | "
              f"{r['transform_seconds']:.1f} |")
    print(f"\nfit time ratio dask/numpy: {rows['dask']['seconds'] / rows['numpy']['seconds']:.2f}; "
          f"peak memory ratio dask/numpy: {rows['dask']['peak_mb'] / rows['numpy']['peak_mb']:.3f}")
    print(f"same landmarks: {bool(np.array_equal(a['landmarks'], b['landmarks']))}; largest "
          f"principal angle between the components: {angle:.1e} rad; transform of the first "
          f"5000 rows, largest difference up to sign relative to the largest value: {zdiff:.1e}; "
          f"dask transform lazy: {rows['dask']['lazy_transform']}")


EXPLANATION = (
    "The in-memory fit forms the 200,000 x 1000 feature matrix (1.6 GB) and arrays of its size "
    "while reducing it to its span; the dask fit holds one chunk's features (10,000 x 1000, 80 "
    "MB) and 1000 x 1000 statistics at a time, and computes only the 1000 landmark rows before "
    "the pass (the lazily generated input is never held whole).")


def main():
    import contextlib
    import io
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import common

    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        _report()
    text = (f"Command: `{common.thread_variables()}.venv/bin/python benchmarks/scale.py --nystroem-dask` "
            f"({common.threads_label()}; compare the two rows of this run, not absolute "
            "seconds).\n\n" + captured.getvalue() + "\n" + EXPLANATION + "\n")
    (common.RESULTS / "scale_nystroem_dask.md").write_text(text)
    print(text)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(measure(sys.argv[1], sys.argv[2])))
        sys.exit(0)
    main()
