"""Null cells of Parquet and Arrow columns, whatever their type and writer, read as empty CSV
cells are: an unlabelled row in the label column, an empty id or hover value, a missing
feature cell (``--na``). Each case is compared with the CSV file of the same text, empty
where the Parquet cell is null, read by the same reader."""

import numpy as np
import pytest

from graphdr.cli import main
from graphdr.io.file_parts import read_parts
from graphdr.io.files import ReadOptions, read_features, read_table

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 24
NULL = np.zeros(N, dtype=bool)
NULL[[1, 4, 5, 11, 14, 22]] = True  # in both halves of a two-file folder
_CODES = np.arange(N) % 3
_FEATURES = np.random.default_rng(0).normal(size=(N, 2)).round(4) + 3 * np.eye(3)[_CODES, :2]

#: the label cells of each kind, as a CSV file writes them (bool: as graphdr reads any
#: Parquet boolean, 0/1)
TEXT = {"text": np.array(["ant", "bee", "cow"])[_CODES],
        "int": np.array(["1", "2", "3"])[_CODES],
        "float": np.array(["0.5", "1.5", "2.5"])[_CODES],
        "bool": np.array(["1", "0", "1"])[_CODES]}


def _values(kind):
    """The cells as Python values, None where null."""
    cast = {"text": str, "int": int, "float": float, "bool": lambda t: t == "1"}[kind]
    return [None if m else cast(t) for t, m in zip(TEXT[kind], NULL)]


def _pandas_cases():
    """Label columns of pandas' types, nulls as pandas holds them."""
    def series(kind, dtype=None, null=None):
        values = _values(kind)
        if null is not None:
            values = [null if v is None else v for v in values]
        return pd.Series(values, dtype=object if dtype is None else dtype)

    cases = {
        "string[python]": ("text", series("text", "string[python]")),
        "string[pyarrow]": ("text", series("text", "string[pyarrow]")),
        "object None": ("text", series("text")),
        "object NaN": ("text", series("text", null=np.nan)),
        "object pd.NA": ("text", series("text", null=pd.NA)),
        "category": ("text", series("text", "category")),
        "category of ints": ("int", series("int").astype("category")),
        "Int64": ("int", series("int", "Int64")),
        "Int8": ("int", series("int", "Int8")),
        "UInt32": ("int", series("int", "UInt32")),
        "Float64": ("float", series("float", "Float64")),
        "float64 NaN": ("float", series("float", np.float64)),
        "float32 NaN": ("float", series("float", np.float32)),
        "boolean": ("bool", series("bool", "boolean")),
        "object bool None": ("bool", series("bool")),
    }
    if isinstance(pd.Series(["a"]).dtype, pd.StringDtype):  # pandas' default text type (3.0)
        cases["str"] = ("text", pd.Series(_values("text")))
    return cases


def _arrow_cases():
    """Label columns of Arrow's types, as pyarrow or Spark write them."""
    cases = {
        "string": ("text", pa.string()), "large_string": ("text", pa.large_string()),
        "dictionary<int32, string>": ("text", pa.dictionary(pa.int32(), pa.string())),
        "dictionary<int8, large_string>": ("text", pa.dictionary(pa.int8(),
                                                                 pa.large_string())),
        "dictionary<int32, int64>": ("int", pa.dictionary(pa.int32(), pa.int64())),
        "int8": ("int", pa.int8()), "int16": ("int", pa.int16()), "int32": ("int", pa.int32()),
        "int64": ("int", pa.int64()), "uint8": ("int", pa.uint8()),
        "uint64": ("int", pa.uint64()), "float32": ("float", pa.float32()),
        "float64": ("float", pa.float64()), "bool": ("bool", pa.bool_()),
    }
    if hasattr(pa, "string_view"):
        cases["string_view"] = ("text", pa.string_view())
    return cases


def _arrow_array(kind, type_):
    values = _values(kind)
    if pa.types.is_dictionary(type_):
        return pa.array(values, type_.value_type).dictionary_encode().cast(type_)
    return pa.array(values, type_)


def _frame(label, rows=slice(None)):
    return pd.DataFrame({"a": _FEATURES[rows, 0], "b": _FEATURES[rows, 1],
                         "label": label[rows].reset_index(drop=True)})


