"""``graphdr reproduce``: rerun the four papers' tables and figures and set ours beside theirs.

For each paper (``000``, ``001``, ``002``, ``003``; see ``/work/shared/papers``) this module
holds

* the experiments: a protocol of :mod:`~graphdr.bench.protocols` (with the paper's settings),
  the data sets (the paper's own where they ship with graphdr or scikit-learn, otherwise a
  named stand-in), the methods and classifiers; each experiment is one
  :func:`~graphdr.bench.runner.run_bench` call (resumable, parallel, with its results.csv,
  tables, PNG figures and index.html in a subdirectory);
* the paper's published numbers, transcribed from the paper's text, and where the paper
  gives none (paper 000's tables did not survive the text extraction), the paper's own
  statements about its results, each checked against our numbers;
* one line per table on why our numbers differ.

:func:`reproduce` runs the experiments and writes ``report.md`` (the command at the top; for
every table the paper's number, ours and the difference), ``results.csv`` (one row per compared
number) and the figures. ``quick=True`` shrinks every experiment to a few seconds (for tests);
the numbers of a quick run are not comparable with the paper's and the report says so.
"""

from __future__ import annotations

import csv
import dataclasses
import os
import platform
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .protocols import get_protocol

__all__ = ["PAPERS", "Paper", "Experiment", "PaperTable", "Claim", "reproduce",
           "paper_numbers"]


# ----- specification ------------------------------------------------------------------------
@dataclass(frozen=True)
class Experiment:
    """One ``run_bench`` call: protocol, data sets, methods; ``quick`` shrinks it for tests."""

    key: str  # subdirectory of the output
    title: str
    protocol: object  # a Protocol
    datasets: tuple
    methods: tuple
    classifiers: tuple | None = None
    quick_datasets: tuple = ()
    quick_methods: tuple = ()
    quick_protocol: dict = field(default_factory=dict)
    plots: bool = True  # PNG figures (error versus dimension, 2-D pictures)
    pictures: bool = True  # the 2-D pictures (fitted on half of the data set)

    def resolved(self, quick):
        if not quick:
            return self.protocol, list(self.datasets), list(self.methods)
        protocol = dataclasses.replace(self.protocol, **self.quick_protocol)
        return (protocol, list(self.quick_datasets or self.datasets[:1]),
                list(self.quick_methods or self.methods[:2]))


@dataclass(frozen=True)
class PaperTable:
    """A table (or figure read as a table) of the paper, cell by cell.

    ``cells`` maps (row label, column label) -> (paper's value or None, our reference). Our
    reference is ``(experiment, dataset, method, classifier, dim)`` (``dim`` None: the best
    dimension), or a callable ``f(lookup) -> (value, note)``, or None (nothing of ours).
    ``metric`` is 'error' or 'recognition' (both in percent).
    """

    key: str
    title: str
    rows: tuple
    columns: tuple
    cells: dict
    metric: str = "error"
    why: str = ""
    note: str = ""


@dataclass(frozen=True)
class Claim:
    """A statement of the paper about its results and a check of it on our numbers.

    ``check(lookup) -> (evidence text, True/False)``.
    """

    where: str
    text: str
    check: object


@dataclass(frozen=True)
class Paper:
    key: str
    citation: str
    file: str
    stand_ins: tuple  # (paper's data, ours, note)
    experiments: tuple
    tables: tuple = ()
    claims: tuple = ()
    figures: tuple = ()  # extra figure makers: f(out, quick, progress) -> [(png, caption)], rows
    summary_tables: tuple = ()  # (experiment key, heading): our paper-style tables in full
    not_reproduced: tuple = ()
    observations: tuple = ()  # f(lookup) -> markdown text, computed from our numbers
    claims_why: str = ""  # why our checks of the paper's statements may come out otherwise


# ----- helpers to read our numbers ------------------------------------------------------------
class Lookup:
    """Our numbers: ``agg`` of every experiment (``report.aggregate``), in percent."""

    def __init__(self, aggs):
        self.aggs = aggs

    def only_dataset(self, exp, prefix):
        """The data set of experiment ``exp`` whose name starts with ``prefix`` (quick runs use
        smaller subsets with other names)."""
        names = sorted({k[0] for k in self.aggs.get(exp, {}) if k[0].startswith(prefix)})
        return names[0] if names else prefix

    def dims(self, exp, dataset, method, clf):
        """{dim: (mean, std, n)}; ``method`` without parameters also matches ``method:...``
        (quick runs pass cheaper parameters)."""
        agg = self.aggs.get(exp, {})
        if (dataset, method, clf) in agg:
            return agg[(dataset, method, clf)]
        names = {k[0] for k in agg}
        if dataset not in names:  # a subset: digits -> digits_32pc (quick: digits_8pc)
            dataset = self.only_dataset(exp, dataset)
        for (ds, m, c), dims in sorted(agg.items()):
            if ds == dataset and c == clf and (m == method or (
                    ":" not in method and m.startswith(method + ":"))):
                return dims
        return {}

    def error(self, exp, dataset, method, clf, dim=None):
        """Mean error (%) at ``dim``, or the smallest over dimensions; (value, dim) or None."""
        dims = self.dims(exp, dataset, method, clf)
        if not dims:
            return None
        if dim is None:
            d = min(dims, key=lambda k: (round(dims[k][0], 12), k))
        elif dim in dims:
            d = dim
        else:
            return None
        return 100.0 * dims[d][0], d

    def value(self, ref, metric):
        if ref is None:
            return None, ""
        if callable(ref):
            return ref(self)
        exp, dataset, method, clf, dim = ref
        got = self.error(exp, dataset, method, clf, dim)
        if got is None:
            return None, ""
        err, d = got
        val = err if metric == "error" else 100.0 - err
        return val, ("" if dim is not None else f"dim {d}")


def _wins(lookup, exp, datasets, methods, clf):
    """Wins of each method over ``datasets`` (ties count for all), restricted to ``methods``."""
    wins = dict.fromkeys(methods, 0)
    for ds in datasets:
        vals = {m: lookup.error(exp, ds, m, clf) for m in methods}
        vals = {m: round(v[0], 9) for m, v in vals.items() if v is not None}
        if not vals:
            continue
        best = min(vals.values())
        for m, v in vals.items():
            wins[m] += v == best
    return wins


def _fmt_wins(wins, labels):
    return ", ".join(f"{labels.get(m, m)} {w}" for m, w in wins.items())


# ----- paper 000 --------------------------------------------------------------------------------
_P000_KERNEL = ("kqmi", "kernel-lda", "supervised-kernel-lpp", "ckfd", "kernel-pca")
_P000_LINEAR = ("lqmi", "lda", "supervised-lpp", "pca")
_P000_LABELS = {"kqmi": "KQMI", "kernel-lda": "GDA", "supervised-kernel-lpp": "S-KLPP",
                "ckfd": "CKFD", "kernel-pca": "KPCA", "lqmi": "LQMI", "lda": "LDA",
                "supervised-lpp": "S-LPP", "pca": "PCA"}
_P000_UCI = ("heart", "ionosphere", "iris", "led7digit", "pima", "sonar", "vehicle", "vowel",
             "wdbc", "wine")


def _claim000(clf, group, test):
    """A check on the wins (within ``group``) of the UCI experiment under classifier ``clf``."""

    def check(lookup):
        datasets = sorted({k[0] for k in lookup.aggs.get("uci", {})})
        wins = _wins(lookup, "uci", datasets, group, clf)
        return f"wins among {'kernel' if group == _P000_KERNEL else 'linear'} methods " \
               f"({len(datasets)} data sets): {_fmt_wins(wins, _P000_LABELS)}", bool(test(wins))

    return check


def _most(method):
    return lambda w: all(w[method] >= v for v in w.values())


