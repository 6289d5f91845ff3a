"""The graph-embedding framework (paper 000's view of LDA and its relatives: one generalized
eigenproblem, many graphs), one module per family: :mod:`~graphdr.graph_embedding.linear`
(LDA, LPP, MFA, LDE), :mod:`~graphdr.graph_embedding.kernel_methods` (KernelLDA, KernelLPP,
CKFD), :mod:`~graphdr.graph_embedding.discriminant` (MMPA, DCV),
:mod:`~graphdr.graph_embedding.local_fisher` (LFDA, SemiLFDA). The estimators are imported
from ``graphdr``; the solver and the graphs they share are :mod:`graphdr.base` and
:mod:`graphdr.blocks`."""
