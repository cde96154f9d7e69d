"""Line numbers for the places changes name, looked up only for what is reported."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from needs_microversion.documents.locate import lines_of
from needs_microversion.model.change import Change
from needs_microversion.model.records import evolve
from needs_microversion.model.snapshot import Location, Snapshot


def with_lines(changes: list[Change], snapshots: Iterable[Snapshot]) -> list[Change]:
    """Fill in line numbers (looked up in one batch per document: only for what is reported)."""
    docs = {doc.display: doc for s in snapshots for doc in (s.document, *s.schemas.documents)
            if doc.text}
    wanted: dict[str, set[tuple[str, ...]]] = {}
    for change in changes:
        for loc in (change.old_location, change.new_location):
            if loc is not None and loc.line is None and loc.file in docs:
                wanted.setdefault(loc.file, set()).add(loc.pointer)
    lines = {file: lines_of(docs[file], pointers) for file, pointers in wanted.items()}

    filled: dict[Location, Location] = {}  # changes of many operations share places

    def fill(loc: Location | None) -> Location | None:
        if loc is None or loc.line is not None or loc.file not in lines:
            return loc
        done = filled.get(loc)
        if done is None:
            done = filled[loc] = replace(loc, line=lines[loc.file].get(loc.pointer))
        return done

    out = []
    for change in changes:
        old, new = fill(change.old_location), fill(change.new_location)
        out.append(change if old is change.old_location and new is change.new_location
                   else evolve(change, old_location=old, new_location=new))
    return out
