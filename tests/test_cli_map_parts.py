"""``graphdr map`` past memory: a folder of Parquet files or a glob of CSV files on a Dask
cluster, against the in-memory ``graphdr map`` of the same rows in one file."""

import os

import numpy as np
import pytest

from graphdr.cli import main

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
distributed = pytest.importorskip("distributed")


def _tables(folder, k=3, n=90, seed=0):
    rng = np.random.default_rng(seed)
    folder.mkdir()
    frames = []
    for i in range(k):
        y = rng.integers(0, 3, n)
        X = rng.normal(size=(n, 4)) + 2.5 * np.eye(4)[y]
        f = pd.DataFrame(X.round(5), columns=["a", "b", "c", "d"])
        f.insert(0, "id", [f"r{i}-{j}" for j in range(n)])
        f["kind"] = np.array(["ant", "bee", "cow"])[y]
        f.loc[5::17, "kind"] = None  # unlabelled rows
        frames.append(f)
    return frames


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.err


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow
def test_parquet_folder_on_a_scheduler_equals_the_in_memory_map(tmp_path, capsys, scheduler):
    frames = _tables(tmp_path / "parts")
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    pd.concat(frames).to_csv(tmp_path / "all.csv", index=False)
    args = ["--label-column", "kind", "--no-png", "--quiet"]
    assert main(["map", str(tmp_path / "all.csv"), "--out", str(tmp_path / "mem")] + args) == 0
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "big"),
                     "--scheduler", scheduler] + args, capsys)
    assert code == 0, err
    want = pd.read_csv(tmp_path / "mem.csv", keep_default_na=False)
    got = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "big.parquet").iterdir())],
                    ignore_index=True)
    assert list(got.columns[:4]) == ["id", "label", "x", "y"]
    assert list(got["id"]) == list(want["id"])
    assert np.array_equal(got[["x", "y"]].to_numpy(), want[["x", "y"]].to_numpy())
    # an unlabelled row keeps its input cell: empty stays empty (null), as in the CSV
    assert list(got["label"].fillna("")) == list(pd.concat(frames)["kind"].fillna(""))
    assert list(want["label"]) == list(pd.concat(frames)["kind"].fillna(""))
    unlabelled = got["label"].isna()
    assert got.loc[unlabelled, "map vote"].isin(["ant", "bee", "cow"]).all()
    assert got.loc[~unlabelled, "map vote"].isna().all()
    page = (tmp_path / "big.html").read_text()
    assert "big.parquet" in page and '"label_name":"kind"' in page


@pytest.mark.slow
def test_integer_ids_keep_their_name_and_type_and_are_never_features(tmp_path, capsys,
                                                                     scheduler):
    """A Spark-style folder with an int64 ``pixel_id``: on both routes the id column keeps its
    name, on the Dask route its type (it sorts as numbers), and it is not fitted."""
    frames = _tables(tmp_path / "parts")
    rng = np.random.default_rng(1)
    ids = rng.permutation(10**6)[:sum(len(f) for f in frames)].astype(np.int64)
    start = 0
    for i, f in enumerate(frames):
        f.pop("id")
        f.insert(2, "pixel_id", ids[start:start + len(f)])
        start += len(f)
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    args = ["--label-column", "kind", "--no-png", "--quiet"]
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "big"),
                     "--scheduler", scheduler] + args, capsys)
    assert code == 0, err
    got = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "big.parquet").iterdir())],
                    ignore_index=True)
    assert list(got.columns[:4]) == ["pixel_id", "label", "x", "y"]
    assert got["pixel_id"].dtype == np.int64 and np.array_equal(got["pixel_id"], ids)
    assert main(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "mem")] + args) == 0
    want = pd.read_csv(tmp_path / "mem.csv", keep_default_na=False)
    assert list(want.columns[:2]) == ["pixel_id", "label"]
    assert np.array_equal(want["pixel_id"].to_numpy(), ids)
    assert np.array_equal(got[["x", "y"]].to_numpy(), want[["x", "y"]].to_numpy())
    page = (tmp_path / "big.html").read_text()
    assert "4 features" in page  # a, b, c, d: the ids were not fitted


def _page_data(path):
    from graphdr.maps.views.page_data import read_page_data

    data = read_page_data(path.read_text())
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in data.items()}


