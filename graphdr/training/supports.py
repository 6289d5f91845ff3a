"""What an estimator takes, declared once per class instead of guessed from its parameters.

Each estimator class sets ``_supports = Supports(...)``; the shared machinery reads the flags
(:mod:`graphdr.graph_embedding.estimator`, :mod:`graphdr.semi.choice`, :mod:`graphdr.neighbor_embedding`,
:mod:`graphdr.maps`). A flag that follows from a parameter is checked against the class's
parameters by ``tests/test_architecture.py``; what depends on a parameter's value (whether a
``GraphEmbedding`` uses labels at all, whether QMI's ``solver='paper'`` takes a ridge) stays a
method of the estimator.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Supports:
    """Capabilities of an estimator class.

    Attributes
    ----------
    unlabelled_rows : bool
        ``y = -1`` marks unlabelled rows that the fit uses (else a labelled fit refuses them).
    unlabelled_choice : bool
        An ``unlabelled`` parameter: the labelled rows alone, the propagated classes, the
        smoothness term, or the choice among them (:func:`graphdr.semi.choice.prepare_unlabelled`).
    smoothing : bool
        A ``smoothing`` parameter: the smoothness term over every row's kNN graph.
    scaling : bool
        A ``scaling`` parameter (:data:`graphdr.graph_embedding.routes.SCALINGS`).
    ridge : bool
        A ``reg`` parameter that enters the solved problem.
    neighbour_search : bool
        A ``neighbors`` parameter choosing the exact or the approximate search.
    prepared : bool
        ``fit`` takes a :class:`~graphdr.training.prepared.PreparedInput` for ``X`` (the rows
        validated once for the fits of a partially labelled fit).
    label_audit : bool
        A ``labels`` parameter: the labels as given, or audited by :class:`graphdr.LabelIssues`
        first (:func:`graphdr.training.label_audit.audit_labels`).
    """

    unlabelled_rows: bool = False
    unlabelled_choice: bool = False
    smoothing: bool = False
    scaling: bool = False
    ridge: bool = False
    neighbour_search: bool = False
    prepared: bool = False
    label_audit: bool = False

    #: each flag that says a parameter exists, and that parameter
    PARAMETERS = {"unlabelled_choice": "unlabelled", "smoothing": "smoothing",
                  "scaling": "scaling", "neighbour_search": "neighbors", "label_audit": "labels"}


def supports_of(estimator):
    """What ``estimator``'s class declares it takes (:class:`Supports`; nothing declared,
    ``Supports()``): the one reader of the declaration that the shared machinery calls."""
    return getattr(type(estimator), "_supports", _NOTHING)


_NOTHING = Supports()
