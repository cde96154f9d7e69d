"""Changes -> Report: each change walks the flow chart; the first rule that answers decides."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from needs_microversion.compare import Change
from needs_microversion.rules import RULES
from needs_microversion.rules.base import (
    BUG_FIX, NOT_REQUIRED, REQUIRED, Claim, Context, Finding, Options, Rule)
from needs_microversion.versions import Version

CHART_WORDS = {
    REQUIRED: "Yes, you need a microversion",
    NOT_REQUIRED: "No microversion needed",
    BUG_FIX: "No microversion needed, it's a bug",
}


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

    @property
    def verdict(self) -> str:
        verdicts = {f.verdict for f in self.findings}
        return next((v for v in (REQUIRED, BUG_FIX) if v in verdicts), NOT_REQUIRED)

    @property
    def bumped(self) -> bool | None:
        if self.old_version is None or self.new_version is None:
            return None
        return self.new_version > self.old_version

    def provided(self, finding: Finding) -> bool:
        """The change sits behind a microversion above the old max that the new one reaches."""
        gated = finding.change.gated
        return bool(self.bumped and gated is not None and self.old_version is not None
                    and self.new_version is not None
                    and self.old_version < gated <= self.new_version)

    @property
    def exit_code(self) -> int:
        required = [f for f in self.findings if f.verdict == REQUIRED and not f.acknowledged]
        return 1 if any(not self.provided(f) for f in required) else 0


def judge(changes: Iterable[Change], options: Options, *, old: str, new: str,
          old_version: Version | None, new_version: Version | None,
          warnings: Sequence[str] = ()) -> Report:
    changes = tuple(changes)
    context = Context.build(options, changes, old_version)
    rules = [rule for rule in RULES if rule.id not in options.disabled]
    findings = tuple(_with_hint(f, options) for f in
                     (_first_answer(rules, change, context) for change in changes)
                     if f is not None)
    return Report(old, new, old_version, new_version,
                  tuple(sorted(findings, key=_order)), options.silent_failures, tuple(warnings))


def _first_answer(rules: Sequence[Rule], change: Change, context: Context) -> Finding | None:
    for rule in rules:
        finding = rule.evaluate(change, context)
        if finding is not None:
            return finding
    return None  # every question said no, or the rule that would answer is switched off


def _with_hint(finding: Finding, options: Options) -> Finding:
    """api-ref lags and errs: say what evidence would turn an ungated required finding."""
    if not (options.documentation_catch_up and finding.verdict == REQUIRED
            and finding.change.gated is None):
        return finding
    return replace(finding, message=f"{finding.message} (if the code already did this, the "
                   "document is only corrected: no microversion)")


def walk(finding: Finding) -> list[tuple[str, str]]:
    """The chart walked for one finding: (question, answer) up to the one that decided."""
    steps = []
    for rule in RULES:
        if rule.id == finding.rule:
            steps.append((rule.question, "yes" if finding.verdict != NOT_REQUIRED else
                          "yes, but an exception applies"))
            break
        steps.append((rule.question, "no"))
    return steps


def _order(finding: Finding) -> tuple[str, str, str, str]:
    change = finding.change
    return (change.operation, change.area, change.status or "", change.pointer)
