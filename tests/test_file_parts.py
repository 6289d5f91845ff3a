"""A table in several files (graphdr.io.file_parts) against the in-memory reader of the same
rows in one file."""

import numpy as np
import pandas as pd
import pytest

from graphdr.io.file_parts import data_files, read_parts
from graphdr.io.files import ReadOptions, read_table

pytest.importorskip("dask.array")


def _frame(n=30, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": np.arange(n) + 100 * seed, "a": rng.normal(size=n).round(6),
                         "b": rng.normal(size=n).round(6),
                         "label": rng.choice(["cat", "dog", "eel"], n)})


def test_parquet_folder_reads_as_the_whole_table(tmp_path):
    pytest.importorskip("pyarrow")
    frames = [_frame(30, s) for s in range(3)]
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, f in enumerate(frames):
        f.to_parquet(folder / f"part-{i}.parquet", index=False)
    (folder / "_SUCCESS").write_text("")  # a marker file Spark writes: not data
    whole = pd.concat(frames, ignore_index=True)
    whole.to_parquet(tmp_path / "whole.parquet", index=False)
    want = read_table(tmp_path / "whole.parquet")
    got = read_parts(folder)
    assert got.feature_names == want.feature_names == ["a", "b"]
    assert got.id_name == "id" and np.array_equal(got.ids, want.ids)
    assert np.array_equal(got.y, want.y) and list(got.counts) == [30, 30, 30]
    X = got.features()
    assert X.chunks[0] == (30, 30, 30)
    assert np.array_equal(X.compute(scheduler="sync"), want.X)  # the same numbers, bit for bit



def test_labels_numbers_in_one_file_and_text_in_another_are_all_read_as_text(tmp_path):
    """A folder whose label column a writer stored as numbers in one file and as text in
    another: one note says so, and every label is text (the numbers as their digits)."""
    pytest.importorskip("pyarrow")
    folder = tmp_path / "mixed"
    folder.mkdir()
    a, b = _frame(20, 0), _frame(20, 1)
    a["label"] = np.arange(20) % 3
    b["label"] = np.array(["zero", "one", "two"])[np.arange(20) % 3]
    a.to_parquet(folder / "part-0.parquet", index=False)
    b.to_parquet(folder / "part-1.parquet", index=False)
    got = read_parts(folder)
    assert [n for n in got.notes if "numbers in some files and text in others" in n]
    assert got.y.dtype == object and all(isinstance(v, str) for v in got.y)
    assert sorted(set(got.y)) == ["0", "1", "2", "one", "two", "zero"]
    assert list(got.y[:3]) == ["0", "1", "2"] and list(got.y[20:23]) == ["zero", "one", "two"]

def test_csv_glob_with_semicolons_and_decimal_commas(tmp_path):
    frames = [_frame(20, s) for s in range(2)]
    for i, f in enumerate(frames):
        f.to_csv(tmp_path / f"p{i}.csv", sep=";", decimal=",", index=False)
    pd.concat(frames).to_csv(tmp_path / "all.txt", sep=";", decimal=",", index=False)
    want = read_table(tmp_path / "all.txt")
    got = read_parts(str(tmp_path / "p*.csv"))
    assert got.paths == [str(tmp_path / "p0.csv"), str(tmp_path / "p1.csv")]
    assert np.array_equal(got.features().compute(scheduler="sync"), want.X)
    assert np.array_equal(got.y, want.y)


def test_a_bad_file_is_named_before_anything_is_computed(tmp_path):
    frames = [_frame(20, s) for s in range(3)]
    frames[1]["a"] = frames[1]["a"].astype(object)
    frames[1].loc[7, "a"] = "n/a?"
    for i, f in enumerate(frames):
        f.to_csv(tmp_path / f"p{i}.csv", index=False)
    with pytest.raises(ValueError, match=r"p1\.csv: column 'a' is not numeric \(line 9"):
        read_parts(str(tmp_path / "p*.csv"))
    other = _frame(20, 5).rename(columns={"b": "c"})
    other.to_csv(tmp_path / "p1.csv", index=False)
    with pytest.raises(ValueError, match=r"p1\.csv: no column 'id'|p1\.csv: its feature columns"):
        read_parts(str(tmp_path / "p*.csv"))


