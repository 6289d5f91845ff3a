r"""Coordinate spaces: where a graph-embedding problem is solved, and how results map back.

Every spectral estimator of graphdr solves its eigenproblem in coordinates ``C`` of the training
samples chosen so that nothing singular is ever inverted, then maps the solution ``V`` (columns:
directions in those coordinates) back to what ``transform`` needs. A space is fitted on the
training data, gives quadratic forms :math:`C^\top Q C` of graphs, and turns ``V`` into fitted
attributes:

=====================  ===============================================  =========================
space                  coordinates ``C`` of the training samples        fitted attributes
=====================  ===============================================  =========================
:class:`LinearSpan`    :math:`(X - \mathbf 1 m^\top) B`, ``B`` an       ``components_ = (B V)^T``,
                       orthonormal basis of the span of the centred     ``mean_``
                       data (constant features, duplicate rows and
                       the ``n < D`` null space removed)
:class:`KernelMap`     :math:`Z = P \Lambda^{1/2}` with                 ``dual_coef_ =``
                       :math:`\tilde K = P \Lambda P^\top` the centred  :math:`P\Lambda^{-1/2}V`,
                       training kernel (exact kernel methods)           ``X_fit_``, ``embedding_``
:class:`NystroemMap`   the span of centred Nystroem landmark features   ``components_`` on the
                       :math:`\Phi` (:math:`\Phi\Phi^\top \approx K`)   features, ``mean_``,
                                                                        ``nystroem_``
=====================  ===============================================  =========================

A dual vector ``a`` and a direction ``v`` in :class:`KernelMap` coordinates are the same
solution, :math:`a = P\Lambda^{-1/2} v`; the ridge :math:`\epsilon\,a^\top\tilde K a` of a
regularised kernel problem is :math:`\epsilon\lVert v\rVert^2` there, so kernel and linear
problems go through the same solver (:func:`graphdr.blocks.solvers.generalized_eigh`).

Each space also embeds new samples (:meth:`embed`), from the estimator's fitted attributes,
so ``transform`` is one line for every estimator.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.kernel_approximation import Nystroem
from sklearn.utils.validation import assert_all_finite

from .._threads import map_threads
from .._validation import check_option
from ..blocks import graphs as _graphs
from ..blocks.kernel_matrices import (
    KERNEL_BLOCK_ENTRIES,
    TrainingCentring,
    check_kernel_params,
    compute_kernel,
    empirical_kernel_map,
    kernel_distances,
)
from ..blocks.sampling import landmark_indices, take_rows
from ..blocks.solvers import (
    data_subspace,
    embedding_signs,
    gram_subspace,
    orientation_signs,
    symmetrise_from_lower,
)
from ..blocks.stats import class_statistics, is_dask_array, raise_if_nonfinite

__all__ = ["LinearSpan", "KernelMap", "NystroemMap", "KernelSpec", "landmark_rows", "take_rows"]


#: ``approximation='auto'`` of the class-structured Cholesky route (KernelLDA, KQMI): the exact
#: kernel up to this many samples (one ``n x n`` matrix, factorised in place), Nystroem above
AUTO_EXACT_KERNEL_MAX = 20_000
#: ``approximation='auto'`` of the estimators whose exact fit needs a dense eigendecomposition
#: or several ``n x n`` matrices (KernelLPP, CKFD, ``solver='eigh'``, MKLDR, the KFD family):
#: ``O(n^3)`` with a large constant, e.g. KernelLPP at 5000 samples takes minutes and GBs
AUTO_EXACT_EIGEN_MAX = 3_000
#: ``approximation='auto'`` of a partially labelled fit (some ``y = -1``): its smoothness term
#: leaves the class-structured route for dense ``n x n`` eigendecompositions (and the choice of
#: its weight for more), so the exact kernel is kept up to this many samples only; above, the
#: Nystroem features make it cost about what the fully labelled fit costs
#: (``benchmarks/results/semi_timing.md``; its errors: ``benchmarks/results/semi.md``)
AUTO_EXACT_SEMI_MAX = 1_000


def resolve_approximation(approximation, n_samples, exact_only=False, cholesky_route=False,
                          partially_labelled=False):
    """None (exact kernel) or ``'nystroem'`` for ``approximation`` in {None, 'auto',
    'nystroem'}. ``'auto'`` keeps the exact kernel for at most :data:`AUTO_EXACT_KERNEL_MAX`
    samples on the class-structured ``cholesky_route``, :data:`AUTO_EXACT_SEMI_MAX` for a
    ``partially_labelled`` fit and :data:`AUTO_EXACT_EIGEN_MAX` otherwise, or when
    ``exact_only`` (a precomputed kernel, or a solver that needs the exact
    eigendecomposition); ``n_samples``: the training samples' number, None where it is
    unknown (a Dask array's), which takes Nystroem."""
    if approximation is None:
        return None
    check_option(approximation, "approximation", {"auto", "nystroem"})
    if approximation == "nystroem":
        return "nystroem"
    exact_max = AUTO_EXACT_KERNEL_MAX if cholesky_route else (
        AUTO_EXACT_SEMI_MAX if partially_labelled else AUTO_EXACT_EIGEN_MAX)
    small = n_samples is not None and n_samples <= exact_max
    return None if exact_only or small else "nystroem"


def _sym(M):
    return (M + M.T) / 2.0


class LinearSpan:
    r"""The span of the centred training data, :math:`C = (X - \mathbf 1 m^\top) B`.

    ``B`` (``D x r``) is an orthonormal basis of the directions of non-negligible variance
    (:func:`graphdr.blocks.solvers.data_subspace`): constant features get exactly zero weight and
    ``r <= min(n - 1, D)``. Built either from the samples (:meth:`fit`) or from one-pass class
    statistics (:meth:`from_statistics`), in which case class-graph forms come from the centred
    Gram matrix and class sums alone (:meth:`class_form`).
    """

    is_kernel = False
    #: the class statistics the space was built from (:meth:`from_statistics`), else None
    stats = None

    def __init__(self, rank_tol=None):
        self.rank_tol = rank_tol

    def fit(self, X, name="This estimator"):
        self._X = X
        self.mean = np.mean(X, axis=0, dtype=np.float64)
        self.basis, self.coords = data_subspace(X, self.mean, rank_tol=self.rank_tol)
        self._check_rank(name)
        return self

    @classmethod
    def from_statistics(cls, stats, rank_tol=None, name="This estimator"):
        """The span from :class:`graphdr.blocks.stats.ClassStatistics` (no pass over the samples)."""
        space = cls(rank_tol)
        G = stats.centered_gram()
        space.basis, variances = gram_subspace(G, stats.n, rank_tol=rank_tol,
                                               with_variances=True)
        space._check_rank(name)
        space.mean = stats.mean
        space.coords = None
        space._X = None
        # the basis is G's eigenbasis: G is diagonal in it (no D^3 product, and the
        # solvers take the diagonal fast path of graphdr.blocks.solvers.generalized_eigh)
        space.gram = np.diag(variances)
        space.class_sums = stats.centered_class_sums() @ space.basis
        space.stats = stats
        return space

    def _check_rank(self, name):
        if self.basis.shape[1] == 0:
            raise ValueError(
                f"{name} cannot project constant data: every feature has zero variance."
            )

    @property
    def rank(self):
        return self.basis.shape[1]

    def ridge_dims(self, n_samples):
        """Dimensions over which a relative ridge is averaged: the rank of the data."""
        return self.rank

    @staticmethod
    def graph_input(X):
        """Samples on which neighbour graphs are built: the input features."""
        return (X if sp.issparse(X) else np.asarray(X, dtype=np.float64)), "euclidean"

    def quadratic_form(self, graph, kind="laplacian"):
        r""":math:`C^\top Q C` for the Laplacian, degree or adjacency matrix ``Q`` of ``graph``."""
        if self.coords is not None:
            return _graphs.graph_quadratic_form(graph, self.coords, kind=kind)
        Q = _graphs.graph_quadratic_form(graph, self._X, kind=kind, mean=self.mean)
        return self.basis.T @ Q @ self.basis

    def class_form(self, degree, block):
        r"""Class-graph form :math:`d\,G - \tilde U^\top B\,\tilde U` (statistics only).

        A constant block :math:`B = c\,\mathbf 1 \mathbf 1^\top` (the total graph) adds
        :math:`c\, s s^\top` with :math:`s = \tilde U^\top \mathbf 1`, the sum of the centred
        class sums, which is zero: the form is then :math:`d\,G` exactly (rounding would
        leave a rank-one trace of size ``eps``)."""
        block = np.asarray(block, dtype=np.float64)
        if block.size == 0 or np.all(block == block.flat[0]):
            return degree * self.gram
        return degree * self.gram - self.class_sums.T @ block @ self.class_sums

    def training_embedding(self, V):
        """The centred training samples embedded by directions ``V`` (``n x k``)."""
        if self.coords is not None:
            return self.coords @ V
        return (np.asarray(self._X, dtype=np.float64) - self.mean) @ (self.basis @ V)

    def signs(self, V, y_encoded=None):
        """The sign convention (:func:`graphdr.blocks.solvers.orientation_signs`) of directions ``V``:
        from the embedded training samples, or from the class statistics (class means, the
        components' root-mean-square, then the weights ``B V``) when the space holds no
        samples."""
        if self.stats is None:
            return embedding_signs(self.training_embedding(V), y_encoded)
        counts = np.maximum(self.stats.counts.astype(np.float64), 1.0)
        means = (self.class_sums @ V) / counts[:, None]
        scale = np.sqrt(np.maximum(np.sum(V * (self.gram @ V), axis=0), 0.0) / self.stats.n)
        return orientation_signs(means, self.basis @ V, scale)

    def solution(self, V, dtype=np.float64):
        """Fitted attributes of directions ``V`` (``r x k``): ``components_`` and ``mean_``."""
        W = self.basis @ V
        return dict(components_=W.T.astype(dtype, copy=False),
                    mean_=self.mean.astype(dtype, copy=False))

    @staticmethod
    def embed(estimator, X):
        """``(X - mean_) @ components_.T`` (``X @ components_.T - mean_ @ components_.T`` for
        sparse ``X``, which is not densified)."""
        if sp.issparse(X):
            C = estimator.components_
            return np.asarray(X @ C.T) - estimator.mean_ @ C.T
        return (X - estimator.mean_) @ estimator.components_.T


#: Built-in kernels that see the data through ``gamma``: the kernel of ``X / s`` with
#: ``gamma * s**p`` is the kernel of ``X`` with ``gamma`` (``p`` the power below), so a fit may
#: divide extreme data by a power of two
#: (:func:`graphdr.graph_embedding.estimator._rescaled_input`).
GAMMA_POWER = {"rbf": 2, "poly": 2, "sigmoid": 2, "laplacian": 1, "chi2": 1}


def scales_with_gamma(estimator):
    """Whether ``estimator``'s kernel may see its data divided by a power of two (a built-in
    kernel of :data:`GAMMA_POWER` whose ``gamma`` is not set in ``kernel_params``)."""
    kernel = getattr(estimator, "kernel", None)
    params = getattr(estimator, "kernel_params", None) or {}
    return isinstance(kernel, str) and kernel in GAMMA_POWER and "gamma" not in params


def scaled_gamma(estimator, gamma, found=None):
    """A given ``gamma`` (None: ``1 / n_features``) as it applies to the training samples
    divided by their scale (clipped to ``[1e-300, 1e300]``: the kernel is then 1 everywhere,
    or the identity, to double precision); unchanged at scale 1. ``found``: the fit's
    ``_input_scale`` and ``n_features_in_`` as values (a fit in progress), else the fitted
    estimator's."""
    found = vars(estimator) if found is None else found
    scale = found.get("_input_scale", 1.0)
    if scale == 1.0 or not isinstance(gamma, numbers.Real | None) or not scales_with_gamma(
            estimator):
        return gamma
    n_features = found.get("n_features_in_", getattr(estimator, "n_features_in_", None))
    g = 1.0 / n_features if gamma is None else float(gamma)
    with np.errstate(over="ignore", under="ignore"):
        g = np.float64(g) * np.float64(scale) ** GAMMA_POWER[estimator.kernel]
    return float(np.clip(g, 1e-300, 1e300))


class KernelSpec:
    """The kernel function of an estimator (kernel, gamma, degree, coef0, kernel_params)."""

    def __init__(self, kernel, gamma=None, degree=3, coef0=1.0, kernel_params=None):
        self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
        self.kernel_params = kernel_params

    @classmethod
    def of(cls, estimator, chosen=None):
        """The kernel hyper-parameters of a kernel estimator, validated; ``chosen``: what its
        fit in progress chose and found (``gamma_``, ``_input_scale``, ...), else the fitted
        estimator's."""
        chosen = vars(estimator) if chosen is None else chosen
        gamma = estimator.gamma
        if isinstance(gamma, str) and gamma == "auto":  # chosen in fit (on the scaled data)
            gamma = chosen["gamma_"]
        else:
            gamma = scaled_gamma(estimator, gamma, chosen)
        spec = cls(estimator.kernel, gamma, estimator.degree, estimator.coef0,
                   estimator.kernel_params)
        check_kernel_params(spec.kernel, spec.gamma, spec.degree, spec.coef0, spec.kernel_params)
        return spec

    def __call__(self, X, Y=None):
        return compute_kernel(X, Y, kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                              coef0=self.coef0, kernel_params=self.kernel_params)

    def nystroem_params(self, n_features):
        """Keyword arguments of scikit-learn's kernel for :class:`NystroemMap`."""
        params = dict(self.kernel_params or {})
        if not callable(self.kernel) and self.kernel in ("rbf", "poly", "sigmoid", "laplacian",
                                                         "chi2"):
            params.setdefault("gamma", self.gamma if self.gamma is not None else 1.0 / n_features)
        if self.kernel == "poly":
            params.setdefault("degree", self.degree)
        if self.kernel in ("poly", "sigmoid"):
            params.setdefault("coef0", self.coef0)
        return params


class KernelMap:
    r"""Empirical kernel map of the centred training kernel, :math:`Z = P\Lambda^{1/2}`.

    :meth:`fit` computes the kernel ``K`` and its centred form :math:`\tilde K`; the
    eigendecomposition behind :attr:`coords` is computed only when a route asks for it (the
    class-structured Cholesky route, :func:`graphdr.graph_embedding.routes.solve_class_kernel`, does not).
    :meth:`from_centred_kernel` wraps a kernel that is already centred (MKL-DR's combined
    kernel).
    """

    is_kernel = True
    stats = None

    def __init__(self, kernel_spec, rank_tol=None):
        self.kernel_spec = kernel_spec
        self.rank_tol = rank_tol

    def fit(self, X, name="This estimator"):
        K = self.kernel_spec(X)
        precomputed = self.kernel_spec.kernel == "precomputed"
        if precomputed and K.shape[0] != K.shape[1]:
            raise ValueError(
                "With kernel='precomputed', fit expects the square training kernel matrix; "
                f"got shape {K.shape}."
            )
        self.X_fit = X
        self.K = K if precomputed else None  # the caller's matrix (graph_input), left intact
        if precomputed or callable(self.kernel_spec.kernel) or not K.flags.c_contiguous:
            K = np.array(K, dtype=np.float64, order="C")
        # centred in place (KernelCenterer's arithmetic): one n x n array
        self.centerer = TrainingCentring.centre_in_place(K)
        if not np.isfinite(self.centerer.K_fit_all_) and not np.all(np.isfinite(K)):
            raise ValueError("The kernel matrix contains NaN or infinite values.")
        self._K_centred = K
        self.owns_kernel = True
        self._saved_diagonal = None
        self._map = None
        return self

    @classmethod
    def from_centred_kernel(cls, K_centred, rank_tol=None):
        space = cls(None, rank_tol)
        space.K = space._K_centred = K_centred
        space.X_fit = space.centerer = space._saved_diagonal = None
        space.owns_kernel = False
        space._map = None
        return space

    @property
    def K_centred(self):
        r"""The centred training kernel :math:`\tilde K`.

        After :meth:`factorise_in_place` it is restored from its kept lower triangle and
        diagonal (so it is then exactly symmetric; the upper triangle equals the original one
        up to the rounding that keeps a centred kernel from being exactly symmetric)."""
        if self._saved_diagonal is not None:
            symmetrise_from_lower(self._K_centred, self._saved_diagonal)
            self._saved_diagonal = None
        return self._K_centred

    def factorise_in_place(self, solve):
        """``solve(K)`` on the space's own centred kernel, which ``solve`` may overwrite except
        for its strict lower triangle (:func:`graphdr.blocks.solvers.class_kernel_eigh` with
        ``overwrite_k=True``); :attr:`K_centred` restores the matrix when next asked for."""
        K = self.K_centred
        diagonal = K.diagonal().copy()
        out = solve(K)
        self._saved_diagonal = diagonal
        return out

    def _kernel_map(self):
        if self._map is None:
            self._map = empirical_kernel_map(self.K_centred, self.rank_tol)
        return self._map

    @property
    def coords(self):
        """``Z`` (``n x r``), :math:`ZZ^\top = \tilde K`."""
        return self._kernel_map()[0]

    @property
    def eigvecs(self):
        return self._kernel_map()[1]

    @property
    def eigvals(self):
        return self._kernel_map()[2]

    @property
    def rank(self):
        return self.coords.shape[1]

    def ridge_dims(self, n_samples):
        """A relative ridge is averaged over the ``n - 1`` dimensions of the centred kernel."""
        return n_samples - 1

    def graph_input(self, X):
        """Samples on which neighbour graphs are built: kernel-induced distances if precomputed."""
        if self.kernel_spec is not None and self.kernel_spec.kernel == "precomputed":
            return kernel_distances(self.K), "precomputed"
        return (X if sp.issparse(X) else np.asarray(X, dtype=np.float64)), "euclidean"

    def quadratic_form(self, graph, kind="laplacian"):
        return _graphs.graph_quadratic_form(graph, self.coords, kind=kind)

    def dual(self, V):
        r"""Dual coefficients :math:`a = P\Lambda^{-1/2} v` of directions ``V``."""
        return self.eigvecs @ (V / np.sqrt(self.eigvals)[:, None])

    def training_embedding(self, V=None, *, dual=None):
        """The training samples embedded by directions ``V`` or dual coefficients ``dual``."""
        return self.K_centred @ dual if dual is not None else self.coords @ V

    def signs(self, V=None, y_encoded=None, *, embedding=None):
        """The sign convention of directions ``V`` (or of the training ``embedding`` of dual
        coefficients): :func:`graphdr.blocks.solvers.embedding_signs`."""
        return embedding_signs(self.coords @ V if embedding is None else embedding, y_encoded)

    def solution(self, V=None, *, dual=None, dtype=None, embedding=None):
        """Fitted attributes of directions ``V`` (or of dual coefficients ``dual``, with their
        training ``embedding`` :math:`\tilde K a` when a route computed it)."""
        dual_coef = self.dual(V) if dual is None else dual
        embedding = self.K_centred @ dual_coef if embedding is None else embedding
        return dict(dual_coef_=dual_coef, X_fit_=self.X_fit, _centerer=self.centerer,
                    embedding_=embedding)

    @staticmethod
    def embed(estimator, X):
        """``K_c(X, X_fit_) @ dual_coef_`` with the training kernel's centring, by blocks of
        rows of ``X`` on the environment's threads (no ``n x n_train`` matrix at once)."""
        spec, dual = KernelSpec.of(estimator), estimator.dual_coef_
        n_fit = dual.shape[0]
        if spec.kernel == "precomputed" and X.shape[1] != n_fit:
            raise ValueError(
                f"The kernel between new and training samples must have {n_fit} columns (one "
                f"per training sample); got {X.shape[1]}."
            )
        out = np.empty((X.shape[0], dual.shape[1]))
        rows = max(1, KERNEL_BLOCK_ENTRIES // max(n_fit, 1))

        def piece(a):
            K = spec(X[a : a + rows], estimator.X_fit_)
            out[a : a + rows] = estimator._centerer.transform(K) @ dual

        map_threads(piece, range(0, X.shape[0], rows))
        return out.astype(X.dtype, copy=False)


def landmark_rows(X, n_landmarks, random_state=None, keys=None):
    """Indices and rows of ``min(n_landmarks, n)`` landmarks of ``X``.

    The indices are :func:`graphdr.blocks.sampling.landmark_indices`: with ``random_state=None`` the
    rows of smallest content key (the same on every fit, whatever the row order), with a seed
    ``check_random_state(random_state).permutation(n)[:m]``, the draw of scikit-learn's
    ``Nystroem`` and of :class:`graphdr.MKLDR`. A NumPy and a Dask ``X`` give the same
    landmarks. Of a ``dask.array`` only these ``m`` rows are computed (:func:`take_rows`).
    ``keys``: the rows' content keys, when already computed.
    """
    idx = landmark_indices(X, n_landmarks, random_state, keys=keys)
    return idx, take_rows(X, idx)


def _nystroem_on(kernel, params, landmarks, indices, random_state):
    """scikit-learn's ``Nystroem`` fitted on exactly these landmark rows, in this order.

    ``Nystroem.fit`` draws its own landmarks; given the rows placed so that its draw (seed 0)
    puts them back in order, it computes the same normalisation as a fit on the full data
    whose draw chose them.
    """
    m = landmarks.shape[0]
    placed = np.empty_like(landmarks)
    placed[np.random.RandomState(0).permutation(m)] = landmarks
    nystroem = Nystroem(kernel=kernel, n_components=m, random_state=0,
                        kernel_params=params or None).fit(placed)
    nystroem.component_indices_ = np.asarray(indices)
    return nystroem.set_params(random_state=random_state)


def _landmark_features(Xb, nystroem):
    """Nystroem features of one chunk (float64); NaN/inf in the chunk raise ``ValueError``."""
    Xb = np.asarray(Xb)
    assert_all_finite(Xb, input_name="X")
    return nystroem.transform(Xb).astype(np.float64, copy=False)


class NystroemMap:
    r"""Centred Nystroem landmark features :math:`\Phi` (``n x m``), reduced to their span.

    :math:`\Phi\Phi^\top \approx K` with ``m = n_landmarks`` landmarks (scikit-learn's
    ``Nystroem``): memory ``O(n m)``, time ``O(n m^2)``. The problem is then a linear one on
    :math:`\Phi` (:class:`LinearSpan` of the features), whose ridge is averaged over ``n - 1``
    dimensions as for the exact kernel.

    A ``dask.array`` ``X`` (with encoded labels) is never materialised: only the landmark rows
    are computed (:func:`landmark_rows`, the same rows as for NumPy input with the same
    ``random_state``), the features of each chunk are computed by ``map_blocks`` and reduced
    at once to class statistics (:func:`graphdr.blocks.stats.class_statistics`: counts, class sums and
    centred Gram matrix of :math:`\Phi`, ``m x m``). The space then holds no coordinates, only
    the class forms :math:`d\,G - \tilde U^\top B \tilde U` (:meth:`class_form`), which is
    what class-structured problems (kernel LDA, kernel QMI) need.
    """

    is_kernel = True
    #: class statistics of the features (Dask input), else None
    stats = None

    def __init__(self, kernel_spec, n_landmarks, random_state=None, rank_tol=None):
        self.kernel_spec = kernel_spec
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.rank_tol = rank_tol

    def fit(self, X, y_encoded=None, name="This estimator", keys=None):
        spec = self.kernel_spec
        params = spec.nystroem_params(X.shape[1])
        if is_dask_array(X):
            return self._fit_dask(X, y_encoded, params)
        if self.random_state is None:  # landmarks by content key: the same on every fit
            indices, landmarks = landmark_rows(X, self.n_landmarks, keys=keys)
            self.nystroem = _nystroem_on(spec.kernel, params, landmarks, indices, None)
        else:
            self.nystroem = Nystroem(
                kernel=spec.kernel, n_components=min(self.n_landmarks, X.shape[0]),
                random_state=self.random_state, kernel_params=params or None,
            ).fit(X)
        Phi = self.nystroem.transform(X).astype(np.float64, copy=False)
        self.mean = Phi.mean(axis=0)
        self.basis, coords = data_subspace(Phi, self.mean, rank_tol=self.rank_tol)
        self.coords = (Phi - self.mean) @ self.basis if coords is None else coords
        return self

    def _fit_dask(self, X, y_encoded, params):
        """Landmarks, then the class statistics of the lazy features in one pass."""
        if y_encoded is None:
            raise ValueError("The Nystroem approximation on a dask array needs class labels y.")
        indices, landmarks = landmark_rows(X, self.n_landmarks, self.random_state)
        assert_all_finite(landmarks, input_name="X")
        self.nystroem = _nystroem_on(self.kernel_spec.kernel, params, landmarks, indices,
                                     self.random_state)
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        Phi = X.map_blocks(_landmark_features, self.nystroem, dtype=np.float64,
                           chunks=(X.chunks[0], (landmarks.shape[0],)))
        stats = class_statistics(Phi, y_encoded, n_classes=int(np.max(y_encoded)) + 1)
        raise_if_nonfinite(stats)
        G = stats.centered_gram()
        self.basis = gram_subspace(G, stats.n, rank_tol=self.rank_tol)
        self.mean = stats.mean
        self.gram = _sym(self.basis.T @ G @ self.basis)
        self.class_sums = stats.centered_class_sums() @ self.basis
        self.coords = None
        self.stats = stats
        return self

    @property
    def rank(self):
        return self.basis.shape[1]

    def ridge_dims(self, n_samples):
        return n_samples - 1

    graph_input = staticmethod(LinearSpan.graph_input)
    class_form = LinearSpan.class_form
    signs = LinearSpan.signs

    def quadratic_form(self, graph, kind="laplacian"):
        return _graphs.graph_quadratic_form(graph, self.coords, kind=kind)

    def training_embedding(self, V):
        return self.coords @ V

    def solution(self, V, dtype=None):
        """``components_`` on the landmark features, ``mean_``, ``nystroem_``, ``embedding_``
        (not for Dask input: ``transform(X)`` gives it lazily)."""
        fitted = dict(nystroem_=self.nystroem, components_=(self.basis @ V).T, mean_=self.mean)
        if self.coords is not None:
            fitted["embedding_"] = self.coords @ V
        return fitted

    @staticmethod
    def embed(estimator, X):
        Phi = estimator.nystroem_.transform(X)
        return ((Phi - estimator.mean_) @ estimator.components_.T).astype(X.dtype, copy=False)
