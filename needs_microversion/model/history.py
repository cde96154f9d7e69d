"""The records of a history (`needs-microversion history`): one row per commit, and the
summary of them all."""

from __future__ import annotations

from dataclasses import dataclass, field

from needs_microversion.model.verdict import Report
from needs_microversion.model.versions import Version, raised


@dataclass(frozen=True)
class HistoryRow:
    commit: str
    date: str  # the commit's date, YYYY-MM-DD
    subject: str
    old_max: Version | None  # the version file at the parent, and at the commit
    new_max: Version | None
    release: str | None  # the first release tag on the line at or after the commit
    reports: tuple[tuple[str, Report], ...] = ()
    error: str | None = None  # why the commit could not be judged

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return "error"
        verdicts = {report.verdict for _, report in self.reports}
        return next((v for v in ("required", "bug-fix") if v in verdicts), "not-required")

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return 2
        return max((report.exit_code for _, report in self.reports), default=0)

    @property
    def bumped(self) -> bool | None:
        return raised(self.old_max, self.new_max)

    @property
    def main_finding(self) -> str:
        """The first finding that decided the verdict, as a reviewer reads it."""
        if self.error is not None:
            return self.error
        findings = [f for _, report in self.reports for f in report.findings]
        deciding = [f for f in findings if f.verdict == self.verdict] or findings
        return f"[{deciding[0].id}] {deciding[0].message}" if deciding else ""


@dataclass(frozen=True)
class HistorySummary:
    judged: int
    errors: int
    required: int
    unprovided: tuple[str, ...]  # commits whose contract changes shipped without a microversion
    undocumented: tuple[str, ...]  # commits that raised the maximum with nothing gated on it
    agree: int  # verdict required exactly when the version file went up
    compared: int  # commits where the version file was read at both sides


@dataclass(frozen=True)
class History:
    rows: tuple[HistoryRow, ...]
    summary: HistorySummary
    warnings: tuple[str, ...] = field(default=())