def test_no_files_and_onehot_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="no data files"):
        data_files(str(tmp_path / "*.csv"))
    with pytest.raises(ValueError, match="no data files"):
        data_files(tmp_path)
    _frame().to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(ValueError, match="not available for a table in several files"):
        read_parts(tmp_path, ReadOptions(categorical="onehot"))
    pytest.importorskip("pyarrow")
    _frame().to_parquet(tmp_path / "b.parquet", index=False)
    with pytest.raises(ValueError, match="both Parquet and text files"):
        data_files(tmp_path)


@pytest.mark.parametrize("header", [True, False])
def test_one_large_text_file_in_byte_ranges(tmp_path, header):
    """A file larger than the piece size is read in line-aligned byte ranges: the same rows
    as the whole read, a bad cell named by the file's own line, the format found once."""
    from graphdr.io.file_parts import table_parts

    frame = pd.concat([_frame(40, s) for s in range(3)], ignore_index=True)
    path = tmp_path / "big.csv"
    frame.to_csv(path, sep=";", decimal=",", index=False, header=header)
    options = ReadOptions(label_column=None if header else 3, id_column=None if header else 0)
    want = read_table(path, options)
    parts = table_parts(path, part_bytes=700)
    assert len(parts) > 3 and parts[0][1].line == 1
    got = read_parts(path, options, part_bytes=700)
    assert sum(got.counts) == len(frame) and len(got.counts) == len(parts)
    assert np.array_equal(got.features().compute(scheduler="sync"), want.X)
    assert np.array_equal(got.y, want.y) and np.array_equal(got.ids, want.ids)
    lines = path.read_text().splitlines()
    bad = 97 + header  # the file's line of row 97
    lines[bad - 1] = lines[bad - 1].replace(";", ";x", 1)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"big\.csv: column '?\w+'? is not numeric \(line {bad}:"):
        read_parts(path, options, part_bytes=700)
    lines[bad - 1] += ";1"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"big\.csv: line {bad} has 5 fields"):
        read_parts(path, options, part_bytes=700)


def test_one_large_parquet_file_by_row_groups(tmp_path):
    pytest.importorskip("pyarrow")
    from graphdr.io.file_parts import table_parts

    frame = pd.concat([_frame(40, s) for s in range(3)], ignore_index=True)
    path = tmp_path / "big.parquet"
    frame.to_parquet(path, index=False, row_group_size=25)
    parts = table_parts(path, part_bytes=1)  # one row group per piece
    assert [p.line for _, p in parts] == [1, 26, 51, 76, 101]
    got = read_parts(path, part_bytes=1)
    want = read_table(path)
    assert list(got.counts) == [25, 25, 25, 25, 20]
    assert np.array_equal(got.features().compute(scheduler="sync"), want.X)
    assert np.array_equal(got.y, want.y) and np.array_equal(got.ids, want.ids)


def test_quoted_or_utf16_text_is_not_cut(tmp_path):
    from graphdr.io.file_parts import table_parts

    frame = _frame(60)
    frame["label"] = '"' + frame["label"] + '"'
    frame.to_csv(tmp_path / "q.csv", index=False)
    assert len(table_parts(tmp_path / "q.csv", part_bytes=100)) == 1
    (tmp_path / "u.csv").write_bytes(_frame(60).to_csv(index=False).encode("utf-16"))
    assert len(table_parts(tmp_path / "u.csv", part_bytes=100)) == 1


def test_memory_estimate_from_metadata_and_first_lines(tmp_path):
    pytest.importorskip("pyarrow")
    from graphdr.io.file_parts import in_memory_bytes

    frame = _frame(1000)
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    assert in_memory_bytes(tmp_path / "t.parquet") == 1000 * (48 * 4 + 400)
    frame.to_csv(tmp_path / "t.csv", index=False)
    estimate = in_memory_bytes(tmp_path / "t.csv")
    assert 0.9 * 1000 * (48 * 4 + 400) < estimate < 1.1 * 1000 * (48 * 4 + 400)


@pytest.mark.parametrize("change", ["grows", "rewritten"])
def test_a_file_that_changes_after_it_was_read_is_named(tmp_path, change):
    """Labels are read before the features: a file that grows (was an IndexError) or is
    rewritten with as many rows (was new features with the old labels, silently) is named."""
    import os

    folder = tmp_path / "parts"
    folder.mkdir()
    for s in range(2):
        _frame(20, s).to_csv(folder / f"p{s}.csv", index=False)
    table = read_parts(folder)
    path = folder / "p1.csv"
    if change == "grows":
        with open(path, "a") as fh:
            fh.write("999,0.5,0.5,cat\n")
    else:
        stat = os.stat(path)
        _frame(20, 7).to_csv(path, index=False)  # new values, the same row count
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(ValueError, match="p1.csv: the file changed while graphdr was mapping"):
        table.features().compute(scheduler="sync")


