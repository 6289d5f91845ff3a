"""
2-D maps of labelled data, and new samples placed on them
=========================================================

A linear map (:class:`graphdr.LDA`, :class:`graphdr.DEE`) or a kernel map with one width
(:class:`graphdr.KQMI`) draws ten digit classes on top of one another in 2-D: no plane
separates them. :class:`graphdr.DEEMap` minimises DEE's objective (attract neighbours of the
same class, repel other classes) over the map itself, so every class gets its own region, and
places new samples by their nearest training samples (``transform``).
:func:`graphdr.map2d` is the same map in one call, drawn as PNG and HTML.

Below, each method is fitted on 1200 digits and the 597 others are placed out of sample; each
title gives their 1-NN error on the map (the training samples' map as reference) and the fit
time: the picture of ``graphdr demo``'s ``maps/`` report (:mod:`graphdr.bench.maps`). With
``pip install "graphdr[bench]"`` it adds supervised UMAP and openTSNE, as the committed
benchmark does on larger sets (``benchmarks/results/maps2d.md``).
"""

# %%
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from graphdr.bench.maps import default_map_methods, draw_held_out_maps, held_out_map

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, train_size=1200, stratify=y,
                                                    random_state=0)
# graphdr's maps, and supervised UMAP and openTSNE when they are installed (graphdr[bench])
maps = [held_out_map(name, make, X_train, y_train, X_test, y_test)
        for name, make in default_map_methods().items()]
fig = draw_held_out_maps(maps, y_test, f"{len(y_test)} held-out digits on 2-D maps fitted "
                         f"to {len(y_train)} others")

# %%
# The map in one call
# -------------------
# ``map2d`` fits :class:`graphdr.DEEMap` with its defaults; with ``out="digits-map"`` it also
# writes ``digits-map.png`` and a self-contained ``digits-map.html`` (``graphdr map DATA`` on
# the command line does the same for a CSV or ``.npz`` file).
from graphdr import map2d  # noqa: E402
from graphdr.maps.views.draw import plot_map  # noqa: E402

model = map2d(X, y)
plot_map(model, y, title=f"DEEMap of the {len(y)} digits ({model.n_iter_} iterations)")
