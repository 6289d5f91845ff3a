"""
Discriminative elastic embedding: optimisers and 2-D maps
=========================================================

:class:`graphdr.DEE` minimises the elastic-embedding objective over a linear map: same-class
neighbours attract, samples of different classes repel. Four optimisers share one Wolfe line
search; the Laplacian direction (``'ld'``, the default) needs the fewest iterations. The
result is a 2-D map that places new samples too (unlike t-SNE or
:class:`graphdr.ElasticEmbedding`).
"""

# %%
# The optimisers on the same problem
# ----------------------------------
# 600 digits, 2-D, PCA start, at most 60 iterations each. ``history_`` records the objective
# and the elapsed time of every iteration. The pixels are used as they are, scaled to [0, 1]
# (standardising them would blow up the few pixels that are almost always blank).
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from graphdr import DEE, ElasticEmbedding

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=600, test_size=600,
                                                    stratify=y, random_state=0)

fits = {}
for optimizer in ("ld", "fp", "cg", "gd"):
    # significance=None: always return the optimised projection (by default DEE returns its
    # PCA start when that makes fewer held-out errors, and then runs no iteration)
    fits[optimizer] = DEE(n_components=2, optimizer=optimizer, max_iter=60, tol=1e-5,
                          significance=None).fit(X_train, y_train)
    est = fits[optimizer]
    print(f"{optimizer}: {est.n_iter_:3d} iterations, objective {est.objective_:.6f}, "
          f"{est.history_['time'][-1]:.2f} s")

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.4))
for optimizer, est in fits.items():
    objective = np.r_[est.initial_objective_, est.history_["objective"]]
    ax0.plot(objective, label=optimizer)
    ax1.plot(np.r_[0.0, est.history_["time"]], objective, label=optimizer)
ax0.set_xlabel("iteration")
ax1.set_xlabel("seconds")
for ax in (ax0, ax1):
    ax.set_ylabel("E(A)")
    ax.set_yscale("log")
    ax.legend()
fig.suptitle("DEE on 600 digits, 2-D")
fig.tight_layout()

# %%
# 2-D maps
# --------
# DEE's map of the *test* digits (embedded by ``transform``), next to the unsupervised elastic
# embedding of the training digits (which has no ``transform``). ``lam`` weighs the repulsion.
dee = fits["ld"]
Z_train, Z_test = dee.transform(X_train), dee.transform(X_test)
error = 1 - KNeighborsClassifier(1).fit(Z_train, y_train).score(Z_test, y_test)
ee = ElasticEmbedding(n_components=2, max_iter=100).fit(X_train)

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 4.5))
ax0.scatter(Z_test[:, 0], Z_test[:, 1], c=y_test, cmap="tab10", s=8)
ax0.set_title(f"DEE: test digits\n(1-NN error in 2-D: {100 * error:.1f} %)", fontsize=10)
E = ee.embedding_
sc = ax1.scatter(E[:, 0], E[:, 1], c=y_train, cmap="tab10", s=8)
ax1.set_title("elastic embedding (unsupervised):\ntraining digits", fontsize=10)
for ax in (ax0, ax1):
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(sc, ax=[ax0, ax1], ticks=range(10), label="digit")
print(f"DEE 2-D map: 1-NN test error {100 * error:.1f} %")
