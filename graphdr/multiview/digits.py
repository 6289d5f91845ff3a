r"""A multi-view test data set: six views of scikit-learn's digits."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch, check_random_state


# ----- a multi-view data set -------------------------------------------------------------
def _orientation_histograms(images, n_bins=8, cells=2):
    """Gradient-orientation histograms (signed, magnitude-weighted) on a cells x cells grid."""
    gy, gx = np.gradient(images, axis=(1, 2))
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), 2 * np.pi)
    b = np.minimum((ang / (2 * np.pi) * n_bins).astype(int), n_bins - 1)
    n, h, w = images.shape
    out = np.zeros((n, cells, cells, n_bins))
    ch, cw = h // cells, w // cells
    for i in range(cells):
        for j in range(cells):
            sl = (slice(None), slice(i * ch, (i + 1) * ch), slice(j * cw, (j + 1) * cw))
            mb, bb = mag[sl].reshape(n, -1), b[sl].reshape(n, -1)
            for k in range(n_bins):
                out[:, i, j, k] = np.sum(mb * (bb == k), axis=1)
    out = out.reshape(n, -1)
    return out / (out.sum(axis=1, keepdims=True) + 1e-12)


def _moments(images):
    """Mass, centroid and scale-normalised central moments of orders 2 and 3."""
    n, h, w = images.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    m00 = images.sum(axis=(1, 2)) + 1e-12
    cy = (images * yy).sum(axis=(1, 2)) / m00
    cx = (images * xx).sum(axis=(1, 2)) / m00
    feats = [m00, cy, cx]
    dy, dx = yy[None] - cy[:, None, None], xx[None] - cx[:, None, None]
    for p, q in [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]:
        mu = (images * dx**p * dy**q).sum(axis=(1, 2)) / m00
        feats.append(mu)
    F = np.column_stack(feats)
    return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-12)


def _fourier(images, k=4):
    """Magnitudes of the low 2-D Fourier frequencies (translation invariant, phase lost)."""
    F = np.abs(np.fft.fft2(images))[:, :k, :k].reshape(len(images), -1)
    F = np.log1p(F)
    return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-12)


_DIGIT_VIEWS = {
    "pixels": ("4x4 mean-pooled pixels", "rbf"),
    "orientation": ("gradient-orientation histograms, 2x2 cells x 8 bins", "chi2"),
    "fourier": ("log magnitudes of the 4x4 lowest 2-D Fourier frequencies", "rbf"),
    "moments": ("mass, centroid and central moments of orders 2-3", "rbf"),
    "profiles": ("row and column ink profiles", "rbf"),
    "noise": ("pure Gaussian noise, independent of the label", "rbf"),
}


def make_multiview_digits(views=("pixels", "orientation", "fourier", "moments", "noise"), *,
                          n_samples=None, random_state=0, return_X_y=False):
    """Several incomplete descriptors of scikit-learn's 8x8 digits (1797 images, 10 classes).

    Each view alone is informative but loses information, so that combining them pays:

    ``'pixels'``
        the image mean-pooled to 4x4 (16 features; fine strokes are lost);
    ``'orientation'``
        gradient-orientation histograms on a 2x2 grid, 8 signed bins, L1-normalised per sample
        (32 features; use a chi-squared kernel);
    ``'fourier'``
        log magnitudes of the 4x4 lowest 2-D Fourier frequencies (16 features; the phase, hence
        the position of strokes, is lost);
    ``'moments'``
        mass, centroid and the seven central moments of orders 2 and 3 (10 features);
    ``'profiles'``
        ink sums per row and per column (16 features);
    ``'noise'``
        16 features of pure standard Gaussian noise, independent of the label.

    Parameters
    ----------
    views : sequence of str
        Views to build, in order, from the names above.
    n_samples : int or None, default=None
        None takes the 1797 digits. A larger number appends copies of randomly chosen digits
        shifted by one pixel (up, down, left or right) until ``n_samples`` are reached; a
        smaller one takes a random subset (not stratified).
    random_state : int, RandomState or None, default=0
        Seeds the noise view and the subset / shifts.
    return_X_y : bool, default=False
        Return ``(views, y)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``views`` (list of arrays), ``target``, ``view_names``, ``descriptions`` and
        ``kernels`` (a suggested base-kernel kind per view).
    """
    from sklearn.datasets import load_digits

    rng = check_random_state(random_state)
    unknown = [v for v in views if v not in _DIGIT_VIEWS]
    if unknown or len(views) == 0:
        raise ValueError(f"views must be a non-empty list from {sorted(_DIGIT_VIEWS)}; got "
                         f"{list(views)!r}.")
    digits = load_digits()
    images, y = digits.images.astype(float), digits.target
    if n_samples is not None:
        if not isinstance(n_samples, numbers.Integral) or n_samples < 20:
            raise ValueError(f"n_samples must be an integer >= 20 or None; got {n_samples!r}.")
        if n_samples <= len(y):
            idx = rng.choice(len(y), size=n_samples, replace=False)
            images, y = images[idx], y[idx]
        else:
            extra = rng.choice(len(y), size=n_samples - len(y), replace=True)
            shifts = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            new = []
            for i in extra:
                dy, dx = shifts[rng.randint(4)]
                new.append(np.roll(images[i], (dy, dx), axis=(0, 1)))
            images = np.concatenate([images, np.array(new)])
            y = np.concatenate([y, y[extra]])
    n = len(y)
    builders = {
        "pixels": lambda: images.reshape(n, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(n, -1),
        "orientation": lambda: _orientation_histograms(images),
        "fourier": lambda: _fourier(images),
        "moments": lambda: _moments(images),
        "profiles": lambda: np.hstack([images.sum(axis=2), images.sum(axis=1)]),
        "noise": lambda: rng.standard_normal((n, 16)),
    }
    Xs = [builders[v]() for v in views]
    if return_X_y:
        return Xs, y
    return Bunch(views=Xs, target=y, view_names=list(views),
                 descriptions=[_DIGIT_VIEWS[v][0] for v in views],
                 kernels=[_DIGIT_VIEWS[v][1] for v in views])
