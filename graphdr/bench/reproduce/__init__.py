"""``graphdr reproduce``: rerun the four papers' tables and figures and set ours beside theirs.

For each paper (``000``, ``001``, ``002``, ``003``; each report cites its paper) this module
holds

* the experiments: a protocol of :mod:`~graphdr.bench.protocols` (with the paper's settings),
  the data sets (the paper's own where they ship with graphdr or scikit-learn, otherwise a
  named stand-in), the methods and classifiers; each experiment is one
  :func:`~graphdr.bench.runner.run_bench` call (resumable, parallel, with its results.csv,
  tables, PNG figures and index.html in a subdirectory);
* the paper's published numbers, transcribed from the paper's text, and where the paper
  gives none (paper 000's tables did not survive the text extraction), the paper's own
  statements about its results, each checked against our numbers;
* one line per table on why our numbers differ.

:func:`reproduce` runs the experiments and writes ``report.md`` (the command at the top; for
every table the paper's number, ours and the difference), ``results.csv`` (one row per compared
number) and the figures. ``quick=True`` shrinks every experiment to a few seconds (for tests);
the numbers of a quick run are not comparable with the paper's and the report says so.

Modules: :mod:`~graphdr.bench.reproduce.spec` (experiments, tables, claims, the lookup of our
numbers), one per paper (``bouzas`` 000, ``lin_mkl`` 001, ``gavriilidis`` 002, ``zheng_dee``
003) and :mod:`~graphdr.bench.reproduce.run` (running the experiments and writing the report).
"""

from .run import PAPERS, paper_numbers, reproduce
from .spec import Experiment, LedgerRow, Paper, PaperTable

__all__ = ["PAPERS", "Paper", "Experiment", "PaperTable", "LedgerRow", "reproduce",
           "paper_numbers"]
