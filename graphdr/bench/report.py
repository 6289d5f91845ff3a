"""Outputs of ``graphdr bench``: ``results.csv``, paper-style Markdown tables, ``index.html``.

``results.csv`` is in long form, one row per (data set, method, classifier, fold, dimension):

=============  ==========================================================================
column         meaning
=============  ==========================================================================
dataset        data set name
method         method id (registry name, then ``:key=value`` parameters in sorted order)
classifier     classifier on the embedding (ncc, 1nn, 3nn, linear-svm, rbf-svm)
fold           fold (or repetition) index
dim            embedding dimension
n_test         test samples of the fold
n_errors       misclassified test samples
error          n_errors / n_test (6 decimals)
fit_seconds    wall-clock seconds of the method's fit on the fold -- the only column that
               changes between runs; two runs agree on every other column, byte for byte
               with ``--no-timing`` (which leaves it empty)
n_iter         iterations of an iterative method's fit (its ``n_iter_``; empty otherwise)
converged      1 when that fit met its stopping rule before its iteration cap, 0 when it
               stopped at the cap (its ``converged_``; empty for methods without one)
=============  ==========================================================================

Tables report, per method, the mean test error over folds at the dimension where it is smallest
(the smallest such dimension on ties), that dimension in parentheses; the best method per data
set is in bold (all tied ones), and the last row counts the wins.
"""

from __future__ import annotations

import csv
import html
import os
from collections import defaultdict

import numpy as np

from .._outputs import atomic_open, from_spreadsheet_safe, spreadsheet_safe
from .methods import LABELLED_ONLY, get_method, method_label

__all__ = ["COLUMNS", "read_results", "write_results", "aggregate", "best_table",
           "markdown_tables", "write_html"]

COLUMNS = ["dataset", "method", "classifier", "fold", "dim", "n_test", "n_errors", "error",
           "fit_seconds", "n_iter", "converged"]
#: the columns of results files written before the iteration counts (read as such, the two
#: counts empty)
_EARLIER_COLUMNS = COLUMNS[:9]


def _format_row(row, timing=True):
    return [
        row["dataset"], row["method"], row["classifier"], str(int(row["fold"])),
        str(int(row["dim"])), str(int(row["n_test"])), str(int(row["n_errors"])),
        f"{float(row['error']):.6f}",
        f"{float(row['fit_seconds']):.4f}" if timing and row.get("fit_seconds") not in (None, "")
        else "",
        "" if row.get("n_iter") in (None, "") else str(int(row["n_iter"])),
        "" if row.get("converged") in (None, "") else str(int(bool(row["converged"]))),
    ]


def sort_key(row):
    return (row["dataset"], row["method"], row["classifier"], int(row["fold"]), int(row["dim"]))


