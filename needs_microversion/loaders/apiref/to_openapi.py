"""`Section` records -> the OpenAPI 3.1 document of docs/contract-model.md.

Paths: the URL as written minus its query string, with the version prefix (`/v2.1`, `/v3`)
and the project segment (`{project_id}`, `{tenant_id}`, `{admin_project_id}`...) dropped,
so trees that write URLs differently still match. A tree that documents several major
versions side by side (cinder's v2 and v3) keeps its `/vN` prefixes, or they would collide.
Sections sharing a `.../action` URL are one operation per action (`#name` path-key suffix);
other sections sharing a method and path shape are merged (union of tables and codes) with
a warning.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from needs_microversion.loaders.apiref import prose
from needs_microversion.loaders.apiref.body import (
    BodyBuilder, Schema, json_type, range_of, row_schema)
from needs_microversion.loaders.apiref.records import Code, Row, Section, Table
from needs_microversion.model.extensions import (
    ASIDES_KEY, EXAMPLE_BODIES_KEY, EXAMPLE_KEYS_KEY, INFERRED_KEY, LOCATION_KEY, MAJORS_KEY,
    OPENSTACK_KEY, version_ext)
from needs_microversion.model.versions import ALL, VersionRange

_METHODS = ("GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE")
_VERSION_SEGMENT = re.compile(r"^v(\d+)(?:\.\d+)?$")
_PROJECT_SEGMENTS = frozenset({"project_id", "tenant_id", "admin_project_id",
                               "admin_tenant_id", "project-id", "tenant-id"})
_PLACEHOLDER = re.compile(r"\{[^}/]*\}")
_SLASHES = re.compile(r"/{2,}")
_MEDIA = "application/json"

Warn = Callable[[str, str], None]


@dataclass(frozen=True)
class _Group:
    method: str
    path: str  # the path key without "#action"
    action: str | None
    sections: tuple[Section, ...]


class Built(Protocol):
    """Operations built before, found by their group and sections (`kept_operations`)."""

    def get(self, method: str, path: str, action: str | None, sections: Sequence[Section]
            ) -> tuple[dict[str, Any], list[tuple[str, str]]] | None: ...

    def put(self, method: str, path: str, action: str | None, sections: Sequence[Section],
            op: dict[str, Any], warned: list[tuple[str, str]]) -> None: ...


def build_document(sections: Sequence[Section], *, title: str, version: str | None,
                   warn: Warn, keep_major: bool | None = None,
                   built: Built | None = None) -> dict[str, Any]:
    """`built`: where operations built before are found (with the warnings they gave),
    and where those built here are told of."""
    if keep_major is None:
        keep_major = _several_majors(sections, warn)
    paths: dict[str, dict[str, Any]] = {}
    for group in _groups(sections, keep_major, warn):
        key = f"{group.path}#{group.action}" if group.action else group.path
        paths.setdefault(key, {})[group.method.lower()] = _built(group, warn, built)
    info: dict[str, Any] = {"title": title, "version": version or "unversioned"}
    if keep_major:
        info[MAJORS_KEY] = True
    return {"openapi": "3.1.0", "info": info, "paths": paths}


# -- paths and grouping ---------------------------------------------------------------------
def normalise_path(url: str, *, keep_major: bool) -> str:
    """`/v3/{project_id}/volumes` -> `/volumes` (`/v3/volumes` with keep_major)."""
    # `//v2/{tenant_id}/types`: a slash written twice separates nothing
    path = _SLASHES.sub("/", "/" + url.split("?", 1)[0].strip())
    segments = path.split("/")
    rest = segments[1:]
    prefix: list[str] = []
    if rest and _VERSION_SEGMENT.match(rest[0]) and any(rest[1:]):
        prefix = [rest[0].split(".")[0]] if keep_major else []
        rest = rest[1:]
    if rest and rest[0].startswith("{") and rest[0].strip("{}") in _PROJECT_SEGMENTS:
        rest = rest[1:]
    return "/" + "/".join(prefix + rest)


def shape(path: str) -> str:
    return _PLACEHOLDER.sub("{}", path).rstrip("/") or "/"


def _several_majors(sections: Sequence[Section], warn: Warn) -> bool:
    majors: dict[str, str] = {}
    for section in sections:
        rest = section.url.split("?", 1)[0].strip("/").split("/")
        match = _VERSION_SEGMENT.match(rest[0])
        if match and len(rest) > 1:
            majors.setdefault(match.group(1), section.location)
    if len(majors) < 2:
        return False
    names = ", ".join(f"v{m}" for m in sorted(majors, key=int))
    warn(next(iter(majors.values())),
         f"this tree documents several API versions ({names}): version prefixes are kept in "
         f"paths (in the other tree of a diff too)")
    return True


def _groups(sections: Sequence[Section], keep_major: bool, warn: Warn) -> list[_Group]:
    found: dict[tuple[str, str, str | None], list[Section]] = {}
    path_for_shape: dict[str, str] = {}
    for section in sections:
        method = section.method.upper()
        if method not in _METHODS:
            warn(section.location, f"'{section.method}' is not an HTTP method (a placeholder?);"
                                   f" operation not recorded")
            continue
        path = normalise_path(section.url, keep_major=keep_major)
        path = path_for_shape.setdefault(shape(path), path)
        action = _action(section, warn) if shape(path).endswith("/action") else None
        found.setdefault((method, path, action), []).append(section)
    groups = []
    for (method, path, action), members in found.items():
        if len(members) > 1:
            what = f"action '{action}'" if action else "operation"
            where = ", ".join(s.location for s in members[1:])
            warn(members[0].location,
                 f"{len(members)} sections document {what} {method} {path} (also {where}); "
                 f"merged: union of their parameters and codes")
        groups.append(_Group(method, path, action, tuple(members)))
    return groups


def _action(section: Section, warn: Warn) -> str:
    """The action's body key, from the most to the least reliable evidence: the single key
    of the request example; "(name Action)" in the title or "Specify the ``name`` action" in
    the prose (spelled as the request body row of that name, whatever the case); the first
    object- or null-typed request body row; the first request body row; else the title
    itself (with a warning)."""
    for example in section.examples:
        if example.kind == "request" and isinstance(example.data, dict) and \
                len(example.data) == 1:
            return str(next(iter(example.data)))
    rows = [r for t in section.tables if t.kind == "request" for r in t.rows
            if r.where == "body" and "." not in r.name]
    named = prose.action_in_title(section.title) or section.action_hint
    if named:
        # A title spells the key loosely ("(Shelveoffload Action)"); the row is the wire key.
        return next((r.name for r in rows if r.name.lower() == named.lower()), named)
    wrapper = next((r for r in rows if json_type(r.fields.get("type")) in ("object", "null")),
                   rows[0] if rows else None)
    if wrapper is not None:
        return wrapper.name
    warn(section.location, f"action section '{section.title}' names no action (no body "
                           f"parameter, example or '(name Action)' title); keyed by its title")
    return section.title


# -- one operation ------------------------------------------------------------------------
def _built(group: _Group, warn: Warn, built: Built | None) -> dict[str, Any]:
    """The group's operation: as built before, its warnings said again, or built here."""
    found = None if built is None else built.get(group.method, group.path, group.action,
                                                 group.sections)
    if found is not None:
        for where, message in found[1]:
            warn(where, message)
        return found[0]
    warned: list[tuple[str, str]] = []

    def said(where: str, message: str) -> None:
        warned.append((where, message))
        warn(where, message)

    op = _operation(group, warn if built is None else said)
    if built is not None:
        built.put(group.method, group.path, group.action, group.sections, op, warned)
    return op


