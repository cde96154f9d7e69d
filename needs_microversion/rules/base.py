"""What every rule shares: options, the finding record, and the judging context."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from needs_microversion.compare import Change
from needs_microversion.snapshot import OpKey
from needs_microversion.versions import FLOOR, Version

REQUIRED, NOT_REQUIRED, BUG_FIX = "required", "not-required", "bug-fix"
# nova footnote f2: newly returned 400, 403, 404 and 415 need no microversion.
NOVA_EXEMPT_CODES = frozenset({"400", "403", "404", "415"})
# nova: "a new scheduler which adds a new attribute to os:scheduler_hints doesn't require one".
# `*` also matches the api-ref form, where the hints may be nested under /server.
DEFAULT_FREE_FORM = ("*/os:scheduler_hints", "*/OS-SCH-HNT:scheduler_hints")


@dataclass(frozen=True)
class Claim:
    """A reviewer's statement the documents cannot show (Q1): which operation, and why."""

    operation: OpKey
    text: str  # as the user wrote the operation
    reason: str


@dataclass(frozen=True)
class Options:
    exempt_error_codes: frozenset[str] = NOVA_EXEMPT_CODES
    free_form_paths: tuple[str, ...] = DEFAULT_FREE_FORM
    silent_failures: tuple[Claim, ...] = ()
    disabled: frozenset[str] = frozenset()
    documentation_catch_up: bool = False  # api-ref trees: see rule catch-up
    inapplicable_header_exemption: bool = True  # Retry-After removed from a 4xx: see header
    retired_api_exemption: bool = True  # 410 Gone at every microversion: see status-code


@dataclass(frozen=True)
class Finding:
    id: str
    rule: str
    question: str
    verdict: str
    change: Change
    message: str
    acknowledged: str | None = None  # the reason of a configured acknowledgement


@dataclass(frozen=True)
class Context:
    options: Options
    # Operations where a documented 500/503 went away: their new 4xx codes are the fix.
    fixed_server_errors: frozenset[OpKey] = field(default=frozenset())
    old_max: Version | None = None
    # Elements whose new entry starts at an already released microversion -> that version.
    documented_late: Mapping[tuple[Any, ...], Version] = field(default_factory=dict)

    @classmethod
    def build(cls, options: Options, changes: Iterable[Change],
              old_max: Version | None = None) -> Context:
        changes = tuple(changes)
        fixed = frozenset(c.op_key for c in changes if c.area == "status-code"
                          and c.kind == "removed" and c.status in ("500", "503"))
        late = {element(c): c.since for c in changes
                if c.since is not None and c.gated is None and old_max is not None
                and FLOOR < c.since <= old_max}
        return cls(options, fixed, old_max, late)

    def in_free_form_path(self, change: Change) -> bool:
        """The change adds or removes a key below a configured free-form object."""
        return any(fnmatch.fnmatchcase(change.pointer, pattern.rstrip("/") + "/*")
                   for pattern in self.options.free_form_paths)


def element(change: Change) -> tuple[Any, ...]:
    """What a change is about: one attribute, parameter, header or code of one operation."""
    return (change.op_key, change.area, change.status, change.pointer)


class Rule:
    """Base of every rule: the docstring of a subclass is its documentation."""

    id: ClassVar[str]
    order: ClassVar[int]
    question: ClassVar[str]
    finding_ids: ClassVar[tuple[str, ...]]

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        """Return a Finding when this question answers for the change, else None."""
        raise NotImplementedError

    def finding(self, finding_id: str, verdict: str, change: Change, message: str) -> Finding:
        assert finding_id in self.finding_ids, finding_id
        return Finding(finding_id, self.id, self.question, verdict, change, message)


def describe(change: Change) -> str:
    """A short human sentence for a change: what, where, old -> new."""
    where = {
        "request-body": "request attribute", "response-body": "response attribute",
        "query-parameter": "query parameter", "cookie-parameter": "cookie parameter",
        "path-parameter": "path parameter", "request-header": "request header",
        "response-header": "response header", "status-code": "status code",
        "request-media-type": "request media type", "response-media-type": "response media type",
        "operation": "operation", "security": "security requirements",
    }[change.area]
    subject = change.pointer
    if change.area in ("request-body", "response-body") and not subject:
        where, subject = where.replace("attribute", "body"), ""
    if change.area == "status-code":
        subject = change.status or ""
    elif change.area.endswith("media-type"):
        subject = change.media or ""
    elif change.area == "operation":
        subject = change.operation
    text = f"{where} {subject}".strip() if subject else where
    if change.area in ("response-body", "response-header", "response-media-type"):
        text += f" (status {change.status})" if change.status else ""
    if change.aspect == "enum" and change.kind == "added" and change.new is None:
        return f"{text}: allowed values no longer restricted (were {_short(change.old)})"
    if change.aspect == "enum" and change.kind == "removed" and change.old is None:
        return f"{text}: allowed values restricted to {_short(change.new)} (any before)"
    if change.kind == "added" and change.aspect == "enum":
        return f"{text}: allowed values added {_short(change.new)}"
    if change.kind == "removed" and change.aspect == "enum":
        return f"{text}: allowed values removed {_short(change.old)}"
    if change.kind in ("added", "removed"):
        value = change.new if change.kind == "added" else change.old
        detail = f" ({_short(value)})" if isinstance(value, dict) else ""
        return f"{text} {change.kind}{detail}"
    if "," in change.detail:  # several ways at once (merged): one clause each
        clauses = [f"{label} changed from {_short(change.old[label])} to "
                   f"{_short(change.new[label])}" for label in change.detail.split(",")]
        return f"{text}: " + "; ".join(clauses)
    aspect = change.detail if change.aspect == "constraint" else change.aspect
    what = f"{text}: {aspect}" if aspect else text
    if change.delta:
        return f"{what} changed at {change.delta}"
    return f"{what} changed from {_short(change.old)} to {_short(change.new)}"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_short(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    text = str(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
