"""Changes -> Report: the one place a verdict is made or changed.

    report = judge(Judgement(changes, options, old, new, evidence=..., acknowledgements=...))

In this order, each step a registered pass:
1. passes over the changes, before any rule (`CHANGE_PASSES`): the corrections that rules
   catch-up and correction read (`rules/corrections.py`); additions the base revision's
   code already served (`rules/catch_up/served_before.py`: evidence); an element with no
   version note read beside the one microversion the change documents (`compare.merge`);
   documents that write no microversion at all, read as the version file's new one;
   additions with no version note, owned by a raise of the version file by one; and the
   changes of the API's maximum itself (`repository.judging`);
2. each change walks the flow chart: the first rule that answers decides;
3. passes over the findings (`FINDING_PASSES`): the override rules (`experimental`), each
   asked of every finding in registry order; an api-ref hint on ungated findings still
   required; the project's acknowledgements (a finding accepted is reported, not failed).
"""

from __future__ import annotations

import datetime
import http
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from needs_microversion.compare.merge import beside_one_microversion
from needs_microversion.model.change import Change, describe, direction
from needs_microversion.model.records import evolve
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.model.verdict import REQUIRED, Finding, Report
from needs_microversion.model.versions import Version
from needs_microversion.repository.judging import (
    attribute_unmarked, evidence_lines, owned_by_raise, unmarked, unnoted_warnings,
    version_changes)
from needs_microversion.rules import RULES
from needs_microversion.rules.base import Context, Options, OverrideRule, Rule
from needs_microversion.rules.catch_up.served_before import attach_served
from needs_microversion.rules.corrections import attach

if TYPE_CHECKING:  # records only; reading a configuration is the caller's
    from needs_microversion.config import Acknowledgement
    from needs_microversion.repository.evidence import RepositoryEvidence


@dataclass(frozen=True)
class Judgement:
    """What one comparison is judged from."""

    changes: tuple[Change, ...]
    options: Options
    old: Snapshot
    new: Snapshot
    evidence: RepositoryEvidence | None = None  # what the repository said (check, history)
    # The documents' own maxima, before the version file's replaced them (None: the
    # snapshots'): a raise only the documents show is still a raise.
    doc_maxima: tuple[Version | None, Version | None] | None = None
    acknowledgements: tuple[Acknowledgement, ...] = ()
    today: datetime.date | None = None  # for acknowledgements that expire
    warnings: tuple[str, ...] = ()
    # The changes of the API's maximum judged here; False where another report of the same
    # change says them (the code's contract beside the documents).
    version_record: bool = True


ChangePass = Callable[[list[Change], Judgement], list[Change]]
FindingPass = Callable[[Report, Judgement, Context], Report]


def _corrections(changes: list[Change], judgement: Judgement) -> list[Change]:
    return attach(changes, judgement.old, judgement.new,
                  judgement.options.documentation_catch_up)


def _served_before(changes: list[Change], judgement: Judgement) -> list[Change]:
    evidence = judgement.evidence
    if evidence is None or not judgement.options.documentation_catch_up:
        return changes
    return attach_served(changes, evidence.served)


def _one_microversion(changes: list[Change], judgement: Judgement) -> list[Change]:
    return beside_one_microversion(changes)


def _unmarked_documents(changes: list[Change], judgement: Judgement) -> list[Change]:
    return attribute_unmarked(changes, judgement.old, judgement.new, judgement.evidence)


def _owned_by_raise(changes: list[Change], judgement: Judgement) -> list[Change]:
    return owned_by_raise(changes, judgement.evidence)


def _version_record(changes: list[Change], judgement: Judgement) -> list[Change]:
    if not judgement.version_record:
        return changes
    maxima = judgement.doc_maxima or (judgement.old.max_version, judgement.new.max_version)
    return changes + version_changes(*maxima, judgement.evidence, changes)


CHANGE_PASSES: tuple[ChangePass, ...] = (
    _corrections, _served_before, _one_microversion, _unmarked_documents, _owned_by_raise,
    _version_record)


def judge(judgement: Judgement) -> Report:
    changes = list(judgement.changes)
    for change_pass in CHANGE_PASSES:
        changes = change_pass(changes, judgement)
    options, old, new = judgement.options, judgement.old, judgement.new
    context = Context.build(options, changes, old.max_version, new.max_version)
    rules = [rule for rule in RULES if rule.id not in options.disabled]
    findings = (_first_answer(rules, change, context) for change in changes)
    report = Report(old.display, new.display, old.max_version, new.max_version,
                    tuple(sorted((f for f in findings if f is not None), key=_order)),
                    options.silent_failures,
                    (*judgement.warnings, *unnoted_warnings(changes)),
                    evidence=evidence_lines(judgement.evidence,
                                            unmarked_documents=unmarked(old, new,
                                                                        judgement.evidence)))
    for finding_pass in FINDING_PASSES:
        report = finding_pass(report, judgement, context)
    return report


def _first_answer(rules: Sequence[Rule], change: Change, context: Context) -> Finding | None:
    for rule in rules:
        finding = rule.evaluate(change, context)
        if finding is not None and not _set_aside(rule, finding, context):
            return finding
    return None  # every question said no, or the rule that would answer is switched off


