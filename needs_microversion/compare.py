"""Snapshot x Snapshot -> Changes, microversion by microversion.

The contract at every version up to the old document's maximum must be unchanged: each
difference seen there is an ungated change. A difference that appears only above the old
maximum is gated at the version where it first appears.
"""

from __future__ import annotations

import heapq
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

from needs_microversion.schema import EXAMPLE_KEY, LOCATION_KEY, Prop, Schema, SchemaTable
from needs_microversion.snapshot import (
    Location, OpKey, Operation, Parameter, RawSchema, Response, Snapshot)
from needs_microversion.versions import FLOOR, Version, VersionRange, parse_version

PARAM_AREAS = {"path": "path-parameter", "query": "query-parameter", "header": "request-header",
               "cookie": "cookie-parameter"}


@dataclass(frozen=True)
class Evidence:
    """What in the documents shows that a change corrects the document, not the API: the
    catch-up finding it calls for and the sentence a reviewer reads."""

    finding: str  # a finding id of rule catch-up
    text: str


@dataclass(frozen=True)
class Change:
    """One difference in the user contract, before any rule judged it."""

    area: str  # operation, *-parameter, request-header, request-body, status-code, ...
    kind: str  # added | removed | changed
    aspect: str  # "" | type | nullable | required | enum | constraint | composition | ...
    operation: str  # "GET /servers/{server_id}" as the new document writes it
    op_key: OpKey
    pointer: str = ""  # JSON pointer in the body, or the parameter/header name
    status: str | None = None
    media: str | None = None
    detail: str = ""  # e.g. the constraint keyword
    old: Any = None
    new: Any = None
    old_location: Location | None = None
    new_location: Location | None = None
    gated: Version | None = None
    inferred: bool = False
    free_form: bool = False  # a key added to / removed from a free-form object
    # Where the new document says the difference starts: an element's first version, or the
    # version after its last for one it ends (a released one means it documents late).
    since: Version | None = None
    delta: str = ""  # where inside a structured value (discriminator, default...) it differs
    evidence: Evidence | None = None  # what shows the document is only corrected

    @cached_property
    def identity(self) -> tuple[Any, ...]:
        """What makes two changes the same, wherever and at whichever version they were seen."""
        return (self.area, self.kind, self.aspect, self.op_key, self.pointer, self.status,
                self.media, self.detail, _canon(self.old), _canon(self.new))


class _Rel(NamedTuple):
    """A difference inside a schema, relative to where the schema is used (a NamedTuple:
    cheap to copy, and there are many)."""

    pointer: str
    kind: str
    aspect: str
    detail: str = ""
    old: Any = None
    new: Any = None
    old_at: RawSchema | None = None
    new_at: RawSchema | None = None
    inferred: bool = False
    free_form: bool = False
    since: Version | None = None
    delta: str = ""
    evidence: Evidence | None = None


def compare(old: Snapshot, new: Snapshot) -> list[Change]:
    # corrections reads Changes across operations, so it imports this module.
    from needs_microversion.corrections import with_evidence

    return with_evidence(Comparer(old, new).changes(), old, new)


