"""Which microversions to compare an operation at, and where the new document starts an
element: the contract at every version up to the old maximum must be unchanged, and what
differs only above it is gated there."""

from __future__ import annotations

from needs_microversion.model.schema import RawSchema, SchemaLookup
from needs_microversion.model.snapshot import Operation, Snapshot
from needs_microversion.model.versions import FLOOR, Version, VersionRange


class Samples:
    """The versions at which an operation appears, changes or disappears (each snapshot's
    schema table keeps what its schemas reach)."""

    def __init__(self, old: Snapshot, new: Snapshot, floor: Version) -> None:
        self.old, self.new, self.floor = old, new, floor

    def at(self, old_op: Operation | None, new_op: Operation | None
           ) -> tuple[list[Version], list[Version]]:
        """Versions to compare at: (up to the old max, from where the operation starts; above
        it). One if nothing is versioned."""
        if not (self.old.bounds or self.new.bounds):
            return [self.floor], []
        bounds = set(op_bounds(old_op, self.old.schemas))
        new_bounds = op_bounds(new_op, self.new.schemas)
        bounds |= new_bounds
        old_max = self.old.max_version
        if old_max is None:
            return [self.floor], sorted(b for b in new_bounds if b > self.floor)
        # From where the operation starts (a change there is at every version it has).
        first = min((op.versions.lo or self.floor for op in (old_op, new_op) if op is not None),
                    default=self.floor)
        start = first if self.floor < first <= old_max else self.floor
        below = sorted({start, *(b for b in bounds if start < b <= old_max)})
        above = sorted(b for b in bounds if b > old_max)
        return below, above



def since(versions: VersionRange | None, version: Version, floor: Version) -> Version | None:
    """Where the new document starts an element, or ends it when `version` lies past its
    last version; None when it always existed."""
    if versions is None:
        return None
    if versions.hi is not None and version > versions.hi:
        return versions.hi.next()
    return versions.lo if versions.lo is not None and versions.lo > floor else None


def first_version(old: Snapshot, new: Snapshot) -> Version:
    """The API's first version, X.0 of the major its documents use (nova 2.0, placement 1.0):
    below it there is nothing to compare, and an element starting there always existed."""
    known = [v for v in (old.max_version, new.max_version) if v is not None] or \
        sorted(old.bounds | new.bounds)
    return Version(min(v.major for v in known), 0) if known else FLOOR


def op_bounds(op: Operation | None, table: SchemaLookup) -> frozenset[Version]:
    """Where anything of the operation starts or stops: between two of these versions its
    contract is the same."""
    if op is None:
        return frozenset()
    found = set(op.versions.bounds())
    schemas: list[RawSchema | None] = [p.schema for p in op.parameters.values()]
    found.update(b for p in op.parameters.values() for b in p.versions.bounds())
    schemas.extend(op.request_content.values())
    for response in op.responses.values():
        found.update(response.versions.bounds())
        schemas.extend(response.content.values())
        schemas.extend(h.schema for h in response.headers.values())
        found.update(b for h in response.headers.values() for b in h.versions.bounds())
    for raw in schemas:
        if raw is not None:
            found |= table.bounds(raw)
    return frozenset(found)
