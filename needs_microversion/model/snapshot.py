"""The normalised contract: what a user of the API can rely on, whatever the input format.

Loaders (OpenAPI, api-ref) build a Snapshot; compare diffs two of them. Schemas stay as
handles on the raw document (`RawSchema`) and are normalised lazily through the snapshot's
`SchemaLookup`, so large or recursive schemas are never expanded into a tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from needs_microversion.model.document import Document
from needs_microversion.model.extensions import PROSE_KEY
from needs_microversion.model.schema import RawSchema, SchemaLookup
from needs_microversion.model.versions import Version, VersionRange

_PLACEHOLDER = re.compile(r"\{[^}/]*\}")


def path_shape(path: str) -> str:
    """`/servers/{server_id}/` -> `/servers/{}`: placeholder names and trailing `/` don't matter."""
    path = path.split("?", 1)[0]
    shape = _PLACEHOLDER.sub("{}", path)
    return shape.rstrip("/") or "/"


def placeholders(path: str) -> list[str]:
    """The names of a path's placeholders, in order: `/a/{x}/b/{y}` -> [x, y]."""
    return [p[1:-1] for p in _PLACEHOLDER.findall(path.split("?", 1)[0])]


@dataclass(frozen=True)
class Location:
    """Where an element is written: file and line, or a JSON pointer to look the line up."""

    file: str
    line: int | None = None
    pointer: tuple[str, ...] = ()
    definition: str = ""  # "file:line" of the definition a table row names (api-ref)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where} ({self.definition})" if self.definition else where

    @classmethod
    def parse(cls, text: str, doc: Document) -> Location:
        """Read the "file:line (file:line)" form our own loaders write (a table row, then the
        parameters.yaml entry it names); an api-ref tree's files are named from its folder,
        so the user can open them."""
        match = _LOCATION.match(text)
        if not match:
            return cls(text.strip() or doc.display)
        file, line, definition = match.group(1), int(match.group(2)), match.group(3) or ""
        if not file:
            return cls(doc.display, line)
        if doc.format == "api-ref":  # posixpath.join's answer, made for every element
            file = _joined(doc.display, file)
            definition = _joined(doc.display, definition) if definition else ""
        return cls(file, line, definition=definition)


_LOCATION = re.compile(r"([^:]*):(\d+)(?:\s*\(([^()]+:\d+)\))?")


def _joined(folder: str, name: str) -> str:
    """posixpath.join(folder, name), for two parts."""
    if name.startswith("/"):
        return name
    return folder + name if not folder or folder.endswith("/") else f"{folder}/{name}"


@dataclass(frozen=True)
class OpKey:
    """Method + path shape (+ action): `/servers/{id}` and `/servers/{server_id}/` are one URL."""

    method: str
    shape: str
    action: str | None = None

    def __lt__(self, other: OpKey) -> bool:
        return self.order() < other.order()

    def order(self) -> tuple[str, str, str]:
        """The sort key: `sorted(keys, key=OpKey.order)` compares tuples at C speed.
        The URL without an action sorts before its actions (None is not comparable)."""
        return (self.shape, self.method, self.action or "")


@dataclass(frozen=True)
class Parameter:
    name: str
    where: str  # path | query | header | cookie
    required: bool
    schema: RawSchema | None
    serialization: Mapping[str, str]  # style, explode, content type...: how values are sent
    versions: VersionRange
    location: Location
    inferred: bool = False
    description: str = ""  # documentation: read only for microversions it announces
    summary: str = ""  # its title: tells an operation rewritten in place (documentation)


@dataclass(frozen=True)
class Response:
    status: str
    versions: VersionRange
    headers: Mapping[str, Parameter]  # lower-cased name -> header
    content: Mapping[str, RawSchema | None]  # media type -> schema
    location: Location
    description: str = ""  # documentation: read only to tell an API retired (410 Gone)


@dataclass(frozen=True)
class Operation:
    key: OpKey
    path: str  # as written, for display
    versions: VersionRange
    parameters: Mapping[tuple[str, str], Parameter]  # (where, name) ; path params by position
    request_content: Mapping[str, RawSchema | None]
    request_required: bool
    responses: Mapping[str, Response]
    security: frozenset[str]  # canonical alternatives (empty: none required)
    location: Location
    description: str = ""  # documentation: read only for microversions it announces
    summary: str = ""  # its title: tells an operation rewritten in place (documentation)
    # The bodies its examples show ("request", "response"): api-ref, documentation.
    example_bodies: frozenset[str] = frozenset()

    @property
    def display(self) -> str:
        suffix = f" ({self.key.action})" if self.key.action else ""
        return f"{self.key.method} {self.path}{suffix}"


class Operations(Mapping[OpKey, Operation]):
    """Operations built on first use: an operation whose raw text is unchanged is never built."""

    def __init__(self, factories: Mapping[OpKey, Callable[[], Operation]],
                 raw: Mapping[OpKey, Any],
                 without_parameters: Mapping[OpKey, Callable[[], Operation]] | None = None
                 ) -> None:
        self._factories = factories
        self.raw = raw  # what decides "unchanged" before anything is built
        self._built: dict[OpKey, Operation] = {}
        # Built on request and not kept: the operation with no parameters (and, in Swagger
        # 2.0, no request body made of them), for a comparison that knows both sides'
        # parameters are equal. Only where one raw operation is one operation.
        self._without_parameters = without_parameters or {}

    def without_parameters(self, key: OpKey) -> Operation | None:
        """The operation built without its parameters; None where it cannot be."""
        factory = self._without_parameters.get(key)
        return factory() if factory is not None else None

    def __getitem__(self, key: OpKey) -> Operation:
        op = self._built.get(key)
        if op is None:
            op = self._built[key] = self._factories[key]()
        return op

    def __contains__(self, key: object) -> bool:
        return key in self._factories  # without building it

    def __iter__(self) -> Iterator[OpKey]:
        return iter(self._factories)

    def __len__(self) -> int:
        return len(self._factories)


@dataclass(frozen=True)
class Snapshot:
    source: str  # "openapi" | "api-ref"
    display: str
    document: Document
    max_version: Version | None
    bounds: frozenset[Version]  # every version at which something appears or disappears
    operations: Operations
    schemas: SchemaLookup  # normalises this snapshot's schemas, once each
    warnings: tuple[str, ...] = ()
    refs: bool | None = None  # whether the document holds a `$ref` (None: not looked for)

    def info(self, key: str) -> Any:
        """One member of the document's `info` (the loaders' `x-needs-microversion-*`
        notes about the whole document); None when absent. Read it as untrusted input."""
        data = self.document.data
        info = data.get("info") if isinstance(data, dict) else None
        return info.get(key) if isinstance(info, dict) else None

    def prose(self) -> str:
        """What the document writes in words: an OpenAPI file's text; an api-ref tree's
        files as written, and its operations' and parameters' descriptions (with the
        versions of their captions spelt out)."""
        if self.document.text or self.source != "api-ref":
            return self.document.text
        files = self.info(PROSE_KEY)
        return "\n\n".join(text for op in self.operations.values()
                            for text in (op.description, *(p.description
                                                           for p in op.parameters.values()))
                            if text) + (f"\n\n{files}" if isinstance(files, str) else "")
