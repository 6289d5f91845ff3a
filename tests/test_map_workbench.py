"""The map page as a workbench: selection, the listed rows, a sample's neighbours in the
features, label fixes (the page's download and ``graphdr map --label-fixes``), the selection's
download, and hostile text in all of them."""

import csv
import io
import math

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphdr import DEEMap
from graphdr._outputs import from_spreadsheet_safe, spreadsheet_safe
from graphdr.io.label_fixes import apply_label_fixes, read_label_fixes
from graphdr.maps.views.draw import write_map
from graphdr.maps.views.fitted import feature_neighbours
from graphdr.maps.views.page import map_page_html
from graphdr.maps.views.page_data import NO_ROW, page_grid, read_page_data
from graphdr.maps.views.select import points_inside

HOSTILE = ["<img src=x onerror=window.pwned=1>", "=HYPERLINK(\"http://x\")", "+1+2", "@SUM(A1)",
           "-cmd", "'=x", "a,b", 'say "hi"', "line\nbreak", "</script><script>window.pwned=2"
           "</script>", "-1.5e3", "\tTAB", "ok"]


def _fixes_file(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "old label", "new label"])
        for row in rows:
            w.writerow([spreadsheet_safe(v) for v in row])
    return path


def test_label_fixes_applied_whole(tmp_path):
    labels = np.array(["a", "b", "-1", "=evil", "b"], dtype=object)
    ids = np.array(["x0", "x1", "x2", "x3", "x4"], dtype=object)
    empty = np.array([False, False, True, False, False])
    path = _fixes_file(tmp_path / "f.csv", [("x0", "a", "b"), ("x2", "", "a"),
                                             ("x3", "=evil", "+new"), ("x4", "b", "")])
    new, new_empty, changed = apply_label_fixes(path, labels, ids, empty)
    assert new.tolist() == ["b", "b", "a", "+new", "-1"] and changed == 4
    assert new_empty.tolist() == [False, False, False, False, True]
    assert labels.tolist() == ["a", "b", "-1", "=evil", "b"] and empty[2]  # (not mutated)
    # numbers stay numbers; the row numbers name the rows without an id column
    path = _fixes_file(tmp_path / "n.csv", [("1", "2", "0"), ("0", "", "2")])
    new, _, changed = apply_label_fixes(path, np.array([-1, 2, 1]))
    assert new.tolist() == [2, 0, 1] and new.dtype.kind == "i" and changed == 2
    path = _fixes_file(tmp_path / "t.csv", [("2", "1", "cat")])  # a text class among numbers
    new, _, _ = apply_label_fixes(path, np.array([0, 2, 1]))
    assert new.tolist() == ["0", "2", "cat"]


@pytest.mark.parametrize("rows, says", [
    ([("x9", "a", "b")], "line 2: id 'x9' is not one of"),
    ([("x0", "a", "b"), ("x0", "a", "c")], "line 3: id 'x0' is fixed twice (line 2 too)"),
    ([("x1", "a", "c")], "line 2: id 'x1': the file says its label was 'a', the data says 'b'"),
    ([("x2", "-1", "a")], "the file says its label was '-1', the data says ''"),
])
def test_label_fixes_refused_with_the_line_and_nothing_changed(tmp_path, rows, says):
    labels = np.array(["a", "b", "-1"], dtype=object)
    path = _fixes_file(tmp_path / "f.csv", rows)
    with pytest.raises(ValueError, match="nothing applied") as err:
        apply_label_fixes(path, labels, np.array(["x0", "x1", "x2"]))
    assert says in str(err.value) and str(path) in str(err.value)
    assert labels.tolist() == ["a", "b", "-1"]


