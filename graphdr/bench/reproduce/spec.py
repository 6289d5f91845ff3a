r"""What a reproduction is made of: experiments, the paper's tables and claims, and the
lookup of our numbers in an experiment's results."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np


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
class LedgerRow:
    """One claim of the paper in the report's ``## Claims`` table.

    ``check(lookup)`` returns a dict with ``as_printed`` and ``default`` (our numbers under the
    paper's recipe and under graphdr's defaults, as text), ``test`` (the statistic behind the
    verdict and its value) and ``verdict`` (one of :data:`VERDICTS`). ``explain(lookup)``, for
    a claim that may come out ``not reproduced``: the experiment that explains it, as
    markdown computed from our numbers (None: nothing to add). ``sensitivity(lookup)``: the
    claim under each setting the paper leaves open, ``[(setting, text)]`` (a table below the
    ledger).
    """

    claim: str
    paper: str
    check: object
    explain: object = None
    sensitivity: object = None


def untestable(why):
    """The check of a claim nothing of ours can test (no data, no number in the text): the
    ledger says so, with the reason, rather than leaving the claim to the prose."""
    def check(_lookup):
        return dict(as_printed="-", default="-", test=f"none: {why}", size="-",
                    verdict="not testable")
    return check


#: the verdicts of a ledger row
VERDICTS = ("reproduced", "direction only", "not reproduced", "not testable")


@dataclass(frozen=True)
class Paper:
    key: str
    citation: str
    file: str
    stand_ins: tuple  # (paper's data, ours, note)
    experiments: tuple
    tables: tuple = ()
    figures: tuple = ()  # extra figure makers: f(out, quick, progress) -> [(png, caption)], rows
    summary_tables: tuple = ()  # (experiment key, heading): our paper-style tables in full
    not_reproduced: tuple = ()
    observations: tuple = ()  # f(lookup) -> markdown text, computed from our numbers
    ledger: tuple = ()  # LedgerRow: the report's "## Claims" table
    recipes: str = ""  # markdown: what "as printed" and "graphdr default" are for this paper
    sensitivity_note: str = ""  # what the table of the claims under the open settings shows


# ----- helpers to read our numbers ------------------------------------------------------------
class Lookup:
    """Our numbers: ``agg`` of every experiment (``report.aggregate``), in percent; ``folds``
    (optional): every experiment's fold errors (``report.fold_errors``), for paired tests."""

    def __init__(self, aggs, folds=None, iterations=None):
        self.aggs = aggs
        self.folds = folds or {}
        self.iters = iterations or {}

    def fits(self, exp, dataset, method, dims, clf="1nn"):
        """``(n_iter, converged)`` of every recorded fit of ``method`` at ``dims`` (fold
        order, dimension by dimension; ``report.fit_iterations``), [] when none is."""
        agg = self.iters.get(exp, {})
        if dataset not in {k[0] for k in agg}:
            dataset = self.only_dataset(exp, dataset)
        per_dim = agg.get((dataset, method, clf), {})
        return [fit for d in dims for fit in per_dim.get(d, [])]

    def fold_errors(self, exp, dataset, method, clf, dim):
        """The errors (fractions) of ``method`` at ``dim``, one per fold in fold order, or None
        (``dim`` None: averaged over every dimension the method was evaluated at)."""
        agg = self.folds.get(exp, {})
        if dataset not in {k[0] for k in agg}:
            dataset = self.only_dataset(exp, dataset)
        per_dim = agg.get((dataset, method, clf))
        if not per_dim:
            return None
        if dim is None:
            return np.mean([per_dim[d] for d in sorted(per_dim)], axis=0)
        return per_dim.get(dim)

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


def paired_comparison(a, b):
    """``(mean % of a, mean % of b, F, p)`` for the fold errors (fractions, fold order) of two
    methods on the same folds: Alpaydin's combined 5x2cv F test of the paired differences (F
    and p None unless there are 5 x 2 folds); None when either is missing."""
    from ..significance import five_by_two_f

    if a is None or b is None:
        return None
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) != 10 or len(b) != 10:
        return 100 * a.mean(), 100 * b.mean(), None, None
    f, p = five_by_two_f((a - b).reshape(5, 2))
    return 100 * a.mean(), 100 * b.mean(), f, p