class Comparer:
    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self.old_table = old.schemas
        self.new_table = new.schemas
        self.taint = _RefTaint(old, new)
        self._memo: dict[tuple[Any, ...], tuple[_Rel, ...]] = {}
        # (raw pair, versions, direction) -> the schema pair, its own differences and the
        # pairs below it that may differ
        self._steps: dict[tuple[Any, ...], _Step] = {}
        self._alive: dict[tuple[Any, ...], bool] = {}  # raw pair -> a difference is below
        self._bounds_old: dict[int, frozenset[Version]] = {}
        self._bounds_new: dict[int, frozenset[Version]] = {}
        self.floor = _first_version(old, new)

    # -- versions ------------------------------------------------------------------------
    def samples(self, old_op: Operation | None, new_op: Operation | None
                ) -> tuple[list[Version], list[Version]]:
        """Versions to compare at: (up to the old max, above it). One if nothing is versioned."""
        if not (self.old.bounds or self.new.bounds):
            return [self.floor], []
        bounds = set(self.op_bounds(old_op, self.old_table, self._bounds_old))
        new_bounds = self.op_bounds(new_op, self.new_table, self._bounds_new)
        bounds |= new_bounds
        old_max = self.old.max_version
        if old_max is None:
            return [self.floor], sorted(b for b in new_bounds if b > self.floor)
        below = sorted({self.floor, *(b for b in bounds if self.floor < b <= old_max)})
        above = sorted(b for b in bounds if b > old_max)
        return below, above

    def op_bounds(self, op: Operation | None, table: SchemaTable,
                  memo: dict[int, frozenset[Version]]) -> frozenset[Version]:
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
                found |= _schema_bounds(raw, table, memo, set())
        return frozenset(found)

    # -- operations ----------------------------------------------------------------------
    def changes(self) -> list[Change]:
        seen: dict[tuple[Any, ...], Change] = {}
        keys = sorted(set(self.old.operations) | set(self.new.operations))
        for key in keys:
            if self.unchanged(key):
                continue
            old_op, new_op = self.old.operations.get(key), self.new.operations.get(key)
            below, above = self.samples(old_op, new_op)
            for version in below:
                for change in self.diff_operation(old_op, new_op, version, version):
                    seen.setdefault(change.identity, change)
            for version in above:
                # Above the old max, compare with what the old document says there too: it
                # normally repeats its max, and a document ahead of itself is no change.
                for change in self.diff_operation(old_op, new_op, version, version):
                    if change.identity not in seen:
                        seen[change.identity] = _gate(change, version)
        return _one_per_element(_across_media_types(seen.values()))

    def unchanged(self, key: OpKey) -> bool:
        """Raw-equal operations whose `$ref` targets are equal too need no walk."""
        old_raw = self.old.operations.raw.get(key, _MISSING)
        new_raw = self.new.operations.raw.get(key, _MISSING)
        return old_raw is not _MISSING and old_raw == new_raw and self.taint.clean(old_raw)

    def diff_operation(self, old_op: Operation | None, new_op: Operation | None, va: Version,
                       vb: Version) -> list[Change]:
        a, b = _at(old_op, va), _at(new_op, vb)
        if a is None and b is None:
            return []
        shown = b or a
        assert shown is not None
        op = _OpContext(self, shown.display, shown.key)
        if a is None or b is None:
            kind = "added" if a is None else "removed"
            return [op.change("operation", kind, old_location=a and a.location,
                              new_location=b and b.location, old=a and a.display,
                              since=self.since(new_op.versions if new_op else None, vb),
                              new=b and b.display)]
        out: list[Change] = list(self.announced(op, "operation", "", a.description,
                                                b.description, a.location, b.location))
        out += self.diff_parameters(op, a.parameters, b.parameters, va, vb)
        out += self.diff_content(op, "request", a.request_content, b.request_content, va, vb)
        if a.request_required != b.request_required and a.request_content and b.request_content:
            out.append(op.change("request-body", "changed", "required", old=a.request_required,
                                 new=b.request_required, old_location=a.location,
                                 new_location=b.location))
        out += self.diff_responses(op, a.responses, b.responses, va, vb)
        if a.security != b.security:
            out.append(op.change("security", "changed", old=sorted(a.security),
                                 new=sorted(b.security), old_location=a.location,
                                 new_location=b.location))
        return out

    def since(self, versions: VersionRange | None, version: Version) -> Version | None:
        """Where the new document starts an element, or ends it when `version` lies past its
        last version; None when it always existed."""
        if versions is None:
            return None
        if versions.hi is not None and version > versions.hi:
            return versions.hi.next()
        return versions.lo if versions.lo is not None and versions.lo > self.floor else None

    def diff_parameters(self, op: _OpContext, old: Mapping[tuple[str, str], Parameter],
                        new: Mapping[tuple[str, str], Parameter], va: Version, vb: Version,
                        status: str | None = None, area: str | None = None) -> list[Change]:
        out: list[Change] = []
        for key in sorted(set(old) | set(new)):
            since = self.since(new[key].versions if key in new else None, vb)
            a, b = _at(old.get(key), va), _at(new.get(key), vb)
            if a is None and b is None:
                continue
            shown = b or a
            assert shown is not None
            where = area or PARAM_AREAS.get(shown.where, "query-parameter")
            if a is None or b is None:
                out.append(op.change(where, "added" if a is None else "removed",
                                     pointer=shown.name, status=status,
                                     old=a and _param_summary(a), new=b and _param_summary(b),
                                     old_location=a and a.location,
                                     new_location=b and b.location,
                                     inferred=shown.inferred, since=since))
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
            for rel in self.diff_schema(a.schema, b.schema, va, vb, "request"):
                out.append(op.from_rel(where, rel, b.name, status=status,
                                       inferred=a.inferred or b.inferred,
                                       owners=(a.location, b.location)))
        return out

    def announced(self, op: _OpContext, area: str, pointer: str, old_text: str, new_text: str,
                  old_at: Location | None, new_at: Location | None, status: str | None = None
                  ) -> list[Change]:
        """Prose that starts announcing a microversion above the old maximum (inferred)."""
        old_max = self.old.max_version
        if old_max is None or old_text == new_text:
            return []
        versions = sorted(v for v in mentioned_versions(new_text) - mentioned_versions(old_text)
                          if v > old_max)
        return [op.change(area, "changed", "announcement", pointer=pointer, status=status,
                          detail=str(versions[0]), old=None, new=str(versions[0]),
                          old_location=old_at, new_location=new_at, gated=versions[0],
                          inferred=True)] if versions else []

    def diff_content(self, op: _OpContext, direction: str, old: Mapping[str, RawSchema | None],
                     new: Mapping[str, RawSchema | None], va: Version, vb: Version,
                     status: str | None = None, location: tuple[Location, Location] | None = None
                     ) -> list[Change]:
        out: list[Change] = []
        body_area = f"{direction}-body"
        for media in sorted(set(old) | set(new)):
            if media not in old or media not in new:
                shown = new.get(media) if media in new else old.get(media)
                out.append(op.change(f"{direction}-media-type",
                                     "added" if media not in old else "removed",
                                     status=status, media=media,
                                     old=media if media in old else None,
                                     new=media if media in new else None,
                                     old_location=op.place(old.get(media), self.old) if media in
                                     old else None,
                                     new_location=op.place(shown, self.new) if media in new
                                     else None))
                continue
            for rel in self.diff_schema(old[media], new[media], va, vb, direction):
                out.append(op.from_rel(body_area, rel, "", status=status, media=media))
        return out

    def diff_responses(self, op: _OpContext, old: Mapping[str, Response],
                       new: Mapping[str, Response], va: Version, vb: Version) -> list[Change]:
        out: list[Change] = []
        for status in sorted(set(old) | set(new)):
            since = self.since(new[status].versions if status in new else None, vb)
            a, b = _at(old.get(status), va), _at(new.get(status), vb)
            if a is None and b is None:
                continue
            if a is None or b is None:
                out.append(op.change("status-code", "added" if a is None else "removed",
                                     status=status, old=a and status, new=b and status,
                                     old_location=a and a.location,
                                     new_location=b and b.location, since=since))
                continue
            out += self.diff_parameters(op, {("header", k): v for k, v in a.headers.items()},
                                        {("header", k): v for k, v in b.headers.items()}, va, vb,
                                        status=status, area="response-header")
            out += self.diff_content(op, "response", a.content, b.content, va, vb, status)
        return out

    # -- schemas -------------------------------------------------------------------------
    def diff_schema(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
                    direction: str) -> tuple[_Rel, ...]:
        """Every difference below two schemas, each once, at its shortest pointer.

        A search over the pairs of schemas the two reach, shortest pointer first, each pair
        visited once: recursive schemas are never expanded, and a densely linked graph
        (Stripe's expandable fields reach one schema along exponentially many paths) costs
        one visit per pair. Pairs from which no difference can be reached are not entered
        (`_live`). The answer depends on nothing but the pair, so it is memoised and shared
        by every operation that uses it.
        """
        key = _raw_key(a, b, va, vb, direction)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if self._same(a, b) or not self._live(a, b, va, vb, direction):
            self._memo[key] = ()
            return ()
        # Many `$ref`s name one schema: the schemas they resolve to decide the answer.
        pair = (self._steps[key].pair, va, vb, direction)
        cached = self._memo.get(pair)
        if cached is not None:
            self._memo[key] = cached
            return cached
        found: list[_Rel] = []
        seen: set[tuple[int | None, int | None]] = set()
        order = itertools.count()  # ties keep the order children were found in
        heap: list[tuple[int, str, int, tuple[Any, ...]]] = [(0, "", next(order), key)]
        alive, steps, push, pop = self._alive, self._steps, heapq.heappush, heapq.heappop
        while heap:  # the hot loop of a large diff: locals, no calls it can avoid
            _, pointer, _, here = pop(heap)
            step = steps[here]  # computed by _live for every pair it reached
            if step.pair is None or step.pair in seen:
                continue  # the same schemas under another `$ref`: already walked
            seen.add(step.pair)
            found.extend(_prefix(rel, pointer) for rel in step.own)
            for segment, ca, cb in step.children:
                below = (id(ca.node) if ca else None, id(cb.node) if cb else None, va, vb,
                         direction)
                if alive[below]:
                    push(heap, (len(pointer) + len(segment), pointer + segment,
                                next(order), below))
        result = tuple(found)
        self._memo[key] = self._memo[pair] = result
        return result

    def _step(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
              direction: str) -> _Step:
        """One pair's own differences and the pairs below it that may differ."""
        key = _raw_key(a, b, va, vb, direction)
        step = self._steps.get(key)
        if step is None:
            step = self._steps[key] = self._compute_step(a, b, va, vb, direction)
        return step

    def _live(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
              direction: str) -> bool:
        """Whether any difference can be reached from a pair: its own, or a live pair's
        below it. Pairs that reach each other (a recursive schema) are live together, so
        this is Tarjan's strongly connected components over the pairs, iterative (schemas
        nest deeply), each pair decided once for the whole comparison."""
        root = _raw_key(a, b, va, vb, direction)
        if root in self._alive:
            return self._alive[root]
        index: dict[tuple[Any, ...], int] = {}
        low: dict[tuple[Any, ...], int] = {}
        flag: dict[tuple[Any, ...], bool] = {}
        stack: list[tuple[Any, ...]] = []

        def enter(key: tuple[Any, ...], pa: RawSchema | None, pb: RawSchema | None
                  ) -> tuple[tuple[Any, ...], Iterator[_Child]]:
            index[key] = low[key] = len(index)
            stack.append(key)
            step = self._step(pa, pb, va, vb, direction)
            flag[key] = bool(step.own)
            return key, iter(step.children)

        frames = [enter(root, a, b)]
        while frames:
            key, children = frames[-1]
            child = next(children, None)
            if child is not None:
                below = _raw_key(child.old, child.new, va, vb, direction)
                if below in self._alive:  # decided: a finished component
                    flag[key] = flag[key] or self._alive[below]
                elif below not in index:
                    frames.append(enter(below, child.old, child.new))
                else:  # on the stack: the same component
                    low[key] = min(low[key], index[below])
                continue
            frames.pop()
            if low[key] == index[key]:  # the root of a component: decide all of it
                members = stack[stack.index(key):]
                del stack[len(stack) - len(members):]
                alive = any(flag[m] for m in members)
                self._alive.update(dict.fromkeys(members, alive))
            if frames:
                parent = frames[-1][0]
                low[parent] = min(low[parent], low[key])
                flag[parent] = flag[parent] or self._alive.get(key, False)
        return self._alive[root]

    def _compute_step(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
                      direction: str) -> _Step:
        sa = schema_at(self.old_table, a, va)
        sb = schema_at(self.new_table, b, vb)
        if sa is None and sb is None:
            return _Step(None, (), ())
        pair = (id(sa) if sa else None, id(sb) if sb else None)
        if sa is None or sb is None:
            shown = sb or sa
            assert shown is not None
            return _Step(pair, (_Rel("", "added" if sa is None else "removed", "",
                                     old=sa and _summary(sa), new=sb and _summary(sb),
                                     old_at=sa.location if sa else None,
                                     new_at=sb.location if sb else None,
                                     inferred=shown.inferred),), ())
        own: list[_Rel] = []
        children: list[_Child] = []
        for item in self._diff_own(sa, sb, va, vb, direction):
            if not isinstance(item, _Child):
                own.append(item)
            elif not self._same(item.old, item.new):
                children.append(item)
        return _Step(pair, tuple(own), tuple(children))

    def _same(self, a: RawSchema | None, b: RawSchema | None) -> bool:
        """Raw-equal schemas whose `$ref`s reach equal targets cannot differ anywhere below."""
        return a is not None and b is not None and a.node == b.node and self.taint.clean(a.node)

    def _diff_own(self, sa: Schema, sb: Schema, va: Version, vb: Version, direction: str
                  ) -> Iterable[_Rel | _Child]:
        at: dict[str, Any] = {"old_at": sa.location, "new_at": sb.location,
                              "inferred": sa.inferred or sb.inferred}
        if self.old.max_version is not None:
            announced = sorted(v for v in mentioned_versions(_description(sb))
                               - mentioned_versions(_description(sa))
                               if v > self.old.max_version)
            if announced:
                yield _Rel("", "changed", "announcement", str(announced[0]), None,
                           str(announced[0]), sa.location, sb.location, True)
        if sa.types != sb.types:
            plain_a = (sa.types or frozenset()) - {"null"}
            plain_b = (sb.types or frozenset()) - {"null"}
            if sa.types is not None and sb.types is not None and plain_a == plain_b:
                yield _Rel("", "changed", "nullable", old="null" in sa.types,
                           new="null" in sb.types, **at)
            else:
                yield _Rel("", "changed", "type", old=_type_text(sa.types),
                           new=_type_text(sb.types), evidence=_example_agrees(sa, sb), **at)
        if sa.enum != sb.enum:
            yield from _enum_rels(sa.enum, sb.enum, at)
        for keyword in sorted(set(sa.constraints) | set(sb.constraints)):
            if sa.constraints.get(keyword) != sb.constraints.get(keyword):
                old, new = _load(sa.constraints.get(keyword)), _load(sb.constraints.get(keyword))
                yield _Rel("", "changed", "constraint", keyword, old, new,
                           delta=_structured_delta(old, new), **at)
        yield from self._diff_properties(sa, sb, va, vb, direction, at)
        if sa.items is not None or sb.items is not None:
            yield _Child("/*", sa.items, sb.items)
        free_a, free_b = _additional(sa.additional), _additional(sb.additional)
        if free_a != free_b and not (isinstance(sa.additional, RawSchema)
                                     and isinstance(sb.additional, RawSchema)):
            yield _Rel("", "changed", "free-form", "additionalProperties", free_a, free_b, **at)
        if isinstance(sa.additional, RawSchema) and isinstance(sb.additional, RawSchema):
            yield _Child("/{*}", sa.additional, sb.additional)
        yield from self._diff_alternatives(sa, sb, va, vb, direction, at)
        if sa.all_of is not None and sb.all_of is not None and sa.all_of != sb.all_of:
            yield _Rel("", "changed", "composition", "allOf", len(sa.all_of), len(sb.all_of),
                       **at)
        for name in sorted(set(sa.subschemas) | set(sb.subschemas)):
            a, b = sa.subschemas.get(name), sb.subschemas.get(name)
            if a is None or b is None:
                yield _Rel("", "changed", "constraint", name.strip("{}"),
                           a is not None or None, b is not None or None, **at)
                continue
            yield _Child("/" + name, a, b)

    def _diff_properties(self, sa: Schema, sb: Schema, va: Version, vb: Version,
                         direction: str, at: dict[str, Any]) -> Iterable[_Rel | _Child]:
        pa, pb = _visible(sa, va, direction), _visible(sb, vb, direction)
        free = sa.free_form and sb.free_form
        for name in sorted(set(pa) | set(pb) | sa.required ^ sb.required):
            a, b = pa.get(name), pb.get(name)
            segment = "/" + name.replace("~", "~0").replace("/", "~1")
            if a is None and b is None:
                # `required` lists a name no property declares (a declared one that is not
                # visible at this version is not required here either).
                if name not in sa.properties and name not in sb.properties:
                    yield _Rel(segment, "changed", "required", old=name in sa.required,
                               new=name in sb.required, **at)
                continue
            if a is None or b is None:
                prop = b or a
                assert prop is not None
                table = self.new_table if a is None else self.old_table
                summary = _summary(table.get(prop.schema))
                yield _Rel(segment, "added" if a is None else "removed", "",
                           old=a and {**summary, "required": name in sa.required},
                           new=b and {**summary, "required": name in sb.required},
                           old_at=a.schema if a else None, new_at=b.schema if b else None,
                           inferred=at["inferred"] or table.get(prop.schema).inferred,
                           free_form=free, since=self.since(
                               sb.properties[name].versions if name in sb.properties else None,
                               vb))
                continue
            if (name in sa.required) != (name in sb.required):
                yield _Rel(segment, "changed", "required", old=name in sa.required,
                           new=name in sb.required, old_at=a.schema, new_at=b.schema,
                           inferred=at["inferred"])
            yield _Child(segment, a.schema, b.schema)

    def _diff_alternatives(self, sa: Schema, sb: Schema, va: Version, vb: Version,
                           direction: str, at: dict[str, Any]) -> Iterable[_Rel | _Child]:
        for keyword in sorted(set(sa.alternatives) | set(sb.alternatives)):
            la, lb = sa.alternatives.get(keyword, ()), sb.alternatives.get(keyword, ())
            if len(la) != len(lb):
                yield _Rel("", "changed", "composition", keyword, len(la), len(lb), **at)
            pairs = _pair_branches(la, lb, lambda raw: self.old_table.get(raw).types,
                                   lambda raw: self.new_table.get(raw).types)
            for i, a, b in pairs:
                segment = f"/{{{keyword}:{i}}}" if max(len(la), len(lb)) > 1 else ""
                yield _Child(segment, a, b)


