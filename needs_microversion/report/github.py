"""GitHub Actions workflow commands: one annotation per change (one for a change to a shared
schema, naming the operations it reaches), and the verdict as a notice.

`::error` for what fails the check (required, not provided, not acknowledged), `::warning`
for what a reviewer should still see (provided or acknowledged required changes, bug fixes,
the report's warnings), `::notice` for the rest and for the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn
from needs_microversion.model.verdict import CHART_WORDS, Finding, Report
from needs_microversion.report.common import (
    ERROR, WARNING, Labelled, annotation_place, failing_warnings, in_worktree, maxima, reaches,
    severity, standing, warning_place)

_COMMAND = {ERROR: "error", WARNING: "warning"}  # anything else is a notice


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None,
           fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """Every report's commands, one report after the other."""
    return "".join(render_github(report, fail_on) for _, report in reports)


def render_github(report: Report, fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    # A change to a shared schema is one annotation on its line, naming what it reaches.
    lines = [_annotation(report, finding, reach.heading) for reach in reaches(report)
             for finding in reach.findings]
    lines += [_warning(report, warning) for warning in report.warnings]
    lines += [_command("notice", {"title": "needs-microversion note"}, note)
              for note in report.notes]
    lines += [_command("notice", {"title": "needs-microversion evidence"}, item)
              for item in report.evidence]
    lines.append(_command("notice", {"title": "needs-microversion"}, _verdict(report, fail_on)))
    return "\n".join(lines) + "\n"


def _annotation(report: Report, finding: Finding, operations: str) -> str:
    properties: dict[str, str] = {}
    where = annotation_place(finding)
    if where is not None and _in_change(report, in_worktree(where.file)):
        properties["file"] = in_worktree(where.file)
        if where.line:
            properties["line"] = str(where.line)
    properties["title"] = f"{finding.id}: {finding.question}"
    gate = f", gated on {finding.change.gated}" if finding.change.gated else ""
    message = (f"{operations}: {finding.message}\n"
               f"{standing(report, finding)}{gate}")
    return _command(_COMMAND.get(severity(report, finding), "notice"), properties, message)


def _in_change(report: Report, file: str) -> bool:
    """Whether a file may carry an annotation: one the change touched, when that is known
    (a pull request's annotations go on its own files only)."""
    return report.touched is None or file in report.touched


def _warning(report: Report, warning: str) -> str:
    """A warning about a file is annotated on it (and its line), like a finding."""
    properties = {"title": "needs-microversion warning"}
    place = warning_place(warning)
    if place is None or not _in_change(report, place[0]):
        return _command("warning", properties, warning)
    file, line, text = place
    properties = {"file": file, **({"line": str(line)} if line else {}), **properties}
    return _command("warning", properties, text)


def _verdict(report: Report, fail_on: FailOn) -> str:
    text = CHART_WORDS[report.verdict]
    versions = maxima(report)
    if versions:
        text += f" ({versions})"
    counts: dict[str, int] = {}
    for finding in report.findings:
        level = severity(report, finding)
        counts[level] = counts.get(level, 0) + 1
    summary = ", ".join(f"{n} {level}(s)" for level, n in sorted(counts.items()))
    text = f"{text}: {summary}" if summary else text
    failing = failing_warnings(report, fail_on)
    return f"{text}; {failing}" if failing else text


def _command(name: str, properties: dict[str, str], message: str) -> str:
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """The runner's escaping for a command's message (actions/toolkit `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Property values also end at `,` and the properties at `:` (toolkit `escapeProperty`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
