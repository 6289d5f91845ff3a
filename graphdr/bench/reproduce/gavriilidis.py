r"""Paper 002 (Gavriilidis and Tefas): its experiments, Tables 2-4 and claims."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..protocols import get_protocol
from .gavriilidis_numbers import (
    _P002_FACES_DIMS,
    _P002_LED_DIMS,
    _P002_METHODS,
    _P002_T2,
    _P002_T2_DIMS,
    _P002_T3,
    _P002_T4,
    _P002_T4_COLS,
    _balanced_same,
    _compare,
    _conclusion,
    _explain_conclusion,
    _explain_table4_level,
    _gaps,
    _name,
    _printed,
    _said,
    _t2,
    _t3,
    _table4_level,
    _table4_overall,
    _verdict,
)
from .spec import (
    Experiment,
    LedgerRow,
    Paper,
    PaperTable,
    per_dimension_verdict,
    size_text,
    untestable,
)

# ----- paper 002 --------------------------------------------------------------------------------
_GAV = get_protocol("gavriilidis")
_P002_UCI = ("led7digit", "balance_scale", "ionosphere", "wine", "iris")
#: the paper's algorithm as printed, both initialisations (random first, as its tables)
_P002_PRINTED = ("qmi-paper:init=random", "mi-b-paper:init=random", "mi-a-paper:init=random",
                 "qmi-paper:init=lda", "mi-b-paper:init=lda", "mi-a-paper:init=lda")
#: the open settings: learning rate and window, for the three criteria from both starts
#: ("": as in the tables), each fit stopped after at most this many iterations (the tables'
#: fits go on to convergence: the settings are a sensitivity check, bounded in time)
_SETTINGS_CAP = 200
_P002_SETTINGS = tuple(
    f"{crit}-paper:init={init}:max_iter={_SETTINGS_CAP}" + (f":{setting}" if setting else "")
    for setting in ("", "step_size=0.01", "step_size=1.0", "sigma_factors=(0.5,)",
                    "sigma_factors=(2.0,)")
    for init in ("lda", "random") for crit in ("qmi", "mi-b", "mi-a"))
#: the open settings' labels, as the method ids end
_P002_SETTING_LABELS = (("", "rate 0.1, median window (the tables' settings)"),
                        ("step_size=0.01", "learning rate 0.01"),
                        ("step_size=1.0", "learning rate 1"),
                        ("sigma_factors=(0.5,)", "half the window"),
                        ("sigma_factors=(2.0,)", "twice the window"))

def _p002_table(key, exp, title, values, columns, why):
    """``columns``: (column label, our data set, dim). Each of the paper's rows twice: ours as
    printed and ours with graphdr's defaults, both beside the paper's number."""
    cells, rows = {}, []
    for row, vals in values.items():
        for recipe, method in (("as printed", _printed(_P002_METHODS[row])),
                               ("graphdr default", _P002_METHODS[row])):
            rows.append(f"{row} ({recipe})")
            for (label, ds, dim), v in zip(columns, vals):
                cells[(rows[-1], label)] = (v, (exp, ds, method, "1nn", dim))
    return PaperTable(key, title, tuple(rows), tuple(c[0] for c in columns), cells, why=why)


_P002_WHY_PROTOCOL = (
    "The paper's k of the k-NN classifier, its Parzen width and learning rate are not given, "
    "and it iterates 'until convergence'; as printed, we use 1-NN, the median rule's window, "
    "a learning rate of 0.1 and iterate until the relative gain is below 1e-5 (at most 5000 "
    "iterations; each fit's count is in results.csv, and the ledger says how many "
    "converged), on our own 5x2 folds; the 'settings' experiment varies them."
)

# ----- the two recipes and the claims ledger ------------------------------------------------------
_P002_RECIPES = (
    "- **As printed** (`qmi-paper`, `mi-a-paper`, `mi-b-paper`: `QMIProjection(metric="
    "'euclidean', solver='paper', sigma_factors=(1.0,), cv=None, max_iter=5000)`): the "
    "paper's eq. 15, "
    "W <- orth(W + rho dJ/dW) with a fixed learning rate rho and W orthonormal in the scaled "
    "input space, one Parzen window, W started from LDA's directions (orthonormalised) or at "
    "random, no inner validation, the last iterate kept. The paper fixes neither rho, nor the "
    "window sigma, nor k of its k-NN, and it updates W 'until convergence': we use rho = "
    "0.1, sigma by the median rule (half the median distance between projected samples at "
    "the start), iterations until the relative gain is below 1e-5 (at most 5000, so that one "
    "fit that does not converge cannot hold the run; the ledger gives how many fits "
    "converged and their median iterations), and 1-NN; the experiment 'settings' varies "
    "rho (0.01, 1), sigma (x 0.5, x 2) and k (3), each fit there stopped after at most "
    f"{_SETTINGS_CAP} iterations, and the claims below say whether they change.\n"
    "- **graphdr default** (`qmi`, `mi-a`, `mi-b`): `QMIProjection()`: W orthonormal in the "
    "whitened within-class metric, a path of three windows, a Riemannian conjugate-gradient "
    "ascent with step control, and an inner 3-fold validation that keeps the LDA start unless "
    "an ascent checkpoint beats it by an exact McNemar test at the 5 % level.\n"
    "- The test of a claim is the paper's own: the combined 5x2cv F test (Alpaydin 1999, the "
    "F form of the Dietterich 5x2cv test the paper cites; `graphdr.bench.significance`), on "
    "the paired fold errors of the two methods. A claim about several dimensions of a table "
    "is tested at each of them, the p-values adjusted by Holm's step-down rule over the "
    "claim's dimensions, each dimension judged against the paper's gap at that dimension, "
    "and the claim takes the median dimension's verdict (it holds at most of its dimensions "
    "or not at all); the test on the errors averaged over the dimensions stands beside it. "
    "The verdict needs the paper's direction, significance, and the gap within half to twice "
    "the paper's (the F test is blind to the sign, so a significant F can sit on a gap of a "
    "few tenths).")


def _settings_cells(lookup, ds, better, worse, dims):
    """The claim under each open setting of the 'settings' experiment (as printed):
    ``[(setting, 'a vs b % (verdict)')]``, dims 1-2 of the claim's."""
    dims = tuple(d for d in dims if d <= 2) or (1,)
    out = []
    for suffix, label in _P002_SETTING_LABELS:
        a, b = (_printed(m) + f":max_iter={_SETTINGS_CAP}" + (f":{suffix}" if suffix else "")
                for m in (better, worse))
        for clf in ("1nn", "3nn") if not suffix else ("1nn",):
            got = _compare(lookup, "settings", ds, a, b, dims, clf)
            if got is not None:
                out.append((label + (", 3-NN" if clf == "3nn" else ""),
                            f"{got[0]:.1f} vs {got[1]:.1f} ({_verdict(got)})"))
    return out


