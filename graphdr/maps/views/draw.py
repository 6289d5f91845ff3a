"""``graphdr.map2d``: the 2-D map of labelled data in one call: an interactive page, a CSV and
a PNG.

The map is :class:`graphdr.DEEMap` with its defaults: on the benchmark of 2-D maps
(``benchmarks/results/maps2d.md``) it has the lowest held-out 1-NN error of graphdr's methods
and fits faster than supervised UMAP. New samples go on the same map with ``transform``.
"""

from __future__ import annotations

from sklearn.utils.validation import column_or_1d

from ..._outputs import OutputSet, atomic_open
from ...blocks.stats import is_dask_array
from ..dee_map import DEEMap
from .fitted import (
    PROPAGATED_COLUMNS_MAX,
    fitted_map_page,
    label_issue_columns,
    propagated_columns,
)
from .page import map_files, write_map_csv
from .picture import _save_png, plot_map

__all__ = ["map2d", "plot_map", "map_files", "write_map", "propagated_columns",
           "PROPAGATED_COLUMNS_MAX"]


def map2d(X, y, *, out=None, title=None, ids=None, hover=None, label_name="label",
          png=True, id_name="id", page=True, table=True, color=None, color_name="colour",
          **params):
    """Fit the 2-D map of ``X`` with labels ``y`` and, with ``out``, write it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels of any type; -1 marks an unlabelled sample (scikit-learn's
        convention), which joins the map's neighbour graph and is drawn in grey.
    out : str or Path or None
        Where to write ``out.html`` (the interactive page: pan, zoom, hover, search, legend,
        and the held-out error of the map, :mod:`graphdr.maps.views.page`), ``out.csv`` (id, label,
        x, y) and ``out.png`` (the picture). A suffix of ``out`` is dropped. None: write
        nothing.
    title : str or None
        Title of the page and picture (default ``"DEEMap of n samples, C classes"``).
    ids : array-like of shape (n_samples,) or None
        Sample ids shown on hover and written to the CSV (default: the row numbers, from 0).
    hover : dict of name -> array-like of shape (n_samples,), or None
        Further values shown on hover (e.g. a few columns of the data).
    label_name : str
        What the labels are called on the page.
    id_name : str
        What the ids are called on the page (the id column's name).
    color : array-like of shape (n_samples,) or None
        Colour the page and the picture by these values instead of the labels (the map is
        still fitted on ``y``, shown on hover): text or a few distinct numbers are
        categories, other numbers a sequential scale in quantile bins
        (:func:`graphdr.maps.views.fitted.color_groups`). Not for a ``dask.array``.
    color_name : str
        What the colour column is called on the page.
    png, page, table : bool
        Which of ``out.png``, ``out.html`` and ``out.csv`` (``out.parquet/`` for a
        ``dask.array``) to write: ``page=False, table=False`` writes the picture alone.
    **params
        Parameters of :class:`graphdr.DEEMap`. ``labels='flag'`` (or ``'audit'``) finds the
        samples whose label the data contradicts (:class:`graphdr.LabelIssues`): the page and
        the picture ring them, the page has a legend entry "suspect labels (N)" and shows
        each sample's ``label quality`` and ``suggested class`` on hover, and the CSV gets
        those two columns (``graphdr map`` does this by default).

    A ``dask.array`` ``X`` (a table larger than memory, or on a cluster) is mapped as
    :mod:`graphdr.maps.partitions` says: fitted on a sample of at most ``fit_samples`` rows
    chosen by content, every row placed where it lives, the places written as Parquet
    partitions ``out.parquet/`` (id, label, x, y) beside the page and picture of a uniform
    sample of at most 10^6 rows; ``hover`` is not available there.

    Returns
    -------
    model : DEEMap
        The fitted map: ``model.embedding_`` is the map of ``X``, ``model.transform(X_new)``
        places new samples on it.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from graphdr import map2d
    >>> X, y = load_digits(return_X_y=True)
    >>> model = map2d(X[:300], y[:300])
    >>> model.embedding_.shape
    (300, 2)
    """
    if out is not None:  # a folder that cannot be written: said before the fit
        _check_out(out)
    if is_dask_array(X):
        if color is not None:
            raise ValueError("color: not available for a map of a dask.array (its page draws "
                             "a sample); colour the rows by joining the partitions' ids.")
        from ..partitions import map_dask

        return map_dask(X, y, out=out, ids=ids, title=title, label_name=label_name,
                        id_name=id_name, png=png, page=page, table=table, **params)
    model = DEEMap(**params).fit(X, y)
    if out is not None:
        write_map(model, y, out, title=title, ids=ids, hover=hover, label_name=label_name,
                  id_name=id_name, png=png, page=page, table=table, color=color,
                  color_name=color_name)
    return model


def _check_out(out):
    """Create the folder of ``out`` (and its parents) if missing; a ``ValueError`` naming it
    when files cannot be written there."""
    from ...io.paths import check_writable

    check_writable(map_files(out)["html"].parent, create=True)


def write_map(model, y, out, *, title=None, ids=None, hover=None, label_name="label", png=True,
              id_name="id", label_empty=None, page=True, table=True, color=None,
              color_name="colour"):
    """Write the page, CSV and PNG of the fitted map ``model`` of labels ``y`` (see
    :func:`map2d`); returns :func:`map_files` of ``out``. ``label_empty``: the rows whose label
    cell was empty in the input file, whose CSV label is written empty again (default: the
    label as given, -1 for an unlabelled row). ``page``, ``table``, ``png``: which files to
    write; ``color``, ``color_name``: as in :func:`map2d`.

    The files appear together or not at all (:class:`graphdr._outputs.OutputSet`): each is
    written beside its target and all are renamed into place once every one is complete, so
    an error or Ctrl-C leaves an earlier map at ``out`` as it was."""
    _check_out(out)
    files = map_files(out)
    y = column_or_1d(y)  # a column vector, as fit accepts it
    title = title or f"DEEMap of {len(model.embedding_)} samples, {len(model.classes_)} classes"
    if not (page or table or png):
        raise ValueError("page, table and png are all False: nothing to write.")
    propagated = propagated_columns(model, y) if page or table else {}
    issues = label_issue_columns(model)  # a map fitted with labels='flag' or 'audit'
    with OutputSet() as outputs:
        if page:  # each unlabelled sample's inferred class and confidence on hover
            html = fitted_map_page(model, y, title=title, ids=ids, hover=hover,
                                   label_name=label_name, id_name=id_name,
                                   csv_name=files["csv"].name if table else None,
                                   propagated=propagated, color=color,
                                   color_name=color_name, issues=issues)
            with atomic_open(outputs.path(files["html"]), "w", encoding="utf-8") as fh:
                fh.write(html)
        if table:
            write_map_csv(outputs.path(files["csv"]), model.embedding_, y, ids,
                          extra={**issues[0], **propagated}, id_name=id_name,
                          label_empty=label_empty)
        if png:
            _save_png(model, y, outputs.path(files["png"]), title, color=color,
                      color_name=color_name)
        outputs.commit()
    return files