_P000_CLAIMS = (
    Claim("Table II (NCC)", "\"KQMI obtains better performance than the other kernel methods\"",
          _claim000("ncc", _P000_KERNEL, _most("kqmi"))),
    Claim("Table II (NCC)", "\"the LQMI method displays comparable results with the supervised "
          "LPP method, while both methods seem to outperform LDA\"",
          _claim000("ncc", _P000_LINEAR, lambda w: abs(w["lqmi"] - w["supervised-lpp"]) <= 1
                    and min(w["lqmi"], w["supervised-lpp"]) > w["lda"])),
    Claim("Table III (3-NN)", "\"KQMI and GDA display almost the same performance, obtaining "
          "though better results than CKFD and KLPP\"",
          _claim000("3nn", _P000_KERNEL, lambda w: abs(w["kqmi"] - w["kernel-lda"]) <= 1
                    and min(w["kqmi"], w["kernel-lda"])
                    > max(w["ckfd"], w["supervised-kernel-lpp"]))),
    Claim("Table III (3-NN)", "\"the KPCA method [...] wins the same number of datasets as the "
          "supervised GDA method\"",
          _claim000("3nn", _P000_KERNEL, lambda w: w["kernel-pca"] == w["kernel-lda"])),
    Claim("Table III (3-NN)", "\"the LQMI and LDA exhibit the same performance winning, however, "
          "less sets than the unsupervised PCA\"",
          _claim000("3nn", _P000_LINEAR, lambda w: w["lqmi"] == w["lda"] < w["pca"])),
    Claim("Table IV (linear SVM)", "\"for the kernel methods KQMI becomes the dominant method "
          "when the SVM classifier is used\"",
          _claim000("linear-svm", _P000_KERNEL, _most("kqmi"))),
    Claim("Table V (RBF SVM)", "\"for the kernel methods KQMI becomes the dominant method when "
          "the SVM classifier is used\"",
          _claim000("rbf-svm", _P000_KERNEL, _most("kqmi"))),
    Claim("Table IV (linear SVM)", "\"for the linear methods [...] the superiority of the PCA "
          "method against the supervised ones\"",
          _claim000("linear-svm", _P000_LINEAR,
                    lambda w: w["pca"] > max(w["lda"], w["lqmi"], w["supervised-lpp"]))),
    Claim("Table V (RBF SVM)", "\"for the linear methods [...] the superiority of the PCA method "
          "against the supervised ones\"",
          _claim000("rbf-svm", _P000_LINEAR,
                    lambda w: w["pca"] > max(w["lda"], w["lqmi"], w["supervised-lpp"]))),
)

def _same_errors(a, b):
    """How often methods ``a`` and ``b`` of the UCI experiment have the same mean error."""
    def note(lookup):
        agg = lookup.aggs.get("uci", {})
        same, total, where = 0, 0, set()
        for (ds, m, clf), dims in agg.items():
            if m != a or (ds, b, clf) not in agg:
                continue
            other = agg[(ds, b, clf)]
            for d, v in dims.items():
                if d in other:
                    total += 1
                    if abs(v[0] - other[d][0]) < 1e-12:
                        same += 1
                    else:
                        where.add(ds)
        if not total:
            return ""
        la, lb = _P000_LABELS[a], _P000_LABELS[b]
        diff = f"; they differ only on {', '.join(sorted(where))}" if where else ""
        return (f"{la} and {lb} have exactly the same mean error in {same} of {total} (data "
                f"set, classifier, dimension) cells{diff}.")
    return note


def _same_errors_why(lookup):
    return ("Expected: with the kernel (or, for LQMI, the linear feature map) fixed, the QMI "
            "graph links every pair of samples of a class with one weight per class and every "
            "pair across classes with one weight per pair of classes, so at C-1 dimensions its "
            "embedding spans the class means as LDA's (GDA's) does; on two-class data both "
            "give the one direction of the class-mean difference, and with equal class sizes "
            "the weights are equal and the two problems coincide. With unequal class sizes "
            "the directions inside that subspace differ, and with the paper's unit-length "
            "projections so does the metric NCC and k-NN see (and below C-1 dimensions the "
            "subspaces). The kernel methods also choose their ridge by inner cross-validation "
            "(reg='auto'), where KQMI and GDA can choose different values (e.g. on balanced "
            "vowel). Where the paper ranks LQMI apart from LDA, or KQMI apart from GDA, on "
            "two-class or balanced data, the difference can only come from settings other "
            "than the ones it states.")


def _claim000_2d(dataset, test, methods):
    """A check on the 2-D NCC errors of the figures experiment on ``dataset``."""
    def check(lookup):
        ds = lookup.only_dataset("figures", dataset)
        errs = {}
        for m in methods:
            got = lookup.error("figures", ds, m, "ncc", 2)
            if got is not None:
                errs[m] = got[0]
        if not errs:
            return "not run", False
        text = "NCC error in 2-D: " + ", ".join(f"{_P000_LABELS.get(m, m.upper())} {v:.1f}%"
                                                for m, v in errs.items())
        try:
            return text, bool(test(errs))
        except KeyError:
            return text + " (a method was not run)", False
    return check


_P000_FIG_LINEAR = ("lda", "lqmi", "supervised-lpp", "pca", "lpp")
_P000_FIG_SUPKERNEL = ("kqmi", "kernel-lda", "supervised-kernel-lpp", "ckfd")
_P000_FIG_CLAIMS = (
    Claim("Figs. 1-2 (Swiss roll)", "\"the linear methods fail to achieve a mapping in which the "
          "dataset's classes are well separated in the 2-D space, while the supervised kernel "
          "methods (i.e., KQMI, GDA, KLPP, and CKFD) give a relatively good mapping\" (taken "
          "as: every supervised kernel method has a lower 2-D NCC error than every linear one)",
          _claim000_2d("swiss_roll", lambda e: max(e[m] for m in _P000_FIG_SUPKERNEL)
                       < min(e[m] for m in _P000_FIG_LINEAR),
                       _P000_FIG_SUPKERNEL + _P000_FIG_LINEAR)),
    Claim("Figs. 1-2 (Swiss roll)", "\"GDA performs best\" (among the kernel methods)",
          _claim000_2d("swiss_roll", lambda e: e["kernel-lda"] <= min(e.values()),
                       _P000_FIG_SUPKERNEL + ("kernel-pca",))),
    Claim("Figs. 3-4 (MNIST; digits here)", "\"the KQMI and GDA methods produce a 2-D "
          "projection subspace, in which the classes are very well separated, with the KQMI "
          "attaining a better separation of the classes than that of the GDA\" (taken as: KQMI's "
          "2-D NCC error below GDA's)",
          _claim000_2d("digits", lambda e: e["kqmi"] < e["kernel-lda"], ("kqmi", "kernel-lda"))),
)
_BOUZAS = get_protocol("bouzas")
_P000_METHODS = ("lda", "lqmi", "supervised-lpp", "kernel-lda", "kqmi", "supervised-kernel-lpp",
                 "ckfd", "pca", "kernel-pca")

