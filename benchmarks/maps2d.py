"""How good is the 2-D map of held-out samples? 2-D maps of held-out samples: graphdr's maps
against supervised UMAP and openTSNE.

Every method (:func:`methods`) is fitted on the training samples and embeds the test samples
out of sample; a 1-NN classifier on the map of the training samples predicts them. Per data
set and method: the 2-D 1-NN test error, the fit time and the faithfulness of the test samples'
map (:func:`faithfulness`). Data: :func:`load`.

    .venv/bin/python benchmarks/maps2d.py [--datasets digits mnist5k letters] [--splits 5]

Writes ``benchmarks/results/maps2d.md`` (``--out``: ``maps2d_uci.md`` for the UCI sets).
``--deemap '{"separation": 0.9}' ...``: DEEMap with these parameters beside the others (each
set's best variant said: ``maps2d_floors.md``). The map at scale is ``maps2d_scale.py``; the
studies that chose the map's defaults are retired: ``docs/history.rst``. ``--quick``: a smoke
run on the digits (UMAP, openTSNE and t-SNE skipped), nothing written here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import common
import numpy as np

from graphdr.bench.maps import one_nn_error

RESULTS = common.RESULTS

DATASETS = ("digits", "mnist5k", "letters")
#: the shared UCI sets: standardised on the training part, 25 % test
UCI = ("ionosphere", "sonar", "vehicle", "vowel", "led7digit", "heart", "pima", "wdbc")


def load(name, seed=0):
    """(X_train, y_train, X_test, y_test) of a data set: the stratified split of ``seed``."""
    from sklearn.model_selection import train_test_split

    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        test_size = 0.25
    elif name in ("mnist5k", *UCI):
        X, y = common.load_shared(name)
        test_size = 1000 if name == "mnist5k" else 0.25
    elif name == "letters":
        from run_all import letter_like

        X, y = letter_like(20_000, seed=1)
        test_size = 4000
    else:
        raise ValueError(f"unknown data set {name!r}; known: {DATASETS + UCI}")
    Xtr, Xte, ytr, yte = train_test_split(X.astype(np.float64), y, test_size=test_size,
                                          stratify=y, random_state=seed)
    if name in UCI:  # features in different units: standardised, as a user would
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    if name == "mnist5k":
        from sklearn.decomposition import PCA

        pca = PCA(50, random_state=0).fit(Xtr)
        Xtr, Xte = pca.transform(Xtr), pca.transform(Xte)
    return Xtr, ytr, Xte, yte


#: a smoke run (``--quick``): the optional and slow references are left out
QUICK = False


def methods():
    """name -> (fit(X, y) -> fitted, transform(fitted, X)); optional ones when installed."""
    from sklearn.decomposition import PCA

    import graphdr
    from graphdr.bench.maps import default_map_methods

    def fitted(make, labels=True):
        return lambda X, y: make().fit(X, y) if labels else make().fit(X)

    def plane(m, X):
        return _plane(m.transform(X))

    out = {"PCA": (fitted(lambda: PCA(2, random_state=0), False), _transform),
           "graphdr.LDA": (lambda X, y: graphdr.LDA(n_components=_two(y)).fit(X, y), plane),
           "graphdr.DEE": (fitted(lambda: graphdr.DEE(n_components=2)), _transform),
           "graphdr.DSNE": (fitted(lambda: graphdr.DSNE(n_components=2)), _transform),
           "graphdr.DEEMap": (fitted(graphdr.DEEMap), _transform),
           "graphdr.DEEMap (no labels)": (fitted(graphdr.DEEMap, False), _transform),
           "graphdr.DEEMap (gaussian)": (fitted(lambda: graphdr.DEEMap(repulsion="gaussian")),
                                         _transform),
           "graphdr.KQMI (Nystroem 1000)": (
               lambda X, y: graphdr.KQMI(n_components=_two(y), approximation="nystroem",
                                         n_landmarks=1000).fit(X, y), plane)}
    if QUICK:
        return out
    out["scikit-learn t-SNE + kNN"] = (_tsne_knn_fit, _tsne_knn_transform)
    external = {k: v for k, v in default_map_methods().items() if not k.startswith("graphdr")}
    for name, make in external.items():  # supervised UMAP, openTSNE when installed
        out[name] = (fitted(make), _transform)
    if "supervised UMAP" in external:  # and without the labels
        out["UMAP (unsupervised)"] = (fitted(external["supervised UMAP"], False), _transform)
    return out


def _transform(m, X):
    return np.asarray(m.transform(X))


def _two(y):
    """2 components, or 1 for two classes (C - 1 discriminant directions)."""
    return min(2, len(np.unique(y)) - 1)


def _plane(Z):
    """A 1-D discriminant embedding drawn on the plane at y = 0."""
    return Z if Z.shape[1] == 2 else np.column_stack([Z, np.zeros(len(Z))])


#: scikit-learn's exact-gradient-free Barnes-Hut t-SNE has no transform: it runs up to this size
TSNE_MAX = 5000


def _tsne_knn_fit(X, y):
    """scikit-learn's t-SNE of the training samples and a 10-NN regressor from the inputs to
    the map (its out-of-sample extension); None above :data:`TSNE_MAX` samples."""
    if len(X) > TSNE_MAX:
        return None
    from sklearn.manifold import TSNE
    from sklearn.neighbors import KNeighborsRegressor

    Y = TSNE(2, random_state=0).fit_transform(X)
    return dict(embedding=Y, regressor=KNeighborsRegressor(10, weights="distance").fit(X, Y))


def _tsne_knn_transform(model, X):
    return model["regressor"].predict(X)


def training_map(model, transform, Xtr):
    """The map of the training samples: the fitted one for the nonparametric maps (DEEMap,
    UMAP's ``embedding_``, openTSNE's embedding itself), ``transform`` for the others."""
    if isinstance(model, dict):
        return model["embedding"]
    if hasattr(model, "embedding_") and type(model).__name__ in ("DEEMap", "UMAP", "_OpenTSNE"):
        return np.asarray(model.embedding_)
    return transform(model, Xtr)


def faithfulness(X, Z, y, k=10, n_triplets=20_000, seed=0):
    """How faithfully ``Z`` (the map of the test samples) keeps ``X`` (their input features):
    trustworthiness and continuity (scikit-learn's trustworthiness, the roles swapped for
    continuity), the recall of each sample's ``k`` input neighbours among its ``k`` map
    neighbours, the accuracy of random triplets (is i nearer to j than to l, in both spaces:
    global structure), and trustworthiness within each class (mean over the classes with more
    than ``3 k`` test samples)."""
    from sklearn.manifold import trustworthiness
    from sklearn.neighbors import NearestNeighbors

    X = np.asarray(X, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    trust = trustworthiness(X, Z, n_neighbors=k)
    cont = trustworthiness(Z, X, n_neighbors=k)
    nx = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(return_distance=False)[:, :k]
    nz = NearestNeighbors(n_neighbors=k + 1).fit(Z).kneighbors(return_distance=False)[:, :k]
    recall = float(np.mean([len(set(a) & set(b)) / k for a, b in zip(nx, nz)]))
    rng = np.random.default_rng(seed)
    i, j, m = rng.integers(0, len(X), (3, n_triplets))

    def closer(A):
        return np.sum((A[i] - A[j]) ** 2, axis=1) < np.sum((A[i] - A[m]) ** 2, axis=1)

    triplets = float(np.mean(closer(X) == closer(Z)))
    per_class = [trustworthiness(X[y == c], Z[y == c], n_neighbors=k)
                 for c in np.unique(y) if np.sum(y == c) > 3 * k]
    return dict(trust=trust, cont=cont, recall=recall, triplets=triplets,
                class_trust=float(np.mean(per_class)) if per_class else np.nan)


def draw(ds, names, maps, table, results=RESULTS, stem="maps2d"):
    """One picture per data set: every method's map side by side (``<stem>_<ds>.png``, the
    stem of the results file)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from graphdr.bench.maps import HeldOutMap, draw_held_out_maps

    drawn = [HeldOutMap(n, maps[(ds, n)][0], maps[(ds, n)][2], *table[(ds, n)])
             for n in names if (ds, n) in maps]
    fig = draw_held_out_maps(drawn, maps[(ds, drawn[0].name)][3],
                             f"{ds}: held-out samples on each 2-D map")
    path = results / f"{stem}_{ds}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def measure(datasets, available, splits):
    """Every method of ``available`` on every set and split: ``table[(set, method)]`` (mean
    error %, mean fit s; NaN where not run), ``quality`` (mean :func:`faithfulness`), ``maps``
    (split 0's, for the pictures) and ``n_test`` (test samples per set)."""
    table, maps, quality, n_test = {}, {}, {}, {}
    for ds in datasets:
        runs = {}
        for seed in range(splits):
            Xtr, ytr, Xte, yte = load(ds, seed)
            n_test[ds] = len(yte)
            for name, (fit, transform) in available.items():
                start = time.perf_counter()
                model = fit(Xtr, ytr)
                seconds = time.perf_counter() - start
                if model is None:  # not applicable at this size
                    continue
                Ztr, Zte = training_map(model, transform, Xtr), transform(model, Xte)
                err = one_nn_error(Ztr, ytr, Zte, yte)
                runs.setdefault(name, []).append((err, seconds, faithfulness(Xte, Zte, yte)))
                if seed == 0:  # the pictures: the first split
                    maps[(ds, name)] = (Ztr, ytr, Zte, yte)
                print(f"{ds:8s} split {seed} {name:30s} {err:6.2f} % {seconds:8.2f} s",
                      flush=True)
        for name in available:
            got = runs.get(name)
            table[(ds, name)] = (float(np.mean([g[0] for g in got])),
                                 float(np.mean([g[1] for g in got]))) if got else (np.nan, np.nan)
            if got:
                quality[(ds, name)] = {key: float(np.mean([g[2][key] for g in got]))
                                       for key in got[0][2]}
    return table, maps, quality, n_test