class _Child(NamedTuple):
    """A pair of schemas below another, and the pointer segment that leads there."""

    segment: str
    old: RawSchema | None
    new: RawSchema | None


def _raw_key(a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
             direction: str) -> tuple[Any, ...]:
    return (id(a.node) if a else None, id(b.node) if b else None, va, vb, direction)


class _Step(NamedTuple):
    pair: tuple[int | None, int | None] | None  # the schemas compared (None: neither exists)
    own: tuple[_Rel, ...]
    children: tuple[_Child, ...]


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

    def change(self, area: str, kind: str, aspect: str = "", **fields: Any) -> Change:
        return Change(area=area, kind=kind, aspect=aspect, operation=self.display,
                      op_key=self.key, **fields)

    def from_rel(self, area: str, rel: _Rel, prefix: str, status: str | None = None,
                 media: str | None = None, inferred: bool = False,
                 owners: tuple[Location | None, Location | None] = (None, None)) -> Change:
        return self.change(area, rel.kind, rel.aspect, pointer=prefix + rel.pointer,
                           status=status, media=media, detail=rel.detail, old=rel.old,
                           new=rel.new,
                           old_location=self.place(rel.old_at, self.comparer.old, owners[0]),
                           new_location=self.place(rel.new_at, self.comparer.new, owners[1]),
                           inferred=inferred or rel.inferred, free_form=rel.free_form,
                           since=rel.since, delta=rel.delta, evidence=rel.evidence)


