"""Hypothesis strategies for the structure fuzzer (tests/test_fuzz.py).

Each strategy starts from a well-formed input that reaches deep into the loaders (an
OpenAPI 3.0/3.1 or Swagger 2.0 document with x-openstack bounds, an api-ref tree with every
directive the reader knows, a configuration file with every key) and then puts a wrong value
in some positions: a value of another type, a missing or extra key, a `$ref` to anywhere
(itself included), one node shared in two places (YAML aliases), text cut short.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import strategies as st

# -- wrong values ----------------------------------------------------------------------------

# Texts the loaders give a meaning to: versions, refs, methods, codes, types, markup.
TEXTS = [
    "", " ", "2.10", "2.", ".5", "1.0.0", "x.y", "2.1e3", "9" * 30 + ".1", "0.0", "-1.5",
    "GET", "get", "METHOD", "/", "//", "{", "}", "{id}", "/x/{", "/x/{a}/{a}", "?a=1&b=2",
    "#", "#/", "#/components/schemas/A", "#/definitions/A", "#/paths", "#/paths/~1x/get",
    "../outside.yaml", "other.yaml", "/etc/passwd", "http://example.com/x.yaml", "$ref",
    "null", "true", "~", "<<", "\t", "\u2028", "é", "\x00", "a" * 200, "200", "2XX", "default",
    "999", "application/json", "*/*", "object", "array", "string", "integer", "number",
    "boolean", "min-ver", "max-ver", "microversion", "action", "%", "\\", ":", "- a", "..",
    "1.1 - 1.2", "2.1 -", "(microversions 2.1 - )", "**bold", "``x``", ".. note::",
]
KEYWORDS = [
    "type", "properties", "items", "$ref", "allOf", "oneOf", "anyOf", "not", "enum", "required",
    "x-openstack", "min-ver", "max-ver", "discriminator", "additionalProperties",
    "patternProperties", "schema", "content", "in", "name", "parameters", "responses",
    "description", "get", "post", "200", "default", "nullable", "format", "const", "headers",
    "requestBody", "components", "definitions", "paths", "securitySchemes", "security",
    "operationId", "deprecated", "readOnly", "writeOnly", "minimum", "maxLength", "pattern",
    "action-name", "propertyName", "mapping", "examples", "example", "<<",
]
SCALARS = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(TEXTS),
    st.text(max_size=6),
)
KEYS = st.one_of(st.sampled_from(KEYWORDS), st.text(max_size=4))


def junk() -> st.SearchStrategy[Any]:
    """Any JSON-like value, small."""
    return st.recursive(SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)), max_leaves=6)


# -- mutating a document ---------------------------------------------------------------------

def _pointers(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found.extend(_pointers(value, (*prefix, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(_pointers(value, (*prefix, index)))
    return found


def _escape(part: Any) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


@st.composite
def mutated(draw: Any, template: dict[str, Any], *, max_mutations: int = 4) -> Any:
    """`template` with wrong values in 1..max_mutations positions (the root included)."""
    data: Any = copy.deepcopy(template)
    for _ in range(draw(st.integers(1, max_mutations))):
        pointers = _pointers(data)
        pointers.append(pointers.pop(0))  # the root last: hypothesis favours the first
        where = draw(st.sampled_from(pointers))
        action = draw(st.sampled_from(["replace", "replace", "delete", "add", "ref", "share"]))
        if action == "ref":
            target = draw(st.sampled_from(pointers))
            value: Any = {"$ref": "#/" + "/".join(_escape(p) for p in target)}
        elif action == "share":  # the same object in two places: YAML writes an alias
            value = _get(data, draw(st.sampled_from(pointers)))
            if where and _reaches(value, _get(data, where[:-1])):
                continue  # it would contain itself
        else:
            value = draw(junk())
        if not where:
            if action in ("replace", "ref"):
                data = value
            continue
        parent, last = _get(data, where[:-1]), where[-1]
        if action == "delete":
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(KEYS)] = value
        elif action == "add":
            parent.insert(last, value)
        else:
            parent[last] = value
    return data


def _reaches(data: Any, target: Any) -> bool:
    """Whether `target` (a container) is `data` or inside it."""
    pending, seen = [data], set()
    while pending:
        node = pending.pop()
        if node is target:
            return True
        if isinstance(node, (dict, list)) and id(node) not in seen:
            seen.add(id(node))
            pending.extend(node.values() if isinstance(node, dict) else node)
    return False


def _get(data: Any, pointer: tuple[Any, ...]) -> Any:
    for part in pointer:
        data = data[part]
    return data


def _json_safe(data: Any) -> Any:
    """JSON writes only string keys; a float nan/inf stays (json.dumps writes NaN)."""
    if isinstance(data, dict):
        return {str(k): _json_safe(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_json_safe(v) for v in data]
    return data


@st.composite
def serialised(draw: Any, data: Any) -> bytes:
    """JSON or YAML text of `data`; sometimes cut short."""
    if draw(st.booleans()):
        text = json.dumps(_json_safe(data), indent=draw(st.sampled_from([None, 1])),
                          ensure_ascii=False)
    else:
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False,
                              default_flow_style=draw(st.sampled_from([False, None])))
    raw = text.encode("utf-8", errors="surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        raw = raw[:draw(st.integers(len(raw) // 2, len(raw)))]
    return raw


# -- OpenAPI and Swagger templates -----------------------------------------------------------

def _schema(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "object", "required": ["id"], "properties": {
        "id": {"type": "string", "format": "uuid"},
        "status": {"type": "string", "enum": ["ACTIVE", "ERROR"]},
        "size": {"type": "integer", "minimum": 1, "x-openstack": {"min-ver": "2.10"}},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
        "meta": {"type": "object", "additionalProperties": {"type": "string"}},
        "old": {"type": "boolean", "x-openstack": {"max-ver": "2.5"}},
        **(extra or {}),
    }}


def openapi_template(version: str) -> dict[str, Any]:
    body = {"oneOf": [
        {"$ref": "#/components/schemas/Server", "x-openstack": {"min-ver": "2.1",
                                                                 "max-ver": "2.9"}},
        {"$ref": "#/components/schemas/Server2", "x-openstack": {"min-ver": "2.10"}},
    ], "x-openstack": {"discriminator": "microversion"}}
    return {
        "openapi": version,
        "info": {"title": "compute", "version": "2.12"},
        "servers": [{"url": "http://localhost/v2.1"}],
        "security": [{"token": []}],
        "paths": {
            "/servers": {
                "get": {
                    "operationId": "servers:get",
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                        {"$ref": "#/components/parameters/marker"},
                        {"name": "X-Trace", "in": "header", "required": False,
                         "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {"description": "ok", "headers": {
                            "X-Count": {"schema": {"type": "integer"}}},
                            "content": {"application/json": {"schema": {
                                "type": "object", "properties": {"servers": {
                                    "type": "array", "items": {
                                        "$ref": "#/components/schemas/Server"}}}}}}},
                        "400": {"$ref": "#/components/responses/Bad"},
                    },
                },
                "post": {
                    "x-openstack": {"min-ver": "2.3"},
                    "requestBody": {"required": True, "content": {
                        "application/json": {"schema": body}}},
                    "responses": {"202": {"description": "accepted", "content": {
                        "application/json": {"schema": {"$ref":
                                                        "#/components/schemas/Server"}}}}},
                },
            },
            "/servers/{server_id}": {
                "parameters": [{"name": "server_id", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "delete": {"deprecated": True, "responses": {"204": {"description": "gone"},
                                                             "default": {"description": "e"}}},
            },
            "/servers/{server_id}/action": {
                "post": {"requestBody": {"content": {"application/json": {"schema": {
                    "oneOf": [{"type": "object", "x-openstack": {"action-name": "reboot"},
                               "properties": {"reboot": {"type": "object"}}},
                              {"type": "object", "x-openstack": {"action-name": "pause",
                                                                 "min-ver": "2.7"},
                               "properties": {"pause": {"type": "null"}}}],
                    "x-openstack": {"discriminator": "action"}}}}},
                    "responses": {"202": {"description": "ok"}}},
            },
        },
        "components": {
            "schemas": {"Server": _schema(),
                        "Server2": _schema({"host": {"type": ["string", "null"]}}),
                        "Tree": {"type": "object", "properties": {
                            "child": {"$ref": "#/components/schemas/Tree"}}}},
            "parameters": {"marker": {"name": "marker", "in": "query",
                                      "schema": {"type": "string"},
                                      "x-openstack": {"min-ver": "2.2"}}},
            "responses": {"Bad": {"description": "bad", "content": {
                "application/json": {"schema": {"allOf": [
                    {"$ref": "#/components/schemas/Tree"}, {"type": "object"}]}}}}},
            "securitySchemes": {"token": {"type": "apiKey", "in": "header",
                                          "name": "X-Auth-Token"}},
        },
    }


def swagger_template() -> dict[str, Any]:
    return {
        "swagger": "2.0",
        "info": {"title": "k", "version": "1.0"},
        "basePath": "/api",
        "consumes": ["application/json"],
        "produces": ["application/json"],
        "securityDefinitions": {"key": {"type": "apiKey", "in": "header", "name": "X"}},
        "paths": {
            "/pods": {
                "get": {"parameters": [{"name": "limit", "in": "query", "type": "integer"},
                                       {"$ref": "#/parameters/pretty"}],
                        "responses": {"200": {"description": "ok", "schema": {
                            "type": "array", "items": {"$ref": "#/definitions/Pod"}}}}},
                "post": {"parameters": [{"name": "body", "in": "body", "required": True,
                                         "schema": {"$ref": "#/definitions/Pod"}}],
                         "responses": {"201": {"description": "made", "headers": {
                             "Location": {"type": "string"}}}}},
            },
            "/pods/{name}": {"parameters": [{"name": "name", "in": "path", "required": True,
                                             "type": "string"}],
                             "patch": {"consumes": ["application/merge-patch+json"],
                                       "parameters": [{"name": "f", "in": "formData",
                                                       "type": "file"}],
                                       "responses": {"default": {"description": "x"}}}},
        },
        "parameters": {"pretty": {"name": "pretty", "in": "query", "type": "string"}},
        "definitions": {"Pod": _schema({"spec": {"$ref": "#/definitions/Pod"}})},
    }


@st.composite
def api_documents(draw: Any) -> bytes:
    """A mutated OpenAPI 3.0, 3.1 or Swagger 2.0 document, as JSON or YAML bytes."""
    template = draw(st.sampled_from(["3.0.3", "3.1.0", "2.0"]))
    base = swagger_template() if template == "2.0" else openapi_template(template)
    return draw(serialised(draw(mutated(base))))


# -- api-ref trees ---------------------------------------------------------------------------

def _yaml_text(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


PARAMETER_FIELDS = {
    "server_id": {"in": "path", "required": True, "type": "string",
                  "description": "The UUID of the server."},
    "limit": {"in": "query", "required": False, "type": "integer", "min_version": "2.10",
              "description": "Requests a page size."},
    "server": {"in": "body", "required": True, "type": "object", "description": "A server."},
    "name": {"in": "body", "required": True, "type": "string", "max_version": "2.5",
             "description": "Either ``ssh`` or ``x509``."},
    "tags": {"in": "body", "required": False, "type": "array", "min_version": "2.26",
             "description": "A list of tags."},
    "x_openstack_request_id": {"in": "header", "required": False, "type": "string",
                               "description": "The request id."},
}
SAMPLE = {"server": {"name": "a", "tags": ["x"], "links": [{"href": "h", "rel": "self"}]}}
JUNK_LINES = st.sampled_from([
    "- {a: b}", "- [1]", "- x", "- a: b: c", "- 1: 2", "- name:", "- : x", "-", "- &a x: *a",
    "  - nested: list", "- server: missing_ref", "- server_id: server_id_path",
    ":lines: 1-x", ":start-after: nowhere", ":lines: 3-1", "min_version: 2.", "max_version: x",
    "Normal response codes: 200, junk(99), 2XX", "Error response codes: badRequest(400",
    ".. versionadded:: x.y", ".. versionchanged:: 2.999999999999999999999",
    ".. include:: missing.inc", ".. include:: ../../outside.inc", ".. include:: index.rst",
    ".. include:: /abs.inc", ".. literalinclude:: samples/missing.json", "   :lines: 1-",
    "=====", "-----", "Request (microversions 2.1 - 2.x)", "Response (microversion 1e9 - )",
    "**Request**", "|", "+---+", "| a |", ".. rest_parameters::", ".. rest_status_code::",
    ".. rest_method::", "  GET", "POST /a/{b", "\t.. note::", "..", "",
])


def _inc(method: str, url: str, extras: list[tuple[int, str]]) -> str:
    lines = [
        "Servers", "=======", "", "List Servers", "------------", "",
        f".. rest_method:: {method} {url}", "   min_version: 2.3", "",
        "Lists servers. Added in microversion 2.3.", "",
        "Normal response codes: 200", "", "Error response codes: itemNotFound(404)", "",
        "Request", "~~~~~~~", "", ".. rest_parameters:: parameters.yaml", "",
        "  - server_id: server_id", "  - limit: limit", "",
        "Response (microversions 2.1 - )", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~", "",
        ".. rest_parameters:: parameters.yaml", "", "  - X-Openstack-Request-Id: "
        "x_openstack_request_id", "  - server: server", "  - server.name: name",
        "  - tags: tags", "",
        ".. rest_status_code:: success status.yaml", "", "   - 200", "   - 409: conflict", "",
        "**Example List Servers (2.26)**", "",
        ".. literalinclude:: samples/server.json", "   :language: javascript", "",
        ".. versionadded:: 2.26", "   Introduced the ``tags`` field.", "",
    ]
    for position, line in extras:
        lines.insert(min(position, len(lines)), line)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Tree:
    files: dict[str, bytes]  # relative name -> content


@st.composite
def apiref_trees(draw: Any) -> Tree:
    """An api-ref source folder: index.rst, an .inc, parameters.yaml, status.yaml, a
    sample, with junk lines, junk fields and junk YAML/JSON values in them."""
    extras = draw(st.lists(st.tuples(st.integers(0, 60), JUNK_LINES), max_size=4))
    method = draw(st.sampled_from(["GET", "POST", "METHOD", "get", "", "GET GET"]))
    url = draw(st.sampled_from(["/servers/{server_id}", "/v2.1/servers?x={y}", "", "{",
                                "/a/{share-id}/", "servers"]))
    parameters = draw(mutated(PARAMETER_FIELDS)) if draw(st.booleans()) else PARAMETER_FIELDS
    status = {200: {"default": "OK"}, 409: {"default": "Conflict", "conflict": "In use."}}
    if draw(st.booleans()):
        status = draw(mutated(status))
    sample = draw(mutated(SAMPLE)) if draw(st.booleans()) else SAMPLE
    params_text = _yaml_text(parameters)
    if draw(st.integers(0, 4)) == 0:  # anchors and merge keys, as nova writes them
        params_text += ("base: &base {in: body, required: true, type: string}\n"
                        "merged:\n  <<: *base\n  min_version: null\n"
                        "chained:\n  <<: [*base, *base]\n  type: " +
                        draw(st.sampled_from(["integer", "[", "*base", "2.10"])) + "\n")
    files = {
        "index.rst": ".. rest_expand_all::\n\n.. include:: servers.inc\n",
        "servers.inc": _inc(method, url, extras),
        "parameters.yaml": params_text,
        "status.yaml": _yaml_text(status),
        "samples/server.json": json.dumps(_json_safe(sample), indent=1),
    }
    if draw(st.booleans()):
        name = draw(st.sampled_from(sorted(files)))
        files[name] = draw(st.sampled_from(["", "\x00\x01", "[", "{{{", ": :", "- -\n- :",
                                            "\ufeff", "a: &a [*a]", "x\n=\n", "\xff"]))
    return Tree({name: text.encode("utf-8", errors="surrogatepass")
                 for name, text in files.items()})


# -- configuration files ---------------------------------------------------------------------

CONFIG = {
    "profile": "nova",
    "exempt-error-codes": [400, 404],
    "free-form": ["/server/metadata"],
    "disable": ["security"],
    "silent-failures": ["POST /servers/{id}/action: ignored"],
    "catch-up": True,
    "count-corrections": False,
    "services": [{
        "name": "compute",
        "documents": ["*.yaml"],
        "version-file": "version.py",
        "released-max": "2.1",
        "acknowledge": [{"rule": "attribute", "operation": "GET /servers/{id}",
                         "pointer": "/server/locked", "status": 200, "reason": "late",
                         "expires": "2099-01-01"}],
    }],
}


def _toml_value(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 2**63 else None
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string is a JSON string, mostly
    if isinstance(value, list):
        items = [_toml_value(v) for v in value]
        return "[" + ", ".join(i for i in items if i is not None) + "]"
    if isinstance(value, dict):
        pairs = [(k, _toml_value(v)) for k, v in value.items()]
        return "{" + ", ".join(f"{json.dumps(str(k))} = {v}" for k, v in pairs
                               if v is not None) + "}"
    return None  # None has no TOML spelling: the key is left out


def toml_text(table: Any) -> str:
    if not isinstance(table, dict):
        value = _toml_value(table)
        return "[tool]\n" + (f'"needs-microversion" = {value}\n' if value else "")
    lines = ["[tool.needs-microversion]"]
    for key, value in table.items():
        text = _toml_value(value)
        if text is not None:
            lines.append(f"{json.dumps(str(key))} = {text}")
    return "\n".join(lines) + "\n"


@st.composite
def config_files(draw: Any) -> tuple[str, bytes]:
    """(file name, content): a configuration with wrong values, as YAML or TOML."""
    data = draw(mutated(CONFIG))
    if draw(st.booleans()):
        return ".needs-microversion.yaml", _yaml_text(data).encode("utf-8", "surrogatepass")
    return "pyproject.toml", toml_text(data).encode("utf-8", "surrogatepass")


# -- git repositories (issue 33) -------------------------------------------------------------

# What a hostile or broken repository may hold in the places `check` and `history` read.
HAZARDS = (
    "symlink-out",  # a file of the change replaced by a link out of the repository
    "symlink-loop",  # two files linking to each other
    "dangling",  # a link to nothing
    "fifo",  # a FIFO where a file is read (working tree only: git cannot store one)
    "folder",  # a folder where a file is read
    "missing-object",  # an object of the base commit gone from the object store
    "fsmonitor",  # programs named in the configuration
    "filters",
    "config-link-out",  # .needs-microversion.yaml linked out of the repository
    "config-junk",  # .needs-microversion.yaml with wrong values
    "version-junk",  # the version file rewritten with junk
    "many-notes",  # a few hundred release notes
    "binary",  # binary junk in an api-ref file
)
VERSION_JUNK = ["", "\x00\x01", "_MAX_API_VERSION = ", "_MAX_API_VERSION = '2.'",
                "_MAX_API_VERSION = '9" + "9" * 400 + ".1'", "def f(:\n", "[" * 500,
                "_MAX_API_VERSION = '2.1' * 10**9\n", "import os\nos.system('x')\n"]


@dataclass(frozen=True)
class RepoPlan:
    """A small nova-like repository's second commit and working tree, with hazards."""

    hazards: tuple[str, ...]
    target: str  # which file the file hazards hit
    mode: str  # how `check` compares (working tree, index, two revisions) or `history`
    version_junk: str
    tree_junk: bytes


@st.composite
def repository_plans(draw: Any) -> RepoPlan:
    hazards = tuple(draw(st.lists(st.sampled_from(HAZARDS), min_size=1, max_size=3,
                                  unique=True)))
    target = draw(st.sampled_from([
        "api-ref/source/servers.inc", "api-ref/source/parameters.yaml",
        "api-ref/source/index.rst", "doc/api_samples/servers/server-get-resp.json",
        "nova/api/openstack/api_version_request.py",
        "nova/api/openstack/compute/rest_api_version_history.rst",
        "releasenotes/notes/a.yaml", "api-ref/source"]))
    mode = draw(st.sampled_from(["working", "staged", "refs", "history"]))
    junk = draw(st.binary(max_size=64)) + draw(st.sampled_from(
        [b"", b"\xff\xfe", b".. include:: servers.inc\n", b"- a: [\n", b"\x00" * 10]))
    return RepoPlan(hazards, target, mode, draw(st.sampled_from(VERSION_JUNK)), junk)
