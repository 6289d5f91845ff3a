r"""Paper 002 (Gavriilidis and Tefas): its experiments, Tables 2-4 and claims."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..protocols import get_protocol
from .spec import (
    Experiment,
    LedgerRow,
    Paper,
    PaperTable,
    directional_verdict,
    paired_comparison,
    size_text,
)

# ----- paper 002 --------------------------------------------------------------------------------
_GAV = get_protocol("gavriilidis")
_P002_UCI = ("led7digit", "balance_scale", "ionosphere", "wine", "iris")
#: the paper's algorithm as printed, both initialisations (random first, as its tables)
_P002_PRINTED = ("qmi-paper:init=random", "mi-b-paper:init=random", "mi-a-paper:init=random",
                 "qmi-paper:init=lda", "mi-b-paper:init=lda", "mi-a-paper:init=lda")
#: the open settings: learning rate and window, for the three criteria from both starts
#: ("": as in the tables)
_P002_SETTINGS = tuple(
    f"{crit}-paper:init={init}" + (f":{setting}" if setting else "")
    for setting in ("", "step_size=0.01", "step_size=1.0", "sigma_factors=(0.5,)",
                    "sigma_factors=(2.0,)")
    for init in ("lda", "random") for crit in ("qmi", "mi-b", "mi-a"))
#: the open settings' labels, as the method ids end
_P002_SETTING_LABELS = (("", "rate 0.1, median window (the tables')"),
                        ("step_size=0.01", "learning rate 0.01"),
                        ("step_size=1.0", "learning rate 1"),
                        ("sigma_factors=(0.5,)", "half the window"),
                        ("sigma_factors=(2.0,)", "twice the window"))
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


def _printed(method):
    """The as-printed recipe of a graphdr-default method id (``mi-b:init=lda`` ->
    ``mi-b-paper:init=lda``)."""
    head, _, rest = method.partition(":")
    return f"{head}-paper:{rest}"


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
    "The paper's k of the k-NN classifier, its Parzen width, learning rate and stopping rule "
    "are not given; as printed, we use 1-NN, the median rule's window, a learning rate of 0.1 "
    "and at most 200 iterations (the 'settings' experiment varies them), on our own 5x2 folds."
)

# ----- the two recipes and the claims ledger ------------------------------------------------------
_P002_RECIPES = (
    "- **As printed** (`qmi-paper`, `mi-a-paper`, `mi-b-paper`: `QMIProjection(metric="
    "'euclidean', solver='paper', sigma_factors=(1.0,), cv=None)`): the paper's eq. 15, "
    "W <- orth(W + rho dJ/dW) with a fixed learning rate rho and W orthonormal in the scaled "
    "input space, one Parzen window, W started from LDA's directions (orthonormalised) or at "
    "random, no inner validation, the last iterate kept. The paper fixes neither rho, nor the "
    "window sigma, nor when to stop, nor k of its k-NN: we use rho = 0.1, sigma by the "
    "median rule (half the median distance between projected samples at the start), at most "
    "200 iterations or a relative gain below 1e-5, and 1-NN; the experiment 'settings' "
    "varies rho (0.01, 1), sigma (x 0.5, x 2) and k (3), and the claims below say whether "
    "they change.\n"
    "- **graphdr default** (`qmi`, `mi-a`, `mi-b`): `QMIProjection()`: W orthonormal in the "
    "whitened within-class metric, a path of three windows, a Riemannian conjugate-gradient "
    "ascent with step control, and an inner 3-fold validation that keeps the LDA start unless "
    "an ascent checkpoint beats it by an exact McNemar test at the 5 % level.\n"
    "- The test of a claim is the paper's own: the combined 5x2cv F test (Alpaydin 1999, the "
    "F form of the Dietterich 5x2cv test the paper cites; `graphdr.bench.significance`), on "
    "the paired fold errors of the two methods, averaged over the dimensions the claim is "
    "about; its p-value is one-sided in effect only through the verdict, which also needs the "
    "paper's direction, and the gap within half to twice the paper's (its tables averaged "
    "over the same dimensions; the F test is blind to the sign, so a significant F can sit "
    "on a gap of a few tenths).")

_P002_FACES_DIMS = (1, 2, 3, 4, 8)
_P002_LED_DIMS = tuple(range(1, 8))
_P002_LABELS = {"qmi": "QMI", "mi-a": "MI_A", "mi-b": "MI_BA"}


def _name(method):
    head, _, init = method.partition(":init=")
    return f"{_P002_LABELS[head.replace('-paper', '')]} ({init})"


def _fold_mean(lookup, exp, ds, method, dims, clf="1nn"):
    """Fold errors (fractions, fold order) averaged over ``dims``; None if one is missing."""
    arrays = [lookup.fold_errors(exp, ds, method, clf, d) for d in dims]
    if not arrays or any(a is None for a in arrays):
        return None
    return np.mean(arrays, axis=0)


def _compare(lookup, exp, ds, better, worse, dims, clf="1nn"):
    """:func:`paired_comparison` of the claim that ``better`` errs less, errors averaged over
    ``dims``."""
    return paired_comparison(_fold_mean(lookup, exp, ds, better, dims, clf),
                             _fold_mean(lookup, exp, ds, worse, dims, clf))


_verdict = directional_verdict


def _said(got, better, worse):
    if got is None:
        return "-"
    text = f"{_name(better)} {got[0]:.1f} vs {_name(worse)} {got[1]:.1f} %"
    return text + ("" if got[3] is None else f" (F {got[2]:.2f}, p {got[3]:.3f})")


def _settings_cells(lookup, ds, better, worse, dims):
    """The claim under each open setting of the 'settings' experiment (as printed):
    ``[(setting, 'a vs b % (verdict)')]``, dims 1-2 of the claim's."""
    dims = tuple(d for d in dims if d <= 2) or (1,)
    out = []
    for suffix, label in _P002_SETTING_LABELS:
        a, b = (_printed(m) + (f":{suffix}" if suffix else "") for m in (better, worse))
        for clf in ("1nn", "3nn") if not suffix else ("1nn",):
            got = _compare(lookup, "settings", ds, a, b, dims, clf)
            if got is not None:
                out.append((label + (", 3-NN" if clf == "3nn" else ""),
                            f"{got[0]:.1f} vs {got[1]:.1f} ({_verdict(got)})"))
    return out


