"""Normalise raw JSON-schema nodes into comparable `Schema` records, lazily and once each.

`$ref` is resolved and `allOf` merged here, so a refactor that resolves to the same schema
compares equal; so do the OpenAPI 3.0 and 3.1 spellings of one schema (exclusive bounds,
nullable). Children stay `RawSchema` handles: recursive schemas are never expanded.

`x-openstack` microversions are read here too (`openstack_range`); one that cannot be read
counts as no bound, and `version_warnings.py` names it so the author hears of it.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from needs_microversion.documents.refs import RefResolver
from needs_microversion.loaders.openapi.keywords import (
    CONSTRAINT_KEYWORDS, DOC_ONLY, SUBSCHEMA_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS)
from needs_microversion.model.document import Document
from needs_microversion.model.extensions import (
    INFERRED_KEY, OPENSTACK_KEY, is_container, openstack_range)
from needs_microversion.model.schema import Prop, RawSchema, Schema, canonical
from needs_microversion.model.versions import ALL, Version, VersionRange


def range_of(node: Any) -> VersionRange:
    """The `x-openstack` bounds of a node that may be no mapping at all (a `$ref` may lead
    anywhere, `null` included): ALL then."""
    return openstack_range(node) if isinstance(node, dict) else ALL


class SchemaTable:
    """Memoised normaliser for every schema node of one snapshot."""

    def __init__(self, resolver: RefResolver) -> None:
        self._resolver = resolver
        # id(node) -> (node, Schema): keeping the node alive keeps its id unique.
        self._memo: dict[int, tuple[Any, Schema]] = {}
        self._kept_bounds: dict[int, tuple[Any, frozenset[Version]]] = {}

    @property
    def documents(self) -> tuple[Document, ...]:
        """The files this snapshot's schemas come from (the document and its `$ref` files)."""
        return self._resolver.documents

    def resolve(self, raw: RawSchema) -> RawSchema:
        """Follow `$ref` chains to the node that holds the schema."""
        node = raw.node
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and not _has_siblings(
                node):
            doc, target, pointer = self._resolver.resolve(node["$ref"], raw.doc)
            return RawSchema(doc, target, pointer)
        return raw

    def get(self, raw: RawSchema) -> Schema:
        raw = self.resolve(raw)
        hit = self._memo.get(id(raw.node))
        if hit is not None:
            return hit[1]
        schema = self._normalise(raw)
        self._memo[id(raw.node)] = (raw.node, schema)
        return schema

    def bounds(self, raw: RawSchema) -> frozenset[Version]:
        """Every microversion at which something under the schema starts or stops: the
        bounds of each `x-openstack` range on the nodes it reaches, read from the raw nodes
        (normalising them all cost a large change most of its comparison).

        It holds the bounds of every normalised range below it: such a range is a node's
        own, or the intersection of several (a property and the schema it refers to, the
        parts of an `allOf`), whose bounds are among its parts'. Extra bounds only add
        versions where the contract is the same as at the bound before them."""
        return self._reach(raw, {}, [])[0]

    def _reach(self, raw: RawSchema, order: dict[int, int], path: list[Any]
               ) -> tuple[frozenset[Version], int]:
        """(the bounds below, the first node still being walked that the walk met: Tarjan's
        low link). The nodes of a cycle reach what its first node reaches; each is kept
        once the cycle is closed, so no node is walked twice."""
        node = raw.node
        if not isinstance(node, dict):
            return _NO_BOUNDS, _DONE
        key = id(node)
        hit = self._kept_bounds.get(key)
        if hit is not None:
            return hit[1], _DONE
        met = order.get(key)
        if met is not None:  # still being walked (a finished node is kept): a cycle
            return _NO_BOUNDS, met
        first = order[key] = len(order)
        path.append(node)
        found = set(openstack_range(node).bounds())
        low = first
        for child in self._raw_children(raw):
            below, reached = self._reach(child, order, path)
            found |= below
            low = min(low, reached)
        result = frozenset(found)
        if low < first:  # in a cycle entered above: its first node collects the bounds
            return result, low
        while True:
            member = path.pop()
            self._kept_bounds[id(member)] = (member, result)
            if member is node:
                return result, _DONE

    def _raw_children(self, raw: RawSchema) -> list[RawSchema]:
        """The schema nodes a schema is made of: what `_normalise` reads as its parts and
        children (a `$ref` target, with or without siblings, included)."""
        node, doc = raw.node, raw.doc
        children: list[Any] = []
        if isinstance(node.get("$ref"), str):
            target_doc, target, pointer = self._resolver.resolve(node["$ref"], doc)
            found = [RawSchema(target_doc, target, pointer)]
        else:
            found = []
        for kw in ("properties", *SUBSCHEMA_MAP_KEYWORDS):
            value = node.get(kw)
            if isinstance(value, dict):
                children.extend(value.values())
        for kw in ("allOf", "oneOf", "anyOf", "items", "prefixItems"):
            value = node.get(kw)
            if isinstance(value, list):
                children.extend(value)
        for kw in ("items", "additionalProperties", *SUBSCHEMA_KEYWORDS):
            value = node.get(kw)
            if isinstance(value, dict):
                children.append(value)
        # No pointer: a bound has no place, and a `$ref` resolves against its file alone.
        found.extend(RawSchema(doc, child, ()) for child in children if isinstance(child, dict))
        return found

    def _child(self, raw: RawSchema, key: str | int, node: Any) -> RawSchema:
        return RawSchema(raw.doc, node, (*raw.pointer, str(key)))

    def _normalise(self, raw: RawSchema) -> Schema:
        node = raw.node
        if node is False:  # the schema that accepts nothing
            return replace(_ANY(raw), types=frozenset())
        if not isinstance(node, dict):  # `true`, or nothing a schema can be
            return _ANY(raw)
        parts = [self._own(raw)]
        if parts[0].alternatives:
            parts = self._unfold_null_branch(parts[0])
        if isinstance(node.get("$ref"), str):  # $ref with siblings: the siblings narrow it
            doc, target, pointer = self._resolver.resolve(node["$ref"], raw.doc)
            parts.append(self.get(RawSchema(doc, target, pointer)))
        all_of = node.get("allOf")
        branches: frozenset[str] | None = None
        if isinstance(all_of, list):
            base = RawSchema(raw.doc, all_of, (*raw.pointer, "allOf"))
            children = [self._child(base, i, branch) for i, branch in enumerate(all_of)]
            parts.extend(self.get(child) for child in children)
            # Which schemas are composed is contract when both sides compose: removing a
            # validating branch drops a promise even if another branch repeats it today.
            branches = frozenset(
                child.node["$ref"] if isinstance(child.node, dict) and "$ref" in child.node
                else f"inline {i}" for i, child in enumerate(children)
                if _validates(self.resolve(child).node))
        merged = parts[0] if len(parts) == 1 else _merge(parts, raw)
        if len(parts) > 1 and (node.get("nullable") is True or node.get("x-nullable") is True):
            # OpenAPI 3.0 has no other way to make a referenced or composed schema nullable
            # (`allOf: [$ref]` or `$ref` beside `nullable: true`); its authors mean null too,
            # and 3.1 writes the same as `oneOf: [$ref, {type: "null"}]`.
            merged = _or_null(merged)
        return merged if branches is None else replace(merged, all_of=branches)

    def _unfold_null_branch(self, own: Schema) -> list[Schema]:
        """`oneOf`/`anyOf` of a schema and `{type: "null"}` is that schema made nullable:
        OpenAPI 3.1's spelling of 3.0's `nullable: true`, so a migration is no change."""
        alternatives = dict(own.alternatives)
        others = []
        for kw, branches in own.alternatives.items():
            if len(branches) != 2:
                continue
            nulls = [_null_only(self.resolve(branch).node) for branch in branches]
            if nulls[0] != nulls[1]:
                del alternatives[kw]
                others.append(_or_null(self.get(branches[nulls.index(False)])))
        if not others:
            return [own]
        return [replace(own, alternatives=alternatives), *others]

    def _own(self, raw: RawSchema) -> Schema:
        """The schema's own keywords, without allOf/$ref parts."""
        node: Mapping[str, Any] = raw.node
        constraints = _constraints(node)
        items, subs = self._items(raw)
        switch, alternatives = self._variants(raw)
        subs.update(self._subschemas(raw, constraints))
        props = self._properties(raw)
        types = _types(node)
        if types is None and props:
            types = frozenset({"object"})
        elif types is None and items is not None:
            types = frozenset({"array"})
        return Schema(types=types, enum=_enum(node), constraints=constraints, properties=props,
                      required=_required(node), items=items, additional=self._additional(raw),
                      alternatives=alternatives, subschemas=subs, versions=openstack_range(node),
                      switch=switch, read_only=bool(node.get("readOnly")),
                      write_only=bool(node.get("writeOnly")),
                      inferred=bool(node.get(INFERRED_KEY)), location=raw)

    def _properties(self, raw: RawSchema) -> dict[str, Prop]:
        """`properties`, each with its microversions and read/write-only flags, written on
        the property or on the schema it refers to."""
        props: dict[str, Prop] = {}
        raw_props = raw.node.get("properties")
        if not isinstance(raw_props, dict):
            return props
        base = RawSchema(raw.doc, raw_props, (*raw.pointer, "properties"))
        for name, sub in raw_props.items():
            child = self._child(base, name, sub)
            target = self.resolve(child).node if isinstance(sub, dict) else sub
            flags = target if isinstance(target, dict) else {}
            own = sub if isinstance(sub, dict) else {}
            versions = openstack_range(own).intersect(openstack_range(flags))
            props[str(name)] = Prop(child, versions,
                                    bool(own.get("readOnly") or flags.get("readOnly")),
                                    bool(own.get("writeOnly") or flags.get("writeOnly")))
        return props

    def _items(self, raw: RawSchema) -> tuple[RawSchema | None, dict[str, RawSchema]]:
        """`items`: one schema, or (Swagger/3.0 tuple form) a schema per position, named as
        JSON Schema 2020-12 names them (`prefixItems`): one contract in either spelling
        (nova 49c4638fd5 moved its schemas from one to the other)."""
        items = raw.node.get("items")
        subs: dict[str, RawSchema] = {}
        if isinstance(items, list):
            base = RawSchema(raw.doc, items, (*raw.pointer, "items"))
            for i, sub in enumerate(items):
                subs[f"{{prefixItems:{i}}}"] = self._child(base, i, sub)
        single = self._child(raw, "items", items) if isinstance(items, (dict, bool)) else None
        return single, subs

    def _additional(self, raw: RawSchema) -> bool | RawSchema | None:
        additional = raw.node.get("additionalProperties")
        if isinstance(additional, bool):
            return additional
        if isinstance(additional, dict):
            return self._child(raw, "additionalProperties", additional)
        return None

    def _variants(self, raw: RawSchema) -> tuple[
            tuple[tuple[VersionRange, RawSchema], ...] | None, dict[str, tuple[RawSchema, ...]]]:
        """A microversion container's variants with their ranges, or the oneOf/anyOf
        alternatives."""
        node = raw.node
        alternatives: dict[str, tuple[RawSchema, ...]] = {}
        if is_container(node, "microversion"):
            variants = node["oneOf"]
            base = RawSchema(raw.doc, variants, (*raw.pointer, "oneOf"))
            switch = tuple(
                (range_of(self.resolve(self._child(base, i, v)).node
                          if isinstance(v, dict) else {}).intersect(range_of(v)),
                 self._child(base, i, v))
                for i, v in enumerate(variants))
            return switch, alternatives
        for kw in ("oneOf", "anyOf"):
            branches = node.get(kw)
            if isinstance(branches, list):
                base = RawSchema(raw.doc, branches, (*raw.pointer, kw))
                alternatives[kw] = tuple(self._child(base, i, b) for i, b in enumerate(branches))
        return None, alternatives

    def _subschemas(self, raw: RawSchema, constraints: dict[str, str]) -> dict[str, RawSchema]:
        """Schemas under other keywords (`contains`, `not`, `patternProperties`...); a boolean
        `unevaluated*` is a constraint, added to `constraints`."""
        node = raw.node
        subs: dict[str, RawSchema] = {}
        if node.keys().isdisjoint(_SUBSCHEMA_ANY):  # most schemas (a compare's hot path)
            return subs
        for kw in SUBSCHEMA_KEYWORDS:
            if isinstance(node.get(kw), (dict, bool)) and not (
                    kw.startswith("unevaluated") and isinstance(node.get(kw), bool)):
                subs[f"{{{kw}}}"] = self._child(raw, kw, node[kw])
            elif kw.startswith("unevaluated") and isinstance(node.get(kw), bool):
                constraints[kw] = canonical(node[kw])
        for kw in SUBSCHEMA_MAP_KEYWORDS:
            value = node.get(kw)
            if isinstance(value, dict):
                base = RawSchema(raw.doc, value, (*raw.pointer, kw))
                for name, sub in value.items():
                    subs[f"{{{kw}:{name}}}"] = self._child(base, name, sub)
        prefix = node.get("prefixItems")
        if isinstance(prefix, list):
            base = RawSchema(raw.doc, prefix, (*raw.pointer, "prefixItems"))
            for i, sub in enumerate(prefix):
                subs[f"{{prefixItems:{i}}}"] = self._child(base, i, sub)
        return subs


