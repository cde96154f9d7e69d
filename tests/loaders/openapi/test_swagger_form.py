"""Swagger 2.0 forms and undeclared path parameters, where the loader fills in what the
document leaves implicit.

- `in: formData` parameters are the fields of the request body (media type from `consumes`),
  never query parameters; Swagger's `type: file` is OpenAPI 3's `{type: string, format:
  binary}` form field, so migrating a form from Swagger 2.0 to OpenAPI 3 changes nothing.
- A path placeholder that no parameter declares is a required string path parameter:
  declaring it as one changes nothing, declaring it narrower (integer, a format) is judged
  like the same change to a declared string parameter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from needs_microversion.load import load_snapshot
from needs_microversion.model.snapshot import OpKey

UPLOAD = "POST /v1/containers/{}/put_archive"


def _swagger_upload(fields: str, *, consumes: str = "[multipart/form-data]",
                    version: str = "1.30") -> str:
    return f"""\
swagger: "2.0"
info: {{title: Container API, version: "{version}"}}
consumes: [application/json]
produces: [application/json]
paths:
  /v1/containers/{{container_id}}/put_archive:
    parameters:
      - {{name: container_id, in: path, required: true, type: string}}
    post:
      consumes: {consumes}
      parameters:
{fields}
      responses:
        '200': {{description: OK}}
"""


FILE = "        - {name: data, in: formData, required: true, type: file}\n"
PATH = "        - {name: path, in: formData, required: true, type: string}\n"

OPENAPI_UPLOAD = """\
openapi: 3.0.3
info: {title: Container API, version: "1.30"}
paths:
  /v1/containers/{container_id}/put_archive:
    parameters:
      - {name: container_id, in: path, required: true, schema: {type: string}}
    post:
      requestBody:
        required: true
        content:
          MEDIA:
            schema:
              type: object
              required: [data, path]
              properties:
                data: DATA
                path: {type: string}
      responses:
        '200': {description: OK}