def _hover_tables(tmp_path, suffix):
    """Two files with a hover column (text) and a colour column (numbers, binned), and the
    same rows in one CSV file."""
    frames = _tables(tmp_path / "parts", k=2, n=60)
    rng = np.random.default_rng(2)
    for i, f in enumerate(frames):
        f["Depth"] = rng.uniform(0, 100, len(f)).round(2)
        f["site"] = [f"site {i}-{j % 7}" for j in range(len(f))]
        if suffix == ".parquet":
            f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
        else:
            f.to_csv(tmp_path / "parts" / f"part-{i}.csv", index=False)
    pd.concat(frames).to_csv(tmp_path / "all.csv", index=False)
    return frames


@pytest.mark.parametrize("kind", ["parquet folder", "parquet glob", "csv folder", "csv glob"])
def test_hover_and_colour_columns_of_a_folder_or_glob(tmp_path, kind):
    """The hover and colour columns of a table in several files, mapped in memory, are those
    of the same rows in one file (by name, any case, or by index)."""
    from graphdr.bench.datasets import load_dataset
    from graphdr.cli.map_command import _hover_columns
    from graphdr.io.files import ReadOptions

    suffix = ".parquet" if kind.startswith("parquet") else ".csv"
    _hover_tables(tmp_path, suffix)
    source = tmp_path / "parts"
    source = str(source / f"*{suffix}") if kind.endswith("glob") else str(source)
    options = ReadOptions(label_column="kind", hover_columns=("site", "depth"), unlabelled=True)
    want = load_dataset(str(tmp_path / "all.csv"), options=options)
    got = load_dataset(source, options=options)
    assert got.feature_names == want.feature_names == ["a", "b", "c", "d"]
    for names in (["site"], ["depth"], ["-1", "DEPTH"]):
        shown = _hover_columns(got, names)
        assert list(shown) == list(_hover_columns(want, names))
        for name, values in shown.items():
            assert list(values) == list(_hover_columns(want, names)[name]), name
    assert list(_hover_columns(got, ["site"])["site"]) == \
        [f"site {i}-{j % 7}" for i in range(2) for j in range(60)]
    with pytest.raises(ValueError, match="--color-column: no column 'nope'"):
        _hover_columns(got, ["nope"], "--color-column")


def test_a_folder_mapped_with_hover_and_colour_columns_draws_the_pages_of_one_file(
        tmp_path, capsys):
    """The sweep's case: ``graphdr map`` of a Parquet glob with --color-column and
    --hover-columns maps (it said "no column 'a' in ..."), the page's data that of one file."""
    _hover_tables(tmp_path, ".parquet")
    args = ["--label-column", "kind", "--hover-columns", "site", "--color-column", "depth",
            "--labels", "given", "--outputs", "page", "--quiet"]
    code, err = run(["map", str(tmp_path / "all.csv"), "--out", str(tmp_path / "one")] + args,
                    capsys)
    assert code == 0, err
    code, err = run(["map", str(tmp_path / "parts" / "*.parquet"), "--out",
                     str(tmp_path / "many")] + args, capsys)
    assert code == 0, err
    want, got = _page_data(tmp_path / "one.html"), _page_data(tmp_path / "many.html")
    assert len(want["classes"]) == 9 and all(" – " in c for c in want["classes"])
    for key in ("x", "y", "label", "rows", "classes", "counts", "hover_names", "hover"):
        assert got[key] == want[key], key
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"),
                     "--hover-columns", "nope", "--label-column", "kind"], capsys)
    assert code == 2 and "no hover or colour column 'nope'" in err, err


