"""The parameters of the class-graph discriminants, written once.

LDA and LQMI, and their kernel versions KernelLDA and KQMI, solve the same problem with another
class graph (:class:`graphdr.graph_embedding.linear._LDAGraphs`, the QMI graph of
:mod:`graphdr.qmi.closed_form`): one solver, many graphs. What they take is therefore the same,
and lives here; each estimator is its graph mixin over one of these two classes.
"""

from __future__ import annotations

from ..training.supports import Supports
from .estimator import _BaseGraphEmbedding

__all__ = ["_LinearDiscriminant", "_KernelDiscriminant"]

_SUPPORTS = Supports(unlabelled_rows=True, unlabelled_choice=True, smoothing=True, scaling=True,
                     ridge=True, prepared=True, label_audit=True)


class _LinearDiscriminant(_BaseGraphEmbedding):
    """A linear discriminant of a class graph (LDA, LQMI): its ridge chosen by leave-one-out."""

    _supports = _SUPPORTS
    _auto_linear_reg = True

    def __init__(self, n_components=None, *, reg="auto", scaling="within", smoothing="auto",
                 smoothing_neighbors=10, unlabelled="auto", labels="given", rank_tol=None):
        self.n_components = n_components
        self.reg = reg
        self.scaling = scaling
        self.smoothing = smoothing
        self.smoothing_neighbors = smoothing_neighbors
        self.unlabelled = unlabelled
        self.labels = labels
        self.rank_tol = rank_tol


class _KernelDiscriminant(_BaseGraphEmbedding):
    """A kernel discriminant of a class graph (KernelLDA, KQMI)."""

    _supports = _SUPPORTS

    def __init__(
        self, n_components=None, *, kernel="rbf", gamma="auto", degree=3, coef0=1.0,
        kernel_params=None, reg="auto", scaling="within", solver="auto", approximation="auto",
        n_landmarks=500, random_state=None, n_jobs=None, smoothing="auto",
        smoothing_neighbors=10, unlabelled="auto", labels="given",
        rank_tol=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.reg = reg
        self.scaling = scaling
        self.solver = solver
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.smoothing = smoothing
        self.smoothing_neighbors = smoothing_neighbors
        self.unlabelled = unlabelled
        self.labels = labels
        self.rank_tol = rank_tol
