"""MKLDR defaults against sigma='auto' base kernels and reg='auto': 1-NN error,
5-fold CV on the multi-view digits of benchmarks/mkldr_digits.py, learned weights per fold.

Run:  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/mkldr_auto.py
(about 4 min; the output is copied by hand into benchmarks/results/mkldr_auto.md)
"""
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

from graphdr.multiview import MKLDR, make_multiview_digits

VIEWS = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")
data = make_multiview_digits(views=VIEWS, random_state=0)
views, y, kernels = data.views, data.target, data.kernels
auto_k = [{"kernel": k, "sigma": "auto"} for k in kernels]
skf = StratifiedKFold(5, shuffle=True, random_state=0)
res = {"default": [], "auto": []}
for fold, (tr, te) in enumerate(skf.split(y, y)):
    Vtr, Vte = [V[tr] for V in views], [V[te] for V in views]
    for name, est in (("default", MKLDR(kernels=kernels, random_state=fold)),
                      ("auto", MKLDR(kernels=auto_k, reg="auto", random_state=fold))):
        t = time.perf_counter()
        est.fit(Vtr, y[tr])
        knn = KNeighborsClassifier(1).fit(est.embedding_, y[tr])
        e = float(np.mean(knn.predict(est.transform(Vte)) != y[te]))
        res[name].append(e)
        print(fold, name, f"{e:.4f}", f"{time.perf_counter()-t:.0f}s", "w",
              np.round(est.kernel_weights_, 3), "reg", getattr(est, "reg_", None), flush=True)
for k, v in res.items():
    sizes = np.array([len(te) for _, te in skf.split(y, y)])
    print(k, "mean 1-NN error", np.mean(v), "errors", int(round(np.sum(np.array(v) * sizes))))
