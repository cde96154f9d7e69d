"""documented-on-resource: a body attribute added to one operation of a resource that the
old document already gave another operation of the same resource, and still gives: one
representation of the resource, documented late (why, and what must match: `resource.py`).
Only a hint (`pairable`).
"""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.change import Change, Correction, direction
from needs_microversion.model.snapshot import OpKey
from needs_microversion.rules.catch_up.resource import Listing, places_of, types_of, collection
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "documented-on-resource"


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    """id(change) -> evidence, for body attributes added at every version that another
    operation of the same resource documented in the old document and still does."""
    old, new = sides
    wanted = [c for c in changes if c.kind == "added" and not c.aspect  # the element itself
              and c.gated is None and c.everywhere and c.correction is None and c.pointer
              and c.op_key.action is None and (c.area == "request-body" or (
                  c.area == "response-body" and (c.status or "").startswith("2")))]
    if not wanted:
        return {}
    siblings: dict[str, list[OpKey]] = {}
    for key in sorted(old.operations, key=OpKey.order):  # the first one found is named
        if key.action is None and key in new.operations:
            siblings.setdefault(collection(key.shape), []).append(key)
    found: dict[int, Correction] = {}
    listing = Listing(old, new)
    # A resource's operations gain one attribute together: each place is looked up once.
    listings: dict[tuple[object, ...], list[tuple[OpKey, str]]] = {}
    for change in wanted:
        side = direction(change)
        where = collection(change.op_key.shape)
        types = types_of(change.new)
        places = places_of(change.pointer, where)
        group = (where, side, types, *places)
        if group not in listings:
            listings[group] = [
                (op, place.path) for place in places for op in siblings.get(where, ())
                if listing.lists(op, side, place, types)]
        hit = next((hit for hit in listings[group] if hit[0] != change.op_key), None)
        if hit is None:
            continue
        op, path = hit
        verb = "accepts" if side == "request" else "returns"
        found[id(change)] = Correction(
            ID,
            f"the old document already lists `{path}` in {old.operations[op].display}, which "
            f"{verb} the same resource; this table lists it late", pairable=True)
    return found


FINDER = Finder("documented_on_resource", (ID,), find)
