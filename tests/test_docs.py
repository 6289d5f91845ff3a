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
    text = (".. autosummary::\n   :toctree: generated/\n\n   graphdr.LDA\n   graphdr.graphs\n\n"
            "Text\n   graphdr.NotListed\n")
    assert _autosummary_entries(text) == ["graphdr.LDA", "graphdr.graphs"]


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
