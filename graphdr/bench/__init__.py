"""``graphdr bench``: the papers' evaluation protocols as a library and a command-line tool.

Modules: :mod:`~graphdr.bench.datasets` (data by name or file), :mod:`~graphdr.bench.methods`
(the method registry), :mod:`~graphdr.bench.protocols` (the papers' settings),
:mod:`~graphdr.bench.evaluation` (one cross-validation cell), :mod:`~graphdr.bench.report`
(results.csv, Markdown tables, index.html), :mod:`~graphdr.bench.plots` (PNG figures) and
:mod:`~graphdr.bench.runner` (the sweep); :mod:`~graphdr.bench.baselines` holds baselines that are
not library estimators (the equal-weight kernel LDA of MKL-DR); :mod:`~graphdr.bench.significance`
the 5x2cv tests of whether one classifier errs less than another (Dietterich's t, Alpaydin's F).
"""

from .datasets import load_dataset
from .methods import MethodUnavailableError, get_method, parse_method, register
from .protocols import PROTOCOLS, get_protocol
from .runner import run_bench

__all__ = ["load_dataset", "get_method", "parse_method", "register", "MethodUnavailableError",
           "PROTOCOLS", "get_protocol", "run_bench"]