PAPER_000 = Paper(
    key="000",
    citation="Bouzas, Arvanitopoulos, Tefas. Graph Embedded Nonparametric Mutual Information "
    "for Supervised Dimensionality Reduction. IEEE TNNLS 26(5), 2015",
    file="000_df2bfa363383dee4.txt",
    stand_ins=(
        ("20 UCI / Statlog data sets (Table I; names lost in the text extraction)",
         "the 10 UCI sets available offline: " + ", ".join(_P000_UCI),
         "the paper's list is not in the text; these are UCI/Statlog sets of the same kind "
         "(iris and wine from scikit-learn, the others from graphdr's vendored suite)"),
        ("Swiss roll (Figs. 1-2)", "swiss_roll:n=1000 (4 classes along the roll)",
         "generated the same way; the paper does not give n or the class layout"),
        ("MNIST, 1000 samples (Figs. 3-4)", "digits:per_class=100 (scikit-learn 8x8 digits)",
         "MNIST is not available offline without the shared data. The paper gives no kernel "
         "width for its pictures; the kernel methods use each method's default (gamma = 1 / "
         "number of features): sigma = 1 on 64 features scaled to [-1, 1] makes the RBF kernel "
         "nearly the identity matrix, and no picture at all. The pictures are fitted on half "
         "of the samples and draw the other half; the 2-D NCC errors behind the checks below "
         "come from 2-fold CV"),
    ),
    experiments=(
        Experiment("uci", "Tables II-V: UCI data sets, 10-fold CV, NCC / 3-NN / SVMs",
                   _BOUZAS, _P000_UCI, _P000_METHODS, plots=False,
                   quick_datasets=("iris",), quick_methods=("lda", "lqmi", "kqmi"),
                   quick_protocol=dict(n_splits=2)),
        Experiment("figures", "Figs. 1-4: 2-D projections (Swiss roll, handwritten digits)",
                   dataclasses.replace(_BOUZAS, n_splits=2, kernel_gamma=None),
                   ("swiss_roll:n=1000",
                                                             "digits:per_class=100"),
                   _P000_METHODS + ("lpp",), classifiers=("ncc",),
                   quick_datasets=("swiss_roll:n=200",), quick_methods=("lda", "kqmi"),
                   quick_protocol=dict(n_splits=2)),
    ),
    claims=_P000_CLAIMS + _P000_FIG_CLAIMS,
    claims_why="The paper's verdicts come from its 20 data sets (Table I, not in the text); "
    "ours from the 10 offline UCI sets, so a different set of wins. Wins are counted within "
    "the kernel and within the linear methods, ties counting for every tied method. See also "
    "the observation below on LQMI / LDA and KQMI / GDA.",
    observations=(_same_errors("lqmi", "lda"), _same_errors("kqmi", "kernel-lda"),
                  _same_errors_why),
    summary_tables=(("uci", "Tables II-V reproduced: minimum error over dimensions 1..C-1 "
                     "(dimension in parentheses), wins row"),),
    not_reproduced=(
        "The numbers of Tables I-VIII: the paper's text in /work/shared/papers keeps the "
        "captions but none of the cells (the tables were images), so there is no number to "
        "set beside ours; the paper's statements about the tables are checked instead.",
        "Tables VI-VIII and Figs. 5-6 (ORL, YALE, JAFFE, KANADE faces): no face data set is "
        "available offline.",
    ),
)


# ----- paper 001 --------------------------------------------------------------------------------
_MKLDR = get_protocol("mkldr")
_P001_VIEWS = ("pixels", "orientation", "fourier", "moments", "profiles", "noise")
_P001_KERNELS = ("GB-1", "GB-2", "SIFT-Dist", "SIFT-Grid", "C2-SWP", "C2-ML", "PHOG")
_P001_KFD = {"102": (57.3, 60.0, 53.0, 48.8, 30.3, 46.0, 41.8),
             "101": (57.7, 60.6, 53.2, 49.6, 30.7, 46.8, 42.1)}
_P001_KLDE = {"102": (57.1, 60.9, 54.2, 49.5, 31.1, 45.8, 42.2),
              "101": (57.7, 61.3, 54.6, 50.1, 31.3, 46.7, 42.6)}
#: (KFD-Voting, KFD-SAMME, MKL-LDA) and (KLDE-Voting, KLDE-SAMME, MKL-LDE), per column
_P001_COMBINED = {"102": (68.4, 71.2, 74.6, 68.4, 71.1, 75.3),
                  "101": (68.9, 72.1, 75.3, 68.7, 71.3, 75.5)}
#: the standard deviations of Table 1, same layout (not compared; kept for the record)
_P001_STD = {"kfd102": (2.5, 1.5, 1.4, 1.9, 1.2, 0.6, 0.6, 1.5, 1.4, 2.2),
             "kfd101": (0.7, 1.5, 0.8, 0.7, 1.5, 0.9, 1.3, 0.3, 0.7, 1.7),
             "klde102": (1.4, 1.4, 0.5, 1.3, 1.5, 0.2, 0.6, 1.4, 1.9, 1.5),
             "klde101": (0.8, 2.1, 1.5, 0.3, 0.7, 1.5, 1.3, 0.8, 1.2, 1.7)}


def _rec(lookup, method, clf="1nn"):
    got = lookup.error("mkl", lookup.only_dataset("mkl", "digits_views"), method, clf, None)
    return None if got is None else 100.0 - got[0]


def _best_single(lookup):
    vals = {v: _rec(lookup, f"kernel-lda:view={i}") for i, v in enumerate(_P001_VIEWS)}
    vals = {k: v for k, v in vals.items() if v is not None}
    if not vals:
        return None, ""
    best = max(vals, key=vals.get)
    return vals[best], f"view {best}"


def _gain(a, b):
    def f(lookup):
        x, _ = a(lookup)
        y, _ = b(lookup)
        return (None, "") if x is None or y is None else (x - y, "")
    return f


def _method_rec(method, clf="1nn"):
    return lambda lookup: (_rec(lookup, method, clf), "")


def _p001_table():
    rows, cells = [], {}
    cols = ("paper: 102 classes", "paper: 101 classes")
    for i, name in enumerate(_P001_KERNELS):
        row = f"KFD, kernel {name}"
        rows.append(row)
        for col, key in zip(cols, ("102", "101")):
            cells[(row, col)] = (_P001_KFD[key][i], None)
    for i, view in enumerate(_P001_VIEWS):
        row = f"KFD, our view {i} ({view})"
        rows.append(row)
        for col in cols:
            cells[(row, col)] = (None, _method_rec(f"kernel-lda:view={i}"))
    best = _best_single
    summary = (
        ("best single-kernel KFD", 1, best),
        ("KFD-Voting", 7, _method_rec("kfd-voting", "own")),
        ("KFD-SAMME", 8, _method_rec("kfd-samme", "own")),
        ("MKL-LDA (all kernels)", 9, _method_rec("mkl-lda")),
        ("MKL-LDA minus best single KFD", None, _gain(_method_rec("mkl-lda"), best)),
        ("MKL-LDA minus KFD-Voting", None, _gain(_method_rec("mkl-lda"),
                                                 _method_rec("kfd-voting", "own"))),
        ("MKL-LDA minus KFD-SAMME", None, _gain(_method_rec("mkl-lda"),
                                                _method_rec("kfd-samme", "own"))),
        ("MKL-LDE (all kernels)", 12, _method_rec("mkl-lde")),
        ("MKL-LDE minus MKL-LDA", None, _gain(_method_rec("mkl-lde"), _method_rec("mkl-lda"))),
    )
    for row, idx, ref in summary:
        rows.append(row)
        for col, key in zip(cols, ("102", "101")):
            kfd = list(_P001_KFD[key]) + list(_P001_COMBINED[key][:3])
            klde = list(_P001_KLDE[key]) + list(_P001_COMBINED[key][3:])
            table = {1: max(_P001_KFD[key]), 7: kfd[7], 8: kfd[8], 9: kfd[9], 12: klde[9]}
            if idx is not None:
                paper = table[idx]
            elif row.startswith("MKL-LDA minus best"):
                paper = kfd[9] - max(_P001_KFD[key])
            elif row.endswith("KFD-Voting"):
                paper = kfd[9] - kfd[7]
            elif row.endswith("KFD-SAMME"):
                paper = kfd[9] - kfd[8]
            else:
                paper = klde[9] - kfd[9]
            cells[(row, col)] = (round(paper, 1), ref)
    for row in ("KLDE, each kernel / KLDE-Voting / KLDE-SAMME",):
        rows.append(row)
        for col, _key in zip(cols, ("102", "101")):
            cells[(row, col)] = (None, None)
    return PaperTable(
        "table1", "Table 1: recognition rates (%) on Caltech-101 (paper) and on the multi-view "
        "digits stand-in (ours), 1-NN in the learned space", tuple(rows), cols, cells,
        metric="recognition",
        why="Different data: Caltech-101 with seven image descriptors (102 or 101 classes, 15 "
        "training images per class) against six derived views of scikit-learn's 8x8 digits "
        "(10 classes, 15 training images per class) and a pure-noise view. Single-kernel rows "
        "cannot be matched one to one; the comparable quantities are the combined rows and the "
        "gains of MKL-LDA over the best single kernel, the vote and boosting. Both columns of "
        "ours are the same run (the stand-in has no background class). KLDE and its vote / "
        "boosting are not in graphdr.",
        note="Paper's standard deviations (not compared): KFD rows 102 classes "
        + ", ".join(map(str, _P001_STD["kfd102"]))
        + "; KLDE rows (per kernel, Voting, SAMME, MKL-LDE) 102 classes "
        + ", ".join(map(str, _P001_STD["klde102"])) + ".",
    )


