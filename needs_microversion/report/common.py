"""What every format agrees on: where a finding is written, and how serious it is (the
same finding is an error in every format, or in none)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from needs_microversion.model.snapshot import Location
from needs_microversion.model.verdict import BUG_FIX, REQUIRED, Finding, Report

ERROR, WARNING, NOTE = "error", "warning", "note"

# A report with the label of the document it is about: None for the one report of `diff`,
# the service's name for each report of `check`.
Labelled = tuple[str | None, Report]


def alone(reports: Sequence[Labelled]) -> Report | None:
    """The report of a diff (one, unlabelled), or None for the reports of a check."""
    if len(reports) == 1 and reports[0][0] is None:
        return reports[0][1]
    return None


def headed(reports: Sequence[Labelled], heading: str, render_one: Callable[[Report], str]
           ) -> str:
    """Each document's report under a heading naming its service and both sides."""
    return "\n".join(f"{heading}{label}: {report.old} -> {report.new}\n\n"
                     f"{render_one(report).rstrip()}\n" for label, report in reports)


def location(finding: Finding) -> Location | None:
    """Where the change is written: the new document, or the old one for a removal."""
    return finding.change.new_location or finding.change.old_location


def severity(report: Report, finding: Finding) -> str:
    """ERROR exactly for what makes exit code 1; WARNING for what a reviewer should still see."""
    if finding.verdict == REQUIRED:
        failing = not finding.acknowledged and not report.provided(finding)
        return ERROR if failing else WARNING
    return WARNING if finding.verdict == BUG_FIX or finding.acknowledged or finding.review \
        else NOTE


def gating(report: Report) -> tuple[str, str]:
    """For a `required` verdict: whether the microversion is provided, and what that means."""
    if report.exit_code:
        return "not provided", "these changes are visible to existing microversions"
    if any(f.verdict == REQUIRED and f.acknowledged and not report.provided(f)
           for f in report.findings):
        return "acknowledged", "the changes not gated on a new microversion are acknowledged"
    return "provided", "every required change is gated on a new microversion"


def standing(report: Report, finding: Finding) -> str:
    """The verdict with what became of it: `required, provided`, `required, acknowledged: why`."""
    parts: list[str] = [finding.verdict]
    if finding.verdict == REQUIRED:
        parts.append("provided" if report.provided(finding) else "not provided")
    if finding.acknowledged:
        parts.append(f"acknowledged: {finding.acknowledged}")
    return ", ".join(parts)
