"""The Dask cluster a command runs on: a scheduler the user names, or a local cluster that
graphdr starts and closes, whose workers a terminal's Ctrl-C does not reach (graphdr's own
process answers it) and whose closing reports are not printed as graphdr's messages."""

from __future__ import annotations

import contextlib
import logging

__all__ = ["dask_client"]


@contextlib.contextmanager
def dask_client(scheduler, n_workers, memory_limit, command, echo):
    """A Dask client of the scheduler at ``scheduler`` (unless None or ``'local'``), or of a
    local cluster of ``n_workers``
    processes (default: the machine's cores) of one thread each, ``memory_limit`` bytes each
    (default: Dask's share of the machine's memory); closed at the end."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ValueError(f"{command} on a Dask cluster needs Dask's distributed scheduler: pip "
                         "install 'graphdr[dask]' (dask[distributed]).") from None
    if scheduler and scheduler != "local":
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise ValueError(f"--scheduler {scheduler}: no Dask scheduler answers there "
                             f"({exc}).") from None
        _quiet_closing_reports()
        with client:
            echo(f"{command}: running on the Dask cluster at {scheduler}.")
            yield client
        return
    import os
    import shutil
    import tempfile

    n_workers = n_workers or os.cpu_count() or 1
    # the workers' scratch space is graphdr's own, removed at the end whatever happens
    scratch = tempfile.mkdtemp(prefix="graphdr-dask-")
    cluster = None
    try:
        import dask

        with _workers_ignore_ctrl_c(scratch), dask.config.set({"temporary-directory": scratch}):
            # the workers' own log lines (a task cancelled as the cluster closes) are not
            # graphdr's messages: only a critical one is printed
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, host="127.0.0.1",
                                   dashboard_address=":0", processes=True,
                                   memory_limit=memory_limit or "auto",
                                   local_directory=scratch, silence_logs=logging.CRITICAL)
        _quiet_closing_reports()
        with cluster, Client(cluster) as client:
            echo(f"{command}: started a local Dask cluster of {n_workers} workers "
                 f"({cluster.scheduler_address}).")
            try:
                yield client
            except KeyboardInterrupt:
                # the client's pending transfers end as the cluster closes; their "never
                # retrieved" reports would follow graphdr's one line
                for name in ("asyncio", "distributed", "tornado"):
                    logging.getLogger(name).disabled = True
                raise
    finally:
        if cluster is not None:
            cluster.close()
        shutil.rmtree(scratch, ignore_errors=True)


class _ClosingReports(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" reports of the Dask client's own
    transfers ended by the cluster's closing (``AllExit``): not graphdr's messages. Python
    reports such a task when it is collected, in the client's thread, so this cannot wait for
    the ``KeyboardInterrupt`` to reach graphdr's thread."""

    def filter(self, record):
        exc = record.exc_info[0] if record.exc_info else None
        return not (exc is not None and exc.__name__ == "AllExit")


_CLOSING_REPORTS = _ClosingReports()


def _quiet_closing_reports():
    logging.getLogger("asyncio").addFilter(_CLOSING_REPORTS)  # once: the same filter object


@contextlib.contextmanager
def _workers_ignore_ctrl_c(scratch):
    """The local workers start with Ctrl-C (SIGINT) ignored, and a Ctrl-C during their start
    is not lost: it is raised as ``KeyboardInterrupt`` once they have started (graphdr then
    closes the cluster).

    The terminal's Ctrl-C goes to every process of the foreground group; a worker that
    received it would print its own traceback. A process started with SIGINT ignored keeps it
    ignored, but a signal mask is not inherited (``multiprocessing`` resets it) and ignoring it
    in graphdr's process too would lose a Ctrl-C. So the workers' Python is started through a
    two-line shell script in ``scratch`` that ignores SIGINT and runs this interpreter
    (``multiprocessing``'s spawn executable, restored at the end), while graphdr's process
    records a Ctrl-C and raises it after the start. Where there is no POSIX shell, graphdr's
    process ignores SIGINT during the start (a Ctrl-C in those seconds is then lost)."""
    import multiprocessing.spawn as mp_spawn
    import os
    import signal
    import threading

    from .._outputs import recording_handler

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wrapper = _ctrl_c_wrapper(scratch) if os.name == "posix" else None
    if wrapper is None:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
        return
    executable = mp_spawn.get_executable()
    pressed = []
    previous = signal.signal(signal.SIGINT, recording_handler(pressed))
    mp_spawn.set_executable(wrapper)
    try:
        yield
    finally:
        mp_spawn.set_executable(executable)
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def _ctrl_c_wrapper(scratch):
    """The path of a shell script in ``scratch`` that runs this Python with SIGINT ignored,
    or None where it cannot run (no ``/bin/sh``, a folder mounted without execution)."""
    import os
    import subprocess
    import sys

    from .._outputs import atomic_open

    wrapper = os.path.join(scratch, "python-ignoring-ctrl-c")
    quoted = sys.executable.replace("'", "'\\''")
    try:
        with atomic_open(wrapper, "w") as fh:
            fh.write(f"#!/bin/sh\ntrap '' INT\nexec '{quoted}' \"$@\"\n")
        os.chmod(wrapper, 0o700)
        subprocess.run([wrapper, "-c", "pass"], check=True, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return wrapper
