"""Every file graphdr writes appears whole or not at all, and never over an input.

One rule for every writer (``graphdr map``, :func:`graphdr.map2d`, ``bench``, ``demo``,
``reproduce``): a file is written to a temporary file beside its target (same folder, so the
same file system) and renamed into place with :func:`os.replace` once complete. A reader
never sees half a file; an interrupted or failed write leaves the old file, if any, as it was.

- :func:`atomic_path` -- one file: a temporary path to write, renamed when the block ends
  without an exception.
- :func:`atomic_open` -- the same, as an open text file.
- :class:`OutputSet` -- several files that belong together (a map's page, CSV and picture):
  each is written to its temporary path, and only when all are complete are they renamed, with
  Ctrl-C held during the renames, so that a set is all new or all old.
- :class:`StagedFolder` -- a folder of results that a run replaces (``bench``, ``demo``,
  ``reproduce``): the run works in ``OUT/in-progress`` and its files replace the folder's only
  when it is complete; a run stopped before leaves ``OUT`` as it was and its finished work in
  ``in-progress`` for the next run to go on from.
- :func:`refuse_inputs` -- an output over an input file, over or inside an input folder,
  around an input, or matching an input pattern is refused with a ``ValueError`` before any
  work.
"""

from __future__ import annotations

import _thread
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import threading
import uuid
from pathlib import Path

__all__ = ["atomic_path", "atomic_open", "OutputSet", "InterruptedAfterWriting", "refuse_inputs",
           "held_interrupts", "recording_handler", "interrupt_answered", "spreadsheet_safe",
           "from_spreadsheet_safe", "SafeRows", "StagedFolder", "IN_PROGRESS", "unfinished_run"]


def _temporary_name(target):
    """A hidden name beside ``target`` that keeps its suffix (matplotlib reads the format
    from it) and cannot collide with another writer's."""
    target = Path(target)
    return target.with_name(f".{target.stem}.{uuid.uuid4().hex[:12]}.part{target.suffix}")


#: the names :func:`_temporary_name` gives (a file of a writer killed before its rename)
_PART = re.compile(r"\..*\.[0-9a-f]{12}\.part(\.[^.]*)?$")