class _RefTaint:
    """Which `$ref` targets differ between the two documents (transitively)."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self._refs: dict[int, tuple[Any, frozenset[str]]] = {}
        self._dirty: frozenset[str] | None = None
        self._known: frozenset[str] = frozenset()

    def refs_in(self, node: Any) -> frozenset[str]:
        """Every `$ref` below a node, memoising each container on the way (one pass over
        the document answers every later question about any part of it)."""
        hit = self._refs.get(id(node))
        return hit[1] if hit is not None else self._index(node)

    def _index(self, node: Any) -> frozenset[str]:
        # Recursive: documents are nesting-bounded when loaded, and recursion is fastest here.
        found = _NO_REFS
        if type(node) is dict:
            ref = node.get("$ref")
            if type(ref) is str:
                found = frozenset((ref,))
            values: Iterable[Any] = node.values()
        else:
            values = node
        memo = self._refs
        for value in values:
            if type(value) in _CONTAINERS:
                hit = memo.get(id(value))
                below = hit[1] if hit is not None else self._index(value)
                if below:
                    found = found | below if found else below
        memo[id(node)] = (node, found)
        return found

    def changed(self, ref: str) -> bool:
        if self._dirty is None:
            self._dirty = self._dirty_refs()
        if ref in self._dirty:
            return True
        if ref not in self._known:  # only the new document uses it: compare the targets
            return not ref.startswith("#") or _pointer_target(
                self.old.document.data, ref) != _pointer_target(self.new.document.data, ref)
        return False

    def _dirty_refs(self) -> frozenset[str]:
        """Refs whose target differs, or reaches (through refs) one that differs: a fixpoint
        over the old document's ref graph, so cycles cannot hide a change."""
        self._known = self.refs_in(self.old.document.data)
        dirty: set[str] = set()
        users: dict[str, set[str]] = {}
        for ref in self._known:
            old_target = _pointer_target(self.old.document.data, ref)
            if not ref.startswith("#") or old_target != _pointer_target(
                    self.new.document.data, ref):
                dirty.add(ref)
            elif type(old_target) in _CONTAINERS:
                for inner in self.refs_in(old_target):
                    users.setdefault(inner, set()).add(ref)
        pending = list(dirty)
        while pending:
            for user in users.get(pending.pop(), ()):
                if user not in dirty:
                    dirty.add(user)
                    pending.append(user)
        return frozenset(dirty)

    def clean(self, node: Any) -> bool:
        refs = self.refs_in(node)
        return not refs or not any(self.changed(ref) for ref in refs)


