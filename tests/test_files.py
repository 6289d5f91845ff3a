"""Reading the files users have (graphdr.io.files) and the command line's answers to bad
input: one line on stderr naming the file, line or column, exit code 2, no traceback, before
any fit."""

import csv
import os
import zipfile

import numpy as np
import pytest

from graphdr.bench.datasets import load_dataset
from graphdr.cli import main
from graphdr.io.files import ReadOptions, check_writable

ROWS = [(1.5, 2.0, "x"), (3.5, 4.0, "y"), (5.0, 6.5, "x"), (7.0, 8.0, "y"), (9.0, 1.0, "x"),
        (2.0, 3.0, "y")]


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


def expected():
    X = np.array([r[:2] for r in ROWS])
    y = np.array([r[2] for r in ROWS])
    return X, y


def check(ds, X=None, y=None):
    X0, y0 = expected()
    X = X0 if X is None else X
    y = y0 if y is None else y
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.classes[ds.y], y)


def test_excel_csv_with_bom(tmp_path):
    text = "class,a,b\r\n" + "".join(f"{c},{a},{b}\r\n" for a, b, c in ROWS)
    ds = load_dataset(write(tmp_path / "excel.csv", "\ufeff" + text))
    check(ds)


def test_semicolon_decimal_comma_and_id_column(tmp_path):
    text = "id;a;b;label\n" + "".join(
        f"{100 + i};{str(a).replace('.', ',')};{str(b).replace('.', ',')};{c}\n"
        for i, (a, b, c) in enumerate(ROWS))
    ds = load_dataset(write(tmp_path / "semi.csv", text))
    check(ds)  # the id column is not a feature
    assert list(ds.ids) == [str(100 + i) for i in range(len(ROWS))]
    assert any("'id' taken as the sample ids" in n for n in ds.notes)
    # kept as a feature when asked
    kept = load_dataset(str(tmp_path / "semi.csv"), options=ReadOptions(id_column=False))
    assert kept.X.shape == (len(ROWS), 3) and kept.ids is None


def test_tab_separated_quoted_fields(tmp_path):
    text = "a\tb\tlabel\n" + "".join(f'{a}\t{b}\t"{c}"\n' for a, b, c in ROWS)
    check(load_dataset(write(tmp_path / "t.tsv", text)))
    text = 'a,b,label\n' + "".join(f'"{a}",{b},"{c}, with comma"\n' for a, b, c in ROWS)
    ds = load_dataset(write(tmp_path / "q.csv", text))
    check(ds, y=np.array([f"{c}, with comma" for *_, c in ROWS]))


def test_headerless_file_keeps_its_first_sample(tmp_path):
    text = "".join(f"{a},{b},{c}\n" for a, b, c in ROWS)
    ds = load_dataset(write(tmp_path / "nohead.csv", text))
    check(ds)
    assert any("no header" in n for n in ds.notes)
    # numeric labels without a header: the label column must be named, by index (negative too)
    text = "".join(f"{a},{b},{i % 2}\n" for i, (a, b, _) in enumerate(ROWS))
    path = write(tmp_path / "nohead_num.csv", text)
    with pytest.raises(ValueError, match="--label-column"):
        load_dataset(path)
    ds = load_dataset(path, options=ReadOptions(label_column=-1))
    np.testing.assert_array_equal(ds.X, expected()[0])
    assert ds.classes.dtype.kind == "i"
    ds0 = load_dataset(path, options=ReadOptions(label_column="2", header=False))
    np.testing.assert_array_equal(ds0.y, ds.y)


def test_label_column_by_name_index_and_errors(tmp_path):
    text = "f1,species,f2\n" + "".join(f"{a},{c},{b}\n" for a, b, c in ROWS)
    path = write(tmp_path / "s.csv", text)
    with pytest.raises(ValueError, match=r"s\.csv: say which column holds the labels"):
        load_dataset(path)
    check(load_dataset(path, options=ReadOptions(label_column="species")))
    check(load_dataset(path, options=ReadOptions(label_column=1)))
    check(load_dataset(path, options=ReadOptions(label_column=-2)))
    with pytest.raises(ValueError, match="out of range; the file has 3 columns"):
        load_dataset(path, options=ReadOptions(label_column=5))
    with pytest.raises(ValueError, match="no label column 'kind'"):
        load_dataset(path, options=ReadOptions(label_column="kind"))
    ds = load_dataset(path, options=ReadOptions(label_column="species", drop_columns=("f2",)))
    np.testing.assert_array_equal(ds.X, expected()[0][:, :1])


def test_missing_cells_named_or_dropped(tmp_path):
    text = "a,b,label\n1,,x\n3,NA,y\n5,6,x\n7,8,y\n9,1,x\n2,3,y\n"
    path = write(tmp_path / "na.csv", text)
    with pytest.raises(ValueError, match=r"na\.csv: missing cells in column\(s\) b on line\(s\) "
                                         r"2, 3; .*--na drop"):
        load_dataset(path)
    ds = load_dataset(path, options=ReadOptions(na="drop"))
    assert ds.X.shape == (4, 2) and any("dropped 2 row(s)" in n for n in ds.notes)


