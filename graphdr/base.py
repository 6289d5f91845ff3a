r"""The generic graph-embedding estimator and the machinery every spectral estimator shares.

Graph embedding (Yan et al., 2007; paper 000, section II-A) finds the projection ``V`` that keeps
samples joined in an *intrinsic* graph ``W`` close while keeping samples joined in a *penalty*
graph ``W^p`` apart:

.. math::

    \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
    V^\top \big(X^\top L(W^p) X + \epsilon I\big) V = I .

In the kernel form ``X`` is replaced by the empirical kernel map ``Z`` of the centred kernel
(:mod:`graphdr.kernel_matrices`), which is the dual problem
:math:`(K L K + \epsilon K) a = \lambda (K L^p K + \epsilon K) a`.

Data flow of :meth:`_BaseGraphEmbedding.fit`:

1. validate ``X`` and ``y`` (:func:`sklearn.utils.validation.validate_data`, labels of any type);
2. coordinates: the span of the centred data (linear) or the empirical kernel map (kernel);
3. graphs from :mod:`graphdr.graphs` (class graphs stay ``C x C``, kNN graphs are sparse);
4. their quadratic forms in those coordinates, then :func:`graphdr.solvers.generalized_eigh`;
5. components mapped back to features (``components_``) or to dual coefficients
   (``dual_coef_``), with deterministic signs.

Class-structured linear methods (LDA, LQMI, :class:`GraphEmbedding` with class graphs) take a
shorter route (:meth:`_BaseGraphEmbedding._fit_from_statistics`): one pass over ``X`` collects
the class counts, class sums and centred Gram matrix (:func:`graphdr.stats.class_statistics`)
and every quadratic form is ``d G_c - U^T B U`` with the centred class sums ``U``. This is also
the route of a ``dask.array`` input, which is then never materialised (see :meth:`fit`).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.kernel_approximation import Nystroem
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.validation import assert_all_finite, check_is_fitted, validate_data

from . import graphs as _graphs
from ._validation import check_int, check_labels, check_n_components, check_option, check_positive
from .kernel_matrices import check_kernel_params, compute_kernel, empirical_kernel_map
from .solvers import class_kernel_eigh, data_subspace, flip_signs, generalized_eigh, gram_subspace
from .stats import check_class_counts, class_statistics, is_dask_array, raise_if_nonfinite

__all__ = ["GraphEmbedding"]

_DTYPES = [np.float64, np.float32]


class _BaseGraphEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared fit/transform of linear and kernel graph embedding. Not public."""

    #: smallest class size the method accepts
    _min_per_class = 1

    # ----- what subclasses define ------------------------------------------------------
    def _uses_labels(self):
        return True

    def _is_kernel(self):
        return getattr(self, "kernel", None) is not None

    def _resolved_reg(self):
        reg = getattr(self, "reg", 0.0)
        if reg is None:
            return 1e-3 if self._is_kernel() else 0.0
        return check_positive(reg, "reg", allow_zero=True)

    def _check_params(self):
        """Validate hyper-parameters (called at the start of fit)."""

    def _build_graphs(self, X_graph, y_enc, metric):
        """Return (intrinsic graph, penalty graph or 'degree' or 'identity')."""
        raise NotImplementedError

    def _max_components(self, n_available, n_classes):
        """Return (largest meaningful n_components, reason)."""
        return n_available, "the rank of the penalty/constraint matrix"

    def _class_forms(self, class_sizes):
        """Class-structured linear problem, or None.

        A subclass whose (linear) problem uses only class graphs returns
        ``dict(A=(d_A, B_A), B=(d_B, B_B) or 'identity', largest=bool)``: each form is
        ``d * G_c - U^T B U`` in centred coordinates (``G_c`` the centred Gram matrix, ``U``
        the centred class sums, ``B`` a ``C x C`` block, ``d`` the constant degree of the
        class graph). Then the whole fit needs only :func:`graphdr.stats.class_statistics`.
        """
        return None

    def _has_class_forms(self, y):
        return (
            y is not None
            and not self._is_kernel()
            and type(self)._class_forms is not _BaseGraphEmbedding._class_forms
        )

    # ----- fit ---------------------------------------------------------------------------
    def _validate_input(self, X, y):
        name = type(self).__name__
        if self._uses_labels() or y is not None:
            X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
            self.classes_, y_enc, _ = check_labels(
                y,
                min_classes=2 if self._uses_labels() else 1,
                min_per_class=self._min_per_class if self._uses_labels() else 1,
                method=name,
            )
            return X, y_enc
        X = validate_data(self, X, dtype=_DTYPES, ensure_min_samples=2)
        return X, None

    def _approximation(self):
        """None (exact kernel) or 'nystroem', validated."""
        approximation = getattr(self, "approximation", None)
        if approximation is None:
            return None
        check_option(approximation, "approximation", {"nystroem"})
        check_int(self.n_landmarks, "n_landmarks", min_value=2)
        if self.kernel == "precomputed":
            raise ValueError(
                "approximation='nystroem' needs the kernel function, not kernel='precomputed'."
            )
        return approximation

    def _nystroem_coordinates(self, X):
        """Landmark features Phi (Phi Phi^T ~ K), centred and reduced to their span."""
        params = dict(self.kernel_params or {})
        if not callable(self.kernel) and self.kernel in ("rbf", "poly", "sigmoid", "laplacian", "chi2"):
            params.setdefault("gamma", self.gamma if self.gamma is not None else 1.0 / X.shape[1])
        if self.kernel == "poly":
            params.setdefault("degree", self.degree)
        if self.kernel in ("poly", "sigmoid"):
            params.setdefault("coef0", self.coef0)
        nystroem = Nystroem(
            kernel=self.kernel, n_components=min(self.n_landmarks, X.shape[0]),
            random_state=self.random_state, kernel_params=params or None,
        ).fit(X)
        Phi = nystroem.transform(X).astype(np.float64, copy=False)
        mean = Phi.mean(axis=0)
        basis, coords = data_subspace(Phi, mean, rank_tol=self.rank_tol)
        if coords is None:
            coords = (Phi - mean) @ basis
        return dict(coords=coords, basis=basis, mean=mean, nystroem=nystroem)

    def _coordinates(self, X):
        """Coordinates in which the problem is solved, and what maps back from them."""
        if self._is_kernel():
            check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0)
            if self._approximation() == "nystroem":
                return self._nystroem_coordinates(X)
            K, Kc = self._centred_training_kernel(X)
            Z, P, lam = empirical_kernel_map(Kc, self.rank_tol)
            return dict(coords=Z, eigvecs=P, eigvals=lam, K=K)
        mean = np.mean(X, axis=0, dtype=np.float64)
        basis, coords = data_subspace(X, mean, rank_tol=self.rank_tol)
        if basis.shape[1] == 0:
            raise ValueError(
                f"{type(self).__name__} cannot project constant data: every feature has zero "
                "variance."
            )
        return dict(mean=mean, basis=basis, coords=coords)

    def _centred_training_kernel(self, X):
        """Training kernel ``K`` (checked: square, finite) and its centred form; fits the centerer."""
        K = self._kernel(X)
        if self.kernel == "precomputed" and K.shape[0] != K.shape[1]:
            raise ValueError(
                "With kernel='precomputed', fit expects the square training kernel matrix; "
                f"got shape {K.shape}."
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("The kernel matrix contains NaN or infinite values.")
        self._centerer = KernelCenterer().fit(K)
        return K, self._centerer.transform(K)

    def _kernel(self, X, Y=None):
        return compute_kernel(
            X, Y, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0,
            kernel_params=self.kernel_params,
        )

    def _graph_input(self, X, space):
        """Samples (or a distance matrix) on which neighbour graphs are built."""
        if self._is_kernel() and self.kernel == "precomputed":
            K = space["K"]
            d = np.diag(K)
            return np.sqrt(np.maximum(d[:, None] + d[None, :] - 2 * K, 0.0)), "precomputed"
        return np.asarray(X, dtype=np.float64), "euclidean"

    def _quadratic_form(self, graph, X, space, kind="laplacian"):
        if space.get("coords") is not None:
            return _graphs.graph_quadratic_form(graph, space["coords"], kind=kind)
        basis = space["basis"]
        Q = _graphs.graph_quadratic_form(graph, X, kind=kind, mean=space["mean"])
        return basis.T @ Q @ basis

    def _solve(self, X, y_enc, space):
        X_graph, metric = self._graph_input(X, space)
        intrinsic, penalty = self._build_graphs(X_graph, y_enc, metric)
        A = self._quadratic_form(intrinsic, X, space)
        if isinstance(penalty, str) and penalty == "degree":
            B = self._quadratic_form(intrinsic, X, space, kind="degree")
        elif isinstance(penalty, str) and penalty == "identity":
            rank = (space["coords"] if space.get("coords") is not None else space["basis"]).shape[1]
            B = np.eye(rank)
        else:
            B = self._quadratic_form(penalty, X, space)
        return generalized_eigh(A, B, ridge=self._ridge(B, X.shape[0]), rank_tol=self.rank_tol)

    def _ridge(self, B, n_samples):
        """Absolute ridge: ``reg`` times the mean eigenvalue of the constraint matrix ``B``.

        The mean is over the dimensions of the space the problem lives in: the rank of the data
        (linear) or the ``n - 1`` dimensions of the centred kernel's feature span (kernel, exact
        or approximated), so the exact solvers and the class-structured fast path agree.
        """
        reg = self._resolved_reg()
        dims = n_samples - 1 if self._is_kernel() else B.shape[0]
        return reg * max(np.trace(B), 0.0) / max(dims, 1)

    # ----- class-structured linear path: sufficient statistics only ------------------
    def _label_requirements(self):
        labels = self._uses_labels()
        return dict(
            min_classes=2 if labels else 1,
            min_per_class=self._min_per_class if labels else 1,
            method=type(self).__name__,
        )

    def _statistics(self, X, y):
        """Validate the input and collect the class statistics in one pass over ``X``."""
        name = type(self).__name__
        if is_dask_array(X):
            # never materialised: dimensions now, NaN/inf and labels in the statistics pass
            if X.ndim != 2:
                raise ValueError(
                    f"Expected a 2-D array (n_samples, n_features); got a {X.ndim}-D dask array."
                )
            if X.dtype.kind not in "fiub":
                raise ValueError(f"{name} expects numeric X; got a dask array of dtype {X.dtype}.")
            n, D = X.shape
            if n < 2:
                raise ValueError(
                    f"Found array with {n} sample(s) (shape={X.shape}) while a minimum of 2 is "
                    "required."
                )
            if D < 1:
                raise ValueError(
                    f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                    "required."
                )
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            self.n_features_in_ = int(D)
            stats = class_statistics(X, y)
            raise_if_nonfinite(stats)
            check_class_counts(stats.classes, stats.counts, **self._label_requirements())
            self.classes_ = stats.classes
            dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
            return stats, dtype, None, None
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2,
                             ensure_all_finite=False)
        self.classes_, y_enc, _ = check_labels(y, **self._label_requirements())
        if X.shape[1] > X.shape[0]:
            # more features than samples: the SVD route of data_subspace is more accurate
            assert_all_finite(X, input_name="X")
            return None, X.dtype, X, y_enc
        stats = class_statistics(X, y_enc, n_classes=len(self.classes_))
        raise_if_nonfinite(stats)
        return stats, X.dtype, None, None

    def _fit_from_statistics(self, stats, dtype):
        """Solve a class-structured linear problem from :class:`graphdr.stats.ClassStatistics`."""
        G = stats.centered_gram()
        basis = gram_subspace(G, stats.n, rank_tol=self.rank_tol)
        if basis.shape[1] == 0:
            raise ValueError(
                f"{type(self).__name__} cannot project constant data: every feature has zero "
                "variance."
            )
        Gb = _sym_np(basis.T @ G @ basis)
        U = stats.centered_class_sums() @ basis
        forms = self._class_forms(stats.counts.astype(np.float64))

        def form(spec):
            if isinstance(spec, str):  # 'identity'
                return np.eye(basis.shape[1])
            degree, block = spec
            return degree * Gb - U.T @ block @ U

        A, B = form(forms["A"]), form(forms["B"])
        eigenvalues, V = generalized_eigh(
            A, B, largest=forms.get("largest", False), ridge=self._ridge(B, stats.n),
            rank_tol=self.rank_tol,
        )
        max_components, reason = self._max_components(V.shape[1], len(self.classes_))
        n_components = check_n_components(self.n_components, max_components, reason=reason)
        self.eigenvalues_ = eigenvalues[:n_components]
        self.n_components_ = n_components
        W = basis @ V[:, :n_components]
        self.components_ = flip_signs(W, axis=0).T.astype(dtype, copy=False)
        self.mean_ = stats.mean.astype(dtype, copy=False)

    # ----- class-structured kernel fast path ------------------------------------------
    def _class_objective_block(self, n_classes, class_sizes):
        """C x C block of a class-structured objective to maximise over ``S_t + eps``, or None."""
        return None

    def _use_class_kernel_path(self):
        solver = getattr(self, "solver", "eigh")
        check_option(solver, "solver", {"auto", "eigh", "cholesky"})
        if not self._is_kernel() or self._approximation() is not None or solver == "eigh":
            return False
        reg = self._resolved_reg()
        if reg == 0.0 and solver == "cholesky":
            raise ValueError("solver='cholesky' needs reg > 0; use solver='eigh' for reg=0.")
        # the factorised matrix has condition number ~ n / reg: 'auto' keeps it well below 1/eps
        return solver == "cholesky" or reg >= 1e-6

    def _fit_class_kernel(self, X, y_enc):
        """Solve with :func:`graphdr.solvers.class_kernel_eigh`; no eigendecomposition of K."""
        check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0)
        K, Kc = self._centred_training_kernel(X)
        sizes = np.bincount(y_enc, minlength=len(self.classes_))
        block = self._class_objective_block(len(sizes), sizes)
        ridge = self._resolved_reg() * np.trace(Kc) / max(K.shape[0] - 1, 1)
        if not ridge > 0:  # a non-positive trace: no PSD kernel
            raise np.linalg.LinAlgError("the centred kernel has a non-positive trace")
        ratios, dual = class_kernel_eigh(Kc, y_enc, block, ridge)
        max_components, reason = self._max_components(len(ratios), len(sizes))
        n_components = check_n_components(self.n_components, max_components, reason=reason)
        self.eigenvalues_ = self._eigenvalues_from_ratios(ratios[:n_components])
        self.n_components_ = n_components
        self.dual_coef_ = flip_signs(dual[:, :n_components], axis=0)
        self.X_fit_ = X
        self.embedding_ = Kc @ self.dual_coef_

    def _eigenvalues_from_ratios(self, ratios):
        """Map the fast path's maximised ratios to the min-form eigenvalues of ``eigenvalues_``."""
        return 1.0 - ratios

    def fit(self, X, y=None):
        """Fit the projection on training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (the training kernel matrix when ``kernel='precomputed'``).
        y : array-like of shape (n_samples,)
            Class labels of any type (integers, strings, ...). Unsupervised settings ignore it.

        Returns
        -------
        self : object

        Notes
        -----
        Class-structured linear methods read ``X`` once (class counts, class sums and the
        centred Gram matrix, :func:`graphdr.stats.class_statistics`) and accept a
        ``dask.array.Array`` for ``X`` (and ``y``): its statistics are computed chunk by chunk
        on the active Dask scheduler or ``distributed`` cluster and the array is never
        materialised (NaN/inf are detected in the same pass).
        """
        self._check_params()
        if self._has_class_forms(y):
            stats, dtype, X, y_enc = self._statistics(X, y)
            if stats is not None:
                self._fit_from_statistics(stats, dtype)
                return self
        elif is_dask_array(X):
            X = X.compute()  # methods without class structure need the samples in memory
            X, y_enc = self._validate_input(X, None if y is None else np.asarray(y))
        else:
            X, y_enc = self._validate_input(X, y)
        if self._use_class_kernel_path():
            try:
                self._fit_class_kernel(X, y_enc)
                return self
            except np.linalg.LinAlgError:
                warnings.warn(
                    "The centred kernel plus ridge is not positive definite (the kernel is not "
                    "positive semi-definite); falling back to solver='eigh', which drops the "
                    "kernel's negative eigenvalues.",
                    RuntimeWarning,
                    stacklevel=2,
                )
        space = self._coordinates(X)
        eigenvalues, V = self._solve(X, y_enc, space)
        n_classes = len(self.classes_) if y_enc is not None else 1
        max_components, reason = self._max_components(V.shape[1], n_classes)
        n_components = check_n_components(self.n_components, max_components, reason=reason)
        self._store(X, space, eigenvalues[:n_components], V[:, :n_components])
        return self

    def _store(self, X, space, eigenvalues, V):
        self.eigenvalues_ = eigenvalues
        self.n_components_ = V.shape[1]
        if "nystroem" in space:
            W = space["basis"] @ V
            W_flipped = flip_signs(W, axis=0)
            signs = np.where(np.sum(W_flipped * W, axis=0) < 0, -1.0, 1.0)
            self.nystroem_ = space["nystroem"]
            self.components_ = W_flipped.T
            self.mean_ = space["mean"]
            self.embedding_ = space["coords"] @ (V * signs)
        elif self._is_kernel():
            dual = space["eigvecs"] @ (V / np.sqrt(space["eigvals"])[:, None])
            self.dual_coef_ = flip_signs(dual, axis=0)
            self.X_fit_ = X
            self.embedding_ = self._centerer.transform(space["K"]) @ self.dual_coef_
        else:
            W = space["basis"] @ V
            self.components_ = flip_signs(W, axis=0).T.astype(X.dtype, copy=False)
            self.mean_ = space["mean"].astype(X.dtype, copy=False)

    # ----- transform ---------------------------------------------------------------------
    def transform(self, X):
        """Project samples onto the learned components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New samples (kernel between new and training samples, of shape
            ``(n_samples, n_train)``, when ``kernel='precomputed'``).

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
            A lazy ``dask.array.Array`` (same row chunks, computed by ``map_blocks``) when
            ``X`` is a Dask array.
        """
        check_is_fitted(self)
        if is_dask_array(X):
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1] if X.ndim == 2 else X.shape} features, but "
                    f"{type(self).__name__} is expecting {self.n_features_in_} features as input."
                )
            if len(X.chunks[1]) > 1:
                X = X.rechunk({1: -1})
            out_dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
            return X.map_blocks(
                self._transform_array, chunks=(X.chunks[0], (self.n_components_,)),
                dtype=out_dtype,
            )
        return self._transform_array(X)

    def _transform_array(self, X):
        X = validate_data(self, X, reset=False, dtype=_DTYPES)
        if hasattr(self, "nystroem_"):
            Phi = self.nystroem_.transform(X)
            return ((Phi - self.mean_) @ self.components_.T).astype(X.dtype, copy=False)
        if self._is_kernel():
            K = self._kernel(X, self.X_fit_)
            if K.shape[1] != self.dual_coef_.shape[0]:
                raise ValueError(
                    f"The kernel between new and training samples must have "
                    f"{self.dual_coef_.shape[0]} columns (one per training sample); got {K.shape[1]}."
                )
            return (self._centerer.transform(K) @ self.dual_coef_).astype(X.dtype, copy=False)
        return (X - self.mean_) @ self.components_.T

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._uses_labels()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = getattr(self, "kernel", None) == "precomputed"
        return tags


