"""The records of a history (`needs-microversion history`): one row per commit, and the
summary of them all, which `summarize` computes from the rows alone (so a history rendered
as its rows arrive and one rendered at the end say the same)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from needs_microversion.model.verdict import REQUIRED, Report
from needs_microversion.model.versions import Version, raised

REQUIRED_NOT_RAISED = "required-not-raised"
RAISED_NOT_REQUIRED = "raised-not-required"


@dataclass(frozen=True)
class HistoryRow:
    commit: str
    date: str  # the commit's date, YYYY-MM-DD
    subject: str
    old_max: Version | None  # the version file at the parent, and at the commit
    new_max: Version | None
    release: str | None  # the first release tag that contains the commit
    reports: tuple[tuple[str, Report], ...] = ()
    error: str | None = None  # why the commit could not be judged
    release_date: str | None = None  # the release tag's date, YYYY-MM-DD
    link: str | None = None  # the commit's page on its forge

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
    def disagreement(self) -> str | None:
        """How the verdict and the version file disagree, if they do: a microversion
        required and the maximum not raised (unless what is required belongs to a
        microversion the version file already served), or the maximum raised and none
        required."""
        if self.error is not None or self.bumped is None:
            return None
        if self.verdict == REQUIRED and not self.bumped and not self._within_existing():
            return REQUIRED_NOT_RAISED
        if self.bumped and self.verdict != REQUIRED:
            return RAISED_NOT_REQUIRED
        return None

    def _within_existing(self) -> bool:
        """Every required finding is gated on a microversion the version file already served
        before this commit (one of this cycle, merged earlier: ironic's api-ref for 1.23
        written after the code that raised to it). The commit adds to that microversion and
        needs no new one, so an unraised version file agrees with it."""
        old_max = self.old_max
        if old_max is None:
            return False
        required = [f for _, report in self.reports for f in report.findings
                    if f.verdict == REQUIRED and not f.acknowledged]
        return bool(required) and all(
            f.change.gated is not None and f.change.gated <= old_max for f in required)

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
    agree: int  # verdict required exactly when the version file went up (`disagreement`)
    compared: int  # commits where the version file was read at both sides
    required_not_raised: tuple[str, ...] = ()  # the disagreements, by kind
    raised_not_required: tuple[str, ...] = ()


@dataclass(frozen=True)
class History:
    rows: tuple[HistoryRow, ...]
    summary: HistorySummary
    warnings: tuple[str, ...] = field(default=())


def summarize(rows: Sequence[HistoryRow]) -> HistorySummary:
    judged = [row for row in rows if row.error is None]
    unprovided = tuple(row.commit for row in judged if row.exit_code == 1)
    undocumented = tuple(row.commit for row in judged if any(
        f.id == "maximum-raised" for _, report in row.reports for f in report.findings))
    compared = [row for row in judged if row.bumped is not None]
    disagree = [(row.commit, row.disagreement) for row in compared]
    return HistorySummary(
        len(judged), len(rows) - len(judged), sum(1 for row in judged if row.verdict == REQUIRED),
        unprovided, undocumented, sum(1 for _, kind in disagree if kind is None), len(compared),
        tuple(commit for commit, kind in disagree if kind == REQUIRED_NOT_RAISED),
        tuple(commit for commit, kind in disagree if kind == RAISED_NOT_REQUIRED))
