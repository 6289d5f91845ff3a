"""Evaluation protocols of ``graphdr bench``: each reproduces one paper's experimental setting.

=============  ===========================================================================
protocol       setting
=============  ===========================================================================
``bouzas``     paper 000, Tables II-V: features scaled to [-1, 1] on the training fold,
               stratified 10-fold CV, classifiers nearest class centroid, 3-NN, linear SVM
               (C=100) and RBF SVM (C=100, sigma=1); kernel methods use an RBF kernel with
               sigma=1 (gamma=0.5); dimensions 1..C-1; per method the minimum error over the
               dimensions, the dimension in parentheses, the best per data set in bold, a wins
               row. The projections have the paper's normalisation, unit length
               (``scaling='none'``; the paper's Algorithms 1-2 divide each eigenvector by its
               norm): the RBF SVM with a fixed sigma depends on it.
``gavriilidis``  paper 002, Tables 2-4: scaled to [0, 1], 5x2 CV (five repetitions of stratified
               2-fold CV), k-NN (1-NN by default; the paper does not give k), dimensions
               1..C-1, QMI with random and LDA initialisation.
``dee``        paper 003, Fig. 11 and Fig. 6: ten random splits with a fixed number of training
               samples per class (default 25, as for USPS), 1-NN recognition rate versus
               dimension 1..min(30, D), and the optimizers' objective-versus-iteration curves.
``mkldr``      paper 001, Table 1: multi-view data (``.npz`` with ``view_*`` arrays), 1-NN in
               the learned space, MKL-LDA and MKL-LDE against kernel LDA on the equal-weight
               average of the same base kernels (``kfd-average``: do the learned weights
               help?), single-view kernel Fisher discriminants (``kernel-lda:view=each``),
               KFD-Voting and KFD-SAMME (their own predictions: classifier ``own``);
               stratified 5-fold CV here.
``defaults``   every estimator with its own defaults under paper 000's protocol: features
               scaled to [-1, 1] on the training fold, stratified 10-fold CV, 1-NN, 3-NN and
               nearest class centroid, each method at ONE dimension, its estimator's default
               ``n_components`` (``dimension='c-1'``: min(C-1, its limit)), so that nothing
               is tuned on the test folds; graphdr's kernel width and ridge by their own
               inner selection (``--methods lda:reg=auto`` for LDA's default ridge: the
               registry's ``lda`` is the papers' classical LDA).
``demo``       the quick preset of ``graphdr demo``: standardised features, stratified 10-fold
               CV, 1-NN, dimensions 1..C-1, graphdr's foundation methods with scikit-learn's
               PCA, kernel PCA, NCA and t-SNE (pictures only) as reference points.
=============  ===========================================================================
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["Protocol", "PROTOCOLS", "get_protocol", "DEFAULT_DIM"]

#: the dimension of a method evaluated at its estimator's own ``n_components``
DEFAULT_DIM = 0


@dataclass(frozen=True)
class Protocol:
    """One experimental setting (all fields can be overridden from the command line)."""

    name: str
    description: str
    scaling: str  # 'minmax' ([-1, 1]), 'minmax01' ([0, 1]), 'standard', 'none'
    split: str  # 'kfold' (stratified, repeated) or 'per_class' (random, n_train per class)
    n_splits: int = 10
    n_repeats: int = 1
    n_train_per_class: float = 25
    classifiers: tuple = ("1nn",)
    max_dim: int | None = None  # None: 1..C-1 (capped by each method's own limit)
    kernel_gamma: float | None = None  # None: each kernel method's default (1 / n_features)
    svm_gamma: float = 0.5  # RBF SVM on the embedding, sigma = 1
    methods: tuple = ()
    datasets: tuple = ()
    curves: str = "error"  # what the error-vs-dimension plot shows: 'error' or 'recognition'
    dim_grid: tuple | None = None  # evaluate only these dimensions (and each method's limit)
    #: the papers' normalisation of the projections, passed as ``scaling`` to the estimators that
    #: have one (unless the method sets it); None: each estimator's default ('within')
    projection: str | None = None
    #: 'range': the dimensions 1..C-1 (or ``dim_grid``); 'default': one, each estimator's own
    #: ``n_components``; 'c-1': one, min(C - 1, the method's limit)
    dimension: str = "range"
    #: ``(data set, method, rows)``: the training fold of that cell is a stratified subsample of
    #: that many rows (seeded by the fold; the test fold stays whole), for cells too slow whole
    train_caps: tuple = ()

    def replace(self, **changes):
        changes = {k: v for k, v in changes.items() if v is not None}
        return dataclasses.replace(self, **changes)

    def dims(self, n_classes, method_limit):
        """Dimensions evaluated for a data set with ``n_classes`` and a method's limit."""
        if self.dimension == "default":
            return [DEFAULT_DIM]
        top = self.max_dim if self.max_dim is not None else n_classes - 1
        cap = max(1, min(top, method_limit))
        if self.dimension == "c-1":
            return [cap]
        if self.dim_grid is None:
            return list(range(1, cap + 1))
        return sorted({d for d in self.dim_grid if d <= cap} | {cap})

    def capped(self, dataset, method, train, y, fold):
        """The training rows of a cell: ``train``, or its stratified subsample of the rows
        :attr:`train_caps` gives ``(dataset, method)``."""
        cap = next((n for d, m, n in self.train_caps if d == dataset and m == method), None)
        if cap is None or cap >= len(train):
            return train
        from sklearn.model_selection import train_test_split

        kept, _ = train_test_split(train, train_size=cap, stratify=np.asarray(y)[train],
                                   random_state=fold)
        return kept

    @property
    def n_folds(self):
        return self.n_splits * self.n_repeats if self.split == "kfold" else self.n_repeats

    def splits(self, y, seed, classes=None):
        """List of (train indices, test indices), deterministic in ``seed``; ``classes``: the
        names of the codes in ``y``, for the messages."""
        y = np.asarray(y)
        if self.split == "kfold":
            from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold

            counts = np.bincount(y)
            if counts.min() < 2:
                c = int(np.argmin(counts))
                name = repr(str(classes[c])) if classes is not None else str(c)
                raise ValueError(
                    f"Protocol {self.name!r} uses stratified {self.n_splits}-fold CV, but class "
                    f"{name} has 1 sample: cross-validation needs at least 2 samples of every "
                    "class; drop that class's rows or give it more samples."
                )
            if counts.min() < self.n_splits:
                raise ValueError(
                    f"Protocol {self.name!r} uses stratified {self.n_splits}-fold CV, but the "
                    f"smallest class has {counts.min()} samples; use --folds {counts.min()} or "
                    "less."
                )
            if self.n_repeats == 1:
                cv = StratifiedKFold(self.n_splits, shuffle=True, random_state=seed)
            else:
                cv = RepeatedStratifiedKFold(
                    n_splits=self.n_splits, n_repeats=self.n_repeats, random_state=seed
                )
            return list(cv.split(np.zeros((len(y), 1)), y))
        if self.split == "per_class":
            out = []
            for r in range(self.n_repeats):
                rng = np.random.default_rng([seed, r])
                train = []
                for c in np.unique(y):
                    members = np.flatnonzero(y == c)
                    k = self.n_train_per_class
                    k = int(round(k * len(members))) if k < 1 else int(k)
                    if k >= len(members):
                        raise ValueError(
                            f"Protocol {self.name!r} trains on {k} samples per class, but class "
                            f"{c} has only {len(members)}; lower --train-per-class."
                        )
                    train.append(rng.choice(members, size=k, replace=False))
                train = np.sort(np.concatenate(train))
                out.append((train, np.setdiff1d(np.arange(len(y)), train)))
            return out
        raise ValueError(f"Unknown split {self.split!r}")

    def settings(self):
        """What identifies the numbers of a run (compared when resuming)."""
        keys = ("name", "scaling", "split", "n_splits", "n_repeats", "n_train_per_class",
                "max_dim", "kernel_gamma", "svm_gamma")
        out = {k: getattr(self, k) for k in keys}
        if self.dim_grid is not None:  # absent otherwise: older results stay resumable
            out["dim_grid"] = [int(d) for d in self.dim_grid]
        if self.projection is not None:  # likewise
            out["projection"] = self.projection
        if self.dimension != "range":
            out["dimension"] = self.dimension
        if self.train_caps:
            out["train_caps"] = [list(c) for c in self.train_caps]
        return out