PAPER_001 = Paper(
    key="001",
    citation="Lin, Liu, Fuh. Dimensionality Reduction for Data in Multiple Feature "
    "Representations (MKL-DR). NIPS 2008",
    file="001_cbf9be1cb031f0f7.txt",
    stand_ins=(
        ("Caltech-101 (102 classes incl. background, or 101), seven descriptors (GB-1, GB-2, "
         "SIFT-Dist, SIFT-Grid, C2-SWP, C2-ML, PHOG) -> seven base kernels",
         "digits_views:per_class=30 (scikit-learn digits, 30 per class, six views: pooled "
         "pixels, orientation histograms, Fourier magnitudes, moments, profiles, pure noise)",
         "Caltech-101 and its descriptors are not available offline; the stand-in keeps the "
         "setting (several incomplete descriptors of images, 30 images per class split 15/15, "
         "1-NN) at a smaller scale"),
    ),
    experiments=(
        Experiment(
            "mkl", "Table 1: 15 training / 15 test images per class, roles switched, 1-NN",
            dataclasses.replace(_MKLDR, n_splits=2, n_repeats=5, dim_grid=()),
            ("digits_views:per_class=30",),
            ("mkl-lda", "mkl-lde", "kernel-lda:view=each", "kfd-voting", "kfd-samme"),
            classifiers=("1nn",),
            quick_datasets=("digits_views:per_class=6",),
            quick_methods=("mkl-lda:max_iter=1", "kernel-lda:view=each", "kfd-voting"),
            quick_protocol=dict(n_repeats=1),
        ),
    ),
    tables=(_p001_table(),),
    not_reproduced=(
        "The KLDE half of Table 1 (KLDE per kernel, KLDE-Voting, KLDE-SAMME): graphdr has no "
        "single-kernel LDE classifier with vote or boosting; MKL-LDE is compared.",
        "The 102 / 101 class columns (with and without Caltech's background class): the "
        "stand-in has no background class, so both columns are compared with the same run.",
    ),
)


# ----- paper 002 --------------------------------------------------------------------------------
_GAV = get_protocol("gavriilidis")
_P002_METHODS = {"QMI, Random": "qmi:init=random", "MI_B, Random": "mi-b:init=random",
                 "MI_A, Random": "mi-a:init=random", "QMI, LDA": "qmi:init=lda",
                 "MI_B, LDA": "mi-b:init=lda", "MI_A, LDA": "mi-a:init=lda",
                 "MI_BA, Random": "mi-b:init=random", "MI_BA, LDA": "mi-b:init=lda"}
_P002_T2_DIMS = (1, 2, 3, 4, 8, 12, 15, 16, 17, 18, 19)
_P002_T2 = {
    "QMI, Random": (52.50, 28.94, 22.69, 15.06, 17.50, 19.62, 13.56, 15.62, 13.81, 15.44, 10.94),
    "MI_BA, Random": (74.19, 59.75, 48.06, 42.00, 19.19, 19.94, 13.56, 15.62, 13.81, 15.44,
                      10.94),
    "QMI, LDA": (49.50, 24.00, 12.00, 7.19, 5.94, 4.50, 4.87, 6.12, 3.44, 4.94, 4.56),
    "MI_BA, LDA": (27.25, 4.38, 3.44, 3.25, 2.81, 2.25, 2.69, 1.94, 2.94, 3.81, 5.25),
}
_P002_T3 = {
    "QMI, Random": (36.63, 32.29, 25.90, 20.60, 19.76, 17.23, 15.66),
    "MI_B, Random": (35.90, 23.37, 17.71, 17.47, 16.75, 15.78, 15.66),
    "MI_A, Random": (32.77, 22.89, 18.31, 16.99, 16.99, 15.42, 15.66),
    "QMI, LDA": (36.27, 28.31, 29.40, 22.53, 20.72, 17.59, 13.13),
    "MI_B, LDA": (36.51, 20.72, 18.31, 16.87, 17.35, 15.90, 13.01),
    "MI_A, LDA": (36.39, 21.33, 18.07, 16.87, 17.95, 16.14, 13.13),
}
#: Table 4 columns: (paper's data set, dimension) -> our data set
_P002_T4_COLS = (("Balance", 1, "balance_scale"), ("Balance", 2, "balance_scale"),
                 ("Ionosphere", 1, "ionosphere"), ("Wine", 1, "wine"), ("Wine", 2, "wine"),
                 ("Iris", 1, "iris"), ("Iris", 2, "iris"))
_P002_T4 = {
    "QMI, Random": (23.78, 20.19, 42.40, 33.18, 30.68, 4.53, 4.80),
    "MI_B, Random": (65.77, 36.73, 44.11, 32.95, 30.91, 4.27, 3.73),
    "MI_A, Random": (66.09, 37.24, 42.29, 32.95, 31.36, 4.27, 3.73),
    "QMI, LDA": (8.97, 10.26, 39.20, 32.73, 30.45, 8.53, 3.47),
    "MI_B, LDA": (9.29, 10.26, 33.83, 34.77, 29.55, 3.47, 2.67),
    "MI_A, LDA": (8.91, 10.26, 32.57, 34.77, 29.77, 3.47, 2.67),
}


def _p002_table(key, exp, title, values, columns, why):
    """``columns``: (column label, our data set, dim)."""
    cells = {}
    for row, vals in values.items():
        for (label, ds, dim), v in zip(columns, vals):
            cells[(row, label)] = (v, (exp, ds, _P002_METHODS[row], "1nn", dim))
    return PaperTable(key, title, tuple(values), tuple(c[0] for c in columns), cells, why=why)


_P002_WHY_PROTOCOL = (
    "The paper's k of the k-NN classifier, its Parzen width, learning rate and stopping rule "
    "are not given; we use 1-NN and QMIProjection's defaults, on our own 5x2 folds."
)

