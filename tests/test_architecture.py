"""The package's shape: layers import only downwards, classes stay readable, names differ.

The layers (README, "Architecture") from bottom to top (a subpackage has its package's layer;
the building blocks, ``blocks/``, the graph-embedding framework, ``graph_embedding/``, and the
partially labelled data, ``semi/``, are layered module by module):

0. ``_validation``, ``_threads``, ``_outputs`` -- input checks, threads, whole-or-nothing
   outputs;
1. ``blocks.*`` but the solvers -- graphs, neighbour searches and lists, kernels, statistics,
   optimisers, sampled pairs, content-keyed subsamples and folds, feature scaling;
   ``semi.propagation``, ``semi.poisson`` -- label propagation; ``io`` -- the file readers;
2. ``blocks.solvers`` -- eigen-solvers;
3. ``tuning``, ``audit``, ``training`` -- kernel selection, the audit of labels, the training
   set; ``graph_embedding.spaces``, ``graph_embedding.routes`` -- coordinate spaces, solve routes;
4. the framework's core (``graph_embedding.estimator``, ``.fitting``, ``.generic``,
   ``.projection``, ``.class_discriminants``) and ``semi.choice``, the uses of unlabelled rows;
5. estimators by family (``graph_embedding``'s estimators, ``qmi``, ``multiview``,
   ``neighbor_embedding``);
6. the 2-D map (``maps``: DEEMap, its views, its Dask route);
7. the experiment tool and the command line (``bench``, ``cli``) and the package's namespace.
"""

import ast
import importlib
import importlib.util
import itertools
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "graphdr"

LAYERS = {
    "_validation": 0, "_threads": 0, "_outputs": 0,
    "blocks": 1, "blocks.graphs": 1, "blocks.knn": 1, "blocks.lists": 1, "io": 1,
    "blocks.list_graph": 1, "blocks.list_blocks": 1,
    "blocks.kernel_matrices": 1, "blocks.stats": 1, "blocks.optim": 1, "blocks.pairs": 1,
    "blocks.sampling": 1, "blocks.scaling": 1,
    "semi": 1, "semi.propagation": 1, "semi.poisson": 1,
    "blocks.solvers": 2,
    "tuning": 3, "audit": 3, "training": 3,
    "graph_embedding.spaces": 3, "graph_embedding.routes": 3,
    "graph_embedding.estimator": 4, "graph_embedding.fitting": 4, "graph_embedding.generic": 4,
    "graph_embedding.projection": 4, "graph_embedding.class_discriminants": 4, "semi.choice": 4,
    "graph_embedding": 5, "graph_embedding.linear": 5, "graph_embedding.kernel_methods": 5,
    "graph_embedding.discriminant": 5, "graph_embedding.local_fisher": 5,
    "qmi": 5, "multiview": 5, "neighbor_embedding": 5,
    "maps": 6,  # the map builds on the neighbour embeddings (DEE's objective, EE's preconditioner)
    "bench": 7, "cli": 7, "__init__": 7,
}

#: a class may exceed this many lines of code only with a reason in its docstring
MAX_CLASS_LINES = 250
#: no module of the package is longer than this (lines of the file): a family with more code
#: is a subpackage with one module per concern; a module past ``MODULE_LINES_WARNING`` is
#: named in a warning (split it by concept before it reaches the cap, not at the cap)
MAX_MODULE_LINES, MODULE_LINES_WARNING = 800, 700


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


#: the subpackages layered module by module
BY_MODULE = ("blocks", "graph_embedding", "semi")


def _unit(parts):
    """The layered unit of a module (its parts below ``graphdr``): its top-level module or
    subpackage, or for a subpackage of :data:`BY_MODULE` ``<package>.<module>``."""
    if parts[0] in BY_MODULE and len(parts) > 1 and parts[1] != "__init__":
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def _top_module(path):
    rel = path.relative_to(PACKAGE).with_suffix("")
    return _unit(rel.parts)


