"""scikit-learn's estimator checks on every foundation estimator (no expected failures).

KernelLPP with its defaults refits itself for every (gamma, reg) pair of its search (about
100 fits a fit), which makes its checks take minutes: they run with fixed parameters in
``make test`` and with the defaults in ``make test-slow`` (CI runs both).
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import graphdr

ESTIMATORS = [
    graphdr.LDA(),
    graphdr.LPP(),
    graphdr.LPP(supervised=True),
    graphdr.MFA(),
    graphdr.LDE(),
    graphdr.GraphEmbedding(),
    graphdr.GraphEmbedding(intrinsic="within_class", penalty="total", kernel="rbf"),
    graphdr.KernelLDA(),
    graphdr.KernelLDA(kernel="precomputed"),
    graphdr.KernelLPP(gamma=0.5, reg=1e-3),
    graphdr.KernelLPP(supervised=True, gamma=0.5, reg=1e-3),
    graphdr.CKFD(),
    graphdr.LFDA(),
    graphdr.SemiLFDA(),
]

#: the refitted default searches (slow)
DEFAULT_SEARCHES = [graphdr.KernelLPP(), graphdr.KernelLPP(supervised=True)]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(DEFAULT_SEARCHES)
def test_sklearn_estimator_checks_of_default_searches(estimator, check):
    check(estimator)
