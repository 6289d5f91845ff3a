r"""Paper 002 (Gavriilidis and Tefas): its experiments, Tables 2-4 and claims."""

from __future__ import annotations

import dataclasses

from ..protocols import get_protocol
from .spec import (
    Experiment,
    Paper,
    PaperTable,
)

# ----- paper 002 --------------------------------------------------------------------------------
_GAV = get_protocol("gavriilidis")
_P002_METHODS = {"QMI, Random": "qmi:init=random", "MI_B, Random": "mi-b:init=random",
                 "MI_A, Random": "mi-a:init=random", "QMI, LDA": "qmi:init=lda",
                 "MI_B, LDA": "mi-b:init=lda", "MI_A, LDA": "mi-a:init=lda",
                 "MI_BA, Random": "mi-b:init=random", "MI_BA, LDA": "mi-b:init=lda"}
_P002_T2_DIMS = (1, 2, 3, 4, 8, 12, 15, 16, 17, 18, 19)
_P002_T2 = {
    "QMI, Random": (52.50, 28.94, 22.69, 15.06, 17.50, 19.62, 13.56, 15.62, 13.81, 15.44, 10.94),
    "MI_BA, Random": (74.19, 59.75, 48.06, 42.00, 19.19, 19.94, 13.56, 15.62, 13.81, 15.44,
                      10.94),
    "QMI, LDA": (49.50, 24.00, 12.00, 7.19, 5.94, 4.50, 4.87, 6.12, 3.44, 4.94, 4.56),
    "MI_BA, LDA": (27.25, 4.38, 3.44, 3.25, 2.81, 2.25, 2.69, 1.94, 2.94, 3.81, 5.25),
}
_P002_T3 = {
    "QMI, Random": (36.63, 32.29, 25.90, 20.60, 19.76, 17.23, 15.66),
    "MI_B, Random": (35.90, 23.37, 17.71, 17.47, 16.75, 15.78, 15.66),
    "MI_A, Random": (32.77, 22.89, 18.31, 16.99, 16.99, 15.42, 15.66),
    "QMI, LDA": (36.27, 28.31, 29.40, 22.53, 20.72, 17.59, 13.13),
    "MI_B, LDA": (36.51, 20.72, 18.31, 16.87, 17.35, 15.90, 13.01),
    "MI_A, LDA": (36.39, 21.33, 18.07, 16.87, 17.95, 16.14, 13.13),
}
#: Table 4 columns: (paper's data set, dimension) -> our data set
_P002_T4_COLS = (("Balance", 1, "balance_scale"), ("Balance", 2, "balance_scale"),
                 ("Ionosphere", 1, "ionosphere"), ("Wine", 1, "wine"), ("Wine", 2, "wine"),
                 ("Iris", 1, "iris"), ("Iris", 2, "iris"))
_P002_T4 = {
    "QMI, Random": (23.78, 20.19, 42.40, 33.18, 30.68, 4.53, 4.80),
    "MI_B, Random": (65.77, 36.73, 44.11, 32.95, 30.91, 4.27, 3.73),
    "MI_A, Random": (66.09, 37.24, 42.29, 32.95, 31.36, 4.27, 3.73),
    "QMI, LDA": (8.97, 10.26, 39.20, 32.73, 30.45, 8.53, 3.47),
    "MI_B, LDA": (9.29, 10.26, 33.83, 34.77, 29.55, 3.47, 2.67),
    "MI_A, LDA": (8.91, 10.26, 32.57, 34.77, 29.77, 3.47, 2.67),
}


def _p002_table(key, exp, title, values, columns, why):
    """``columns``: (column label, our data set, dim)."""
    cells = {}
    for row, vals in values.items():
        for (label, ds, dim), v in zip(columns, vals):
            cells[(row, label)] = (v, (exp, ds, _P002_METHODS[row], "1nn", dim))
    return PaperTable(key, title, tuple(values), tuple(c[0] for c in columns), cells, why=why)


_P002_WHY_PROTOCOL = (
    "The paper's k of the k-NN classifier, its Parzen width, learning rate and stopping rule "
    "are not given; we use 1-NN and QMIProjection's defaults, on our own 5x2 folds."
)

