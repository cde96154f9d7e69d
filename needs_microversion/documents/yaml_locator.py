"""The line a pointer names in a YAML document.

Block style (nearly every real document) is walked by indentation with regexes. Where the
text cannot be read with certainty (flow style, aliases, merge keys, complex keys, unusual
quoting) the node tree is composed once and walked instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

import yaml

from needs_microversion.documents.offsets import Lines, array_index, skip
from needs_microversion.documents.yaml_reading import SAFE_LOADER

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


class YamlLocator:
    """Lines of a YAML document's pointers: its text read by indentation, else its node tree."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines = Lines(text)
        # Line breaks other than \n and \r\n would need their own line counting.
        self._scannable = text.count("\r") == text.count("\r\n")
        self._nodes: dict[int, _Node] = {}
        self._tree: yaml.Node | None = None

    def lines(self, pointers: list[tuple[str, ...]]) -> dict[tuple[str, ...], int | None]:
        return {pointer: self.line(pointer) for pointer in pointers}

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
                i = array_index(segment, len(node))
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
                rest = skip(_NODE_START, text, pos + 3)
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
        pos = skip(_NODE_START, text, after)
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
            self._tree = yaml.compose(self._text, Loader=SAFE_LOADER)
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
    if isinstance(node, yaml.SequenceNode) and (
            i := array_index(segment, len(node.value))) is not None:
        item = node.value[i]
        return item, item
    return None
