r"""Paper 000's closed-form QMI embeddings: linear (LQMI, Algorithm 2) and kernel (KQMI, Algorithm 1)."""

from __future__ import annotations

import numpy as np
from scipy import linalg

from .._validation import check_option, has_unlabelled
from ..blocks import graphs as _graphs
from ..graph_embedding.class_discriminants import _KernelDiscriminant, _LinearDiscriminant
from ..graph_embedding.fitting import Solution
from ..graph_embedding.routes import (
    SCALING_DOC,
    SMOOTHING_DOC,
    ClassForms,
    GraphProblem,
    discriminative_count,
)
from .potentials import (
    qmi_graph,
    qmi_potential_blocks,
)


class _QMIClosedForm:
    """Shared pieces of LQMI and KQMI: the QMI graph against the total scatter."""

    _ridge_on_total_scatter = True

    def _max_components(self, n_available, n_classes):
        return min(n_classes - 1, n_available), (
            f"the QMI graph M has rank n_classes - 1 = {n_classes - 1} for {n_classes} classes"
            + (f", and the data have rank {n_available}" if n_available < n_classes - 1 else "")
        )

    def _build_graphs(self, X_graph, y_enc, metric):
        return qmi_graph(y_enc), _graphs.total_graph(y_enc)

    def _problem(self, X_graph, y_enc, metric):
        # max tr(V^T X^T M X V)  s.t.  V^T (X^T X + eps I) V = I   (X centred).
        # M = E B E^T has zero row sums, so X^T M X is the 'adjacency' form of the class graph
        # (= -X^T L(M) X); it is computed from class sums only.
        M, total = self._build_graphs(X_graph, y_enc, metric)
        return GraphProblem(M, total, objective_kind="adjacency", maximise=True)

    def _class_forms(self, class_sizes):
        # linear path from class statistics: A = U^T B_M U (adjacency of the QMI graph, a
        # form with degree 0 and block -B_M), B = S_t = G_c - U^T (1/n) U
        J = np.asarray(class_sizes, dtype=np.float64)
        b = qmi_potential_blocks(J)
        return ClassForms(
            (0.0, -(b["V_IN"] + b["V_ALL"] - 2.0 * b["V_BTW"])),
            (1.0, np.full((J.shape[0], J.shape[0]), 1.0 / J.sum())),
            maximise=True,
        )

    def _class_objective_block(self, n_classes, class_sizes):
        # the class-structured kernel fast path maximises a^T K E B E^T K a over the ridge
        # constraint: B is the QMI block
        b = qmi_potential_blocks(class_sizes)
        return b["V_IN"] + b["V_ALL"] - 2.0 * b["V_BTW"]

    def _eigenvalues_from_ratios(self, ratios):
        return ratios

    def _default_n_components(self, eigenvalues, k):
        # the QMI quotient of each direction is its between-class share (decreasing)
        return discriminative_count(eigenvalues[:k])


