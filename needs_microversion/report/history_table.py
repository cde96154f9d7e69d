"""The history as a terminal table: one line per commit, fitted to the width, printed as the
rows arrive, grouped under a line per release.

    layout = table_layout(100)                  # the columns that fit 100 characters
    header(layout), line(layout, row), release_line(layout, row, previous)

The widths depend on the width alone, never on the rows, so each line can be printed as
soon as its commit is judged. The fixed columns (date, commit, maximum, verdict) always show;
what is left goes to the finding and the subject, side by side when there is room, else in
one column (the finding, or the subject of a commit with none: findings start with their
`[id]`); the exit code shows on wide terminals. Longer text is cut with `...`: the full text
is in json, csv and markdown. The release is a line above its first commit, not a column.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

from needs_microversion.model.history import HistoryRow
from needs_microversion.report.history_rows import SHORT, maxima, printable

PIPE_WIDTH = 100  # a pipe has no width: COLUMNS, else this
NARROWEST = 60  # below it the table stays this wide and the terminal wraps it
_GAP = "  "
_SPLIT_ROOM = 60  # room for finding and subject side by side
_EXIT_ROOM = 66  # room left after the exit column for both


@dataclass(frozen=True)
class Column:
    title: str
    width: int
    cell: Callable[[HistoryRow], str]


@dataclass(frozen=True)
class TableLayout:
    width: int
    columns: tuple[Column, ...]


def terminal_width() -> int:
    """The terminal's width (COLUMNS first, as `shutil` reads it), or PIPE_WIDTH in a pipe."""
    chosen = os.environ.get("COLUMNS", "").strip()
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    if not sys.stdout.isatty():
        return PIPE_WIDTH
    return shutil.get_terminal_size((PIPE_WIDTH, 24)).columns


def table_layout(width: int) -> TableLayout:
    width = max(width, NARROWEST)
    fixed = [Column("date", 10, lambda row: row.date),
             Column("commit", SHORT, lambda row: row.commit[:SHORT]),
             Column("max", 10, lambda row: maxima(row.old_max, row.new_max)),
             Column("verdict", 12, lambda row: row.verdict)]
    room = width - sum(column.width + len(_GAP) for column in fixed)
    if room >= _EXIT_ROOM + 4 + len(_GAP):
        fixed.append(Column("exit", 4, lambda row: str(row.exit_code)))
        room -= 4 + len(_GAP)
    if room < _SPLIT_ROOM:
        return TableLayout(width, (*fixed, Column("finding / subject", room, _finding_or_subject)))
    subject = (room - len(_GAP)) * 2 // 5
    return TableLayout(width, (*fixed,
                               Column("finding", room - len(_GAP) - subject,
                                      lambda row: row.main_finding),
                               Column("subject", subject, lambda row: row.subject)))


def header(layout: TableLayout) -> str:
    return _join(layout, [column.title for column in layout.columns])


def line(layout: TableLayout, row: HistoryRow) -> str:
    return _join(layout, [column.cell(row) for column in layout.columns])


def release_line(layout: TableLayout, row: HistoryRow, previous: HistoryRow | None) -> str:
    """`-- 9.0.0 (2023-03-22) ----` above the first commit of a release; "" elsewhere."""
    if previous is not None and previous.release == row.release:
        return ""
    title = (f"-- {printable(row.release)} ({row.release_date or 'no date'}) "
             if row.release else "-- not released yet ")
    return title.ljust(layout.width, "-") + "\n"


def fit(text: str, width: int) -> str:
    """One line of at most `width` characters: control characters (a subject can hold a
    terminal's escape sequences) become spaces, a longer text ends in `...`."""
    flat = printable(text)
    if len(flat) <= width:
        return flat
    return flat[:max(width - 3, 0)] + "..." if width >= 3 else flat[:width]


def _finding_or_subject(row: HistoryRow) -> str:
    return row.main_finding or row.subject


def _join(layout: TableLayout, texts: list[str]) -> str:
    parts = [fit(text, column.width).ljust(column.width)
             for text, column in zip(texts, layout.columns, strict=True)]
    return _GAP.join(parts).rstrip() + "\n"

