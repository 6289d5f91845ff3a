r"""Paper 000 (Bouzas, Arvanitopoulos and Tefas): its experiments, tables and claims."""

from __future__ import annotations

import dataclasses

from ..protocols import get_protocol
from .spec import (
    Claim,
    Experiment,
    Paper,
    _fmt_wins,
    _wins,
)

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
