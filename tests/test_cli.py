"""End-to-end tests of the `graphdr` command (tiny sweeps only)."""

import csv
import json
import os
import re
import shutil
import subprocess
from collections import defaultdict

import matplotlib.image as mpimg
import numpy as np
import pytest

from graphdr.bench import methods as bm
from graphdr.bench.protocols import get_protocol
from graphdr.bench.runner import run_bench
from graphdr.cli import main

TINY = ["bench", "--protocol", "demo", "--datasets", "iris", "--methods", "lda,pca",
        "--folds", "2", "--quiet", "--scatter-per-method"]


def _read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _without_timing(rows):
    return [{k: v for k, v in r.items() if k != "fit_seconds"} for r in rows]


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    assert main(TINY + ["--out", str(out)]) == 0
    return out


def test_end_to_end_outputs(tiny_report):
    out = tiny_report
    for name in ("results.csv", "tables.md", "index.html", "config.json",
                 "error_vs_dim_iris_1nn.png", "scatter_iris.png", "scatter_iris_lda.png",
                 "scatter_iris_pca.png"):
        assert os.path.getsize(out / name) > 0, name
    assert not os.path.exists(out / "failures.txt")
    config = json.loads((out / "config.json").read_text())
    assert config["protocol"]["name"] == "demo" and config["protocol"]["n_splits"] == 2
    assert config["seed"] == 0 and config["classifiers"] == ["1nn"]
    rows = _read_csv(out / "results.csv")
    assert list(rows[0]) == ["dataset", "method", "classifier", "fold", "dim", "n_test",
                             "n_errors", "error", "fit_seconds", "n_iter", "converged"]
    # iris, two methods, two folds, dimensions 1..C-1 = 1..2, one classifier (1-NN)
    assert len(rows) == 2 * 2 * 2
    assert {(r["method"], r["fold"], r["dim"]) for r in rows} == {
        (m, f, d) for m in ("lda", "pca") for f in "01" for d in "12"}
    for r in rows:
        assert int(r["n_test"]) == 75
        assert float(r["error"]) == pytest.approx(int(r["n_errors"]) / 75, abs=1e-6)
        assert float(r["fit_seconds"]) >= 0
        assert r["n_iter"] == r["converged"] == ""  # closed-form methods

    # the numbers in the Markdown table, recomputed from results.csv
    errors = defaultdict(list)
    for r in rows:
        errors[(r["method"], int(r["dim"]))].append(int(r["n_errors"]) / int(r["n_test"]))
    expected = {}
    for m in ("lda", "pca"):
        means = {d: np.mean(errors[(m, d)]) for d in (1, 2)}
        best = min(means, key=lambda d: (round(means[d], 12), d))
        expected[m] = (f"{100 * means[best]:.2f}", best)
    text = (out / "tables.md").read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("| iris |"))
    header = next(ln for ln in text.splitlines() if ln.startswith("| Data set |"))
    names = [c.strip() for c in header.strip("|").split("|")][1:]
    cells = [c.strip() for c in line.strip("|").split("|")][1:]
    assert names == ["LDA", "PCA"]
    found = {}
    for label, cell in zip(names, cells):
        m = re.fullmatch(r"(\*\*)?(\d+\.\d\d) \((\d+)\)(\*\*)?", cell)
        assert m, cell
        found[label.lower()] = (m.group(2), int(m.group(3)), bool(m.group(1)))
    for meth, (value, dim) in expected.items():
        assert found[meth][:2] == (value, dim)
    best_value = min(float(v) for v, _ in expected.values())
    for value, _, bold in found.values():
        assert bold == (float(value) == best_value)
    wins = next(ln for ln in text.splitlines() if ln.startswith("| wins |"))
    assert [int(c) for c in wins.strip("|").split("|")[1:]] == [
        int(found[m][2]) for m in ("lda", "pca")]

    # index.html shows every PNG of the directory and the table
    html = (out / "index.html").read_text()
    pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
    for png in pngs:
        assert f'src="{png}"' in html
        img = mpimg.imread(out / png)
        assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
        assert img[..., :3].std() > 0.01  # not a blank image
    for value, dim in expected.values():
        assert f"{value} ({dim})" in html


