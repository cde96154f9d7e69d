"""One resource, several operations (`compare/representation.py`): an attribute a detailed
list gains is catch-up when another operation of the same resource already listed it, and
still does, with the same type; otherwise it is an attribute added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from needs_microversion.rules.catch_up.resource import _stem, collection, places_of
from needs_microversion.model.change import Change, direction
from needs_microversion.model.snapshot import OpKey


@pytest.mark.parametrize(("shape", "expected"), [
    ("/v3/{}/volumes/{}", "/v3/{}/volumes"),
    ("/v3/{}/volumes/detail", "/v3/{}/volumes"),
    ("/v3/{}/volumes", "/v3/{}/volumes"),
    ("/nodes/{}/ports", "/nodes/{}/ports"),
    ("/{}", "/"),
])
def test_collection(shape: str, expected: str) -> None:
    assert collection(shape) == expected


@pytest.mark.parametrize(("pointer", "expected"), [
    ("/volumes/*/group_id", [("group_id", {"volume"})]),  # a list of items
    ("/volume/group_id", [("group_id", {"volume"}), ("volume/group_id", {"volume"})]),
    ("/share/size", [("size", {"volume", "share"}), ("share/size", {"volume"})]),
    ("/conductor", [("conductor", {"volume"})]),  # no envelope (ironic)
])
def test_places(pointer: str, expected: list[tuple[str, set[str]]]) -> None:
    assert [(p.path, set(p.envelopes)) for p in places_of(pointer, "/v3/{}/volumes")] == expected


@pytest.mark.parametrize(("name", "expected"), [
    ("volumes", "volume"), ("volume", "volume"), ("os-hypervisors", "hypervisor"),
    ("share-servers", "share_server"), ("policies", "policy"), ("status", "statu"),
])
def test_stem(name: str, expected: str) -> None:
    assert _stem(name) == expected


def _show(**props: dict[str, str]) -> dict[str, object]:
    return {"responses": {"200": {"description": "OK", "content": {"application/json": {
        "schema": {"type": "object", "properties": {"uuid": {"type": "string"}, **props}}}}}}}


def _listing(**props: dict[str, str]) -> dict[str, object]:
    items = {"type": "object", "properties": {"uuid": {"type": "string"}, **props}}
    return {"responses": {"200": {"description": "OK", "content": {"application/json": {
        "schema": {"type": "object", "properties": {
            "nodes": {"type": "array", "items": items}}}}}}}}


def _document(paths: dict[str, dict[str, object]]) -> dict[str, object]:
    return {"openapi": "3.0.3", "info": {"title": "Bare Metal", "version": "1.90"},
            "paths": paths}


STRING = {"type": "string"}
OLD = {"/nodes/{node}": {"get": _show(bios_interface=STRING)}, "/nodes/detail": {
    "get": _listing()}}


@pytest.mark.parametrize(("old", "new", "expected"), [
    pytest.param(OLD, {**OLD, "/nodes/detail": {"get": _listing(bios_interface=STRING)}},
                 ["documented-on-resource"], id="show-listed-it"),
    pytest.param(OLD, {"/nodes/{node}": {"get": _show()},
                       "/nodes/detail": {"get": _listing(bios_interface=STRING)}},
                 ["attribute-added", "attribute-removed"], id="show-drops-it"),
    pytest.param(OLD, {**OLD, "/nodes/detail": {"get": _listing(
        bios_interface={"type": "integer"})}}, ["attribute-added"], id="another-type"),
    pytest.param({"/nodes/{node}": {"get": _show(state={"type": "string", "enum": ["a", "b"]})},
                  "/nodes/detail": {"get": _listing(state={"type": "string", "enum": ["a"]})}},
                 {"/nodes/{node}": {"get": _show(state={"type": "string", "enum": ["a", "b"]})},
                  "/nodes/detail": {"get": _listing(state={"type": "string",
                                                           "enum": ["a", "b"]})}},
                 ["value-added"], id="a-value-is-no-attribute"),
    pytest.param({"/ports/{port}": {"get": _show(bios_interface=STRING)},
                  "/nodes/detail": {"get": _listing()}},
                 {"/ports/{port}": {"get": _show(bios_interface=STRING)},
                  "/nodes/detail": {"get": _listing(bios_interface=STRING)}},
                 ["attribute-added"], id="another-resource"),
])
def test_an_attribute_the_resource_already_had(tmp_path: Path, run_cli, old: dict[str, object],
                                               new: dict[str, object],
                                               expected: list[str]) -> None:
    files = []
    for name, paths in (("old.yaml", old), ("new.yaml", new)):
        (tmp_path / name).write_text(yaml.safe_dump(_document(paths)))
        files.append(str(tmp_path / name))
    _, out, _ = run_cli("diff", *files, "--format", "json", "--no-validate", "--catch-up")
    assert sorted(c["id"] for c in json.loads(out)["changes"]) == expected


@pytest.mark.parametrize(("area", "side"), [
    ("request-body", "request"), ("request-media-type", "request"),
    ("request-header", "request"), ("query-parameter", "request"),
    ("response-body", "response"), ("response-media-type", "response"),
    ("response-header", "response"), ("status-code", "response"),
])
def test_direction(area: str, side: str) -> None:
    change = Change(area=area, kind="added", aspect="", operation="GET /x",  # type: ignore[arg-type]
                    op_key=OpKey("GET", "/x"))
    assert direction(change) == side
