"""graphdr: supervised dimensionality reduction by graph embedding, mutual information,
multiple kernels and discriminative neighbour embedding, as scikit-learn transformers."""

import importlib
import importlib.abc
import importlib.util
import sys
import types

#: each public name and the module that defines it: imported when first used (PEP 562), so
#: that ``import graphdr.cli`` (the command line) starts at once and a Ctrl-C while it starts
#: is the command's own one-line answer
_WHERE = {
    "GraphEmbedding": ".base",
    "DCV": ".graph_embedding.discriminant", "MMPA": ".graph_embedding.discriminant",
    "CKFD": ".graph_embedding.kernel_methods", "KernelLDA": ".graph_embedding.kernel_methods",
    "KernelLPP": ".graph_embedding.kernel_methods",
    "LDA": ".graph_embedding.linear", "LDE": ".graph_embedding.linear",
    "LPP": ".graph_embedding.linear", "MFA": ".graph_embedding.linear",
    "LFDA": ".graph_embedding.local_fisher", "SemiLFDA": ".graph_embedding.local_fisher",
    "SELF": ".graph_embedding.local_fisher",  # the paper's name of SemiLFDA (see its docstring)
    "map2d": ".maps.draw",
    "KFD": ".multiview", "KFDSAMME": ".multiview", "MKLDR": ".multiview",
    "KFDVoting": ".multiview", "SDPSolverError": ".multiview", "ViewKernel": ".multiview",
    "make_multiview_digits": ".multiview",
    "DEE": ".neighbor", "DSNE": ".neighbor", "DEEMap": ".maps.dee_map",
    "ElasticEmbedding": ".neighbor",
    "PoissonPropagation": ".semi.poisson", "LabelIssues": ".audit",
    "KQMI": ".qmi", "LQMI": ".qmi", "QMIProjection": ".qmi", "qmi_graph": ".qmi",
    "qmi_potentials": ".qmi",
}


class _Package(types.ModuleType):
    """The package's module: a public name that is also a module's name (``graphdr.map2d``,
    the function, beside ``graphdr.map2d``, the former name of its module) stays the public
    object when that module is imported (the import machinery would bind the module over it);
    the module itself is in ``sys.modules``."""

    def __setattr__(self, name, value):
        if name in _WHERE and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

#: modules that moved, by their former name: ``import graphdr.cli_map`` still imports the module
#: now at its new place (one module object under both names; classes keep their new
#: ``__module__``)
_MOVED = {"graphdr.cli_map": "graphdr.cli.map_command", "graphdr.cli_demo": "graphdr.cli.demo",
          **{f"graphdr.{m}": f"graphdr.blocks.{m}" for m in (
              "graphs", "knn", "kernel_matrices", "stats", "optim", "pairs", "sampling", "solvers",
              "spaces", "routes")},
          **{f"graphdr.{m}": f"graphdr.graph_embedding.{m}" for m in (
              "linear", "kernel_methods", "discriminant", "local_fisher")},
          **{f"graphdr.bench.{m}": f"graphdr.io.{m}" for m in (
              "files", "file_parts", "array_files", "columns", "paths")},
          **{f"graphdr.neighbor.{old}": f"graphdr.maps.{new}" for old, new in (
              ("dee_map", "dee_map"), ("grid_field", "grid_field"), ("map_dask", "dask_fit"),
              ("map_input", "inputs"), ("map_objective", "objective"), ("map_start", "start"),
              ("map_view", "display"), ("placement", "placement"))},
          "graphdr.map2d": "graphdr.maps.draw", "graphdr.map_page": "graphdr.maps.page",
          "graphdr.map_partitions": "graphdr.maps.partitions",
          "graphdr.plotting": "graphdr.tuning.plotting",
          "graphdr.propagation": "graphdr.semi.propagation",
          "graphdr.poisson": "graphdr.semi.poisson"}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a moved module under its former name (:data:`_MOVED`)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(_MOVED[spec.name])

    def exec_module(self, module):
        pass  # already executed under its new name


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value  # once
        return value
    raise AttributeError(f"module 'graphdr' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WHERE))


__version__ = "0.1.0"

__all__ = [
    "GraphEmbedding",
    "LDA",
    "LPP",
    "MFA",
    "LDE",
    "LFDA",
    "SemiLFDA",
    "KernelLDA",
    "KernelLPP",
    "CKFD",
    "LQMI",
    "KQMI",
    "QMIProjection",
    "qmi_graph",
    "qmi_potentials",
    "DEE",
    "DEEMap",
    "DSNE",
    "ElasticEmbedding",
    "MMPA",
    "DCV",
    "MKLDR",
    "SDPSolverError",
    "ViewKernel",
    "KFD",
    "KFDVoting",
    "KFDSAMME",
    "make_multiview_digits",
    "map2d",
    "PoissonPropagation",
]
