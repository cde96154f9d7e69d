"""JUnit XML, for CI test-report views: one testsuite, one testcase per change.

A testcase fails when the change needs a microversion it does not get; an acknowledged one is
skipped with the acknowledgement as its message; every other change passes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from needs_microversion.model.verdict import CHART_WORDS, Finding, Report
from needs_microversion.report.common import (
    ERROR, Labelled, in_worktree, location, severity, standing)

# XML 1.0 cannot carry these at all, escaped or not; documents can hold them in strings.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None
           ) -> str:
    """One `testsuites` document, with a suite per report."""
    suites = [_suite(report) for _, report in reports]
    counts = {key: str(sum(int(suite.get(key, "0")) for suite in suites))
              for key in ("tests", "failures", "errors", "skipped")}
    root = ET.Element("testsuites", {"name": "needs-microversion", **counts})
    root.extend(suites)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def render_junit(report: Report) -> str:
    return render([(None, report)])


def _suite(report: Report) -> ET.Element:
    outcomes = [_outcome(report, finding) for finding in report.findings]
    counts = {"tests": str(len(outcomes)), "failures": str(outcomes.count("failure")),
              "errors": "0", "skipped": str(outcomes.count("skipped"))}
    suite = ET.Element("testsuite", {"name": "needs-microversion", **counts})
    properties = ET.SubElement(suite, "properties")
    for name, value in (("verdict", report.verdict), ("old", report.old), ("new", report.new),
                        ("old_version", report.old_version), ("new_version", report.new_version),
                        ("exit_code", report.exit_code)):
        if value is not None:
            ET.SubElement(properties, "property", {"name": name, "value": _xml(str(value))})
    for finding, outcome in zip(report.findings, outcomes, strict=True):
        _testcase(suite, report, finding, outcome)
    out = [CHART_WORDS[report.verdict], *(f"evidence: {e}" for e in report.evidence),
           *(f"note: {n}" for n in report.notes),
           *(f"warning: {w}" for w in report.warnings)]
    ET.SubElement(suite, "system-out").text = _xml("\n".join(out))
    return suite


def _outcome(report: Report, finding: Finding) -> str:
    if severity(report, finding) == ERROR:
        return "failure"
    return "skipped" if finding.acknowledged else "passed"


def _testcase(suite: ET.Element, report: Report, finding: Finding, outcome: str) -> None:
    change = finding.change
    subject = change.pointer or change.media or ""
    status = f" ({change.status})" if change.status else ""
    attributes = {"classname": _xml(change.operation),
                  "name": _xml(f"{finding.id} {subject}".strip() + status)}
    where = location(finding)
    if where is not None:
        # Not in the JUnit schema, but read by the report viewers that link to code.
        attributes["file"] = _xml(in_worktree(where.file))
        if where.line:
            attributes["line"] = str(where.line)
    case = ET.SubElement(suite, "testcase", attributes)
    gate = f", gated on {change.gated}" if change.gated else ""
    at = f"\nat {where}" if where else ""
    detail = f"{finding.question}\n{standing(report, finding)}{gate}{at}"
    if outcome == "failure":
        failure = ET.SubElement(case, "failure", {"message": _xml(finding.message),
                                                  "type": finding.verdict})
        failure.text = _xml(detail)
    elif outcome == "skipped":
        ET.SubElement(case, "skipped", {"message": _xml(f"acknowledged: {finding.acknowledged}")})
    else:
        ET.SubElement(case, "system-out").text = _xml(f"{finding.message}\n{detail}")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
