"""One cell of the sweep: fit a method on a training fold, classify the test fold per dimension.

The pieces are small pure functions so that joblib can run cells in worker processes:
:func:`make_scaler`, :func:`make_classifier`, :func:`run_cell` (cross-validated errors) and
:func:`run_embedding` (the 2-D picture of a method on the whole data set).
"""

from __future__ import annotations

import time
import warnings
import zlib

import numpy as np

from .methods import LABELLED_ONLY, get_method, parse_method
from .protocols import DEFAULT_DIM

__all__ = ["CLASSIFIERS", "make_classifier", "make_scaler", "run_cell", "run_embedding",
           "cell_seed", "labelled_rows", "LABELLED_ONLY"]

#: classifier name -> description (see :func:`make_classifier`)
CLASSIFIERS = {
    "ncc": "nearest class centroid",
    "1nn": "1-nearest neighbour",
    "3nn": "3-nearest neighbours",
    "linear-svm": "linear SVM, C=100",
    "rbf-svm": "RBF SVM, C=100",
    "own": "the method's own classifier",
}


def check_classifier(name):
    key = str(name).strip().lower()
    if key not in CLASSIFIERS or key == "own":
        known = ", ".join(c for c in CLASSIFIERS if c != "own")
        raise ValueError(f"Unknown classifier {name!r}. Known classifiers: {known}.")
    return key


def make_classifier(name, svm_gamma=0.5):
    """Build the classifier ``name`` (one of :data:`CLASSIFIERS`)."""
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
    from sklearn.svm import SVC

    key = check_classifier(name)
    if key == "ncc":
        return NearestCentroid()
    if key == "1nn":
        return KNeighborsClassifier(n_neighbors=1)
    if key == "3nn":
        return KNeighborsClassifier(n_neighbors=3)
    if key == "linear-svm":
        return SVC(kernel="linear", C=100.0, max_iter=1_000_000)
    return SVC(kernel="rbf", C=100.0, gamma=svm_gamma)


def make_scaler(scaling):
    """Scaling fitted on the training fold: 'minmax' [-1,1], 'minmax01', 'standard', 'none'."""
    from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, StandardScaler

    if scaling == "minmax":
        return MinMaxScaler(feature_range=(-1, 1))
    if scaling == "minmax01":
        return MinMaxScaler(feature_range=(0, 1))
    if scaling == "standard":
        return StandardScaler()
    if scaling == "none":
        return FunctionTransformer()
    raise ValueError(f"Unknown scaling {scaling!r}; use minmax, minmax01, standard or none.")


def cell_seed(seed, dataset, method, fold):
    """The ``random_state`` of a cell: fixed by --seed, the data set and the fold.

    It does not depend on the method, so every method of a fold gets the same random numbers
    (paper 002 starts all its criteria from the same random initialisations), nor on --n-jobs
    or the order in which cells run. ``method`` is accepted for API stability and ignored.
    """
    key = f"{dataset}|{fold}".encode()
    return int(np.random.SeedSequence([int(seed), zlib.crc32(key)]).generate_state(1)[0] % (2**31))


def result_name(task):
    """The method column of a task's rows: its id, with :data:`LABELLED_ONLY` for a fit on the
    labelled rows only."""
    return task["method"] + (LABELLED_ONLY if task.get("label_mode") == "labelled" else "")


def labelled_rows(y, fraction, seed):
    """Which training rows keep their label under ``--label-fraction``: in each class the
    ``max(1, round(fraction * n_c))`` rows drawn by a generator seeded with ``seed`` (one per
    data set and fold, the same for every method). Returns a boolean mask."""
    rng = np.random.default_rng(seed)
    keep = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        k = min(len(members), max(1, int(round(fraction * len(members)))))
        keep[rng.choice(members, k, replace=False)] = True
    return keep


def _split_view(params, views, X):
    """Handle the bench-level method parameter ``view=k``: restrict to one view's columns."""
    params = dict(params)
    view = params.pop("view", None)
    if view is None:
        return params, X, views
    if not views:
        raise ValueError("The method parameter view=k needs multi-view data (view_* arrays).")
    if not (isinstance(view, int) and 0 <= view < len(views)):
        raise ValueError(f"view must be an integer in 0..{len(views) - 1}; got {view!r}.")
    return params, X[:, views[view]], None


def _method(task):
    """(id, spec, params) of a task; the spec travels with the task, so methods registered at
    run time (not at import) also work in worker processes."""
    ident, spec, params = parse_method(task["method"], check_available=False,
                                       spec=task.get("spec"))
    return ident, spec, params


class _Views:
    """Feed multi-view methods the list of views; single-view methods the matrix."""

    def __init__(self, spec, views):
        if spec.kind == "multiview" and not views:
            raise ValueError(
                f"Method {spec.name!r} needs multi-view data (.npz with view_* arrays)."
            )
        self.views = views if spec.kind == "multiview" else None

    def __call__(self, X):
        return X if self.views is None else [X[:, s] for s in self.views]