_MISSING = object()
_CONTAINERS = (dict, list, tuple)
_NO_REFS: frozenset[str] = frozenset()


def _pointer_target(data: Any, ref: str) -> Any:
    from urllib.parse import unquote

    node = data
    for part in ref[1:].split("/")[1:] if ref.startswith("#/") else []:
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(part, _MISSING)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def schema_at(table: SchemaTable, raw: RawSchema | None, version: Version) -> Schema | None:
    """The schema visible at `version`: microversion containers pick their variant."""
    if raw is None:
        return None
    schema = table.get(raw)
    for _ in range(32):  # containers of containers, bounded
        if schema.switch is None:
            break
        variant = next((r for rng, r in schema.switch if rng.contains(version)), None)
        if variant is None:
            return None
        schema = table.get(variant)
    return schema if schema.versions.contains(version) else None


_MENTION = re.compile(
    r"micro-?versions?\s+v?(\d+\.\d+)"  # "microversion 2.31", "microversions 1.25 - 1.32"
    r"|(?:new|added|introduced|available|changed)\s+(?:in|since|from)\s+(?:micro-?)?version\s+"
    r"v?(\d+\.\d+)", re.IGNORECASE)


def mentioned_versions(text: str) -> frozenset[Version]:
    """Microversions a description names: prose only, so findings built on it are inferred."""
    found = set()
    for match in _MENTION.finditer(text):
        version = parse_version(match.group(1) or match.group(2))
        if version is not None:
            found.add(version)
    return frozenset(found)


