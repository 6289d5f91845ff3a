r"""Paper 003's Fig. 6 in the paper's own regime, and the ledger's Fig. 6 rows.

The paper runs its four optimizers on whole image sets with fewer samples than pixels (ORL
400 / 1024, Yale 165 / 1024, COIL20 1440 / 1600). Here: random class-balanced subsets of the
shared mnist5k digits (``$GRAPHDR_SHARED/datasets/mnist5k.npz``, 784 pixels) with fewer rows
than pixels, the pixels standardised on each subset as the other Fig. 6 inputs, DEE as printed
(eq. 12, no shrinkage) in 2-D with each optimizer.

Each optimizer is timed by the CPU time of the optimizer alone: the median over repeated fits
(one BLAS thread) less the median of the same fits stopped before the first iteration, the
mean beside. Two times:

* to the paper's stopping rule (a relative decrease of at most 1e-3, at most 1000
  iterations): the paper's runtime;
* to a common objective, LD's final value made 1e-3 worse relative to its size, ``f + 1e-3
  |f|`` (``f (1 + 1e-3)`` for eq. (12), which is not negative but for rounding; a negative
  value is made 1e-3 of its size higher). An optimizer whose stopping rule ends above it
  goes on without the rule up to the cap; the first iteration at or below the target is read
  from its objective history and its fits rerun to stop there (the same iterates), so the
  time is of exactly those iterations. One that does not reach it by the cap (or stops
  making progress first) is censored: its time and iterations are those of the whole run,
  lower bounds.

For a claim that one optimizer other than LD is faster than another (:data:`_PAIRS`), where
the first does not reach LD's objective, the two are timed to the higher of the objectives
where their runs to the cap end, which both reach.

The ledger's Fig. 6 rows take their verdict from this regime: times at the common objective,
iterations to the paper's stopping rule (its "for the same convergence condition"; those to
the common objective beside), objectives and the 2-D error as printed; the digits stand-in
of the regime is beside, not judged. Without the shared file they are not testable, and say
why.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from .spec import (
    LedgerRow,
    below_verdict,
    effect,
    p_text,
    size_text,
    sizes_text,
    weakest,
    wilcoxon_below,
    write_rows,
)
from .zheng_dee_fig6 import (
    _FIG6_REPEATS,
    _LABEL,
    _P003_OPTS,
    _fig6_values,
    _loo_1nn_error,
    _timed_fits,
)

_REGIME = "mnist5k D >= N"
_FILE = "mnist5k.npz"
#: random subsets, digits per class (400 rows of 784 pixels), fits per time and the
#: iteration cap (the paper's); and a run of seconds for ``--quick``
_FULL = dict(subsets=5, per_class=40, repeats=_FIG6_REPEATS, cap=1000)
_QUICK = dict(subsets=2, per_class=5, repeats=1, cap=50)
#: the common objective: LD's final value, this much worse relative to its size
_SLACK = 1e-3


# ----- the rules --------------------------------------------------------------------------------
def mnist_source():
    """``((X, y), '')``: the shared mnist5k digits, one row of pixels (as stored) per digit,
    and their labels; or ``(None, reason)`` when ``$GRAPHDR_SHARED/datasets/mnist5k.npz`` is
    not there."""
    root = os.environ.get("GRAPHDR_SHARED", "")
    if not root:
        return None, ("GRAPHDR_SHARED is not set (the 784-pixel digits are read from "
                      f"$GRAPHDR_SHARED/datasets/{_FILE})")
    path = os.path.join(root, "datasets", _FILE)
    if not os.path.isfile(path):
        return None, f"{path} is missing"
    try:
        with np.load(path) as data:
            y = np.asarray(data["y"])
            X = np.asarray(data["X"]).reshape(len(y), -1)
    except (OSError, KeyError, ValueError) as err:
        return None, f"{path} could not be read ({err})"
    return (X, y), ""


def balanced_subset(y, per_class, seed):
    """Sorted row indices: ``per_class`` random rows of each class (all of a smaller one)."""
    rng = np.random.default_rng(seed)
    keep = [m if len(m) <= per_class else rng.choice(m, per_class, replace=False)
            for m in (np.flatnonzero(y == c) for c in np.unique(y))]
    return np.sort(np.concatenate(keep))


def common_target(objective, slack=_SLACK):
    """The common objective of a subset: LD's final ``objective`` made ``slack`` worse
    relative to its size, ``f + slack |f|`` (``f (1 + slack)`` when ``f >= 0``; also worse
    than ``f`` when it is negative)."""
    f = float(objective)
    return f + slack * abs(f)


def reach_iteration(initial, objectives, target):
    """The first iteration whose objective is at most ``target``: 0 when the start
    (``initial``) already is, else the 1-based position in the history ``objectives`` (one
    value per iteration); None when no iteration reaches it."""
    if initial <= target:
        return 0
    hits = np.flatnonzero(np.asarray(objectives, dtype=float) <= target)
    return int(hits[0]) + 1 if len(hits) else None


def evaluations_to(history, k):
    """Objective evaluations of the first ``k`` iterations of ``history`` (an estimator's
    ``history_``), the start's included."""
    return 1 + int(np.sum(np.asarray(history["n_evals"][:k], dtype=int)))