def _fit(spec, params, k, X, y, *, gamma, seed, views, projection=None):
    """Fit a method; return (estimator, embedding of X, fit seconds, view feeder)."""
    feed = _Views(spec, views)

    def fit(n_components):
        est = spec.build(n_components, params=params, gamma=gamma, random_state=seed,
                         projection=projection)
        t0 = time.perf_counter()
        if not spec.transform:
            Z = est.fit_transform(X)
            return est, Z, time.perf_counter() - t0
        est.fit(feed(X), y)
        seconds = time.perf_counter() - t0
        return est, est.transform(feed(X)), seconds

    try:
        est, Z, seconds = fit(k)
    except ValueError as exc:
        # a rank-deficient fold can allow fewer components than asked: take what there is
        if not (spec.nested and "n_components" in str(exc)):
            raise
        est, Z, seconds = fit(None)
    return est, Z, seconds, feed


def _iterations(est):
    """``(n_iter, converged)`` of an iterative fit, each "" where the estimator has none."""
    n_iter = getattr(est, "n_iter_", None)
    converged = getattr(est, "converged_", None)
    return (int(n_iter) if isinstance(n_iter, (int, np.integer)) else "",
            bool(converged) if isinstance(converged, (bool, np.bool_)) else "")


def run_cell(task):
    """Cross-validation cell: one data set, one method, one fold, every dimension and classifier.

    ``task`` is a dict with keys dataset, method (canonical id), X, y, views, train, test,
    dims, classifiers, scaling, gamma, svm_gamma, seed, fold, and optionally projection (the
    protocol's ``scaling`` of the estimators). Returns ``(key, rows)``; the
    rows are dicts of the columns of ``results.csv``.
    """
    ident, spec, params = _method(task)
    X, y = task["X"], task["y"]
    params, X, views = _split_view(params, task.get("views"), X)
    train, test = task["train"], task["test"]
    scaler = make_scaler(task["scaling"]).fit(X[train])
    Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
    ytr, yte = y[train], y[test]
    seed = cell_seed(task["seed"], task["dataset"], ident, task["fold"])
    dims = list(task["dims"])
    # --label-fraction: fit on every training row with -1 for the hidden labels, or on the
    # labelled rows only; the classifiers learn from the labelled rows' embedding
    fraction, fit_rows, y_fit, keep = task.get("label_fraction"), slice(None), ytr, None
    if fraction is not None:
        keep = labelled_rows(ytr, fraction, seed)
        if task.get("label_mode") == "labelled":
            fit_rows = keep
        else:
            y_fit = np.where(keep, ytr, -1)
        y_fit = y_fit[fit_rows]
    Xfit = Xtr[fit_rows]
    embeddings = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        try:
            from sklearn.exceptions import ConvergenceWarning

            warnings.simplefilter("ignore", category=ConvergenceWarning)
        except ImportError:  # pragma: no cover
            pass
        if spec.predicts:
            return (task["dataset"], result_name(task), int(task["fold"])), _run_predictor(
                task, spec, params, result_name(task), Xfit, Xte, y_fit, yte, dims, seed, views)
        if spec.one_dimension:  # the raw features: one dimension, their own
            dims = [DEFAULT_DIM]
        if dims == [DEFAULT_DIM]:  # the estimator's own n_components
            est, Ztr, seconds, feed = _fit(spec, params, DEFAULT_DIM, Xfit, y_fit,
                                           gamma=task["gamma"], seed=seed, views=views,
                                           projection=task.get("projection"))
            embeddings[Ztr.shape[1]] = (Ztr, est.transform(feed(Xte)), seconds,
                                        _iterations(est))
        elif spec.nested:
            est, Ztr, seconds, feed = _fit(spec, params, max(dims), Xfit, y_fit,
                                           gamma=task["gamma"], seed=seed, views=views,
                                           projection=task.get("projection"))
            Zte = est.transform(feed(Xte))
            for d in dims:
                if d <= Ztr.shape[1]:
                    embeddings[d] = (Ztr[:, :d], Zte[:, :d], seconds, _iterations(est))
        else:
            for d in dims:
                est, Ztr, seconds, feed = _fit(spec, params, d, Xfit, y_fit, gamma=task["gamma"],
                                               seed=seed, views=views,
                                               projection=task.get("projection"))
                embeddings[d] = (Ztr[:, :d], est.transform(feed(Xte))[:, :d], seconds,
                                 _iterations(est))
        if keep is not None:  # the classifiers see the labelled training rows only
            kept = y_fit >= 0
            embeddings = {d: (Ztr[kept], Zte, *rest) for d, (Ztr, Zte, *rest) in
                          embeddings.items()}
            ytr = y_fit[kept]
        ident = result_name(task)
        rows = []
        for d, (Ztr, Zte, seconds, (n_iter, converged)) in embeddings.items():
            if not (np.all(np.isfinite(Ztr)) and np.all(np.isfinite(Zte))):
                raise FloatingPointError(
                    f"{ident} gave a non-finite embedding on {task['dataset']} fold {task['fold']}"
                )
            for clf_name in task["classifiers"]:
                clf = make_classifier(clf_name, task["svm_gamma"]).fit(Ztr, ytr)
                n_err = int(np.sum(clf.predict(Zte) != yte))
                rows.append(dict(
                    dataset=task["dataset"], method=ident, classifier=clf_name,
                    fold=int(task["fold"]), dim=int(d), n_test=int(len(yte)), n_errors=n_err,
                    error=n_err / len(yte), fit_seconds=seconds, n_iter=n_iter,
                    converged=converged,
                ))
    return (task["dataset"], ident, int(task["fold"])), rows