def _settings_lines(lookup, ds, better, worse, dims):
    return [f"{k}: {v}" for k, v in _settings_cells(lookup, ds, better, worse, dims)]


def _fits_said(lookup, exp, ds, methods, dims):
    """'; converged: QMI (lda) 38 of 50 fits (median 1048 iterations), ...' for the as-printed
    fits of ``methods`` (nothing when no fit records its iterations)."""
    parts = []
    for m in methods:
        fits = lookup.fits(exp, ds, _printed(m), dims)
        if fits:
            done = sum(bool(c) for _, c in fits)
            parts.append(f"{_name(m)} {done} of {len(fits)} fits (median "
                         f"{int(np.median([n for n, _ in fits]))} iterations)")
    return "; converged: " + ", ".join(parts) if parts else ""


def _per_dimension(lookup, exp, ds, better, worse, dims, gaps):
    """``(verdict, text)`` of the claim tested at each of ``dims`` (Holm's adjustment over
    them), the paper's gap at each dimension ``gaps``."""
    gots = [_compare(lookup, exp, ds, _printed(better), _printed(worse), (d,)) for d in dims]
    verdict, each = per_dimension_verdict(gots, gaps)
    if not each:
        return verdict, ""
    text = "; ".join(f"d{d} {g[1] - g[0]:+.1f} (paper {gap:+.1f}, Holm p {p:.3f}: {v})"
                     for d, g, gap, (v, p) in zip(dims, gots, gaps, each))
    return verdict, text


