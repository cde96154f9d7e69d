"""Snapshot x Snapshot -> Changes, operation by operation and microversion by microversion.

The contract at every version up to the old document's maximum must be unchanged: each
difference seen there is an ungated change. A difference that appears only above the old
maximum is gated at the version where it first appears.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal, TypeVar

from needs_microversion.compare.announcements import Announcements
from needs_microversion.compare.merge import across_media_types, gate, one_per_element
from needs_microversion.compare.samples import Samples, first_version, since
from needs_microversion.compare.schema_diff import PairDiff, Rel
from needs_microversion.compare.schema_search import SchemaSearch
from needs_microversion.compare.taint import MISSING, RefTaint
from needs_microversion.loaders.apiref.prose import says_removed
from needs_microversion.model.change import Area, Change, Kind, Retired
from needs_microversion.model.extensions import (
    DISCRIMINATOR_KEY, LOCATION_KEY, OPENSTACK_KEY, QUERY_KEY, RANGE_UNDECLARED_KEY,
    UNDECLARED_KEY, openstack_range)
from needs_microversion.model.records import evolve
from needs_microversion.model.schema import RawSchema
from needs_microversion.model.snapshot import (
    Location, OpKey, Operation, Parameter, Response, Snapshot)
from needs_microversion.model.versions import (
    Version, VersionRange, mentioned_versions, parse_version)

PARAM_AREAS: dict[str, Area] = {"path": "path-parameter", "query": "query-parameter",
                                "header": "request-header", "cookie": "cookie-parameter"}
Direction = Literal["request", "response"]
_BODY_AREA: dict[Direction, Area] = {"request": "request-body", "response": "response-body"}
_MEDIA_AREA: dict[Direction, Area] = {"request": "request-media-type",
                                      "response": "response-media-type"}


class Comparer:
    def __init__(self, old: Snapshot, new: Snapshot, documents_decide: bool = True) -> None:
        """`documents_decide`: no version file says which microversions exist."""
        self.old, self.new = old, new
        self.taint = RefTaint(old, new)
        self.floor = first_version(old, new)
        self.samples = Samples(old, new, self.floor)
        self.announcements = Announcements(old, documents_decide)
        self.search = SchemaSearch(old.schemas, new.schemas, self.taint, PairDiff(
            old.schemas, new.schemas, self.announcements, self.floor))
        # Where elements carry their place in the sources (api-ref rows, the code's schemas),
        # equal elements may differ there.
        self._rows = any(s.source in ("api-ref", "code") or LOCATION_KEY in s.document.text
                         for s in (old, new))

    def changes(self) -> list[Change]:
        seen: dict[tuple[Any, ...], Change] = {}
        keys = sorted(set(self.old.operations) | set(self.new.operations), key=OpKey.order)
        for key in keys:
            if self.unchanged(key):
                continue
            old_op, new_op = self.pair(key)
            below, above = self.samples.at(old_op, new_op)
            # Seen where both documents first have the operation is seen at every version
            # it can be: the new document may start it later (nova's force_complete, first
            # marked 2.22), and before that only the operation itself differs.
            both = next((v for v in below if old_op.versions.contains(v)
                         and new_op.versions.contains(v)), below[0]) \
                if old_op is not None and new_op is not None else below[0]
            for version in below:
                for change in self.diff_operation(old_op, new_op, version, version):
                    if change.identity not in seen:
                        seen[change.identity] = evolve(
                            change, seen_at=version,
                            everywhere=change.everywhere or version in (below[0], both))
            for version in above:
                # Above the old max, compare with what the old document says there too: it
                # normally repeats its max, and a document ahead of itself is no change.
                for change in self.diff_operation(old_op, new_op, version, version):
                    if change.identity not in seen:
                        seen[change.identity] = gate(change, version)
        return one_per_element(across_media_types(self.announced_start(c) for c in seen.values()))

    def announced_start(self, change: Change) -> Change:
        """An operation added at every version whose documentation names a microversion
        above the old maximum ("Starting with API version 1.28 attaching VIFs ... is done
        via ..." above ironic's VIF operations; a caption "(2.100)") starts there: it is
        gated at the first such version, inferred."""
        old_max = self.old.max_version
        if change.area != "operation" or change.kind != "added" or change.gated is not None \
                or old_max is None:
            return change
        op = self.new.operations.get(change.op_key)
        named = sorted(v for v in mentioned_versions(op.description, old_max.major)
                       if v > old_max) if op is not None else []
        return replace(change, gated=named[0], seen_at=named[0], everywhere=False,
                       inferred=True) if named else change

    def unchanged(self, key: OpKey) -> bool:
        """Raw-equal operations whose `$ref` targets are equal too need no walk."""
        old_raw = self.old.operations.raw.get(key, MISSING)
        new_raw = self.new.operations.raw.get(key, MISSING)
        if old_raw is MISSING:
            return False
        # `==` runs at C speed (7 times faster): equal as schemas are compared (`same`); only
        # api-ref rows, whose places move, need the walk that looks past them.
        same = old_raw == new_raw or (self._rows and _same_contract(old_raw, new_raw))
        return same and self.taint.clean(old_raw)

    def pair(self, key: OpKey) -> tuple[Operation | None, Operation | None]:
        """The two operations to compare. Where their parameters are raw-equal and clean
        (and nothing is versioned), both are built without them: Stripe's 415 operations
        differ only through a schema their responses share."""
        if not (self.old.bounds or self.new.bounds) and self._same_parameters(key):
            old_op = self.old.operations.without_parameters(key)
            new_op = self.new.operations.without_parameters(key)
            # A renamed placeholder moves the path parameters to other keys.
            if old_op is not None and new_op is not None and old_op.path == new_op.path:
                return old_op, new_op
        return self.old.operations.get(key), self.new.operations.get(key)

    def _same_parameters(self, key: OpKey) -> bool:
        old_raw = self.old.operations.raw.get(key)
        new_raw = self.new.operations.raw.get(key)
        if old_raw is None or new_raw is None:
            return False
        # (the path item's parameters, the operation, what the document gives them all)
        (old_item, old_op, _), (new_item, new_op, _) = old_raw, new_raw
        # Swagger 2.0 makes the request body of `in: body` parameters and `consumes`.
        parts = [(old_item, new_item), (old_op.get("parameters"), new_op.get("parameters")),
                 (old_op.get("consumes"), new_op.get("consumes")),
                 (_top(self.old, "consumes"), _top(self.new, "consumes"))]
        return all(a == b and (a is None or self.taint.clean(a)) for a, b in parts)

    def diff_operation(self, old_op: Operation | None, new_op: Operation | None, va: Version,
                       vb: Version) -> list[Change]:
        a, b = _at(old_op, va), _at(new_op, vb)
        if a is None and b is None:
            return []
        shown = b or a
        assert shown is not None
        op = _OpContext(self, shown.display, shown.key)
        if a is None or b is None:
            kind: Kind = "added" if a is None else "removed"
            # The code now declares the range it checked in its body before (ironic): the
            # versions below it lose nothing they had.
            declared = kind == "removed" and new_op is not None and _range_undeclared(
                self.old.operations.raw.get(op.key))
            return [op.change("operation", kind, old_location=a and a.location,
                              new_location=b and b.location, old=a and a.display,
                              since=self.since(new_op.versions if new_op else None, vb),
                              new=b and b.display, declared=declared)]
        out: list[Change] = list(self.announced(op, "operation", "", a.description,
                                                b.description, a.location, b.location))
        out += self.code_query(op, self.diff_parameters(op, a.parameters, b.parameters, va, vb),
                               va, vb, (a.location, b.location))
        out += self.diff_content(op, "request", a.request_content, b.request_content, va, vb)
        if a.request_required != b.request_required and a.request_content and b.request_content:
            out.append(op.change("request-body", "changed", "required", old=a.request_required,
                                 new=b.request_required, old_location=a.location,
                                 new_location=b.location))
        out += self.diff_responses(op, a.responses, b.responses, va, vb, b.description)
        if a.security != b.security:
            out.append(op.change("security", "changed", old=sorted(a.security),
                                 new=sorted(b.security), old_location=a.location,
                                 new_location=b.location))
        return out

    def code_query(self, op: _OpContext, changes: list[Change], va: Version, vb: Version,
                   places: tuple[Location, Location]) -> list[Change]:
        """What the code's whole query schema says beyond its parameters (`QUERY_KEY`): a
        query schema declared where none was makes the parameters it names coverage, and
        "no other query parameter" (`additionalProperties: false`) turned on or off is a
        change of what is accepted."""
        before = _query_at(self.old.operations.raw.get(op.key), va)
        after = _query_at(self.new.operations.raw.get(op.key), vb)
        if before is _UNDECLARED and isinstance(after, dict):
            changes = [evolve(c, declared=True) if c.area == "query-parameter"
                       and c.kind == "added" else c for c in changes]
        if isinstance(before, dict) and isinstance(after, dict):
            others = (_others(before), _others(after))
            if others[0] != others[1]:
                changes.append(op.change("query-parameter", "changed", "free-form",
                                         detail="additionalProperties", old=others[0],
                                         new=others[1], old_location=places[0],
                                         new_location=places[1]))
        return changes

    def since(self, versions: VersionRange | None, version: Version) -> Version | None:
        return since(versions, version, self.floor)

    def diff_parameters(self, op: _OpContext, old: Mapping[tuple[str, str], Parameter],
                        new: Mapping[tuple[str, str], Parameter], va: Version, vb: Version,
                        status: str | None = None, area: Area | None = None) -> list[Change]:
        out: list[Change] = []
        for key in sorted(set(old) | set(new)):
            since = self.since(new[key].versions if key in new else None, vb)
            a, b = _at(old.get(key), va), _at(new.get(key), vb)
            if a is None and b is None:
                continue
            shown = b or a
            assert shown is not None
            where: Area = area or PARAM_AREAS.get(shown.where, "query-parameter")
            if a is None or b is None:
                out.append(op.change(where, "added" if a is None else "removed",
                                     pointer=shown.name, status=status,
                                     old=a and _param_summary(a), new=b and _param_summary(b),
                                     old_location=a and a.location,
                                     new_location=b and b.location,
                                     inferred=shown.inferred, since=since,
                                     everywhere=key not in new))
                continue
            out += self.announced(op, where, b.name, a.description, b.description, a.location,
                                  b.location, status)
            if a.required != b.required:
                out.append(op.change(where, "changed", "required", pointer=b.name,
                                     status=status, old=a.required, new=b.required,
                                     old_location=a.location, new_location=b.location))
            if a.serialization != b.serialization:
                out.append(op.change(where, "changed", "serialization", pointer=b.name,
                                     status=status, old=dict(a.serialization),
                                     new=dict(b.serialization), old_location=a.location,
                                     new_location=b.location))
            for rel in self.search.diff(a.schema, b.schema, va, vb, "request"):
                out.append(op.from_rel(where, rel, b.name, status=status,
                                       inferred=a.inferred or b.inferred,
                                       owners=(a.location, b.location)))
        return out

    def announced(self, op: _OpContext, area: Area, pointer: str, old_text: str, new_text: str,
                  old_at: Location | None, new_at: Location | None, status: str | None = None
                  ) -> list[Change]:
        """Prose that starts announcing a microversion not yet there (inferred)."""
        versions = self.announcements.news(old_text, new_text)
        return [op.change(area, "changed", "announcement", pointer=pointer, status=status,
                          detail=str(versions[0]), old=None, new=str(versions[0]),
                          old_location=old_at, new_location=new_at, gated=versions[0],
                          inferred=True)] if versions else []

    def diff_content(self, op: _OpContext, direction: Direction,
                     old: Mapping[str, RawSchema | None],
                     new: Mapping[str, RawSchema | None], va: Version, vb: Version,
                     status: str | None = None, location: tuple[Location, Location] | None = None
                     ) -> list[Change]:
        out: list[Change] = []
        body_area = _BODY_AREA[direction]
        # Media types whose schemas differ alike (the search answers a schema pair once, so
        # the same answer is the same tuple): one change each, naming them all, instead of
        # one per media type merged later (kubernetes: json, yaml and protobuf everywhere).
        alike: dict[int, tuple[tuple[Rel, ...], list[str]]] = {}
        for media in sorted(set(old) | set(new)):
            if media not in old or media not in new:
                shown = new.get(media) if media in new else old.get(media)
                out.append(op.change(_MEDIA_AREA[direction],
                                     "added" if media not in old else "removed",
                                     status=status, media=media,
                                     old=media if media in old else None,
                                     new=media if media in new else None,
                                     old_location=op.place(old.get(media), self.old) if media in
                                     old else None,
                                     new_location=op.place(shown, self.new) if media in new
                                     else None))
                continue
            rels = self.search.diff(old[media], new[media], va, vb, direction)
            if rels:
                alike.setdefault(id(rels), (rels, []))[1].append(media)
        for rels, media_types in alike.values():
            joined = ", ".join(media_types)
            out += (op.from_rel(body_area, rel, "", status=status, media=joined) for rel in rels)
        return out

    def diff_responses(self, op: _OpContext, old: Mapping[str, Response],
                       new: Mapping[str, Response], va: Version, vb: Version,
                       documentation: str = "") -> list[Change]:
        out: list[Change] = []
        for status in sorted(set(old) | set(new)):
            since = self.since(new[status].versions if status in new else None, vb)
            a, b = _at(old.get(status), va), _at(new.get(status), vb)
            if a is None and b is None:
                continue
            if a is None or b is None:
                retired: Retired = _retired(new, vb, f"{documentation}\n{b.description}") \
                    if status == "410" and b is not None else ""
                out.append(op.change("status-code", "added" if a is None else "removed",
                                     status=status, old=a and status, new=b and status,
                                     old_location=a and a.location,
                                     new_location=b and b.location, since=since,
                                     retired=retired, everywhere=status not in new))
                continue
            out += self.diff_parameters(op, {("header", k): v for k, v in a.headers.items()},
                                        {("header", k): v for k, v in b.headers.items()}, va, vb,
                                        status=status, area="response-header")
            out += self.diff_content(op, "response", a.content, b.content, va, vb, status)
        return out



def _top(snapshot: Snapshot, key: str) -> Any:
    """A member of the document's top level (None when absent)."""
    data = snapshot.document.data
    return data.get(key) if isinstance(data, dict) else None


def _same_contract(a: Any, b: Any) -> bool:
    """Equal, except where an api-ref row is written: a line added to parameters.yaml moves
    the rows of every operation below it, which changes nothing they say."""
    if a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        keys = a.keys() - {LOCATION_KEY}
        # Members equal at C speed (as `unchanged` compares whole operations) are not
        # walked: only those where a row's place moved are (a code change moves them all).
        return keys == b.keys() - {LOCATION_KEY} and all(
            a[k] == b[k] or _same_contract(a[k], b[k]) for k in keys)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(
            x == y or _same_contract(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def _retired(responses: Mapping[str, Response], version: Version, documentation: str
             ) -> Retired:
    """Why a 410 Gone newly documented retires the operation ("" when it does not): no
    success code is left at that version, or its documentation says it was removed (nova
    keeps the codes of an API it moved to "Obsolete APIs" and writes "They were removed in
    the 18.0.0 Rocky release")."""
    if not any(code.startswith("2") and _at(r, version) is not None
               for code, r in responses.items()):
        return "no-success-code"
    if says_removed(documentation):
        return "documented-removed"
    return ""


_UNDECLARED = object()  # the code declares no query schema there: any parameter goes


def _range_undeclared(raw: Any) -> bool:
    """Whether the code checks the operation's microversions where the reader cannot see
    (`RANGE_UNDECLARED_KEY`)."""
    return isinstance(raw, tuple) and len(raw) > 1 and isinstance(raw[1], dict) \
        and raw[1].get(RANGE_UNDECLARED_KEY) is True


def _query_at(raw: Any, version: Version) -> Any:
    """The query schema the code declares for an operation at a version: a dict,
    `_UNDECLARED`, or None (no code document, no query part)."""
    node = raw[1].get(QUERY_KEY) if isinstance(raw, tuple) and len(raw) > 1 \
        and isinstance(raw[1], dict) else None
    for _ in range(8):  # containers, bounded
        if not isinstance(node, dict):
            return None
        if node.get(UNDECLARED_KEY) is True:
            return _UNDECLARED
        variants = node.get("oneOf")
        ext = node.get(OPENSTACK_KEY)
        if not (isinstance(variants, list) and isinstance(ext, dict)
                and ext.get(DISCRIMINATOR_KEY) == "microversion"):
            return node
        node = next((v for v in variants if isinstance(v, dict)
                     and openstack_range(v).contains(version)), None)
    return None


def _others(query: dict[str, Any]) -> bool:
    """Whether a query schema accepts parameters it does not name (JSON Schema's default)."""
    return query.get("additionalProperties", True) is not False


class _OpContext:
    """Builds Changes for one operation, turning raw places into Locations."""

    def __init__(self, comparer: Comparer, display: str, key: OpKey) -> None:
        self.comparer, self.display, self.key = comparer, display, key

    def place(self, raw: RawSchema | None, snapshot: Snapshot,
              owner: Location | None = None) -> Location | None:
        """Where a schema is written; in a document without text to look lines up in (an
        api-ref tree), the place of what owns the schema (a parameter's row)."""
        if raw is None:
            return None
        node = raw.node
        if isinstance(node, dict) and isinstance(node.get(LOCATION_KEY), str):
            return Location.parse(node[LOCATION_KEY], raw.doc)
        if owner is not None and not raw.doc.text:
            return owner
        return Location(raw.doc.display, None, raw.pointer)

    def change(self, area: Area, kind: Kind, aspect: str = "", **fields: Any) -> Change:
        return Change(area=area, kind=kind, aspect=aspect, operation=self.display,
                      op_key=self.key, **fields)

    def from_rel(self, area: Area, rel: Rel, prefix: str, status: str | None = None,
                 media: str | None = None, inferred: bool = False,
                 owners: tuple[Location | None, Location | None] = (None, None)) -> Change:
        return self.change(area, rel.kind, rel.aspect, pointer=prefix + rel.pointer,
                           status=status, media=media, detail=rel.detail, old=rel.old,
                           new=rel.new,
                           old_location=self.place(rel.old_at, self.comparer.old, owners[0]),
                           new_location=self.place(rel.new_at, self.comparer.new, owners[1]),
                           inferred=inferred or rel.inferred, free_form=rel.free_form,
                           since=rel.since, delta=rel.delta, example_types=rel.example_types,
                           example_listed=rel.example_listed, declared=rel.declared,
                           everywhere=rel.whole,
                           # prose announcing a microversion is gated on it, wherever seen
                           gated=parse_version(rel.new) if rel.aspect == "announcement"
                           else None)



_Versioned = TypeVar("_Versioned", Operation, Parameter, Response)


def _at(item: _Versioned | None, version: Version) -> _Versioned | None:
    """The item if it exists at that microversion."""
    return item if item is not None and item.versions.contains(version) else None



def _param_summary(param: Parameter) -> dict[str, Any]:
    return {"in": param.where, "required": param.required}

