"""Pictures of a fitted estimator: the model-selection record ``cv_results_``.

matplotlib is imported when a function is called, so importing graphdr does not need a
display or pick a backend.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_cv_results"]


def _table(estimator):
    table = getattr(estimator, "cv_results_", None)
    if not isinstance(table, dict) or "mean_test_error" not in table:
        raise ValueError(
            f"{type(estimator).__name__} has no cv_results_: fit it with gamma='auto' or "
            "reg='auto' (and labels) first, or pass an estimator that chose its parameters "
            "from the data.")
    return table


def plot_cv_results(estimator, ax=None, *, log_criterion=True):
    r"""The criterion of the ``'auto'`` choice against the kernel width (or the ridge).

    One line per ridge value would be unreadable (17 of them): for each width
    :math:`\gamma`, the line shows the best criterion over the ridges
    :math:`\min_{\text{reg}} e(\gamma, \text{reg})`, and the shaded band the range over the
    ridges; the chosen pair is marked. An estimator without a width (:class:`graphdr.LDA`,
    :class:`graphdr.LQMI`, a precomputed kernel) is drawn against the ridge.

    Parameters
    ----------
    estimator : fitted estimator with ``cv_results_``
    ax : matplotlib Axes or None
        Where to draw (a new figure when None).
    log_criterion : bool, default=True
        Logarithmic criterion axis (the leave-one-out squared error spans decades).

    Returns
    -------
    ax : matplotlib Axes
    """
    import matplotlib.pyplot as plt

    table = _table(estimator)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.2))
    crit = np.asarray(table["mean_test_error"], dtype=np.float64)
    regs = np.asarray(table["param_reg"], dtype=np.float64)
    gammas = np.asarray(table.get("param_gamma", np.full(len(regs), np.nan)), dtype=np.float64)
    chosen = int(np.flatnonzero(np.asarray(table["rank_test_error"]) == 1)[0])
    finite = np.isfinite(crit)
    if np.all(np.isnan(gammas)) or len(np.unique(gammas)) == 1:
        x, label = regs, "relative ridge reg"
        ax.plot(x[finite], crit[finite], "o-", ms=3, color="C0", label="criterion")
    else:
        x, label = gammas, r"kernel width $\gamma$"
        widths = np.unique(gammas)
        best = np.array([np.min(crit[(gammas == g) & finite], initial=np.inf) for g in widths])
        worst = np.array([np.max(crit[(gammas == g) & finite], initial=-np.inf) for g in widths])
        ax.fill_between(widths, best, worst, color="C0", alpha=0.15, lw=0,
                        label="range over the ridges")
        ax.plot(widths, best, "o-", ms=3, color="C0", label="best ridge of each width")
    chosen_text = (f"chosen: reg = {regs[chosen]:.3g}" if x is regs else
                   f"chosen: $\\gamma$ = {x[chosen]:.3g}, reg = {regs[chosen]:.3g}")
    ax.plot([x[chosen]], [crit[chosen]], "*", ms=13, color="C3", label=chosen_text)
    ax.set_xscale("log")
    if log_criterion and np.all(crit[finite] > 0):
        ax.set_yscale("log")
    ax.set_xlabel(label)
    ax.set_ylabel("criterion (lower is better)")
    ax.set_title(f"{type(estimator).__name__}: model selection")
    ax.legend(frameon=False, fontsize=8)
    return ax
