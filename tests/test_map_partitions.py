"""The map of a dask.array written as Parquet partitions (graphdr.maps.partitions) against the
in-memory fit of the same sample, and brute-force counts of its page's figures."""


import numpy as np
import pytest

from graphdr import DEEMap, map2d

da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _data(n=400, d=5, dtype=np.float64, unlabelled=True):
    rng = np.random.default_rng(1)
    y = np.array(["cat", "dog", "eel", "fox"], dtype=object)[np.arange(n) % 4]
    X = rng.normal(size=(n, d)) + 2.0 * rng.normal(size=(4, d))[np.arange(n) % 4]
    if unlabelled:
        y[::9] = "-1"
    return X.astype(dtype), y


def _read(folder):
    parts = sorted(folder.glob("part-*.parquet"))
    return pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True), len(parts)


def _page_data(path):
    text = path.read_text(encoding="utf-8")
    from graphdr.maps.views.page_data import read_page_data

    return text, read_page_data(text)


PARAMS = dict(n_neighbors=6, max_iter=15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.slow
def test_partitions_hold_the_in_memory_places_bit_for_bit(tmp_path, dtype):
    X, y = _data(dtype=dtype)
    ids = np.array([f"s{i}" for i in range(len(X))], dtype=object)
    model = map2d(da.from_array(X, chunks=(70, 5)), y, out=tmp_path / "m", ids=ids,
                  fit_samples=150, page_points=120, **PARAMS)
    rows = model.fit_rows_
    ref = DEEMap(fit_samples=150, **PARAMS).fit(X[rows], y[rows])
    want = ref.transform(X)
    want[rows] = ref.embedding_
    got, n_parts = _read(tmp_path / "m.parquet")
    assert n_parts == 6 and list(got.columns[:4]) == ["id", "label", "x", "y"]
    assert got["x"].dtype == dtype
    assert np.array_equal(got[["x", "y"]].to_numpy(), want)
    assert list(got["id"]) == list(ids) and list(got["label"]) == list(y)
    # each unlabelled row: the class most frequent among its 10 nearest labelled training
    # samples on the map (ties: the nearest's), with its share
    lab = rows[y[rows] != "-1"]
    for i in np.flatnonzero(y == "-1")[:12]:
        near = lab[np.argsort(np.sum((want[lab] - want[i]) ** 2, axis=1), kind="stable")[:10]]
        votes = pd.Series(y[near]).value_counts()
        best = votes[votes == votes.max()].index
        expect = y[near[0]] if y[near[0]] in best else sorted(best)[0]
        assert got.loc[i, "map vote"] == expect
        assert got.loc[i, "vote share"] == votes.max() / 10
    assert got.loc[y != "-1", "map vote"].isna().all()
    # the page: a uniform sample of 120 rows, counts and held-out error of all rows
    text, data = _page_data(tmp_path / "m.html")
    assert len(data["rows"]) > 0 and data["classes"][-1] == "unlabelled"
    assert sum(data["counts"]) == len(X)
    assert data["counts"][:4] == [int(np.sum(y == c)) for c in ["cat", "dog", "eel", "fox"]]
    held = np.setdiff1d(np.flatnonzero(y != "-1"), rows)
    nearest = lab[np.argmin(((want[held][:, None] - want[lab][None]) ** 2).sum(-1), axis=1)]
    error = np.mean(y[nearest] != y[held])
    assert f"<b>{100 * error:.1f} %</b>" in text and f"The {len(held)} labelled samples" in text
    assert "m.parquet" in text and (tmp_path / "m.png").stat().st_size > 1000
    # the page's hover: each drawn unlabelled row's map vote and share, named as in the
    # partitions and explained on the page (not the in-memory map's propagation)

    from graphdr.maps.views.fitted import MAP_VOTE_NOTE, PROPAGATION_NOTE

    assert data["hover_names"] == ["map vote", "vote share"]
    codes = data["label"]
    drawn_unlabelled = codes == data["classes"].index("unlabelled")
    votes = np.asarray(data["hover"]["map vote"], dtype=object)[data["rows"]]  # (page order)
    assert np.array_equal(votes != "", drawn_unlabelled) and drawn_unlabelled.any()
    assert set(votes[drawn_unlabelled]) <= {"cat", "dog", "eel", "fox"}
    assert MAP_VOTE_NOTE.format(k=10)[:100] in text and PROPAGATION_NOTE[:100] not in text


def test_page_sample_and_all_rows_fitted(tmp_path):
    X, y = _data(n=200, unlabelled=False)
    map2d(da.from_array(X, chunks=(64, 5)), y, out=tmp_path / "a", page_points=50, png=False,
          **PARAMS)
    _, data = _page_data(tmp_path / "a.html")
    assert len(data["ids"]) == 50 and sum(data["counts"]) == 200
    # the same rows whatever the order and chunking: those of smallest content key
    order = np.random.default_rng(0).permutation(200)
    map2d(da.from_array(X[order], chunks=(50, 5)), y[order], out=tmp_path / "b",
          page_points=50, png=False, ids=order, **PARAMS)
    _, other = _page_data(tmp_path / "b.html")
    assert sorted(other["ids"]) == sorted(data["ids"])
    # every row fitted (n <= fit_samples): the page states the leave-one-out errors
    text = (tmp_path / "a.html").read_text()
    assert "leave-one-out" in text and not (tmp_path / "a.png").exists()


@pytest.mark.slow
def test_nothing_half_written_and_an_earlier_map_kept(tmp_path, monkeypatch):
    from graphdr.maps import partitions as map_partitions

    X, y = _data(n=200)
    Xd = da.from_array(X, chunks=(40, 5))
    map2d(Xd, y, out=tmp_path / "m", png=False, **PARAMS)
    before = {p.name: p.read_bytes() for p in (tmp_path / "m.parquet").iterdir()}
    page = (tmp_path / "m.html").read_bytes()
    calls = []
    real = map_partitions._write_part

    def failing(path, *args):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the partitions
        return real(path, *args)

    monkeypatch.setattr(map_partitions, "_write_part", failing)
    with pytest.raises(KeyboardInterrupt):
        map2d(Xd, np.where(y == "cat", "lynx", y), out=tmp_path / "m", png=False, **PARAMS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.html", "m.parquet"]
    assert {p.name: p.read_bytes() for p in (tmp_path / "m.parquet").iterdir()} == before
    assert (tmp_path / "m.html").read_bytes() == page
    monkeypatch.setattr(map_partitions, "_write_part", real)
    map2d(Xd, np.where(y == "cat", "lynx", y), out=tmp_path / "m", png=False, **PARAMS)
    got, _ = _read(tmp_path / "m.parquet")
    assert "lynx" in set(got["label"]) and sorted(p.name for p in tmp_path.iterdir()) == [
        "m.html", "m.parquet"]


@pytest.mark.slow
def test_the_placement_progress_starts_with_the_placement(monkeypatch):
    """The progress bar of the placement is timed from when the placement starts (its
    estimate read 9:39:04 when it counted the fit too): 0 first, after the fit, then each
    block's rows, summing to every row."""
    from graphdr import DEEMap
    from graphdr.cli.map_command import _progress
    from graphdr.maps.dask_fit import fit_dask
    from graphdr.maps.partitions import write_dask_map

    X, y = _data(n=200)
    Xd = da.from_array(X, chunks=(60, 5))
    model = DEEMap(fit_samples=120, **PARAMS)
    fit_dask(model, Xd, y)
    import tempfile
    import time
    import types

    calls = []
    with tempfile.TemporaryDirectory() as folder:
        write_dask_map(model, Xd, y, f"{folder}/m", progress=calls.append, png=False)
    assert calls[0] == 0 and all(c > 0 for c in calls[1:]) and sum(calls) == 200
    with _progress(types.SimpleNamespace(quiet=False, repulsion="gaussian"), 200) as (fitted,
                                                                                placed):
        fitted(None, {"objective": 1.0})
        time.sleep(0.3)  # a fit that took time
        placed(0)
        placed(100)
        # the bar of the placement, from the callback's closure
        bar = next(c.cell_contents for c in placed.__closure__
                   if hasattr(c.cell_contents, "format_dict"))
        assert bar.n == 100 and bar.format_dict["elapsed"] < 0.25
