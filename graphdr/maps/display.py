"""A fitted map's interactive page in a notebook: :meth:`MapViewMixin.show`."""

from __future__ import annotations

import sys

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["MapViewMixin"]


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
        view : graphdr.maps.page.MapView

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from graphdr import DEEMap
        >>> X, y = load_iris(return_X_y=True)
        >>> view = DEEMap().fit(X, y).show()   # in Jupyter, the last line shows the page
        >>> "<iframe" in view._repr_html_()
        True
        """
        from .page import MapView, fitted_map_page, propagated_columns

        check_is_fitted(self, "embedding_")
        if y is None:
            y = np.where(self._labels >= 0, self.classes_[np.maximum(self._labels, 0)], -1) \
                if self.classes_.dtype.kind in "iuf" else np.array(
                    [self.classes_[c] if c >= 0 else -1 for c in self._labels], dtype=object)
        if max_points is not None and (int(max_points) < 1 or isinstance(max_points, bool)):
            raise ValueError(f"max_points must be None or an integer >= 1; got {max_points!r}.")
        page = fitted_map_page(self, y, title=title, ids=ids, hover=hover,
                               label_name=label_name, id_name=id_name, max_points=max_points,
                               propagated=propagated_columns(self, y))
        view = MapView(page, height=height)
        if not _in_notebook():
            view.open()
        return view


def _in_notebook():
    """Whether a notebook will display what a cell returns (Jupyter, Colab, VS Code): an
    IPython shell other than the terminal one."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return shell is not None and type(shell).__name__ != "TerminalInteractiveShell"
