"""Flat api-ref body rows -> one nested JSON schema.

api-ref tables have no nesting syntax. A row's place in the body comes from, in order:
1. a dotted name (`flavor.id` under the `flavor` placed earlier; an array parent puts the
   child in `items`);
2. the example JSON of the same operation and kind (`literalinclude`), when the name occurs
   there (this also restores wrappers the table leaves out);
3. the wrapper heuristic: when a table starts with an object/array field followed by flat
   names, that field wraps them (`server`, then `flavorRef`, `name`...); `keypairs` then
   `keypair` nests twice; `<wrapper>_links` stays beside the wrapper.
Rows placed by 2 or 3 under a parent they do not name are marked
`x-needs-microversion-inferred: true`. `required: true` puts a row in its parent's
`required` list, versioned rows too: the comparison reads `required` only for the
properties visible at the version it compares, so a field is never "required" at versions
where it does not exist.
Free-form maps (`extra_specs.key`/`.value`, `allocations.{consumer_uuid}.user_id`) become
`additionalProperties`, name patterns (`volumes_{volume_type}`) `patternProperties`. The
same name twice at one place with disjoint microversion ranges becomes a `oneOf`
microversion container; a later row for a parent the example or a dotted name implied
takes that parent over (cinder lists `volume` after its fields).

Example evidence: when the body has examples, `finish` walks them beside the finished schema
and records, on every property, items and map-value schema the examples reach, the JSON
type(s) they show there (`x-needs-microversion-example`), on each object the keys they show
that no row names (`x-needs-microversion-example-unlisted`), and on the root that examples
were read (`x-needs-microversion-example-keys`), so a property they lack is known to be absent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from needs_microversion.loaders.apiref import prose
from needs_microversion.loaders.apiref.records import Row, Table
from needs_microversion.model.extensions import (
    EXAMPLE_KEY, EXAMPLE_KEYS_KEY, EXAMPLE_UNLISTED_KEY, INFERRED_KEY, LOCATION_KEY,
    MAX_VERSION_KEYS, MIN_VERSION_KEYS, OPENSTACK_KEY, version_ext)
from needs_microversion.model.versions import ALL, VersionRange, parse_version

Schema = dict[str, Any]
BodyPath = tuple[str, ...]  # JSON keys from the body root; "*" = array items

_TYPES = {
    "boolean": "boolean", "bool": "boolean",
    "int": "integer", "integer": "integer",
    "float": "number", "number": "number", "decimal": "number", "double": "number",
    "string": "string", "str": "string", "uuid": "string", "text": "string",
    "array": "array", "list": "array", "list of lists": "array",
    "object": "object", "dict": "object", "dictionary": "object", "json": "object",
    "none": "null", "null": "null",
}
_PLACEHOLDER = re.compile(r"^(?:\{[^{}]*\}|<[^<>]*>)$")
_EMBEDDED = re.compile(r"\{[^{}]*\}|<[^<>]*>")
_CONTAINER = {"discriminator": "microversion"}
_DATA_KEY = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
                       re.IGNORECASE)
_CHILD_KEYS = ("properties", "items", "additionalProperties", "patternProperties", "required")


def json_type(text: Any) -> str | None:
    """The JSON-schema type for api-ref's free-text type; None for odd ones
    ("string or object", "key-only (no value required)")."""
    return _TYPES.get(" ".join(str(text).lower().split())) if text is not None else None


def split_name(name: str) -> list[str]:
    """`allocations.{consumer_uuid}.user_id` -> 3 segments; dots inside braces stay."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in name:
        if char in "{<":
            depth += 1
        elif char in "}>":
            depth = max(depth - 1, 0)
        if char == "." and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p] or [name]


def range_of(schema: Schema) -> VersionRange:
    """The bounds this module wrote into a schema's `x-openstack`."""
    ext = schema.get(OPENSTACK_KEY)
    if not isinstance(ext, dict):
        return ALL
    return VersionRange(parse_version(ext.get(MIN_VERSION_KEYS[0])),
                        parse_version(ext.get(MAX_VERSION_KEYS[0])))


