"""
How the defaults choose the kernel width and the ridge
======================================================

With ``gamma='auto'`` and ``reg='auto'`` (the defaults), :class:`graphdr.KernelLDA` and
:class:`graphdr.KQMI` choose the RBF width and the ridge from the training data: the pair of
the grid whose kernel ridge regression of the class indicators has the smallest exact
leave-one-out squared error, in closed form (one eigendecomposition per width serves every
ridge; :mod:`graphdr.tuning`). Nothing in it is random, so two fits give the same model. The
record is in ``cv_results_``; :func:`graphdr.tuning.plotting.plot_cv_results` draws it.
"""

# %%
# The criterion against the width
# -------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.preprocessing import minmax_scale

from graphdr import LDA, KernelLDA
from graphdr.tuning.plotting import plot_cv_results

X, y = load_digits(return_X_y=True)
X = minmax_scale(X, (-1, 1))[::3]
y = y[::3]
kfd = KernelLDA().fit(X, y)
print(f"chosen gamma_ = {kfd.gamma_:.4g}, reg_ = {kfd.reg_:.3g}")

Xb, yb = load_breast_cancer(return_X_y=True)
lda = LDA().fit(minmax_scale(Xb, (-1, 1)), yb)
print(f"LDA on breast_cancer: reg_ = {lda.reg_:.3g}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
plot_cv_results(kfd, ax=axes[0])
axes[0].set_title("KernelLDA on digits: width and ridge")
plot_cv_results(lda, ax=axes[1])
axes[1].set_title("LDA on breast_cancer: ridge")
fig.tight_layout()

# %%
# Does the criterion track the classification error?
# --------------------------------------------------
# ``cv_results_`` also holds ``mean_test_error_loo``, the leave-one-out error rate of the
# nearest class target in the regression; both criteria are computed on the same held-out
# fits. At the best ridge of each width, they fall and rise together:
table = kfd.cv_results_
for g in np.unique(table["param_gamma"]):
    at = table["param_gamma"] == g
    best = np.argmin(table["mean_test_error"][at])
    print(f"gamma = {g:9.3g}: PRESS {table['mean_test_error'][at][best]:.4f}, "
          f"leave-one-out error {100 * table['mean_test_error_loo'][at][best]:5.1f} %")

# %%
# ``benchmarks/results/model_selection.md`` compares this choice, on 13 data sets, with the
# nested cross-validation a careful user would run with
# :class:`~sklearn.model_selection.GridSearchCV` (``benchmarks/model_selection.py``).
