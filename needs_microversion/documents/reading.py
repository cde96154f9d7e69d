"""Reading one file, bounded: a regular file (checked on the opened file) of at most so many
bytes. Every read of user input goes through here: documents and the files their `$ref`s
name, configuration files, api-ref sources, parameter files and examples."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from needs_microversion.errors import InputError


class FileTooLarge(InputError):
    """A file over its size limit: an error even where a missing file is only a warning."""


def read_bounded(path: str | Path, display: str, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError otherwise.

    Type and size are checked on the opened file, so nothing can swap it in between: a FIFO
    is opened without blocking and never read, a device or a folder is refused.
    """
    too_large = FileTooLarge(f"is larger than {describe_size(limit)} (the limit)", display)
    size, data = _read_regular(path, display, limit + 1, skip_over=limit)
    if size > limit or len(data) > limit:  # it grew since
        raise too_large
    return data


def read_head(path: str | Path, display: str, count: int) -> tuple[int, bytes]:
    """A regular file's size and its first `count` bytes (checked as `read_bounded` checks
    a file): enough to decide how to read the rest."""
    return _read_regular(path, display, count)


def _read_regular(path: str | Path, display: str, count: int,
                  skip_over: int | None = None) -> tuple[int, bytes]:
    """(size, the first `count` bytes) of a regular file; none read when it is larger than
    `skip_over` bytes."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError("no such file", display) from None
    except OSError as exc:  # a symlink loop, a socket, no permission
        raise InputError(f"cannot read: {exc.strerror or exc}", display) from None
    except ValueError:  # a NUL in the name: no file system takes it
        raise InputError("no such file (the name holds a NUL character)", display) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError("is a directory, not a file", display)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
            raise InputError("is not a regular file", display)
        if skip_over is not None and info.st_size > skip_over:
            return info.st_size, b""
        with os.fdopen(os.dup(fd), "rb") as handle:
            return info.st_size, handle.read(count)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", display) from None
    finally:
        os.close(fd)


def describe_size(limit: int) -> str:
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if limit >= size:
            return f"{limit // size} {unit}"
    return f"{limit} bytes"