def _discard(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
        return
    with contextlib.suppress(OSError):
        os.unlink(path)


@contextlib.contextmanager
def atomic_path(target):
    """Yield a temporary path beside ``target``; when the block ends without an exception the
    file written there replaces ``target`` (:func:`os.replace`), else it is removed and
    ``target`` is left as it was."""
    tmp = _temporary_name(target)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        _discard(tmp)


@contextlib.contextmanager
def atomic_open(target, mode="w", **kwargs):
    """:func:`open` of a temporary file beside ``target``, renamed over it when complete
    (flushed and synced first)."""
    with atomic_path(target) as tmp:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


@contextlib.contextmanager
def held_interrupts():
    """Hold Ctrl-C (SIGINT) for the block and raise it as :class:`KeyboardInterrupt` after;
    a no-op outside the main thread, where Python delivers no signal anyway."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, recording_handler(received))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def recording_handler(received):
    """A SIGINT handler that appends each Ctrl-C to ``received`` (to be raised later) and
    ignores the repeat of a dropped Ctrl-C that was raised already (:func:`keep_lost_interrupts`)."""

    def handler(signum, frame):
        if _take_interrupt():
            received.append(signum)

    return handler


#: Ctrl-C that Python dropped: a :class:`KeyboardInterrupt` raised where it can only be
#: reported (a weakref callback of the import machinery, a ``__del__``), recorded by
#: :func:`keep_lost_interrupts` until the command answers it
LOST_INTERRUPTS = []
#: the repeat of a dropped Ctrl-C: whether one is on its way, how many were sent to the main
#: thread and how many of them its handler has taken
_REPEATS = {"pending": False, "sent": 0, "taken": 0}
#: how long the repeat waits, so that Python has left the code that dropped the interrupt
_REPEAT_AFTER = 0.05


def keep_lost_interrupts():
    """Raise again, in the main thread, every ``KeyboardInterrupt`` that Python could not
    raise (:func:`sys.unraisablehook`), instead of printing it; other unraisable exceptions
    are reported as before. For the command line: a run that Ctrl-C reached must stop, and at
    once (a dropped Ctrl-C once let a map run on for minutes, to stop only before writing).

    The dropped interrupt is recorded in :data:`LOST_INTERRUPTS`, and a short thread sends it
    to SIGINT's handler again (:func:`_thread.interrupt_main`) a moment later, which raises it
    in the main thread's ordinary code; if that raise is dropped too, the same happens again.
    The record stays until the command answers the interrupt (:func:`interrupt_answered`), so
    that :func:`raise_lost_interrupt` raises it before any file is renamed into place even if
    every repeat was dropped."""
    previous = sys.unraisablehook
    if getattr(previous, "keeps_lost_interrupts", False):
        return

    def hook(unraisable):
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type,
                                                          KeyboardInterrupt):
            LOST_INTERRUPTS.append(unraisable.exc_type)
            if not _REPEATS["pending"]:
                _REPEATS["pending"] = True
                try:
                    threading.Thread(target=_repeat_lost_interrupt, daemon=True,
                                     name="graphdr-repeat-ctrl-c").start()
                except RuntimeError:  # no new thread while Python closes
                    _REPEATS["pending"] = False
            return
        previous(unraisable)

    hook.keeps_lost_interrupts = True
    sys.unraisablehook = hook


def _repeat_lost_interrupt():
    import time

    time.sleep(_REPEAT_AFTER)
    _REPEATS["pending"] = False
    if LOST_INTERRUPTS:
        _REPEATS["sent"] += 1
        _thread.interrupt_main(signal.SIGINT)


def _take_interrupt():
    """Whether the SIGINT now handled is a Ctrl-C to answer: False only for the repeat of a
    dropped Ctrl-C that was raised already (by :func:`raise_lost_interrupt`)."""
    if _REPEATS["taken"] < _REPEATS["sent"]:
        _REPEATS["taken"] = _REPEATS["sent"]
        return bool(LOST_INTERRUPTS)
    return True


def interrupt_answered():
    """The command has answered a Ctrl-C (its one line): a dropped one is answered with it."""
    LOST_INTERRUPTS.clear()


#: the Ctrl-C that reached a command (:func:`count_interrupts`)
INTERRUPTS = []


def count_interrupts():
    """Record every SIGINT before raising :class:`KeyboardInterrupt` as Python does (when
    Python's own handler is in place, in the main thread): an extension that a Ctrl-C
    stopped may answer with an error of its own instead (scikit-learn's trees, unpickled
    on a Dask worker's reply, raised ``ValueError: ... is not a valid PEP 3118 buffer
    format string``), and the command still owes the interrupted run its 130. Clears the
    record of an earlier command in the same process."""
    INTERRUPTS.clear()
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        return

    def handler(signum, frame):
        if _take_interrupt():
            INTERRUPTS.append(signum)
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)


def raise_lost_interrupt():
    """Raise the :class:`KeyboardInterrupt` that Python dropped earlier, if any."""
    if LOST_INTERRUPTS:
        LOST_INTERRUPTS.clear()
        raise KeyboardInterrupt


def forget_handled_interrupts():
    """Clear CPython's record of a :class:`KeyboardInterrupt` left unhandled. A Ctrl-C that
    passes through an ``exec`` of source text (dataclasses and named tuples build their
    methods so, during a late import) sets it even when the command catches the interrupt and
    answers 130, and ``python -m graphdr.cli`` then ended by SIGINT after its one line; CPython
    clears the record at each evaluation of source text."""
    exec("None")


class InterruptedAfterWriting(KeyboardInterrupt):
    """Ctrl-C that came while a set of files was renamed into place: ``files`` were written
    whole, and the interrupt is raised after them."""

    def __init__(self, files):
        super().__init__()
        self.files = [str(f) for f in files]


class OutputSet:
    """Files written together: all renamed into place, or none.

    ``path(target)`` gives the temporary path to write ``target`` to, ``folder(target)`` a
    temporary folder (created) to fill in place of the folder ``target`` (a map's Parquet
    partitions); :meth:`commit` renames every written file and folder into place, with Ctrl-C
    held (an earlier folder at ``target`` is moved aside first and removed after); leaving a
    ``with`` block by an exception before :meth:`commit` removes the temporary files and
    folders and leaves the targets untouched.
    ``committed`` says whether the renames happened (an interrupt held during them is raised
    after, with ``committed`` true).
    """

    def __init__(self):
        self._pending = {}
        self.committed = False

    def path(self, target):
        target = Path(target)
        if target not in self._pending:
            self._pending[target] = _temporary_name(target)
        return self._pending[target]

    def folder(self, target):
        target = Path(target)
        if target.exists() and not target.is_dir():
            raise ValueError(f"{target} exists and is not a folder; choose another --out or "
                             "remove it.")
        path = self.path(target)
        path.mkdir(exist_ok=True)
        return path

    @property
    def targets(self):
        return list(self._pending)

    def commit(self):
        missing = [str(t) for t, tmp in self._pending.items() if not os.path.exists(tmp)]
        if missing:
            raise RuntimeError(f"not written before commit: {', '.join(missing)}")
        raise_lost_interrupt()  # stopped before: the targets stay as they were
        targets, aside = self.targets, []
        try:
            with held_interrupts():
                try:
                    for target, tmp in self._pending.items():
                        if os.path.isdir(tmp) and os.path.isdir(target):
                            aside.append((target, _temporary_name(target)))
                            os.replace(target, aside[-1][1])  # rename cannot replace a folder
                        os.replace(tmp, target)
                except OSError:
                    for target, old in aside:
                        if not os.path.exists(target):
                            os.replace(old, target)  # the earlier folder back in place
                    raise
                self.committed = True
                self._pending = {}
        except KeyboardInterrupt:
            raise InterruptedAfterWriting(targets) from None
        finally:
            for _, old in aside:
                _discard(old)

    def discard(self):
        for tmp in self._pending.values():
            _discard(tmp)
        self._pending = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.discard()
        return False


#: the folder, inside a folder of results, where a run that replaces them works until it is done
IN_PROGRESS = "in-progress"
#: the file that marks an ``in-progress`` folder as graphdr's and names the run it holds
_UNFINISHED = "unfinished.json"


def unfinished_run(out):
    """What ``out/in-progress/unfinished.json`` says of the run left there (a dict with
    ``what``, ``command``, ``started`` and ``fresh``), or None when there is no such run."""
    try:
        with open(os.path.join(out, IN_PROGRESS, _UNFINISHED), encoding="utf-8") as fh:
            info = json.load(fh)
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) and "what" in info else None


class StagedFolder:
    """A folder of results replaced only when the new results are whole.

    A run that rewrites a folder of results (``graphdr bench``, ``demo``, ``reproduce``) writes
    into :attr:`path`, ``OUT/in-progress``; :meth:`commit` moves every file written there to
    the same place in ``OUT`` (subfolders merged file by file, so that no other file of
    ``OUT`` is touched), with Ctrl-C held, and removes ``in-progress``. Until then ``OUT`` is
    as it was, byte for byte. A run stopped before (Ctrl-C, a crash) leaves its finished work
    in ``in-progress``, with ``unfinished.json`` naming the run, so that the next run of the
    same command goes on from it (:meth:`resume_folder`); with ``keep=False`` (a run that
    always starts over) it is removed instead. A run refused by a ``ValueError`` removes an
    ``in-progress`` folder it made.

    Parameters
    ----------
    out : str or path
        The folder of results (created when missing).
    what : str
        The command whose run this is (``"bench"``, ``"reproduce 000"``): an unfinished run of
        another command in ``OUT`` is refused, never taken up or discarded.
    fresh : bool
        Start from nothing: an unfinished run of the same command is discarded, and
        :meth:`resume_folder` never gives ``OUT``'s own files. Without it an unfinished run is
        taken up as it was started (fresh or not).
    keep : bool
        Keep the unfinished work when the run stops (default True).
    command : str
        The command line, recorded in ``unfinished.json``.

    Attributes
    ----------
    path : Path
        ``OUT/in-progress``, where the run writes.
    fresh : bool
        Whether the run started from nothing (a taken-up run keeps its own).
    resumed : bool
        Whether an unfinished run was taken up.
    committed : bool
        Whether :meth:`commit` moved the files into ``OUT``.
    """

    def __init__(self, out, *, what, fresh=False, keep=True, command=""):
        self.out = Path(out)
        self.path = self.out / IN_PROGRESS
        self.what, self.keep, self.command = what, keep, command
        self.fresh, self.resumed, self.committed = bool(fresh), False, False
        self._made = self._made_out = False

    def __enter__(self):
        self._made_out = not os.path.exists(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(self.path):
            info = unfinished_run(self.out)
            if info is None or not self.path.is_dir() or self.path.is_symlink():
                raise ValueError(f"{self.path} is not a folder graphdr made (graphdr keeps an "
                                 "unfinished run there); choose another --out, or move it.")
            if info["what"] != self.what:
                raise ValueError(f"{self.path} holds an unfinished run of another command "
                                 f"(`{info.get('command', info['what'])}`): finish it by "
                                 "running that command again, or choose another --out.")
            if not self.fresh:
                self.fresh, self.resumed = bool(info.get("fresh")), True
                return self
            with held_interrupts():  # the earlier unfinished run is discarded whole
                aside = _temporary_name(self.path)
                os.replace(self.path, aside)
                _discard(aside)
        import time

        info = dict(what=self.what, command=self.command, fresh=self.fresh,
                    started=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
        with atomic_path(self.path) as tmp:  # the folder appears with its mark, or not at all
            os.mkdir(tmp)
            with open(os.path.join(tmp, _UNFINISHED), "w", encoding="utf-8") as fh:
                json.dump(info, fh, indent=1)
        self._made = True
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or self.committed:
            return False
        if not self.keep or (self._made and issubclass(kind, ValueError)):
            _discard(self.path)
            if self._made_out:  # a folder made for this run alone, left empty
                with contextlib.suppress(OSError):
                    os.rmdir(self.out)
        return False

    def work(self, final):
        """Where the run writes what ends up at ``final`` (a path in ``OUT``)."""
        rel = os.path.relpath(os.path.abspath(final), os.path.abspath(self.out))
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            raise ValueError(f"{final} is not inside {self.out}")
        return self.path if rel == os.curdir else self.path / rel

    def final(self, work):
        """Where ``work`` (a path in :attr:`path`) is once the run is committed."""
        rel = os.path.relpath(os.path.abspath(work), os.path.abspath(self.path))
        return self.out if rel == os.curdir else self.out / rel

    def resume_folder(self, final, names):
        """The folder to go on from for the files ``names`` of the folder ``final`` in ``OUT``:
        the unfinished run's when it wrote any of them, else ``final`` itself unless the run
        is fresh, else None (start from nothing)."""
        work = self.work(final)
        if any(os.path.exists(work / n) for n in names):
            return work
        if not self.fresh and any(os.path.exists(os.path.join(final, n)) for n in names):
            return Path(final)
        return None

    def commit(self, stale=()):
        """Move every file written in :attr:`path` to its place in ``OUT``, with Ctrl-C held
        (raised after as :class:`InterruptedAfterWriting`), and remove :attr:`path`. ``stale``:
        paths relative to ``OUT`` that the run removes when it did not write them (a list of
        failures from an earlier run)."""
        files = sorted(p for p in self.path.rglob("*") if not p.is_dir()
                       and p != self.path / _UNFINISHED and not _PART.match(p.name))
        for src in files:
            target = self.final(src)
            if target.is_dir() and not target.is_symlink():
                raise ValueError(f"{target} is a folder, where the run writes a file; move it "
                                 "and run the command again to finish.")
            for parent in target.relative_to(self.out).parents:
                if (self.out / parent).is_file():
                    raise ValueError(f"{self.out / parent} is a file, where the run writes a "
                                     "folder; move it and run the command again to finish.")
        stale = [self.out / s for s in stale
                 if not os.path.lexists(self.work(self.out / s)) and
                 os.path.isfile(self.out / s)]
        raise_lost_interrupt()  # stopped before: OUT stays as it was
        try:
            with held_interrupts():
                for src in files:
                    target = self.final(src)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(src, target)
                for path in stale:
                    _discard(path)
                self.committed = True
                _discard(self.path)
        except KeyboardInterrupt:
            raise InterruptedAfterWriting([self.out]) from None


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _within(path, folder):
    """Whether ``path`` (resolved) is ``folder`` or lies below it."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def refuse_inputs(outputs, inputs, option="--out"):
    """Raise ``ValueError`` before any work when an output would land over, inside or around
    an input.

    ``inputs`` are what the run reads, as the user named them: files, folders (a Parquet
    dataset as Spark writes it) and glob patterns. An output (a file, or a folder that the
    run fills or replaces) is refused when it

    - is an input file (the same path, a link to it, or a hard link of it);
    - is an input folder, or lies inside one (the next run would read the output as data);
    - holds an input (an output folder that an input lies in);
    - matches an input pattern (``data/*.csv`` and ``--out data/map`` writing ``data/map.csv``).
    """
    import fnmatch
    import glob

    files, folders, patterns = [], [], []
    for inp in inputs:
        if inp is None:
            continue
        inp = str(inp)
        if os.path.isdir(inp):
            folders.append(inp)
        elif os.path.isfile(inp):
            files.append(inp)
        elif glob.has_magic(inp):
            patterns.append(os.path.abspath(inp))
            files += [p for p in glob.glob(inp) if os.path.isfile(p)]
            folders += [p for p in glob.glob(inp) if os.path.isdir(p)]
    for out in outputs:
        out = str(out)
        for inp in files:
            if os.path.exists(out) and _same_file(out, inp) or \
                    os.path.realpath(out) == os.path.realpath(inp):
                raise ValueError(f"{option} {out}: this output would overwrite the input file "
                                 f"{inp}; choose another {option}.")
        for inp in folders:
            if _within(out, inp):
                what = ("would replace the input folder" if _within(inp, out) else
                        "lies inside the input folder")
                raise ValueError(f"{option} {out}: this output {what} {inp} (the next run "
                                 f"would read it as data); choose another {option} outside it.")
        for inp in files + folders:
            if _within(inp, out):
                raise ValueError(f"{option} {out}: the input {inp} lies inside this output; "
                                 f"choose another {option}.")
        for pattern in patterns:
            if fnmatch.fnmatch(os.path.abspath(out), pattern):
                raise ValueError(f"{option} {out}: this output matches the input pattern "
                                 f"{pattern} (the next run would read it as data); choose "
                                 f"another {option}.")


#: cells a spreadsheet reads as a formula when they begin with one of these
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _escaped(text):
    """Whether :func:`spreadsheet_safe` puts a ``'`` before ``text``: a text (not a number)
    that begins with ``= + - @``, a tab or a carriage return; or a ``'`` before such a text
    (so that reading back is never ambiguous: ``'=x`` is written ``''=x``)."""
    while text.startswith("'"):
        text = text[1:]
        if not text.startswith(("'",) + _FORMULA_STARTS):
            return False
    if not text.startswith(_FORMULA_STARTS):
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False


def spreadsheet_safe(text):
    """``text`` as a spreadsheet shows it, never as a formula (OWASP's rule for CSV
    injection): a text cell that begins with ``= + - @``, a tab or a carriage return gets a
    leading ``'``; a number (``-1``, ``+2.5``, ``-1e-3``) is left as it is. A text made of
    ``'`` and then such a text gets a leading ``'`` too (``'=x`` is written ``''=x``), so that
    :func:`from_spreadsheet_safe` gives every text back as it was."""
    text = str(text)
    return "'" + text if _escaped(text) else text


def from_spreadsheet_safe(text):
    """The text :func:`spreadsheet_safe` was given (graphdr reading its own CSV back)."""
    text = str(text)
    if text.startswith("'") and _escaped(text[1:]):
        return text[1:]
    return text


class SafeRows:
    """A :mod:`csv` writer (or ``DictWriter``) whose text cells pass :func:`spreadsheet_safe`."""

    def __init__(self, writer):
        self._writer = writer

    def writeheader(self):
        self._writer.writeheader()

    def writerow(self, row):
        if isinstance(row, dict):
            return self._writer.writerow({k: _safe_cell(v) for k, v in row.items()})
        return self._writer.writerow([_safe_cell(v) for v in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def _safe_cell(value):
    return spreadsheet_safe(value) if isinstance(value, str) else value
