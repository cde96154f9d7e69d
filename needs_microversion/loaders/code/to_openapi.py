"""The code contract's table -> the OpenAPI 3.1 document of docs/contract-model.md.

* An operation per (method, path, action); an action is the path key `.../action#name`
  (each action has its own microversions, codes and bodies). Its `x-openstack` bounds are
  those of its methods (the hull when nova's versioned methods serve it).
* A body that differs by microversion is a microversion container (`oneOf` with
  `x-openstack: {discriminator: microversion}`), each variant bounded.
* Where the code declares no schema (no decorator for some or all microversions), the
  schema is `{"x-needs-microversion-undeclared": true}`: it accepts anything, as the code
  validates nothing there, and says so, so that a rule can tell "a schema now declared
  where none was" (coverage) from a contract change. A GET has no `requestBody` at all;
  a DELETE's, when no schema is declared, is undeclared and not required.
* Query schemas become query parameters (one per property, a microversion container when
  it differs by version), and the whole query schema is kept on the operation under
  `x-needs-microversion-query`, since "no other query parameter" (`additionalProperties:
  false`) is not something OpenAPI parameters can say.
* Success codes come from `@wsgi.response` (200 when a method declares none, as nova
  answers; none for a removed method, which only answers 410); error codes from
  `@wsgi.expected_errors`; `@wsgi.removed` is `x-needs-microversion-removed: "<release>"`
  on the operation.
* Every schema object written in the code carries `x-needs-microversion-location` (the
  line of its dict literal; a body's top: the decorator's line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from needs_microversion.loaders.code.output import Converter
from needs_microversion.model.extensions import OPAQUE_KEY
from needs_microversion.loaders.code.records import (
    CodeOperation, Declared, Implementation, range_key)
from needs_microversion.model.extensions import (
    DISCRIMINATOR_KEY, LOCATION_KEY, OPENSTACK_KEY,
    CODE_KEY, QUERY_KEY, RANGE_UNDECLARED_KEY, REMOVED_KEY, UNDECLARED_KEY, version_ext)
from needs_microversion.loaders.openapi.version_warnings import Marks, written_marks
from needs_microversion.model.versions import ALL, Version, VersionRange

_MEDIA = "application/json"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
Piece = tuple[VersionRange, tuple[Declared, ...], str]  # (where, declared there, location)


def build_document(project: str, operations: tuple[CodeOperation, ...],
                   max_version: Version | None, converter: Converter, *,
                   min_version: Version | None = None,
                   ranges_declared: bool = True) -> dict[str, Any]:
    """`min_version`: the first microversion the API serves (a bound there is no bound);
    `ranges_declared` False: a method with no version decorator is checked in its body
    (ironic), so its operation's range is marked undeclared (`RANGE_UNDECLARED_KEY`)."""
    out = _Out(converter, min_version)
    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        if not op.implementations:
            continue
        key = f"{op.path}#{op.action}" if op.action else op.path
        result = _operation(op, out)
        if not ranges_declared and all(i.versions == ALL for i in op.implementations):
            result[RANGE_UNDECLARED_KEY] = True
        paths.setdefault(key, {})[op.method.lower()] = result
    info = {"title": f"{project} (code)",
            "version": str(max_version) if max_version else "unversioned", CODE_KEY: True}
    return {"openapi": "3.1.0", "info": info, "paths": paths}


def written_marks_of(document: dict[str, Any], converter: Converter) -> Marks | None:
    """The document's microversion marks, from the nodes written here with `x-openstack`
    (`_Out`): the code's own data (what `converter` made) holds none, unless it says so
    (then None, and the document is walked)."""
    if converter.extended:
        return None
    found = []
    pending: list[Any] = [document["paths"]]
    while pending:
        node = pending.pop()
        if converter.made(node):
            continue
        if type(node) is dict:
            if OPENSTACK_KEY in node:
                found.append(node)
            pending.extend(value for value in node.values() if type(value) in _CONTAINERS)
        else:
            pending.extend(value for value in node if type(value) in _CONTAINERS)
    return written_marks(found)


_CONTAINERS = (dict, list)


