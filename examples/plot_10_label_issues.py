"""
Finding mislabelled samples
===========================

:class:`graphdr.LabelIssues` ranks the samples whose given label the data contradicts. Here 60
of scikit-learn's digits get a wrong label on purpose; the audit finds them, says which class
the data supports, and a discriminant fitted with ``labels='audit'`` leaves them out of its
classes.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from graphdr import LDA, DEEMap, LabelIssues
from graphdr.maps.picture import plot_map

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