class LQMI(_QMIClosedForm, _LinearDiscriminant):
    r"""Linear quadratic-MI embedding (paper 000, Algorithm 2).

    .. math::

        \max_V \operatorname{tr}\big(V^\top X^\top M X V\big) \quad\text{s.t.}\quad
        V^\top \big(X^\top X + \epsilon I\big) V = I ,

    with ``X`` centred and ``M`` the QMI graph of :func:`qmi_graph`,
    :math:`M = E B E^\top`, :math:`B_{ab} = (\delta_{ab} + s - (J_a+J_b)/n)/n^2`. The solution
    is the generalized eigenproblem :math:`X^\top M X v = \gamma X^\top X v` of paper 000's
    eq. 29, largest :math:`\gamma` first. Because ``M`` has zero row sums,
    :math:`L(M) = -M` and :math:`X^\top M X = -X^\top L(M) X`: maximising the objective is
    graph embedding that *minimises* :math:`\operatorname{tr}(V^\top X^\top L(M) X V)` with the
    (signed) QMI graph ``M`` as intrinsic graph and the complete graph as penalty.
    :math:`X^\top M X` is formed from the class sums :math:`E^\top X` (``O(n D C)``); no
    ``n x n`` matrix is built. The whole fit needs one pass over ``X`` (class counts, class sums
    and the centred Gram matrix, :func:`graphdr.blocks.stats.class_statistics`), so it costs what LDA
    costs, and ``X`` may be a ``dask.array`` (statistics computed chunk by chunk on the active
    Dask scheduler or cluster, never materialised; ``transform`` of a Dask array returns a lazy
    Dask array).

    ``M`` has rank ``C - 1``, so at most ``C - 1`` components exist. For balanced classes
    :math:`X^\top M X` is proportional to the between-class scatter and LQMI equals LDA; for any
    class sizes the two span the same subspace at ``n_components = C - 1``.

    When to use it. LQMI spans LDA's subspace at ``d = C - 1`` (with the same ridge,
    ``reg='auto'`` chooses the same one) and gives the same errors
    (``benchmarks/results/defaults.md``: paper 000's protocol, 10-fold CV, [-1, 1] scaling): it
    loses to 1-NN on the raw features on sonar (28.4 % against 15.4 %, one dimension) and
    mnist2k (11.6 % against 8.8 %), and wins on heart (19.3 % against 24.4 %), vehicle and
    wine. Use it as LDA (with a nearest-centroid classifier, or where the classes are roughly
    Gaussian); :class:`KQMI` for curved classes.

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_classes - 1``; a larger value raises ``ValueError``. None takes that many,
        less the directions without between-class variance (QMI quotient below ``1e-6`` times
        the largest, as :class:`graphdr.LDA`); ``n_components_`` records it.
    reg : 'auto' or float, default='auto'
        Ridge :math:`\epsilon` relative to the mean eigenvalue of :math:`X^\top X`. 0 is
        paper 000's LQMI; 'auto' chooses it as :class:`graphdr.LDA` does (the leave-one-out
        error of ridge regression of the class indicators, :func:`graphdr.tuning.press_ridge`):
        the ridge regularises the total scatter, which both methods share.
%(scaling)s
%(smoothing)s
    rank_tol : float or None, default=None
        Relative variance below which a direction of the data counts as absent.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Projection directions in the metric of ``scaling`` (``'total'``:
        :math:`V^\top X^\top X V = I`; paper 000 rescales each to unit length, ``'none'``; the
        subspace is the same, and only the metric inside it differs).
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (n_components_,)
        :math:`\gamma = v^\top X^\top M X v / v^\top X^\top X v`, decreasing.
    n_components_ : int
    reg_ : float
    cv_results_ : dict of ndarray
        As in :class:`graphdr.LDA` (only with ``reg='auto'``).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr.qmi import LQMI
    >>> X, y = load_iris(return_X_y=True)
    >>> LQMI().fit_transform(X, y).shape
    (150, 2)
    """


_KQMI_SOLVERS = ("auto", "cholesky", "eigh", "paper")


