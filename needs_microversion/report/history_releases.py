"""A history release by release: the microversions each release shipped and what the
verdicts said of its commits, for a maintainer who would rather read twenty lines than
nine hundred rows.

    for release in by_release(history.rows):
        release.name, release.first, release.last, release.required, release.unprovided
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from needs_microversion.model.history import HistoryRow
from needs_microversion.model.verdict import BUG_FIX, REQUIRED
from needs_microversion.model.versions import Version


@dataclass(frozen=True)
class ReleaseStats:
    name: str | None  # None: not released yet
    date: str | None  # the tag's date
    first: Version | None  # the maximum before its first commit
    last: Version | None  # the maximum after its last commit
    commits: int
    raised: int  # commits that raised the maximum
    required: int
    bug_fix: int
    errors: int
    findings: int  # findings of all its commits
    unprovided: int  # contract changes shipped without a microversion (exit 1)
    disagree: int  # verdict and version file disagree

    @property
    def microversions(self) -> int | None:
        """How many microversions the release added (minor steps within one major)."""
        if self.first is None or self.last is None or self.first.major != self.last.major:
            return None
        return self.last.minor - self.first.minor


def by_release(rows: Sequence[HistoryRow]) -> list[ReleaseStats]:
    """One entry per release, in the order of the rows (the rows of a release are
    consecutive: releases follow the first-parent line); the unreleased rows last."""
    groups: list[list[HistoryRow]] = []
    for row in rows:
        if groups and groups[-1][0].release == row.release:
            groups[-1].append(row)
        else:
            groups.append([row])
    return [_stats(group) for group in groups]


def _stats(rows: list[HistoryRow]) -> ReleaseStats:
    known = [row for row in rows if row.error is None]
    return ReleaseStats(
        name=rows[0].release, date=rows[0].release_date,
        first=next((row.old_max for row in known if row.old_max is not None), None),
        last=next((row.new_max for row in reversed(known) if row.new_max is not None), None),
        commits=len(rows), raised=sum(1 for row in known if row.bumped),
        required=sum(1 for row in known if row.verdict == REQUIRED),
        bug_fix=sum(1 for row in known if row.verdict == BUG_FIX),
        errors=len(rows) - len(known),
        findings=sum(len(report.findings) for row in known for _, report in row.reports),
        unprovided=sum(1 for row in known if row.exit_code == 1),
        disagree=sum(1 for row in known if row.disagreement is not None))


RELEASE_COLUMNS = ("release", "tagged", "maximum", "added", "commits", "required",
                   "findings", "exit 1", "disagree")


def release_cells(release: ReleaseStats) -> tuple[str, ...]:
    """A release as `RELEASE_COLUMNS` say: the maximum it shipped (from->to when it moved),
    the microversions it added, its commits, those that required one, their findings, the
    contract changes shipped without a microversion and the disagreements."""
    shipped = (f"{release.first}->{release.last}" if release.first != release.last
               else str(release.last or ""))
    added = release.microversions
    return (release.name or "not released", release.date or "", shipped,
            "" if added is None else f"+{added}", str(release.commits),
            str(release.required), str(release.findings), str(release.unprovided),
            str(release.disagree))


def release_table(rows: Sequence[HistoryRow]) -> list[str]:
    """The releases as aligned plain-text lines, a header first (no line when no row)."""
    table = [RELEASE_COLUMNS, *(release_cells(release) for release in by_release(rows))]
    if len(table) == 1:
        return []
    widths = [max(len(line[at]) for line in table) for at in range(len(RELEASE_COLUMNS))]
    return ["  ".join(cell.ljust(width) if at < 3 else cell.rjust(width)
                      for at, (cell, width) in enumerate(zip(line, widths, strict=True)))
            .rstrip() for line in table]