def test_label_fixes_file_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    for text, says in [("", "empty"), ("id,label\n", "line 1: the header must be"),
                       ("id,old label,new label\nx0,a\n", "line 2: 2 cells")]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=says):
            read_label_fixes(bad)
    bad.write_bytes(b"id,old label,new label\nx0,\xff\xfe,a\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_label_fixes(bad)
    with pytest.raises(ValueError, match="no such label-fixes file"):
        read_label_fixes(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="names 2 rows"):
        apply_label_fixes(_fixes_file(tmp_path / "f.csv", [("d", "a", "b")]),
                          np.array(["a", "a"]), np.array(["d", "d"]))


@pytest.fixture(scope="module")
def fitted():
    X, y = make_blobs(n_samples=240, centers=3, n_features=5, cluster_std=2.5, random_state=3)
    names = np.array(["alpha", "beta", "gamma"])[y].astype(object)
    names[:6] = names[[100, 101, 102, 103, 104, 105]]  # some labels the data contradicts
    model = DEEMap(repulsion="gaussian", labels="flag").fit(X, names)
    return X, names, model


def test_feature_neighbours_against_brute_force_and_row_order(fitted):
    X, names, model = fitted
    index, distance = feature_neighbours(model, 4)
    F = model._training_features()
    D = np.sqrt(((F[:, None, :] - F[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    want = np.sort(D, axis=1)[:, :4]
    np.testing.assert_allclose(distance, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(D[np.arange(len(F))[:, None], index], want, rtol=1e-9)
    perm = np.random.default_rng(1).permutation(len(X))  # the same neighbours, rows moved
    other = DEEMap(repulsion="gaussian", labels="given").fit(X[perm], names[perm])
    index2, distance2 = feature_neighbours(other, 4)
    np.testing.assert_allclose(distance2, distance[perm], rtol=1e-9)
    assert np.array_equal(perm[index2], index[perm])


def _decoded_neighbours(data):
    """The page's neighbours as rows of the data, decoded here from the format that
    graphdr.maps.views.page_data describes (cell offsets and places on the hover grid, exceptions,
    log-scale distance steps)."""
    n, info = len(data["x"]), data["neighbours"]
    k = info["k"]
    G, cx, cy = page_grid(data["x"], data["y"])
    cell = cy * G + cx
    by_cell = sorted(range(n), key=lambda i: (cell[i], i))
    first = {}
    for at, i in enumerate(by_cell):
        first.setdefault(int(cell[i]), at)
    offset = data["nb_offset"].reshape(k, n)
    slot = data["nb_slot"].reshape(k, n) + 256 * data["nb_slot_high"].reshape(k, n).astype(int)
    codes = np.cumsum(data["nb_distance"].reshape(k, n).T.astype(int), axis=1)
    others = iter(data["nb_other"].tolist())
    index = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        for t in range(k):
            b = int(offset[t, i])
            if b == 0:
                j = next(others)
                index[i, t] = -1 if j == NO_ROW else j
            else:
                c = (cy[i] + (b >> 4) - 8) * G + cx[i] + (b & 15) - 8
                index[i, t] = by_cell[first[int(c)] + int(slot[t, i])]
    rows = data["rows"].astype(np.int64)
    out = np.full((n, k), -1, dtype=np.int64)
    out[rows] = np.where(index >= 0, rows[np.maximum(index, 0)], -1)
    distance = np.empty((n, k))
    distance[rows] = np.where(codes > 0, info["low"] * np.exp((codes - 1) / 254 * info["span"]), 0)
    return out, distance


def _coded_page():
    """A page whose neighbours take every path of the code: near cells, a dense cell (a place
    past 255), far cells and samples not drawn (exceptions), duplicates (distance 0)."""
    rng = np.random.default_rng(0)
    n, k = 20_000, 5
    Y = rng.normal(size=(n, 2)) * 10
    Y[:3000] = rng.normal(size=(3000, 2)) * 0.01  # one dense cell
    Y[3000:3100] += 400  # a far island
    index = rng.integers(0, n, size=(n, k))
    index[:, 0] = (np.arange(n) + 1) % n
    index[::7, 2] = -1  # not drawn
    distance = np.sort(rng.uniform(0.01, 30, size=(n, k)), axis=1)
    distance[::11, 0] = 0.0  # duplicates
    page = map_page_html(Y, np.array(["a", "b"])[np.arange(n) % 2],
                         neighbours=(index, distance, "test"))
    return page, index, distance


def test_page_neighbours_decode_to_the_rows_given():
    page, index, distance = _coded_page()
    data = read_page_data(page)
    got, dist = _decoded_neighbours(data)
    np.testing.assert_array_equal(got, index)
    step = np.exp(data["neighbours"]["span"] / 254)  # one code of the log scale
    np.testing.assert_allclose(dist, distance, rtol=step - 1, atol=0)
    assert data["neighbours"]["space"] == "test" and data["nb_slot_high"].max() > 0
    assert len(data["nb_other"]) > np.sum(index < 0)  # (far neighbours too)
    Y, n = np.zeros((3, 2)), 3
    index3, distance3 = np.array([[1], [2], [0]]), np.ones((3, 1))
    with pytest.raises(ValueError, match="shape"):
        map_page_html(Y, ["a", "b", "a"], neighbours=(index3[:2], distance3[:2], "f"))
    with pytest.raises(ValueError, match="finite"):
        map_page_html(Y, ["a"] * n, neighbours=(index3, -distance3, "f"))
    with pytest.raises(ValueError, match="rows 0 to"):
        map_page_html(Y, ["a"] * n, neighbours=(index3 + n, distance3, "f"))


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_the_page_decodes_every_neighbour_as_coded(tmp_path):
    from test_map_page import _opened

    page, index, distance = _coded_page()
    (tmp_path / "p.html").write_text(page)
    with _opened(tmp_path / "p.html") as view:
        near = view.evaluate("Array.from({length: graphdrMap.n}, (_, i) => "
                             "[graphdrMap.idAt(i), graphdrMap.neighbours(i).map(p => p[0])])")
    for row, ids in near:
        assert ids == [None if j < 0 else str(j) for j in index[int(row)]]


def test_suggestion_must_be_a_hover_column():
    with pytest.raises(ValueError, match="not a hover column"):
        map_page_html(np.zeros((2, 2)), ["a", "b"], suggestion="suggested class")


def test_cli_label_fixes_refused_before_the_fit_and_applied(tmp_path, capsys):
    from graphdr.cli import main

    X, y = make_blobs(n_samples=90, centers=3, n_features=3, random_state=0)
    data = tmp_path / "d.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "f1", "f2", "f3", "label"])
        for i, (row, c) in enumerate(zip(X, y)):
            w.writerow([f"r{i}", *row, "abc"[c]])
    bad = _fixes_file(tmp_path / "bad.csv", [("r0", "abc"[y[0]], "c"), ("r77", "wrong", "a")])
    out = tmp_path / "m"
    assert main(["map", str(data), "--label-fixes", str(bad), "--out", str(out),
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.csv: line 3: id 'r77'" in err[0]
    assert not list(tmp_path.glob("m.*"))
    good = _fixes_file(tmp_path / "good.csv", [("r0", "abc"[y[0]], "zeta"), ("r1", "abc"[y[1]], "")])
    assert main(["map", str(data), "--label-fixes", str(good), "--out", str(out), "--quiet",
                 "--repulsion", "gaussian", "--labels", "given", "--no-png"]) == 0
    table = list(csv.DictReader(open(f"{out}.csv", newline="")))
    assert [table[0]["label"], table[1]["label"]] == ["zeta", ""]
    assert [r["label"] for r in table[2:]] == ["abc"[c] for c in y[2:]]


# -- in Chromium -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def workbench(tmp_path_factory, fitted):
    X, names, model = fitted
    n = len(names)
    ids = [f"s{i}" for i in range(n)]
    ids[7] = HOSTILE[0]
    ids[8] = "=cmd|' /C calc'!A0"
    hover = {"size": [f"{v:.2f}" for v in X[:, 0]],
             "note": [HOSTILE[i % len(HOSTILE)] for i in range(n)],
             HOSTILE[9]: ["x"] * n}
    labels = np.where(names == "gamma", "</script><b>gamma</b>", names).astype(object)
    path = tmp_path_factory.mktemp("wb") / "m"
    refit = DEEMap(repulsion="gaussian", labels="flag").fit(X, labels)
    write_map(refit, labels, path, ids=ids, hover=hover, png=False)
    return path.with_suffix(".html"), refit, labels, ids, hover


def _drag(page, points, modifier=None):
    if modifier:
        page.keyboard.down(modifier)
    page.mouse.move(*points[0])
    page.mouse.down()
    for p in points[1:]:
        page.mouse.move(*p, steps=2)
    page.mouse.up()
    if modifier:
        page.keyboard.up(modifier)


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_select_list_inspect_fix_and_download_in_chromium(workbench, fitted, tmp_path):
    from test_map_page import _opened

    path, model, labels, ids, hover = workbench
    Y32 = np.asarray(model.embedding_, dtype=np.float32).astype(np.float64)
    requests = []
    with _opened(path) as page:
        page.on("request", lambda r: requests.append(r.url))
        box = page.locator("#overlay").bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        # a lasso: the page's selection is points_inside of its polygon, to the bit
        page.keyboard.press("l")
        ring = [(cx + 150 * math.cos(2 * math.pi * t / 30), cy + 120 * math.sin(2 * math.pi * t / 30))
                for t in range(31)]
        _drag(page, ring)
        shape = np.array(page.evaluate("graphdrMap.lastShape()"))
        inside = set(np.flatnonzero(points_inside(Y32, shape)))
        chosen = page.evaluate("graphdrMap.selected()")
        assert len(inside) > 0 and {ids.index(i) for i in chosen} == inside
        per = {}
        for r in inside:
            per[labels[r]] = per.get(labels[r], 0) + 1
        summary = page.inner_text("#sel-summary")
        assert summary.startswith(f"{len(inside)} selected")
        for name, count in per.items():
            assert f"{name} {count}" in summary
        # a box with shift adds, with alt removes; Escape clears
        page.keyboard.press("b")
        _drag(page, [(box["x"] + 5, box["y"] + 5), (cx, cy)], "Shift")
        shape = np.array(page.evaluate("graphdrMap.lastShape()"))
        inside |= set(np.flatnonzero(points_inside(Y32, shape)))
        assert {ids.index(i) for i in page.evaluate("graphdrMap.selected()")} == inside
        _drag(page, [(cx - 40, cy - 40), (cx + 40, cy + 40)], "Alt")
        shape = np.array(page.evaluate("graphdrMap.lastShape()"))
        inside -= set(np.flatnonzero(points_inside(Y32, shape)))
        assert {ids.index(i) for i in page.evaluate("graphdrMap.selected()")} == inside
        page.keyboard.press("Escape")
        assert page.evaluate("graphdrMap.selectedCount()") == 0
        assert page.locator("#panel").is_hidden()
        # everything in a box: listed 100 a page, sortable by a number column
        _drag(page, [(box["x"] + 2, box["y"] + 2),
                     (box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)])
        n = len(labels)
        assert page.evaluate("graphdrMap.selectedCount()") == n
        assert page.inner_text("#page-info") == f"rows 1\u2013100 of {n}"
        page.click("#rows-head th:has-text('size')")
        first = page.locator("#rows-body tr").nth(0).get_attribute("data-index")
        sizes = [float(v) for v in hover["size"]]
        shown = page.locator("#rows-body tr td:nth-child(3)").all_inner_texts()
        assert [float(v) for v in shown] == sorted(sizes)[:100] and first is not None
        page.click("#page-next")
        assert page.inner_text("#page-info") == f"rows 101\u2013200 of {n}"
        # hostile text: shown as text, never run or parsed as HTML
        assert page.evaluate("window.pwned === undefined")
        assert page.locator("#panel img, #panel script, #listing b, #neighbours b").count() == 0
        page.click("#rows-head th >> nth=0")  # ids sorted: '<img...' < '=cmd...' < 's0'
        cells = page.locator("#rows-body tr td:nth-child(1)").all_inner_texts()
        assert cells[:2] == [HOSTILE[0], ids[8]]
        page.click("#rows-head th >> nth=1")  # the labels: '</script><b>gamma</b>' first
        assert page.locator("#rows-body tr td:nth-child(2)").nth(0).inner_text() == \
            "</script><b>gamma</b>"
        assert page.evaluate("window.pwned === undefined")
        assert page.locator("#panel img, #panel script, #listing b, #neighbours b").count() == 0
        # a sample's neighbours in the features: those of feature_neighbours
        index, distance = feature_neighbours(model)
        r = int(np.flatnonzero(model.label_issues_.is_issue_)[0])
        page.fill("#search", f"id:{ids[r]}")
        page.press("#search", "Enter")
        page.evaluate("window.scrollTo(0, 0)")  # (page coordinates are then the viewport's)
        q = page.evaluate("i => graphdrMap.screenPosition(i)",
                          page.evaluate("id => graphdrMap.indexOf(id)", ids[r]))
        page.click("#tool-pan")
        page.mouse.click(q[0], q[1])
        assert page.evaluate("graphdrMap.inspected()") == ids[r]
        rows = page.locator("#neighbours tr").all_inner_texts()[1:]
        assert [t.split("\t")[0] for t in rows] == [ids[j] for j in index[r]]
        # (two significant digits of a one-byte log scale)
        assert [float(t.split("\t")[2]) for t in rows] == pytest.approx(distance[r], rel=0.04)
        # fixes: set a class for the listed rows, accept a suggestion, download
        page.keyboard.press("Escape")  # (the panel closes, the map grows back)
        page.wait_for_timeout(100)
        q = page.evaluate("i => graphdrMap.screenPosition(i)",
                          page.evaluate("id => graphdrMap.indexOf(id)", ids[r]))
        page.click("#tool-box")
        _drag(page, [(q[0] - 6, q[1] - 6), (q[0] + 6, q[1] + 6)])
        assert ids[r] in page.evaluate("graphdrMap.selected()")
        page.click("#fix-accept")
        with page.expect_download() as d:
            page.click("#fixes-csv")
        fixes = tmp_path / "fixes.csv"
        d.value.save_as(fixes)
        with page.expect_download() as d:
            page.click("#sel-csv")
        listed = tmp_path / "selection.csv"
        d.value.save_as(listed)
        js_cells = page.evaluate("xs => xs.map(graphdrMap.csvCell)", HOSTILE)
        every = page.evaluate("Array.from({length: graphdrMap.n}, (_, i) => "
                              "[graphdrMap.neighbours(i).map(p => p[0]), graphdrMap.idAt(i)])")
    # every sample's neighbours, decoded by the page: those of feature_neighbours
    for near, name in every:
        assert near == [ids[j] for j in index[ids.index(name)]]
    assert not [u for u in requests if not u.startswith(("file:", "blob:", "data:"))]
    # the page's CSV cells are those of Python's csv module under spreadsheet_safe
    for text, cell in zip(HOSTILE, js_cells):
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow([spreadsheet_safe(text)])
        assert cell + "\n" == buf.getvalue(), text
    # the selection's download: every listed row, its text as given
    table = list(csv.reader(open(listed, newline="", encoding="utf-8")))
    assert table[0][:4] == ["id", "label", "x", "y"]
    for row in table[1:]:
        k = ids.index(from_spreadsheet_safe(row[0]))
        assert from_spreadsheet_safe(row[1]) == str(labels[k])
        assert float(row[2]) == pytest.approx(model.embedding_[k, 0], rel=1e-6, abs=1e-6)
    # the fixes' download, applied as the command line applies it: the suggested classes
    suggested = model.label_issues_.suggested_label_
    new, _, changed = apply_label_fixes(fixes, labels, np.array(ids, dtype=object))
    fixed = [from_spreadsheet_safe(r[0]) for r in csv.reader(open(fixes, encoding="utf-8"))][1:]
    assert ids[r] in fixed and changed == len(fixed) >= 1
    for name in fixed:
        k = ids.index(name)
        assert new[k] == suggested[k] != labels[k]
    # ... and by the command line, on the data as a file: the map of the corrected labels
    from graphdr.cli import main

    X = fitted[0]
    data = tmp_path / "data.csv"
    with open(data, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", *[f"f{j}" for j in range(X.shape[1])], "label"])
        for name, row, label in zip(ids, X, labels):
            w.writerow([name, *row, label])
    assert main(["map", str(data), "--label-fixes", str(fixes), "--out", str(tmp_path / "m"),
                 "--quiet", "--repulsion", "gaussian", "--labels", "given", "--no-png"]) == 0
    table = list(csv.DictReader(open(tmp_path / "m.csv", newline="", encoding="utf-8")))
    got = {from_spreadsheet_safe(t["id"]): from_spreadsheet_safe(t["label"]) for t in table}
    assert got == {name: str(label) for name, label in zip(ids, new)}


def test_cli_label_fixes_refused_on_the_dask_route(tmp_path, capsys):
    from graphdr.cli import main

    data = tmp_path / "d.csv"
    data.write_text("id,f1,label\na,1,x\nb,2,y\n")
    fixes = _fixes_file(tmp_path / "f.csv", [("a", "x", "y")])
    assert main(["map", str(data), "--label-fixes", str(fixes), "--scheduler",
                 "tcp://127.0.0.1:9", "--out", str(tmp_path / "m")]) == 2
    assert "--label-fixes: not available for a map made on a Dask cluster" in \
        capsys.readouterr().err


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_filters_dim_what_they_leave_out_and_the_legend_counts_follow(workbench):
    from test_map_page import _opened

    path, model, labels, ids, hover = workbench
    sizes = np.array([float(v) for v in hover["size"]])
    suspect = model.label_issues_.is_issue_
    suggested = model.label_issues_.suggested_label_
    with _opened(path) as page:
        page.click("#filters summary")
        # a column named with HTML and script: a filter named by that text, nothing run
        assert HOSTILE[9] in page.locator("#filter-list .fname").all_inner_texts()
        assert page.evaluate("window.pwned === undefined")
        lo, hi = np.quantile(sizes, [0.25, 0.75])
        kept = page.evaluate("([a, b]) => graphdrMap.filter('size', a, b)", [lo, hi])
        said = page.inner_text("#filter-count")
        # the sliders have 1000 steps: the range kept is within a step of the one asked
        step = (sizes.max() - sizes.min()) / 1000
        assert np.sum((sizes >= lo + step) & (sizes <= hi - step)) <= kept <= \
            np.sum((sizes >= lo - step) & (sizes <= hi + step))
        assert said == f"{kept} of {len(sizes)} shown"
        # the legend: "(kept of all)" per class
        low, high = page.evaluate("graphdrMap.filterRange('size')")
        inside = (sizes >= low) & (sizes <= high)
        assert inside.sum() == kept
        for name in ("alpha", "beta"):
            entry = page.locator("#legend li", has_text=name).first.inner_text()
            assert f"({np.sum(inside & (labels == name))} of {np.sum(labels == name)})" in entry
        # a selection of everything keeps only what the filters keep
        page.click("#tool-box")
        box = page.locator("#overlay").bounding_box()
        _drag(page, [(box["x"] + 2, box["y"] + 2),
                     (box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)])
        assert page.evaluate("graphdrMap.selectedCount()") == kept
        # the suspects only, with a category of a text column
        page.click("#filter-clear")
        assert page.inner_text("#filter-count") == ""
        assert page.evaluate("graphdrMap.filter('suspect labels', 'suspect only')") == \
            int(suspect.sum())
        one = str(suggested[suspect][0])
        assert page.evaluate("([v]) => graphdrMap.filter('suggested class', [v])", [one]) == \
            int(np.sum(suspect & (suggested == one)))
        # the same with the controls, as a user: the keyboard on a slider, a pick in a list
        page.click("#filter-clear")
        page.select_option("#filter-list select[aria-label='suspect labels']", "suspect only")
        assert page.inner_text("#filter-count") == f"{int(suspect.sum())} of {len(sizes)} shown"
        page.click("#filter-clear")
        slider = page.locator("input[aria-label='size at least']")
        slider.focus()
        for _ in range(500):  # (half-way along the 1000 steps)
            page.keyboard.press("ArrowRight")
        half = sizes.min() + (sizes.max() - sizes.min()) / 2
        assert page.inner_text("#filter-count") == \
            f"{int(np.sum(sizes >= half - 1e-9))} of {len(sizes)} shown"
        page.click("#filter-clear")
        page.select_option("#filter-list select[aria-label='suspect labels']", "suspect only")
        page.select_option("#filter-list select[aria-label='suggested class: keep these values']",
                           [one])
        # the selection (the size range) kept what each filter since kept
        assert page.evaluate("graphdrMap.selectedCount()") == \
            int(np.sum(inside & suspect & (sizes >= half - 1e-9) & (suggested == one)))


def test_suspects_placed_by_their_features_are_stored(workbench):
    path, model, labels, ids, hover = workbench
    data = read_page_data(path.read_text())
    suspect = model.label_issues_.is_issue_
    placed = model.transform_left_out()  # (as a new sample: its neighbours, not its label)
    rows = data["rows"][data["suspect"] == 1]  # the suspects in page order
    assert suspect[rows].all() and len(rows) == suspect.sum() > 0
    np.testing.assert_array_equal(data["moved_x"], placed[rows, 0].astype(np.float32))
    np.testing.assert_array_equal(data["moved_y"], placed[rows, 1].astype(np.float32))
    with pytest.raises(ValueError, match="suspect_places has shape"):
        map_page_html(np.zeros((3, 2)), ["a", "b", "a"], suspect=[True, False, False],
                      suspect_places=np.zeros((2, 2)))


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_the_suspects_move_to_their_feature_places_and_back(workbench):
    from test_map_page import _opened

    path, model, labels, ids, hover = workbench
    placed = model.transform_left_out()
    r = int(np.flatnonzero(model.label_issues_.is_issue_)[0])
    with _opened(path) as page:
        i = page.evaluate("id => graphdrMap.indexOf(id)", ids[r])
        assert page.evaluate("i => graphdrMap.colorOf(i)[3]", i) == 255
        page.click("#moved-entry")
        assert page.evaluate("graphdrMap.movedShown()")
        assert page.evaluate("i => graphdrMap.colorOf(i)[3]", i) == 40  # the fitted place dimmed
        np.testing.assert_allclose(page.evaluate("i => graphdrMap.movedPlace(i)", i),
                                   placed[r], rtol=1e-6, atol=1e-6)
        other = ids[int(np.flatnonzero(~model.label_issues_.is_issue_)[0])]
        assert page.evaluate("id => graphdrMap.movedPlace(graphdrMap.indexOf(id))", other) is None
        page.click("#moved-entry")
        assert page.evaluate("i => graphdrMap.colorOf(i)[3]", i) == 255


def test_density_contours_enclose_their_share_of_each_class():
    from graphdr.maps.views.density import LEVELS, density_contours

    rng = np.random.default_rng(0)
    Y = np.vstack([rng.normal(size=(4000, 2)), rng.normal(size=(3000, 2)) * [3, 1] + [12, 0],
                   rng.normal(size=(5, 2)) + [0, 9]])  # a class too small for contours
    codes = np.repeat([0, 1, 2], [4000, 3000, 5])
    lines = density_contours(Y, codes, 3)
    assert {c for c, _, _ in lines} == {0, 1}
    for c in (0, 1):
        members = Y[codes == c]
        for k, share in enumerate(LEVELS):
            inside = np.zeros(len(members), dtype=bool)
            for c2, k2, line in lines:
                if (c2, k2) == (c, k):
                    inside ^= points_inside(members, line)
            # the smoothing widens the region a little: a share a bit above the level
            assert share - 0.02 <= inside.mean() <= share + 0.08, (c, share, inside.mean())
    page = map_page_html(Y, np.array(["a", "b", "c"])[codes])
    data = read_page_data(page)
    meta = data["contour_lines"].reshape(-1, 4)
    assert len(meta) == len(lines) and data["contour_levels"] == list(LEVELS)
    c, k, s, m = meta[0]
    np.testing.assert_array_equal(data["contour_xy"].reshape(-1, 2)[s:s + m],
                                  lines[0][2].astype(np.float32))


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_density_contours_toggle_in_chromium(workbench):
    from test_map_page import _opened

    path = workbench[0]
    with _opened(path) as page:
        before = page.locator("#overlay").screenshot()
        page.keyboard.press("d")
        assert page.evaluate("graphdrMap.contoursShown()")
        assert page.get_attribute("#contours", "aria-pressed") == "true"
        page.wait_for_timeout(100)
        assert page.locator("#overlay").screenshot() != before  # the lines drawn
        page.click("#contours")
        assert not page.evaluate("graphdrMap.contoursShown()")


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_the_notebook_view_is_the_same_workbench(workbench, tmp_path):
    """DEEMap.show() in a notebook: the same page in a sandboxed iframe, whose data unpack,
    whose selection works with the mouse and whose downloads are allowed."""
    from test_map_page import _browser

    model, labels = workbench[1], workbench[2]
    view = model.show(labels)
    host = tmp_path / "notebook.html"
    host.write_text("<!DOCTYPE html><html><body><p>a notebook cell</p>" + view._repr_html_()
                    + "</body></html>")
    sync_api, executable = _browser()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 800},
                                    accept_downloads=True)
            page.goto(host.as_uri())
            frame = page.frames[1]
            frame.wait_for_function("window.graphdrMap && window.graphdrMap.ready",
                                    timeout=30000)
            assert frame.evaluate("graphdrMap.n") == len(labels)
            frame.click("#tool-box")
            box = frame.locator("#overlay").bounding_box()
            _drag(page, [(box["x"] + 2, box["y"] + 2),
                         (box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)])
            selected = frame.evaluate("graphdrMap.selectedCount()")
            assert selected > 0
            with page.expect_download() as d:
                frame.click("#sel-csv")
            d.value.save_as(tmp_path / "sel.csv")
        finally:
            browser.close()
    rows = list(csv.reader(open(tmp_path / "sel.csv", encoding="utf-8")))
    assert len(rows) - 1 == selected and rows[0][:4] == ["id", "label", "x", "y"]
