"""What the api-ref loader reads out of prose, names and types (unit level)."""

from __future__ import annotations

import pytest

from needs_microversion.loaders.apiref import prose
from needs_microversion.loaders.apiref.body import json_type, split_name
from needs_microversion.loaders.apiref.parameters_yaml import load_yaml, param_def
from needs_microversion.loaders.apiref.sections import classify
from needs_microversion.loaders.apiref.to_openapi import normalise_path
from needs_microversion.model.versions import Version, VersionRange


@pytest.mark.parametrize(("text", "codes"), [
    pytest.param(" badRequest(400), unauthorized(401),\nforbidden(403)", [400, 401, 403],
                 id="named-and-wrapped"),
    pytest.param(" forbidden(403) itemNotFound (404)", [403, 404], id="missing-comma-and-space"),
    pytest.param(" 400,401,403,404", [400, 401, 403, 404], id="bare-list"),
    pytest.param("\n- 409 (Conflict, NodeLocked, ClientError)", [409], id="bullet-with-reasons"),
    pytest.param(" 202 (Accepted)", [202], id="code-with-phrase"),
    pytest.param(" computeFault(400, 500), NotImplemented(501)", [400, 500, 501],
                 id="two-codes-one-name"),
    pytest.param(" TBD", [], id="tbd"),
])
def test_codes_in_code_lines(text: str, codes: list[int]) -> None:
    assert [c.status for c in prose.codes_in(text)] == codes


def test_ranged_codes() -> None:
    found = prose.codes_in(" 200 (microversions 2.0 - 2.100), 202 (microversion 2.101 - )")
    assert [(c.status, c.versions) for c in found] == [
        (200, VersionRange(Version(2, 0), Version(2, 100))),
        (202, VersionRange(Version(2, 101), None))]


def test_code_names() -> None:
    assert [c.name for c in prose.codes_in(" badRequest(400), 401")] == ["badRequest", ""]


@pytest.mark.parametrize(("text", "label"), [
    ("Normal response codes: 200", "normal"), ("Normal Response Codes: 200", "normal"),
    ("Normal response code: 202 (Accepted)", "normal"), ("Error response codes: 400", "error"),
    ("Error codes: 400,401", "error"), ("Error Response Codes: 404", "error"),
    ("The normal response is 200", None),
])
def test_code_labels(text: str, label: str | None) -> None:
    assert prose.code_label(text) == label


@pytest.mark.parametrize(("title", "expected"), [
    ("Response (microversions 1.0 - 1.19)", VersionRange(Version(1, 0), Version(1, 19))),
    ("Response (microversions 1.20 - )", VersionRange(Version(1, 20), None)),
    ("Request (microversion 1.10 - )", VersionRange(Version(1, 10), None)),
    ("Response", None),
])
def test_version_ranges_in_titles(title: str, expected: VersionRange | None) -> None:
    assert prose.version_range(title) == expected


@pytest.mark.parametrize(("title", "kind"), [
    ("Request", "request"), ("Request Parameters", "request"), ("Response", "response"),
    ("Response parameters", "response"), ("Response Paramters", "response"),
    ("Response (microversions 1.20 - )", "response"), ("First Request", "request"),
    ("Request (Additional Parameters)", "request"), ("Request Step", "request"),
    ("Parameters", None), ("Query Parameters", None), ("Request IDs", "request"),
])
def test_title_classification(title: str, kind: str | None) -> None:
    assert classify(title) == kind


@pytest.mark.parametrize(("description", "values"), [
    ("The type. Allowed values are ``ssh`` or ``x509``.", ["ssh", "x509"]),
    ("It can be ``ssh`` or ``x509``.", ["ssh", "x509"]),
    ("One of ``asc``, ``desc``.", ["asc", "desc"]),
    ("Status:\n\n- ``ACTIVE``. Active.\n- ``ERROR``. Broken.\n", ["ACTIVE", "ERROR"]),
    ("For example, ``172.16.0.0/24`` or ``2001:DB8::/64``.", None),
    ("The ``name`` of the ``server``.", None),
    ("A plain description.", None),
])
def test_allowed_values(description: str, values: list[str] | None) -> None:
    assert prose.allowed_values(description) == values


