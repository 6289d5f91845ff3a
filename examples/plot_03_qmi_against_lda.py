"""
Quadratic mutual information against LDA
========================================

Three ways to use Torkkola's quadratic mutual information (QMI) between an embedding and the
labels, compared with LDA:

* :class:`graphdr.LQMI`, the closed form of paper 000, is a graph embedding with the *QMI
  graph*; at ``C - 1`` dimensions it spans exactly LDA's subspace, below that it orders the
  directions differently when classes are unbalanced;
* :func:`graphdr.qmi_potentials` evaluates the criterion of any embedding;
* :class:`graphdr.QMIProjection` maximises it by gradient ascent over orthonormal projections,
  starting from LDA.
"""

# %%
# Unbalanced classes
# ------------------
# The wine data with one class cut down, so that the classes are unbalanced (LQMI and LDA
# coincide exactly for balanced classes).
import matplotlib.pyplot as plt
import numpy as np
from scipy.linalg import subspace_angles
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from graphdr import LDA, LQMI, QMIProjection, qmi_potentials

X, y = load_wine(return_X_y=True)
keep = np.flatnonzero((y != 2) | (np.arange(len(y)) % 4 == 0))
X, y = StandardScaler().fit_transform(X[keep]), y[keep]
print("class sizes:", np.bincount(y))

# %%
# Same subspace at C - 1 dimensions
# ---------------------------------
# With three classes, ``C - 1 = 2``: the largest principal angle between the LDA and LQMI
# projections is zero up to rounding. At one dimension they differ.
for d in (2, 1):
    lda, lqmi = LDA(n_components=d).fit(X, y), LQMI(n_components=d).fit(X, y)
    angle = np.degrees(subspace_angles(lda.components_.T, lqmi.components_.T).max())
    print(f"n_components={d}: largest principal angle LDA / LQMI = {angle:.2e} degrees")

# %%
# The criterion of each embedding
# -------------------------------
# :func:`~graphdr.qmi_potentials` returns the information potentials and the criteria
# ``I_T = V_IN + V_ALL - 2 V_BTW``, ``MI_A = V_IN / V_ALL`` and ``MI_B = V_IN / V_BTW``. The
# embeddings are made orthonormal projections first (``W^T W = I``) so that their scales
# compare, and one Parzen width is used for all.
def orthonormal(components):
    q, _ = np.linalg.qr(components.T)
    return q


sigma = 0.5
lda1 = LDA(n_components=1).fit(X, y)
lqmi1 = LQMI(n_components=1).fit(X, y)
qmi = QMIProjection(n_components=1, criterion="qmi", init="lda", sigma=sigma, max_iter=40,
                    random_state=0).fit(X, y)
embeddings = {
    "LDA": X @ orthonormal(lda1.components_),
    "LQMI": X @ orthonormal(lqmi1.components_),
    "QMIProjection": qmi.transform(X),  # orthonormal already; X is centred
}
for name, Y in embeddings.items():
    p = qmi_potentials(Y, y, sigma=sigma)
    print(f"{name:14s} I_T = {p['I_T']:.5f}   MI_A = {p['MI_A']:.4f}   MI_B = {p['MI_B']:.4f}")

# %%
# Gradient ascent never decreases the criterion at a fixed width: ``history_`` records it per
# iteration, starting from the LDA direction (``init_objective_``).
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.4))
ax0.plot(np.r_[qmi.init_objective_, qmi.history_["objective"]], marker="o", ms=3)
ax0.set_xlabel("iteration")
ax0.set_ylabel("I_T")
ax0.set_title("QMIProjection from LDA (sigma = 0.5)")
for offset, Y in enumerate(embeddings.values()):
    for c in np.unique(y):
        ax1.scatter(Y[y == c, 0], np.full((y == c).sum(), offset) + 0.08 * c, s=8,
                    color=plt.cm.viridis(c / 2), label=f"class {c}" if offset == 0 else None)
ax1.set_yticks(range(len(embeddings)), list(embeddings))
ax1.set_xlabel("1-D projection")
ax1.legend(fontsize=7, loc="lower right")
fig.tight_layout()

# %%
# Which to use: at ``C - 1`` dimensions LQMI gives LDA's subspace at LDA's cost; the kernel
# version :class:`graphdr.KQMI` gives kernel LDA's. :class:`~graphdr.QMIProjection` is for
# when the criterion itself matters, or fewer dimensions than ``C - 1`` are wanted; it is
# iterative and its result depends on the Parzen width ``sigma``.
