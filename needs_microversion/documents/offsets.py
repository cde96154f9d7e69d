"""Offsets in a document's text, shared by the JSON and YAML line finders."""

from __future__ import annotations

import re
from bisect import bisect_right

ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")


class Lines:
    """Line numbers of text offsets, counted from the nearest offset already seen, before or
    after (lookups come in no order: counting only forward from the one before would count
    most of a large document again for each offset looked up before the last)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._offsets = [0]  # sorted
        self._lines = [1]

    def at(self, pos: int) -> int:
        i = bisect_right(self._offsets, pos) - 1
        before = self._offsets[i]
        if i + 1 < len(self._offsets) and self._offsets[i + 1] - pos < pos - before:
            line = self._lines[i + 1] - self._text.count("\n", pos, self._offsets[i + 1])
        else:
            line = self._lines[i] + self._text.count("\n", before, pos)
        self._offsets.insert(i + 1, pos)
        self._lines.insert(i + 1, line)
        return line


def array_index(segment: str, length: int) -> int | None:
    return int(segment) if ARRAY_INDEX.match(segment) and int(segment) < length else None


def skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where a run of what `pattern` matches (possibly nothing) ends."""
    match = pattern.match(text, pos)
    return match.end() if match else pos
