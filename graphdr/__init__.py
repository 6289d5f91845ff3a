"""graphdr: supervised dimensionality reduction by graph embedding, mutual information,
multiple kernels and discriminative neighbour embedding, as scikit-learn transformers."""

from .base import GraphEmbedding
from .discriminant import DCV, MMPA
from .kernel_methods import CKFD, KernelLDA, KernelLPP
from .linear import LDA, LDE, LPP, MFA
from .local_fisher import LFDA, SemiLFDA
from .local_fisher import SELF as SELF  # the paper's name of SemiLFDA (see its docstring)
from .map2d import map2d
from .multiview import (
    KFD,
    KFDSAMME,
    MKLDR,
    KFDVoting,
    SDPSolverError,
    ViewKernel,
    make_multiview_digits,
)
from .neighbor import DEE, DSNE, DEEMap, ElasticEmbedding
from .poisson import PoissonPropagation
from .qmi import KQMI, LQMI, QMIProjection, qmi_graph, qmi_potentials

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