def _sym_np(M):
    return (M + M.T) / 2.0


class _LinearProjection(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared ``transform`` of supervised linear projections fitted by their own algorithm.

    Subclasses set ``components_`` (n_components x n_features), ``mean_`` and ``n_components_``
    in ``fit``; ``transform(X) = (X - mean_) @ components_.T``.
    """

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


_LABEL_GRAPHS = {"within_class", "between_class", "supervised_knn", "inter_class_knn"}
_CLASS_GRAPHS = {"within_class", "between_class", "total"}


def class_graph_block(name, class_sizes):
    """(constant degree, C x C block) of a named class graph for class sizes ``J``."""
    J = np.asarray(class_sizes, dtype=np.float64)
    n, C = J.sum(), J.shape[0]
    if name == "within_class":
        return 1.0, np.diag(1.0 / J)
    if name == "total":
        return 1.0, np.full((C, C), 1.0 / n)
    return 0.0, np.full((C, C), 1.0 / n) - np.diag(1.0 / J)  # between_class
_GRAPH_NAMES = _LABEL_GRAPHS | {"total", "knn"}


class GraphEmbedding(_BaseGraphEmbedding):
    r"""Generic (kernel) graph embedding with any intrinsic and penalty graph.

    .. math::

        \min_V \operatorname{tr}\big(V^\top (X^\top L(W) X + \epsilon I) V\big) \quad\text{s.t.}\quad
        V^\top \big(X^\top Q X + \epsilon I\big) V = I ,

    where ``W`` is the intrinsic graph, ``Q`` the Laplacian of the penalty graph, the degree
    matrix of ``W`` (``penalty='degree'``, LPP's constraint) or the identity
    (``penalty='identity'``, i.e. ``V^T V = I``). With a ``kernel`` the problem is solved in the
    empirical kernel map of the centred kernel matrix (dual form
    :math:`(K L K + \epsilon K) a = \lambda (K Q K + \epsilon K) a`). The ridge on both sides
    makes :math:`\epsilon` penalise directions of small variance (see :mod:`graphdr.solvers`).

    Parameters
    ----------
    n_components : int or None, default=None
        Dimension of the embedding. None takes all directions the penalty matrix allows; a larger
        number raises a ``ValueError`` naming the maximum.
    intrinsic : str, callable, array or sparse matrix, default='knn'
        The graph whose joined samples are kept close. A name: ``'knn'``, ``'supervised_knn'``
        (neighbours of the same class), ``'inter_class_knn'`` (neighbours of other classes),
        ``'within_class'`` (LDA), ``'between_class'``, ``'total'``; a callable
        ``graph(X, y_encoded) -> W``; or a fixed ``n x n`` weight matrix (dense, sparse or
        :class:`graphdr.graphs.ClassGraph`) for the training samples.
    penalty : str, callable, array or sparse matrix, default='degree'
        The constraint graph, given like ``intrinsic``, or ``'degree'`` or ``'identity'``.
    kernel : None or {'rbf', 'linear', 'poly', 'sigmoid', 'precomputed', ...} or callable
        None for the linear method; otherwise the kernel of the kernel method.
    n_neighbors : int, default=5
        Neighbours of the kNN graphs.
    weights : {'heat', 'binary'}, default='heat'
        Edge weights of kNN graphs.
    sigma : float or None, default=None
        Heat-kernel width of kNN graphs (None: data-driven, see :func:`graphdr.graphs.knn_graph`).
    reg : float or None, default=None
        Ridge :math:`\epsilon` relative to the mean eigenvalue of the constraint matrix.
        None means 0 for the linear method and 1e-3 with a kernel.
    gamma, degree, coef0, kernel_params
        Kernel parameters (see :func:`graphdr.kernel_matrices.compute_kernel`).
    rank_tol : float or None, default=None
        Relative tolerance below which data variance and constraint eigenvalues count as zero.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Projection directions (linear method). ``transform(X) = (X - mean_) @ components_.T``.
    mean_ : ndarray of shape (n_features,)
    dual_coef_ : ndarray of shape (n_samples_fit, n_components_)
        Dual coefficients (kernel method): ``transform(X) = K_c(X, X_fit_) @ dual_coef_``.
    X_fit_ : ndarray
        Training data kept for the kernel of new samples (kernel method).
    embedding_ : ndarray of shape (n_samples_fit, n_components_)
        Training embedding (kernel method).
    eigenvalues_ : ndarray of shape (n_components_,)
        Values of the ratio ``v^T A v / v^T B v`` of each component, increasing.
    n_components_ : int
    classes_ : ndarray
        Class labels seen in ``fit`` (when ``y`` was given).
    """

    def __init__(
        self,
        n_components=None,
        *,
        intrinsic="knn",
        penalty="degree",
        kernel=None,
        n_neighbors=5,
        weights="heat",
        sigma=None,
        reg=None,
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        rank_tol=None,
    ):
        self.n_components = n_components
        self.intrinsic = intrinsic
        self.penalty = penalty
        self.kernel = kernel
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.reg = reg
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank_tol = rank_tol

    def _uses_labels(self):
        return any(
            isinstance(g, str) and g in _LABEL_GRAPHS for g in (self.intrinsic, self.penalty)
        )

    def _has_class_forms(self, y):
        return (
            super()._has_class_forms(y)
            and isinstance(self.intrinsic, str) and self.intrinsic in _CLASS_GRAPHS
            and isinstance(self.penalty, str)
            and self.penalty in _CLASS_GRAPHS | {"degree", "identity"}
        )

    def _class_forms(self, class_sizes):
        A = class_graph_block(self.intrinsic, class_sizes)
        if self.penalty == "identity":
            B = "identity"
        elif self.penalty == "degree":
            B = (A[0], np.zeros_like(A[1]))
        else:
            B = class_graph_block(self.penalty, class_sizes)
        return dict(A=A, B=B, largest=False)

    def _check_params(self):
        for name, spec in (("intrinsic", self.intrinsic), ("penalty", self.penalty)):
            allowed = _GRAPH_NAMES | ({"degree", "identity"} if name == "penalty" else set())
            if isinstance(spec, str):
                check_option(spec, name, allowed)

    def _graph(self, spec, X_graph, y_enc, metric, name):
        n = X_graph.shape[0]
        if callable(spec):
            return _graphs.as_graph(spec(X_graph, y_enc), n, name)
        if not isinstance(spec, str):
            return _graphs.as_graph(spec, n, name)
        if spec in _LABEL_GRAPHS and y_enc is None:
            raise ValueError(f"{name}={spec!r} needs class labels: pass y to fit.")
        knn = dict(weights=self.weights, sigma=self.sigma, metric=metric)
        if spec == "within_class":
            return _graphs.within_class_graph(y_enc)
        if spec == "between_class":
            return _graphs.between_class_graph(y_enc)
        if spec == "total":
            return _graphs.total_graph(np.zeros(n, dtype=np.intp) if y_enc is None else y_enc)
        if spec == "knn":
            return _graphs.knn_graph(X_graph, self.n_neighbors, **knn)
        restrict = "same" if spec == "supervised_knn" else "different"
        return _graphs.knn_graph(X_graph, self.n_neighbors, y=y_enc, restrict=restrict, **knn)

    def _build_graphs(self, X_graph, y_enc, metric):
        intrinsic = self._graph(self.intrinsic, X_graph, y_enc, metric, "intrinsic")
        if isinstance(self.penalty, str) and self.penalty in ("degree", "identity"):
            return intrinsic, self.penalty
        return intrinsic, self._graph(self.penalty, X_graph, y_enc, metric, "penalty")
