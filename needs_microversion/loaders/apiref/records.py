"""What one api-ref section says, before it becomes OpenAPI: the records between reading
(`sections`) and writing (`to_openapi`). The extension keys it writes are defined in
`model/extensions.py`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from needs_microversion.model.versions import ALL, VersionRange

@dataclass(frozen=True)
class Row:
    """One line of a `rest_parameters` table, with its parameters.yaml definition."""

    name: str  # display name as the table shows it: "flavor.id", "Location"
    where: str  # header | path | query | body
    fields: Mapping[str, Any]  # the definition (field-name typos repaired)
    location: str  # "servers.inc:120 (parameters.yaml:3456)"
    definition: str  # "parameters.yaml:3456"
    versions: VersionRange = ALL
    inferred_versions: bool = False  # bounds read from a versionadded note


@dataclass(frozen=True)
class Table:
    kind: str  # request | response
    versions: VersionRange  # from a ranged section title ("Response (microversions 1.20 - )")
    ranged: bool
    title: str  # the section title the table sits under
    first: bool  # the first table of its kind in its operation
    rows: tuple[Row, ...]
    location: str


@dataclass(frozen=True)
class Code:
    status: int
    versions: VersionRange
    description: str
    location: str


@dataclass(frozen=True)
class Example:
    kind: str | None  # request | response | None (could not tell)
    data: Any  # the parsed JSON body


@dataclass(frozen=True)
class Section:
    """One `rest_method` section."""

    method: str
    url: str  # as written, without the query string
    title: str
    location: str
    versions: VersionRange
    inferred_versions: bool  # an operation bound read from a versionadded note
    deprecated: bool
    tables: tuple[Table, ...]
    codes: tuple[Code, ...]
    examples: tuple[Example, ...]
    action_hint: str | None = None  # "Specify the ``name`` action" in the section's prose
    description: str = ""  # the section's prose before its first table or subsection
    asides: str = ""  # where else it names versions: group introductions, notes, captions
    # The bodies its examples show ("request", "response"), whether their files were read or
    # not (outside the tree, not JSON): the operation sent or returned one.
    example_bodies: frozenset[str] = frozenset()
