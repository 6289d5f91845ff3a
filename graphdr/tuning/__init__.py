r"""Kernel width and ridge from the data: ``gamma='auto'`` and ``reg='auto'``.

The class-structured kernel estimators (:class:`graphdr.KernelLDA`, :class:`graphdr.KQMI`)
choose :math:`\gamma` (RBF :math:`k(x, x') = e^{-\gamma\lVert x - x'\rVert^2}`) and the relative
ridge ``reg`` by the exact leave-one-out error of kernel ridge regression of the class
indicators (:func:`loo_search`):

.. math::

    (\hat\gamma, \widehat{\text{reg}}) = \arg\min_{\gamma \in \Gamma,\ \text{reg} \in R}
    \frac1m \sum_{i=1}^m \Big\lVert \frac{r_i(\gamma, \text{reg})}{1 - h_{ii}(\gamma,
    \text{reg})} \Big\rVert^2 ,

the PRESS of the regression of the centred one-hot labels on the kernel features, with
residuals :math:`r_i` and leverages :math:`h_{ii}` of its hat matrix, over a stratified
subsample of at most ``m = 600`` rows (:data:`MAX_SAMPLES_LOO`). Kernel Fisher discriminant
analysis is this regression (optimal scoring: the coefficients span the regularised
discriminant subspace), and its leave-one-out residuals have a closed form (Cawley & Talbot,
*Efficient leave-one-out cross-validation of kernel Fisher discriminant classifiers*, Pattern
Recognition 36, 2003): one eigendecomposition of the centred kernel per width gives every
ridge value at ``O(m r C)`` (:func:`kernel_press_path`). No classifier is trained and nothing
is random. The grids are :math:`\Gamma = \gamma_0 \cdot 4^{\{-5, \dots, 1\}}` around the
median heuristic :math:`\gamma_0 = 1 / \operatorname{median}\lVert x_i - x_j\rVert^2` and
:math:`R = 10^{\{-6, -5.5, \dots, 2\}}`; the pairs within 0.1 % of the smallest criterion
count as equally good, and the largest ridge among them is chosen (then the width closest to
:math:`\gamma_0`). The small widths reach the linear limit: as
:math:`\gamma \to 0` the centred RBF kernel tends to :math:`2\gamma` times the centred linear
kernel, and the relative ridge to a shrinkage of the linear problem, so the search can return
(nearly) the regularised linear discriminant where the classes are linearly separated best and
a local kernel where they are not. How the choice compares with the nested cross-validation a
careful user would run, and what it costs: ``benchmarks/results/model_selection.md`` and
``model_selection_cost.md`` (``benchmarks/model_selection.py``).

The estimators refitted for every pair (supervised :class:`graphdr.KernelLPP`,
:class:`graphdr.CKFD`) and the cross-validation oracle of that benchmark use :func:`search`:
an inner stratified cross-validation of the error a user's classifier makes in the embedding,

.. math::

    e(\gamma, \rho) = \frac1F \sum_{f=1}^F \tfrac13\big(e_{1\text{-NN}}^{(f)}
    + e_{3\text{-NN}}^{(f)} + e_{\text{NC}}^{(f)}\big),

the mean over ``F = 3`` folds of the 1-nearest-neighbour, 3-nearest-neighbour and
nearest-centroid error rates of the held-out fold, embedded by the estimator fitted on the
other folds (in the estimator's ``scaling``); on the class-structured fast path it is averaged
with the two neighbouring ridge values of the grid (neighbouring ridges give nearly the same
embedding, but their fold errors are noisy). A test sample with several training samples at
the same (smallest) distance gets the majority class among them in the 1-NN error, so that
equivalent embeddings score the same. For class-structured objectives every ridge value reuses
one eigendecomposition per width and fold: with :math:`\tilde K = P\Lambda P^\top` and
:math:`M = \Lambda^{1/2} P^\top E`, the regularised problem
:math:`\max_w w^\top M B M^\top w / w^\top(\Lambda + \epsilon I) w` has the solutions
:math:`w = (\Lambda+\epsilon I)^{-1/2} u` with ``u`` the leading left singular vectors of
:math:`(\Lambda+\epsilon I)^{-1/2} M B^{1/2}` (``r x C``). The refitted estimators search
:math:`\Gamma = \gamma_0 \cdot 2^{\{-3, \dots, 3\}}`, :math:`R = 10^{\{-6, -4.5, \dots, 0\}}`
with the criterion :math:`\tfrac12(e_{1\text{-NN}} + e_{\text{NC}})`.

The class-structured linear estimators (:class:`graphdr.LDA`, :class:`graphdr.LQMI`) choose
their ridge by the same leave-one-out criterion on the data (:func:`press_ridge`).

Determinism. Subsamples and folds are chosen by a key of each row's content
(:mod:`graphdr.blocks.sampling`), not drawn at random: the choice is the same on every fit, on every
machine, whatever the row order and ``random_state``. For a ``dask.array`` ``X`` one pass
computes the row keys, then only the rows of the subsample are computed (the labels are in
memory), so the choice is the one the same data in memory would give.
Modules: :mod:`~graphdr.tuning.common` (the grids, parameter checks, the median heuristic, the
McNemar checkpoint rule), :mod:`~graphdr.tuning.loo` (the closed-form leave-one-out choices)
and :mod:`~graphdr.tuning.crossval` (the cross-validated search).
"""

from ..blocks.sampling import stratified_subsample  # noqa: F401  (re-exported for the tests)
from .common import (  # noqa: F401  (the names graphdr.tuning always had)
    GAMMA_FACTORS,
    GAMMA_FACTORS_REFIT,
    MAX_SAMPLES,
    MAX_SAMPLES_REFIT,
    N_FOLDS,
    N_FOLDS_REFIT,
    REG_GRID,
    REG_GRID_REFIT,
    WIDTH_KERNELS,
    check_auto,
    check_significance,
    choose_checkpoint,
    inverse_median,
    mcnemar_pvalue,
    median_gamma,
)
from .crossval import (  # noqa: F401
    classifier_errors,
    neighbour_errors,
    ridge_smoothed,
    search,
    search_kernels,
    search_rows,
)
from .loo import (  # noqa: F401  (_principal_coordinates: tests)
    MAX_SAMPLES_LOO,
    MAX_SAMPLES_PRESS,
    PLATEAU_RTOL,
    PRESS_BLOCK_ENTRIES,
    PRESS_GRID,
    SMOOTHING_GRID,
    _principal_coordinates,
    kernel_press_path,
    loo_search,
    press_curve,
    press_ridge,
    press_smoothing,
)

__all__ = ["GAMMA_FACTORS", "REG_GRID", "GAMMA_FACTORS_REFIT", "REG_GRID_REFIT", "WIDTH_KERNELS",
           "median_gamma", "inverse_median", "check_auto", "search", "search_kernels",
           "press_curve", "press_ridge", "PRESS_GRID", "classifier_errors",
           "choose_checkpoint", "check_significance", "loo_search", "kernel_press_path",
           "MAX_SAMPLES_LOO", "PLATEAU_RTOL", "press_smoothing", "SMOOTHING_GRID"]
