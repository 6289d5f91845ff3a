"""Auditing labels: the samples whose given label the data contradicts.

* :mod:`graphdr.audit.probabilities` -- out-of-sample class probabilities (neighbours,
  discriminant, logistic) and their stacking;
* :mod:`graphdr.audit.confident` -- the rule of confident learning on those probabilities;
* :mod:`graphdr.audit.label_issues` -- :class:`LabelIssues`, the estimator.
"""

from .label_issues import LabelIssues

__all__ = ["LabelIssues"]