def headline(datasets, names, table):
    """The headline's cells (each set's best graphdr map, beside supervised UMAP) and the
    verdicts against supervised UMAP."""
    head, verdicts = [], []
    for ds in dict.fromkeys(datasets):
        if not any(m.startswith("graphdr") for m in names):
            continue
        err, name = min((table[(ds, m)][0], m) for m in names if m.startswith("graphdr"))
        seconds, umap = table[(ds, name)][1], table.get((ds, "supervised UMAP"))
        head.append(f"{ds}: {name} {err:.1f} % in {seconds:.1f} s" + (
            f" (supervised UMAP {umap[0]:.1f} % in {umap[1]:.1f} s)" if umap else ""))
        if umap:
            verdicts.append(f"- {ds}: best graphdr error {'<=' if err <= umap[0] else '>'}"
                            f" supervised UMAP's, fit time {'<=' if seconds <= umap[1] else '>'}"
                            " UMAP's")
    return head, verdicts


def result_tables(datasets, names, table, quality):
    """The tables of the 1-NN errors and fit times, and of the faithfulness."""
    def cells(ds, name):
        err, seconds = table[(ds, name)]
        return ["n/a", "n/a"] if np.isnan(err) else [f"{err:.1f}", f"{seconds:.1f}"]

    def faithful(ds, name):
        q = quality.get((ds, name))
        return ["n/a"] * 5 if q is None else [f"{q[k]:.3f}" for k in
                                              ("trust", "cont", "recall", "triplets", "class_trust")]

    errors = common.table(["method", *(f"{ds} {c}" for ds in datasets for c in ("error", "fit (s)"))],
                          [[n, *(c for ds in datasets for c in cells(ds, n))] for n in names],
                          "l" + "r" * 2 * len(datasets))
    faith = common.table(["method", *(f"{ds} {c}" for ds in datasets
                                      for c in ("T", "C", "recall", "triplets", "class T"))],
                         [[n, *(c for ds in datasets for c in faithful(ds, n))] for n in names],
                         "l" + "r" * 5 * len(datasets))
    return errors, faith


