"""Does QMI by gradient ascent reproduce paper 002? Paper 002 (Gavriilidis and Tefas) protocol:
QMI, MI_A and MI_B by gradient ascent.

Protocol (paper 002, section 4): features scaled to [0, 1] (fitted on each training fold here),
5x2 cross-validation (5 repetitions of stratified 2-fold CV, seeds 0..4), a k-nearest-neighbour
classifier on the projected data, dimensions 1..C-1, the projection W (D x d, W^T W = I)
initialised by LDA or randomly; the same random initialisation (random_state = fold index) is
used for every criterion. The paper does not state k, sigma, the learning rate or the stopping
rule: we report k = 1 and k = 3 and use QMIProjection's former default behaviour (``PREVIOUS``
below: orthonormal W, sigma = half the median pairwise distance of the initial projection,
Armijo backtracking along the gradient, max_iter = 100, tol = 1e-6, no validation). The current
defaults are measured by benchmarks/qmi.py --ascent-protocol.

Run (about a minute):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/qmi.py

Writes benchmarks/results/qmi_gavriilidis.md.

Parts: ``--ascent-protocol`` (``_qmi_ascent_protocol.py``: QMIProjection's defaults against
its LDA start under paper 002's protocol; ``qmi_ascent_protocol.md``), ``--quality``
(``_qmi_quality.py``: KQMI against LDA with 1-NN at C-1 dimensions; ``qmi_quality.md``).
``--quick``: a smoke run of the protocol and both parts on scikit-learn's iris and wine, nothing
written here.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import common
import numpy as np
from common import SHARED  # the shared data directory
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler

from graphdr.graph_embedding.linear import LDA
from graphdr.qmi import QMIProjection

DATA_DIR = str(SHARED)
OUT = os.path.join(os.path.dirname(__file__), "results", "qmi_gavriilidis.md")
COMMAND = ("OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python "
           "benchmarks/qmi.py")
KS = (1, 3)
#: the data sets of the protocol (``--quick``: iris alone)
SETS = ("iris", "ionosphere")

# Paper 002, Table 4 (error rates in %, copied from the paper's text): dims 1 and 2 for iris and
# wine, dim 1 for ionosphere. The paper's random-init rows and LDA-init rows.
PAPER_TABLE4 = {
    "iris": {
        ("qmi", "random"): [4.53, 4.80], ("mi_b", "random"): [4.27, 3.73],
        ("mi_a", "random"): [4.27, 3.73], ("qmi", "lda"): [8.53, 3.47],
        ("mi_b", "lda"): [3.47, 2.67], ("mi_a", "lda"): [3.47, 2.67],
    },
    "wine": {
        ("qmi", "random"): [33.18, 30.68], ("mi_b", "random"): [32.95, 30.91],
        ("mi_a", "random"): [32.95, 31.36], ("qmi", "lda"): [32.73, 30.45],
        ("mi_b", "lda"): [34.77, 29.55], ("mi_a", "lda"): [34.77, 29.77],
    },
    "ionosphere": {
        ("qmi", "random"): [42.40], ("mi_b", "random"): [44.11], ("mi_a", "random"): [42.29],
        ("qmi", "lda"): [39.20], ("mi_b", "lda"): [33.83], ("mi_a", "lda"): [32.57],
    },
}
CRITERIA = ("qmi", "mi_b", "mi_a")
#: QMIProjection's former default behaviour (before its validation and metric), by explicit parameters.
PREVIOUS = dict(metric="euclidean", solver="gradient", sigma_factors=(1.0,), cv=None,
                max_iter=100, tol=1e-6)
INITS = ("random", "lda")
NAMES = {"qmi": "QMI", "mi_a": "MI_A", "mi_b": "MI_B"}


def load(name):
    if name == "iris":
        return load_iris(return_X_y=True)
    data = np.load(os.path.join(DATA_DIR, f"{name}.npz"), allow_pickle=False)
    return np.asarray(data["X"], dtype=np.float64), np.asarray(data["y"])


def folds(y):
    for rep in range(5):
        yield from StratifiedKFold(n_splits=2, shuffle=True, random_state=rep).split(
            np.zeros(len(y)), y
        )


def knn_errors(Ztr, ytr, Zte, yte):
    return {k: np.mean(KNeighborsClassifier(n_neighbors=k).fit(Ztr, ytr).predict(Zte) != yte)
            for k in KS}


def run_dataset(name):
    X, y = load(name)
    C = len(np.unique(y))
    dims = list(range(1, C))
    # errors[(method key)][k][dim index] -> list over folds
    errors = {}
    iters = {}
    for f, (tr, te) in enumerate(folds(y)):
        scaler = MinMaxScaler().fit(X[tr])
        Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
        for di, d in enumerate(dims):
            lda = LDA(n_components=d).fit(Xtr, y[tr])
            for k, e in knn_errors(lda.transform(Xtr), y[tr], lda.transform(Xte), y[te]).items():
                errors.setdefault(("lda", None), {}).setdefault(k, {}).setdefault(di, []).append(e)
            for crit in CRITERIA:
                for init in INITS:
                    est = QMIProjection(n_components=d, criterion=crit, init=init,
                                        random_state=f, **PREVIOUS)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        est.fit(Xtr, y[tr])
                    iters.setdefault((crit, init), []).append(est.n_iter_)
                    errs = knn_errors(est.transform(Xtr), y[tr], est.transform(Xte), y[te])
                    for k, e in errs.items():
                        errors.setdefault((crit, init), {}).setdefault(k, {}).setdefault(
                            di, []).append(e)
    return X.shape, dims, errors, iters


def sigma_ablation(name, factors=(0.25, 0.5, 1.0, 2.0, 4.0), anneal=4.0):
    """1-NN error at d = 1 with LDA init: sigma = factor x the default, and annealing."""
    X, y = load(name)
    out = {}
    for tr, te in folds(y):
        scaler = MinMaxScaler().fit(X[tr])
        Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
        default = QMIProjection(n_components=1, **dict(PREVIOUS, max_iter=0)).fit(
            Xtr, y[tr]).sigma_
        for crit in CRITERIA:
            settings = [(f"sigma = {a:g} x default", dict(sigma=a * default)) for a in factors]
            settings.append((f"default sigma, anneal={anneal:g}", dict(anneal=anneal)))
            for label, kw in settings:
                est = QMIProjection(n_components=1, criterion=crit, init="lda",
                                    **dict(PREVIOUS, **kw))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    est.fit(Xtr, y[tr])
                e = knn_errors(est.transform(Xtr), y[tr], est.transform(Xte), y[te])[1]
                out.setdefault((label, crit), []).append(e)
    labels = list(dict.fromkeys(k[0] for k in out))
    lines = [f"### {name}: sigma sensitivity, LDA init, 1-NN, d = 1", "",
             "| setting | " + " | ".join(NAMES[c] for c in CRITERIA) + " |",
             "|---|" + "---|" * len(CRITERIA)]
    for label in labels:
        lines.append(f"| {label} | " + " | ".join(
            f"{100 * np.mean(out[(label, c)]):.2f}" for c in CRITERIA) + " |")
    return lines + [""]


#: the parts of this benchmark: flag -> module (each module's ``main()``)
PARTS = {"--ascent-protocol": "_qmi_ascent_protocol", "--quality": "_qmi_quality"}


def _quick():
    """The protocol on iris, ``--quality`` on wine and ``--ascent-protocol`` on iris, their
    tables in a temporary folder."""
    import importlib

    quality = importlib.import_module("_qmi_quality")
    ascent = importlib.import_module("_qmi_ascent_protocol")
    settings = [(sys.modules[__name__], "SETS", ("iris",)), (quality, "SETS", ("wine",)),
                (ascent, "DATASETS", ("iris",)), (ascent, "PAPER_SETS", ("iris",))]
    saved = [(module, name, getattr(module, name)) for module, name, _ in settings]
    with common.smoke_outputs(sys.modules[__name__], quality, ascent):
        try:
            for module, name, value in settings:
                setattr(module, name, value)
            main([])
            main(["--quality"])
            main(["--ascent-protocol"])
        finally:
            for module, name, value in saved:
                setattr(module, name, value)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, PARTS, quick=_quick)) is not common.NO_PART:
        return done
    t0 = time.perf_counter()
    lines = [
        "# Paper 002 protocol: QMI / MI_A / MI_B by gradient ascent (QMIProjection)",
        "",
        "Command:",
        "",
        f"    {COMMAND}",
        "",
        "Features scaled to [0, 1] on each training fold; 5x2 CV (stratified, seeds 0-4); "
        "k-NN on the projection; dims 1..C-1; QMIProjection defaults (sigma = half the median "
        "pairwise distance of the initial projection, Armijo backtracking, max_iter = 100, "
        "tol = 1e-6); random init seeded by the fold index, identical for all criteria. "
        "Errors in % (mean over the 10 test folds). The paper's values are copied from paper "
        "002, Table 4 (its k is not stated; it used the same random initialisations for all "
        "criteria). 'LDA' is graphdr.LDA followed by the same k-NN.",
        "",
    ]
    for name in SETS:
        shape, dims, errors, iters = run_dataset(name)
        lines += [f"## {name} ({shape[0]} x {shape[1]}, {len(dims) + 1} classes)", ""]
        head = ["criterion, init"]
        for k in KS:
            head += [f"graphdr {k}-NN, d={d}" for d in dims]
        head += [f"paper Table 4, d={d}" for d in dims]
        head += ["mean iterations"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for crit in CRITERIA:
            for init in INITS:
                row = [f"{NAMES[crit]}, {init}"]
                for k in KS:
                    row += [f"{100 * np.mean(errors[(crit, init)][k][di]):.2f}"
                            for di in range(len(dims))]
                row += [f"{v:.2f}" for v in PAPER_TABLE4[name][(crit, init)]]
                row += [f"{np.mean(iters[(crit, init)]):.1f}"]
                lines.append("| " + " | ".join(row) + " |")
        row = ["LDA (no gradient ascent)"]
        for k in KS:
            row += [f"{100 * np.mean(errors[('lda', None)][k][di]):.2f}" for di in range(len(dims))]
        row += ["-" for _ in dims] + ["-"]
        lines += ["| " + " | ".join(row) + " |", ""]
        print("\n".join(lines[-12:]), flush=True)
    lines += ["## Sensitivity to sigma (not tuned: the defaults above are used in the main "
              "tables)", ""]
    for name in SETS:
        lines += sigma_ablation(name)
        print("\n".join(lines[-9:]), flush=True)
    lines.append(f"Total time: {time.perf_counter() - t0:.0f} s.")
    common.write_lines(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
