r"""Partially labelled data: labels propagated over the data's own neighbour graph, and how an
estimator uses its unlabelled rows.

* :mod:`graphdr.semi.propagation` -- the self-tuned kNN graph of all rows and Poisson learning
  on it (:func:`~graphdr.semi.propagation.propagate`), a building block;
* :mod:`graphdr.semi.poisson` -- :class:`PoissonPropagation`, the same as a scikit-learn
  semi-supervised classifier;
* :mod:`graphdr.semi.choice` -- how an estimator uses the unlabelled rows of ``y = -1``: the
  propagated classes, a smoothness term, or the choice between them (``unlabelled='auto'``)
  by trial fits on the prepared training set (:mod:`graphdr.training`).
"""

from .poisson import PoissonPropagation

__all__ = ["PoissonPropagation"]
