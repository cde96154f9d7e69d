"""The code contract as a table: one record per operation, as the decorators declare it.

    CodeOperation(method="POST", path="/os-keypairs", action=None, implementations=(
        Implementation(versions=ALL, requests=(Declared(schema.create_v20, 2.0-2.0), ...),
                       errors=(Declared((400, 403, 409), ALL),), codes=(...), ...),))

nova before 2025-06 served one operation by several methods of one name, each for a range
of microversions (`@wsgi.Controller.api_version`): each is an `Implementation`. Every list
is sorted by microversion range, never by source order: reordering decorators changes
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from needs_microversion.model.versions import FLOOR, Version, VersionRange

if TYPE_CHECKING:
    from needs_microversion.loaders.openapi.version_warnings import Marks

_TOP = Version(2**31, 0)


def range_key(versions: VersionRange) -> tuple[Version, Version]:
    return (versions.lo or FLOOR, versions.hi or _TOP)


@dataclass(frozen=True)
class Unread:
    """A value the reader could not compute, where it matters (a schema, a bound)."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass(frozen=True, eq=False)
class Declared:
    """What one decorator declares for a range of microversions: a schema, a tuple of
    error codes, a success code."""

    value: Any
    versions: VersionRange
    location: str  # "file:line" of the decorator
    reference: str = ""  # the source text of the declaration (`schema.create_v20`)


def by_version(items: list[Declared]) -> tuple[Declared, ...]:
    return tuple(sorted(items, key=lambda d: (range_key(d.versions), d.location)))


@dataclass(frozen=True)
class Implementation:
    """One controller method serving an operation, for a range of microversions."""

    versions: VersionRange
    method: str  # "servers.ServersController.create"
    location: str  # "file:line" of the `def`
    requests: tuple[Declared, ...] = ()
    queries: tuple[Declared, ...] = ()
    responses: tuple[Declared, ...] = ()
    errors: tuple[Declared, ...] = ()
    codes: tuple[Declared, ...] = ()
    removed: str | None = None  # `@wsgi.removed('16.0.0', ...)`: the release it went in
    action: str | None = None  # `@wsgi.action('os-start')`


@dataclass(frozen=True)
class CodeOperation:
    """One (method, path, action) of the route table and the methods that serve it."""

    method: str  # "GET"
    path: str  # "/servers/{id}/action"
    action: str | None
    location: str  # "file:line" of the route entry
    implementations: tuple[Implementation, ...]


@dataclass(frozen=True)
class Gate:
    """A place where the code names a microversion (the version-gate index)."""

    version: Version
    file: str
    line: int
    kind: str  # decorator, check, constant, literal


@dataclass(frozen=True)
class CodeContract:
    """What one revision's code declares: the table, its OpenAPI document, and what the
    reader could not compute (for warnings)."""

    project: str  # "nova", "masakari"
    operations: tuple[CodeOperation, ...]
    document: dict[str, Any] = field(repr=False)
    marks: Marks | None = None  # the document's microversion marks (None: walk it)
    unread: tuple[Unread, ...] = ()
    symbolic: tuple[str, ...] = ()  # helper calls kept as `<name(args)#hash>`
    # What the reading depended on: the files read or looked for, the folders asked about
    # (and the answer), so that a kept reading is reused only where all are unchanged.
    inputs: tuple[str, ...] = ()
    folders: tuple[tuple[str, bool], ...] = ()
