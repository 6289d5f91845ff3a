"""The building blocks the estimators are made of, one module per concern: graphs over the
samples and their quadratic forms (:mod:`~graphdr.blocks.graphs`), exact and approximate
neighbour searches (:mod:`~graphdr.blocks.knn`), kernel matrices and the empirical kernel map
(:mod:`~graphdr.blocks.kernel_matrices`), one-pass class statistics
(:mod:`~graphdr.blocks.stats`), the line-search descent driver (:mod:`~graphdr.blocks.optim`),
sampled pairs (:mod:`~graphdr.blocks.pairs`), content-keyed subsamples and folds
(:mod:`~graphdr.blocks.sampling`), the generalized eigen-solvers
(:mod:`~graphdr.blocks.solvers`), feature scaling (:mod:`~graphdr.blocks.scaling`) and the
inverted lists of the map's neighbour graphs (:mod:`~graphdr.blocks.lists`). None knows an
estimator: the coordinate spaces and solve routes of graph embedding are part of the framework,
:mod:`graphdr.graph_embedding`. Each is imported by its own name; this package exports nothing itself."""
