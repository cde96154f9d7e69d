"""Documents the tool made (an api-ref tree's, the code's: no `$ref`): an operation is built
when the comparison needs it, so one a change leaves alone is never built; a request body
split by action is built at once, to name its operations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from needs_microversion.compare import compare
from needs_microversion.loaders.openapi import builder
from needs_microversion.model.document import Document
from needs_microversion.model.snapshot import OpKey, Snapshot

OK = {"200": {"description": "OK"}}


def made(paths: dict[str, Any], display: str) -> Snapshot:
    data = {"openapi": "3.1.0", "info": {"title": display, "version": "2.10"}, "paths": paths}
    top = Path("/", "code")
    return builder.load_openapi(Document(path=top, display=display, root=top, text="",
                                         data=data, format="code"), source="code")


def servers(name_type: str) -> dict[str, Any]:
    return {
        "/servers": {"get": {"responses": OK, "x-openstack": {"min-ver": "2.1"}}},
        "/servers/{id}": {"put": {"requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {"name": {"type": name_type}}}}}},
            "responses": OK}},
        "/servers/{id}/action": {"post": {"requestBody": {"content": {"application/json": {
            "schema": {"x-openstack": {"discriminator": "action"}, "oneOf": [
                {"type": "object", "properties": {"reboot": {"type": "object"}},
                 "required": ["reboot"]},
                {"type": "object", "properties": {"pause": {"type": "null"}},
                 "required": ["pause"]}]}}}}, "responses": OK}},
    }


def test_an_operation_a_change_leaves_alone_is_never_built(monkeypatch) -> None:
    built: list[str] = []
    real = builder.SnapshotBuilder.operations

    def counted(self, path, *args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(path)
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(builder.SnapshotBuilder, "operations", counted)
    old, new = made(servers("string"), "code:old"), made(servers("integer"), "code:new")
    # The action body is built at once, on each side, to name its operations.
    assert built == ["/servers/{id}/action", "/servers/{id}/action"]
    assert set(new.operations) == {OpKey("GET", "/servers", None),
                                   OpKey("PUT", "/servers/{}", None),
                                   OpKey("POST", "/servers/{}/action", "reboot"),
                                   OpKey("POST", "/servers/{}/action", "pause")}
    changes = compare(old, new)
    assert {change.op_key for change in changes} == {OpKey("PUT", "/servers/{}", None)}
    assert built.count("/servers") == 0  # unchanged: never built
    assert new.operations[OpKey("GET", "/servers", None)].versions.lo is not None


def test_a_made_document_says_whether_it_holds_a_ref() -> None:
    """The walk that finds its microversions looked: the comparison then looks for no ref
    to follow (an OpenAPI file's author may write refs anywhere: not known, looked for)."""
    assert made(servers("string"), "code:old").refs is False
    with_ref = servers("string")
    with_ref["/servers/{id}"]["put"]["requestBody"]["content"]["application/json"][
        "schema"] = {"$ref": "#/components/schemas/Server"}
    data = {"openapi": "3.1.0", "info": {"title": "t", "version": "2.10"}, "paths": with_ref,
            "components": {"schemas": {"Server": {"type": "object"}}}}
    top = Path("/", "code")
    snapshot = builder.load_openapi(Document(path=top, display="code:x", root=top, text="",
                                             data=data, format="code"), source="code")
    assert snapshot.refs is True
