"""Suspect labels on the map: a map fitted with ``labels='flag'`` carries its audit
(:class:`graphdr.LabelIssues`) to the page (rings, legend entry, hover, search), the CSV
(``label quality``, ``suggested class``) and the PNG; ``graphdr map`` does it by default."""

import json

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphdr import DEEMap, LabelIssues, map2d
from graphdr.maps.views.fitted import label_issue_columns


def _noisy_blobs(n=150, flipped=12, seed=0):
    """Three well separated blobs, ``flipped`` labels moved to the next class."""
    X, y = make_blobs(n_samples=n, centers=3, n_features=4, cluster_std=1.0, random_state=seed)
    wrong = np.random.default_rng(seed).choice(n, flipped, replace=False)
    noisy = y.copy()
    noisy[wrong] = (y[wrong] + 1) % 3
    return X, noisy, wrong


def _payload(page):
    from graphdr.maps.views.page_data import read_page_data

    return read_page_data(page)


def _in_rows(data, key, dtype):
    """A payload array put back in row order (the page stores the samples shuffled)."""
    values, rows = np.asarray(data[key], dtype=dtype), data["rows"]
    out = np.empty_like(values)
    out[rows] = values
    return out


@pytest.fixture(scope="module")
def flagged():
    X, y, wrong = _noisy_blobs()
    return X, y, wrong, DEEMap(labels="flag", max_iter=40).fit(X, y)


def test_the_columns_are_the_audit_of_label_issues_on_the_same_data(flagged):
    X, y, wrong, model = flagged
    audit = LabelIssues().fit(X, y)  # computed apart: the map's audit is this one
    columns, suspect = label_issue_columns(model)
    np.testing.assert_array_equal(suspect, audit.is_issue_)
    assert columns["label quality"] == [f"{q:.2f}" for q in audit.label_quality_]
    assert columns["suggested class"] == [str(c) for c in audit.suggested_label_]
    assert columns["suspect"] == ["true" if s else "false" for s in audit.is_issue_]
    # the flipped labels are the suspects: most of them found, few others
    assert np.isin(wrong, np.flatnonzero(suspect)).mean() >= 0.75
    assert suspect.sum() <= 2 * len(wrong)
    assert label_issue_columns(DEEMap(max_iter=5).fit(X, y)) == ({}, None)


