"""Webhooks (OpenAPI 3.1) and callbacks are operations of the contract, read like paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from needs_microversion.errors import InputError
from needs_microversion.load import load_snapshot

POST = {"post": {"requestBody": {"content": {"application/json": {"schema": {
    "type": "object", "properties": {"id": {"type": "string"}}}}}},
    "responses": {"200": {"description": "OK"}}}}


def _load(tmp_path: Path, document: dict[str, Any]) -> list[str]:
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                                **document}))
    snapshot = load_snapshot(str(path), validate=False)
    return sorted(op.display for op in snapshot.operations.values())


def test_webhooks_and_callbacks_behind_refs_are_operations(tmp_path: Path) -> None:
    operations = _load(tmp_path, {
        "paths": {"/subscriptions": {"post": {
            "responses": {"201": {"description": "Created"}},
            "callbacks": {"onEvent": {"$ref": "#/components/callbacks/Event"}}}}},
        "webhooks": {"newPet": {"$ref": "#/components/pathItems/Pet"}},
        "components": {"callbacks": {"Event": {"{$request.body#/url}": POST,
                                               "x-note": "not a URL"}},
                       "pathItems": {"Pet": POST}}})
    assert operations == ["POST /subscriptions",
                          "POST callback onEvent of POST /subscriptions: {$request.body#/url}",
                          "POST webhook newPet"]


@pytest.mark.parametrize(("document", "message"), [
    ({"paths": {}, "webhooks": ["newPet"]}, "'webhooks'"),
    ({"paths": {}, "webhooks": {"newPet": 3}}, "path item 'webhook newPet'"),
    ({"paths": {"/s": {"post": {"responses": {}, "callbacks": []}}}}, "'callbacks'"),
    ({"paths": {"/s": {"post": {"responses": {}, "callbacks": {"e": "x"}}}}}, "callback 'e'"),
])
def test_wrong_types_are_input_errors(tmp_path: Path, document: dict[str, Any],
                                      message: str) -> None:
    with pytest.raises(InputError, match=message):
        _load(tmp_path, document)