PAPER_002 = Paper(
    key="002",
    citation="Gavriilidis, Tefas. Exploiting Quadratic Mutual Information for Discriminant "
    "Analysis",
    file="002_dcb91d8797ae9341.txt",
    stand_ins=(
        ("CMU faces (640 images 30x32, 20 people, 32 each; Table 2)",
         "digits:per_class=32 (320 scikit-learn 8x8 digits, 10 classes, 32 each)",
         "CMU faces are not available offline; same samples per class, fewer classes and "
         "pixels, so only dimensions 1-9 exist"),
        ("Ecoli (336 x 7, 8 classes; Table 3)", "led7digit (500 x 7, 10 classes)",
         "Ecoli is not available offline; led7digit has the same number of features and a "
         "similar number of classes and samples"),
        ("Balance (625 x 4, 3 classes; Table 4)", "balance_scale (generated)",
         "the same data: the UCI file is every combination of its four attributes in 1..5, "
         "regenerated from that definition"),
        ("Ionosphere (351 x 34; Table 4)", "ionosphere (351 x 33, vendored)",
         "the same data; the KEEL copy drops the second attribute, which is constant"),
        ("Wine, Iris (Table 4)", "wine, iris (scikit-learn)", "the same data"),
    ),
    experiments=(
        Experiment(
            "faces", "Table 2 (CMU faces stand-in): scaled to [0,1], 5x2 CV, 1-NN, the "
            "table's dimensions up to C-1; MI_BA = MI_B (balanced classes)",
            dataclasses.replace(_GAV, dim_grid=(1, 2, 3, 4, 8)), ("digits:per_class=32",),
            ("qmi:init=random", "mi-b:init=random", "qmi:init=lda", "mi-b:init=lda", "lda",
             "pca"),
            quick_datasets=("digits:per_class=8",), quick_methods=("qmi:init=lda",),
            quick_protocol=dict(n_repeats=1, dim_grid=(1,), max_dim=1),
        ),
        Experiment(
            "uci", "Tables 3-4: scaled to [0,1], 5x2 CV, 1-NN, dimensions 1..min(C-1, D)",
            _GAV, ("led7digit", "balance_scale", "ionosphere", "wine", "iris"),
            ("qmi:init=random", "mi-b:init=random", "mi-a:init=random", "qmi:init=lda",
             "mi-b:init=lda", "mi-a:init=lda", "lda", "pca"),
            quick_datasets=("iris",), quick_methods=("qmi:init=random", "mi-b:init=lda"),
            quick_protocol=dict(n_repeats=1),
        ),
    ),
    tables=(
        _p002_table("table2", "faces", "Table 2: error (%) on CMU faces (paper) / digits, 32 per class "
                    "(ours)", _P002_T2,
                    [(f"dim {d}", "digits", d) for d in _P002_T2_DIMS],
                    "Stand-in data (10 digit classes instead of 20 faces: dimensions above 9 "
                    "do not exist, and digits are easier at low dimensions). MI_BA is our MI_B "
                    "(MI_A = MI_B on balanced folds). " + _P002_WHY_PROTOCOL),
        _p002_table("table3", "uci", "Table 3: error (%) on Ecoli (paper) / led7digit (ours)", _P002_T3,
                    [(f"dim {d}", "led7digit", d) for d in range(1, 8)],
                    "Stand-in data: led7digit's seven noisy binary segments are much harder "
                    "than Ecoli for 1-NN (few distinct feature vectors, so many exact ties), "
                    "and every method, LDA and PCA included, stays far above Ecoli's errors "
                    "at every dimension (see the all-methods table below): the table shows "
                    "that the stand-in is hard, not how the criteria rank on Ecoli. "
                    + _P002_WHY_PROTOCOL),
        _p002_table("table4", "uci", "Table 4: error (%) on data sets with few classes", _P002_T4,
                    [(f"{name} dim {d}", ds, d) for name, d, ds in _P002_T4_COLS],
                    "The same data sets (ionosphere without its constant attribute). "
                    + _P002_WHY_PROTOCOL + " Where the paper's errors are far above ours "
                    "(wine: about 30% in 2-D, where LDA followed by 1-NN errs on a few "
                    "percent in the all-methods table below; ionosphere: 33-44% in 1-D, near "
                    "the 36% of always answering the larger class), its runs did not reach a "
                    "good projection, or its classifier differs. Where ours are above theirs, "
                    "balance with LDA initialisation (about 3 points, one to two standard "
                    "deviations of our folds) and iris in 2-D with MI_A / MI_B (about 2 to 3 "
                    "points: our ratio criteria get worse from 1-D to 2-D on iris, the "
                    "paper's get better), the gap is ours to explain: it points at the "
                    "second direction found by the gradient ascent, not at the data."),
    ),
    summary_tables=(("uci", "Tables 3-4 data sets, all methods, minimum error over dimensions "
                   "(with LDA and PCA "
                     "for reference)"),),
    not_reproduced=(
        "Fig. 1 (2-D projections of Ecoli): the 2-D pictures of the stand-in are in the "
        "experiment's index.html (scatter_led7digit.png).",
    ),
)


# ----- paper 003 --------------------------------------------------------------------------------
_DEE = get_protocol("dee")
_P003_DIMS = (1, 2, 3, 5, 10, 15, 20, 30, 40, 50, 60)
_P003_FIG6 = {  # seconds per optimizer in Fig. 6's legends
    "COIL20": {"ld": 25.79, "fp": 180.9, "cg": 164.1, "gd": 230.1},
    "ORL": {"ld": 1.078, "fp": 38.89, "cg": 53.89, "gd": 41.32},
    "Yale": {"ld": 0.76, "fp": 0.99, "cg": 1.26, "gd": 1.07},
    "USPS": {"ld": 7.89, "fp": 40.4, "cg": 95.3, "gd": 54.3},
}
#: Fig. 6 stand-ins: paper's data set -> (our data set, samples like the paper's input)
_P003_FIG6_DATA = {"COIL20": "digits", "ORL": "digits:per_class=40",
                   "Yale": "digits:per_class=16", "USPS": "digits:per_class=60"}
_P003_OPTS = ("ld", "fp", "cg", "gd")
_FIG6_REPEATS = 2


_P003_PANELS = {"fig11": "USPS stand-in", "fig11_small": "ORL/Yale stand-in"}
_P003_DCV = {"fig11": "dcv:null_dim=9", "fig11_small": "dcv"}


def _curve(lookup, exp, method):
    """{dim: recognition rate (%)} of ``method`` in experiment ``exp``."""
    dims = lookup.dims(exp, lookup.only_dataset(exp, "digits"), method, "1nn")
    return {d: 100.0 * (1.0 - v[0]) for d, v in dims.items()}


def _best_rec(lookup, exp, method):
    c = _curve(lookup, exp, method)
    if not c:
        return None
    d = max(c, key=lambda k: (round(c[k], 9), -k))
    return c[d], d


def _per_panel(test):
    """Apply ``test(lookup, exp) -> (text, holds)`` to each Fig. 11 panel that was run."""
    def check(lookup):
        parts, ok = [], []
        for exp, name in _P003_PANELS.items():
            if exp not in lookup.aggs:
                continue
            text, holds = test(lookup, exp)
            parts.append(f"{name}: {text}")
            ok.append(holds)
        if not ok:
            return "not run", False
        return "; ".join(parts) + (f" (holds on {sum(ok)} of {len(ok)})" if len(ok) > 1
                                   else ""), all(ok)
    return check


def _claim003_dcv(lookup, exp):
    vals = {m.split(":")[0]: _best_rec(lookup, exp, m) for m in ("dee", "dsne", _P003_DCV[exp],
                                                                 "mmpa")}
    vals = {m: v for m, v in vals.items() if v is not None}
    if "dcv" not in vals:
        return "DCV not run", False
    txt = ", ".join(f"{m.upper()} {v[0]:.1f}% (dim {v[1]})" for m, v in vals.items())
    return f"best recognition {txt}", vals["dcv"][0] <= min(v[0] for v in vals.values())


def _claim003_close(lookup, exp):
    a, b = _best_rec(lookup, exp, "dee"), _best_rec(lookup, exp, "mmpa")
    if a is None or b is None:
        return "not run", False
    return f"DEE {a[0]:.1f}% vs MMPA {b[0]:.1f}% ({a[0] - b[0]:+.1f})", abs(a[0] - b[0]) <= 1.0


def _claim003_dsne(lookup, exp):
    a, b = _best_rec(lookup, exp, "dsne"), _best_rec(lookup, exp, _P003_DCV[exp])
    if a is None or b is None:
        return "not run", False
    return f"DSNE {a[0]:.1f}% vs DCV {b[0]:.1f}% ({a[0] - b[0]:+.1f})", 0 < a[0] - b[0] <= 5.0


def _near_best_dim(curve, points=1.0):
    best = max(curve.values())
    return min(d for d, v in curve.items() if v >= best - points)


def _claim003_lowdim(lookup, exp):
    a, b = _curve(lookup, exp, "dee"), _curve(lookup, exp, "mmpa")
    if not a or not b:
        return "not run", False
    da, db = _near_best_dim(a), _near_best_dim(b)
    return f"within 1 point of its best from dimension DEE {da}, MMPA {db}", da <= db


