"""Evaluated values -> JSON-shaped data for the OpenAPI document.

Tuples become lists, sets sorted lists, a helper's symbolic value its text
(`<_build_regex_range()#4654995cb6b7>`), and anything the reader could not compute (or
that is not data: a class, a function) an object `{"x-needs-microversion-opaque": reason}`.
Each dict written in the code gets `x-needs-microversion-location: "file:line"`. One value
used by many operations is converted once and shared (the snapshot builder memoises
schemas by identity too).
"""

from __future__ import annotations

import re
from typing import Any

from needs_microversion.loaders.code.records import Unread
from needs_microversion.loaders.code.values import Opaque, Symbolic
from needs_microversion.model.extensions import LOCATION_KEY, OPAQUE_KEY, OPENSTACK_KEY

_MAX_DEPTH = 100
_MAX_NODES = 2_000_000  # a document far larger than nova's (~60,000 schema nodes)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_SYMBOL = re.compile(r"<[A-Za-z_][\w.]*\([^<>]*\)#[0-9a-f]{12}>")
# Keywords whose value maps names to schemas: the map itself is no schema, so it gets no
# location (a key `x-needs-microversion-location` there would read as one more property).
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                          "dependentSchemas"})


class Converter:
    """Converts values, memoised by identity; collects the opaque ones it met."""

    def __init__(self, origins: dict[int, tuple[Any, str]]) -> None:
        self._origins = origins
        self._memo: dict[int, tuple[Any, Any]] = {}
        self._active: set[int] = set()
        self._nodes = 0
        self.unread: dict[int, Unread] = {}
        self.symbolic: set[str] = set()
        # Whether the code's data holds an `x-openstack` or a `$ref` key anywhere: then the
        # document is walked for its microversion marks, not told them by its writer.
        self.extended = False
        self._made: set[int] = set()  # ids of the containers converting gave (kept alive)

    def made(self, value: Any) -> bool:
        """Whether `value` is what converting some value gave (the code's own data)."""
        return id(value) in self._made

    def origin(self, value: Any) -> str | None:
        found = self._origins.get(id(value))
        return found[1] if found is not None and found[0] is value else None

    def convert(self, value: Any, depth: int = 0, located: bool = True) -> Any:
        if type(value) is str:
            if "#" in value and "<" in value:  # a helper's symbol spliced into a string
                self.symbolic.update(_SYMBOL.findall(value))
            return value
        if isinstance(value, (int, float, bool)) or value is None:
            return value
        if isinstance(value, Symbolic):
            self.symbolic.add(value.text)
            return value.text
        if isinstance(value, Opaque):
            self.unread.setdefault(id(value), Unread(value.file, value.line, value.reason))
            return {OPAQUE_KEY: value.reason, LOCATION_KEY: f"{value.file}:{value.line}"}
        if not isinstance(value, (dict, list, tuple, set, frozenset)):
            return {OPAQUE_KEY: f"not data: {type(value).__name__}"}
        hit = self._memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        self._nodes += 1
        if depth > _MAX_DEPTH or id(value) in self._active or self._nodes > _MAX_NODES:
            return {OPAQUE_KEY: "data nested too deeply, too large, or containing itself"}
        self._active.add(id(value))
        try:
            result = self._container(value, depth, located)
        finally:
            self._active.discard(id(value))
        self._memo[id(value)] = (value, result)
        self._made.add(id(result))
        return result

    def _container(self, value: Any, depth: int, located: bool = True) -> Any:
        if isinstance(value, dict):
            result = {}
            for key, inner in value.items():
                # Plain strings and numbers, most of a schema, skip the call.
                result[key if type(key) is str else _key(key)] = (
                    inner if type(inner) in _SCALARS and not (
                        type(inner) is str and "#" in inner)
                    else self.convert(inner, depth + 1, located=key not in _SCHEMA_MAPS))
            if OPENSTACK_KEY in value or "$ref" in value:
                self.extended = True
            where = self.origin(value) if located else None
            if where is not None:
                result[LOCATION_KEY] = where
            return result
        items = list(value)
        if isinstance(value, (set, frozenset)):
            try:
                items = sorted(items)
            except TypeError:
                items = sorted(items, key=repr)
        return [self.convert(item, depth + 1) for item in items]


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, Symbolic):
        return key.text
    if isinstance(key, Opaque):
        return f"<opaque: {key.reason}>"
    return str(key)
