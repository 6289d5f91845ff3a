"""The 2-D map of a table larger than memory (a ``dask.array``): the places of every row as
Parquet partitions, the page and the picture from a uniform sample of them.

:func:`graphdr.map2d` of a ``dask.array`` comes here. The map is fitted as
:meth:`graphdr.DEEMap.fit` fits a ``dask.array`` (on a sample of at most ``fit_samples`` rows
chosen by content, :mod:`graphdr.maps.dask_fit`); then every row is placed where it lives,
block by block (the fitted model sent to each worker once), and each block's places come back
to this process and are written at once as one Parquet file of the folder ``OUT.parquet``:

* ``id, label, x, y``: the row's id (default its row number), its label as given, its place
  (the dtype of the data: float32 data, float32 places). The rows of the fit's sample are at
  their places in ``embedding_``, the others where ``transform`` puts them: the same numbers
  as the in-memory path, bit for bit.
* with unlabelled rows (label -1 or empty), ``map vote`` and ``vote share``: for each
  unlabelled row, the class most frequent among the :data:`VOTERS` labelled training samples
  nearest its place on the map, and that class's share of them (empty for a labelled row).
  Named apart from the in-memory map's ``inferred class`` and ``confidence`` (Poisson
  learning over the neighbour graph of every row's features, or the label check, neither of
  which a table past memory builds): the page says which it shows
  (:data:`graphdr.maps.views.fitted.MAP_VOTE_NOTE`).

The page (``OUT.html``) and the picture (``OUT.png``) draw a uniform sample of at most
``page_points`` rows (those of smallest content key: the same rows whatever the order and
chunking); the legend's class counts are those of every row, and the page states the
held-out error of every labelled row the map was not fitted on: the share that lies nearest,
on the map, a training sample of another class. When every row was fitted, the page states
the leave-one-out errors of :func:`graphdr.maps.views.fitted.held_out_errors` instead.

Nothing is half-written: the partitions go to a hidden folder beside ``OUT.parquet``, the page
and picture to hidden files, and all are renamed into place together at the end
(:class:`graphdr._outputs.OutputSet`); an error or Ctrl-C before leaves an earlier map as it
was.
"""

from __future__ import annotations

import threading

import numpy as np

from .._outputs import OutputSet, atomic_open
from .._validation import unlabelled_mask
from ..io.file_parts import PAGE_POINTS  # the page and the picture draw at most this many rows
from .dask_fit import RERUN, ClusterFailure, cluster_errors

__all__ = ["map_files_parts", "map_dask", "write_dask_map", "PAGE_POINTS", "VOTERS",
           "ClusterFailure"]

#: the labelled training samples nearest an unlabelled row's place that vote its class
VOTERS = 10


def map_files_parts(out):
    """The outputs of a map of a ``dask.array`` for ``out``: ``html``, ``parquet`` (a folder)
    and ``png``."""
    from .views.page import map_files

    files = map_files(out)
    return {"html": files["html"], "parquet": files["csv"].with_suffix(".parquet"),
            "png": files["png"]}


def map_dask(X, y, *, out=None, ids=None, title=None, label_name="label", id_name="id",
             png=True, page_points=PAGE_POINTS, progress=None, label_empty=None,
             id_dtype=None, page=True, table=True, **params):
    """:func:`graphdr.map2d` of a ``dask.array`` ``X``: fit :class:`graphdr.DEEMap` with
    ``params`` as its ``fit`` fits a ``dask.array`` and, with ``out``, write the map
    (:func:`write_dask_map`). The rows' content keys are read once, for the fit's sample and
    the page's."""
    from .._threads import one_thread
    from .._validation import check_int, check_parameters
    from ..blocks.sampling import row_keys
    from .dask_fit import check_known_rows, fit_dask, fit_limit
    from .dee_map import DEEMap

    check_known_rows(X, "map2d")
    model = DEEMap(**params)
    check_parameters(model)
    limit = fit_limit(model.fit_samples, model.repulsion)
    check_int(page_points, "page_points", min_value=1)
    n = X.shape[0]
    with cluster_errors("the map's first pass"):
        keys = row_keys(X) if n > min(limit, page_points if out else n) else None
    with one_thread():
        fit_dask(model, X, y, keys)
    if out is not None:
        write_dask_map(model, X, y, out, keys=keys, ids=ids, title=title,
                       label_name=label_name, id_name=id_name, png=png,
                       page_points=page_points, progress=progress, label_empty=label_empty,
                       id_dtype=id_dtype, page=page, table=table)
    return model


