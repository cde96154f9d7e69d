"""The stable JSON format (see README "JSON output")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn, exit_code
from needs_microversion.model.verdict import Finding, Report
from needs_microversion.report.common import Labelled, alone, stated_maxima


def as_dict(report: Report, fail_on: FailOn = DEFAULT_FAIL_ON) -> dict[str, Any]:
    stated = stated_maxima(report)  # what the text says too
    return {
        "verdict": report.verdict,
        "old_version": stated.old,
        "new_version": stated.new,
        "bumped": stated.bumped,
        "released_version": stated.released,
        "exit_code": exit_code(report, fail_on),
        "fail_on": fail_on,
        "old": report.old,
        "new": report.new,
        "claims": [{"operation": c.text, "reason": c.reason} for c in report.claims],
        "changes": [_finding(report, f) for f in report.findings],
        "warnings": list(report.warnings),
        "evidence": list(report.evidence),
        "notes": list(report.notes),
        "bookkeeping": None if report.bookkeeping is None else {
            "old_max": report.bookkeeping.old_max, "new_max": report.bookkeeping.new_max,
            "bumped_by_one": report.bookkeeping.bumped_by_one,
            "next_version": report.bookkeeping.next_version,
            "checklist": [{"item": item, "done": done}
                          for item, done in report.bookkeeping.checklist]},
    }


def render(reports: Sequence[Labelled], *, explain: bool = False, colour: bool | None = None,
           fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """The one report of a diff; for a check, one object with each document's report and
    the worst exit code (each the process's, under `fail_on`)."""
    report = alone(reports)
    if report is not None:
        return render_json(report, fail_on)
    documents = [{"service": label, "old": one.old, "new": one.new,
                  "report": as_dict(one, fail_on)} for label, one in reports]
    worst = max((exit_code(one, fail_on) for _, one in reports), default=0)
    return json.dumps({"exit_code": worst, "fail_on": fail_on, "documents": documents},
                      indent=2, default=str) + "\n"


def render_json(report: Report, fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    # No indent: the C encoder only runs without one, and large reports are for programs.
    return json.dumps(as_dict(report, fail_on), default=str) + "\n"


def _finding(report: Report, finding: Finding) -> dict[str, Any]:
    change = finding.change
    location = change.new_location or change.old_location
    return {
        "id": finding.id,
        "rule": finding.rule,
        "question": finding.question,
        "verdict": finding.verdict,
        "operation": change.operation,
        "kind": change.area if not change.aspect else f"{change.area}:{change.aspect}",
        "change": change.kind,
        "pointer": change.pointer,
        "status": change.status,
        "media_type": change.media,
        "old": change.old,
        "new": change.new,
        "location": str(location) if location else None,
        "old_location": str(change.old_location) if change.old_location else None,
        "new_location": str(change.new_location) if change.new_location else None,
        "removed_from": str(change.removed_from) if change.removed_from else None,
        "message": finding.message,
        "gated": _text(change.gated),
        "provided": report.provided(finding),
        "inferred": change.inferred,
        "acknowledged": finding.acknowledged,
    }


def _text(value: object) -> str | None:
    return None if value is None else str(value)
