"""Markdown for a pull-request comment: the verdict, a table of changes, what else to do."""

from __future__ import annotations

import re
from collections.abc import Sequence

from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn
from needs_microversion.model.verdict import CHART_WORDS, REQUIRED, Report
from needs_microversion.report.common import (
    Labelled, alone, failing_warnings, gating, headed, location, maxima, reaches, standing)

# Backslash escapes any ASCII punctuation in CommonMark; these are the ones that would mark up
# (`|` ends a table cell, even inside backticks in GFM).
_MARKUP = re.compile(r"([\\`*_\[\]<>&|~])")
_HEADER = ("Finding", "Operation", "What changed", "Verdict", "Gated", "Location")


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None,
           fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """The one report of a diff, or each report of a check under a `## ` heading."""
    report = alone(reports)
    return render_markdown(report, fail_on) if report is not None else headed(
        reports, "## ", lambda one: render_markdown(one, fail_on))


def render_markdown(report: Report, fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    lines = [f"## {CHART_WORDS[report.verdict]}", "", _summary(report, fail_on)]
    if report.claims:
        lines += ["", "Claimed silent failures (Q1):", ""]
        lines += [f"- {_inline(claim.text)}: {_inline(claim.reason)}" for claim in report.claims]
    lines.append("")
    if report.findings:
        lines.append(_row(_HEADER))
        lines.append(_row(("---",) * len(_HEADER)))
        for reach in reaches(report):  # a comment has a size limit: shared changes once
            for finding in reach.findings:
                where = location(finding)
                change = finding.change
                lines.append(_row((f"`{finding.id}`", _inline(reach.heading),
                                   _inline(finding.message), _inline(standing(report, finding)),
                                   _inline(str(change.gated) if change.gated else "-"),
                                   _inline(str(where) if where else "-"))))
    else:
        lines.append("No change to the user contract.")
    bookkeeping = report.bookkeeping
    if bookkeeping is not None and (bookkeeping.checklist or bookkeeping.next_version):
        lines += ["", "### Checklist", ""]
        if bookkeeping.next_version:
            lines.append(f"Next microversion: {_inline(bookkeeping.next_version)}")
            lines.append("")
        # An unknown state (None) stays unticked: the reviewer has to look.
        lines += [f"- [{'x' if done else ' '}] {_inline(item)}"
                  + (" (not checked)" if done is None else "")
                  for item, done in bookkeeping.checklist]
    for title, items in (("Evidence", report.evidence), ("Notes", report.notes),
                         ("Warnings", report.warnings)):
        if items:
            lines += ["", f"### {title}", ""]
            lines += [f"- {_inline(item)}" for item in items]
    return "\n".join(lines) + "\n"


def _summary(report: Report, fail_on: FailOn) -> str:
    parts = []
    text = maxima(report)
    if text:
        parts.append(f"{text[0].upper()}{text[1:]}.")
    if report.verdict == REQUIRED:
        state, meaning = gating(report)
        parts.append(f"**{state.capitalize()}**: {meaning}.")
    parts.append(f"Compared {_inline(report.old)} -> {_inline(report.new)}: "
                 f"{len(report.findings)} change(s).")
    failing = failing_warnings(report, fail_on)
    if failing:
        parts.append(f"**Failing**: {_inline(failing)}.")
    return " ".join(parts)


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cells) + " |"


def _inline(text: str) -> str:
    """Document text shown as written: no markup or HTML from it, and on one line (a line
    break would end the table row or list item)."""
    return _MARKUP.sub(r"\\\1", " ".join(text.split()))