def write_dask_map(model, X, y, out, *, keys=None, ids=None, title=None, label_name="label",
                   id_name="id", png=True, page_points=PAGE_POINTS, progress=None,
                   label_empty=None, id_dtype=None, page=True, table=True):
    """Place every row of the ``dask.array`` ``X`` on the fitted ``model`` (fitted on ``X``,
    with ``fit_rows_``) and write the partitions, page and picture (module docstring).

    ``keys``: the rows' content keys (:func:`graphdr.blocks.sampling.row_keys`) when already
    computed; ``ids``: one id per row (default the row numbers), written as ``id_dtype`` (the
    input's stored type, e.g. ``'int64'``; None: integers when every id is written as one,
    else text); ``label_empty``: rows whose label cell was empty in the input, whose label is
    written missing (null) again; ``progress``: called with 0 when the placement starts,
    then with the number of rows of each block
    written; ``page``, ``table``, ``png``: which of the page, the partitions and the picture
    to write. Returns the dict of files written.
    """
    from .dask_fit import place_dask
    from .views.page import map_page_html
    from .views.picture import _save_png

    if not (page or table or png):
        raise ValueError("page, table and png are all False: nothing to write.")
    files = map_files_parts(out)
    files["html"].parent.mkdir(parents=True, exist_ok=True)
    y = np.asarray(y)
    n = len(y)
    unlabelled = unlabelled_mask(y)
    empty = np.zeros(n, dtype=bool) if label_empty is None else np.asarray(label_empty, bool)
    ids = None if ids is None else _typed_ids(ids, id_dtype)
    classes = np.asarray(model.classes_)
    codes = np.full(n, len(classes), dtype=np.intp)
    codes[~unlabelled] = np.searchsorted(classes, y[~unlabelled])
    rows = np.asarray(model.fit_rows_)
    fitted = np.zeros(n, dtype=bool)
    fitted[rows] = True
    page_rows, on_page = _page_sample(X, keys, n, page_points)
    if progress is not None:
        progress(0)  # the placement starts now (a progress bar times it from here)
    places = place_dask(model, X, rows)
    blocks, starts = _vote_blocks(model, places, rows, codes, unlabelled)
    page_xy = np.empty((len(page_rows), 2), dtype=places.dtype)
    page_vote = np.full(len(page_rows), "", dtype=object)  # the page's hover
    page_share = np.full(len(page_rows), "", dtype=object)
    wrong = scored = 0
    voting_rows = bool(unlabelled.any()) and len(classes) > 0  # (no labels: nothing to vote)
    with OutputSet() as outputs:
        folder = outputs.folder(files["parquet"]) if table else None
        for i, (xy, near, voted, share) in _in_order(blocks):
            a, b = starts[i], starts[i + 1]
            held = ~fitted[a:b] & ~unlabelled[a:b]
            wrong += int(np.count_nonzero(near[held] != codes[a:b][held]))
            scored += int(np.count_nonzero(held))
            _to_page((page_xy, page_vote, page_share), page_rows, a, on_page[a:b],
                     unlabelled[a:b], xy, voted, share, classes)
            if table:
                _write_part(folder / f"part-{i:05d}.parquet", xy, y[a:b], unlabelled[a:b],
                            ids[a:b] if ids is not None else np.arange(a, b), id_name,
                            classes, voted, share, voting_rows, empty[a:b])
            if progress is not None and b > a:
                progress(b - a)
        errors = _held_out_error(model, y[rows], wrong, scored)
        counts = np.bincount(codes, minlength=len(classes) + 1)[:len(classes) + unlabelled.any()]
        title = title or f"DEEMap of {n} samples, {len(classes)} classes"
        description = _description(model, n, int(unlabelled.sum()), len(rows), len(page_rows))
        votes, description = _vote_columns(voting_rows, page_vote, page_share, description)
        html = None if not page else map_page_html(
            page_xy, y[page_rows], classes=classes,
            ids=page_rows if ids is None else np.asarray(ids, dtype=object)[page_rows],
            title=title, description=description, errors=errors, label_name=label_name,
            csv_name=files["parquet"].name if table else None, unlabelled=unlabelled[page_rows],
            hover=votes, carried=None if votes is None else page_vote,
            id_name=id_name,
            counts=counts, details=f"graphdr.DEEMap parameters: {_params(model)}.")
        if page:
            with atomic_open(outputs.path(files["html"]), "w", encoding="utf-8") as fh:
                fh.write(html)
        if png:
            _save_png(model, y[page_rows], outputs.path(files["png"]), title, Y=page_xy)
        outputs.commit()
    return files


