"""Normalise raw JSON-schema nodes into comparable `Schema` records, lazily and once each.

`$ref` is resolved and `allOf` merged here, so a refactor that resolves to the same schema
compares equal; so do the OpenAPI 3.0 and 3.1 spellings of one schema (exclusive bounds,
nullable). Children stay `RawSchema` handles: recursive schemas are never expanded.

`x-openstack` microversions are read here too (`openstack_range`); one that cannot be read
counts as no bound, and `version_warnings.py` names it so the author hears of it.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from needs_microversion.document import Document
from needs_microversion.refs import RefResolver
from needs_microversion.snapshot import RawSchema
from needs_microversion.versions import ALL, VersionRange, parse_version

# Keys whose values are data, never schema structure: `$ref` or `x-openstack` inside them is
# an example's, never followed or read.
DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const", "x-examples"})
# Keys whose children are names chosen by the author (a property called "example" is a name).
NAME_MAPS = frozenset({"properties", "patternProperties", "definitions", "$defs", "schemas",
                       "responses", "parameters", "paths", "headers", "content", "callbacks",
                       "links", "securitySchemes", "requestBodies", "pathItems",
                       "dependentSchemas", "variables", "encoding", "webhooks"})
# Keywords whose value is a schema (compared structurally, under a pointer segment `{kw}`).
SUBSCHEMA_KEYWORDS = frozenset(
    {"contains", "propertyNames", "not", "if", "then", "else", "contentSchema",
     "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
)
# Keywords whose value maps names (or positions) to schemas.
SUBSCHEMA_MAP_KEYWORDS = frozenset({"dependentSchemas", "patternProperties"})
# Keywords that restrict or shape accepted/returned values: contract, compared by value.
CONSTRAINT_KEYWORDS = frozenset(
    {"format", "pattern", "maxLength", "minLength", "minimum", "maximum", "exclusiveMinimum",
     "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties",
     "maxProperties", "minContains", "maxContains", "dependentRequired", "contentMediaType",
     "contentEncoding", "discriminator", "default", "xml", "x-extensible-enum",
     "collectionFormat"}
)
LOCATION_KEY = "x-needs-microversion-location"
INFERRED_KEY = "x-needs-microversion-inferred"
EXAMPLE_KEY = "x-needs-microversion-example"  # what the document's own example shows


def canonical(value: Any) -> str:
    """A stable text form of a JSON value, for set membership and equality."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def openstack_range(node: Mapping[str, Any]) -> VersionRange:
    """The `x-openstack` min/max microversion of a node (both spellings), ALL if none.

    An unreadable bound reads as no bound; `version_warnings.py` reports it.
    """
    ext = node.get("x-openstack")
    if not isinstance(ext, dict):
        return ALL
    return VersionRange(parse_version(ext.get("min-ver", ext.get("min_ver"))),
                        parse_version(ext.get("max-ver", ext.get("max_ver"))))


def is_container(node: Mapping[str, Any], kind: str) -> bool:
    ext = node.get("x-openstack")
    return isinstance(ext, dict) and ext.get("discriminator") == kind and isinstance(
        node.get("oneOf"), list)


@dataclass(frozen=True)
class Prop:
    schema: RawSchema
    versions: VersionRange
    read_only: bool
    write_only: bool


@dataclass(frozen=True)
class Schema:
    types: frozenset[str] | None  # None = any type; "null" in it = nullable
    enum: frozenset[str] | None  # canonical values
    constraints: Mapping[str, str]  # keyword -> canonical value
    properties: Mapping[str, Prop]
    required: frozenset[str]
    items: RawSchema | None
    additional: bool | RawSchema | None  # None = not stated
    alternatives: Mapping[str, tuple[RawSchema, ...]]  # "oneOf"/"anyOf" -> branches
    subschemas: Mapping[str, RawSchema]  # "{contains}", "{dependentSchemas:x}" -> schema
    versions: VersionRange
    switch: tuple[tuple[VersionRange, RawSchema], ...] | None  # microversion container
    read_only: bool
    write_only: bool
    inferred: bool
    location: RawSchema  # the node that defines it (for file:line)
    all_of: frozenset[str] | None = None  # the allOf branches that validate, when allOf is used

    @property
    def free_form(self) -> bool:
        """Accepts keys nobody listed: explicit additionalProperties, or a bare map."""
        if self.additional is True:
            return True
        if isinstance(self.additional, RawSchema):
            node = self.additional.node
            return isinstance(node, dict) and not any(
                k for k in node if not k.startswith("x-") and k not in ("description", "title"))
        return self.additional is None and not self.properties and self.types == frozenset(
            {"object"})


