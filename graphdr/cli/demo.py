"""``graphdr demo``'s sub-reports: the papers' own methods and the held-out 2-D maps, linked
from the main report's ``index.html``."""

from __future__ import annotations

import contextlib
import os

__all__ = ["demo_papers", "demo_stage", "DEMO_PAPERS"]


#: the papers' own methods in `graphdr demo`: (folder, title, data set, methods)
DEMO_PAPERS = (
    ("qmi", "Quadratic mutual information (papers 000, 002): LQMI, KQMI, QMIProjection against LDA",
     None, ("lda", "lqmi", "kernel-lda", "kqmi", "mi-a")),
    ("dee", "Discriminative elastic embedding (paper 003): the four optimizers and 2-D maps",
     "digits:per_class=60", ("dee:optimizer=ld", "dee:optimizer=fp", "dee:optimizer=cg",
                             "dee:optimizer=gd", "pca")),
    ("mkldr", "MKL-DR (paper 001) on six views of the digits: learned kernel weights",
     "digits_views:n=400", ("mkl-lda", "kernel-lda:view=each", "kfd-voting")),
)


@contextlib.contextmanager
def demo_stage(args, command):
    """``graphdr demo``'s :class:`~graphdr._outputs.StagedFolder` of ``args.out`` (it always
    starts over, and its unfinished work is removed when it stops); None for ``graphdr
    bench``, whose :func:`~graphdr.bench.runner.run_bench` stages its own."""
    if args.command != "demo":
        yield None
        return
    from .._outputs import StagedFolder, refuse_inputs
    from ..bench.datasets import input_files

    refuse_inputs([args.out], [args.dataset, *input_files(args.dataset)])  # before any write
    with StagedFolder(args.out, what="demo", fresh=True, keep=False, command=command) as stage:
        yield stage


def demo_papers(run_bench, protocol, args, command, echo, stage):
    """The papers' methods, each in a sub-report linked from the main index.html, written
    into the demo's :class:`~graphdr._outputs.StagedFolder` ``stage`` (of ``args.out``)."""
    failures, links = [], []
    for folder, title, dataset, methods in DEMO_PAPERS:
        out = os.path.join(args.out, folder)
        echo(f"graphdr demo: {title}")
        result = run_bench(
            protocol.replace(n_splits=min(protocol.n_splits, 3)),
            datasets=[dataset or args.dataset], methods=list(methods), out=out,
            n_jobs=args.n_jobs, seed=args.seed, progress=not args.quiet,
            timing=not args.no_timing, fresh=True, command=command, title=title,
            echo=echo, threads=args.threads, stage=stage,
        )
        failures.extend(result.failures)
        links.append((f"{folder}/index.html", title))
    links.append(_demo_maps(args, command, echo, stage.work(os.path.join(args.out, "maps"))))
    _link_sub_reports(stage.work(os.path.join(args.out, "index.html")), links)
    return failures


def _demo_maps(args, command, echo, folder):
    """The held-out 2-D maps of the digits (DEEMap against linear and kernel maps), written
    into ``folder``."""
    from sklearn.datasets import load_digits

    from ..bench.maps import write_maps_report

    title = "2-D maps of held-out digits: DEEMap against LDA, linear DEE and kernel QMI"
    echo(f"graphdr demo: {title}")
    X, y = load_digits(return_X_y=True)
    write_maps_report(folder, X / 16.0, y, dataset="digits", seed=args.seed, command=command)
    return "maps/index.html", title


def _link_sub_reports(index, links):
    """Add a section linking the sub-reports to the main report's index.html."""
    if not os.path.exists(index):
        return
    from html import escape

    items = "".join(f'<li><a href="{escape(href)}">{escape(text)}</a></li>' for href, text in links)
    section = f"<h2>The papers' own methods</h2>\n<ul>{items}</ul>\n"
    with open(index, encoding="utf-8") as fh:
        page = fh.read()
    page = page.replace("</body>", section + "</body>", 1) if "</body>" in page else page + section
    from .._outputs import atomic_open

    with atomic_open(index, "w", encoding="utf-8") as fh:
        fh.write(page)
