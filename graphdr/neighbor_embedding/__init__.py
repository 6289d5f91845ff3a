r"""Neighbour-embedding methods: discriminative elastic embedding (DEE), elastic embedding (EE)
and discriminative stochastic neighbour embedding (DSNE).

Paper 003 (Zheng, Zhang, Cattani and Wang, 2014) makes Carreira-Perpinan's elastic embedding
supervised and linear. With a projection ``A`` (``d x D``) and ``y_n = A x_n``,

.. math::

    E(A) = \sum_{n,m} w^+_{nm} \lVert A (x_n - x_m) \rVert^2
         + \lambda \sum_{n,m} w^-_{nm} \exp\big(-\lVert A (x_n - x_m)\rVert^2\big),

    w^+_{nm} = [l_n = l_m]\, \exp\!\Big(-\frac{\lVert x_n - x_m\rVert^2}{2\sigma^2}\Big),\qquad
    w^-_{nm} = [l_n \ne l_m]\, \lVert x_n - x_m \rVert^2,\qquad w^\pm_{nn} = 0

(eqs. 10-12), whose gradient is :math:`\partial E/\partial A = 4\, Y^\top L X` with
:math:`Y = X A^\top` and :math:`L = L(w^+) - \lambda L(w^- \circ K)`,
:math:`K_{nm} = \exp(-\lVert y_n - y_m\rVert^2)`.

Implementation notes:

* The attraction is a quadratic form, :math:`2\operatorname{tr}(A X^\top L(w^+) X A^\top)`,
  evaluated from the ``D x D`` (in fact ``r x r``, ``r`` the data rank) matrix
  :math:`X^\top L(w^+) X` accumulated once per fit; only the repulsion needs pairs.
* Pairwise sums go in row blocks of at most ``2**16`` pairs: one evaluation of the objective and
  gradient costs :math:`O(n^2 d + n D d)` time; no ``n x n x D`` tensor is ever formed. The
  input-space weights :math:`w^-` are computed once and kept (``n^2`` floats) when they fit in
  256 MiB (``n`` up to about 5800); otherwise they are recomputed block by block at every
  evaluation (:math:`O(n^2 r)` time, memory bounded by one block).
* The problem is solved in the span of the centred data (:func:`graphdr.blocks.solvers.data_subspace`):
  constant features, duplicate rows and ``D > n`` cost nothing; ``components_`` is mapped back.
* The optimisers come from :mod:`graphdr.blocks.optim`; the Laplacian direction solves with one
  Cholesky factor of :math:`4 X^\top L(w^+) X + \mu I`, computed once per fit.

The package holds one module per estimator and one for their shared pairwise core:

* :mod:`graphdr.neighbor_embedding._core` -- pair weights and squared distances in row blocks, sampled
  pairs, starting points, preconditioners, the inner validation subsample, and the base class
  of the linear neighbour embeddings;
* :mod:`graphdr.neighbor_embedding.dee` -- :class:`DEE` and its objective;
* :mod:`graphdr.neighbor_embedding.dsne` -- :class:`DSNE` and its objectives;
* :mod:`graphdr.neighbor_embedding.elastic` -- :class:`ElasticEmbedding` and its objective.

The supervised 2-D map, :class:`graphdr.DEEMap` (DEE's objective over a free map), has a
subpackage of its own, :mod:`graphdr.maps`, that builds on this one.
"""

from ._core import (  # noqa: F401  (helpers used by tests and benchmarks)
    _mean_same_class_sq_dist,
    _PairWeights,
    _sample_groups,
)
from .dee import DEE, _DEEObjective  # noqa: F401
from .dsne import DSNE, _DSNEObjective, _SampledDSNEObjective  # noqa: F401
from .elastic import ElasticEmbedding, _EEObjective, _sparse_preconditioner  # noqa: F401

__all__ = ["DEE", "ElasticEmbedding", "DSNE"]
