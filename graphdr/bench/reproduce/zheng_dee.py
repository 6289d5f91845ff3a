r"""Paper 003 (discriminative elastic embedding): its experiments, Figs. 6 and 11 and claims."""

from __future__ import annotations

import csv
import dataclasses
import os
import sys
import time

from ..._outputs import SafeRows, atomic_open
from ..protocols import get_protocol
from .spec import (
    Claim,
    Experiment,
    Paper,
    PaperTable,
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

    from .. import plots
    from ..datasets import load_dataset
    from ..evaluation import _history
    from ..methods import parse_method

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
    with atomic_open(os.path.join(out, "fig6.csv"), "w", newline="", encoding="utf-8") as fh:
        w = SafeRows(csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n"))
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
            # EE and t-SNE have no out-of-sample map: drawn in the 2-D pictures beside the
            # four (paper 003's Figs. 2-5, 7-10), not scored
            ("dee", "dsne", "dcv:null_dim=9", "mmpa", "ee", "tsne"),
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
        "four image sets): the data are not available offline; the digits pictures of DEE, "
        "DSNE, DCV and MMPA beside the paper's unsupervised references EE and t-SNE are in "
        "the fig11 experiment's scatter_digits.png and index.html.",
        "Fig. 11's curves themselves: the paper gives them only as plots (the text keeps the "
        "axis ticks: USPS recognition rates between 0.7 and 0.85 over dimensions up to 60); "
        "the one number in the text (DCV's 83% on USPS) is checked as a claim.",
    ),
)
