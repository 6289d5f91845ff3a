"""The 5x2cv tests (graphdr.bench.significance) against the formulas written out by hand, their
identities, their behaviour under the null, and on real classifiers."""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_iris
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.dummy import DummyClassifier

from graphdr.bench.significance import five_by_two_differences, five_by_two_f, five_by_two_t

P = np.array([[0.10, 0.05], [0.02, 0.04], [0.08, 0.03], [-0.01, 0.02], [0.06, 0.07]])


def test_statistics_equal_the_formulas_written_out():
    s2 = 0.0
    for a, b in P:
        m = (a + b) / 2
        s2 += (a - m) ** 2 + (b - m) ** 2
    t = P[0, 0] / np.sqrt(s2 / 5)
    f = sum(a * a + b * b for a, b in P) / (2 * s2)
    got_t, p_t = five_by_two_t(P)
    got_f, p_f = five_by_two_f(P)
    assert got_t == pytest.approx(t, rel=1e-12) and got_f == pytest.approx(f, rel=1e-12)
    assert p_t == pytest.approx(2 * (1 - stats.t.cdf(abs(t), 5)), rel=1e-9)
    assert p_f == pytest.approx(1 - stats.f.cdf(f, 10, 5), rel=1e-9)


def test_swapping_the_classifiers_flips_t_and_keeps_f():
    t, pt = five_by_two_t(P)
    t2, pt2 = five_by_two_t(-P)
    assert t2 == -t and pt2 == pt
    assert five_by_two_f(-P) == five_by_two_f(P)
    # the scale of the errors does not matter
    assert five_by_two_f(3 * P)[0] == pytest.approx(five_by_two_f(P)[0], rel=1e-12)


def test_degenerate_differences_give_clear_answers():
    assert five_by_two_t(np.zeros((5, 2))) == (0.0, 1.0)
    assert five_by_two_f(np.zeros((5, 2))) == (0.0, 1.0)
    same = np.full((5, 2), 0.04)  # the same gap on every half: no variance
    assert five_by_two_f(same) == (np.inf, 0.0)
    assert five_by_two_t(-same) == (-np.inf, 0.0)
    with pytest.raises(ValueError, match="5 x 2 paired error differences"):
        five_by_two_f(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="finite"):
        five_by_two_t(np.where(np.eye(5, 2) > 0, np.nan, 0.1))


@pytest.mark.slow
def test_the_null_is_rejected_at_most_at_the_level():
    """Differences with no true gap (independent, centred): both tests reject at 5 % in at
    most 5 % of 4000 draws (both are conservative here: 1.6 % and 2.8 %)."""
    rng = np.random.default_rng(0)
    draws = rng.normal(scale=0.03, size=(4000, 5, 2))
    rate_f = np.mean([five_by_two_f(d)[1] < 0.05 for d in draws])
    rate_t = np.mean([five_by_two_t(d)[1] < 0.05 for d in draws])
    assert 0.005 < rate_f <= 0.05 and 0.005 < rate_t <= 0.05
    # and a true gap of three standard deviations is found most of the time, by the F test
    # (all ten differences) more often than by the t test (one in its numerator)
    power_f = np.mean([five_by_two_f(d + 0.09)[1] < 0.05 for d in draws[:500]])
    power_t = np.mean([five_by_two_t(d + 0.09)[1] < 0.05 for d in draws[:500]])
    assert power_f > 0.85 and power_t < power_f


def test_on_classifiers_a_real_gap_and_none():
    X, y = load_iris(return_X_y=True)
    d = five_by_two_differences(DummyClassifier(), LinearDiscriminantAnalysis(), X, y)
    assert d.shape == (5, 2) and np.all(d > 0.5)  # chance (2/3 wrong) against about 2 %
    f, p = five_by_two_f(d)
    assert p < 0.01
    same = five_by_two_differences(LinearDiscriminantAnalysis(), LinearDiscriminantAnalysis(),
                                   X, y, random_state=3)
    assert five_by_two_f(same) == (0.0, 1.0)
    # the halves are stratified and change with the replication: not all differences equal
    assert len(np.unique(d)) > 1
    with pytest.raises(ValueError, match="at least 2 samples of every class"):
        five_by_two_differences(DummyClassifier(), DummyClassifier(), X[:51], y[:51])


def _rows(errors, dim=2, n_test=100):
    """results.csv rows: ``errors[method]`` holds the ten folds' error counts."""
    return [dict(dataset="d", method=m, classifier="1nn", fold=f, dim=dim, n_test=n_test,
                 n_errors=int(e)) for m, es in errors.items() for f, e in enumerate(es)]


def test_bench_tables_give_the_5x2cv_f_test_against_the_best_method():
    """`graphdr bench`'s tables: each method's p-value against the best one, from the same
    ten paired folds as five_by_two_f; no section without 5 x 2 folds."""
    from graphdr.bench.report import aggregate, best_table, five_by_two_table, markdown_tables

    rng = np.random.default_rng(0)
    good = 10 + rng.integers(0, 3, 10)
    errors = {"lda": good, "pca": good + 8 + rng.integers(0, 2, 10), "qmi": good + np.array(
        [3, -3] * 5)}
    rows = _rows(errors)
    table = best_table(aggregate(rows), "1nn", ["d"], list(errors))
    lines = five_by_two_table(rows, "1nn", ["d"], list(errors), table)
    body = next(line for line in lines if line.startswith("| d |"))
    cells = [c.strip() for c in body.strip("|").split("|")][1:]
    assert cells[0] == "best"
    for cell, m in zip(cells[1:], ("pca", "qmi")):
        _, p = five_by_two_f(((errors[m] - good) / 100).reshape(5, 2))
        assert float(cell.strip("*")) == pytest.approx(p, abs=6e-4)
        assert cell.startswith("**") == (p < 0.05)
    assert lines[-2].startswith("| significantly worse | 0 | 1 | 0 |")
    assert "5x2cv F test" in markdown_tables(rows)
    assert five_by_two_table(_rows({m: e[:6] for m, e in errors.items()}), "1nn", ["d"],
                             list(errors), table) == []
