"""Reading the data files users have, shared by ``graphdr map`` and ``graphdr bench``:
:mod:`~graphdr.io.files` (CSV/TSV and Parquet tables: separators, encodings, headers, label and
id columns, missing cells, text columns), :mod:`~graphdr.io.file_parts` (a table in many files,
read in parts), :mod:`~graphdr.io.array_files` (``.npz`` and LIBSVM/svmlight),
:mod:`~graphdr.io.columns` (finding the label and id columns) and :mod:`~graphdr.io.paths`
(readable inputs, writable outputs). Each is imported by its own name."""