def main(argv=None, results=RESULTS):
    argv = list(sys.argv[1:] if argv is None else argv)
    if (done := common.run_part(argv, {}, quick=_quick)) is not common.NO_PART:
        return done
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(DATASETS),
                   help=f"data sets (default {' '.join(DATASETS)}; the shared UCI sets: "
                   f"{' '.join(UCI)})")
    p.add_argument("--out", default="maps2d.md",
                   help="the results file in benchmarks/results (maps2d_uci.md for the UCI sets)")
    p.add_argument("--splits", type=int, default=1,
                   help="stratified splits (seeds 0, 1, ...); the tables give their means")
    p.add_argument("--methods", nargs="*", default=None,
                   help="only these methods (names as in the table)")
    p.add_argument("--deemap", nargs="*", default=[], metavar="JSON",
                   help="DEEMap with these parameters (a JSON object each) beside the methods")
    a = p.parse_args(argv)
    t0 = time.time()
    available = {k: v for k, v in methods().items() if not a.methods or k in a.methods}
    available.update(variants(a.deemap))
    names = list(available)
    table, maps, quality, n_test = measure(a.datasets, available, a.splits)
    head, verdicts = headline(a.datasets, names, table)
    errors, faith = result_tables(a.datasets, names, table, quality)
    command = (f"--datasets {' '.join(a.datasets)} --out {a.out}"
               + (f" --splits {a.splits}" if a.splits != 1 else "")
               + (" --methods " + " ".join(f"'{m}'" for m in a.methods) if a.methods else "")
               + (" --deemap " + " ".join(f"'{v}'" for v in a.deemap) if a.deemap else ""))
    lines = ["# 2-D maps of held-out samples", "", "Headline: " + "; ".join(head), "",
             f"Command: `.venv/bin/python benchmarks/maps2d.py {command}`", "",
             f"{common.machine()[:-1]}; {time.time() - t0:.0f} s in all. "
             + ("One run per cell." if a.splits == 1 else
                f"Every cell: the mean over {a.splits} stratified splits (seeds 0 to "
                f"{a.splits - 1}); the pictures: split 0."), "",
             "2-D 1-NN test error (%) of the test samples embedded out of sample, against the "
             "map of the training samples; fit time (s); n/a: not run at this size.", "",
             *errors, "", "Against supervised UMAP (the target: DEEMap's held-out error below "
             "it):", "", *verdicts, "", "## Faithfulness of the test samples' maps", "",
             "k = 10 on the test samples embedded out of sample, against their input features "
             "(for mnist5k its 50 PCA dimensions): trustworthiness (T) and continuity (C) "
             "as scikit-learn computes them, recall of the 10 input neighbours among the 10 "
             "map neighbours, accuracy of 20,000 random triplets (global structure), "
             "trustworthiness within each class (mean).", "", *faith]
    lines += targets(a.datasets, table, quality, n_test)
    labelled = [n for n in names if n.startswith("graphdr.DEEMap") and "no labels" not in n]
    lines += floors(a.datasets, labelled, table, quality, n_test)
    lines += ["", "Pictures (the test samples on each method's map, coloured by their true "
              "class; the training map in light grey):", ""]
    lines += [f"![{ds}]({draw(ds, names, maps, table, results, Path(a.out).stem).name})"
              for ds in a.datasets]
    (results / a.out).write_text("\n".join(lines) + "\n")


