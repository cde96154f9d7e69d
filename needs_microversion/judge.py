"""Changes -> Report: each change walks the flow chart; the first rule that answers decides.

Then the passes that change verdicts: the override rules (`experimental`), each asked of
every finding in registry order, and an api-ref hint on ungated findings still required."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from needs_microversion.model.change import Change
from needs_microversion.model.records import evolve
from needs_microversion.model.verdict import REQUIRED, Finding, Report
from needs_microversion.model.versions import Version
from needs_microversion.rules import RULES
from needs_microversion.rules.base import Context, Options, OverrideRule, Rule


def judge(changes: Iterable[Change], options: Options, *, old: str, new: str,
          old_version: Version | None, new_version: Version | None,
          warnings: Sequence[str] = ()) -> Report:
    changes = tuple(changes)
    context = Context.build(options, changes, old_version, new_version)
    rules = [rule for rule in RULES if rule.id not in options.disabled]
    overrides = [rule for rule in rules if isinstance(rule, OverrideRule)]
    # The hint last: it is for what still needs a microversion once the overrides answered.
    findings = tuple(_with_hint(_overridden(overrides, f, context), options) for f in
                     (_first_answer(rules, change, context) for change in changes)
                     if f is not None)
    return Report(old, new, old_version, new_version,
                  tuple(sorted(findings, key=_order)), options.silent_failures, tuple(warnings))


def side_warnings(old: tuple[str, Sequence[str]], new: tuple[str, Sequence[str]]
                  ) -> tuple[str, ...]:
    """The new side's warnings, and the old side's that it does not repeat: the base revision
    is not the author's to fix, and a hook would print its warnings on every commit.

    Each side is (display, warnings); a warning is compared without its side's name and its
    line numbers, which move when the file is edited above it."""
    def key(display: str, warning: str) -> str:
        return re.sub(r":\d+\b", "", warning.removeprefix(display))

    repeated = {key(new[0], w) for w in new[1]}
    return (*(w for w in old[1] if key(old[0], w) not in repeated), *new[1])


def _first_answer(rules: Sequence[Rule], change: Change, context: Context) -> Finding | None:
    for rule in rules:
        finding = rule.evaluate(change, context)
        if finding is not None:
            return finding
    return None  # every question said no, or the rule that would answer is switched off


def _overridden(overrides: Sequence[OverrideRule], finding: Finding, context: Context
                ) -> Finding:
    for rule in overrides:
        finding = rule.override(finding, context)
    return finding


def _with_hint(finding: Finding, options: Options) -> Finding:
    """api-ref lags and errs: say what evidence would turn an ungated required finding."""
    if not (options.documentation_catch_up and finding.verdict == REQUIRED
            and finding.change.gated is None):
        return finding
    return evolve(finding, message=f"{finding.message} (if the code already did this, the "
                  "document is only corrected: no microversion)")


def _order(finding: Finding) -> tuple[str, str, str, str]:
    change = finding.change
    return (change.operation, change.area, change.status or "", change.pointer)