def _page_sample(X, keys, n, page_points):
    """``(rows, mask)`` of the rows the page and picture draw: every row, or the
    ``page_points`` of smallest content key (``keys``, computed from ``X`` when None)."""
    from ..blocks.sampling import row_keys, smallest_keys

    if n > page_points:
        keys = row_keys(X) if keys is None else keys
        page_rows = np.sort(smallest_keys(keys, page_points))
    else:
        page_rows = np.arange(n)
    on_page = np.zeros(n, dtype=bool)
    on_page[page_rows] = True
    return page_rows, on_page


def _vote_blocks(model, places, rows, codes, unlabelled):
    """The delayed :func:`_vote` of each block of ``places`` (the fit's labelled samples
    voting, sent to each worker once) and the blocks' first rows (then the number of rows)."""
    import dask

    labelled_fit = ~unlabelled[rows]
    voters = dask.delayed(_Voters(np.asarray(model.embedding_)[labelled_fit],
                                  codes[rows][labelled_fit]), pure=False)
    starts = np.r_[0, np.cumsum(places.chunks[0])]
    blocks = [dask.delayed(_vote)(b, voters, unlabelled[starts[i]:starts[i + 1]])
              for i, b in enumerate(places.to_delayed().ravel())]
    return blocks, starts


def _to_page(page, page_rows, a, shown, unlabelled, xy, voted, share, classes):
    """Copy the rows of a block (from row ``a``) that the page draws (``shown``) into
    ``page = (places, votes, shares)``, the map's vote of the unlabelled ones too."""
    page_xy, page_vote, page_share = page
    at = np.searchsorted(page_rows, np.flatnonzero(shown) + a)
    page_xy[at] = xy[shown]
    voting = shown & unlabelled & (len(classes) > 0)
    at_vote = np.searchsorted(page_rows, np.flatnonzero(voting) + a)
    page_vote[at_vote] = [str(classes[v]) for v in voted[voting]]
    page_share[at_vote] = [f"{s:.1f}" for s in share[voting]]


def _held_out_error(model, y_fit, wrong, scored):
    """The page's error: that of the ``scored`` labelled rows the map was not fitted on
    (``wrong`` of them nearest another class), else the fit's leave-one-out errors."""
    from .views.fitted import held_out_errors

    if scored:
        return dict(map_error=wrong / scored, n=scored, held_out=True)
    return held_out_errors(model, y_fit)


def _vote_columns(voting_rows, page_vote, page_share, description):
    """The page's hover columns of the map's votes (None without unlabelled rows to vote on)
    and the description, which then says what they are."""
    from .views.fitted import MAP_VOTE_NOTE

    if not voting_rows:
        return None, description
    votes = {"map vote": page_vote, "vote share": page_share}
    return votes, description + " " + MAP_VOTE_NOTE.format(k=VOTERS)


def _in_order(blocks):
    """``(i, result)`` of each delayed block as it is computed: on the Dask cluster of the
    current client (several at a time), else one after the other on the default scheduler."""
    try:
        from distributed import as_completed, get_client

        client = get_client()
    except (ImportError, ValueError):
        for i, block in enumerate(blocks):
            yield i, block.compute()
        return
    futures = client.compute(blocks)
    index = {f.key: i for i, f in enumerate(futures)}
    for future, result in as_completed(futures, with_results=True, raise_errors=False):
        if future.status == "error":  # the task's own exception (KilledWorker too)
            with cluster_errors("the placement", " (--worker-memory)"):
                future.result()  # raises it
        if future.status != "finished":  # cancelled: lost with the workers or the client
            raise ClusterFailure(
                f"the Dask cluster lost piece {index[future.key]} of the placement "
                f"({type(result).__name__}: {result}); {RERUN} (--worker-memory)")
        yield index[future.key], result
        future.release()


