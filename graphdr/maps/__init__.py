r"""The supervised 2-D map: :class:`DEEMap`, its page, and the map of a file in one call.

One module per concern:

* :mod:`graphdr.maps.dee_map` -- :class:`DEEMap`, DEE's objective over a free 2-D map with an
  out-of-sample transform, its fit read as prepare, objective, descent, store;
* :mod:`graphdr.maps.objective` -- the map's objective; :mod:`graphdr.maps.grid_field` -- its
  repulsion on a grid;
* :mod:`graphdr.maps.heavy_tailed` -- the heavy-tailed map (``repulsion='cauchy'``): t-SNE's
  objective, its affinities and descent; :mod:`graphdr.maps.cauchy_field` -- its repulsion by
  FFT;
* :mod:`graphdr.maps.inputs` -- its graphs and scaling; :mod:`graphdr.maps.start` -- its start;
* :mod:`graphdr.maps.placement` -- the placement of new samples; :mod:`graphdr.maps.placing`
  -- DEEMap's placing methods (``transform``, ``transform_left_out``);
* :mod:`graphdr.maps.dask_fit` -- the fit and placement of Dask arrays;
* :mod:`graphdr.maps.views` -- what the map shows a user: its interactive page and table, the
  PNG, ``DEEMap.show`` in a notebook, and :func:`map2d` (the map of labelled data in one call);
* :mod:`graphdr.maps.partitions` -- the map of files too large for memory, on Dask.

The names are imported when first used, so that ``graphdr map`` starts at once.
"""

import importlib

_WHERE = {"DEEMap": ".dee_map", "map2d": ".views.draw", "plot_map": ".views.picture",
          "write_map": ".views.draw"}

__all__ = ["DEEMap", "map2d", "plot_map", "write_map"]


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'graphdr.maps' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
