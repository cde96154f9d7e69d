"""The finders of rules catch-up and correction, in the order they are asked: what shows
that a change corrects the document, not the API, attached to the change for those rules.

    changes = attach(changes, old, new, catch_up=True)   # each change.correction set or not

Each change takes the correction of the first finder, in `ORDER`, that explains it. Two
finders read facts the comparison noted while it compared (what the old example showed), and
are asked first whatever `catch_up` says; with rule catch-up off (OpenAPI documents,
generated from the code) only rule correction's finders run after them (the others'
corrections would only keep changes from rules that judge them). A change gated on a new
microversion is that microversion's content, never a correction: it takes none.
"""

from __future__ import annotations

from collections.abc import Iterable

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.records import evolve
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.rules.catch_up import (
    FINDERS as CATCH_UP, documented_on_resource, envelope_of_list, first_documented_code,
    listed_undefined, matches_example, method_corrected, nesting_reread, older_major,
    shown_in_example, unverified_section, url_still_documented)
from needs_microversion.rules.correction import (
    FINDERS as CORRECTION, moved_location, outside_the_url, rewritten_in_place,
    success_code_swapped)
from needs_microversion.rules.finder import Finder, Found, Sides

# Read from the comparison's own notes: asked first, of every change.
FIRST: tuple[Finder, ...] = (matches_example.FINDER, shown_in_example.LISTED)
# Then, the first to explain a change wins.
ORDER: tuple[Finder, ...] = (
    nesting_reread.NESTING, nesting_reread.WRAPPER, method_corrected.FINDER,
    url_still_documented.FINDER, envelope_of_list.FINDER, shown_in_example.BODY,
    first_documented_code.FINDER, older_major.FINDER, success_code_swapped.FINDER,
    moved_location.FINDER, rewritten_in_place.FINDER, outside_the_url.FINDER,
    unverified_section.FINDER, documented_on_resource.FINDER, listed_undefined.FINDER)
# With rule catch-up off: rule correction's finders only.
_CORRECTION_ONLY = tuple(finder for finder in ORDER if finder in CORRECTION)

assert {*FIRST, *ORDER} == {*CATCH_UP, *CORRECTION}, "every finder has its place in the order"


def attach(changes: Iterable[Change], old: Snapshot, new: Snapshot, catch_up: bool = True
           ) -> list[Change]:
    """The changes, each with the correction the first finder found for it (if any)."""
    sides = Sides(old, new)
    changes = _first(list(changes), sides)
    found = _found(changes, sides, ORDER if catch_up else _CORRECTION_ONLY)
    if not found:
        return changes
    return [evolve(change, correction=found[id(change)]) if id(change) in found else change
            for change in changes]


def _first(changes: list[Change], sides: Sides) -> list[Change]:
    """The corrections read from the comparison's notes, attached before the others look:
    a finder may leave alone a change they already explain."""
    notes: dict[int, Correction] = {}
    for finder in FIRST:
        for key, correction in finder.find(_open(changes, notes), sides, {}).items():
            notes.setdefault(key, correction)
    return [evolve(change, correction=notes[id(change)]) if id(change) in notes else change
            for change in changes]


def _found(changes: list[Change], sides: Sides, order: tuple[Finder, ...]) -> dict[int, Correction]:
    """id(change) -> the first correction, in `order`, for the changes still open."""
    results: dict[str, Found] = {}
    first: dict[int, Correction] = {}
    for finder in order:
        prior: dict[int, Correction] = {}
        for name in finder.sees:
            prior.update(results.get(name, {}))
        asked = _open(changes, first) if finder.per_change else changes
        results[finder.name] = finder.find(asked, sides, prior)
        for key, correction in results[finder.name].items():
            first.setdefault(key, correction)
    open_ids = {id(change) for change in _open(changes, {})}
    return {key: correction for key, correction in first.items() if key in open_ids}


def _open(changes: list[Change], explained: Found) -> list[Change]:
    """The changes a correction may still be attached to: ungated, not explained yet."""
    return [change for change in changes if change.gated is None
            and change.correction is None and id(change) not in explained]
