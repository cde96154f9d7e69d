"""Find the line a JSON pointer's element is written on, without parsing the file again.

Reports name a handful of places in documents of several megabytes, so a lookup scans only
along the pointer's path, and what it learns is kept per document:
- JSON: pretty-printed containers are read by indentation; a member the parsed data has
  is found with one substring search for its line. Anything else: each object on the path
  is indexed key by key, the values in between skipped with the C JSON scanner.
- YAML: block style (nearly every real document) is walked by indentation with regexes.
  Where the text cannot be read with certainty (flow style, aliases, merge keys, complex
  keys, unusual quoting) the node tree is composed once and walked instead.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from json.scanner import make_scanner
from typing import Any
from weakref import WeakKeyDictionary

import yaml

from needs_microversion.model.document import Document

_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")


def line_of(document: Document, pointer: tuple[str, ...]) -> int | None:
    """The 1-based line of the key or item at `pointer`, or of its closest existing ancestor.

    None when the document has no text to point into (one built in memory).
    """
    return lines_of(document, [pointer])[tuple(pointer)]


def lines_of(document: Document, pointers: Iterable[tuple[str, ...]]
             ) -> dict[tuple[str, ...], int | None]:
    """`line_of` for many pointers; what they share is read once."""
    locator = _locator(document)
    return {tuple(p): locator.line(tuple(p)) if locator else None for p in pointers}


_LOCATORS: WeakKeyDictionary[Document, _JsonLocator | _YamlLocator] = WeakKeyDictionary()


def _locator(document: Document) -> _JsonLocator | _YamlLocator | None:
    if document.format not in ("json", "yaml"):
        return None
    locator = _LOCATORS.get(document)
    if locator is None:
        locator = _JsonLocator(document.text, document.data) if document.format == "json" \
            else _YamlLocator(document.text)
        _LOCATORS[document] = locator
    return locator


class _Lines:
    """Line numbers of text offsets, counted from the nearest offset already seen."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._offsets = [0]  # sorted
        self._lines = [1]

    def at(self, pos: int) -> int:
        i = bisect_right(self._offsets, pos) - 1
        line = self._lines[i] + self._text.count("\n", self._offsets[i], pos)
        self._offsets.insert(i + 1, pos)
        self._lines.insert(i + 1, line)
        return line


def _child(node: Any, segment: str) -> Any:
    """The parsed node a pointer segment names (None: there is none)."""
    if type(node) is dict:
        return node.get(segment)
    if type(node) is list and (i := _index(segment, len(node))) is not None:
        return node[i]
    return None


def _index(segment: str, length: int) -> int | None:
    return int(segment) if _ARRAY_INDEX.match(segment) and int(segment) < length else None


