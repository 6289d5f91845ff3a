"""
Partially labelled data: y = -1 for the samples without a label
===============================================================

Most labelled data sets are partially labelled: a few labels and many rows without one.
graphdr follows scikit-learn's convention (:mod:`sklearn.semi_supervised`): ``y = -1`` marks
an unlabelled sample. The semi-supervised estimators (:class:`graphdr.LDA`,
:class:`graphdr.KernelLDA`, :class:`graphdr.LQMI`, :class:`graphdr.KQMI`, :class:`graphdr.MFA`,
:class:`graphdr.LDE`, :class:`graphdr.LFDA`, :class:`graphdr.SemiLFDA` and
:class:`graphdr.DEEMap`) use the unlabelled rows; the others refuse them with a message that
names these. Here 5 % of each class of training digits keep their label (60 of 1257).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

import graphdr
from graphdr.maps.views.draw import plot_map

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, test_size=0.3, stratify=y,
                                                    random_state=0)
rng = np.random.default_rng(0)
y_partial = np.full(len(y_train), -1)
for c in range(10):
    members = np.flatnonzero(y_train == c)
    y_partial[rng.choice(members, round(0.05 * len(members)), replace=False)] = c
labelled = y_partial >= 0
print(f"{labelled.sum()} labelled and {(~labelled).sum()} unlabelled training digits")


def error(est, fitted_on_all):
    """1-NN error of the test digits against the labelled training digits in the embedding."""
    if type(est).__name__ == "DEEMap":
        Z = est.embedding_[labelled] if fitted_on_all else est.embedding_
    else:
        Z = est.transform(X_train[labelled])
    knn = KNeighborsClassifier(1).fit(Z, y_partial[labelled])
    return 100 * np.mean(knn.predict(est.transform(X_test)) != y_test)


# %%
# Kernel LDA with and without the unlabelled digits
# -------------------------------------------------
# With ``y = -1`` in ``y`` and ``unlabelled='auto'`` (the default), the fit weighs three uses
# of the unlabelled digits on held-out labels: none (the fit of the labelled digits alone),
# the Laplacian form of a neighbour graph over all samples in the denominator of the Fisher
# ratio (semi-supervised discriminant analysis, its weight ``smoothing_`` chosen in closed
# form), or the classes Poisson learning propagates to them. It uses them only where a sign
# test on the held-out labels backs it; ``unlabelled_`` says what it chose.
semi = graphdr.KernelLDA().fit(X_train, y_partial)
alone = graphdr.KernelLDA().fit(X_train[labelled], y_partial[labelled])
print(f"kernel LDA, labelled digits only: {error(alone, False):.1f} % test error (1-NN)")
print(f"kernel LDA with the unlabelled digits: {error(semi, True):.1f} % "
      f"(unlabelled_ = {semi.unlabelled_!r})")

# %%
# A map with the unlabelled digits
# --------------------------------
# :class:`graphdr.DEEMap`'s default, the heavy-tailed map, keeps every unlabelled sample in
# t-SNE's field with the class propagated to it, unless maps of the labelled samples alone
# classify held-out labels better (``unlabelled_`` says which). The picture draws the
# unlabelled samples in grey; the page of :func:`graphdr.map2d` and ``graphdr map`` (which
# read an empty label or -1 as unlabelled) in a light tint of their propagated class.
map_semi = graphdr.DEEMap().fit(X_train, y_partial)
map_alone = graphdr.DEEMap().fit(X_train[labelled], y_partial[labelled])
fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
plot_map(map_alone, y_partial[labelled], axes[0],
         title=f"{labelled.sum()} labelled digits only: test error "
         f"{error(map_alone, False):.1f} %")
plot_map(map_semi, y_partial, axes[1],
         title=f"with {(~labelled).sum()} unlabelled (grey): test error "
         f"{error(map_semi, True):.1f} %")
fig.tight_layout()
