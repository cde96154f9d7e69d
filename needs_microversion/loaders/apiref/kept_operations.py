"""An api-ref operation as built from its sections, kept beside the record of the file the
sections came from (`kept_files`): a replayed file's operations are taken as they were
built, not built again (nova: 248 operations, ~50 ms, on every change that reads its tree).

An operation is a function of its sections and of its group (method, path, action: the path
is spelled as the first file that names it spells it). So a built operation is kept by the
record of its file, the sections' places in it and its group, with the warnings its build
gave; a group whose sections come from several files, or from a file read afresh this time,
is built. A definition's line written in an operation (a row's location) is kept as the
record's mark and said as it is now, as the record's own lines are; an operation that names
a line of those files anywhere else, or that JSON does not give back as it is, is not kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from needs_microversion.documents.parsed import ParsedCache
from needs_microversion.loaders.apiref.line_marks import LineMarks, exact, unmarked
from needs_microversion.loaders.apiref.records import Section
from needs_microversion.model.extensions import LOCATION_KEY

Built = tuple[dict[str, Any], list[tuple[str, str]]]  # an operation, the warnings it gave
_TOKEN = re.compile(r"\\u0000(\d+)\\u0000")  # a mark in an operation's JSON text
_NUL = "\\u0000"


class KeptOperations:
    """The built operations of one tree's replayed files, found by their records, and those
    built here from a file read afresh, to keep with its record."""

    def __init__(self, keep: int) -> None:
        self.cache = ParsedCache("apiref-operations", keep=keep)
        self._origin: dict[int, tuple[str, int]] = {}  # id(section) -> (record, place)
        self._sections: list[Sequence[Section]] = []  # alive, so that each id stays its own
        self._lines: dict[str, list[str]] = {}  # a replayed record's marks, as they are now
        self._entries: dict[str, dict[str, Any] | None] = {}
        self.built: dict[str, list[tuple[str, dict[str, Any], list[tuple[str, str]]]]] = {}

    def note(self, key: str, sections: Sequence[Section], lines: list[str] | None) -> None:
        """The sections of a file: replayed (`key` the record's id, `lines` its marks as
        now), or read afresh (`key` its record's key, `lines` None)."""
        self._sections.append(sections)
        for place, section in enumerate(sections):
            self._origin[id(section)] = (key, place)
        if lines is not None:
            self._lines[key] = lines

    def get(self, method: str, path: str, action: str | None,
            sections: Sequence[Section]) -> Built | None:
        found = self._signature(method, path, action, sections)
        if found is None or found[0] not in self._lines:
            return None
        key, signature = found
        entry = self._entry(key)
        kept = None if entry is None else entry.get(signature)
        if kept is None:
            return None
        lines = self._lines[key]
        try:
            text, warned = kept
            op = json.loads(_said(text, lines))
            said = [(unmarked(where, lines), unmarked(message, lines))
                    for where, message in warned]
        except (ValueError, TypeError, IndexError):
            return None  # not what this tool wrote
        return (op, said) if type(op) is dict else None

    def put(self, method: str, path: str, action: str | None, sections: Sequence[Section],
            op: dict[str, Any], warned: list[tuple[str, str]]) -> None:
        found = self._signature(method, path, action, sections)
        if found is not None and found[0] not in self._lines:  # a file read afresh
            self.built.setdefault(found[0], []).append((found[1], op, warned))

    def write(self, key: str, record: str, marks: LineMarks) -> None:
        """Keep what was built from the file whose record (`key`, its id `record`) was
        just made, `marks` where its lines are marks; nothing when anything has no exact
        kept form. Kept by the record's id: another reading kept under the same key (a
        process reading another revision) never finds it."""
        entry: dict[str, Any] = {}
        for signature, op, warned in self.built.get(key, ()):
            if not exact(op) or not all(type(w) is str for pair in warned for w in pair):
                return
            plain = json.dumps(op, separators=(",", ":"), allow_nan=False)
            text = json.dumps(_marked(op, marks), separators=(",", ":"), allow_nan=False)
            said = [[marks(where), marks(message)] for where, message in warned]
            # a NUL in the data, or a line of those files written where no mark is
            if _NUL in plain or marks.elsewhere(text) or marks.elsewhere(json.dumps(said)):
                return
            entry[signature] = [text, said]
        if entry:
            self.cache.put(self.cache.key("operations", [("record", record)]), entry)

    def _signature(self, method: str, path: str, action: str | None,
                   sections: Sequence[Section]) -> tuple[str, str] | None:
        origins = [self._origin.get(id(section)) for section in sections]
        known = [origin for origin in origins if origin is not None]
        if not known or len(known) < len(origins) or len({key for key, _ in known}) > 1:
            return None  # a section of no kept file, or of several
        return known[0][0], json.dumps([method, path, action, [place for _, place in known]])

    def _entry(self, record: str) -> dict[str, Any] | None:
        if record not in self._entries:
            found = self.cache.get(self.cache.key("operations", [("record", record)]))
            self._entries[record] = found if isinstance(found, dict) else None
        return self._entries[record]


def _said(text: Any, lines: list[str]) -> str:
    """An operation's JSON text as kept, its marks said as the lines are now."""
    if type(text) is not str:
        raise ValueError("not a text")
    return _TOKEN.sub(lambda m: json.dumps(lines[int(m.group(1))])[1:-1], text)


def _marked(value: Any, marks: LineMarks) -> Any:
    """A copy of an operation whose locations name a definition's line by the record's
    mark (a NUL, the mark's number, a NUL: JSON writes each NUL as an escape)."""
    if type(value) is dict:
        return {k: _mark(v, marks) if k == LOCATION_KEY and type(v) is str else
                _marked(v, marks) for k, v in value.items()}
    if type(value) is list:
        return [_marked(item, marks) for item in value]
    return value


def _mark(location: str, marks: LineMarks) -> str:
    """A location (`a.inc:11 (parameters.yaml:6)`) with the line it names as its mark."""
    found = marks(location)
    return found if isinstance(found, str) else f"{found[0]}\0{found[1]}\0{found[2]}"
