"""Standard output and error that can never change the exit code.

The exit code is the contract with CI (0, 1, 2, 3), so it must hold whatever happens to the
streams: a closed stdout or stderr (`>&-`: Python then sets `sys.stdout` to None), a
reader that goes away (`| head`: a broken pipe), a full disk. A stream that cannot be
written is silenced (pointed at the null device, so neither this process nor Python's
own shutdown tries again) and the run ends with the code its verdict had.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO


def make_usable() -> None:
    """Give a missing or closed stdout/stderr a stand-in that swallows what is written, and
    let every stream write any text: a locale that cannot spell a character (LANG=C with an
    old Python, ISO-8859-1) or a file name that is no UTF-8 gets an escape, not an error."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or not _open(stream):
            setattr(sys, name, _null())
            continue
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def write(stream: TextIO | None, text: str) -> bool:
    """Write and flush; False (the stream silenced) when it cannot be written."""
    if stream is None:
        return False
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # a broken pipe, a closed file, a full disk
        silence(stream)
        return False
    return True


def say(line: str) -> None:
    """One line on stderr (an error, a warning), if stderr can take it."""
    write(sys.stderr, line + "\n")


def flush_all() -> None:
    """Flush both streams before the process ends, silencing any that fails."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                silence(stream)


def silence(stream: TextIO) -> None:
    """Point the stream's file descriptor at the null device (what Python still holds in its
    buffer goes there at shutdown, not into a broken pipe) and the stream object too."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        fd = None
    if fd is not None:
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
        except OSError:
            pass
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is stream:
            setattr(sys, name, _null())


def _open(stream: TextIO) -> bool:
    try:
        os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        # A stream with no descriptor (pytest's capture, StringIO) is usable as it is.
        return not getattr(stream, "closed", False)
    return True


def _null() -> TextIO:
    return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives with the process
