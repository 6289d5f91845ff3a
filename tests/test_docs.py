"""The documentation sources stay in step with the code (the Sphinx build itself is `make docs`)."""

import ast
import importlib
import re
from pathlib import Path

import pytest

import graphdr

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.rst"
EXAMPLES = ROOT / "examples"


def _autosummary_entries(text):
    """Names listed under the ``.. autosummary::`` directives of an rst file."""
    entries, inside = [], False
    for line in text.splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
        elif inside and line and not line.startswith(" "):
            inside = False
        elif inside and re.fullmatch(r" {3}[\w.]+", line):
            entries.append(line.strip())
    return entries


def _resolve(name):
    module, _, attr = name.rpartition(".")
    try:
        return importlib.import_module(name)
    except ImportError:
        return getattr(importlib.import_module(module), attr)


def test_autosummary_parser_reads_the_entries():
    text = (".. autosummary::\n   :toctree: generated/\n\n   graphdr.LDA\n   graphdr.blocks.graphs\n\n"
            "Text\n   graphdr.NotListed\n")
    assert _autosummary_entries(text) == ["graphdr.LDA", "graphdr.blocks.graphs"]


def test_api_reference_lists_every_public_name():
    listed = set(_autosummary_entries(API.read_text()))
    missing = [name for name in graphdr.__all__ if f"graphdr.{name}" not in listed]
    assert not missing, (
        f"{missing} are exported by graphdr.__all__ but missing from docs/api.rst: add one line "
        "per name to its first autosummary list")


@pytest.mark.parametrize("name", _autosummary_entries(API.read_text()))
def test_api_reference_entries_exist_and_are_documented(name):
    obj = _resolve(name)
    assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


def test_gallery_examples_are_sphinx_gallery_scripts():
    scripts = sorted(EXAMPLES.glob("plot_*.py"))
    assert len(scripts) >= 6
    assert (EXAMPLES / "README.rst").exists()  # the gallery's header
    for script in scripts:
        tree = ast.parse(script.read_text())
        doc = ast.get_docstring(tree)
        assert doc, f"{script.name} needs a docstring with a title"
        title, underline = doc.splitlines()[:2]
        assert underline == "=" * len(title), f"{script.name}: title underline length"


#: labels of benchmarks/defaults.py -> graphdr estimator
_DEFAULTS_LABELS = {
    "LDA": "LDA", "LPP": "LPP", "S-LPP": "LPP", "MFA": "MFA", "LDE": "LDE",
    "KernelLDA": "KernelLDA", "KernelLPP": "KernelLPP", "S-KLPP": "KernelLPP", "CKFD": "CKFD",
    "LQMI": "LQMI", "KQMI": "KQMI", "QMIProj": "QMIProjection", "DEE": "DEE", "DSNE": "DSNE",
    "MMPA": "MMPA", "DCV": "DCV",
}


def _estimators_behind_raw_features():
    """Estimators that target 3 of benchmarks/results/defaults.md lists as more than 3 points
    worse than raw 1-NN on some data set."""
    text = (ROOT / "benchmarks" / "results" / "defaults.md").read_text()
    section = text.split("### 3.", 1)[1].split("\n## ", 1)[0]
    flagged = set()
    for label, rest in re.findall(r"^- \*\*([\w-]+)\*\*: (.*)$", section, flags=re.M):
        if not rest.startswith("within 3 points"):
            flagged.add(_DEFAULTS_LABELS[label])
    return flagged


def test_estimators_that_lose_to_raw_features_say_when_to_use_them():
    """Issue 11: an estimator more than 3 points worse than raw 1-NN on a benchmark set says
    in its docstring when to use it and when not, with the benchmark's numbers."""
    flagged = _estimators_behind_raw_features()
    assert flagged, "the parser found no estimator in target 3 of defaults.md"
    missing = []
    for name in sorted(flagged):
        doc = getattr(graphdr, name).__doc__
        paragraph = doc.split("When to use it.", 1)[1].split("\n\n", 1)[0] if (
            "When to use it." in doc) else ""
        if "defaults.md" not in paragraph or not re.search(r"\d+\.\d %", paragraph):
            missing.append(name)
    assert not missing, f"no 'When to use it.' paragraph with numbers from defaults.md: {missing}"