_FOUNDATION = ("lda", "lpp", "supervised-lpp", "mfa", "lde", "kernel-lda", "supervised-kernel-lpp",
               "ckfd", "pca", "kernel-pca", "nca", "tsne")

PROTOCOLS = {
    "bouzas": Protocol(
        "bouzas", "paper 000 (Bouzas et al.), Tables II-V", scaling="minmax", split="kfold",
        n_splits=10, classifiers=("ncc", "3nn", "linear-svm", "rbf-svm"), kernel_gamma=0.5,
        projection="none",
        methods=("lda", "lqmi", "supervised-lpp", "kernel-lda", "kqmi", "supervised-kernel-lpp",
                 "ckfd", "pca", "kernel-pca"),
        datasets=("vehicle", "vowel", "sonar", "ionosphere"),
    ),
    "gavriilidis": Protocol(
        "gavriilidis", "paper 002 (Gavriilidis & Tefas), Tables 2-4", scaling="minmax01",
        split="kfold", n_splits=2, n_repeats=5, classifiers=("1nn",),
        methods=("qmi:init=random", "qmi:init=lda", "mi-a:init=random", "mi-a:init=lda",
                 "mi-b:init=random", "mi-b:init=lda", "lda", "pca"),
        datasets=("iris", "wine", "vehicle", "led7digit"),
    ),
    "dee": Protocol(
        "dee", "paper 003 (Zheng et al.), Fig. 11 and Fig. 6", scaling="standard",
        split="per_class", n_repeats=10, n_train_per_class=25, classifiers=("1nn",), max_dim=30,
        methods=("dee", "dsne", "mmpa", "dcv", "lda", "pca"), datasets=("digits",),
        curves="recognition",
    ),
    "mkldr": Protocol(
        "mkldr", "paper 001 (Lin et al.), Table 1", scaling="standard", split="kfold",
        n_splits=5, classifiers=("1nn",),
        methods=("mkl-lda", "mkl-lde", "kfd-average", "kernel-lda:view=each", "kfd-voting",
                 "kfd-samme"),
        curves="recognition",
    ),
    "defaults": Protocol(
        "defaults", "every estimator with its defaults, paper 000's protocol, one dimension",
        scaling="minmax", split="kfold", n_splits=10, classifiers=("1nn", "3nn", "ncc"),
        dimension="default",
        methods=("raw", "lda:reg=auto", "kernel-lda", "lqmi:reg=auto", "kqmi", "lfda", "dee",
                 "sklearn-lda", "nca"),
        datasets=("vehicle", "vowel", "sonar", "ionosphere"),
    ),
    "demo": Protocol(
        "demo", "graphdr demo (quick preset)", scaling="standard", split="kfold", n_splits=10,
        classifiers=("1nn",), methods=_FOUNDATION, datasets=("wine",),
    ),
}


def get_protocol(name):
    """Return the :class:`Protocol` called ``name``; ValueError naming the known ones."""
    key = str(name).strip().lower()
    if key not in PROTOCOLS:
        raise ValueError(f"Unknown protocol {name!r}. Known protocols: {', '.join(PROTOCOLS)}.")
    return PROTOCOLS[key]
