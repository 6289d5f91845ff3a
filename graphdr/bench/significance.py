r"""Is one classifier's error lower than another's? The 5x2 cross-validation tests.

Five replications of 2-fold cross-validation give ten paired error differences
:math:`p_i^{(j)} = e_A - e_B` (replication :math:`i = 1..5`, fold :math:`j = 1, 2`; both
classifiers trained and tested on the same halves). With the replication means
:math:`\bar p_i = (p_i^{(1)} + p_i^{(2)}) / 2` and variances
:math:`s_i^2 = (p_i^{(1)} - \bar p_i)^2 + (p_i^{(2)} - \bar p_i)^2`:

* Dietterich's 5x2cv paired *t* test (Neural Computation 10(7), 1998), the one paper 002 cites:

  .. math::

      t = \frac{p_1^{(1)}}{\sqrt{\tfrac15 \sum_{i=1}^5 s_i^2}} \sim t_5 ;

* Alpaydin's combined 5x2cv *F* test (Neural Computation 11(8), 1999), which uses all ten
  differences (Dietterich's reads one) and is the more robust of the two:

  .. math::

      f = \frac{\sum_{i=1}^5 \sum_{j=1}^2 \left(p_i^{(j)}\right)^2}{2 \sum_{i=1}^5 s_i^2}
      \sim F_{10, 5} .

When every :math:`s_i^2` is zero the statistic is 0 (p-value 1) if every difference is zero,
else infinite (p-value 0): the two classifiers then differ by the same amount on every half.

:func:`five_by_two_differences` makes the ten differences for two scikit-learn classifiers (any
estimator with ``fit`` and ``predict``; a pipeline of a graphdr projection and a classifier),
the halves drawn by stratified 2-fold splits of seeds ``random_state + i``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["five_by_two_differences", "five_by_two_t", "five_by_two_f"]


def _check_differences(differences):
    p = np.asarray(differences, dtype=np.float64)
    if p.shape != (5, 2):
        raise ValueError("differences must hold the 5 x 2 paired error differences (5 "
                         f"replications of 2-fold cross-validation); got shape {p.shape}.")
    if not np.all(np.isfinite(p)):
        raise ValueError("differences must be finite error differences; got NaN or inf.")
    return p


def _variances(p):
    mean = p.mean(axis=1, keepdims=True)
    return np.sum((p - mean) ** 2, axis=1)


def five_by_two_t(differences):
    """Dietterich's 5x2cv paired t test (module docstring).

    Parameters
    ----------
    differences : array-like of shape (5, 2)
        Error of A minus error of B, per replication (rows) and fold (columns).

    Returns
    -------
    t : float
        Positive when A errs more on the first fold of the first replication.
    p_value : float
        Two-sided, from Student's t with 5 degrees of freedom.
    """
    from scipy import stats

    p = _check_differences(differences)
    s2 = float(np.sum(_variances(p)))
    if s2 == 0.0:
        if p[0, 0] == 0.0:
            return 0.0, 1.0
        return float(np.copysign(np.inf, p[0, 0])), 0.0
    t = float(p[0, 0] / np.sqrt(s2 / 5.0))
    return t, float(2.0 * stats.t.sf(abs(t), 5))


def five_by_two_f(differences):
    """Alpaydin's combined 5x2cv F test (module docstring).

    Parameters
    ----------
    differences : array-like of shape (5, 2)
        Error of A minus error of B, per replication (rows) and fold (columns).

    Returns
    -------
    f : float
        Non-negative; the same when A and B are swapped.
    p_value : float
        From the F distribution with 10 and 5 degrees of freedom.
    """
    from scipy import stats

    p = _check_differences(differences)
    s2 = float(np.sum(_variances(p)))
    squares = float(np.sum(p ** 2))
    if s2 == 0.0:
        return (0.0, 1.0) if squares == 0.0 else (float("inf"), 0.0)
    f = squares / (2.0 * s2)
    return f, float(stats.f.sf(f, 10, 5))


def five_by_two_differences(estimator_a, estimator_b, X, y, *, random_state=0):
    """The 5 x 2 paired differences of test error, A minus B: five replications of stratified
    2-fold cross-validation (seeds ``random_state`` to ``random_state + 4``), both estimators
    trained on one half and tested on the other, each half in turn.

    Parameters
    ----------
    estimator_a, estimator_b : classifiers with ``fit`` and ``predict``
        Cloned for every fit (scikit-learn's ``clone``).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Every class needs at least 2 samples (one in each half).
    random_state : int, default=0

    Returns
    -------
    differences : ndarray of shape (5, 2)
        For :func:`five_by_two_t` and :func:`five_by_two_f`.
    """
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold
    from sklearn.utils import check_X_y
    from sklearn.utils.validation import check_random_state

    X, y = check_X_y(X, y, accept_sparse=True, dtype=None)
    seed = int(check_random_state(random_state).randint(2**31 - 5)
               if not isinstance(random_state, (int, np.integer)) else random_state)
    _, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        raise ValueError("5x2 cross-validation needs at least 2 samples of every class (one "
                         f"in each half); the smallest class has {counts.min()}.")
    out = np.empty((5, 2))
    for i in range(5):
        folds = StratifiedKFold(n_splits=2, shuffle=True, random_state=seed + i)
        for j, (train, test) in enumerate(folds.split(X, y)):
            errors = []
            for est in (estimator_a, estimator_b):
                model = clone(est).fit(X[train], y[train])
                errors.append(float(np.mean(model.predict(X[test]) != y[test])))
            out[i, j] = errors[0] - errors[1]
    return out
