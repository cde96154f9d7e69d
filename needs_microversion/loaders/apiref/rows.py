"""One row of a `rest_parameters` table: the parameters.yaml definition it names, where
the parameter goes, and its microversions (fields, or sentences of its description)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from needs_microversion.loaders.apiref import availability, prose
from needs_microversion.loaders.apiref.context import Context
from needs_microversion.loaders.apiref.parameters_yaml import YamlFile, param_def
from needs_microversion.loaders.apiref.records import Row
from needs_microversion.model.versions import VersionRange

_WHERE = ("header", "path", "query", "body")


def read_row(ctx: Context, where: str, text: str, path: Path | None, params: YamlFile | None,
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
    def_where = f"{rel}:{definition.line}"
    versions = ctx.bounds(definition.fields, def_where)
    stated = stated_range(ctx, definition.fields, versions) if place != "path" else None
    if stated is not None:
        return Row(name, place, definition.fields, location, def_where, stated,
                   inferred_versions=True)
    return Row(name, place, definition.fields, location, def_where, versions)


def stated_range(ctx: Context, fields: Mapping[str, Any], versions: VersionRange
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