def test_map2d_rings_the_suspects_on_the_page_and_writes_their_columns(tmp_path, flagged):
    X, y, wrong, _ = flagged
    model = map2d(X, y, out=tmp_path / "m", labels="flag", max_iter=40)
    audit = model.label_issues_
    page = (tmp_path / "m.html").read_text()
    data = _payload(page)
    np.testing.assert_array_equal(_in_rows(data, "suspect", "<u1").astype(bool), audit.is_issue_)
    assert data["suspect_total"] == int(audit.is_issue_.sum()) > 0
    assert "label quality" in data["hover_names"] and "suggested class" in data["hover_names"]
    assert f"the {int(audit.is_issue_.sum())} samples ringed" in page
    lines = (tmp_path / "m.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header[-3:] == ["suspect", "label quality", "suggested class"]
    cells = [line.split(",") for line in lines[1:]]
    # the table names the rows the page rings
    np.testing.assert_array_equal([c[-3] == "true" for c in cells], audit.is_issue_)
    quality = np.array([float(c[-2]) for c in cells])
    np.testing.assert_allclose(quality, audit.label_quality_, atol=0.005 + 1e-12)
    assert [c[-1] for c in cells] == [str(v) for v in audit.suggested_label_]
    assert (tmp_path / "m.png").stat().st_size > 1000
    # a map of labels as given: no rings, no columns
    map2d(X, y, out=tmp_path / "g", max_iter=5)
    assert _payload((tmp_path / "g.html").read_text())["suspect"] is None
    assert "label quality" not in (tmp_path / "g.csv").read_text().splitlines()[0]


def test_an_unlabelled_row_has_one_class_and_says_where_it_came_from(tmp_path):
    X, y, wrong = _noisy_blobs(seed=1)
    y = y.copy()
    y[::10] = -1
    model = map2d(X, y, out=tmp_path / "p", labels="flag", max_iter=20)
    rows = [line.split(",") for line in (tmp_path / "p.csv").read_text().splitlines()]
    at = {name: k for k, name in enumerate(rows[0])}
    for i, row in enumerate(rows[1:]):
        unlabelled = y[i] == -1
        assert (row[at["label quality"]] == "") == unlabelled
        # a labelled row: the class its label check supports; an unlabelled one: the one
        # class the map gives it, and by what
        assert (row[at["suggested class"]] in {"0", "1", "2"}) == (not unlabelled)
        assert (row[at["inferred class"]] in {"0", "1", "2"}) == unlabelled
        assert (row[at["inferred by"]] in {"propagation", "label check"}) == unlabelled
        assert row[at["suspect"]] == ("true" if model.label_issues_.is_issue_[i] else "false")
    assert not model.label_issues_.is_issue_[y == -1].any()


def test_show_of_a_flagged_map_keeps_the_rings_of_the_points_it_draws(flagged):
    X, y, wrong, model = flagged
    view = model.show(max_points=60)
    data = _payload(view.page)
    rows = data["rows"]
    drawn = np.sort(np.random.default_rng(0).choice(len(y), 60, replace=False))
    shown = data["suspect"].astype(bool)
    np.testing.assert_array_equal(shown, model.label_issues_.is_issue_[drawn][rows])
    assert data["suspect_total"] == int(shown.sum())


def test_a_suspect_mask_of_the_wrong_length_is_refused():
    from graphdr.maps.views.page import map_page_html

    with pytest.raises(ValueError, match="suspect has 3 values for 4 samples"):
        map_page_html(np.zeros((4, 2)), np.array([0, 1, 0, 1]), suspect=np.zeros(3, bool))


def test_map_command_flags_by_default_and_given_skips_the_audit(tmp_path, capsys):
    from graphdr.cli import main

    X, y, wrong = _noisy_blobs(n=120, flipped=10)
    path = tmp_path / "data.csv"
    path.write_text("\n".join(["a,b,c,d,label"] + [
        ",".join(f"{v:.6f}" for v in row) + f",k{t}" for row, t in zip(X, y)]) + "\n")
    assert main(["map", str(path), "--out", str(tmp_path / "m"), "--no-png"]) == 0
    err = capsys.readouterr().err
    assert "checking the labels" in err and "suspect labels (ringed)" in err
    header = (tmp_path / "m.csv").read_text().splitlines()[0]
    assert header.endswith("label quality,suggested class")
    assert _payload((tmp_path / "m.html").read_text())["suspect_total"] > 0
    assert main(["map", str(path), "--out", str(tmp_path / "g"), "--quiet", "--no-png",
                 "--labels", "given"]) == 0
    assert "label quality" not in (tmp_path / "g.csv").read_text()
    # past memory (a Dask cluster) the audit is refused before anything starts
    assert main(["map", str(path), "--out", str(tmp_path / "d"), "--scheduler", "local",
                 "--labels", "flag"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--labels flag" in err[0] and "in memory" in err[0]
    assert not list(tmp_path.glob("d.*"))


@pytest.mark.slow  # a browser to start: in `make test-slow` (CI)
def test_a_user_finds_the_suspects_from_the_page_alone_in_chromium(tmp_path, flagged):
    from test_map_page import _opened, _search

    from graphdr.cli import main

    X, y, wrong, _ = flagged
    ids = [f"row-{i}" for i in range(len(y))]
    path = tmp_path / "noisy.csv"  # a file with flipped labels, mapped as a user would
    path.write_text("\n".join(["id,a,b,c,d,label"] + [
        f"{i}," + ",".join(f"{v:.6f}" for v in row) + f",{t}"
        for i, row, t in zip(ids, X, y)]) + "\n")
    assert main(["map", str(path), "--out", str(tmp_path / "m"), "--quiet", "--no-png"]) == 0
    audit = LabelIssues().fit(np.round(X, 6), y)  # the audit of the same file, apart
    suspects = np.flatnonzero(audit.is_issue_)
    assert np.isin(wrong, suspects).mean() >= 0.75
    with _opened(tmp_path / "m.html") as page:
        problems = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        legend = page.inner_text("#suspect-entry")
        assert "suspect labels" in legend and f"({len(suspects)})" in legend
        assert page.evaluate("graphdrMap.ringsShown()")
        assert page.evaluate("graphdrMap.ringedCount()") == len(suspects)
        # hover a ringed sample: its label, the suggested class and the label quality (the
        # map scrolled whole into the window first, as a user would: the header above it can
        # push its bottom below an 800-pixel window)
        page.evaluate("document.getElementById('map').scrollIntoView({block: 'end'})")
        i = page.evaluate(f"graphdrMap.indexOf({json.dumps(ids[suspects[0]])})")
        x, yy = page.evaluate(f"graphdrMap.screenPosition({i})")  # (page coordinates)
        yy -= page.evaluate("window.scrollY")
        page.mouse.move(x + 1, yy + 1)
        page.mouse.move(x, yy)
        page.wait_for_timeout(50)
        tip = page.evaluate("graphdrMap.tipText()")
        suggested = str(audit.suggested_label_[suspects[0]])
        quality = f"{audit.label_quality_[suspects[0]]:.2f}"
        assert "suspect labels" in tip and "suggested class" in tip and suggested in tip
        assert "label quality" in tip and quality in tip
        # the rings are drawn: dark pixels on their canvas
        dark = page.evaluate("""(() => { const c = document.getElementById('rings');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let k = 0; for (let j = 3; j < d.length; j += 4) if (d[j] > 128) k++; return k; })()""")
        assert dark > 20 * len(suspects)
        # the legend entry hides and shows them; a search frames them
        page.click("#suspect-entry")
        assert not page.evaluate("graphdrMap.ringsShown()")
        page.wait_for_function("graphdrMap.ringedCount() === 0", timeout=5000)
        assert _search(page, "suspect") == f"{len(suspects)} suspect labels (ringed)"
        page.wait_for_function(f"graphdrMap.ringedCount() === {len(suspects)}", timeout=5000)
        assert problems == []


def _brute_feature_error(features, y):
    """Leave-one-out 1-NN error of the labelled rows among the labelled rows, by brute force."""
    labelled = np.flatnonzero(np.asarray(y) != -1)
    F, yl = features[labelled], np.asarray(y)[labelled]
    D = ((F[:, None] - F[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    return float(np.mean(yl[np.argmin(D, axis=1)] != yl))


@pytest.mark.parametrize("unlabelled", ["ignore", "auto"])
def test_labels_audit_maps_a_fully_labelled_file_whose_labels_it_flags(tmp_path, unlabelled):
    """labels='audit' turns the flagged rows unlabelled; with unlabelled='ignore' the map is
    fitted on the other rows and places the flagged ones: the page's held-out error then
    compared arrays of 116 and 120 rows (issue 79)."""
    from graphdr.maps.views.fitted import held_out_errors

    X, y = make_blobs(n_samples=120, centers=3, n_features=4, random_state=0)
    y = y.copy()
    y[:4] = (y[:4] + 1) % 3  # 3 classes x 40 rows, 4 labels flipped
    model = map2d(X, y, out=tmp_path / "m", labels="audit", unlabelled=unlabelled, max_iter=20)
    flagged = model.label_issues_.is_issue_
    assert flagged.any()
    if unlabelled == "ignore":
        assert model.unlabelled_ == "ignore"
    errors = held_out_errors(model, y)
    assert errors["n"] == len(y)
    assert errors["feature_error"] == _brute_feature_error(model._training_features(), y)
    data = _payload((tmp_path / "m.html").read_text())
    assert data["suspect_total"] == int(flagged.sum())
    lines = (tmp_path / "m.csv").read_text().splitlines()
    assert len(lines) == len(y) + 1


def test_map_command_labels_audit_on_a_tiny_file(tmp_path, capsys):
    from graphdr.cli import main

    X, y = make_blobs(n_samples=120, centers=3, n_features=4, random_state=0)
    y = y.copy()
    y[:4] = (y[:4] + 1) % 3
    path = tmp_path / "tiny.csv"
    path.write_text("\n".join(["a,b,c,d,label"] + [
        ",".join(f"{v:.6f}" for v in row) + f",k{t}" for row, t in zip(X, y)]) + "\n")
    assert main(["map", str(path), "--out", str(tmp_path / "m"), "--no-png",
                 "--labels", "audit"]) == 0
    err = capsys.readouterr().err
    assert "suspect labels (ringed)" in err and "error" not in err
    audit = LabelIssues().fit(np.round(X, 6), np.array([f"k{t}" for t in y]))
    assert audit.is_issue_.any()
    assert _payload((tmp_path / "m.html").read_text())["suspect_total"] == audit.is_issue_.sum()
