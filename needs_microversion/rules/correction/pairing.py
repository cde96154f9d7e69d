"""One element written differently in place: a removal and an addition that are the same
thing corrected, not something taken away and something new. What the pairing finders
(`success_code_swapped`, `moved_location`, `rewritten_in_place`) share: each pairs the one
removal and the one addition sharing a key, among changes visible at every microversion
(ungated) that no earlier finder explained, or explained only by a hint (`pairable`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.finder import Found


def open_to_pairing(changes: Sequence[Change], prior: Found) -> list[Change]:
    """The ungated additions and removals a pair may be made of."""
    return [c for c in changes if c.gated is None and id(c) not in prior
            and (c.correction is None or c.correction.pairable)
            and c.kind in ("added", "removed")]


def pair(found: dict[int, Correction], changes: Iterable[Change],
         key: Callable[[Change], Any], correction: Callable[[Change, Change], Correction],
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
            text = correction(removed[0], added[0])
            found[id(removed[0])] = found[id(added[0])] = text