def _imported_graphdr_modules(path):
    """Top-level graphdr modules a file imports (relative or absolute imports)."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("").parts  # ('graphdr', 'bench', 'x')
    package = list(rel[:-1])  # the package the file is in
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    target = base + node.module.split(".")
                    if target[1:] in ([p] for p in BY_MODULE):  # from ..blocks import graphs
                        targets.extend(target + [alias.name] for alias in node.names
                                       if (PACKAGE / target[1] / f"{alias.name}.py").is_file())
                        targets.append(target)  # a name of the package itself
                    else:
                        targets.append(target)
                else:
                    targets.extend(base + [alias.name] for alias in node.names)
            elif node.module:
                targets.append(node.module.split("."))
        elif isinstance(node, ast.Import):
            targets.extend(alias.name.split(".") for alias in node.names)
        for parts in targets:
            if parts[0] == "graphdr":
                found.add(_unit(parts[1:]) if len(parts) > 1 else "__init__")
    return found


def test_every_module_has_a_layer():
    missing = {_top_module(p) for p in _modules()} - set(LAYERS)
    assert not missing, f"modules with no layer in tests/test_architecture.py: {missing}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_downwards(path):
    layer = LAYERS[_top_module(path)]
    for imported in _imported_graphdr_modules(path):
        assert imported in LAYERS, f"{path.name} imports unknown graphdr module {imported!r}"
        assert LAYERS[imported] <= layer, (
            f"{path.relative_to(PACKAGE)} (layer {layer}) imports {imported} "
            f"(layer {LAYERS[imported]}): an import that points upward"
        )


def _code_lines(node, lines):
    """Lines of code of a class: no blank lines, comments or docstrings."""
    numbers = set(range(node.lineno, node.end_lineno + 1))
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (isinstance(inner, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            numbers -= set(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(1 for i in numbers if lines[i - 1].strip() and not lines[i - 1].strip().startswith("#"))


def test_classes_are_short_enough_to_read():
    long = []
    for path in _modules():
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                size = _code_lines(node, lines)
                doc = ast.get_docstring(node) or ""
                if size > MAX_CLASS_LINES and "Why this class is long" not in doc:
                    long.append(f"{path.name}:{node.name} ({size} lines)")
    assert not long, f"classes over {MAX_CLASS_LINES} lines of code with no reason given: {long}"


def test_modules_are_short_enough_to_read():
    import warnings

    lines = {p.relative_to(PACKAGE): len(p.read_text().splitlines()) for p in _modules()}
    near = [f"{p} ({n} lines)" for p, n in lines.items() if n > MODULE_LINES_WARNING]
    if near:
        warnings.warn(f"modules near the cap of {MAX_MODULE_LINES} lines: {near}", UserWarning,
                      stacklevel=1)
    long = [f"{p} ({n} lines)" for p, n in lines.items() if n > MAX_MODULE_LINES]
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_families_are_subpackages():
    """The estimator families and the shared machinery that grew past one module."""
    for name in ("neighbor_embedding", "qmi", "multiview", "tuning", "training",
                 "bench/reproduce", "blocks", "graph_embedding", "semi", "maps/views", "cli", "io"):
        assert (PACKAGE / name / "__init__.py").is_file(), name


def _one_edit_apart(a, b):
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def test_no_two_module_names_differ_by_one_letter():
    names = {p.stem for p in _modules() if p.stem != "__init__"}
    close = [(a, b) for a, b in itertools.combinations(sorted(names), 2) if _one_edit_apart(a, b)]
    assert not close, f"module names a newcomer confuses: {close}"


def test_the_checks_can_fail():
    """The helpers above detect what they are meant to detect."""
    assert _one_edit_apart("kernel", "kernels") and not _one_edit_apart("kernel_matrices", "kernel_methods")
    tree = ast.parse('class A:\n    """doc"""\n' + "    x = 1\n" * 3 + "    # c\n")
    assert _code_lines(tree.body[0], ('class A:\n    """doc"""\n' + "    x = 1\n" * 3).splitlines()) == 4


def _imported_files(path):
    """graphdr module files (dotted names) a file imports, at module level or in a function."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = list(rel[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            names = [base + node.module.split(".")] if node.module else \
                [base + [a.name] for a in node.names]
            found.update(".".join(n) for n in names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("graphdr"):
            found.add(node.module)
    return found


def test_no_two_modules_import_each_other():
    """No circle between two files, not even through an import inside a function (issue 38:
    base/estimator.py and base/fitting.py did)."""
    files = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts): p
             for p in _modules()}
    imports = {name: {t for t in _imported_files(path) if t in files and t != name}
               for name, path in files.items()}
    circles = sorted({tuple(sorted((a, b))) for a, targets in imports.items() for b in targets
                      if a in imports.get(b, ()) and not b.endswith("__init__")
                      and not a.endswith("__init__")})
    assert not circles, circles


