"""One schema in its OpenAPI 3.0 and 3.1 spellings is one contract (exclusive bounds,
nullable), and a microversion that cannot be read is reported, not silently dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from needs_microversion.documents.document import SourceFloat, read_document

from needs_microversion.model.document import Document
from needs_microversion.documents.refs import RefResolver
from needs_microversion.loaders.openapi.normalise import SchemaTable
from needs_microversion.model.extensions import LOCATION_KEY, openstack_range
from needs_microversion.model.schema import Schema
from needs_microversion.loaders.openapi.version_warnings import openstack_problems, version_warnings
from needs_microversion.model.schema import RawSchema
from needs_microversion.model.versions import Version, VersionRange, version_problem

HEAD = {"3.0": "openapi: 3.0.3\n", "3.1": "openapi: 3.1.0\n"}
# `value` is a response attribute and a query parameter: both places read the schema.
BODY = """info: {{title: compute, version: "2.9"}}
paths:
  /servers:
    get:
      parameters:
        - {{name: value, in: query, schema: {schema}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {{type: object, properties: {{value: {schema}}}}}
components:
  schemas:
    Fault: {{type: object, properties: {{code: {{type: integer}}}}}}
"""
FAULT = "{$ref: '#/components/schemas/Fault'}"


def _write(folder: Path, name: str, version: str, schema: str) -> str:
    path = folder / name
    path.write_text(HEAD[version] + BODY.format(schema=schema))
    return str(path)


def _diff(tmp_path: Path, run_cli, old: tuple[str, str], new: tuple[str, str]
          ) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_cli("diff", _write(tmp_path, "old.yaml", *old),
                             _write(tmp_path, "new.yaml", *new), "--format", "json",
                             "--no-validate")
    assert code in (0, 1), err
    return code, json.loads(out), err


def _schema(node: Any) -> Schema:
    """Normalise one schema node of an in-memory document."""
    doc = Document(path=Path("/nowhere/doc.yaml"), display="doc.yaml", root=Path("/nowhere"),
                   text="", data={"root": node}, format="yaml")
    return SchemaTable(RefResolver(doc)).get(RawSchema(doc, node, ("root",)))


SAME = {
    # OpenAPI 3.0 writes an exclusive bound as a flag beside the bound, 3.1 as the bound.
    "exclusive-minimum": ("{type: integer, minimum: 0, exclusiveMinimum: true}",
                          "{type: integer, exclusiveMinimum: 0}"),
    "exclusive-maximum": ("{type: number, maximum: 9.5, exclusiveMaximum: true}",
                          "{type: number, exclusiveMaximum: 9.5}"),
    "exclusive-minimum-false": ("{type: integer, minimum: 1, exclusiveMinimum: false}",
                                "{type: integer, minimum: 1}"),
    "exclusive-maximum-false": ("{type: integer, maximum: 5, exclusiveMaximum: false}",
                                "{type: integer, maximum: 5}"),
    "nullable-type-list": ("{type: integer, nullable: true}", "{type: [integer, 'null']}"),
    "nullable-one-of": ("{type: integer, nullable: true}",
                        "{oneOf: [{type: integer}, {type: 'null'}]}"),
    "nullable-any-of-null-first": ("{type: integer, nullable: true}",
                                   "{anyOf: [{type: 'null'}, {type: integer}]}"),
    "nullable-enum": ("{type: string, nullable: true, enum: [a, b, null]}",
                      "{oneOf: [{type: string, enum: [a, b]}, {type: 'null'}]}"),
    "nullable-ref-all-of": (f"{{nullable: true, allOf: [{FAULT}]}}",
                            f"{{oneOf: [{FAULT}, {{type: 'null'}}]}}"),
    "nullable-ref-sibling": ("{$ref: '#/components/schemas/Fault', nullable: true}",
                             f"{{anyOf: [{FAULT}, {{type: 'null', description: none}}]}}"),
}


@pytest.mark.parametrize("forward", [True, False], ids=["3.0-to-3.1", "3.1-to-3.0"])
@pytest.mark.parametrize("name", sorted(SAME))
def test_a_3_0_to_3_1_migration_is_no_change(tmp_path: Path, run_cli, name: str,
                                             forward: bool) -> None:
    old, new = ("3.0", SAME[name][0]), ("3.1", SAME[name][1])
    code, report, _ = _diff(tmp_path, run_cli, *((old, new) if forward else (new, old)))
    assert (code, report["changes"]) == (0, [])


@pytest.mark.parametrize(("old", "new"), [
    ("{type: integer, minimum: 0}", "{type: integer, exclusiveMinimum: 0}"),
    ("{type: integer, minimum: 0, exclusiveMinimum: true}", "{type: integer, minimum: 0}"),
    ("{type: integer, exclusiveMinimum: 0}", "{type: integer, exclusiveMinimum: 1}"),
], ids=["inclusive-to-exclusive", "exclusive-flag-dropped", "exclusive-bound-moved"])
def test_a_changed_bound_is_still_a_change(tmp_path: Path, run_cli, old: str,
                                           new: str) -> None:
    code, report, _ = _diff(tmp_path, run_cli, ("3.1", old), ("3.1", new))
    assert code == 1
    assert sorted(c["id"] for c in report["changes"]) == [
        "attribute-changed", "query-parameter-changed"]


@pytest.mark.parametrize(("old", "new"), [
    ("{type: integer}", "{oneOf: [{type: integer}, {type: 'null'}]}"),
    (FAULT, f"{{anyOf: [{FAULT}, {{type: 'null'}}]}}"),
], ids=["inline", "ref"])
def test_a_null_branch_added_is_a_nullable_change(tmp_path: Path, run_cli, old: str,
                                                  new: str) -> None:
    code, report, _ = _diff(tmp_path, run_cli, ("3.1", old), ("3.1", new))
    body = [c for c in report["changes"] if c["id"] == "attribute-changed"]
    assert code == 1 and len(body) == 1
    assert (body[0]["kind"], body[0]["old"], body[0]["new"]) == (
        "response-body:nullable", False, True)


def test_both_bounds_in_3_1_keep_the_stricter() -> None:
    assert _schema({"type": "integer", "minimum": 0, "exclusiveMinimum": 0}).constraints == {
        "exclusiveMinimum": "0"}
    assert _schema({"type": "integer", "minimum": 1, "exclusiveMinimum": 0}).constraints == {
        "minimum": "1"}
    assert _schema({"type": "integer", "maximum": 5, "exclusiveMaximum": 9}).constraints == {
        "maximum": "5"}
    # true with no bound beside it excludes nothing (OpenAPI 3.0 requires the bound).
    assert _schema({"type": "integer", "exclusiveMaximum": True}).constraints == {}


def test_only_a_pair_with_a_null_branch_unfolds() -> None:
    null, text = {"type": "null"}, {"type": "string"}
    assert _schema({"oneOf": [text, null]}).types == frozenset({"string", "null"})
    three = _schema({"oneOf": [text, {"type": "integer"}, null]})
    assert three.types is None and len(three.alternatives["oneOf"]) == 3
    # A null branch that says more (here: gated on a microversion) is a real alternative.
    gated = _schema({"oneOf": [text, {"type": "null", "x-openstack": {"min-ver": "2.5"}}]})
    assert len(gated.alternatives["oneOf"]) == 2
    both_null = _schema({"anyOf": [null, null]})
    assert len(both_null.alternatives["anyOf"]) == 2
    # Any type already admits null.
    assert _schema({"anyOf": [{"description": "anything"}, null]}).types is None


# -- unreadable microversions -----------------------------------------------------------

@pytest.mark.parametrize(("value", "problem"), [
    ("2.10", None),
    (SourceFloat("2.10"), None),
    ("abc", "'abc' is not a microversion X.Y"),
    ("2.x", "'2.x' is not a microversion X.Y"),
    (3, "'3' is not a microversion X.Y"),
    (None, "is empty (null), not a microversion X.Y"),
    (["2.1"], "is a list, not a microversion X.Y"),
    ({"v": "2.1"}, "is a mapping, not a microversion X.Y"),
], ids=["text", "yaml-float", "word", "wildcard", "integer", "null", "list", "mapping"])
def test_version_problem(value: object, problem: str | None) -> None:
    assert version_problem(value) == problem


def test_an_unreadable_bound_still_reads_as_no_bound() -> None:
    node = {"x-openstack": {"min-ver": "abc", "max-ver": "2.7"}}
    assert openstack_range(node) == VersionRange(None, Version(2, 7))
    assert openstack_problems(node) == [
        "x-openstack min-ver 'abc' is not a microversion X.Y; ignored, so the element is not "
        "gated"]


@pytest.mark.parametrize(("ext", "problem"), [
    ({"min-ver": "2.1", "max-ver": "2.5"}, None),
    ({"discriminator": "microversion"}, None),
    ({"max_ver": None}, "x-openstack max_ver is empty (null), not a microversion X.Y; "
                        "ignored, so the element is never removed"),
    (5, "x-openstack 5 is not a mapping; its microversions are ignored"),
    ({"min-ver": "2.10", "max-ver": "2.1"},
     "x-openstack min-ver 2.10 is above max-ver 2.1: the element is present at no "
     "microversion"),
    ({"min-ver": "2.3", "min_ver": "2.4"},
     "x-openstack has both min-ver and min_ver, with different values; min-ver is read"),
], ids=["fine", "container", "null-max", "not-a-mapping", "empty-range", "two-spellings"])
def test_openstack_problems(ext: object, problem: str | None) -> None:
    assert openstack_problems({"x-openstack": ext}) == ([] if problem is None else [problem])


DOC = """openapi: 3.0.3
info: {title: t, version: "2.9"}
paths:
  /servers:
    get:
      x-openstack: {min-ver: "2.x"}
      parameters:
        - name: tag
          in: query
          schema: {type: string}
          x-openstack: {min-ver: [2, 1]}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  x-openstack: {type: string}
                  locked: {type: boolean, x-openstack: {min_ver: abc}}
                  fine: {type: boolean, x-openstack: {min_ver: "2.3"}}
                example: {x-openstack: {min-ver: nonsense}}
"""


def test_version_warnings_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(DOC)
    shown = str(path)
    assert version_warnings(read_document(path)) == (
        f"{shown}:6: x-openstack min-ver '2.x' is not a microversion X.Y; ignored, so the "
        f"element is not gated",
        f"{shown}:11: x-openstack min-ver is a list, not a microversion X.Y; ignored, so the "
        f"element is not gated",
        f"{shown}:21: x-openstack min_ver 'abc' is not a microversion X.Y; ignored, so the "
        f"element is not gated",
    )  # not the property called x-openstack (line 20), nor the example (line 23)


def test_version_warnings_cost_a_text_search_without_x_openstack(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(DOC.replace("x-openstack", "x-other"))
    assert version_warnings(read_document(path)) == ()


def test_an_unreadable_maximum_is_reported_in_a_microversioned_document(
        tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(DOC.replace('"2.9"', '"2.1O"').replace("2.x", "2.1"))
    warnings = version_warnings(read_document(path))
    assert warnings[0] == (
        f"{path}:2: info.version '2.1O' is not a microversion X.Y; the document's maximum "
        f"microversion is read from its x-openstack bounds instead")


def test_version_warnings_use_the_place_an_api_ref_row_names() -> None:
    node = {"type": "string", "x-openstack": {"min-ver": "x"}, LOCATION_KEY: "servers.inc:12"}
    data = yaml.safe_load(DOC.replace("2.x", "2.1").replace("[2, 1]", "'2.2'")
                          .replace("abc", "'2.3'"))
    data["paths"]["/servers"]["get"]["parameters"][0]["schema"] = node
    doc = Document(path=Path("/src/api-ref"), display="api-ref", root=Path("/src"), text="",
                   data=data, format="api-ref")
    assert version_warnings(doc) == (
        "api-ref/servers.inc:12: x-openstack min-ver 'x' is not a microversion X.Y; ignored, "
        "so the element is not gated",)


def test_the_cli_warns_of_an_unreadable_microversion(tmp_path: Path, run_cli) -> None:
    old = ("3.0", "{type: string}")
    code, out, err = run_cli("diff", _write(tmp_path, "old.yaml", *old),
                             str(_with_bad_version(tmp_path)), "--no-validate")
    assert code == 1  # still judged: the element counts as ungated
    assert f"warning: {tmp_path / 'new.yaml'}:6: x-openstack min-ver 'abc'" in err


def _with_bad_version(tmp_path: Path) -> Path:
    path = tmp_path / "new.yaml"
    path.write_text(HEAD["3.0"] + BODY.format(schema="{type: string}").replace(
        "    get:\n", "    get:\n      x-openstack: {min-ver: abc}\n", 1).replace(
        "{type: object, properties: {value:", "{type: object, properties: {added: "
        "{type: string}, value:"))
    return path