def cpu_seconds(times, setup):
    """``(median, mean)`` CPU seconds of the optimizer alone: the fits' ``times`` less the
    ``setup`` fits' (stopped before the first iteration), never below 0."""
    return (max(float(np.median(times) - np.median(setup)), 0.0),
            max(float(np.mean(times) - np.mean(setup)), 0.0))


# ----- the experiment -----------------------------------------------------------------------------
def _record(opt, X, y, seed, conf):
    """One optimizer on one subset as printed, and the setup fits (stopped before the first
    iteration): ``{'opt', 'printed', 't_printed', 't_setup', 'run', 't_run'}``, the run
    towards the common objective (and its fits' CPU times) the printed one until
    :func:`_go_on`."""
    reps = conf["repeats"]
    printed, t_printed = _timed_fits(f"dee-paper:optimizer={opt}:max_iter={conf['cap']}", X,
                                     y, seed, reps)
    _, t_setup = _timed_fits(f"dee-paper:optimizer={opt}:max_iter=0", X, y, seed, reps)
    return dict(opt=opt, printed=printed, t_printed=t_printed, t_setup=t_setup,
                run=printed, t_run=t_printed)


def _go_on(rec, target, X, y, seed, conf):
    """When the stopping rule ended the printed fit above ``target`` short of the cap: the
    fits again without it (tol 0), to the cap; ``rec['run']`` is then that run."""
    printed = rec["printed"]
    if reach_iteration(printed.initial_objective_, printed.history_["objective"],
                       target) is None and printed.n_iter_ < conf["cap"]:
        rec["run"], rec["t_run"] = _timed_fits(
            f"dee-paper:optimizer={rec['opt']}:max_iter={conf['cap']}:tol=0.0", X, y, seed,
            conf["repeats"])


def _to_level(rec, level, X, y, seed, conf):
    """``(iterations, reached, (median, mean) seconds)`` of ``rec``'s run to the objective
    ``level``: the fits rerun to stop at the first iteration at or below it (the same
    iterates), or the whole run when it never gets there (censored)."""
    run = rec["run"]
    k = reach_iteration(run.initial_objective_, run.history_["objective"], level)
    reached = k is not None
    k = run.n_iter_ if k is None else k
    times = rec["t_setup"] if k == 0 else rec["t_run"]
    if 0 < k != run.n_iter_:
        _, times = _timed_fits(f"dee-paper:optimizer={rec['opt']}:max_iter={k}:tol=0.0", X, y,
                               seed, conf["repeats"])
    return int(k), reached, cpu_seconds(times, rec["t_setup"])


def _numbers(rec, target, X, y, seed, conf):
    """The row of one optimizer on one subset: as printed, and to the common objective."""
    printed, run = rec["printed"], rec["run"]
    k, reached, to_target = _to_level(rec, target, X, y, seed, conf)
    rec["reached"], rec["to_target"] = reached, (k, to_target)
    seconds = cpu_seconds(rec["t_printed"], rec["t_setup"])
    return dict(
        kind="optimizer", optimizer=rec["opt"], repeats=conf["repeats"], cap=conf["cap"],
        iterations=int(printed.n_iter_), converged=bool(printed.converged_),
        initial_objective=float(printed.initial_objective_), objective=float(printed.objective_),
        seconds=seconds[0], seconds_mean=seconds[1], loo_error=_loo_1nn_error(
            printed.transform(X), y), target=target, reached=reached, iterations_to_target=k,
        evaluations_to_target=evaluations_to(run.history_, k), seconds_to_target=to_target[0],
        seconds_to_target_mean=to_target[1], last_objective=float(run.objective_), missing="")


