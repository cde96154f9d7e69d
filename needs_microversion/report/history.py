"""A history (commands/history.py) -> text: a table for the terminal, json, json lines,
csv, markdown, or one html page.

One row per commit: its date and id, the version file's maximum before and after, the release
it shipped in, the verdict (with the exit code `check` would give) and the main finding; then
the summary a reviewer asks for: changes that shipped without a microversion, microversions
with no documented change, how often the verdict agrees with the version file and the
commits where it does not, and (table, markdown, html) the history release by release.

    text = render_history(history, "table", width=100)
    history = stream_history(rows, "csv", write)      # each row written as it arrives

Every format but html is written row by row, so a long history shows as it is judged; the
json document too (it is whole, and parses, once its summary is written at the end); the
html page needs every row for its chart and is written at the end. Both ways give the same
text: a format is a writer of three pure parts (the start, one row given the row before it,
the end given the whole history).
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from needs_microversion.errors import InputError
from needs_microversion.model.history import History, HistoryRow, summarize
from needs_microversion.report import history_html, history_table
from needs_microversion.report.formats import HISTORY_FORMATS
from needs_microversion.report.history_releases import (
    RELEASE_COLUMNS, by_release, release_cells, release_table)
from needs_microversion.report.history_rows import (
    COLUMNS, DISAGREEMENTS, SHORT, cells, disagreeing, printable, row_object, summary_lines,
    summary_object)


@dataclass(frozen=True)
class Writer:
    start: Callable[[], str]
    row: Callable[[HistoryRow, HistoryRow | None], str]  # a row, given the one before it
    end: Callable[[History], str]


def check_history_format(fmt: str) -> None:
    if fmt not in HISTORY_FORMATS:
        raise InputError(f"unknown format {fmt!r} (one of: {', '.join(HISTORY_FORMATS)})")


def render_history(history: History, fmt: str, width: int = history_table.PIPE_WIDTH) -> str:
    writer = _writer(fmt, width)
    # Each row's predecessor: None for the first; the last row is no one's.
    previous = (None, *history.rows)
    return (writer.start() + "".join(writer.row(row, before) for row, before
                                     in zip(history.rows, previous, strict=False))
            + writer.end(history))


def stream_history(rows: Iterable[HistoryRow], fmt: str, write: Callable[[str], bool],
                   width: int = history_table.PIPE_WIDTH) -> History | None:
    """Write each part as soon as it is known; None, and no more rows asked for, when
    `write` says the reader went away (a closed pipe)."""
    writer = _writer(fmt, width)
    if not write(writer.start()):
        return None
    seen: list[HistoryRow] = []
    for row in rows:
        if not write(writer.row(row, seen[-1] if seen else None)):
            return None
        seen.append(row)
    history = History(tuple(seen), summarize(seen))
    return history if write(writer.end(history)) else None


def _writer(fmt: str, width: int) -> Writer:
    check_history_format(fmt)
    if fmt == "table":
        return _table(width)
    return _WRITERS[fmt]


def _nothing(*_: object) -> str:
    return ""


# -- table ---------------------------------------------------------------------------------

def _table(width: int) -> Writer:
    layout = history_table.table_layout(width)

    def row(row: HistoryRow, previous: HistoryRow | None) -> str:
        return history_table.release_line(layout, row, previous) + history_table.line(layout,
                                                                                     row)

    def end(history: History) -> str:
        lines = ["", *summary_lines(history.summary)]
        lines += _disagreement_lines(history, layout.width)
        releases = release_table(history.rows)
        if releases:
            lines += ["", "release by release:", *(f"  {line}" for line in releases)]
        return "\n".join(lines) + "\n"

    return Writer(lambda: history_table.header(layout), row, end)


def _disagreement_lines(history: History, width: int) -> list[str]:
    """Each disagreeing commit under its kind: short id, date, the subject cut to fit, and
    its link below, never cut (a terminal makes it clickable)."""
    lines = []
    for kind, rows in disagreeing(history):
        lines.append(f"{DISAGREEMENTS[kind]} ({len(rows)}):")
        for row in rows:
            start = f"  {row.commit[:SHORT]}  {row.date}  "
            lines.append(start + history_table.fit(row.subject, width - len(start)))
            if row.link:
                lines.append(" " * len(start) + row.link)
    return lines


# -- markdown ------------------------------------------------------------------------------

_MARKDOWN_COLUMNS = COLUMNS[:-1]  # the link is on the commit id


def _markdown_cell(text: str) -> str:
    return printable(text).replace("|", "\\|")


def _markdown_commit(row: HistoryRow, width: int = 12) -> str:
    return f"[{row.commit[:width]}]({row.link})" if row.link else row.commit[:width]


def _markdown_row(row: HistoryRow, _: HistoryRow | None) -> str:
    texts = [_markdown_cell(text) for text in cells(row)[:len(_MARKDOWN_COLUMNS)]]
    texts[1] = _markdown_commit(row)
    return "| " + " | ".join(texts) + " |\n"


def _markdown_end(history: History) -> str:
    lines = ["", *(f"- {line}" for line in summary_lines(history.summary))]
    for kind, rows in disagreeing(history):
        lines.append(f"- {DISAGREEMENTS[kind]} ({len(rows)}):")
        lines += [f"  - {_markdown_commit(row, SHORT)} {row.date} {_markdown_cell(row.subject)}"
                  for row in rows]
    releases = [release_cells(release) for release in by_release(history.rows)]
    if releases:
        lines += ["", "Release by release:", "", "| " + " | ".join(RELEASE_COLUMNS) + " |",
                  "|" + " --- |" * len(RELEASE_COLUMNS)]
        lines += ["| " + " | ".join(_markdown_cell(cell) for cell in release) + " |"
                  for release in releases]
    return "\n".join(lines) + "\n"


# -- csv, json, json lines -----------------------------------------------------------------

def _csv_line(values: Iterable[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(values)
    return out.getvalue()


def _json_row(row: HistoryRow, previous: HistoryRow | None) -> str:
    """One element of the "commits" list, indented as `json.dumps(..., indent=2)` would."""
    element = textwrap.indent(json.dumps(row_object(row), indent=2), "    ")
    return ("\n" if previous is None else ",\n") + element


def _json_end(history: History) -> str:
    summary = textwrap.indent(json.dumps(summary_object(history.summary), indent=2), "  ")
    return ("\n  " if history.rows else "") + f'],\n  "summary": {summary.lstrip()}\n}}\n'


_WRITERS: Mapping[str, Writer] = {
    "json": Writer(lambda: '{\n  "commits": [', _json_row, _json_end),
    "jsonl": Writer(lambda: "", lambda row, _: json.dumps(row_object(row)) + "\n",
                    lambda history: json.dumps({"summary": summary_object(history.summary)})
                    + "\n"),
    "csv": Writer(lambda: _csv_line(COLUMNS), lambda row, _: _csv_line(cells(row)),
                  _nothing),
    "markdown": Writer(lambda: "| " + " | ".join(_MARKDOWN_COLUMNS) + " |\n|"
                       + " --- |" * len(_MARKDOWN_COLUMNS) + "\n", _markdown_row,
                       _markdown_end),
    "html": Writer(lambda: "", _nothing, history_html.page),
}
