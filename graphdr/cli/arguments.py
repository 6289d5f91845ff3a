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


def placement_width(text):
    if text == "auto":
        return "auto"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the placement width must be 'auto' or a positive number; got {text!r}") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(
            f"the placement width must be 'auto' or a positive number; got {text!r}")
    return value


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
    return value


def fraction(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1]; got {text!r}") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1]; got {text!r}")
    return value


def separation(text):
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"the separation must be a number from 0 to 1; "
                                         f"got {text!r}")
    return value


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