#: the claims that an optimizer other than LD is faster than another (FP than CG and GD)
_PAIRS = (("fp", "cg"), ("fp", "gd"))


def _pair(a, b, recs, X, y, seed, conf):
    """``a`` against ``b`` at an objective both reach: LD's when ``a`` reaches it (``b``'s
    time a lower bound where it does not); else the higher of the two objectives where their
    runs to the cap end, which both reach (the higher one at its end)."""
    ra, rb = recs[a], recs[b]
    if ra["reached"]:
        rule, level = "LD's objective", ra["target"]
        (ka, sa), (kb, sb), hit = ra["to_target"], rb["to_target"], rb["reached"]
    else:
        rule, level = "the higher end", max(ra["run"].objective_, rb["run"].objective_)
        ka, _hit, sa = _to_level(ra, level, X, y, seed, conf)
        kb, hit, sb = _to_level(rb, level, X, y, seed, conf)
    return dict(kind="pair", first=a, second=b, rule=rule, level=float(level),
                first_iterations=ka, second_iterations=kb, first_seconds=sa[0],
                second_seconds=sb[0], first_seconds_mean=sa[1], second_seconds_mean=sb[1],
                second_reached=hit)


def _subset_rows(X, y, seed, conf, bar):
    """The optimizer rows and pair rows of one subset, and the runs' histories."""
    from ..evaluation import _history

    recs = {o: _record(o, X, y, seed, conf) for o in _P003_OPTS}
    target = common_target(recs["ld"]["printed"].objective_)
    rows = []
    for o in _P003_OPTS:  # LD's final objective is the target (LD reaches it in its own run)
        _go_on(recs[o], target, X, y, seed, conf)
        recs[o]["target"] = target
        rows.append(_numbers(recs[o], target, X, y, seed, conf))
        bar.update()
    rows += [_pair(a, b, recs, X, y, seed, conf) for a, b in _PAIRS]
    return rows, {f"dee-paper:optimizer={o}": _history(recs[o]["run"]) for o in _P003_OPTS}


def _fig6_mnist(out, quick, progress, seed, echo):
    """Fig. 6 in the paper's regime: DEE as printed with each optimizer in 2-D on random
    class-balanced subsets of mnist5k with fewer rows than pixels, timed to the paper's
    stopping rule and to a common objective (module docstring). Without the shared file,
    one row saying why."""
    from sklearn.preprocessing import StandardScaler
    from tqdm.auto import tqdm

    from .. import plots

    conf = _QUICK if quick else _FULL
    os.makedirs(out, exist_ok=True)
    source, why = mnist_source()
    if source is None:
        echo(f"graphdr reproduce 003: Fig. 6 on mnist5k not run: {why}.")
        rows = [dict(kind="missing", regime=_REGIME, missing=why)]
        write_rows(os.path.join(out, "fig6_mnist.csv"), rows)
        return [], rows
    X_all, y_all = source
    rows, figures = [], []
    bar = tqdm(total=conf["subsets"] * len(_P003_OPTS), desc="Fig. 6 on mnist5k", unit="opt",
               disable=not progress, file=sys.stderr, dynamic_ncols=True)
    for s in range(conf["subsets"]):
        idx = balanced_subset(y_all, conf["per_class"], seed + s)
        X = StandardScaler().fit_transform(X_all[idx].astype(np.float64))
        y = y_all[idx]
        if s == 0:  # first calls pay one-off costs: not in the timings
            for opt in _P003_OPTS:
                _timed_fits(f"dee-paper:optimizer={opt}:max_iter=2", X, y, seed, 1)
        got, hist = _subset_rows(X, y, seed, conf, bar)
        rows += [dict(regime=_REGIME, subset=s, dataset=f"mnist5k_{conf['per_class']}pc",
                      n_samples=len(y), n_features=X.shape[1], **r) for r in got]
        if s == 0:
            what = f"mnist5k: {len(y)} digits of {X.shape[1]} pixels"
            plots.plot_curves(hist, os.path.join(out, "fig6_mnist.png"),
                              title=f"DEE as printed, four optimizers ({what})")
            figures.append(("fig6_mnist.png", f"Fig. 6 in the paper's regime ({what}, D >= N): "
                            "objective of eq. (12) versus iteration and seconds; an optimizer "
                            "whose stopping rule ends above LD's objective goes on to the cap"))
    bar.close()
    for kind, name in (("optimizer", "fig6_mnist.csv"), ("pair", "fig6_mnist_pairs.csv")):
        write_rows(os.path.join(out, name), [r for r in rows if r["kind"] == kind])
    return figures, rows


