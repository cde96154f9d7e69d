"""Verdicts and the records that carry them: a rule's `Finding`, a reviewer's `Claim`, the
`Bookkeeping` of the project's version file, and the `Report` of one comparison.

Verdict values are kebab-case because users type and read them; `Verdict` is a `Literal`
type, so a misspelt verdict fails type checking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.versions import Version, raised

Verdict = Literal["required", "not-required", "bug-fix"]
REQUIRED: Final = "required"
NOT_REQUIRED: Final = "not-required"
BUG_FIX: Final = "bug-fix"

CHART_WORDS: dict[Verdict, str] = {
    REQUIRED: "Yes, you need a microversion",
    NOT_REQUIRED: "No microversion needed",
    BUG_FIX: "No microversion needed, it's a bug",
}


@dataclass(frozen=True)
class Claim:
    """A reviewer's statement the documents cannot show (Q1): which operation, and why."""

    operation: OpKey
    text: str  # as the user wrote the operation
    reason: str


@dataclass(frozen=True)
class Finding:
    id: str
    rule: str
    question: str
    verdict: Verdict
    change: Change
    message: str
    acknowledged: str | None = None  # the reason of a configured acknowledgement
    review: bool = False  # no microversion, if the code agrees: a reviewer should look


@dataclass(frozen=True)
class Bookkeeping:
    """What the project's version file says, and what else a bump needs (issue 4)."""

    old_max: str | None
    new_max: str | None
    bumped_by_one: bool | None
    next_version: str | None  # the microversion to allocate, when one is needed
    checklist: tuple[tuple[str, bool | None], ...] = ()  # (companion change, already done?)


@dataclass(frozen=True)
class Report:
    old: str
    new: str
    old_version: Version | None
    new_version: Version | None
    findings: tuple[Finding, ...]
    claims: tuple[Claim, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. expired or unused acknowledgements
    bookkeeping: Bookkeeping | None = None
    evidence: tuple[str, ...] = ()  # what the repository said (version file, release...)
    # The files the change touched, as the report names them (check); None: unknown. Where
    # a pull request's files are annotated, only these are.
    touched: tuple[str, ...] | None = None

    @property
    def verdict(self) -> Verdict:
        verdicts = {f.verdict for f in self.findings}
        strongest: tuple[Verdict, ...] = (REQUIRED, BUG_FIX)
        return next((v for v in strongest if v in verdicts), NOT_REQUIRED)

    @property
    def bumped(self) -> bool | None:
        return raised(self.old_version, self.new_version)

    def provided(self, finding: Finding) -> bool:
        """The change sits behind a microversion above the old max that the new one reaches."""
        gated = finding.change.gated
        return bool(self.bumped and gated is not None and self.old_version is not None
                    and self.new_version is not None
                    and self.old_version < gated <= self.new_version)

    def shortfall(self, finding: Finding) -> str | None:
        """Why a required change is not provided (None: it is)."""
        if self.provided(finding):
            return None
        if self._above_old(finding.change.gated):
            return f"the maximum is still {self.new_version}"
        return "visible to existing microversions"

    def unprovided(self) -> tuple[Finding, ...]:
        """The required changes that make exit code 1."""
        return tuple(f for f in self.findings
                     if f.verdict == REQUIRED and not f.acknowledged and not self.provided(f))

    def bump_missing(self) -> Version | None:
        """The maximum the new one must reach when every unprovided change is gated above the
        old maximum: the documents are right, only the version was not raised."""
        gated = [f.change.gated for f in self.unprovided()]
        if not gated or not all(self._above_old(g) for g in gated):
            return None
        return max(g for g in gated if g is not None)

    def _above_old(self, gated: Version | None) -> bool:
        return gated is not None and self.old_version is not None and gated > self.old_version

    @property
    def exit_code(self) -> int:
        return 1 if self.unprovided() else 0