class _Voters:
    """The labelled training samples' places on the map and their class codes, with a k-d tree
    of the places built where it is first queried: once per worker, which receives this object
    once (the tree is not pickled; every worker builds the same one)."""

    def __init__(self, places, codes):
        self.places = np.asarray(places, dtype=np.float64)
        self.codes = np.asarray(codes)
        self._tree = None
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"places": self.places, "codes": self.codes}

    def __setstate__(self, state):
        self.__init__(state["places"], state["codes"])

    def nearest(self, xy, k):
        """The codes of the ``k`` training samples nearest each row of ``xy``, nearest first
        (``len(xy) x k``)."""
        from scipy.spatial import cKDTree

        with self._lock:
            if self._tree is None:
                self._tree = cKDTree(self.places)
        k = min(k, len(self.places))
        _, ind = self._tree.query(np.asarray(xy, dtype=np.float64), k=k)
        return self.codes[ind.reshape(len(xy), k)]


def _vote(xy, voters, unlabelled):
    """A block's places, the class of the nearest labelled training sample on the map, and,
    for its ``unlabelled`` rows (0 for the others), the class most frequent among the
    :data:`VOTERS` nearest with its share (ties: the nearest's)."""
    first = np.empty(len(xy), dtype=voters.codes.dtype)
    voted = np.zeros(len(xy), dtype=voters.codes.dtype)
    share = np.zeros(len(xy))
    labelled = ~unlabelled
    if labelled.any():
        first[labelled] = voters.nearest(xy[labelled], 1)[:, 0]
    if unlabelled.any() and len(voters.codes):  # (a map without labels: no vote)
        near = voters.nearest(xy[unlabelled], VOTERS)
        n, k = near.shape
        C = int(voters.codes.max()) + 1 if len(voters.codes) else 1
        tally = np.zeros((n, C), dtype=np.int64)
        np.add.at(tally, (np.repeat(np.arange(n), k), near.ravel()), 1)
        top = tally.max(axis=1)
        nearest = near[:, 0]
        first[unlabelled] = nearest
        voted[unlabelled] = np.where(tally[np.arange(n), nearest] == top, nearest,
                                     tally.argmax(axis=1))
        share[unlabelled] = top / k
    return xy, first, voted, share


def _write_part(path, xy, labels, unlabelled, ids, id_name, classes, voted, share, extra,
                empty):
    import pyarrow as pa
    import pyarrow.parquet as pq

    labels = np.asarray(labels)
    label = labels.astype(str) if labels.dtype == object else labels
    label = pa.array(_column(label), mask=np.asarray(empty, dtype=bool))
    columns = {str(id_name) if id_name else "id": _column(ids), "label": label,
               "x": xy[:, 0], "y": xy[:, 1]}
    if extra:
        columns["map vote"] = pa.array(
            [str(classes[v]) if u else None for v, u in zip(voted.tolist(), unlabelled)],
            type=pa.string())
        columns["vote share"] = pa.array(
            [float(s) if u else None for s, u in zip(share.tolist(), unlabelled)],
            type=pa.float64())
    pq.write_table(pa.table(columns), path)


def _typed_ids(ids, dtype):
    """The ids as the input stored them: ``dtype`` (a Parquet integer column's), else integers
    when every id is written as one (no sign but ``-``, no leading zero), else text."""
    import pandas as pd

    ids = np.asarray(ids)
    if ids.dtype != object:
        return ids
    if dtype is not None:
        return ids.astype(dtype)
    text = pd.Series(ids, dtype=object)
    if len(ids) and bool(text.str.fullmatch(r"-?(0|[1-9][0-9]{0,17})").fillna(False).all()):
        return ids.astype(np.int64)
    return ids


def _column(values):
    values = np.asarray(values)
    return values.astype(str) if values.dtype == object else values


def _params(model):
    return {k: v for k, v in model.get_params().items() if k not in ("callback", "verbose")}


def _description(model, n, n_unlabelled, n_fit, n_page):
    from .views.fitted import fitted_with

    scaling = {"standard": "standardised", "none": "as given"}.get(
        str(model.feature_scaling_), str(model.feature_scaling_))
    counted = f"{n} samples ({n_unlabelled} unlabelled)" if n_unlabelled else f"{n} samples"
    C = len(model.classes_)
    text = (f"{counted}, {model.n_features_in_} features, "
            f"{f'{C} classes' if C else 'no labels'}; "
            f"DEEMap fitted on {n_fit} of them (a sample chosen by content, every class kept), "
            f"features {scaling}, {model.n_iter_} iterations; the others placed by "
            f"transform. {fitted_with(model, n_unlabelled)}")
    if n_page < n:
        text += (f" Drawn here: a uniform sample of {n_page} of the {n} samples (the counts "
                 "and the error below are of all of them).")
    return text
