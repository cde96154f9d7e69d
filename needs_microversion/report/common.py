"""What every format agrees on: where a finding is written, how serious it is (the same
finding is an error in every format, or in none), and which operations one change reaches."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from needs_microversion.model.fail_on import FailOn, standing_warnings
from needs_microversion.model.snapshot import Location
from needs_microversion.model.verdict import BUG_FIX, REQUIRED, Finding, Report
from needs_microversion.model.versions import parse_version, raised

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


def in_worktree(file: str) -> str:
    """A file as the repository's work tree names it: `REV:PATH` (a git input) is PATH, so
    that code scanning and annotations find it; a path on disk stays as it is."""
    revision, colon, path = file.partition(":")
    if not colon or not _REVISION.match(revision) or not path or path.startswith(("\\", "/")):
        return file  # no revision: a drive letter (C:\...), a URL, a name holding a colon
    return path


# What a revision looks like (HEAD~1, origin/main, 3f2a9c1, stable/2024.1, or nothing: the
# index); a drive letter is one character.
_REVISION = re.compile(r"(?:|[\w.~^@{}/+-]{2,})$")


def warning_place(warning: str) -> tuple[str, int | None, str] | None:
    """(file, line, message) of a warning that starts with where it is (`FILE:LINE: ...`,
    `REV:FILE:LINE: ...`, `FILE: ...`); None for a warning about no file."""
    match = _PLACED.match(warning)
    if match is None:
        return None
    line = match.group("line")
    return in_worktree(match.group("file")), int(line) if line else None, match.group("text")


_PLACED = re.compile(r"(?P<file>[^\s:]+(?::[^\s:]+)?\.[A-Za-z0-9]+)(?::(?P<line>\d+))?: "
                     r"(?P<text>.+)", re.DOTALL)


def location(finding: Finding) -> Location | None:
    """Where the change is written: the new document, or the old one for a removal."""
    return finding.change.new_location or finding.change.old_location


def annotation_place(finding: Finding) -> Location | None:
    """Where an annotation on the new files goes (GitHub, SARIF): the change's place in the
    new document, or for a removal the place it was removed from there; never the old
    document's line, which in the new file is another element (None: no place)."""
    return finding.change.new_location or finding.change.removed_from


def severity(report: Report, finding: Finding) -> str:
    """ERROR exactly for what makes exit code 1 by default (`--fail-on required`); WARNING for
    what a reviewer should still see. A finding's level is its own: `--fail-on` changes the
    exit code, never what a finding is (as oasdiff's levels stay under its `--fail-on`)."""
    if finding.verdict == REQUIRED:
        failing = not finding.acknowledged and not report.provided(finding)
        return ERROR if failing else WARNING
    return WARNING if finding.verdict == BUG_FIX or finding.acknowledged or finding.review \
        else NOTE


def gating(report: Report) -> tuple[str, str]:
    """For a `required` verdict: whether the microversion is provided, and what that means."""
    if report.exit_code:
        top = report.bump_missing()
        if top is not None:
            return "not provided", (f"the changes are gated on {top}, but the maximum "
                                    f"microversion is {report.new_version}: raise it to {top}")
        return "not provided", "these changes are visible to existing microversions"
    if any(f.verdict == REQUIRED and f.acknowledged and not report.provided(f)
           for f in report.findings):
        return "acknowledged", "the changes not gated on a new microversion are acknowledged"
    return "provided", "every required change is gated on a new microversion"


def failing_warnings(report: Report, fail_on: FailOn) -> str | None:
    """Why a report with no microversion missing still fails: its warnings, under
    `--fail-on warning` (None when they do not fail it)."""
    if fail_on != "warning" or report.exit_code or not standing_warnings(report):
        return None
    # No count: check's one line about untouched files stands for however many it counts.
    return "the warnings it leaves standing fail the run (--fail-on warning)"