def disjoint(a: VersionRange, b: VersionRange) -> bool:
    return a.intersect(b).empty


def row_schema(row: Row, warn: Callable[[str, str], None]) -> Schema:
    """The schema of one row, without nesting."""
    schema: Schema = {}
    raw_type = row.fields.get("type")
    kind = json_type(raw_type)
    if kind is not None:
        schema["type"] = kind
    elif raw_type is not None and str(raw_type).strip().lower() not in (
            "string or object", "string or json", "key-only (no value required)", "enum"):
        warn(row.definition, f"type {raw_type!r} is not a JSON type; left open")
    description = row.fields.get("description")
    if isinstance(description, str) and description.strip():
        schema["description"] = description.strip()
        values = prose.allowed_values(description) if kind in ("string", None) else None
        if values:
            schema["enum"] = values
            schema[INFERRED_KEY] = True
    ext = version_ext(row.versions)
    if ext:
        schema[OPENSTACK_KEY] = ext
    if row.inferred_versions:
        schema[INFERRED_KEY] = True
    schema[LOCATION_KEY] = row.location
    return schema


@dataclass
class _Examples:
    """Where each key occurs in the operation's example bodies."""

    parents: dict[str, list[BodyPath]] = field(default_factory=dict)
    types: dict[BodyPath, str] = field(default_factory=dict)

    def add(self, data: Any, path: BodyPath = ()) -> None:
        if isinstance(data, dict):
            self.types.setdefault(path, "object")
            for raw_key, value in data.items():
                # A key that is data (placement keys allocations by provider UUID) is a
                # map key: `{*}`, never a property name.
                key = "{*}" if _DATA_KEY.match(str(raw_key)) else str(raw_key)
                found = self.parents.setdefault(key, [])
                if path not in found:
                    found.append(path)
                self.add(value, (*path, key))
        elif isinstance(data, list):
            self.types.setdefault(path, "array")
            for item in data:
                self.add(item, (*path, "*"))