#: the size rule of a directional claim whose paper prints its size: ours within this factor
#: band of the paper's (points of error or recognition; for a ratio -- times, iterations --
#: the band applies to its logarithm: ours between the square root and the square of the
#: paper's)
SIZE_BAND = (0.5, 2.0)
#: a directional claim whose paper prints no size: the least effect that counts, in points of
#: error or recognition, and as a ratio (times, iterations, objectives)
LEAST_POINTS = 1.0
LEAST_RATIO = 1.25
#: the equivalence margin of 'comparable', 'the same', 'at least matches' claims (points)
MARGIN = 1.0


def sized_verdict(direction, significant, ours, paper=None, *, ratio=False):
    """The verdict of a directional claim (stated once; ``docs/user_guide/command_line.rst``):
    'not reproduced' against the paper's direction; 'direction only' when not significant, or
    significant with another size; 'reproduced' when significant and of the paper's size --
    our effect ``ours`` (in the claim's direction: points, or a ratio above 1 with ``ratio``)
    within :data:`SIZE_BAND` of the paper's ``paper`` -- or, where the paper prints no size,
    at least :data:`LEAST_POINTS` (:data:`LEAST_RATIO`). ``paper`` may be a spread (the
    paper's least and largest effect over its data sets): ours within the band of it."""
    if not direction:
        return "not reproduced"
    if not significant:
        return "direction only"
    lo, hi = SIZE_BAND
    if paper is None:
        return "reproduced" if ours >= (LEAST_RATIO if ratio else LEAST_POINTS) else \
            "direction only"
    least, most = (paper, paper) if np.isscalar(paper) else (min(paper), max(paper))
    if ratio:  # (the band on the logarithm; a paper's spread reaching below 1 counts from 1)
        ok = most > 1 and max(least, 1.0) ** lo <= ours <= most ** hi
    else:
        ok = most > 0 and lo * max(least, 0.0) <= ours <= hi * most
    return "reproduced" if ok else "direction only"


def size_text(ours, paper=None, *, ratio=False):
    """The ledger's size cell: our effect and the paper's (in the claim's direction), their
    ratio, or the least effect the rule asks where the paper prints none."""
    if ours is None:
        return "-"
    if paper is None:
        return sizes_text([ours], ratio=ratio)
    mine = f"x{ours:.3g}" if ratio else f"{ours:+.2f}"
    if not np.isscalar(paper):
        lo, hi = min(paper), max(paper)
        return (f"ours {mine}, paper x{lo:.3g} to x{hi:.3g}" if ratio else
                f"ours {mine}, paper {lo:+.2f} to {hi:+.2f}")
    if ratio:
        return (f"ours {mine}, paper x{paper:.3g} (log ratio "
                f"{np.log(ours) / np.log(paper):.2f})" if ours > 0 and paper > 1 else
                f"ours {mine}, paper x{paper:.3g}")
    return f"ours {mine}, paper {paper:+.2f} (x{ours / paper:.2f})" if paper else \
        f"ours {mine}, paper {paper:+.2f}"


def sizes_text(values, *, ratio=False):
    """The size cell of several parts of which the paper prints no size: 'ours -0.24, +1.48
    (the paper prints none: at least 1 point each)'."""
    if not values:
        return "-"
    least = f"x{LEAST_RATIO:g}" if ratio else f"{LEAST_POINTS:g} point"
    shown = ", ".join("-" if v is None else f"x{v:.3g}" if ratio else f"{v:+.2f}"
                      for v in values)
    each = " each" if len(values) > 1 else ""
    return f"ours {shown} (the paper prints none: at least {least}{each})"


def directional_verdict(got, paper=None):
    """The verdict of the claim that the first method of :func:`paired_comparison` errs less
    (:func:`sized_verdict`, the gap in points; ``paper``: the paper's gap, or None)."""
    if got is None or got[3] is None:
        return "not testable"
    mean_a, mean_b, _, p = got
    return sized_verdict(round(mean_a, 9) < round(mean_b, 9), p < 0.05, mean_b - mean_a, paper)