def _settings_lines(lookup, ds, better, worse, dims):
    return [f"{k}: {v}" for k, v in _settings_cells(lookup, ds, better, worse, dims)]


def _pair_claim(claim, paper, exp, ds, better, worse, dims, explain=None, *, gap=None):
    """A ledger row: ``better`` (a graphdr-default method id) errs less than ``worse`` on
    ``ds`` at ``dims`` (errors averaged over them), as printed and with the defaults, by about
    the paper's ``gap`` (points, the paper's tables averaged over the same dims)."""
    def check(lookup):
        printed = _compare(lookup, exp, ds, _printed(better), _printed(worse), dims)
        default = _compare(lookup, exp, ds, better, worse, dims)
        test = "5x2cv F, fold errors averaged over dims " + ", ".join(map(str, dims))
        return dict(as_printed=_said(printed, better, worse),
                    default=_said(default, better, worse), test=test,
                    size=size_text(None if printed is None else printed[1] - printed[0], gap),
                    verdict=_verdict(printed, gap))

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


def _paper_mean(table, row, columns, wanted):
    return float(np.mean([v for c, v in zip(columns, table[row]) if c in wanted]))


def _t2(row, dims):
    return _paper_mean(_P002_T2, row, _P002_T2_DIMS, dims)


def _t3(row, dims):
    return _paper_mean(_P002_T3, row, range(1, 8), dims)


_FACES_NOTE = ("Stand-in data: CMU faces are not available offline, so whether the "
               "paper's data would give it cannot be tested here.")
_ECOLI_NOTE = ("Stand-in data: Ecoli is not available offline, so whether the paper's data "
               "would give it cannot be tested here.")


