"""matches-example: a type corrected to what the old document's own example already showed.

api-ref records, beside a table row, the type its example shows (`x-needs-microversion-
example`); the comparison notes it on a type change (`Change.example_types`). When the old
table said another type and the example already showed the new one, the table is being
corrected: the API returned that type all along.
"""

from __future__ import annotations

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.finder import Sides, each_change

ID = "matches-example"


def check(change: Change, sides: Sides) -> Correction | None:
    shown = change.example_types
    if change.aspect != "type" or not shown:
        return None
    old, new = _types(change.old), _types(change.new)
    if new is None or (old and shown & old) or not shown & new:
        return None
    return Correction(ID, f"the old document's example already shows "
                      f"{'/'.join(sorted(shown & new))}; the table is corrected to match it")


def _types(text: object) -> frozenset[str] | None:
    """A type change's side as written (`integer|null`; `any`: untyped)."""
    if not isinstance(text, str) or text == "any":
        return None
    return frozenset(part for part in text.split("|") if part)


FINDER = each_change("matches_example", (ID,), check)