def _pair_claim(claim, paper, exp, ds, better, worse, dims, explain=None, *, gap=None,
                gaps=None):
    """A ledger row: ``better`` (a graphdr-default method id) errs less than ``worse`` on
    ``ds`` at ``dims``, as printed and with the defaults, by about the paper's ``gap`` (points,
    the paper's tables averaged over the same dims). With ``gaps`` (the paper's gap at each of
    ``dims``) the verdict is the per-dimension one (:func:`per_dimension_verdict`), the test on
    the errors averaged over ``dims`` beside it."""
    def check(lookup):
        printed = _compare(lookup, exp, ds, _printed(better), _printed(worse), dims)
        default = _compare(lookup, exp, ds, better, worse, dims)
        averaged = _verdict(printed, gap)
        test = "5x2cv F, fold errors averaged over dims " + ", ".join(map(str, dims))
        verdict = averaged
        if gaps is not None:
            verdict, each = _per_dimension(lookup, exp, ds, better, worse, dims, gaps)
            test = (f"5x2cv F at each dimension, Holm's adjustment over the {len(dims)}, the "
                    f"median dimension's verdict: {each or '-'}; beside it, the {test}: "
                    f"{averaged}")
        return dict(as_printed=_said(printed, better, worse)
                    + _fits_said(lookup, exp, ds, (better, worse), dims),
                    default=_said(default, better, worse), test=test,
                    size=size_text(None if printed is None else printed[1] - printed[0], gap),
                    verdict=verdict)

    def sensitivity(lookup):
        return _settings_cells(lookup, ds, better, worse, dims)

    return LedgerRow(claim, paper, check, explain, sensitivity)


def _explain_settings(ds, better, worse, dims, data_note):
    """The experiment behind a claim of the stand-in data: its open settings."""
    def explain(lookup):
        dims2 = tuple(d for d in dims if d <= 2) or (1,)
        lines = _settings_lines(lookup, ds, better, worse, dims2)
        text = (f"{data_note} The open settings (experiment 'settings', {_name(better)} vs "
                f"{_name(worse)} as printed, dims {', '.join(map(str, dims2))}): "
                + ("; ".join(lines) if lines else "not run") + ".")
        return text

    return explain


def _explain_unscaled(ds, better, worse, dims):
    """The experiment behind a claim on the paper's own data: the features unscaled."""
    def explain(lookup):
        got = _compare(lookup, "unscaled", ds, _printed(better), _printed(worse), dims)
        said = ("not run" if got is None else
                f"{_name(better)} {got[0]:.1f} vs {_name(worse)} {got[1]:.1f} % "
                f"({_verdict(got)})")
        lines = _settings_lines(lookup, ds, better, worse, tuple(d for d in dims if d <= 2))
        return (f"The same data as the paper's, so the data do not explain it. Without the "
                f"[0, 1] scaling (experiment 'unscaled'): {said}."
                + (" The open settings (experiment 'settings'): " + "; ".join(lines) + "."
                   if lines else ""))

    return explain



_FACES_NOTE = ("Stand-in data: CMU faces are not available offline, so whether the "
               "paper's data would give it cannot be tested here.")
_ECOLI_NOTE = ("Stand-in data: Ecoli is not available offline, so whether the paper's data "
               "would give it cannot be tested here.")



