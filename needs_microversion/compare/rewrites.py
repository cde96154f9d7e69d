"""One element written differently in place: a removal and an addition that are the same
thing corrected, not something taken away and something new.

Four pairs, each of two changes visible at every microversion (ungated):
  success-code-swapped   an operation's only removed success code and its only added one
                         (manila share network create: 202 -> 200)
  moved-location         a parameter removed from one place and one of the same name added
                         at another (`in: path` -> `in: query`, a query parameter that was
                         documented as a body attribute)
  rewritten-in-place     an operation removed and one added under the same title in the
                         same file, or the only ones of their method there (a URL or method
                         fixed: cinder `PUT .../action` -> `POST`, `/v2/group_types` ->
                         `/v3/group_types`, an action's key spelled anew); or, under one
                         parent, the only attribute (parameter) removed and the only one
                         added, of the same type (nova `host_numa_node` -> `host_node`)
Rule `correction` judges them: in a document that gates its changes by microversion, an
ungated rewrite says "it was always so", which no microversion can express.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from needs_microversion.model.change import BODY_AREAS, Change, Evidence
from needs_microversion.model.snapshot import Snapshot

_PARAMETER_AREAS = ("path-parameter", "query-parameter", "request-header", "cookie-parameter")


def rewrites(changes: Sequence[Change], old: Snapshot, new: Snapshot) -> dict[int, Evidence]:
    """id(change) -> the evidence that it is half of one element rewritten in place."""
    ungated = [c for c in changes if c.gated is None
               and (c.evidence is None or c.evidence.pairable)
               and c.kind in ("added", "removed")]
    found: dict[int, Evidence] = {}
    _pair(found, ungated, _success_code, _swapped)
    _pair(found, ungated, _parameter_name, _moved, across=True)
    _pair(found, ungated, lambda c: _operation_place(c, old, new), _rewritten_operation)
    _pair(found, ungated, lambda c: _operation_place(c, old, new, titled=False),
          _rewritten_operation)
    _pair(found, ungated, _sibling, _renamed)
    return found


def _pair(found: dict[int, Evidence], changes: Iterable[Change],
          key: Callable[[Change], Any], evidence: Callable[[Change, Change], Evidence],
          across: bool = False) -> None:
    """Pair the one removal and the one addition sharing a key (none when there are several:
    which became which is then a guess). `across`: the two must differ in area."""
    groups: dict[Any, tuple[list[Change], list[Change]]] = {}
    for change in changes:
        if id(change) in found:
            continue
        group_key = key(change)
        if group_key is not None:
            removed, added = groups.setdefault(group_key, ([], []))
            (removed if change.kind == "removed" else added).append(change)
    for removed, added in groups.values():
        if len(removed) == 1 and len(added) == 1 and (
                not across or removed[0].area != added[0].area):
            text = evidence(removed[0], added[0])
            found[id(removed[0])] = found[id(added[0])] = text


def _success_code(change: Change) -> Any:
    if change.area == "status-code" and (change.status or "").startswith("2"):
        return change.op_key
    return None


def _swapped(gone: Change, came: Change) -> Evidence:
    return Evidence("success-code-swapped",
                    f"the success code is corrected from {gone.status} to {came.status} at "
                    "every microversion")


def _parameter_name(change: Change) -> Any:
    """Parameters and top-level request attributes, by operation and name."""
    if change.area in _PARAMETER_AREAS:
        return change.op_key, change.pointer.lower()
    if change.area == "request-body" and change.pointer.count("/") == 1:
        return change.op_key, change.pointer[1:].lower()
    return None


def _moved(gone: Change, came: Change) -> Evidence:
    return Evidence("moved-location",
                    f"{gone.pointer.lstrip('/')} is documented as a {_place(came)} instead "
                    f"of a {_place(gone)}: where it goes is corrected")


def _place(change: Change) -> str:
    return change.area.replace("-", " ").replace("request body", "request attribute")


def _operation_place(change: Change, old: Snapshot, new: Snapshot, titled: bool = True
                     ) -> Any:
    """An operation by the file it is written in and its title; `titled=False`: and its
    method instead (the title is corrected with the URL: "Show Certificate Details",
    `/os-certificates/{certificate_id}` -> "Show Root Certificate Details", `.../root`)."""
    if change.area != "operation":
        return None
    snapshot = old if change.kind == "removed" else new
    op = snapshot.operations.get(change.op_key)
    where = change.old_location if change.kind == "removed" else change.new_location
    if op is None or where is None or not op.summary.strip():
        return None
    # The file within its document: `old/servers.inc` and `new/servers.inc` are one file.
    within = where.file.removeprefix(snapshot.display)
    # Not its action key: an action section is keyed by evidence that the rewrite may fix
    # (a title's "(Os-Migratelive Action)" read as the key, then a body row naming it).
    return within, op.summary.strip().lower() if titled else change.op_key.method


def _rewritten_operation(gone: Change, came: Change) -> Evidence:
    return Evidence("rewritten-in-place",
                    f"the section documenting {gone.operation} now documents "
                    f"{came.operation}: its URL or method is corrected")


def _sibling(change: Change) -> Any:
    """An attribute or parameter by its parent and, to be sure it is one thing renamed,
    its kind (type, required)."""
    if change.area in BODY_AREAS and change.pointer:
        parent = change.pointer.rsplit("/", 1)[0]
    elif change.area in _PARAMETER_AREAS:
        parent = ""
    else:
        return None
    value = change.old if change.kind == "removed" else change.new
    shape = repr(sorted(value.items())) if isinstance(value, dict) else repr(value)
    return change.op_key, change.area, change.status, change.media, parent, shape


def _renamed(gone: Change, came: Change) -> Evidence:
    return Evidence("rewritten-in-place",
                    f"{gone.pointer} is renamed {came.pointer} (the same kind of element): "
                    "the name is corrected")