@pytest.mark.parametrize(("text", "expected"), [
    ("", True), ("Allocation API was introduced.", True),
    ("Added support for backfilling allocations.", False),
])
def test_notes_that_date_an_operation(text: str, expected: bool) -> None:
    assert prose.announces_operation(text) is expected


@pytest.mark.parametrize(("text", "kind"), [
    ("boolean", "boolean"), ("bool", "boolean"), ("int", "integer"), ("Integer", "integer"),
    ("float", "number"), ("string", "string"), ("uuid", "string"), ("UUID", "string"),
    ("array", "array"), ("list", "array"), ("object", "object"), ("dict", "object"),
    ("dictionary", "object"), ("JSON", "object"), ("none", "null"), ("string or object", None),
    ("key-only (no value required)", None), (None, None),
])
def test_types(text: str | None, kind: str | None) -> None:
    assert json_type(text) == kind


@pytest.mark.parametrize(("name", "segments"), [
    ("flavor.extra_specs.key", ["flavor", "extra_specs", "key"]),
    ("allocations.{consumer_uuid}.user_id", ["allocations", "{consumer_uuid}", "user_id"]),
    ("OS-EXT-AZ:availability_zone", ["OS-EXT-AZ:availability_zone"]),
    ("os:scheduler_hints.cidr", ["os:scheduler_hints", "cidr"]),
    ("volumes_{volume.type}", ["volumes_{volume.type}"]),
])
def test_split_names(name: str, segments: list[str]) -> None:
    assert split_name(name) == segments


@pytest.mark.parametrize(("url", "keep", "path"), [
    ("/v2.1/servers/{server_id}", False, "/servers/{server_id}"),
    ("/v3/{project_id}/volumes", False, "/volumes"),
    ("/v3/{project_id}/volumes", True, "/v3/volumes"),
    ("/v2/{tenant_id}/shares?all_tenants=1", False, "/shares"),
    ("/v2/{admin_tenant_id}/os-quota-sets", False, "/os-quota-sets"),
    ("/v1/nodes/{node_ident}/bios/?detail=True", False, "/nodes/{node_ident}/bios/"),
    ("/v2.1", False, "/v2.1"),
    ("/", False, "/"),
    ("servers", False, "/servers"),
    ("//v2/{tenant_id}/types", True, "/v2/types"),  # cinder wrote a slash twice
    ("/v3/types//{volume_type_id}", False, "/types/{volume_type_id}"),
])
def test_path_normalisation(url: str, keep: bool, path: str) -> None:
    assert normalise_path(url, keep_major=keep) == path


def test_yaml_keeps_version_text_and_key_lines() -> None:
    params = load_yaml("a: &a\n  in: body\n  min_version: 2.10\nb:\n  <<: *a\n"
                       "  min_version: 2.100\nc:\n  <<: *a\n  min_version: null\n")
    assert params.entries["a"]["min_version"] == "2.10"
    assert params.entries["b"]["min_version"] == "2.100"
    assert params.entries["c"]["min_version"] is None and params.entries["c"]["in"] == "body"
    assert params.lines == {"a": 1, "b": 4, "c": 7}


def test_yaml_typos_are_repaired_with_messages() -> None:
    params = load_yaml("a:\n  in: body\n  requried: true\n  bogus: 1\n")
    definition, messages = param_def(params, "a")
    assert definition is not None and definition.fields["required"] is True
    assert messages == ["'a': field 'requried' read as 'required'", "'a': unknown field 'bogus' "
                        "ignored"]


def test_broken_yaml_is_reported_with_its_line() -> None:
    assert load_yaml("a:\n  b: [1\n").error is not None