def _table4_level(lookup):
    """Table 4's 42 cells: ours as printed (and default) against the paper's."""
    out = {}
    for recipe, convert in (("as_printed", _printed), ("default", lambda m: m)):
        near, diffs = 0, []
        for row, values in _P002_T4.items():
            for (_name4, dim, ds), paper in zip(_P002_T4_COLS, values):
                errors = lookup.fold_errors("uci", ds, convert(_P002_METHODS[row]), "1nn", dim)
                if errors is None:
                    continue
                mean = 100 * errors.mean()
                se = 100 * errors.std(ddof=1) / np.sqrt(len(errors)) if len(errors) > 1 else 0
                diffs.append(mean - paper)
                near += abs(mean - paper) <= 2 * se
        out[recipe] = (near, len(diffs), float(np.mean(np.abs(diffs))) if diffs else None)
    near, n, mad = out["as_printed"]
    if not n:
        verdict = "not testable"
    else:
        verdict = "reproduced" if near >= 0.8 * n else "not reproduced"

    def said(key):
        k, m, d = out[key]
        return "-" if not m else f"{k} of {m} cells within 2 standard errors; mean abs. " \
                                 f"difference {d:.1f} points"

    return dict(as_printed=said("as_printed"), default=said("default"),
                test="|ours - paper| <= 2 standard errors of our 10 folds, per cell; "
                     "reproduced if 80 % of the cells are", verdict=verdict)


def _explain_table4_level(lookup):
    lines = []
    for ds, dim, name in (("wine", 2, "wine 2-D"), ("ionosphere", 1, "ionosphere 1-D"),
                          ("balance_scale", 1, "balance 1-D"), ("iris", 2, "iris 2-D")):
        cells = []
        for exp, label in (("uci", "scaled"), ("unscaled", "unscaled")):
            errs = [lookup.fold_errors(exp, ds, _printed(m), "1nn", dim)
                    for m in ("qmi:init=random", "qmi:init=lda", "mi-a:init=lda")]
            if all(e is not None for e in errs):
                cells.append(f"{label} " + " / ".join(f"{100 * e.mean():.1f}" for e in errs))
        col = next(i for i, (_n4, d4, ds4) in enumerate(_P002_T4_COLS)
                   if ds4 == ds and d4 == dim)
        paper = " / ".join(f"{_P002_T4[r][col]:.1f}"
                           for r in ("QMI, Random", "QMI, LDA", "MI_A, LDA"))
        lines.append(f"{name}: paper {paper}; ours " + ("; ".join(cells) or "not run"))
    return ("The same data as the paper's. Which setting gives the paper's levels? Errors (%) "
            "of QMI (random), QMI (LDA) and MI_A (LDA) as printed, with the paper's scaling "
            "and without it (experiment 'unscaled'): " + "; ".join(lines) + ". Where the "
            "unscaled errors come near the paper's and the scaled ones do not, the paper's "
            "runs behaved as on unscaled features (one feature with a large range, proline on "
            "wine, decides the 1-NN distances); the settings of the window and learning rate "
            "are in the experiment 'settings'.")


def _conclusion(lookup):
    """MI_BA better than QMI 'in most cases': a Wilcoxon signed-rank test over the (data
    set, start) pairs of Tables 2-4, errors averaged over each table's dimensions."""
    from scipy.stats import wilcoxon

    pairs = [("faces", "digits", "mi-b", _P002_FACES_DIMS)]
    pairs += [("uci", "led7digit", "mi-a", _P002_LED_DIMS)]
    pairs += [("uci", ds, "mi-a", tuple(sorted({d for _, d, d4 in _P002_T4_COLS if d4 == ds})))
              for ds in ("balance_scale", "ionosphere", "wine", "iris")]
    out = {}
    for recipe, convert in (("as_printed", _printed), ("default", lambda m: m)):
        diffs = []
        for exp, ds, crit, dims in pairs:
            for init in ("random", "lda"):
                a = _fold_mean(lookup, exp, ds, convert(f"{crit}:init={init}"), dims)
                b = _fold_mean(lookup, exp, ds, convert(f"qmi:init={init}"), dims)
                if a is not None and b is not None:
                    diffs.append(100 * (a.mean() - b.mean()))
        diffs = np.array(diffs)
        p = (float(wilcoxon(diffs).pvalue) if len(diffs) >= 6 and np.any(diffs != 0)
             else None)
        out[recipe] = (int(np.sum(diffs < 0)), len(diffs), float(np.mean(diffs)) if len(
            diffs) else 0.0, p)

    def said(key):
        wins, n, mean, p = out[key]
        return "-" if not n else (f"better in {wins} of {n}; mean {mean:+.1f} points"
                                  + ("" if p is None else f" (p {p:.3f})"))

    wins, n, mean, p = out["as_printed"]
    verdict = ("not testable" if p is None else "reproduced" if mean < 0 and p < 0.05 else
               "direction only" if mean < 0 else "not reproduced")
    return dict(as_printed=said("as_printed"), default=said("default"),
                test="Wilcoxon signed-rank over the 12 (data set, start) pairs of Tables 2-4, "
                     "MI_BA (MI_A) minus QMI, errors averaged over each table's dimensions",
                verdict=verdict)