def _claim003_smooth(lookup, exp):
    a, b = _curve(lookup, exp, "dee"), _curve(lookup, exp, "mmpa")
    if not a or not b:
        return "not run", False
    la, lb = max(a.values()) - a[max(a)], max(b.values()) - b[max(b)]
    return (f"loss from the best to the largest dimension: DEE {la:.1f} points (dim {max(a)}), "
            f"MMPA {lb:.1f} (dim {max(b)})"), la < lb


def _fig6_claim(test, text):
    def check(lookup):
        rows = lookup.aggs.get("fig6", [])
        if not rows:
            return "not run", False
        by = {}
        for r in rows:
            by.setdefault(r["paper_dataset"], {})[r["optimizer"]] = r
        ok = [test(v) for v in by.values()]
        return text(by) + f" (holds on {sum(ok)} of {len(ok)} stand-ins)", all(ok)
    return check


def _fig6_fastest(v):
    return min(v, key=lambda o: v[o]["seconds"]) == "ld"


def _fig6_lowest(v):
    return min(v, key=lambda o: v[o]["objective"]) == "ld"


def _fig6_text(what):
    def text(by):
        return "; ".join(f"{p}: " + ", ".join(f"{o.upper()} {v[o][what]:.3g}" for o in
                                              _P003_OPTS if o in v) for p, v in by.items())
    return text


def _p003_fig6_table():
    cols = tuple(f"{o.upper()} / LD time" for o in ("fp", "cg", "gd")) + ("LD iterations",)
    rows = tuple(_P003_FIG6)
    cells = {}
    for p in rows:
        t = _P003_FIG6[p]
        for o, col in zip(("fp", "cg", "gd"), cols):
            cells[(p, col)] = (round(t[o] / t["ld"], 2), _fig6_ratio(p, o))
        cells[(p, "LD iterations")] = (13 if p == "ORL" else None, _fig6_iters(p))
    return PaperTable(
        "fig6", "Fig. 6: time of each optimizer relative to LD (paper: the seconds in the "
        "legends), and LD's iterations", rows, cols, cells, metric="ratio",
        why="Stand-in data (digits subsets of the paper's sample counts: COIL20 -> all 1797 "
        "digits, ORL -> 400, Yale -> 160, USPS -> 600) and our own GD/CG/FP step rules (the "
        "paper takes them from the SNE, t-SNE and EE papers). Ours are the best of two timed "
        "fits after an untimed warm-up, on a shared machine; absolute seconds are not "
        "compared. On the stand-ins every optimizer converges (tol 1e-3) in tens of "
        "iterations, so the paper's hundreds of FP / CG / GD iterations, and its 5-50x "
        "ratios, do not appear.",
    )


def _fig6_ratio(p, o):
    def f(lookup):
        rows = [r for r in lookup.aggs.get("fig6", []) if r["paper_dataset"] == p]
        t = {r["optimizer"]: r["seconds"] for r in rows}
        if "ld" not in t or o not in t or t["ld"] <= 0:
            return None, ""
        return t[o] / t["ld"], ""
    return f


def _fig6_iters(p):
    def f(lookup):
        rows = [r for r in lookup.aggs.get("fig6", []) if r["paper_dataset"] == p
                and r["optimizer"] == "ld"]
        return (float(rows[0]["iterations"]), "") if rows else (None, "")
    return f


