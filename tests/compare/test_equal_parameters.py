"""Operations whose parameters are raw-equal and clean on both sides are compared without
building them (`Comparer.pair`); anything that can make their parameters differ builds them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from needs_microversion.loaders.openapi.builder import SnapshotBuilder

ERROR = {"type": "object", "properties": {"message": {"type": "string"}}}
LIMIT = {"name": "limit", "in": "query", "schema": {"type": "integer"}}
ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}


def _document(*, swagger: bool = False, consumes: str = "application/json",
              top_consumes: str = "application/json", error: dict[str, Any] | None = None,
              limit: dict[str, Any] | None = None, path: str = "/items/{id}") -> dict[str, Any]:
    error = error or ERROR
    limit = limit or LIMIT
    if swagger:
        body = {"name": "body", "in": "body", "schema": {"$ref": "#/definitions/Error"}}
        post = {"parameters": [body], "responses": {"200": {"description": "ok"}}}
        if consumes:  # else the document's
            post["consumes"] = [consumes]
        return {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                "consumes": [top_consumes], "paths": {path: {"post": post}},
                "definitions": {"Error": error}}
    response = {"description": "no", "content": {"application/json": {"schema": {
        "$ref": "#/components/schemas/Error"}}}}
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": {path: {"get": {"parameters": [
                {"$ref": "#/components/parameters/Limit"}, ID],
                "responses": {"200": {"description": "ok"}, "default": response}}}},
            "components": {"schemas": {"Error": error}, "parameters": {"Limit": limit}}}


def _diff(tmp_path: Path, run_cli: Any, old: dict[str, Any], new: dict[str, Any]
          ) -> list[tuple[str, str]]:
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    _, out, _ = run_cli("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"),
                        "--format", "json", "--no-validate")
    return [(c["id"], c["pointer"]) for c in json.loads(out)["changes"]]


WIDER = {"type": "object", "properties": {"message": {"type": "string"},
                                          "code": {"type": "integer"}}}


def test_a_change_behind_a_response_only_builds_no_parameters(
        tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    original = SnapshotBuilder.parameters
    monkeypatch.setattr(SnapshotBuilder, "parameters",
                        lambda self, path, *rest: built.append(path) or original(
                            self, path, *rest))
    changes = _diff(tmp_path, run_cli, _document(), _document(error=WIDER))
    assert changes == [("attribute-added", "/code")]
    assert built == []


@pytest.mark.parametrize(("old", "new", "expected"), [
    # A shared parameter's target changes: the raw operations are equal, their refs not.
    (_document(), _document(limit={**LIMIT, "required": True}),
     [("query-parameter-changed", "limit")]),
    # A placeholder renamed: the declared `id` no longer names it, a string `uuid` does.
    (_document(), _document(path="/items/{uuid}", error=WIDER),
     [("path-parameter-changed", "id"), ("path-parameter-changed", "uuid"),
      ("attribute-added", "/code")]),
    # Swagger 2.0: a body parameter's schema is the request body.
    (_document(swagger=True), _document(swagger=True, error=WIDER),
     [("attribute-added", "/code")]),
    # Swagger 2.0: `consumes` names the request body's media types.
    (_document(swagger=True), _document(swagger=True, consumes="application/xml"),
     [("media-type-removed", ""), ("media-type-added", "")]),
    # ... the document's, for an operation that writes none.
    (_document(swagger=True, consumes=""), _document(swagger=True, consumes="",
                                                     top_consumes="application/xml"),
     [("media-type-removed", ""), ("media-type-added", "")]),
], ids=["shared-parameter", "placeholder-renamed", "swagger-body", "swagger-consumes",
        "swagger-document-consumes"])
def test_whatever_can_make_parameters_differ_builds_them(
        tmp_path: Path, run_cli: Any, old: dict[str, Any], new: dict[str, Any],
        expected: list[tuple[str, str]]) -> None:
    assert _diff(tmp_path, run_cli, old, new) == expected
