r"""Solve routes: (coordinate space, problem) -> (eigenvalues, solution).

A graph-embedding problem (:class:`GraphProblem`) names an *objective* graph and a
*constraint* (a graph, its degree matrix, or the identity) and whether the ratio is minimised
(``L(W)`` forms, LDA, LPP, MFA, LDE) or maximised (QMI's adjacency form):

.. math::

    \min_V \operatorname{tr}\big(V^\top (C^\top Q_W C + \epsilon I) V\big) \quad\text{s.t.}\quad
    V^\top (C^\top Q_{W^p} C + \epsilon I) V = I

in the coordinates ``C`` of a space of :mod:`graphdr.graph_embedding.spaces`. Three routes solve it:

* :func:`solve_graph_problem` -- any graphs, any space: quadratic forms in the coordinates,
  then :func:`graphdr.blocks.solvers.generalized_eigh`;
* :func:`solve_class_forms` -- class graphs on a :class:`~graphdr.graph_embedding.spaces.LinearSpan` built
  from one-pass class statistics: every form is ``d G - U^T B U`` (``C x C`` blocks);
* :func:`solve_class_kernel` -- a class-structured objective on an exact
  :class:`~graphdr.graph_embedding.spaces.KernelMap`: one Cholesky factorisation, no eigendecomposition of
  the kernel (:func:`graphdr.blocks.solvers.class_kernel_eigh`); returns dual coefficients.

The ridge is :func:`relative_ridge`: ``reg`` times the mean eigenvalue of the constraint over
the space's dimensions, so that all routes solve the same regularised problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blocks.solvers import class_kernel_eigh, generalized_eigh
from ..training.label_audit import LABELS_DOC

__all__ = ["GraphProblem", "ClassForms", "relative_ridge", "solve_graph_problem",
           "solve_class_forms", "solve_class_kernel", "SCALINGS", "SCALING_DOC", "SMOOTHING_DOC",
           "metric_transform"]


@dataclass
class GraphProblem:
    r"""A graph-embedding problem over the training samples.

    Attributes
    ----------
    objective : graph
        ``W`` (:class:`graphdr.blocks.graphs.ClassGraph`, sparse or dense ``n x n``).
    constraint : graph or {'degree', 'identity'}
        ``W^p``, the degree matrix of ``W`` (LPP), or the identity (``V^T V = I``).
    objective_kind : {'laplacian', 'adjacency'}
        Quadratic form of ``L(W)`` or of ``W`` itself.
    maximise : bool
        Largest ratios first (ridge on the constraint only) instead of smallest.
    smooth_constraint : bool
        Where a semi-supervised smoothness form :math:`\alpha J` goes
        (:func:`solve_graph_problem`): always into the denominator of the maximised ratio,
        which is the constraint of a maximised problem and the objective of a minimised one;
        True adds it to the constraint of a minimised problem as well (LDA's form
        :math:`\min (S_w + \alpha J) / (S_t + \alpha J)` = :math:`\max S_b / (S_t + \alpha
        J)`, semi-supervised discriminant analysis).
    """

    objective: Any
    constraint: Any
    objective_kind: str = "laplacian"
    maximise: bool = False
    smooth_constraint: bool = False
    #: what building the graphs chose from the data (LDE's heat widths), which the fit
    #: stores (:class:`~graphdr.training.selected.Selected`), or None
    selected: Any = None


@dataclass
class ClassForms:
    """A problem whose forms are class-graph forms ``d G - U^T B U``.

    ``objective`` and ``constraint`` are ``(d, B)`` pairs (``B`` a ``C x C`` block), the
    constraint may also be ``'identity'``.
    """

    objective: tuple
    constraint: Any
    maximise: bool = False


def relative_ridge(reg, constraint, dims):
    """``reg`` times the mean eigenvalue of the constraint matrix over ``dims`` dimensions."""
    return reg * max(np.trace(constraint), 0.0) / max(dims, 1)


def _constraint_form(space, problem):
    if isinstance(problem.constraint, str) and problem.constraint == "degree":
        return space.quadratic_form(problem.objective, kind="degree")
    if isinstance(problem.constraint, str) and problem.constraint == "identity":
        return np.eye(space.rank)
    return space.quadratic_form(problem.constraint)


def solve_graph_problem(space, problem, *, reg=0.0, n_samples=None, ridge=None, rank_tol=None,
                        smoothing=None, ridge_dims=None):
    """Quadratic forms of the problem's graphs in the space's coordinates, then one solve.

    The ridge is :func:`relative_ridge` of ``reg`` over ``space.ridge_dims(n_samples)`` (or
    ``ridge_dims``), or the absolute ``ridge`` when given. ``smoothing`` is a semi-supervised
    form :math:`\\alpha J` (``r x r``, in the space's coordinates, already weighted) placed as
    :class:`GraphProblem` says (:func:`add_smoothing`); the ridge is that of the constraint
    without it. Returns eigenvalues (ordered as the problem asks) and directions ``V`` in the
    space's coordinates, with :math:`V^\\top (B + \\epsilon I) V = I`.
    """
    A = space.quadratic_form(problem.objective, kind=problem.objective_kind)
    B = _constraint_form(space, problem)
    if ridge is None:
        dims = space.ridge_dims(n_samples) if ridge_dims is None else ridge_dims
        ridge = relative_ridge(reg, B, dims)
    if smoothing is not None:
        A, B = add_smoothing(problem, A, B, smoothing)
    return generalized_eigh(A, B, largest=problem.maximise, ridge=ridge, rank_tol=rank_tol)


def add_smoothing(problem, A, B, J):
    """The objective and constraint forms with the smoothness form ``J`` added where
    ``problem`` puts it (see :class:`GraphProblem`)."""
    if problem.maximise:
        return A, B + J
    return A + J, (B + J if problem.smooth_constraint else B)


def solve_class_forms(space, forms, *, reg, n_samples, rank_tol=None):
    """The class-structured problem from class statistics (no pass over the samples)."""

    def form(spec):
        if isinstance(spec, str):  # 'identity'
            return np.eye(space.rank)
        return space.class_form(*spec)

    A, B = form(forms.objective), form(forms.constraint)
    ridge = relative_ridge(reg, B, space.ridge_dims(n_samples))
    return generalized_eigh(A, B, largest=forms.maximise, ridge=ridge, rank_tol=rank_tol)


def solve_class_kernel(space, y_encoded, block, *, reg=0.0, ridge=None, with_embedding=False):
    r"""Maximise a class-structured kernel objective over the regularised total scatter.

    The ridge is :math:`\epsilon = \text{reg}\operatorname{tr}(\tilde K)/(n-1)`, the ridge of
    :func:`solve_graph_problem` on the kernel map with the complete graph as constraint, or the
    absolute ``ridge`` when given.
    Returns the maximised ratios (decreasing) and dual coefficients, and with
    ``with_embedding`` the training embedding :math:`\tilde K a` (free, see
    :func:`graphdr.blocks.solvers.class_kernel_eigh`); raises ``numpy.linalg.LinAlgError`` when
    :math:`\tilde K + \epsilon I` is not positive definite. A space that owns its kernel
    (:meth:`graphdr.graph_embedding.spaces.KernelMap.fit`) has it factorised in place, without an ``n x n``
    copy (:meth:`graphdr.graph_embedding.spaces.KernelMap.factorise_in_place`).
    """
    Kc = space.K_centred
    if ridge is None:
        ridge = reg * np.trace(Kc) / max(Kc.shape[0] - 1, 1)
    if not ridge > 0:  # a non-positive trace: no PSD kernel
        raise np.linalg.LinAlgError("the centred kernel has a non-positive trace")
    if getattr(space, "owns_kernel", False):
        ratios, dual, embedding = space.factorise_in_place(
            lambda K: class_kernel_eigh(K, y_encoded, block, ridge, overwrite_k=True))
    else:
        ratios, dual, embedding = class_kernel_eigh(Kc, y_encoded, block, ridge)
    return (ratios, dual, embedding) if with_embedding else (ratios, dual)


#: a discriminant direction whose between-class share of variance is below this fraction of the
#: largest share carries no class information (``n_components=None`` leaves it out)
NO_BETWEEN_VARIANCE = 1e-6


def discriminative_count(share):
    """How many leading directions ``n_components=None`` keeps: those whose between-class
    share of variance (``share``, decreasing) is above :data:`NO_BETWEEN_VARIANCE` times the
    largest. Fewer than all only for a rank-deficient between-class scatter (class means on a
    lower-dimensional affine subspace), as the rank tolerance of scikit-learn's LDA; at least
    one."""
    share = np.asarray(share, dtype=np.float64)
    k = share.shape[0]
    if k <= 1 or not np.all(np.isfinite(share)) or not share.max() > 0:
        return k
    return max(int(np.sum(share > NO_BETWEEN_VARIANCE * share.max())), 1)


#: the ``smoothing`` and ``smoothing_neighbors`` entries of the semi-supervised estimators'
#: docstrings (``%(smoothing)s``)
SMOOTHING_DOC = """    smoothing : 'auto' or float, default='auto'
        Weight :math:`\\alpha` of the semi-supervised smoothness term, used only when ``y``
        marks unlabelled samples with -1 (scikit-learn's convention): the Laplacian form of
        the ``smoothing_neighbors``-nearest-neighbour graph over all samples joins the
        denominator of the maximised ratio, in units of the labelled samples' total scatter
        (:mod:`graphdr.semi.choice`). 'auto': the weight of smallest leave-one-out error on the
        labelled samples, in closed form (:func:`graphdr.tuning.press_smoothing`). With every
        sample labelled the fit is the supervised one.
    smoothing_neighbors : int, default=10
        Neighbours per sample of the smoothness graph (unlabelled samples only).
    unlabelled : {'auto', 'ignore', 'smooth', 'propagate'}, default='auto'
        How the unlabelled samples (-1) are used. 'ignore': not at all, the fit of the
        labelled samples alone (bit for bit; ``transform`` projects the others). 'smooth':
        the smoothness term above. 'propagate': their classes propagated over the
        10-nearest-neighbour graph of all samples (Poisson learning,
        :class:`graphdr.PoissonPropagation`), then the fit of every sample as labelled (the
        fully labelled route, fast). 'auto': 'smooth' or 'propagate' only where it places
        held-out labelled samples better than the fit of the labelled samples alone, by a
        sign test over two stratified folds, else 'ignore'
        (:func:`graphdr.semi.choice.compare_unlabelled_uses`). ``unlabelled_`` records the
        choice and ``unlabelled_results_`` the comparison. With every sample
        labelled it has no effect.
%(labels)s"""

SMOOTHING_DOC = SMOOTHING_DOC.replace("%(labels)s", LABELS_DOC)

#: values of the ``scaling`` parameter of the discriminant estimators
SCALINGS = ("within", "total", "none")

#: the ``scaling`` entry of the discriminant estimators' docstrings (``%(scaling)s``)
SCALING_DOC = """    scaling : {'within', 'total', 'none'}, default='within'
        Metric inside the learned subspace (the subspace is the same for all three).
        ``'within'``: the embedded within-class covariance is the identity,
        :math:`W^\\top \\Sigma_w W = I` with :math:`\\Sigma_w = S_w / (n - C)`, components
        ordered by between-class variance -- scikit-learn's LDA ``transform``, and the metric a
        nearest-neighbour or nearest-centroid classifier needs. With a ridge
        :math:`\\epsilon > 0` on the total scatter (LDA, LQMI, KernelLDA and KQMI with
        ``reg > 0``) it is the within-class covariance of the same regularised model,
        :math:`\\Sigma_w = (S_w + \\epsilon I) / (n - C)`; elsewhere a ridge
        :math:`\\max(\\text{reg}, 10^{-6})` times the mean total variance where it is singular.
        ``'total'``: the solver's normalisation, unit regularised total scatter. ``'none'``:
        unit-norm directions (the papers' normalisation).
        A classifier with a fixed length scale sees the metric too: kernel embeddings hold
        their training classes tighter than new samples, so in the ``'within'`` metric an RBF
        SVM with a fixed ``gamma`` can fail (``benchmarks/results/bouzas.md``); give it a
        width from the data (scikit-learn's ``gamma='scale'``) or use ``'none'``.
        See :func:`graphdr.graph_embedding.routes.metric_transform`."""


def metric_transform(scaling, within, total, norms, *, n_samples, n_classes, reg=0.0,
                     ridge_form=None, rotate=True, criterion=None):
    r"""``k x k`` matrix ``R`` that gives the embedding ``Y V`` the metric ``scaling`` asks for.

    With the embedded within-class and total scatters :math:`S_w = V^\top C^\top L_w C V` and
    :math:`S_t` (``k x k``) of the solver's directions ``V`` (columns, any normalisation):

    * ``'within'``: :math:`R = (\Sigma_w + \epsilon I)^{-1/2} Q`, with the within-class
      covariance :math:`\Sigma_w = (S_w + E) / (n - C)` and ``Q`` the eigenvectors of the
      between-class covariance of the whitened embedding, by decreasing variance. ``E`` is
      ``ridge_form``, the solver's ridge in the embedded coordinates, :math:`\epsilon_s V^\top
      V` for a ridge :math:`\epsilon_s I` (zero when None): the embedded within-class
      covariance is then the identity under the regularised model the solver fitted, the
      Mahalanobis metric of a nearest-neighbour or nearest-centroid classifier under the LDA
      model with the ridge (with ``reg=0``, scikit-learn's LDA ``transform``).
      :math:`\epsilon = 10^{-6}\operatorname{tr}(\Sigma_t)/k` with ``ridge_form``, otherwise
      :math:`\max(\text{reg}, 10^{-6})\operatorname{tr}(\Sigma_t)/k`, keeps it finite where
      :math:`S_w` is singular (classes separated perfectly on the training data).
    * ``'total'``: ``R = I`` (the solver's normalisation, :math:`V^\top (S_t+\epsilon I) V = I`).
    * ``'none'``: :math:`R = \operatorname{diag}(1/\lVert w_j\rVert)`, unit-norm directions
      (``norms`` are the Euclidean norms of the directions in input or feature space).

    The subspace is the same in every case: only the metric inside it changes.
    ``rotate=False`` leaves out ``Q`` (``'within'``): for directions whose between-class
    covariance is the same in the whitened metric (CKFD's irregular components), the order
    by between-class variance is not defined and the solver's order is kept.

    Past the first ``min(k, n_classes - 1)`` columns the between-class covariance is zero
    (its rank is at most ``C - 1``), so its eigenvectors there are any basis of that null
    space: rounding, the row order or the BLAS would pick one. With ``criterion`` (the
    solver's value of each direction of ``V``, in the solver's order, the most important
    first: ``V^T A V = diag(criterion)`` under ``V^T B V = I``) that null space is ordered
    by the method's own criterion instead, the eigenvectors of the criterion's form
    restricted to it: the same components on every machine wherever the criterion's values
    differ. The whole embedding's distances do not depend on this choice (``Q`` is
    orthogonal).
    """
    k = within.shape[0]
    if scaling == "total" or k == 0:
        return np.eye(k)
    if scaling == "none":
        return np.diag(1.0 / np.where(norms > 0, norms, 1.0))
    dof_within = max(n_samples - n_classes, 1)
    between = (total + total.T - within - within.T) / 2.0
    if ridge_form is not None:
        within = within + ridge_form
    cov_w = (within + within.T) / (2.0 * dof_within)
    cov_t = (total + total.T) / (2.0 * max(n_samples - 1, 1))
    floor = 1e-6 if ridge_form is not None else max(reg, 1e-6)
    eps = floor * max(np.trace(cov_t), 0.0) / k
    lam, U = np.linalg.eigh(cov_w)
    lam = np.maximum(lam, 0.0) + eps
    if not np.all(lam > 0):  # zero total variance: nothing to whiten
        return np.eye(k)
    R = (U / np.sqrt(lam)) @ U.T
    if not rotate:
        return R
    cov_b = R.T @ between @ R / max(n_samples - 1, 1)
    mu, Q = np.linalg.eigh((cov_b + cov_b.T) / 2.0)
    Q = Q[:, ::-1]
    r = min(k, max(n_classes - 1, 0))
    if criterion is not None and r < k:
        criterion = np.asarray(criterion, dtype=np.float64)
        if criterion[0] > criterion[-1]:  # a maximised ratio, largest first
            criterion = -criterion
        # the criterion's form in the whitened coordinates z = c R^-1 (R symmetric here)
        R_inv = (U * np.sqrt(lam)) @ U.T
        form = R_inv @ (np.asarray(criterion, dtype=np.float64)[:, None] * R_inv)
        N = Q[:, r:]
        _, P = np.linalg.eigh(N.T @ ((form + form.T) / 2.0) @ N)
        Q = np.hstack([Q[:, :r], N @ P])
    return R @ Q
