"""``maps2d.py --width``: DEEMap's placement width against held-out error and trustworthiness, and
what 'auto' picks (the trade-off curve and the default chosen from it).

``DEEMap(placement_width=w)`` places a new sample by its ``n_neighbors`` nearest training
samples weighted by ``exp(-(d_j^2 - d_1^2) / (w (median d^2 - d_1^2)))``: a small width lets
the nearest training sample decide, a large one lets all neighbours vote. The map itself does
not depend on the width (only ``transform`` does). For each width of
:data:`graphdr.maps.placement.PLACEMENT_WIDTHS` and for ``'auto'`` (the width of lowest
leave-one-out placement error on the training samples), over repeated stratified splits
(25 % held out, standardised as in ``maps2d.py``): the held-out 2-D 1-NN error (%) and the
trustworthiness (k = 10) of the test samples' map; beside them supervised UMAP and openTSNE
(when installed) on the same splits, and the input space's 1-NN error.

    .venv/bin/python benchmarks/maps2d.py --width [--splits 5] [--datasets ...]

Writes ``benchmarks/results/maps2d_width.md`` and ``maps2d_width.png`` (the curves).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
SETS = ("ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima", "wdbc",
        "digits")


def main(argv=None):
    from common import machine, threads_label
    from maps2d import load, methods, one_nn_error, training_map
    from sklearn.manifold import trustworthiness

    import graphdr
    from graphdr.maps.placement import PLACEMENT_WIDTHS

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--splits", type=int, default=5)
    p.add_argument("--datasets", nargs="*", default=list(SETS))
    a = p.parse_args(argv)
    t0 = time.time()
    refs = {k: v for k, v in methods().items()
            if k in ("supervised UMAP", "openTSNE (unsupervised)")}
    widths = list(PLACEMENT_WIDTHS) + ["auto"]
    cols = [f"width {w}" for w in PLACEMENT_WIDTHS] + ["auto"] + list(refs) + ["input 1-NN"]
    err = {(ds, c): [] for ds in a.datasets for c in cols}
    trust = {(ds, c): [] for ds in a.datasets for c in cols}
    chosen = {ds: [] for ds in a.datasets}
    for ds in a.datasets:
        for seed in range(a.splits):
            Xtr, ytr, Xte, yte = load(ds, seed)
            for w, c in zip(widths, cols):
                m = graphdr.DEEMap(placement_width=w).fit(Xtr, ytr)
                Z = m.transform(Xte)
                err[(ds, c)].append(one_nn_error(m.embedding_, ytr, Z, yte))
                trust[(ds, c)].append(trustworthiness(Xte, Z, n_neighbors=10))
                if w == "auto":
                    chosen[ds].append(m.placement_width_)
            for name, (fit, transform) in refs.items():
                model = fit(Xtr, ytr)
                Ztr, Zte = training_map(model, transform, Xtr), transform(model, Xte)
                err[(ds, name)].append(one_nn_error(Ztr, ytr, Zte, yte))
                trust[(ds, name)].append(trustworthiness(Xte, Zte, n_neighbors=10))
            err[(ds, "input 1-NN")].append(one_nn_error(Xtr, ytr, Xte, yte))
            trust[(ds, "input 1-NN")].append(np.nan)
            print(f"{ds} split {seed}: auto chose {chosen[ds][-1]}", flush=True)
    mean = lambda d, k: float(np.mean(d[k]))  # noqa: E731
    lines = ["# DEEMap's placement width: held-out error against trustworthiness", "",
             "Command: `.venv/bin/python benchmarks/maps2d.py --width --splits "
             f"{a.splits} --datasets {' '.join(a.datasets)}`", "",
             machine(threads_label()) + f" {time.time() - t0:.0f} s in all.", "",
             f"Every cell: held-out 2-D 1-NN error (%) / trustworthiness (k = 10) of the test "
             f"samples, the mean over {a.splits} stratified splits (seeds 0 to "
             f"{a.splits - 1}; 25 % held out; the UCI sets standardised on the training part).",
             "", "| data set | " + " | ".join(cols) + " | 'auto' chose |",
             "|---|" + "---:|" * (len(cols) + 1)]
    for ds in a.datasets:
        cells = [f"{mean(err, (ds, c)):.1f} / {mean(trust, (ds, c)):.3f}"
                 if c != "input 1-NN" else f"{mean(err, (ds, c)):.1f}" for c in cols]
        picks = ", ".join(f"{w:g}" for w in chosen[ds])
        lines.append(f"| {ds} | " + " | ".join(cells) + f" | {picks} |")
    met_err = met_trust = 0
    verdicts = []
    for ds in a.datasets:
        e, t = mean(err, (ds, "auto")), mean(trust, (ds, "auto"))
        if refs:
            best_e = min(mean(err, (ds, r)) for r in refs)
            best_t = max(mean(trust, (ds, r)) for r in refs)
            ok_e, ok_t = e <= best_e, t >= best_t - 0.005
            met_err += ok_e
            met_trust += ok_t
            verdicts.append(f"- {ds}: error {e:.1f} % vs {best_e:.1f} % "
                            f"({'met' if ok_e else 'not met'}); trustworthiness {t:.3f} vs "
                            f"{best_t:.3f} - 0.005 ({'met' if ok_t else 'not met'})")
    if refs:
        lines += ["", f"Headline: with placement_width='auto' DEEMap's held-out error is at most "
                  f"the lower of supervised UMAP's and openTSNE's on {met_err} of "
                  f"{len(a.datasets)} sets and its trustworthiness within 0.005 of the higher "
                  f"on {met_trust} of {len(a.datasets)} (means over {a.splits} splits).", "",
                  "The targets ('auto'):", ""] + verdicts
    lines += ["", "![error against trustworthiness for each width](maps2d_width.png)"]
    _draw(a.datasets, PLACEMENT_WIDTHS, err, trust, refs)
    (RESULTS / "maps2d_width.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {RESULTS / 'maps2d_width.md'}")


def _draw(datasets, widths, err, trust, refs):
    """One panel per data set: trustworthiness against error along the widths, 'auto' and the
    references marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = 3
    rows = int(np.ceil(len(datasets) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.3 * rows), squeeze=False)
    for ax, ds in zip(axes.ravel(), datasets):
        e = [np.mean(err[(ds, f"width {w}")]) for w in widths]
        t = [np.mean(trust[(ds, f"width {w}")]) for w in widths]
        ax.plot(e, t, "-o", color="tab:blue", label="DEEMap, width 0.1 to 4")
        for w, x, yv in zip(widths, e, t):
            ax.annotate(f"{w:g}", (x, yv), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.plot(np.mean(err[(ds, "auto")]), np.mean(trust[(ds, "auto")]), "*", ms=14,
                color="tab:red", label="DEEMap 'auto'")
        for name, marker in zip(refs, ("s", "^")):
            ax.plot(np.mean(err[(ds, name)]), np.mean(trust[(ds, name)]), marker,
                    color="grey", label=name)
        ax.set_title(ds)
        ax.set_xlabel("held-out 2-D 1-NN error (%)")
        ax.set_ylabel("trustworthiness")
    for ax in axes.ravel()[len(datasets):]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(RESULTS / "maps2d_width.png", dpi=80)
    plt.close(fig)


if __name__ == "__main__":
    main()