def _example_agrees(old: Schema, new: Schema) -> Evidence | None:
    """The old document's own example already had the new type (api-ref records what its
    example shows, `x-needs-microversion-example`): the table is being corrected."""
    node = old.location.node
    example = node.get(EXAMPLE_KEY) if isinstance(node, dict) else None
    shown = example.get("type") if isinstance(example, dict) else None
    # A list: the examples disagree (["null", "string"]), as JSON Schema writes several types.
    types = {shown} if isinstance(shown, str) else set(shown) if isinstance(shown, list) else set()
    types |= {"number"} if "integer" in types else set()
    if not types or new.types is None or (old.types and types & old.types) \
            or not types & new.types:
        return None
    return Evidence("matches-example", f"the old document's example already shows "
                    f"{'/'.join(sorted(types & new.types))}; the table is corrected to match it")


def _description(schema: Schema) -> str:
    node = schema.location.node
    text = node.get("description") if isinstance(node, dict) else None
    return text if isinstance(text, str) else ""


_Versioned = TypeVar("_Versioned", Operation, Parameter, Response)


def _at(item: _Versioned | None, version: Version) -> _Versioned | None:
    """The item if it exists at that microversion."""
    return item if item is not None and item.versions.contains(version) else None


def _first_version(old: Snapshot, new: Snapshot) -> Version:
    """The API's first version, X.0 of the major its documents use (nova 2.0, placement 1.0):
    below it there is nothing to compare, and an element starting there always existed."""
    known = [v for v in (old.max_version, new.max_version) if v is not None] or \
        sorted(old.bounds | new.bounds)
    return Version(min(v.major for v in known), 0) if known else FLOOR