def _skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where a run of what `pattern` matches (possibly nothing) ends."""
    match = pattern.match(text, pos)
    return match.end() if match else pos


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

    def get(self, segment: str) -> tuple[int, int] | None:
        if self._array:
            if not _ARRAY_INDEX.match(segment):
                return None
            index = int(segment)
            while len(self._items) <= index and self._more():
                pass
            return self._items[index] if index < len(self._items) else None
        while segment not in self._keys and self._more():
            pass
        return self._keys.get(segment)

    def member(self, key: str) -> tuple[int, int] | None:
        """A member the parsed data says this object has, found with one substring search
        for its line (a long needle is found at memory speed; the scan above tries a regex
        at every line before it). The first such line after the object's start is its own
        when no line before it is indented less (checked once per stretch of text). None:
        written some other way (escapes, a space before `:`, members sharing a line), so
        `get` decides."""
        hit = self._keys.get(key)
        if hit is None and not self._array:
            text = self._text
            needle = f"\n{' ' * self._indent}{json.dumps(key, ensure_ascii=False)}"
            at = text.find(needle, self._pos)
            colon = _COLON.match(text, at + len(needle)) if at >= 0 else None
            if colon is None:
                return None
            if at > self._inside:
                if _ended(self._indent).search(text, self._inside, at + 1 + self._indent):
                    return None
                self._inside = at
            hit = self._keys[key] = (at + 1 + self._indent, colon.end())
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
        self._lines = _Lines(text)
        # The C scanner json.loads uses: (value, end) for the value at an offset.
        self._scan_value = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
        # container position -> {key: (key position, value position)} or [item positions]
        self._containers: dict[int, dict[str, tuple[int, int]] | list[int] | None] = {}
        # container position -> its children found by indentation (None: not indented)
        self._indented: dict[int, _Indented | None] = {}

    def line(self, pointer: tuple[str, ...]) -> int | None:
        pos = line_pos = _skip(_JSON_SPACE, self._text, 0)
        node = self._data
        for segment in pointer:
            found = self._by_indentation(pos, segment, type(node) is dict and segment in node)
            node = _child(node, segment)
            if found is not None:
                line_pos, pos = found
                continue
            children = self._children(pos)
            if isinstance(children, dict) and segment in children:
                line_pos, pos = children[segment]
            elif isinstance(children, list) and (i := _index(segment, len(children))) is not None:
                line_pos = pos = children[i]
            else:
                break
        return self._lines.at(line_pos)

    def _by_indentation(self, pos: int, segment: str, member: bool) -> tuple[int, int] | None:
        """Pretty-printed JSON (nearly every published spec): a container's children are the
        lines at one indentation, found with C-speed searches over the container instead
        of scanning every value before them (`member`: the data has that key). None: not
        sure (the scanner decides)."""
        if pos not in self._indented:
            self._indented[pos] = self._indentation(pos)
        children = self._indented[pos]
        if children is None:
            return None
        return (member and children.member(segment)) or children.get(segment)

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
            i = _skip(_JSON_SPACE, text, pos + 1)
            while text[i] == '"':
                key, after_key = self._scan_value(text, i)
                value = _skip(_JSON_SPACE, text, _skip(_JSON_SPACE, text, after_key) + 1)  # ":"
                members[key] = (i, value)  # a repeated key: json.loads keeps the last one too
                i = _skip(_JSON_SPACE, text, self._scan_value(text, value)[1])
                if text[i] == ",":
                    i = _skip(_JSON_SPACE, text, i + 1)
            return members
        if text[pos] == "[":
            items: list[int] = []
            i = _skip(_JSON_SPACE, text, pos + 1)
            while text[i] != "]":
                items.append(i)
                i = _skip(_JSON_SPACE, text, self._scan_value(text, i)[1])
                if text[i] == ",":
                    i = _skip(_JSON_SPACE, text, i + 1)
            return items
        return None


# -- YAML ----------------------------------------------------------------------------------

_COMPOSER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"
# A node's value is a position in the text, or one of these:
_LEAF = -1  # a scalar (or null): nothing below it
_UNSURE = -2  # flow style, an alias, ...: only the composed tree can say

# Blank and comment lines, then the indentation of the next line with content.
_NEXT_CONTENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n)*( *)(?=[^ \t\r\n#])")
# Spaces, then anchors and tags, in front of a node.
_NODE_START = re.compile(r"[ \t]*(?:[&!][^ \t\r\n]*[ \t]*)*")
# A simple key and its `:` (single-quoted, double-quoted or plain).
_KEY = re.compile(
    r"""(?:'((?:[^'\n]|'')*)'|"((?:[^"\\\n]|\\.)*)"|"""
    r"""([^\s#'"\[\]{},&*!|>%@`?:-][^\n]*?|[?:-]\S[^\n]*?))[ \t]*:(?=[ \t\r\n]|\Z)""")
_COMMENT_IN_PLAIN = re.compile(r"[ \t]#")
# A whole line that is one quoted scalar, or any line with a `: ` that may make it a key.
_QUOTED_LINE = re.compile(
    r"""(?:'(?:[^'\n]|'')*'|"(?:[^"\\\n]|\\.)*")[ \t]*(?:#[^\n]*)?(?=\r?\n|\Z)""")
_KEY_LIKE = re.compile(r"[^\n]*?:(?=[ \t\r\n]|\Z)")
_BREAK_OR_BLANK = ("", " ", "\t", "\r", "\n")


