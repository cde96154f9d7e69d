"""Validation problems remembered by what was validated, so a file is validated once.

On a small document validating is most of a default run (importing the validator alone
takes 0.2 s), and in a pre-commit hook, a CI job or a user's loop one side of the pair is the
same file run after run. A document's problems depend only on its text, its place in its
tree, the name it is shown under, the files its `$ref`s read, and the validator: an entry is
found by the first ones and lists the files read with their digests, so an edited `$ref`
target is a miss, as is another validator (or another copy of this tool's checks).

Where: the `problems` folder of the cache (`cache_folder`: `$NEEDS_MICROVERSION_CACHE`,
empty for no cache, else `$XDG_CACHE_HOME` or `~/.cache`, `/needs-microversion`), kept
safe there (never a file removed or read that this tool did not write, never a link
followed, never a block on a FIFO). Only this process reads and writes it, never a
validating child. A cache that cannot be read or written is no cache: never an error,
never a wrong answer (an entry that is not what this module writes is a miss).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from needs_microversion.cache_folder import CacheFolder
from needs_microversion.documents.document import MAX_BYTES
from needs_microversion.documents.reading import read_bounded
from needs_microversion.documents.refs import RefResolver
from needs_microversion.documents.files import real
from needs_microversion.errors import InputError
from needs_microversion.model.document import Document

KIND = "problems"
_FORMAT = 1
_MAX_ENTRY = 1 << 20  # bytes: an entry holds at most MAX_PROBLEMS short lines
_KEEP = 512  # entries; past it the least recently used half is removed
_VALIDATOR = ("openapi_spec_validator", "openapi_schema_validator", "jsonschema",
              "jsonschema_path", "referencing")

Files = tuple[tuple[str, str], ...]  # (path in the tree, sha256 of the text) of files read


@dataclass(frozen=True)
class Checked:
    """One document validated: its problems, the files that took, and whether the
    validator finished (an answer cut short by a failure is not remembered)."""

    problems: tuple[str, ...]
    files: Files
    complete: bool


def folder() -> CacheFolder | None:
    """Where entries are kept (None: nowhere)."""
    return CacheFolder.for_kind(KIND)


def files_read(resolver: RefResolver) -> Files:
    """The document and every file its `$ref`s read, each with the digest of its text."""
    return tuple((_place(doc, resolver.root), _digest(doc)) for doc in resolver.documents)


class Remembered:
    """The entries of one cache folder (none when `where` is None)."""

    def __init__(self, where: CacheFolder | None) -> None:
        self._where = where

    def recall(self, doc: Document, resolver: RefResolver) -> tuple[str, ...] | None:
        """The problems found before for the same document, files and validator."""
        name = self._entry(doc, resolver)
        if name is None or self._where is None:
            return None
        raw = self._where.read(name, _MAX_ENTRY)
        if raw is None:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            return None
        if not _well_formed(data):
            return None
        now = dict(files_read(resolver))
        if any(now.get(place) != digest for place, digest in data["files"]):
            return None  # a file it read is another now, or was not read here
        return tuple(data["problems"])

    def keep(self, doc: Document, resolver: RefResolver, checked: Checked) -> None:
        """Remember a finished validation (best effort)."""
        name = self._entry(doc, resolver)
        if name is None or self._where is None or not checked.complete:
            return
        text = json.dumps({"format": _FORMAT, "files": checked.files,
                           "problems": checked.problems})
        if self._where.write(name, text.encode("utf-8")):
            self._where.prune(_KEEP)

    def may_recall(self, path: str) -> bool:
        """Whether an entry is kept for the file `path` names as it is now (read as it is
        read to be compared; its `$ref` files are checked when it is recalled): a cheap look
        before anything is started to validate it."""
        if self._where is None:
            return False
        try:
            raw = read_bounded(path, path, MAX_BYTES)
        except InputError:
            return False
        digest = hashlib.sha256(raw.removeprefix(b"\xef\xbb\xbf")).hexdigest()
        return self._where.has(self._named(path, real(path).name, digest))

    def _entry(self, doc: Document, resolver: RefResolver) -> str | None:
        if self._where is None:
            return None
        return self._named(doc.display, _place(doc, resolver.root), _digest(doc))

    def _named(self, display: str, place: str, digest: str) -> str:
        assert self._where is not None
        key = json.dumps([_FORMAT, _stamp(), display, place, digest])
        return self._where.name(hashlib.sha256(key.encode()).hexdigest())


def _place(doc: Document, root: str) -> str:
    return os.path.relpath(doc.path, root)


@lru_cache(maxsize=16)  # documents hash by identity: each text is digested once a run
def _digest(doc: Document) -> str:
    return hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()


def _well_formed(data: object) -> bool:
    return (isinstance(data, dict) and data.get("format") == _FORMAT
            and isinstance(data.get("files"), list) and isinstance(data.get("problems"), list)
            and all(isinstance(f, list) and len(f) == 2 and all(isinstance(s, str) for s in f)
                    for f in data["files"])
            and all(isinstance(p, str) for p in data["problems"]))


@cache
def _stamp() -> tuple[Any, ...]:
    """The validator as installed and this tool: each package by its wheel's RECORD where
    a wheel installed it (the same on every install: a CI cache restored on a fresh machine
    fits), else by its files' times (an upgrade or an edit rewrites them)."""
    from needs_microversion.documents.parsed import stamp_of, tool_stamp

    packages = [Path(spec.origin).parent for spec in map(find_spec, _VALIDATOR)
                if spec is not None and spec.origin]
    return (tool_stamp(), *((package.name, stamp_of(package)) for package in packages))
