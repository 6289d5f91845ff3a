r"""Paper 001's baselines: single-view kernel Fisher discriminant (:class:`KFD`) and its two
multi-view ensembles, :class:`KFDVoting` and :class:`KFDSAMME`; with ``discriminant='lde'``
the same three over kernel LDE (the paper's KLDE, KLDE-Voting and KLDE-SAMME)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threads import managed_threads
from .._validation import (
    check_int,
    check_label_values,
    check_labels,
    check_option,
    checked_parameters,
)
from ..blocks.kernel_matrices import kernel_distances
from ..blocks.sampling import landmark_indices, row_keys, stratified_folds
from ..graph_embedding.generic import GraphEmbedding
from ..graph_embedding.kernel_methods import KernelLDA
from ..graph_embedding.linear import LDA, LDE, class_neighbour_graphs
from ..graph_embedding.spaces import resolve_approximation
from ..training.selected import Selected
from .views import (
    check_views,
    make_view_kernels,
)


# ----- baselines ----------------------------------------------------------------------------
def _labels_of_neighbours(nn, train_labels, X=None, k=1):
    """Labels of the k nearest training samples; X=None: training samples, self excluded."""
    k = min(k, nn.n_samples_fit_ - (1 if X is None else 0))
    _, idx = nn.kneighbors(X, n_neighbors=k)
    return train_labels[idx]


class KFD(ClassifierMixin, TransformerMixin, BaseEstimator):
    r"""Kernel Fisher discriminant (or kernel LDE) of one view followed by the
    1-nearest-neighbour rule.

    .. math::

        \min_a \frac{a^\top \tilde K L(W) \tilde K a}{a^\top(\tilde K L(W') \tilde K
        + \epsilon \tilde K) a},
        \qquad \hat y(x) = y_{\arg\min_i \lVert A^\top \tilde k(x) - A^\top \tilde k(x_i)\rVert},

    with ``discriminant='lda'`` LDA's within-class graph ``W`` and total graph ``W'``:
    :class:`graphdr.KernelLDA` on the base kernel :class:`ViewKernel` of the view, then 1-NN in
    the embedding (paper 001's KFD baseline); with ``discriminant='lde'`` LDE's graphs (paper
    001, eqs. 31-32: ``W`` joins each sample to its ``n_neighbors`` nearest samples of its class,
    ``W'`` to its ``n_neighbors_between`` nearest samples of other classes, binary weights,
    neighbours by the distance the base kernel induces, as :class:`MKLDR` ``graph='lde'``
    builds them for each view): :class:`graphdr.GraphEmbedding` on the base kernel (paper
    001's KLDE baseline).

    Parameters
    ----------
    kernel : str, dict or ViewKernel, default='rbf'
        Base kernel specification (see :func:`make_view_kernels`).
    n_components : int or None, default=None
        At most ``n_classes - 1``.
    reg : float, default=1e-3
        Relative ridge of :class:`graphdr.KernelLDA`.
    scaling : {'within', 'total', 'none'}, default='within'
        Metric of the embedding (:class:`graphdr.KernelLDA`'s ``scaling``; ``'lda'`` only:
        LDE's embedding is normalised by its own constraint).
    discriminant : {'lda', 'lde'}, default='lda'
        Kernel Fisher discriminant (KFD) or kernel local discriminant embedding (KLDE).
    n_neighbors, n_neighbors_between : int, default=5, 10
        ``k`` and ``k'`` of LDE's graphs (``discriminant='lde'`` only).
    approximation : {'auto', None, 'nystroem'}, default='auto'
        None: the exact ``n x n`` base kernel and :class:`graphdr.KernelLDA` (or
        :class:`graphdr.GraphEmbedding` with LDE's graphs) on it.
        ``'nystroem'``: the base kernel's landmark features :math:`\Phi`
        (:meth:`ViewKernel.fit_features`, ``n_landmarks`` landmarks drawn with
        ``random_state``; :math:`\Phi\Phi^\top \approx \tilde K`) and :class:`graphdr.LDA`
        (or :class:`graphdr.LDE`) on them with the same relative ridge and scaling:
        ``O(n m)`` memory. ``'auto'``: exact
        up to 3,000 samples (the exact base kernel is processed with several ``n x n``
        copies), ``'nystroem'`` above (exact for a precomputed kernel).
    n_landmarks : int, default=500
    random_state : int, RandomState instance or None, default=None
        Seed of the landmarks.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    view_kernel_ : ViewKernel
    kfd_ : KernelLDA, GraphEmbedding, LDA or LDE
        Fitted on the processed kernel (``kernel='precomputed'``), or on its landmark features
        (``approximation_ == 'nystroem'``).
    approximation_ : None or 'nystroem'
        The choice of ``approximation='auto'``.
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
    n_features_in_ : int
    """

    def __init__(self, kernel="rbf", *, n_components=None, reg=1e-3, scaling="within",
                 discriminant="lda", n_neighbors=5, n_neighbors_between=10,
                 approximation="auto", n_landmarks=500, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.discriminant = discriminant
        self.n_neighbors = n_neighbors
        self.n_neighbors_between = n_neighbors_between
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    @managed_threads
    @checked_parameters
    def fit(self, X, y):
        """Fit the base kernel, kernel LDA (or LDE) and the 1-NN index on one view."""
        check_option(self.discriminant, "discriminant", {"lda", "lde"})
        lde = self.discriminant == "lde"
        if lde:
            check_int(self.n_neighbors, "n_neighbors")
            check_int(self.n_neighbors_between, "n_neighbors_between")
        check_label_values(y, type(self).__name__)
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32), ensure_min_samples=2)
        self.classes_, y_enc, _ = check_labels(y, method="KFD", unlabelled="class")
        self.view_kernel_ = make_view_kernels(self.kernel, 1)[0]
        n = X.shape[0]
        self.approximation_ = resolve_approximation(
            self.approximation, n, exact_only=self.view_kernel_.kernel == "precomputed")
        if self.approximation_ == "nystroem":
            check_int(self.n_landmarks, "n_landmarks", min_value=2)
            landmarks = landmark_indices(X, self.n_landmarks, self.random_state)
            Phi = self.view_kernel_.fit_features(X, landmarks)
            if lde:  # Phi's Euclidean distance is the kernel-induced one
                self.kfd_ = LDE(n_components=self.n_components, n_neighbors=self.n_neighbors,
                                n_neighbors_between=self.n_neighbors_between,
                                weights="binary", reg=self.reg)
            else:
                self.kfd_ = LDA(n_components=self.n_components, reg=self.reg,
                                scaling=self.scaling)
            self.kfd_.fit(Phi, y_enc)
            self.embedding_ = self.kfd_.transform(Phi)
        else:
            K = self.view_kernel_.fit_kernel(X)
            if lde:
                within, between = class_neighbour_graphs(
                    kernel_distances(K), y_enc, self.n_neighbors, self.n_neighbors_between,
                    weights="binary", metric="precomputed")
                self.kfd_ = GraphEmbedding(n_components=self.n_components, intrinsic=within,
                                           penalty=between, kernel="precomputed",
                                           reg=self.reg).fit(K, y_enc)
            else:
                self.kfd_ = KernelLDA(n_components=self.n_components, kernel="precomputed",
                                      reg=self.reg, scaling=self.scaling).fit(K, y_enc)
            self.embedding_ = self.kfd_.embedding_
        self.n_components_ = self.kfd_.n_components_
        self._y_fit = y_enc
        self._nn = NearestNeighbors().fit(self.embedding_)
        return self

    @managed_threads
    def transform(self, X):
        """Embedding of new samples, shape (n_samples, n_components_)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=(np.float64, np.float32))
        X64 = X.astype(np.float64, copy=False)  # float32 in, float32 out; float64 inside
        if self.approximation_ == "nystroem":
            Z = self.kfd_.transform(self.view_kernel_.transform_features(X64))
        else:
            Z = self.kfd_.transform(self.view_kernel_.transform(X64))
        return Z.astype(X.dtype, copy=False)

    def neighbour_labels(self, X=None, k=1):
        """Encoded labels of the ``k`` nearest training samples in the embedding.

        ``X=None`` uses the training samples, each excluding itself (leave-one-out).
        """
        check_is_fitted(self)
        Z = None if X is None else self.transform(X)
        return _labels_of_neighbours(self._nn, self._y_fit, Z, k)

    def predict(self, X):
        """1-NN class in the discriminant embedding."""
        check_is_fitted(self)
        return self.classes_[self.neighbour_labels(X, 1)[:, 0]]


class _MultiViewKFDBase(ClassifierMixin, BaseEstimator):
    def _fit_views(self, Xs, y):
        """``(views, y_enc, fitted)``: the views validated, the labels encoded, and one KFD per
        view with the classes (``fitted``, :class:`~graphdr.training.selected.Selected`:
        ``classes_``, ``estimators_``, ``n_views_``), which the fit writes."""
        views = check_views(Xs)
        classes, y_enc, _ = check_labels(y, method=type(self).__name__, unlabelled="class")
        if len(y_enc) != views[0].shape[0]:
            raise ValueError(
                f"y has {len(y_enc)} labels but the views have {views[0].shape[0]} rows."
            )
        specs = make_view_kernels(self.kernels, len(views))
        estimators = [self._kfd(spec).fit(V, y_enc) for spec, V in zip(specs, views)]
        return views, y_enc, Selected(dict(classes_=classes, estimators_=estimators,
                                           n_views_=len(views)))

    def _kfd(self, spec):
        return KFD(kernel=spec, n_components=self.n_components, reg=self.reg,
                   scaling=self.scaling, discriminant=self.discriminant,
                   n_neighbors=self.n_neighbors, n_neighbors_between=self.n_neighbors_between,
                   approximation=self.approximation,
                   n_landmarks=self.n_landmarks, random_state=self.random_state)

    def _check_predict_views(self, Xs):
        check_is_fitted(self)
        return check_views(Xs, n_views=self.n_views_)


class KFDVoting(_MultiViewKFDBase):
    r"""Vote of per-view KFD (or KLDE) + 1-NN classifiers (paper 001's KFD-Voting and
    KLDE-Voting).

    .. math:: \hat y(x) = \arg\max_c \sum_{m=1}^{M} [\,h_m(x) = c\,],

    with :math:`h_m` the 1-NN decision in the KFD embedding of view ``m``. A tie is broken by
    adding the votes of the second nearest neighbour of every view, then the third, and so on
    (up to ``max_neighbors``); a tie that remains goes to the first tied class.

    Parameters
    ----------
    kernels : str, dict, ViewKernel or list of those, default='rbf'
        Base kernel of each view (see :func:`make_view_kernels`).
    n_components : int or None, default=None
    reg : float, default=1e-3
    scaling : {'within', 'total', 'none'}, default='within'
        Metric of each view's embedding (:class:`graphdr.KernelLDA`'s ``scaling``).
    discriminant : {'lda', 'lde'}, default='lda'
        Each view's learner: KFD, or kernel LDE (``'lde'``: paper 001's KLDE-Voting).
    n_neighbors, n_neighbors_between : int, default=5, 10
        LDE's graphs (``discriminant='lde'`` only; see :class:`KFD`).
    max_neighbors : int, default=10
    approximation, n_landmarks, random_state
        Of each view's :class:`KFD` (``'auto'``: exact up to 3,000 samples, Nystroem above).

    Attributes
    ----------
    estimators_ : list of KFD
    classes_ : ndarray
    n_views_ : int
    """

    def __init__(self, kernels="rbf", *, n_components=None, reg=1e-3, scaling="within",
                 discriminant="lda", n_neighbors=5, n_neighbors_between=10, max_neighbors=10,
                 approximation="auto", n_landmarks=500, random_state=None):
        self.kernels = kernels
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.discriminant = discriminant
        self.n_neighbors = n_neighbors
        self.n_neighbors_between = n_neighbors_between
        self.max_neighbors = max_neighbors
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    @managed_threads
    @checked_parameters
    def fit(self, Xs, y):
        """Fit one KFD per view. ``Xs`` is a list of views."""
        check_int(self.max_neighbors, "max_neighbors")
        self._fit_views(Xs, y)[2].write(self)
        return self

    def predict(self, Xs):
        """Voted class of every sample."""
        views = self._check_predict_views(Xs)
        n, C = views[0].shape[0], len(self.classes_)
        labels = np.stack([est.neighbour_labels(V, self.max_neighbors)
                           for est, V in zip(self.estimators_, views)], axis=1)  # n x M x k
        votes = np.zeros((n, C))
        decided = np.zeros(n, dtype=bool)
        out = np.zeros(n, dtype=np.intp)
        rows = np.arange(n)
        for j in range(labels.shape[2]):
            for m in range(labels.shape[1]):
                np.add.at(votes, (rows, labels[:, m, j]), 1.0)
            top = votes.max(axis=1)
            unique = (votes == top[:, None]).sum(axis=1) == 1
            new = unique & ~decided
            out[new] = np.argmax(votes[new], axis=1)
            decided |= unique
            if decided.all():
                break
        out[~decided] = np.argmax(votes[~decided], axis=1)
        return self.classes_[out]


class KFDSAMME(_MultiViewKFDBase):
    r"""Per-view KFD (or KLDE) + 1-NN classifiers boosted by SAMME (multi-class AdaBoost; paper
    001's KFD-SAMME and KLDE-SAMME).

    .. math::

        \hat y(x) = \arg\max_c \sum_{t=1}^{T} \alpha_t [\,h_{m_t}(x) = c\,], \qquad
        \alpha_t = \log\frac{1 - e_t}{e_t} + \log(C - 1),

    where round ``t`` picks the view ``m_t`` whose learner has the smallest weighted training
    error :math:`e_t` and multiplies the weights of its misclassified samples by
    :math:`e^{\alpha_t}`. The weak learners are the fixed per-view KFD + 1-NN classifiers (a
    pool of ``M``, one per view, each possibly chosen several times). A 1-NN rule is always
    right on its own training points, and a KFD fitted on all training samples nearly collapses
    each training class, so the training decisions used for the errors are *cross-fitted*
    (``cv`` folds: each sample is classified by a KFD + 1-NN fitted without its fold) or, with
    ``cv=None``, leave-one-out in the full KFD embedding (cheaper, optimistic). Boosting stops
    early when no learner beats chance (:math:`e_t \ge 1 - 1/C`) or one is perfect.

    Parameters
    ----------
    kernels : str, dict, ViewKernel or list of those, default='rbf'
    n_components : int or None, default=None
    reg : float, default=1e-3
    scaling : {'within', 'total', 'none'}, default='within'
        Metric of each view's embedding (:class:`graphdr.KernelLDA`'s ``scaling``).
    discriminant : {'lda', 'lde'}, default='lda'
        Each view's learner: KFD, or kernel LDE (``'lde'``: paper 001's KLDE-SAMME).
    n_neighbors, n_neighbors_between : int, default=5, 10
        LDE's graphs (``discriminant='lde'`` only; see :class:`KFD`).
    n_estimators : int, default=50
        Boosting rounds.
    cv : int or None, default=3
        Folds of the cross-fitted training decisions (stratified, deterministic); None for
        leave-one-out decisions in the full embedding.
    approximation, n_landmarks, random_state
        Of each view's :class:`KFD` (``'auto'``: exact up to 3,000 samples, Nystroem above).

    Attributes
    ----------
    estimators_ : list of KFD
    learner_indices_ : ndarray of shape (n_rounds,)
        View chosen at each round.
    learner_weights_ : ndarray of shape (n_rounds,)
        :math:`\alpha_t`.
    learner_errors_ : ndarray of shape (n_rounds,)
    training_mistakes_ : ndarray of shape (n_views, n_samples), bool
        Training decisions of each view's learner that were wrong (cross-fitted or LOO).
    classes_ : ndarray
    n_views_ : int
    """

    def __init__(self, kernels="rbf", *, n_components=None, reg=1e-3, scaling="within",
                 discriminant="lda", n_neighbors=5, n_neighbors_between=10, n_estimators=50,
                 cv=3, approximation="auto", n_landmarks=500, random_state=None):
        self.kernels = kernels
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.discriminant = discriminant
        self.n_neighbors = n_neighbors
        self.n_neighbors_between = n_neighbors_between
        self.n_estimators = n_estimators
        self.cv = cv
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    def _training_mistakes(self, views, y_enc, estimators):
        """M x n boolean matrix: is the learner of view m (``estimators``, fitted on every
        sample) wrong on training sample i?"""
        if self.cv is None:
            return np.stack([est.neighbour_labels(None, 1)[:, 0] != y_enc
                             for est in estimators])
        specs = make_view_kernels(self.kernels, len(views))
        # folds dealt by the rows' content: the same whatever the row order
        keys = row_keys(views, precomputed=[s.kernel == "precomputed" for s in specs])
        folds = stratified_folds(y_enc, self.cv, keys)
        pred = np.empty((len(views), len(y_enc)), dtype=np.intp)
        for tr, te in folds:
            if len(te) == 0:
                continue  # more folds than a class has rows: that fold tests nothing
            if len(np.unique(y_enc[tr])) < 2:
                raise ValueError("KFDSAMME: a cross-fitting fold has a single class; lower cv.")
            for m, (spec, V) in enumerate(zip(specs, views)):
                est = self._kfd(spec).fit(V[tr], y_enc[tr])
                pred[m, te] = est.predict(V[te])
        return pred != y_enc[None, :]

    @managed_threads
    @checked_parameters
    def fit(self, Xs, y):
        """Fit one KFD per view, then the SAMME weights. ``Xs`` is a list of views."""
        check_int(self.n_estimators, "n_estimators")
        if self.cv is not None:
            check_int(self.cv, "cv", min_value=2)
        views, y_enc, fitted = self._fit_views(Xs, y)
        n, C = len(y_enc), len(fitted.values["classes_"])
        if self.cv is not None and self.cv > n:
            raise ValueError(f"KFDSAMME: cv={self.cv} folds for {n} samples; cv must be between "
                             f"2 and the number of samples (or None: leave-one-out in the KFD "
                             "embedding).")
        wrong = self._training_mistakes(views, y_enc, fitted.values["estimators_"])  # M x n
        w = np.full(n, 1.0 / n)
        idx, alphas, errors = [], [], []
        for _ in range(self.n_estimators):
            err = wrong @ w / w.sum()
            m = int(np.argmin(err))
            e = float(err[m])
            if e >= 1.0 - 1.0 / C:
                break
            if e <= 0:
                idx.append(m)
                alphas.append(1.0)
                errors.append(0.0)
                break
            alpha = np.log((1.0 - e) / e) + np.log(C - 1.0)
            idx.append(m)
            alphas.append(alpha)
            errors.append(e)
            w = w * np.exp(alpha * wrong[m])
            w /= w.sum()
        if not idx:  # no learner beats chance: fall back to the best one alone
            idx, alphas, errors = [int(np.argmin(wrong.mean(axis=1)))], [1.0], [
                float(wrong.mean(axis=1).min())]
        (fitted | Selected(dict(learner_indices_=np.asarray(idx, dtype=np.intp),
                                learner_weights_=np.asarray(alphas),
                                learner_errors_=np.asarray(errors),
                                training_mistakes_=wrong))).write(self)
        return self

    def predict(self, Xs):
        """Weighted vote of the boosted per-view learners."""
        views = self._check_predict_views(Xs)
        n, C = views[0].shape[0], len(self.classes_)
        used = np.unique(self.learner_indices_)
        preds = {m: self.estimators_[m].neighbour_labels(views[m], 1)[:, 0] for m in used}
        scores = np.zeros((n, C))
        rows = np.arange(n)
        for m, a in zip(self.learner_indices_, self.learner_weights_):
            scores[rows, preds[m]] += a
        return self.classes_[np.argmax(scores, axis=1)]