@pytest.mark.slow
def test_the_semi_supervised_page_names_the_estimators_that_use_minus_one():
    """docs/user_guide/semi_supervised.rst: its table's "uses them" rows name exactly the
    estimators that fit unlabelled samples (graphdr._validation.SEMI_SUPERVISED), and each of
    them does fit y = -1."""
    import numpy as np

    from graphdr._validation import SEMI_SUPERVISED

    page = (ROOT / "docs" / "user_guide" / "semi_supervised.rst").read_text()
    table = page.split("What each estimator does with -1")[1].split(":class:`GraphEmbedding`")[0]
    named = set(re.findall(r":class:`(\w+)`", table))
    assert named == set(SEMI_SUPERVISED)
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 10)
    X = rng.normal(size=(30, 4)) + 3 * rng.normal(size=(3, 4))[y]
    y[::3] = -1
    for name in SEMI_SUPERVISED:
        est = getattr(graphdr, name)().fit(X, y)
        assert list(est.classes_) == [0, 1, 2], name


def test_the_readme_says_who_checks_the_labels():
    """A new user asked which of ``graphdr map`` and ``map2d`` checks the labels: the README
    says that the command line checks them and that the Python API takes them as given unless
    ``labels='flag'`` (both checked against the code's defaults)."""
    import inspect

    from graphdr.cli.command import build_parser

    flat = " ".join((ROOT / "README.md").read_text().split())
    assert "graphdr map` also checks the labels" in flat and "labels='flag'" in flat
    assert inspect.signature(graphdr.DEEMap).parameters["labels"].default == "given"
    args = build_parser().parse_args(["map", "data.csv"])
    assert args.labels != "given"


def test_readme_statements_match_their_sources():
    """The README's list of estimators that fit y = -1 is SEMI_SUPERVISED; its pipeline's
    printed score is what the code prints; its counts of sets where every fit with y = -1 errs
    at most one test sample more than the labelled rows alone are those of
    benchmarks/results/semi.md."""
    from sklearn.datasets import load_wine
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from graphdr._validation import SEMI_SUPERVISED

    readme = (ROOT / "README.md").read_text()
    partial = readme.split("**Partially labelled data.**")[1].split("use the unlabelled rows")[0]
    assert set(re.findall(r"`(\w+)`", partial)) - {"sklearn"} == set(SEMI_SUPERVISED)
    printed = re.search(r"print\(cross_val_score\(model, X, y, cv=10\)\.mean\(\)\)\s+# ([\d.]+)",
                        readme).group(1)
    X, y = load_wine(return_X_y=True)
    model = make_pipeline(StandardScaler(), graphdr.KernelLDA(), KNeighborsClassifier(1))
    assert f"{cross_val_score(model, X, y, cv=10).mean():.{len(printed) - 2}f}" == printed
    semi = (ROOT / "benchmarks" / "results" / "semi.md").read_text()
    never = re.findall(r"^\| [\d.]+ % \| (\d+) of 10 \|", semi, re.M)
    assert len(never) == 5
    assert (f"on {', '.join(never[:4])} and {never[4]} of 10 sets at 1, 2, 5, 10 and 20 %"
            in " ".join(readme.split()))


