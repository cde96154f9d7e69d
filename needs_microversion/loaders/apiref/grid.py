"""Allowed values listed in the first column of an RST table inside a description (cinder
and manila write status values so: the value, then what it means).

Both table syntaxes are read the way docutils reads them: a grid table's header is what
sits above its `+===+` line (none without one), a simple table's header is what sits
between its first two `===` borders (none when there are only two). Multi-line cells are
joined. A table counts only when every body row's first cell is one value (a word, or one
``literal``) and there are at least two of them: "read only" or an empty cell means the
column is not a list of values.
"""

from __future__ import annotations

import re

_GRID_BORDER = re.compile(r"^\+(?:[-=]+\+)+$")
_SIMPLE_BORDER = re.compile(r"^=+(?:[ ]+=+)+$")
_VALUE = re.compile(r"^(?:``([^`\s]+)``|(\w[\w.:/-]*))$")


def first_column_values(text: str) -> list[str] | None:
    """The values in the first column of the first table in `text`, None when there is no
    table or it does not clearly list values."""
    if "==" not in text and "+-" not in text:
        return None  # no table border anywhere
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if _GRID_BORDER.match(stripped):
            return _values(_grid_cells(lines, i))
        if _SIMPLE_BORDER.match(stripped):
            return _values(_simple_cells(lines, i))
    return None


def _grid_cells(lines: list[str], start: int) -> list[str] | None:
    """First-column cells of the body rows of the grid table whose top border is `start`."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    top = lines[start].strip()
    left, right = 0, top.index("+", 1)  # the first column's borders
    rows: list[list[str]] = []  # [header marker?] rows of first-cell parts
    current: list[str] = []
    header_end: int | None = None
    for raw in lines[start + 1:]:
        line = raw[indent:].rstrip()
        if not line.startswith(("+", "|")):
            break
        segment = line[left + 1:right]
        if line.startswith("+") and set(segment) <= {"-", "="} and segment:
            rows.append(current)
            current = []
            if "=" in segment:
                header_end = len(rows)
            continue
        current.append(segment.strip())
    if current:
        return None  # no closing border: not a table docutils would accept
    body = rows[header_end:] if header_end is not None else rows
    return [" ".join(p for p in parts if p) for parts in body]


def _simple_cells(lines: list[str], start: int) -> list[str] | None:
    """First-column cells of the body rows of the simple table whose top border is
    `start`; a row whose first column is blank continues the row above."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    border = lines[start][indent:].rstrip()
    second = border.index(" ")
    second += len(border[second:]) - len(border[second:].lstrip())  # the 2nd column
    borders: list[int] = []
    cells: list[str] = []
    for offset, raw in enumerate(lines[start + 1:]):
        line = raw[indent:].rstrip()
        if _SIMPLE_BORDER.match(line):
            borders.append(len(cells))
            following = lines[start + 2 + offset:start + 3 + offset]
            if not following or not following[0].strip():
                break  # the bottom border: followed by a blank line or the end
            continue
        if not line.strip():
            continue
        first = line[:second].strip()
        if first:
            cells.append(first)
        elif not cells:
            return None
    else:
        return None  # no bottom border
    if len(borders) == 2:  # top, header underline, bottom: the header is the first row
        return cells[borders[0]:]
    return cells if len(borders) == 1 else None


def _values(cells: list[str] | None) -> list[str] | None:
    if not cells or len(cells) < 2:
        return None
    values = []
    for cell in cells:
        match = _VALUE.match(cell)
        if match is None:
            return None
        values.append(match.group(1) or match.group(2))
    return list(dict.fromkeys(values))
