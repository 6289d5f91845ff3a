"""The pairwise core shared by DEE, DSNE and elastic embedding: pair weights and squared
distances in row blocks, sampled pairs, starting points, preconditioners, the inner
validation subsample, and the base class of the linear neighbour embeddings."""

from __future__ import annotations

import numbers
import time

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from sklearn.utils.validation import validate_data

from .._validation import (
    check_int,
    check_label_values,
    check_labels,
    check_n_components,
    check_option,
    check_positive,
)
from ..blocks import graphs as _graphs
from ..blocks import pairs as _pairs
from ..blocks.optim import descent
from ..blocks.sampling import row_keys, seeded, stratified_folds, stratified_subsample
from ..blocks.solvers import data_subspace, embedding_signs
from ..blocks.stats import input_scale
from ..graph_embedding.projection import _LinearProjection
from ..training.selected import Selected
from ..training.supports import Supports

_DTYPES = [np.float64, np.float32]
#: pairs per row block of every pairwise sum
_BLOCK_PAIRS = 1 << 16
#: largest memory (bytes) for keeping the input-space pair weights between evaluations
_CACHE_BYTES = 256 * 2**20
#: ridge of the Laplacian / fixed-point matrices, relative to their mean eigenvalue
_MU_REL = 1e-4
#: candidate shrinkages of DEE(shrinkage='auto') and the folds of their cross-validation
_SHRINKAGE_GRID = (0.0, 0.2, 0.5, 0.8)
_CV_FOLDS = 3
#: shrinkage='auto' cross-validates on a stratified subsample of at most this many samples
_SHRINKAGE_CV_MAX = 5000