def _operation(group: _Group, warn: Warn) -> dict[str, Any]:
    first = group.sections[0]
    tables = _union(group.sections)
    examples = [e for s in group.sections for e in s.examples]
    op: dict[str, Any] = {"summary": first.title, LOCATION_KEY: first.location}
    description = "\n\n".join(dict.fromkeys(s.description for s in group.sections
                                             if s.description))
    if description:
        op["description"] = description
    asides = "\n\n".join(dict.fromkeys(s.asides for s in group.sections if s.asides))
    if asides:
        op[ASIDES_KEY] = asides
    versions = _hull(s.versions for s in group.sections)
    if version_ext(versions):
        op[OPENSTACK_KEY] = version_ext(versions)
    if any(s.inferred_versions for s in group.sections):
        op[INFERRED_KEY] = True
    shown = sorted({kind for s in group.sections for kind in s.example_bodies})
    if shown:
        op[EXAMPLE_BODIES_KEY] = shown
    if all(s.deprecated for s in group.sections):
        op["deprecated"] = True
    placeholders = {p.strip("{}") for p in _PLACEHOLDER.findall(group.path)}
    params = _parameters(tables, placeholders, warn)
    if params:
        op["parameters"] = params
    request = _body(tables, "request", [e.data for e in examples if e.kind == "request"], warn)
    if request is not None:
        required = any(r.fields.get("required") is True and "." not in r.name
                       for t in tables if t.kind == "request" for r in t.rows
                       if r.where == "body")
        op["requestBody"] = {"content": {_MEDIA: {"schema": request}}, "required": required}
    response = _body(tables, "response", [e.data for e in examples if e.kind != "request"],
                     warn)
    headers = _response_headers(tables, warn)
    op["responses"] = _responses([c for s in group.sections for c in s.codes], response,
                                 headers, tables, first.location, warn)
    return op


