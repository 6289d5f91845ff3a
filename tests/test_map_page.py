"""The map's page (graphdr.maps.views.page): held-out errors against brute force, the colours, the
bytes, the CSV, and the page in a real browser (Debian's chromium driven by playwright)."""

import contextlib
import csv
import json
import re
import shutil

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_blobs
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

from graphdr import DEEMap, map2d
from graphdr.maps.views.fitted import held_out_errors
from graphdr.maps.views.page import COLORS, write_map_csv, write_map_page
from graphdr.maps.views.page_data import read_page_data


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=90, centers=4, n_features=5, cluster_std=3.0, random_state=3)
    X[1] = X[0]  # a duplicate row: leave-one-out must still leave out the sample itself
    y[1] = y[0]
    return X, y, DEEMap().fit(X, y)


def test_transform_left_out_is_transform_without_the_sample(blobs):
    X, y, model = blobs
    Z = model.transform_left_out()
    Xs = model._scaled(X)
    for i in (0, 1, 17, 55):
        others = np.delete(np.arange(len(X)), i)
        alone = DEEMap()
        alone.embedding_ = model.embedding_[others]
        alone._map_rows = alone.embedding_.astype(np.float64)
        alone.placement_width_ = model.placement_width_
        alone._neighbors = NearestNeighbors(n_neighbors=model.n_neighbors).fit(Xs[others])
        alone._features = Xs[others]  # the index's rows
        np.testing.assert_allclose(Z[i], alone._place(Xs[i:i + 1])[0], rtol=1e-12, atol=1e-12)



@pytest.mark.parametrize("params, labels, says", [
    ({"repulsion": "gaussian"}, "all", "discriminative elastic embedding's objective"),
    ({"separation": 0.7}, "all",
     "tail 1, perplexity 30), the labels separating the classes by 0.7"),
    ({}, "none", "without labels: the data's neighbourhoods alone."),
    ({"unlabelled": "propagate"}, "some",
     "Unlabelled samples: in the fit with the classes propagated to them (as asked)."),
    ({"repulsion": "gaussian"}, "some", "(chosen by held-out labels)."),
    ({}, "some", "(chosen by held-out labels)."),
])
def test_the_page_says_what_the_map_was_fitted_with(params, labels, says):
    """The header names the objective, how the labels entered, and what became of the
    unlabelled samples (and whether the fit chose it); nothing about unlabelled samples where
    every sample is labelled or none is."""
    from graphdr.maps.views.fitted import fitted_map_page

    X, y = make_blobs(n_samples=90, centers=3, n_features=4, random_state=0)
    if labels == "some":
        y = np.where(np.arange(90) % 3 == 0, y, -1)
    fit_y = None if labels == "none" else y
    model = DEEMap(max_iter=20, **params).fit(X, fit_y)
    page = fitted_map_page(model, np.full(90, -1) if labels == "none" else y)
    header = re.search(r"<header>(.*?)</header>", page, re.S).group(1)
    assert says in header.replace("&#x27;", "'")
    assert ("Unlabelled samples:" in header) == (labels == "some")

def test_held_out_errors_against_brute_force(blobs):
    X, y, model = blobs
    got = held_out_errors(model, y)
    Z = model.transform_left_out()
    Xs = model._scaled(X)
    wrong_map = wrong_features = 0
    for i in range(len(X)):
        others = np.delete(np.arange(len(X)), i)
        knn = KNeighborsClassifier(n_neighbors=1).fit(model.embedding_[others], y[others])
        wrong_map += knn.predict(Z[i:i + 1])[0] != y[i]
        knn = KNeighborsClassifier(n_neighbors=1).fit(Xs[others], y[others])
        wrong_features += knn.predict(Xs[i:i + 1])[0] != y[i]
    assert got["n"] == len(X)
    assert got["map_error"] == wrong_map / len(X)
    assert got["feature_error"] == wrong_features / len(X)
    assert 0 < got["feature_error"]  # overlapping blobs: an error to hide


def _lab(hexes):
    rgb = np.array([[int(h[k:k + 2], 16) for k in (1, 3, 5)] for h in hexes]) / 255.0
    lin = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = lin @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                          [0.0193, 0.1192, 0.9505]]).T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]),
                            200 * (f[:, 1] - f[:, 2])])