# ----- pairwise weights in row blocks ------------------------------------------------------
def _row_blocks(n, block_rows=None):
    b = block_rows or max(1, _BLOCK_PAIRS // max(n, 1))
    return [(s, min(s + b, n)) for s in range(0, n, b)]


def _sq_dist_block(Z, sq, s, e):
    """Squared distances between rows s:e of Z and all rows (zero diagonal, clipped at 0)."""
    S = sq[s:e, None] + sq[None, :] - 2.0 * (Z[s:e] @ Z.T)
    np.maximum(S, 0.0, out=S)
    S[np.arange(e - s), np.arange(s, e)] = 0.0
    return S


def _zero_diag(W, s, e):
    W[np.arange(e - s), np.arange(s, e)] = 0.0
    return W


class _PairWeights:
    """Weights of all ordered pairs (n != m), given per class relation, normalised per group.

    ``w_nm = same_fn(||z_n - z_m||^2)`` for pairs of the same class and ``diff_fn(...)`` for
    pairs of different classes, each group scaled to sum 1 (when ``normalize``). Unlabelled
    samples (``y = -1``) are in neither group, except for the pairs of ``extra_same`` (a sparse
    mask: the neighbour edges that touch them), which join the same-class group.

    ``store='both'``: iterating yields ``(start, stop, W_block, same_mask, diff_mask)`` with
    both groups (``diff_mask`` None when every sample is labelled: it is then ``~same_mask``);
    ``store='diff'``: it yields ``(start, stop, W_diff_block, None, None)``, the weights of the
    different-class pairs only, and the same-class group is used only through its quadratic
    forms ``forms = (Z^T L(W_same) Z, Z^T D(W_same) Z)``, computed in the first pass. Blocks
    are kept between iterations when they fit in ``cache_bytes``.
    """

    def __init__(self, Z, y, same_fn, diff_fn, *, normalize=True, store="both",
                 block_rows=None, cache_bytes=_CACHE_BYTES, masses=(1.0, 1.0), extra_same=None):
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.y = np.asarray(y)
        self.same_fn, self.diff_fn = same_fn, diff_fn
        self.store = store
        n, r = self.Z.shape
        self.n = n
        self.sq = np.einsum("ij,ij->i", self.Z, self.Z)
        self.blocks = _row_blocks(n, block_rows)
        self.scale_same = self.scale_diff = 1.0
        self.partial = bool(np.any(self.y < 0))
        self.extra = None if extra_same is None else sp.csr_matrix(extra_same)
        keep = n * n * 8 <= cache_bytes
        self._cache = [] if keep else None
        sum_same = sum_diff = 0.0
        labelled = self.y >= 0  # -1: an unlabelled sample, in neither group
        counts = np.bincount(self.y[labelled])
        self.n_same_pairs = int(np.sum(counts ** 2) - labelled.sum()) + (
            0 if self.extra is None else int(self.extra.nnz))
        self.n_diff_pairs = int(labelled.sum()) ** 2 - int(np.sum(counts ** 2))
        ZWZ = np.zeros((r, r))
        ZDZ = np.zeros((r, r))
        for s, e, S, M, D in self._distances():
            Ws = _zero_diag(np.where(M, self.same_fn(S), 0.0), s, e)
            Wd = np.where(M if D is None else ~D, 0.0, self.diff_fn(S))
            ss = float(Ws.sum())
            sum_same += ss
            sum_diff += float(Wd.sum())
            if store == "diff":
                deg = Ws.sum(axis=1)
                Zb = self.Z[s:e]
                ZWZ += Zb.T @ (Ws @ self.Z)
                ZDZ += (Zb * deg[:, None]).T @ Zb
                if keep:
                    self._cache.append((s, e, Wd, None, None))
            elif keep:
                Ws += Wd
                self._cache.append((s, e, Ws, M, D))
        self.sum_same, self.sum_diff = sum_same, sum_diff
        if normalize:
            self.scale_same = masses[0] / sum_same if sum_same > 0 else 1.0
            self.scale_diff = masses[1] / sum_diff if sum_diff > 0 else 1.0
        ZDZ = (ZDZ + ZDZ.T) / 2 * self.scale_same
        self.forms = (ZDZ - (ZWZ + ZWZ.T) / 2 * self.scale_same, ZDZ)
        if keep and normalize:
            for _s, _e, W, M, _D in self._cache:
                if M is None:
                    W *= self.scale_diff
                else:
                    W *= np.where(M, self.scale_same, self.scale_diff)

    def _distances(self):
        """Blocks of squared distances, the same-group mask and (with unlabelled samples) the
        different-class mask."""
        y = self.y
        for s, e in self.blocks:
            S = _sq_dist_block(self.Z, self.sq, s, e)
            if not self.partial:
                yield s, e, S, y[s:e, None] == y[None, :], None
                continue
            both = (y[s:e, None] >= 0) & (y[None, :] >= 0)
            M = (y[s:e, None] == y[None, :]) & both
            if self.extra is not None:
                M |= self.extra[s:e].toarray() != 0
            yield s, e, S, M, both & (y[s:e, None] != y[None, :])

    def __iter__(self):
        if self._cache is not None:
            yield from self._cache
            return
        for s, e, S, M, D in self._distances():
            if self.store == "diff":
                yield s, e, np.where(M if D is None else ~D, 0.0,
                                     self.diff_fn(S) * self.scale_diff), None, None
            else:
                diff = self.diff_fn(S) * self.scale_diff
                W = np.where(M, self.same_fn(S) * self.scale_same,
                             diff if D is None else np.where(D, diff, 0.0))
                yield s, e, _zero_diag(W, s, e), M, D


def unlabelled_neighbours(Z, y_enc, n_neighbors):
    """The pairs that join unlabelled samples (-1) to the attraction of DEE and DSNE: the edges
    of the ``n_neighbors``-nearest-neighbour graph over all samples that touch one (a sparse
    mask), or None when every sample is labelled."""
    if not np.any(y_enc < 0):
        return None
    return _graphs.unlabelled_edges(_graphs.knn_graph(Z, n_neighbors, weights="binary"), y_enc)


def refuse_sampled_unlabelled(name, labelled, method):
    """Unlabelled samples need the exact pair sums (``method='exact'``, the fit's resolved
    ``method``): a clear error naming the estimator ``name``."""
    if not labelled.all() and method != "exact":
        raise ValueError(
            f"{name} fits unlabelled samples (y = -1) with method='exact' only (at most "
            f"{_pairs.AUTO_EXACT_MAX} samples with method='auto'); for more, fit the labelled "
            "rows, or use DEEMap, whose map takes unlabelled samples at any size.")


def _pair_sq_dist(Y):
    """Row-block iterator helper: squared norms of the rows of Y."""
    return np.einsum("ij,ij->i", Y, Y)


def _mean_same_class_sq_dist(Z, y):
    """Mean of ||z_n - z_m||^2 over ordered same-class pairs n != m (closed form, O(nD))."""
    total, pairs = 0.0, 0
    for c in np.unique(y):
        Zc = Z[y == c]
        J = Zc.shape[0]
        if J < 2:
            continue
        total += 2.0 * J * float(np.sum((Zc - Zc.mean(axis=0)) ** 2))
        pairs += J * (J - 1)
    if pairs == 0 or total <= 0:
        return 1.0
    return total / pairs


def _init_scaled(A, Z):
    """Scale A so that the mean squared distance between embedded samples is 1."""
    Y = Z @ A.T
    n = Z.shape[0]
    msd = 2.0 * n / max(n - 1, 1) * float(np.sum(np.var(Y, axis=0)))
    if msd > 0 and np.isfinite(msd):
        A = A / np.sqrt(msd)
    return A


def _initial_projection(init, Z, basis, n_components, n_features, random_state, name):
    """Initial A (n_components x rank) in subspace coordinates."""
    r = Z.shape[1]
    if isinstance(init, str):
        check_option(init, "init", {"pca", "random"})
        if init == "pca":
            # basis columns are principal directions by decreasing variance
            A = np.zeros((n_components, r))
            k = min(n_components, r)
            A[np.arange(k), np.arange(k)] = 1.0
            if n_components > r:
                rng = seeded(random_state)
                A[k:] = rng.standard_normal((n_components - k, r)) * 1e-2
        else:
            rng = seeded(random_state)
            A = rng.standard_normal((n_components, r))
        return _init_scaled(A, Z)
    A0 = np.asarray(init, dtype=np.float64)
    if A0.shape != (n_components, n_features):
        raise ValueError(
            f"{name}: an array init must have shape (n_components, n_features) = "
            f"({n_components}, {n_features}); got {A0.shape}."
        )
    if not np.all(np.isfinite(A0)):
        raise ValueError(f"{name}: init contains NaN or infinite values.")
    return A0 @ basis


def _check_init_option(init):
    if isinstance(init, str):
        check_option(init, "init", {"pca", "random"})
    elif not isinstance(init, np.ndarray) and not isinstance(init, (list, tuple)):
        raise ValueError(
            f"init must be 'pca', 'random' or an array of shape (n_components, n_features); "
            f"got {init!r}."
        )


def _one_nn_wrong(Ztr, ytr, Zte, yte):
    """Bool per test sample: its nearest training sample (Euclidean) has another label."""
    sq = np.einsum("ij,ij->i", Ztr, Ztr)
    wrong = np.empty(Zte.shape[0], dtype=bool)
    for s, e in _row_blocks(Zte.shape[0], max(1, _BLOCK_PAIRS // max(Ztr.shape[0], 1))):
        S = sq[None, :] - 2.0 * (Zte[s:e] @ Ztr.T)
        wrong[s:e] = ytr[np.argmin(S, axis=1)] != yte[s:e]
    return wrong


def _validation_subsample(Z, y_enc, keys):
    """At most ``_SHRINKAGE_CV_MAX`` rows, stratified, chosen and ordered by the rows' content
    ``keys`` (:mod:`graphdr.blocks.sampling`): the inner validation's data, the same whatever the row
    order. Returns ``(Z, y_enc, keys)`` of those rows."""
    keep = stratified_subsample(y_enc, _SHRINKAGE_CV_MAX, keys)
    return Z[keep], y_enc[keep], keys[keep]


def _check_shrinkage(shrinkage):
    ok = shrinkage == "auto" if isinstance(shrinkage, str) else (
        isinstance(shrinkage, numbers.Real) and not isinstance(shrinkage, bool)
        and 0.0 <= shrinkage <= 1.0)
    if not ok:
        raise ValueError(
            f"shrinkage must be 'auto' or a real number in [0, 1]; got {shrinkage!r}."
        )


def _check_verbose(verbose):
    if not isinstance(verbose, (numbers.Integral, bool)) or verbose < 0:
        raise ValueError(f"verbose must be a non-negative integer or bool; got {verbose!r}.")
    return int(verbose)


def _check_descent_params(est):
    """``max_iter``, ``tol``, ``verbose`` and ``callback`` of an estimator fitted by
    :func:`graphdr.blocks.optim.descent`; returns ``verbose`` as an int. ``max_iter`` may be
    'auto' where the estimator resolves it (``iterations()``)."""
    if not (est.max_iter == "auto" and hasattr(est, "iterations")):
        check_int(est.max_iter, "max_iter", min_value=0)
    check_positive(est.tol, "tol", allow_zero=True)
    verbose = _check_verbose(est.verbose)
    if est.callback is not None and not callable(est.callback):
        raise ValueError(f"callback must be callable or None; got {est.callback!r}.")
    return verbose


def _store_descent(est, res):
    """The fitted attributes of a descent (:func:`graphdr.blocks.optim.descent`) every neighbour
    estimator shows: ``history_``, ``n_iter_``, ``objective_``, ``initial_objective_`` and
    ``converged_``."""
    est.history_ = res.history
    est.n_iter_ = res.n_iter
    est.objective_ = float(res.fun)
    est.initial_objective_ = float(res.f0)
    est.converged_ = bool(res.converged)


def _cholesky_preconditioner(H, name):
    """Factor H + mu I (mu relative to the mean eigenvalue) once; return g -> H^-1 g."""
    r = H.shape[0]
    H = (H + H.T) / 2
    tr = float(np.trace(H))
    mu = _MU_REL * tr / r if tr > 0 else 1.0
    jitter = mu
    for _ in range(8):
        try:
            factor = linalg.cho_factor(H + jitter * np.eye(r), lower=False, check_finite=True)
            break
        except linalg.LinAlgError:
            jitter *= 100.0
    else:  # pragma: no cover - H is PSD, this cannot happen short of NaN
        raise ValueError(f"{name}: could not factor the preconditioner.")

    def precondition(g, x):
        # g is d x r; M acts on the right: solve (H) P^T = g^T
        return linalg.cho_solve(factor, g.T).T

    return precondition, jitter


# ----- sampled pairs (method='approx') ------------------------------------------------------
def _class_spread(Z, y):
    """``sum_{n,m} ||z_n - z_m||^2`` over all ordered pairs and over same-class pairs (O(nD))."""
    def spread(A):
        return 2.0 * A.shape[0] * float(np.sum((A - A.mean(axis=0)) ** 2)) if len(A) else 0.0
    same = sum(spread(Z[y == c]) for c in np.unique(y))
    return spread(Z), same


def _sampled_forms(Z, pairs, kernel):
    r"""Sampled estimates of the attraction forms of a heat-kernel graph on ``pairs``.

    Returns ``(total, Q, Qdeg)``: :math:`\hat S = \sum_t w_t a_t`,
    :math:`Q = \tfrac12 \sum_t w_t a_t \Delta z_t \Delta z_t^\top = Z^\top D Z -
    \operatorname{sym}(\sum_t w_t a_t z_{r_t} z_{p_t}^\top)` (the estimate of
    :math:`Z^\top L(W) Z`) and :math:`Z^\top D Z`, ``D`` the degrees of the symmetrised sampled
    graph, :math:`a_t` = ``kernel(||Delta z_t||^2)``. The cross term is one sparse product per
    chunk (``O(terms x r)``), never a ``terms x r x r`` array.
    """
    n, r = Z.shape
    cross = np.zeros((r, r))
    deg = np.zeros(n)
    total = 0.0
    for rows, partners, w in pairs:
        k, m = partners.shape
        a = w * kernel(_pairs.sq_distances(Z, rows, partners))
        total += float(a.sum())
        W = sp.csr_matrix((a.ravel(), partners.ravel(), np.arange(0, k * m + 1, m)),
                          shape=(k, n))
        cross += Z[rows].T @ (W @ Z)
        deg[rows] += a.sum(axis=1) / 2.0
        deg += np.bincount(partners.ravel(), a.ravel(), minlength=n) / 2.0
    Qdeg = (Z * deg[:, None]).T @ Z
    return total, Qdeg - (cross + cross.T) / 2.0, Qdeg


def _sample_groups(y, n_partners, random_state, groups=("same", "different")):
    rng = seeded(random_state)
    return tuple(_pairs.sample_pairs(y, n_partners, g, rng) for g in groups)


class _SampledRepulsion:
    r"""``(sum_t w_t v_t exp(-||y_r - y_p||^2), gradient w.r.t. Y)`` over sampled pairs, with
    the input-space weights :math:`v_t` = ``scale * ||z_r - z_p||^2`` computed once."""

    def __init__(self, Z, pairs, scale):
        self.pairs = pairs
        self.v = pairs.chunk_arrays(
            lambda rows, partners: scale * _pairs.sq_distances(Z, rows, partners))

    def __call__(self, Y):
        def term(j, _rows, _partners, D2):
            R = self.v[j] * np.exp(-D2)
            return (R,), (-R,)

        totals, grads = self.pairs.evaluate(Y, term)
        return float(totals[0]), (grads[0] if grads is not None else np.zeros_like(Y))


# ----- DEE ---------------------------------------------------------------------------------


class _LinearNeighborEmbedding(_LinearProjection):
    """Shared validation, data subspace and transform of DEE and DSNE. Not public."""

    #: what the estimator takes: ``unlabelled_rows``, whether ``y = -1`` marks unlabelled
    #: samples that the fit uses
    _supports = Supports()

    def _prepare(self, X, y):
        """Validate, centre, reduce to the data span: ``(X, Z, basis, y_enc, n_components,
        found)``, ``found`` what the fit stores of it (``classes_``, the scale, ``mean_``)."""
        name = type(self).__name__
        check_label_values(y, type(self).__name__)
        X, y = validate_data(self, X, y, dtype=_DTYPES, ensure_min_samples=2)
        classes, y_enc, _ = check_labels(
            y, method=name, unlabelled="allow" if self._supports.unlabelled_rows else "refuse")
        n_components = check_n_components(
            self.n_components, X.shape[1], reason=f"n_features={X.shape[1]}"
        )
        # X / 2**e when max|X| is outside [2**-64, 2**64] (exact): squares of X * 1e-300
        # underflow and those of X * 1e300 overflow; _fit maps the result back
        scale = input_scale(X)
        Xs = X if scale == 1.0 else X / scale
        mean = np.mean(Xs, axis=0, dtype=np.float64)
        basis, Z = data_subspace(Xs, mean)
        if basis.shape[1] == 0:
            raise ValueError(
                f"{name} cannot embed constant data: every feature has zero variance."
            )
        if Z is None:
            Z = (np.asarray(Xs, dtype=np.float64) - mean) @ basis
        found = Selected(dict(classes_=classes, _input_scale=scale,
                              mean_=(mean * scale).astype(X.dtype, copy=False)))
        return X, Z, basis, y_enc, n_components, found

    def _pairs(self, y_enc, method, rng):
        """None (exact sums) or the sampled (same-class, other-class) pairs of one fit."""
        if method == "exact":
            return None
        return _sample_groups(y_enc, self.n_partners, rng)

    @staticmethod
    def _folds(y_enc, n_folds, keys):
        """``n_folds`` stratified inner folds (fewer if a class is smaller), dealt by the rows'
        content ``keys``, or None when a class has fewer than two samples."""
        n_splits = min(n_folds, int(np.bincount(y_enc).min()))
        if n_splits < 2:
            return None
        return stratified_folds(y_enc, n_splits, keys)

    def _held_out_wrong(self, Z, y_enc, folds, A0, build):
        """1-NN misclassifications of every held-out sample, ``(n, 2)`` bool: column 0 in the
        starting projection, column 1 in the optimum of ``build(train_rows)`` (a tuple
        ``(problem, method, precondition)``) started from it."""
        wrong = np.zeros((len(y_enc), 2), dtype=bool)
        rescale = isinstance(self.init, str)
        for tr, va in folds:
            problem, method, precondition = build(tr)
            A_start = _init_scaled(A0, Z[tr]) if rescale else A0
            res = descent(problem.value_grad, A_start, method=method,
                          precondition=precondition, max_iter=self.max_iter, tol=self.tol)
            for j, A in enumerate((A_start, res.x)):
                wrong[va, j] = _one_nn_wrong(Z[tr] @ A.T, y_enc[tr], Z[va] @ A.T, y_enc[va])
        return wrong

    def _fit(self, X, y):
        """Validate, build the problem (``_problem``), run the optimiser, store the result."""
        t0 = time.perf_counter()
        self._check_params()
        X, Z, basis, y_enc, d, found = self._prepare(X, y)
        scale = found.values["_input_scale"]  # Z is the data / scale: widths, projections follow
        lab = y_enc >= 0
        if self.sigma is None:
            sigma2 = _mean_same_class_sq_dist(Z[lab], y_enc[lab]) / 2.0
        else:
            sigma2 = (float(self.sigma) / scale) ** 2
        name = type(self).__name__
        A0 = _initial_projection(self.init, Z, basis, d, X.shape[1], self.random_state, name)
        if not isinstance(self.init, str):
            A0 = A0 * scale  # the given projection of X, as one of X / scale
        pairs = _pairs.resolve_method(self.method, Z.shape[0], name)
        problem, method, precondition, chosen = self._problem(Z, y_enc, sigma2, A0, row_keys(X),
                                                              pairs)
        chosen = found | chosen | Selected(dict(sigma_=float(np.sqrt(sigma2)) * scale,
                                                method_=pairs))
        cv_errors, checkpoint = chosen.values["cv_errors_"], chosen.values["checkpoint_"]
        if self.verbose and cv_errors is not None:
            print(f"[{name}] inner validation 1-NN error: start {cv_errors[0]:.4f}, "
                  f"optimised {cv_errors[1]:.4f}; keeping the "
                  f"{'optimised projection' if checkpoint else 'start'}")
        max_iter = self.max_iter if checkpoint else 0  # the validation kept the start
        callback = None
        if self.callback is not None:
            def callback(x, info):
                return self.callback(x @ basis.T / scale, info)
        res = descent(
            problem.value_grad, A0, method=method, precondition=precondition,
            max_iter=max_iter, tol=self.tol, verbose=_check_verbose(self.verbose),
            callback=callback, name=f"{name}-{self.optimizer}", t_start=t0,
        )
        signs = embedding_signs(Z[lab] @ res.x.T, y_enc[lab])  # the sign convention (solvers)
        return self._store(res, chosen, (signs[:, None] * (res.x @ basis.T) / scale).astype(
            X.dtype, copy=False))

    def _store(self, res, chosen, components):
        """The fit's one writer of fitted attributes: what it found and chose (``chosen``),
        the descent's record and the projection."""
        chosen.write(self)
        _store_descent(self, res)
        self.components_ = components
        self.n_components_ = components.shape[0]
        return self