def _write(path, label, writer, rows=slice(None)):
    """The table (features a, b and the label column ``label``) at ``rows``, written by
    ``writer``: pandas, pyarrow, or as Spark writes (its flavour, every field nullable,
    dictionary pages, no Arrow schema stored)."""
    if writer == "pandas":
        _frame(label, rows).to_parquet(path, index=False)
        return
    columns = {"a": pa.array(_FEATURES[rows, 0]), "b": pa.array(_FEATURES[rows, 1]),
               "label": label[rows]}
    if writer == "pyarrow":
        pq.write_table(pa.table(columns), path)
    else:
        schema = pa.schema([pa.field(k, v.type, nullable=True) for k, v in columns.items()])
        pq.write_table(pa.table(columns, schema=schema), path, flavor="spark",
                       use_dictionary=True, store_schema=False)


def _csv(tmp_path, kind):
    """The CSV file of the same cells, empty where null: what the Parquet file must read as."""
    cells = np.where(NULL, "", TEXT[kind])
    path = tmp_path / "same.csv"
    path.write_text("a,b,label\n" + "".join(f"{a!r},{b!r},{c}\n" for (a, b), c in
                                            zip(_FEATURES.tolist(), cells)))
    return read_table(path, ReadOptions(unlabelled=True))


def _cases():
    out = [pytest.param("pandas", name, kind, id=f"pandas-{name}")
           for name, (kind, _) in _pandas_cases().items()]
    for writer in ("pyarrow", "spark"):
        out += [pytest.param(writer, name, kind, id=f"{writer}-{name}")
                for name, (kind, _) in _arrow_cases().items()]
    return out


@pytest.mark.parametrize("writer, name, kind", _cases())
def test_null_labels_are_unlabelled_rows_on_every_reader(tmp_path, writer, name, kind):
    if writer == "pandas":
        label = _pandas_cases()[name][1]
    else:
        label = _arrow_array(kind, _arrow_cases()[name][1])
    path = tmp_path / "t.parquet"
    _write(path, label, writer)
    want = _csv(tmp_path, kind)
    assert list(want.label_empty) == list(NULL)  # the CSV's empty cells: unlabelled rows
    options = ReadOptions(unlabelled=True)
    got = read_table(path, options)
    assert list(got.label_empty) == list(NULL)
    assert got.y.dtype.kind == want.y.dtype.kind and np.array_equal(got.y, want.y)
    assert "<NA>" not in set(map(str, got.y)) and "None" not in set(map(str, got.y))
    assert np.array_equal(got.X, want.X)
    assert np.array_equal(read_features(path, options), want.X)
    # a folder of two files of this writer (the reader of the Dask route and of a folder)
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, rows in enumerate([slice(0, 13), slice(13, N)]):
        _write(folder / f"part-{i}.parquet", label, writer, rows)
    parts = read_parts(folder, options)
    assert list(parts.label_empty) == list(NULL) and np.array_equal(parts.y, want.y)
    assert np.array_equal(parts.features().compute(scheduler="sync"), want.X)
    # and the pieces of one file read by row groups
    pq.write_table(pq.read_table(path), tmp_path / "groups.parquet", row_group_size=5)
    pieces = read_parts(str(tmp_path / "groups.parquet"), options, part_bytes=1)
    assert len(pieces.parts) > 1
    assert list(pieces.label_empty) == list(NULL) and np.array_equal(pieces.y, want.y)


def test_the_issues_table_maps_its_null_labels_as_unlabelled(tmp_path, capsys):
    """pandas' nullable ``string`` labels, most of them null: unlabelled rows (the table's
    label cell empty), not a class ``<NA>``; the same from the CSV pandas writes."""
    rng = np.random.default_rng(3)
    n = 150
    codes = rng.integers(0, 3, n)
    frame = pd.DataFrame(rng.normal(size=(n, 3)) + 4 * np.eye(3)[codes], columns=list("abc"))
    labels = pd.Series(np.array(["ant", "bee", "cow"])[codes]).astype("string")
    keep = np.zeros(n, dtype=bool)
    keep[[np.flatnonzero(codes == c)[k] for c in range(3) for k in range(4)]] = True
    frame["label"] = labels.where(keep)  # 12 labels, 138 nulls
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    frame.to_csv(tmp_path / "t.csv", index=False)  # pandas writes a null as an empty cell
    assert (tmp_path / "t.csv").read_text().count(",\n") == n - 12
    for name in ("t.parquet", "t.csv"):
        code = main(["map", str(tmp_path / name), "--out", str(tmp_path / "m"), "--labels",
                     "given", "--outputs", "table"])
        err = capsys.readouterr().err
        assert code == 0, err
        assert f"{n} samples ({n - 12} unlabelled), 3 classes" in err, err
        table = pd.read_csv(tmp_path / "m.csv", keep_default_na=False, dtype=str)
        assert list(table["label"] == "") == list(~keep)
        given = next(c for c in ("inferred class", "propagated class") if c in table)
        assert set(table[given][~keep]) <= {"ant", "bee", "cow"}  # a class, never <NA>