def _explain_conclusion(lookup):
    return ("Each (data set, start) pair is in the rows above; the settings that the paper "
            "leaves open and the scaling are varied in the experiments 'settings' and "
            "'unscaled', whose effect on each pair the rows above give.")


_P002_LEDGER = (
    _pair_claim("Table 2 / text: from the LDA start, MI_BA is much better than QMI, and "
                "the difference is significant", f"MI_BA {_t2('MI_BA, LDA', _P002_FACES_DIMS):.1f}"
                f" vs QMI {_t2('QMI, LDA', _P002_FACES_DIMS):.1f} % (dims 1-8); Dietterich F > 8",
                "faces", "digits", "mi-b:init=lda", "qmi:init=lda", _P002_FACES_DIMS,
                _explain_settings("digits", "mi-b:init=lda", "qmi:init=lda",
                                  _P002_FACES_DIMS, _FACES_NOTE),
                gap=_t2("QMI, LDA", _P002_FACES_DIMS) - _t2("MI_BA, LDA", _P002_FACES_DIMS)),
    _pair_claim("Table 2: from a random start, QMI is better than MI_BA at low dimensions",
                f"QMI {_t2('QMI, Random', (1, 2, 3, 4)):.1f} vs MI_BA "
                f"{_t2('MI_BA, Random', (1, 2, 3, 4)):.1f} % (dims 1-4)",
                "faces", "digits", "qmi:init=random", "mi-b:init=random", (1, 2, 3, 4),
                _explain_settings("digits", "qmi:init=random", "mi-b:init=random",
                                  (1, 2, 3, 4), _FACES_NOTE),
                gap=_t2("MI_BA, Random", (1, 2, 3, 4)) - _t2("QMI, Random", (1, 2, 3, 4))),
    _pair_claim("Table 2 / conclusions: the LDA start is better than a random one (the "
                "'limitation of LDA initialization')",
                f"MI_BA {_t2('MI_BA, LDA', _P002_FACES_DIMS):.1f} vs "
                f"{_t2('MI_BA, Random', _P002_FACES_DIMS):.1f} % (dims 1-8)",
                "faces", "digits", "mi-b:init=lda", "mi-b:init=random", _P002_FACES_DIMS,
                _explain_settings("digits", "mi-b:init=lda", "mi-b:init=random",
                                  _P002_FACES_DIMS, _FACES_NOTE),
                gap=_t2("MI_BA, Random", _P002_FACES_DIMS) - _t2("MI_BA, LDA",
                                                                 _P002_FACES_DIMS)),
    _pair_claim("Table 3 / text: on Ecoli the proposed criteria beat QMI from a random start",
                f"MI_A {_t3('MI_A, Random', _P002_LED_DIMS):.1f} vs QMI "
                f"{_t3('QMI, Random', _P002_LED_DIMS):.1f} % (dims 1-7)",
                "uci", "led7digit", "mi-a:init=random", "qmi:init=random", _P002_LED_DIMS,
                _explain_settings("led7digit", "mi-a:init=random", "qmi:init=random",
                                  _P002_LED_DIMS, _ECOLI_NOTE),
                gap=_t3("QMI, Random", _P002_LED_DIMS) - _t3("MI_A, Random", _P002_LED_DIMS)),
    _pair_claim("Table 3 / text: ... and from the LDA start",
                f"MI_A {_t3('MI_A, LDA', _P002_LED_DIMS):.1f} vs QMI "
                f"{_t3('QMI, LDA', _P002_LED_DIMS):.1f} % (dims 1-7)",
                "uci", "led7digit", "mi-a:init=lda", "qmi:init=lda", _P002_LED_DIMS,
                _explain_settings("led7digit", "mi-a:init=lda", "qmi:init=lda",
                                  _P002_LED_DIMS, _ECOLI_NOTE),
                gap=_t3("QMI, LDA", _P002_LED_DIMS) - _t3("MI_A, LDA", _P002_LED_DIMS)),
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
            "median rule's, and 3-NN beside 1-NN; every data set, dimensions 1-2",
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
