"""What a command of ``graphdr`` stopped by Ctrl-C says it left, and how to go on."""

from __future__ import annotations

import os
import shlex

from .._outputs import IN_PROGRESS, unfinished_run

__all__ = ["interrupted", "command_line"]


def command_line(argv):
    """``argv`` as the command a user types (quoted for a shell)."""
    return "graphdr " + " ".join(shlex.quote(a) for a in argv)


def interrupted(args, argv):
    """What a command stopped by Ctrl-C says: what it left, and for ``bench`` and
    ``reproduce`` the command that goes on from the finished cells (``argv`` without
    ``--fresh``, which would start over)."""
    if args.command == "map":
        return "interrupted; nothing was written (an earlier map at --out is as it was)."
    out = args.out or f"graphdr-reproduce-{args.paper}"
    kept = f"interrupted; nothing in {out} was replaced"
    if args.command == "demo":
        return kept + " (the demo starts over when run again)."
    if unfinished_run(out) is None:
        return kept + "."
    again = _without_fresh(argv)
    return (f"{kept}; the cells finished so far are kept in {os.path.join(out, IN_PROGRESS)}. "
            f"To go on from them, run{' (without --fresh, which starts over)' * (again != argv)}"
            f": {command_line(again)}")


def _without_fresh(argv):
    """``argv`` without the option ``--fresh`` (or an abbreviation argparse takes for it)."""
    kept, options = [], True
    for arg in argv:
        if options and len(arg) > 3 and "--fresh".startswith(arg):
            continue
        options = options and arg != "--"
        kept.append(arg)
    return kept