@dataclass(frozen=True)
class _Mapping:
    keys: dict[str, tuple[int, int]]  # key -> (key position, value)
    complete: bool  # False when `<<` merges keys in that the text scan cannot see


_Node = _Mapping | list[tuple[int, int]] | int  # a sequence is [(item position, value)]


@cache
def _block_patterns(col: int) -> tuple[re.Pattern[str], ...]:
    """Regexes for a block collection whose entries start at column `col`."""
    fewer = rf"(?! {{{col}}})(?=[ ]*[^ \t\r\n#])"  # a content line indented less than col
    return (
        re.compile(rf"\n {{{col}}}(?=[^ \t\r\n#])"),  # a line with content at col: a key
        re.compile(rf"\n{fewer}"),  # the end of a mapping
        re.compile(rf"\n {{{col}}}-(?=[ \t\r\n]|\Z)"),  # a sequence item
        # The end of a sequence: a line indented less, or at col but not an item.
        re.compile(rf"\n(?:{fewer}| {{{col}}}(?=[^ \t\r\n#-]|-[^ \t\r\n]))"),
    )


def _is_item(text: str, pos: int) -> bool:
    return text.startswith("-", pos) and text[pos + 1:pos + 2] in _BREAK_OR_BLANK


def _key(text: str, pos: int) -> tuple[str | None, int] | None:
    """The simple key written at pos (None if it is quoted in a way not decoded here) and
    where its value starts; None if no key is written there."""
    match = _KEY.match(text, pos)
    if match is None:
        return None
    single, double, plain = match.groups()
    if plain is not None:
        if _COMMENT_IN_PLAIN.search(plain):  # `text # a comment: here` is not a key
            return None
        return plain, match.end()
    if single is not None:
        return single.replace("''", "'"), match.end()
    if "\\" not in double:
        return double, match.end()
    try:
        return json.loads(f'"{double}"'), match.end()  # JSON escapes are YAML escapes
    except ValueError:
        return None, match.end()


def _scalar(text: str, pos: int) -> int:
    """_LEAF for the scalar written at pos; _UNSURE if it might be a key after all."""
    if text.startswith(("|", ">"), pos) or _QUOTED_LINE.match(text, pos):
        return _LEAF
    return _UNSURE if _KEY_LIKE.match(text, pos) else _LEAF