@pytest.mark.slow
def test_null_labels_of_nullable_types_are_unlabelled_on_the_dask_route(tmp_path, capsys,
                                                                        scheduler):
    """pandas' nullable ``string`` labels in one file, Arrow's dictionary-encoded text in
    another (as Spark writes it): a null is an unlabelled row (its label null in the
    partitions, a map vote given), never a class ``<NA>``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frames = _tables(tmp_path / "parts", k=2, n=90)
    whole = pd.concat(frames, ignore_index=True)
    null = whole["kind"].isna().to_numpy()
    frames[0]["kind"] = frames[0]["kind"].astype("string")
    frames[0].to_parquet(tmp_path / "parts" / "part-0.parquet", index=False)
    table = pa.Table.from_pandas(frames[1], preserve_index=False).replace_schema_metadata()
    table = table.set_column(table.schema.get_field_index("kind"), "kind",
                             table["kind"].dictionary_encode())
    pq.write_table(table, tmp_path / "parts" / "part-1.parquet", flavor="spark",
                   store_schema=False)
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "big"),
                     "--label-column", "kind", "--scheduler", scheduler, "--no-png"], capsys)
    assert code == 0, err
    assert f"180 samples ({int(null.sum())} unlabelled), 3 classes" in err, err
    got = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "big.parquet").iterdir())],
                    ignore_index=True)
    assert list(got["label"].isna()) == list(null)
    assert list(got["label"][~null]) == list(whole["kind"][~null])
    assert got.loc[null, "map vote"].isin(["ant", "bee", "cow"]).all()


@pytest.mark.slow
def test_a_part_without_labels_and_the_heavy_tailed_map_of_a_folder(tmp_path, capsys,
                                                                    scheduler):
    """A file of the folder whose labels are all empty is read (the folder has labels in its
    other files); a folder without any label is refused for the Gaussian map and mapped by
    the default heavy-tailed one on the scheduler, as the in-memory map of the same rows."""
    frames = _tables(tmp_path / "parts", k=3, n=60)
    frames[1]["kind"] = None
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    args = ["--label-column", "kind", "--no-png", "--quiet", "--labels", "given"]
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "some"),
                     "--scheduler", scheduler] + args, capsys)
    assert code == 0, err
    for i, f in enumerate(frames):
        f["kind"] = None
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "none"),
                     "--scheduler", scheduler, "--repulsion", "gaussian"] + args, capsys)
    assert code == 2 and "unlabelled (-1 or empty) in every file" in err, err
    pd.concat(frames).to_csv(tmp_path / "all.csv", index=False)
    heavy = []  # (the default objective)
    assert main(["map", str(tmp_path / "all.csv"), "--out", str(tmp_path / "mem")] + args
                + heavy) == 0
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "none"),
                     "--scheduler", scheduler] + args + heavy, capsys)
    assert code == 0, err
    want = pd.read_csv(tmp_path / "mem.csv", keep_default_na=False)
    got = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "none.parquet").iterdir())],
                    ignore_index=True)
    assert list(got["id"]) == list(want["id"]) and got["label"].isna().all()
    assert np.array_equal(got[["x", "y"]].to_numpy(), want[["x", "y"]].to_numpy())
    assert "without labels" in (tmp_path / "none.html").read_text()

@pytest.mark.parametrize("route", ["memory", "dask"])
@pytest.mark.slow
def test_outputs_asks_for_the_picture_alone(tmp_path, capsys, scheduler, route):
    """What UMAP and openTSNE users reach for first: a PNG and nothing else."""
    import matplotlib.image as mpimg

    frames = _tables(tmp_path / "parts")
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    extra = ["--scheduler", scheduler] if route == "dask" else []
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"),
                     "--label-column", "kind", "--outputs", "png"] + extra, capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.png", "parts"]
    picture = mpimg.imread(tmp_path / "m.png")
    assert picture.ndim == 3 and picture.shape[0] > 100 and picture[..., :3].std() > 0.05
    assert err.strip().endswith(f"wrote {tmp_path / 'm.png'}")
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "n"),
                     "--label-column", "kind", "--outputs", "png", "--no-png"], capsys)
    assert code == 2 and "nothing left to write" in err


@pytest.mark.slow  # several seconds of fitting: in `make test-slow` (CI runs it)
def test_csv_glob_past_the_memory_budget_starts_a_local_cluster(tmp_path, capsys,
                                                                monkeypatch):
    from graphdr.io import file_parts

    # the memory model at a test's size: a worker's own memory and the table's rows free,
    # no margin, at least 50 rows fitted (of 180): the cluster is then the lighter route
    for name, value in [("WORKER_BYTES", 0), ("TABLE_ROW_BYTES", 0), ("PAGE_ROW_BYTES", 0),
                        ("FIT_ROWS_MIN", 50), ("IN_MEMORY_SHARE", 1.0)]:
        monkeypatch.setattr(file_parts, name, value)
    frames = _tables(tmp_path / "csv", k=2)
    for i, f in enumerate(frames):
        f.to_csv(tmp_path / "csv" / f"p{i}.csv", sep=";", decimal=",", index=False)
    code, err = run(["map", str(tmp_path / "csv" / "p*.csv"), "--out", str(tmp_path / "m"),
                     "--label-column", "kind", "--memory-budget", "1KB", "--workers", "1",
                     "--no-png"], capsys)
    assert code == 0, err
    assert "started a local Dask cluster of 1 workers" in err and "m.parquet" in err
    assert "fitting on 50 of the 180 rows" in err
    got = pd.read_parquet(tmp_path / "m.parquet" / "part-00001.parquet")
    assert len(got) == 90 and got["id"].iloc[0] == "r1-0"
    # under the budget the same files are mapped in memory: a CSV, no cluster
    code, err = run(["map", str(tmp_path / "csv"), "--out", str(tmp_path / "small"),
                     "--label-column", "kind", "--no-png"], capsys)
    assert code == 0, err
    assert "cluster" not in err and (tmp_path / "small.csv").exists()
    assert len(pd.read_csv(tmp_path / "small.csv")) == 180


def test_bad_input_is_one_line_before_any_map(tmp_path, capsys):
    frames = _tables(tmp_path / "parts")
    frames[2]["b"] = frames[2]["b"].astype(str)
    frames[2].loc[40, "b"] = "oops"
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    base = ["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"), "--label-column",
            "kind", "--scheduler", "local"]
    code, err = run(base, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "part-2.parquet: column 'b' is not numeric (line 41: 'oops')" in err
    frames[2]["b"] = 0.5
    frames[2].to_parquet(tmp_path / "parts" / "part-2.parquet", index=False)
    code, err = run(base + ["--hover-columns", "a"], capsys)
    assert code == 2 and "--hover-columns: not available" in err
    with pytest.raises(SystemExit) as exc:
        main(base + ["--memory-budget", "lots"])
    assert exc.value.code == 2 and "a size such as 3GiB" in capsys.readouterr().err
    assert not list(tmp_path.glob("m*"))


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys):
    frames = _tables(tmp_path / "parts", k=1)
    frames[0].to_parquet(tmp_path / "parts" / "p.parquet", index=False)
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"),
                     "--label-column", "kind", "--scheduler", "tcp://127.0.0.1:9", "--quiet"],
                    capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--scheduler tcp://127.0.0.1:9: no Dask scheduler answers there" in err


@pytest.mark.slow
def test_ctrl_c_on_the_dask_route_is_one_line_and_leaves_nothing(tmp_path):
    """SIGINT to the whole foreground group (what a terminal's Ctrl-C does) at several
    moments, the workers' start among them: exit 130 (never lost: a run that was signalled
    does not finish), one line, no worker's traceback, no scratch folder, the earlier map
    byte for byte as it was."""
    import os
    import signal
    import subprocess
    import sys
    import time

    frames = _tables(tmp_path / "parts", k=4, n=4000)
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    (tmp_path / "m.html").write_text("the earlier map")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), PYTHONWARNINGS="ignore")
    cmd = [sys.executable, "-m", "graphdr.cli", "map", "parts", "--out", "m", "--label-column",
           "kind", "--scheduler", "local", "--workers", "2", "--quiet"]
    interrupted = 0
    for delay in (0.3, 0.9, 1.5, 2.1, 2.7):
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(delay)
        signalled = proc.poll() is None
        if signalled:
            os.killpg(proc.pid, signal.SIGINT)
        err = proc.communicate(timeout=120)[1]
        if not signalled:  # finished before the signal
            break
        interrupted += 1
        # 130, or killed by SIGINT as CPython ends after a Ctrl-C in some C calls: a shell
        # reports both as 130
        assert proc.returncode in (130, -signal.SIGINT), err
        assert err.strip().splitlines() == [
            "graphdr map: interrupted; nothing was written (an earlier map at --out is as it "
            "was)."] or err.strip() == "graphdr: interrupted.", err
        assert (tmp_path / "m.html").read_text() == "the earlier map"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["m.html", "parts", "tmp"]
        assert list(scratch.iterdir()) == []  # no dask-scratch-space, nothing of graphdr's
    assert interrupted >= 2


def test_ctrl_c_while_a_module_initialises_is_an_interrupt_not_a_traceback(tmp_path, capsys,
                                                                          monkeypatch):
    """A Ctrl-C that lands while an extension module initialises (a late import of the Dask
    route) reaches Python as ``ImportError: initialization failed`` caused by the
    ``KeyboardInterrupt``: the interrupt's one line and 130; any other ImportError is raised."""
    import graphdr.cli.command as command

    def interrupted_import(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise ImportError("initialization failed") from exc

    monkeypatch.setattr(command, "run_map", interrupted_import)
    code, err = run(["map", str(tmp_path / "t.csv"), "--out", str(tmp_path / "m")], capsys)
    assert code == 130
    assert err.strip() == ("graphdr map: interrupted; nothing was written (an earlier map at "
                           "--out is as it was).")

    def missing(args):
        raise ImportError("no module named nowhere")

    monkeypatch.setattr(command, "run_map", missing)
    with pytest.raises(ImportError, match="nowhere"):
        main(["map", str(tmp_path / "t.csv"), "--out", str(tmp_path / "m")])


@pytest.mark.slow
def test_a_lost_worker_under_the_placement_is_one_line(tmp_path, capsys, monkeypatch,
                                                       scheduler):
    """What a worker killed past Dask's retries gives (KilledWorker), and a piece cancelled
    under the placement: one line, exit 1, never an unpacking TypeError."""
    import dask

    from graphdr.cli.map_command import _on_cluster
    from graphdr.maps import partitions as map_partitions
    from graphdr.maps.partitions import ClusterFailure, _in_order

    def killed():
        import types

        worker = types.SimpleNamespace(address="tcp://127.0.0.1:1")
        raise distributed.KilledWorker("place-0", worker, 3)

    with distributed.Client(scheduler):
        blocks = [dask.delayed(abs)(-1), dask.delayed(killed)()]
        with pytest.raises(ClusterFailure, match="lost workers.*KilledWorker"):
            _on_cluster(lambda: list(_in_order(blocks)))
    frames = _tables(tmp_path / "parts", k=2, n=60)
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)

    def cancelled(blocks):
        raise ClusterFailure("the Dask cluster lost piece 1 of the placement (cancelled)")
        yield

    monkeypatch.setattr(map_partitions, "_in_order", cancelled)
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"),
                     "--label-column", "kind", "--scheduler", scheduler, "--quiet"], capsys)
    assert code == 1 and err.strip().splitlines() == [
        "graphdr map: error: the Dask cluster lost piece 1 of the placement (cancelled)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parts"]


