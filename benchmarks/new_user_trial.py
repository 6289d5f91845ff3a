"""The new-user trial and its sweep's findings, replayed: each friction the trial met,
rebuilt with files as users have them and run through the command line or the API as a user
would, and what happens now.

Each case writes its files under a temporary folder, runs ``graphdr`` (a process of its own,
as a user runs it) or the API, and checks the outcome the issue asked for: the input folder
byte for byte unchanged, one line on stderr and exit 2 for bad input, the id column taken as
ids, the empty label cell kept empty, and so on. Findings that need a browser, a killed worker
or a file growing during a run are checked by the tests named in the table (they are not
replayed here).

    .venv/bin/python benchmarks/new_user_trial.py [--only NAME,NAME] [--skip-dask] [--quick]

Writes ``benchmarks/results/new_user_trial.md`` (and ``.json``) after a full run (``--only``,
``--skip-dask`` and ``--quick``, two fast cases, write nothing); exit 1 if any case fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
GRAPHDR = str(Path(sys.executable).with_name("graphdr"))

#: findings checked by a test rather than replayed here: (finding, test)
BY_TESTS = [
    ("2: the Dask route's fit from the budget, never heavier than in memory",
     "tests/test_file_parts.py; measured in benchmarks/results/maps2d_scale_routes.md"),
    ("6: page search by part of a class name; clearing it resets the view",
     "tests/test_map_page.py::test_page_class_search_by_prefix_or_part_and_clearing_resets"
     "_the_view (Chromium)"),
    ("8: a Dask worker lost during the placement: one line",
     "tests/test_cli_map_parts.py::test_a_lost_worker_under_the_placement_is_one_line"),
    ("8: an input file growing or rewritten during a Dask-route run",
     "tests/test_file_parts.py::test_a_file_that_changes_after_it_was_read_is_named"),
    ("8: PoissonPropagation refit interrupted: the old model whole",
     "tests/test_propagation.py::test_an_interrupted_refit_leaves_the_earlier_model_whole"),
    ("8: bench rerun with formula-escaped names reuses its cells",
     "tests/test_outputs.py::test_bench_resumes_a_data_set_whose_name_looks_escaped"),
]


def run(args, cwd, timeout=600, env=None):
    """``graphdr args`` in ``cwd``: (exit code, stdout, stderr lines, seconds)."""
    start = time.perf_counter()
    proc = subprocess.run([GRAPHDR, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    return proc.returncode, proc.stdout, lines, time.perf_counter() - start


def digest(path):
    """A hash of every file under ``path`` (names and bytes)."""
    h = hashlib.sha256()
    for f in sorted(Path(path).rglob("*")) if Path(path).is_dir() else [Path(path)]:
        if f.is_file():
            h.update(str(f.relative_to(path) if Path(path).is_dir() else f.name).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def wine_frame(n_unlabelled=0, text_labels=False):
    import pandas as pd
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    names = np.array(["barolo", "grignolino", "barbera"])
    frame["label"] = names[y] if text_labels else y
    if n_unlabelled:
        rows = np.random.default_rng(0).permutation(len(frame))[:n_unlabelled]
        frame.loc[rows, "label"] = None if text_labels else -1
    return frame


def one_line(code, lines, must=()):
    ok = code == 2 and len(lines) == 1 and all(m.lower() in lines[0].lower() for m in must)
    return ok, f"exit {code}; " + (" | ".join(lines[:3]) if lines else "no message")


# ---- the cases -------------------------------------------------------------------------------
def case_folder_out(tmp):
    """0: `graphdr map cells.parquet/ --out cells` over a Spark-style folder, and --out inside."""
    folder = tmp / "cells.parquet"
    folder.mkdir()
    frame = wine_frame()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[part].to_parquet(folder / f"part-{i:05d}.snappy.parquet", index=False)
    (folder / "_SUCCESS").write_text("")
    before = digest(folder)
    results = []
    # in memory the table is cells.csv (allowed); on the Dask route it would be the folder
    # cells.parquet/ itself (refused), and anything inside the input folder is refused
    for out, extra, refused in (("cells", [], False), ("cells", ["--scheduler", "local"], True),
                                ("cells.parquet/m", [], True)):
        code, _, lines, took = run(["map", "cells.parquet", "--out", out, *extra], tmp)
        same = digest(folder) == before
        ok = same and ((code == 2 and len(lines) == 1 and took < 20) if refused else code == 0)
        results.append((ok, f"--out {out} {' '.join(extra)}: exit {code} after {took:.1f} s"
                            + (f", {lines[0]!r}" if refused and lines else "")
                            + f"; input unchanged: {same}"))
    return all(r[0] for r in results), " / ".join(r[1] for r in results)


def case_integer_id(tmp):
    """1: an int64 `pixel_id` column is the ids, not a 14th feature."""
    frame = wine_frame()
    frame.insert(0, "pixel_id", np.arange(10_000, 10_000 + len(frame), dtype=np.int64) * 7)
    frame.to_parquet(tmp / "pixels.parquet", index=False)
    code, _, lines, _ = run(["map", "pixels.parquet", "--out", "m", "--outputs", "table"], tmp)
    import pandas as pd

    out = pd.read_csv(tmp / "m.csv") if code == 0 else None
    ok = code == 0 and out is not None and "pixel_id" in out.columns and any(
        "pixel_id" in line for line in lines)
    return ok, (f"exit {code}; note: {next((x for x in lines if 'pixel_id' in x), 'none')}; "
                f"output columns {list(out.columns) if out is not None else None}")


def case_text_id_and_counter(tmp):
    """1: a text `Sample ID` column and an unnamed row counter are ids, never features."""
    frame = wine_frame()
    frame.insert(0, "Sample ID", [f"S{i:04d}" for i in range(len(frame))])
    frame.to_csv(tmp / "samples.csv", index=False)
    counter = wine_frame()
    counter.insert(0, "n", np.arange(1, len(counter) + 1))
    counter.to_csv(tmp / "counter.csv", index=False)
    a = run(["map", "samples.csv", "--out", "a", "--outputs", "table"], tmp)
    b = run(["map", "counter.csv", "--out", "b", "--outputs", "table"], tmp)
    note_b = next((x for x in b[2] if "'n'" in x or " n " in x or "counter" in x.lower()), None)
    ok = a[0] == 0 and b[0] == 0 and note_b is not None
    return ok, f"Sample ID: exit {a[0]}, {a[2][:1]}; counter: exit {b[0]}, note {note_b!r}"


def case_label_error_lists_text(tmp):
    """1: without a label column, the error shows the text column first."""
    frame = wine_frame(text_labels=True).rename(columns={"label": "cultivar"})
    for j in range(13, 40):
        frame[f"f{j}"] = frame["f0"] * j
    frame.to_csv(tmp / "nolabel.csv", index=False)
    code, _, lines, _ = run(["map", "nolabel.csv", "--out", "m"], tmp)
    return one_line(code, lines, must=("cultivar",))


def case_empty_label_kept(tmp):
    """4: an unlabelled row with text labels stays empty in the output, not -1."""
    import pandas as pd

    wine_frame(n_unlabelled=40, text_labels=True).to_csv(tmp / "partial.csv", index=False)
    code, _, lines, _ = run(["map", "partial.csv", "--out", "m", "--outputs", "table"], tmp)
    if code:
        return False, f"exit {code}: {lines[-1:]}"
    out = pd.read_csv(tmp / "m.csv", keep_default_na=False, dtype=str)
    empty = int((out["label"] == "").sum())
    minus = int((out["label"] == "-1").sum())
    columns = list(out.columns)
    return empty == 40 and minus == 0, (f"empty label cells {empty} of 40, '-1' cells {minus}; "
                                        f"columns {columns}")


def case_confidence_named(tmp):
    """3: the meaning of `confidence` on the page and in the docs of the table."""
    wine_frame(n_unlabelled=40).to_csv(tmp / "partial.csv", index=False)
    code, _, lines, _ = run(["map", "partial.csv", "--out", "m", "--outputs", "page,table"],
                            tmp)
    if code:
        return False, f"exit {code}: {lines[-1:]}"
    import pandas as pd

    page = (tmp / "m.html").read_text(encoding="utf-8")
    columns = list(pd.read_csv(tmp / "m.csv").columns)
    said = "confidence" in page and ("margin" in page or "probab" in page)
    return said and "confidence" in columns, f"table columns {columns}; page explains it: {said}"


def case_ctrl_c(tmp):
    """5: Ctrl-C during a map: one line, exit 130, the old output kept."""
    from sklearn.datasets import make_blobs

    X, y = make_blobs(60_000, 30, centers=8, cluster_std=6.0, random_state=0)
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["label"] = y
    frame.to_parquet(tmp / "big.parquet", index=False)
    (tmp / "m.csv").write_text("old map\n")
    proc = subprocess.Popen([GRAPHDR, "map", "big.parquet", "--out", "m"], cwd=tmp,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    time.sleep(8.0)
    os.killpg(proc.pid, signal.SIGINT)  # as the terminal sends it: to the whole group
    _, err = proc.communicate(timeout=120)
    lines = [x for x in err.splitlines() if x.strip() and "\r" not in x and "%|" not in x]
    kept = (tmp / "m.csv").read_text() == "old map\n"
    leftovers = [p.name for p in tmp.iterdir() if "scratch" in p.name or p.name.startswith(".m")]
    ok = proc.returncode == 130 and kept and not leftovers and not any(
        "Traceback" in x for x in lines)
    return ok, (f"exit {proc.returncode}; last line {lines[-1] if lines else None!r}; old map "
                f"kept {kept}; left behind {leftovers}; traceback lines "
                f"{sum('Traceback' in x for x in lines)}")


def case_color_png_pipe(tmp):
    """7: --color-column on a continuous column, --outputs png alone, `list | head`."""
    frame = wine_frame()
    frame["alcohol_pct"] = frame["f0"]  # continuous, and not a feature
    frame.to_csv(tmp / "wine.csv", index=False)
    a = run(["map", "wine.csv", "--out", "c", "--color-column", "alcohol_pct",
             "--outputs", "png"], tmp)
    files = sorted(p.name for p in tmp.glob("c.*"))
    pipe = subprocess.run(f"'{GRAPHDR}' list datasets | head -1", shell=True, cwd=tmp,
                          capture_output=True, text=True)
    ok = a[0] == 0 and files == ["c.png"] and "Traceback" not in pipe.stderr
    return ok, (f"--color-column exit {a[0]}, files {files}; `list datasets | head -1` "
                f"stderr {pipe.stderr.strip()[:80]!r}")


def case_bad_files(tmp):
    """8: a quoted decimal-comma cell, an empty .npz, a CSV named .parquet, a truncated
    Parquet file: one line naming the file or cell, exit 2."""
    frame = wine_frame()
    text = frame.to_csv(index=False).splitlines()
    cells = text[5].split(",")
    cells[1] = '"1,5"'
    text[5] = ",".join(cells)
    (tmp / "comma.csv").write_text("\n".join(text) + "\n")
    np.savez(tmp / "empty.npz", X=np.zeros((0, 4)), y=np.zeros(0))
    frame.to_csv(tmp / "fake.parquet", index=False)
    frame.to_parquet(tmp / "whole.parquet", index=False)
    data = (tmp / "whole.parquet").read_bytes()
    (tmp / "cut.parquet").write_bytes(data[: len(data) // 2])
    out, oks = [], []
    for name, must in (("comma.csv", ("comma.csv",)), ("empty.npz", ("empty.npz",)),
                       ("fake.parquet", ("fake.parquet",)), ("cut.parquet", ("cut.parquet",))):
        for command in ("map", "bench"):
            args = ["map", name, "--out", "m"] if command == "map" else [
                "bench", "-d", name, "-m", "lda", "--out", "b", "--quiet"]
            code, _, lines, _ = run(args, tmp)
            ok, said = one_line(code, lines, must)
            oks.append(ok)
            out.append(f"{command} {name}: {said}")
    return all(oks), " / ".join(out)


def case_bench_singleton(tmp):
    """8: bench on a class of one sample names the class."""
    frame = wine_frame()
    frame.loc[0, "label"] = 7
    frame.to_csv(tmp / "single.csv", index=False)
    code, _, lines, _ = run(["bench", "-d", "single.csv", "-m", "lda", "--out", "b", "--quiet"],
                            tmp)
    ok = code == 2 and len(lines) == 1 and "7" in lines[0] and "1 or less" not in lines[0]
    return ok, f"exit {code}; {lines[:2]}"


def case_api(tmp):
    """8: kernel_params without a kernel; a partially labelled Dask fit; map2d to a missing
    folder."""
    import dask.array as da
    from sklearn.datasets import load_wine

    import graphdr

    X, y = load_wine(return_X_y=True)
    said = []
    try:
        graphdr.GraphEmbedding(kernel_params={"bogus": 1}).fit(X, y)
        said.append("kernel_params accepted")
        ok1 = False
    except ValueError as e:
        ok1 = "kernel_params" in str(e)
        said.append(f"kernel_params: ValueError {str(e)[:70]!r}")
    yp = y.copy()
    yp[::4] = -1
    Xd = da.from_array(X, chunks=60)
    try:
        Z = graphdr.LDE().fit(Xd, yp).transform(X)
        Zm = graphdr.LDE().fit(X, yp).transform(X)
        ok2 = np.allclose(Z, Zm)
        said.append(f"Dask LDE with y=-1 equals in memory: {ok2}")
    except ValueError as e:
        ok2 = True
        said.append(f"Dask LDE with y=-1: ValueError {str(e)[:70]!r}")
    start = time.perf_counter()
    target = tmp / "missing" / "dir" / "m"
    try:
        graphdr.map2d(X, y, out=str(target))
        ok3 = target.with_suffix(".html").exists()
        said.append(f"map2d to a missing folder: written {ok3}")
    except (ValueError, OSError) as e:
        ok3 = "missing" in str(e) and str(tmp) not in str(e).replace(str(target.parent), "")
        said.append(f"map2d: {type(e).__name__} after {time.perf_counter() - start:.1f} s: "
                    f"{str(e)[:70]!r}")
    return ok1 and ok2 and ok3, "; ".join(said)


def case_mixed_label_files(tmp):
    """8: a Parquet folder with numeric labels in one file and text in another."""
    folder = tmp / "mixed"
    folder.mkdir()
    frame = wine_frame()
    a, b = frame.iloc[:90].copy(), frame.iloc[90:].copy()
    b["label"] = b["label"].map({0: "zero", 1: "one", 2: "two"})
    a.to_parquet(folder / "part-0.parquet", index=False)
    b.to_parquet(folder / "part-1.parquet", index=False)
    code, _, lines, _ = run(["map", "mixed", "--out", "m", "--outputs", "table"], tmp)
    note = next((x for x in lines if "text" in x.lower() and "label" in x.lower()), None)
    ok = code == 0 and note is not None and not any("Traceback" in x for x in lines)
    return ok, f"exit {code}; note {note!r}"


def case_worker_memory(tmp):
    """8: --worker-memory 1KB: refused at once, not a 10-minute stall."""
    wine_frame().to_parquet(tmp / "w.parquet", index=False)
    code, _, lines, took = run(["map", "w.parquet", "--out", "m", "--scheduler", "local",
                                "--worker-memory", "1KB"], tmp, timeout=120)
    ok, said = one_line(code, lines, must=("worker-memory",))
    return ok and took < 30, f"{said} after {took:.1f} s"


def case_dask_route(tmp):
    """3, 4, 5: the Dask route's table: the id keeps its name and int64 type, its vote on the
    map not called `confidence` (the in-memory propagation's margin), no scratch folder left
    behind."""
    import pandas as pd

    frame = wine_frame(n_unlabelled=40)
    frame.insert(0, "cell_id", np.arange(len(frame), dtype=np.int64) * 3 + 100)
    folder = tmp / "cells"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 2)):
        frame.iloc[part].to_parquet(folder / f"part-{i}.parquet", index=False)
    code, _, lines, took = run(["map", "cells", "--out", "m", "--scheduler", "local",
                                "--workers", "1", "--outputs", "table"], tmp, timeout=600)
    if code:
        return False, f"exit {code}: {lines[-2:]}"
    table = tmp / "m.parquet"
    out = pd.read_parquet(table) if table.exists() else pd.read_csv(tmp / "m.csv")
    scratch = [p.name for p in tmp.rglob("dask-scratch-space")]
    # the route cannot propagate as memory does: its columns say what they are instead
    named = "confidence" not in out.columns and {"map vote", "vote share"} <= set(out.columns)
    ok = "cell_id" in out.columns and out["cell_id"].dtype == np.int64 and not scratch and named
    return ok, (f"{took:.0f} s; columns {list(out.columns)}; id dtype "
                f"{out['cell_id'].dtype if 'cell_id' in out.columns else None}; scratch {scratch}")


def case_blas_kernel(tmp):
    """8: DEEMap with exact neighbours under another OpenBLAS kernel: the same bits."""
    script = tmp / "fit.py"
    script.write_text(
        "import sys, numpy as np\nfrom sklearn.datasets import load_digits\nimport graphdr\n"
        "X, y = load_digits(return_X_y=True)\n"
        "r = np.random.default_rng(0).permutation(len(X))\n"
        "m = graphdr.DEEMap(neighbors='exact').fit(X[r[:1200]], y[r[:1200]])\n"
        "np.save(sys.argv[1], np.vstack([m.embedding_, m.transform(X[r[1200:]])]))\n")
    got = {}
    for kernel in ("", "Prescott", "Sandybridge"):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        if kernel:
            env["OPENBLAS_CORETYPE"] = kernel
        subprocess.run([sys.executable, str(script), str(tmp / f"k{kernel}.npy")], env=env,
                       check=True, timeout=600)
        got[kernel or "default"] = np.load(tmp / f"k{kernel}.npy")
    diffs = {k: float(np.abs(v - got["default"]).max() / np.abs(got["default"]).max())
             for k, v in got.items() if k != "default"}
    return all(d == 0.0 for d in diffs.values()), f"largest relative difference {diffs}"


CASES = {
    "folder_out": ("0", case_folder_out),
    "integer_id": ("1", case_integer_id),
    "text_id_counter": ("1", case_text_id_and_counter),
    "label_error": ("1", case_label_error_lists_text),
    "confidence": ("3", case_confidence_named),
    "empty_label": ("4", case_empty_label_kept),
    "ctrl_c": ("5", case_ctrl_c),
    "color_png_pipe": ("7", case_color_png_pipe),
    "bad_files": ("8", case_bad_files),
    "bench_singleton": ("8", case_bench_singleton),
    "api": ("8", case_api),
    "mixed_labels": ("8", case_mixed_label_files),
    "worker_memory": ("8", case_worker_memory),
    "dask_route": ("3, 4, 5", case_dask_route),
    "blas_kernel": ("8", case_blas_kernel),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--quick", action="store_true", help="two fast cases, nothing written")
    args = parser.parse_args(argv)
    if args.quick:
        args.only = "label_error,api"
    names = [n for n in (args.only.split(",") if args.only else CASES)
             if not (args.skip_dask and n in ("dask_route", "worker_memory"))]
    rows = []
    for name in names:
        item, case = CASES[name]
        with tempfile.TemporaryDirectory(prefix=f"trial-{name}-") as tmp:
            start = time.perf_counter()
            try:
                ok, said = case(Path(tmp))
            except Exception as e:  # a case that crashes is a failed case, said so
                ok, said = False, f"{type(e).__name__}: {e}"
            took = time.perf_counter() - start
        rows.append(dict(case=name, item=item, ok=bool(ok), seconds=round(took, 1),
                         said=said))
        print(f"{'ok  ' if ok else 'FAIL'} {name:16s} ({took:5.1f} s) {said}", flush=True)
    if not (args.only or args.skip_dask):
        write(rows)
    return 0 if all(r["ok"] for r in rows) else 1


def write(rows):
    import graphdr

    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / "new_user_trial"
    info = dict(date=time.strftime("%Y-%m-%d"), graphdr=graphdr.__version__,
                machine=f"{platform.machine()}, {os.cpu_count()} cores, default threads",
                command="`.venv/bin/python benchmarks/new_user_trial.py`", rows=rows,
                by_tests=BY_TESTS)
    stem.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")
    n_ok = sum(r["ok"] for r in rows)
    lines = ["# The new-user trial, replayed", "",
             f"Headline: {n_ok} of {len(rows)} replayed frictions no longer occur"
             + ("" if n_ok == len(rows) else ": " + ", ".join(
                 r["case"] for r in rows if not r["ok"]) + " still do") + ".", "",
             f"Command: {info['command']} ({info['date']}, graphdr {info['graphdr']}).", "",
             f"Machine: {info['machine']}.", "",
             "Each case rebuilds one friction of the issue with files as users have them and "
             "runs the command line (a process of its own) or the API; the item is the "
             "issue's numbered finding.", "",
             "| item | case | result | seconds | what happened |", "|---|---|---|---:|---|"]
    for r in rows:
        said = r["said"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r['item']} | {r['case']} | {'ok' if r['ok'] else 'FAIL'} | "
                     f"{r['seconds']} | {said} |")
    lines += ["", "Checked by tests rather than replayed here:", ""]
    lines += [f"- {what}: {where}" for what, where in BY_TESTS]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