def test_text_feature_column_named_or_one_hot(tmp_path):
    text = "a,colour,label\n" + "".join(
        f"{a},{'red' if i % 3 else 'blue'},{c}\n" for i, (a, _, c) in enumerate(ROWS))
    path = write(tmp_path / "t.csv", text)
    with pytest.raises(ValueError, match=r"column 'colour' is not numeric \(line 2: 'blue'\)"):
        load_dataset(path)
    ds = load_dataset(path, options=ReadOptions(categorical="onehot"))
    assert ds.feature_names == ["a", "colour=blue", "colour=red"]
    np.testing.assert_array_equal(ds.X[:, 1] + ds.X[:, 2], 1.0)
    np.testing.assert_array_equal(ds.X[:, 1], [i % 3 == 0 for i in range(len(ROWS))])


@pytest.mark.parametrize("text, message", [
    ("a,b,label\n1,2,x\n3,4\n5,6,x\n", r"line 3 has 2 fields, the header has 3"),
    ("a,b,label\n1,2,x\n3,4,y,9\n5,6,x\n", r"line 3 has 4 fields, the header has 3"),
    ("a,b,label\n", r"header but no data rows"),
    ("\n\n", r"no data"),
    ("a,a,label\n1,2,x\n3,4,y\n", r"repeated column names a"),
])
def test_malformed_tables(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load_dataset(write(tmp_path / "bad.csv", text))


def test_encodings(tmp_path):
    text = "a,b,label\n1,2,caf\u00e9\n3,4,th\u00e9\n5,6,caf\u00e9\n"
    path = write(tmp_path / "latin.csv", text, encoding="latin-1")
    with pytest.raises(ValueError, match=r"latin\.csv: line 2 is not valid utf-8 text .*"
                                         r"--encoding latin-1"):
        load_dataset(path)
    ds = load_dataset(path, options=ReadOptions(encoding="latin-1"))
    assert sorted(ds.classes) == ["caf\u00e9", "th\u00e9"]
    with pytest.raises(ValueError, match="not a text file"):
        load_dataset(write(tmp_path / "bin.csv", b"PK\x03\x04\x00\x00binary"))


def test_libsvm_sparse_used_features_and_integer_labels(tmp_path):
    path = write(tmp_path / "d.svm", "1 2000000000:1.0\n2 1:3\n1 1:2 5:1\n7 5:1\n")
    ds = load_dataset(path)
    assert ds.X.shape == (4, 3)  # features 1, 5 and 2000000000: not two billion columns
    assert ds.feature_names == ["1", "5", "2000000000"]
    np.testing.assert_array_equal(ds.X, [[0, 0, 1], [3, 0, 0], [2, 1, 0], [0, 1, 0]])
    assert ds.classes.dtype.kind == "i" and list(ds.classes) == [1, 2, 7]
    with pytest.raises(ValueError, match=r"d2\.svm: not a valid LIBSVM"):
        load_dataset(write(tmp_path / "d2.svm", "1 1:2\n2 x:3\n"))


def test_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    X, y = expected()
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "label": y, "id": np.arange(len(y)) + 7})
    frame.to_parquet(tmp_path / "d.parquet")
    ds = load_dataset(str(tmp_path / "d.parquet"))
    check(ds)
    assert list(ds.ids) == [str(i + 7) for i in range(len(y))]


def test_broken_npz_files(tmp_path):
    empty = write(tmp_path / "empty.npz", b"")
    with pytest.raises(ValueError, match=r"empty\.npz: the file is empty"):
        load_dataset(empty)
    rng = np.random.default_rng(0)
    noise = write(tmp_path / "noise.npz", rng.integers(0, 256, 500, dtype=np.uint8).tobytes())
    with pytest.raises(ValueError, match=r"noise\.npz: not an \.npz file"):
        load_dataset(noise)
    good = tmp_path / "good.npz"
    np.savez(good, X=np.ones((4, 2)), y=np.arange(4) % 2)
    truncated = write(tmp_path / "cut.npz", good.read_bytes()[:200])
    with pytest.raises(ValueError, match=r"cut\.npz: not a readable \.npz file"):
        load_dataset(truncated)
    np.savez(tmp_path / "obj.npz", X=np.array([[1, "a"]], dtype=object), y=np.array([0]))
    with pytest.raises(ValueError, match="never unpickles"):
        load_dataset(str(tmp_path / "obj.npz"))
    np.savez(tmp_path / "noy.npz", X=np.ones((4, 2)))
    with pytest.raises(ValueError, match="needs an array 'y'"):
        load_dataset(str(tmp_path / "noy.npz"))
    np.savez(tmp_path / "mismatch.npz", X=np.ones((4, 2)), y=np.arange(3))
    with pytest.raises(ValueError, match="one row per label"):
        load_dataset(str(tmp_path / "mismatch.npz"))
    assert zipfile.is_zipfile(good)


