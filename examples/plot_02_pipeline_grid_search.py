"""
In a Pipeline, tuned with GridSearchCV
======================================

graphdr's estimators follow the scikit-learn API, so they slot into a
:class:`~sklearn.pipeline.Pipeline` between a scaler and a classifier, and their
hyper-parameters (``n_components``, the kernel width ``gamma``, the ridge ``reg``...) can be
chosen by cross-validation with :class:`~sklearn.model_selection.GridSearchCV`.
"""

# %%
# A pipeline: scale, reduce, classify
# -----------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from graphdr import LDA, KernelLDA

X, y = load_breast_cancer(return_X_y=True)
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)

for name, reducer in [("LDA", LDA()), ("KernelLDA", KernelLDA())]:
    model = Pipeline([("scale", StandardScaler()), ("reduce", reducer),
                      ("knn", KNeighborsClassifier(n_neighbors=5))])
    scores = cross_val_score(model, X, y, cv=cv)
    print(f"{name:10s} 5-fold accuracy: {scores.mean():.3f} +- {scores.std():.3f}")

# %%
# With its default kernel width, kernel LDA is no better than LDA on these data (two classes
# that a hyperplane separates well). Kernel methods pay off with nonlinear class boundaries,
# and their kernel width matters: choose it by cross-validation.

# %%
# Choosing the kernel width and the ridge
# ---------------------------------------
# ``gamma`` is the RBF kernel's inverse squared width (``None`` means ``1 / n_features``,
# here 1/64) and ``reg`` the relative ridge that keeps out-of-sample projections stable.
# Grid search over both, on a subset of the digits to keep this example fast.
X, y = load_digits(return_X_y=True)
rng = np.random.default_rng(0)
subset = rng.choice(len(y), size=600, replace=False)
X, y = X[subset], y[subset]

model = Pipeline([("scale", StandardScaler()), ("reduce", KernelLDA()),
                  ("knn", KNeighborsClassifier(n_neighbors=1))])
grid = {"reduce__gamma": [1 / 1024, 1 / 256, 1 / 64, 1 / 16], "reduce__reg": [1e-3, 1e-2, 1e-1]}
search = GridSearchCV(model, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0))
search.fit(X, y)
print("best parameters:", search.best_params_)
print(f"best 3-fold accuracy: {search.best_score_:.3f}")

# %%
# The cross-validated accuracy over the grid:
scores = search.cv_results_["mean_test_score"].reshape(len(grid["reduce__gamma"]),
                                                       len(grid["reduce__reg"]))
fig, ax = plt.subplots(figsize=(5, 4))
im = ax.imshow(scores, cmap="viridis")
ax.set_xticks(range(len(grid["reduce__reg"])), [f"{r:g}" for r in grid["reduce__reg"]])
ax.set_yticks(range(len(grid["reduce__gamma"])), [f"{g:.4f}" for g in grid["reduce__gamma"]])
ax.set_xlabel("reg")
ax.set_ylabel("gamma")
for (i, j), s in np.ndenumerate(scores):
    ax.text(j, i, f"{s:.3f}", ha="center", va="center", fontsize=8,
            color="k" if s > scores.mean() else "w")
fig.colorbar(im, label="3-fold accuracy")
ax.set_title("KernelLDA + 1-NN on 600 digits")
fig.tight_layout()

# %%
# ``n_components`` in a grid
# --------------------------
# ``n_components`` is an ordinary hyper-parameter too; asking for more than a method allows
# (``C - 1`` for LDA) raises a ``ValueError`` naming the maximum, so the grid must stay below.
search = GridSearchCV(
    Pipeline([("scale", StandardScaler()), ("reduce", LDA()),
              ("knn", KNeighborsClassifier(n_neighbors=1))]),
    {"reduce__n_components": [2, 5, 9]}, cv=StratifiedKFold(3, shuffle=True, random_state=0))
search.fit(X, y)
for k, s in zip(search.cv_results_["param_reduce__n_components"],
                search.cv_results_["mean_test_score"], strict=True):
    print(f"LDA n_components={k}: 3-fold accuracy {s:.3f}")