class BodyBuilder:
    """Builds one body schema (one kind, one microversion variant) from its tables."""

    def __init__(self, examples: Iterable[Any], warn: Callable[[str, str], None],
                 location: str) -> None:
        self.root: Schema = {"type": "object", "properties": {}, LOCATION_KEY: location}
        self.warn = warn
        self.examples = list(examples)
        self.index = _Examples()
        for data in self.examples:
            self.index.add(data)
        self.placed: dict[str, list[Schema]] = {}  # name -> schemas placed, latest last
        self.paths: dict[int, BodyPath] = {id(self.root): ()}  # id(schema) -> its body path
        # Parents created because children needed them; a row for them may come later
        # (cinder sorts rows alphabetically, so `volume` follows its fields).
        self.implied: set[int] = set()

    def finish(self) -> Schema:
        """The body schema, with what the examples show for each of its fields."""
        if self.examples:
            self.root[EXAMPLE_KEYS_KEY] = True
            _mark_examples(self.root, self.examples)
        return self.root

    # -- where things go -----------------------------------------------------------------
    def owner(self, schema: Schema, versions: VersionRange = ALL) -> Schema:
        """The object schema that holds children of `schema` (array -> its items; a
        microversion container -> the (last) variant matching `versions`)."""
        return self.owners(schema, versions)[-1]

    def owners(self, schema: Schema, versions: VersionRange = ALL) -> list[Schema]:
        """Every object schema that holds children of `schema` at `versions`: each variant
        of a microversion container that they overlap (nova lists `events` twice, up to 2.50
        and from 2.51, then `events.event` for both), else its last variant."""
        if schema.get(OPENSTACK_KEY) == _CONTAINER and isinstance(schema.get("oneOf"), list):
            variants = schema["oneOf"]
            matching = [v for v in variants if not disjoint(range_of(v), versions)]
            return [owner for variant in (matching or variants[-1:])
                    for owner in self.owners(variant, versions)]
        if schema.get("type") == "array":
            items = schema.get("items")
            if not isinstance(items, dict):
                items = schema["items"] = {"type": "object"}
                if LOCATION_KEY in schema:
                    items[LOCATION_KEY] = schema[LOCATION_KEY]
                self.paths[id(items)] = (*self.paths.get(id(schema), ()), "*")
            return [items]
        return [schema]

    def at_path(self, path: BodyPath, location: str) -> Schema:
        """The schema at an example path, creating the parents the table left out."""
        node = self.root
        for depth, segment in enumerate(path):
            if segment == "*":
                node.setdefault("type", "array")
                node = self.owner(node)
                continue
            holder = self.owner(node)
            if segment == "{*}":
                extra = holder.get("additionalProperties")
                if not isinstance(extra, dict) or not extra:
                    extra = holder["additionalProperties"] = {
                        "type": self.index.types.get(path[: depth + 1], "object"),
                        INFERRED_KEY: True, LOCATION_KEY: location}
                    self.paths[id(extra)] = path[: depth + 1]
                node = extra
                continue
            props = holder.setdefault("properties", {})
            if segment not in props:
                kind = self.index.types.get(path[: depth + 1], "object")
                self.register(props, segment, {"type": kind, INFERRED_KEY: True,
                                               LOCATION_KEY: location}, holder)
                self.implied.add(id(props[segment]))
            node = props[segment]
        return node

    def register(self, props: Schema, name: str, schema: Schema, holder: Schema) -> None:
        props[name] = schema
        self.paths[id(schema)] = (*self.paths.get(id(holder), ()), name)
        self.placed.setdefault(name, []).append(schema)

    # -- the tables ----------------------------------------------------------------------
    def add_table(self, table: Table) -> None:
        rows = [r for r in table.rows if r.where == "body"]
        names = {r.name for r in rows}
        chain = self.wrapper_chain(rows)
        context = None if table.first else self.titled_parent(table.title)
        for i, row in enumerate(rows):
            segments = split_name(row.name)
            if len(segments) == 1:
                parent, inferred = self.flat_parent(row.name, context, chain, row.location)
                schema = self.add(parent, row.name, row, inferred)
                if i < len(chain):
                    context = schema  # the next rows go inside this wrapper
                elif self.index.parents and row.name in self.index.parents and not chain:
                    # With an example, a name it lacks sits beside its neighbour above
                    # (cinder sorts rows alphabetically, wrapper and all).
                    context = parent if parent is not self.root else None
                continue
            parents = self.prefix(segments[:-1], context, chain, row)
            last = segments[-1]
            stem = row.name[: -len(last) - 1]
            for parent in parents:
                if last in ("key", "value") and {f"{stem}.key", f"{stem}.value"} <= names:
                    holder = self.owner(parent, row.versions)
                    if last == "value":
                        holder["additionalProperties"] = row_schema(row, self.warn)
                    else:
                        holder.setdefault("additionalProperties", {})
                else:
                    self.add(parent, last, row, False)

    def wrapper_chain(self, rows: Sequence[Row]) -> list[Row]:
        """The rows that wrap the flat rows after them: an object/array first row followed
        by a flat row; then `keypairs` (array) + `keypair` (object) nests twice. An example
        that has both names, the second not inside the first, disproves it."""
        if len(rows) < 2 or any(len(split_name(r.name)) > 1 for r in rows[:2]):
            return []
        first, second = rows[0], rows[1]
        if json_type(first.fields.get("type")) not in ("object", "array"):
            return []
        outer = self.index.parents.get(first.name, [])
        inner = self.index.parents.get(second.name, [])
        if outer and inner and not any(p[len(o):len(o) + 1] == (first.name,) and p[:len(o)] == o
                                       for o in outer for p in inner):
            return []
        if len(rows) > 2 and json_type(second.fields.get("type")) == "object" and \
                first.name in (f"{second.name}s", f"{second.name}es") and \
                len(split_name(rows[2].name)) == 1:
            return [first, second]
        return [first]

    def titled_parent(self, title: str) -> Schema | None:
        """A sub-table titled "Request Step" holds the items of the `steps` placed earlier."""
        words = [w for w in re.findall(r"[a-z_]+", title.lower())
                 if not w.startswith(("request", "respon", "param"))]
        for start in range(len(words)):
            name = "_".join(words[start:])
            for candidate in (name, f"{name}s", f"{name}es"):
                if candidate in self.placed:
                    return self.placed[candidate][-1]
        return None

    def flat_parent(self, name: str, context: Schema | None, chain: Sequence[Row],
                    location: str) -> tuple[Schema, bool]:
        """Where a flat name goes: where the example has it, else inside the current
        wrapper (`<wrapper>_links` beside it), else the body root."""
        candidates = self.index.parents.get(name)
        if candidates:
            here = self.paths.get(id(self.owner(context)), ()) if context is not None else ()
            path = here if here in candidates else min(candidates, key=len)
            return self.at_path(path, location), bool(path)
        if context is None or (chain and name == f"{chain[0].name}_links"):
            return self.root, False
        return context, True

    def prefix(self, segments: list[str], context: Schema | None, chain: Sequence[Row],
               row: Row) -> list[Schema]:
        """The schemas that `a.b` in `a.b.c` names (one for each microversion variant of a
        parent that the row spans), creating what the table left out."""
        first = segments[0]
        # nova lists `security_groups` and then `security_group.name`: same parent.
        near = [n for n in (first, f"{first}s", f"{first}es", first[:-1] if first.endswith(
            "s") else first) if n in self.placed]
        if near:
            nodes = [self.placed[near[0]][-1]]
        else:
            parent, _ = self.flat_parent(first, context, chain, row.location)
            nodes = [self.add(parent, first, None, True, location=row.location)]
        for segment in segments[1:]:
            nodes = [self.child(holder, segment, row.location)
                     for node in nodes for holder in self.owners(node, row.versions)]
        return nodes

    def child(self, holder: Schema, segment: str, location: str) -> Schema:
        """The schema `segment` names in `holder`, an implied object when the table did not
        list it."""
        if _PLACEHOLDER.match(segment):
            extra = holder.get("additionalProperties")
            if not isinstance(extra, dict) or not extra:
                extra = holder["additionalProperties"] = {"type": "object",
                                                          LOCATION_KEY: location}
            return extra
        props = holder.setdefault("properties", {})
        found: Schema | None = props.get(segment)
        if found is None:
            found = {"type": "object", INFERRED_KEY: True, LOCATION_KEY: location}
            self.register(props, segment, found, holder)
            self.implied.add(id(found))
        return found

    def add(self, parent: Schema, name: str, row: Row | None, inferred: bool, *,
            location: str = "") -> Schema:
        """Put `row` (or an implied object when None) under `parent` as `name`: under each
        microversion variant of `parent` the row spans (the last one's is returned)."""
        versions = row.versions if row is not None else ALL
        holders = self.owners(parent, versions)
        for holder in holders[:-1]:
            self._add_to(holder, name, row, inferred, location)
        return self._add_to(holders[-1], name, row, inferred, location)

    def _add_to(self, holder: Schema, name: str, row: Row | None, inferred: bool,
                location: str) -> Schema:
        schema: Schema = row_schema(row, self.warn) if row is not None else {
            "type": "object", LOCATION_KEY: location}
        if inferred:
            schema[INFERRED_KEY] = True
        if _PLACEHOLDER.match(name):
            holder["additionalProperties"] = schema
            return schema
        if _EMBEDDED.search(name):
            parts = re.split(f"({_EMBEDDED.pattern})", name)
            pattern = "".join(".+" if _EMBEDDED.fullmatch(p) else re.escape(p) for p in parts)
            holder.setdefault("patternProperties", {})[f"^{pattern}$"] = schema
            return schema
        props = holder.setdefault("properties", {})
        existing = props.get(name)
        if existing is None:
            self.register(props, name, schema, holder)
            if row is None:
                self.implied.add(id(schema))
        elif row is not None and id(existing) in self.implied:
            self.implied.discard(id(existing))
            children = {k: v for k, v in existing.items() if k in _CHILD_KEYS}
            existing.clear()
            existing.update(schema, **children)
            schema = existing
        else:
            schema = self.merge(props, name, existing, schema, row)
        if row is not None and row.fields.get("required") is True and \
                name not in holder.get("required", []):
            holder.setdefault("required", []).append(name)
        return schema

    def merge(self, props: Schema, name: str, existing: Schema, new: Schema, row: Row | None
              ) -> Schema:
        """The same name again at one place: microversion variants, or a duplicate."""
        is_container = existing.get(OPENSTACK_KEY) == _CONTAINER
        variants = existing["oneOf"] if is_container else [existing]
        if row is None or not all(disjoint(range_of(v), range_of(new)) for v in variants):
            if row is not None:
                self.warn(row.location.split(" ", 1)[0],
                          f"'{row.name}' is listed twice at one place with overlapping "
                          f"microversions; the first row is kept")
            return existing
        self.paths[id(new)] = self.paths.get(id(existing), ())
        if is_container:
            existing["oneOf"].append(new)
        else:
            container = {"oneOf": [existing, new], OPENSTACK_KEY: dict(_CONTAINER),
                         LOCATION_KEY: existing.get(LOCATION_KEY, new[LOCATION_KEY])}
            self.paths[id(container)] = self.paths.get(id(existing), ())
            props[name] = container
            self.placed.setdefault(name, []).append(container)
        return new


