"""
2-D maps of labelled data, and new samples placed on them
=========================================================

A linear map (:class:`graphdr.LDA`, :class:`graphdr.DEE`) or a kernel map with one width
(:class:`graphdr.KQMI`) draws ten digit classes on top of one another in 2-D: no plane
separates them. :class:`graphdr.DEEMap` minimises DEE's objective (attract neighbours of the
same class, repel other classes) over the map itself, so every class gets its own region, and
places new samples by their nearest training samples (``transform``).
:func:`graphdr.map2d` is the same map in one call, drawn as PNG and HTML.

Below, each method is fitted on 1200 digits and the 597 others are placed out of sample; the
title gives their 1-NN error on the map (the training samples' map as reference). The committed
benchmark (``benchmarks/results/maps2d.md``) adds supervised UMAP and openTSNE.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from graphdr import DEE, KQMI, LDA, DEEMap

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, train_size=1200, stratify=y,
                                                    random_state=0)
maps = {
    "LDA": LDA(n_components=2),
    "DEE (linear)": DEE(n_components=2),
    "KQMI (kernel)": KQMI(n_components=2),
    "DEEMap": DEEMap(),
}
fig, axes = plt.subplots(1, 4, figsize=(13, 3.6))
for ax, (name, model) in zip(axes, maps.items()):
    model.fit(X_train, y_train)
    Z_train = getattr(model, "embedding_", None)
    Z_train = model.transform(X_train) if Z_train is None else Z_train
    Z_test = model.transform(X_test)
    error = np.mean(KNeighborsClassifier(1).fit(Z_train, y_train).predict(Z_test) != y_test)
    ax.scatter(*Z_train.T, s=1, color="0.85")
    ax.scatter(*Z_test.T, s=4, c=y_test, cmap="tab10")
    ax.set_title(f"{name}: held-out 1-NN error {100 * error:.1f} %", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()

# %%
# The map in one call
# -------------------
# ``map2d`` fits :class:`graphdr.DEEMap` with its defaults; with ``out="digits-map"`` it also
# writes ``digits-map.png`` and a self-contained ``digits-map.html`` (``graphdr map DATA`` on
# the command line does the same for a CSV or ``.npz`` file).
from graphdr import map2d  # noqa: E402
from graphdr.map2d import plot_map  # noqa: E402

model = map2d(X, y)
plot_map(model, y, title=f"DEEMap of the {len(y)} digits ({model.n_iter_} iterations)")
