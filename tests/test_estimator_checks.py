"""scikit-learn's estimator checks on every foundation estimator (no expected failures)."""

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
    graphdr.KernelLPP(),
    graphdr.KernelLPP(supervised=True),
    graphdr.CKFD(),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
