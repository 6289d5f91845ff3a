r"""The graph-embedding framework whole (paper 000's view of LDA and its relatives: one
generalized eigenproblem, many graphs): the estimator core and its estimators.

Graph embedding (Yan et al., 2007; paper 000, section II-A) finds the projection ``V`` that keeps
samples joined in an *intrinsic* graph ``W`` close while keeping samples joined in a *penalty*
graph ``W^p`` apart:

.. math::

    \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
    V^\top \big(X^\top L(W^p) X + \epsilon I\big) V = I .

In the kernel form ``X`` is replaced by the empirical kernel map ``Z`` of the centred kernel
(:mod:`graphdr.blocks.kernel_matrices`), which is the dual problem
:math:`(K L K + \epsilon K) a = \lambda (K L^p K + \epsilon K) a`.

The core, one module per concern:

* :mod:`~graphdr.graph_embedding.spaces` -- where a problem is solved (the span of the centred
  data, the exact empirical kernel map, Nystroem landmark features) and how results map back;
* :mod:`~graphdr.graph_embedding.routes` -- the routes that solve it (class statistics, the
  class-structured kernel route, the generic generalized eigenproblem) and the parameter
  entries the estimators' docstrings share;
* :mod:`~graphdr.graph_embedding.fitting` -- the training data and the solution as records, the
  kernel width and ridge (given or chosen from the data);
* :mod:`~graphdr.graph_embedding.estimator` -- :class:`_BaseGraphEmbedding`, whose ``fit``
  reads like the algorithm box (validate, pick the space, build the graphs, solve, store);
* :mod:`~graphdr.graph_embedding.projection` -- the ``transform`` of linear projections fitted
  by their own algorithm; :mod:`~graphdr.graph_embedding.class_discriminants` -- the parameters
  LDA and LQMI, KernelLDA and KQMI share;
* :mod:`~graphdr.graph_embedding.generic` -- :class:`GraphEmbedding`, any pair of graphs.

The estimators, one module per family: :mod:`~graphdr.graph_embedding.linear` (LDA, LPP, MFA,
LDE), :mod:`~graphdr.graph_embedding.kernel_methods` (KernelLDA, KernelLPP, CKFD),
:mod:`~graphdr.graph_embedding.discriminant` (MMPA, DCV),
:mod:`~graphdr.graph_embedding.local_fisher` (LFDA, SemiLFDA). They are imported from
``graphdr``. The training set they are fitted on is :mod:`graphdr.training`; the uses of
unlabelled rows, :mod:`graphdr.semi.choice`.

This package exports nothing itself: importing one of its modules imports no estimator.
"""