# ----- reading the regime's numbers --------------------------------------------------------------
def mnist_missing(lookup):
    """Why the regime has no numbers, or None when it has."""
    rows = lookup.aggs.get("fig6_mnist")
    if not rows:
        return "the mnist5k experiment was not run"
    why = [r["missing"] for r in rows if r.get("missing")]
    return why[0] if why else None


def _number(v):
    """A cell as a float: a flag (as written to the CSV or not) as 0 / 1."""
    return float(v == "True") if v in ("True", "False") else float(v)


def mnist_values(lookup, key):
    """{optimizer: array over the subsets, in subset order} of the regime's column ``key``
    (a flag as 0 / 1)."""
    by = {}
    for r in lookup.aggs.get("fig6_mnist", []):
        if r.get("kind") == "optimizer":
            by.setdefault(int(r["subset"]), {})[r["optimizer"]] = _number(r[key])
    subsets = sorted(s for s, v in by.items() if len(v) == len(_P003_OPTS))
    return {o: np.array([by[s][o] for s in subsets]) for o in _P003_OPTS} if subsets else {}


def _setting(lookup):
    """``(subsets, rows, pixels, repeats, cap)`` of the regime's run."""
    rows = [r for r in lookup.aggs.get("fig6_mnist", []) if r.get("kind") == "optimizer"]
    r = rows[0]
    return (len({int(x["subset"]) for x in rows}), int(r["n_samples"]), int(r["n_features"]),
            int(r["repeats"]), int(r["cap"]))


def _lower(values, reached, fmt, note=True):
    """The median of ``values`` over the subsets, '>=' where some are censored (not
    reached: lower bounds), and (``note``) on how many."""
    missed = int(len(reached) - np.sum(reached))
    text = (">= " if missed else "") + fmt.format(float(np.median(values)))
    return text + (f" (not reached on {missed} of {len(reached)})" if missed and note else "")


def mnist_summary(lookup):
    """Each optimizer's numbers in the regime, as text (medians over the subsets)."""
    get = {k: mnist_values(lookup, k) for k in (
        "iterations", "objective", "seconds", "seconds_mean", "reached",
        "iterations_to_target", "seconds_to_target", "seconds_to_target_mean",
        "last_objective")}
    if not get["iterations"]:
        return None
    parts = []
    for o in _P003_OPTS:
        reached = get["reached"][o]
        missed = int(len(reached) - np.sum(reached))
        parts.append(
            f"{_LABEL[o]} {np.median(get['iterations'][o]):.0f} iterations, objective "
            f"{np.median(get['objective'][o]):.3g}, {np.median(get['seconds'][o]):.3g} s "
            f"(mean {np.mean(get['seconds_mean'][o]):.3g}); to LD's objective "
            f"{_lower(get['iterations_to_target'][o], reached, '{:.0f}', False)} iterations, "
            f"{_lower(get['seconds_to_target'][o], reached, '{:.3g}', False)} s (mean "
            f"{np.mean(get['seconds_to_target_mean'][o]):.3g}"
            + (f"; not reached on {missed} of {len(reached)}, the objective there "
               f"{np.median(get['last_objective'][o]):.3g}" if missed else "") + ")")
    return "; ".join(parts)


