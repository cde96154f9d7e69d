"""What the finder tests share: small snapshots from OpenAPI dicts, and the changes the
comparison states between them (imported by name: pytest puts the tests folder on the path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from needs_microversion.compare import compare
from needs_microversion.documents.document import parse_document
from needs_microversion.loaders.openapi.builder import load_openapi
from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import OpKey, Snapshot
from needs_microversion.rules.finder import Finder, Found, Sides

OK = {"description": "ok"}


def snapshot(paths: dict[str, Any], *, info: dict[str, Any] | None = None,
             name: str = "doc.json") -> Snapshot:
    import json

    data = {"openapi": "3.1.0", "info": {"title": "t", "version": "2.1", **(info or {})},
            "paths": paths}
    doc = parse_document(json.dumps(data).encode(), path=Path("/tmp", name), display=name,
                         root=Path("/tmp"))
    return load_openapi(doc)


def body(properties: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {
        "type": "object", "properties": properties}}}}


def found(finder: Finder, old: Snapshot, new: Snapshot, prior: Found | None = None
          ) -> dict[tuple[str, str, str], str]:
    """(operation, area, pointer or status) -> finding id, for what the finder explains among
    the changes from `old` to `new`."""
    changes = compare(old, new)
    result = finder.find(changes, Sides(old, new), prior or {})
    return {_key(change): result[id(change)].finding for change in changes
            if id(change) in result}


def changes_between(old: Snapshot, new: Snapshot) -> list[Change]:
    return compare(old, new)


def _key(change: Change) -> tuple[str, str, str]:
    return change.operation, change.area, change.pointer or change.status or ""


def key(method: str, shape: str) -> OpKey:
    return OpKey(method, shape, None)
