"""One row of a `rest_parameters` table: the parameters.yaml definition it names, where
the parameter goes, and its microversions (fields, or sentences of its description)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from needs_microversion.loaders.apiref import availability, prose
from needs_microversion.loaders.apiref.context import TreeContext
from needs_microversion.loaders.apiref.parameters_yaml import YamlFile, param_def
from needs_microversion.loaders.apiref.records import Row
from needs_microversion.model.versions import ALL, Version, VersionRange

_WHERE = ("header", "path", "query", "body")


def read_row(ctx: TreeContext, where: str, text: str, path: Path | None, params: YamlFile | None,
             kind: str | None, url: str) -> Row | None:
    """One `- name: reference` line of a table, with the definition it names; None (and a
    warning where the line is wrong) for what is no row."""
    item = text.strip()
    if not item or item.startswith("#") or item.startswith(":"):
        return None
    name, sep, ref = item[2:].partition(": ") if item.startswith("- ") else ("", "", "")
    ref = ref.split(" #", 1)[0].strip().strip("'\"")
    name = prose.visible(name).strip().strip("'\"")
    if not item.startswith("- ") or not sep or not name or not ref:
        ctx.warn(where, f"invalid parameter line {item!r} (expected '- name: "
                        f"reference'); skipped")
        return None
    if params is None or path is None:
        return None  # the missing file was reported once
    definition, messages = param_def(params, ref)
    rel = ctx.tree.rel(path)
    for message in messages:
        ctx.warn_once(f"{rel}:{params.lines.get(ref, 1)}", message)
    if definition is None:
        if not messages:
            ctx.warn(where, f"no definition for '{ref}' in {rel}; skipped")
            ctx.row_unread(where.rsplit(":", 1)[0], name)
        return None
    location = f"{where} ({rel}:{definition.line})"
    place = str(definition.fields.get("in", "")).strip().lower()
    if place not in _WHERE:
        ctx.warn_once(f"{rel}:{definition.line}",
                      f"'{ref}': 'in' is {definition.fields.get('in')!r}, not one of "
                      f"header, path, query, body; row skipped")
        return None
    if place == "body" and kind != "response" and "{" + name + "}" in url:
        place = "path"  # a URL placeholder defined `in: body` by mistake (manila)
    elif place == "path" and kind == "response":
        place = "body"  # a response has no URL: its table names a field of the body (nova)
    def_where = f"{rel}:{definition.line}"
    versions = ctx.bounds(definition.fields, def_where)
    stated = stated_range(ctx, definition.fields, versions) if place != "path" else None
    if stated is not None:
        return Row(name, place, definition.fields, location, def_where, stated,
                   inferred_versions=True)
    return Row(name, place, definition.fields, location, def_where, versions)


def stated_range(ctx: TreeContext, fields: Mapping[str, Any], versions: VersionRange
                 ) -> VersionRange | None:
    """The bounds a description's sentences give where the definition has no field for
    them (`min_version: null` counts as a field: placement unsets a merged bound so),
    or None when they add nothing."""
    description = fields.get("description")
    stated = availability.parameter_range(description) if isinstance(
        description, str) else None
    if stated is None:
        return None
    lo = stated.lo if stated.lo is not None and "min_version" not in fields else versions.lo
    hi = stated.hi if stated.hi is not None and "max_version" not in fields else versions.hi
    found = VersionRange(lo, hi)
    if found == versions or found.empty:
        return None
    ctx.saw(found)
    return found


def with_complements(rows: Sequence[Row]) -> tuple[Row, ...]:
    """Rows of one name at one place, read as version variants: where every row but one
    is bounded on one side (`events: instance_action_events_2_50` with `max_version: 2.50`)
    and the other row states no bounds (`events: instance_action_events_2_51`, its
    `min_version` forgotten), that row is the rest of the range: from 2.51 on. A reviewer
    reads the pair so; read as always there, it would overlap its sibling and seem to
    change the older versions. Bounds read so are inferred."""
    groups: dict[tuple[str, str], list[int]] = {}
    for at, row in enumerate(rows):
        groups.setdefault((row.where, row.name), []).append(at)
    found = list(rows)
    for members in groups.values():
        open_rows = [at for at in members if rows[at].versions == ALL]
        bounded = [rows[at].versions for at in members if rows[at].versions != ALL]
        if len(open_rows) != 1 or not bounded:
            continue
        rest = _rest_of(bounded)
        if rest is not None:
            at = open_rows[0]
            found[at] = dataclasses.replace(rows[at], versions=rest, inferred_versions=True)
    return tuple(found)


def _rest_of(ranges: Sequence[VersionRange]) -> VersionRange | None:
    """The versions after (or before) ranges that all reach the same open end; None when
    they are bounded on both sides or on different sides."""
    if all(r.lo is None and r.hi is not None for r in ranges):
        return VersionRange(max(r.hi for r in ranges if r.hi is not None).next(), None)
    if all(r.hi is None and r.lo is not None for r in ranges):
        lowest = min(r.lo for r in ranges if r.lo is not None)
        if lowest.minor > 0:
            return VersionRange(None, Version(lowest.major, lowest.minor - 1))
    return None
