"""nesting-reread: a body attribute that moves only because where a flat table puts it was
inferred.

api-ref tables are flat, and where a row sits was guessed (from an example, or from the row
order and a wrapper row). A sample added, or rows reordered, moves the guess, not the field:
- the same attribute (name, type, required) removed at one place and added at another,
  either place inferred; then, among the rest, the only removal and the only addition of a
  name: the same row, its definition corrected with the wrapper it sits in (nova's
  `length`: a string at the top, an integer inside `os-getConsoleOutput` once that is an
  object) (`NESTING`);
- a wrapper only an example implied (an inferred object, no row of its own) gone, and rows
  the old document placed inside it now at its level, with the same types (or the other way
  round): ironic's vendor passthru methods sat inside `lookup` while a sample showed them
  so, and moved up when the sample went (`WRAPPER`, after `NESTING`).
"""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.change import ADDED_OR_REMOVED, BODY_AREAS, Change, Correction, \
    direction
from needs_microversion.rules.catch_up.resource import Listing
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "nesting-reread"


def nesting(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    def leaf(change: Change) -> tuple[object, ...]:
        return (change.op_key, change.area, change.status, change.media,
                change.pointer.rsplit("/", 1)[-1])

    def value(change: Change) -> str:
        return repr(change.old if change.kind == "removed" else change.new)

    body = [c for c in changes if c.area in BODY_AREAS and c.gated is None
            and c.kind in ADDED_OR_REMOVED and c.pointer]
    added: dict[tuple[object, ...], list[Change]] = {}
    removed: dict[tuple[object, ...], list[Change]] = {}
    for change in body:
        (added if change.kind == "added" else removed).setdefault(leaf(change), []).append(
            change)
    found: dict[int, Correction] = {}
    for gone in (c for c in body if c.kind == "removed"):
        match = next((c for c in added.get(leaf(gone), []) if id(c) not in found
                      and (c.inferred or gone.inferred) and value(c) == value(gone)), None)
        if match is not None:
            found[id(gone)] = found[id(match)] = _reread(gone, match, "")
    for key, gone_list in removed.items():
        rest = [c for c in gone_list if id(c) not in found]
        came = [c for c in added.get(key, []) if id(c) not in found]
        if len(rest) == 1 and len(came) == 1 and (rest[0].inferred or came[0].inferred):
            found[id(rest[0])] = found[id(came[0])] = _reread(
                rest[0], came[0], f"; its definition is corrected too "
                f"({_differences(rest[0].old, came[0].new)})")
    return found


def wrapper(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    """`prior`: what `nesting` already explained."""
    body = [c for c in changes if c.area in BODY_AREAS and c.gated is None and c.pointer
            and c.kind in ADDED_OR_REMOVED and id(c) not in prior]
    wrappers = [c for c in body if c.inferred and _summary_type(c) == "object"]
    if not wrappers:
        return {}
    listing = Listing(sides.old, sides.new)
    moved: dict[int, Correction] = {}
    for gone in wrappers:
        parent = gone.pointer.rsplit("/", 1)[0]
        place = (gone.op_key, gone.area, gone.status, gone.media)
        # The rows left the wrapper (it was the old document's) or went into it (the new's).
        document = 0 if gone.kind == "removed" else 1
        held = False
        for row in body:
            row_parent, name = row.pointer.rsplit("/", 1)
            if row.kind == gone.kind or id(row) in moved or row_parent != parent \
                    or (row.op_key, row.area, row.status, row.media) != place \
                    or not listing.listed_at(document, row.op_key, direction(row),
                                             f"{gone.pointer[1:]}/{name}",
                                             row.old or row.new):
                continue
            inside = f"{gone.pointer}/{name}"
            before, now = (inside, row.pointer) if document == 0 else (row.pointer, inside)
            moved[id(row)] = Correction(
                ID, f"the table documents the same field; where it sits was inferred "
                f"({before} before, {now} now), so the document did not move it; check an "
                "example shows it there")
            held = True
        if held:
            moved[id(gone)] = Correction(
                ID, f"{gone.pointer} was only inferred (from an example), and the rows it "
                "held are now documented at its level; check an example shows them there")
    return moved


def _summary_type(change: Change) -> object:
    summary = change.old if change.kind == "removed" else change.new
    return summary.get("type") if isinstance(summary, dict) else None


def _differences(old: object, new: object) -> str:
    """"type 'string' -> 'integer'" for two summaries of an element."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return f"{old!r} -> {new!r}"
    return ", ".join(f"{key} {old.get(key)!r} -> {new.get(key)!r}"
                     for key in sorted({*old, *new}) if old.get(key) != new.get(key))


def _reread(gone: Change, came: Change, also: str) -> Correction:
    return Correction(ID, f"the table documents the same field; where it sits was inferred "
                      f"({gone.pointer} before, {came.pointer} now), so the document did not "
                      f"move it{also}; check an example shows it there")


NESTING = Finder("nesting_reread", (ID,), nesting)
WRAPPER = Finder("wrapper_reread", (ID,), wrapper, sees=("nesting_reread",))
