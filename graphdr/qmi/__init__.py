r"""Quadratic mutual information (QMI) between a projection and the class labels.

Torkkola's quadratic mutual information of an embedding :math:`Y = XW` (rows :math:`y_k`) and
labels with ``C`` classes of sizes :math:`J_1..J_C` (:math:`n = \sum_c J_c`) is, with Parzen
windows of width :math:`\sigma` (paper 002, eqs. 2 and 11-13),

.. math::

    I_T = V_{IN} + V_{ALL} - 2 V_{BTW}, \qquad
    V_\bullet = \sum_{k,l} \Omega^\bullet_{kl}\, G(y_k - y_l, 2\sigma^2 I),

with :math:`G(\cdot, 2\sigma^2 I)` the Gaussian density of covariance :math:`2\sigma^2 I` and the
class-structured weights

* :math:`\Omega^{IN}_{kl} = [c_k = c_l] / n^2` (interactions inside each class),
* :math:`\Omega^{ALL}_{kl} = s / n^2`, :math:`s = \sum_c (J_c/n)^2` (all pairs),
* :math:`\Omega^{BTW}_{kl} = (J_{c_k} + J_{c_l}) / (2 n^3)` (each class against all samples,
  symmetrised).

The combination :math:`M = \Omega^{IN} + \Omega^{ALL} - 2\Omega^{BTW}` is the QMI graph of paper
000 (its eq. 19, symmetrised): :math:`M = E B E^\top` with the ``n x C`` class indicator ``E`` and
:math:`B_{ab} = (\delta_{ab} + s - (J_a + J_b)/n) / n^2`. ``M`` has zero row sums and rank
``C - 1`` and is only ever handled through its ``C x C`` block (:func:`qmi_graph`).

This package offers

* :func:`qmi_potentials` -- the potentials and the criteria for a given embedding, computed in
  row blocks (memory ``O(block x n)``, never ``n x n``);
* :class:`LQMI` and :class:`KQMI` -- paper 000's closed-form linear (Algorithm 2) and kernel
  (Algorithm 1) QMI embeddings;
* :class:`QMIProjection` -- paper 002's gradient ascent of ``QMI``, ``MI_A = V_IN / V_ALL`` or
  ``MI_B = V_IN / V_BTW`` over orthonormal projections, built on the same potentials.

Modules: :mod:`graphdr.qmi.potentials` (the potentials, the criteria, the QMI graph),
:mod:`graphdr.qmi.closed_form` (LQMI, KQMI), :mod:`graphdr.qmi.ascent` (gradients with
respect to ``W``, retraction, starting points, the ascent loop) and
:mod:`graphdr.qmi.projection` (the QMIProjection estimator).
"""

from .ascent import _criterion_and_gradient, _qmi_objective_and_grad_W, _retract  # noqa: F401
from .closed_form import KQMI, LQMI
from .potentials import _potentials_sorted, qmi_graph, qmi_potential_blocks, qmi_potentials  # noqa: F401
from .projection import QMIProjection

__all__ = ["qmi_graph", "qmi_potential_blocks", "qmi_potentials", "LQMI", "KQMI", "QMIProjection"]
