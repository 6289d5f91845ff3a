r"""Partially labelled data: labels propagated over the data's own neighbour graph.

* :mod:`graphdr.semi.propagation` -- the self-tuned kNN graph of all rows and Poisson learning
  on it (:func:`~graphdr.semi.propagation.propagate`), a building block;
* :mod:`graphdr.semi.poisson` -- :class:`PoissonPropagation`, the same as a scikit-learn
  semi-supervised classifier.

How the estimators use the unlabelled rows of ``y = -1`` (the propagated classes, a smoothness
term, or the choice between them) is estimator machinery: :mod:`graphdr.base.semi`.
"""

from .poisson import PoissonPropagation

__all__ = ["PoissonPropagation"]