def pair_summary(lookup):
    """Each recorded pair at the objective both reach, as text (medians over the subsets)."""
    rows = [r for r in lookup.aggs.get("fig6_mnist", []) if r.get("kind") == "pair"]
    texts = []
    for a, b in dict.fromkeys((r["first"], r["second"]) for r in rows):
        got = [r for r in rows if (r["first"], r["second"]) == (a, b)]

        def med(key, fmt, got=got):
            return fmt.format(np.median([float(r[key]) for r in got]))

        texts.append(f"{_LABEL[a]} against {_LABEL[b]} at the objective both reach (median "
                     f"{med('level', '{:.3g}')}): {_LABEL[a]} {med('first_iterations', '{:.0f}')} "
                     f"iterations, {med('first_seconds', '{:.3g}')} s; {_LABEL[b]} "
                     f"{med('second_iterations', '{:.0f}')} iterations, "
                     f"{med('second_seconds', '{:.3g}')} s")
    return "; ".join(texts)


def fig6_mnist_note(lookup):
    """The report's account of the regime: what ran and each optimizer's numbers, or why it
    did not run."""
    why = mnist_missing(lookup)
    if why is not None:
        return (f"Fig. 6 in the paper's regime (784-pixel mnist5k digits, D >= N) was not run: "
                f"{why}. The ledger's Fig. 6 rows are therefore not testable; the digits "
                "stand-in of the regime is beside them, not judged.")
    n, rows, pixels, repeats, cap = _setting(lookup)
    return (f"Fig. 6 in the paper's regime: {n} random class-balanced mnist5k subsets of {rows} "
            f"digits of {pixels} pixels, DEE as printed in 2-D; CPU seconds of the optimizer "
            f"alone (each subset's median of {repeats} fits, the mean beside), medians over "
            f"the subsets; the common objective is LD's final value x (1 + {_SLACK:g}), run "
            f"to at most {cap} iterations: " + mnist_summary(lookup) + ".")


# ----- the ledger's Fig. 6 rows ------------------------------------------------------------------
_FIG6_WHAT = {"objective": ("final objective", "{:.3g}"), "seconds": ("CPU seconds", "{:.3g}"),
              "iterations": ("iterations", "{:.0f}"),
              "loo_error": ("2-D LOO 1-NN error %", "{:.1f}")}


def _compare(a, b, va, vb, key, paper, median=False):
    """``(text, verdict, effect)`` of 'a's ``key`` is below b's' over paired subsets."""
    scale = 100.0 if key == "loo_error" else 1.0
    ratio = key != "loo_error"
    fmt = _FIG6_WHAT[key][1]
    va, vb = scale * np.asarray(va, dtype=float), scale * np.asarray(vb, dtype=float)
    got = wilcoxon_below(va, vb)

    def show(mean, v):
        return fmt.format(mean) + (f" (median {fmt.format(np.median(v))})" if median else "")

    text = f"{_LABEL[a]} {show(got[0], va)} vs {_LABEL[b]} {show(got[1], vb)}{p_text(got[2])}"
    return text, below_verdict(got, paper, ratio=ratio), effect(got[0], got[1], ratio=ratio)


def _said(parts, papers, key, pair, median=False):
    """``(text, verdict, size)`` of every part ``(a, b)``, from ``pair(a, b) -> (a's values,
    b's values, note)`` (None: nothing to compare); the weakest verdict."""
    ratio = key != "loo_error"
    texts, verdicts, sizes = [], [], []
    for (a, b), paper in zip(parts, papers):
        got = pair(a, b)
        if got is None:
            return "-", "not testable", "-"
        text, verdict, size = _compare(a, b, got[0], got[1], key, paper, median)
        texts.append(text + got[2])
        verdicts.append(verdict)
        sizes.append((size, paper))
    if all(paper is None for _s, paper in sizes):
        return "; ".join(texts), weakest(verdicts), sizes_text([s for s, _p in sizes],
                                                               ratio=ratio)
    return "; ".join(texts), weakest(verdicts), "; ".join(
        f"{_LABEL[b]}/{_LABEL[a]}: " + size_text(s, paper, ratio=ratio)
        for (a, b), (s, paper) in zip(parts, sizes))


def _plain(vals):
    return lambda a, b: (vals[a], vals[b], "") if a in vals and b in vals else None


