"""Readers over the api-ref loader's OpenAPI output, shared by the test_apiref* files (no
tests here: the name only keeps it beside them)."""

from __future__ import annotations

from typing import Any

from conftest import ROOT

DATA = ROOT / "tests" / "data" / "apiref"
JSON = "application/json"


def operation(document: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    return document["paths"][path][method]


def body(op: dict[str, Any], status: str | None = None) -> dict[str, Any]:
    """The request body schema, or the response body schema of `status`."""
    holder = op["requestBody"] if status is None else op["responses"][status]
    return holder["content"][JSON]["schema"]


def at(schema: dict[str, Any], pointer: str) -> dict[str, Any]:
    """Walk a body pointer: `/server/flavor/id`; `*` = array items; `{*}` = map values."""
    node = schema
    for segment in filter(None, pointer.split("/")):
        if segment == "*":
            node = node["items"]
        elif segment == "{*}":
            node = node["additionalProperties"]
        else:
            node = node["properties"][segment]
    return node


def parameters(op: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(p["in"], p["name"]): p for p in op.get("parameters", [])}


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in document["paths"].items()
            for method, op in item.items()]
