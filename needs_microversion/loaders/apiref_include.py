"""The part of a file a `literalinclude` shows, chosen as Sphinx chooses it
(`sphinx.directives.code.LiteralIncludeReader`): `:start-at:`/`:start-after:` first, then
`:end-at:`/`:end-before:`, then `:lines:` counted within what is left.

Why it matters: an example cut out of a bigger file (a sample with a licence header, or a
request and a response kept in one file) nests the table only by the part the reader sees;
the whole file is often not JSON at all, or shows keys the operation never returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_OPTION = re.compile(r"^:([\w-]+):\s*(.*)$")


@dataclass(frozen=True)
class Selection:
    lines: str | None = None
    start_at: str | None = None
    start_after: str | None = None
    end_at: str | None = None
    end_before: str | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> Selection:
        return cls(lines=options.get("lines"), start_at=options.get("start-at"),
                   start_after=options.get("start-after"), end_at=options.get("end-at"),
                   end_before=options.get("end-before"))

    @property
    def whole(self) -> bool:
        return self == Selection()


@dataclass(frozen=True)
class Selected:
    text: str | None  # None: Sphinx would show nothing (and warn)
    problem: str = ""


def directive_options(body: Iterable[tuple[int, str]]) -> dict[str, str]:
    """`:name: value` lines of a directive's block."""
    found = {}
    for _, line in body:
        match = _OPTION.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def select(text: str, selection: Selection) -> Selected:
    lines = text.splitlines(keepends=True)
    start = selection.start_at or selection.start_after
    if start:
        at = next((i for i, line in enumerate(lines) if start in line), None)
        if at is None:
            name = "start-at" if selection.start_at else "start-after"
            return Selected(None, f"{name} {start!r} not found")
        lines = lines[at if selection.start_at else at + 1:]
    end = selection.end_at or selection.end_before
    if end:
        at = next((i for i, line in enumerate(lines) if end in line), None)
        if at is None:
            name = "end-at" if selection.end_at else "end-before"
            return Selected(None, f"{name} {end!r} not found")
        lines = lines[:at + 1 if selection.end_at else at]
    if selection.lines:
        numbers = _line_numbers(selection.lines, len(lines))
        if numbers is None:
            return Selected(None, f"invalid line number spec {selection.lines!r}")
        lines = [lines[n] for n in numbers if n < len(lines)]
        if not lines:
            return Selected(None, f"line spec {selection.lines!r} selects no lines")
    return Selected("".join(lines))


def _line_numbers(spec: str, total: int) -> list[int] | None:
    """Sphinx's `parselinenos`: "1,3-5,8-" and "-3", 0-based; None when invalid."""
    numbers: list[int] = []
    for part in spec.split(","):
        bounds = part.strip().split("-")
        try:
            if len(bounds) == 1:
                numbers.append(int(bounds[0]) - 1)
            elif len(bounds) == 2 and bounds != ["", ""]:
                first = int(bounds[0] or 1)
                last = int(bounds[1] or max(first, total))
                if first > last:
                    return None
                numbers.extend(range(first - 1, last))
            else:
                return None
        except ValueError:
            return None
    return numbers
