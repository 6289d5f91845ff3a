"""Sphinx configuration of graphdr's documentation (``make docs`` -> docs/_build/html)."""

import os
import re
import sys
import warnings

import graphdr

project = "graphdr"
author = "graphdr developers"
copyright = "graphdr developers, BSD-3-Clause"
version = release = graphdr.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    # MathJax shipped with the site (docs/_build/html/_static/mathjax), so that the formulas
    # render without a network connection (the package's module name has dashes).
    "sphinx-mathjax-offline",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]
root_doc = "index"
default_role = "obj"

# ----- API reference ---------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
#: a module's page shows what its ``__all__`` names, not every public-looking name in it
autosummary_ignore_module_all = False
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# ----- gallery ---------------------------------------------------------------------------------
# The gallery is executed on every build; an example that raises fails the build (sphinx-gallery's
# default; `only_warn_on_example_error` stays False), so CI catches a broken example.
os.environ.setdefault("OMP_NUM_THREADS", "1")
sphinx_gallery_conf = {
    "examples_dirs": os.path.join("..", "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "doc_module": ("graphdr",),
    "reference_url": {"graphdr": None},
    "backreferences_dir": "generated/backreferences",
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "show_memory": False,
    "matplotlib_animations": False,
}

# Examples print their timings; matplotlib must not open windows.
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable/", None),
    "scipy": ("https://docs.scipy.org/doc/scipy/", None),
    "sklearn": ("https://scikit-learn.org/stable/", None),
    "dask": ("https://docs.dask.org/en/stable/", None),
}
# Offline builds (CI has no network beyond package registries) must not wait on intersphinx.
if os.environ.get("GRAPHDR_DOCS_INTERSPHINX", "0") != "1":
    intersphinx_mapping = {}

# ----- HTML ------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"graphdr {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_last_updated_fmt = None

sys.path.insert(0, os.path.abspath(os.path.dirname(__file__)))


# ----- docstring rendering ---------------------------------------------------------------------
# graphdr's docstrings write array shapes with fitted-attribute names, "ndarray of shape
# (n_samples, n_components_)". In reStructuredText a word ending in "_" is a hyperlink
# reference, so such a shape would be an unknown target (an error under -W). Escape the
# trailing underscore of names inside parenthesised shape tuples, outside inline literals and
# roles, before numpydoc parses the docstring (priority 400 runs before numpydoc's 500).
_SHAPE = re.compile(r"\((?:\s*\w+\s*,)*\s*\w*\s*\)")
_TRAILING = re.compile(r"(?<=\w)_(?=\s*[,)])")
_LITERAL = re.compile(r"(`+[^`]*`+)")


def _escape_shape_names(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        if "_" not in line or "(" not in line:
            continue
        parts = _LITERAL.split(line)
        for k in range(0, len(parts), 2):  # even parts lie outside backquotes
            parts[k] = _SHAPE.sub(lambda m: _TRAILING.sub(r"\\_", m.group(0)), parts[k])
        lines[i] = "".join(parts)


def setup(app):
    app.connect("autodoc-process-docstring", _escape_shape_names, priority=400)