#: the module names of 0.1.0 (the CHANGELOG's first entry) that have moved
FORMER_0_1_0 = ("graphs", "kernel_matrices", "optim", "routes", "solvers", "spaces", "stats",
                "discriminant", "kernel_methods", "linear", "base", "neighbor", "mkl",
                "qmi_ascent")
#: module names created after 0.1.0 and moved again before any release: no alias
NEVER_RELEASED = ("cli_map", "cli_demo", "knn", "pairs", "sampling", "local_fisher", "map2d",
                  "map_page", "map_partitions", "plotting", "propagation", "poisson",
                  "bench.files", "bench.file_parts", "bench.array_files", "bench.columns",
                  "bench.paths", "neighbor.dee_map", "neighbor.grid_field", "neighbor.map_dask",
                  "neighbor.map_input", "neighbor.map_objective", "neighbor.map_start",
                  "neighbor.map_view", "neighbor.placement")


@pytest.mark.slow
def test_a_module_of_0_1_0_imports_under_its_former_name_with_a_future_warning():
    """Each module name of 0.1.0 that moved gives the module at its new place (the same
    object: a user's script or a pickled reference keeps working) with a FutureWarning that
    names the new place; the names created after 0.1.0 and moved again have no alias; no
    file is left at a former place, and the top of the package holds its private modules
    only."""
    import subprocess
    import sys

    import graphdr

    assert set(graphdr._FORMER) == {f"graphdr.{m}" for m in FORMER_0_1_0}
    for new in graphdr._FORMER.values():
        assert importlib.util.find_spec(new) is not None, new
    code = ("import importlib, warnings, graphdr\n"
            f"for m in {FORMER_0_1_0!r}:\n"
            "    old, new = 'graphdr.' + m, graphdr._FORMER['graphdr.' + m]\n"
            "    with warnings.catch_warnings(record=True) as seen:\n"
            "        warnings.simplefilter('always')\n"
            "        assert importlib.import_module(old) is importlib.import_module(new), old\n"
            "    assert [w.category for w in seen] == [FutureWarning], (old, seen)\n"
            "    assert new in str(seen[0].message), seen[0].message\n"
            f"for m in {NEVER_RELEASED!r}:\n"
            "    try:\n"
            "        importlib.import_module('graphdr.' + m)\n"
            "    except ModuleNotFoundError:\n"
            "        continue\n"
            "    raise AssertionError('graphdr.' + m + ' still imports')\n"
            "from graphdr.graphs import knn_graph\n"
            "import graphdr.blocks.graphs as graphs\n"
            "assert knn_graph is graphs.knn_graph and callable(graphdr.map2d)\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    for name in (*FORMER_0_1_0, *NEVER_RELEASED):
        assert not (PACKAGE / (name.replace(".", "/") + ".py")).exists(), name
        assert not (PACKAGE / name.replace(".", "/")).is_dir(), name
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "_outputs.py", "_threads.py", "_validation.py"], top


def test_what_an_estimator_declares_it_supports_matches_its_parameters():
    """``_supports`` (graphdr.training.supports): a flag that says a parameter exists is set exactly
    when the class has that parameter; a class that fits unlabelled rows by choice or with a
    smoothness term declares that it takes them; every estimator of the shared machinery
    (graph embedding, neighbour embedding, the map) declares its capabilities."""
    import inspect

    from sklearn.base import BaseEstimator

    import graphdr
    from graphdr.graph_embedding.estimator import _BaseGraphEmbedding
    from graphdr.neighbor_embedding._core import _LinearNeighborEmbedding
    from graphdr.training.supports import Supports

    checked = 0
    for name in graphdr.__all__:
        cls = getattr(graphdr, name)
        if not (inspect.isclass(cls) and issubclass(cls, BaseEstimator)):
            continue
        if issubclass(cls, (_BaseGraphEmbedding, _LinearNeighborEmbedding, graphdr.DEEMap)):
            assert isinstance(cls.__dict__.get("_supports", cls._supports), Supports), name
        if not hasattr(cls, "_supports"):
            continue
        params = cls().get_params(deep=False)
        for flag, parameter in Supports.PARAMETERS.items():
            assert getattr(cls._supports, flag) == (parameter in params), (name, flag)
        if cls._supports.unlabelled_choice or cls._supports.smoothing:
            assert cls._supports.unlabelled_rows, name
        if cls._supports.ridge:
            assert "reg" in params, name
        checked += 1
    assert checked >= 16


