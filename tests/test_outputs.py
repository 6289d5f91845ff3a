"""Nothing lost, nothing half-written: every file graphdr writes goes through
:mod:`graphdr._outputs` (a temporary file beside the target, renamed when complete), a map's
files appear all together or not at all, and no output ever replaces an input."""

import ast
import csv
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest
from conftest import send_ctrl_c_at

from graphdr import _outputs
from graphdr._outputs import (
    InterruptedAfterWriting,
    OutputSet,
    atomic_open,
    spreadsheet_safe,
)
from graphdr.cli import main

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "graphdr"


def run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err


def blobs_csv(path, labels=None, n=60):
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n, n_features=3, centers=3, cluster_std=0.5, random_state=0)
    names = np.array(["red", "green", "blue"] if labels is None else labels, dtype=object)[y]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "c", "label"])
        for row, lab in zip(np.round(X, 3), names):
            w.writerow([*row, lab])
    return str(path)


def snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(pathlib.Path(folder).iterdir())}


# ----- the helper -----------------------------------------------------------------------
def test_atomic_open_leaves_the_old_file_when_the_write_fails(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_open(target) as fh:
        fh.write("half")
        raise RuntimeError("disk full")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["a.txt"]
    with atomic_open(target) as fh:
        fh.write("new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["a.txt"]


def test_output_set_renames_all_or_none(tmp_path):
    a, b = tmp_path / "m.html", tmp_path / "m.csv"
    a.write_text("old html")
    b.write_text("old csv")
    with OutputSet() as out:  # interrupted after one of the two files
        out.path(a).write_text("new html")
        out.path(b)  # the csv's turn, never written
        with pytest.raises(RuntimeError):
            out.commit()
    assert (a.read_text(), b.read_text()) == ("old html", "old csv")
    assert sorted(os.listdir(tmp_path)) == ["m.csv", "m.html"]
    with OutputSet() as out:
        out.path(a).write_text("new html")
        out.path(b).write_text("new csv")
        out.commit()
    assert (a.read_text(), b.read_text()) == ("new html", "new csv")


def test_interrupt_during_the_renames_is_held_until_all_are_done(tmp_path, monkeypatch):
    files = [tmp_path / f"m.{k}" for k in ("html", "csv", "png")]
    real_replace = os.replace
    calls = []

    def replace_and_interrupt(src, dst):
        calls.append(dst)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after the first rename
        real_replace(src, dst)

    monkeypatch.setattr(_outputs.os, "replace", replace_and_interrupt)
    with OutputSet() as out:
        for f in files:
            out.path(f).write_text("new")
        with pytest.raises(InterruptedAfterWriting) as info:
            out.commit()
    assert all(f.read_text() == "new" for f in files)
    assert sorted(info.value.files) == sorted(map(str, files))
    assert sorted(os.listdir(tmp_path)) == ["m.csv", "m.html", "m.png"]


def tree(folder):
    """Every file below ``folder``: {relative path: bytes}."""
    folder = pathlib.Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_staged_folder_replaces_files_only_on_commit(tmp_path):
    """The run's files replace the folder's only at commit, subfolders merged file by file (a
    file of the user's stays), a stale list of failures goes, and in-progress is removed."""
    from graphdr._outputs import StagedFolder

    out = tmp_path / "out"
    (out / "exp").mkdir(parents=True)
    for name, text in [("report.md", "old report"), ("exp/results.csv", "old cells"),
                       ("exp/failures.txt", "old failure"), ("exp/mine.txt", "the user's"),
                       ("notes.txt", "the user's")]:
        (out / name).write_text(text)
    older = tree(out)
    with StagedFolder(out, what="test", command="graphdr test") as stage:
        assert stage.path == out / "in-progress" and not stage.resumed
        (stage.path / "exp").mkdir()
        (stage.work(out / "report.md")).write_text("new report")
        (stage.work(out / "exp" / "results.csv")).write_text("new cells")
        (stage.work(out / "exp" / "pic.png")).write_text("new picture")
        (stage.path / ".results.0123456789ab.part.csv").write_text("a killed writer's")
        assert {k: v for k, v in tree(out).items() if not k.startswith("in-progress")} == older
        stage.commit(stale=["exp/failures.txt"])
    assert tree(out) == {"exp/mine.txt": b"the user's", "exp/pic.png": b"new picture",
                         "exp/results.csv": b"new cells", "notes.txt": b"the user's",
                         "report.md": b"new report"}


def test_staged_folder_keeps_an_interrupted_run_for_the_next(tmp_path):
    """Ctrl-C: the folder as it was, the unfinished run kept and taken up by the next run
    (fresh or not, as it was started); --fresh discards it; a refusal removes what it made."""
    from graphdr._outputs import StagedFolder, unfinished_run

    out = tmp_path / "out"
    out.mkdir()
    (out / "results.csv").write_text("old")
    with pytest.raises(KeyboardInterrupt), StagedFolder(out, what="t", fresh=True) as stage:
        stage.work(out / "results.csv").write_text("half")
        raise KeyboardInterrupt
    assert (out / "results.csv").read_text() == "old"
    assert unfinished_run(out)["fresh"] is True
    with StagedFolder(out, what="t") as stage:  # taken up: still fresh, nothing of out's
        assert stage.resumed and stage.fresh
        assert stage.resume_folder(out, ["results.csv"]) == stage.path
        assert stage.resume_folder(out, ["other.csv"]) is None
    with StagedFolder(out, what="t", fresh=True) as stage:  # started over
        assert not stage.resumed and sorted(os.listdir(stage.path)) == ["unfinished.json"]
    shutil.rmtree(out / "in-progress")
    with StagedFolder(out, what="t") as stage:
        assert stage.resume_folder(out, ["results.csv"]) == out  # not fresh: out's cells
    shutil.rmtree(out / "in-progress")
    with pytest.raises(ValueError), StagedFolder(out, what="t"):
        raise ValueError("refused")
    assert sorted(os.listdir(out)) == ["results.csv"]
    with pytest.raises(KeyboardInterrupt), StagedFolder(out, what="t", keep=False):
        raise KeyboardInterrupt
    assert sorted(os.listdir(out)) == ["results.csv"]


def test_staged_folder_refuses_what_it_did_not_make(tmp_path):
    from graphdr._outputs import StagedFolder

    out = tmp_path / "out"
    (out / "in-progress").mkdir(parents=True)
    (out / "in-progress" / "mine.txt").write_text("the user's")
    for fresh in (False, True):
        with pytest.raises(ValueError, match="not a folder graphdr made"):
            StagedFolder(out, what="t", fresh=fresh).__enter__()
    assert tree(out) == {"in-progress/mine.txt": b"the user's"}
    shutil.rmtree(out / "in-progress")
    with pytest.raises(KeyboardInterrupt), StagedFolder(out, what="reproduce 000",
                                                        command="graphdr reproduce 000"):
        raise KeyboardInterrupt
    for fresh in (False, True):  # another command's unfinished run: neither taken nor lost
        with pytest.raises(ValueError, match="graphdr reproduce 000"):
            StagedFolder(out, what="bench", fresh=fresh).__enter__()
    assert sorted(tree(out)) == ["in-progress/unfinished.json"]


def test_ctrl_c_during_the_commit_is_held_until_every_file_is_moved(tmp_path, monkeypatch):
    from graphdr._outputs import StagedFolder

    out = tmp_path / "out"
    real_replace = os.replace
    calls = []

    def replace_and_interrupt(src, dst):
        calls.append(dst)
        if len(calls) == 3:  # after the folder's creation and the first move
            os.kill(os.getpid(), signal.SIGINT)
        real_replace(src, dst)

    monkeypatch.setattr(_outputs.os, "replace", replace_and_interrupt)
    with StagedFolder(out, what="t") as stage:
        for name in ("a", "b", "c"):
            stage.work(out / name).write_text("new")
        with pytest.raises(InterruptedAfterWriting) as info:
            stage.commit()
    assert info.value.files == [str(out)] and len(calls) == 4
    assert tree(out) == {"a": b"new", "b": b"new", "c": b"new"}


def test_spreadsheet_safe_rule():
    for text in ("=HYPERLINK(\"http://x\")", "@SUM(A1)", "+cmd", "-cmd|' /C calc'!A0", "=1+1",
                 "\tx"):
        assert spreadsheet_safe(text) == "'" + text
    for text in ("-1", "+2.5", "-1e-3", "cat", "", "a=b", "1.0"):
        assert spreadsheet_safe(text) == text


def test_spreadsheet_safe_reads_back_every_text():
    """Every text of up to five characters over the characters that matter comes back as it
    was, and none is written so that a spreadsheet reads a formula (a cell that begins with
    a formula character is a number or begins with the text marker ')."""
    import itertools

    from graphdr._outputs import from_spreadsheet_safe

    chars = ["'", "=", "-", "+", "@", "1", ".", "e", "a", "\t"]
    for k in range(6):
        for text in map("".join, itertools.product(chars, repeat=k)):
            written = spreadsheet_safe(text)
            assert from_spreadsheet_safe(written) == text, (text, written)
            if written[:1] in ("=", "+", "-", "@", "\t"):
                float(written)  # only a number may begin so
    assert spreadsheet_safe("'=x") == "''=x"  # the case that read back as '=x' before


def test_bench_resumes_a_data_set_whose_name_looks_escaped(tmp_path, capsys):
    """A file named '=odd.csv: its cells are found again on a rerun, not recomputed."""
    path = blobs_csv(tmp_path / "'=odd.csv")
    argv = ["bench", "--protocol", "demo", "-d", path, "-m", "lda", "--folds", "2", "--no-plots",
            "--no-html", "--no-timing", "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv) == 0
    assert "0 cell(s) to compute" in capsys.readouterr().err


def test_every_writer_uses_the_helper():
    """No module but _outputs opens a file for writing, and every savefig writes to a
    temporary path given by the helper (named ``tmp``)."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_outputs.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", "")
            where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
            if name == "open":
                modes = [a.value for a in node.args[1:2] + [k.value for k in node.keywords
                                                            if k.arg == "mode"]
                         if isinstance(a, ast.Constant)]
                if any(set(m) & set("wax+") for m in modes):
                    offenders.append(where)
            elif name in ("write_text", "write_bytes", "to_csv", "to_parquet", "savez",
                          "savez_compressed", "dump") and not (
                    name == "dump" and len(node.args) > 1 and isinstance(node.args[1], ast.Name)
                    and node.args[1].id == "fh"):
                offenders.append(where)
            elif name == "savefig":
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Name) and first.id == "tmp"):
                    offenders.append(where)
    assert not offenders, f"writes that bypass graphdr._outputs: {offenders}"


# ----- graphdr map ------------------------------------------------------------------------
@pytest.mark.parametrize("out", ["data", "data.csv", "data.html", "./data.png", "link"])
def test_map_never_overwrites_its_input(tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    blobs_csv(tmp_path / "data.csv")
    os.symlink("data.csv", tmp_path / "link.csv")
    before = (tmp_path / "data.csv").read_bytes()
    code, err = run(["map", "data.csv", "--out", out, "--quiet"], capsys)
    assert code == 2 and "overwrite the input file" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "data.csv").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["data.csv", "link.csv"]


def parquet_folder(folder, parts=2):
    """A Parquet dataset folder as Spark writes it (part files, a _SUCCESS marker)."""
    import pandas as pd

    folder.mkdir()
    for i in range(parts):
        rows = pathlib.Path(blobs_csv(folder.parent / f".p{i}.csv", n=30))
        pd.read_csv(rows).to_parquet(folder / f"part-{i:05d}.parquet")
        rows.unlink()
    (folder / "_SUCCESS").write_bytes(b"")
    return folder


def test_refuse_inputs_covers_files_folders_and_patterns(tmp_path):
    """Each shape of collision against what it must refuse and what it must let through."""
    from graphdr._outputs import refuse_inputs

    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("x\n")
    other = tmp_path / "other"
    other.mkdir()
    refused = [
        ([data / "a.csv"], [data / "a.csv"], "overwrite the input file"),
        ([data], [data], "replace the input folder"),
        ([data / "m.html"], [data], "inside the input folder"),
        ([data / "deeper" / "m.html"], [data], "inside the input folder"),
        ([tmp_path], [data / "a.csv"], "lies inside this output"),
        ([data / "map.csv"], [str(data / "*.csv")], "matches the input pattern"),
    ]
    for outputs, inputs, message in refused:
        with pytest.raises(ValueError, match=message):
            refuse_inputs(outputs, inputs)
    allowed = [
        ([other / "m.html"], [data]),
        ([data / "map.html"], [str(data / "*.csv")]),  # not read back by the pattern
        ([tmp_path / "data-map.csv"], [data / "a.csv"]),
        ([tmp_path / "datamap"], [data]),  # a name that only begins like the folder's
    ]
    for outputs, inputs in allowed:
        refuse_inputs(outputs, inputs)


@pytest.mark.parametrize("route", ["memory", "dask"])
@pytest.mark.parametrize("out", ["cells", "cells.parquet/m", "./cells.parquet/sub/m"])
def test_map_never_writes_over_or_inside_an_input_folder(tmp_path, capsys, monkeypatch, route,
                                                          out):
    """A Spark-style Parquet folder and the natural --out: refused before any work, the
    folder byte for byte as it was, nothing else written (the Dask route is refused before
    a cluster starts)."""
    monkeypatch.chdir(tmp_path)
    cells = parquet_folder(tmp_path / "cells.parquet")
    before = snapshot(cells)
    extra = ["--scheduler", "local"] if route == "dask" else []
    code, err = run(["map", "cells.parquet/", "--out", out, "--quiet", *extra], capsys)
    if out == "cells" and route == "memory":  # cells.html, cells.csv, cells.png: beside it
        assert code == 0 and snapshot(cells) == before
        return
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "input folder" in err and "cells.parquet" in err
    assert snapshot(cells) == before
    assert sorted(os.listdir(tmp_path)) == ["cells.parquet"]


def test_map_of_a_pattern_never_writes_what_the_pattern_reads(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "parts").mkdir()
    blobs_csv(tmp_path / "parts" / "a.csv")
    before = snapshot(tmp_path / "parts")
    code, err = run(["map", "parts/*.csv", "--out", "parts/map", "--quiet"], capsys)
    assert code == 2 and "matches the input pattern" in err
    assert snapshot(tmp_path / "parts") == before


@pytest.mark.parametrize("command", ["bench", "demo"])
def test_bench_and_demo_never_write_around_their_input(tmp_path, capsys, monkeypatch, command):
    """An --out folder that holds the input file, or lies inside an input folder, is refused
    before anything is read or written."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    blobs_csv(data / "blobs.csv")
    parquet_folder(tmp_path / "cells.parquet")
    before = snapshot(data), snapshot(tmp_path / "cells.parquet")
    flag = "--datasets" if command == "bench" else "--dataset"
    for source, out in [("data/blobs.csv", "data"), ("data/blobs.csv", "."),
                        ("cells.parquet", "cells.parquet/report")]:
        code, err = run([command, flag, source, "--out", out, "--quiet"], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "input" in err and "--out" in err
    assert (snapshot(data), snapshot(tmp_path / "cells.parquet")) == before
    assert sorted(os.listdir(tmp_path)) == ["cells.parquet", "data"]


@pytest.mark.parametrize("name,text", [("report.md", "# My notes\n"),
                                       ("results.csv", "name,score\nalice,3\n"),
                                       ("runs.json", '{"mine": 1}')])
def test_reproduce_never_replaces_a_file_it_did_not_write(tmp_path, capsys, name, text):
    out = tmp_path / "mine"
    out.mkdir()
    (out / name).write_text(text)
    code, err = run(["reproduce", "000", "--quick", "--out", str(out), "--quiet", "--fresh"],
                    capsys)
    assert code == 2 and name in err and "another --out" in err
    assert sorted(os.listdir(out)) == [name] and (out / name).read_text() == text


def test_interrupted_map_keeps_the_older_map_whole(tmp_path, capsys, monkeypatch):
    """Ctrl-C while the files are written: the older map at --out stays as it was, nothing
    half-written appears, and the message says so."""
    import importlib

    map2d_module = importlib.import_module("graphdr.maps.views.draw")  # graphdr.map2d's module
    data = blobs_csv(tmp_path / "data.csv")
    code, err = run(["map", data, "--out", str(tmp_path / "m"), "--quiet"], capsys)
    assert code == 0, err
    older = snapshot(tmp_path)

    def interrupted_png(*args, **kwargs):  # the page and the CSV are written by now
        raise KeyboardInterrupt

    monkeypatch.setattr(map2d_module, "_save_png", interrupted_png)
    code, err = run(["map", data, "--out", str(tmp_path / "m"), "--quiet", "--title", "new"],
                    capsys)
    assert code == 130 and "nothing was written" in err
    assert snapshot(tmp_path) == older


def test_map_of_a_label_matplotlib_cannot_parse(tmp_path, capsys):
    """A class name with dollar signs is drawn as written; the map is written whole."""
    data = blobs_csv(tmp_path / "data.csv", labels=["$\\notacommand{x$", "a$b", "=1+1"])
    code, err = run(["map", data, "--out", str(tmp_path / "m"), "--quiet"], capsys)
    assert code == 0, err
    assert sorted(os.listdir(tmp_path)) == ["data.csv", "m.csv", "m.html", "m.png"]
    labels = {r["label"] for r in csv.DictReader(open(tmp_path / "m.csv"))}
    assert labels == {"$\\notacommand{x$", "a$b", "'=1+1"}  # the formula made harmless
    page = (tmp_path / "m.html").read_text()
    assert '"=1+1"' in page  # the page shows the label as given


@pytest.mark.slow
def test_ctrl_c_at_any_moment_leaves_an_old_or_a_new_map(tmp_path):
    """The issue's reproducer, with real SIGINTs at several moments of a run."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    cmd = [sys.executable, "-m", "graphdr.cli", "map", "swiss_roll:n=6000", "--out", "m",
           "--quiet"]
    first = subprocess.run(cmd[:4] + ["swiss_roll:n=300"] + cmd[5:], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    older = snapshot(tmp_path)
    saw_interrupt = False
    for delay in (2.0, 4.0, 6.0, 8.0, 10.0):
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=120)[1]
        now = snapshot(tmp_path)
        assert sorted(now) == ["m.csv", "m.html", "m.png"], now.keys()
        if now == older:
            assert proc.returncode == 130 and "nothing was written" in err, err
            saw_interrupt = True
        else:  # all three are the new map's
            rows = now["m.csv"].decode().splitlines()
            assert len(rows) == 6001 and b"6000 samples" in now["m.html"]
            assert now["m.png"] != older["m.png"]
            break
    assert saw_interrupt


def test_python_m_answers_130_to_an_interrupt_that_went_through_exec(tmp_path):
    """A Ctrl-C that passed through an ``exec`` of source text (a dataclass built during a late
    import) and that the command answered: ``python -m graphdr.cli`` exits 130 with its one
    line, where CPython's record of the interrupt made it end by SIGINT after them."""
    (tmp_path / "entry.py").write_text(
        "import runpy, sys\n"
        "import graphdr.cli.command as command\n"
        "def interrupted(args):\n"
        "    exec('raise KeyboardInterrupt')\n"
        "command.run_map = interrupted\n"
        "sys.argv = ['graphdr', 'map', 'swiss_roll:n=50', '--out', 'm']\n"
        "runpy.run_module('graphdr.cli', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-m", "entry"], cwd=tmp_path, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONWARNINGS="ignore"), timeout=120)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.strip() == ("graphdr map: interrupted; nothing was written (an earlier "
                                   "map at --out is as it was).")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.py"]


def test_a_ctrl_c_while_python_closes_keeps_the_commands_status(tmp_path):
    """A Ctrl-C after the command answered, while Python closes (it has restored SIGINT's
    default action by then): the status is still the command's, not an end by SIGINT (a shell
    shows 130 for both, and a finished run would look interrupted). The signal comes from an
    object that Python collects as it clears its modules, after the signal handlers are gone."""
    (tmp_path / "entry.py").write_text(
        "import os, runpy, signal, sys\n"
        "class Late:\n"
        "    def __del__(self):\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.modules['late_ctrl_c'] = Late()\n"
        "sys.argv = ['graphdr', 'list', 'datasets']\n"
        "runpy.run_module('graphdr.cli', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-m", "entry"], cwd=tmp_path, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONWARNINGS="ignore"), timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert "wine" in proc.stdout


# ----- graphdr bench ----------------------------------------------------------------------
BENCH = ["bench", "--protocol", "demo", "-d", "iris", "-m", "lda", "--folds", "2", "--quiet",
         "--no-plots", "--no-html", "--no-timing"]


def test_fresh_never_replaces_a_file_graphdr_did_not_write(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.csv").write_text("name,score\nalice,3\n")
    for extra in ([], ["--fresh"]):
        code, err = run(BENCH + ["--out", str(out)] + extra, capsys)
        assert code == 2 and "not a graphdr results file" in err and "another --out" in err
        assert (out / "results.csv").read_text() == "name,score\nalice,3\n"
    (out / "results.csv").unlink()
    (out / "config.json").write_text('{"my": "settings"}')
    code, err = run(BENCH + ["--out", str(out), "--fresh"], capsys)
    assert code == 2 and "config.json" in err
    assert (out / "config.json").read_text() == '{"my": "settings"}'


def test_bench_results_are_whole_after_every_cell_and_resume(tmp_path, capsys, monkeypatch):
    """An interrupt between cells leaves in-progress/results.csv with every finished cell (no
    broken line) and nothing at --out, and the rerun computes only the missing ones."""
    import graphdr.bench.runner as runner

    bench = [a if a != "2" else "4" for a in BENCH]  # four folds: four cells
    out = str(tmp_path / "out")
    real = runner.write_results
    calls = []

    def write_then_interrupt(path, rows, timing=True):
        real(path, rows, timing)
        calls.append(len(rows))
        if len(calls) == 3:  # the start's write, then two cells
            raise KeyboardInterrupt

    monkeypatch.setattr(runner, "write_results", write_then_interrupt)
    code, err = run(bench + ["--out", out], capsys)
    assert code == 130 and err.rstrip().endswith(f"To go on from them, run: graphdr "
                                                 f"{' '.join(bench)} --out {out}"), err
    monkeypatch.setattr(runner, "write_results", real)
    from graphdr.bench.report import read_results

    assert os.listdir(out) == ["in-progress"]
    kept = read_results(os.path.join(out, "in-progress", "results.csv"))
    assert len(kept) == calls[-1] > 0
    text = open(os.path.join(out, "in-progress", "results.csv")).read()
    code, err = main(bench + ["--out", out]), capsys.readouterr().err
    assert code == 0, err
    full = read_results(os.path.join(out, "results.csv"))
    fresh_out = str(tmp_path / "fresh")
    assert main(bench + ["--out", fresh_out]) == 0
    assert open(os.path.join(out, "results.csv")).read() == \
        open(os.path.join(fresh_out, "results.csv")).read()
    assert len(full) > len(kept) and text.startswith("dataset,method")
    assert sorted(os.listdir(out)) == ["config.json", "results.csv", "tables.md"]


def resume_command(err):
    """The command an interrupt's message gives to go on (argv without 'graphdr'), or None."""
    import shlex

    said = err.strip().rsplit(": graphdr ", 1)
    return shlex.split(said[1]) if len(said) == 2 and "To go on" in said[0] else None


def counted_cells(monkeypatch):
    """The cells a run computes (their (data set, method, fold)), as it computes them."""
    import graphdr.bench.runner as runner

    cells, real = [], runner.run_cell

    def run_cell(task):
        cells.append((task["dataset"], task["method"], task["fold"]))
        return real(task)

    monkeypatch.setattr(runner, "run_cell", run_cell)
    return cells


def earlier_output(main_argv, out, config_files):
    """A run with --seed 1 whose settings files are then made to say seed 0: cells another
    run must not take for its own (a run that reused them would give other numbers)."""
    assert main(main_argv + ["--seed", "1"]) == 0
    for path in config_files:
        text = path.read_text()
        assert '"seed": 1' in text
        path.write_text(text.replace('"seed": 1', '"seed": 0'))
    return tree(out)


@pytest.mark.parametrize("moment", [5, 11] + [pytest.param(m, marks=pytest.mark.slow)
                                               for m in (1, 2, 9)])  # 1.5 s each
def test_ctrl_c_during_bench_fresh_leaves_the_earlier_results_whole(tmp_path, capsys,
                                                                     monkeypatch, moment):
    """``graphdr bench --fresh`` over an earlier output, Ctrl-C at several moments: the
    earlier files byte for byte as they were (or the new ones, all of them, once they are
    written), the message names the command that goes on (without --fresh), and that command
    computes only the cells the interrupted run had not, never reusing the earlier run's."""
    from graphdr.bench.report import read_results

    bench = [a if a != "2" else "3" for a in BENCH if a != "--no-html"]  # three cells
    out, reference = tmp_path / "out", tmp_path / "reference"
    assert main(bench + ["--out", str(reference)]) == 0
    older = earlier_output(bench + ["--out", str(out)], out, [out / "config.json"])
    assert older["results.csv"] != tree(reference)["results.csv"]
    capsys.readouterr()
    argv = bench + ["--out", str(out), "--fresh"]
    restore = send_ctrl_c_at(monkeypatch, moment)
    code, err = run(argv, capsys)
    restore()
    now = tree(out)
    assert code == 130, err
    if "interrupted after writing" in err:  # Ctrl-C held while the files were renamed
        assert sorted(now) == sorted(older) and now["results.csv"] == \
            tree(reference)["results.csv"] and now["tables.md"] != older["tables.md"]
        return
    assert {k: v for k, v in now.items() if not k.startswith("in-progress/")} == older, err
    again = resume_command(err)
    if again is None:  # stopped before the run had its in-progress folder
        assert f"nothing in {out} was replaced." in err and now == older
        return
    assert again == argv[:-1] and "(without --fresh, which starts over)" in err
    kept = os.path.join(out, "in-progress", "results.csv")
    finished = {(r["dataset"], r["method"], r["fold"])
                for r in (read_results(kept) if os.path.exists(kept) else [])}
    computed = counted_cells(monkeypatch)
    code, err = run(again, capsys)
    assert code == 0, err
    assert len(computed) == 3 - len(finished) and not finished & set(computed)
    now = tree(out)
    assert sorted(now) == sorted(older) and now["results.csv"] == tree(reference)["results.csv"]


@pytest.fixture
def tiny_demo(monkeypatch):
    """``graphdr demo`` made small: LDA and PCA, one sub-report, a stand-in for the maps."""
    import graphdr.bench.maps as maps
    import graphdr.cli.demo as demo
    from graphdr.bench.protocols import PROTOCOLS

    monkeypatch.setitem(PROTOCOLS, "demo", PROTOCOLS["demo"].replace(methods=("lda", "pca")))
    monkeypatch.setattr(demo, "DEMO_PAPERS", (("qmi", "one method", None, ("lda",)),))

    def maps_report(out, X, y, **kwargs):
        os.makedirs(out, exist_ok=True)
        with atomic_open(os.path.join(out, "index.html")) as fh:
            fh.write(f"<p>{len(y)} digits</p>")

    monkeypatch.setattr(maps, "write_maps_report", maps_report)
    return ["demo", "--dataset", "iris", "--folds", "2", "--quiet", "--no-timing"]


# the tiny demo renames 36 files and folders into place: its in-progress folder (1), the main
# report's (2-12), the sub-report's (13-21), the maps' page and the main page again (22-23),
# then the 13 files into --out (24-36)
@pytest.mark.parametrize("moment", [17] + [pytest.param(m, marks=pytest.mark.slow)
                                           for m in (2, 28)])  # 2-3 s each
def test_ctrl_c_during_demo_leaves_the_earlier_report_whole(tmp_path, capsys, monkeypatch,
                                                            tiny_demo, moment):
    """The demo always starts over: Ctrl-C leaves the earlier report byte for byte and no
    in-progress folder (or the new report whole, once its files are written)."""
    out = tmp_path / "demo"
    assert main(tiny_demo + ["--seed", "1", "--out", str(out)]) == 0
    older = tree(out)
    assert {"results.csv", "index.html", "maps/index.html", "qmi/results.csv"} <= set(older)
    capsys.readouterr()
    restore = send_ctrl_c_at(monkeypatch, moment)
    code, err = run(tiny_demo + ["--out", str(out)], capsys)
    restore()
    now = tree(out)
    assert code == 130, err
    if "interrupted after writing" in err:
        assert sorted(now) == sorted(older) and now["results.csv"] != older["results.csv"]
        assert 'href="qmi/index.html"' in now["index.html"].decode()
        return
    assert now == older and err.strip().endswith(
        f"interrupted; nothing in {out} was replaced (the demo starts over when run again).")


def test_bench_rerun_names_the_settings_that_differ(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert main(BENCH + ["--out", out]) == 0
    capsys.readouterr()
    code, err = run(BENCH + ["--out", out, "--seed", "3"], capsys)
    line = err.strip()
    assert code == 2 and "seed 0 before, 3 now" in line and "{" not in line, line


def test_results_csv_quotes_formulas_and_reads_them_back(tmp_path):
    from graphdr.bench.report import read_results, write_results

    row = dict(dataset="=cmd()", method="lda", classifier="1nn", fold=0, dim=1, n_test=10,
               n_errors=1, error=0.1, fit_seconds=0.5)
    path = str(tmp_path / "results.csv")
    write_results(path, [row])
    assert "\n'=cmd(),lda," in open(path).read()
    assert read_results(path)[0]["dataset"] == "=cmd()"


def test_map2d_creates_missing_folders_and_names_an_unwritable_one_before_the_fit(
        tmp_path, monkeypatch):
    from graphdr import DEEMap, map2d

    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.repeat([0, 1, 2], 20)
    X[:, 0] += 4 * y
    map2d(X, y, out=tmp_path / "missing" / "dir" / "m")
    assert sorted(os.listdir(tmp_path / "missing" / "dir")) == ["m.csv", "m.html", "m.png"]
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")

    def no_fit(*args, **kwargs):
        raise AssertionError("the fit started before the folder was checked")

    monkeypatch.setattr(DEEMap, "fit", no_fit)
    with pytest.raises(ValueError, match="file"):
        map2d(X, y, out=blocked / "m")


@pytest.mark.slow  # six fresh interpreters, 12 s: in `make test-slow`
def test_graphdr_map2d_stays_the_function_whatever_is_imported_first():
    """``graphdr`` imports its names when first used: the function ``graphdr.map2d`` is the
    one of its module ``graphdr.maps.views.draw`` whatever is imported first (a fresh process for
    each order), and no module takes its name (``import graphdr.map2d`` finds none)."""
    out = subprocess.run([sys.executable, "-c", "import graphdr.map2d"], capture_output=True,
                         text=True)
    assert out.returncode == 1 and "No module named 'graphdr.map2d'" in out.stderr, out.stderr
    for first in ("import graphdr.cli.map_command", "import graphdr.cli.map_command, graphdr",
                  "from graphdr import map2d", "import graphdr.maps.views.draw",
                  "from graphdr.maps import map2d"):
        code = (f"{first}\nimport sys, types\nfrom graphdr import map2d\nimport graphdr\n"
                "assert callable(map2d) and callable(graphdr.map2d), map2d\n"
                "assert isinstance(sys.modules['graphdr.maps.views.draw'], types.ModuleType)\n"
                "assert map2d is sys.modules['graphdr.maps.views.draw'].map2d\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.returncode == 0, (first, out.stderr[-2000:])


class _Dropped:
    """An object whose ``__del__`` raises KeyboardInterrupt: Python can only report it."""

    def __del__(self):
        raise KeyboardInterrupt


@pytest.fixture
def command_interrupts(monkeypatch):
    """The command line's handling of Ctrl-C installed (SIGINT's handler and the hook of
    dropped interrupts), as ``graphdr`` does, and restored after."""
    previous = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    _outputs.keep_lost_interrupts()
    _outputs.count_interrupts()
    yield
    signal.signal(signal.SIGINT, previous)
    _outputs.LOST_INTERRUPTS.clear()


def _spin(seconds):
    """Ordinary Python code for ``seconds`` (a repeated interrupt is raised here)."""
    import time

    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        sum(range(1000))
    return time.perf_counter() - start


def test_a_dropped_ctrl_c_is_raised_again_at_once(command_interrupts):
    """A Ctrl-C that Python drops (raised in a ``__del__``) is raised again in the main thread
    within moments, once, by the command's handler: a run does not go on for minutes to stop
    only before it writes (a map on a Dask cluster once ran on past the test's two minutes)."""
    import time

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        _Dropped()
        _spin(20)
    assert time.perf_counter() - start < 2
    assert _outputs.INTERRUPTS == [signal.SIGINT]
    assert _outputs.LOST_INTERRUPTS  # kept until the command answers
    _outputs.interrupt_answered()  # as the command does with its one line
    _outputs.raise_lost_interrupt()  # answered: nothing left to raise
    assert _spin(0.3) >= 0.3


def test_a_dropped_ctrl_c_raised_before_its_repeat_is_raised_once(command_interrupts,
                                                                   monkeypatch):
    """When the record of a dropped Ctrl-C is raised (before a file is renamed into place)
    while its repeat is on its way to the main thread, the repeat is ignored: one interrupt,
    not two; and a dropped Ctrl-C inside :func:`held_interrupts` is raised once, after the
    block."""
    import threading
    import time
    import types

    go = threading.Event()
    module = _outputs._thread
    real = module.interrupt_main

    def late(signum):
        go.wait(10)
        real(signum)

    monkeypatch.setattr(_outputs, "_thread", types.SimpleNamespace(interrupt_main=late))
    sent = _outputs._REPEATS["sent"]
    _Dropped()
    start = time.perf_counter()
    while _outputs._REPEATS["sent"] == sent and time.perf_counter() - start < 10:
        time.sleep(0.01)
    assert _outputs._REPEATS["sent"] == sent + 1  # the repeat is on its way
    with pytest.raises(KeyboardInterrupt):
        _outputs.raise_lost_interrupt()
    go.set()
    assert _spin(0.5) >= 0.5  # the repeat came and was ignored
    assert _outputs._REPEATS["taken"] == sent + 1 and _outputs.INTERRUPTS == []
    monkeypatch.setattr(_outputs, "_thread", module)
    with pytest.raises(KeyboardInterrupt):
        with _outputs.held_interrupts():
            _Dropped()
            assert _spin(0.5) >= 0.5  # held: the repeat is recorded, not raised
    _outputs.interrupt_answered()
    assert _spin(0.3) >= 0.3  # once


def test_a_ctrl_c_that_python_drops_still_stops_the_map(tmp_path, capsys, monkeypatch):
    """A KeyboardInterrupt raised where Python can only report it (a weakref callback of the
    import machinery, as Ctrl-C during a lazy import once did, or a ``__del__``) is lost to the
    code that runs; ``graphdr map`` still ends with exit 130, one line, and no file written."""
    import graphdr.maps.views.draw as draw

    monkeypatch.chdir(tmp_path)
    blobs_csv(tmp_path / "data.csv")
    (tmp_path / "m.html").write_text("the earlier map")
    real = draw.write_map

    def lossy(*args, **kwargs):
        _Dropped()  # reported through sys.unraisablehook: the interrupt goes nowhere
        return real(*args, **kwargs)

    monkeypatch.setattr(draw, "write_map", lossy)
    code, err = run(["map", "data.csv", "--out", "m", "--quiet"], capsys)
    assert code == 130
    assert err.strip().splitlines() == [
        "graphdr map: interrupted; nothing was written (an earlier map at --out is as it was)."]
    assert (tmp_path / "m.html").read_text() == "the earlier map"
    assert sorted(os.listdir(tmp_path)) == ["data.csv", "m.html"]
    assert not _outputs.LOST_INTERRUPTS
