"""Plain text for people: the verdict first, in the chart's words, then each change."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn
from needs_microversion.model.verdict import CHART_WORDS, NOT_REQUIRED, REQUIRED, Finding, Report
from needs_microversion.report.common import (
    ERROR, WARNING, Labelled, alone, failing_warnings, gating, headed, location, maxima, reaches,
    severity)
from needs_microversion.rules import walk

_RED, _YELLOW, _GREEN, _DIM, _RESET = "\033[31m", "\033[33m", "\033[32m", "\033[2m", "\033[0m"
_SEVERITY_COLOUR = {ERROR: _RED, WARNING: _YELLOW}


def colour_wanted(stream: TextIO | None = None) -> bool:
    """ANSI colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    stream = sys.stdout if stream is None else stream
    return not os.environ.get("NO_COLOR") and stream.isatty()


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None,
           fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """The one report of a diff, or each report of a check under a `== ` heading."""
    report = alone(reports)
    if report is not None:
        return render_text(report, explain=explain, colour=colour, fail_on=fail_on)
    return headed(reports, "== ", lambda one: render_text(one, explain=explain, colour=colour,
                                                         fail_on=fail_on))


def render_text(report: Report, *, explain: bool = False, colour: bool | None = None,
                fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    paint = _painter(colour_wanted() if colour is None else colour)
    lines = [paint(CHART_WORDS[report.verdict], _verdict_colour(report)) + _versions(report)]
    if report.verdict == REQUIRED:
        state, meaning = gating(report)
        lines.append(f"  {state}: {meaning}")
    failing = failing_warnings(report, fail_on)
    if failing:  # else a passing verdict would sit beside exit code 1
        lines.append(f"  {paint(failing, _RED)}")
    for claim in report.claims:
        lines.append(f"  claim (Q1): {claim.text}: {claim.reason}")
    for reach in reaches(report):
        lines += ["", reach.heading]
        for finding in reach.findings:
            lines.extend(_finding_lines(report, finding, paint, explain))
    if not report.findings:
        lines.append("  no change to the user contract")
    lines.extend(_bookkeeping(report))
    if report.evidence:
        lines.append("")
        lines.extend(f"evidence: {item}" for item in report.evidence)
    if report.notes:
        lines.append("")
        lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines) + "\n"


def _finding_lines(report: Report, finding: Finding, paint: Callable[[str, str], str],
                   explain: bool) -> list[str]:
    change = finding.change
    gate = f", gated on {change.gated}" if change.gated else ""
    tag = paint(f"[{finding.id}]", _SEVERITY_COLOUR.get(severity(report, finding), ""))
    where = location(finding)
    inferred = ", inferred from prose or layout" if change.inferred else ""
    lines = [f"  {tag} {finding.message}",
             f"      {finding.verdict}: {finding.question}{gate}{inferred}"
             + (f"  {paint(f'({where})', _DIM)}" if where else "")]
    if finding.acknowledged:
        lines.append(f"      acknowledged: {finding.acknowledged}")
    if explain:
        lines.extend(f"        - {question} {answer}" for question, answer in walk(finding))
    return lines


def _bookkeeping(report: Report) -> list[str]:
    """The version file's story and the companion changes a bump needs (issue 4)."""
    books = report.bookkeeping
    if books is None:
        return []
    went = {True: "up by one", False: "not up by exactly one", None: "unknown"}[
        books.bumped_by_one]
    if books.old_max is not None and books.old_max == books.new_max:
        went = "not raised"
    lines = ["", f"version file: {books.old_max} -> {books.new_max} ({went})"]
    if books.next_version:
        lines.append(f"next microversion: {books.next_version}")
    mark = {True: "[x]", False: "[ ]", None: "[?]"}
    lines.extend(f"  {mark[done]} {item}" for item, done in books.checklist)
    return lines


def _verdict_colour(report: Report) -> str:
    if report.exit_code:
        return _RED
    # Provided, acknowledged or a bug fix: passes, but a reviewer should look.
    return _GREEN if report.verdict == NOT_REQUIRED else _YELLOW


def _painter(enabled: bool) -> Callable[[str, str], str]:
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if enabled and code else text

    return paint


def _versions(report: Report) -> str:
    text = maxima(report)
    return f" ({text})" if text else ""
