"""Every path item of the contract: the document's paths, OpenAPI 3.1 `webhooks`, and the
`callbacks` of their operations.

Webhooks and callbacks are requests the API makes and clients serve: one added or removed
changes what a client must handle, like a resource URL, and their payloads are attributes.
They are compared as operations under names no URL can take (URLs start with `/`):
`webhook NAME` and `callback NAME of METHOD PATH: EXPRESSION`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple, Protocol

from needs_microversion.errors import InputError
from needs_microversion.model.document import Document

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


class PathItem(NamedTuple):
    path: str  # as shown: "/servers/{id}", "webhook newPet", "callback onData of POST /x: ..."
    action: str | None  # an OpenStack action (`/servers/{id}/action#reboot`)
    item: Mapping[str, Any]
    pointer: tuple[str, ...]


class Reader(Protocol):
    """What of the snapshot builder the walk uses: `$ref`s and type checks."""

    doc: Document
    swagger: bool
    data: Mapping[str, Any]

    def deref(self, node: Any, pointer: tuple[str, ...], doc: Document | None = None
              ) -> tuple[Any, tuple[str, ...], Document]: ...

    def expect_mapping(self, node: Any, pointer: tuple[str, ...], what: str
                       ) -> Mapping[str, Any]: ...


def path_items(reader: Reader, paths: Mapping[str, Any]) -> Iterator[PathItem]:
    """The paths, then the webhooks; each followed by its operations' callbacks."""
    webhooks = {} if reader.swagger else reader.expect_mapping(
        reader.data.get("webhooks"), ("webhooks",), "'webhooks'")
    listed = [*((("paths", key), raw) for key, raw in paths.items()),
              *((("webhooks", key), raw) for key, raw in webhooks.items())]
    for (section, key), raw in listed:
        if not isinstance(key, str):
            raise InputError(f"{section} key {key!r} is not a string", reader.doc.display)
        item, pointer, _ = reader.deref(raw, (section, key))
        shown = key if section == "paths" else f"webhook {key}"
        item = reader.expect_mapping(item, pointer, f"path item '{shown}'")
        path, _, action = shown.partition("#") if section == "paths" else (shown, "", "")
        yield PathItem(path, action or None, item, pointer)
        yield from _callbacks(reader, path, item, pointer)


def _callbacks(reader: Reader, path: str, item: Mapping[str, Any], pointer: tuple[str, ...]
               ) -> Iterator[PathItem]:
    """One level: a callback's own callbacks are not followed (no API writes them)."""
    for method in METHODS:
        raw_op = item.get(method)
        if not isinstance(raw_op, dict) or raw_op.get("callbacks") is None:
            continue
        at = (*pointer, method, "callbacks")
        for name, raw in reader.expect_mapping(raw_op["callbacks"], at, "'callbacks'").items():
            node, node_pointer, _ = reader.deref(raw, (*at, str(name)))
            node = reader.expect_mapping(node, node_pointer, f"callback '{name}'")
            for expression, raw_item in node.items():
                if str(expression).startswith("x-"):
                    continue  # an extension, not a URL expression
                shown = f"callback {name} of {method.upper()} {path}: {expression}"
                target, target_pointer, _ = reader.deref(raw_item,
                                                         (*node_pointer, str(expression)))
                yield PathItem(shown, None,
                               reader.expect_mapping(target, target_pointer, f"'{shown}'"),
                               target_pointer)