def read_results(path):
    """Rows of ``results.csv`` (dicts). A truncated last line (interrupted run) and every
    other row of its cell are dropped, so that the cell is computed again."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a graphdr results file (not UTF-8 text); graphdr "
                         f"never replaces a file it did not write: choose another --out.") \
            from None
    lines = text.splitlines(keepends=True)
    if not lines:
        return []
    header = next(csv.reader([lines[0]]))
    if header not in (COLUMNS, _EARLIER_COLUMNS):
        raise ValueError(f"{path} is not a graphdr results file (its columns are "
                         f"{', '.join(header[:6])}{' ...' if len(header) > 6 else ''}); graphdr "
                         "never replaces a file it did not write: choose another --out.")
    rows, broken = [], set()
    for line in lines[1:]:
        fields = next(csv.reader([line]), [])
        complete = line.endswith("\n") and len(fields) == len(header)
        if not complete:
            if len(fields) >= 4:
                broken.add((fields[0], fields[1], fields[3]))
            continue
        row = dict(zip(COLUMNS, (from_spreadsheet_safe(f) for f in fields)))
        row.setdefault("n_iter", "")
        row.setdefault("converged", "")
        try:
            row["fold"], row["dim"] = int(row["fold"]), int(row["dim"])
            row["n_test"], row["n_errors"] = int(row["n_test"]), int(row["n_errors"])
            row["error"] = float(row["error"])
            row["fit_seconds"] = float(row["fit_seconds"]) if row["fit_seconds"] else ""
            row["n_iter"] = int(row["n_iter"]) if row["n_iter"] else ""
            row["converged"] = bool(int(row["converged"])) if row["converged"] else ""
        except ValueError:
            broken.add((row["dataset"], row["method"], str(row["fold"])))
            continue
        rows.append(row)
    return [r for r in rows if (r["dataset"], r["method"], str(r["fold"])) not in broken]


def write_results(path, rows, timing=True):
    """Write ``rows`` sorted by (dataset, method, classifier, fold, dim), whole or not at all
    (:func:`graphdr._outputs.atomic_open`): the sweep rewrites the file after each cell, so an
    interrupted run leaves every finished cell and never a broken line."""
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for row in sorted(rows, key=sort_key):
            w.writerow([spreadsheet_safe(f) for f in _format_row(row, timing)])


# ----- aggregation ---------------------------------------------------------------------
def aggregate(rows):
    """{(dataset, method, classifier): {dim: (mean error, std error, n folds)}}.

    Fold errors are taken as n_errors / n_test (exact, not the rounded ``error`` column), so
    tables from a fresh run and from a resumed one agree to the last digit.
    """
    groups = defaultdict(lambda: defaultdict(list))
    for r in rows:
        key = (r["dataset"], r["method"], r["classifier"])
        groups[key][int(r["dim"])].append(int(r["n_errors"]) / int(r["n_test"]))
    return {
        key: {d: (float(np.mean(v)), float(np.std(v)), len(v)) for d, v in sorted(dims.items())}
        for key, dims in groups.items()
    }


def fold_errors(rows):
    """{(dataset, method, classifier): {dim: errors in fold order}}, each fold's error as
    ``n_errors / n_test`` (as :func:`aggregate`): the paired numbers of significance tests."""
    groups = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        key = (r["dataset"], r["method"], r["classifier"])
        groups[key][int(r["dim"])][int(r["fold"])] = int(r["n_errors"]) / int(r["n_test"])
    return {key: {d: np.array([f[k] for k in sorted(f)]) for d, f in sorted(dims.items())}
            for key, dims in groups.items()}


def fit_iterations(rows):
    """{(dataset, method, classifier): {dim: [(n_iter, converged) in fold order]}} of the
    iterative methods (the cells whose ``n_iter`` is recorded)."""
    groups = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        if r.get("n_iter") in (None, ""):
            continue
        key = (r["dataset"], r["method"], r["classifier"])
        groups[key][int(r["dim"])][int(r["fold"])] = (int(r["n_iter"]), r.get("converged"))
    return {key: {d: [f[k] for k in sorted(f)] for d, f in sorted(dims.items())}
            for key, dims in groups.items()}


def five_by_two_table(rows, clf, datasets, methods, table):
    """Markdown lines: for each data set, every method's combined 5x2cv F test against the
    data set's best method (``table``: :func:`best_table`), each at the dimension its cell
    shows; empty unless every compared cell has 10 folds (5 x 2-fold CV)."""
    from .significance import five_by_two_f

    folds = fold_errors([r for r in rows if r["classifier"] == clf])
    body, worse = [], dict.fromkeys(methods, 0)
    for ds in datasets:
        cells = table[ds]
        if not cells:
            continue
        best = min(cells, key=lambda m: (round(cells[m][0], 12), methods.index(m)))
        ref = folds.get((ds, best, clf), {}).get(cells[best][1])
        if ref is None or len(ref) != 10:
            return []
        txt = []
        for m in methods:
            if m not in cells:
                txt.append("-")
                continue
            if m == best:
                txt.append("best")
                continue
            errors = folds[(ds, m, clf)][cells[m][1]]
            if len(errors) != 10:
                return []
            _, p = five_by_two_f((errors - ref).reshape(5, 2))
            worse[m] += p < 0.05
            txt.append(f"**{p:.3f}**" if p < 0.05 else f"{p:.3f}")
        body.append(f"| {ds} | " + " | ".join(txt) + " |")
    if not body:
        return []
    return ([f"#### 5x2cv F test against the best method ({clf})", "",
             "p-value of Alpaydin's combined 5x2cv F test (`graphdr.bench.significance`) of "
             "each method against the data set's best, on the paired errors of the ten folds at "
             "the dimension of each cell above; bold below 0.05 (significantly worse); last "
             "row: data sets where the method is significantly worse than the best.", "",
             "| Data set | " + " | ".join(method_label(m) for m in methods) + " |",
             "|---|" + "---:|" * len(methods)] + body
            + ["| significantly worse | " + " | ".join(str(worse[m]) for m in methods)
               + " |", ""])


def best_table(agg, classifier, datasets, methods):
    """{dataset: {method: (min mean error, its dimension)}} for one classifier."""
    out = {}
    for ds in datasets:
        cells = {}
        for m in methods:
            dims = agg.get((ds, m, classifier))
            if dims:
                d = min(dims, key=lambda k: (round(dims[k][0], 12), k))
                cells[m] = (dims[d][0], d)
        out[ds] = cells
    return out


def _winners(cells):
    if not cells:
        return set()
    best = min(round(v[0], 12) for v in cells.values())
    return {m for m, v in cells.items() if round(v[0], 12) == best}


def format_cell(value, dim):
    """How a table cell is written: error in percent, 2 decimals, dimension in parentheses."""
    return f"{100 * value:.2f} ({dim})"


def ordered(values, preferred):
    """``values`` in the order of ``preferred`` first, then sorted."""
    seen = [v for v in preferred if v in values]
    return seen + sorted(set(values) - set(seen))


def _clf_title(clf, svm_gamma):
    from .evaluation import CLASSIFIERS

    extra = f", gamma={svm_gamma:g}" if clf == "rbf-svm" and svm_gamma is not None else ""
    return f"{CLASSIFIERS.get(clf, clf)}{extra} ({clf})"


def markdown_tables(rows, *, datasets=None, methods=None, classifiers=None, svm_gamma=None):
    """Paper-style Markdown tables, one per classifier (rows: data sets; columns: methods)."""
    agg = aggregate(rows)
    datasets = ordered({r["dataset"] for r in rows}, datasets or [])
    methods = ordered({r["method"] for r in rows}, methods or [])
    classifiers = ordered({r["classifier"] for r in rows}, classifiers or [])
    out = []
    all_methods = methods
    for clf in classifiers:
        methods = _columns(agg, clf, datasets, all_methods)
        table = best_table(agg, clf, datasets, methods)
        n_folds = max((n for k, dims in agg.items() if k[2] == clf for (_, _, n) in dims.values()),
                      default=0)
        out.append(
            f"### Test error (%) with {_clf_title(clf, svm_gamma)}\n\n"
            f"Mean over {n_folds} folds; minimum over the evaluated dimensions, the dimension in "
            f"parentheses; best per data set in bold; last row: wins.\n"
        )
        out.append("| Data set | " + " | ".join(method_label(m) for m in methods) + " |")
        out.append("|---|" + "---:|" * len(methods))
        wins = dict.fromkeys(methods, 0)
        for ds in datasets:
            cells = table[ds]
            top = _winners(cells)
            for m in top:
                wins[m] += 1
            txt = []
            for m in methods:
                if m not in cells:
                    txt.append("-")
                    continue
                s = format_cell(*cells[m])
                txt.append(f"**{s}**" if m in top else s)
            out.append(f"| {ds} | " + " | ".join(txt) + " |")
        out.append("| wins | " + " | ".join(str(wins[m]) for m in methods) + " |")
        out.append("")
        out.extend(five_by_two_table(rows, clf, datasets, methods, table))
    methods = all_methods
    out.append("### Error (%) per dimension: mean +- standard deviation over folds\n")
    for ds in datasets:
        for clf in classifiers:
            header, body = detail_rows(agg, ds, clf, methods)
            if not body:
                continue
            out.append(f"**{ds}, {clf}**\n")
            out.append("| " + " | ".join(header) + " |")
            out.append("|---|" + "---:|" * (len(header) - 1))
            out.extend("| " + " | ".join(r) + " |" for r in body)
            out.append("")
    return "\n".join(out)


def detail_rows(agg, dataset, classifier, methods):
    """Header and rows (one per method) of the error at every dimension."""
    dims = sorted({d for m in methods for d in agg.get((dataset, m, classifier), {})})
    header = ["Method"] + [f"dim {d}" for d in dims]
    body = []
    for m in methods:
        cells = agg.get((dataset, m, classifier))
        if not cells:
            continue
        body.append([method_label(m)] + [
            f"{100 * cells[d][0]:.2f} +- {100 * cells[d][1]:.2f}" if d in cells else "-"
            for d in dims
        ])
    return header, body


# ----- HTML ------------------------------------------------------------------------------
_CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1180px;color:#222;
 line-height:1.4;padding:0 16px}
h1{font-size:22px;margin-bottom:4px} h2{font-size:18px;border-bottom:1px solid #ccc;
 padding-bottom:3px;margin-top:28px} h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
th,td{border:1px solid #bbb;padding:3px 8px;text-align:right}
th{background:#f0f0f0} td:first-child,th:first-child{text-align:left}
tr.wins td{background:#fafafa;font-style:italic}
td.best{font-weight:bold;background:#e6f2e6}
img{max-width:100%;border:1px solid #eee;margin:4px 0}
.fig{display:inline-block;vertical-align:top;margin:0 12px 12px 0;max-width:560px}
.wide{margin:0 0 12px 0} .small{display:inline-block;vertical-align:top;margin:0 8px 8px 0;
 max-width:300px} details{margin:6px 0} summary{cursor:pointer;font-size:13px}
.meta{color:#555;font-size:13px} code{background:#f4f4f4;padding:1px 4px}
"""