def test_worker_memory_below_a_workers_own_footprint_is_refused_at_once(tmp_path, capsys):
    """--worker-memory 1KB used to stall for ten minutes: refused in one line before any
    cluster starts."""
    frames = _tables(tmp_path / "parts", k=1, n=30)
    frames[0].to_parquet(tmp_path / "parts" / "p.parquet", index=False)
    for size in ("1KB", "300MB"):
        code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"),
                         "--label-column", "kind", "--scheduler", "local",
                         "--worker-memory", size], capsys)
        assert code == 2 and "a worker needs at least 1 GiB" in err, err
        assert len(err.strip().splitlines()) == 1


@pytest.mark.slow  # a Dask map at two budgets, 5 s: in `make test-slow` (CI runs it)
def test_fit_samples_auto_fits_what_the_memory_budget_holds(tmp_path, capsys, scheduler,
                                                            monkeypatch):
    """--fit-samples auto (the default): with a budget too small for the whole fit, the map is
    fitted on the rows the budget holds (here its least, set to 60 of 270) and says so; an
    explicit number is kept; a bad one is one line."""
    from graphdr.io import file_parts

    frames = _tables(tmp_path / "parts")
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    monkeypatch.setattr(file_parts, "FIT_ROWS_MIN", 60)
    args = ["map", str(tmp_path / "parts"), "--label-column", "kind", "--no-png",
            "--memory-budget", "1KB", "--scheduler", scheduler]
    code, err = run(args + ["--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    assert "fitting on 60 of the 270 rows" in err and "--fit-samples N to choose" in err
    assert "fitted on 6" in err  # about 60: every class kept, by content
    fitted = int(err.split("fitted on ")[-1].split()[0])
    assert 55 <= fitted <= 65
    page = (tmp_path / "a.html").read_text()
    assert "labelled samples the map was not fitted on were placed" in page  # held out
    code, err = run(args + ["--out", str(tmp_path / "b"), "--fit-samples", "1000"], capsys)
    assert code == 0 and "fitting on" not in err and "fitted on 270" in err, err
    with pytest.raises(SystemExit) as exc:
        main(args + ["--out", str(tmp_path / "c"), "--fit-samples", "many"])
    assert exc.value.code == 2
    assert "a positive integer or auto; got 'many'" in capsys.readouterr().err


def test_fit_samples_auto_caps_the_heavy_tailed_map(tmp_path, capsys, scheduler, monkeypatch):
    """--repulsion cauchy with --fit-samples auto: the rows the budget holds, at most the
    heavy-tailed map's own fit_samples='auto' (here patched to 80 of 270), said so."""
    from graphdr.io import file_parts
    from graphdr.maps import dask_fit

    frames = _tables(tmp_path / "parts")
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    monkeypatch.setattr(file_parts, "FIT_ROWS_MIN", 200)
    monkeypatch.setattr(dask_fit, "HEAVY_FIT_SAMPLES", 80)
    code, err = run(["map", str(tmp_path / "parts"), "--label-column", "kind", "--no-png",
                     "--memory-budget", "1KB", "--scheduler", scheduler, "--repulsion",
                     "cauchy", "--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    assert "fitting on 80 of the 270 rows" in err
    assert "the heavy-tailed map's fit_samples='auto'" in err
    fitted = int(err.split("fitted on ")[-1].split()[0])
    assert 75 <= fitted <= 85


@pytest.mark.slow
def test_past_the_budget_but_lighter_in_memory_is_mapped_in_memory(tmp_path, capsys):
    """A table past --memory-budget whose local cluster would take more memory in all (its
    workers' own memory alone outweighs the map of 270 rows) is mapped in memory, with a line
    saying why; --scheduler local takes the cluster all the same."""
    frames = _tables(tmp_path / "parts")
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    code, err = run(["map", str(tmp_path / "parts"), "--out", str(tmp_path / "m"),
                     "--label-column", "kind", "--no-png", "--memory-budget", "1KB",
                     "--workers", "2"], capsys)
    assert code == 0, err
    assert "is past --memory-budget" in err and "would take more" in err
    assert "mapped in memory" in err and "cluster of 2 workers" in err
    assert "started a local Dask cluster" not in err
    assert (tmp_path / "m.csv").exists() and not (tmp_path / "m.parquet").exists()
    assert len(pd.read_csv(tmp_path / "m.csv")) == 270


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_a_ctrl_c_while_the_workers_start_is_raised_after_and_they_ignore_it(tmp_path):
    """A Ctrl-C during the workers' start is raised once they have started (it was lost when
    graphdr's process ignored SIGINT during those seconds); a process spawned meanwhile
    ignores SIGINT, so the terminal's Ctrl-C does not reach the workers."""
    import multiprocessing
    import signal
    import time

    from graphdr.cli.dask_cluster import _workers_ignore_ctrl_c

    previous = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        with _workers_ignore_ctrl_c(str(tmp_path)):
            child = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(30,))
            child.start()
            try:
                os.kill(os.getpid(), signal.SIGINT)  # the terminal's Ctrl-C, to graphdr
                time.sleep(0.2)
                ignored = 0
                for line in open(f"/proc/{child.pid}/status"):
                    if line.startswith("SigIgn:"):
                        ignored = int(line.split()[1], 16)
            finally:
                child.kill()
                child.join()
    assert ignored & (1 << (signal.SIGINT - 1)), "the spawned process does not ignore SIGINT"
    assert signal.getsignal(signal.SIGINT) is previous


def test_an_error_that_a_ctrl_c_caused_is_an_interruption(monkeypatch, capsys):
    """A Ctrl-C that an extension answers with an error of its own (scikit-learn's trees
    raised a ValueError about a buffer format) still ends the run as interrupted: 130 and one
    line, not exit 2 with the extension's message; without a Ctrl-C the error is the
    command's error."""
    from graphdr import _outputs
    from graphdr.cli import command

    def stopped(args):
        _outputs.INTERRUPTS.append(2)
        raise ValueError("'T{q:idx_start:}' is not a valid PEP 3118 buffer format string")

    monkeypatch.setattr(command, "run_map", stopped)
    monkeypatch.setattr(_outputs, "INTERRUPTS", [])
    assert command.main(["map", "parts", "--out", "m"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "PEP 3118" not in err and len(err.strip().splitlines()) == 1

    def failed(args):
        raise ValueError("column 'kind' is missing")

    monkeypatch.setattr(command, "run_map", failed)
    monkeypatch.setattr(_outputs, "INTERRUPTS", [])
    assert command.main(["map", "parts", "--out", "m"]) == 2
    assert "column 'kind' is missing" in capsys.readouterr().err