def _pair_values(lookup, a, b):
    """``(a's seconds, b's seconds, note)`` over the subsets from the regime's pair rows of
    ``(a, b)`` (each subset at an objective both reach), or None without them."""
    rows = sorted((r for r in lookup.aggs.get("fig6_mnist", []) if r.get("kind") == "pair"
                   and r["first"] == a and r["second"] == b), key=lambda r: int(r["subset"]))
    if not rows:
        return None
    at_ld = sum(r["rule"] == "LD's objective" for r in rows)
    missed = sum(not _number(r["second_reached"]) for r in rows)
    note = (f" (at an objective both reach: LD's on {at_ld} of {len(rows)} subsets, on the "
            f"others the higher of the two objectives where their runs to the cap end"
            + (f"; {_LABEL[b]} short of it on {missed}: lower bounds" if missed else "") + ")")
    return ([float(r["first_seconds"]) for r in rows],
            [float(r["second_seconds"]) for r in rows], note)


def _time_pair(lookup):
    """The times of a pair 'a is faster than b' at an objective both reach: from the pair
    rows where the experiment recorded the pair; else to LD's objective when ``a`` reaches it
    on every subset (``b``'s censored times are lower bounds, which can only understate the
    claim); else nothing to compare."""
    to, reached = mnist_values(lookup, "seconds_to_target"), mnist_values(lookup, "reached")

    def pair(a, b):
        got = _pair_values(lookup, a, b)
        if got is not None or a not in to or b not in to or not reached[a].all():
            return got
        missed = int(len(reached[b]) - reached[b].sum())
        return to[a], to[b], (f" ({_LABEL[b]} short of LD's objective on {missed} of "
                              f"{len(reached[b])}: lower bounds)" if missed else "")
    return pair


def _beside(lookup, key):
    """The regime's other measure of ``key``, medians over the subsets."""
    reached = mnist_values(lookup, "reached")
    if key == "seconds":
        to, rule = mnist_values(lookup, "seconds_to_target"), mnist_values(lookup, "seconds")
        return "CPU s to LD's objective / to the stopping rule: " + ", ".join(
            f"{_LABEL[o]} {_lower(to[o], reached[o], '{:.3g}')} / {np.median(rule[o]):.3g}"
            for o in _P003_OPTS)
    if key == "iterations":
        its, evals = (mnist_values(lookup, k) for k in ("iterations_to_target",
                                                         "evaluations_to_target"))
        return "iterations / objective evaluations to LD's objective: " + ", ".join(
            f"{_LABEL[o]} {_lower(its[o], reached[o], '{:.0f}')} / "
            f"{np.median(evals[o]):.0f}" for o in _P003_OPTS)
    if key == "objective":
        last = mnist_values(lookup, "last_objective")
        return "objective where the run to LD's objective ended (the cap where not reached): " \
            + ", ".join(f"{_LABEL[o]} {np.median(last[o]):.3g}" for o in _P003_OPTS)
    return ""


_MEASURE = {
    "seconds": "CPU time of the optimizer alone, each subset's median of {repeats} fits (mean "
               "over the subsets shown, median beside), to the common objective, LD's final "
               "value x (1 + 1e-3) (at most {cap} iterations; one that does not reach it counts "
               "its whole run, a lower bound); where the claimed-faster one does not reach it, at "
               "the higher of the two objectives where their runs to the cap end, which both "
               "reach (the stopping rule's times beside)",
    "iterations": "iterations to the paper's stopping rule (tol 1e-3, at most {cap}; mean "
                  "shown, median beside), those to LD's objective beside",
    "objective": "final objective as printed (tol 1e-3, at most {cap} iterations; mean shown)",
    "loo_error": "leave-one-out 1-NN error of the 2-D embedding as printed (mean shown)",
}


def _test_text(lookup, key):
    n, rows, pixels, repeats, cap = _setting(lookup)
    return (f"Wilcoxon signed-rank, one-sided, over {n} random class-balanced mnist5k subsets "
            f"({rows} digits of {pixels} pixels, D >= N; DEE as printed, 2-D), on the "
            + _MEASURE[key].format(repeats=repeats, cap=cap)
            + "; the digits stand-in of the regime (60 digits of 64 pixels, 10 subsets) "
            "beside, not judged")