_NO_BOUNDS: frozenset[Version] = frozenset()
_DONE = 1 << 30  # met no node still being walked


def _enum(node: Mapping[str, Any]) -> frozenset[str] | None:
    """The allowed values, canonical: `enum`, or the one value of `const`."""
    if "const" in node:
        return frozenset({canonical(node["const"])})
    enum = node.get("enum")
    return frozenset(canonical(v) for v in enum) if isinstance(enum, list) else None


_SUBSCHEMA_ANY = SUBSCHEMA_KEYWORDS | SUBSCHEMA_MAP_KEYWORDS | {"prefixItems"}


def _constraints(node: Mapping[str, Any]) -> dict[str, str]:
    # The few keywords a schema has, not every keyword there is (a compare's hot path).
    constraints = {k: canonical(node[k]) for k in node.keys() & CONSTRAINT_KEYWORDS}
    if "exclusiveMinimum" in constraints or "exclusiveMaximum" in constraints:
        _exclusive_bounds(node, constraints)
    return constraints


def _required(node: Mapping[str, Any]) -> frozenset[str]:
    required = node.get("required")
    return frozenset(str(r) for r in required) if isinstance(required, list) else frozenset()


def _exclusive_bounds(node: Mapping[str, Any], constraints: dict[str, str]) -> None:
    """Write exclusive bounds as OpenAPI 3.1 does, so the 3.0 (and Swagger) spelling of the
    same bound compares equal: `minimum: 0, exclusiveMinimum: true` is `exclusiveMinimum: 0`,
    and `exclusiveMinimum: false` leaves a plain `minimum`."""
    for bound, exclusive, stricter in (("minimum", "exclusiveMinimum", operator.ge),
                                       ("maximum", "exclusiveMaximum", operator.le)):
        flag = node.get(exclusive)
        if flag is True and bound in constraints:
            constraints[exclusive] = constraints.pop(bound)
        elif isinstance(flag, bool):  # false, or true with no bound to make exclusive
            constraints.pop(exclusive, None)
        elif _number(flag) and _number(node.get(bound)):
            # 3.1 allows both; only the stricter one limits the values.
            drop = bound if stricter(node[exclusive], node[bound]) else exclusive
            del constraints[drop]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _null_only(node: Any) -> bool:
    """`{type: "null"}`, allowing annotations: the branch that only admits null."""
    return isinstance(node, dict) and node.get("type") in ("null", ["null"]) and all(
        key == "type" or key in DOC_ONLY or (key.startswith("x-") and key != OPENSTACK_KEY)
        for key in node)


