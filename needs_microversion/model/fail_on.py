"""What makes exit code 1: `--fail-on` (`fail-on` in the configuration), as oasdiff's
`--fail-on` and buf's breaking check let a project choose.

    required   a microversion is needed and not provided (the default, `Report.exit_code`)
    warning    that, or a warning the report leaves standing (below)
    never      nothing: exit 0 whatever was found (2 and 3 still say the run failed)

A report's warnings, for `warning`, are its records, never what only stderr says:
- every entry of `Report.warnings` (what the JSON `warnings` lists: validation problems,
  unreadable rows, a claim on no operation, the one line `check` sums up the warnings about
  files the change does not touch with, which stands for them);
- every finding a reviewer should still look at that nothing accepted: a bug fix, or a
  change marked for review, not acknowledged (by the configuration or the baseline).
A required change is an error or nothing: not provided fails under `required` already, and
a provided one (or an acknowledged one) is the tool's pass, not a warning.

Light: the command line imports the names at start-up (the option's choices).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from needs_microversion.model.verdict import Finding, Report

FailOn = Literal["required", "warning", "never"]
FAIL_ON: Final[tuple[FailOn, ...]] = ("required", "warning", "never")
DEFAULT_FAIL_ON: Final[FailOn] = "required"


def as_fail_on(value: str | None) -> FailOn | None:
    """A value already checked against FAIL_ON, typed (a checker cannot narrow a `Literal`
    by membership); None for None or anything else."""
    return next((choice for choice in FAIL_ON if choice == value), None)


def counts_as_warning(finding: Finding) -> bool:
    """A finding that fails the run under `--fail-on warning` (and a baseline may silence)."""
    return finding.verdict != "required" and not finding.acknowledged and (
        finding.verdict == "bug-fix" or finding.review)


def standing_warnings(report: Report) -> int:
    """How many warnings the report leaves standing (see the module's docstring)."""
    return len(report.warnings) + sum(1 for f in report.findings if counts_as_warning(f))


def exit_code(report: Report, fail_on: FailOn = DEFAULT_FAIL_ON) -> int:
    """The report's exit code under `fail_on`: 1 for a failing run, else 0."""
    if fail_on == "never":
        return 0
    if report.exit_code:
        return 1
    return 1 if fail_on == "warning" and standing_warnings(report) else 0