_DOC_ONLY = frozenset({"description", "title", "example", "examples", "deprecated",
                       "externalDocs", "$comment", "$schema", "$id", "$anchor", "$defs",
                       "definitions", "summary"})


class SchemaTable:
    """Memoised normaliser for every schema node of one snapshot."""

    def __init__(self, resolver: RefResolver) -> None:
        self._resolver = resolver
        # id(node) -> (node, Schema): keeping the node alive keeps its id unique.
        self._memo: dict[int, tuple[Any, Schema]] = {}

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
        types = _types(node)
        enum = node.get("enum")
        enum_set = frozenset(canonical(v) for v in enum) if isinstance(enum, list) else None
        if "const" in node:
            enum_set = frozenset({canonical(node["const"])})
        constraints = {k: canonical(node[k]) for k in CONSTRAINT_KEYWORDS if k in node}
        if "exclusiveMinimum" in constraints or "exclusiveMaximum" in constraints:
            _exclusive_bounds(node, constraints)
        props: dict[str, Prop] = {}
        raw_props = node.get("properties")
        if isinstance(raw_props, dict):
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
        required = node.get("required")
        req = frozenset(str(r) for r in required) if isinstance(required, list) else frozenset()
        items = node.get("items")
        items_raw = self._child(raw, "items", items) if isinstance(items, (dict, bool)) else None
        subs: dict[str, RawSchema] = {}
        if isinstance(items, list):  # Swagger/3.0 tuple form
            for i, sub in enumerate(items):
                subs[f"{{items:{i}}}"] = self._child(RawSchema(raw.doc, items, (*raw.pointer,
                                                     "items")), i, sub)
        additional = node.get("additionalProperties")
        add: bool | RawSchema | None
        if isinstance(additional, bool):
            add = additional
        elif isinstance(additional, dict):
            add = self._child(raw, "additionalProperties", additional)
        else:
            add = None
        alternatives: dict[str, tuple[RawSchema, ...]] = {}
        switch = None
        if is_container(node, "microversion"):
            variants = node["oneOf"]
            base = RawSchema(raw.doc, variants, (*raw.pointer, "oneOf"))
            switch = tuple(
                (openstack_range(self.resolve(self._child(base, i, v)).node
                                 if isinstance(v, dict) else {})
                 .intersect(openstack_range(v) if isinstance(v, dict) else ALL),
                 self._child(base, i, v))
                for i, v in enumerate(variants))
        else:
            for kw in ("oneOf", "anyOf"):
                branches = node.get(kw)
                if isinstance(branches, list):
                    base = RawSchema(raw.doc, branches, (*raw.pointer, kw))
                    alternatives[kw] = tuple(self._child(base, i, b)
                                             for i, b in enumerate(branches))
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
        if types is None and props:
            types = frozenset({"object"})
        elif types is None and items_raw is not None:
            types = frozenset({"array"})
        return Schema(types=types, enum=enum_set, constraints=constraints, properties=props,
                      required=req, items=items_raw, additional=add, alternatives=alternatives,
                      subschemas=subs, versions=openstack_range(node), switch=switch,
                      read_only=bool(node.get("readOnly")), write_only=bool(node.get("writeOnly")),
                      inferred=bool(node.get(INFERRED_KEY)), location=raw)


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
        key == "type" or key in _DOC_ONLY or (key.startswith("x-") and key != "x-openstack")
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
        k not in _DOC_ONLY and not k.startswith("x-") for k in node)


def _has_siblings(node: Mapping[str, Any]) -> bool:
    return any(k != "$ref" and k not in _DOC_ONLY
               and not (k.startswith("x-") and k != "x-openstack") for k in node)


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
