"""A history (commands/history.py) -> text: a table for the terminal, json, csv, markdown.

One row per commit: its date and id, the version file's maximum before and after, the release
it shipped in, the verdict (with the exit code `check` would give) and the main finding; then
the summary a reviewer asks for: changes that shipped without a microversion, microversions
with no documented change, and how often the verdict agrees with the version file.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping
from typing import Any

from needs_microversion.model.history import History, HistoryRow, HistorySummary
from needs_microversion.errors import InputError

HISTORY_FORMATS = ("table", "json", "csv", "markdown")
_COLUMNS = ("date", "commit", "max before", "max after", "release", "verdict", "exit",
            "finding", "subject")


def check_history_format(fmt: str) -> None:
    if fmt not in HISTORY_FORMATS:
        raise InputError(f"unknown format {fmt!r} (one of: {', '.join(HISTORY_FORMATS)})")


def render_history(history: History, fmt: str) -> str:
    check_history_format(fmt)
    return _RENDERERS[fmt](history)


def _cells(row: HistoryRow) -> tuple[str, ...]:
    return (row.date, row.commit[:12], _text(row.old_max), _text(row.new_max),
            row.release or "", row.verdict, str(row.exit_code), row.main_finding, row.subject)


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _summary_lines(summary: HistorySummary) -> list[str]:
    agreement = f"{summary.agree}/{summary.compared}" if summary.compared else "n/a"
    return [
        f"commits judged: {summary.judged} (not readable: {summary.errors})",
        f"microversion required: {summary.required}",
        f"contract changes shipped without a microversion (exit 1): {len(summary.unprovided)}"
        + (f" ({', '.join(c[:12] for c in summary.unprovided[:10])}"
           f"{', ...' if len(summary.unprovided) > 10 else ''})" if summary.unprovided else ""),
        f"microversions with no documented change: {len(summary.undocumented)}"
        + (f" ({', '.join(c[:12] for c in summary.undocumented[:10])}"
           f"{', ...' if len(summary.undocumented) > 10 else ''})" if summary.undocumented
           else ""),
        f"verdict agrees with the version file (required exactly when it went up): "
        f"{agreement}",
    ]


def _table(history: History) -> str:
    rows = [_COLUMNS, *(_cells(row) for row in history.rows)]
    widths = [min(max(len(row[i]) for row in rows), 60) for i in range(len(_COLUMNS) - 1)]
    lines = []
    for row in rows:
        cells = [cell if len(cell) <= 60 else cell[:57] + "..." for cell in row[:-1]]
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
                     + "  " + row[-1])
    return "\n".join([*lines, "", *_summary_lines(history.summary)]) + "\n"


def _markdown(history: History) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(_COLUMNS) + " |", "|" + " --- |" * len(_COLUMNS)]
    lines += ["| " + " | ".join(cell(c) for c in _cells(row)) + " |" for row in history.rows]
    return "\n".join([*lines, "", *(f"- {line}" for line in
                                    _summary_lines(history.summary))]) + "\n"


def _csv(history: History) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_COLUMNS)
    writer.writerows(_cells(row) for row in history.rows)
    return out.getvalue()


def _json(history: History) -> str:
    summary = history.summary
    data: dict[str, Any] = {
        "commits": [{
            "commit": row.commit, "date": row.date, "subject": row.subject,
            "old_max": _text(row.old_max) or None, "new_max": _text(row.new_max) or None,
            "bumped": row.bumped, "release": row.release, "verdict": row.verdict,
            "exit_code": row.exit_code, "finding": row.main_finding or None,
            "findings": sorted({f.id for _, report in row.reports for f in report.findings}),
            "evidence": [e for _, report in row.reports for e in report.evidence],
            "error": row.error,
        } for row in history.rows],
        "summary": {
            "judged": summary.judged, "errors": summary.errors, "required": summary.required,
            "shipped_without_microversion": list(summary.unprovided),
            "microversions_without_documented_change": list(summary.undocumented),
            "agree_with_version_file": summary.agree, "compared": summary.compared,
        },
    }
    return json.dumps(data, indent=2) + "\n"


_RENDERERS: Mapping[str, Callable[[History], str]] = {
    "table": _table, "json": _json, "csv": _csv, "markdown": _markdown,
}