def test_rerun_identical_and_resume(tiny_report, tmp_path):
    first = _read_csv(tiny_report / "results.csv")
    out = tmp_path / "again"
    assert main(TINY + ["--out", str(out), "--no-timing"]) == 0
    again = _read_csv(out / "results.csv")
    assert _without_timing(again) == _without_timing(first)
    assert all(r["fit_seconds"] == "" for r in again)
    reference = (out / "results.csv").read_bytes()

    # an interrupted run: the last cell's rows are gone and the last line is cut short
    lines = reference.decode().splitlines(keepends=True)
    (out / "results.csv").write_text("".join(lines[:-2]) + lines[-2][:9])
    protocol = get_protocol("demo").replace(n_splits=2)
    result = run_bench(protocol, datasets=["iris"], methods=["lda", "pca"], out=str(out),
                       progress=False, timing=False, plots_on=False, html_on=False,
                       echo=lambda *a: None)
    assert result.n_computed == 1  # only pca fold 1 again
    assert (out / "results.csv").read_bytes() == reference
    # nothing left to do: a rerun computes no cell
    result = run_bench(protocol, datasets=["iris"], methods=["lda", "pca"], out=str(out),
                       progress=False, timing=False, plots_on=False, html_on=False,
                       echo=lambda *a: None)
    assert result.n_computed == 0 and (out / "results.csv").read_bytes() == reference
    # changed settings are refused instead of being mixed into the file
    assert main(TINY[:7] + ["--folds", "3", "--out", str(out), "--quiet"]) == 2


def test_parallel_run_identical(tiny_report, tmp_path):
    # cells finish in any order with n_jobs > 1: results.csv must not depend on it (the threading
    # backend keeps the test fast; the command line uses loky processes)
    protocol = get_protocol("demo").replace(n_splits=2)
    run_bench(protocol, datasets=["iris"], methods=["pca", "lda"], out=str(tmp_path), n_jobs=2,
              backend="threading", progress=False, plots_on=False, html_on=False,
              echo=lambda *a: None)
    assert _without_timing(_read_csv(tmp_path / "results.csv")) == _without_timing(
        _read_csv(tiny_report / "results.csv"))