def _fig6_claim(key, parts, papers=None):
    """Every ``(a, b)`` of ``parts``: optimizer ``a``'s ``key`` is below ``b``'s in the
    paper's regime (mnist5k, D >= N) as printed; the digits stand-in of the regime beside
    (as printed, and with the defaults). ``papers``: the paper's size of each part (a ratio
    ``b / a``, or a spread of them), None where it prints none; the 2-D error in points,
    the other quantities as ratios."""
    papers = papers or (None,) * len(parts)
    timing = key in ("seconds", "iterations")

    def check(lookup):
        printed = _said(parts, papers, key, _plain(_fig6_values(lookup, "D >= N", "as_printed",
                                                                key)))
        default = _said(parts, papers, key, _plain(_fig6_values(lookup, "D >= N", "default",
                                                                key)))
        digits = f"digits D >= N stand-in: {printed[0]}"
        default_text = f"digits D >= N stand-in: {default[0]}"
        why = mnist_missing(lookup)
        if why is not None:
            return dict(as_printed=f"mnist5k: not run / {digits}", default=default_text,
                        test=f"none: {why}; the paper's regime (mnist5k) decides, the digits "
                        "stand-in is beside, not judged", size="-", verdict="not testable")
        pair = _time_pair(lookup) if key == "seconds" else _plain(mnist_values(lookup, key))
        text, verdict, size = _said(parts, papers, key, pair, median=timing)
        beside = _beside(lookup, key)
        return dict(as_printed=f"mnist5k: {text}" + (f"; {beside}" if beside else "")
                    + f" / {digits}", default=default_text, test=_test_text(lookup, key),
                    size=size, verdict=verdict)

    return check, _explainer(key, parts)


def _explainer(key, parts):
    """The experiment behind a Fig. 6 row not reproduced: the regime's numbers and the
    digits stand-ins (the paper's sample counts, where samples outnumber pixels)."""
    scale = 100.0 if key == "loo_error" else 1.0
    fmt = _FIG6_WHAT[key][1]

    def explain(lookup):
        summary = mnist_summary(lookup) if mnist_missing(lookup) is None else None
        text = (f"In the paper's regime (mnist5k), as printed and to LD's objective (medians "
                f"over the subsets): {summary}. ") if summary else ""
        pairs = pair_summary(lookup) if summary and key == "seconds" else ""
        if pairs:
            text += f"{pairs}. "
        loo = mnist_values(lookup, "loo_error") if summary and key == "loo_error" else {}
        if loo:
            text += ("Leave-one-out 1-NN error of the 2-D embeddings there: " + ", ".join(
                f"{_LABEL[o]} {100 * np.mean(v):.1f} %" for o, v in loo.items()) + ". ")
        vals = _fig6_values(lookup, "sample counts", "as_printed", key)
        if not vals:
            return text or None
        names = sorted({r["stand_in"] for r in lookup.aggs.get("fig6", [])
                        if r["regime"] == "sample counts" and r["recipe"] == "as_printed"})
        holds = [all(vals[a][i] < vals[b][i] for a, b in parts) for i in range(len(names))]
        per = "; ".join(f"{n}: " + ", ".join(f"{_LABEL[o]} {fmt.format(scale * vals[o][i])}"
                                             for o in _P003_OPTS) for i, n in enumerate(names))
        return text + (
            f"The same experiment on the stand-ins of the paper's sample counts, where the "
            f"samples outnumber the 64 pixels (n > D, unlike the paper's images), as printed: "
            f"{per}; the claim holds on {sum(holds)} of {len(holds)}. There the objective "
            f"keeps a positive floor that every optimizer reaches in tens of iterations, so "
            f"they differ little. With fewer samples than pixels the plain objective tends to "
            f"0 (the classes collapse to points along directions of tiny variance), which LD's "
            f"curvature follows and the others crawl towards; the relative stopping rule (tol "
            f"1e-3) then stops a slow optimizer early, which is why a method can be fast and "
            f"imprecise at once.")

    return explain


def _fig6_row(claim, paper, key, parts, papers=None):
    check, explain = _fig6_claim(key, parts, papers)
    return LedgerRow(claim, paper, check, explain)
