"""The types of the command line's arguments: each turns the text given into a value, or
says in one line what is wrong and what is allowed (``argparse`` prints it, exit 2)."""

import argparse

__all__ = ["csv_list", "gamma", "placement_width", "positive_int", "fraction", "separation",
           "n_jobs", "outputs_list"]


def csv_list(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def gamma(text):
    if text.lower() in ("default", "none", "auto"):
        return "default"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"kernel gamma must be a positive number or 'default'; got {text!r}"
        ) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"kernel gamma must be positive; got {text!r}")
    return value


def _number(text, convert, ok, message):
    """``convert(text)`` when it converts and ``ok`` holds for it, else ``message`` (with the
    text given) as the argument's error."""
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"{message}; got {text!r}")
    return value


def placement_width(text):
    if text == "auto":
        return "auto"
    return _number(text, float, lambda v: 0 < v < float("inf"),
                   "the placement width must be 'auto' or a positive number")


def positive_int(text):
    return _number(text, int, lambda v: v >= 1, "expected a positive integer")


def fraction(text):
    return _number(text, float, lambda v: 0.0 < v <= 1.0, "expected a fraction in (0, 1]")


def separation(text):
    if text == "auto":
        return "auto"
    return _number(text, float, lambda v: 0.0 <= v <= 1.0,
                   "the separation must be 'auto' or a number from 0 to 1")


def n_jobs(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--n-jobs must be an integer; got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("--n-jobs must be nonzero (-1: all cores)")
    return value


def outputs_list(text):
    names = csv_list(text)
    wrong = [n for n in names if n not in ("page", "table", "png")]
    if wrong or not names:
        raise argparse.ArgumentTypeError(
            f"a comma-separated list of page, table, png; got {text!r}")
    return tuple(dict.fromkeys(names))
