"""What a 2-D map shows a user, one module per concern:

* :mod:`~graphdr.maps.views.page` -- the interactive page (one self-contained HTML file) and the
  map as CSV; :mod:`~graphdr.maps.views.page_data` -- the data the page stores;
* :mod:`~graphdr.maps.views.fitted` -- what a fitted map's page shows beside the points
  (held-out error, propagated classes, suspect labels); :mod:`~graphdr.maps.views.density` --
  the classes' contours; :mod:`~graphdr.maps.views.select` -- the rows inside a region drawn on
  the page;
* :mod:`~graphdr.maps.views.display` -- ``DEEMap.show``, the page in a notebook;
* :mod:`~graphdr.maps.views.picture` -- the PNG of a map;
* :mod:`~graphdr.maps.views.draw` -- :func:`graphdr.map2d`, the map of labelled data and its
  page, CSV and picture in one call.

This package exports nothing itself.
"""
