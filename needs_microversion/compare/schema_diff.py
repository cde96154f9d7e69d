"""What differs between two schemas at one pair of versions: their own keywords, and the
pairs of schemas below them (properties, items, alternatives, subschemas) to search next.

Differences are `Rel`s, relative to where the schemas are used; `schema_search.py` walks the
pairs and prefixes each difference with the pointer that leads to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from needs_microversion.compare.announcements import Announcements
from needs_microversion.compare.samples import since
from needs_microversion.model.change import Aspect, Kind
from needs_microversion.model.extensions import (
    EXAMPLE_KEY, EXAMPLE_UNLISTED_KEY, UNDECLARED_KEY)
from needs_microversion.model.schema import Prop, RawSchema, Schema, SchemaLookup
from needs_microversion.model.versions import Version


class Rel(NamedTuple):
    """A difference inside a schema, relative to where the schema is used (a NamedTuple:
    cheap to copy, and there are many)."""

    pointer: str
    kind: Kind
    aspect: Aspect
    detail: str = ""
    old: Any = None
    new: Any = None
    old_at: RawSchema | None = None
    new_at: RawSchema | None = None
    inferred: bool = False
    free_form: bool = False
    since: Version | None = None
    delta: str = ""
    # What the old document's own example showed (api-ref records it): the types it shows
    # at a type change; whether it showed an added key beside the table.
    example_types: frozenset[str] | None = None
    example_listed: bool = False
    declared: bool = False  # the old schema was undeclared (code), the new one is not
    # Removed whole: the new document has the element at no version, so it is first seen
    # removed where the old one starts it, and is removed at every version it had.
    whole: bool = False



class Child(NamedTuple):
    """A pair of schemas below another, and the pointer segment that leads there."""

    segment: str
    old: RawSchema | None
    new: RawSchema | None


def _reshaped(sa: Schema, sb: Schema) -> Child | None:
    """An object corrected to an array of such objects (or back): the type change is the
    difference, and the object is compared with the array's items at the same pointer, so
    its members are not all removed and added again (manila's `group_snapshot_members`)."""
    plain_a = (sa.types or frozenset()) - {"null"}
    plain_b = (sb.types or frozenset()) - {"null"}
    if plain_a == {"object"} and plain_b == {"array"} and sa.properties \
            and sb.items is not None:
        return Child("", sa.location, sb.items)
    if plain_a == {"array"} and plain_b == {"object"} and sb.properties \
            and sa.items is not None:
        return Child("", sa.items, sb.location)
    return None


class PairDiff:
    """The own differences of schema pairs, and the pairs below them."""

    def __init__(self, old_table: SchemaLookup, new_table: SchemaLookup,
                 announcements: Announcements, floor: Version) -> None:
        self.old_table, self.new_table = old_table, new_table
        self.announcements, self.floor = announcements, floor

    def own(self, sa: Schema, sb: Schema, va: Version, vb: Version, direction: str
            ) -> Iterable[Rel | Child]:
        """The pair's own differences and the pairs below it; where the old side is a schema
        the code declared none of (anything went), each difference is coverage."""
        found = self._own(sa, sb, va, vb, direction)
        if not (_undeclared(sa) and not _undeclared(sb)):
            return found
        # What the new schema declares below (an array's items) is declared with it: no
        # pair of its own, whose old side would read as absent (an item "added").
        return (item._replace(declared=True) if isinstance(item, Rel) else item
                for item in found if isinstance(item, Rel) or item.old is not None)

    def _own(self, sa: Schema, sb: Schema, va: Version, vb: Version, direction: str
             ) -> Iterable[Rel | Child]:
        at: dict[str, Any] = {"old_at": sa.location, "new_at": sb.location,
                              "inferred": sa.inferred or sb.inferred}
        if self.announcements.old_max is not None:
            announced = self.announcements.news(_description(sa), _description(sb))
            if announced:
                yield Rel("", "changed", "announcement", str(announced[0]), None,
                          str(announced[0]), sa.location, sb.location, True)
        plain_a = (sa.types or frozenset()) - {"null"}
        plain_b = (sb.types or frozenset()) - {"null"}
        # A scalar corrected to an array (or back): its items come or go with the type
        # change, which says it (nova's `network_label`: string -> array of pairs).
        retyped = bool(plain_a and plain_b and plain_a != plain_b)
        if sa.types != sb.types:
            if sa.types is not None and sb.types is not None and plain_a == plain_b:
                yield Rel("", "changed", "nullable", old="null" in sa.types,
                          new="null" in sb.types, **at)
            else:
                yield Rel("", "changed", "type", old=_type_text(sa.types),
                          new=_type_text(sb.types), example_types=_example_types(sa), **at)
        if sa.enum != sb.enum:
            yield from _enum_rels(sa.enum, sb.enum, at)
        for keyword in sorted(set(sa.constraints) | set(sb.constraints)):
            if sa.constraints.get(keyword) != sb.constraints.get(keyword):
                old, new = _load(sa.constraints.get(keyword)), _load(sb.constraints.get(keyword))
                yield Rel("", "changed", "constraint", keyword, old, new,
                          delta=_structured_delta(old, new), **at)
        reshaped = _reshaped(sa, sb)
        if reshaped is not None:  # one type change; the members compared as they stand
            yield reshaped
            return
        yield from self._diff_properties(sa, sb, va, vb, direction, at)
        if (sa.items is not None or sb.items is not None) and \
                not (retyped and (sa.items is None or sb.items is None)):
            yield Child("/*", sa.items, sb.items)
        free_a, free_b = _additional(sa.additional), _additional(sb.additional)
        if free_a != free_b and not (isinstance(sa.additional, RawSchema)
                                     and isinstance(sb.additional, RawSchema)):
            yield Rel("", "changed", "free-form", "additionalProperties", free_a, free_b, **at)
        if isinstance(sa.additional, RawSchema) and isinstance(sb.additional, RawSchema):
            yield Child("/{*}", sa.additional, sb.additional)
        yield from self._diff_alternatives(sa, sb, va, vb, direction, at)
        if sa.all_of is not None and sb.all_of is not None and sa.all_of != sb.all_of:
            yield Rel("", "changed", "composition", "allOf", len(sa.all_of), len(sb.all_of),
                      **at)
        for name in sorted(set(sa.subschemas) | set(sb.subschemas)):
            a, b = sa.subschemas.get(name), sb.subschemas.get(name)
            if a is None or b is None:
                yield Rel("", "changed", "constraint", name.strip("{}"),
                          a is not None or None, b is not None or None, **at)
                continue
            yield Child("/" + name, a, b)

    def _diff_properties(self, sa: Schema, sb: Schema, va: Version, vb: Version,
                         direction: str, at: dict[str, Any]) -> Iterable[Rel | Child]:
        pa, pb = _visible(sa, va, direction), _visible(sb, vb, direction)
        # A key documented in (or taken out of) a map of the user's keys: the side that
        # declares none says the keys were never the API's.
        free = (sa.free_form and sb.open_keys) or (sb.free_form and sa.open_keys)
        for name in sorted(set(pa) | set(pb) | sa.required ^ sb.required):
            a, b = pa.get(name), pb.get(name)
            segment = "/" + name.replace("~", "~0").replace("/", "~1")
            if a is None and b is None:
                # `required` lists a name no property declares (a declared one that is not
                # visible at this version is not required here either).
                if name not in sa.properties and name not in sb.properties:
                    yield Rel(segment, "changed", "required", old=name in sa.required,
                              new=name in sb.required, **at)
                continue
            if a is None or b is None:
                prop = b or a
                assert prop is not None
                table = self.new_table if a is None else self.old_table
                shown = summary(table.get(prop.schema))
                yield Rel(segment, "added" if a is None else "removed", "",
                          old=a and {**shown, "required": name in sa.required},
                          new=b and {**shown, "required": name in sb.required},
                          old_at=a.schema if a else None, new_at=b.schema if b else None,
                          inferred=at["inferred"] or table.get(prop.schema).inferred,
                          free_form=free, since=since(
                               sb.properties[name].versions if name in sb.properties else None,
                               vb, self.floor),
                          example_listed=a is None and _example_listed(sa, name),
                          whole=b is None and name not in sb.properties)
                continue
            if (name in sa.required) != (name in sb.required):
                yield Rel(segment, "changed", "required", old=name in sa.required,
                          new=name in sb.required, old_at=a.schema, new_at=b.schema,
                          inferred=at["inferred"])
            yield Child(segment, a.schema, b.schema)

    def _diff_alternatives(self, sa: Schema, sb: Schema, va: Version, vb: Version,
                           direction: str, at: dict[str, Any]) -> Iterable[Rel | Child]:
        for keyword in sorted(set(sa.alternatives) | set(sb.alternatives)):
            la, lb = sa.alternatives.get(keyword, ()), sb.alternatives.get(keyword, ())
            if len(la) != len(lb):
                yield Rel("", "changed", "composition", keyword, len(la), len(lb), **at)
            pairs = _pair_branches(la, lb, lambda raw: self.old_table.get(raw).types,
                                   lambda raw: self.new_table.get(raw).types)
            for i, a, b in pairs:
                segment = f"/{{{keyword}:{i}}}" if max(len(la), len(lb)) > 1 else ""
                yield Child(segment, a, b)



def _example_types(old: Schema) -> frozenset[str] | None:
    """The types the old document's own example shows at a schema (api-ref records them,
    `x-needs-microversion-example`; an integer is a number too); None when it records
    none. Rule catch-up reads them (`rules/catch_up/matches_example.py`)."""
    node = old.location.node
    example = node.get(EXAMPLE_KEY) if isinstance(node, dict) else None
    shown = example.get("type") if isinstance(example, dict) else None
    # A list: the examples disagree (["null", "string"]), as JSON Schema writes several types.
    types = {shown} if isinstance(shown, str) else {t for t in shown if isinstance(t, str)} \
        if isinstance(shown, list) else set()
    types |= {"number"} if "integer" in types else set()
    return frozenset(types) or None


def _example_listed(old: Schema, name: str) -> bool:
    """Whether the old document's example already showed the field its table now lists
    (api-ref records the keys its examples show beside the rows, `x-needs-microversion-
    example-unlisted`). Rule catch-up reads it (`rules/catch_up/shown_in_example.py`)."""
    node = old.location.node
    keys = node.get(EXAMPLE_UNLISTED_KEY) if isinstance(node, dict) else None
    return isinstance(keys, list) and name in keys


def _undeclared(schema: Schema) -> bool:
    node = schema.location.node
    return isinstance(node, dict) and node.get(UNDECLARED_KEY) is True


def _description(schema: Schema) -> str:
    node = schema.location.node
    text = node.get("description") if isinstance(node, dict) else None
    return text if isinstance(text, str) else ""



def _visible(schema: Schema, version: Version, direction: str) -> dict[str, Prop]:
    hidden = "read_only" if direction == "request" else "write_only"
    return {name: prop for name, prop in schema.properties.items()
            if prop.versions.contains(version) and not getattr(prop, hidden)}



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
               ) -> Iterable[Rel]:
    if old is None or new is None:
        # Gaining an enum restricts the values (some removed); losing it accepts any value.
        yield Rel("", "removed" if old is None else "added", "enum", "enum",
                  _values(old), _values(new), **at)
        return
    if new - old:
        yield Rel("", "added", "enum", "enum", None, _values(new - old), **at)
    if old - new:
        yield Rel("", "removed", "enum", "enum", _values(old - new), None, **at)


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


def prefix(rel: Rel, segment: str) -> Rel:
    return rel._replace(pointer=segment + rel.pointer)


def _additional(value: bool | RawSchema | None) -> Any:
    if value is None or value is True:
        return True  # JSON Schema allows unlisted keys unless told otherwise
    return "schema" if isinstance(value, RawSchema) else value


def summary(schema: Schema) -> dict[str, Any]:
    summary: dict[str, Any] = {"type": _type_text(schema.types)}
    if schema.enum is not None:
        summary["enum"] = _values(schema.enum)
    return summary


def _type_text(types: frozenset[str] | None) -> str:
    return "any" if types is None else "|".join(sorted(types))


def _load(value: str | None) -> Any:
    return None if value is None else json.loads(value)

