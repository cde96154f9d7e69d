"""A finder: one way of showing, from the two documents, that a change corrects the document
rather than the API. Rules catch-up and correction judge what their finders attach.

    FINDER = Finder("envelope-of-list", ("envelope-matches-list",), find)
    FINDER.find(changes, sides, prior)   # id(change) -> the Correction it shows

A finder sees every change of the comparison at once (a removal and an addition may be one
element rewritten) and both snapshots; `prior` holds what the finders it `sees` found
before it (the finders run in the order `rules/corrections.py` registers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.snapshot import Snapshot

# id(change) -> what a finder found for it.
Found = Mapping[int, Correction]


class Sides(NamedTuple):
    old: Snapshot
    new: Snapshot


@dataclass(frozen=True)
class Finder:
    name: str  # the module's, for `sees` and the register
    ids: tuple[str, ...]  # the finding ids its corrections call for (declared by its rule)
    find: Callable[[Sequence[Change], Sides, Found], Found]
    sees: tuple[str, ...] = ()  # the finders whose findings it reads (or leaves alone)
    # Asked of one change at a time (`each`): given only the changes still open (ungated,
    # not explained yet), which is the same answer for less work.
    per_change: bool = False


def each_change(name: str, ids: tuple[str, ...],
                check: Callable[[Change, Sides], Correction | None]) -> Finder:
    """A finder that reads one change at a time, beside the two documents."""
    def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
        found = {}
        for change in changes:
            correction = check(change, sides)
            if correction is not None:
                found[id(change)] = correction
        return found

    return Finder(name, ids, find, per_change=True)
