"""SARIF 2.1.0, for code-scanning tools: every rule is described, every finding is a result.

Results name the rule (`ruleId` = rule id such as `attribute`); the specific finding id
(`attribute-added`) is in the result's properties. Acknowledged findings are results with an
accepted external suppression, which is how SARIF says "seen and allowed".
"""

from __future__ import annotations

import inspect
import json
from pathlib import PurePosixPath, PureWindowsPath
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from needs_microversion import __version__
from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn, exit_code
from needs_microversion.model.verdict import CHART_WORDS, Finding, Report
from needs_microversion.report.common import (
    Labelled, annotation_place, in_worktree, severity, standing)
from needs_microversion.rules import REPORT_RULES
from needs_microversion.rules.base import Rule

SCHEMA_URI = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
              "sarif-schema-2.1.0.json")
# The project has no home page of its own yet: its package index page stands in.
INFORMATION_URI = "https://pypi.org/project/needs-microversion/"


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None,
           fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """One SARIF log, with a run per report."""
    logs = [as_sarif(report, fail_on) for _, report in reports]
    combined = logs[0]
    for log in logs[1:]:
        combined["runs"].extend(log["runs"])
    return json.dumps(combined, indent=2, default=str) + "\n"


def render_sarif(report: Report) -> str:
    return render([(None, report)])


def as_sarif(report: Report, fail_on: FailOn = DEFAULT_FAIL_ON) -> dict[str, Any]:
    """The report as a SARIF log; `exitCode` is the process's under `fail_on`, and each
    result's level its finding's own (`severity`)."""
    index = {rule.id: i for i, rule in enumerate(REPORT_RULES)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "needs-microversion",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in REPORT_RULES],
            }},
            "results": [_result(report, finding, index) for finding in report.findings],
            "properties": {
                "verdict": report.verdict,
                "verdictText": CHART_WORDS[report.verdict],
                "oldVersion": _text(report.old_version),
                "newVersion": _text(report.new_version),
                "exitCode": exit_code(report, fail_on),
                "failOn": fail_on,
                "evidence": list(report.evidence),
                "notes": list(report.notes),
                "warnings": list(report.warnings),
            },
        }],
    }


def _rule(rule: Rule) -> dict[str, Any]:
    sections = _sections(rule)
    checks = sections.get("What it checks", "")
    help_text = "\n\n".join(f"{heading}\n{body}" for heading, body in sections.items())
    help_markdown = "\n\n".join(f"**{heading}**\n\n{body}" for heading, body in sections.items())
    return {
        "id": rule.id,
        "name": type(rule).__name__,
        "shortDescription": {"text": rule.question},
        "fullDescription": {"text": checks or rule.question},
        "help": {"text": help_text or rule.question, "markdown": help_markdown or rule.question},
        "properties": {"findingIds": list(rule.finding_ids), "order": rule.order},
    }


def _sections(rule: Rule) -> dict[str, str]:
    """The docstring's headed sections (What it checks, Why, ...): heading -> one paragraph.

    A heading is a line at the docstring's own indent; its body is the indented lines under it.
    """
    lines = inspect.cleandoc(rule.__doc__ or "").splitlines()[1:]  # the first is the question
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        if line and not line[0].isspace():
            current = sections.setdefault(line.strip(), [])
        elif current is not None and line.strip():
            current.append(line.strip())
    return {heading: " ".join(body) for heading, body in sections.items()}


def _result(report: Report, finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    change = finding.change
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": severity(report, finding),
        "message": {"text": f"{change.operation}: {finding.message} ({standing(report, finding)})"},
        "properties": {
            "findingId": finding.id,
            "verdict": finding.verdict,
            "operation": change.operation,
            "pointer": change.pointer,
            "gated": _text(change.gated),
            "provided": report.provided(finding),
            "acknowledged": finding.acknowledged,
        },
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    where = annotation_place(finding)
    if where is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(in_worktree(where.file))}}
        if where.line:
            physical["region"] = {"startLine": where.line}
        result["locations"] = [{"physicalLocation": physical}]
    if finding.acknowledged:
        result["suppressions"] = [{"kind": "external", "status": "accepted",
                                   "justification": finding.acknowledged}]
    return result


def _uri(path: str) -> str:
    """The path as given, as a URI reference: relative stays relative (to the repository root
    for code scanning); absolute becomes file://; spaces and the like are percent-encoded."""
    windows = PureWindowsPath(path)
    if windows.is_absolute():  # C:\... or \\server\share\...: absolute on Windows only
        return windows.as_uri()
    posix = PurePosixPath(path.replace("\\", "/"))
    return posix.as_uri() if posix.is_absolute() else quote(str(posix))


def _text(value: object) -> str | None:
    return None if value is None else str(value)