# -- example evidence ---------------------------------------------------------------------------
def example_type(value: Any) -> str:
    """The JSON type of a parsed JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _shown(values: Sequence[Any]) -> str | list[str]:
    """One type, or the sorted types when the examples disagree (JSON schema's `type`); an
    integer beside a fraction is a number."""
    kinds = {example_type(v) for v in values}
    if {"integer", "number"} <= kinds:
        kinds.discard("integer")
    return next(iter(kinds)) if len(kinds) == 1 else sorted(kinds)


def _mark_examples(schema: Schema, values: Sequence[Any]) -> None:
    """Walk the example values that sit where `schema` is, recording what they show for each
    child schema (a microversion container's variants all see the same values)."""
    if schema.get(OPENSTACK_KEY) == _CONTAINER and isinstance(schema.get("oneOf"), list):
        for variant in schema["oneOf"]:
            if isinstance(variant, dict):
                _mark_examples(variant, values)
        return
    objects = [v for v in values if isinstance(v, dict)]
    props = schema.get("properties")
    named = props if isinstance(props, dict) else {}
    for name, child in named.items():
        _mark_child(child, [o[name] for o in objects if name in o])
    rest = [(str(k), v) for o in objects for k, v in o.items() if k not in named]
    patterns = schema.get("patternProperties")
    for pattern, child in (patterns.items() if isinstance(patterns, dict) else ()):
        try:
            matcher = re.compile(pattern)
        except re.error:
            continue
        matched = [(k, v) for k, v in rest if matcher.search(k)]
        _mark_child(child, [v for _, v in matched])
        rest = [(k, v) for k, v in rest if not matcher.search(k)]
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        _mark_child(extra, [v for _, v in rest])
    else:
        # What the API already returned (accepted) beside the rows: a row added for one of
        # these later documents it late. Keys that are data (uuids) name no field.
        unlisted = sorted({k for k, _ in rest if not _DATA_KEY.match(k)})
        if unlisted:
            schema[EXAMPLE_UNLISTED_KEY] = unlisted
    items = schema.get("items")
    if isinstance(items, dict):
        _mark_child(items, [x for v in values if isinstance(v, list) for x in v])


def _mark_child(schema: Any, values: Sequence[Any]) -> None:
    if not isinstance(schema, dict) or not values:
        return
    if schema.get(OPENSTACK_KEY) == _CONTAINER and isinstance(schema.get("oneOf"), list):
        for variant in schema["oneOf"]:
            _mark_child(variant, values)
        return
    schema[EXAMPLE_KEY] = {"type": _shown(values)}
    _mark_examples(schema, values)
