"""The training set and what every family shares about it, one module per concern:

* :mod:`~graphdr.training.prepared` -- :class:`~graphdr.training.prepared.PreparedInput`, the
  rows of a fit validated, scaled and keyed by content once, sliced (its labelled rows, a fold,
  a subset) with its keys;
* :mod:`~graphdr.training.label_audit` -- the labels a fit goes on with (its ``labels``
  parameter: as given, or checked by :class:`graphdr.LabelIssues`);
* :mod:`~graphdr.training.selected` -- a choice made from the data, as a value
  (:class:`~graphdr.training.selected.Selected`);
* :mod:`~graphdr.training.supports` -- what an estimator takes, declared once per class.

Every estimator family (graph embedding, QMI, multiple kernels, neighbour embedding, the map)
builds on it; it knows no estimator. This package exports nothing itself.
"""
