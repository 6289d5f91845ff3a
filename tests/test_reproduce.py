"""`graphdr reproduce`: the papers' numbers are transcribed completely, a quick run of each paper
writes a report with the paper's numbers beside ours, the figures it links, and results.csv."""

import csv
import itertools
import json
import os
import pathlib
import re
import signal

import numpy as np
import pytest
from conftest import send_ctrl_c_at

from graphdr.bench import datasets as bd
from graphdr.bench.protocols import get_protocol
from graphdr.bench.reproduce import PAPERS, paper_numbers, reproduce
from graphdr.cli import main

# a cell of a comparison table with numbers on both sides: "paper / ours (difference)"
BOTH = re.compile(r"(-?\d+\.\d+) / (-?\d+\.\d+) \(([+-]\d+\.\d+)\)")


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("reproduce")
    out = {}
    for key in ("000", "001", "003"):
        path, failures = reproduce(key, out=str(root / key), quick=True, progress=False,
                                   echo=lambda *a: None)
        assert failures == []
        out[key] = root / key
    # paper 002 through the command line
    assert main(["reproduce", "002", "--quick", "--quiet", "--out", str(root / "002")]) == 0
    out["002"] = root / "002"
    return out


def _report(quick_runs, key):
    return (quick_runs[key] / "report.md").read_text()


# ----- transcriptions --------------------------------------------------------------------------
def test_every_table_is_complete():
    sizes = {  # (table, rows with a paper number, columns)
        # paper 002: each of the paper's rows twice, ours as printed and with the defaults
        ("002", "table2"): (8, 11), ("002", "table3"): (12, 7), ("002", "table4"): (12, 7),
        ("003", "fig6"): (4, 3),
    }
    for (paper, key), (n_rows, n_cols) in sizes.items():
        table = next(t for t in PAPERS[paper].tables if t.key == key)
        assert len(table.rows) == n_rows and len(table.columns) >= n_cols
        for row, col in itertools.product(table.rows, table.columns[:n_cols]):
            value, ref = table.cells[(row, col)]
            assert isinstance(value, float) and ref is not None, (paper, key, row, col)
    table1 = PAPERS["001"].tables[0]
    kernels = [r for r in table1.rows if r.startswith("KFD, kernel")]
    assert len(kernels) == 7  # GB-1, GB-2, SIFT-Dist, SIFT-Grid, C2-SWP, C2-ML, PHOG
    for row, col in itertools.product(kernels, table1.columns):
        assert isinstance(table1.cells[(row, col)][0], float)
    combined = ("KFD-Voting", "KFD-SAMME", "MKL-LDA (all kernels), as printed",
                "MKL-LDA (all kernels), graphdr default", "KLDE-Voting", "KLDE-SAMME",
                "MKL-LDE (all kernels), as printed", "MKL-LDE (all kernels), graphdr default")
    for row, col in itertools.product(combined, table1.columns):
        value, ref = table1.cells[(row, col)]
        assert 0 < value < 100 and ref is not None


def test_derived_numbers_follow_from_the_transcription():
    t1 = PAPERS["001"].tables[0]
    cell = {k: v[0] for k, v in t1.cells.items()}
    for col in t1.columns:
        best = max(cell[(r, col)] for r in t1.rows if r.startswith("KFD, kernel"))
        assert cell[("best single-kernel KFD", col)] == best
        mkl = cell[("MKL-LDA (all kernels), as printed", col)]
        assert cell[("MKL-LDA minus best single KFD", col)] == pytest.approx(mkl - best)
        assert cell[("MKL-LDA minus KFD-Voting", col)] == pytest.approx(
            mkl - cell[("KFD-Voting", col)])
        klde = max(cell[(r, col)] for r in t1.rows if r.startswith("KLDE, kernel"))
        assert cell[("best single-kernel KLDE", col)] == klde
        assert cell[("MKL-LDE minus KLDE-SAMME", col)] == pytest.approx(
            cell[("MKL-LDE (all kernels), as printed", col)] - cell[("KLDE-SAMME", col)])
    # the paper's text: "a considerable performance gain of 14.6% over the best ... KFD"
    assert cell[("MKL-LDA minus best single KFD", t1.columns[0])] == pytest.approx(14.6)
    numbers = paper_numbers("002")
    assert len(numbers) == 2 * (4 * 11 + 6 * 7 + 6 * 7)
    assert all(0 <= v <= 100 for *_, v in numbers)