def _run_predictor(task, spec, params, ident, Xtr, Xte, ytr, yte, dims, seed, views):
    """Rows of a method that classifies by itself (classifier 'own'), one fit per dimension."""
    feed = _Views(spec, views)
    rows = []
    for d in dims:
        est = spec.build(d, params=params, gamma=task["gamma"], random_state=seed,
                         projection=task.get("projection"))
        t0 = time.perf_counter()
        est.fit(feed(Xtr), ytr)
        seconds = time.perf_counter() - t0
        n_err = int(np.sum(est.predict(feed(Xte)) != yte))
        rows.append(dict(
            dataset=task["dataset"], method=ident, classifier="own", fold=int(task["fold"]),
            dim=int(d), n_test=int(len(yte)), n_errors=n_err, error=n_err / len(yte),
            fit_seconds=seconds,
        ))
    return rows


def _history(est):
    """``{'objective': [...], 'time': [...] or None}`` from an optimizer's ``history_``.

    Accepts a dict of lists (keys 'objective' or 'loss', optional 'time'), a list of dicts, or
    a plain sequence of objective values; anything else gives None.
    """
    hist = getattr(est, "history_", None)
    if hist is None:
        return None
    try:
        if isinstance(hist, dict):
            key = next((k for k in ("objective", "loss", "value", "f") if k in hist), None)
            if key is None:
                return None
            obj, times = hist[key], hist.get("time")
        elif len(hist) and isinstance(hist[0], dict):
            key = next((k for k in ("objective", "loss", "value", "f") if k in hist[0]), None)
            if key is None:
                return None
            obj = [h[key] for h in hist]
            times = [h["time"] for h in hist] if "time" in hist[0] else None
        else:
            obj, times = hist, None
        obj = np.asarray(obj, dtype=float).ravel().tolist()
        if times is not None:
            times = np.asarray(times, dtype=float).ravel().tolist()
            times = times if len(times) == len(obj) else None
        return dict(objective=obj, time=times) if obj else None
    except (TypeError, ValueError):
        return None


def _kernel_weights(est):
    for attr in ("kernel_weights_", "beta_", "weights_"):
        w = getattr(est, attr, None)
        if w is not None:
            try:
                return np.asarray(w, dtype=float).ravel().tolist()
            except (TypeError, ValueError):
                return None
    return None


def run_embedding(task):
    """The 2-D (1-D if the method allows only one) picture of a method on a data set.

    Methods with a ``transform`` are fitted on a stratified half of the samples and the other,
    held-out half is drawn (kernel discriminants map their training samples of a class onto
    almost one point, so a picture of training samples says little). Methods without one
    (t-SNE) embed every sample. Returns a dict with dataset, method, embedding, y, held_out,
    and, when the fitted estimator has them, history (objective per iteration) and
    kernel_weights.
    """
    from sklearn.model_selection import train_test_split

    ident, spec, params = _method(task)
    X, y = task["X"], task["y"]
    params, X, views = _split_view(params, task.get("views"), X)
    seed = cell_seed(task["seed"], task["dataset"], ident, -1)
    if spec.transform:
        train, test = train_test_split(np.arange(len(y)), test_size=0.5, stratify=y,
                                       random_state=task["seed"])
    else:
        train = test = np.arange(len(y))
    scaler = make_scaler(task["scaling"]).fit(X[train])
    Xtr = scaler.transform(X[train])
    limit = spec.dim_limit(len(train), X.shape[1], int(np.max(y)) + 1)
    k = max(1, min(2, limit))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est, Z, seconds, feed = _fit(spec, params, k, Xtr, y[train], gamma=task["gamma"],
                                     seed=seed, views=views, projection=task.get("projection"))
        if spec.transform:
            Z = est.transform(feed(scaler.transform(X[test])))
    return dict(
        dataset=task["dataset"], method=ident, embedding=np.asarray(Z)[:, :k], y=y[test],
        held_out=bool(spec.transform), history=_history(est), kernel_weights=_kernel_weights(est),
        seconds=seconds,
    )


def method_dims(ident, protocol, n_train, n_features, n_classes):
    """Dimensions at which ``ident`` is evaluated under ``protocol``."""
    spec = get_method(ident.split(":")[0])
    return protocol.dims(n_classes, spec.dim_limit(n_train, n_features, n_classes))
