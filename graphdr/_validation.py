"""Input checks shared by every graphdr estimator.

Each check raises a ``ValueError`` whose message says what is wrong and what is allowed.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.multiclass import check_classification_targets


def output_dtype(*arrays):
    """float32 when every input is float32 (computations run in float64, outputs are cast
    back), else float64."""
    return (np.float32 if all(getattr(X, "dtype", None) == np.float32 for X in arrays)
            else np.float64)


def check_not_constant(X, method, task="embed"):
    """Refuse data whose samples are all the same point (every feature constant: no
    direction, neighbour or width to find; ``task``: what ``method`` cannot do with them).
    Exact: a rounded mean's residues do not count."""
    if X.shape[0] == 0:
        return
    if hasattr(X, "tocsc"):  # sparse
        spread = (X.max(axis=0) - X.min(axis=0)).toarray().ravel()
    else:
        spread = np.ptp(X, axis=0)
    if not np.any(spread > 0):
        raise ValueError(f"{method} cannot {task} constant data: every sample is the same point "
                         "(every feature has zero variance).")


def check_labels(y, *, min_classes=2, min_per_class=1, method="This method",
                 unlabelled="refuse"):
    """Encode class labels of any type and check there are enough of them.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels: integers, strings or any other hashable, sortable type.
    min_classes : int
        Fewest distinct classes the method can work with.
    min_per_class : int
        Fewest samples every class must have.
    method : str
        Name used in error messages.
    unlabelled : {'refuse', 'class', 'allow'}
        ``'refuse'``: ``y = -1`` marks unlabelled samples (scikit-learn's semi-supervised
        convention) and a labelled fit refuses them; ``'class'``: -1 is a class like any
        other (the classifiers, as scikit-learn's classifiers take labels -1 and 1);
        ``'allow'``: unlabelled samples are kept, encoded as -1, and never a class (the
        semi-supervised estimators, :data:`SEMI_SUPERVISED`); the checks on classes count the
        labelled samples only.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The sorted distinct labels.
    y_encoded : ndarray of shape (n_samples,), dtype int
        Index of each sample's class in ``classes`` (-1 for an unlabelled sample).
    class_sizes : ndarray of shape (n_classes,), dtype int
        Number of (labelled) samples per class.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(
            f"{method} expects y as a 1-D array of class labels; got an array of shape {y.shape}."
        )
    if unlabelled == "allow":
        return _encode_partial(y, min_classes, min_per_class, method)
    if min_classes >= 2 and unlabelled == "refuse":
        _refuse_unlabelled(y, method)
    encoded = _encode_small_integers(y)
    if encoded is None and y.dtype.kind == "O":
        y = _one_label_type(y, method, min_classes)
    if encoded is None:
        check_classification_targets(y)
        classes, y_encoded, class_sizes = np.unique(y, return_inverse=True, return_counts=True)
    else:
        classes, y_encoded, class_sizes = encoded
    if len(classes) < min_classes:
        raise ValueError(
            f"{method} needs at least {min_classes} classes in y; got {len(classes)} "
            f"(labels: {classes.tolist()[:5]}). Supervised dimensionality reduction "
            "cannot separate a single class."
        )
    if min_per_class > 1 and class_sizes.min() < min_per_class:
        small = classes[class_sizes < min_per_class].tolist()[:5]
        raise ValueError(
            f"{method} needs at least {min_per_class} samples in every class; classes "
            f"{small} have fewer ({class_sizes.min()} at the least)."
        )
    return classes, y_encoded.ravel().astype(np.intp), class_sizes


#: the estimators that fit partially labelled data (``y = -1`` for an unlabelled sample)
SEMI_SUPERVISED = ("LDA", "KernelLDA", "LQMI", "KQMI", "MFA", "LDE", "LFDA", "SemiLFDA",
                   "DEE", "DSNE", "DEEMap", "PoissonPropagation", "LabelIssues")


def _encode_partial(y, min_classes, min_per_class, method):
    """:func:`check_labels` of partially labelled ``y``: the labelled samples are encoded, the
    unlabelled ones get -1."""
    unlabelled = unlabelled_mask(y)
    n_unlabelled = int(unlabelled.sum())
    if n_unlabelled == y.size:
        raise ValueError(
            f"{method}: every one of the {y.size} samples is labelled -1 (unlabelled); a "
            "semi-supervised fit needs labelled samples of at least "
            f"{max(min_classes, 2)} classes.")
    labelled = y[~unlabelled]
    try:
        classes, enc, sizes = check_labels(labelled, min_classes=min_classes,
                                           min_per_class=min_per_class, method=method,
                                           unlabelled="class")
    except ValueError as exc:
        if n_unlabelled:
            raise ValueError(f"{exc} ({n_unlabelled} more samples are unlabelled, y = -1; the "
                             "classes are counted among the labelled ones.)"
                             f"{_minus_one_hint(y, unlabelled)}") from None
        raise
    y_encoded = np.full(y.shape[0], -1, dtype=np.intp)
    y_encoded[~unlabelled] = enc
    return classes, y_encoded, sizes


#: the largest dense copy of a sparse X that a partially labelled linear fit makes (bytes)
MAX_DENSE_SEMI_BYTES = 2 << 30


def dense_for_semi_supervised(X, method):
    """A partially labelled linear fit of sparse ``X`` (its neighbour graph and smoothness
    form run on dense rows): ``X`` as a dense array, or a ``ValueError`` past
    :data:`MAX_DENSE_SEMI_BYTES`."""
    size = X.shape[0] * X.shape[1] * 8
    if size > MAX_DENSE_SEMI_BYTES:
        raise ValueError(
            f"{method} with unlabelled samples (y = -1) works on dense rows, and this sparse X "
            f"({X.shape[0]} x {X.shape[1]}) would take {size / 2**30:.1f} GiB dense (at most "
            f"{MAX_DENSE_SEMI_BYTES / 2**30:.0f} GiB); reduce the features first (e.g. "
            "TruncatedSVD), or fit the labelled rows only.")
    return X.toarray()


def has_unlabelled(y_encoded):
    """Whether encoded labels (:func:`check_labels` with ``unlabelled='allow'``) hold an
    unlabelled sample."""
    return y_encoded is not None and y_encoded.size > 0 and int(y_encoded.min()) < 0


def unlabelled_mask(y):
    """Which samples are unlabelled under scikit-learn's semi-supervised convention: ``-1``
    (an integer or float -1, or the text ``'-1'`` among text labels)."""
    y = np.asarray(y)
    if y.dtype.kind in "iuf":
        return y == -1
    if y.dtype.kind in "US":
        return np.char.strip(y.astype(str)) == "-1"
    if y.dtype.kind == "O":
        return np.fromiter(((isinstance(v, numbers.Real) and not isinstance(v, bool) and v == -1)
                            or (isinstance(v, str) and v.strip() == "-1") for v in y.ravel()),
                           dtype=bool, count=y.size).reshape(y.shape)
    return np.zeros(y.shape, dtype=bool)


def _minus_one_hint(y, unlabelled):
    """A hint for labels -1 and one other class (-1 meant as a class)."""
    if unlabelled.all():
        return ""
    others = np.unique(np.asarray(y)[~unlabelled].astype(str))
    if len(others) != 1:
        return ""
    return (f" If -1 is one of your classes (labels -1 and {others[0]}), relabel it, e.g. "
            "y = (y + 1) // 2.")


def _refuse_unlabelled(y, method):
    """A labelled fit given ``y = -1`` (unlabelled samples): a ValueError, never a class."""
    unlabelled = unlabelled_mask(y)
    k = int(unlabelled.sum())
    if k == 0:
        return
    hint = _minus_one_hint(y, unlabelled)
    raise ValueError(
        f"{method}: y = -1 marks an unlabelled sample (scikit-learn's semi-supervised "
        f"convention), and {k} of {y.size} samples are unlabelled; {method} needs every "
        f"sample labelled: fit the labelled rows, X[y != -1] and y[y != -1], or use an "
        f"estimator that fits unlabelled samples ({', '.join(SEMI_SUPERVISED)}).{hint}")


def _one_label_type(y, method, min_classes):
    """Object labels of one kind (text, or numbers); labels that mix them are refused by a
    method that uses them, and read as text by one that only orients its signs by them."""
    kinds = {"text" if isinstance(v, str) else "number" if isinstance(v, numbers.Number)
             else type(v).__name__ for v in y}
    if len(kinds) < 2:
        return y
    if min_classes < 2:
        return y.astype(str)
    examples = {}
    for v in y:
        examples.setdefault("text" if isinstance(v, str) else type(v).__name__, v)
    shown = ", ".join(f"{v!r} ({k})" for k, v in list(examples.items())[:3])
    raise ValueError(f"{method}: y mixes label types ({shown}); give labels of one type, e.g. "
                     "y.astype(str).")


def check_label_values(y, method):
    """Refuse labels that are missing (NaN, None) or empty text before anything else reads
    them, with the -1 convention for unlabelled samples in the message."""
    if y is None:
        return
    y = np.asarray(y)
    if y.ndim != 1 or y.dtype.kind not in "fOUS":
        return
    if y.dtype.kind == "f":
        missing = np.isnan(y)
    elif y.dtype.kind == "O":
        missing = np.fromiter((_missing_value(v) for v in y), dtype=bool, count=y.size)
    else:
        missing = np.zeros(y.size, dtype=bool)
    if y.dtype.kind in "OUS":
        empty = np.fromiter((isinstance(v, (str, bytes)) and not v.strip() for v in y.tolist()),
                            dtype=bool, count=y.size)
    else:
        empty = np.zeros(y.size, dtype=bool)
    if not (missing.any() or empty.any()):
        return
    what, bad = ("missing labels (NaN or None)", missing) if missing.any() else \
        ("empty labels ('')", empty)
    takes = (f"{method} fits them with y = -1 (scikit-learn's convention for an unlabelled "
             "sample): y = np.where(pd.isna(y) | (y == ''), -1, y)"
             if method in SEMI_SUPERVISED else
             f"{method} does not take unlabelled samples: drop those rows (an unsupervised "
             "fit may leave y out), or use an estimator that fits y = -1 for an unlabelled "
             f"sample ({', '.join(SEMI_SUPERVISED)})")
    raise ValueError(f"{method}: y has {int(bad.sum())} {what}, the first at sample "
                     f"{int(np.flatnonzero(bad)[0])}; {takes}.")


def _missing_value(v):
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN, NaT
    except (TypeError, ValueError):
        return True  # pandas.NA: its comparisons are NA


def _encode_small_integers(y):
    """``np.unique(y, return_inverse=True, return_counts=True)`` by counting, for integer
    labels of a small range (no sort), else None.

    A 1-D integer array is always a valid classification target ('binary' or 'multiclass'),
    so scikit-learn's target check has nothing to reject.
    """
    if y.size == 0 or not (y.dtype.kind == "i" or (y.dtype.kind == "u" and y.dtype.itemsize < 8)):
        return None
    lo, hi = int(y.min()), int(y.max())
    if hi - lo > 4 * y.size + 1024:
        return None
    counts = np.bincount(y.astype(np.intp) - lo, minlength=hi - lo + 1)
    present = np.flatnonzero(counts)
    lookup = np.zeros(counts.shape[0], dtype=np.intp)
    lookup[present] = np.arange(present.shape[0])
    return (present + lo).astype(y.dtype), lookup[y.astype(np.intp) - lo], counts[present]


def check_n_components(n_components, max_components, *, reason, param="n_components"):
    """Resolve ``n_components`` against the largest meaningful value.

    ``None`` means ``max_components``. A larger request is an error, never silently truncated.
    """
    if max_components < 1:
        raise ValueError(
            f"No meaningful component can be computed: {reason} gives at most {max_components}."
        )
    if n_components is None:
        return int(max_components)
    if not isinstance(n_components, numbers.Integral) or isinstance(n_components, bool):
        raise ValueError(
            f"{param} must be a positive integer or None; got {n_components!r}."
        )
    if n_components < 1:
        raise ValueError(f"{param} must be at least 1; got {n_components}.")
    if n_components > max_components:
        raise ValueError(
            f"{param}={n_components} is too large: at most {max_components} components "
            f"are meaningful here ({reason})."
        )
    return int(n_components)


def check_positive(value, name, *, allow_zero=False, allow_none=False):
    """Check that a real hyper-parameter is positive (or non-negative)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def check_option(value, name, allowed):
    """Check that a string option is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}; got {value!r}.")
    return value


def check_int(value, name, *, min_value=1):
    """Check that an integer hyper-parameter is at least ``min_value``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < min_value:
        raise ValueError(f"{name} must be an integer >= {min_value}; got {value!r}.")
    return int(value)


