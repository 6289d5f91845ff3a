r"""The estimator core of graph embedding: validate, pick a space, build graphs, solve, store.

Graph embedding (Yan et al., 2007; paper 000, section II-A) finds the projection ``V`` that keeps
samples joined in an *intrinsic* graph ``W`` close while keeping samples joined in a *penalty*
graph ``W^p`` apart:

.. math::

    \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
    V^\top \big(X^\top L(W^p) X + \epsilon I\big) V = I .

In the kernel form ``X`` is replaced by the empirical kernel map ``Z`` of the centred kernel
(:mod:`graphdr.blocks.kernel_matrices`), which is the dual problem
:math:`(K L K + \epsilon K) a = \lambda (K L^p K + \epsilon K) a`.

:meth:`_BaseGraphEmbedding.fit` reads like the algorithm box:

1. **validate** ``X`` and ``y`` (:func:`sklearn.utils.validation.validate_data`, labels of any
   type); class-structured linear problems read ``X`` once into class statistics instead
   (:func:`graphdr.blocks.stats.class_statistics`, also for ``dask.array`` input). With
   unlabelled rows (``y = -1``) the rows are validated once into a
   :class:`~graphdr.base.prepared.PreparedInput` that the choice of how to use them
   (:func:`graphdr.base.semi.prepare_unlabelled`), its trial fits and the fit itself share;
2. **pick the coordinate space** (:mod:`graphdr.blocks.spaces`): the span of the centred data, the
   exact empirical kernel map, or Nystroem landmark features;
3. **build the graphs** (:mod:`graphdr.blocks.graphs`) as a :class:`graphdr.blocks.routes.GraphProblem`;
4. **solve** by one of the routes of :mod:`graphdr.blocks.routes` (class statistics, the
   class-structured kernel Cholesky route, or the generic generalized eigenproblem);
5. **store** what the space maps the solution to (``components_`` or ``dual_coef_``), with
   deterministic signs; ``transform`` asks the same space to embed new samples.

A subclass only says which problem it solves: its graphs (:meth:`_build_graphs` or
:meth:`_problem`), optionally their class-structured forms (:meth:`_class_forms`,
:meth:`_class_objective_block`) and how many components are meaningful (:meth:`_max_components`).

Modules: :mod:`~graphdr.base.fitting` (training data, solutions, kernel width and ridge),
:mod:`~graphdr.base.prepared` (rows validated once for the fits of a partially labelled fit),
:mod:`~graphdr.base.semi` (the uses of unlabelled rows),
:mod:`~graphdr.base.estimator` (the fit above, ``transform``), :mod:`~graphdr.base.projection`
(the ``transform`` of linear projections fitted by their own algorithm),
:mod:`~graphdr.base.class_discriminants` (the parameters LDA and LQMI, KernelLDA and KQMI share),
:mod:`~graphdr.base.supports` (what an estimator takes) and
:mod:`~graphdr.base.generic` (:class:`GraphEmbedding`).
"""

from .estimator import _BaseGraphEmbedding  # noqa: F401
from .fitting import Solution, TrainingData  # noqa: F401
from .generic import GraphEmbedding
from .projection import _LinearProjection  # noqa: F401

__all__ = ["GraphEmbedding"]