def test_forty_colours_told_apart():
    lab = _lab(COLORS[:40])
    D = np.linalg.norm(lab[:, None] - lab[None], axis=-1) + np.eye(40) * 1e9
    assert D.min() > 25  # CIE76: any two of the first 40 clearly differ
    white = np.linalg.norm(lab - _lab(["#ffffff"]), axis=1)
    assert white.min() > 15  # and none vanishes on the white page
    assert len(set(COLORS)) == len(COLORS)


def _payload(page):
    return read_page_data(page)


def test_page_data_same_bytes_and_csv(tmp_path, blobs):
    X, y, model = blobs
    names = np.array([f"class {c}" for c in y])
    ids = [f"s{i:03d}" for i in range(len(y))]
    hover = {"f0": [f"{v:.2f}" for v in X[:, 0]]}
    for k in range(2):
        write_map_page(tmp_path / f"p{k}.html", model.embedding_, names, ids=ids, hover=hover,
                       title="t</script>", errors=held_out_errors(model, y))
    page = (tmp_path / "p0.html").read_text()
    assert page == (tmp_path / "p1.html").read_text()
    assert "0x" not in re.sub(r'id="graphdr-(data|blob)">.*?</script>', "", page, flags=re.S)
    assert "<title>t&lt;/script&gt;</title>" in page and "http" not in page.split("<script")[0]
    data = _payload(page)
    rows = data["rows"]
    assert sorted(rows) == list(range(len(y)))  # a permutation
    np.testing.assert_array_equal(data["x"],
                                  model.embedding_[rows, 0].astype(np.float32))
    np.testing.assert_array_equal(data["y"],
                                  model.embedding_[rows, 1].astype(np.float32))
    codes = data["label"]
    assert [data["classes"][c] for c in codes] == list(names[rows])
    assert data["ids"] == ids  # (texts in the rows' own order)
    assert data["hover"]["f0"] == hover["f0"]
    assert sum(data["counts"]) == len(y)

    write_map_csv(tmp_path / "m.csv", model.embedding_, names, ids)
    with open(tmp_path / "m.csv", newline="") as fh:
        got = list(csv.reader(fh))
    assert got[0] == ["id", "label", "x", "y"]
    assert [r[0] for r in got[1:]] == ids and [r[1] for r in got[1:]] == list(names)
    np.testing.assert_array_equal(np.array([[float(r[2]), float(r[3])] for r in got[1:]]),
                                  model.embedding_)


def test_map2d_writes_page_csv_png_and_says_how_new_samples_land(tmp_path):
    X, y = load_wine(return_X_y=True)
    model = map2d(X, y, out=tmp_path / "wine.html", title="wine", callback=lambda Y, info: None)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["wine.csv", "wine.html", "wine.png"]
    page = (tmp_path / "wine.html").read_text()
    errors = held_out_errors(model, y)
    assert f"<b>{100 * errors['map_error']:.1f} %</b>" in page
    assert f"errs on {100 * errors['feature_error']:.1f} %" in page
    # nothing that changes from run to run: no callback's address, no fit time
    assert "callback" not in page and " at 0x" not in page and "fitted in" not in page


def test_the_header_is_one_line_of_facts_and_the_prose_behind_a_toggle(tmp_path):
    """The header's line states the rows, classes, held-out error, suspects and unlabelled
    rows of the data given; the explanations sit in a closed 'About this map'."""
    from graphdr.maps.views.page import map_page_html

    rng = np.random.default_rng(0)
    Y = rng.normal(size=(1234, 2))
    labels = np.array(["a", "b", "c"])[rng.integers(0, 3, 1234)]
    unlabelled = rng.random(1234) < 0.1
    suspect = rng.random(1234) < 0.02
    errors = dict(held_out=True, n=200, map_error=0.0415, feature_error=0.05)
    page = map_page_html(Y, labels, unlabelled=unlabelled, suspect=suspect, errors=errors,
                         title="t")
    header = re.search(r"<header>(.*?)</header>", page, re.S).group(1)
    facts = re.search(r'<p class="facts" id="facts">(.*?)</p>', header).group(1)
    assert facts == (f"1,234 rows · 3 classes · <b>held-out error 4.2 %</b> (judge the "
                     f"classes by it, not by the gaps) · {suspect.sum()} suspect labels · "
                     f"{unlabelled.sum()} unlabelled")
    about = re.search(r'<details id="about"><summary>About this map</summary>(.*)</details>',
                      header, re.S).group(1)
    assert "class=\"honest\"" in about and "Drag to pan" in about
    assert " open" not in header  # closed until asked
    plain = map_page_html(Y, labels, title="t")
    assert re.search(r'id="facts">1,234 rows · 3 classes</p>', plain)