def _or_null(schema: Schema) -> Schema:
    """The schema that also accepts null (None: any type, which null already is)."""
    if not schema.types or "null" in schema.types:
        return schema
    enum = schema.enum if schema.enum is None else schema.enum | {canonical(None)}
    return replace(schema, types=schema.types | {"null"}, enum=enum)


def _validates(node: Any) -> bool:
    """The schema constrains something (it is not only annotations)."""
    return not isinstance(node, dict) or any(
        k not in DOC_ONLY and not k.startswith("x-") for k in node)


def _has_siblings(node: Mapping[str, Any]) -> bool:
    return any(k != "$ref" and k not in DOC_ONLY
               and not (k.startswith("x-") and k != OPENSTACK_KEY) for k in node)


def _types(node: Mapping[str, Any]) -> frozenset[str] | None:
    value = node.get("type")
    if isinstance(value, str):
        types = {value}
    elif isinstance(value, list):
        types = {str(v) for v in value}
    else:
        types = set()
    if node.get("nullable") is True or node.get("x-nullable") is True:
        types.add("null")
    if not types:
        return None
    if types == {"null"} and "type" not in node:
        return None  # `nullable: true` alone narrows nothing
    return frozenset(types)


def _ANY(raw: RawSchema) -> Schema:  # noqa: N802 - reads as the constant it stands for
    return Schema(types=None, enum=None, constraints={}, properties={}, required=frozenset(),
                  items=None, additional=None, alternatives={}, subschemas={}, versions=ALL,
                  switch=None, read_only=False, write_only=False, inferred=False, location=raw)


