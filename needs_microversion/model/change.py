"""A difference in the user contract before any rule judged it, and its vocabulary.

`Area` is what part of an operation changed, `Kind` how, `Aspect` which property of it; the
three are `Literal` types, so a misspelt value fails type checking.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from needs_microversion.model.snapshot import Location, OpKey
from needs_microversion.model.versions import Version

Area = Literal[
    "operation", "path-parameter", "query-parameter", "request-header", "cookie-parameter",
    "request-body", "request-media-type", "status-code", "response-header", "response-body",
    "response-media-type", "security",
    # The API's maximum microversion itself (a version file, a history entry, the documents).
    "version",
]
Kind = Literal["added", "removed", "changed"]
# One way an element changed. A change merged from several ways of one element joins theirs
# with "+" ("constraint+type"), so `Change.aspect` is a plain string.
Aspect = Literal[
    "", "type", "nullable", "required", "enum", "constraint", "composition", "free-form",
    "serialization", "announcement",
]

# Groups the rules ask about, typed: a misspelt member fails type checking.
BODY_AREAS: tuple[Area, ...] = ("request-body", "response-body")
HEADER_AREAS: tuple[Area, ...] = ("request-header", "response-header")
MEDIA_TYPE_AREAS: tuple[Area, ...] = ("request-media-type", "response-media-type")
QUERY_AREAS: tuple[Area, ...] = ("query-parameter", "cookie-parameter")
ADDED_OR_REMOVED: tuple[Kind, ...] = ("added", "removed")
# What a microversion adds and a document may forget to mark (read beside the microversion
# the change documents or raises to).
JOINING: frozenset[Area] = frozenset({
    "operation", "status-code", *BODY_AREAS, *QUERY_AREAS, *HEADER_AREAS})

_WHERE: dict[Area, str] = {
    "request-body": "request attribute", "response-body": "response attribute",
    "query-parameter": "query parameter", "cookie-parameter": "cookie parameter",
    "path-parameter": "path parameter", "request-header": "request header",
    "response-header": "response header", "status-code": "status code",
    "request-media-type": "request media type", "response-media-type": "response media type",
    "operation": "operation", "security": "security requirements",
    "version": "maximum microversion",
}


# Why a newly documented 410 Gone retires its operation ("" when it does not): no success
# code is left at that version, or its documentation says the API was removed.
Retired = Literal["", "no-success-code", "documented-removed"]
# What a change of the API's maximum is: the maximum raised, or a microversion a history
# entry or release note names ("" for any other change).
VersionEvent = Literal["", "raised", "named"]


@dataclass(frozen=True)
class Correction:
    """What shows that a change corrects the document, not the API: the finding id of rule
    catch-up or correction it calls for, and the sentence a reviewer reads. Made only by the
    finders of those rules (`rules/catch_up/`, `rules/correction/`)."""

    finding: str
    text: str
    # Only a hint (an example showed the key): the change may still be half of a pair that
    # explains its other half (`rules/correction/`).
    pairable: bool = False
    # Shown by the repository (the base revision's code served it), not read from the
    # documents' wording: a change that edits the API's code does not set it aside.
    evidence: bool = False


@dataclass(frozen=True)
class Change:
    """One difference in the user contract, before any rule judged it."""

    area: Area
    kind: Kind
    aspect: str  # an Aspect, or several joined by "+" (one element changed several ways)
    operation: str  # "GET /servers/{server_id}" as the new document writes it
    op_key: OpKey
    pointer: str = ""  # JSON pointer in the body, or the parameter/header name
    status: str | None = None
    media: str | None = None
    detail: str = ""  # the constraint or composition keyword, an announced version
    old: Any = None
    new: Any = None
    old_location: Location | None = None
    new_location: Location | None = None
    gated: Version | None = None
    inferred: bool = False
    free_form: bool = False  # a key added to / removed from a free-form object
    # Where the new document says the difference starts: an element's first version, or the
    # version after its last for one it ends (a released one means it documents late).
    since: Version | None = None
    delta: str = ""  # where inside a structured value (discriminator, default...) it differs
    # What shows the document is only corrected (the finders of rules/ attach it).
    correction: Correction | None = None
    # What the old document's own example showed at the element (api-ref records it): the
    # types it shows where the type changed; whether it showed a key its table adds.
    example_types: frozenset[str] | None = None
    example_listed: bool = False
    retired: Retired = ""  # a 410 Gone added: why it retires the operation
    # The old side declared nothing here (the code validated no schema: anything went) and
    # the new side declares one: what the code already did, written down (coverage).
    declared: bool = False
    version_event: VersionEvent = ""  # a change of the API's maximum: which kind
    seen_at: Version | None = None  # the lowest microversion the difference is seen at
    everywhere: bool = False  # at every version (the element had, for one removed whole)
    # Gated by the raise of the version file it came with, or by the code's new gate on a
    # microversion of this cycle: why ("" when its document writes the version note); the
    # report asks for the note.
    unnoted: str = ""
    # Several ways one element changed, merged: their labels (`old` and `new` are keyed by
    # them). A label may hold any character: a pattern `{1,255}` is one label.
    merged: tuple[str, ...] = ()
    # For an element removed (no new location): where in the new document it was removed
    # from, the nearest place that is still there (annotations go on the new file).
    removed_from: Location | None = None

    @cached_property
    def identity(self) -> tuple[Any, ...]:
        """What makes two changes the same, wherever and at whichever version they were seen."""
        return (self.area, self.kind, self.aspect, self.op_key, self.pointer, self.status,
                self.media, self.detail, self.retired, self.version_event, _canon(self.old),
                _canon(self.new))


def direction(change: Change) -> str:
    """"request" for what a client sends (body, media type, header, parameter), else
    "response"."""
    return "request" if change.area.startswith("request") or change.area.endswith(
        "parameter") else "response"


def element(change: Change) -> tuple[Any, ...]:
    """What a change is about: one attribute, parameter, header or code of one operation."""
    return (change.op_key, change.area, change.status, change.pointer)


def describe(change: Change) -> str:
    """A short human sentence for a change: what, where, old -> new."""
    where = _WHERE[change.area]
    subject = change.status or "" if change.area == "status-code" else change.pointer
    if change.area in BODY_AREAS and not subject:
        where, subject = where.replace("attribute", "body"), ""
    if change.area == "version":
        return f"{where} {change.old or 'none'} -> {change.new}" if change.kind == "added" \
            else f"microversion {change.new} named"
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
    if change.kind in ADDED_OR_REMOVED:
        value = change.new if change.kind == "added" else change.old
        detail = f" ({_short(value)})" if isinstance(value, dict) else ""
        return f"{text} {change.kind}{detail}"
    if change.merged:  # several ways at once: one clause each
        clauses = [f"{label} changed from {_short(change.old[label])} to "
                   f"{_short(change.new[label])}" for label in change.merged]
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


_PLAIN = (str, int, bool, type(None))


def _canon(value: Any) -> Any:
    # Most values are None, a string or a summary of plain values ({"type": ..., "required":
    # ...}): no dump. The type keeps 1, 1.0 and True apart, as their JSON does (floats are
    # dumped: NaN is equal to itself only as text).
    kind = type(value)
    if kind in _PLAIN:
        return kind, value
    if kind is dict and all(type(k) is str and type(v) in _PLAIN for k, v in value.items()):
        return tuple(sorted((k, type(v), v) for k, v in value.items()))
    return json.dumps(value, sort_keys=True, default=str)
