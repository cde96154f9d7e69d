"""What every history format says of a row and of the summary, in words: the cells, the row
as a JSON object, the summary lines and the disagreements with the version file.

Pure functions of the rows: a history renders the same whether its rows arrive one by one
or all at once, in whatever order they were judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from needs_microversion.model.history import (
    RAISED_NOT_REQUIRED, REQUIRED_NOT_RAISED, History, HistoryRow, HistorySummary)
from needs_microversion.model.versions import Version

COLUMNS = ("date", "commit", "max before", "max after", "release", "verdict", "exit",
           "finding", "subject", "link")
DISAGREEMENTS = {
    REQUIRED_NOT_RAISED: "microversion required, maximum not raised",
    RAISED_NOT_REQUIRED: "maximum raised, no microversion required",
}
SHORT = 10  # characters of a commit id where one is shown short


def text(value: object) -> str:
    return "" if value is None else str(value)


def printable(value: str) -> str:
    """Control characters as spaces: a commit subject can hold a terminal's escape
    sequences, which a table or page shows, never obeys."""
    return "".join(char if char.isprintable() else " " for char in value)


def cells(row: HistoryRow) -> tuple[str, ...]:
    """The row as `COLUMNS` say, full text (csv, markdown)."""
    return (row.date, row.commit[:12], text(row.old_max), text(row.new_max),
            row.release or "", row.verdict, str(row.exit_code), row.main_finding, row.subject,
            row.link or "")


def maxima(old: Version | None, new: Version | None) -> str:
    """`2.1->2.2` when the maximum moved, `2.2` when it stayed; `?` for an unread side."""
    if old is None and new is None:
        return ""
    if old == new:
        return str(new)
    return f"{text(old) or '?'}->{text(new) or '?'}"


def row_object(row: HistoryRow) -> dict[str, Any]:
    return {
        "commit": row.commit, "date": row.date, "subject": row.subject,
        "old_max": text(row.old_max) or None, "new_max": text(row.new_max) or None,
        "bumped": row.bumped, "release": row.release, "release_date": row.release_date,
        "verdict": row.verdict, "exit_code": row.exit_code,
        "finding": row.main_finding or None,
        "findings": sorted({f.id for _, report in row.reports for f in report.findings}),
        "evidence": [e for _, report in row.reports for e in report.evidence],
        "disagreement": row.disagreement, "link": row.link, "error": row.error,
    }


def summary_object(summary: HistorySummary) -> dict[str, Any]:
    return {
        "judged": summary.judged, "errors": summary.errors, "required": summary.required,
        "shipped_without_microversion": list(summary.unprovided),
        "microversions_without_documented_change": list(summary.undocumented),
        "agree_with_version_file": summary.agree, "compared": summary.compared,
        "required_but_maximum_not_raised": list(summary.required_not_raised),
        "maximum_raised_but_nothing_required": list(summary.raised_not_required),
    }


def summary_lines(summary: HistorySummary) -> list[str]:
    agreement = f"{summary.agree}/{summary.compared}" if summary.compared else "n/a"
    return [
        f"commits judged: {summary.judged} (not readable: {summary.errors})",
        f"microversion required: {summary.required}",
        f"contract changes shipped without a microversion (exit 1): {len(summary.unprovided)}"
        + _some(summary.unprovided),
        f"microversions with no documented change: {len(summary.undocumented)}"
        + _some(summary.undocumented),
        f"verdict agrees with the version file (required exactly when it went up): "
        f"{agreement}",
    ]


def _some(commits: Sequence[str]) -> str:
    if not commits:
        return ""
    more = ", ..." if len(commits) > 10 else ""
    return f" ({', '.join(commit[:SHORT] for commit in commits[:10])}{more})"


def disagreeing(history: History) -> list[tuple[str, list[HistoryRow]]]:
    """The commits whose verdict and version file disagree, by kind (kinds with none left
    out), in the order of the rows."""
    wanted = {REQUIRED_NOT_RAISED: set(history.summary.required_not_raised),
              RAISED_NOT_REQUIRED: set(history.summary.raised_not_required)}
    groups = [(kind, [row for row in history.rows if row.commit in wanted[kind]])
              for kind in DISAGREEMENTS]
    return [(kind, rows) for kind, rows in groups if rows]
