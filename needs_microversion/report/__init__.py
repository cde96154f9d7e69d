"""Renderers: Report -> text. One module per format; `render` picks one.

The helpers here are what every format agrees on: where a finding is written, and how
serious it is (the same finding is an error in every format, or in none).
"""

from __future__ import annotations

import os

from needs_microversion.errors import InputError
from needs_microversion.model.snapshot import Location
from needs_microversion.model.verdict import BUG_FIX, REQUIRED, Finding, Report

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit", "auto")

ERROR, WARNING, NOTE = "error", "warning", "note"


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")


def render(report: Report, fmt: str, *, explain: bool = False, colour: bool | None = None
           ) -> str:
    """Render in one format; `colour=None` lets text decide from stdout and NO_COLOR."""
    if fmt == "auto":
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    # Imported on use: the renderers import the helpers below from this package.
    if fmt == "text":
        from needs_microversion.report.text import render_text

        return render_text(report, explain=explain, colour=colour)
    if fmt == "json":
        from needs_microversion.report.json_format import render_json

        return render_json(report)
    if fmt == "markdown":
        from needs_microversion.report.markdown import render_markdown

        return render_markdown(report)
    if fmt == "github":
        from needs_microversion.report.github import render_github

        return render_github(report)
    if fmt == "sarif":
        from needs_microversion.report.sarif import render_sarif

        return render_sarif(report)
    if fmt == "junit":
        from needs_microversion.report.junit import render_junit

        return render_junit(report)
    check_format(fmt)
    raise AssertionError(f"format {fmt!r} is listed but has no renderer")


def location(finding: Finding) -> Location | None:
    """Where the change is written: the new document, or the old one for a removal."""
    return finding.change.new_location or finding.change.old_location


def severity(report: Report, finding: Finding) -> str:
    """ERROR exactly for what makes exit code 1; WARNING for what a reviewer should still see."""
    if finding.verdict == REQUIRED:
        failing = not finding.acknowledged and not report.provided(finding)
        return ERROR if failing else WARNING
    return WARNING if finding.verdict == BUG_FIX or finding.acknowledged else NOTE


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