def _columns(agg, clf, datasets, methods):
    """Methods with results for classifier ``clf`` (table columns)."""
    return [m for m in methods if any((ds, m, clf) in agg for ds in datasets)]


def _html_table(rows, agg, clf, datasets, methods, svm_gamma=None):
    methods = _columns(agg, clf, datasets, methods)
    table = best_table(agg, clf, datasets, methods)
    h = [f"<h3>Test error (%) with {html.escape(_clf_title(clf, svm_gamma))}</h3>", "<table>",
         "<tr><th>Data set</th>" + "".join(f"<th>{html.escape(method_label(m))}</th>"
                                           for m in methods) + "</tr>"]
    wins = dict.fromkeys(methods, 0)
    for ds in datasets:
        cells = table[ds]
        top = _winners(cells)
        tds = []
        for m in methods:
            if m not in cells:
                tds.append("<td>-</td>")
                continue
            wins[m] += m in top
            cls = ' class="best"' if m in top else ""
            tds.append(f"<td{cls}>{format_cell(*cells[m])}</td>")
        h.append(f"<tr><td>{html.escape(ds)}</td>" + "".join(tds) + "</tr>")
    h.append('<tr class="wins"><td>wins</td>' + "".join(f"<td>{wins[m]}</td>" for m in methods)
             + "</tr></table>")
    return "\n".join(h)