def test_001_has_the_equal_weight_kernel_row_beside_the_paper():
    """The equal-weight kernel baseline (does MKL-DR's learning of the weights pay?) is run and
    reported, with no paper value (the paper has no such row)."""
    t1 = PAPERS["001"].tables[0]
    for row in ("KFD-Average (equal kernel weights; not in the paper)",
                "MKL-LDA minus KFD-Average"):
        for col in t1.columns:
            value, ref = t1.cells[(row, col)]
            assert value is None and ref is not None
    assert "kfd-average" in PAPERS["001"].experiments[0].methods


def test_001_runs_the_klde_family_and_the_printed_mkl_dr():
    from graphdr.bench.methods import get_method

    methods = PAPERS["001"].experiments[0].methods
    for m in ("klde:view=each", "klde-voting", "klde-samme", "view-kfd:view=each",
              "mkl-lda-paper", "mkl-lde-paper"):
        assert m in methods
    assert get_method("klde-voting").params == {"discriminant": "lde"}
    assert get_method("mkl-lda-paper").params["weight_shrinkage"] == 0.0
    assert len(PAPERS["001"].ledger) >= 15


def test_003_runs_dee_and_dsne_as_printed_beside_the_defaults():
    from graphdr.bench.methods import get_method
    from graphdr.neighbor_embedding import DEE, DSNE

    for exp in PAPERS["003"].experiments[:2]:  # both Fig. 11 panels
        assert {"dee-paper", "dee", "dsne-paper", "dsne", "mmpa"} <= set(exp.methods)
    dee = get_method("dee-paper").build(3)
    dsne = get_method("dsne-paper").build(3)
    assert isinstance(dee, DEE) and dee.shrinkage == 0.0  # eq. (12), no validation
    assert isinstance(dsne, DSNE) and dsne.normalization == "classwise" and dsne.cv is None


def test_002_rows_set_the_printed_recipe_beside_the_default():
    """Each of the paper's rows of Tables 2-4 twice: ours as printed (the '-paper' method) and
    with graphdr's defaults, both against the paper's number."""
    for table in PAPERS["002"].tables:
        for row in table.rows:
            col = table.columns[0]
            paper, (_exp, _ds, method, _clf, _dim) = table.cells[(row, col)]
            assert isinstance(paper, float)
            printed = method.split(":")[0].endswith("-paper")
            assert printed == row.endswith("(as printed)"), (row, method)
            assert printed != row.endswith("(graphdr default)"), (row, method)


def _fake_lookup(errors):
    """A Lookup whose experiment 'faces' holds ``errors[method]`` (10 fold errors) at dims
    1-8 on 'digits'."""
    from graphdr.bench.reproduce.spec import Lookup

    folds = {"faces": {("digits_32pc", m, "1nn"): {
        d: np.asarray(e[d] if isinstance(e, dict) else e, float) for d in (1, 2, 3, 4, 8)}
        for m, e in errors.items()}}
    aggs = {"faces": {k: {d: (float(v.mean()), 0.0, 10) for d, v in dims.items()}
                      for k, dims in folds["faces"].items()}}
    return Lookup(aggs, folds)


def test_002_ledger_verdicts_follow_the_5x2cv_f_test_per_dimension():
    """The first claim (MI_BA below QMI from LDA), tested at each of its dimensions: the
    paper's gap at every dimension is 'reproduced', with the F of Alpaydin's formula on the
    errors averaged over the dimensions beside it; the paper's gap at two of five dimensions
    only (the median dimension another size) 'direction only'; a reversed gap 'not
    reproduced', a noisy one 'direction only', no numbers 'not testable'."""
    from graphdr.bench.reproduce.gavriilidis_numbers import _P002_FACES_DIMS, _t2
    from graphdr.bench.significance import five_by_two_f

    row = PAPERS["002"].ledger[0]
    rng = np.random.default_rng(0)
    base = 0.2 + 0.01 * rng.standard_normal(10)
    paper = {d: (_t2("QMI, LDA", (d,)) - _t2("MI_BA, LDA", (d,))) / 100
             for d in _P002_FACES_DIMS}
    noise = 0.003 * rng.standard_normal(10)
    cases = [("reproduced", {d: base - g + noise for d, g in paper.items()}),
             # a 10-point gap everywhere: the paper's size at dims 2 and 3 only
             ("direction only", base - 0.1 + noise),
             ("not reproduced", base + 0.05 + 0.005 * rng.standard_normal(10)),
             ("direction only", base + np.array([-0.3, 0.25] * 5)),
             # significant, but a tenth of the paper's 11.5-point gap: another size
             ("direction only", base - 0.012 + 0.001 * rng.standard_normal(10))]
    for want, mi_b in cases:
        errors = {"mi-b-paper:init=lda": mi_b, "qmi-paper:init=lda": base,
                  "mi-b:init=lda": base, "qmi:init=lda": base}
        got = row.check(_fake_lookup(errors))
        assert got["verdict"] == want, (want, got)
        averaged = np.mean([mi_b[d] if isinstance(mi_b, dict) else mi_b
                            for d in _P002_FACES_DIMS], axis=0)
        f, p = five_by_two_f((averaged - base).reshape(5, 2))
        shown = re.search(r"F ([0-9.]+), p ([0-9.]+)", got["as_printed"])
        assert float(shown[1]) == pytest.approx(f, abs=0.006)
        assert float(shown[2]) == pytest.approx(p, abs=0.0006)
        assert "Holm" in got["test"] and got["test"].count(" (paper ") == 5
    assert row.check(_fake_lookup({}))["verdict"] == "not testable"
    assert len(PAPERS["002"].ledger) >= 15