# -- hyper-parameters: one declarative table -----------------------------------------------------

def _boolean(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}.")


def _tolerance(value, name):
    check_positive(value, name, allow_zero=True, allow_none=True)


def _nonnegative(value, name):
    check_positive(value, name, allow_zero=True)


def _iterations(value, name):
    check_int(value, name, min_value=0)


def _verbosity(value, name):
    if not isinstance(value, (bool, np.bool_)):
        check_int(value, name, min_value=0)


def _count(min_value):
    def rule(value, name):
        check_int(value, name, min_value=min_value)
    return rule


def _optional_count(min_value):
    def rule(value, name):
        if value is not None:
            check_int(value, name, min_value=min_value)
    return rule


def _positive(value, name):
    check_positive(value, name)


def _optional_positive(value, name):
    check_positive(value, name, allow_none=True)


def _n_components(value, name):
    if value is not None:
        check_int(value, name, min_value=1)


def _random_state(value, name):
    if value is None or isinstance(value, (np.random.RandomState, np.random.Generator)):
        return
    if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
            or not 0 <= value < 2**32):
        raise ValueError(f"{name} must be None, an integer in [0, 2**32) or a NumPy random "
                         f"generator; got {value!r}.")


def _n_jobs(value, name):
    if value is not None and (not isinstance(value, numbers.Integral) or isinstance(value, bool)
                              or value == 0):
        raise ValueError(f"{name} must be None or a nonzero integer (-1: all cores); got "
                         f"{value!r}.")


