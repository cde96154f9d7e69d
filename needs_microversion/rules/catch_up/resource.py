"""One resource, several operations: which attributes an operation's bodies list, looked
up below a resource's envelope. Read by the finders that compare what one operation (or an
older major version, or an inferred wrapper) lists with another (`documented_on_resource`,
`older_major`, `nesting_reread`).

OpenStack services return one representation of a resource from its show, detailed list,
create and update operations (`GET /v3/volumes/{id}`, `GET /v3/volumes/detail`, `POST
/v3/volumes`), enveloped (`volume`, `volumes/*`) or not (ironic's `nodes/*` and bare node).
An attribute the old document listed for the resource in one of them, and still lists
there, is part of that representation: adding it to another operation's table documents
what that operation already returned. The pointer below the envelope, the type and the
direction must match; actions (`POST .../action`) return something else and are left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from needs_microversion.model.change import Change, direction
from needs_microversion.model.schema import RawSchema, Schema, schema_at
from needs_microversion.model.snapshot import OpKey, Operation, Snapshot
from needs_microversion.model.versions import FLOOR, Version

_MISSING = object()


class Listing:
    """Whether an operation's bodies list an attribute in both documents, the old one with
    the same type."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.sides = (_Finder(old), _Finder(new))

    def lists(self, op: OpKey, side: str, place: _Place,
              types: frozenset[str] | None) -> bool:
        return _same_types(types, self.sides[0].types(op, side, place)) \
            and self.sides[1].types(op, side, place) is not _MISSING

    def listed_at(self, document: int, op: OpKey, side: str, path: str,
                  summary: object) -> bool:
        """Whether the old (`document` 0) or new (1) document lists, at `path` of an
        operation's bodies (`lookup/async`, `nodes/*/name`), an attribute of the types
        `summary` names."""
        return _same_types(types_of(summary),
                           self.sides[document].types(op, side, _Place(path, frozenset())))

    def lists_added(self, op: OpKey, change: Change) -> bool:
        """Whether `op` lists, where it stands, the body attribute `change` adds."""
        place = _Place(change.pointer.removeprefix("/"), frozenset())
        return bool(place.path) and self.lists(op, direction(change), place, types_of(change.new))


def collection(shape: str) -> str:
    """The resource collection a URL belongs to: `/v3/volumes/{}` and `/v3/volumes/detail`
    are both `/v3/volumes`."""
    parts = shape.rstrip("/").split("/")
    while len(parts) > 1 and ("{" in parts[-1] or parts[-1] == "detail"):
        parts.pop()
    return "/".join(parts) or "/"


class _Place(NamedTuple):
    path: str  # below the envelope: `group_id`
    envelopes: frozenset[str]  # the stems an envelope of the resource may have: `volume`


def places_of(pointer: str, where: str) -> list[_Place]:
    """Where an attribute may sit in the resource: `/volumes/*/group_id` (a list),
    `/volume/group_id` (an envelope) and `/group_id` (no envelope) are all `group_id`,
    below an envelope named like the change's own or like the collection (`volumes`)."""
    parts = pointer.split("/")[1:]
    named = {_stem(where.rsplit("/", 1)[-1])}
    if len(parts) >= 3 and parts[1] == "*":
        return [_Place("/".join(parts[2:]), frozenset(named | {_stem(parts[0])}))]
    if len(parts) >= 2:
        return [_Place("/".join(parts[1:]), frozenset(named | {_stem(parts[0])})),
                _Place("/".join(parts), frozenset(named))]
    return [_Place(parts[0], frozenset(named))]


@cache  # asked of every top-level property of every body a resource's operations return
def _stem(name: str) -> str:
    """`volumes`, `volume` and `os-volumes` alike: one resource named in an envelope or URL."""
    name = name.removeprefix("os-").replace("-", "_")
    return name[:-3] + "y" if name.endswith("ies") else name.removesuffix("s")


class _Finder:
    """The attributes one document gives an operation's bodies, looked up along a path
    below the envelope; memoised by schema node (a resource's operations share theirs)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.version = snapshot.max_version or FLOOR
        self._memo: dict[tuple[int, _Place], object] = {}
        self._tops: dict[tuple[OpKey, str], list[Schema]] = {}

    def types(self, op: OpKey, side: str, place: _Place) -> object:
        """The types of the attribute at `place` in a body of `op` (None: untyped), or
        _MISSING when no body lists it."""
        for top in self._bodies(op, side):
            key = (id(top.location.node), place)
            if key not in self._memo:
                self._memo[key] = self._in_body(top, place)
            if self._memo[key] is not _MISSING:
                return self._memo[key]
        return _MISSING

    def _bodies(self, op: OpKey, side: str) -> list[Schema]:
        """The distinct schemas of an operation's bodies (many media types and `$ref`s name
        one schema)."""
        tops = self._tops.get((op, side))
        if tops is None:
            raws = {_ref(raw) or id(raw): raw for raw in
                    _bodies(self.snapshot.operations[op], side, self.version)}
            found = (self._schema(raw) for raw in raws.values())
            unique = {id(top.location.node): top for top in found if top is not None}
            tops = self._tops[op, side] = list(unique.values())
        return tops

    def _in_body(self, top: Schema, place: _Place) -> object:
        """The attribute in the body itself, below an envelope named like the resource, or
        in the items of one (a list)."""
        path = place.path.split("/")
        found = self._at(top, path)
        for name, prop in top.properties.items():
            if found is not _MISSING:
                break
            envelope = self._schema(prop.schema) if _stem(name) in place.envelopes \
                and prop.versions.contains(self.version) else None
            if envelope is not None:
                found = self._at(envelope, path)
                items = self._schema(envelope.items)
                if found is _MISSING and items is not None:
                    found = self._at(items, path)
        return found

    def _at(self, schema: Schema, path: list[str]) -> object:
        for segment in path:
            if segment == "*":
                below = schema.items
            else:
                prop = schema.properties.get(segment)
                below = prop.schema if prop is not None and prop.versions.contains(
                    self.version) else None
            step = self._schema(below)
            if step is None:
                return _MISSING
            schema = step
        return schema.types

    def _schema(self, raw: RawSchema | None) -> Schema | None:
        return schema_at(self.snapshot.schemas, raw, self.version)


def _bodies(op: Operation, side: str, version: Version) -> Iterator[RawSchema]:
    if side == "request":
        yield from (raw for raw in op.request_content.values() if raw is not None)
        return
    for status, response in op.responses.items():
        if status.startswith("2") and response.versions.contains(version):
            yield from (raw for raw in response.content.values() if raw is not None)


def _ref(raw: RawSchema) -> str | None:
    """The target of a body that is only a `$ref` (kubernetes writes one per media type)."""
    node = raw.node
    ref = node.get("$ref") if isinstance(node, dict) and len(node) == 1 else None
    return ref if isinstance(ref, str) else None


def types_of(summary: object) -> frozenset[str] | None:
    """The types an attribute-added change's summary names (None: any)."""
    text = summary.get("type") if isinstance(summary, dict) else None
    if not isinstance(text, str) or text == "any":
        return None
    return frozenset(text.split("|"))


def _same_types(a: frozenset[str] | None, b: object) -> bool:
    """Listed (not _MISSING), and the types agree or one side does not say (an untyped row)."""
    if b is _MISSING:
        return False
    if a is None or b is None:
        return True
    return isinstance(b, frozenset) and (a - {"null"}) == (b - {"null"})