def _union(sections: Sequence[Section]) -> list[Table]:
    """The tables of merged sections. Rows of a later section join the earlier table of the
    same kind and range (so they nest like its rows); a row already listed is dropped (the
    first definition wins, as for duplicates inside one table)."""
    tables: list[Table] = []
    seen: set[tuple[str, str, str]] = set()
    for index, section in enumerate(sections):
        for table in section.tables:
            keys = [(table.kind, r.where, r.name.lower() if r.where == "header" else r.name)
                    for r in table.rows]
            if index == 0:
                tables.append(table)
            else:
                rows = tuple(r for r, k in zip(table.rows, keys, strict=True) if k not in seen)
                host = next((i for i, t in enumerate(tables)
                             if t.kind == table.kind and t.versions == table.versions), None)
                if host is None:
                    tables.append(replace(table, rows=rows))
                else:
                    tables[host] = replace(tables[host], rows=tables[host].rows + rows)
            seen.update(keys)
    return tables


def _parameters(tables: Sequence[Table], placeholders: set[str], warn: Warn
                ) -> list[dict[str, Any]]:
    """Path, query and request-header rows (a query row in a response table is still a
    query parameter: where it is sent decides, not which table lists it)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    first_rows: dict[tuple[str, str], Row] = {}
    for table in tables:
        for row in table.rows:
            if row.where == "body" or (row.where == "header" and table.kind != "request"):
                continue
            if row.where == "path" and row.name not in placeholders and \
                    row.name in _PROJECT_SEGMENTS:
                continue  # the project segment was dropped from the path
            key = (row.where, row.name.lower() if row.where == "header" else row.name)
            versions = row.versions.intersect(table.versions)
            schema = _lean(row_schema(_ranged(row, versions), warn))
            param = found.get(key)
            if param is None:
                found[key] = _parameter(row, schema, versions)
                first_rows[key] = row
            elif row.fields != first_rows[key].fields:  # the same definition again: no news
                _add_variant(param, schema, versions, row, warn)
    return list(found.values())


def _parameter(row: Row, schema: Schema, versions: VersionRange) -> dict[str, Any]:
    param: dict[str, Any] = {"name": row.name, "in": row.where,
                             "required": row.where == "path" or row.fields.get("required") is True,
                             "schema": schema, LOCATION_KEY: row.location}
    if "description" in schema:
        param["description"] = schema.pop("description")
    if version_ext(versions):
        param[OPENSTACK_KEY] = version_ext(versions)
    if schema.get(INFERRED_KEY):
        param[INFERRED_KEY] = True
    return param


def _add_variant(param: dict[str, Any], schema: Schema, versions: VersionRange, row: Row,
                 warn: Warn) -> None:
    """The same parameter listed again: version variants become a microversion container."""
    current = param["schema"]
    variants = current["oneOf"] if current.get(OPENSTACK_KEY) == {
        "discriminator": "microversion"} else [current]
    ranges = [range_of(v) for v in variants]
    if not all(r.intersect(versions).empty for r in ranges):
        warn(row.location.split(" ", 1)[0], f"parameter '{row.name}' is listed again with "
                                            f"overlapping microversions; first kept")
        return
    if len(variants) == 1:
        param["schema"] = {"oneOf": [current, schema],
                           OPENSTACK_KEY: {"discriminator": "microversion"},
                           LOCATION_KEY: param[LOCATION_KEY]}
    else:
        variants.append(schema)
    hull = _hull([*ranges, versions])
    param.pop(OPENSTACK_KEY, None)
    if version_ext(hull):
        param[OPENSTACK_KEY] = version_ext(hull)


def _response_headers(tables: Sequence[Table], warn: Warn) -> dict[str, dict[str, Any]]:
    """Response headers of every response table. A header that every ranged table lists
    (placement's `Location` in both "Response (microversions 1.0 - 1.19)" and "(1.20 - )")
    is bounded by its own definition only: it is there whenever the response is."""
    headers: dict[str, dict[str, Any]] = {}
    ranges: dict[str, list[VersionRange]] = {}
    responses = [t for t in tables if t.kind == "response"]
    every = {t.versions for t in responses}
    seen_in: dict[str, set[VersionRange]] = {}
    for table in responses:
        for row in table.rows:
            if row.where == "header":
                seen_in.setdefault(row.name.lower(), set()).add(table.versions)
    for table in responses:
        for row in table.rows:
            if row.where != "header":
                continue
            key = row.name.lower()
            versions = row.versions if seen_in[key] == every else row.versions.intersect(
                table.versions)
            ranges.setdefault(key, []).append(versions)
            if key not in headers:
                schema = _lean(row_schema(_ranged(row, versions), warn))
                headers[key] = {"schema": schema, "required": row.fields.get("required") is True,
                                "name": row.name, LOCATION_KEY: row.location}
                if "description" in schema:
                    headers[key]["description"] = schema.pop("description")
    result = {}
    for key, header in headers.items():
        hull = _hull(ranges[key])
        header["schema"].pop(OPENSTACK_KEY, None)
        if version_ext(hull):
            header["schema"][OPENSTACK_KEY] = version_ext(hull)
            header[OPENSTACK_KEY] = version_ext(hull)
        result[header.pop("name")] = header
    return result


def _body(tables: Sequence[Table], kind: str, examples: Sequence[Any], warn: Warn
          ) -> Schema | None:
    """The body schema of one kind: plain, or a microversion container when the tables
    sit under version-ranged titles (each range is one variant)."""
    mine = [t for t in tables if t.kind == kind and any(r.where == "body" for r in t.rows)]
    if not mine:
        return None
    if not any(t.ranged for t in mine):
        builder = BodyBuilder(examples, warn, mine[0].location)
        for table in mine:
            builder.add_table(table)
        return builder.finish()
    unranged = [t for t in mine if not t.ranged]
    variants: list[Schema] = []
    for versions in dict.fromkeys(t.versions for t in mine if t.ranged):
        ranged = [t for t in mine if t.ranged and t.versions == versions]
        builder = BodyBuilder(examples, warn, ranged[0].location)
        for table in [*unranged, *ranged]:
            builder.add_table(table)
        variant = builder.finish()
        variant[OPENSTACK_KEY] = version_ext(versions)
        variants.append(variant)
    container: Schema = {"oneOf": variants, OPENSTACK_KEY: {"discriminator": "microversion"},
                         LOCATION_KEY: mine[0].location}
    if examples:
        container[EXAMPLE_KEYS_KEY] = True
    return container


def _responses(codes: Sequence[Code], body: Schema | None, headers: dict[str, Any],
               tables: Sequence[Table], location: str, warn: Warn) -> dict[str, Any]:
    merged: dict[int, Code] = {}
    for code in codes:
        known = merged.get(code.status)
        merged[code.status] = code if known is None else Code(
            code.status, _hull([known.versions, code.versions]), known.description,
            known.location)
    if not any(c.status < 400 for c in merged.values()) and (body is not None or headers):
        response_table = next((t for t in tables if t.kind == "response"), None)
        where = response_table.location if response_table else location
        warn(where, "response parameters but no success status code; documented as 200")
        merged[200] = Code(200, ALL, "OK", where)
    if not merged:
        # Nothing to compare a status code change against: say so once per operation.
        warn(location, "no status codes documented (neither a rest_status_code directive nor "
                       "'Normal response codes'); status code changes cannot be seen")
    responses: dict[str, Any] = {}
    for status in sorted(merged):
        code = merged[status]
        response: dict[str, Any] = {"description": code.description, LOCATION_KEY: code.location}
        if version_ext(code.versions):
            response[OPENSTACK_KEY] = version_ext(code.versions)
        if status < 400:
            content = _for_range(body, code.versions)
            if content is not None:
                response["content"] = {_MEDIA: {"schema": content}}
            if headers:
                response["headers"] = headers
        responses[str(status)] = response
    return responses


def _for_range(body: Schema | None, versions: VersionRange) -> Schema | None:
    """A success code limited to some microversions gets the body variants of those."""
    if body is None or body.get(OPENSTACK_KEY) != {"discriminator": "microversion"}:
        return body
    variants = [v for v in body["oneOf"] if not range_of(v).intersect(versions).empty]
    if not variants:
        return None
    return {**body, "oneOf": variants}


def _lean(schema: Schema) -> Schema:
    """A parameter's schema: its location lives on the parameter object."""
    schema.pop(LOCATION_KEY, None)
    return schema


def _ranged(row: Row, versions: VersionRange) -> Row:
    return replace(row, versions=versions)


def _hull(ranges: Iterable[VersionRange]) -> VersionRange:
    """The smallest range holding all of them (an unbounded side stays unbounded)."""
    ranges = list(ranges)
    if not ranges:
        return ALL
    los = [r.lo for r in ranges]
    his = [r.hi for r in ranges]
    lo = None if any(v is None for v in los) else min(v for v in los if v is not None)
    hi = None if any(v is None for v in his) else max(v for v in his if v is not None)
    return VersionRange(lo, hi)
