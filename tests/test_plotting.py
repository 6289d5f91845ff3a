"""graphdr.tuning.plotting: the picture of cv_results_ shows the table and marks the chosen pair."""

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.datasets import load_wine  # noqa: E402
from sklearn.preprocessing import minmax_scale  # noqa: E402

import graphdr  # noqa: E402
from graphdr.tuning.plotting import plot_cv_results  # noqa: E402


def _data():
    X, y = load_wine(return_X_y=True)
    return minmax_scale(X, (-1, 1))[::2], y[::2]


def test_width_curve_is_the_best_ridge_of_each_width_and_marks_the_choice():
    X, y = _data()
    est = graphdr.KernelLDA().fit(X, y)
    ax = plot_cv_results(est)
    line, star = ax.lines
    table = est.cv_results_
    widths = np.unique(table["param_gamma"])
    want = [table["mean_test_error"][table["param_gamma"] == g].min() for g in widths]
    np.testing.assert_allclose(line.get_xdata(), widths)
    np.testing.assert_allclose(line.get_ydata(), want)
    assert star.get_xdata()[0] == pytest.approx(est.gamma_)
    # the chosen pair is on the flat end of the curve (within 0.1 % of the minimum)
    assert star.get_ydata()[0] == pytest.approx(min(want), rel=1e-3)
    assert ax.get_xscale() == "log"


def test_ridge_curve_without_a_width():
    X, y = _data()
    lda = graphdr.LDA().fit(X, y)
    ax = plot_cv_results(lda)
    assert ax.lines[-1].get_xdata()[0] == pytest.approx(
        lda.cv_results_["param_reg"][lda.cv_results_["rank_test_error"] == 1][0])


def test_an_estimator_without_a_record_is_a_clear_error():
    X, y = _data()
    with pytest.raises(ValueError, match="has no cv_results_"):
        plot_cv_results(graphdr.KernelLDA(gamma=0.1, reg=1e-3).fit(X, y))
    with pytest.raises(ValueError, match="has no cv_results_"):
        plot_cv_results(graphdr.KernelLDA())