#: figures the guides quote from the committed reproduction reports: (guide, a regex of the
#: guide's sentence with the quoted figures as groups, report, a regex of the report's text
#: with the same figures as groups); both texts with their whitespace collapsed
REPORT_QUOTES = [
    ("docs/user_guide/qmi.rst",
     r"as printed, (\w+) is reproduced \([^)]*\), (\w+) go the paper's way without "
     r"significance or at another size, (\w+) do not, and (\w+) cannot be tested",
     "reports/002/report.md",
     r"^# Paper 002 \(claims: reproduced (\d+), direction only (\d+), not reproduced (\d+), "
     r"not testable (\d+) of 17\)"),
    ("docs/user_guide/qmi.rst", r"checks each of the paper's (\w+) claims",
     "reports/002/report.md", r"^# Paper 002 \(claims: [^)]* of (\d+)\)"),
    ("docs/user_guide/qmi.rst",
     r"QMI from a random start converges there in (\d+) of (\d+) fits \(a median of (\d+) "
     r"iterations; MI_BA (\d+)\)",
     "reports/002/report.md",
     r"converged: QMI \(random\) (\d+) of (\d+) fits \(median (\d+) iterations\), MI_BA "
     r"\(random\) \d+ of \d+ fits \(median (\d+) iterations\)"),
    ("docs/user_guide/qmi.rst",
     r"from the LDA start, is ([\d.]+) % against ([\d.]+) % on the faces stand-in, "
     r"p = ([\d.]+), where the paper reports ([\d.]+) points",
     "reports/002/report.md",
     r"MI_BA \(lda\) ([\d.]+) vs QMI \(lda\) ([\d.]+) % \(F [\d.]+, p ([\d.]+)\)[^|]*\|[^\n]*?"
     r"paper \+([\d.]+) "),
    ("docs/user_guide/qmi.rst",
     r"QMI from a random start ([\d.]+) % and MI_A from the LDA start ([\d.]+) % as printed "
     r"without the \[0, 1\] scaling \(([\d.]+) % and ([\d.]+) % with it\); QMI from the LDA "
     r"start stays at ([\d.]+) % unscaled against the paper's ([\d.]+) %",
     "reports/002/report.md",
     r"wine 2-D: paper [\d.]+ / (?P<p>[\d.]+) / [\d.]+; ours scaled (?P<a>[\d.]+) / [\d.]+ / "
     r"(?P<b>[\d.]+); unscaled (?P<c>[\d.]+) / (?P<d>[\d.]+) / (?P<e>[\d.]+);"),
    ("docs/user_guide/qmi.rst",
     r"KQMI as printed errs ([\d.]+) % in 2-D with a nearest-centroid classifier against GDA's "
     r"([\d.]+) % \(5x2cv F, p ([\d.]+)\)",
     "reports/000/report.md",
     r"KQMI ([\d.]+) vs GDA ([\d.]+) % \(p ([\d.]+)\) on 1000 random MNIST digits"),
    ("docs/user_guide/neighbour_embedding.rst",
     r"\((\d+) reproduced, (\d+) direction only, (\d+) not reproduced, (\d+) not testable, of "
     r"(\d+) rows\)",
     "reports/003/report.md",
     r"^# Paper 003 \(claims: reproduced (\d+), direction only (\d+), not reproduced (\d+), not "
     r"testable (\d+) of (\d+)\)"),
    ("docs/user_guide/neighbour_embedding.rst",
     r"mean iterations to the paper's stopping rule LD (\d+), FP (\d+), CG (\d+), GD (\d+)\)",
     "reports/003/report.md",
     r"\| Fig\. 6: CG needs the most iterations \|[^\n]*?\| mnist5k: LD (\d+) \(median \d+\) "
     r"vs CG \d+ \(median \d+\), p [\d.]+; FP (\d+) \(median \d+\) vs CG (\d+) \(median "
     r"\d+\), p [\d.]+; GD (\d+)"),
    ("docs/user_guide/neighbour_embedding.rst",
     r"objective, LD ([\d.]+), and none of FP, CG and GD reaches it within 1000 iterations \(at "
     r"least ([\d.]+), ([\d.]+) and ([\d.]+) s\)",
     "reports/003/report.md",
     r"CPU s to LD's objective / to the stopping rule: LD ([\d.]+) / [\d.]+, FP >= ([\d.]+) "
     r"\([^)]*\) / [\d.]+, CG >= ([\d.]+) \([^)]*\) / [\d.]+, GD >= ([\d.]+) \([^)]*\) / "
     r"[\d.]+ / digits"),
    ("docs/user_guide/neighbour_embedding.rst",
     r"FP \(([\d.]+) s\) and GD \(([\d.]+) s\) end sooner than LD, far above its objective; on "
     r"60 digits of 64 pixels, fits of about 10 ms, LD's ([\d.]+) s against GD's ([\d.]+)",
     "reports/003/report.md",
     r"FP >= [\d.]+ \([^)]*\) / ([\d.]+), CG >= [\d.]+ \([^)]*\) / [\d.]+, GD >= [\d.]+ "
     r"\([^)]*\) / ([\d.]+) / digits D >= N stand-in: LD ([\d.]+) vs FP [\d.]+, p [\d.]+; LD "
     r"[\d.]+ vs CG [\d.]+, p [\d.]+; LD [\d.]+ vs GD ([\d.]+)"),
    ("docs/user_guide/neighbour_embedding.rst",
     r"USPS stand-in \(([\d.]+) % against DSNE's ([\d.]+) % and MMPA's ([\d.]+) %\) and ties "
     r"DSNE on the ORL/Yale stand-in \(([\d.]+) % against ([\d.]+) %, p ([\d.]+)\)",
     "reports/003/report.md",
     r"\| Section 5: DEE reaches the highest recognition rate \|[^|]*\|[^|]*\| USPS stand-in: "
     r"DEE ([\d.]+) \(dim \d+\) vs DSNE ([\d.]+) % \(dim \d+\), p [\d.]+; [^/]*MMPA ([\d.]+) "
     r"% \(dim \d+\), p [\d.]+ / ORL/Yale stand-in: DEE ([\d.]+) \(dim \d+\) vs DSNE ([\d.]+) "
     r"% \(dim \d+\), p ([\d.]+);"),
    ("docs/history.rst",
     r"\(Table 4, the defaults at iris dim 2\) gives ([\d.]+) % for every criterion",
     "reports/002/report.md",
     r"\| Balance dim 1 \|[^#]*?\| QMI, LDA \(graphdr default\) \|[^\n]* \| [\d.]+ / "
     r"([\d.]+) \([+-][\d.]+\) \|\n"),
]


