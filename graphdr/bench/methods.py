"""The method registry of ``graphdr bench``: a name -> how to build the estimator.

Every method the benchmark can run is one :func:`register` call. The estimator class is named by
``"module:Class"`` (or given as the class itself) and imported only when the method is used, so
methods whose module is not part of this version of graphdr can be registered already: asking for them raises
:class:`MethodUnavailableError` (a ``ValueError``) that says so.

Adding a method is one line, e.g.::

    register("lqmi", "graphdr.qmi:LQMI", label="LQMI", kind="linear", max_dims="classes")

Fields
------
kind
    ``'linear'``, ``'kernel'`` (receives the protocol's kernel ``gamma``), ``'iterative'``
    (an optimizer; its ``history_['objective']`` is plotted), ``'multiview'`` (``fit`` and
    ``transform`` take the list of views of multi-view data; ``kernel_weights_`` is plotted) or
    ``'reference'`` (scikit-learn baselines).
supervised
    Whether ``fit`` uses the labels (shown in the report).
max_dims
    Largest embedding dimension: ``'classes'`` (C - 1), ``'features'`` (D), ``'samples'``
    (n_train - 1), an int, or a callable ``(n_samples, n_features, n_classes) -> int``.
nested
    True when the first ``d`` components of a fit are the ``d``-dimensional solution (spectral
    methods, PCA): one fit per fold serves every dimension. False (optimizers such as NCA, QMI,
    DEE): one fit per dimension.
transform
    False for methods with no out-of-sample map (t-SNE): they only draw 2-D pictures.
one_dimension
    True for a method evaluated at its output's width only, whatever the protocol's dimensions
    (the raw features).
predicts
    True for methods that classify by themselves (``predict``; e.g. KFD-Voting): their test
    error is recorded under the classifier name ``own``, one fit per dimension, no picture.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass, field
from typing import Any

from .protocols import DEFAULT_DIM

__all__ = [
    "MethodSpec",
    "MethodUnavailableError",
    "register",
    "get_method",
    "parse_method",
    "available_methods",
    "REGISTRY",
]

KINDS = ("linear", "kernel", "iterative", "multiview", "reference")


class MethodUnavailableError(ValueError):
    """A registered method whose implementation is not part of this version of graphdr."""


@dataclass(frozen=True)
class MethodSpec:
    """How to build one benchmark method (see the module docstring for the fields)."""

    name: str
    target: str
    label: str
    kind: str = "linear"
    supervised: bool = True
    max_dims: Any = "classes"
    nested: bool = True
    transform: bool = True
    predicts: bool = False
    one_dimension: bool = False
    params: dict = field(default_factory=dict)
    aliases: tuple = ()
    description: str = ""

    # ----- the estimator class ---------------------------------------------------------
    def resolve(self):
        """Import and return the estimator class, or raise :class:`MethodUnavailableError`."""
        if not isinstance(self.target, str):  # a class given directly
            return self.target
        module_name, _, attr = self.target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (
                module_name == exc.name or module_name.startswith(exc.name + ".")
            ):
                raise MethodUnavailableError(
                    f"Method {self.name!r} ({module_name}.{attr}) is not available in this "
                    f"version of graphdr: module {module_name} does not exist yet."
                ) from None
            raise
        try:
            return getattr(module, attr)
        except AttributeError:
            raise MethodUnavailableError(
                f"Method {self.name!r} is not available in this version of graphdr: "
                f"{module_name} has no {attr}."
            ) from None

    def is_available(self):
        try:
            self.resolve()
        except MethodUnavailableError:
            return False
        return True

    # ----- dimensions ---------------------------------------------------------------------
    def dim_limit(self, n_samples, n_features, n_classes):
        """Largest embedding dimension for data of this shape."""
        spec = self.max_dims
        if callable(spec):
            return int(spec(n_samples, n_features, n_classes))
        if isinstance(spec, int):
            return spec
        limits = {
            "classes": n_classes - 1,
            "features": n_features,
            "samples": n_samples - 1,
        }
        if spec not in limits:
            raise ValueError(f"max_dims of method {self.name!r} must be one of {sorted(limits)}")
        return max(1, limits[spec])

    # ----- building -----------------------------------------------------------------------
    def build(self, n_components, *, params=None, gamma=None, random_state=None,
              projection=None):
        """Return an unfitted estimator.

        Parameters
        ----------
        n_components : int
            :data:`~graphdr.bench.protocols.DEFAULT_DIM` (0): the estimator's own default.
        params : dict, optional
            Overrides from the command line (``name:key=value``).
        gamma : float or None
            The protocol's kernel coefficient; passed to ``kind='kernel'`` methods unless
            ``params`` set it. None keeps the estimator's default.
        random_state : int
            Passed when the estimator has a ``random_state`` parameter.
        projection : str or None
            The protocol's normalisation of the projections; passed as ``scaling`` to
            estimators that have one unless ``params`` set it. None keeps the default.
        """
        cls = self.resolve()
        kwargs = dict(self.params)
        kwargs.update(params or {})
        accepted = cls().get_params() if hasattr(cls, "get_params") else {}
        if "n_components" in accepted and n_components != DEFAULT_DIM:
            kwargs["n_components"] = n_components
        if self.kind == "kernel" and gamma is not None and "gamma" in accepted:
            kwargs.setdefault("gamma", gamma)
        if projection is not None and "scaling" in accepted:
            kwargs.setdefault("scaling", projection)
        if "random_state" in accepted and "random_state" not in kwargs:
            kwargs["random_state"] = random_state
        unknown = sorted(set(kwargs) - set(accepted)) if accepted else []
        if unknown:
            raise ValueError(
                f"Method {self.name!r} ({cls.__name__}) has no parameter(s) {unknown}; "
                f"its parameters are {sorted(accepted)}."
            )
        return cls(**kwargs)


REGISTRY: dict[str, MethodSpec] = {}
_ALIASES: dict[str, str] = {}


def register(name, target, **fields):
    """Add a method to the registry (one line per method; see the module docstring)."""
    spec = MethodSpec(name=name, target=target, **fields)
    if spec.kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {spec.kind!r}")
    REGISTRY[name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = name
    return spec


# fmt: off
# ----- graphdr's foundation (paper 000's baselines) -------------------------------------------
register("lda", "graphdr.graph_embedding.linear:LDA", label="LDA", kind="linear", max_dims="classes", params=dict(reg=0.0), description="classical linear discriminant analysis (no ridge, as in the papers)")
register("lpp", "graphdr.graph_embedding.linear:LPP", label="LPP", kind="linear", supervised=False, max_dims="features", params=dict(supervised=False), description="locality preserving projections (unsupervised)")
register("supervised-lpp", "graphdr.graph_embedding.linear:LPP", label="S-LPP", kind="linear", max_dims="features", params=dict(supervised=True), aliases=("slpp", "lpp-supervised"), description="LPP on same-class neighbours")
register("mfa", "graphdr.graph_embedding.linear:MFA", label="MFA", kind="linear", max_dims="features", description="marginal Fisher analysis")
register("lde", "graphdr.graph_embedding.linear:LDE", label="LDE", kind="linear", max_dims="features", description="local discriminant embedding")
register("lfda", "graphdr.graph_embedding.local_fisher:LFDA", label="LFDA", kind="linear", max_dims="features", description="local Fisher discriminant analysis (Sugiyama 2007): classes of several clusters")
register("semi-lfda", "graphdr.graph_embedding.local_fisher:SemiLFDA", label="SELF", kind="linear", max_dims="features", aliases=("self",), description="semi-supervised LFDA, SELF (Sugiyama et al. 2010): LFDA of the labelled rows mixed with PCA of all rows")
register("kernel-lda", "graphdr.graph_embedding.kernel_methods:KernelLDA", label="GDA", kind="kernel", max_dims="classes", aliases=("gda", "kfd", "klda"), description="kernel Fisher discriminant / GDA")
register("kernel-lpp", "graphdr.graph_embedding.kernel_methods:KernelLPP", label="KLPP", kind="kernel", supervised=False, max_dims="samples", params=dict(supervised=False), aliases=("klpp",), description="kernel LPP (unsupervised)")
register("supervised-kernel-lpp", "graphdr.graph_embedding.kernel_methods:KernelLPP", label="S-KLPP", kind="kernel", max_dims="samples", params=dict(supervised=True), aliases=("sklpp", "kernel-lpp-supervised"), description="kernel LPP on same-class neighbours")
register("ckfd", "graphdr.graph_embedding.kernel_methods:CKFD", label="CKFD", kind="kernel", max_dims=lambda n, d, c: 2 * (c - 1), description="complete kernel Fisher discriminant")
# ----- scikit-learn reference points --------------------------------------------------------
register("raw", "sklearn.preprocessing:FunctionTransformer", label="raw", kind="reference", supervised=False, max_dims="features", one_dimension=True, description="no reduction: the scaled features themselves (one dimension, theirs)")
register("pca", "sklearn.decomposition:PCA", label="PCA", kind="reference", supervised=False, max_dims="features", params=dict(svd_solver="full"), description="principal component analysis (scikit-learn)")
register("kernel-pca", "sklearn.decomposition:KernelPCA", label="KPCA", kind="kernel", supervised=False, max_dims="samples", params=dict(kernel="rbf", eigen_solver="dense"), aliases=("kpca",), description="kernel PCA, RBF (scikit-learn)")
register("nca", "sklearn.neighbors:NeighborhoodComponentsAnalysis", label="NCA", kind="reference", max_dims="features", nested=False, description="neighbourhood components analysis (scikit-learn)")
register("sklearn-lda", "sklearn.discriminant_analysis:LinearDiscriminantAnalysis", label="sk-LDA", kind="reference", max_dims="classes", params=dict(solver="svd"), description="linear discriminant analysis, SVD solver (scikit-learn)")
register("sklearn-lda-shrinkage", "sklearn.discriminant_analysis:LinearDiscriminantAnalysis", label="sk-LDA-shrink", kind="reference", max_dims="classes", params=dict(solver="eigen", shrinkage="auto"), description="LDA with Ledoit-Wolf shrinkage, eigen solver (scikit-learn)")
register("tsne", "sklearn.manifold:TSNE", label="t-SNE", kind="reference", supervised=False, max_dims=2, transform=False, params=dict(init="pca"), aliases=("t-sne",), description="t-SNE (scikit-learn); no out-of-sample map: 2-D pictures only")
# ----- paper 000 (QMI), 002 (QMI by gradient ascent), 003 (DEE and its baselines), 001 (MKL-DR) --
register("lqmi", "graphdr.qmi:LQMI", label="LQMI", kind="linear", max_dims="classes", params=dict(reg=0.0), description="linear QMI graph embedding (paper 000, no ridge)")
register("kqmi", "graphdr.qmi:KQMI", label="KQMI", kind="kernel", max_dims="classes", description="kernel QMI graph embedding (paper 000)")
register("kqmi-paper", "graphdr.qmi:KQMI", label="KQMI-printed", kind="kernel", max_dims="classes", params=dict(solver="paper"), description="KQMI as paper 000 printed it: Algorithm 1, no ridge")
register("qmi", "graphdr.qmi:QMIProjection", label="QMI", kind="iterative", max_dims="features", nested=False, params=dict(criterion="qmi"), description="Torkkola's QMI by gradient ascent (paper 002)")
register("mi-a", "graphdr.qmi:QMIProjection", label="MI_A", kind="iterative", max_dims="features", nested=False, params=dict(criterion="mi_a"), description="QMI ratio criterion MI_A = V_IN / V_ALL (paper 002)")
register("mi-b", "graphdr.qmi:QMIProjection", label="MI_B", kind="iterative", max_dims="features", nested=False, params=dict(criterion="mi_b"), description="QMI ratio criterion MI_B = V_IN / V_BTW (paper 002)")
_P002_AS_PRINTED = dict(metric="euclidean", solver="paper", sigma_factors=(1.0,), cv=None, max_iter=5000)
register("qmi-paper", "graphdr.qmi:QMIProjection", label="QMI-printed", kind="iterative", max_dims="features", nested=False, params=dict(criterion="qmi", **_P002_AS_PRINTED), description="QMI as paper 002 printed it: eq. 15 with a fixed learning rate, orthonormal W, one window, no inner validation, run until the relative gain is below 1e-5 (at most 5000 iterations)")
register("mi-a-paper", "graphdr.qmi:QMIProjection", label="MI_A-printed", kind="iterative", max_dims="features", nested=False, params=dict(criterion="mi_a", **_P002_AS_PRINTED), description="MI_A as paper 002 printed it (see qmi-paper)")
register("mi-b-paper", "graphdr.qmi:QMIProjection", label="MI_B-printed", kind="iterative", max_dims="features", nested=False, params=dict(criterion="mi_b", **_P002_AS_PRINTED), description="MI_B as paper 002 printed it (see qmi-paper)")
register("dee", "graphdr.neighbor_embedding:DEE", label="DEE", kind="iterative", max_dims="features", nested=False, description="discriminative elastic embedding (paper 003)")
register("dsne", "graphdr.neighbor_embedding:DSNE", label="DSNE", kind="iterative", max_dims="features", nested=False, description="discriminative SNE (paper 003 baseline)")
register("dee-paper", "graphdr.neighbor_embedding:DEE", label="DEE-printed", kind="iterative", max_dims="features", nested=False, params=dict(shrinkage=0.0), description="DEE as paper 003 printed it: eq. 12 (no shrinkage, no inner validation), the Laplacian direction")
register("dsne-paper", "graphdr.neighbor_embedding:DSNE", label="DSNE-printed", kind="iterative", max_dims="features", nested=False, params=dict(normalization="classwise", cv=None), description="DSNE as paper 003 printed it: class-wise normalisation (eqs. 5-7), conjugate gradients, no inner validation")
register("deemap", "graphdr.maps:DEEMap", label="DEEMap", kind="iterative", max_dims=2, aliases=("dee-map",), description="graphdr's supervised 2-D map (free coordinates, transform by neighbours); dims 1-2, dim 1 its first coordinate")
register("ee", "graphdr.neighbor_embedding:ElasticEmbedding", label="EE", kind="iterative", supervised=False, max_dims=2, transform=False, description="elastic embedding (paper 003); no out-of-sample map: 2-D pictures only")
register("mmpa", "graphdr.graph_embedding.discriminant:MMPA", label="MMPA", kind="linear", max_dims="features", description="min-max projection analysis (paper 003 baseline)")
register("dcv", "graphdr.graph_embedding.discriminant:DCV", label="DCV", kind="linear", max_dims="classes", description="discriminative common vectors (paper 003 baseline)")
register("mkl-lda", "graphdr.multiview:MKLDR", label="MKL-LDA", kind="multiview", max_dims="classes", params=dict(graph="lda"), description="MKL-DR over LDA (paper 001)")
_P001_AS_PRINTED = dict(reg=0.0, scaling="total", weight_shrinkage=0.0)
register("mkl-lda-paper", "graphdr.multiview:MKLDR", label="MKL-LDA-printed", kind="multiview", max_dims="classes", params=dict(graph="lda", **_P001_AS_PRINTED), description="MKL-LDA as paper 001 printed it: Algorithm 1 from AA^T = I, no ridge, no shrinkage of the learned weights")
register("mkl-lde-paper", "graphdr.multiview:MKLDR", label="MKL-LDE-printed", kind="multiview", max_dims="samples", params=dict(graph="lde", **_P001_AS_PRINTED), description="MKL-LDE as paper 001 printed it (see mkl-lda-paper)")
register("kfd-voting", "graphdr.multiview:KFDVoting", label="KFD-Voting", kind="multiview", max_dims="classes", nested=False, predicts=True, description="vote of per-view KFD + 1-NN classifiers (paper 001 baseline)")
register("kfd-samme", "graphdr.multiview:KFDSAMME", label="KFD-SAMME", kind="multiview", max_dims="classes", nested=False, predicts=True, description="SAMME boosting of per-view KFD classifiers (paper 001 baseline)")
register("view-kfd", "graphdr.multiview:KFD", label="KFD-view", kind="kernel", max_dims="classes", description="kernel Fisher discriminant on one view's base kernel (paper 001's per-kernel KFD; use with view=k)")
register("klde", "graphdr.multiview:KFD", label="KLDE", kind="kernel", max_dims="samples", params=dict(discriminant="lde"), description="kernel LDE on one view's base kernel (paper 001's per-kernel KLDE; use with view=k)")
register("klde-voting", "graphdr.multiview:KFDVoting", label="KLDE-Voting", kind="multiview", max_dims="samples", nested=False, predicts=True, params=dict(discriminant="lde"), description="vote of per-view KLDE + 1-NN classifiers (paper 001 baseline)")
register("klde-samme", "graphdr.multiview:KFDSAMME", label="KLDE-SAMME", kind="multiview", max_dims="samples", nested=False, predicts=True, params=dict(discriminant="lde"), description="SAMME boosting of per-view KLDE classifiers (paper 001 baseline)")
register("mkl-lde", "graphdr.multiview:MKLDR", label="MKL-LDE", kind="multiview", max_dims="samples", params=dict(graph="lde"), description="MKL-DR over LDE (paper 001)")
register("poisson", "graphdr.semi.poisson:PoissonPropagation", label="Poisson", kind="reference", max_dims=1, nested=False, predicts=True, aliases=("poisson-propagation",), description="Poisson learning: the labels propagated over the kNN graph of all samples (a classifier: its own test error, with --label-fraction the propagation's)")
register("kfd-average", "graphdr.bench.baselines:AverageKernelLDA", label="KFD-Average", kind="multiview", max_dims="classes", aliases=("kfd-uniform",), description="kernel LDA on the equal-weight average of the base kernels (MKL-DR's baseline, paper 001)")
# fmt: on


def canonical_name(name):
    key = name.strip().lower()
    return _ALIASES.get(key, key)


def get_method(name):
    """Return the :class:`MethodSpec` of ``name`` (or an alias); ValueError if unknown."""
    key = canonical_name(name)
    if key not in REGISTRY:
        raise ValueError(
            f"Unknown method {name!r}. Known methods: {', '.join(sorted(REGISTRY))} "
            "(run `graphdr list methods`)."
        )
    return REGISTRY[key]


def _parse_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_method(text, *, check_available=True, spec=None):
    """Parse ``name`` or ``name:key=value:key=value`` into ``(canonical id, spec, params)``.

    The canonical id (``name`` plus sorted parameters) names the method in ``results.csv``.
    ``spec`` skips the registry look-up (a spec carried to a worker process).
    """
    head, *rest = [part.strip() for part in str(text).strip().split(":")]
    spec = spec if spec is not None else get_method(head)
    params = {}
    for item in rest:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(
                f"Method parameters are written name:key=value (e.g. kernel-lda:gamma=0.1); "
                f"got {item!r} in {text!r}."
            )
        params[key.strip()] = _parse_value(value.strip())
    if check_available:
        spec.resolve()
    ident = ":".join([spec.name] + [f"{k}={params[k]}" for k in sorted(params)])
    return ident, spec, params


#: the method column of a fit on the labelled training rows only (``--label-fraction``)
LABELLED_ONLY = "@labelled"


def method_label(ident):
    """Display label of a canonical method id (``S-LPP``, ``GDA [gamma=0.1]``; a fit on the
    labelled rows only, ``lda@labelled``: ``LDA (labelled rows)``)."""
    if ident.endswith(LABELLED_ONLY):
        return method_label(ident[: -len(LABELLED_ONLY)]) + " (labelled rows)"
    head, *rest = ident.split(":")
    spec = REGISTRY.get(head)
    label = spec.label if spec else head
    return f"{label} [{', '.join(rest)}]" if rest else label


def available_methods():
    """Names of registered methods whose implementation is importable."""
    return [name for name, spec in REGISTRY.items() if spec.is_available()]


def describe_methods() -> list[tuple[str, str, str, str, str]]:
    """Rows (name, label, kind, supervised, availability + description) for ``graphdr list``."""
    rows = []
    for name, spec in REGISTRY.items():
        status = "" if spec.is_available() else " [not available in this version]"
        aliases = f" (aliases: {', '.join(spec.aliases)})" if spec.aliases else ""
        rows.append(
            (name, spec.label, spec.kind, "supervised" if spec.supervised else "unsupervised",
             spec.description + aliases + status)
        )
    return rows

