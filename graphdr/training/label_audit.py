"""The labels a fit goes on with, by its ``labels`` parameter: as given, or checked by
:class:`graphdr.LabelIssues` (``'flag'``: the suspects found, ``label_issues_``; ``'audit'``:
their labels set aside as unlabelled), and the refusals that follow from what the audit set
aside, said in those words (:func:`graphdr.semi.choice.prepare_unlabelled` runs it first)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .._validation import check_labels, dense_for_semi_supervised
from .prepared import PreparedInput
from .selected import Selected
from .supports import supports_of

__all__ = ["audit_labels", "audited_fit_labels"]


#: the ``labels`` entry of the estimators that audit their labels (``%(labels)s``, within
#: :data:`SMOOTHING_DOC`)
LABELS_DOC = """    labels : {'given', 'flag', 'audit'}, default='given'
        Whether to trust the labels. 'given': as they are. 'flag': as they are, and the
        samples whose label the data contradicts found first (:class:`graphdr.LabelIssues`;
        ``label_issues_`` is that audit: ``is_issue_``, ``label_quality_``,
        ``suggested_label_``). 'audit': those samples fitted as unlabelled (-1), so that a few
        wrong labels do not bend the fit (``unlabelled`` says how they are used). See
        :ref:`label_issues` for when 'audit' helps."""


def audit_labels(est, X, y, requirements=None):
    """``(y, selected)``: the labels a fit goes on with, by the estimator's ``labels``
    parameter (:data:`graphdr._validation.LABEL_USES`). 'given': ``y`` itself. 'flag': ``y``
    itself, and the samples whose label the data contradicts found by
    :class:`graphdr.LabelIssues` on ``X`` (its fitted audit is ``label_issues_``). 'audit':
    those samples' labels set to -1 (unlabelled), so that the partially labelled fit
    (``unlabelled``) does not follow them; ``requirements``: what the labels it keeps must
    satisfy (:func:`graphdr._validation.check_labels`'s keywords), or None. ``selected`` sets
    ``label_issues_`` (None for 'given')."""
    use = getattr(est, "labels", "given") if supports_of(est).label_audit else "given"
    if use == "given" or y is None:  # (a Dask fit refuses an audit first: lazy_unlabelled)
        return y, Selected({"label_issues_": None})
    name = type(est).__name__
    if getattr(est, "kernel", None) == "precomputed":
        raise ValueError(f"{name}: labels={use!r} needs the samples' features (the audit's "
                         "neighbour graph), not kernel='precomputed'.")
    from ..audit import LabelIssues  # (imported when asked for)

    features = X.X if isinstance(X, PreparedInput) else X
    if sp.issparse(features):
        features = dense_for_semi_supervised(check_array(features, accept_sparse="csr"), name)
    elif isinstance(X, PreparedInput):  # the rows validated once: not validated, keyed again
        features = X
    audit = LabelIssues(neighbors=getattr(est, "neighbors", "auto"),
                        random_state=getattr(est, "random_state", None)).fit(features, y)
    if use == "audit" and audit.is_issue_.any():
        given = y
        y = np.asarray(y)
        y = y.astype(object) if y.dtype.kind in "US" else y.copy()
        y[audit.is_issue_] = "-1" if audit.classes_.dtype.kind in "USO" else -1
        _check_audited_labels(type(est).__name__, requirements, given, y, audit)
    return y, Selected({"label_issues_": audit})


def _audit_aside(audit):
    """What ``labels='audit'`` did, in words (for the refusals that follow from it)."""
    flagged = int(audit.is_issue_.sum())
    total = int(np.count_nonzero(~np.isnan(audit.label_quality_)))
    return (f"labels='audit' made {flagged} of the {total} labelled samples unlabelled, those "
            "graphdr.LabelIssues flags")


def _check_audited_labels(name, requirements, given, audited, audit):
    """A ``ValueError`` saying so when the labels the audit keeps no longer meet the needs
    (``requirements``: classes, samples per class) of the estimator ``name`` that the labels as
    given meet."""
    if requirements is None:
        return
    needs = {**requirements, "unlabelled": "allow"}
    try:
        check_labels(audited, **needs)
    except ValueError:
        pass
    else:
        return
    try:
        check_labels(given, **needs)
    except ValueError:  # (refused as given too: the fit says why in its own words)
        return
    classes, sizes = audit.classes_, np.zeros(len(audit.classes_), dtype=np.intp)
    kept = ~audit.is_issue_ & ~np.isnan(audit.label_quality_)
    codes = np.searchsorted(classes, np.asarray(given, dtype=classes.dtype)[kept])
    np.add.at(sizes, codes, 1)
    short = np.flatnonzero(sizes < needs["min_per_class"])
    left = ", ".join(f"class {classes[c]!s} with {int(sizes[c])} labelled "
                     f"sample{'s' if sizes[c] != 1 else ''}" for c in short[:5])
    raise ValueError(
        f"{name}: {_audit_aside(audit)}, which leaves {left}; {name} needs at least "
        f"{needs['min_per_class']} labelled samples in every class. Pass labels='flag' to fit "
        "the labels as given and see the suspects (label_issues_), or check the flagged "
        "labels.")


def _after_audit(est, audit, error):
    """``error`` (a refusal of the audited labels) with what the audit did appended."""
    return ValueError(f"{error} After the audit: {_audit_aside(audit)}; the classes above are "
                      "counted among the labels it kept (labels='flag' fits the labels as "
                      "given).")


def _flagging_audit(est, audited=None):
    """The audit (``audited``, :class:`~graphdr.training.selected.Selected`) of a
    ``labels='audit'`` fit that set labels aside, else None."""
    if getattr(est, "labels", "given") != "audit" or audited is None:
        return None
    audit = audited.values.get("label_issues_")
    return audit if audit is not None and audit.is_issue_.any() else None


def audited_fit_labels(est, X, y, y_enc):
    """:func:`audit_labels` for a fit that audits before it prepares its rows (DEEMap):
    ``(y, y_enc, audited)``, the labels with the flagged samples -1 for ``labels='audit'``,
    and the audit (``label_issues_``, :class:`~graphdr.training.selected.Selected`), which
    the fit writes."""
    y, audited = audit_labels(est, X, y)
    audit = audited.values["label_issues_"]
    if est.labels == "audit" and audit is not None:
        y_enc = np.where(audit.is_issue_, -1, y_enc)
    return y, y_enc, audited