def variants(given):
    """``--deemap``: name -> (fit, transform) of DEEMap with each JSON object's parameters."""
    import json

    import graphdr

    out = {}
    for text in given:
        try:
            params = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"--deemap {text!r}: not a JSON object ({exc})") from None
        if not isinstance(params, dict):
            raise SystemExit(f"--deemap {text!r}: not a JSON object of DEEMap's parameters")
        out[f"graphdr.DEEMap {json.dumps(params, sort_keys=True)}"] = (
            lambda X, y, params=params: graphdr.DEEMap(**params).fit(X, y), _transform)
    return out


#: the peers of the map's targets
PEERS = ("supervised UMAP", "openTSNE (unsupervised)")


def _slack(ds, n_test):
    """The error target's slack: max(0.3 points, one test sample)."""
    return max(0.3, 100.0 / (n_test or {}).get(ds, np.inf))


def floors(datasets, mine, table, quality, n_test=None):
    """With several DEEMap variants: per set, the error target (:func:`targets`), each
    variant's error and continuity, the variant of least error, and which variants meet it."""
    if len(mine) < 2:
        return []

    def label(m):
        return m[len("graphdr.DEEMap"):].strip() or "default"

    lines = ["", "The DEEMap variants side by side (the floor of the error target: the least "
             "error of any variant; each variant's continuity beside it):", ""]
    for ds in datasets:
        ref = [m for m in PEERS if (ds, m) in quality]
        got = [(table[(ds, m)][0], m) for m in mine if (ds, m) in quality]
        if not ref or not got:
            continue
        bound = min(table[(ds, m)][0] for m in ref) + _slack(ds, n_test)
        err, best = min(got)
        cells = ", ".join(f"{label(m)} {e:.1f} % (continuity {quality[(ds, m)]['cont']:.3f})"
                          for e, m in got)
        meet = [label(m) for e, m in got if e <= bound]
        lines.append(f"- {ds}: the target {bound:.1f} %; {cells}; least: {label(best)} "
                     f"{err:.1f} %; "
                     + (f"met by {', '.join(meet)}" if meet else "met by none (a floor)"))
    return lines