def _callback(value, name):
    if value is not None and not callable(value):
        raise ValueError(f"{name} must be None or a callable; got {value!r}.")


def _auto_or_nonnegative(value, name):
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be 'auto' or a finite number >= 0; got {value!r}.")
        return
    check_positive(value, name, allow_zero=True)


def _auto_or_positive(value, name):
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be 'auto' or a finite number > 0; got {value!r}.")
        return
    check_positive(value, name)


def _finite(value, name):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}.")


def _kernel_params(value, name):
    if value is not None and not (isinstance(value, dict)
                                  and all(isinstance(k, str) for k in value)):
        raise ValueError(f"{name} must be None or a dict of keyword arguments of the kernel "
                         f"(e.g. {{'gamma': 0.1}}); got {value!r}.")


def _edge_weights(value, name):
    check_option(value, name, ("binary", "heat"))


def _unlabelled_use(value, name):
    check_option(value, name, ("auto", "ignore", "smooth", "propagate"))


#: values of the ``labels`` parameter: the labels as given, or audited first
#: (:func:`graphdr.training.label_audit.audit_labels`)
LABEL_USES = ("given", "flag", "audit")


def _label_use(value, name):
    check_option(value, name, LABEL_USES)


#: Rules of the hyper-parameters whose name means the same thing in every estimator: checked
#: at the start of every ``fit`` (:func:`checked_parameters`), whether or not the current
#: settings use the value. An estimator adds or overrides rules in its class attribute
#: ``_parameter_rules`` (a name mapped to None drops the shared rule).
SHARED_RULES = {
    "rank_tol": _tolerance,      # None, or a finite number >= 0
    "supervised": _boolean,
    "max_iter": _iterations,     # an integer >= 0 (0: the start, no step)
    "verbose": _verbosity,       # True/False or an integer >= 0
    "tol": _nonnegative,         # a finite number >= 0
    "n_components": _n_components,   # None or an integer >= 1 (the maximum is checked in fit)
    "random_state": _random_state,
    "n_jobs": _n_jobs,
    "callback": _callback,
    "n_landmarks": _count(2),    # checked even when the kernel is exact
    "n_neighbors": _count(1),
    "n_neighbors_between": _count(1),
    "n_neighbors_penalty": _count(1),
    "n_neighbors_intra": _count(1),
    "smoothing": _auto_or_nonnegative,  # the semi-supervised term's weight
    "smoothing_neighbors": _count(1),
    "n_neighbors_unlabelled": _count(1),
    "n_neighbors_inter": _count(1),
    "max_neighbors": _count(1),
    "n_partners": _count(1),
    "n_estimators": _count(1),
    "degree": _count(1),
    "block_size": _optional_count(1),
    "cv": _optional_count(2),
    "sigma": _optional_positive,  # None (from the data) or a width > 0
    "lam": _positive,
    "lam_same": _nonnegative,
    "placement_width": _auto_or_positive,  # DEEMap's transform: 'auto' or a width > 0
    "step_size": _positive,
    "coef0": _finite,
    "null_tol": _nonnegative,
    "kernel_params": _kernel_params,  # None or keyword arguments of the kernel
    "weights": _edge_weights,  # the kNN graphs' edge weights
    "unlabelled": _unlabelled_use,  # how a semi-supervised fit uses the samples labelled -1
    "labels": _label_use,  # the labels as given, or audited (graphdr.LabelIssues) first
}