def _fig6(out, quick, progress, seed, echo):
    """Fig. 6: objective versus iteration of DEE with each optimizer, 2-D, on the stand-ins."""
    from sklearn.preprocessing import StandardScaler
    from threadpoolctl import threadpool_limits
    from tqdm.auto import tqdm

    from . import plots
    from .datasets import load_dataset
    from .evaluation import _history
    from .methods import parse_method

    data = dict(list(_P003_FIG6_DATA.items())[-1:]) if quick else _P003_FIG6_DATA
    os.makedirs(out, exist_ok=True)
    rows, figures = [], []
    bar = tqdm(total=len(data) * len(_P003_OPTS), desc="Fig. 6 optimizers", unit="fit",
               disable=not progress, file=sys.stderr, dynamic_ncols=True)
    warm = load_dataset("digits:per_class=5", random_state=seed)
    with threadpool_limits(limits=1):  # first calls pay one-off costs: not in the timings
        for opt in _P003_OPTS:
            ident, mspec, params = parse_method(f"dee:optimizer={opt}")
            mspec.build(2, params=params, random_state=seed).fit(
                StandardScaler().fit_transform(warm.X), warm.y)
    for paper_ds, spec in data.items():
        if quick:
            spec = "digits:per_class=15"
        ds = load_dataset(spec, random_state=seed)
        X = StandardScaler().fit_transform(ds.X)
        hist = {}
        for opt in _P003_OPTS:
            ident, mspec, params = parse_method(f"dee:optimizer={opt}")
            seconds = float("inf")
            for _ in range(_FIG6_REPEATS):  # best of two: other jobs only add time
                est = mspec.build(2, params=params, random_state=seed)
                with threadpool_limits(limits=1):
                    t0 = time.perf_counter()
                    est.fit(X, ds.y)
                    seconds = min(seconds, time.perf_counter() - t0)
            h = _history(est)
            hist[ident] = h
            obj = h["objective"] if h else [float("nan")]
            rows.append(dict(paper_dataset=paper_ds, dataset=ds.name, n_samples=len(ds.y),
                             optimizer=opt, iterations=len(obj) - 1, objective=obj[-1],
                             seconds=seconds))
            bar.update()
        fname = f"fig6_{paper_ds.lower()}.png"
        plots.plot_curves(hist, os.path.join(out, fname),
                          title=f"DEE optimizers on {ds.name} ({paper_ds} stand-in, "
                          f"n={len(ds.y)})")
        figures.append((fname, f"Fig. 6 ({paper_ds} stand-in: {ds.name}, {len(ds.y)} samples): "
                        "objective versus iteration and seconds"))
    bar.close()
    with open(os.path.join(out, "fig6.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return figures, rows


PAPER_003 = Paper(
    key="003",
    citation="Zheng, Zhang, Cattani, Wang. Dimensionality Reduction by Supervised Neighbor "
    "Embedding Using Laplacian Search (DEE). Comput. Math. Methods Med. 2014",
    file="003_cdbfba816824c5ab.txt",
    stand_ins=(
        ("USPS (1100 digits 16x16, 10 classes; Fig. 11(d): 25 training per class)",
         "digits (1797 scikit-learn 8x8 digits, 10 classes), 25 training per class",
         "USPS is not available offline; the same task at a lower resolution. 250 training "
         "samples of 64 pixels are not a small-sample-size problem (USPS's 256 pixels are), so "
         "DCV, which needs a null space of the within-class scatter, runs with null_dim=9: the "
         "C-1 directions of smallest within-class scatter"),
        ("ORL, Yale (Fig. 11(b)-(c): 50% of 10-11 images per person for training)",
         "digits, 5 training samples per class",
         "the face sets are not available offline; the same small-sample regime (fewer "
         "training samples than pixels), where DCV has its null space"),
        ("COIL20, ORL, Yale, USPS (Fig. 6: all samples; USPS 60 per class)",
         "digits (1797), digits:per_class=40 (400), digits:per_class=16 (160), "
         "digits:per_class=60 (600)",
         "the image sets are not available offline; digits subsets of the same sample counts"),
    ),
    experiments=(
        Experiment(
            "fig11", "Fig. 11: 10 random splits, 25 training samples per class, 1-NN "
            "recognition rate versus dimension",
            dataclasses.replace(_DEE, max_dim=60, dim_grid=_P003_DIMS), ("digits",),
            ("dee", "dsne", "dcv:null_dim=9", "mmpa"),
            quick_datasets=("digits:per_class=40",), quick_methods=("dee", "dcv:null_dim=9"),
            quick_protocol=dict(n_repeats=1, n_train_per_class=10, max_dim=5, dim_grid=(2, 5)),
        ),
        Experiment(
            "fig11_small", "Fig. 11, small-sample panel (ORL / Yale stand-in): 10 random "
            "splits, 5 training samples per class, 1-NN recognition rate versus dimension",
            dataclasses.replace(_DEE, max_dim=60, dim_grid=_P003_DIMS, n_train_per_class=5),
            ("digits",), ("dee", "dsne", "dcv", "mmpa"), pictures=False,
            quick_datasets=("digits:per_class=40",), quick_methods=("dee", "dcv"),
            quick_protocol=dict(n_repeats=1, n_train_per_class=3, max_dim=5, dim_grid=(2, 5)),
        ),
    ),
    tables=(_p003_fig6_table(),),
    claims=(
        Claim("Fig. 11(d), USPS", "\"in USPS dataset, the optimal accuracy for DCV is only "
              "83%, which is the worst compared with other three algorithms\"",
              _per_panel(_claim003_dcv)),
        Claim("Fig. 11", "\"The best recognition rate of MMPA and DEE is very close\" "
              "(taken as within 1 point)", _per_panel(_claim003_close)),
        Claim("Fig. 11", "\"DSNE only gets a little better recognition rate than DCV\" "
              "(taken as 0-5 points better)", _per_panel(_claim003_dsne)),
        Claim("Fig. 11", "\"DEE reaches the higher recognition rate with lower subspace "
              "dimension value\" (taken as: DEE comes within 1 point of its best at a "
              "dimension no larger than MMPA's)", _per_panel(_claim003_lowdim)),
        Claim("Fig. 11", "\"the recognition rate curve of DEE is smoother than MMPA's\" "
              "(taken as: DEE loses less than MMPA from its best to its largest dimension)",
              _per_panel(_claim003_smooth)),
        Claim("Fig. 6", "\"LD not only achieves the most precise objective values, but also "
              "requires the least runtime\" (most precise: lowest final objective)",
              _fig6_claim(lambda v: _fig6_lowest(v) and _fig6_fastest(v),
                          _fig6_text("objective"))),
        Claim("Fig. 6", "\"LD needs only 13 iterations [on ORL] [...] FP needs about 390 "
              "iterations\" (LD needs fewer iterations than FP)",
              _fig6_claim(lambda v: v["ld"]["iterations"] <= v["fp"]["iterations"],
                          _fig6_text("iterations"))),
    ),
    figures=(_fig6,),
    claims_why="Words such as 'very close' and 'a little better' are read as the thresholds "
    "given in the table (our reading). On the USPS stand-in DCV has no null space (250 "
    "training samples of 64 pixels) and runs with null_dim=9, which throws away most of the "
    "discriminant directions: its gap to the others there is an artefact of the stand-in; "
    "the small-sample panel (5 digits per class, fewer samples than pixels, as in ORL and "
    "Yale) is the fair one for DCV, and there the ranking of the four methods is ours to "
    "report, not the paper's. "
    "Fig. 6's 'most precise objective' is read as the lowest final objective: on the "
    "stand-ins all four optimizers stop within a few percent of each other at tol 1e-3.",
    not_reproduced=(
        "Fig. 11 (a)-(c) (COIL20, ORL, Yale) and Figs. 2-5, 7-10 (2-D visualisations of the "
        "four image sets): the data are not available offline; the digits pictures of every "
        "method are in the fig11 experiment's index.html.",
        "Fig. 11's curves themselves: the paper gives them only as plots (the text keeps the "
        "axis ticks: USPS recognition rates between 0.7 and 0.85 over dimensions up to 60); "
        "the one number in the text (DCV's 83% on USPS) is checked as a claim.",
    ),
)

PAPERS = {p.key: p for p in (PAPER_000, PAPER_001, PAPER_002, PAPER_003)}


def paper_numbers(paper):
    """Every transcribed number of ``paper``: list of (table key, row, column, value)."""
    p = PAPERS[paper]
    out = []
    for t in p.tables:
        for (row, col), (val, _) in t.cells.items():
            if val is not None:
                out.append((t.key, row, col, val))
    return out


# ----- running ----------------------------------------------------------------------------------
def _fmt(v, metric):
    if v is None:
        return "-"
    if metric == "ratio":
        return f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"
    return f"{v:.2f}"


def _table_markdown(t, lookup):
    """Markdown of one PaperTable, each cell 'paper / ours (difference)'; and its CSV rows."""
    unit = {"error": "error (%)", "recognition": "recognition rate (%)",
            "ratio": "ratio"}[t.metric]
    lines = [f"### {t.title}", "",
             f"Each cell: **paper / ours (ours - paper)**, {unit}; '-' where one side has no "
             "number.", "",
             "| | " + " | ".join(t.columns) + " |", "|---|" + "---:|" * len(t.columns)]
    csv_rows = []
    for row in t.rows:
        cells = []
        for col in t.columns:
            paper, ref = t.cells.get((row, col), (None, None))
            ours, note = lookup.value(ref, t.metric)
            diff = None if paper is None or ours is None else ours - paper
            txt = f"{_fmt(paper, t.metric)} / {_fmt(ours, t.metric)}"
            if diff is not None:
                txt += f" ({diff:+.2f})"
            if note:
                txt += f" [{note}]"
            cells.append(txt)
            csv_rows.append(dict(table=t.key, row=row, column=col, metric=t.metric,
                                 paper="" if paper is None else f"{paper:g}",
                                 ours="" if ours is None else f"{ours:.4f}",
                                 difference="" if diff is None else f"{diff:.4f}", note=note))
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    diffs = [float(r["difference"]) for r in csv_rows if r["difference"] != ""
             and r["table"] == t.key]
    lines.append("")
    if diffs:
        lines.append(f"Compared cells: {len(diffs)}; mean difference {np.mean(diffs):+.2f}, "
                     f"mean absolute difference {np.mean(np.abs(diffs)):.2f}.")
        lines.append("")
    lines.append(f"**Why they differ.** {t.why}")
    if t.note:
        lines += ["", t.note]
    lines.append("")
    return lines, csv_rows


def _command(argv):
    import shlex

    return "graphdr " + " ".join(shlex.quote(a) for a in argv)


def reproduce(paper, *, out=None, quick=False, n_jobs=1, threads=1, seed=0, fresh=False,
              progress=True, timing=True, echo=print, argv=None, plots_on=True):
    """Rerun paper ``paper``'s experiments and write the comparison report into ``out``.

    Returns ``(report path, failures)``; raises ValueError for an unknown paper.
    """
    from .report import aggregate, markdown_tables
    from .runner import run_bench

    key = str(paper).strip()
    if key not in PAPERS:
        raise ValueError(f"Unknown paper {paper!r}; reproducible papers: {', '.join(PAPERS)}.")
    p = PAPERS[key]
    out = out or f"graphdr-reproduce-{key}"
    os.makedirs(out, exist_ok=True)
    if fresh and os.path.exists(os.path.join(out, "runs.json")):
        os.remove(os.path.join(out, "runs.json"))
    command = _command(argv) if argv is not None else f"graphdr reproduce {key}" + \
        (" --quick" if quick else "")
    start = time.perf_counter()
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    aggs, failures, exp_info, exp_seconds = {}, [], [], {}
    for exp in p.experiments:
        protocol, datasets, methods = exp.resolved(quick)
        echo(f"graphdr reproduce {key}: {exp.key} ({exp.title})")
        t0 = time.perf_counter()
        res = run_bench(
            protocol, datasets=datasets, methods=methods, classifiers=exp.classifiers,
            out=os.path.join(out, exp.key), n_jobs=n_jobs, seed=seed,
            plots_on=plots_on and exp.plots, pictures=exp.pictures,
            html_on=True, progress=progress, timing=timing, fresh=fresh,
            command=command, title=f"Paper {key}: {exp.title}", echo=echo, threads=threads,
        )
        exp_seconds[exp.key] = time.perf_counter() - t0
        aggs[exp.key] = aggregate(res.rows)
        failures += [f"{exp.key}: {f}" for f in res.failures]
        exp_info.append((exp, protocol, datasets, methods, res))
    extra_figs = []
    for maker in p.figures:
        t0 = time.perf_counter()
        figs, rows = maker(out, quick, progress, seed, echo)
        exp_seconds[maker.__name__.strip("_")] = time.perf_counter() - t0
        extra_figs += figs
        aggs[maker.__name__.strip("_")] = rows
    elapsed = time.perf_counter() - start
    lookup = Lookup(aggs)
    runs = _log_run(out, dict(
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), command=command,
        wall_seconds=round(elapsed, 1), quick=bool(quick),
        computed_cells=sum(i[4].n_computed for i in exp_info),
        reused_cells=sum(i[4].n_skipped for i in exp_info),
        load_start=round(load0, 1),
        load_end=round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
        seconds={k: round(v, 1) for k, v in exp_seconds.items()}))

    lines = [f"# Paper {key} reproduced: {p.citation}", "",
             f"Command: `{command}`", ""]
    if quick:
        lines += ["**QUICK RUN**: every experiment shrunk to a few seconds (one small data "
                  "set, two or three methods, fewer folds). These numbers are a smoke test, "
                  "not a reproduction; run without `--quick` for the report.", ""]
    import graphdr

    load = (f"; load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
            "(the machine is shared: times are inflated by other jobs)"
            if hasattr(os, "getloadavg") else "")
    lines += [f"Wall time {elapsed / 60:.1f} min ("
              + ", ".join(f"{k} {v:.0f} s" for k, v in exp_seconds.items())
              + f") with --n-jobs {n_jobs}, {threads} BLAS thread(s) per process, seed {seed}; "
              f"graphdr {getattr(graphdr, '__version__', '?')}, Python "
              f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
              f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}{load}. "
              f"Paper text: "
              f"`papers/{p.file}`. The numbers below are whatever graphdr's methods compute "
              "today: rerun the command after changing a method to update them.", ""]
    lines += ["Runs into this directory (cells already in a results.csv are reused, so "
              "only a run that computed every cell measures the full cost):", "",
              "| date | command | wall time | cells computed / reused | load average "
              "start / end |", "|---|---|---:|---|---|"]
    lines += [f"| {r['date']} | `{r['command']}` | {r['wall_seconds'] / 60:.1f} min | "
              f"{r['computed_cells']} / {r['reused_cells']} | {r['load_start']} / "
              f"{r['load_end']} |" for r in runs]
    lines += [""]
    lines += ["## Data: the paper's and ours", "", "| paper | ours | note |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in p.stand_ins]
    lines += ["", "## Experiments run", ""]
    for exp, protocol, datasets, methods, _res in exp_info:
        lines.append(f"- **{exp.key}** -- {exp.title}. Protocol `{protocol.name}` "
                     f"({_describe_protocol(protocol, exp.classifiers)}); "
                     f"data: {', '.join(datasets)}; methods: "
                     f"{', '.join(methods)}. Files: [{exp.key}/index.html]({exp.key}/index.html)"
                     f", [{exp.key}/results.csv]({exp.key}/results.csv) (every fold and "
                     f"dimension), [{exp.key}/tables.md]({exp.key}/tables.md).")
    lines.append("")
    csv_rows = []
    if p.tables:
        lines += ["## The paper's numbers beside ours", ""]
        for t in p.tables:
            tl, tr = _table_markdown(t, lookup)
            lines += tl
            csv_rows += tr
    if p.claims:
        lines += ["## The paper's statements, checked on our numbers", "",
                  "| where | the paper says | ours | holds |", "|---|---|---|---|"]
        for c in p.claims:
            evidence, holds = c.check(lookup)
            lines.append(f"| {c.where} | {c.text} | {evidence} | {'yes' if holds else 'no'} |")
            csv_rows.append(dict(table="claims", row=c.where, column=c.text, metric="claim",
                                 paper="", ours=evidence, difference="yes" if holds else "no",
                                 note=""))
        lines.append("")
        if p.claims_why:
            lines += [f"**Why they differ.** {p.claims_why}", ""]
    notes = [n for n in (f(lookup) for f in p.observations) if n]
    if notes:
        lines += ["## Observations (computed from our numbers)", ""]
        lines += [f"- {n}" for n in notes] + [""]
    for exp_key, heading in p.summary_tables:
        info = next(i for i in exp_info if i[0].key == exp_key)
        exp, protocol, datasets, methods, res = info
        names = sorted({r["dataset"] for r in res.rows})
        tables = markdown_tables(res.rows, methods=methods, classifiers=list(
            exp.classifiers or protocol.classifiers), svm_gamma=protocol.svm_gamma,
            datasets=names)
        tables = tables.split("### Error (%) per dimension")[0].rstrip()
        lines += [f"## {heading}", "", tables.replace("### ", "#### "), "",
                  f"Errors at every dimension: [{exp_key}/tables.md]({exp_key}/tables.md).", ""]
    lines += ["## Figures", ""]
    for exp, _protocol, _datasets, _methods, res in exp_info:
        pngs = sorted(os.path.basename(f) for f in res.files if f.endswith(".png"))
        curves = [f for f in pngs if f.startswith("error_vs_dim")]
        if len(curves) > 2:  # one per data set and classifier: leave them to index.html
            pngs = [f for f in pngs if f not in curves]
        for png in pngs:
            lines += [f"![{exp.key}: {png}]({exp.key}/{png})", "", f"*{exp.key}/{png}*", ""]
        if len(curves) > 2:
            lines += [f"Error versus dimension per data set and classifier: "
                      f"[{exp.key}/index.html]({exp.key}/index.html).", ""]
    for fname, caption in extra_figs:
        lines += [f"![{caption}]({fname})", "", f"*{caption}*", ""]
    if p.not_reproduced:
        lines += ["## Not reproduced", ""] + [f"- {n}" for n in p.not_reproduced] + [""]
    if failures:
        lines += ["## Failed cells", ""] + [f"- {f}" for f in failures] + [""]
    path = os.path.join(out, "report.md")
    with open(path, "w") as fh:
        fh.write("\n".join(lines).rstrip() + "\n")
    with open(os.path.join(out, "results.csv"), "w", newline="") as fh:
        fields = ["table", "row", "column", "metric", "paper", "ours", "difference", "note"]
        w = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(csv_rows)
    echo(f"graphdr reproduce {key}: wrote {path} in {elapsed / 60:.1f} min.")
    return path, failures


def _log_run(out, entry):
    """Append ``entry`` to ``out/runs.json``; return every run logged there."""
    import json

    path = os.path.join(out, "runs.json")
    runs = []
    if os.path.exists(path):
        try:
            with open(path) as fh:
                runs = json.load(fh)
        except ValueError:
            runs = []
    runs.append(entry)
    with open(path, "w") as fh:
        json.dump(runs, fh, indent=1)
    return runs


def _describe_protocol(protocol, classifiers=None):
    if protocol.split == "kfold":
        split = f"stratified {protocol.n_splits}-fold CV" + (
            f" x {protocol.n_repeats}" if protocol.n_repeats > 1 else "")
    else:
        split = (f"{protocol.n_repeats} random splits, {protocol.n_train_per_class:g} training "
                 "samples per class")
    dims = "dimensions 1..C-1" if protocol.max_dim is None else \
        f"dimensions up to {protocol.max_dim}"
    if protocol.dim_grid is not None:
        dims = ("the largest dimension only" if not protocol.dim_grid else
                f"dimensions {', '.join(map(str, protocol.dim_grid))} (and each method's "
                "largest)")
    gamma = ("" if protocol.kernel_gamma is None
             else f", RBF kernel gamma {protocol.kernel_gamma:g}")
    projection = ("" if protocol.projection is None
                  else f", projections with scaling='{protocol.projection}'")
    return (f"scaling {protocol.scaling}, {split}, classifiers "
            f"{', '.join(classifiers or protocol.classifiers)}, {dims}{gamma}{projection}")
