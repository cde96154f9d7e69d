"""Read one JSON or YAML file into plain data, safely and in bounded time and memory.

Nothing in a file is executed or fetched. JSON's nesting depth and size are checked before
json.loads runs, with C-speed byte counts; YAML is read by `yaml_reading`, imported only
for a YAML file.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

from needs_microversion.documents.limits import MAX_DEPTH, MAX_NODES, SourceFloat
from needs_microversion.documents.reading import FileTooLarge, describe_size, read_bounded
from needs_microversion.documents.files import real
from needs_microversion.errors import InputError
from needs_microversion.model.document import Document

MAX_BYTES = 64 * 2**20

_FIRST_CHAR = re.compile(r"\S")
_JSON_ESCAPE = re.compile(rb'\\[\\"]')
_NOT_STRUCTURE = bytes(c for c in range(256) if c not in b'[]{}",')
_BRACKETS_AS_PARENS = bytes.maketrans(b"[{]}", b"(())")
_PAREN_STEP = tuple(1 if c == ord("(") else -1 if c == ord(")") else 0 for c in range(256))
_PEEL_PASSES = 64


def read_document(path: str | Path, *, display: str | None = None,
                  root: Path | None = None) -> Document:
    shown = str(path) if display is None else display
    resolved = real(path)  # a loop of links stays a name: reading it says what is wrong
    raw = read_bounded(resolved, shown, MAX_BYTES)
    return parse_document(raw, path=resolved, display=shown,
                          root=resolved.parent if root is None else real(root))


_EMPTY = object()  # no default for an empty file: it is an error


def parse_document(raw: bytes, *, path: Path, display: str, root: Path,
                   empty: Any = _EMPTY) -> Document:
    """Parse file contents (from disk or from git); JSON or YAML is decided by the content."""
    if len(raw) > MAX_BYTES:
        raise FileTooLarge(f"is larger than {describe_size(MAX_BYTES)} (the limit)", display)
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("is not UTF-8 text", display, raw.count(b"\n", 0, exc.start) + 1) from None
    first = _FIRST_CHAR.search(text)
    if first is not None and first.group() in ("{", "["):
        data, kind = _load_json(raw, text, display), "json"
    else:
        # Imported here: a JSON run never pays for PyYAML (~15 ms of start-up).
        from needs_microversion.documents.yaml_reading import parse_yaml

        data, kind = parse_yaml(raw, text, display)[0], "yaml"
    if data is None:
        if empty is _EMPTY:
            raise InputError("empty document", display)
        data = empty
    return Document(path=path, display=display, root=root, text=text, data=data, format=kind)


# -- JSON ----------------------------------------------------------------------------------

def _load_json(raw: bytes, text: str, display: str) -> Any:
    depth, values = _json_shape(raw)
    if depth > MAX_DEPTH:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep", display)
    if values > MAX_NODES:  # before json.loads makes them: 21 million `{}` take 1.3 GB
        raise InputError(f"has more than {MAX_NODES} values (the limit)", display)
    try:
        return json.loads(text, parse_float=SourceFloat, parse_constant=SourceFloat,
                          object_pairs_hook=_unique)
    except _DuplicateKey as exc:
        raise InputError(f"duplicate key {exc.key!r}", display,
                         _duplicate_line(text, exc.key)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", display, exc.lineno) from None
    except ValueError as exc:  # e.g. an integer longer than int() accepts
        raise InputError(f"invalid JSON: {exc}", display) from None
    except RecursionError:
        raise InputError("nested too deeply", display) from None


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are unique (json.loads keeps the last one silently)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"\s*:?|[{}\[\]]')


def _duplicate_line(text: str, key: str) -> int | None:
    """The line of the second `key` in one object: a slow scan, run only on that error."""
    objects: list[set[str] | None] = []  # None: an array
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            objects.append(set() if token == "{" else None)
        elif token in "}]":
            if objects:
                objects.pop()
        elif token.endswith(":") and objects and objects[-1] is not None:
            name = json.loads(token[:-1].rstrip())
            if name in objects[-1] and name == key:
                return text.count("\n", 0, match.start()) + 1
            objects[-1].add(name)
    return None


def _json_shape(raw: bytes) -> tuple[int, int]:
    """Deepest bracket nesting outside strings, and an upper bound on the number of values
    (one per comma and bracket outside strings, plus one), with C-speed bytes operations only.

    Escaped quotes and backslashes are dropped first, then everything but brackets, commas
    and quotes; the text between quote pairs is string content.
    """
    if b"\\" in raw:
        raw = _JSON_ESCAPE.sub(b"", raw)
    # Adjacent quotes enclose nothing: dropping them keeps the quote parity and shrinks the split.
    skeleton = raw.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    outside = b"".join(skeleton.split(b'"')[::2])
    values = 1 + outside.count(b",") + outside.count(b"[") + outside.count(b"{")
    return _bracket_depth(outside.translate(_BRACKETS_AS_PARENS, b",")), values


def _bracket_depth(brackets: bytes) -> int:
    """Deepest nesting of a text of parentheses only."""
    # Each pass drops every innermost pair, one level off every branch: real documents are
    # done in a few dozen passes; what is left of a deeper one is counted exactly.
    for passes in range(_PEEL_PASSES):
        shorter = brackets.replace(b"()", b"")
        if len(shorter) == len(brackets):  # empty, or unbalanced (json.loads will say so)
            return passes
        brackets = shorter
    return _PEEL_PASSES + max(accumulate(map(_PAREN_STEP.__getitem__, brackets)), default=0)


__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "SourceFloat", "parse_document",
           "read_document"]