#: the helpers of a fit, which take values (the training set, what a class declares, what an
#: estimator's hooks say, read once by the estimator's own module)
HELPER_MODULES = ("graph_embedding/fitting.py", "semi/choice.py", "training")
#: the private names a helper may read of what it is passed, each a declared protocol
PROTOCOL_READS = {
    ("supports_of", "_supports"): "what a class declares it takes, read in this one place",
    ("right", "_embed_rows"): "a trial model's transform of rows the training set validated",
}


#: the names the helpers give an estimator
ESTIMATOR_NAMES = {"est", "estimator", "model", "trial", "alone", "fitted"}


def _private_reads(source):
    """``(function, name)`` for each private attribute a function reads of an estimator
    (``est._name``, any :data:`ESTIMATOR_NAMES`) or of anything by ``getattr(x, '_name')``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if (isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
                    and inner.value.id in ESTIMATOR_NAMES and inner.attr.startswith("_")
                    and not inner.attr.startswith("__")):
                found.add((node.name, inner.attr))
            if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                    and inner.func.id == "getattr" and len(inner.args) >= 2
                    and isinstance(inner.args[1], ast.Constant)
                    and str(inner.args[1].value).startswith("_")):
                found.add((node.name, inner.args[1].value))
    return found


def test_the_fits_helpers_read_no_private_attribute_of_what_they_are_passed():
    """The helpers of a fit take values, not the estimator's private hooks: the estimator's
    own module reads those once (``fit_traits``, ``unlabelled_uses``) and passes them."""
    assert _private_reads("def f(est, x):\n    return est._hook() + getattr(x, '_y')\n") == {
        ("f", "_hook"), ("f", "_y")}
    paths = [p for name in HELPER_MODULES for p in sorted((PACKAGE / name).rglob("*.py"))
             if (PACKAGE / name).is_dir()] + [PACKAGE / n for n in HELPER_MODULES
                                              if n.endswith(".py")]
    reads = {f"{p.relative_to(PACKAGE)}: {fn} reads {name}" for p in paths
             for fn, name in _private_reads(p.read_text()) if (fn, name) not in PROTOCOL_READS}
    assert not reads, sorted(reads)


#: the estimators whose fitted attributes are written by more than one method, with how many
#: (the count may only fall): ``ViewKernel`` has two fits, of the exact kernel
#: (``fit_kernel``) and of the landmark features (``fit_features``), each writing in one
#: method; every other public estimator writes its fitted attributes in one method (its
#: store, or a ``fit`` that ends by writing them)
WRITERS_LEFT = {"ViewKernel": 2}


def _writes_fitted_attributes(function):
    """Whether the source of ``function`` assigns ``self.<name>_`` or writes a selection on
    ``self`` (``selected.write(self)``)."""
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        flat = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
               and t.value.id == "self" and t.attr.endswith("_") for t in flat):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "write"
                and any(isinstance(a, ast.Name) and a.id == "self" for a in node.args)):
            return True
    return False


def _writer_methods(cls):
    """The names of the methods (of graphdr's classes in ``cls``'s MRO) that write fitted
    attributes; the ``_store`` of a class and of its bases count as one place."""
    import inspect

    names = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("graphdr"):
            continue
        for name, member in vars(klass).items():
            function = inspect.unwrap(member) if callable(member) else None
            if inspect.isfunction(function) and _writes_fitted_attributes(function):
                names.add(name)
    return names


def test_an_estimator_writes_its_fitted_attributes_in_one_place():
    """Each public estimator's fitted attributes are written by one method (a fit of values:
    its steps return what they choose, its store writes it), but for those of
    :data:`WRITERS_LEFT`, whose count may only fall."""
    import sklearn.base

    import graphdr

    found = {}
    for name in graphdr.__all__:
        cls = getattr(graphdr, name)
        if isinstance(cls, type) and issubclass(cls, sklearn.base.BaseEstimator):
            found[name] = _writer_methods(cls)
    assert len(found) >= 20 and found["LDA"] == {"_store"}, found
    over = {n: sorted(w) for n, w in found.items() if len(w) > WRITERS_LEFT.get(n, 1)}
    assert not over, f"fitted attributes written in more places than allowed: {over}"
    fell = {n: len(found[n]) for n, k in WRITERS_LEFT.items() if len(found[n]) < k}
    assert not fell, f"fewer writers now (lower WRITERS_LEFT): {fell}"