def holm(pvalues):
    """Holm's step-down adjustment of ``pvalues`` (one family: a claim's dimensions), in their
    order: the k-th smallest times (m - k + 1), made monotone and capped at 1."""
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def per_dimension_verdict(gots, papers):
    """The verdict of a claim the paper makes per dimension: one :func:`paired_comparison` per
    dimension (``gots``), their p-values adjusted together by :func:`holm`, each dimension
    judged by :func:`sized_verdict` against the paper's gap at that dimension (``papers``,
    None where it prints none); the claim takes the median of the dimensions' verdicts (the
    weaker of the two middle ones): it holds at most of its dimensions or not at all.
    Returns ``(verdict, [(verdict, adjusted p) per dimension])``."""
    if not gots or any(g is None or g[3] is None for g in gots):
        return "not testable", []
    adjusted = holm([g[3] for g in gots])
    each = [(sized_verdict(round(g[0], 9) < round(g[1], 9), p < 0.05, g[1] - g[0], paper), p)
            for g, p, paper in zip(gots, adjusted, papers)]
    ranked = sorted((VERDICTS.index(v) for v, _ in each))
    return VERDICTS[ranked[len(ranked) // 2]], each


def replicate_means(d):
    """Ten 5x2cv differences (fold order) as the means of their five replications; other
    lengths as they are: the independent units of an equivalence test."""
    d = np.asarray(d, dtype=float)
    return d.reshape(5, 2).mean(axis=1) if len(d) == 10 else d


def _t_units(d):
    """``(mean, standard error, degrees of freedom)`` of the differences ``d`` (None with
    fewer than 3)."""
    d = np.asarray(d, dtype=float)
    if len(d) < 3:
        return None
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d))), len(d) - 1


def tost(d, margin=MARGIN):
    """``(mean, p)``: the two one-sided t tests (Schuirmann's TOST) that the mean of the
    paired differences ``d`` lies within +-``margin``: p is the larger one-sided p (None with
    fewer than 3 differences)."""
    from scipy.stats import t

    units = _t_units(d)
    if units is None:
        return (float(np.mean(d)) if len(d) else np.nan), None
    mean, se, df = units
    if se == 0.0:
        return mean, 0.0 if abs(mean) < margin else 1.0
    return mean, float(max(t.sf((mean + margin) / se, df), t.cdf((mean - margin) / se, df)))


def noninferior(d, margin=MARGIN):
    """``(mean, p)``: the one-sided t test that the mean of ``d`` (the first's error minus the
    second's, points) is below ``margin``: the first at least matches the second."""
    from scipy.stats import t

    units = _t_units(d)
    if units is None:
        return (float(np.mean(d)) if len(d) else np.nan), None
    mean, se, df = units
    if se == 0.0:
        return mean, 0.0 if mean < margin else 1.0
    return mean, float(t.sf((margin - mean) / se, df))


def equivalence_verdict(mean, p, margin=MARGIN):
    """The verdict of an equivalence (or at-least-matches) claim from :func:`tost` (or
    :func:`noninferior`): 'reproduced' when shown within the margin (p < 0.05), 'direction
    only' when the mean is within it but not shown, else 'not reproduced'."""
    if p is None:
        return "not testable"
    if p < 0.05:
        return "reproduced"
    return "direction only" if abs(mean) < margin else "not reproduced"


def weakest(verdicts):
    """The weakest of several verdicts (a claim needs every part)."""
    return max(verdicts, key=VERDICTS.index) if verdicts else "not testable"


def wilcoxon_below(a, b):
    """``(mean a, mean b, p)``: Wilcoxon's signed-rank test (one-sided, exact for small
    samples) that ``a`` is below ``b``, paired; p None with fewer than 5 pairs."""
    from scipy.stats import wilcoxon

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = a - b
    if len(d) < 5:
        p = None
    elif not np.any(np.abs(d) > 1e-12 * (1.0 + np.abs(b))):
        p = 1.0
    else:
        p = float(wilcoxon(d, alternative="less").pvalue)
    return float(a.mean()), float(b.mean()), p


def effect(first, second, *, ratio=False):
    """The effect of 'the first is below the second', in the claim's direction: the gap
    (points), or with ``ratio`` the second over the first."""
    if ratio:
        return second / first if first > 0 else np.inf
    return second - first


def below_verdict(got, paper=None, *, ratio=False):
    """Verdict of 'the first is below the second' from :func:`wilcoxon_below`
    (:func:`sized_verdict`: the gap in points, or with ``ratio`` the second over the first)."""
    if got is None or got[2] is None:
        return "not testable"
    ma, mb, p = got
    return sized_verdict(round(ma, 9) < round(mb, 9), p < 0.05, effect(ma, mb, ratio=ratio),
                         paper, ratio=ratio)


def p_text(p):
    """', p 0.012' (nothing when there is no test)."""
    return "" if p is None else f", p {p:.3f}"


def write_rows(path, rows):
    """Write a figure maker's rows (dicts with the same keys) as CSV, floats to 6 significant
    digits, whole or not at all."""
    import csv

    from ..._outputs import SafeRows, atomic_open

    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = SafeRows(csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n"))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