@dataclass(frozen=True)
class _Out:
    """How values and ranges are written: converted once (`converter`), and bounded from
    the API's first microversion (`first`): what starts there was always there, however
    the code spells it (an undecorated method, or `'2.1'`), so no lower bound is written at
    it; and no alternative that ends below it is written (no schema "before 2.1": no such
    version is served), unless every alternative does."""

    converter: Converter
    first: Version | None

    def ext(self, versions: VersionRange) -> dict[str, str]:
        """The range's `x-openstack` bounds (empty for every version)."""
        if self.first is not None and versions.lo == self.first:
            versions = VersionRange(None, versions.hi)
        return version_ext(versions)

    def bounds(self, versions: VersionRange) -> dict[str, Any]:
        ext = self.ext(versions)
        return {OPENSTACK_KEY: ext} if ext else {}

    def served(self, variants: list[tuple[VersionRange, Any]]) -> list[Any]:
        """A microversion container's alternatives (range, schema), in order."""
        first = self.first
        kept = [schema for rng, schema in variants
                if first is None or rng.hi is None or rng.hi >= first]
        return kept or [schema for _, schema in variants]


def _operation(op: CodeOperation, out: _Out) -> dict[str, Any]:
    impls = op.implementations
    result: dict[str, Any] = {"summary": ", ".join(dict.fromkeys(i.method for i in impls)),
                              LOCATION_KEY: impls[0].location}
    bounds = out.ext(hull(i.versions for i in impls))
    if bounds:
        result[OPENSTACK_KEY] = bounds
    removed = next((i.removed for i in impls if i.removed), None)
    if removed:
        result[REMOVED_KEY] = removed
    queries = [(i.versions, i.queries, i.location) for i in impls]
    if op.method == "GET" or any(i.queries for i in impls):
        result[QUERY_KEY] = _part(queries, out)
        parameters = _query_parameters(queries, out)
        if parameters:
            result["parameters"] = parameters
    # A DELETE may carry a body a controller reads (cinder's `force`): with no schema it
    # is undeclared, as a POST's is, so a schema declared there later is coverage.
    if op.method in _BODY_METHODS or op.method == "DELETE" or any(i.requests for i in impls):
        schema = _part([(i.versions, i.requests, i.location) for i in impls], out)
        result["requestBody"] = {"content": {_MEDIA: {"schema": schema}},
                                 "required": op.method in _BODY_METHODS}
    result["responses"] = _responses(impls, out)
    return result


# -- bodies -------------------------------------------------------------------------------
def _part(pieces: list[Piece], out: _Out) -> dict[str, Any]:
    """One body over the operation's methods: declared variants, and undeclared gaps."""
    variants: list[tuple[VersionRange, dict[str, Any], bool]] = []
    for outer, declared, location in pieces:
        covered = []
        for item in declared:
            versions = item.versions.intersect(outer)
            if not versions.empty:
                covered.append(versions)
                variants.append((versions, _variant(item, versions, out), True))
        for gap in gaps(outer, covered):
            variants.append((gap, {UNDECLARED_KEY: True, LOCATION_KEY: location,
                                   **out.bounds(gap)}, False))
    variants.sort(key=lambda v: range_key(v[0]))
    if not any(declared for _, _, declared in variants):
        location = pieces[0][2] if pieces else ""
        return {UNDECLARED_KEY: True, LOCATION_KEY: location}
    if len(variants) == 1:
        return variants[0][1]
    first = next(schema for _, schema, declared in variants if declared)
    return {"oneOf": out.served([(rng, schema) for rng, schema, _ in variants]),
            OPENSTACK_KEY: {DISCRIMINATOR_KEY: "microversion"}, LOCATION_KEY: first[LOCATION_KEY]}


def _variant(item: Declared, versions: VersionRange, out: _Out) -> dict[str, Any]:
    schema = out.converter.convert(item.value)
    if isinstance(schema, dict) and OPAQUE_KEY not in schema:
        body = dict(schema)
    else:  # `true`/`false`, or a value the reader could not compute
        body = {"allOf": [schema]}
    body.pop(OPENSTACK_KEY, None)
    body.update(out.bounds(versions))
    body[LOCATION_KEY] = item.location
    return body


def _query_parameters(pieces: list[Piece], out: _Out) -> list[dict[str, Any]]:
    """One query parameter per property the query schemas name, across microversions."""
    found: dict[str, list[tuple[VersionRange, Any, str, bool]]] = {}
    for outer, declared, _ in pieces:
        for item in declared:
            versions = item.versions.intersect(outer)
            props = item.value.get("properties") if isinstance(item.value, dict) else None
            if versions.empty or not isinstance(props, dict):
                continue
            required = item.value.get("required", [])
            for name, schema in props.items():
                where = out.converter.origin(schema) or item.location
                found.setdefault(str(name), []).append(
                    (versions, schema, where, isinstance(required, list) and name in required))
    parameters = []
    for name, variants in sorted(found.items()):
        variants.sort(key=lambda v: range_key(v[0]))
        merged = _merge_equal(variants)
        param: dict[str, Any] = {"name": name, "in": "query",
                                 "required": any(v[3] for v in merged),
                                 LOCATION_KEY: merged[0][2]}
        whole = hull(v[0] for v in merged)
        if len(merged) == 1:
            param["schema"] = _lean(out.converter.convert(merged[0][1]))
        else:
            param["schema"] = {"oneOf": out.served(
                [(rng, {**_lean(out.converter.convert(schema)), **out.bounds(rng)})
                 for rng, schema, _, _ in merged]),
                               OPENSTACK_KEY: {DISCRIMINATOR_KEY: "microversion"}}
        bounds = out.ext(whole)
        if bounds:
            param[OPENSTACK_KEY] = bounds
        parameters.append(param)
    return parameters