def _set_aside(rule: Rule, finding: Finding, context: Context) -> bool:
    """Evidence outranks the documents' wording: when the change edits the API's code where
    the element's name is written (for a response element, the code that makes responses),
    or code too large to read, a reading that rests only on
    what the documents write cannot clear it (the next rules judge the change as the
    contract change it looks like). A correction of an element the code change never names
    (manila's 2.92 fixing the manage-share response rows beside its new field) stands."""
    options = context.options
    if options.code_changed is not True or finding.verdict == REQUIRED \
            or not rule.rests_on_wording(finding):
        return False
    # What a client receives is made by controllers and views: a response schema module
    # naming the element describes it, it does not serve it (nova's coverage commits).
    diff = options.view_diff if direction(finding.change) == "response" else options.code_diff
    return diff is None or any(name in diff for name in _names(finding.change))


def _names(change: Change) -> tuple[str, ...]:
    """How code would write the element a change touches: its key or parameter name, a
    status code's number and phrase (`409`, `conflict`), an operation's URL words."""
    if change.area == "status-code" and change.status:
        phrase = _PHRASES.get(change.status, "")
        return (change.status, *([phrase] if phrase else []))
    key = change.pointer.rstrip("/").rsplit("/", 1)[-1].strip("*").lower()
    if key and change.area != "operation":
        return (key,)
    return tuple(word.lower() for word in re.findall(r"[A-Za-z_][\w-]{2,}",
                                                     change.op_key.shape or change.operation)
                 if word.lower() not in _URL_WORDS) or ("",)


# A status code's phrase as code names it (`HTTPConflict`, `exception.NotFound`).
_PHRASES = {str(s.value): s.phrase.replace(" ", "").replace("-", "").lower()
            for s in http.HTTPStatus}
_URL_WORDS = frozenset({"get", "put", "post", "patch", "delete", "head", "action", "detail"})


def _wording_reading(change: Change, context: Context) -> Finding | None:
    """The reading the documents' wording offered for a change and the judge set aside."""
    if context.options.code_changed is not True:
        return None  # nothing is set aside: no rule need be asked again
    for rule in RULES:
        if rule.wording_ids and rule.id not in context.options.disabled:
            finding = rule.evaluate(change, context)
            if finding is not None and _set_aside(rule, finding, context):
                return finding
    return None


def _overrides(report: Report, judgement: Judgement, context: Context) -> Report:
    overrides = [rule for rule in RULES if isinstance(rule, OverrideRule)
                 and rule.id not in judgement.options.disabled]
    findings = []
    for finding in report.findings:
        for rule in overrides:
            finding = rule.override(finding, context)
        findings.append(finding)
    return replace(report, findings=tuple(findings))


def _hint(report: Report, judgement: Judgement, context: Context) -> Report:
    """api-ref lags and errs: say what evidence would turn an ungated required finding (last
    of the rules' passes: it is for what still needs a microversion)."""
    if not judgement.options.documentation_catch_up:
        return report
    return replace(report, findings=tuple(
        evolve(f, message=f"{f.message} ({_hint_for(f.change, context)})")
        if f.verdict == REQUIRED and f.change.gated is None else f for f in report.findings))


def _hint_for(change: Change, context: Context) -> str:
    aside = _wording_reading(change, context)
    if aside is None:
        return "if the code already did this, the document is only corrected: no microversion"
    reading = aside.message
    for said in ("correction: ", f"{describe(change)}: "):  # the change is named already
        reading = reading.removeprefix(said)
    return (f"the documents read it as {aside.id}: {reading}; the change edits the API's "
            "code, so only evidence clears it: the code serving it before, or a release "
            "that shipped it")


def _acknowledgements(report: Report, judgement: Judgement, context: Context) -> Report:
    """Mark the findings the project accepts; note expired and unused acknowledgements."""
    today = judgement.today or datetime.date.today()
    acknowledgements = judgement.acknowledgements
    live = [ack for ack in acknowledgements if not ack.expired(today)]
    notes = [f"acknowledgement expired on {ack.expires}, not applied: {ack.describe()} "
             f"({ack.source})" for ack in acknowledgements if ack.expired(today)]
    used: set[int] = set()
    findings = []
    for finding in report.findings:
        matching = [i for i, ack in enumerate(live) if ack.matches(finding)]
        used.update(matching)
        if matching:
            finding = replace(finding, acknowledged=live[matching[0]].reason)
        findings.append(finding)
    notes += [f"acknowledgement matched no change: {ack.describe()} ({ack.source})"
              for i, ack in enumerate(live) if i not in used]
    return replace(report, findings=tuple(findings), notes=(*report.notes, *notes))


FINDING_PASSES: tuple[FindingPass, ...] = (_overrides, _hint, _acknowledgements)


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


def _order(finding: Finding) -> tuple[str, str, str, str]:
    change = finding.change
    return (change.operation, change.area, change.status or "", change.pointer)


def judged(changes: Iterable[Change], options: Options, old: Snapshot, new: Snapshot
           ) -> Report:
    """The report of changes alone (no repository, no acknowledgement): tools and tests."""
    return judge(Judgement(tuple(changes), options, old, new))
