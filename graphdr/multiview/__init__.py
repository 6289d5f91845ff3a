r"""Multi-view data and MKL-DR: base kernels per view, view validation, baselines, a test data set,
and dimensionality reduction with multiple kernels (paper 001).

A *view* is one feature representation of the same samples (pixels, histograms, ...): an array
of shape ``(n_samples, n_features_m)``, or an ``n x n`` kernel matrix. Views are passed as a
Python list with the same number of rows in every entry, the convention of multi-view libraries.

Base kernels (paper 001, eq. 8) turn every view into a kernel matrix on the training samples:

.. math::

    K_m(i, j) = \exp\!\big(-d_m^2(x_{i,m}, x_{j,m}) / \sigma_m^2\big),

with ``d_m`` the Euclidean (``'rbf'``), chi-squared (``'chi2'``) or any other distance
(``'distance'``), or the linear kernel, or a precomputed matrix. :class:`ViewKernel` then

1. repairs an indefinite matrix by clipping its negative eigenvalues (new samples are projected
   on the same positive eigenspace, so training rows are reproduced exactly);
2. centres it in feature space (the statistics of the training kernel are kept for new rows);
3. scales it so that its *centred* mean diagonal is 1 (``normalize='mean_diag'``: unit average
   feature-space variance) or its centred trace is 1 (``'trace'``), so that no view dominates a
   combination :math:`\sum_m \beta_m K_m` by scale alone.

:meth:`ViewKernel.fit_features` is the Nystroem counterpart of :meth:`ViewKernel.fit_kernel`:
landmark features :math:`\Phi` (``n x r``, ``r <=`` number of landmarks) with
:math:`\Phi\Phi^\top` the repaired, centred and normalised kernel of the same steps applied to
the landmark approximation, in ``O(n r)`` memory (used by ``MKLDR(approximation='nystroem')``).

Baselines of paper 001 (Table 1): :class:`KFD` (kernel Fisher discriminant of one view plus the
1-nearest-neighbour rule), :class:`KFDVoting` (vote of the per-view 1-NN decisions, ties broken by
the next neighbours) and :class:`KFDSAMME` (per-view KFD + 1-NN learners combined by multi-class
AdaBoost, SAMME).

MKL-DR: dimensionality reduction with multiple kernels (Lin, Liu and Chen; paper 001).

One base kernel :math:`\tilde K_m` per view (:class:`graphdr.multiview.ViewKernel`: centred and
scale-normalised) and the ensemble :math:`\tilde K_\beta = \sum_m \beta_m \tilde K_m`,
:math:`\beta \ge 0`. A sample :math:`x` maps to :math:`A^\top \tilde K(x)\beta` (eq. 29) and the
graph-embedding problem (eq. 17) becomes, with :math:`L`, :math:`L'` the Laplacians of the
intrinsic and penalty graphs,

.. math::

    \min_{A,\ \beta \ge 0}\ J(A, \beta) = \frac{\operatorname{tr}\big(A^\top (S_W^\beta
        + 2\epsilon_\beta \tilde K_\beta) A\big)}
        {\operatorname{tr}\big(A^\top (S_{W'}^\beta + 2\epsilon_\beta \tilde K_\beta) A\big)},
    \qquad S_W^\beta = 2 \tilde K_\beta L \tilde K_\beta,\
    S_{W'}^\beta = 2 \tilde K_\beta L' \tilde K_\beta,

with the ridge :math:`\epsilon_\beta = \text{reg}\cdot\operatorname{tr}(L'\tilde K_\beta)/(n-1)`
on both sides, as in every kernel solver of graphdr (:mod:`graphdr.blocks.solvers`;
``reg=0`` is the paper's problem, whose optimum collapses training classes to points so that
``J = 0`` for almost any ``beta``). Both sides are
homogeneous of degree 2 in :math:`\beta`, so only the direction of :math:`\beta` matters and
``kernel_weights_`` is normalised to sum 1.

Algorithm 1 alternates

* **A-step** (eq. 21): for fixed :math:`\beta`, kernel graph embedding on
  :math:`\tilde K_\beta`, solved in its empirical kernel map ``Z`` by
  :func:`graphdr.blocks.solvers.generalized_eigh`, or for LDA's class graphs by one Cholesky
  factorisation (:func:`graphdr.blocks.solvers.class_kernel_eigh`) (:func:`a_step`);
* **beta-step** (eq. 25): for fixed ``A``, the :math:`M \times M` matrices
  :math:`S^A_W[m, m'] = 2\operatorname{tr}(A^\top \tilde K_m L \tilde K_{m'} A)` (eqs. 23-24, no
  loop over pairs: :func:`beta_matrices`), plus the ridge's
  :math:`\beta^\top R \beta` on both, and the SDP relaxation of
  :math:`\min \beta^\top (S^A_W + R) \beta` s.t. :math:`\beta^\top (S^A_{W'} + R) \beta = 1`,
  :math:`\beta \ge 0` (:func:`beta_step`).

The relaxation is not tight, so :math:`J` may rise between iterations: it is evaluated exactly
at every iterate and the best pair :math:`(A, \beta)` is kept.

**Nystroem** (``approximation='nystroem'``): each base kernel is replaced by landmark features,
:math:`\tilde K_m \approx \Phi_m\Phi_m^\top` (:meth:`graphdr.multiview.ViewKernel.fit_features`),
so :math:`\tilde K_\beta = \Psi\Psi^\top` with :math:`\Psi = [\sqrt{\beta_m}\Phi_m]`
(``n x D``, :math:`D = \sum_m r_m`). ``A`` enters both steps only through
:math:`\Phi^\top A` (``D x P``), and :math:`\Phi^\top\Phi`, :math:`\Phi^\top L\Phi`,
:math:`\Phi^\top L'\Phi` are computed once (:class:`_LandmarkProblem`): the A-step is the same
problem in ``D`` dimensions (the Cholesky path becomes a ``D x D`` factorisation, the eigenvalue
path the eigendecomposition of :math:`\Psi^\top\Psi`), with the same dual ``A`` as the exact
path, and the beta-step matrices are traces of ``D``-dimensional blocks. No ``n x n`` matrix is
formed; with every sample as a landmark the fit is the exact one up to rounding.

Modules: :mod:`~graphdr.multiview.views` (view validation, base kernels, landmark features),
:mod:`~graphdr.multiview.kfd` (the KFD baselines), :mod:`~graphdr.multiview.digits` (the test
data set), :mod:`~graphdr.multiview.algebra` (the graph algebra: Laplacians against kernels,
scatters, the beta-step's matrices), :mod:`~graphdr.multiview.steps` (the A-step and the SDP
beta-step), :mod:`~graphdr.multiview.problems` (the exact and Nystroem problems),
:mod:`~graphdr.multiview.selection` (weight shrinkage and kernel widths from the data),
:mod:`~graphdr.multiview.dask_views` (Dask views) and :mod:`~graphdr.multiview.mkldr` (the
estimator).
"""

from .algebra import SDPSolverError, beta_matrices, kernel_scatter  # noqa: F401
from .dask_views import finish_landmark_features, lazy_landmark_features  # noqa: F401
from .digits import make_multiview_digits
from .kfd import KFD, KFDSAMME, KFDVoting
from .mkldr import MKLDR
from .problems import _LandmarkProblem  # noqa: F401
from .steps import a_step, beta_step
from .views import (  # noqa: F401
    ViewKernel,
    check_views,
    make_view_kernels,
)

__all__ = ["ViewKernel", "check_views", "make_view_kernels", "KFD", "KFDVoting", "KFDSAMME",
           "make_multiview_digits", "MKLDR", "SDPSolverError", "a_step", "beta_step",
           "beta_matrices", "kernel_scatter"]