def test_holm_and_the_per_dimension_verdict():
    """Holm's adjustment against its step-down definition (reject the k-th smallest p while
    p_(j) <= alpha / (m - j + 1) for every j <= k) at many levels, and the median rule."""
    from graphdr.bench.reproduce import spec

    np.testing.assert_allclose(spec.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    rng = np.random.default_rng(1)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 7))
        adjusted = spec.holm(p)
        order = np.argsort(p)
        for alpha in (0.01, 0.05, 0.1):
            rejected = set()
            for j, i in enumerate(order):
                if p[i] > alpha / (len(p) - j):
                    break
                rejected.add(i)
            assert rejected == {i for i in range(len(p)) if adjusted[i] <= alpha}
    # three dimensions: two reproduced, one not -> reproduced; with four, two and two -> the
    # weaker of the middle pair
    strong, weak = (10.0, 20.0, 1e-6, 1e-6), (20.0, 10.0, 1e-6, 1e-6)
    verdict, each = spec.per_dimension_verdict([strong, strong, weak], [10.0] * 3)
    assert verdict == "reproduced" and [v for v, _ in each].count("not reproduced") == 1
    verdict, _ = spec.per_dimension_verdict([strong, strong, weak, weak], [10.0] * 4)
    assert verdict == "not reproduced"
    assert spec.per_dimension_verdict([strong, None], [10.0, 10.0])[0] == "not testable"


def test_the_size_rule_and_the_equivalence_tests_against_scipy():
    """The verdict rule (``spec.sized_verdict``) on the sizes of the catalogued claims, and
    the two one-sided tests against scipy's one-sample t tests."""
    from scipy.stats import ttest_1samp

    from graphdr.bench.reproduce import spec

    rng = np.random.default_rng(3)
    for shift in (0.0, 0.6, 1.4):
        d = shift + 0.5 * rng.standard_normal(10)
        mean, p = spec.tost(d)
        assert mean == pytest.approx(d.mean())
        assert p == pytest.approx(max(ttest_1samp(d, -1.0, alternative="greater").pvalue,
                                      ttest_1samp(d, 1.0, alternative="less").pvalue))
        assert spec.noninferior(d)[1] == pytest.approx(
            ttest_1samp(d, 1.0, alternative="less").pvalue)
    assert spec.tost([0.1, 0.2])[1] is None
    np.testing.assert_allclose(spec.replicate_means(np.arange(10.0)), [0.5, 2.5, 4.5, 6.5, 8.5])
    sized = spec.sized_verdict
    assert sized(True, True, 6.47, 14.6) == "direction only"  # x0.44 of the paper's gap
    assert sized(True, True, 4.87, 3.4) == "reproduced"  # x1.43
    assert sized(True, True, 7.0, 3.4) == "direction only"  # x2.06
    assert sized(True, False, 4.87, 3.4) == "direction only"
    assert sized(False, True, 4.87, 3.4) == "not reproduced"
    assert sized(True, True, 0.99) == "direction only" and sized(True, True, 1.0) == "reproduced"
    # ratios: between the square root and the square of the paper's (or its spread's ends)
    assert sized(True, True, 12.0, 30.0, ratio=True) == "reproduced"
    assert sized(True, True, 5.0, 30.0, ratio=True) == "direction only"
    assert sized(True, True, 1.2, (1.30, 36.08), ratio=True) == "reproduced"
    assert sized(True, True, 1.2, ratio=True) == "direction only"
    assert spec.equivalence_verdict(0.1, 0.01) == "reproduced"
    assert spec.equivalence_verdict(0.5, 0.2) == "direction only"
    assert spec.equivalence_verdict(-1.5, 0.3) == "not reproduced"
    assert spec.equivalence_verdict(0.0, None) == "not testable"
    assert "x0.44" in spec.size_text(6.4, 14.6)