def test_paths_that_are_not_data_files(tmp_path):
    with pytest.raises(ValueError, match="no data files .a folder of .parquet or .csv files"):
        load_dataset(str(tmp_path))  # a folder is a table in several files: none here
    with pytest.raises(ValueError, match="no such file"):
        load_dataset(str(tmp_path / "missing.csv"))
    with pytest.raises(ValueError, match="unknown file type '.xlsx'"):
        load_dataset(write(tmp_path / "sheet.xlsx", "a"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes every file")
def test_unreadable_file_and_folder(tmp_path):
    path = write(tmp_path / "locked.csv", "a,label\n1,x\n2,y\n")
    os.chmod(path, 0)
    with pytest.raises(ValueError, match="cannot be read"):
        load_dataset(path)
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o500)
    with pytest.raises(ValueError, match="cannot write there"):
        check_writable(folder)


def test_check_writable(tmp_path):
    check_writable(tmp_path / "a" / "b", create=True)
    assert (tmp_path / "a" / "b").is_dir()
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        check_writable(tmp_path / "f" / "sub", create=True)
    with pytest.raises(ValueError, match="no such folder"):
        check_writable(tmp_path / "nope")


# -- the command line --------------------------------------------------------------------------

def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.err


def one_line_error(code, err, *names):
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


@pytest.fixture
def no_fit(monkeypatch):
    """Any fit is a failure: the errors must come before it."""
    from graphdr import DEEMap

    def fail(*a, **k):
        raise AssertionError("the fit started before the input was checked")

    monkeypatch.setattr(DEEMap, "fit", fail)


@pytest.mark.parametrize("name, text, words", [
    ("na.csv", "a,b,label\n1,,x\n3,4,y\n", ["na.csv", "line(s) 2", "column(s) b"]),
    ("short.csv", "a,b,label\n1,2,x\n3,4\n", ["short.csv", "line 3"]),
    ("text.csv", "a,b,label\n1,q,x\n3,4,y\n", ["text.csv", "column 'b'"]),
    ("nolabel.csv", "a,b,c\n1,2,3\n3,4,5\n", ["nolabel.csv", "--label-column"]),
    ("bad.npz", "not a zip", ["bad.npz", "not an .npz"]),
    ("empty.npz", "", ["empty.npz", "empty"]),
    ("data.bin", "1,2", ["data.bin", "unknown file type"]),
])
def test_map_bad_files_one_line_exit_2(tmp_path, capsys, no_fit, name, text, words):
    path = write(tmp_path / name, text)
    code, err = run(["map", path, "--out", str(tmp_path / "m"), "--quiet"], capsys)
    one_line_error(code, err, *words)
    assert not list(tmp_path.glob("m.*"))


def test_map_out_not_writable_before_the_fit(tmp_path, capsys, no_fit):
    (tmp_path / "file").write_text("x")
    code, err = run(["map", "iris", "--out", str(tmp_path / "file" / "m"), "--quiet"], capsys)
    one_line_error(code, err, "is a file, not a folder")
    code, err = run(["map", "iris", "--out", str(tmp_path / "m"), "--quiet",
                     "--hover-columns", "nope"], capsys)
    one_line_error(code, err, "--hover-columns", "nope")


def test_map_creates_missing_folders(tmp_path, capsys):
    code, err = run(["map", "iris:per_class=10", "--out", str(tmp_path / "new" / "dir" / "m"),
                     "--quiet", "--no-png"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "new" / "dir").iterdir()) == ["m.csv", "m.html"]


def test_bench_out_errors(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    base = ["bench", "--protocol", "demo", "-d", "iris", "-m", "lda", "--folds", "2",
            "--quiet", "--no-plots", "--no-html"]
    for out in (tmp_path / "file", tmp_path / "file" / "sub"):
        code, err = run(base + ["--out", str(out)], capsys)
        one_line_error(code, err, "is a file, not a folder")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    (broken / "results.csv").write_text("x\n")
    code, err = run(base + ["--out", str(broken)], capsys)
    one_line_error(code, err, "config.json", "another --out")
    (broken / "config.json").unlink()
    (broken / "results.csv").write_bytes(b"\xff\xfe\x00binary")
    code, err = run(base + ["--out", str(broken)], capsys)
    one_line_error(code, err, "results.csv", "another --out")


def test_bench_reads_files_with_the_same_options(tmp_path, capsys):
    text = "".join(f"{a};{b};{c}\n" for a, b, c in ROWS * 3)
    path = write(tmp_path / "nohead.csv", text)
    code, err = run(["bench", "--protocol", "demo", "-d", path, "-m", "lda", "--folds", "2",
                     "--out", str(tmp_path / "r"), "--no-plots", "--no-html", "--no-header",
                     "--label-column", "-1", "--no-timing"], capsys)
    assert code == 0, err
    assert "nohead" in (tmp_path / "r" / "results.csv").read_text()


def test_interrupted_map_says_what_happened(monkeypatch, capsys):
    import graphdr.cli.command as cli

    def interrupt(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_map", interrupt)
    code, err = run(["map", "iris"], capsys)
    assert code == 130 and "nothing was written" in err and "resume" not in err


@pytest.mark.slow
@pytest.mark.parametrize("after_rows", [0, 3])
def test_ctrl_c_during_parallel_bench_prints_no_traceback(tmp_path, after_rows):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while the workers
    start (no row yet) and while they compute: one message, exit 130, no worker traceback."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from graphdr.cli import main; sys.exit(main())",
         "bench", "--protocol", "bouzas", "-d", "digits", "-m", "kernel-lda,ckfd,kqmi",
         "--n-jobs", "2", "--out", str(out), "--quiet"],
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        start = time.time()
        results = out / "in-progress" / "results.csv"  # the run's until it is complete
        while time.time() - start < 90:  # past the imports: the sweep has begun
            if (out / "in-progress" / "config.json").exists() and (
                    after_rows == 0 or (results.exists()
                                        and results.read_text().count("\n") > after_rows)):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the sweep did not start")
        time.sleep(0.5)  # the workers are starting (Python imports NumPy, SciPy, graphdr)
        os.killpg(proc.pid, signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "Fatal Python error" not in err, err[-2000:]
    assert err.strip().endswith(f"To go on from them, run: graphdr bench --protocol bouzas -d "
                                f"digits -m kernel-lda,ckfd,kqmi --n-jobs 2 --out {out} --quiet")


def test_unreadable_file_and_unwritable_folder_whoever_runs_it(tmp_path, monkeypatch, capsys,
                                                              no_fit):
    """The same answers as above when the tests run as root (who may read and write anything):
    permissions as the operating system would report them to another user."""
    import tempfile

    import graphdr.io.paths as files

    path = write(tmp_path / "locked.csv", "a,label\n1,x\n2,y\n")
    monkeypatch.setattr(files.os, "access", lambda p, mode: False)
    code, err = run(["map", path, "--out", str(tmp_path / "m"), "--quiet"], capsys)
    one_line_error(code, err, "locked.csv", "cannot be read")
    monkeypatch.undo()

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    code, err = run(["map", "iris", "--out", str(tmp_path / "ro" / "m"), "--quiet"], capsys)
    one_line_error(code, err, "ro", "cannot write there (Permission denied)")
    code, err = run(["bench", "--protocol", "demo", "-d", "iris", "-m", "lda", "--out",
                     str(tmp_path / "ro2"), "--quiet"], capsys)
    one_line_error(code, err, "ro2", "cannot write there")


@pytest.mark.parametrize("kind", ["excel", "semicolon_id", "headerless", "libsvm"])
def test_the_files_users_have_make_a_map(tmp_path, capsys, kind):
    """Done-when of issue 36: each gives a correct map (ids and labels in the map's CSV)."""
    X, y = make_blobs_rows()
    if kind == "excel":
        text = "\ufeffclass,f0,f1,f2\r\n" + "".join(
            f"{c},{a},{b},{d}\r\n" for (a, b, d), c in zip(X, y))
        path, ids = write(tmp_path / "excel.csv", text), [str(i) for i in range(len(y))]
    elif kind == "semicolon_id":
        text = "ID;f0;f1;f2;label\n" + "".join(
            f"{500 + i};{a};{b};{d};{c}\n".replace(".", ",")
            for i, ((a, b, d), c) in enumerate(zip(X, y)))
        path, ids = write(tmp_path / "semi.csv", text), [str(500 + i) for i in range(len(y))]
    elif kind == "headerless":
        text = "".join(f"{a},{b},{d},{c}\n" for (a, b, d), c in zip(X, y))
        path, ids = write(tmp_path / "plain.csv", text), [str(i) for i in range(len(y))]
    else:
        codes = {"red": 1, "green": 2, "blue": 3}
        text = "".join(f"{codes[c]} 1:{a} 2:{b} 3:{d}\n" for (a, b, d), c in zip(X, y))
        path, ids = write(tmp_path / "d.svm", text), [str(i) for i in range(len(y))]
        y = np.array([str(codes[c]) for c in y])
    code, err = run(["map", path, "--out", str(tmp_path / "m"), "--quiet", "--no-png"], capsys)
    assert code == 0, err
    import csv as _csv

    with open(tmp_path / "m.csv", newline="") as fh:
        rows = list(_csv.DictReader(fh))
    id_name = "ID" if kind == "semicolon_id" else "id"  # the input's name for its ids
    assert [r[id_name] for r in rows] == ids and [r["label"] for r in rows] == list(y)
    Y = np.array([[float(r["x"]), float(r["y"])] for r in rows])
    # a correct map: the three well-separated blobs are three regions (1-NN on the map)
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    assert cross_val_score(KNeighborsClassifier(1), Y, y, cv=3).mean() > 0.95


def make_blobs_rows():
    from sklearn.datasets import make_blobs

    X, y = make_blobs(60, n_features=3, centers=3, cluster_std=0.5, random_state=0)
    return np.round(X, 3), np.array(["red", "green", "blue"])[y]


@pytest.mark.slow
def test_map_draws_rows_labelled_minus_one_or_empty_as_unlabelled(tmp_path, capsys):
    """Issue 38: rows whose label is -1 or empty are unlabelled samples of the map (in its
    graph, grey on the page and the picture); they are not scored. The CSV keeps each
    unlabelled row's cell as the input had it (-1 stays -1, empty stays empty), to join back."""
    X, y = make_blobs_rows()
    hidden = np.arange(len(y)) % 4 != 0
    for mark, name in (("-1", "minus.csv"), ("", "empty.csv")):
        text = "a,b,c,label\n" + "".join(
            f"{a},{b},{c},{mark if h else lab}\n" for (a, b, c), lab, h in zip(X, y, hidden))
        path = write(tmp_path / name, text)
        out = tmp_path / name.replace(".csv", "-map")
        code, err = run(["map", path, "--out", str(out)], capsys)
        assert code == 0, err
        assert f"60 samples ({int(hidden.sum())} unlabelled), 3 classes" in err
        rows = list(csv.DictReader(open(f"{out}.csv")))
        assert [r["label"] == mark for r in rows] == list(hidden)
        page = open(f"{out}.html").read()
        assert '"unlabelled"' in page and "#cccccc" in page
        assert f"of these {int((~hidden).sum())} labelled samples" in page
        Y = np.array([[float(r["x"]), float(r["y"])] for r in rows])
        # the hidden samples land among their blob's labelled samples
        d = np.sum((Y[hidden][:, None] - Y[~hidden][None]) ** 2, axis=-1)
        assert np.mean(y[~hidden][np.argmin(d, axis=1)] == y[hidden]) > 0.95
        # each hidden sample's one class, its source and confidence: in the CSV and on hover
        assert [r["inferred class"] == "" for r in rows] == list(~hidden)
        # (one source for every row of a map)
        assert {r["inferred by"] for r in rows} in ({"", "propagation"}, {"", "label check"})
        propagated = np.array([r["inferred class"] for r in rows])[hidden]
        assert np.mean(propagated == y[hidden]) > 0.95
        assert all(0 <= float(r["confidence"]) <= 1 for r in rows if r["confidence"])
        assert '"inferred class"' in page
        from graphdr.maps.views.fitted import PROPAGATION_NOTE

        assert PROPAGATION_NOTE[:80] in page  # what "confidence" means, on the page


def test_map_needs_two_labelled_classes_before_the_fit(tmp_path, capsys, no_fit):
    text = "a,b,label\n" + "".join(f"{a},{b},{'-1' if c != 'x' else c}\n"
                                   for a, b, c in ROWS * 2)
    path = write(tmp_path / "partial.csv", text)
    code, err = run(["map", path, "--out", str(tmp_path / "m"), "--quiet"], capsys)
    one_line_error(code, err, "partial.csv", "labelled rows of at least 2 classes",
                   "unlabelled rows (label -1 or empty)")


# ----- what a file says is kept as it says it -------------------------------------------------
def test_label_texts_that_look_missing_are_classes(tmp_path):
    """In the label column only an empty cell (or -1) is unlabelled: NA, None, null, -, ?
    and N/A are class names; in a feature column they still mark a missing cell."""
    names = ["NA", "None", "null", "-", "?", "N/A"]
    text = "a,b,label\n" + "".join(f"{i},{i % 3},{names[i % 6]}\n" for i in range(24)) + \
        "30,1,\n31,2,-1\n"
    ds = load_dataset(write(tmp_path / "na.csv", text), options=ReadOptions(unlabelled=True))
    labels = ds.classes[ds.y]
    assert sorted(set(labels[:24])) == sorted(names)
    assert list(labels[24:]) == ["-1", "-1"]
    missing = "a,b,label\n1,NA,x\n2,3,y\n"
    with pytest.raises(ValueError, match="missing cells in column.*b.*line.* 2"):
        load_dataset(write(tmp_path / "nafeat.csv", missing))


def test_id_column_by_name_of_any_type_with_repeats(tmp_path):
    text = "id,a,b,label\n" + "".join(f"s{i % 4},{a},{b},{c}\n" for i, (a, b, c) in
                                       enumerate(ROWS))
    ds = load_dataset(write(tmp_path / "textid.csv", text))
    check(ds)  # a text id column is the ids, not a refused feature
    assert list(ds.ids) == [f"s{i % 4}" for i in range(len(ROWS))]
    assert any("repeat an id" in n and "'s0'" in n for n in ds.notes)
    text = "index,a,b,label\n" + "".join(f"{i % 2},{a},{b},{c}\n" for i, (a, b, c) in
                                          enumerate(ROWS))
    ds = load_dataset(write(tmp_path / "intid.csv", text))
    check(ds)  # repeated integers: still the ids, never a feature
    assert list(ds.ids) == [str(i % 2) for i in range(len(ROWS))]


def test_hover_columns_are_never_features_unless_asked(tmp_path, capsys):
    text = "site,date,depth,a,b,label\n" + "".join(
        f"{'north' if i % 2 else 'south'},2020-01-0{i + 1},{10 * i},{a},{b},{c}\n"
        for i, (a, b, c) in enumerate(ROWS * 2))
    path = write(tmp_path / "hover.csv", text)
    ds = load_dataset(path, options=ReadOptions(hover_columns=("site", "date", "depth")))
    assert ds.feature_names == ["a", "b"]
    kept = load_dataset(path, options=ReadOptions(hover_columns=("depth",), hover_features=True,
                                                  drop_columns=("site", "date")))
    assert kept.feature_names == ["depth", "a", "b"]
    # the README's example: text hover columns need nothing else
    code, err = run(["map", path, "--label-column", "label", "--hover-columns", "site,date",
                     "--drop-columns", "depth", "--out", str(tmp_path / "m"), "--quiet"], capsys)
    assert code == 0, err
    from graphdr.maps.views.page_data import read_page_data

    hover = read_page_data((tmp_path / "m.html").read_text())["hover"]
    assert "2020-01-03" in sum(hover.values(), []) and "north" in sum(hover.values(), [])


def test_parquet_columns_read_as_csv_columns_are(tmp_path, capsys):
    """Text numbers and decimals are numbers, dates are text (an error naming the column, or
    a hover column), never a traceback."""
    pytest.importorskip("pyarrow")
    import decimal

    import pandas as pd

    n = 12
    frame = pd.DataFrame({
        "a": np.arange(n, dtype=np.float32) / 3, "t": [str(i * 1.5) for i in range(n)],
        "dec": [decimal.Decimal(i) / 4 for i in range(n)],
        "when": pd.to_datetime(["2020-01-01"] * n) + pd.to_timedelta(range(n), "D"),
        "label": ["x", "y", "NA"] * 4})
    frame.loc[5, "label"] = None
    path = str(tmp_path / "p.parquet")
    frame.to_parquet(path)
    code, err = run(["map", path, "--out", str(tmp_path / "m"), "--quiet"], capsys)
    one_line_error(code, err, "p.parquet", "'when'", "--hover-columns")
    ds = load_dataset(path, options=ReadOptions(hover_columns=("when",), unlabelled=True))
    assert ds.feature_names == ["a", "t", "dec"]
    np.testing.assert_array_equal(ds.X[:, 0], frame["a"].to_numpy(np.float64))
    np.testing.assert_array_equal(ds.X[:, 1], np.arange(n) * 1.5)
    np.testing.assert_array_equal(ds.X[:, 2], np.arange(n) / 4)
    labels = ds.classes[ds.y]
    assert labels[5] == "-1" and labels[2] == "NA" and labels[0] == "x"
    assert ds.columns["when"][1] == "2020-01-02 00:00:00"


def test_utf16_files_and_labels_all_unlabelled(tmp_path, capsys):
    text = "a\tb\tlabel\r\n" + "".join(f"{a}\t{b}\t{c}\r\n" for a, b, c in ROWS)
    check(load_dataset(write(tmp_path / "excel.txt", "\ufeff" + text, "utf-16-le")))  # BOM
    path = write(tmp_path / "nobom.csv", text, "utf-16-le")
    check(load_dataset(path, options=ReadOptions(encoding="utf-16-le")))
    code, err = run(["map", path, "--out", str(tmp_path / "m")], capsys)
    one_line_error(code, err, "nobom.csv", "--encoding")
    text = "a,b,label\n" + "".join(f"{a},{b},-1\n" for a, b, _ in ROWS)
    none = write(tmp_path / "none.csv", text)  # the default map draws it: the data alone
    code, err = run(["map", none, "--out", str(tmp_path / "m")], capsys)
    assert code == 0 and "(6 unlabelled), 0 classes" in err, err
    code, err = run(["map", none, "--out", str(tmp_path / "m2"), "--repulsion", "gaussian"],
                    capsys)
    line = one_line_error(code, err, "none.csv", "every row", "unlabelled")
    assert "single class" not in line and not (tmp_path / "m2.html").exists()


def test_bench_reads_the_partially_labelled_file_map_reads(tmp_path, capsys):
    text = "a,b,label\n" + "".join(
        f"{a + i % 3},{b},{'' if i % 5 == 0 else ('x', 'y', 'z')[i % 3]}\n"
        for i, (a, b, _) in enumerate(ROWS * 10))
    path = write(tmp_path / "partial.csv", text)
    code, err = run(["bench", "--protocol", "demo", "-d", path, "-m", "lda,lfda,semi-lfda",
                     "--folds", "2", "--out", str(tmp_path / "r"), "--no-plots", "--no-html"],
                    capsys)
    assert code == 0, err
    assert "left out 12 row(s) without a label" in err
    rows = list(csv.DictReader(open(tmp_path / "r" / "results.csv")))
    assert {r["method"] for r in rows} == {"lda", "lfda", "semi-lfda"}
    assert sum(int(r["n_test"]) for r in rows if r["method"] == "lda" and r["dim"] == "1"
               and r["classifier"] == "1nn") == 48  # every labelled row tested once


def test_label_fraction_report_says_what_was_kept_and_names_failed_cells(tmp_path, capsys,
                                                                          monkeypatch):
    import graphdr.bench.runner as runner

    real = runner.run_cell

    def fail_labelled(task):
        if task.get("label_mode") == "labelled":
            raise RuntimeError("boom")
        return real(task)

    monkeypatch.setattr(runner, "run_cell", fail_labelled)
    code, err = run(["bench", "--protocol", "demo", "-d", "iris", "-m", "lda", "--folds", "2",
                     "--label-fraction", "0.2", "--out", str(tmp_path / "r"), "--no-plots"],
                    capsys)
    assert code == 1
    assert "iris / lda@labelled / fold 0: " in err and "iris / lda / fold" not in err
    tables = (tmp_path / "r" / "tables.md").read_text()
    assert "20 % of each class keeps its label" in tables and "y = -1" in tables
    assert "20 % of each class keeps its label" in (tmp_path / "r" / "index.html").read_text()


def test_list_methods_names_lfda_and_self(capsys):
    assert main(["list", "methods"]) == 0
    out = capsys.readouterr().out
    assert "\nlfda " in out and "\nsemi-lfda " in out


def test_label_fraction_reports_the_propagations_own_error(tmp_path, capsys):
    code, err = run(["bench", "--protocol", "demo", "-d", "wine", "-m", "lda,poisson",
                     "--folds", "2", "--label-fraction", "0.1", "--out", str(tmp_path / "r"),
                     "--no-plots", "--no-html", "--no-timing"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(open(tmp_path / "r" / "results.csv")))
    own = [r for r in rows if r["method"] == "poisson" and r["classifier"] == "own"]
    assert len(own) == 2 and all(float(r["error"]) < 0.5 for r in own)


def test_text_columns_follow_dropped_rows_and_stay_lazy(tmp_path, monkeypatch):
    """Hover text is the file's text at the rows kept (--na drop, a subset), and a Parquet
    file's numeric columns are turned into text only when a column is asked for."""
    import pandas as pd

    from graphdr.io import files
    from graphdr.io.files import TextColumns, read_table

    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.5], "n": [7, 8, 9, 10],
                          "label": ["x", "y", "x", "y"], "note": [" p", "q", "r ", "s"]})
    path = str(tmp_path / "t.parquet")
    frame.to_parquet(path)
    asked = []
    column_text = files._column_text
    monkeypatch.setattr(files, "_column_text", lambda col: asked.append(col.name) or
                        column_text(col))
    table = read_table(path, ReadOptions(na="drop", hover_columns=("note",), id_column=False))
    assert isinstance(table.columns, TextColumns) and list(table.columns) == list(frame)
    assert sorted(asked) == ["label", "note"]  # the label's and the text column's, not a, n
    assert list(table.columns["note"]) == ["p", "r", "s"]
    assert list(table.columns["n"]) == ["7", "9", "10"] and "n" in asked
    assert list(table.columns["a"]) == ["1.0", "3.0", "4.5"]
    assert list(table.columns.take([2, 0])["label"]) == ["y", "x"]
    assert list(table.columns.take(np.array([True, False, True]))["n"]) == ["7", "10"]
    with pytest.raises(KeyError):
        table.columns["b"]


@pytest.mark.parametrize("name", ["pixel_id", "Sample ID", "sampleId", "pixelID", "ID", "Index",
                                  "id_cell", "row", "KEY", "patient-id"])
def test_a_column_named_as_ids_is_never_a_feature_whatever_its_type(tmp_path, name):
    """The issue's case: a Parquet file with ``pixel_id`` (int64) and bands. The expected
    features and ids are written independently of the reader's rule."""
    import pandas as pd

    ids = [103, 7, 55, 2, 71, 19]  # integers, not a counter
    for kind, values in (("int", ids), ("text", [f"s{i}" for i in ids])):
        frame = pd.DataFrame({name: values, "a": [r[0] for r in ROWS],
                              "b": [r[1] for r in ROWS], "label": [r[2] for r in ROWS]})
        path = str(tmp_path / f"{kind}.parquet")
        frame.to_parquet(path)
        ds = load_dataset(path)
        check(ds)  # features a, b only
        assert [str(v) for v in ds.ids] == [str(v) for v in values]
        assert any(repr(name) in n and "sample ids" in n for n in ds.notes)
        if kind == "int":  # told there is no id column: a feature like any other
            kept = load_dataset(path, options=ReadOptions(id_column=False))
            assert kept.feature_names == [name, "a", "b"]


@pytest.mark.parametrize("name", ["valid", "PAID", "rapid", "acid", "identity", "width"])
def test_names_that_only_contain_id_stay_features(tmp_path, name):
    text = f"{name},a,b,label\n" + "".join(f"{i * 3 % 7},{a},{b},{c}\n" for i, (a, b, c) in
                                           enumerate(ROWS))
    ds = load_dataset(write(tmp_path / "f.csv", text))
    assert ds.feature_names == [name, "a", "b"] and ds.ids is None


def test_a_row_counter_is_taken_as_the_ids_with_a_note(tmp_path):
    """A column counting the rows (here in a file sorted by class, where it would give the
    class away) is never silently a feature."""
    rows = sorted(ROWS, key=lambda r: r[2])
    text = "n,a,b,label\n" + "".join(f"{i + 1},{a},{b},{c}\n" for i, (a, b, c) in
                                     enumerate(rows))
    ds = load_dataset(write(tmp_path / "counter.csv", text))
    assert ds.feature_names == ["a", "b"]
    assert list(ds.ids) == [str(i + 1) for i in range(len(rows))]
    assert any("counts the rows (1, 2, 3, ...)" in n for n in ds.notes)
    not_counter = text.replace("\n3,", "\n4,", 1)  # 1, 2, 4, 4, ...: not a counter
    ds = load_dataset(write(tmp_path / "other.csv", not_counter))
    assert ds.feature_names == ["n", "a", "b"] and ds.ids is None


def test_second_id_named_column_is_left_out_and_drop_columns_wins(tmp_path):
    text = "id,visit_id,a,b,label\n" + "".join(f"s{i},{10 + i * 3},{a},{b},{c}\n" for i, (a, b, c)
                                              in enumerate(ROWS))
    path = write(tmp_path / "two.csv", text)
    ds = load_dataset(path)
    check(ds)
    assert list(ds.ids) == [f"s{i}" for i in range(len(ROWS))]
    assert any("'visit_id'" in n and "left out of the features" in n for n in ds.notes)
    ds = load_dataset(path, options=ReadOptions(drop_columns=("id",)))
    check(ds)  # visit_id becomes the ids when id is dropped
    assert list(ds.ids) == [str(10 + i * 3) for i in range(len(ROWS))]


def test_label_column_error_lists_the_text_columns_first(tmp_path, capsys):
    names = [f"band{j}" for j in range(14)]
    text = ",".join(names + ["species"]) + "\n" + "".join(
        ",".join([str(j + i) for j in range(14)] + [c]) + "\n" for i, (_, _, c) in
        enumerate(ROWS))
    code = main(["map", write(tmp_path / "bands.csv", text), "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 2 and "Text columns: species; numeric columns: band0" in err


def test_the_sweep_edges_are_one_line_naming_the_file(tmp_path, capsys):
    """Edges a bad-input sweep found: each is one line on stderr, exit 2, naming the file
    (and what is wrong), never a traceback."""
    import pandas as pd

    cases = {}
    cases["points.csv"] = ("a,b,c,label\n2.54,\"1,5\",-1.01,x\n1.0,2.0,3.0,y\n1.5,2.5,3.5,x\n",
                           "column 'b' is not numeric (line 2: '1,5'; a number with a decimal "
                           "comma")
    np.savez(tmp_path / "empty.npz", X=np.zeros((0, 3)), y=np.zeros(0))
    cases["empty.npz"] = (None, "empty.npz: the data set has no samples")
    cases["text.parquet"] = ("a,b,label\n1,2,x\n", "text.parquet: not a Parquet file: it is text")
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "label": list("xyx")}).to_parquet(tmp_path / "ok.parquet")
    (tmp_path / "cut.parquet").write_bytes((tmp_path / "ok.parquet").read_bytes()[:300])
    cases["cut.parquet"] = (None, "cut.parquet: a truncated or damaged Parquet file")
    for name, (text, message) in cases.items():
        if text is not None:
            write(tmp_path / name, text)
        for command in (["map", str(tmp_path / name), "--out", str(tmp_path / "m")],
                        ["bench", "-d", str(tmp_path / name), "-m", "lda",
                         "--out", str(tmp_path / "b")]):
            code = main(command)
            err = capsys.readouterr().err
            assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_class_of_one_sample_is_named_for_cross_validation(tmp_path, capsys):
    path = write(tmp_path / "one.csv", "a,b,label\n" + "".join(
        f"{i},{i % 3},{'z' if i == 5 else 'xy'[i % 2]}\n" for i in range(12)))
    code = main(["bench", "-d", path, "-m", "lda", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code == 2 and "class 'z' has 1 sample" in err and "or less" not in err


def test_a_table_with_numeric_labels_in_one_file_and_text_in_another(tmp_path):
    import pandas as pd

    from graphdr.io.file_parts import read_parts

    folder = tmp_path / "mix"
    folder.mkdir()
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.normal(size=6), "label": [0, 1, 0, 1, -1, 1]}).to_parquet(
        folder / "p0.parquet")
    pd.DataFrame({"a": rng.normal(size=4), "label": ["0", "x", None, "1"]}).to_parquet(
        folder / "p1.parquet")
    table = read_parts(str(folder), ReadOptions(unlabelled=True))
    assert list(table.y) == ["0", "1", "0", "1", "-1", "1", "0", "x", "-1", "1"]
    assert any("numbers in some files and text in others" in n for n in table.notes)
    # -1 written in the first file is not an empty cell; None in the second is
    assert list(table.label_empty) == [False] * 6 + [False, False, True, False]


def test_numbers_read_exactly_as_written(tmp_path):
    """Every float written by repr reads back to the same bits (pandas 2's parser can be one
    unit in the last place off, which changed a map of the same numbers)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) * 10.0 ** rng.integers(-8, 9, size=(300, 3))
    X[0] = [0.1 + 0.2, 1 / 3, -2.2250738585072014e-308]
    path = tmp_path / "d.csv"
    with open(path, "w") as fh:
        fh.write("a,b,c,label\n")
        for i, row in enumerate(X):
            fh.write(",".join(repr(float(v)) for v in row) + f",k{i % 2}\n")
    ds = load_dataset(str(path), options=ReadOptions())
    assert np.array_equal(ds.X, X)