def _visible(schema: Schema, version: Version, direction: str) -> dict[str, Prop]:
    hidden = "read_only" if direction == "request" else "write_only"
    return {name: prop for name, prop in schema.properties.items()
            if prop.versions.contains(version) and not getattr(prop, hidden)}


def _schema_bounds(raw: RawSchema, table: SchemaTable, memo: dict[int, frozenset[Version]],
                   active: set[int]) -> frozenset[Version]:
    schema = table.get(raw)
    key = id(schema)
    if key in memo:
        return memo[key]
    if key in active:
        return frozenset()
    active.add(key)
    found = set(schema.versions.bounds())
    children: list[RawSchema] = []
    for prop in schema.properties.values():
        found.update(prop.versions.bounds())
        children.append(prop.schema)
    if schema.switch:
        for rng, variant in schema.switch:
            found.update(rng.bounds())
            children.append(variant)
    children.extend(b for branches in schema.alternatives.values() for b in branches)
    children.extend(schema.subschemas.values())
    if schema.items is not None:
        children.append(schema.items)
    if isinstance(schema.additional, RawSchema):
        children.append(schema.additional)
    for child in children:
        found |= _schema_bounds(child, table, memo, active)
    active.discard(key)
    memo[key] = frozenset(found)
    return memo[key]


def _pair_branches(la: tuple[RawSchema, ...], lb: tuple[RawSchema, ...],
                   kind_a: Callable[[RawSchema], Any], kind_b: Callable[[RawSchema], Any]
                   ) -> list[tuple[int, RawSchema, RawSchema]]:
    """Pair alternatives as an author reorders them: the same `$ref`, then an equal schema,
    then the same kind (its types), and only then by position. Each pair comes with its
    position in the new document, which names it, as a reader of that document would."""
    def ref(raw: RawSchema) -> str | None:
        node = raw.node
        return node.get("$ref") if isinstance(node, dict) else None

    stages: tuple[Callable[[RawSchema, RawSchema], bool], ...] = (
        lambda a, b: ref(a) is not None and ref(a) == ref(b),
        lambda a, b: a.node == b.node,
        lambda a, b: kind_a(a) == kind_b(b),
    )
    pairs: list[tuple[RawSchema, RawSchema]] = []
    rest_a, rest_b = list(la), list(lb)
    for same in stages:
        for a in list(rest_a):
            match = next((b for b in rest_b if same(a, b)), None)
            if match is not None:
                pairs.append((a, match))
                rest_a.remove(a)
                rest_b.remove(match)
    pairs.extend(zip(rest_a, rest_b, strict=False))  # the unpaired are counted elsewhere
    position = {id(b): i for i, b in enumerate(lb)}
    return sorted((position[id(b)], a, b) for a, b in pairs)


