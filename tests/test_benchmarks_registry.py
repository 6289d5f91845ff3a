"""The benchmark suite's registry and its generated results index (``python -m benchmarks``)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import registry  # noqa: E402


def test_every_script_is_a_benchmark_with_a_docstring():
    names = {b.name for b in registry.benchmarks()}
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - registry.NOT_BENCHMARKS
    parts = {s for s in scripts if s.startswith("_")}
    assert names == scripts - parts
    for b in registry.benchmarks():
        assert b.summary != "(no docstring)", b.name
    # a part (``_NAME.py``) belongs to the benchmark that names it (and runs it)
    texts = " ".join(b.script.read_text() for b in registry.benchmarks())
    assert all(part in texts for part in parts), parts


def test_every_result_file_belongs_to_a_benchmark_or_a_command():
    owned = {p.name for b in registry.benchmarks() for p in b.results}
    cli = {p.name for p in registry.cli_result_files()}
    orphans = [p.name for p in registry.RESULTS.iterdir()
               if p.is_file() and p.name not in owned | cli | {registry.INDEX.name}]
    assert not orphans, f"result files no benchmark writes: {orphans}"


def test_a_result_belongs_to_the_longest_name_it_starts_with():
    names = ["mkldr_nystroem", "mkldr_nystroem_large", "dee_optimizers"]
    assert registry._owner("mkldr_nystroem_large_20000", names) == "mkldr_nystroem_large"
    assert registry._owner("mkldr_nystroem", names) == "mkldr_nystroem"
    assert registry._owner("dee_optimizers_d10_digits", names) == "dee_optimizers"
    assert registry._owner("mkldr_nystroemx", names) is None
    assert registry._owner("bench_suite", names) == "run_all"


def test_headline_command_and_machine_are_read_from_the_file():
    text = ("# T\n\nCommand: `python benchmarks/x.py --n 2` (2-core machine)\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n\nSummary:\n\n- the figure: 3 %\n")
    assert registry.headline(text) == "the figure: 3 %"
    assert registry.headline("Headline: 42 s\n- other\n") == "42 s"
    assert registry.headline("| a | b |\n|---|---|\n| 1 | 2 |\n") == "a: 1; b: 2"
    assert registry.command_and_machine(text, "x") == ("python benchmarks/x.py --n 2",
                                                       "2-core machine")
    assert registry.command_and_machine("Machine: m\n", "x") == (
        "python -m benchmarks run x", "m")


def _without_dates(text):
    """The index's lines with the dates (which depend on when the files were committed) left
    out."""
    import re

    return [re.sub(r"\| (\d{4}-\d{2}-\d{2}|not committed|unknown) \|", "| DATE |", line)
            for line in text.splitlines()]


def test_the_committed_index_is_the_generated_one(tmp_path):
    generated = registry.write_index(tmp_path / "README.md")
    committed = registry.INDEX.read_text()
    assert _without_dates(committed) == _without_dates(generated), (
        "benchmarks/results/README.md is out of date: run `python -m benchmarks index`")


@pytest.mark.parametrize("argv, code, says", [
    (["list"], 0, "model_selection"),
    (["run", "no_such_benchmark"], 2, "no benchmark 'no_such_benchmark'"),
    (["run"], 2, "a benchmark name or --all"),
])
def test_command_line(argv, code, says):
    out = subprocess.run([sys.executable, "-m", "benchmarks", *argv], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == code
    assert says in out.stdout + out.stderr


def test_scripts_find_the_shared_data_through_common():
    """One place says where the shared data are (``benchmarks/common.py``): no script builds
    its own path to them."""
    own_paths = [p.name for p in (ROOT / "benchmarks").glob("*.py")
                 if p.name != "common.py"
                 and any(s in p.read_text() for s in ('"shared"', "GRAPHDR_SHARED\"",
                                                      "'shared'"))]
    assert not own_paths, f"scripts with their own path to the shared data: {own_paths}"


def test_common_loads_sklearn_sets_encoded_and_names_the_missing_directory(tmp_path,
                                                                          monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import common

    X, y = common.load("iris")
    assert X.dtype == np.float64 and X.shape == (150, 4)
    assert np.array_equal(np.unique(y), [0, 1, 2])
    monkeypatch.setattr(common, "SHARED", tmp_path)
    with pytest.raises(FileNotFoundError, match="GRAPHDR_SHARED"):
        common.shared_path("mnist5k")
    seconds, out = common.best_time(lambda: 42, repeats=3)
    assert out == 42 and 0.0 <= seconds < 1.0


def test_maps2d_floors_name_each_sets_least_variant_and_a_floor_none_meets():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import maps2d

    def q(cont):
        return {"trust": 0.9, "cont": cont}

    mine = ["graphdr.DEEMap", 'graphdr.DEEMap {"separation": 0.9}']
    table = {("a", "supervised UMAP"): (10.0, 1.0), ("a", "openTSNE (unsupervised)"): (12.0, 1.0),
             ("a", mine[0]): (10.6, 1.0), ("a", mine[1]): (10.2, 1.0),
             ("b", "supervised UMAP"): (5.0, 1.0), ("b", mine[0]): (6.0, 1.0),
             ("b", mine[1]): (7.0, 1.0)}
    quality = {key: q(0.9) for key in table}
    lines = maps2d.floors(["a", "b"], mine, table, quality, {"a": 1000, "b": 1000})
    # the bound: the better peer + max(0.3 points, one test sample) = 10.3 and 5.3
    a, b = (next(line for line in lines if line.startswith(f"- {ds}:")) for ds in "ab")
    assert "the target 10.3 %" in a and 'least: {"separation": 0.9} 10.2 %' in a
    assert a.endswith('met by {"separation": 0.9}')
    assert "least: default 6.0 %" in b and b.endswith("met by none (a floor)")
    assert maps2d.floors(["a"], mine[:1], table, quality) == []  # one variant: nothing to say
    with pytest.raises(SystemExit, match="not a JSON object"):
        maps2d.variants(["separation=0.9"])
    assert list(maps2d.variants(['{"tail": 0.5}'])) == ['graphdr.DEEMap {"tail": 0.5}']


def _benchmark_imports(path):
    """What a script takes from the other benchmark modules: ``{alias: module}`` of
    ``import defaults as base``, and ``(module, name)`` of ``from common import load`` (at any
    depth: an import inside a function fails only when that function runs)."""
    import ast

    names = {p.stem for p in path.parent.glob("*.py")}
    aliases, taken = {}, []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names if a.name in names})
        elif isinstance(node, ast.ImportFrom) and node.module in names and not node.level:
            taken += [(node.module, a.name) for a in node.names]
    return aliases, taken


_IMPORTING_SCRIPTS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")
                            if any(_benchmark_imports(p)))


def test_most_scripts_read_other_benchmark_modules():
    assert {"_semi_maps.py", "model_selection.py",
            "defaults.py"} <= set(_IMPORTING_SCRIPTS)


@pytest.mark.parametrize("script", _IMPORTING_SCRIPTS)
def test_names_a_script_reads_from_another_benchmark_module_exist(script):
    """A script that takes ``X`` from another benchmark module (``defaults``, ``common``)
    finds it there: a moved helper breaks the run, not only the step that uses it
    (press_transfer read ``defaults.SHARED`` after it moved to ``common``, and failed at its
    first data set)."""
    import ast
    import importlib

    path = ROOT / "benchmarks" / script
    aliases, taken = _benchmark_imports(path)
    sys.path.insert(0, str(path.parent))
    try:
        modules = {name: importlib.import_module(name)
                   for name in set(aliases.values()) | {m for m, _ in taken}}
    finally:
        sys.path.remove(str(path.parent))
    read = {(aliases[node.value.id], node.attr)
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in aliases}
    missing = sorted(f"{m}.{n}" for m, n in read | set(taken) if not hasattr(modules[m], n))
    assert not missing, f"{script} reads names its benchmark modules do not have: {missing}"


def test_every_cited_benchmark_path_exists():
    """Every ``benchmarks/...`` path the README, the guides, the code and the tests cite is a
    file or folder of the repository (placeholders such as ``benchmarks/NAME.py`` aside)."""
    import re

    root = Path(__file__).resolve().parents[1]
    docs = [p for p in root.glob("docs/**/*.rst") if "_build" not in p.parts
            and "generated" not in p.parts and "auto_examples" not in p.parts
            and p.name != "history.rst"]  # its paths are at commits: the test below
    sources = ([root / "README.md", root / "CONTRIBUTING.md"] + docs
               + [p for d in ("graphdr", "tests", "benchmarks", "examples")
                  for p in (root / d).glob("**/*.py")])
    this = Path(__file__).resolve()
    cited = {}
    for path in sources:
        if path.resolve() == this:  # its synthetic benchmarks/x.py
            continue
        for found in re.findall(r"benchmarks/[\w./-]*\w", path.read_text(errors="ignore")):
            if "NAME" not in found:
                cited.setdefault(found, path.relative_to(root))
    assert len(cited) > 30  # the README and the guides cite many results (the scan works)
    missing = {p: str(where) for p, where in cited.items() if not (root / p).exists()}
    assert not missing, f"cited but missing: {missing}"


def test_the_history_page_cites_what_its_commits_hold():
    """``docs/history.rst`` quotes studies whose scripts were retired: a section that cites a
    ``benchmarks/...`` path names the one commit that holds it, and the path exists at that
    commit (so ``git checkout COMMIT`` and the command rerun the study)."""
    import re
    import subprocess

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    text = (root / "docs" / "history.rst").read_text()
    sections = re.split(r"\n[^\n]+\n=+\n", text)[1:]
    assert len(sections) >= 5
    checked = 0
    for section in sections:
        paths = set(re.findall(r"benchmarks/[\w./-]*\w", section))
        commits = re.findall(r"Commit ([0-9a-f]{7,40})", section)
        assert len(commits) == (1 if paths else 0), section[:80]
        for path in paths:
            found = subprocess.run(["git", "cat-file", "-e", f"{commits[0]}:{path}"], cwd=root,
                                   capture_output=True)
            if found.returncode and "not a valid object name" in found.stderr.decode():
                pytest.skip(f"commit {commits[0]} is not in this clone (shallow?)")
            assert found.returncode == 0, f"{path} is not at commit {commits[0]}"
            checked += 1
    assert checked >= 5


def test_every_result_command_uses_options_its_benchmark_has():
    """The ``Command:`` line of every result file runs a script of ``benchmarks/`` with options
    that script or one of its parts (``benchmarks/_NAME_*.py``) still defines: a figure whose
    option was removed is caught (it would otherwise cite a command that no longer runs)."""
    import re

    root = Path(__file__).resolve().parents[1]
    checked = 0
    for result in sorted((root / "benchmarks" / "results").glob("*.md")):
        line = next((ln for ln in result.read_text().splitlines()
                     if ln.startswith("Command:") or ln.startswith("    OMP")
                     or ln.startswith("    .venv")), "")
        found = re.search(r"benchmarks/(\w+)\.py([^`]*)", line)
        if not found:
            continue
        name, args = found.groups()
        script = root / "benchmarks" / f"{name}.py"
        assert script.exists(), f"{result.name}: {script.name} is gone"
        sources = script.read_text() + "".join(
            p.read_text() for p in (root / "benchmarks").glob(f"_{name}_*.py"))
        for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", args):
            assert f'"{option}"' in sources, f"{result.name}: {name}.py has no {option}"
        checked += 1
    assert checked > 12  # the scan works (studies retired to docs/history.rst took theirs)


def test_no_issue_numbers_in_the_library_the_docs_or_the_benchmarks():
    """What is measured, not which issue asked: no "issue N" in ``graphdr/``, the docs' sources
    or the benchmark scripts (the CHANGELOG and the result files keep their history)."""
    import re

    root = Path(__file__).resolve().parents[1]
    files = ([p for p in (root / "graphdr").rglob("*.py")]
             + [p for p in (root / "docs").rglob("*.rst") if "_build" not in p.parts
                and "generated" not in p.parts and "auto_examples" not in p.parts]
             + sorted((root / "benchmarks").glob("*.py")) + [root / "README.md"])
    pattern = re.compile(r"\bissues? [0-9]", re.IGNORECASE)
    found = [f"{p.relative_to(root)}:{i}" for p in files
             for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert len(files) > 100
    assert not found, found


#: the most lines of Python that ``benchmarks/`` may hold (its result files are data, not counted)
MAX_BENCHMARK_LINES = 5_000


def test_the_benchmarks_stay_within_their_line_budget():
    """``benchmarks/*.py`` together hold at most :data:`MAX_BENCHMARK_LINES` lines: one
    benchmark per open question, not every study ever run."""
    scripts = sorted((ROOT / "benchmarks").glob("*.py"))
    lines = {p.name: len(p.read_text().splitlines()) for p in scripts}
    total = sum(lines.values())
    largest = ", ".join(f"{name} {n}" for name, n in sorted(lines.items(), key=lambda kv: -kv[1])[:5])
    assert total <= MAX_BENCHMARK_LINES, (
        f"benchmarks/*.py hold {total:,} lines, over the budget of {MAX_BENCHMARK_LINES:,} "
        f"(largest: {largest}). Retire a study whose decision is taken (it set a default, "
        "chose an engine, measured a margin) to docs/history.rst: a section with its question, "
        "its tables copied from its result file with their command and machine lines, what it "
        "decided and the commit that holds its script; remove the script, its options and its "
        "result files, then run `python -m benchmarks index`. Or move code that several scripts "
        "repeat to benchmarks/common.py once.")