class _YamlLocator:
    def __init__(self, text: str) -> None:
        self._text = text
        self._lines = _Lines(text)
        # Line breaks other than \n and \r\n would need their own line counting.
        self._scannable = text.count("\r") == text.count("\r\n")
        self._nodes: dict[int, _Node] = {}
        self._tree: yaml.Node | None = None

    def line(self, pointer: tuple[str, ...]) -> int | None:
        if self._scannable:
            line = self._scan(pointer)
            if line is not None:
                return line
        return self._composed(pointer)

    # -- the text scan ---------------------------------------------------------------------
    def _scan(self, pointer: tuple[str, ...]) -> int | None:
        """The line by reading the text; None when the text alone cannot tell."""
        pos = line_pos = self._root()
        for segment in pointer:
            node: _Node = _LEAF if pos == _LEAF else _UNSURE if pos == _UNSURE else self._node(pos)
            entry: tuple[int, int] | None = None
            if isinstance(node, _Mapping):
                entry = node.keys.get(segment)
                if entry is None and not node.complete:
                    return None
            elif isinstance(node, list):
                i = _index(segment, len(node))
                entry = node[i] if i is not None else None
            elif node == _UNSURE:
                return None
            if entry is None:
                break
            line_pos, pos = entry
        return self._lines.at(line_pos) if line_pos >= 0 else None

    def _root(self) -> int:
        text, start = self._text, 0
        while (match := _NEXT_CONTENT.match(text, start)) is not None:
            pos = match.end()
            if text.startswith("---", pos) and text[pos + 3:pos + 4] in _BREAK_OR_BLANK:
                rest = _skip(_NODE_START, text, pos + 3)
                if text[rest:rest + 1] not in ("", "\r", "\n", "#"):
                    return _UNSURE  # `--- {...}`: the root starts on the marker's line
            elif not text.startswith("%", pos):  # not a directive either
                return pos
            start = text.find("\n", pos) + 1
            if start == 0:
                break
        return _UNSURE

    def _node(self, pos: int) -> _Node:
        if pos not in self._nodes:
            self._nodes[pos] = self._read(pos)
        return self._nodes[pos]

    def _read(self, pos: int) -> _Node:
        text = self._text
        col = pos - (text.rfind("\n", 0, pos) + 1)
        at_column, map_end, item, seq_end = _block_patterns(col)
        if _is_item(text, pos):
            end_match = seq_end.search(text, pos)
            end = end_match.start() + 1 if end_match else len(text)
            items: list[tuple[int, int]] = []
            for dash in [pos] + [m.end() - 1 for m in item.finditer(text, pos, end)]:
                value = self._value(dash + 1, col, in_mapping=False)
                # The item's own line, as the composed tree has it: below a lone `-`.
                items.append((value if value >= 0 else dash, value))
            return items
        if text[pos] in "[{*&!?":
            return _UNSURE
        if _key(text, pos) is None:
            return _scalar(text, pos)
        end_match = map_end.search(text, pos)
        end = end_match.start() + 1 if end_match else len(text)
        keys: dict[str, tuple[int, int]] = {}
        complete = True
        for start in [pos] + [m.end() for m in at_column.finditer(text, pos, end)]:
            found = _key(text, start)
            if found is None:
                if _is_item(text, start):  # an item of the previous key's indentless sequence
                    continue
                return _UNSURE
            key, value_start = found
            if key is None:
                return _UNSURE
            if key == "<<" and text[start] == "<":
                complete = False
                continue
            keys[key] = (start, self._value(value_start, col, in_mapping=True))
        return _Mapping(keys, complete)

    def _value(self, after: int, col: int, *, in_mapping: bool) -> int:
        """Where the node after a `key:` or `-` at column col starts (or _LEAF, _UNSURE)."""
        text = self._text
        pos = _skip(_NODE_START, text, after)
        first = text[pos:pos + 1]
        if first in ("", "\r", "\n", "#"):  # the node is on the lines below
            newline = text.find("\n", pos)
            below = _NEXT_CONTENT.match(text, newline + 1) if newline >= 0 else None
            if below is None:
                return _LEAF
            indent = len(below.group(1))
            if indent > col or (in_mapping and indent == col and _is_item(text, below.end())):
                return below.end()
            return _LEAF  # null
        if first in ("[", "{", "*"):
            return _UNSURE
        if _is_item(text, pos) or text.startswith(("? ", "?\t"), pos) or _key(text, pos):
            return pos  # a compact block collection: `- - x`, `- name: x`
        return _scalar(text, pos)

    # -- the composed tree -----------------------------------------------------------------
    def _composed(self, pointer: tuple[str, ...]) -> int | None:
        if self._tree is None:
            self._tree = yaml.compose(self._text, Loader=_COMPOSER)
        if self._tree is None:  # no document at all
            return None
        node = line_node = self._tree
        for segment in pointer:
            found = _node_child(node, segment, set())
            if found is None:
                break
            line_node, node = found
        line: int = line_node.start_mark.line + 1
        return line


def _node_child(node: yaml.Node, segment: str, merging: set[int]
                ) -> tuple[yaml.Node, yaml.Node] | None:
    """(key node, value node) for a mapping, (item, item) for a sequence."""
    if isinstance(node, yaml.MappingNode):
        found = None
        for key, value in node.value:  # the last of repeated keys is the one loaded
            if isinstance(key, yaml.ScalarNode) and key.value == segment and key.tag != _MERGE_TAG:
                found = (key, value)
        if found is not None:
            return found
        merging.add(id(node))
        for key, value in node.value:  # `<<: *base` or `<<: [*a, *b]`: earlier ones win
            if key.tag == _MERGE_TAG:
                sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
                for source in sources:
                    if id(source) not in merging and (
                            hit := _node_child(source, segment, merging)) is not None:
                        return hit
        return None
    if isinstance(node, yaml.SequenceNode) and (i := _index(segment, len(node.value))) is not None:
        item = node.value[i]
        return item, item
    return None
