"""The ``graphdr`` command line: :mod:`~graphdr.cli.command` (the parser, ``demo``, ``bench``,
``reproduce``, ``list``), :mod:`~graphdr.cli.map_command` (``graphdr map`` and the options that
say how data files are read), :mod:`~graphdr.cli.demo` (the papers' demo pages)."""

from .command import build_parser, main

__all__ = ["main", "build_parser"]