# -- in a real browser ------------------------------------------------------------------------

def _browser():
    executable = next((shutil.which(b) for b in ("chromium", "chromium-browser")
                       if shutil.which(b)), None)
    if executable is None:
        pytest.skip("chromium is not installed (Debian package 'chromium'; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    return sync_api, executable


@contextlib.contextmanager
def _opened(path):
    """A headless Chromium page of the map page at ``path``, once its script is ready."""
    sync_api, executable = _browser()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            page.goto(path.as_uri())
            page.wait_for_function("window.graphdrMap && window.graphdrMap.ready",
                                   timeout=30000)
            yield page
        finally:
            browser.close()


def _search(page, text):
    page.fill("#search", text)
    page.press("#search", "Enter")
    return page.inner_text("#found")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    X, y = make_blobs(n_samples=300, centers=3, n_features=4, random_state=0)
    names = np.array(["alpha", "beta", "gamma"])[y]
    ids = [f"id-{i}" for i in range(len(y))]
    model = map2d(X, names, png=False)
    path = tmp_path_factory.mktemp("page") / "map.html"
    write_map_page(path, model.embedding_, names, ids=ids,
                   hover={"first": [f"{v:.3f}" for v in X[:, 0]]}, title="blobs",
                   errors=held_out_errors(model, names), label_name="kind")
    return path, names, ids, X


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_the_map_gets_the_space_and_the_about_toggle_opens(page_file):
    """In a 1100 x 800 window the header is one line: the whole map is in view, below at most
    80 pixels of header; the explanations show when 'About this map' is clicked."""
    path, *_ = page_file
    with _opened(path) as page:
        box = page.evaluate("(() => { const r = document.getElementById('map')"
                            ".getBoundingClientRect(); return [r.top, r.bottom]; })()")
        assert box[0] <= 80 and box[1] <= 800, box
        assert not page.is_visible("text=Drag to pan")
        page.click("#about summary")
        assert page.is_visible("text=Drag to pan")
        assert page.is_visible(".honest")


@pytest.mark.slow  # a cluster, a browser or a kernel to start: in `make test-slow` (CI)
@pytest.mark.parametrize("renderer", ["webgl", "2d"])
def test_page_in_chromium_hover_search_legend(page_file, renderer):
    sync_api, executable = _browser()
    path, names, ids, X = page_file
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            problems = []
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.goto(path.as_uri() + ("#canvas2d" if renderer == "2d" else ""))
            page.wait_for_function("window.graphdrMap && window.graphdrMap.ready",
                                   timeout=30000)
            assert problems == []
            if renderer == "2d" or page.evaluate("graphdrMap.renderer") != "webgl":
                assert page.evaluate("graphdrMap.renderer") == "2d"

            def hover(sample):
                i = page.evaluate(f"graphdrMap.indexOf({json.dumps(ids[sample])})")
                x, y = page.evaluate(f"graphdrMap.screenPosition({i})")
                page.mouse.move(x + 1, y + 1)
                page.mouse.move(x, y)
                page.wait_for_timeout(50)
                return page.evaluate("graphdrMap.tipText()")

            for sample in (0, 123, 299):
                text = hover(sample)
                assert ids[sample] in text and names[sample] in text, text
                assert "kind" in text and f"{X[sample, 0]:.3f}" in text

            # search an id: the sample is pinned with its tooltip
            page.fill("#search", ids[42])
            page.press("#search", "Enter")
            assert ids[42] in page.evaluate("graphdrMap.tipText()")
            assert ids[42] in page.inner_text("#found")
            # search a class
            page.fill("#search", "BETA")
            page.press("#search", "Enter")
            assert page.inner_text("#found") == f"{np.sum(names == 'beta')} samples of beta"
            page.fill("#search", "")
            page.press("#search", "Enter")
            page.click("#reset")  # the id search centred the view on its sample

            # the legend hides a class: its samples no longer answer the mouse
            sample = int(np.flatnonzero(names == "gamma")[0])
            assert ids[sample] in hover(sample)
            page.click("#legend li[data-cls='2']")
            assert ids[sample] not in hover(sample)
            page.click("#legend li[data-cls='2']")
            assert ids[sample] in hover(sample)

            # the points are drawn: the map area is not blank
            shot = page.locator("#map").screenshot()
            from io import BytesIO

            import matplotlib.image as mpimg

            rgb = mpimg.imread(BytesIO(shot))[..., :3]
            coloured = (rgb.max(axis=2) - rgb.min(axis=2)) > 0.3
            assert coloured.mean() > 0.002
            assert problems == []
        finally:
            browser.close()


# -- in a notebook ----------------------------------------------------------------------------

@pytest.mark.slow
def test_show_gives_the_page_inline_and_caps_the_points(tmp_path):
    from graphdr.maps.views.display import MapView

    X, y = make_blobs(n_samples=120, centers=3, n_features=4, random_state=1)
    names = np.array(["a<b", "c", "d"], dtype=object)[y]
    model = DEEMap().fit(X, names)
    view = model.show()
    assert isinstance(view, MapView)
    frame = view._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts allow-downloads"' in frame
    assert "<script" not in frame  # the page is escaped into the attribute, not run inline
    assert view.page == model.show(names).page  # the fit's labels, as given
    counts = _payload(view.page)
    assert sorted(counts["classes"]) == ["a<b", "c", "d"] and sum(counts["counts"]) == 120
    few = model.show(max_points=50)
    data = _payload(few.page)
    assert sum(data["counts"]) == 50 and "a uniform sample of 50 of the 120" in few.page
    errors = held_out_errors(model, names)
    assert f"<b>{100 * errors['map_error']:.1f} %</b>" in few.page  # of every sample
    assert few.save(tmp_path / "m.html").read_text() == few.page
    with pytest.raises(ValueError, match="max_points"):
        model.show(max_points=0)
    partial = names.copy()
    partial[::3] = -1
    shown = DEEMap().fit(X, partial).show()
    assert '"unlabelled"' in shown.page
    # the unlabelled samples' inferred class, its source and confidence on hover, as in map2d's page,
    # with what confidence means
    from graphdr.maps.views.fitted import PROPAGATION_NOTE

    data = _payload(shown.page)
    assert data["hover_names"] == ["inferred class", "inferred by", "confidence"]
    assert PROPAGATION_NOTE[:80] in shown.page


def test_show_outside_a_notebook_writes_the_page_and_says_where(tmp_path, monkeypatch, capsys):
    """In a script, show() must not silently return an object: the page is written (named by
    its content), opened where there is a display, and its path printed."""
    import sys
    import tempfile
    import webbrowser

    X, y = make_blobs(n_samples=90, centers=3, n_features=4, random_state=2)
    model = DEEMap().fit(X, y)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    view = model.show()
    assert view.path.parent == tmp_path and view.path.read_text() == view.page
    assert opened == [view.path.resolve().as_uri()]
    err = capsys.readouterr().err
    assert str(view.path) in err and "opened in the web browser" in err
    monkeypatch.delenv("DISPLAY")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    again = model.show()
    assert again.path == view.path and len(opened) == 1  # no display: no browser, a path
    assert "open it in a web browser" in capsys.readouterr().err


@pytest.mark.slow  # a cluster, a browser or a kernel to start: in `make test-slow` (CI)
def test_show_in_a_notebook_executed_headlessly():
    """A notebook as a user writes it: the last expression of a cell is the map, and
    Jupyter displays it as HTML (an iframe with the page)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from sklearn.datasets import load_iris\n"
                                  "from graphdr import DEEMap\n"
                                  "X, y = load_iris(return_X_y=True)\n"
                                  "model = DEEMap().fit(X, y)"),
        nbformat.v4.new_code_cell("model.show()"),
        nbformat.v4.new_code_cell("model"),
    ]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    shown = nb.cells[1].outputs[0]["data"]
    assert shown["text/html"].startswith("<iframe srcdoc=") and "graphdr-data" in \
        shown["text/html"]
    assert not any(o.get("name") == "stderr" for o in nb.cells[1].outputs)  # inline only
    assert "DEEMap" in nb.cells[2].outputs[0]["data"]["text/html"]  # scikit-learn's repr
    assert "srcdoc" not in nb.cells[2].outputs[0]["data"]["text/html"]


@pytest.mark.slow
def test_page_search_numbers_prefixes_and_long_names_in_chromium(tmp_path):
    """Numeric ids beside numeric classes: '7' finds the class (id:7 the sample); a class
    search brings the class into view; an id prefix finds its samples; a long class name
    keeps its count in the legend; the tooltip names the id column."""
    _browser()
    X, y = make_blobs(n_samples=240, centers=4, n_features=4, random_state=5)
    long = "a class name long enough to be cut in any legend of any reasonable width"
    names = np.array(["7", "12", "3", long], dtype=object)[y]
    ids = [str(i) for i in range(200)] + [f"batch-{i}" for i in range(200, len(y))]
    model = DEEMap().fit(X, names)
    path = tmp_path / "map.html"
    write_map_page(path, model.embedding_, names, ids=ids, title="numbers",
                   id_name="patient", classes=model.classes_)
    with _opened(path) as page:
        def search(text):
            return _search(page, text)

        def in_view(rows):
            box = page.locator("#map").bounding_box()
            for i in rows:
                x, yy = page.evaluate(f"graphdrMap.screenPosition(graphdrMap.indexOf('{i}'))")
                if not (box["x"] <= x <= box["x"] + box["width"]
                        and box["y"] <= yy <= box["y"] + box["height"]):
                    return False
            return True

        sevens = [ids[i] for i in np.flatnonzero(names == "7")]
        assert search("7").startswith(f"{len(sevens)} samples of 7")
        assert "id:7" in page.inner_text("#found")
        assert search("id:7") == f"sample 7 ({names[7]})"
        assert "patient" in page.evaluate("graphdrMap.tipText()")
        # zoom far into another class, then search a class: it comes into view
        threes = [ids[i] for i in np.flatnonzero(names == "3")]
        x, yy = page.evaluate(f"graphdrMap.screenPosition(graphdrMap.indexOf('{threes[0]}'))")
        page.mouse.move(x, yy)
        for _ in range(12):
            page.mouse.wheel(0, -400)
        page.wait_for_timeout(100)
        assert not in_view(sevens)
        search("7")
        assert in_view(sevens)
        # an id prefix: every sample whose id begins with it, framed; one: that sample
        assert search("23") == "sample 23 (" + names[23] + ")"
        assert search("class:23") == 'no class "23"'
        assert search("batch-23") == '10 samples whose id begins with "batch-23"'
        assert in_view([f"batch-{i}" for i in range(230, 240)])
        assert search("batch-239") == f"sample batch-239 ({names[239]})"
        assert search("x9") == 'no sample id or class "x9"'
        # the legend keeps the count of a long name in view
        li = page.locator("#legend li", has_text="a class name long")
        count = li.locator(".count")
        assert count.inner_text() == f"({np.sum(names == long)})"
        assert count.is_visible()
        lb, cb = page.locator("#legend").bounding_box(), count.bounding_box()
        assert cb["x"] + cb["width"] <= lb["x"] + lb["width"] + 1


@pytest.mark.slow
def test_page_class_search_by_prefix_or_part_and_clearing_resets_the_view(tmp_path):
    """'damp' finds the classes whose names begin with it (any case), 'soil' every class
    that contains it, those that begin with it first, 'meadow' the one that contains it; an
    empty search brings back the whole map, with no ring or tip left."""
    _browser()
    X, y = make_blobs(n_samples=250, centers=5, n_features=4, random_state=3)
    names = np.array(["damp soil", "Dampness", "dry", "wet meadow", "soil with stubble"],
                     dtype=object)[y]
    ids = [f"s{i}" for i in range(len(y))]
    model = DEEMap().fit(X, names)
    path = tmp_path / "map.html"
    write_map_page(path, model.embedding_, names, ids=ids, classes=model.classes_)
    with _opened(path) as page:
        def search(text):
            return _search(page, text)

        def where(i):
            return page.evaluate(f"graphdrMap.screenPosition(graphdrMap.indexOf('{i}'))")

        home = [where(i) for i in ("s0", "s1", "s2")]
        damp = int(np.sum((names == "damp soil") | (names == "Dampness")))
        assert search("damp") == f"{damp} samples of 2 classes: Dampness, damp soil"
        soil = int(np.sum((names == "damp soil") | (names == "soil with stubble")))
        assert search("soil") == f"{soil} samples of 2 classes: soil with stubble, damp soil"
        assert search("MEADOW") == f"{int(np.sum(names == 'wet meadow'))} samples of wet meadow"
        assert search("s1") == f"sample s1 ({names[1]})"  # an id: its tip is shown
        assert page.evaluate("graphdrMap.tipText()") != ""
        assert where("s0") != home[0]  # the view moved to the sample
        assert search("") == ""
        assert [where(i) for i in ("s0", "s1", "s2")] == home
        assert page.evaluate("graphdrMap.tipText()") == ""


@pytest.mark.slow
def test_a_lone_suspect_is_framed_with_its_neighbourhood(tmp_path):
    """Searching 'suspect' with one ringed sample frames it with the samples around it (at
    least the 50 nearest on the map, counted here from the map's own coordinates), not the
    point alone."""
    _browser()
    X, y = make_blobs(n_samples=400, centers=3, n_features=4, random_state=0)
    model = DEEMap(max_iter=20).fit(X, y)
    suspect = np.zeros(len(y), dtype=bool)
    suspect[7] = True
    path = tmp_path / "map.html"
    write_map_page(path, model.embedding_, y, ids=[str(i) for i in range(len(y))],
                   suspect=suspect, suspect_total=1)
    near = np.argsort(np.linalg.norm(model.embedding_ - model.embedding_[7], axis=1))[:50]
    with _opened(path) as page:
        assert _search(page, "suspect") == "1 suspect labels (ringed)"
        box = page.evaluate("""(() => { const r = document.getElementById('map')
            .getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY,
            r.right + scrollX, r.bottom + scrollY]; })()""")
        def at(i):  # (the page keeps its points in an order of its own: by id)
            return page.evaluate(f"graphdrMap.screenPosition(graphdrMap.indexOf('{i}'))")

        shown = [at(i) for i in near]
        inside = [box[0] <= x <= box[2] and box[1] <= y_ <= box[3] for x, y_ in shown]
        assert all(inside)
        # and not the whole map: the frame is the neighbourhood's
        far = int(np.argmax(np.linalg.norm(model.embedding_ - model.embedding_[7], axis=1)))
        x, y_ = at(far)
        assert not (box[0] <= x <= box[2] and box[1] <= y_ <= box[3])


def test_png_legend_shortens_long_names_and_fits_the_picture(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg

    from graphdr.maps.views.draw import plot_map

    X, y = make_blobs(n_samples=90, centers=3, n_features=4, random_state=1)
    long = "x" * 80
    names = np.array(["a", "$b$", long], dtype=object)[y]
    model = map2d(X, names, out=tmp_path / "m")
    texts = [t.get_text() for t in plot_map(model, names).get_legend().get_texts()]
    assert texts == ["\\$b\\$", "a", "x" * 29 + "..."]
    width = mpimg.imread(tmp_path / "m.png").shape[1]
    assert width > 8 * 110  # the legend beside the 8-inch figure is kept, not cut off


def test_color_groups_categories_and_quantile_bins():
    """Against an independent count: text and few numbers are categories; other numbers fall
    into quantile bins whose ranges cover the values, in order along the colour scale."""
    from graphdr.maps.views.fitted import COLOR_BINS, color_groups

    groups, names, colors = color_groups(np.array(["b", "a", "b", ""], dtype=object))
    assert names == ["a", "b", "(missing)"] and list(groups) == ["b", "a", "b", "(missing)"]
    assert len(colors) == 3 and len(set(colors)) == 3
    groups, names, _ = color_groups(np.array([3, 1, 3, 2] * 5))
    assert names == ["1", "2", "3"]
    values = np.random.default_rng(0).gamma(2.0, size=900)
    groups, names, colors = color_groups(values)
    assert len(names) == COLOR_BINS and len(set(colors)) == COLOR_BINS
    counts = [int(np.sum(groups == n)) for n in names]
    assert sum(counts) == 900 and max(counts) - min(counts) <= 2  # quantile bins
    for name in names:  # each value within its bin's printed range (3 significant digits)
        lo, hi = (float(t) for t in name.split(" – "))
        inside = values[groups == name]
        assert inside.min() >= lo * (1 - 5e-3) and inside.max() <= hi * (1 + 5e-3)
    from matplotlib.colors import to_rgb

    luminance = [np.dot(to_rgb(c), [0.2126, 0.7152, 0.0722]) for c in colors]
    assert np.all(np.diff(luminance) > 0)  # viridis: darker to lighter, readable in grey


def test_map_coloured_by_a_column_keeps_the_fit_on_the_labels(tmp_path, capsys):
    from graphdr.cli import main

    X, y = make_blobs(n_samples=150, centers=3, n_features=3, random_state=4)
    depth = np.round(np.random.default_rng(1).uniform(0, 100, len(y)), 2)
    path = tmp_path / "d.csv"
    with open(path, "w") as fh:
        fh.write("a,b,c,depth,label\n")
        for row, d, lab in zip(X, depth, y):
            fh.write(f"{row[0]},{row[1]},{row[2]},{d},k{lab}\n")
    code = main(["map", str(path), "--color-column", "depth", "--out", str(tmp_path / "m"),
                 "--quiet"])
    assert code == 0, capsys.readouterr().err
    page = (tmp_path / "m.html").read_text()
    data = _payload(page)
    assert len(data["classes"]) == 9 and all(" – " in c for c in data["classes"])
    assert data["hover_names"][0] == "label" and sorted(set(data["hover"]["label"])) == \
        ["k0", "k1", "k2"]
    assert "3 features" in page and "Coloured by depth" in page  # depth not fitted
    reference = DEEMap().fit(X, np.array([f"k{v}" for v in y], dtype=object))
    csv_rows = np.loadtxt(tmp_path / "m.csv", delimiter=",", skiprows=1, usecols=(2, 3))
    assert np.max(subspace_angles_2d(csv_rows, reference.embedding_)) < 1e-6
    code = main(["map", str(path), "--color-column", "nope", "--out", str(tmp_path / "n")])
    err = capsys.readouterr().err
    assert code == 2 and "colour column 'nope'" in err


def subspace_angles_2d(A, B):
    """The map is the same fit when its places are (rotations aside) the same: compare the
    matrices of squared distances, which a rotation or reflection does not change."""
    from scipy.spatial.distance import pdist

    a, b = pdist(A), pdist(B)
    return np.abs(a - b) / (1 + np.abs(b))


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_page_of_few_labels_tints_unlabelled_samples_by_their_propagated_class(tmp_path):
    """A partially labelled map's page draws each unlabelled sample in a light tint of the
    colour of the class propagated to it (not grey); hiding that class hides them."""
    from matplotlib.colors import to_rgb

    from graphdr.maps.views.fitted import propagated_columns
    from graphdr.maps.views.page import CARRIED_TINT, COLORS

    X, y = make_blobs(n_samples=240, centers=3, n_features=4, random_state=1)
    names = np.array(["north", "south", "west"])[y].astype(object)
    partial = names.copy()
    partial[np.arange(240) % 10 != 0] = -1  # 10 % labelled
    model = DEEMap().fit(X, partial)
    path = model.show(partial).save(tmp_path / "few.html")
    carried = np.asarray(propagated_columns(model, partial)["inferred class"], dtype=object)
    data = _payload(path.read_text())
    tint = data["tint"][np.argsort(data["rows"])]
    unlabelled = partial == -1
    # the payload: each unlabelled sample's code is its propagated class, none for the others
    assert [data["classes"][t] for t in tint[unlabelled]] == carried[unlabelled].tolist()
    assert np.all(tint[~unlabelled] == len(data["classes"]) - 1)
    with _opened(path) as page:
        ids = [str(i) for i in range(240)]
        for row in (np.flatnonzero(unlabelled)[:3].tolist() + [0]):
            i = page.evaluate(f"graphdrMap.indexOf({json.dumps(ids[row])})")
            got = page.evaluate(f"graphdrMap.colorOf({i})")
            c = data["classes"].index(carried[row] if unlabelled[row] else partial[row])
            want = np.round(255 * np.array(to_rgb(COLORS[c])))
            if unlabelled[row]:
                want = np.round(want + CARRIED_TINT * (255 - want))
            assert got[:3] == want.astype(int).tolist() and got[3] == 255
        row = int(np.flatnonzero(unlabelled)[0])
        c = data["classes"].index(carried[row])
        page.click(f"#legend li[data-cls='{c}']")
        i = page.evaluate(f"graphdrMap.indexOf({json.dumps(ids[row])})")
        assert page.evaluate(f"graphdrMap.colorOf({i})")[3] == 0


def test_the_page_module_holds_the_page_alone():
    """The fitted map's columns, its picture and its notebook view live in modules of their own
    (graphdr.maps.views.fitted, .picture, .display); the page module forwards none of their names."""
    import graphdr.maps.views.page as page

    for name in ("plot_map", "MapView", "held_out_errors", "propagated_columns",
                 "color_groups", "fitted_map_page"):
        assert not hasattr(page, name), name