def _fig11_lookup(errors, panel="fig11_small"):
    """A Lookup whose panel holds ``errors[method]``: {dim: 10 split errors} on digits."""
    from graphdr.bench.reproduce.spec import Lookup

    folds = {panel: {("digits", m, "1nn"): {d: np.asarray(e, float) for d, e in dims.items()}
                     for m, dims in errors.items()}}
    aggs = {panel: {k: {d: (float(v.mean()), 0.0, 10) for d, v in dims.items()}
                    for k, dims in folds[panel].items()}}
    return Lookup(aggs, folds)


@pytest.mark.slow
def test_003_ledger_tests_the_splits_paired():
    """Fig. 11's claims: Wilcoxon's signed-rank test over the 10 splits, paired by split (a
    gap smaller than the splits' spread but consistent is significant), at each method's best
    dimension; 'very close' holds when the two-sided test finds no difference; the summed
    falls of a curve are computed from the curve."""
    from scipy.stats import wilcoxon

    ledger = {row.claim: row for row in PAPERS["003"].ledger}
    highest = ledger["Section 5: DEE reaches the highest recognition rate"]
    close = ledger["Fig. 11: the best rates of MMPA and DEE are very close"]
    smooth = ledger["Fig. 11: DEE's curve is smoother than MMPA's"]
    rng = np.random.default_rng(0)
    spread = 0.2 + 0.1 * rng.standard_normal(10)  # split difficulty, shared by the methods
    dee = {5: spread, 10: spread - 0.01 - 0.002 * rng.random(10)}  # best at 10
    others = {"dsne-paper": {5: spread + 0.02, 10: spread + 0.03},
              "dcv": {5: spread + 0.05}, "mmpa": {5: spread + 0.04, 10: spread + 0.02}}
    got = highest.check(_fig11_lookup({"dee-paper": dee, **others}))
    assert got["verdict"] == "reproduced", got
    p = wilcoxon(dee[10] - others["mmpa"][10], alternative="less").pvalue
    assert f"p {p:.3f}" in got["as_printed"] and "(dim 10)" in got["as_printed"]
    got = highest.check(_fig11_lookup({"dee-paper": {5: spread + 0.1}, **others}))
    assert got["verdict"] == "not reproduced"
    # very close: the same errors up to noise -> reproduced; a consistent gap -> not
    noise = 0.001 * rng.standard_normal(10)
    got = close.check(_fig11_lookup({"dee-paper": {5: spread + noise}, "mmpa": {5: spread}}))
    assert got["verdict"] == "reproduced", got
    got = close.check(_fig11_lookup({"dee-paper": {5: spread - 0.05}, "mmpa": {5: spread}}))
    assert got["verdict"] == "not reproduced"
    # falls: DEE's curve never rises in error, MMPA's rises by 4 points after dim 5
    got = smooth.check(_fig11_lookup({"dee-paper": {1: spread, 5: spread - 0.1,
                                                    10: spread - 0.1},
                                      "mmpa": {1: spread, 5: spread - 0.1,
                                               10: spread - 0.06}}))
    assert "falls DEE 0.0 vs MMPA 4.0 points" in got["as_printed"], got
    assert got["verdict"] == "reproduced"
    assert highest.check(_fig11_lookup({}))["verdict"] == "not testable"
    assert len(ledger) >= 10


def test_003_picture_measures_against_brute_force():
    from graphdr.bench.reproduce.zheng_dee_fig6 import _loo_1nn_error, _within_ratio

    rng = np.random.default_rng(1)
    Y, y = rng.standard_normal((30, 2)), rng.integers(0, 3, 30)
    D = ((Y[:, None] - Y[None]) ** 2).sum(-1) + np.diag(np.full(30, np.inf))
    assert _loo_1nn_error(Y, y) == pytest.approx(np.mean(y[D.argmin(1)] != y))
    within = sum(((Y[y == c] - Y[y == c].mean(0)) ** 2).sum() for c in range(3))
    assert _within_ratio(Y, y) == pytest.approx(within / ((Y - Y.mean(0)) ** 2).sum())
    assert _within_ratio(1e6 * Y + 3.0, y) == pytest.approx(_within_ratio(Y, y))


def test_every_paper_has_experiments_and_comparisons():
    for key, paper in PAPERS.items():
        assert paper.experiments and paper.stand_ins
        assert paper.ledger, key
        assert os.path.basename(paper.file).startswith(key)