@pytest.mark.parametrize(
    "args, message",
    [(["bench", "--datasets", "nosuch", "--methods", "lda"], "Unknown data set 'nosuch'"),
     (["bench", "--datasets", "iris", "--methods", "lda,magic"], "Unknown method 'magic'"),
     (["bench", "--protocol", "paper9"], "Unknown protocol 'paper9'"),
     (["bench", "--datasets", "iris", "--methods", "lda", "--classifiers", "svm"],
      "Unknown classifier 'svm'"),
     (["bench", "--protocol", "mkldr", "--datasets", "iris"], "needs multi-view data")],
)
def test_clear_errors(args, message, tmp_path, capsys):
    assert main(args + ["--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and message in err


def test_unavailable_method_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bm, "REGISTRY", dict(bm.REGISTRY))
    bm.register("future-method", "graphdr.future_module:Future", label="FM")
    args = ["bench", "--datasets", "iris", "--methods", "lda,future-method"]
    assert main(args + ["--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "'future-method'" in err and "not available in this version" in err


@pytest.mark.slow
def test_demo_runs_every_foundation_method(tmp_path):
    out = tmp_path / "demo"
    assert main(["demo", "--dataset", "iris", "--folds", "2", "--out", str(out), "--quiet",
                 "--no-timing"]) == 0
    text = (out / "tables.md").read_text()
    header = next(ln for ln in text.splitlines() if ln.startswith("| Data set |"))
    for label in ("LDA", "LPP", "S-LPP", "MFA", "LDE", "GDA", "S-KLPP", "CKFD", "PCA", "KPCA",
                  "NCA"):
        assert f" {label} |" in header
    assert not os.path.exists(out / "failures.txt")
    assert "t-SNE" in (out / "index.html").read_text()  # t-SNE: picture only
    assert "tsne" not in (out / "results.csv").read_text()
    # the papers' own methods, each in a sub-report linked from the main page
    index = (out / "index.html").read_text()
    for folder, labels in (("qmi", ("LQMI", "KQMI", "MI_A")), ("dee", ("DEE",)),
                           ("mkldr", ("MKL-LDA", "KFD-Voting"))):
        assert f'href="{folder}/index.html"' in index
        tables = (out / folder / "tables.md").read_text()
        assert all(label in tables for label in labels)
        assert "nan" not in tables.lower().replace("nanmean", "")
    assert (out / "dee" / "curves_digits_60pc.png").stat().st_size > 10_000  # optimizer curves
    assert (out / "mkldr" / "kernel_weights_digits_views.png").exists()
    # the held-out 2-D maps: DEEMap's error below every linear and kernel map's
    assert 'href="maps/index.html"' in index
    maps = (out / "maps" / "index.html").read_text()
    errors = dict(re.findall(r"<tr><td>([^<]+)</td><td>(\d+\.\d)</td>", maps))
    assert float(errors["graphdr.DEEMap"]) < min(
        float(errors[m]) for m in ("graphdr.LDA", "graphdr.DEE (linear)", "graphdr.KQMI (kernel)"))
    assert (out / "maps" / "maps.png").stat().st_size > 10_000


def test_help_and_list(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ("bouzas", "gavriilidis", "dee", "mkldr", "results.csv", "fit_seconds",
                 "--n-jobs", "--label-column", "swiss_roll", "svmlight", "resum", "tsne"):
        assert word in text
    assert main(["list", "methods"]) == 0
    listing = capsys.readouterr().out
    assert "kernel-lda" in listing and "lqmi" in listing
    assert main([]) == 2


@pytest.mark.slow
def test_a_pipe_closed_early_ends_quietly():
    """``graphdr list datasets | head``: the reader is gone before graphdr writes; no
    BrokenPipeError traceback, the exit status of a program SIGPIPE stops (141)."""
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "graphdr.cli", "list", "datasets"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader closes at once
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and err == "", err


def test_console_script_entry_point():
    from importlib.metadata import entry_points

    (ep,) = entry_points(group="console_scripts", name="graphdr")
    assert ep.value == "graphdr.cli:main" and ep.load() is main


_CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                   "--no-first-run", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                   "--window-size=1200,1600", "--force-device-scale-factor=1"]

# Appended to a copy of index.html: once the page has loaded, records what the browser made of
# it -- every image (loaded? natural size, where it is drawn) and every table (its cell texts as
# rendered, where it is drawn) -- in a hidden <pre> that `--dump-dom` prints.
_PROBE = """<script>
window.addEventListener('load', function () {
  function box(el) { var r = el.getBoundingClientRect();
    return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; }
  var out = {title: document.title, images: [], tables: []};
  document.querySelectorAll('img').forEach(function (im) {
    out.images.push({src: im.getAttribute('src'), complete: im.complete,
                     natural: [im.naturalWidth, im.naturalHeight], box: box(im)}); });
  document.querySelectorAll('table').forEach(function (t) {
    out.tables.push({box: box(t), rows: Array.from(t.rows).map(function (r) {
      return Array.from(r.cells).map(function (c) { return c.innerText.trim(); }); })}); });
  var pre = document.createElement('pre');
  pre.id = 'graphdr-probe'; pre.hidden = true; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _chromium_or_skip():
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser")
                    if shutil.which(b)), None)
    if browser is None:
        pytest.skip("chromium is not installed (Debian package 'chromium'; .ci/run installs it "
                    "as root); the HTML report cannot be rendered in a headless browser here")
    return browser


def _chromium(browser, page, profile, *args):
    cmd = [browser, *_CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _what_the_browser_shows(browser, report, workdir):
    """Images and tables of ``report/index.html`` as Chromium loaded and laid them out."""
    import html

    copy = workdir / "report"
    shutil.copytree(report, copy)
    page = copy / "index.html"
    page.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
    dom = _chromium(browser, page, workdir / "profile", "--virtual-time-budget=10000",
                    "--dump-dom")
    found = re.search(r'<pre id="graphdr-probe"[^>]*>(.*?)</pre>', dom, re.S)
    assert found, "the page did not finish loading in the browser: " + dom[-500:]
    seen = json.loads(html.unescape(found.group(1)))
    # tables a person can see (the per-dimension tables are folded away in <details>)
    seen["tables"] = [t for t in seen["tables"] if any(c for row in t["rows"] for c in row)]
    return seen


@pytest.mark.slow
def test_index_html_renders_in_chromium(tiny_report, tmp_path):
    browser = _chromium_or_skip()
    seen = _what_the_browser_shows(browser, tiny_report, tmp_path)
    assert seen["title"] == "graphdr bench - demo"

    # every figure of the report is on the page, loaded, and drawn at a readable size
    pngs = sorted(f for f in os.listdir(tiny_report) if f.endswith(".png"))
    assert sorted(im["src"] for im in seen["images"]) == pngs
    for im in seen["images"]:
        assert im["complete"] and min(im["natural"]) > 100, f"{im['src']} did not load: {im}"
        x, y, w, h = im["box"]
        assert w > 250 and h > 150, f"{im['src']} is drawn too small: {im}"

    # the error table: one column per method, the numbers of tables.md, a wins row
    error_table = seen["tables"][0]
    assert error_table["rows"][0] == ["Data set", "LDA", "PCA"]
    iris = error_table["rows"][1]
    assert iris[0] == "iris"
    md = (tiny_report / "tables.md").read_text()
    for cell in iris[1:]:
        assert re.fullmatch(r"\d+\.\d\d \([12]\)", cell), cell
        assert cell in md
    assert error_table["rows"][-1][0] == "wins"
    assert any(t["rows"][0][0] == "Data set" and "PCA" in t["rows"][0]
               for t in seen["tables"][1:])  # the fit-time table

    # what a person sees on the first screen: a white page with dark text in the table and a
    # coloured figure where the layout put them
    shot = tmp_path / "shot.png"
    _chromium(browser, tiny_report / "index.html", tmp_path / "profile-shot",
              f"--screenshot={shot}")
    rgb = mpimg.imread(shot)[..., :3]
    assert rgb.shape[:2] == (1600, 1200)
    assert (rgb.mean(axis=2) > 0.95).mean() > 0.3

    def region(box):
        x, y, w, h = (int(round(v)) for v in box)
        return rgb[y + 2:y + h - 2, x + 2:x + w - 2]

    table = region(error_table["box"])
    assert table.size and (table.mean(axis=2) < 0.4).mean() > 0.02  # text is drawn
    first = next(im for im in seen["images"] if im["box"][1] + im["box"][3] <= 1600)
    figure = region(first["box"])
    assert figure.size and (figure.max(axis=2) - figure.min(axis=2) > 0.3).mean() > 0.002
    assert (figure.mean(axis=2) < 0.5).mean() > 0.005  # axes and labels


@pytest.mark.slow
def test_browser_check_sees_a_missing_figure(tiny_report, tmp_path):
    """The browser check above can fail: a figure missing from the directory is reported."""
    browser = _chromium_or_skip()
    broken = tmp_path / "broken"
    shutil.copytree(tiny_report, broken)
    os.remove(broken / "scatter_iris_pca.png")
    seen = _what_the_browser_shows(browser, broken, tmp_path)
    natural = {im["src"]: im["natural"] for im in seen["images"]}
    assert natural["scatter_iris_pca.png"] == [0, 0]
    assert min(natural["scatter_iris_lda.png"]) > 100


class _RecordingPCA:
    """A stand-in for an optimizer of a future module: records history_ and kernel weights."""

    def __init__(self, n_components=2, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def get_params(self, deep=True):
        return dict(n_components=self.n_components, random_state=self.random_state)

    def fit(self, X, y=None):
        from sklearn.decomposition import PCA

        self.pca_ = PCA(self.n_components).fit(X)
        self.history_ = {"objective": [3.0, 2.0, 1.5, 1.25]}
        self.kernel_weights_ = np.array([0.25, 0.75])
        return self

    def transform(self, X):
        return self.pca_.transform(X)


def test_plug_in_method_curves_and_kernel_weights(monkeypatch, tmp_path):
    monkeypatch.setattr(bm, "REGISTRY", dict(bm.REGISTRY))
    bm.register("recorder", _RecordingPCA, label="REC", kind="iterative", nested=False,
                max_dims="features")
    assert main(["bench", "--protocol", "dee", "--datasets", "iris", "--methods", "recorder",
                 "--repeats", "2", "--train-per-class", "10", "--max-dim", "2", "--out",
                 str(tmp_path), "--quiet"]) == 0
    rows = _read_csv(tmp_path / "results.csv")
    assert {(r["fold"], r["dim"]) for r in rows} == {("0", "1"), ("0", "2"), ("1", "1"),
                                                     ("1", "2")}
    assert all(r["n_test"] == "120" for r in rows)  # 150 - 3 classes x 10 training samples
    html = (tmp_path / "index.html").read_text()
    for png in ("curves_iris.png", "kernel_weights_iris.png"):
        assert os.path.getsize(tmp_path / png) > 0 and f'src="{png}"' in html


class _ConcatPCA:
    """A stand-in multi-view transformer: PCA of the concatenated views (fit/transform get lists)."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def get_params(self, deep=True):
        return dict(n_components=self.n_components)

    def fit(self, Xs, y=None):
        from sklearn.decomposition import PCA

        assert isinstance(Xs, list) and len(Xs) == 2
        self.pca_ = PCA(self.n_components).fit(np.hstack(Xs))
        return self

    def transform(self, Xs):
        return self.pca_.transform(np.hstack(Xs))


class _ConcatCentroid(_ConcatPCA):
    """A stand-in multi-view classifier (like KFD-Voting): nearest centroid of the views."""

    def fit(self, Xs, y):
        from sklearn.neighbors import NearestCentroid

        self.clf_ = NearestCentroid().fit(np.hstack(Xs), y)
        return self

    def predict(self, Xs):
        return self.clf_.predict(np.hstack(Xs))


def test_multiview_methods_views_and_own_classifier(monkeypatch, tmp_path):
    from sklearn.datasets import load_iris
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neighbors import NearestCentroid
    from sklearn.preprocessing import StandardScaler

    monkeypatch.setattr(bm, "REGISTRY", dict(bm.REGISTRY))
    bm.register("mv-pca", _ConcatPCA, label="MVPCA", kind="multiview", max_dims="classes")
    bm.register("mv-ncc", _ConcatCentroid, label="MVNCC", kind="multiview", max_dims="classes",
                nested=False, predicts=True)
    X, y = load_iris(return_X_y=True)
    path = tmp_path / "iris_mv.npz"
    np.savez(path, view_0=X[:, :2], view_1=X[:, 2:], y=y)
    out = tmp_path / "out"
    assert main(["bench", "--protocol", "mkldr", "--datasets", str(path), "--methods",
                 "mv-pca,mv-ncc,pca:view=each", "--folds", "2", "--out", str(out),
                 "--quiet"]) == 0
    rows = _read_csv(out / "results.csv")
    assert {r["method"] for r in rows} == {"mv-pca", "mv-ncc", "pca:view=0", "pca:view=1"}
    own = [r for r in rows if r["classifier"] == "own"]
    assert {r["method"] for r in own} == {"mv-ncc"} and len(own) == 2 * 2
    # the 'own' error equals nearest centroid on the standardised training fold, computed here
    splits = list(StratifiedKFold(2, shuffle=True, random_state=0).split(X, y))
    for fold, (tr, te) in enumerate(splits):
        sc = StandardScaler().fit(X[tr])
        ref = np.sum(NearestCentroid().fit(sc.transform(X[tr]), y[tr]).predict(
            sc.transform(X[te])) != y[te])
        assert {int(r["n_errors"]) for r in own if r["fold"] == str(fold)} == {ref}
    text = (out / "tables.md").read_text()
    assert "the method's own classifier (own)" in text and "PCA [view=1]" in text
    # view=each on single-view data is an error
    assert main(["bench", "--datasets", "iris", "--methods", "pca:view=each", "--out",
                 str(tmp_path / "o2"), "--quiet"]) == 2


@pytest.mark.parametrize(
    "option, value, message",
    [("--n-jobs", "0", "--n-jobs must be nonzero"),
     ("--kernel-gamma", "-1", "kernel gamma must be positive"),
     ("--kernel-gamma", "wide", "a positive number or 'default'"),
     ("--folds", "0", "expected a positive integer"),
     ("--projection", "unit", "invalid choice: 'unit'")],
)
def test_bad_option_values(option, value, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", option, value])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_projection_option_reaches_the_estimators(tmp_path):
    # the demo protocol keeps each estimator's metric; --projection none asks for unit-length
    # directions and is recorded in config.json (a resumed run compares it); 'default' drops
    # the bouzas protocol's own setting
    base = ["bench", "--protocol", "demo", "--datasets", "iris", "--methods", "lda",
            "--folds", "2", "--quiet", "--no-plots", "--no-html"]
    assert main(base + ["--projection", "none", "--out", str(tmp_path / "n")]) == 0
    assert main(base + ["--out", str(tmp_path / "d")]) == 0
    cfg_n = json.loads((tmp_path / "n" / "config.json").read_text())
    cfg_d = json.loads((tmp_path / "d" / "config.json").read_text())
    assert cfg_n["protocol"]["projection"] == "none" and "projection" not in cfg_d["protocol"]
    b = ["bench", "--protocol", "bouzas", "--datasets", "iris", "--methods", "lda", "--folds",
         "2", "--quiet", "--no-plots", "--no-html", "--classifiers", "ncc"]
    assert main(b + ["--projection", "default", "--out", str(tmp_path / "b")]) == 0
    assert "projection" not in json.loads((tmp_path / "b" / "config.json").read_text())["protocol"]


@pytest.mark.slow  # a cluster, a browser or a kernel to start: in `make test-slow` (CI)
def test_dask_backend_gives_the_same_results(tiny_report, tmp_path):
    """--backend dask runs the cells on a local Dask cluster (loopback) with identical results."""
    pytest.importorskip("dask.distributed", reason="Dask is not installed (graphdr[dask])")
    out = tmp_path / "dask"
    args = [a for a in TINY if a != "--scatter-per-method"]
    assert main(args + ["--out", str(out), "--backend", "dask", "--no-plots", "--no-html"]) == 0
    assert _without_timing(_read_csv(out / "results.csv")) == _without_timing(
        _read_csv(tiny_report / "results.csv"))


@pytest.mark.slow
def test_mkldr_protocol_on_builtin_multiview_digits(tmp_path):
    out = tmp_path / "mk"
    args = ["bench", "--protocol", "mkldr", "--datasets", "digits_views:n=120", "--methods",
            "mkl-lda,kfd-voting", "--folds", "2", "--quiet", "--no-plots", "--no-html"]
    assert main(args + ["--out", str(out)]) == 0
    rows = _read_csv(out / "results.csv")
    assert {r["method"] for r in rows} == {"mkl-lda", "kfd-voting"}
    errors = [float(r["error"]) for r in rows if r["method"] == "mkl-lda"]
    assert errors and all(0.0 <= e <= 1.0 for e in errors)
    # ten balanced-ish classes: MKL-LDA must do far better than chance (90 % error)
    assert min(errors) < 0.5