def fraction_rule(auto=False):
    """The rule of a hyper-parameter that is a number in [0, 1] (or, with ``auto``, 'auto')."""
    def rule(value, name):
        if auto and isinstance(value, str) and value == "auto":
            return
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number))
                or not 0.0 <= float(value) <= 1.0):
            allowed = "'auto' or a number in [0, 1]" if auto else "a number in [0, 1]"
            raise ValueError(f"{name} must be {allowed}; got {value!r}.")
    return rule


def iterations_rule(auto=False):
    """The rule of an iteration count: an integer >= 0 (or, with ``auto``, 'auto')."""
    def rule(value, name):
        if not (auto and isinstance(value, str) and value == "auto"):
            _iterations(value, name)
    return rule


def optional_positive_rule():
    """The rule of a hyper-parameter that is None or a number > 0 (for ``_parameter_rules``)."""
    return _optional_positive


def boolean_rule():
    """The rule of a True/False hyper-parameter (for ``_parameter_rules``)."""
    return _boolean


def check_parameters(estimator):
    """Check every hyper-parameter of ``estimator`` that has a rule (:data:`SHARED_RULES`,
    then the class's ``_parameter_rules``); a ``ValueError`` names the first one broken."""
    rules = {**SHARED_RULES, **getattr(type(estimator), "_parameter_rules", {})}
    for name, value in estimator.get_params(deep=False).items():
        rule = rules.get(name)
        if rule is not None:
            rule(value, name)


def checked_parameters(fit):
    """Decorate a public ``fit``/``fit_transform``: :func:`check_parameters` first."""
    import functools

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        check_parameters(self)
        return fit(self, *args, **kwargs)

    wrapper.checked_parameters = True
    return wrapper