def _collapsed(path):
    return " ".join((ROOT / path).read_text().split())


def test_the_guides_quote_the_reports_figures():
    """Every figure a guide quotes from a report (``REPORT_QUOTES``) is the report's."""
    numbers = {"none": "", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
               "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
               "seventeen": "17", "eighteen": "18", "twenty": "20", "twenty-five": "25"}
    for guide, said, report, source in REPORT_QUOTES:
        quoted = re.search(said, _collapsed(guide))
        assert quoted, f"{guide}: no sentence matches {said!r}"
        text = (ROOT / report).read_text()
        found = re.search(source, text if "\\n" in source else " ".join(text.split()), re.M)
        assert found, f"{report}: nothing matches {source!r}"
        got = [numbers.get(g, g) for g in quoted.groups()]
        want = list(found.groups())
        if found.groupdict():  # named groups: in the guide's order
            want = [found.group(k) for k in ("c", "e", "a", "b", "d", "p")]
        assert len(got) == len(want) and all(_same_figure(g, w) for g, w in zip(got, want)), \
            f"{guide} quotes {got} where {report} says {want}"


def _same_figure(quoted, source):
    """The quoted figure is the source's, rounded to the quote's decimals."""
    if quoted == source:
        return True
    try:
        q, s = float(quoted), float(source)
    except ValueError:
        return False
    decimals = len(quoted.split(".")[1]) if "." in quoted else 0
    return abs(q - s) <= 0.5 * 10.0 ** -decimals + 1e-9
