"""
Quick start: a 2-D map of labelled data
=======================================

Every graphdr estimator is a scikit-learn transformer: ``fit(X, y)`` learns a projection from
labelled samples, ``transform`` embeds new samples. Here four of them map the wine data
(13 features, 3 classes) to two dimensions, next to scikit-learn's PCA, which ignores the
labels.
"""

# %%
# Fit and embed
# -------------
# Scale the features first: the methods compare distances between samples, and wine's
# features have very different units.
import matplotlib.pyplot as plt
from sklearn.datasets import load_wine
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from graphdr import DEE, LDA, LQMI, KernelLDA

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y,
                                                    random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)

methods = {
    "PCA (unsupervised)": PCA(n_components=2),
    "LDA": LDA(n_components=2),
    "KernelLDA (RBF)": KernelLDA(n_components=2),
    "LQMI": LQMI(n_components=2),
    "DEE": DEE(n_components=2, random_state=0),
}

# %%
# Each method is fitted on the training half only; the plots show the *test* half, embedded by
# ``transform``, with the 1-nearest-neighbour error measured in the 2-D embedding.
fig, axes = plt.subplots(1, len(methods), figsize=(3.2 * len(methods), 3.2))
for ax, (name, est) in zip(axes, methods.items(), strict=True):
    est.fit(X_train, y_train)
    Z_train, Z_test = est.transform(X_train), est.transform(X_test)
    knn = KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train)
    error = 1 - knn.score(Z_test, y_test)
    ax.scatter(Z_test[:, 0], Z_test[:, 1], c=y_test, cmap="viridis", s=12)
    ax.set_title(f"{name}\n1-NN test error {100 * error:.1f} %", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    print(f"{name:20s} 1-NN error in 2-D: {100 * error:5.1f} %")
fig.tight_layout()

# %%
# What was learned
# ----------------
# Linear estimators store ``components_`` (``transform(X) = (X - mean_) @ components_.T``);
# kernel estimators store ``dual_coef_`` on the training samples. ``get_feature_names_out``
# names the output columns, as in any scikit-learn transformer.
lda = methods["LDA"]
print("LDA components_:", lda.components_.shape)
print("KernelLDA dual_coef_:", methods["KernelLDA (RBF)"].dual_coef_.shape)
print("output names:", list(lda.get_feature_names_out()))