# ----- quick runs ------------------------------------------------------------------------------
@pytest.mark.slow  # the quick reproductions of the four papers: whole pipelines, in `make test-slow` (CI)
@pytest.mark.parametrize("key", ["001", "002", "003"])
def test_quick_report_sets_ours_beside_the_papers(quick_runs, key):
    text = _report(quick_runs, key)
    # the title states the ledger's counts, as the verdicts line below the ledger counts them
    title = re.match(rf"# Paper {key} \(claims: (.*) of (\d+)\): ", text)
    assert title, text.splitlines()[0]
    counts = dict(re.findall(r"(reproduced|direction only|not reproduced|not testable) (\d+)",
                             re.search(r"^Verdicts: (.*)\.$", text, re.M).group(1)))
    assert dict(re.findall(r"(reproduced|direction only|not reproduced|not testable) (\d+)",
                           title.group(1))) == {k: v for k, v in counts.items() if v != "0"}
    assert sum(map(int, counts.values())) == int(title.group(2))
    assert "Command: `graphdr reproduce" in text and "QUICK RUN" in text
    assert "**Why they differ.**" in text
    cells = BOTH.findall(text)
    assert cells, "no cell with the paper's number and ours"
    for paper, ours, diff in cells:
        assert float(diff) == pytest.approx(float(ours) - float(paper), abs=0.011)
    # results.csv: one row per compared number, the same differences
    with open(quick_runs[key] / "results.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    both = [r for r in rows if r["paper"] and r["ours"] and r["metric"] != "claim"]
    assert len(both) >= len(cells) > 0
    for r in both:
        assert float(r["difference"]) == pytest.approx(float(r["ours"]) - float(r["paper"]),
                                                       abs=1e-3)
    transcribed = {(t, r, c) for t, r, c, _ in paper_numbers(key)}
    assert transcribed <= {(r["table"], r["row"], r["column"]) for r in rows}


@pytest.mark.slow  # the quick reproductions of the four papers: whole pipelines, in `make test-slow` (CI)
@pytest.mark.parametrize("key", ["000", "001", "002", "003"])
def test_quick_report_has_the_claims_ledger(quick_runs, key):
    from graphdr.bench.reproduce.spec import VERDICTS

    text = _report(quick_runs, key)
    assert "## Two recipes: as printed and graphdr's defaults" in text
    section = text.split("## Claims", 1)[1]
    head = "| claim | paper | as printed | graphdr default | test | size | verdict |"
    assert head in section
    lines = section.splitlines()
    start = lines.index(head) + 2
    rows = lines[start:lines.index("", start)]
    assert len(rows) == len(PAPERS[key].ledger) >= 8
    assert all(line.rstrip(" |").rsplit("**", 2)[-2] in VERDICTS for line in rows), rows


@pytest.mark.slow  # the quick reproductions of the four papers: whole pipelines, in `make test-slow` (CI)
def test_quick_report_000_says_why_numbers_are_missing(quick_runs):
    text = _report(quick_runs, "000")
    assert "none of the cells" in text  # says why the paper's numbers are missing
    assert "| wins |" in text  # our paper-style tables with the wins row


@pytest.mark.slow  # the quick reproductions of the four papers: whole pipelines, in `make test-slow` (CI)
@pytest.mark.parametrize("key", ["000", "001", "002", "003"])
def test_quick_report_figures_exist(quick_runs, key):
    text = _report(quick_runs, key)
    images = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert images
    for img in images:
        path = quick_runs[key] / img
        assert path.stat().st_size > 1000, img
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for exp in PAPERS[key].experiments:
        assert (quick_runs[key] / exp.key / "index.html").exists()


@pytest.mark.slow  # the quick reproductions of the four papers: whole pipelines, in `make test-slow` (CI)
def test_fig6_records_every_optimizer(quick_runs):
    with open(quick_runs["003"] / "fig6.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["optimizer"] for r in rows} == {"ld", "fp", "cg", "gd"}
    assert {(r["regime"], r["recipe"]) for r in rows} == {
        (g, r) for g in ("D >= N", "sample counts") for r in ("as_printed", "default")}
    printed = [r for r in rows if r["recipe"] == "as_printed"]
    assert all(int(r["iterations"]) >= 1 and float(r["shrinkage"]) == 0.0 for r in printed)
    assert all(float(r["seconds"]) >= 0 and float(r["objective"]) <= float(
        r["initial_objective"]) for r in rows)


@pytest.mark.slow  # the quick reproductions of the four papers: whole pipelines, in `make test-slow` (CI)
def test_rerun_resumes_and_logs_both_runs(quick_runs):
    out = quick_runs["003"]
    before = (out / "fig11" / "results.csv").read_text()
    reproduce("003", out=str(out), quick=True, progress=False, echo=lambda *a: None)
    assert (out / "fig11" / "results.csv").read_text() == before  # nothing recomputed
    text = (out / "report.md").read_text()
    log = [line for line in text.splitlines() if line.startswith("| 20")]
    assert len(log) == 2 and log[1].split("|")[4].strip().startswith("0 /")


def test_unknown_paper():
    with pytest.raises(ValueError, match="Unknown paper '004'.*000, 001, 002, 003"):
        reproduce("004", out="unused")
    with pytest.raises(SystemExit):
        main(["reproduce", "004"])


# ----- interrupted runs ------------------------------------------------------------------------
def _tiny_paper(n_splits_b=2):
    """A paper of two small experiments and a figure maker: a run takes half a second."""
    from graphdr.bench.reproduce.spec import Experiment, Paper, write_rows

    def extra(out, quick, progress, seed, echo):
        write_rows(os.path.join(out, "extra.csv"), [{"seed": seed}])
        return [], []

    demo = get_protocol("demo")
    return Paper(key="000", citation="a tiny paper", file="000-tiny.txt", stand_ins=(),
                 experiments=(Experiment("a", "two methods", demo.replace(n_splits=3), ("iris",),
                                         ("lda", "pca"), plots=False, pictures=False),
                              Experiment("b", "one method", demo.replace(n_splits=n_splits_b),
                                         ("wine",), ("lda",), plots=False, pictures=False)),
                 figures=(extra,))


#: the tiny paper's cells: (experiment, data set, method, fold)
TINY_CELLS = {("a", "iris", m, f) for m in ("lda", "pca") for f in range(3)} | \
    {("b", "wine", "lda", f) for f in range(2)}


def _tree(folder):
    folder = pathlib.Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _cells_in(folder):
    from graphdr.bench.report import read_results

    return {(exp, r["dataset"], r["method"], r["fold"]) for exp in ("a", "b")
            for r in read_results(os.path.join(folder, exp, "results.csv"))}


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """The tiny paper's reference run, and an earlier output whose cells (seed 1) say they are
    seed 0's, so that a run that reused them would differ from the reference."""
    root = tmp_path_factory.mktemp("tiny")
    argv = ["reproduce", "000", "--quiet", "--no-timing", "--out"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(PAPERS, "000", _tiny_paper())
        assert main(argv + [str(root / "reference")]) == 0
        assert main(argv + [str(root / "earlier"), "--seed", "1"]) == 0
    for exp in ("a", "b"):
        config = root / "earlier" / exp / "config.json"
        config.write_text(config.read_text().replace('"seed": 1', '"seed": 0'))
    assert (root / "earlier" / "a" / "results.csv").read_bytes() != \
        (root / "reference" / "a" / "results.csv").read_bytes()
    return root


@pytest.fixture
def tiny(tiny_runs, monkeypatch, tmp_path):
    """The tiny paper as paper 000, the command of a run into a copy of the earlier output,
    that copy and the reference run."""
    import shutil

    monkeypatch.setitem(PAPERS, "000", _tiny_paper())
    out = tmp_path / "out"
    shutil.copytree(tiny_runs / "earlier", out)
    return ["reproduce", "000", "--quiet", "--no-timing", "--out", str(out)], out, \
        tiny_runs / "reference"


def _counted_cells(monkeypatch):
    import graphdr.bench.runner as runner

    cells, real = [], runner.run_cell

    def run_cell(task):
        cells.append((task["dataset"], task["method"], task["fold"]))
        return real(task)

    monkeypatch.setattr(runner, "run_cell", run_cell)
    return cells


# the tiny run renames 35 files and folders into place: its in-progress folder (1), experiment
# a's settings, cells and pages (2-12), b's (13-19), the figure maker's file, the report, its
# results.csv and runs.json (20-23), then the 12 files into --out (24-35)
@pytest.mark.parametrize("moment", [6, 22, 27] + [pytest.param(m, marks=pytest.mark.slow)
                                                   for m in (1, 2, 15)])  # 1 s each
def test_ctrl_c_during_a_fresh_run_leaves_the_earlier_output_whole(tiny, monkeypatch, capsys,
                                                                   moment):
    """Ctrl-C at several moments of ``graphdr reproduce --fresh`` over an earlier output: the
    earlier files byte for byte as they were, plus the in-progress folder (or the new files,
    all of them, when Ctrl-C came while they were renamed into place); the message names the
    command that goes on from the finished cells (without --fresh), and that command computes
    only the cells the interrupted run had not, never reusing the earlier output's."""
    import shlex

    argv, out, reference = tiny
    older = _tree(out)
    capsys.readouterr()
    stop = send_ctrl_c_at(monkeypatch, moment)
    code = main(argv + ["--fresh"])
    stop()
    err = capsys.readouterr().err.strip()
    now = _tree(out)
    assert code == 130, err
    new = {k: v for k, v in _tree(reference).items() if k.startswith(("a/", "b/"))
           and not k.endswith((".md", ".html"))}  # pages hold the command, with its --out
    if "interrupted after writing" in err:  # Ctrl-C held while the new files were renamed
        assert sorted(now) == sorted(older) and all(now[k] == v for k, v in new.items())
        assert len(json.loads(now["runs.json"])) == 1  # --fresh: a log of its own
        return
    assert {k: v for k, v in now.items() if not k.startswith("in-progress/")} == older, err
    if "To go on from them" not in err:  # stopped before the run had its in-progress folder
        assert err.endswith(f"interrupted; nothing in {out} was replaced.") and now == older
        return
    said, again = err.rsplit(": graphdr ", 1)
    assert shlex.split(again) == argv and said.endswith(
        f"kept in {out / 'in-progress'}. To go on from them, run (without --fresh, which "
        "starts over)")
    finished = _cells_in(out / "in-progress")
    computed = _counted_cells(monkeypatch)
    assert main(shlex.split(again)) == 0
    assert len(computed) == len(TINY_CELLS - finished)
    assert {c[1:] for c in TINY_CELLS - finished} == set(computed)
    now = _tree(out)
    assert sorted(now) == sorted(older) and all(now[k] == v for k, v in new.items())
    runs = json.loads(now["runs.json"])  # the interrupted fresh run's log, not the earlier
    assert len(runs) == 1 and runs[0]["reused_cells"] == len(finished)
    assert runs[0]["computed_cells"] == len(computed)


def test_a_run_of_other_settings_leaves_the_earlier_output_whole(tiny, monkeypatch, capsys):
    """Without --fresh, an experiment whose settings changed since the earlier output is
    refused in one line, after the experiments before it ran: nothing of --out replaced and no
    in-progress folder left; with --fresh the run replaces the output whole."""
    argv, out, _ = tiny
    older = _tree(out)
    monkeypatch.setitem(PAPERS, "000", _tiny_paper(n_splits_b=3))
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "n_splits 2 before, 3 now" in err and "--fresh" in err
    assert _tree(out) == older
    assert main(argv + ["--fresh"]) == 0
    assert _cells_in(out) == TINY_CELLS | {("b", "wine", "lda", 2)}
    assert not (out / "in-progress").exists()


@pytest.mark.slow  # real Ctrl-C at up to five moments of a quick reproduction, 20-50 s
def test_ctrl_c_at_any_moment_of_a_fresh_reproduction(tmp_path):
    """The issue's reproducer: SIGINT at several moments of ``graphdr reproduce 000 --quick
    --fresh`` over an earlier output; the earlier files stay byte for byte, and the command
    the message gives finishes the run from the interrupted run's cells."""
    import subprocess
    import sys

    from graphdr.bench.report import read_results

    env = dict(os.environ, PYTHONWARNINGS="ignore")
    cmd = [sys.executable, "-m", "graphdr.cli", "reproduce", "000", "--quick", "--out", "r",
           "--quiet", "--no-timing"]
    first = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    older = _tree(tmp_path / "r")
    seen = set()
    for delay in (1.5, 2.5, 3.5, 4.5, 6.0):
        proc = subprocess.Popen(cmd + ["--fresh"], cwd=tmp_path, env=env,
                                stderr=subprocess.PIPE, text=True)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=120)[1]
        now = _tree(tmp_path / "r")
        if proc.returncode == 0 or "interrupted after writing" in err:
            seen.add("new")
            assert "in-progress" not in os.listdir(tmp_path / "r")
            older = now
            continue
        assert proc.returncode == 130, err
        assert {k: v for k, v in now.items() if not k.startswith("in-progress/")} == older
        if "To go on from them" in err:
            again = err.strip().rsplit(": graphdr ", 1)[1].split()
            assert again == cmd[3:]
            finished = sum(len({(r["dataset"], r["method"], r["fold"]) for r in
                                read_results(path)})
                           for path in (tmp_path / "r" / "in-progress").glob("*/results.csv"))
            done = subprocess.run(cmd[:3] + again, cwd=tmp_path, env=env, capture_output=True,
                                  text=True)
            assert done.returncode == 0, done.stderr
            runs = json.loads((tmp_path / "r" / "runs.json").read_text())
            assert len(runs) == 1 and runs[0]["reused_cells"] == finished, runs
            seen.add("reused" if finished else "kept")
            older = _tree(tmp_path / "r")
        if "reused" in seen:
            break
    assert seen & {"kept", "reused"}, seen


# ----- data sets and protocol pieces used by the reproductions ----------------------------------
def test_balance_scale_follows_its_definition():
    ds = bd.load_dataset("balance_scale")
    assert ds.X.shape == (625, 4) and list(ds.classes) == ["B", "L", "R"]
    assert np.bincount(ds.y).tolist() == [49, 288, 288]
    assert len({tuple(r) for r in ds.X}) == 625  # every combination once
    for row, label in zip(ds.X.astype(int), ds.classes[ds.y]):
        lw, ld, rw, rd = row
        assert label == ("L" if lw * ld > rw * rd else "R" if lw * ld < rw * rd else "B")


def test_per_class_subset():
    ds = bd.load_dataset("wine:per_class=20", random_state=3)
    assert ds.name == "wine_20pc" and np.bincount(ds.y).tolist() == [20, 20, 20]
    full = bd.load_dataset("wine")
    rows = {tuple(r) for r in full.X}
    assert all(tuple(r) in rows for r in ds.X)
    again = bd.load_dataset("wine:per_class=20", random_state=3)
    np.testing.assert_array_equal(ds.X, again.X)
    small = bd.load_dataset("iris:per_class=500")  # fewer than asked: the whole class
    assert len(small.y) == 150
    with pytest.raises(ValueError, match="per_class must be a positive integer"):
        bd.load_dataset("iris:per_class=0")
    with pytest.raises(ValueError, match="per_class must be a positive integer"):
        bd.load_dataset("iris:per_class=many")


def test_dim_grid():
    p = get_protocol("dee").replace(max_dim=60)
    import dataclasses

    grid = dataclasses.replace(p, dim_grid=(1, 5, 10, 60))
    assert grid.dims(10, 64) == [1, 5, 10, 60]
    assert grid.dims(10, 9) == [1, 5, 9]  # the method's own limit is added
    assert dataclasses.replace(p, dim_grid=()).dims(10, 9) == [9]
    assert "dim_grid" not in p.settings() and grid.settings()["dim_grid"] == [1, 5, 10, 60]


def test_help_lists_the_papers(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ("000", "001", "002", "003", "--quick", "report.md", "results.csv", "stand-in"):
        assert word in text, word


def test_000_ledger_tests_over_data_sets_with_wilcoxon():
    """A table claim of paper 000 (KQMI beats each kernel rival under NCC) is decided by
    Wilcoxon's signed-rank test over the data sets, as printed (KQMI by Algorithm 1): a
    consistent win is 'reproduced', a loss 'not reproduced', fewer than five data sets
    'not testable'."""
    from scipy.stats import wilcoxon

    from graphdr.bench.reproduce.spec import Lookup

    row = PAPERS["000"].ledger[0]
    rivals = ("kernel-lda", "supervised-kernel-lpp", "ckfd", "kernel-pca")
    rng = np.random.default_rng(1)
    names = [f"set{i}" for i in range(8)]

    def lookup(kqmi_shift):
        agg = {}
        for ds in names:
            base = 0.2 + 0.05 * rng.random()
            agg[(ds, "kqmi-paper", "ncc")] = {1: (base + kqmi_shift, 0.0, 10)}
            agg[(ds, "kqmi", "ncc")] = {1: (base, 0.0, 10)}
            for r in rivals + ("kernel-lda:reg=0.0", "supervised-kernel-lpp:reg=0.0"):
                agg[(ds, r, "ncc")] = {1: (base + 0.01 * rng.random(), 0.0, 10)}
        return Lookup({"uci": agg}), agg

    look, agg = lookup(-0.05)
    got = row.check(look)
    assert got["verdict"] == "reproduced", got
    d = [agg[(ds, "kqmi-paper", "ncc")][1][0] - agg[(ds, "ckfd", "ncc")][1][0] for ds in names]
    assert f"p {wilcoxon(np.array(d) * 100).pvalue:.3f}" in got["as_printed"]
    assert row.check(lookup(+0.05)[0])["verdict"] == "not reproduced"
    few = Lookup({"uci": {k: v for k, v in agg.items() if k[0] in names[:3]}})
    assert row.check(few)["verdict"] == "not testable"
    assert len(PAPERS["000"].ledger) >= 25
