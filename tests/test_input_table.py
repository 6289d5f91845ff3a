"""The table of docs/user_guide/inputs.rst -- which inputs each estimator refuses -- measured.

Each probe below is fitted by every public estimator; the table says which ones refuse it (a
``ValueError``) and which fit it. The test recomputes the table and fails when the page says
otherwise: ``python tests/test_input_table.py`` rewrites it after a deliberate change.
"""

import pathlib
import re
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphdr

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "inputs.rst"
BEGIN, END = ".. begin-input-table", ".. end-input-table"

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_sweep import (  # noqa: E402  (the names)
    ESTIMATORS,
    MULTIVIEW,
    PREDICTS,
    PROBABILITIES,
    UNSUPERVISED,
)


def _data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 8)
    return rng.normal(size=(24, 5)) + 3 * rng.normal(size=(3, 5))[y], y


def _probes():
    X, y = _data()
    nan = X.copy()
    nan[2, 1] = np.nan
    inf = X.copy()
    inf[2, 1] = np.inf
    lonely = y.copy()
    lonely[0] = 9
    half = np.column_stack([X[:, :3], np.full(len(y), 2.0)])
    return {
        "NaN": (nan, y),
        "inf": (inf, y),
        "sparse X": (sp.csr_matrix(X), y),
        "one class": (X, np.zeros_like(y)),
        "a class of one sample": (X, lonely),
        "constant X": (np.full_like(X, 0.3), y),
        "a constant feature": (half, y),
        "1e300 scale": (X * 1e300, y),
        "1e-300 scale": (X * 1e-300, y),
        "duplicate rows": (np.vstack([X, X[:6]]), np.concatenate([y, y[:6]])),
        "n < features": (np.hstack([X[::3]] * 4), y[::3]),
        "y = -1 (unlabelled)": (X, np.where(np.arange(len(y)) % 4 == 0, -1, y)),
    }


def _fits(name, X, y):
    est = getattr(graphdr, name)()  # the defaults, as a user meets them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if name in MULTIVIEW:
                views = [X, X[:, :2]]
                est.fit(views, y)
                out = est.predict(views) if name in PREDICTS else est.transform(views)
            elif name in UNSUPERVISED:
                out = est.fit_transform(X) if name == "ElasticEmbedding" else \
                    est.fit(X).transform(X)
            elif name == "LabelIssues":  # the audit: its class probabilities
                out = est.fit(X, y).probabilities_
            elif name in PROBABILITIES:
                out = est.fit(X, y).predict_proba(X)
            else:
                out = est.fit(X, y).transform(X)
        except ValueError:
            return "refused"
        except TypeError as exc:  # scikit-learn's validation refuses sparse X with a TypeError
            assert "sparse" in str(exc).lower(), (name, exc)
            return "refused"
    if name not in PREDICTS:
        assert np.all(np.isfinite(np.asarray(out, dtype=np.float64))), (name, "non-finite")
    return "fits"


def table():
    probes = _probes()
    names = sorted(ESTIMATORS)
    head = ["estimator"] + list(probes)
    rows = [[f":class:`{n}`"] + [("" if _fits(n, *probes[p]) == "fits" else "refused")
                                 for p in probes] for n in names]
    widths = [max(len(r[j]) for r in [head] + rows) for j in range(len(head))]
    rule = "  ".join("=" * w for w in widths)
    lines = [rule, "  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip(), rule]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.append(rule)
    return "\n".join(lines)


def _page_table():
    text = PAGE.read_text()
    found = re.search(re.escape(BEGIN) + r"\n\n(.*?)\n\n" + re.escape(END), text, re.S)
    assert found, f"{PAGE} has no {BEGIN} ... {END} block"
    return text, found


@pytest.mark.slow  # several seconds of fitting: in `make test-slow` (CI runs it)
def test_the_page_says_what_the_estimators_do():
    _, found = _page_table()
    assert found.group(1) == table(), (
        "docs/user_guide/inputs.rst is out of date: run python tests/test_input_table.py")


if __name__ == "__main__":
    text, found = _page_table()
    PAGE.write_text(text[:found.start(1)] + table() + text[found.end(1):])
    print(f"wrote the table of {PAGE}")