"""


def _openapi_upload(media: str = "multipart/form-data",
                    data: str = "{type: string, format: binary}") -> str:
    return OPENAPI_UPLOAD.replace("MEDIA", media).replace("DATA", data)


def _diff(run_cli, tmp_path: Path, old: str, new: str) -> tuple[int, dict]:
    (tmp_path / "old.yaml").write_text(old, encoding="utf-8")
    (tmp_path / "new.yaml").write_text(new, encoding="utf-8")
    code, out, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                             "--format", "json", "--no-validate")
    assert code in (0, 1), err
    return code, json.loads(out)


def _found(report: dict) -> list[tuple[str, str, str]]:
    return sorted((c["id"], c["kind"], c["pointer"]) for c in report["changes"])


def _both_ways(run_cli, tmp_path: Path, a: str, b: str) -> list[list[tuple[str, str, str]]]:
    return [_found(_diff(run_cli, tmp_path, old, new)[1]) for old, new in ((a, b), (b, a))]


# -- formData ---------------------------------------------------------------------------------
def test_form_fields_are_body_attributes_not_query_parameters(run_cli, tmp_path: Path) -> None:
    old = _swagger_upload(FILE + PATH)
    new = _swagger_upload(FILE + PATH.replace("string", "integer") +
                          "        - {name: overwrite, in: formData, type: boolean}\n")
    code, report = _diff(run_cli, tmp_path, old, new)
    assert code == 1
    assert _found(report) == [("attribute-added", "request-body", "/overwrite"),
                              ("attribute-changed", "request-body:type", "/path")]
    assert {c["media_type"] for c in report["changes"]} == {"multipart/form-data"}
    # The synthetic form schema has no text; a finding points at the parameter's line.
    lines = {c["pointer"]: c["location"].rsplit(":", 1)[1] for c in report["changes"]}
    assert lines == {"/overwrite": "14", "/path": "13"}


def test_form_field_removed(run_cli, tmp_path: Path) -> None:
    _, report = _diff(run_cli, tmp_path, _swagger_upload(FILE + PATH), _swagger_upload(FILE))
    assert _found(report) == [("attribute-removed", "request-body", "/path")]


@pytest.mark.parametrize(("consumes", "media"), [
    ("[multipart/form-data]", "multipart/form-data"),
    ("[application/x-www-form-urlencoded]", "application/x-www-form-urlencoded"),
], ids=["multipart", "urlencoded"])
def test_form_migrated_to_openapi_3_is_no_change(run_cli, tmp_path: Path, consumes: str,
                                                 media: str) -> None:
    fields = PATH + FILE if media == "multipart/form-data" else (
        PATH + FILE.replace("file", "string"))
    data = "{type: string, format: binary}" if media == "multipart/form-data" else (
        "{type: string}")
    swagger = _swagger_upload(fields, consumes=consumes)
    assert _both_ways(run_cli, tmp_path, swagger, _openapi_upload(media, data)) == [[], []]


def test_file_field_is_not_a_plain_string(run_cli, tmp_path: Path) -> None:
    """`type: file` is binary content: a form field that becomes a plain string changed."""
    swagger = _swagger_upload(FILE + PATH)
    assert _both_ways(run_cli, tmp_path, swagger, _openapi_upload(data="{type: string}")) == [
        [("attribute-changed", "request-body:constraint", "/data")]] * 2


@pytest.mark.parametrize(("fields", "consumes", "media"), [
    (FILE + PATH, "[multipart/form-data]", ["multipart/form-data"]),
    (PATH, "[multipart/form-data, application/x-www-form-urlencoded]",
     ["application/x-www-form-urlencoded", "multipart/form-data"]),
    # `consumes` left at the document's JSON: a file needs multipart, else urlencoded
    (FILE + PATH, "[application/json]", ["multipart/form-data"]),
    (PATH, "[application/json]", ["application/x-www-form-urlencoded"]),
    # media type parameters don't change the contract's shape (as in OpenAPI 3 content)
    (PATH, "['application/x-www-form-urlencoded; charset=utf-8']",
     ["application/x-www-form-urlencoded"]),
], ids=["multipart", "both", "file-without-consumes", "fields-without-consumes", "charset"])
def test_form_media_types(tmp_path: Path, fields: str, consumes: str, media: list[str]) -> None:
    path = tmp_path / "swagger.yaml"
    path.write_text(_swagger_upload(fields, consumes=consumes), encoding="utf-8")
    snapshot = load_snapshot(str(path), validate=False)
    op = snapshot.operations[OpKey("POST", "/v1/containers/{}/put_archive")]
    assert sorted(op.request_content) == media
    assert [k for k in op.parameters if k[0] != "path"] == []
    assert op.request_required


def test_form_field_added_in_a_new_microversion_is_gated(run_cli, tmp_path: Path) -> None:
    old = _swagger_upload(FILE + PATH)
    new = _swagger_upload(FILE + PATH + "        - {name: overwrite, in: formData, "
                          "type: boolean, x-openstack: {min-ver: '1.31'}}\n", version="1.31")
    code, report = _diff(run_cli, tmp_path, old, new)
    assert _found(report) == [("attribute-added", "request-body", "/overwrite")]
    assert (code, report["changes"][0]["gated"], report["bumped"]) == (0, "1.31", True)


# -- undeclared path parameters ---------------------------------------------------------------
def _tags(declared: str = "", *, path: str = "/servers/{server_id}/tags/{tag}",
          swagger: bool = False) -> str:
    head = ('swagger: "2.0"' if swagger else "openapi: 3.0.3")
    params = f"      parameters:\n{declared}" if declared else ""
    return (f"{head}\ninfo: {{title: Compute API, version: '2.26'}}\npaths:\n  {path}:\n"
            f"    put:\n{params}      responses:\n        '204': {{description: No Content}}\n")


def _path_param(name: str, schema: str, *, swagger: bool = False) -> str:
    spec = schema.strip("{}") if swagger else f"schema: {schema}"
    return f"        - {{name: {name}, in: path, required: true, {spec}}}\n"


@pytest.mark.parametrize("swagger", [False, True], ids=["openapi-3", "swagger-2"])
def test_declaring_an_undeclared_path_parameter_as_a_string_is_no_change(
        run_cli, tmp_path: Path, swagger: bool) -> None:
    declared = (_path_param("server_id", "{type: string}", swagger=swagger) +
                _path_param("tag", "{type: string}", swagger=swagger))
    assert _both_ways(run_cli, tmp_path, _tags(swagger=swagger),
                      _tags(declared, swagger=swagger)) == [[], []]


def test_one_of_two_placeholders_declared(run_cli, tmp_path: Path) -> None:
    declared = _tags(_path_param("tag", "{type: string}"))
    assert _both_ways(run_cli, tmp_path, _tags(), declared) == [[], []]


def test_renamed_and_declared_is_no_change(run_cli, tmp_path: Path) -> None:
    declared = _tags(_path_param("id", "{type: string}") + _path_param("tag_name",
                                                                       "{type: string}"),
                     path="/servers/{id}/tags/{tag_name}")
    assert _both_ways(run_cli, tmp_path, _tags(), declared) == [[], []]


@pytest.mark.parametrize(("schema", "aspect", "detail"), [
    ("{type: integer}", "type", "integer"),
    ("{type: string, format: uuid}", "constraint", "uuid"),
], ids=["integer", "uuid"])
def test_declaring_it_narrower_than_a_string_is_judged_like_a_declared_string(
        run_cli, tmp_path: Path, schema: str, aspect: str, detail: str) -> None:
    """Undeclared is `{type: string}`: the same findings as from a declared string."""
    narrower = _tags(_path_param("server_id", schema) + _path_param("tag", "{type: string}"))
    declared = _tags(_path_param("server_id", "{type: string}") + _path_param(
        "tag", "{type: string}"))
    expected = [("path-parameter-changed", f"path-parameter:{aspect}", "server_id")]
    assert _both_ways(run_cli, tmp_path, _tags(), narrower) == [expected, expected]
    assert _both_ways(run_cli, tmp_path, declared, narrower) == [expected, expected]
    _, report = _diff(run_cli, tmp_path, _tags(), narrower)
    assert report["changes"][0]["new"] == detail


def test_declaring_it_optional_is_a_change(run_cli, tmp_path: Path) -> None:
    """A URL segment cannot be left out; a document that says so changed what it promises."""
    optional = _tags(_path_param("server_id", "{type: string}").replace("true", "false"))
    assert _found(_diff(run_cli, tmp_path, _tags(), optional)[1]) == [
        ("path-parameter-changed", "path-parameter:required", "server_id")]