def _enum_rels(old: frozenset[str] | None, new: frozenset[str] | None, at: dict[str, Any]
               ) -> Iterable[_Rel]:
    if old is None or new is None:
        # Gaining an enum restricts the values (some removed); losing it accepts any value.
        yield _Rel("", "removed" if old is None else "added", "enum", "enum",
                   _values(old), _values(new), **at)
        return
    if new - old:
        yield _Rel("", "added", "enum", "enum", None, _values(new - old), **at)
    if old - new:
        yield _Rel("", "removed", "enum", "enum", _values(old - new), None, **at)


def _structured_delta(old: Any, new: Any) -> str:
    """Name the places inside two structured keyword values that differ (`mapping['b']`).

    deepdiff earns its place here: these values are arbitrary JSON, small, and rarely
    differ, so its import (~0.2 s) is paid only when a report needs it. Whole documents are
    compared structurally instead (deepdiff takes 2-4 s on the 4 MB benchmark pairs).
    """
    if not (isinstance(old, (dict, list)) and isinstance(new, (dict, list))):
        return ""
    from deepdiff import DeepDiff

    paths = sorted(DeepDiff(old, new, ignore_order=True).affected_paths)
    text = ", ".join(path.replace("root", "", 1) or "(whole value)" for path in paths[:5])
    return text + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def _values(values: frozenset[str] | None) -> list[Any] | None:
    return None if values is None else [json.loads(v) for v in sorted(values)]


def _prefix(rel: _Rel, segment: str) -> _Rel:
    return rel._replace(pointer=segment + rel.pointer)


def _additional(value: bool | RawSchema | None) -> Any:
    if value is None or value is True:
        return True  # JSON Schema allows unlisted keys unless told otherwise
    return "schema" if isinstance(value, RawSchema) else value


def _summary(schema: Schema) -> dict[str, Any]:
    summary: dict[str, Any] = {"type": _type_text(schema.types)}
    if schema.enum is not None:
        summary["enum"] = _values(schema.enum)
    return summary


def _param_summary(param: Parameter) -> dict[str, Any]:
    return {"in": param.where, "required": param.required}


def _type_text(types: frozenset[str] | None) -> str:
    return "any" if types is None else "|".join(sorted(types))


def _load(value: str | None) -> Any:
    return None if value is None else json.loads(value)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _across_media_types(changes: Iterable[Change]) -> list[Change]:
    """One change for a difference every media type of a body shows (json, yaml, ...)."""
    groups: dict[tuple[Any, ...], list[Change]] = {}
    for change in changes:
        key = change.identity[:6] + change.identity[7:] if change.media else (
            id(change),)
        groups.setdefault(key, []).append(change)
    merged = []
    for group in groups.values():
        first = group[0]
        if len(group) > 1 and first.area.endswith("-body"):
            first = replace(first, media=", ".join(sorted({c.media or "" for c in group})))
            merged.append(first)
        else:
            merged.extend(group)
    return merged


def _one_per_element(changes: Iterable[Change]) -> list[Change]:
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
                                 detail=",".join(labels),
                                 old={label: c.old for label, c in zip(labels, group, strict=True)},
                                 new={label: c.new for label, c in zip(labels, group, strict=True)},
                                 inferred=any(c.inferred for c in group),
                                 evidence=group[0].evidence if all(
                                     c.evidence for c in group) else None)
        result.append(change)
    return result


def _gate(change: Change, version: Version) -> Change:
    return replace(change, gated=version)


def with_lines(changes: list[Change], snapshots: Iterable[Snapshot]) -> list[Change]:
    """Fill in line numbers (looked up in one batch per document: only for what is reported)."""
    from needs_microversion.locate import lines_of

    docs = {doc.display: doc for s in snapshots for doc in (s.document, *s.schemas.documents)
            if doc.text}
    wanted: dict[str, set[tuple[str, ...]]] = {}
    for change in changes:
        for loc in (change.old_location, change.new_location):
            if loc is not None and loc.line is None and loc.file in docs:
                wanted.setdefault(loc.file, set()).add(loc.pointer)
    lines = {file: lines_of(docs[file], pointers) for file, pointers in wanted.items()}

    def fill(loc: Location | None) -> Location | None:
        if loc is None or loc.line is not None or loc.file not in lines:
            return loc
        return replace(loc, line=lines[loc.file].get(loc.pointer))

    return [replace(c, old_location=fill(c.old_location), new_location=fill(c.new_location))
            for c in changes]