@pytest.mark.parametrize("workers", [0, 1, 2, 8])
def test_fit_rows_within_the_budget_and_below_the_in_memory_map(workers):
    """The Dask route's automatic fit size against its memory model written out: the
    ``graphdr map`` process within the budget, the route's total with its local workers below
    the in-memory map's, more budget never fewer rows, clipped to [FIT_ROWS_MIN, FIT_ROWS_MAX]
    and to n."""
    from graphdr.io import file_parts as fp

    P, W = fp.PROCESS_BYTES, fp.WORKER_BYTES

    def client(m, n, d):
        table = n * fp.TABLE_ROW_BYTES + min(n, 10**6) * fp.PAGE_ROW_BYTES
        return P + table + fp.map_bytes(m, d)

    def total(m, n, d):  # the graphdr map process and the local workers
        return client(m, n, d) + workers * (W + m * (fp.MODEL_CELL_BYTES * d
                                                     + fp.MODEL_ROW_BYTES))

    for n, d in [(10**6, 36), (10**7, 50), (3 * 10**5, 784), (5000, 10)]:
        in_memory = fp.IN_MEMORY_SHARE * (P + fp.map_bytes(n, d))
        previous = 0
        for budget in [2**28, 2**29, 2**30, 2**31, 2**33, 2**36]:
            m = fp.fit_rows_within(budget, n, d, workers)
            assert previous <= m <= min(n, fp.FIT_ROWS_MAX)
            assert m >= min(n, fp.FIT_ROWS_MIN)
            previous = m
            if fp.FIT_ROWS_MIN < m < min(n, fp.FIT_ROWS_MAX):
                assert client(m, n, d) <= budget and total(m, n, d) <= in_memory
                # one row more would break one of the two
                assert client(m + 1, n, d) > budget or total(m + 1, n, d) > in_memory
    assert fp.fit_rows_within(2**40, 5000, 10, 2) == 5000
    assert fp.fit_rows_within(1, 10**6, 36, 2) == fp.FIT_ROWS_MIN


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("unlabelled", [True, False])
def test_the_features_alone_are_the_tables_features(tmp_path, suffix, unlabelled):
    """read_features (what a worker reads again) gives read_table's X, row for row, with
    missing cells dropped, empty labels, text numbers and an id column."""
    from graphdr.io.files import read_features

    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    frame = pd.concat([_frame(40, s) for s in range(2)], ignore_index=True)
    frame["c"] = frame["a"].map(lambda v: f"{v:.3f}")  # numbers stored as text
    frame.loc[[3, 17], "b"] = np.nan  # missing feature cells
    frame.loc[[5, 8, 60], "label"] = None  # empty labels: unlabelled rows, or dropped
    path = tmp_path / f"t{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path, index=False)
    options = ReadOptions(na="drop", unlabelled=unlabelled)
    want = read_table(path, options)
    assert len(want.X) == 80 - 2 - (0 if unlabelled else 3)
    got = read_features(path, options)
    assert got.dtype == want.X.dtype and np.array_equal(got, want.X)


def test_a_partially_labelled_folder_is_benchmarked_on_its_labelled_rows(tmp_path):
    """``graphdr bench`` leaves out a folder's rows without a label, as it does a file's (it
    scored them as a class "-1")."""
    pytest.importorskip("pyarrow")
    from graphdr.bench.datasets import load_dataset, without_unlabelled

    frames = [_frame(20, s) for s in range(2)]
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, f in enumerate(frames):
        f.loc[::4, "label"] = None
        f.to_parquet(folder / f"part-{i}.parquet", index=False)
    pd.concat(frames).to_csv(tmp_path / "whole.csv", index=False)
    options = ReadOptions(unlabelled=True)
    want = without_unlabelled(load_dataset(str(tmp_path / "whole.csv"), options=options))
    got = without_unlabelled(load_dataset(str(folder), options=options))
    assert len(got.y) == len(want.y) == 30 and list(got.classes) == list(want.classes)
    assert np.array_equal(got.X, want.X) and np.array_equal(got.y, want.y)
    assert any("left out 10 row(s) without a label" in n for n in got.notes)
