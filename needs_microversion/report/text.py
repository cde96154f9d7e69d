"""Plain text for people: the verdict first, in the chart's words, then each change."""

from __future__ import annotations

from needs_microversion.judge import CHART_WORDS, Report, walk
from needs_microversion.rules.base import REQUIRED


def render_text(report: Report, *, explain: bool = False) -> str:
    lines = [CHART_WORDS[report.verdict] + _versions(report)]
    if report.verdict == REQUIRED:
        lines.append("  provided: every required change is gated on a new microversion"
                     if report.exit_code == 0 else
                     "  not provided: these changes are visible to existing microversions")
    for claim in report.claims:
        lines.append(f"  claim (Q1): {claim.text}: {claim.reason}")
    operation = None
    for finding in report.findings:
        change = finding.change
        if change.operation != operation:
            operation = change.operation
            lines.append("")
            lines.append(operation)
        gate = f", gated on {change.gated}" if change.gated else ""
        lines.append(f"  [{finding.id}] {finding.message}")
        location = change.new_location or change.old_location
        where = f"{location}" if location else ""
        inferred = ", inferred from prose or layout" if change.inferred else ""
        lines.append(f"      {finding.verdict}: {finding.question}{gate}{inferred}"
                     + (f"  ({where})" if where else ""))
        if explain:
            for question, answer in walk(finding):
                lines.append(f"        - {question} {answer}")
    if not report.findings:
        lines.append("  no change to the user contract")
    return "\n".join(lines) + "\n"


def _versions(report: Report) -> str:
    if report.old_version is None and report.new_version is None:
        return ""
    bumped = {True: "bumped", False: "not bumped", None: "not comparable"}[report.bumped]
    return f" (max microversion {report.old_version} -> {report.new_version}, {bumped})"
