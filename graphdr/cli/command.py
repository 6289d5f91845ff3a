"""The ``graphdr`` command: ``graphdr demo``, ``graphdr bench``, ``graphdr reproduce`` and
``graphdr list``.

Run ``graphdr bench --help`` for everything the benchmark tool does, ``graphdr reproduce
--help`` for the papers' tables and figures.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import time

from .. import _outputs
from . import arguments
from .dask_cluster import dask_client
from .interrupts import command_line, interrupted
from .map_command import add_file_options, add_scale_options, read_options, run_map

__all__ = ["main", "build_parser"]

_BENCH_EPILOG = """\
what it does
  For every data set, method and fold of the protocol's cross-validation, the method is fitted on
  the (scaled) training fold, training and test fold are projected to each dimension 1..C-1 (or
  --max-dim), and every classifier is trained on the projected training fold and scored on the
  projected test fold. For the pictures, each method is fitted in 2-D on a stratified half of
  every data set and draws the other half.  Methods of a protocol's default list that this
  version of graphdr does not have yet are skipped with a note; asking for them by name is an
  error.

protocols (--protocol; see graphdr/bench/protocols.py)
  bouzas       paper 000 Tables II-V: scaled to [-1,1], stratified 10-fold CV, classifiers NCC,
               3-NN, linear SVM (C=100), RBF SVM (C=100, sigma=1); RBF kernel sigma=1 for the
               kernel methods; unit-length projections (--projection none, the paper's);
               dims 1..C-1. Default data: vehicle, vowel, sonar, ionosphere.
  gavriilidis  paper 002 Tables 2-4: scaled to [0,1], 5x2 CV, 1-NN, dims 1..C-1, the criteria
               QMI, MI_A and MI_B with random and LDA initialisation (qmi:init=random,
               qmi:init=lda, mi-a:..., mi-b:...), LDA and PCA. Default data: iris, wine,
               vehicle, led7digit.
  dee          paper 003 Fig. 11/6: 10 random splits with 25 training samples per class, 1-NN
               recognition rate versus dimension 1..30, optimizer curves; DEE, DSNE, MMPA,
               DCV, LDA, PCA. Default data: digits.
  mkldr        paper 001 Table 1: multi-view .npz data (pass --datasets), stratified 5-fold
               CV, 1-NN, MKL-LDA/MKL-LDE against per-view kernel Fisher discriminants
               (kernel-lda:view=each), KFD-Voting and KFD-SAMME (kfd-voting, kfd-samme: they
               classify by themselves; their errors appear under the classifier 'own').
  demo         the preset of `graphdr demo`: standardised features, stratified 10-fold CV,
               1-NN, the foundation methods and scikit-learn references. Default data: wine.
  The options above override a protocol's settings (--folds, --repeats, --scaling, ...).

data sets (--datasets a,b,...)
  scikit-learn: iris, wine, breast_cancer, digits.  Offline suite shipped with graphdr (UCI):
  sonar, ionosphere, heart, led7digit, pima, vehicle, vowel, wdbc.  Generated: swiss_roll (a
  labelled Swiss roll; options swiss_roll:n=1000:classes=4:noise=0.5).  Files: .npz with X and
  y (multi-view: view_0, view_1, ... and y), .csv with a header (label column: --label-column,
  default a column named label/class/target/y), LIBSVM/svmlight (.svm, .libsvm, .svmlight, or
  svmlight:PATH).

methods (--methods a,b,...; `graphdr list methods` shows all, with availability)
  lda, lpp, supervised-lpp (slpp), mfa, lde, kernel-lda (gda, kfd), kernel-lpp,
  supervised-kernel-lpp (sklpp), ckfd; scikit-learn references pca, kernel-pca (kpca), nca,
  tsne (2-D pictures only: t-SNE cannot embed new samples); lqmi, kqmi (paper 000); qmi, mi-a,
  mi-b (paper 002, gradient ascent); dee, dsne, mmpa, dcv, ee (paper 003; ee: pictures only);
  deemap (graphdr's 2-D map, dims 1-2, e.g. deemap:n_neighbors=15);
  mkl-lda, mkl-lde (paper 001, multi-view data).  Parameters: name:key=value,
  e.g. kernel-lda:gamma=0.1 or supervised-lpp:n_neighbors=7; view=K restricts a method to view
  K of multi-view data (view=each: one method per view).

classifiers (--classifiers a,b,...)
  ncc (nearest class centroid), 1nn, 3nn, linear-svm (C=100), rbf-svm (C=100, gamma
  --svm-gamma, default 0.5 = sigma 1).

outputs (in --out)
  results.csv   long form: dataset, method, classifier, fold, dim, n_test, n_errors, error,
                fit_seconds, n_iter, converged.  fit_seconds is wall-clock time and the only
                column that differs between two runs of the same command (--no-timing leaves
                it empty, and then two runs give byte-identical files); n_iter and converged
                (1 or 0) are an iterative method's iterations and whether it stopped by its
                rule before its cap (empty for the other methods).
  tables.md     paper-style tables per classifier: mean error over folds (%), minimum over the
                dimensions with the dimension in parentheses, best per data set in bold, a
                wins row; then the error at every dimension (mean +- std over folds).
  *.png         error versus dimension per data set and classifier; a 2-D scatter of every
                method per data set, coloured by class (one grid per data set; one file per
                method with --scatter-per-method): methods with a transform are fitted on a
                stratified half and draw the other half, t-SNE draws all samples; optimizer
                curves of methods that record history_; kernel weights of multiple-kernel
                methods (kernel_weights_ or beta_).
  index.html    everything above in one page, opened from disk (no server, no scripts).
  config.json   the settings the numbers depend on; failures.txt lists cells that failed.

reproducibility and resumption
  Splits and every random_state derive from --seed, the data set and the fold (all methods of a
  fold share the random_state, e.g. the same random initialisation), so results do not depend
  on --n-jobs or on the order in which cells finish.  A run works in DIR/in-progress/ and
  replaces DIR's files only when it is complete: interrupted, it leaves DIR as it was and every
  finished cell in DIR/in-progress/results.csv, and the command it prints (the same one without
  --fresh) goes on from there.  Rerunning a command skips the cells already in results.csv
  (adding methods or data sets computes only the new cells).  Changed settings are refused
  (use --fresh to start over: the earlier results stay until the new ones are complete).

exit status
  0 success; 1 some cells failed (listed in failures.txt; the others are written and a rerun
  retries the failed ones); 2 bad arguments or input (unknown data set, method, protocol,
  classifier, an unreadable data file, an --out that cannot be written, or settings that differ
  from the results already in --out: one line naming the file, line or column); 130
  interrupted.

examples
  graphdr bench --protocol bouzas --out bouzas-report --n-jobs 2
  graphdr bench --protocol bouzas --datasets sonar,my.csv --label-column species \\
      --methods lda,kernel-lda:gamma=0.1,pca
  graphdr bench --protocol demo --datasets iris --methods lda,pca --folds 2 --out tiny
"""


_REPRODUCE_EPILOG = """\
papers (the full citations are at the top of each report.md)
  000  Bouzas et al. (QMI graph embedding): Tables II-V under the paper's protocol (scaled to
       [-1,1], 10-fold CV, NCC / 3-NN / linear SVM / RBF SVM, minimum over dimensions 1..C-1,
       wins row) on the 10 UCI sets available offline; the paper's statements about its
       tables checked on ours (its table cells are not in the text); Figs. 1-4 (2-D
       projections of a Swiss roll and of digits).
  001  Lin et al. (MKL-DR): Table 1 (KFD per kernel, KFD-Voting, KFD-SAMME, MKL-LDA,
       MKL-LDE) on multi-view digits standing in for Caltech-101.
  002  Gavriilidis & Tefas (QMI ratio criteria): Tables 2-4 (5x2 CV, 1-NN) on balance,
       ionosphere, wine, iris, and stand-ins for CMU faces (digits) and Ecoli (led7digit).
  003  Zheng et al. (DEE): Fig. 11 (recognition rate versus dimension, 25 training samples
       per class) and Fig. 6 (objective versus iteration of the LD, FP, CG and GD optimizers)
       on digits standing in for USPS, ORL, Yale and COIL20.

outputs (in --out, default graphdr-reproduce-PAPER)
  report.md     the command, the data (stand-ins named), for every table the paper's number,
                ours and the difference, one line on why they differ, the paper's
                statements checked, our paper-style tables and the figures.
  results.csv   one row per compared number: table, row, column, metric, paper, ours,
                difference, note.
  EXPERIMENT/   one `graphdr bench` output per experiment (results.csv with every fold and
                dimension, tables.md, PNG figures, index.html); reruns resume.
  in-progress/  only while a run is unfinished: the run works there and its files replace the
                ones above when its report is written, so an interrupted run (Ctrl-C) leaves
                the earlier report and results as they were. The command it prints (the same
                one without --fresh) goes on from the cells finished there; with --fresh a run
                starts over.

--quick shrinks every experiment to seconds (a smoke test: its numbers are not a
reproduction). A full run takes at most about 30 minutes per paper on two cores.

examples
  graphdr reproduce 002 --n-jobs 2 --out reports/002
  graphdr reproduce 000 --quick --out /tmp/q000
"""


def _add_common(p, default_out):
    p.add_argument("--out", default=default_out, metavar="DIR",
                   help=f"output directory (default: {default_out or 'graphdr-reproduce-PAPER'})")
    p.add_argument("--n-jobs", type=arguments.n_jobs, default=1, metavar="N",
                   help="parallel worker processes (joblib; -1: all cores; default 1)")
    p.add_argument("--backend", choices=("loky", "dask"), default="loky",
                   help="where parallel cells run: local worker processes (loky, default) or a "
                   "Dask cluster through joblib (dask; needs graphdr[dask])")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="with --backend dask: address of a running Dask scheduler "
                   "(e.g. tcp://10.0.0.5:8786); default: start a local cluster on 127.0.0.1 "
                   "with --n-jobs workers (2 when --n-jobs is 1 or -1)")
    p.add_argument("--threads", type=arguments.positive_int, default=1, metavar="T",
                   help="BLAS/OpenMP threads per process (default 1: the cells are small and "
                   "extra threads slow them down; raise for large kernel problems)")
    p.add_argument("--seed", type=int, default=0, help="seed of splits and methods (default 0)")
    p.add_argument("--fresh", action="store_true",
                   help="compute every cell again instead of resuming (the results already in "
                   "DIR stay until the new ones are complete)")
    p.add_argument("--no-timing", action="store_true",
                   help="leave results.csv's fit_seconds empty (byte-identical reruns)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    p.add_argument("--scatter-per-method", action="store_true",
                   help="also write one 2-D scatter PNG per method (besides the grid)")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="graphdr",
        description="Supervised dimensionality reduction: run the papers' evaluation protocols "
        "and write tables, plots and an HTML report.",
    )
    sub = parser.add_subparsers(dest="command", metavar="{demo,bench,reproduce,map,list}")

    for add in (_add_demo, _add_bench, _add_reproduce, _add_map, _add_list):
        add(sub)
    return parser


def _add_demo(sub):
    """``graphdr demo``: the tour of every method on wine, and the papers' sub-reports."""
    demo = sub.add_parser(
        "demo", help="quick tour: every foundation method on wine, 10-fold CV 1-NN error",
        description="Fit LDA, LPP (unsupervised and supervised), MFA, LDE, KernelLDA, supervised "
        "KernelLPP and CKFD, with scikit-learn's PCA, kernel PCA, NCA and t-SNE (picture only) as "
        "reference points, on scikit-learn's wine data (standardised on each training fold); "
        "write the 10-fold cross-validated 1-NN error per method (tables.md, results.csv), a 2-D "
        "embedding of each method (PNG) and index.html into --out. Then the papers' own "
        "methods, each in a sub-report linked from index.html: LQMI, KQMI and QMIProjection "
        "(MI_A) against LDA on the same data (qmi/), DEE with its four optimizers on digits, "
        "objective curves and 2-D maps (dee/), and MKL-DR on six views of the digits with its "
        "learned kernel weights (mkldr/); then held-out 2-D maps of the digits, DEEMap against "
        "LDA, linear DEE and kernel QMI (maps/). --no-papers skips them. The demo always recomputes "
        "(results already in --out are replaced once the new ones are complete).",
    )
    _add_common(demo, "graphdr-report")
    demo.add_argument("--no-papers", action="store_true",
                      help="only the graph-embedding panel (skip the QMI, DEE and MKL-DR "
                      "sub-reports)")
    demo.add_argument("--dataset", default="wine",
                      help="data set (any name or file `graphdr bench` accepts; default wine)")
    demo.add_argument("--folds", type=arguments.positive_int, default=None,
                      help="cross-validation folds (default 10)")


def _add_bench(sub):
    """``graphdr bench``: a paper's evaluation protocol over data sets and methods."""
    bench = sub.add_parser(
        "bench", help="run an evaluation protocol over data sets and methods",
        description="Run one of the papers' evaluation protocols on data sets and methods "
        "chosen by name, and write results.csv, Markdown tables, PNG plots and index.html.",
        epilog=_BENCH_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench.add_argument("--protocol", default="bouzas",
                       help="bouzas (default), gavriilidis, dee, mkldr, defaults or demo")
    bench.add_argument("--datasets", "-d", type=arguments.csv_list, default=None, metavar="A,B",
                       help="data set names or files (default: the protocol's)")
    bench.add_argument("--methods", "-m", type=arguments.csv_list, default=None, metavar="A,B",
                       help="method names, optionally name:key=value (default: the protocol's)")
    bench.add_argument("--classifiers", "-c", type=arguments.csv_list, default=None, metavar="A,B",
                       help="ncc, 1nn, 3nn, linear-svm, rbf-svm (default: the protocol's)")
    bench.add_argument("--folds", type=arguments.positive_int, default=None,
                       help="folds of the stratified cross-validation")
    bench.add_argument("--repeats", type=arguments.positive_int, default=None,
                       help="repetitions of the cross-validation (or random splits for dee)")
    bench.add_argument("--train-per-class", type=float, default=None, metavar="K",
                       help="dee protocol: training samples per class (a fraction if < 1)")
    bench.add_argument("--max-dim", type=arguments.positive_int, default=None,
                       help="evaluate dimensions 1..MAX_DIM (default C-1; capped per method)")
    bench.add_argument("--scaling", choices=("minmax", "minmax01", "standard", "none"),
                       default=None, help="feature scaling fitted on each training fold: "
                       "minmax = [-1,1], minmax01 = [0,1]")
    bench.add_argument("--kernel-gamma", type=arguments.gamma, default=None, metavar="G",
                       help="RBF gamma of the kernel methods, or 'default' (1/n_features)")
    bench.add_argument("--svm-gamma", type=float, default=None, metavar="G",
                       help="gamma of the RBF SVM classifier (default 0.5, i.e. sigma=1)")
    bench.add_argument("--projection", choices=("within", "total", "none", "default"),
                       default=None, help="scaling of the projections of the estimators that "
                       "have one (bouzas: none, the paper's unit-length vectors; 'default': "
                       "each estimator's own, 'within')")
    bench.add_argument("--label-fraction", type=arguments.fraction, default=None, metavar="F",
                       help="keep the labels of only a fraction F of each class's training "
                       "rows (stratified, by --seed and fold); semi-supervised methods fit every "
                       "row with y = -1 for the others, supervised ones are also fitted on the "
                       "labelled rows only (METHOD@labelled)")
    bench.add_argument("--no-plots", action="store_true", help="skip the PNG figures")
    bench.add_argument("--no-html", action="store_true", help="skip index.html")
    _add_common(bench, "graphdr-bench")
    add_file_options(bench)


def _add_reproduce(sub):
    """``graphdr reproduce``: a paper's tables and figures, ours beside the paper's."""
    rep = sub.add_parser(
        "reproduce", help="rerun a paper's tables and figures, ours beside the paper's numbers",
        description="Rerun every table and figure of one of the four papers for which data "
        "exist offline (stand-ins named where they do not) and write report.md with the "
        "paper's numbers, ours and the differences explained.",
        epilog=_REPRODUCE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("paper", choices=("000", "001", "002", "003"),
                     help="which paper (see below)")
    rep.add_argument("--quick", action="store_true",
                     help="a few seconds per paper: tiny data, few methods (smoke test)")
    _add_common(rep, None)


def _add_map(sub):
    """``graphdr map``: the 2-D map of a data set (page, table, picture)."""
    mp = sub.add_parser(
        "map", help="draw the 2-D map of a labelled data set (interactive HTML, CSV, PNG)",
        description="Fit graphdr.DEEMap (the nonparametric supervised 2-D map, its defaults) "
        "to a data set given as `graphdr bench` takes it (a scikit-learn or vendored name, "
        "CSV/TSV or Parquet with a label column, .npz with X and y, LIBSVM) and write "
        "OUT.html (an interactive page, self-contained and offline: pan, zoom, hover for a "
        "sample's id and columns, search, class legend, and how well held-out samples land), "
        "OUT.csv (id, label, x, y) and OUT.png (the picture).",
        epilog="exit status: 0 success; 2 a bad argument or input file (one line on stderr "
        "naming it); 130 interrupted.",
    )
    mp.add_argument("data", help="data set name or file")
    mp.add_argument("--out", default="graphdr-map", help="output path without suffix "
                    "(default graphdr-map: graphdr-map.html, .csv and .png; missing folders "
                    "are created)")
    mp.add_argument("--hover-columns", type=arguments.csv_list, default=(), metavar="A,B",
                    help="columns shown on hover besides the id and the label (names or "
                    "indices; for named data sets, feature indices); of a file, these are for "
                    "looking and never features, text or numbers, unless --hover-features")
    mp.add_argument("--color-column", default=None, metavar="COL",
                    help="colour the page and picture by this column instead of the labels "
                    "(the map is still fitted on the labels, shown on hover): text or a few "
                    "distinct numbers as categories, other numbers on a sequential scale in "
                    "quantile bins; of a file, never a feature unless --hover-features")
    mp.add_argument("--hover-features", action="store_true",
                    help="numeric --hover-columns of a file stay features of the map")
    mp.add_argument("--outputs", type=arguments.outputs_list, default=("page", "table", "png"),
                    metavar="A,B", help="which files to write: page (OUT.html), table "
                    "(OUT.csv, or OUT.parquet/ past memory), png (OUT.png); default all three, "
                    "e.g. --outputs png for the picture alone")
    mp.add_argument("--no-png", action="store_true", help="skip OUT.png")
    mp.add_argument("--title", default=None, help="title of the picture")
    mp.add_argument("--feature-scaling", default="auto", choices=("auto", "standard", "none"),
                    help="scaling of the features before the map (default auto: standardise "
                    "when one feature holds more than half of the total variance, as in "
                    "different units; else keep them as given)")
    mp.add_argument("--placement-width", type=arguments.placement_width, default="auto",
                    metavar="W", help="how new samples are placed (the page's held-out "
                    "error): small, by their nearest training sample; large, by all their "
                    "neighbours alike (default auto: the width of lowest leave-one-out error)")
    mp.add_argument("--repulsion", default="cauchy", choices=("cauchy", "gaussian"),
                    help="the map's objective: cauchy (default), the heavy-tailed map (t-SNE's "
                    "objective, the labels separating the classes by --separation), which "
                    "keeps the data's shape and maps a file without labels; gaussian, "
                    "discriminative elastic embedding's (paper 003), classes apart, fast")
    mp.add_argument("--separation", type=arguments.separation, default="auto", metavar="S",
                    help="with --repulsion cauchy: how far the labels pull classes apart, "
                    "from 0 (the data alone) to 1 (no attraction across classes); default "
                    "auto: the least of 0, 0.5, 0.9 that held-out labels support")
    mp.add_argument("--labels", default=None, choices=("flag", "audit", "given"),
                    help="flag (default): find the labels the data contradicts "
                    "(graphdr.LabelIssues), ring them on the page (legend entry 'suspect "
                    "labels (N)') and the picture, and add the columns 'label quality' and "
                    "'suggested class' to the table; audit: also fit the map as if those rows "
                    "were unlabelled; given: trust every label (faster). Past memory (a Dask "
                    "cluster) the labels are taken as given")
    mp.add_argument("--label-fixes", default=None, metavar="FILE",
                    help="apply the label fixes the map's page downloads (CSV: id, old "
                    "label, new label; an empty new label: unlabelled) before the fit; an id "
                    "the data does not have, an id fixed twice or an old label that is not "
                    "the data's is refused (exit 2) and nothing is changed")
    mp.add_argument("--quiet", action="store_true", help="no messages")
    add_file_options(mp)
    add_scale_options(mp)


def _add_list(sub):
    """``graphdr list``: the methods, data sets, protocols or classifiers."""
    lst = sub.add_parser("list", help="list methods, data sets, protocols or classifiers")
    lst.add_argument("what", choices=("methods", "datasets", "protocols", "classifiers"))


def _list(what):
    from ..bench import datasets, evaluation, methods, protocols

    if what == "methods":
        rows = methods.describe_methods()
        width = max(8, *(len(r[1]) for r in rows))
        for name, label, kind, sup, desc in rows:
            print(f"{name:24s} {label:{width}s} {kind:10s} {sup:13s} {desc}")
    elif what == "datasets":
        for name in datasets.builtin_names():
            print(name)
    elif what == "protocols":
        for name, p in protocols.PROTOCOLS.items():
            print(f"{name:12s} {p.description}")
    else:
        for name, desc in evaluation.CLASSIFIERS.items():
            print(f"{name:12s} {desc}")
    return 0


def _run(args, argv):
    from ..bench.protocols import get_protocol
    from ..bench.runner import run_bench
    from .demo import DEMO_PAPERS, demo_papers, demo_stage

    echo = (lambda *a, **k: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    if args.command == "demo":
        protocol = get_protocol("demo").replace(n_splits=args.folds)
        datasets, methods, classifiers, title = [args.dataset], None, None, "graphdr demo"
        plots_on = html_on = True
        label_column = None
    else:
        protocol = get_protocol(args.protocol)
        protocol = protocol.replace(
            n_splits=args.folds, n_repeats=args.repeats, n_train_per_class=args.train_per_class,
            max_dim=args.max_dim, scaling=args.scaling, svm_gamma=args.svm_gamma,
        )
        if args.kernel_gamma == "default":
            protocol = dataclasses.replace(protocol, kernel_gamma=None)
        elif args.kernel_gamma is not None:
            protocol = protocol.replace(kernel_gamma=args.kernel_gamma)
        if args.projection == "default":
            protocol = dataclasses.replace(protocol, projection=None)
        elif args.projection is not None:
            protocol = protocol.replace(projection=args.projection)
        datasets, methods, classifiers = args.datasets, args.methods, args.classifiers
        title, label_column = None, args.label_column
        plots_on, html_on = not args.no_plots, not args.no_html
    start = time.perf_counter()
    with _dask_client(args, echo), demo_stage(args, command_line(argv)) as stage:
        result = _call_run_bench(run_bench, protocol, datasets, methods, classifiers, args, argv,
                                 label_column, plots_on, html_on, title, echo, stage)
        if args.command == "demo" and not args.no_papers:
            result.failures.extend(demo_papers(run_bench, protocol, args,
                                               command_line(argv), echo, stage))
        if stage is not None:  # the demo's files replace --out's when all are written
            stage.commit(stale=["failures.txt"] + [os.path.join(folder, "failures.txt")
                                                   for folder, *_ in DEMO_PAPERS])
    elapsed = time.perf_counter() - start
    index = os.path.join(args.out, "index.html")
    echo(f"Wrote {len(result.files)} files to {args.out}/ in {elapsed:.1f} s"
         + (f"; open {index}" if os.path.exists(index) else "") + ".")
    if result.failures:
        print(f"graphdr: {len(result.failures)} cell(s) failed; see "
              f"{os.path.join(args.out, 'failures.txt')}:", file=sys.stderr)
        for f in result.failures[:10]:
            print("  " + f, file=sys.stderr)
        return 1
    return 0


def _reproduce(args, argv):
    from ..bench.reproduce import reproduce

    if args.backend != "loky":
        raise ValueError("graphdr reproduce runs its cells with local worker processes only "
                         "(--backend loky).")
    echo = (lambda *a, **k: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    path, failures = reproduce(
        args.paper, out=args.out, quick=args.quick, n_jobs=args.n_jobs, threads=args.threads,
        seed=args.seed, fresh=args.fresh, progress=not args.quiet, timing=not args.no_timing,
        echo=echo, argv=argv,
    )
    if failures:
        print(f"graphdr reproduce: {len(failures)} cell(s) failed; see {path}:", file=sys.stderr)
        for f in failures[:10]:
            print("  " + f, file=sys.stderr)
        return 1
    return 0


@contextlib.contextmanager
def _dask_client(args, echo):
    """A Dask client for ``--backend dask`` (connect to --scheduler or start a local cluster)."""
    if getattr(args, "backend", "loky") != "dask":
        yield None
        return
    n_workers = args.n_jobs if args.n_jobs > 1 else 2
    with dask_client(args.scheduler, n_workers, None, "graphdr bench", echo) as client:
        yield client


def _call_run_bench(run_bench, protocol, datasets, methods, classifiers, args, argv, label_column,
                    plots_on, html_on, title, echo, stage=None):
    # a file is read as `graphdr map` reads it: its rows without a label are left out
    options = read_options(args, unlabelled=True) if args.command == "bench" else None
    return run_bench(
        protocol, datasets=datasets, methods=methods, classifiers=classifiers, out=args.out,
        n_jobs=args.n_jobs, seed=args.seed, label_column=label_column, plots_on=plots_on,
        html_on=html_on, progress=not args.quiet, timing=not args.no_timing,
        fresh=args.fresh or args.command == "demo",
        command=command_line(argv), title=title, echo=echo, threads=args.threads,
        scatter_per_method=args.scatter_per_method,
        backend=getattr(args, "backend", "loky"), read_options=options,
        label_fraction=getattr(args, "label_fraction", None), stage=stage,
    )


def main(argv=None):
    """Entry point of the ``graphdr`` console script; returns the exit status. Output into a
    pipe that closes early (``graphdr list datasets | head``) ends quietly, with 141 (128 +
    SIGPIPE) as a program that SIGPIPE stops."""
    from .._outputs import count_interrupts, keep_lost_interrupts, raise_lost_interrupt

    keep_lost_interrupts()  # Ctrl-C that Python drops: the run still stops (exit 130)
    count_interrupts()  # and one that an extension answers with an error of its own
    try:
        code = _main(argv)
        raise_lost_interrupt()
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return code
    except BrokenPipeError:
        # what is still buffered would raise again when Python flushes stdout at exit
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (KeyboardInterrupt, ImportError) as exc:  # before a command's own answer
        if not _caused_by_interrupt(exc):  # (parsing, listing)
            raise
        _outputs.interrupt_answered()
        print("\ngraphdr: interrupted.", file=sys.stderr)
        return 130


def _main(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "list":
        return _list(args.what)
    try:
        try:
            if args.command == "reproduce":
                return _reproduce(args, argv)
            if args.command == "map":
                return run_map(args)
            return _run(args, argv)
        except (ValueError, RuntimeError, OSError) as exc:
            if _caused_by_interrupt(exc) or _outputs.INTERRUPTS:  # an error a Ctrl-C caused
                raise KeyboardInterrupt from exc
            raise
    except ValueError as exc:
        print(f"graphdr {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        from ..maps.partitions import ClusterFailure

        if not isinstance(exc, ClusterFailure):
            raise
        print(f"graphdr {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that could not be written or read after the checks
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"graphdr {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ImportError) as exc:
        from .._outputs import InterruptedAfterWriting

        # a Ctrl-C while an extension module initialised surfaces as an ImportError
        if isinstance(exc, ImportError) and not _caused_by_interrupt(exc):
            raise
        _outputs.interrupt_answered()
        if isinstance(exc, InterruptedAfterWriting):  # held while the files were renamed
            print(f"\ngraphdr {args.command}: interrupted after writing "
                  f"{', '.join(exc.files)}.", file=sys.stderr)
        else:
            print(f"\ngraphdr {args.command}: {interrupted(args, argv)}", file=sys.stderr)
        return 130


def _caused_by_interrupt(exc):
    """Whether ``exc`` came from a Ctrl-C (a ``KeyboardInterrupt`` among its causes)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _one_line(exc):
    return " ".join(str(exc).split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