class KQMI(_QMIClosedForm, _KernelDiscriminant):
    r"""Kernel quadratic-MI embedding (paper 000, Algorithm 1, and a regularised default).

    .. math::

        \max_A \operatorname{tr}\big(A^\top \tilde K M \tilde K A\big) \quad\text{s.t.}\quad
        A^\top \big(\tilde K \tilde K + \epsilon \tilde K\big) A = I ,

    with the centred kernel matrix :math:`\tilde K = P \Lambda P^\top` and the QMI graph
    :math:`M = E B E^\top` of :func:`qmi_graph`; new samples map to
    :math:`\tilde k(x)^\top A`. :math:`\tilde K M \tilde K = (\tilde K E) B (\tilde K E)^\top`
    needs only the ``n x C`` class sums; ``M`` itself is never formed.

    * ``solver='auto'``, ``'cholesky'`` or ``'eigh'`` (regularised, the default): the ridge
      :math:`\epsilon = ` ``reg`` times the mean eigenvalue of :math:`\tilde K` (over its
      ``n - 1`` dimensions) keeps out-of-sample projections stable (without it an RBF kernel
      collapses each training class to a point; :doc:`/user_guide/graph_embedding`).
      'eigh' solves the linear problem on the empirical kernel map
      :math:`Z = P\Lambda^{1/2}`: :math:`\max w^\top Z^\top M Z w` s.t.
      :math:`w^\top (Z^\top Z + \epsilon I) w = 1`, :math:`a = P\Lambda^{-1/2} w`;
      'cholesky' uses the class structure of ``M`` (a ``C x C`` problem after one Cholesky
      factorisation of :math:`\tilde K + \epsilon I`, no eigendecomposition of ``K``);
      'auto' takes 'cholesky' when ``reg >= 1e-6``.
    * ``solver='paper'``: Algorithm 1 as printed, :math:`\epsilon = 0`: the top eigenvectors
      ``b`` of :math:`P^\top M P` and :math:`A = P \Lambda^{-1} b` (``reg`` is ignored).

    Kernel width: the paper's Algorithm 1 uses the Gaussian :math:`N(x_i - x_j; 0, \sigma^2 I)
    \propto \exp(-\lVert x_i-x_j\rVert^2 / 2\sigma^2)`, i.e. ``gamma = 1 / (2 sigma**2)``
    (paper 000's experiments, :math:`\sigma = 1`, are ``gamma=0.5``). Its section III-A writes
    the Parzen form :math:`N(\cdot; 0, 2\sigma^2 I)`, which is ``gamma = 1 / (4 sigma**2)``.
    The normalising constant of the Gaussian only scales ``K`` and changes no projection.

    When to use it. With its defaults KQMI is the strongest embedding of
    ``benchmarks/results/defaults.md`` (paper 000's protocol, 10-fold CV, [-1, 1] scaling; 12
    sets, 1-NN, 3-NN and nearest centroid): mean error 10.0 % over the 36 cells, against
    17.2 % for the raw features, 16.2 % for scikit-learn's LDA, 15.4 % for its shrinkage LDA
    and 15.5 % for NCA (five shuffles of the folds; ``docs/history.rst``, "The defaults over
    five shuffles of the folds").
    It gains most where the classes are curved: mnist2k 1-NN 4.3 % against 9.1 % raw, vehicle
    15.7 % against 25.9 % for scikit-learn's LDA, vowel with nearest centroid 0.4 % against
    40.1 %. Where a linear discriminant with a shared covariance already fits (heart, pima)
    it is no better than LDA: heart 1-NN 22.4 % against 20.4 % for scikit-learn's LDA, pima
    nearest centroid 24.3 % against 23.9 % (neither difference significant, p >= 0.55,
    corrected resampled t-test); there :class:`graphdr.LDA` or scikit-learn's shrinkage LDA
    is as good at a twentieth of the cost (heart: 0.03 s against 0.56 s per fold). On
    led7digit (7 binary features, many repeated rows with different labels) 1-NN is decided
    by how distance ties are broken (35.0 % against 36.0 % raw here, 36.5 % in an earlier run
    whose rounding broke the ties otherwise): the nearest centroid (25.4 %) is the stable
    choice there. The ``'auto'`` search
    takes 0.37 s beyond a fixed-parameter fit at ``n = 600`` and 0.28 s at ``n = 5000``
    (1.4 times the fit; ``benchmarks/results/model_selection_cost.md``); pass ``gamma`` and
    ``reg`` to skip it.

    Parameters
    ----------
    n_components : int or None, default=None
        At most ``n_classes - 1``; a larger value raises ``ValueError``. None takes that many,
        less the directions without between-class variance (as :class:`graphdr.LDA`).
    kernel : str or callable, default='rbf'
        'rbf', 'linear', 'poly', 'sigmoid', 'cosine', 'laplacian', 'chi2', 'precomputed' or a
        callable. With 'precomputed', ``fit`` takes the training kernel and ``transform`` the
        kernel between new and training samples.
    gamma : 'auto', float or None, default='auto'
        RBF/poly/sigmoid coefficient, :math:`k(x,x') = \exp(-\gamma\lVert x-x'\rVert^2)`.
        ``'auto'`` chooses it (with ``reg``) by the exact leave-one-out error of kernel ridge
        regression of the class indicators (closed form, the criterion of
        :class:`KernelLDA`), over ``4**(-5..1)`` times the median heuristic
        (:mod:`graphdr.tuning`; ``gamma_``, ``cv_results_``); the small widths reach the
        linear limit (regularised linear QMI). None means
        ``1 / n_features`` (an RBF width :math:`\sigma = \sqrt{D/2}`).
    degree : int, default=3
    coef0 : float, default=1.0
    kernel_params : dict or None, default=None
        Extra keyword arguments of the kernel.
    solver : {'auto', 'cholesky', 'eigh', 'paper'}, default='auto'
        The regularised solvers, or paper 000's Algorithm 1 as printed ('paper').
    reg : 'auto' or float, default='auto'
        Relative ridge of the regularised solvers (0 with 'eigh' gives the paper's problem);
        ``'auto'`` chooses it with ``gamma`` over ``10**(-6, -5.5, ..., 2)`` (``reg_``); with
        ``kernel='precomputed'`` it means 1e-3.
%(scaling)s
    approximation : {'auto', None, 'nystroem'}, default='auto'
        ``'auto'`` (default) is the exact problem up to 20,000 samples (3,000 with
        ``solver='eigh'`` or ``reg=0``, which need a dense eigendecomposition) and
        ``'nystroem'`` above (and for a ``dask.array``), so that no ``n x n`` matrix is formed
        for larger data unless asked for with None; with ``kernel='precomputed'`` and
        ``solver='paper'`` it is always exact.
        The choice made is stored in ``approximation_`` (None or ``'nystroem'``).
        None solves the exact kernel problem (``O(n^2)`` memory; ``O(n^3)`` time with
        'eigh', one Cholesky factorisation with 'cholesky'). 'nystroem' replaces the kernel by
        ``n_landmarks`` landmark features (scikit-learn's ``Nystroem``) and solves the linear
        QMI problem on them: ``O(n m)`` memory and ``O(n m^2)`` time, the ridge defined as in
        the exact problem (``reg`` times the mean eigenvalue of the approximated centred
        kernel over ``n - 1`` dimensions). Then ``components_``, ``mean_`` and ``nystroem_``
        replace ``dual_coef_`` and ``X_fit_``. Not available with ``solver='paper'`` or
        ``kernel='precomputed'``. With 'nystroem', ``X`` may be a ``dask.array``: only the
        landmark rows are computed, the features of each chunk are reduced to class
        statistics (``O(m^2)`` memory per chunk besides the chunk's features, the
        ``n x m`` feature matrix is never formed), and ``transform`` of a Dask array is lazy;
        the exact kernel on a Dask array raises ``ValueError``.
    n_landmarks : int, default=500
        Landmarks of the Nystroem approximation (capped at ``n_samples``); with
        ``n_landmarks = n_samples`` the approximation is the exact kernel.
    random_state : int, RandomState instance or None, default=None
        Seed of a random choice of the Nystroem landmarks. None takes the landmarks by the
        content of the rows (:mod:`graphdr.blocks.sampling`): the same on every fit and whatever the
        row order. The ``'auto'`` search never uses it: its subsample and folds come from the
        rows' content too, so ``gamma_`` and ``reg_`` do not depend on it.
    n_jobs : int or None, default=None
        Parallel jobs over the kernel widths of the ``'auto'`` search (joblib).
%(smoothing)s
    rank_tol : float or None, default=None
        Relative eigenvalue of the centred kernel below which a direction is dropped (never
        inverted); the constant vector, eigenvalue 0 of every centred kernel, is always dropped.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
        ``transform(X) = K_c(X, X_fit_) @ dual_coef_`` (exact kernel).
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    components_ : ndarray of shape (n_components_, n_landmarks)
        With ``approximation='nystroem'``:
        ``transform(X) = (nystroem_.transform(X) - mean_) @ components_.T``.
    mean_ : ndarray of shape (n_landmarks,)
        Mean landmark features (Nystroem only).
    nystroem_ : sklearn.kernel_approximation.Nystroem
        The fitted landmark map (Nystroem only).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding :math:`\tilde K A` (not stored after a fit on a Dask array).
    eigenvalues_ : ndarray of shape (n_components_,)
        Values of the QMI quotient of each component, decreasing.
    n_components_ : int
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from graphdr.qmi import KQMI
    >>> X, y = load_iris(return_X_y=True)
    >>> KQMI(n_components=2, gamma=0.5).fit_transform(X, y).shape
    (150, 2)
    """


    def _check_params(self):
        if self.kernel is None:
            raise ValueError(
                "KQMI needs a kernel (for example 'rbf' or 'linear'); got kernel=None. Use "
                "LQMI for the linear method."
            )
        check_option(self.solver, "solver", set(_KQMI_SOLVERS))
        if self.approximation == "nystroem" and self.solver == "paper":
            raise ValueError(
                "solver='paper' needs the exact kernel's eigendecomposition; use "
                "approximation=None (or the default), or solver='auto' with "
                "approximation='nystroem'."
            )

    def _resolved_reg(self, data=None):
        return 0.0 if self.solver == "paper" else super()._resolved_reg(data)

    def _solver_uses_reg(self):
        return self.solver != "paper"

    def _use_class_kernel_route(self, space, data):
        return self.solver != "paper" and super()._use_class_kernel_route(space, data)

    def _solve(self, space, data, problem=None):
        if self.solver != "paper":
            return super()._solve(space, data, problem)
        if has_unlabelled(data.y_encoded):
            raise ValueError(
                "KQMI(solver='paper') is paper 000's Algorithm 1 for labelled data; samples "
                "labelled -1 (unlabelled) need solver='auto', 'cholesky' or 'eigh'.")
        # Algorithm 1 of paper 000: eigenvectors b of P^T M P (P: eigenvectors of the centred
        # K with non-zero eigenvalues L), A = P L^{-1} b. In the empirical-map coordinates used
        # by the base class (a = P L^{-1/2} v) this is v = b / sqrt(L).
        P, lam = space.eigvecs, space.eigvals
        PMP = _graphs.graph_quadratic_form(qmi_graph(data.y_encoded), P, kind="adjacency")
        h, Bv = linalg.eigh((PMP + PMP.T) / 2.0)
        h, Bv = h[::-1], Bv[:, ::-1]
        return Solution(h, Bv / np.sqrt(lam)[:, None])


for _cls in (LQMI, KQMI):
    _cls.__doc__ = _cls.__doc__.replace("%(scaling)s", SCALING_DOC).replace(
        "%(smoothing)s", SMOOTHING_DOC)
del _cls
