"""Line numbers for the places changes name, looked up only for what is reported; and,
for an element removed, where in the new document it was removed from."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from needs_microversion.documents.locate import lines_of
from needs_microversion.model.change import Change
from needs_microversion.model.document import Document
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


def with_removal_places(changes: list[Change], old: Snapshot, new: Snapshot) -> list[Change]:
    """A removal is written only in the old document, whose line numbers name other
    elements in the new one: give it the place it was removed from, in the new document.
    That is its nearest enclosing element still there (the schema or operation that held
    an attribute), or, where the new document has no JSON pointers (an api-ref tree), the
    operation that held it; a removed operation has no such place."""
    if not any(c.new_location is None and c.old_location is not None for c in changes):
        return changes
    counterparts = _counterparts(old, new)
    wanted: dict[Location, tuple[Document, tuple[str, ...]] | None] = {}
    for change in changes:
        loc = change.old_location
        if change.new_location is None and loc is not None and loc not in wanted:
            doc = counterparts.get(loc.file)
            wanted[loc] = (doc, _surviving(doc.data, loc.pointer)) if doc is not None \
                and loc.pointer else None
    by_doc: dict[Document, set[tuple[str, ...]]] = {}
    for found in wanted.values():
        if found is not None:
            by_doc.setdefault(found[0], set()).add(found[1])
    lines = {doc: lines_of(doc, pointers) for doc, pointers in by_doc.items()}
    out = []
    for change in changes:
        loc = change.old_location
        if change.new_location is not None or loc is None:
            out.append(change)
            continue
        found = wanted[loc]
        if found is not None:
            doc, pointer = found
            place: Location | None = Location(doc.display, lines[doc].get(pointer), pointer)
        else:
            operation = new.operations.get(change.op_key)
            place = operation.location if operation is not None else None
        out.append(evolve(change, removed_from=place) if place is not None else change)
    return out


def _counterparts(old: Snapshot, new: Snapshot) -> dict[str, Document]:
    """Each old document's display name -> the new document at the same place in its tree
    (`HEAD~1:api/openapi.yaml` -> `api/openapi.yaml`, `old/common.yaml` -> `new/common.yaml`)."""
    def place(doc: Document) -> str:
        return os.path.relpath(doc.path, doc.root) if doc.root else str(doc.path)

    new_docs = {place(doc): doc for doc in (new.document, *new.schemas.documents) if doc.text}
    found = {old.document.display: new.document} if new.document.text else {}
    for doc in old.schemas.documents:
        match = new_docs.get(place(doc))
        if match is not None:
            found[doc.display] = match
    return found


def _surviving(data: Any, pointer: tuple[str, ...]) -> tuple[str, ...]:
    """The longest start of `pointer` that the new document still has."""
    node = data
    for depth, part in enumerate(pointer):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return pointer[:depth]
    return pointer
