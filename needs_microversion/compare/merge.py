"""Changes seen several times become one: the same difference in every media type of a
body, the several ways one element changed, and prose announcing what a structured change
of the same operation already shows. Changes read beside each other: an element added
with no version note by a change that documents one microversion."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from needs_microversion.model.change import BODY_AREAS, JOINING, Change
from needs_microversion.model.records import evolve
from needs_microversion.model.versions import Version


def across_media_types(changes: Iterable[Change]) -> list[Change]:
    """One change for a difference every media type of a body shows (json, yaml, ...)."""
    groups: dict[tuple[Any, ...], list[Change]] = {}
    for change in changes:
        key = change.identity[:6] + change.identity[7:] if change.media else (
            id(change),)
        groups.setdefault(key, []).append(change)
    merged = []
    for group in groups.values():
        first = group[0]
        if len(group) > 1 and first.area in BODY_AREAS:
            # a change may already name several (`diff_content`): "a, b" and "c" make "a, b, c"
            first = replace(first, media=", ".join(sorted(
                {m for c in group for m in (c.media or "").split(", ")})))
            merged.append(first)
        else:
            merged.extend(group)
    return merged


def one_per_element(changes: Iterable[Change]) -> list[Change]:
    """Merge the ways one element changed (type, bounds, ...) into one change to judge."""
    groups: dict[tuple[Any, ...], list[Change]] = {}
    merged: list[Change] = []
    for change in changes:
        if change.kind != "changed":
            merged.append(change)
            continue
        key = (change.area, change.op_key, change.status, change.media, change.pointer,
               change.gated)
        if key not in groups:
            groups[key] = []
            merged.append(change)  # placeholder keeps the first position
        groups[key].append(change)
    result = []
    for change in merged:
        if change.kind == "changed":
            group = groups[(change.area, change.op_key, change.status, change.media,
                            change.pointer, change.gated)]
            if len(group) > 1:
                labels = [c.detail or c.aspect for c in group]
                change = replace(change, aspect="+".join(sorted({c.aspect for c in group})),
                                 detail=",".join(labels), merged=tuple(labels),
                                 old={label: c.old for label, c in zip(labels, group, strict=True)},
                                 new={label: c.new for label, c in zip(labels, group, strict=True)},
                                 inferred=any(c.inferred for c in group),
                                 # What the old example showed is kept only where every
                                 # way it changed noted it (a type change alone does).
                                 example_types=group[0].example_types if all(
                                     c.example_types for c in group) else None,
                                 example_listed=all(c.example_listed for c in group))
        result.append(change)
    return result


def without_told_announcements(changes: Iterable[Change]) -> list[Change]:
    """Drop a description announcing microversion V where the same operation has a
    structured change gated at V (ironic's `.. versionadded:: 1.2  Introduced the owner
    field.` beside the `owner` row): the prose tells what the change shows."""
    changes = list(changes)
    shown = {(c.op_key, c.gated) for c in changes
             if c.gated is not None and c.aspect != "announcement"}
    return [c for c in changes if c.aspect != "announcement" or (c.op_key, c.gated) not in shown]


def beside_one_microversion(changes: Iterable[Change]) -> list[Change]:
    """Elements added at every version (a body attribute, a parameter, a header, a status
    code, an operation) by a change whose every other addition starts at one microversion V (manila
    documenting 2.80's backups: four limits fields, two with `min_version: 2.80`, and a
    `source_backup_id` filter with none): the change documents V and missed a version note,
    so they are read as added at V (inferred). A forgotten microversion is still one: V is
    then above what the code serves. Additions at several microversions, or evidence that
    the document only catches up, leave them alone; so does a change with no addition at a
    microversion (only the repository can tell that the maximum goes up with it:
    `repository.judging.owned_by_raise`)."""
    changes = list(changes)
    versions = {c.gated for c in changes if c.gated is not None and c.kind == "added"
                and c.area in JOINING}
    if len(versions) != 1:
        return changes
    version = versions.pop()
    return [evolve(c, gated=version, seen_at=version, everywhere=False, inferred=True)
            if c.gated is None and c.kind == "added" and c.area in JOINING
            and c.correction is None else c for c in changes]




def gate(change: Change, version: Version) -> Change:
    return evolve(change, gated=version, seen_at=version)

