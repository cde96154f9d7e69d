"""A folder of cache entries that can never destroy a file, hang a run or be taken over.

    store = CacheFolder.for_kind("problems")       # None: caching is off
    store.read(name, limit)                        # bytes, or None for anything odd
    store.write(name, data)                        # best effort, whole or not at all
    store.prune(keep=512)                          # the least recently used of our own

Where: `$NEEDS_MICROVERSION_CACHE/<kind>` (empty: no cache), else
`$XDG_CACHE_HOME/needs-microversion/<kind>`, else `~/.cache/needs-microversion/<kind>`.

What makes it safe (the cache folder may be shared, linked or planted by someone else):
- a folder is used only when it is a real folder (not a symlink), owned by this user and
  not writable by others, and is either made here or marked as this tool's by the
  `CACHEDIR.TAG` it writes when it makes one (https://bford.info/cachedir/); a folder that
  holds anything else and no tag is someone else's and is left alone;
- only entries named as this tool names them (a 64-digit hex digest and the kind's suffix)
  that are regular files are ever read or removed; removing a symlink never follows it;
- entries are opened without following links and without blocking (a FIFO is a miss),
  their type and size checked on the opened file;
- a write goes to a new scratch file (O_EXCL, no link followed) renamed over the entry.
Anything odd is a miss, never an error: a cache only saves time.
"""

from __future__ import annotations

import os
import re
import stat
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

ENV = "NEEDS_MICROVERSION_CACHE"
TAG_NAME = "CACHEDIR.TAG"
TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
       b"# This file is a cache directory tag created by needs-microversion.\n"
       b"# For information about cache directory tags see https://bford.info/cachedir/\n")
_NAME = re.compile(r"^[0-9a-f]{64}\.[a-z]+$")
_SCRATCH = re.compile(r"^\.[0-9a-f]{64}\.[a-z]+\.\d+\.tmp$")
_STALE_SCRATCH_NS = 24 * 3600 * 10**9
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def base_folder() -> Path | None:
    """The folder holding every kind's folder (None: caching is off)."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "needs-microversion"


@dataclass(frozen=True)
class CacheFolder:
    path: Path
    suffix: str  # ".json": every entry is <sha256 hex><suffix>

    @classmethod
    def for_kind(cls, kind: str, suffix: str = ".json") -> CacheFolder | None:
        base = base_folder()
        return None if base is None else cls(base / kind, suffix)

    def name(self, digest: str) -> str:
        return f"{digest}{self.suffix}"

    def read(self, name: str, limit: int) -> bytes | None:
        """An entry's bytes (marked as recently used); None when it is absent, not ours,
        not a regular file, larger than `limit`, or the folder is not usable."""
        if not self._is_entry(name) or not self.usable(create=False):
            return None
        try:
            fd = os.open(self.path / name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except (OSError, ValueError):
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            data = os.read(fd, limit + 1)
            if len(data) > limit:
                return None
            with suppress(OSError, NotImplementedError):
                os.utime(fd)  # recently used: kept when the folder is pruned
            return data
        except OSError:
            return None
        finally:
            os.close(fd)

    def has(self, name: str) -> bool:
        """Whether a regular entry of that name is there (a cheap look, nothing read)."""
        if not self._is_entry(name) or not self.usable(create=False):
            return False
        try:
            return stat.S_ISREG(os.lstat(self.path / name).st_mode)
        except (OSError, ValueError):
            return False

    def write(self, name: str, data: bytes) -> bool:
        """Keep an entry, whole or not at all (best effort: False when it was not kept)."""
        if not self._is_entry(name) or not self.usable(create=True):
            return False
        scratch = self.path / f".{name}.{os.getpid()}.tmp"
        try:
            fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except (OSError, ValueError):
            return False
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(scratch, self.path / name)  # replaces a link itself, never its target
        except OSError:
            with suppress(OSError):
                os.unlink(scratch)
            return False
        return True

    def prune(self, keep: int) -> None:
        """Past `keep` entries, remove the least recently used half: only entries named as
        this tool names them that are regular files (a symlink is never followed)."""
        if not self.usable(create=False):
            return
        try:
            listing = list(os.scandir(self.path))
        except OSError:
            return
        entries = []
        stale = time.time_ns() - _STALE_SCRATCH_NS
        for item in listing:
            ours = _NAME.match(item.name) and item.name.endswith(self.suffix)
            if not ours and not _SCRATCH.match(item.name):
                continue
            with suppress(OSError):
                info = item.stat(follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode):
                    continue
                if ours:
                    entries.append((info.st_mtime_ns, item.path))
                elif info.st_mtime_ns < stale:  # a write cut short long ago
                    os.unlink(item.path)
        if len(entries) <= keep:
            return
        entries.sort()
        for _, path in entries[:len(entries) - keep // 2]:
            with suppress(OSError):
                os.unlink(path)

    def usable(self, *, create: bool) -> bool:
        """The folder is this tool's: a real folder of this user's, not writable by others,
        made here or tagged as ours (made, with its tag, when `create` and absent)."""
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            if not create:
                return False
            return self._make()
        except (OSError, ValueError):
            return False
        if not _owned_folder(info):
            return False
        parent = self.path.parent
        if parent.name == "needs-microversion":  # made by this tool too: the same checks
            try:
                if not _owned_folder(os.lstat(parent)):
                    return False
            except (OSError, ValueError):
                return False
        return self._tagged(adopt_empty=create)

    def _make(self) -> bool:
        try:
            self.path.mkdir(mode=0o700, parents=True)
        except FileExistsError:
            return self.usable(create=False) or self._tagged(adopt_empty=True)
        except (OSError, ValueError):
            return False
        return self._write_tag()

    def _tagged(self, *, adopt_empty: bool) -> bool:
        """Ours by its tag; an empty folder is adopted (tagged) when about to be written."""
        try:
            fd = os.open(self.path / TAG_NAME, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except (OSError, ValueError):
            if not adopt_empty:
                return False
            try:
                empty = not any(os.scandir(self.path))
            except OSError:
                return False
            return empty and self._write_tag()
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            return os.read(fd, len(TAG)).startswith(TAG.splitlines()[0])
        except OSError:
            return False
        finally:
            os.close(fd)

    def _write_tag(self) -> bool:
        try:
            fd = os.open(self.path / TAG_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW,
                         0o644)
        except FileExistsError:
            return self._tagged(adopt_empty=False)
        except (OSError, ValueError):
            return False
        with os.fdopen(fd, "wb") as out:
            out.write(TAG)
        return True

    def _is_entry(self, name: str) -> bool:
        return _NAME.match(name) is not None and name.endswith(self.suffix)


def _owned_folder(info: os.stat_result) -> bool:
    """A real folder (not a link) of this user's that others cannot write to."""
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & stat.S_IWOTH:
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()
