"""Baselines of the benchmark that are not estimators of the library itself.

:class:`AverageKernelLDA` is the equal-weight baseline of MKL-DR (paper 001): kernel LDA on the
uniform average of the same base kernels that MKL-DR weighs. If the learned kernel weights do not
beat it, learning them bought nothing. It is built only from graphdr's public pieces
(:class:`graphdr.ViewKernel` and :class:`graphdr.KernelLDA` with ``kernel='precomputed'``).
"""

from __future__ import annotations

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import check_labels, check_positive
from ..graph_embedding.kernel_methods import KernelLDA
from ..multiview import check_views, make_view_kernels

__all__ = ["AverageKernelLDA"]


class AverageKernelLDA(TransformerMixin, BaseEstimator):
    r"""Kernel LDA on the equal-weight average of the views' base kernels (MKL-DR's baseline).

    .. math::

        \bar K = \frac{1}{M}\sum_{m=1}^{M} \tilde K_m, \qquad
        \min_a \frac{a^\top \bar K L(W) \bar K a}
                    {a^\top(\bar K L(W_t) \bar K + \epsilon \bar K) a},

    with :math:`\tilde K_m` the processed base kernel of view ``m`` (:class:`graphdr.ViewKernel`:
    centred, unit mean diagonal by default) and the kernel Fisher ratio of
    :class:`graphdr.KernelLDA` (``reg`` is :math:`\epsilon`). This is MKL-DR's LDA objective with
    the kernel weights fixed at :math:`\beta_m = 1/M` instead of learned: the baseline that tells
    whether learning the weights helps. New samples are embedded with the averaged kernel rows
    :math:`\bar k(x) = \frac1M\sum_m \tilde k_m(x)`.

    Parameters
    ----------
    n_components : int or None, default=None
        Embedding dimension, at most ``n_classes - 1`` (None: ``n_classes - 1``).
    kernels : str, dict, ViewKernel or list of those, default='rbf'
        Base kernel of each view, as for :class:`graphdr.MKLDR` (see
        :func:`graphdr.multiview.make_view_kernels`).
    reg : float, default=1e-3
        Relative ridge of :class:`graphdr.KernelLDA`.

    Attributes
    ----------
    view_kernels_ : list of ViewKernel
        The fitted base kernels.
    kfd_ : KernelLDA
        Kernel LDA fitted on the averaged kernel (``kernel='precomputed'``).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
    n_components_ : int
    n_views_ : int
    classes_ : ndarray of shape (n_classes,)
    """

    def __init__(self, n_components=None, *, kernels="rbf", reg=1e-3):
        self.n_components = n_components
        self.kernels = kernels
        self.reg = reg

    def _average(self, views, fit):
        K = None
        for vk, V in zip(self.view_kernels_, views):
            Km = vk.fit_kernel(V) if fit else vk.transform(V)
            K = Km if K is None else K + Km
        return K / len(views)

    def fit(self, Xs, y):
        """Fit the base kernels of the views ``Xs`` (a list) and kernel LDA on their average."""
        check_positive(self.reg, "reg", allow_zero=True)
        views = check_views(Xs)
        self.classes_, y_enc, _ = check_labels(y, method=type(self).__name__)
        if len(y_enc) != views[0].shape[0]:
            raise ValueError(
                f"y has {len(y_enc)} labels but the views have {views[0].shape[0]} rows."
            )
        self.n_views_ = len(views)
        self.view_kernels_ = make_view_kernels(self.kernels, self.n_views_)
        K = self._average(views, fit=True)
        self.kfd_ = KernelLDA(n_components=self.n_components, kernel="precomputed",
                              reg=self.reg).fit(K, y_enc)
        self.embedding_ = self.kfd_.embedding_
        self.n_components_ = self.kfd_.n_components_
        return self

    def transform(self, Xs):
        """Embedding of new samples (a list of views), shape (n_samples, n_components_)."""
        check_is_fitted(self, "kfd_")
        views = check_views(Xs, n_views=self.n_views_)
        return self.kfd_.transform(self._average(views, fit=False))
