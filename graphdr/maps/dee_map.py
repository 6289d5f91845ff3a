r"""The supervised 2-D map of the samples themselves, with an out-of-sample transform.

Two objectives (``repulsion``). The default, ``'cauchy'`` (:mod:`graphdr.maps.heavy_tailed`):
t-SNE's divergence with a Cauchy kernel summed over all pairs on a grid, the labels weakening
the input affinities across classes: one map from no labels to all labels. ``'gaussian'``
(:mod:`graphdr.maps.objective`): paper 003's objective over free coordinates ``Y`` instead of a
linear map: attract neighbours of the same class, and, saturating, input neighbours of
different classes; repel samples of different classes, and, weaker, of the same class, by
:math:`e^{-d^2}`; optimised by :func:`graphdr.blocks.optim.descent` along the Laplacian
direction (paper 003's fourth optimiser), from the class means laid out by their principal
components (``graphdr.maps.start``; no randomness: the same data give the same start).

Out of sample (:meth:`DEEMap.transform`): at the mode of the nearest training samples' places
weighted by their input distances (:mod:`graphdr.maps.placement`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_consistent_length, validate_data

from .._threads import managed_threads
from .._validation import (
    check_int,
    check_label_values,
    check_labels,
    check_not_constant,
    check_option,
    check_positive,
    checked_parameters,
    fraction_rule,
    iterations_rule,
    unlabelled_mask,
)
from ..blocks import graphs as _graphs
from ..blocks.optim import descent
from ..blocks.sampling import canonical_order
from ..blocks.solvers import embedding_signs
from ..blocks.stats import is_dask_array
from ..neighbor_embedding._core import _DTYPES, _check_descent_params, _store_descent
from ..neighbor_embedding.elastic import _sparse_preconditioner
from ..semi.choice import UnlabelledUses, audited_fit_labels, prepare_unlabelled
from ..training.label_audit import LABELS_DOC
from ..training.prepared import PreparedInput, features_of
from ..training.selected import Selected
from ..training.supports import Supports
from .dask_fit import fit_dask, fit_limit, fit_sample, place_dask
from .heavy_tailed import CAUCHY_ITER, descend_heavy_tailed
from .inputs import (
    FEATURE_SCALINGS,
    _class_order,
    _gathered,
    attraction_graph,
    content_keys,
    feature_scaling,
    map_cross_pairs,
)
from .objective import _MapObjective
from .placement import (
    PlacementCheck,
    place_rows,
    probe_rows,
)
from .placing import INDEX_DEGREE, PlacingMixin
from .separation import choose_separation
from .start import _start
from .views.display import MapViewMixin

#: the shift of the Laplacian preconditioner, relative to the larger repulsion weight (the
#: curvature of e^{-r^2} is at most 2 per unit weight)
PRECONDITIONER_SHIFT = 1.0
#: relative residual of the conjugate-gradient solves behind the Laplacian direction: the
#: direction needs no more (at 10^5 and 10^6 samples, 0.03 instead of 1e-3 halved the CG
#: iterations and reached an equal or lower objective; 0.1 stopped the descent early)
CG_RTOL = 0.03
#: iterations of the Laplacian direction (``repulsion='gaussian'``, ``max_iter='auto'``)
GAUSSIAN_ITER = 100
#: the objectives of ``repulsion``
REPULSIONS = ("gaussian", "cauchy")


@dataclass
class _SortedRows:
    """The training rows as the fit sees them (:meth:`DEEMap._sorted_rows`)."""

    keys: np.ndarray  # content keys, in the caller's order
    order: np.ndarray  # the sorted order: rows by class, then by content
    ys: np.ndarray  # encoded labels, in the sorted order
    Xs: np.ndarray | None  # scaled features, sorted (None while a large map descends)
    neighbors: str  # the neighbour search, 'exact' or 'approx' (``neighbors_``)
    scaling: tuple  # ``feature_scaling_``, ``feature_mean_``, ``feature_scale_``


class DEEMap(PlacingMixin, MapViewMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
             BaseEstimator):
    r"""Supervised nonlinear 2-D map: the samples' own places, the classes apart, the data's shape.

    The default objective (``repulsion='cauchy'``, :mod:`graphdr.maps.heavy_tailed`) is t-SNE's
    divergence with labels:

    .. math::

        \min_Y \sum_{i \ne j} p_{ij}\, \alpha \log\Big(1 + \frac{\lVert y_i - y_j\rVert^2}
        {\alpha}\Big) + \log \sum_{i \ne j} \Big(1 + \frac{\lVert y_i - y_j\rVert^2}{\alpha}
        \Big)^{-\alpha},

    over the map ``Y`` (``n x 2``), :math:`p` the input's perplexity affinities whose pairs of
    labelled samples of different classes keep the share ``1 - separation`` (then normalised
    to sum 1), :math:`\alpha` = ``tail``. Without labels (``fit(X)``, or every ``y`` -1) it
    is t-SNE's map; with labels, the classes pulled apart as far as held-out labels say it
    helps (``separation='auto'``). ``repulsion='gaussian'`` is paper 003's objective:

    .. math::

        \min_Y \sum_{i<j} a_{ij} \lVert y_i - y_j\rVert^2
            + \rho \sum_{i<j} c_{ij} \log\big(1 + \lVert y_i - y_j\rVert^2\big)
            + \lambda_d \sum_{i<j,\ l_i \ne l_j} e^{-\lVert y_i - y_j\rVert^2}
            + \lambda_s \sum_{i<j,\ l_i = l_j} e^{-\lVert y_i - y_j\rVert^2}

    :math:`a` the symmetric ``n_neighbors``-nearest-neighbour graph within each class,
    :math:`c` the pairs of input neighbours of different classes: the classes farther apart,
    ten times faster on small data, less of the data's shape kept (its repulsion acts only at
    short range). Every linear method (:class:`DEE`, :class:`LDA`, ...) draws a class that no
    plane separates on top of the others; this map gives every class its own region and keeps
    the neighbours of each sample near it. New samples are placed by their nearest training
    samples (:meth:`transform`), as supervised UMAP and openTSNE do.

    Parameters
    ----------
    n_neighbors : int, default=20
        Neighbours of each sample in its class (the attraction) and training neighbours of a
        new sample (the out-of-sample transform). More neighbours keep more of each class's
        inner structure (trustworthiness); ``docs/history.rst`` (DEEMap's knobs) has 5,
        10 and 20 against ``lam_same``: 20 with ``lam_same=4`` kept the most on 8 of 9 data
        sets. Fewer neighbours halve the graph's memory (10 at 10^7 samples).
    n_neighbors_unlabelled : int, default=10
        Used only when ``y`` marks unlabelled samples with -1: the edges of the
        ``n_neighbors_unlabelled``-nearest-neighbour graph over all samples that touch an
        unlabelled one join the attraction. Fewer than ``n_neighbors``: a graph over all
        samples crosses class boundaries sooner (mnist5k, 5 % labels: 10 erred less than 20).
    unlabelled : {'auto', 'ignore', 'smooth', 'propagate'}, default='auto'
        How the unlabelled samples (-1) are used. 'ignore': the map of the labelled samples
        alone (bit for bit), the unlabelled ones placed on it as new samples
        (:meth:`transform`). 'smooth': a map of the data's clusters (started from them):
        they join the attraction by their ``n_neighbors_unlabelled`` neighbours and the
        repulsion by ``lam_unlabelled``, no class repelled from them. 'propagate': their
        classes propagated over the 10-nearest-neighbour graph of all samples (Poisson learning,
        :class:`graphdr.PoissonPropagation`), then the map of every sample as labelled
        (``embedding_`` and the page keep the given labels). 'auto': 'smooth' or
        'propagate' only where it places held-out labelled samples better than the map of
        the labelled samples alone on two folds of them
        (:func:`graphdr.semi.choice.compare_unlabelled_uses`, six maps of at most 5000
        samples; where both do, the one of fewer errors, a tie to 'propagate'), else
        'ignore'; not 'propagate' when the propagation leaves a class a single sample. With
        ``repulsion='cauchy'``: 'propagate' unless the fold maps of the labelled samples alone
        beat the propagated classes on held-out labels (no trial of the uses). With every
        sample labelled it has no effect.
%(labels)s
    repulsion : {'cauchy', 'gaussian'}, default='cauchy'
        The objective (above). ``'gaussian'``: paper 003's over free coordinates: attraction
        within each class, the Gaussian repulsion :math:`e^{-d^2}`, which acts only at short
        range. ``'cauchy'``: the heavy-tailed map (:mod:`graphdr.maps.heavy_tailed`), t-SNE's
        divergence between the input's affinities (perplexity ``perplexity``) and the kernel
        :math:`(1 + d^2/\alpha)^{-\alpha}` (:math:`\alpha` = ``tail``) summed over all pairs
        by FFT; the labels weaken the affinities across classes by ``separation``; it keeps more
        of the data's shape (continuity, global structure) where classes mix, and maps data
        without labels (every ``y`` -1). The parameters ``n_neighbors`` (for the placement of
        new samples), ``feature_scaling``, ``placement_width``, ``neighbors`` and
        ``max_iter`` serve both; ``lam``, ``lam_same``,
        ``lam_unlabelled``, ``cross_attraction``, ``n_neighbors_unlabelled`` and ``tol``
        only the Gaussian one.
    tail : float > 0, default=1.0
        With ``repulsion='cauchy'``: :math:`\alpha` (1: t-SNE's kernel; below 1, heavier
        tails, finer clusters).
    perplexity : float > 0, default=30.0
        With ``repulsion='cauchy'``: the input affinities' perplexity (t-SNE's): each sample's
        ``3 perplexity`` nearest neighbours, weighted to that entropy.
    separation : float in [0, 1] or 'auto', default='auto'
        With ``repulsion='cauchy'``: the share of the affinity between labelled samples of
        different classes that the labels remove (0: the labels do not shape the map, only
        the placement of new samples; 1: no attraction across classes). 'auto': the least of
        0, 0.5 and 0.9 whose held-out error is not worse than the best's by a McNemar test, on
        maps of two folds of up to 800 labelled samples (0.5 below 200 labelled samples;
        :mod:`graphdr.maps.separation`): the classes pulled apart only as far as held-out
        labels say it helps. ``separation_`` is the value used.
    lam : float, default=1.0
        :math:`\lambda_d`, the weight of the repulsion between classes.
    lam_same : float, default=4.0
        :math:`\lambda_s`, the weight of the repulsion within a class: it spreads each class
        over its region against the pull of the ``n_neighbors`` graph.
    lam_unlabelled : float, default=0.3
        With ``unlabelled='smooth'``, the weight of the repulsion of every pair with an
        unlabelled sample: weaker than ``lam_same``, so that the clusters of the unlabelled
        samples stay gathered (``benchmarks/results/semi_maps.md``).
    cross_attraction : float >= 0, default=1.0
        :math:`\rho`, the weight of the saturating attraction between input neighbours of
        different classes (the 10 nearest of each sample; with exact neighbours above 20,000
        samples, among the 20,000 of smallest content key). 0: the former map, the classes
        placed by the repulsion alone. Larger keeps more of the input's neighbourhoods across
        class boundaries (continuity, random triplets) at a cost in the separation of
        overlapping classes (held-out error, trustworthiness).
        ``docs/history.rst`` (9 sets, 3 splits) has 0 to 3: 1 keeps the error and
        trustworthiness of 0 with most of the gain in continuity (mnist5k and the letters).
        Towards 3 when the classes' layout matters.
    feature_scaling : {'auto', 'standard', 'none'}, default='auto'
        How the features are scaled before the map sees them
        (:func:`graphdr.blocks.scaling.feature_scaling`):
        ``'standard'`` standardises each feature, ``'none'`` keeps their units (centred by
        each feature's median, which changes no distance), ``'auto'``
        standardises when one feature holds more than half of the total variance (features
        in different units, such as wine's proline beside its ratios), and otherwise keeps
        them (pixels, principal components). ``transform`` applies the same scaling.
    placement_width : 'auto' or float > 0, default='auto'
        How new samples are placed (:meth:`transform`): the width :math:`\tau` of the
        weights of their training neighbours (:mod:`graphdr.maps.placement`). Small: the
        nearest training sample decides; large: the ``n_neighbors`` vote alike. ``'auto'``:
        the width of ``placement.PLACEMENT_WIDTHS`` (0.1 to 4) whose leave-one-out placement of
        training samples (up to 5000, chosen by content) errs least (ties: the wider).
    neighbors : {'auto', 'exact', 'approx'}, default='auto'
        How the neighbours are found (the attraction graph and the index that places new
        samples): exactly (ties to the smaller row index), or by inverted lists
        (:func:`graphdr.blocks.list_graph.list_graph`: each row's nearest lists, as many as
        reach 90 % of its true neighbours on a sample), approximate and far below the
        quadratic cost of the exact search. 'auto': 'approx' from 200,000 samples on
        (:func:`graphdr.blocks.graphs.resolve_algorithm`); for a map fitted on part of the
        rows (a ``dask.array``, ``fit_samples``, ``unlabelled='ignore'``), earlier when the
        rows to place after the fit make the exact search as costly (``m (m + p) >=
        200,000^2`` for ``m`` rows fitted and ``p`` placed).
    fit_samples : int or 'auto', default='auto'
        About how many rows a map of many rows is fitted on: those of smallest content key in
        each class (every class kept, at least three rows of it; the same rows whatever the
        chunking and the row order); the other rows are placed on it as new samples
        (:meth:`transform`). A ``dask.array`` is sampled with either objective and placed
        block by block on the Dask scheduler (:mod:`graphdr.maps.dask_fit`; ``embedding_``
        holds its sample, ``fit_rows_``); a NumPy array only with ``repulsion='cauchy'``
        (``embedding_`` holds every row; the Gaussian map fits a NumPy array whole). 'auto':
        20,000 for ``'cauchy'`` (as openTSNE's guide to large data sets: its 750 iterations
        over 10^6 rows would take an hour here; 10^6 rows of 50 features map in 93 s,
        ``benchmarks/maps2d_scale.py``), 1,000,000 for ``'gaussian'``.
    random_state : int or None, default=None
        Unused: nothing in the map is drawn at random (the approximate neighbours come from
        inverted lists built from the content order). Kept so that code passing it runs.
    max_iter : int or 'auto', default='auto'
        Iterations of the optimiser: 'auto' is 100 for ``repulsion='gaussian'`` and 750 for
        ``'cauchy'`` (t-SNE's schedule: 250 with the attraction exaggerated 12 times, then
        500; fewer than 250 are all exaggerated). With ``'gaussian'``: the fully labelled
        benchmark sets (up to 16,000 samples) stop by ``tol`` before it (the letters, 16,000
        samples: 25 to 97 iterations over five splits). Larger maps keep lowering :math:`E`
        by small amounts for hundreds of iterations without changing what the map shows, so
        a map with approximate neighbours (``neighbors_='approx'``) also stops when its
        placement of new samples settles (:class:`graphdr.maps.placement.PlacementCheck`); at
        10^6 samples
        (``benchmarks/maps2d_scale.py``'s data) after 20 iterations instead of 86, the
        held-out error and trustworthiness unchanged.
    tol : float, default=1e-5
        Stop when an iteration lowers the objective by less than ``tol`` times its value.
    verbose : int, default=0
        Print the objective every ``verbose`` iterations.
    callback : callable or None, default=None
        ``callback(Y, info)`` after each iteration; returning True stops.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, 2)
        The map of the training samples.
    classes_ : ndarray of shape (n_classes,)
    feature_scaling_ : {'standard', 'none'}
        The scaling applied (``'auto'`` resolved).
    neighbors_ : {'exact', 'approx'}
        The neighbour search used (``'auto'`` resolved).
    placement_width_ : float
        The width that places new samples (``'auto'`` resolved).
    placement_errors_ : dict or None
        ``'auto'``: the leave-one-out error of each width of ``placement.PLACEMENT_WIDTHS``.
    feature_mean_, feature_scale_ : ndarray of shape (n_features,)
        The map works on ``(X - feature_mean_) / feature_scale_``.
    unlabelled_ : {'ignore', 'smooth', 'propagate'} or None
        How the unlabelled samples were used (None: every sample labelled).
    unlabelled_results_ : dict
        With ``unlabelled='auto'`` and unlabelled samples: the comparison that chose
        (:func:`graphdr.semi.choice.compare_unlabelled_uses`).
    label_issues_ : LabelIssues or None
        With ``labels='flag'`` or ``'audit'``: the audit of the labels (the page marks it).
    objective_, initial_objective_ : float
        :math:`E` at the end and at the start.
    n_iter_ : int
    converged_ : bool
    history_ : list of dict
    n_features_in_ : int
    separation_, separation_errors_ : float, dict
        With ``repulsion='cauchy'``: the separation used, and with ``separation='auto'`` the
        held-out error (fraction) of each candidate (empty when none was tried).
    fit_rows_ : ndarray of shape (n_fitted,)
        Only after a fit of a ``dask.array``: the rows of its sample (increasing), in the order
        of ``embedding_`` (with ``unlabelled='ignore'``, its unlabelled rows were placed on the
        map of the others).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from graphdr import DEEMap
    >>> X, y = load_digits(return_X_y=True)
    >>> Y = DEEMap().fit_transform(X[:300], y[:300])
    >>> DEEMap().fit(X[:300], y[:300]).transform(X[300:310]).shape
    (10, 2)
    """

    _parameter_rules = {
        "max_iter": iterations_rule(auto=True),
        "repulsion": lambda value, name: check_option(value, name, set(REPULSIONS)),
        "tail": lambda value, name: check_positive(value, name),
        "perplexity": lambda value, name: check_positive(value, name),
        "separation": fraction_rule(auto=True),
    }

    _supports = Supports(unlabelled_rows=True, unlabelled_choice=True, neighbour_search=True,
                         prepared=True, label_audit=True)

    #: a tie in the choice of ``unlabelled='auto'`` goes to the propagated classes; the
    #: heavy-tailed map keeps them unless the labelled rows' map beats them (semi's docstring)
    _unlabelled_ties = "propagate"
    _unlabelled_kept = property(lambda self: "propagate" if self.repulsion == "cauchy" else None)

    def __init__(self, *, n_neighbors=20, n_neighbors_unlabelled=10, unlabelled="auto",
                 labels="given", repulsion="cauchy", tail=1.0, perplexity=30.0,
                 separation="auto", lam=1.0,
                 lam_same=4.0, lam_unlabelled=0.3, cross_attraction=1.0, feature_scaling="auto",
                 placement_width="auto", neighbors="auto", fit_samples="auto",
                 random_state=None, max_iter="auto", tol=1e-5, verbose=0, callback=None):
        self.n_neighbors = n_neighbors
        self.n_neighbors_unlabelled = n_neighbors_unlabelled
        self.unlabelled = unlabelled
        self.labels = labels
        self.repulsion = repulsion
        self.tail = tail
        self.perplexity = perplexity
        self.separation = separation
        self.lam = lam
        self.lam_same = lam_same
        self.lam_unlabelled = lam_unlabelled
        self.cross_attraction = cross_attraction
        self.feature_scaling = feature_scaling
        self.placement_width = placement_width
        self.neighbors = neighbors
        self.fit_samples = fit_samples
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.callback = callback

    @managed_threads
    @checked_parameters
    def fit(self, X, y=None):
        """Compute the map of ``X`` (``n x D``) with class labels ``y`` (with
        ``repulsion='cauchy'``, ``y`` may be None or every label -1: the map of the data alone).

        Returns
        -------
        self : object
        """
        self.fit_transform(X, y)
        return self

    @managed_threads
    @checked_parameters
    def fit_transform(self, X, y=None):
        """Compute and return the map of the training samples (``embedding_``); of a
        ``dask.array``, the places of all its rows as a ``dask.array`` (``fit_samples``)."""
        fit_limit(self.fit_samples, self.repulsion)
        for stale in ("fit_rows_", "separation_", "separation_errors_"):  # (of an earlier fit)
            self.__dict__.pop(stale, None)
        if is_dask_array(X):
            fit_dask(self, X, y)
            return place_dask(self, X, self.fit_rows_)
        return self._fit_array(X, y)

    def _fit_array(self, X, y, n_placed=0, sampled=None):
        """The fit of an in-memory ``X``; ``n_placed``: rows to be placed after it (a Dask
        fit's other rows), which count in the choice of ``neighbors='auto'``; ``sampled``: the
        row indices of the Dask fit's sample that ``X`` is (``fit_rows_``; no second sample),
        or None."""
        t0 = time.perf_counter()
        verbose = self._check_params()
        X, y_enc, prepared, chosen = self._validated(X, y)
        X_map, y_map, fitted = X, y_enc, None  # fitted: the rows of X in the map (None: all)
        sample = None  # (rows fitted, rows in all) of a heavy-tailed map of a sample
        if chosen.values["unlabelled_"] == "ignore":  # the labelled rows' map (a fit of them)
            fitted = np.flatnonzero(y_enc >= 0)
            X_map = X[fitted] if prepared is None else prepared.X
            y_map = y_enc[fitted]
        if self.repulsion == "cauchy" and sampled is None:  # a large map: on a sample
            some = fit_sample(X_map, y_map, fit_limit(self.fit_samples, self.repulsion))
            if len(some) < len(y_map):
                X_map, y_map, prepared = X_map[some], y_map[some], None
                fitted = some if fitted is None else fitted[some]
                sample = (len(some), len(y_enc))
        chosen = chosen | Selected({"_sample": sample}) | (
            None if sampled is None else Selected({"fit_rows_": sampled}))
        n_placed += 0 if fitted is None else len(y_enc) - len(fitted)
        rows = self._sorted_rows(X_map, y_map, n_placed, prepared)
        if self.repulsion == "cauchy":
            if self.separation != "auto":
                separation, errors = float(self.separation), {}
            else:  # (by the labels as given: none propagated)
                given = chosen.values["_labels"]
                given = given if fitted is None else given[fitted]
                separation, errors = choose_separation(
                    rows.Xs, np.where(rows.ys >= 0, given[rows.order], -1),
                    rows.keys[rows.order], n_neighbors=self.n_neighbors,
                    perplexity=float(self.perplexity), tail=float(self.tail))
            chosen = chosen | Selected(dict(separation_=separation, separation_errors_=errors))
            res = descend_heavy_tailed(
                rows.Xs, rows.ys, rows.order, n_iter=self.iterations(),
                perplexity=float(self.perplexity), separation=separation,
                tail=float(self.tail), neighbors=rows.neighbors, verbose=verbose,
                callback=self.callback, t0=t0)
            index = None
        else:
            problem, Y0, check, index = self._objective(rows, len(chosen.values["classes_"]))
            if index is not None:  # a large map: the scaled rows are rebuilt after the descent
                rows.Xs = None
            res = self._descend(problem, Y0, check, rows.order, verbose, t0)
            del problem  # (the graph's matrices: gigabytes at 10^7 samples)
        placed = None
        if fitted is not None:  # the other rows placed on the map as new samples
            placed = np.ones(len(y_enc), dtype=bool)
            placed[fitted] = False
        self._store(res, X_map, rows, index, chosen, (X, placed))
        return self.embedding_

    def _check_params(self):
        """Check the hyper-parameters; the descent's verbosity."""
        check_int(self.n_neighbors, "n_neighbors")
        check_int(self.n_neighbors_unlabelled, "n_neighbors_unlabelled")
        check_positive(self.lam, "lam")
        check_positive(self.lam_same, "lam_same", allow_zero=True)
        check_positive(self.lam_unlabelled, "lam_unlabelled", allow_zero=True)
        check_positive(self.cross_attraction, "cross_attraction", allow_zero=True)
        check_option(self.feature_scaling, "feature_scaling", set(FEATURE_SCALINGS))
        return _check_descent_params(self)

    def _validated(self, X, y):
        """Validate ``(X, y)`` once: ``(X, y_enc, prepared, chosen)``, the encoded labels the
        map is fitted to (the propagated classes of unlabelled rows, or y itself), the rows'
        :class:`~graphdr.training.prepared.PreparedInput` (from the caller or the choice of
        ``unlabelled``; or None), and what was found and chosen (:class:`Selected`: the
        classes, the labels as given, the audit, the use of the unlabelled rows), which
        :meth:`_store` writes."""
        name = type(self).__name__
        if self.repulsion == "cauchy" and not isinstance(X, PreparedInput) and (
                y is None or np.all(unlabelled_mask(np.asarray(y)))):
            return self._validated_unlabelled(X, y)
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None: pass "
                             "the class labels (every one -1 for a map of the data alone, with "
                             "repulsion='cauchy').")
        prepared = X if isinstance(X, PreparedInput) else None
        found = Selected({})
        if prepared is not None:  # a trial fit of that choice: validated already
            found = prepared.found()
            X, y = prepared.X, np.asarray(y)
        else:
            if sp.issparse(X):
                raise ValueError(
                    f"{name} needs dense X (its start takes principal components of each "
                    "class): pass X.toarray(), or reduce a large sparse X first (TruncatedSVD).")
            check_label_values(y, name)
            X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
            check_not_constant(X, "DEEMap")  # else the regions would come from the labels alone
        # a class of one sample has no neighbours: it keeps its own place, away from the others
        classes, y_enc, _ = check_labels(y, min_classes=2, method=name, unlabelled="allow")
        found = found | Selected({"classes_": classes, "_labels": y_enc})  # (the page's: as given)
        shared = audited = None  # the rows the audit and the choice share, validated once
        if prepared is None:  # (a trial fit's labels are audited already)
            shared = self._prepared_input(X, y) if self.labels != "given" else None
            y, y_enc, audited = audited_fit_labels(self, X if shared is None else shared, y,
                                                   y_enc)
            found = found | audited
        # the propagated classes, or y itself
        X_fit, y_fit, chosen = prepare_unlabelled(
            self, X if prepared is None else prepared, y, audit=False, audited=audited,
            uses=UnlabelledUses(
                kept=self._unlabelled_kept, ties=self._unlabelled_ties,
                prepare=partial(self._prepared_input, shared=shared)))
        if chosen.values["unlabelled_"] == "propagate":
            y_enc = np.unique(y_fit, return_inverse=True)[1].astype(np.intp)
        return X, y_enc, X_fit if isinstance(X_fit, PreparedInput) else None, found | chosen

    def _validated_unlabelled(self, X, y):
        """:meth:`_validated` of data without a label (``repulsion='cauchy'``): no class, every
        row in the map."""
        if sp.issparse(X):
            raise ValueError("DEEMap needs dense X: pass X.toarray(), or reduce a large sparse X "
                             "first (TruncatedSVD).")
        X = validate_data(self, X, dtype=_DTYPES, ensure_min_samples=2)
        if y is not None:
            check_consistent_length(X, y)
        check_not_constant(X, "DEEMap")
        labels = np.full(X.shape[0], -1, dtype=np.intp)
        return X, labels.copy(), None, Selected(dict(
            classes_=np.array([], dtype=np.asarray(y).dtype if y is not None else np.intp),
            _labels=labels, unlabelled_="smooth", unlabelled_results_={}, label_issues_=None))

    def _prepared_input(self, X, y, shared=None):
        """The rows :meth:`_validated` validated, for the label audit and the choice between
        the uses of the unlabelled rows (:func:`graphdr.semi.choice.prepare_unlabelled`);
        ``shared``: the same rows prepared already, whose keys these share."""
        classes, y_enc, _ = check_labels(y, min_classes=2, method=type(self).__name__,
                                         unlabelled="allow")
        if shared is not None:
            return shared.with_labels(np.asarray(y), classes, y_enc)
        return PreparedInput(X, np.asarray(y), classes, y_enc, features_of(self))

    def _sorted_rows(self, X, y_enc, n_placed, prepared=None):
        """The rows as the fit sees them: sorted by class (each class a block of rows: views,
        no gathers) and, within a class, by content, so that neighbour ties, the start's signs,
        the feature scaling and the sums of the fields come out the same whatever the order of
        the rows (the caller's order comes back at the end and in every callback); scaled once
        (``Xs``, float64, the one copy the fit keeps)."""
        neighbors = _graphs.resolve_algorithm(self.neighbors, len(X), n_placed)
        keys = content_keys(X) if prepared is None or prepared.X is not X else prepared.memo(
            "row keys of X about the medians", lambda: content_keys(X))  # (once for trials)
        order = _class_order(y_enc, canonical_order(keys))
        Xs = _gathered(X, order)
        scaling = feature_scaling(Xs, self.feature_scaling)
        return _SortedRows(keys=keys, order=order, ys=y_enc[order],
                           Xs=self._scaled_rows(X, order, Xs, scaling[1:]), neighbors=neighbors,
                           scaling=scaling)

    def _objective(self, rows, C):
        """The map's objective over the sorted rows of ``C`` classes, its start, and for a
        large map the placing index and the check that stops the descent when the placement
        settles."""
        Xs, ys, neighbors = rows.Xs, rows.ys, rows.neighbors

        def pairs():  # (approximate: the placing index, built before the class graphs)
            return map_cross_pairs(Xs, ys, rows.keys[rows.order], neighbors,
                                   partial(self._transform_index, neighbors=neighbors))

        cross, index, check = None, None, None
        want_pairs = self.cross_attraction > 0 or neighbors == "approx"
        A = attraction_graph(Xs, ys, self.n_neighbors, neighbors, self.n_neighbors_unlabelled,
                             beside=pairs if want_pairs else None)
        if want_pairs:
            A, (cross, index) = A
        Y0 = _start(Xs, ys, C, A)
        if index is not None:
            probe = probe_rows(rows.keys, ys, rows.order)
            check = PlacementCheck(ys, probe, *index.training_neighbors(probe, INDEX_DEGREE))
        problem = _MapObjective(A, ys, C, self.lam, self.lam_same, cross=cross,
                                rho=self.cross_attraction, lam_unlabelled=self.lam_unlabelled)
        return problem, Y0, check, index

    def iterations(self):
        """The iterations ``max_iter`` asks for ('auto' resolved by ``repulsion``)."""
        if isinstance(self.max_iter, str):
            return CAUCHY_ITER if self.repulsion == "cauchy" else GAUSSIAN_ITER
        return int(self.max_iter)

    def _descend(self, problem, Y0, check, order, verbose, t0):
        """The preconditioned descent from ``Y0`` (rows in the sorted order)."""
        unsort = np.empty_like(order)
        unsort[order] = np.arange(len(order))
        callback = self.callback
        if callback is not None or check is not None:
            def callback(x, info):
                stop = self.callback is not None and self.callback(x[unsort], info)
                return bool(stop) or (check is not None and check(x, info["iteration"]))
        # the attraction's Hessian 2 L is singular along each class's translation (and the
        # tether does not see it): mu, the repulsion's curvature scale, keeps those modes from
        # being amplified by 1 / mu (a tiny mu sent whole classes hundreds of units away)
        mu = PRECONDITIONER_SHIFT * max(float(self.lam), float(self.lam_same))
        operator, diagonal = problem.shifted_laplacian(mu)
        precondition = _sparse_preconditioner(operator, factor=False, rtol=CG_RTOL,
                                              diagonal=diagonal)
        del operator
        return descent(problem.value_grad, Y0, method="preconditioned",
                       precondition=precondition, max_iter=self.iterations(), tol=self.tol,
                       verbose=verbose, callback=callback, name=type(self).__name__,
                       t_start=t0)

    def _store(self, res, X, rows, index, chosen, completed):
        """The fit's one writer of fitted attributes: what the fit found and chose
        (``chosen``, the rows' neighbour search and feature scaling), the embedding in the
        caller's order, the index that places new samples (the scaled training features in
        the sorted order; ``_map_rows`` their places in that order), the placement width;
        ``completed``: ``(X, placed)``, the rows of a map of some of them and the mask of those
        then placed on it as new samples (:func:`~graphdr.maps.placement.place_rows`; None:
        every row fitted)."""
        chosen.write(self)
        self.neighbors_ = rows.neighbors
        self.feature_scaling_, self.feature_mean_, self.feature_scale_ = rows.scaling
        _store_descent(self, res)
        order = rows.order
        unsort = np.empty_like(order)
        unsort[order] = np.arange(len(order))
        Y = res.x[unsort]
        self.embedding_ = (Y * embedding_signs(Y)).astype(X.dtype, copy=False)
        Xs = rows.Xs if rows.Xs is not None else self._scaled_rows(X, order)
        self._neighbors = self._transform_index(Xs) if index is None else index
        self._features, self._order, self._placed = Xs, order, None  # (see place_rows)
        self._map_rows = self.embedding_.astype(np.float64)[order]
        self.placement_errors_ = None
        if self.placement_width == "auto":
            probe_ys = rows.ys if np.any(rows.ys >= 0) else np.zeros_like(rows.ys)  # (no label)
            self.placement_width_, self.placement_errors_ = self._choose_width(
                rows.ys, probe_rows(rows.keys, probe_ys, order))
        else:
            self.placement_width_ = float(self.placement_width)
        if completed[1] is not None:
            self._placed = place_rows(self, *completed)

    _n_features_out = property(lambda self: 2)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self.repulsion != "cauchy"  # (the heavy-tailed: y optional)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


DEEMap.__doc__ = DEEMap.__doc__.replace("%(labels)s", LABELS_DOC)
