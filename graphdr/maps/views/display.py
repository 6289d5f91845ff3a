"""A fitted map's interactive page in a notebook: :meth:`MapViewMixin.show`, which returns a
:class:`MapView`."""

from __future__ import annotations

import html
import sys
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..._outputs import atomic_open

__all__ = ["MapViewMixin", "MapView"]


class MapViewMixin:
    """What :class:`graphdr.DEEMap` adds for notebooks (the estimator's own HTML
    representation stays scikit-learn's)."""

    def show(self, y=None, *, ids=None, hover=None, title=None, label_name="label",
             id_name="id", max_points=100_000, height=640):
        """The map's interactive page, shown inline by Jupyter.

        The same self-contained page as :func:`graphdr.map2d` writes (pan, zoom, hover,
        search, legend, the held-out error), in an ``iframe``; ``.save(path)`` writes it.
        Outside a notebook (a script, a terminal) the page is written to a file in the
        temporary folder, opened in the web browser where there is a display, and its path
        is printed (``view.path``).

        Parameters
        ----------
        y : array-like of shape (n_samples,) or None
            Labels of the training samples; None: those given to ``fit`` (-1 for the
            unlabelled ones).
        ids, hover, title, label_name, id_name
            As in :func:`graphdr.map2d`.
        max_points : int or None, default=100000
            Draw at most this many samples, a uniform sample (the same for the same map), so
            that a notebook stays light; the held-out error is of every sample. None: all.
        height : int, default=640
            Height of the frame in pixels.

        Returns
        -------
        view : graphdr.maps.views.display.MapView

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from graphdr import DEEMap
        >>> X, y = load_iris(return_X_y=True)
        >>> view = DEEMap().fit(X, y).show()   # in Jupyter, the last line shows the page
        >>> "<iframe" in view._repr_html_()
        True
        """
        from .fitted import fitted_map_page, propagated_columns

        check_is_fitted(self, "embedding_")
        if y is None and len(self.classes_) == 0:  # a map of data without labels
            y = np.full(len(self._labels), -1)
        elif y is None:
            y = np.where(self._labels >= 0, self.classes_[np.maximum(self._labels, 0)], -1) \
                if self.classes_.dtype.kind in "iuf" else np.array(
                    [self.classes_[c] if c >= 0 else -1 for c in self._labels], dtype=object)
        if max_points is not None and (int(max_points) < 1 or isinstance(max_points, bool)):
            raise ValueError(f"max_points must be None or an integer >= 1; got {max_points!r}.")
        page = fitted_map_page(self, y, title=title, ids=ids, hover=hover,
                               label_name=label_name, id_name=id_name, max_points=max_points,
                               propagated=propagated_columns(self, y))
        view = MapView(page, height=height, embedding=self.embedding_)
        if not _in_notebook():
            view.open()
        return view


    def select(self, polygon):
        """The training rows whose place on the map lies inside ``polygon`` (a region of map
        coordinates, as the page's lasso draws one), by the even-odd rule
        (:func:`graphdr.maps.views.select.points_inside`).

        Parameters
        ----------
        polygon : array-like of shape (n_vertices, 2)
            The region's vertices in order (at least 3); the last joins the first.

        Returns
        -------
        rows : ndarray of int
            Indices of the training rows (into ``X`` as given to ``fit``), in increasing order.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from graphdr import DEEMap
        >>> X, y = load_iris(return_X_y=True)
        >>> m = DEEMap().fit(X, y)
        >>> lo, hi = m.embedding_.min(axis=0) - 1, m.embedding_.max(axis=0) + 1
        >>> len(m.select([lo, (hi[0], lo[1]), hi, (lo[0], hi[1])]))  # around the whole map
        150
        """
        from .select import points_inside

        check_is_fitted(self, "embedding_")
        return np.flatnonzero(points_inside(self.embedding_, polygon))


def _in_notebook():
    """Whether a notebook will display what a cell returns (Jupyter, Colab, VS Code): an
    IPython shell other than the terminal one."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return shell is not None and type(shell).__name__ != "TerminalInteractiveShell"


class MapView:
    """A map's page to look at in a notebook: Jupyter shows it inline (an ``iframe`` holding
    the same self-contained page :func:`graphdr.map2d` writes, its scripts sandboxed from the
    notebook); :meth:`save` writes it to a file. Made by :meth:`graphdr.DEEMap.show`."""

    def __init__(self, page, height=640, embedding=None):
        self.page = page
        self.height = int(height)
        self.path = None
        self.embedding = None if embedding is None else np.asarray(embedding)

    def select(self, polygon):
        """The rows of the map whose place lies inside ``polygon`` (map coordinates, as the
        page's lasso draws one): indices into the rows the map was fitted on, in increasing
        order (:meth:`graphdr.DEEMap.select`)."""
        from .select import points_inside

        if self.embedding is None:
            raise ValueError("this view was made without the map's coordinates; use "
                             "DEEMap.select(polygon) on the fitted map.")
        return np.flatnonzero(points_inside(self.embedding, polygon))

    def open(self):
        """Outside a notebook: write the page to a file of the temporary folder (named by its
        content), open it in the web browser where there is a display, and say where it is
        on stderr. Returns the path."""
        import hashlib
        import os
        import sys
        import tempfile
        import webbrowser

        digest = hashlib.sha256(self.page.encode("utf-8")).hexdigest()[:16]
        self.path = self.save(Path(tempfile.gettempdir()) / f"graphdr-map-{digest}.html")
        shown = False
        if sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") \
                or os.environ.get("WAYLAND_DISPLAY"):  # never a terminal browser
            try:
                shown = webbrowser.open(self.path.resolve().as_uri())
            except Exception:  # noqa: BLE001 - no browser is not an error
                shown = False
        print(f"graphdr: the map's page is {self.path}"
              + (" (opened in the web browser)" if shown else "; open it in a web browser"),
              file=sys.stderr)
        return self.path

    def _repr_html_(self):
        return (f'<iframe srcdoc="{html.escape(self.page, quote=True)}" '
                f'style="width: 100%; height: {self.height}px; border: 1px solid #ddd" '
                'sandbox="allow-scripts allow-downloads" title="graphdr map"></iframe>')

    def save(self, path):
        """Write the page to ``path`` (whole or not at all); returns the path."""
        with atomic_open(path, "w", encoding="utf-8") as fh:
            fh.write(self.page)
        return Path(path)
