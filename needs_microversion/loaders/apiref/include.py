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
    lines: list[str] | str = text.splitlines(keepends=True)
    if isinstance(lines, list) and (selection.start_at or selection.start_after):
        lines = _cut(lines, selection.start_at, selection.start_after, keep_after=True)
    if isinstance(lines, list) and (selection.end_at or selection.end_before):
        lines = _cut(lines, selection.end_at, selection.end_before, keep_after=False)
    if isinstance(lines, str):
        return Selected(None, lines)
    if selection.lines:
        numbers = _line_numbers(selection.lines, len(lines))
        if numbers is None:
            return Selected(None, f"invalid line number spec {selection.lines!r}")
        lines = [lines[n] for n in numbers if n < len(lines)]
        if not lines:
            return Selected(None, f"line spec {selection.lines!r} selects no lines")
    return Selected("".join(lines))


def _cut(lines: list[str], at: str | None, beside: str | None, *, keep_after: bool
         ) -> list[str] | str:
    """The lines after (or before) the first holding the marker, with that line when the
    option is `-at`, without it for `-after`/`-before`; a problem text when it is missing."""
    marker = at or beside or ""
    found = next((i for i, line in enumerate(lines) if marker in line), None)
    if found is None:
        option = ("start" if keep_after else "end") + ("-at" if at else
                                                         "-after" if keep_after else "-before")
        return f"{option} {marker!r} not found"
    if keep_after:
        return lines[found if at else found + 1:]
    return lines[:found + 1 if at else found]


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