def _timing_table(rows, datasets, methods):
    secs = defaultdict(dict)
    for r in rows:
        if r.get("fit_seconds") not in ("", None):
            secs[(r["dataset"], r["method"])][(r["fold"], r["dim"])] = float(r["fit_seconds"])
    if not secs:
        return ""
    h = ["<h3>Mean fit time per fold (seconds; wall clock, varies between runs)</h3><table>",
         "<tr><th>Data set</th>" + "".join(f"<th>{html.escape(method_label(m))}</th>"
                                           for m in methods) + "</tr>"]
    for ds in datasets:
        tds = []
        for m in methods:
            v = secs.get((ds, m))
            spec_nested = get_method(m.split(":")[0].removesuffix(LABELLED_ONLY)).nested
            if not v:
                tds.append("<td>-</td>")
                continue
            per_fold = defaultdict(float)
            for (fold, _dim), s in v.items():
                per_fold[fold] = s if spec_nested else per_fold[fold] + s
            tds.append(f"<td>{np.mean(list(per_fold.values())):.3f}</td>")
        h.append(f"<tr><td>{html.escape(ds)}</td>" + "".join(tds) + "</tr>")
    h.append("</table>")
    return "\n".join(h)


def write_html(path, *, title, command, protocol, dataset_info, rows, datasets, methods,
               classifiers, figures, notes=()):
    """Write a self-contained ``index.html`` (relative image links, no scripts, no server).

    ``figures`` is a list of (section title, [(png file name, caption[, css class]), ...]) with
    css class 'fig' (default), 'wide' (full width) or 'small'.
    """
    agg = aggregate(rows)
    datasets = ordered({r["dataset"] for r in rows}, datasets)
    methods = ordered({r["method"] for r in rows}, methods)
    classifiers = ordered({r["classifier"] for r in rows}, classifiers)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">Command: <code>{html.escape(command)}</code><br>'
        f"Protocol: <b>{html.escape(protocol.name)}</b> - {html.escape(protocol.description)}; "
        f"scaling {html.escape(protocol.scaling)}, "
        + (f"stratified {protocol.n_splits}-fold CV" + (f" x {protocol.n_repeats}"
           if protocol.n_repeats > 1 else "") if protocol.split == "kfold" else
           f"{protocol.n_repeats} random splits, {protocol.n_train_per_class} training samples "
           "per class")
        + ("; dimensions 1..C-1" if protocol.max_dim is None else
           f"; dimensions 1..{protocol.max_dim}")
        + (f"; RBF kernel gamma {protocol.kernel_gamma:g}" if protocol.kernel_gamma is not None
           else "; kernel gamma: each method's default (gamma='auto': chosen by inner cross-validation)")
        + '.<br>Files: <a href="results.csv">results.csv</a> (long form), '
        '<a href="tables.md">tables.md</a>.</p>',
        "<h2>Data sets</h2><ul>" + "".join(f"<li>{html.escape(d)}</li>" for d in dataset_info)
        + "</ul>",
    ]
    for note in notes:
        parts.append(f'<p class="meta">{html.escape(note)}</p>')
    parts.append("<h2>Classification error</h2>")
    parts.append('<p class="meta">Mean test error over folds, minimum over the evaluated '
                 "dimensions; the dimension in parentheses; best per data set highlighted.</p>")
    for clf in classifiers:
        parts.append(_html_table(rows, agg, clf, datasets, methods, protocol.svm_gamma))
    for ds in datasets:
        for clf in classifiers:
            header, body = detail_rows(agg, ds, clf, methods)
            if body:
                parts.append(
                    f"<details><summary>{html.escape(ds)}, {html.escape(clf)}: error (%) at every "
                    "dimension, mean +- std over folds</summary><table><tr>"
                    + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
                    + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                              for r in body)
                    + "</table></details>"
                )
    parts.append(_timing_table(rows, datasets, methods))
    for section, items in figures:
        if not items:
            continue
        parts.append(f"<h2>{html.escape(section)}</h2>")
        for item in items:
            fname, caption = item[0], item[1]
            size = item[2] if len(item) > 2 else "fig"
            parts.append(
                f'<div class="{size}"><img src="{html.escape(fname)}" alt="{html.escape(caption)}">'
                f"<div class=\"meta\">{html.escape(caption)}</div></div>"
            )
    parts.append("</body></html>")
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts) + "\n")
