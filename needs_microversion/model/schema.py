"""Schemas: raw handles on document nodes, their normalised records, lookup at a version.

A `RawSchema` is a node inside a loaded document, compared by identity and never copied; a
`Schema` is what it means once `$ref` is resolved and `allOf` merged. The normaliser that
makes them (`loaders/openapi/normalise.py`) is behind `SchemaLookup`: the stages after the
loaders only ask it for the `Schema` of a handle.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from needs_microversion.model.document import Document
from needs_microversion.model.versions import Version, VersionRange


def canonical(value: Any) -> str:
    """A stable text form of a JSON value, for set membership and equality."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True, eq=False)
class RawSchema:
    """A schema node inside a loaded document (compared by identity, never copied)."""

    doc: Document
    node: Any
    pointer: tuple[str, ...]


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
    def open_keys(self) -> bool:
        """Lets keys nobody listed through: additionalProperties true or an untyped schema,
        or a bare object that says nothing of its keys."""
        if self.additional is True:
            return True
        if isinstance(self.additional, RawSchema):
            node = self.additional.node
            return isinstance(node, dict) and not any(
                k for k in node if not k.startswith("x-") and k not in ("description", "title"))
        return self.additional is None and not self.properties and self.types == frozenset(
            {"object"})

    @property
    def free_form(self) -> bool:
        """Keys are the user's data: open keys and no property of its own declared. An
        object that declares properties and also lets other keys through (nova's legacy
        `additionalProperties: True` on request bodies) is tolerant, not free-form: its
        declared keys are the contract (configured paths such as nova's
        `os:scheduler_hints` stay free-form whatever they declare)."""
        return self.open_keys and not self.properties


class SchemaLookup(Protocol):
    """The normalised schemas of one snapshot, made on first use and once each."""

    @property
    def documents(self) -> tuple[Document, ...]:
        """The files the schemas come from (the document and its `$ref` files)."""
        ...

    def get(self, raw: RawSchema) -> Schema:
        """The normalised schema of a handle (`$ref` followed, `allOf` merged)."""
        ...

    def bounds(self, raw: RawSchema) -> frozenset[Version]:
        """Every microversion at which something under the schema starts or stops."""
        ...


def schema_at(table: SchemaLookup, raw: RawSchema | None, version: Version) -> Schema | None:
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