PAPER_002 = Paper(
    key="002",
    citation="Gavriilidis, Tefas. Exploiting Quadratic Mutual Information for Discriminant "
    "Analysis",
    file="002_dcb91d8797ae9341.txt",
    stand_ins=(
        ("CMU faces (640 images 30x32, 20 people, 32 each; Table 2)",
         "digits:per_class=32 (320 scikit-learn 8x8 digits, 10 classes, 32 each)",
         "CMU faces are not available offline; same samples per class, fewer classes and "
         "pixels, so only dimensions 1-9 exist"),
        ("Ecoli (336 x 7, 8 classes; Table 3)", "led7digit (500 x 7, 10 classes)",
         "Ecoli is not available offline; led7digit has the same number of features and a "
         "similar number of classes and samples"),
        ("Balance (625 x 4, 3 classes; Table 4)", "balance_scale (generated)",
         "the same data: the UCI file is every combination of its four attributes in 1..5, "
         "regenerated from that definition"),
        ("Ionosphere (351 x 34; Table 4)", "ionosphere (351 x 33, vendored)",
         "the same data; the KEEL copy drops the second attribute, which is constant"),
        ("Wine, Iris (Table 4)", "wine, iris (scikit-learn)", "the same data"),
    ),
    experiments=(
        Experiment(
            "faces", "Table 2 (CMU faces stand-in): scaled to [0,1], 5x2 CV, 1-NN, the "
            "table's dimensions up to C-1; MI_BA = MI_B (balanced classes)",
            dataclasses.replace(_GAV, dim_grid=(1, 2, 3, 4, 8)), ("digits:per_class=32",),
            ("qmi:init=random", "mi-b:init=random", "qmi:init=lda", "mi-b:init=lda", "lda",
             "pca"),
            quick_datasets=("digits:per_class=8",), quick_methods=("qmi:init=lda",),
            quick_protocol=dict(n_repeats=1, dim_grid=(1,), max_dim=1),
        ),
        Experiment(
            "uci", "Tables 3-4: scaled to [0,1], 5x2 CV, 1-NN, dimensions 1..min(C-1, D)",
            _GAV, ("led7digit", "balance_scale", "ionosphere", "wine", "iris"),
            ("qmi:init=random", "mi-b:init=random", "mi-a:init=random", "qmi:init=lda",
             "mi-b:init=lda", "mi-a:init=lda", "lda", "pca"),
            quick_datasets=("iris",), quick_methods=("qmi:init=random", "mi-b:init=lda"),
            quick_protocol=dict(n_repeats=1),
        ),
    ),
    tables=(
        _p002_table("table2", "faces", "Table 2: error (%) on CMU faces (paper) / digits, 32 per class "
                    "(ours)", _P002_T2,
                    [(f"dim {d}", "digits", d) for d in _P002_T2_DIMS],
                    "Stand-in data (10 digit classes instead of 20 faces: dimensions above 9 "
                    "do not exist, and digits are easier at low dimensions). MI_BA is our MI_B "
                    "(MI_A = MI_B on balanced folds). " + _P002_WHY_PROTOCOL),
        _p002_table("table3", "uci", "Table 3: error (%) on Ecoli (paper) / led7digit (ours)", _P002_T3,
                    [(f"dim {d}", "led7digit", d) for d in range(1, 8)],
                    "Stand-in data: led7digit's seven noisy binary segments are much harder "
                    "than Ecoli for 1-NN (few distinct feature vectors, so many exact ties), "
                    "and every method, LDA and PCA included, stays far above Ecoli's errors "
                    "at every dimension (see the all-methods table below): the table shows "
                    "that the stand-in is hard, not how the criteria rank on Ecoli. "
                    + _P002_WHY_PROTOCOL),
        _p002_table("table4", "uci", "Table 4: error (%) on data sets with few classes", _P002_T4,
                    [(f"{name} dim {d}", ds, d) for name, d, ds in _P002_T4_COLS],
                    "The same data sets (ionosphere without its constant attribute). "
                    + _P002_WHY_PROTOCOL + " Where the paper's errors are far above ours "
                    "(wine: about 30% in 2-D, where LDA followed by 1-NN errs on a few "
                    "percent in the all-methods table below; ionosphere: 33-44% in 1-D, near "
                    "the 36% of always answering the larger class), its runs did not reach a "
                    "good projection, or its classifier differs. Where ours are above theirs, "
                    "balance with LDA initialisation (about 3 points, one to two standard "
                    "deviations of our folds) and iris in 2-D with MI_A / MI_B (about 2 to 3 "
                    "points: our ratio criteria get worse from 1-D to 2-D on iris, the "
                    "paper's get better), the gap is ours to explain: it points at the "
                    "second direction found by the gradient ascent, not at the data."),
    ),
    summary_tables=(("uci", "Tables 3-4 data sets, all methods, minimum error over dimensions "
                   "(with LDA and PCA "
                     "for reference)"),),
    not_reproduced=(
        "Fig. 1 (2-D projections of Ecoli): the 2-D pictures of the stand-in are in the "
        "experiment's index.html (scatter_led7digit.png).",
    ),
)
