"""rewritten-in-place: a URL, method or name rewritten in place, both halves at every
microversion:
- an operation removed and one added under the same title in the same file, or the only ones
  of their method there (a URL or method fixed: cinder `PUT .../action` -> `POST`,
  `/v2/group_types` -> `/v3/group_types`, an action's key spelled anew);
- under one parent, the only attribute (parameter) removed and the only one added, of the
  same type (nova `host_numa_node` -> `host_node`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from needs_microversion.model.change import BODY_AREAS, Change, Correction
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.rules.correction.moved_location import PARAMETER_AREAS
from needs_microversion.rules.correction.pairing import open_to_pairing, pair
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "rewritten-in-place"


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    old, new = sides
    found: dict[int, Correction] = {}
    candidates = open_to_pairing(changes, prior)
    pair(found, candidates, lambda c: _operation_place(c, old, new), _rewritten_operation)
    pair(found, candidates, lambda c: _operation_place(c, old, new, titled=False),
         _rewritten_operation)
    pair(found, candidates, _sibling, _renamed)
    return found


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


def _rewritten_operation(gone: Change, came: Change) -> Correction:
    return Correction(ID, f"the section documenting {gone.operation} now documents "
                      f"{came.operation}: its URL or method is corrected")


def _sibling(change: Change) -> Any:
    """An attribute or parameter by its parent and, to be sure it is one thing renamed,
    its kind (type, required)."""
    if change.area in BODY_AREAS and change.pointer:
        parent = change.pointer.rsplit("/", 1)[0]
    elif change.area in PARAMETER_AREAS:
        parent = ""
    else:
        return None
    value = change.old if change.kind == "removed" else change.new
    shape = repr(sorted(value.items())) if isinstance(value, dict) else repr(value)
    return change.op_key, change.area, change.status, change.media, parent, shape


def _renamed(gone: Change, came: Change) -> Correction:
    return Correction(ID, f"{gone.pointer} is renamed {came.pointer} (the same kind of "
                      "element): the name is corrected")


FINDER = Finder("rewritten_in_place", (ID,), find,
                sees=("nesting_reread", "wrapper_reread", "success_code_swapped",
                      "moved_location"))