def _merge_equal(variants: list[tuple[VersionRange, Any, str, bool]]
                 ) -> list[tuple[VersionRange, Any, str, bool]]:
    """Neighbouring ranges with an equal schema are one (nova repeats a query schema's
    properties in each microversion's copy)."""
    merged: list[tuple[VersionRange, Any, str, bool]] = []
    for rng, schema, where, required in variants:
        if merged:
            last = merged[-1]
            adjacent = last[0].hi is not None and rng.lo == last[0].hi.next()
            if adjacent and last[3] == required and _equal(last[1], schema):
                merged[-1] = (VersionRange(last[0].lo, rng.hi), last[1], last[2], required)
                continue
        merged.append((rng, schema, where, required))
    return merged


def _equal(left: Any, right: Any) -> bool:
    try:
        return bool(left == right)
    except RecursionError:
        return False


def _lean(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: v for k, v in schema.items() if k != LOCATION_KEY}
    return {"allOf": [schema]}


# -- responses ---------------------------------------------------------------------------
def _responses(impls: tuple[Implementation, ...], out: _Out) -> dict[str, Any]:
    success: dict[int, list[tuple[VersionRange, Implementation, str]]] = {}
    errors: dict[int, list[tuple[VersionRange, str]]] = {}
    for impl in impls:
        # nova answers 200 when a method declares no code; a removed one only ever 410.
        implied = () if impl.removed else (Declared(200, ALL, impl.location),)
        declared = impl.codes or implied
        for item in declared:
            versions = item.versions.intersect(impl.versions)
            if isinstance(item.value, int) and not versions.empty:
                success.setdefault(item.value, []).append((versions, impl, item.location))
        for item in impl.errors:
            versions = item.versions.intersect(impl.versions)
            codes = item.value if isinstance(item.value, tuple) else ()
            for code in codes:
                if not versions.empty:
                    errors.setdefault(code, []).append((versions, item.location))
    result: dict[str, Any] = {}
    for code, uses in sorted(success.items()):
        response = _response("success", uses[0][2], [u[0] for u in uses], out)
        body = _part([(rng, impl.responses, where) for rng, impl, where in uses], out)
        response["content"] = {_MEDIA: {"schema": body}}
        result[str(code)] = response
    for code, places in sorted(errors.items()):
        result.setdefault(str(code), _response("expected error", places[0][1],
                                               [p[0] for p in places], out))
    return result


def _response(description: str, location: str, ranges: list[VersionRange], out: _Out
              ) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, LOCATION_KEY: location}
    bounds = out.ext(hull(ranges))
    if bounds:
        response[OPENSTACK_KEY] = bounds
    return response


# -- microversion ranges -----------------------------------------------------------------
def hull(ranges: Any) -> VersionRange:
    """The smallest range holding all of them (an unbounded side stays unbounded)."""
    ranges = list(ranges)
    if not ranges:
        return ALL
    los, his = [r.lo for r in ranges], [r.hi for r in ranges]
    lo = None if None in los else min(v for v in los if v is not None)
    hi = None if None in his else max(v for v in his if v is not None)
    return VersionRange(lo, hi)


def gaps(outer: VersionRange, covered: list[VersionRange]) -> list[VersionRange]:
    """The parts of `outer` that no range of `covered` holds. Nothing lies below an X.0
    (an API's first version), so no gap is made there."""
    found: list[VersionRange] = []
    start = outer.lo
    for rng in sorted((r.intersect(outer) for r in covered), key=range_key):
        if rng.empty:
            continue
        if rng.lo is not None and (start is None or start < rng.lo):
            below = Version(rng.lo.major, rng.lo.minor - 1) if rng.lo.minor > 0 else None
            if below is not None and (start is None or start <= below):
                found.append(VersionRange(start, below))
        if rng.hi is None:
            return found
        if start is None or rng.hi.next() > start:
            start = rng.hi.next()
    if outer.hi is None or start is None or start <= outer.hi:
        found.append(VersionRange(start, outer.hi))
    return found
