"""A choice a fit made from the data, as a value: the selection steps return it, the fit's
store writes it."""

from __future__ import annotations

from typing import NamedTuple


class Selected(NamedTuple):
    """What a fit chose from the data, or took as given: fitted attributes (``unlabelled_``,
    ``unlabelled_results_``, ``reg_``, ``gamma_``, ``cv_results_``, ``approximation_``,
    ``smoothing_``, ``smoothing_results_``) by name, and the names a fit with these settings
    does not have (``dropped``: a previous fit's are removed). The selection steps return it
    and set nothing; the fit writes it (:meth:`write`)."""

    values: dict
    dropped: tuple = ()

    def __or__(self, other):
        """Both selections, ``other``'s values over these."""
        if other is None:
            return self
        dropped = tuple(n for n in self.dropped if n not in other.values) + other.dropped
        values = {k: v for k, v in self.values.items() if k not in other.dropped}
        return Selected({**values, **other.values}, dropped)

    def write(self, est):
        for name in self.dropped:
            est.__dict__.pop(name, None)
        for name, value in self.values.items():
            setattr(est, name, value)
