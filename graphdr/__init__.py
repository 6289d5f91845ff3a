"""graphdr: supervised dimensionality reduction by graph embedding, mutual information,
multiple kernels and discriminative neighbour embedding, as scikit-learn transformers."""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: each public name and the module that defines it: imported when first used (PEP 562), so
#: that ``import graphdr.cli`` (the command line) starts at once and a Ctrl-C while it starts
#: is the command's own one-line answer
_WHERE = {
    "GraphEmbedding": ".graph_embedding.generic",
    "DCV": ".graph_embedding.discriminant", "MMPA": ".graph_embedding.discriminant",
    "CKFD": ".graph_embedding.kernel_methods", "KernelLDA": ".graph_embedding.kernel_methods",
    "KernelLPP": ".graph_embedding.kernel_methods",
    "LDA": ".graph_embedding.linear", "LDE": ".graph_embedding.linear",
    "LPP": ".graph_embedding.linear", "MFA": ".graph_embedding.linear",
    "LFDA": ".graph_embedding.local_fisher", "SemiLFDA": ".graph_embedding.local_fisher",
    "SELF": ".graph_embedding.local_fisher",  # the paper's name of SemiLFDA (see its docstring)
    "map2d": ".maps.views.draw",
    "KFD": ".multiview", "KFDSAMME": ".multiview", "MKLDR": ".multiview",
    "KFDVoting": ".multiview", "SDPSolverError": ".multiview", "ViewKernel": ".multiview",
    "make_multiview_digits": ".multiview",
    "DEE": ".neighbor_embedding", "DSNE": ".neighbor_embedding", "DEEMap": ".maps.dee_map",
    "ElasticEmbedding": ".neighbor_embedding",
    "PoissonPropagation": ".semi.poisson", "LabelIssues": ".audit",
    "KQMI": ".qmi", "LQMI": ".qmi", "QMIProjection": ".qmi", "qmi_graph": ".qmi",
    "qmi_potentials": ".qmi",
}


#: the modules of 0.1.0 that have moved, by their former name: ``import graphdr.linear`` imports
#: the module at its new place (one module object under both names) with a FutureWarning;
#: the former names go in the next release (CHANGELOG)
_FORMER = {**{f"graphdr.{m}": f"graphdr.blocks.{m}" for m in (
               "graphs", "kernel_matrices", "optim", "solvers", "stats")},
           **{f"graphdr.{m}": f"graphdr.graph_embedding.{m}" for m in (
               "routes", "spaces", "discriminant", "kernel_methods", "linear")},
           "graphdr.base": "graphdr.graph_embedding.generic",  # GraphEmbedding
           "graphdr.neighbor": "graphdr.neighbor_embedding",  # DEE, DSNE, ElasticEmbedding
           "graphdr.mkl": "graphdr.multiview.mkldr",  # MKLDR
           "graphdr.qmi_ascent": "graphdr.qmi.projection"}  # QMIProjection


class _FormerModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a module of 0.1.0 under its former name (:data:`_FORMER`), with a FutureWarning."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _FORMER:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is now {_FORMER[spec.name]}: import it from there; the "
                      "former name will be removed in the next release.", FutureWarning,
                      stacklevel=2)
        return importlib.import_module(_FORMER[spec.name])

    def exec_module(self, module):
        pass  # already executed under its new name


if not any(isinstance(f, _FormerModules) for f in sys.meta_path):
    sys.meta_path.append(_FormerModules())


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
    "LabelIssues",
]