def _synthetic_all_of(first: RawSchema, second: RawSchema) -> RawSchema:
    # Both children must hold: compare them as one merged schema.
    return RawSchema(first.doc, {"allOf": [first.node, second.node]}, first.pointer)


def _merge(parts: list[Schema], raw: RawSchema) -> Schema:
    """allOf: every part must hold, so constraints add up and properties unite."""
    types: frozenset[str] | None = None
    enum: frozenset[str] | None = None
    constraints: dict[str, str] = {}
    props: dict[str, Prop] = {}
    required: set[str] = set()
    items: RawSchema | None = None
    additional: bool | RawSchema | None = None
    alternatives: dict[str, tuple[RawSchema, ...]] = {}
    subs: dict[str, RawSchema] = {}
    versions = ALL
    switch = None
    for part in parts:
        if part.types is not None:
            types = part.types if types is None else types & part.types
        if part.enum is not None:
            enum = part.enum if enum is None else enum & part.enum
        for key, value in part.constraints.items():
            old = constraints.get(key)
            constraints[key] = value if old is None or old == value else canonical(
                sorted({old, value}))
        for name, prop in part.properties.items():
            if name in props and props[name].schema.node is not prop.schema.node:
                earlier = props[name]
                props[name] = Prop(_synthetic_all_of(earlier.schema, prop.schema),
                                   earlier.versions.intersect(prop.versions),
                                   earlier.read_only or prop.read_only,
                                   earlier.write_only or prop.write_only)
            else:
                props[name] = prop
        required |= part.required
        if part.items is not None:
            items = part.items if items is None else _synthetic_all_of(items, part.items)
        if part.additional is False or additional is False:
            additional = False
        elif isinstance(part.additional, RawSchema):
            additional = part.additional
        elif part.additional is True and additional is None:
            additional = True
        for kw, branches in part.alternatives.items():
            alternatives[kw] = alternatives.get(kw, ()) + branches
        subs.update(part.subschemas)
        versions = versions.intersect(part.versions)
        switch = switch or part.switch
    return Schema(types=types, enum=enum, constraints=constraints, properties=props,
                  required=frozenset(required), items=items, additional=additional,
                  alternatives=alternatives, subschemas=subs, versions=versions, switch=switch,
                  read_only=any(p.read_only for p in parts),
                  write_only=any(p.write_only for p in parts),
                  inferred=any(p.inferred for p in parts), location=raw)