@pytest.mark.parametrize("writer", ["pandas", "pyarrow", "spark"])
def test_null_ids_and_hover_values_are_empty(tmp_path, writer):
    """A null id or hover value is shown as empty, never as ``<NA>``, ``None`` or ``nan``."""
    ids = [None if m else f"s{i}" for i, m in enumerate(NULL)]
    note = [None if m else f"note {i}" for i, m in enumerate(NULL[::-1])]
    depth = [None if m else i * 10 for i, m in enumerate(NULL[::-1])]
    flag = [None if m else i % 2 == 0 for i, m in enumerate(NULL)]
    if writer == "pandas":
        frame = pd.DataFrame({"id": pd.Series(ids, dtype="string"), "a": _FEATURES[:, 0],
                              "b": _FEATURES[:, 1], "label": TEXT["text"],
                              "note": pd.Series(note, dtype="string[pyarrow]"),
                              "depth": pd.Series(depth, dtype="Int64"),
                              "flag": pd.Series(flag, dtype="boolean")})
        frame.to_parquet(tmp_path / "t.parquet", index=False)
    else:
        table = pa.table({"id": pa.array(ids, pa.large_string()),
                          "a": pa.array(_FEATURES[:, 0]), "b": pa.array(_FEATURES[:, 1]),
                          "label": pa.array(TEXT["text"].tolist()),
                          "note": pa.array(note).dictionary_encode(),
                          "depth": pa.array(depth, pa.int32()), "flag": pa.array(flag)})
        extra = dict(flavor="spark", store_schema=False) if writer == "spark" else {}
        pq.write_table(table, tmp_path / "t.parquet", **extra)
    cells = {"id": ["" if v is None else v for v in ids],
             "note": ["" if v is None else v for v in note],
             "depth": ["" if v is None else str(v) for v in depth],
             "flag": ["" if v is None else str(int(v)) for v in flag]}
    got = read_table(tmp_path / "t.parquet",
                     ReadOptions(hover_columns=("note", "depth", "flag"), unlabelled=True))
    assert got.id_name == "id" and list(got.ids) == cells["id"]
    for name in ("note", "depth", "flag"):
        assert list(got.columns[name]) == cells[name], name
    assert got.feature_names == ["a", "b"] and got.id_dtype is None


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "string", "float64", "object"])
def test_null_feature_cells_are_missing_cells(tmp_path, dtype):
    """A null in a feature column of a nullable type: the missing-cell rule (an error naming
    the column and rows, or ``--na drop``), as an empty CSV cell."""
    values = [None if m else (i if dtype == "Int64" else i + 0.25) for i, m in enumerate(NULL)]
    if dtype == "string":
        values = [None if v is None else str(v) for v in values]
    frame = pd.DataFrame({"a": _FEATURES[:, 0], "f": pd.Series(values, dtype=dtype),
                          "label": TEXT["text"]})
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    (tmp_path / "t.csv").write_text("a,f,label\n" + "".join(
        f"{a!r},{'' if v is None else v},{c}\n" for a, v, c in
        zip(_FEATURES[:, 0].tolist(), values, TEXT["text"])))
    rows = np.flatnonzero(NULL)
    with pytest.raises(ValueError, match=r"missing cells in column\(s\) f on line\(s\) "
                       + ", ".join(str(r + 1) for r in rows[:5])):
        read_table(tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"missing cells in column\(s\) f on line\(s\) "
                       + ", ".join(str(r + 2) for r in rows[:5])):
        read_table(tmp_path / "t.csv")
    got = read_table(tmp_path / "t.parquet", ReadOptions(na="drop"))
    want = read_table(tmp_path / "t.csv", ReadOptions(na="drop"))
    assert got.X.shape == (N - len(rows), 2)
    assert np.array_equal(got.X, want.X) and np.array_equal(got.y, want.y)
