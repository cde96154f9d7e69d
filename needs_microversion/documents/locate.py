"""Find the line a JSON pointer's element is written on, without parsing the file again.

Reports name a handful of places in documents of several megabytes, so a lookup scans only
along the pointer's path, and what it learns is kept per document:
- JSON: pretty-printed containers are read by indentation; a member the parsed data has
  is found with one substring search for its line. Anything else: each object on the path
  is indexed key by key, the values in between skipped with the C JSON scanner.
- YAML: see `yaml_locator`.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cache
from json.scanner import make_scanner
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from needs_microversion.documents.offsets import ARRAY_INDEX, Lines, array_index, skip
from needs_microversion.model.document import Document


def line_of(document: Document, pointer: tuple[str, ...]) -> int | None:
    """The 1-based line of the key or item at `pointer`, or of its closest existing ancestor.

    None when the document has no text to point into (one built in memory).
    """
    return lines_of(document, [pointer])[tuple(pointer)]


def lines_of(document: Document, pointers: Iterable[tuple[str, ...]]
             ) -> dict[tuple[str, ...], int | None]:
    """`line_of` for many pointers; what they share is read once."""
    locator = _locator(document)
    wanted = [tuple(p) for p in pointers]
    return locator.lines(wanted) if locator else dict.fromkeys(wanted)


class _Locator(Protocol):
    def lines(self, pointers: list[tuple[str, ...]]) -> dict[tuple[str, ...], int | None]: ...


_LOCATORS: WeakKeyDictionary[Document, _Locator] = WeakKeyDictionary()


def _locator(document: Document) -> _Locator | None:
    if document.format not in ("json", "yaml"):
        return None
    locator = _LOCATORS.get(document)
    if locator is None:
        if document.format == "json":
            locator = _JsonLocator(document.text, document.data)
        else:  # imported here: a JSON run never pays for PyYAML
            from needs_microversion.documents.yaml_locator import YamlLocator

            locator = YamlLocator(document.text)
        _LOCATORS[document] = locator
    return locator


def _child(node: Any, segment: str) -> Any:
    """The parsed node a pointer segment names (None: there is none)."""
    if type(node) is dict:
        return node.get(segment)
    if type(node) is list and (i := array_index(segment, len(node))) is not None:
        return node[i]
    return None


# -- JSON ----------------------------------------------------------------------------------

_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_COLON = re.compile(r"[ \t]*:[ \t]*")
# The rest of a line, then the indentation of the next non-blank line (spaces only).
_NEXT_LINE = re.compile(r"[ \t]*\r?\n(?:[ \t]*\r?\n)*( *)(?=[^ \t\r\n])")


@cache
def _member_or_end(indent: int) -> re.Pattern[str]:
    """A member line of an object at `indent` (group 1: its key, up to the value's first
    character), or a line indented less: the object has ended."""
    return re.compile(r'\n(?: {%d}"((?:[^"\\\n]|\\.)*)"[ \t]*:[ \t]*| {0,%d}(?=[^ \r\n]))'
                      % (indent, indent - 1))


@cache
def _ended(indent: int) -> re.Pattern[str]:
    """A line with content not indented by `indent` spaces: the object has ended before it
    (a negative lookahead: twice as fast as matching the shorter indentations)."""
    return re.compile(r"\n(?!%s| *\r?\n)" % (" " * indent))


@cache
def _item_or_end(indent: int) -> re.Pattern[str]:
    """A line starting exactly at `indent` (group 1: an item of the array), or a line
    indented less: the array has ended."""
    return re.compile(r"\n(?:( {%d})(?=[^ \r\n\]}])| {0,%d}(?=[^ \r\n]))"
                      % (indent, indent - 1))


class _Indented:
    """The children of one pretty-printed container, read as far as a lookup needs: a
    member the data has by one substring search (`member`), anything else by one C-speed
    regex pass at most, stopping at the first line indented less (the container's end) or
    as soon as the wanted child is found."""

    def __init__(self, text: str, pos: int, indent: int, array: bool) -> None:
        self._scan = (_item_or_end if array else _member_or_end)(indent).finditer(text, pos)
        self._text, self._pos = text, pos
        self._inside = pos  # no line from pos to here is indented less: the object goes on
        self._indent = indent
        self._array = array
        self._keys: dict[str, tuple[int, int]] = {}
        self._items: list[tuple[int, int]] = []
        self._done = False
        # The members `member` found, by their place in the parsed object (its keys are in
        # the text's order): indices, sorted, and where their lines start.
        self._order: dict[str, int] | None = None
        self._found: list[int] = []
        self._starts: list[int] = []

    def get(self, segment: str) -> tuple[int, int] | None:
        if self._array:
            if not ARRAY_INDEX.match(segment):
                return None
            index = int(segment)
            while len(self._items) <= index and self._more():
                pass
            return self._items[index] if index < len(self._items) else None
        while segment not in self._keys and self._more():
            pass
        return self._keys.get(segment)

    def member(self, key: str, parsed: dict[str, Any]) -> tuple[int, int] | None:
        """A member the parsed object has, found with one substring search for its line (a
        long needle is found at memory speed; the scan above tries a regex at every line
        before it). The search runs from the line of the member before it that was already
        found (else the object's start) to the line of the one after it. The first such line
        is its own when no line before it is indented less (checked once per stretch of
        text), or when a member after it bounds the search (between two of its members, the
        object goes on). None: written some other way (escapes, a space before `:`, members
        sharing a line), so `get` decides."""
        hit = self._keys.get(key)
        if hit is None and not self._array:
            if self._order is None:
                self._order = {name: i for i, name in enumerate(parsed)}
            index = self._order[key]
            j = bisect_right(self._found, index)
            start = self._starts[j - 1] if j else self._pos
            bounded = j < len(self._found)
            text = self._text
            needle = f"\n{' ' * self._indent}{json.dumps(key, ensure_ascii=False)}"
            at = text.find(needle, start, self._starts[j] if bounded else len(text))
            colon = _COLON.match(text, at + len(needle)) if at >= 0 else None
            if colon is None:
                return None
            if at > self._inside and not bounded:
                if _ended(self._indent).search(text, self._inside, at + 1 + self._indent):
                    return None
                self._inside = at
            hit = self._keys[key] = (at + 1 + self._indent, colon.end())
            self._found.insert(j, index)
            self._starts.insert(j, hit[0])
        return hit

    def _more(self) -> bool:
        """Read the next child; False at the container's end."""
        match = None if self._done else next(self._scan, None)
        if match is None or match.group(1) is None:
            self._done = True
            return False
        if self._array:
            self._items.append((match.end(), match.end()))
            return True
        raw = match.group(1)
        key = json.loads(f'"{raw}"') if "\\" in raw else raw
        # Keys are unique (a repeated key is refused when the document is parsed).
        self._keys.setdefault(key, (match.start() + 1 + self._indent, match.end()))
        return True


class _JsonLocator:
    def __init__(self, text: str, data: Any) -> None:
        self._text = text
        self._data = data  # what the text says, parsed: which members exist
        self._lines = Lines(text)
        # The C scanner json.loads uses: (value, end) for the value at an offset.
        self._scan_value = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
        # container position -> {key: (key position, value position)} or [item positions]
        self._containers: dict[int, dict[str, tuple[int, int]] | list[int] | None] = {}
        # container position -> its children found by indentation (None: not indented)
        self._indented: dict[int, _Indented | None] = {}

    def lines(self, pointers: list[tuple[str, ...]]) -> dict[tuple[str, ...], int | None]:
        """Lines counted in the order of their offsets: one pass over the text at most."""
        offsets = {pointer: self._offset(pointer) for pointer in pointers}
        lines = {pos: self._lines.at(pos) for pos in sorted(set(offsets.values()))}
        return {pointer: lines[pos] for pointer, pos in offsets.items()}

    def _offset(self, pointer: tuple[str, ...]) -> int:
        """Where the line of the key or item at `pointer` (or its closest ancestor) starts."""
        pos = line_pos = skip(_JSON_SPACE, self._text, 0)
        node = self._data
        for segment in pointer:
            found = self._by_indentation(
                pos, segment, node if type(node) is dict and segment in node else None)
            node = _child(node, segment)
            if found is not None:
                line_pos, pos = found
                continue
            children = self._children(pos)
            if isinstance(children, dict) and segment in children:
                line_pos, pos = children[segment]
            elif isinstance(children, list) and (
                    i := array_index(segment, len(children))) is not None:
                line_pos = pos = children[i]
            else:
                break
        return line_pos

    def _by_indentation(self, pos: int, segment: str, parsed: dict[str, Any] | None
                        ) -> tuple[int, int] | None:
        """Pretty-printed JSON (nearly every published spec): a container's children are the
        lines at one indentation, found with C-speed searches over the container instead
        of scanning every value before them (`parsed`: the object, when it has that key).
        None: not sure (the scanner decides)."""
        if pos not in self._indented:
            self._indented[pos] = self._indentation(pos)
        children = self._indented[pos]
        if children is None:
            return None
        return (parsed is not None and children.member(segment, parsed)) or children.get(
            segment)

    def _indentation(self, pos: int) -> _Indented | None:
        text = self._text
        if pos >= len(text) or text[pos] not in "{[":
            return None
        first = _NEXT_LINE.match(text, pos + 1)
        if first is None or not first.group(1):
            return None
        return _Indented(text, pos, len(first.group(1)), text[pos] == "[")

    def _children(self, pos: int) -> dict[str, tuple[int, int]] | list[int] | None:
        if pos not in self._containers:
            try:
                self._containers[pos] = self._read(pos)
            except (ValueError, IndexError, StopIteration):  # not JSON after all: no lines
                self._containers[pos] = None
        return self._containers[pos]

    def _read(self, pos: int) -> dict[str, tuple[int, int]] | list[int] | None:
        text = self._text
        if text[pos] == "{":
            members: dict[str, tuple[int, int]] = {}
            i = skip(_JSON_SPACE, text, pos + 1)
            while text[i] == '"':
                key, after_key = self._scan_value(text, i)
                value = skip(_JSON_SPACE, text, skip(_JSON_SPACE, text, after_key) + 1)  # ":"
                members[key] = (i, value)  # a repeated key: json.loads keeps the last one too
                i = skip(_JSON_SPACE, text, self._scan_value(text, value)[1])
                if text[i] == ",":
                    i = skip(_JSON_SPACE, text, i + 1)
            return members
        if text[pos] == "[":
            items: list[int] = []
            i = skip(_JSON_SPACE, text, pos + 1)
            while text[i] != "]":
                items.append(i)
                i = skip(_JSON_SPACE, text, self._scan_value(text, i)[1])
                if text[i] == ",":
                    i = skip(_JSON_SPACE, text, i + 1)
            return items
        return None
