"""The groups of a numeric colour column with infinite or NaN values (``--color-column``):
quantile bins of its finite values, each off-scale value a group of its own."""


import numpy as np

from graphdr.cli import main
from graphdr.maps.views.fitted import COLOR_BINS, color_groups


def _values(n=102, seed=0):
    return np.round(np.random.default_rng(seed).uniform(0, 100, n), 2)


def test_one_inf_leaves_the_bins_of_the_finite_values():
    """The sweep's case: 102 distinct numbers and one ``inf`` gave 103 categories. The finite
    values keep the bins they have without it; the infinite one is a group of its own."""
    finite = _values()
    text = np.array([str(v) for v in finite] + ["inf"], dtype=object)
    groups, names, colors = color_groups(text)
    alone, alone_names, alone_colors = color_groups(finite.astype(str).astype(object))
    assert len(alone_names) == COLOR_BINS
    assert names == alone_names + ["+inf"] and colors[:COLOR_BINS] == alone_colors
    assert list(groups[:-1]) == list(alone) and groups[-1] == "+inf"
    for name in alone_names:  # each finite value within its bin's printed range
        lo, hi = (float(t) for t in name.split(" – "))
        inside = finite[groups[:-1] == name]
        assert len(inside) and inside.min() >= lo * (1 - 5e-3) and inside.max() <= hi * (1 + 5e-3)
    assert len(set(colors)) == len(colors)


def test_off_scale_values_and_empty_cells_are_named_groups_around_the_bins():
    finite = _values(60, seed=1)
    values = np.array(list(finite) + [-np.inf, np.inf, "nan", "-inf", "", None, np.nan],
                      dtype=object)
    groups, names, colors = color_groups(values)
    bins = names[1:1 + COLOR_BINS]
    assert names == ["-inf"] + bins + ["+inf", "NaN", "(missing)"]
    assert all(" – " in b for b in bins)
    assert list(groups[60:]) == ["-inf", "+inf", "NaN", "-inf", "(missing)", "(missing)",
                                 "(missing)"]
    assert len(set(colors)) == len(colors)
    # a column of few finite values stays categories, its inf among them
    groups, names, _ = color_groups(np.array(["1", "2", "inf", "2", ""], dtype=object))
    assert names == ["1", "2", "inf", "(missing)"]


def test_map_coloured_by_a_column_with_an_inf_draws_its_bins(tmp_path, capsys):
    rng = np.random.default_rng(4)
    y = np.arange(120) % 3
    X = rng.normal(size=(120, 3)) + 3 * np.eye(3)[y]
    depth = [str(v) for v in _values(120, seed=2)]
    depth[7] = "inf"
    path = tmp_path / "d.csv"
    path.write_text("a,b,c,depth,label\n" + "".join(
        f"{r[0]},{r[1]},{r[2]},{d},k{c}\n" for r, d, c in zip(X.tolist(), depth, y)))
    code = main(["map", str(path), "--color-column", "depth", "--out", str(tmp_path / "m"),
                 "--labels", "given", "--outputs", "page", "--quiet"])
    assert code == 0, capsys.readouterr().err
    page = (tmp_path / "m.html").read_text()
    from graphdr.maps.views.page_data import read_page_data

    data = read_page_data(page)
    assert len(data["classes"]) == COLOR_BINS + 1 and data["classes"][-1] == "+inf"
    assert data["counts"][-1] == 1 and sum(data["counts"]) == 120