def targets(datasets, table, quality, n_test=None):
    """The lines of the map's targets, each with its figures and verdict: with the
    labels, DEEMap's 1-NN error at most the lower of supervised UMAP's and openTSNE's plus
    max(0.3 points, one test sample), trustworthiness at least the higher's - 0.005, continuity
    at least openTSNE's - 0.02 (on two thirds of the sets), random triplets at least
    supervised UMAP's; without them, trustworthiness and continuity within 0.01 of openTSNE's
    at no more than its fit time."""
    lines, near = [], []
    mark = {True: "met", False: "not met"}
    for ds in datasets:
        ref = [m for m in PEERS if (ds, m) in quality]
        mine = quality.get((ds, "graphdr.DEEMap"))
        if not ref or mine is None:
            continue
        slack = _slack(ds, n_test)
        best_err = min(table[(ds, m)][0] for m in ref)
        best_trust = max(quality[(ds, m)]["trust"] for m in ref)
        err = table[(ds, "graphdr.DEEMap")][0]
        line = (f"- {ds}: error {err:.1f} % vs {best_err:.1f} % + {slack:.1f}: "
                f"{mark[err <= best_err + slack]}; trustworthiness {mine['trust']:.3f} vs "
                f"{best_trust:.3f} - 0.005: {mark[mine['trust'] >= best_trust - 0.005]}")
        tsne = quality.get((ds, "openTSNE (unsupervised)"))
        if tsne:
            near.append(mine["cont"] >= tsne["cont"] - 0.02)
            line += (f"; continuity {mine['cont']:.3f} vs openTSNE's {tsne['cont']:.3f} - 0.02:"
                     f" {mark[near[-1]]}")
        if (ds, "supervised UMAP") in quality:
            umap_triplets = quality[(ds, "supervised UMAP")]["triplets"]
            line += (f"; triplets {mine['triplets']:.3f} vs supervised UMAP's "
                     f"{umap_triplets:.3f}: {mark[mine['triplets'] >= umap_triplets]}")
        bare = quality.get((ds, "graphdr.DEEMap (no labels)"))
        if bare and tsne:
            t_fit, f_fit = table[(ds, "graphdr.DEEMap (no labels)")][1], table[
                (ds, "openTSNE (unsupervised)")][1]
            gap = min(bare["trust"] - tsne["trust"], bare["cont"] - tsne["cont"])
            line += (f". No labels: trustworthiness {bare['trust']:.3f}, continuity "
                     f"{bare['cont']:.3f} vs openTSNE's {tsne['trust']:.3f}, {tsne['cont']:.3f}"
                     f" (within 0.01: {mark[gap >= -0.01]}), fit {t_fit:.1f} s vs {f_fit:.1f} s:"
                     f" {mark[t_fit <= f_fit]}")
        lines.append(line)
    if not lines:
        return []
    if near:
        lines.append(f"- continuity within 0.02 of openTSNE's on {sum(near)} of {len(near)} "
                     f"sets (the target: two thirds): {mark[3 * sum(near) >= 2 * len(near)]}")
    return ["", "The targets for DEEMap's default:", ""] + lines


def _quick():
    """The comparison on the digits, its files in a temporary folder."""
    global QUICK
    QUICK = True
    with common.smoke_outputs(common) as tmp:
        main(["--datasets", "digits", "--methods", "PCA", "graphdr.LDA", "graphdr.DEEMap",
              "--deemap", '{"separation": 0.5}'], results=tmp)

if __name__ == "__main__":
    main()
