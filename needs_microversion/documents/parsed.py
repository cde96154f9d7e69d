"""What a reader made of some input, kept by the input's content: read once, reused by every
later run (the hook on a branch compares every commit with the same base; `history` walks
commits that share most of their files).

    cache = ParsedCache("code")
    key = cache.key("nova", [(path, blob_sha), ...])   # the inputs, by content
    data = cache.get(key)                               # None: not kept (or anything odd)
    cache.put(key, data)                                # best effort

An entry is JSON. Its key covers the inputs' contents, the kind of reading and the reader
itself (this tool's version and the files of the package that reads), so an upgraded or
edited reader never reuses an old entry. The folder is `cache_folder`'s: only its own
entries are ever read or removed, and a cache that cannot be used is no cache, never an
error.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from needs_microversion.cache_folder import CacheFolder

_FORMAT = 1
_MAX_ENTRY = 64 * 2**20  # nova's code contract is ~7 MB of JSON, an api-ref tree ~3 MB
_KEEP = 256


class ParsedCache:
    def __init__(self, kind: str, keep: int = _KEEP) -> None:
        self.kind = kind
        self.keep = keep  # entries past that many: the least recently used half goes
        self._folder = CacheFolder.for_kind(f"parsed-{kind}")
        self._puts = 0

    def key(self, reader: str, inputs: Iterable[tuple[str, str]]) -> str:
        """The key of one reading: the reader's name and stamp, and (name, content digest)
        of every input it reads."""
        hasher = _start(self.kind, reader).copy()
        for name, digest in sorted(inputs):
            hasher.update(f"\0{name}\0{digest}".encode("utf-8", "surrogateescape"))
        return str(hasher.hexdigest())

    @property
    def on(self) -> bool:
        """Whether anything can be kept at all (`NEEDS_MICROVERSION_CACHE=` keeps nothing)."""
        return self._folder is not None

    def has(self, key: str) -> bool:
        """Whether an entry is kept under `key` (not whether it is whole: `get` says)."""
        return self._folder is not None and self._folder.has(self._folder.name(key))

    def get(self, key: str) -> Any:
        if self._folder is None:
            return None
        raw = self._folder.read(self._folder.name(key), _MAX_ENTRY)
        if raw is None:
            return None
        try:
            entry = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(entry, dict) or entry.get("format") != _FORMAT:
            return None
        return entry.get("data")

    def put(self, key: str, data: Any) -> None:
        try:  # data that holds itself ends in a RecursionError, not a check on each container
            text = json.dumps({"format": _FORMAT, "data": data}, separators=(",", ":"),
                              check_circular=False)
        except (TypeError, ValueError, RecursionError):
            return  # not plain data: not kept
        self._write(key, text)

    def put_text(self, key: str, data: Any, text: str) -> None:
        """Keep `data` and a text beside it, the text as it is: a reading already written
        as JSON (an api-ref tree's, 2 MB) is not escaped into a JSON string, nor read back
        out of one."""
        try:
            head = json.dumps({"format": _FORMAT, "data": data}, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            return
        self._write(key, f"{head}\n{text}")  # JSON as json.dumps writes it: one line

    def get_text(self, key: str) -> tuple[Any, str] | None:
        """What `put_text` kept: (data, text); None for anything else."""
        raw = None if self._folder is None else self._folder.read(self._folder.name(key),
                                                                   _MAX_ENTRY)
        head, newline, text = (raw or b"").partition(b"\n")
        try:  # an entry someone else wrote: not JSON, or not UTF-8, is no entry
            entry = json.loads(head) if newline else None
            if not isinstance(entry, dict) or entry.get("format") != _FORMAT:
                return None
            return entry.get("data"), text.decode("utf-8", "surrogatepass")
        except ValueError:
            return None

    def _write(self, key: str, text: str) -> None:
        if self._folder is None or len(text) > _MAX_ENTRY:
            return
        if self._folder.write(self._folder.name(key), text.encode("utf-8", "surrogatepass")):
            # Pruning lists the folder: a cache of thousands of small entries (history's
            # rows) looks at it every so many writes, not at each.
            if self._puts % max(1, self.keep // 16) == 0:
                self._folder.prune(self.keep)
            self._puts += 1


@cache
def _start(kind: str, reader: str) -> hashlib._Hash:
    """The hash of a key's reader part (a tree's files ask for 68 keys of one reader)."""
    return hashlib.sha256(json.dumps([_FORMAT, kind, reader, tool_stamp()]).encode())


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@cache
def tool_stamp() -> tuple[str, tuple[Any, ...]]:
    """This tool as installed: its version and the files of the package (an upgrade or an
    edit rewrites them)."""
    from needs_microversion import __version__

    return __version__, stamp_of(Path(__file__).resolve().parent.parent)


def stamp_of(package: Path) -> tuple[Any, ...]:
    """What says that the package's files are the same: the RECORD of the wheel that
    installed it (every file's sha256), the same on every install of that wheel (a CI cache
    restored on a fresh install still fits); else, for a checkout or an editable install,
    each file's modification time and size (an edit changes them)."""
    record = _record(package)
    if record is not None:
        return (hashlib.sha256(record).hexdigest(),)
    stamp = []
    for path in sorted(package.rglob("*.py")):
        try:
            status = os.stat(path)
        except OSError:
            continue
        stamp.append((str(path.relative_to(package)), status.st_mtime_ns, status.st_size))
    return tuple(stamp)


def _record(package: Path) -> bytes | None:
    """The RECORD of the wheel that installed `package` beside it, if it lists the
    package's own files (an editable install's lists only its loader)."""
    prefix = f"{package.name}-"
    for name in _listing(package.parent):
        if not (name.startswith(prefix) and name.endswith(".dist-info")):
            continue
        try:
            data = (package.parent / name / "RECORD").read_bytes()
        except OSError:
            continue
        if f"{package.name}/__init__.py,".encode() in data:
            return data
    return None


@cache
def _listing(folder: Path) -> tuple[str, ...]:
    """A folder's names, listed once (the validator's packages share site-packages)."""
    try:
        return tuple(sorted(os.listdir(folder)))
    except OSError:
        return ()
