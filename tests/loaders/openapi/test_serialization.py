"""Query parameters as clients send them: style/explode defaults and exploded form objects.

- `style` and `explode` are kept only where they differ from OpenAPI's default for the
  parameter's location; spelling a default out changes nothing.
- A query parameter holding an object, `form` and exploded, is one query parameter per
  property; one that lists extra properties by pattern (`additionalProperties`), or is sent
  another way, stays one parameter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from needs_microversion.load import load_snapshot
from needs_microversion.loaders.openapi.serialization import serialization
from needs_microversion.model.snapshot import OpKey


@pytest.mark.parametrize(("where", "node", "expected"), [
    ("query", {"style": "form", "explode": True}, {}),
    ("query", {"explode": False}, {"explode": "false"}),
    ("query", {"style": "spaceDelimited"}, {"style": '"spaceDelimited"'}),
    ("path", {"style": "simple", "explode": False}, {}),
    ("header", {"explode": True}, {"explode": "true"}),
    ("query", {"allowReserved": False, "allowEmptyValue": True}, {"allowEmptyValue": "true"}),
])
def test_only_what_differs_from_the_default_is_kept(where: str, node: dict[str, object],
                                                     expected: dict[str, str]) -> None:
    assert serialization(where, node) == expected


def _query(tmp_path: Path, param: str) -> dict[tuple[str, str], tuple[bool, str]]:
    text = f"""\
openapi: 3.0.3
info: {{title: t, version: "1.0"}}
paths:
  /volumes:
    get:
      parameters:
        - {param}
      responses:
        '200': {{description: OK}}
"""
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    op = load_snapshot(str(path), validate=False).operations[OpKey("GET", "/volumes", None)]
    return {key: (p.required, p.where) for key, p in op.parameters.items()}


def test_an_exploded_form_object_is_one_query_parameter_per_property(tmp_path: Path) -> None:
    params = _query(tmp_path, "{name: paging, in: query, required: true, schema: {type: object,"
                              " required: [limit], properties: {limit: {type: integer},"
                              " marker: {type: string}}}}")
    assert params == {("query", "limit"): (True, "query"), ("query", "marker"): (False, "query")}


@pytest.mark.parametrize("param", [
    "{name: filter, in: query, schema: {type: object, properties: {a: {type: string}},"
    " additionalProperties: {type: string}}}",
    "{name: filter, in: query, explode: false, schema: {type: object,"
    " properties: {a: {type: string}}}}",
    "{name: filter, in: query, style: deepObject, schema: {type: object,"
    " properties: {a: {type: string}}}}",
    "{name: filter, in: header, schema: {type: object, properties: {a: {type: string}}}}",
])
def test_other_objects_stay_one_parameter(tmp_path: Path, param: str) -> None:
    assert list(_query(tmp_path, param)) == [("query" if "query" in param else "header",
                                              "filter")]
