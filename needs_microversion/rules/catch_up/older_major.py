"""older-major-version: a change to a frozen older major version, or the same change made to
the newest.

An api-ref tree that documents several major versions (cinder's `v2/` beside `v3/`, its
paths keep the version prefix): microversions belong to the newest. An older major version
takes none: it is frozen, and new behaviour goes to the newest. So a change documented for
the older one describes what the API already did, and so does the same change documented
for the newest one in the same commit; and an element the newest gains that an older one
documented before and still does (the newest began as a copy of it). URLs an older one
drops retire it: those removals are judged as such, not here."""

from __future__ import annotations

import re
from collections.abc import Sequence

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.snapshot import OpKey, Snapshot
from needs_microversion.rules.catch_up.resource import Listing
from needs_microversion.rules.finder import Finder, Found, Sides

_MAJOR = re.compile(r"^/v(\d+)(?:\.\d+)?(/.*)?$")  # the version prefix api-ref paths keep


ID = "older-major-version"


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    """A correction for each change of an older major version, and for each change of the
    newest one that an older one shows too (the same element, changed the same way); the
    runner gives it only to changes gated on no microversion."""
    old, new = sides
    newest = max((major for side in (old, new) for key in side.operations
                  if (major := _split(key.shape)[0]) is not None), default=None)
    if newest is None:
        return {}  # one major version: nothing is frozen
    found: dict[int, Correction] = {}
    twins: dict[tuple[object, ...], int] = {}
    for change in changes:
        major, rest = _split(change.op_key.shape)
        # URLs removed from a frozen version retire it (cinder dropping v2): a removal to
        # review under the deprecation policy, not a document catching up.
        retired = change.area == "operation" and change.kind == "removed"
        if major is not None and major < newest and not retired:
            found[id(change)] = Correction(
                ID, f"v{major} is frozen beside v{newest} and takes no "
                "microversions: the document catches up with what it did; check the code agrees")
            twins.setdefault(_twin_key(change, rest), major)
    older = sorted({major for key in old.operations
                    if (major := _split(key.shape)[0]) is not None and major < newest})
    listing = Listing(old, new)
    for change in changes:
        major, rest = _split(change.op_key.shape)
        twin = twins.get(_twin_key(change, rest)) if major == newest else None
        if twin is not None:
            found[id(change)] = Correction(
                ID, f"the same change is documented for v{twin}, which takes"
                " no microversions: the API already did this; check the code agrees")
        elif major == newest and change.kind == "added" and not change.aspect \
                and change.everywhere:
            shown = next((m for m in older if _documents(old, new, listing, change, OpKey(
                change.op_key.method, f"/v{m}{rest}".rstrip("/"), change.op_key.action))), None)
            if shown is not None:
                found[id(change)] = Correction(
                    ID, f"v{shown} already documents this {_WHAT[change.area]}"
                    f" and v{newest} began as v{shown}: the document catches up with what "
                    f"v{newest} always did; check the code agrees", pairable=True)
    return found


_WHAT = {"operation": "operation", "request-body": "attribute", "response-body": "attribute",
         "query-parameter": "parameter", "request-header": "header",
         "response-header": "header", "status-code": "status code"}


def _documents(old: Snapshot, new: Snapshot, listing: Listing, change: Change,
               twin: OpKey) -> bool:
    """Whether both documents give the older major's twin operation the element added."""
    if change.area not in _WHAT or twin not in old.operations or twin not in new.operations:
        return False
    if change.area == "operation":
        return True
    sides = (old.operations[twin], new.operations[twin])
    if change.area == "status-code":
        return all(change.status in op.responses for op in sides)
    if change.area in ("request-body", "response-body"):
        return listing.lists_added(twin, change)
    if change.area == "response-header":
        responses = [op.responses.get(change.status or "") for op in sides]
        return all(r is not None and change.pointer.lower() in r.headers for r in responses)
    # Parameters are keyed by (where, name), header names lower-cased.
    key = ("query", change.pointer) if change.area == "query-parameter" \
        else ("header", change.pointer.lower())
    return all(key in op.parameters for op in sides)


def _split(shape: str) -> tuple[int | None, str]:
    """`/v2/volumes/{}` -> (2, `/volumes/{}`); (None, "") without a version prefix."""
    match = _MAJOR.match(shape)
    if match is None:
        return None, ""
    return int(match.group(1)), match.group(2) or "/"


def _twin_key(change: Change, rest: str) -> tuple[object, ...]:
    # An operation's values name its own path, which differs by the prefix.
    values = () if change.area == "operation" else (repr(change.old), repr(change.new))
    return (rest, change.op_key.method, change.op_key.action, change.area, change.kind,
            change.aspect, change.pointer, change.status, *values)


FINDER = Finder("older_major", (ID,), find)