@dataclass(frozen=True)
class Maxima:
    """The maxima every format states (one truth per run): the ones the change was judged
    by (the version file's when it was read, unless `--old-version`/`--new-version` said
    otherwise); when the old maximum is merged but not released yet, the old one stated is
    the version file's and `released` the one changes count from (a change may join it)."""

    old: str | None
    new: str | None
    bumped: bool | None
    released: str | None
    from_version_file: bool


def stated_maxima(report: Report) -> Maxima:
    books = report.bookkeeping
    old, new = report.old_version, report.new_version
    file_old = parse_version(books.old_max) if books and books.old_max else None
    released = None
    if file_old is not None and old is not None and old < file_old:
        released, old = old, file_old  # folded: judged from the released maximum
    return Maxima(_text(old), _text(new), raised(old, new), _text(released),
                  books is not None and books.old_max is not None and books.new_max is not None)


def maxima(report: Report) -> str | None:
    """The maximum microversion at both sides, in words (`stated_maxima`)."""
    stated = stated_maxima(report)
    if stated.from_version_file:
        went = "raised" if stated.bumped else "not raised"
        text = f"max microversion {stated.old} -> {stated.new}, {went}"
        return text + (f"; released {stated.released}" if stated.released else "")
    if stated.old is None and stated.new is None:
        return None
    bumped = {True: "bumped", False: "not bumped", None: "not comparable"}[stated.bumped]
    return f"max microversion {stated.old} -> {stated.new}, {bumped}"


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def standing(report: Report, finding: Finding) -> str:
    """The verdict with what became of it: `required, provided`, `required, acknowledged: why`."""
    parts: list[str] = [finding.verdict]
    if finding.verdict == REQUIRED:
        short = report.shortfall(finding)
        parts.append("provided" if not short else "not provided" if finding.acknowledged
                     else f"not provided: {short}")
    if finding.acknowledged:
        parts.append(f"acknowledged: {finding.acknowledged}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Reach:
    """Findings that read the same in several operations: changes to something they share."""

    operations: tuple[str, ...]
    findings: tuple[Finding, ...]  # as the first of the operations has them

    @property
    def heading(self) -> str:
        """The operations by name, the first few of a long list, the others counted."""
        if len(self.operations) <= _NAMED:
            return ", ".join(self.operations)
        return (f"{', '.join(self.operations[:_NAMED - 1])} and "
                f"{len(self.operations) - _NAMED + 1} more operations")


_NAMED = 4  # operations a heading names; more are counted


def reaches(report: Report) -> list[Reach]:
    """The findings for people to read: a change to a shared schema reaches every operation
    that uses it in the same words (Stripe's `error`: five changes, 415 operations), so it
    is written once, with the operations it reaches, where the first of them stands. An
    operation's own findings come under its name alone. Machine formats keep one finding
    per operation."""
    by_operation: dict[str, list[tuple[tuple[Any, ...], Finding]]] = {}
    reached: dict[tuple[Any, ...], list[str]] = {}
    for finding in report.findings:
        operation, key = finding.change.operation, _reads_as(report, finding)
        by_operation.setdefault(operation, []).append((key, finding))
        seen = reached.setdefault(key, [])
        if not seen or seen[-1] != operation:
            seen.append(operation)
    out: list[Reach] = []
    for operation, found in by_operation.items():
        groups: dict[tuple[str, ...], list[Finding]] = {}
        for key, finding in found:
            if reached[key][0] == operation:  # elsewhere: written with its first operation
                groups.setdefault(tuple(reached[key]), []).append(finding)
        out += [Reach(operations, tuple(findings)) for operations, findings in groups.items()]
    return out


def _reads_as(report: Report, finding: Finding) -> tuple[Any, ...]:
    """Everything a format writes of a finding but its operation."""
    change = finding.change
    return (finding.id, finding.rule, finding.message, finding.verdict, finding.acknowledged,
            finding.review, change.gated, change.inferred, location(finding),
            standing(report, finding), severity(report, finding))