_P002_LEDGER = (
    _pair_claim("Table 2 / text: from the LDA start, MI_BA is much better than QMI, and "
                "the difference is significant", f"MI_BA {_t2('MI_BA, LDA', _P002_FACES_DIMS):.1f}"
                f" vs QMI {_t2('QMI, LDA', _P002_FACES_DIMS):.1f} % (dims 1-8); Dietterich F > 8",
                "faces", "digits", "mi-b:init=lda", "qmi:init=lda", _P002_FACES_DIMS,
                _explain_settings("digits", "mi-b:init=lda", "qmi:init=lda",
                                  _P002_FACES_DIMS, _FACES_NOTE),
                gap=_t2("QMI, LDA", _P002_FACES_DIMS) - _t2("MI_BA, LDA", _P002_FACES_DIMS),
                gaps=_gaps(_t2, "QMI, LDA", "MI_BA, LDA", _P002_FACES_DIMS)),
    _pair_claim("Table 2: from a random start, QMI is better than MI_BA at low dimensions",
                f"QMI {_t2('QMI, Random', (1, 2, 3, 4)):.1f} vs MI_BA "
                f"{_t2('MI_BA, Random', (1, 2, 3, 4)):.1f} % (dims 1-4)",
                "faces", "digits", "qmi:init=random", "mi-b:init=random", (1, 2, 3, 4),
                _explain_settings("digits", "qmi:init=random", "mi-b:init=random",
                                  (1, 2, 3, 4), _FACES_NOTE),
                gap=_t2("MI_BA, Random", (1, 2, 3, 4)) - _t2("QMI, Random", (1, 2, 3, 4)),
                gaps=_gaps(_t2, "MI_BA, Random", "QMI, Random", (1, 2, 3, 4))),
    _pair_claim("Table 2 / conclusions: the LDA start is better than a random one (the "
                "'limitation of LDA initialization')",
                f"MI_BA {_t2('MI_BA, LDA', _P002_FACES_DIMS):.1f} vs "
                f"{_t2('MI_BA, Random', _P002_FACES_DIMS):.1f} % (dims 1-8)",
                "faces", "digits", "mi-b:init=lda", "mi-b:init=random", _P002_FACES_DIMS,
                _explain_settings("digits", "mi-b:init=lda", "mi-b:init=random",
                                  _P002_FACES_DIMS, _FACES_NOTE),
                gap=_t2("MI_BA, Random", _P002_FACES_DIMS) - _t2("MI_BA, LDA",
                                                                 _P002_FACES_DIMS),
                gaps=_gaps(_t2, "MI_BA, Random", "MI_BA, LDA", _P002_FACES_DIMS)),
    _pair_claim("Table 2: the LDA start is better than a random one for QMI too",
                f"QMI {_t2('QMI, LDA', _P002_FACES_DIMS):.1f} vs "
                f"{_t2('QMI, Random', _P002_FACES_DIMS):.1f} % (dims 1-8)",
                "faces", "digits", "qmi:init=lda", "qmi:init=random", _P002_FACES_DIMS,
                _explain_settings("digits", "qmi:init=lda", "qmi:init=random",
                                  _P002_FACES_DIMS, _FACES_NOTE),
                gap=_t2("QMI, Random", _P002_FACES_DIMS) - _t2("QMI, LDA", _P002_FACES_DIMS),
                gaps=_gaps(_t2, "QMI, Random", "QMI, LDA", _P002_FACES_DIMS)),
    LedgerRow("Table 2: from a random start, QMI and MI_BA give the same errors at 12 or more "
              "dimensions", "identical cells at dims 15-19 (19.62 vs 19.94 % at 12)",
              untestable("the stand-in digits have 10 classes, so no dimension above 9 "
                         "exists, and CMU faces are not available offline")),
    _pair_claim("Table 3 / text: on Ecoli the proposed criteria beat QMI from a random start",
                f"MI_A {_t3('MI_A, Random', _P002_LED_DIMS):.1f} vs QMI "
                f"{_t3('QMI, Random', _P002_LED_DIMS):.1f} % (dims 1-7)",
                "uci", "led7digit", "mi-a:init=random", "qmi:init=random", _P002_LED_DIMS,
                _explain_settings("led7digit", "mi-a:init=random", "qmi:init=random",
                                  _P002_LED_DIMS, _ECOLI_NOTE),
                gap=_t3("QMI, Random", _P002_LED_DIMS) - _t3("MI_A, Random", _P002_LED_DIMS),
                gaps=_gaps(_t3, "QMI, Random", "MI_A, Random", _P002_LED_DIMS)),
    _pair_claim("Table 3 / text: ... and from the LDA start",
                f"MI_A {_t3('MI_A, LDA', _P002_LED_DIMS):.1f} vs QMI "
                f"{_t3('QMI, LDA', _P002_LED_DIMS):.1f} % (dims 1-7)",
                "uci", "led7digit", "mi-a:init=lda", "qmi:init=lda", _P002_LED_DIMS,
                _explain_settings("led7digit", "mi-a:init=lda", "qmi:init=lda",
                                  _P002_LED_DIMS, _ECOLI_NOTE),
                gap=_t3("QMI, LDA", _P002_LED_DIMS) - _t3("MI_A, LDA", _P002_LED_DIMS),
                gaps=_gaps(_t3, "QMI, LDA", "MI_A, LDA", _P002_LED_DIMS)),
    _pair_claim("Table 3 / text: ... MI_B too, from a random start",
                f"MI_B {_t3('MI_B, Random', _P002_LED_DIMS):.1f} vs QMI "
                f"{_t3('QMI, Random', _P002_LED_DIMS):.1f} % (dims 1-7)",
                "uci", "led7digit", "mi-b:init=random", "qmi:init=random", _P002_LED_DIMS,
                _explain_settings("led7digit", "mi-b:init=random", "qmi:init=random",
                                  _P002_LED_DIMS, _ECOLI_NOTE),
                gap=_t3("QMI, Random", _P002_LED_DIMS) - _t3("MI_B, Random", _P002_LED_DIMS),
                gaps=_gaps(_t3, "QMI, Random", "MI_B, Random", _P002_LED_DIMS)),
    _pair_claim("Table 3 / text: ... and MI_B from the LDA start",
                f"MI_B {_t3('MI_B, LDA', _P002_LED_DIMS):.1f} vs QMI "
                f"{_t3('QMI, LDA', _P002_LED_DIMS):.1f} % (dims 1-7)",
                "uci", "led7digit", "mi-b:init=lda", "qmi:init=lda", _P002_LED_DIMS,
                _explain_settings("led7digit", "mi-b:init=lda", "qmi:init=lda",
                                  _P002_LED_DIMS, _ECOLI_NOTE),
                gap=_t3("QMI, LDA", _P002_LED_DIMS) - _t3("MI_B, LDA", _P002_LED_DIMS),
                gaps=_gaps(_t3, "QMI, LDA", "MI_B, LDA", _P002_LED_DIMS)),
    _pair_claim("Fig. 1: in 2-D (random start) MI_A separates the classes where QMI's "
                "projection is compact but not separable",
                f"MI_A {_t3('MI_A, Random', (2,)):.1f} vs QMI {_t3('QMI, Random', (2,)):.1f} % "
                "(Table 3, dim 2)",
                "uci", "led7digit", "mi-a:init=random", "qmi:init=random", (2,),
                _explain_settings("led7digit", "mi-a:init=random", "qmi:init=random", (2,),
                                  _ECOLI_NOTE),
                gap=_t3("QMI, Random", (2,)) - _t3("MI_A, Random", (2,))),
    _pair_claim("Table 4: on ionosphere (LDA start) MI_A beats QMI", "32.57 vs 39.20 % (1-D)",
                "uci", "ionosphere", "mi-a:init=lda", "qmi:init=lda", (1,),
                _explain_unscaled("ionosphere", "mi-a:init=lda", "qmi:init=lda", (1,)),
                gap=39.20 - 32.57),
    _pair_claim("Table 4: on iris in 1-D (LDA start) MI_A beats QMI", "3.47 vs 8.53 %",
                "uci", "iris", "mi-a:init=lda", "qmi:init=lda", (1,),
                _explain_unscaled("iris", "mi-a:init=lda", "qmi:init=lda", (1,)),
                gap=8.53 - 3.47),
    _pair_claim("Table 4: on balance from a random start QMI beats MI_A (against the text's "
                "'overall')", "23.78 vs 66.09 % (1-D)",
                "uci", "balance_scale", "qmi:init=random", "mi-a:init=random", (1,),
                _explain_unscaled("balance_scale", "qmi:init=random", "mi-a:init=random",
                                  (1,)), gap=66.09 - 23.78),
    LedgerRow("Table 4 / text: 'overall, MI_B or MI_A is superior against standard QMI' on "
              "the data sets with few classes", "MI_A below QMI in 9 of 14 cells (one tie)",
              _table4_overall, _explain_conclusion),
    LedgerRow("Section 4: MI_B and MI_A give the same results when every class has as many "
              "samples (iris)", "\"measures MI_B [...] and MI_A [...] have no difference when "
              "all classes have the same number of samples\"", _balanced_same("iris", (1, 2))),
    LedgerRow("Table 4: the error levels on the paper's own data sets (e.g. wine 2-D about "
              "30 % for every criterion and start)", "42 cells", _table4_level,
              _explain_table4_level),
    LedgerRow("Conclusions: MI_BA 'attains in most cases better classification' than QMI",
              "MI_BA (MI_A) below QMI in most cells of Tables 2-4", _conclusion,
              _explain_conclusion),
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
            ("qmi-paper:init=random", "mi-b-paper:init=random", "qmi-paper:init=lda",
             "mi-b-paper:init=lda", "qmi:init=random", "mi-b:init=random", "qmi:init=lda",
             "mi-b:init=lda", "lda", "pca"),
            quick_datasets=("digits:per_class=8",),
            quick_methods=("qmi-paper:init=lda", "mi-b-paper:init=lda", "qmi:init=lda"),
            quick_protocol=dict(n_repeats=1, dim_grid=(1,), max_dim=1),
        ),
        Experiment(
            "uci", "Tables 3-4: scaled to [0,1], 5x2 CV, 1-NN, dimensions 1..min(C-1, D)",
            _GAV, _P002_UCI,
            _P002_PRINTED + ("qmi:init=random", "mi-b:init=random", "mi-a:init=random",
                             "qmi:init=lda", "mi-b:init=lda", "mi-a:init=lda", "lda", "pca"),
            quick_datasets=("iris",), quick_methods=("qmi-paper:init=random", "mi-b:init=lda"),
            quick_protocol=dict(n_repeats=1),
        ),
        Experiment(
            "settings", "the settings the paper leaves open: the as-printed recipe with a "
            "learning rate of 0.01 or 1 (0.1 in the tables), a window of half or twice the "
            "median rule's, and 3-NN beside 1-NN; every data set, dimensions 1-2, each fit "
            f"stopped after at most {_SETTINGS_CAP} iterations (a sensitivity check bounded in "
            "time; the tables' fits go on to convergence)",
            dataclasses.replace(_GAV, dim_grid=(1, 2), max_dim=2, classifiers=("1nn", "3nn")),
            ("digits:per_class=32",) + _P002_UCI, _P002_SETTINGS,
            quick_datasets=("wine",), quick_methods=_P002_SETTINGS[:2],
            quick_protocol=dict(n_repeats=1), plots=False,
        ),
        Experiment(
            "unscaled", "Table 4's data sets without the [0, 1] scaling (the paper says it "
            "scaled them): the as-printed recipe, LDA and PCA on the raw features",
            dataclasses.replace(_GAV, scaling="none"),
            ("balance_scale", "ionosphere", "wine", "iris"),
            _P002_PRINTED + ("lda", "pca"),
            quick_datasets=("wine",), quick_methods=("qmi-paper:init=lda",),
            quick_protocol=dict(n_repeats=1), plots=False,
        ),
    ),
    recipes=_P002_RECIPES,
    ledger=_P002_LEDGER,
    sensitivity_note="The as-printed recipe with each open setting changed (experiment "
    "'settings', dimensions 1-2 of the claim's): the two errors (%) and the verdict by the "
    "same test.",
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
