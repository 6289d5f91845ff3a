r"""The shared ``transform`` of supervised linear projections fitted by their own algorithm."""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threads import managed_threads
from .fitting import (
    _DTYPES,
)


class _LinearProjection(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared ``transform`` of supervised linear projections fitted by their own algorithm.

    Subclasses set ``components_`` (n_components x n_features), ``mean_`` and ``n_components_``
    in ``fit``; ``transform(X) = (X - mean_) @ components_.T``.
    """

    @managed_threads
    def transform(self, X):
        """Project samples: ``(X - mean_) @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=_DTYPES)
        return (X - self.mean_) @ self.components_.T

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
