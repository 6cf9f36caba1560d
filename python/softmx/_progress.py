"""The `progress` argument of long calls (sweep; verify and identify of run tables).

The library reports progress through a callback on the calling thread after each chunk of its
work (include/softmx/vectors/run_table.hpp SweepOptions::progress, run_check.hpp); the
extension calls the callable made here with the GIL held. Progress never changes a result.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Optional

ProgressCallback = Callable[[int, int], object]


class StderrProgress:
    """The CLI's progress line (tools/softmx/cmd_sweep.cpp Progress) on sys.stderr: what, the
    percent done and the rate, at most four times a second, on one line cleared by close()."""

    def __init__(self, what: str, stream=None):
        self.what = what
        self.stream = sys.stderr if stream is None else stream
        self.start = time.monotonic()
        self.last = None
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.last is not None and now - self.last < 0.25:
            return
        self.last = now
        secs = now - self.start
        rate = done / secs / 1e6 if secs > 0 else 0.0
        line = f"{self.what}: {100.0 * done / total if total else 100.0:5.1f}%  {rate:.0f} M inputs/s"
        self.width = max(self.width, len(line))
        self.stream.write("\r" + line)
        self.stream.flush()

    def close(self) -> None:
        if self.last is not None:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # replaced by an object without isatty, or closed
        return False


def progress_arg(progress, what: str) -> Optional[ProgressCallback]:
    """The callable for the extension: progress=None (the default) shows the CLI's line on
    sys.stderr when it is a terminal (sys.stderr.isatty()) and nothing otherwise; True shows it
    always, False never; a callable is called as progress(done, total) with the counts of inputs
    (done increasing, the last call's equal to total). Returns None for no progress."""
    if progress is None:
        progress = _is_terminal(sys.stderr)
    if progress is True:
        return StderrProgress(what)
    if progress is False:
        return None
    if callable(progress):
        return progress
    raise TypeError(f"progress must be None (a line on stderr when it is a terminal), True, False or a callable "
                    f"progress(done, total), got {type(progress).__name__}")


def run_with_progress(fn, progress, what: str):
    """fn(callback) with the progress argument turned into the extension's callback; a stderr line
    is cleared when fn returns or raises."""
    cb = progress_arg(progress, what)
    try:
        return fn(cb)
    finally:
        if isinstance(cb, StderrProgress):
            cb.close()
