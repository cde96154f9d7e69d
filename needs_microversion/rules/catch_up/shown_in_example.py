"""shown-in-example: what the table adds, the old document's own example already showed.

Two readings of one fact, api-ref's examples beside its tables:
- a body attribute added where the old example already showed that key beside the table's
  rows (api-ref records the keys its examples show that no row lists, `x-needs-microversion-
  example-unlisted`; the comparison notes it as `Change.example_listed`);
- a body documented at every version where the old document had none, though its own
  example (a `-req.json` or `-resp.json` beside no table, read or not) showed one.
Either way the operation sent or returned it before this change. Only a hint: a change it
explains may still be half of a rewritten pair (`pairable`), and an element that documents
a released microversion says more (rule catch-up).
"""

from __future__ import annotations

from needs_microversion.model.change import MEDIA_TYPE_AREAS, Change, Correction, direction
from needs_microversion.rules.finder import Sides, each_change

ID = "shown-in-example"


def listed(change: Change, sides: Sides) -> Correction | None:
    """The attribute's key beside the old table (read as the changes are found)."""
    if not change.example_listed:
        return None
    name = change.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return Correction(ID, f"the old document's example already shows `{name}` here; the "
                      "table lists it late", pairable=True)


def body_shown(change: Change, sides: Sides) -> Correction | None:
    """A body documented where the old document showed only its example."""
    if change.area not in MEDIA_TYPE_AREAS or change.kind != "added" or not change.everywhere:
        return None
    side = direction(change)
    op = sides.old.operations.get(change.op_key)
    if op is None or side not in op.example_bodies:
        return None
    return Correction(ID, f"the old document's example already shows a {side} body here; "
                      "the table documents it late", pairable=True)


LISTED = each_change("shown_in_example_listed", (ID,), listed)
BODY = each_change("shown_in_example_body", (ID,), body_shown)
