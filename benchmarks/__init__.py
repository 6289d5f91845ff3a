"""graphdr's benchmarks as a package: ``python -m benchmarks list | run NAME | index``.

The scripts also run on their own (``python benchmarks/NAME.py``); :mod:`benchmarks.registry`
finds them and their results; :mod:`benchmarks.common` is what they share (the data
directory, loading the shared and scikit-learn sets, timing).
"""
