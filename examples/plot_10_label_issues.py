"""
Finding mislabelled samples
===========================

:class:`graphdr.LabelIssues` ranks the samples whose given label the data contradicts. Here 60
of scikit-learn's digits get a wrong label on purpose; the audit finds them, says which class
the data supports, and a discriminant fitted with ``labels='audit'`` leaves them out of its
classes; the last part is the workflow of the map's page: find the suspects, inspect them,
fix their labels, refit.
"""

import csv
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from graphdr import LDA, DEEMap, LabelIssues
from graphdr.io.label_fixes import apply_label_fixes
from graphdr.maps.views.fitted import feature_neighbours
from graphdr.maps.views.picture import plot_map

X, y = load_digits(return_X_y=True)
rng = np.random.default_rng(0)
wrong = rng.choice(len(y), 60, replace=False)
noisy = y.copy()
noisy[wrong] = (y[wrong] + rng.integers(1, 10, len(wrong))) % 10   # another digit

audit = LabelIssues().fit(X, noisy)
print(f"flagged {audit.is_issue_.sum()} samples; "
      f"{np.sum(audit.is_issue_[wrong])} of the 60 wrong labels among them")

# %%
# The most suspect samples first: their given label, the class the data supports, the
# label quality (the out-of-sample probability of the given label), the suspicion (that of
# the likeliest other class) and whether they are flagged (``suspect``).
table = audit.to_frame()
print(table.head(10))

# %%
# Look at the twelve most suspect images.
worst = table.index[:12]
fig, axes = plt.subplots(2, 6, figsize=(9, 3.4))
for ax, i in zip(axes.ravel(), worst):
    ax.imshow(X[i].reshape(8, 8), cmap="gray_r")
    ax.set_title(f"given {noisy[i]}, data {audit.suggested_label_[i]}", fontsize=8)
    ax.axis("off")
fig.tight_layout()

# %%
# A fit that does not follow the flagged labels: ``labels='audit'`` fits them as unlabelled
# (``y = -1``); ``label_issues_`` is the audit it used.
lda = LDA(labels="audit").fit(X, noisy)
print("LDA set aside", lda.label_issues_.is_issue_.sum(), "labels; unlabelled use:",
      lda.unlabelled_)

# %%
# On the map: ``labels='flag'`` keeps the labels as given and rings the suspects (the page of
# ``map.show()`` and ``graphdr map`` add a legend entry, hover and search for them).
flagged_map = DEEMap(labels="flag").fit(X, noisy)
plot_map(flagged_map, noisy, title="digits, 60 labels flipped: the suspects ringed")

# %%
# Find, inspect, fix, refit
# -------------------------
# On the map's page (``graphdr map digits.csv``, or ``flagged_map.show()`` in a notebook) a
# user searches ``suspect`` or draws a lasso round the ringed samples, clicks one to list its
# nearest samples in the features the map was fitted on, accepts the suggested classes (or
# sets one) and downloads the fixes as CSV (``id,old label,new label``); ``graphdr map
# digits.csv --label-fixes graphdr-label-fixes.csv`` then maps the corrected labels. The same
# steps in Python: a suspect's neighbours in the features, as the page lists them ...
near, distance = feature_neighbours(flagged_map)
issues = flagged_map.label_issues_
suspects = np.flatnonzero(issues.is_issue_)
for i in suspects[:5]:
    print(f"sample {i}: given {noisy[i]}, suggested {issues.suggested_label_[i]}; its 5 nearest "
          f"digits in the features are labelled {noisy[near[i]].tolist()}")

# %%
# ... the fixes the page downloads (every suspect given its suggested class: the page's
# "accept their suggested class" on a selection of the suspects), applied as the command line
# applies them (an unknown id or a stale old label would be refused, nothing changed) ...
fixes = Path(tempfile.mkdtemp()) / "graphdr-label-fixes.csv"
with open(fixes, "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["id", "old label", "new label"])
    for i in suspects:
        writer.writerow([i, noisy[i], issues.suggested_label_[i]])
fixed, _, changed = apply_label_fixes(fixes, noisy)
print(f"{changed} labels changed; wrong labels: {np.sum(noisy != y)} before, "
      f"{np.sum(fixed != y)} after")

# %%
# ... and the map of the corrected labels beside the map of the flipped ones.
refit = DEEMap(labels="flag").fit(X, fixed)
fig, axes = plt.subplots(1, 2, figsize=(11, 5))
plot_map(flagged_map, noisy, axes[0], title=f"{np.sum(noisy != y)} wrong labels, ringed")
plot_map(refit, fixed, axes[1], title=f"after the fixes: {np.sum(fixed != y)} wrong labels")
fig.tight_layout()
