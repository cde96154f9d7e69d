"""JUnit XML, for CI test-report views: one testsuite, one testcase per change.

A testcase fails exactly when its change fails the run (`--fail-on`): by default when the
change needs a microversion it does not get; under `warning` a bug fix or a change to review
fails too, and each of the report's warnings is a failing testcase of its own; under `never`
nothing fails, and a change that would have is skipped with why. An acknowledged one is
skipped with the acknowledgement as its message; every other change passes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn, counts_as_warning, \
    exit_code
from needs_microversion.model.verdict import CHART_WORDS, Finding, Report
from needs_microversion.report.common import (
    ERROR, Labelled, in_worktree, location, severity, standing, warning_place)

# XML 1.0 cannot carry these at all, escaped or not; documents can hold them in strings.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None,
           fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """One `testsuites` document, with a suite per report."""
    suites = [_suite(report, fail_on) for _, report in reports]
    counts = {key: str(sum(int(suite.get(key, "0")) for suite in suites))
              for key in ("tests", "failures", "errors", "skipped")}
    root = ET.Element("testsuites", {"name": "needs-microversion", **counts})
    root.extend(suites)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def render_junit(report: Report) -> str:
    return render([(None, report)])


def _suite(report: Report, fail_on: FailOn) -> ET.Element:
    outcomes = [_outcome(report, finding, fail_on) for finding in report.findings]
    # Under `--fail-on warning` the report's warnings fail the run: each is a testcase.
    failing = report.warnings if fail_on == "warning" else ()
    counts = {"tests": str(len(outcomes) + len(failing)),
              "failures": str(outcomes.count("failure") + len(failing)),
              "errors": "0", "skipped": str(outcomes.count("skipped"))}
    suite = ET.Element("testsuite", {"name": "needs-microversion", **counts})
    properties = ET.SubElement(suite, "properties")
    for name, value in (("verdict", report.verdict), ("old", report.old), ("new", report.new),
                        ("old_version", report.old_version), ("new_version", report.new_version),
                        ("exit_code", exit_code(report, fail_on)), ("fail_on", fail_on)):
        if value is not None:
            ET.SubElement(properties, "property", {"name": name, "value": _xml(str(value))})
    for finding, outcome in zip(report.findings, outcomes, strict=True):
        _testcase(suite, report, finding, outcome)
    for warning in failing:
        _warning_case(suite, warning)
    out = [CHART_WORDS[report.verdict], *(f"evidence: {e}" for e in report.evidence),
           *(f"note: {n}" for n in report.notes),
           *(f"warning: {w}" for w in report.warnings)]
    ET.SubElement(suite, "system-out").text = _xml("\n".join(out))
    return suite


def _outcome(report: Report, finding: Finding, fail_on: FailOn) -> str:
    error = severity(report, finding) == ERROR
    if fail_on != "never" and (error or fail_on == "warning" and counts_as_warning(finding)):
        return "failure"
    return "skipped" if finding.acknowledged or error else "passed"


def _warning_case(suite: ET.Element, warning: str) -> None:
    place = warning_place(warning)
    attributes = {"classname": "warnings", "name": _xml(place[2] if place else warning)}
    if place is not None:
        attributes["file"] = _xml(place[0])
        if place[1]:
            attributes["line"] = str(place[1])
    case = ET.SubElement(suite, "testcase", attributes)
    ET.SubElement(case, "failure", {"message": _xml(warning), "type": "warning"}).text = \
        _xml(f"{warning}\nfails the run under --fail-on warning")


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
        why = f"acknowledged: {finding.acknowledged}" if finding.acknowledged else \
            f"{standing(report, finding)}; not failing the run (--fail-on never)"
        ET.SubElement(case, "skipped", {"message": _xml(why)})
    else:
        ET.SubElement(case, "system-out").text = _xml(f"{finding.message}\n{detail}")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
