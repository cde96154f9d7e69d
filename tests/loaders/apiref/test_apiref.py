"""The api-ref loader on small trees shaped like os-api-ref's own examples (tests/data/apiref).

Each test names the edge case of the reference notes (section 5) it covers.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref.reader import ApiRefResult, load_apiref
from test_apiref_helpers import DATA, at, body, operation, operations, parameters

LOCATION = "x-needs-microversion-location"
INFERRED = "x-needs-microversion-inferred"


@cache
def load(name: str) -> ApiRefResult:
    return load_apiref(DATA / name)


def doc(name: str) -> dict[str, Any]:
    return load(name).document


def warned(name: str, *fragments: str) -> bool:
    return any(all(f in w for f in fragments) for w in load(name).warnings)


# -- the document ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["basic", "microversions", "warnings", "actions", "nesting",
                                  "codes", "sections", "evidence", "paths/api-ref/source",
                                  "paths/api-ref/source/v3"])
def test_every_fixture_is_an_openapi_31_document(name: str) -> None:
    document = doc(name)
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == (load(name).max_version or "unversioned")
    for path, method, op in operations(document):
        assert path.startswith("/") and method in {"get", "put", "post", "delete", "patch",
                                                   "head", "options", "trace"}
        assert op[LOCATION].split(":")[1].isdigit()
        for response in op["responses"].values():
            assert "description" in response and LOCATION in response


def test_display_names_the_document() -> None:
    assert load_apiref(DATA / "basic", display="nova@HEAD").document["info"]["title"] == \
        "nova@HEAD"


def test_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_apiref(tmp_path / "nope")


def test_an_empty_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no .inc or .rst files"):
        load_apiref(tmp_path)


def test_a_tree_without_operations_warns(tmp_path: Path) -> None:
    (tmp_path / "index.rst").write_text("=====\n API\n=====\n\nProse only.\n")
    result = load_apiref(tmp_path)
    assert result.document["paths"] == {} and result.max_version is None
    assert any("no rest_method" in w for w in result.warnings)


# -- locations ------------------------------------------------------------------------------
def test_locations_point_at_the_inc_row_then_the_definition() -> None:
    op = operation(doc("basic"), "/servers/{server_id}", "get")
    assert op[LOCATION] == "servers.inc:90"
    assert parameters(op)[("path", "server_id")][LOCATION] == \
        "servers.inc:104 (parameters.yaml:21)"
    assert at(body(op, "200"), "/server/name")[LOCATION] == "servers.inc:113 (parameters.yaml:95)"
    assert op["responses"]["404"][LOCATION] == "servers.inc:96"  # the error line


def test_locations_in_sub_folders_are_relative_to_the_source() -> None:
    op = operation(doc("paths/api-ref/source"), "/v3/volumes", "get")
    assert parameters(op)[("query", "all_tenants")][LOCATION] == \
        "v3/volumes.inc:49 (v3/parameters.yaml:21)"


# -- edge case 14: includes ---------------------------------------------------------------
def test_a_file_included_twice_counts_once() -> None:
    assert not load("basic").warnings
    assert len(operations(doc("basic"))) == 3


def test_tables_outside_any_operation_are_ignored() -> None:
    """Edge case 13: request-ids.inc global headers: no operation, no warning."""
    assert all(p != "/" for p, _, _ in operations(doc("basic")))


def test_parameter_files_resolve_from_the_including_document() -> None:
    """common/shared.inc is included by v3/index.rst: its parameters.yaml is v3's."""
    op = operation(doc("paths/api-ref/source"), "/v3/shared", "get")
    assert parameters(op)[("query", "limit")]["schema"]["x-openstack"] == {"min-ver": "3.59"}


def test_a_leading_slash_means_the_sphinx_source_root() -> None:
    op = operation(doc("paths/api-ref/source/v3"), "/volumes", "get")
    assert ("query", "all_tenants") in parameters(op)


def test_status_files_resolve_outside_a_sub_folder_source() -> None:
    op = operation(doc("paths/api-ref/source/v3"), "/volumes/{volume_id}", "get")
    assert op["responses"]["404"]["description"] == "The requested resource could not be found."


def test_paths_escaping_the_sandbox_are_refused_with_a_warning() -> None:
    assert warned("warnings", "etc/parameters.yaml", "outside")


def test_examples_outside_the_sandbox_are_summarised_once(tmp_path: Path) -> None:
    source = tmp_path / "repo" / "api-ref" / "source"
    source.mkdir(parents=True)
    (tmp_path / "secret.json").write_text('{"server": {"name": "x"}}')
    (source / "parameters.yaml").write_text("server:\n  in: body\n  type: object\n")
    (source / "a.inc").write_text(
        "A\n=\n\n.. rest_method:: GET /a\n\nResponse\n--------\n\n"
        ".. rest_parameters:: parameters.yaml\n\n  - server: server\n\n"
        ".. literalinclude:: ../../../secret.json\n\n"
        ".. literalinclude:: ../../../secret.json\n")
    result = load_apiref(source)
    assert [w for w in result.warnings if "example file" in w] == [
        "a.inc:13: 2 example file(s) lie outside the repository (or folder) of the tree and "
        "were not read (nesting falls back to the table order)"]  # no path: it may be a copy


# -- edge case 9: paths -------------------------------------------------------------------
@pytest.mark.parametrize(("source", "path", "method"), [
    pytest.param("basic", "/servers", "get", id="v2.1-and-project-id-stripped-query-dropped"),
    pytest.param("paths/api-ref/source/v3", "/volumes/{volume_id}", "get",
                 id="method-on-the-next-line"),
    pytest.param("paths/api-ref/source/v3", "/volumes", "get", id="admin-project-id"),
    pytest.param("paths/api-ref/source/v3", "/volumes/{volume-id}/action/#os-reset_status",
                 "post", id="hyphen-placeholder-and-trailing-slash-kept"),
    pytest.param("paths/api-ref/source/v3", "/v3/", "get", id="bare-version-path-kept"),
    pytest.param("paths/api-ref/source", "/v2/volumes/{volume_id}", "get",
                 id="several-majors-keep-their-prefix"),
])
def test_path_shapes(source: str, path: str, method: str) -> None:
    assert method in doc(source)["paths"][path]


def test_several_majors_in_one_tree_warn() -> None:
    assert warned("paths/api-ref/source", "several API versions (v2, v3)")


def test_stripped_project_parameters_are_dropped() -> None:
    op = operation(doc("paths/api-ref/source"), "/v2/volumes/{volume_id}", "get")
    assert set(parameters(op)) == {("path", "volume_id")}


def test_method_placeholder_is_not_an_operation() -> None:
    assert warned("paths/api-ref/source/v3", "'METHOD' is not an HTTP method")
    assert not any("vendor_passthru" in p for p in doc("paths/api-ref/source/v3")["paths"])


# -- edge case 10: actions and shared URLs --------------------------------------------------
@pytest.mark.parametrize("action", [
    pytest.param("addFloatingIp", id="named-by-title-and-first-body-row"),
    pytest.param("lock", id="named-by-title"),
    pytest.param("shelveOffload", id="named-by-title-spelled-as-its-body-row"),
    pytest.param("trigger_crash_dump", id="named-by-prose"),
    pytest.param("migration_start", id="named-by-request-example"),
])
def test_one_operation_per_action(action: str) -> None:
    assert "post" in doc("actions")["paths"][f"/servers/{{server_id}}/action#{action}"]


def test_action_bounds_and_deprecation() -> None:
    paths = doc("actions")["paths"]
    crash = paths["/servers/{server_id}/action#trigger_crash_dump"]["post"]
    assert crash["x-openstack"] == {"min-ver": "2.17"}
    assert paths["/servers/{server_id}/action#addFloatingIp"]["post"]["deprecated"] is True


def test_a_path_placeholder_defined_in_body_is_a_path_parameter() -> None:
    op = operation(doc("actions"), "/servers/{server_id}/action#migration_start", "post")
    assert ("path", "server_id") in parameters(op)
    assert set(body(op)["properties"]) == {"migration_start"}
    assert at(body(op), "/migration_start/preserve_snapshots")[INFERRED] is True


def test_same_url_sections_that_are_not_actions_merge_with_a_warning() -> None:
    op = operation(doc("actions"), "/servers", "post")
    assert set(at(body(op), "/server")["properties"]) == {"name", "min_count"}
    assert at(body(op), "/server/name")[LOCATION].startswith("servers.inc:14 ")
    # A later section's rows join the earlier table, so they nest like its rows do.
    assert set(at(body(op, "202"), "/server")["properties"]) == {"id", "reservation_id"}
    assert warned("actions", "2 sections document operation POST /servers")


# -- edge case 11: request / response tables ------------------------------------------------
@pytest.mark.parametrize(("path", "method", "request_names", "response_names", "headers"), [
    pytest.param("/things/{thing_id}", "put", {"thing"}, {"thing"}, {"x-openstack-request-id"},
                 id="request-parameters-and-response-paramters-typo"),
    pytest.param("/auth/tokens", "post", {"auth"}, {"token"}, {"X-Subject-Token"},
                 id="keystone-parameters-subsections"),
    pytest.param("/auth/other", "post", {"auth"}, {"token"}, set(),
                 id="first-request-second-response"),
    pytest.param("/things/{thing_id}", "patch", {"thing"}, {"thing"}, set(),
                 id="bold-request-response-paragraphs"),
    pytest.param("/things", "post", {"thing"}, {"thing"}, set(), id="unclassified-tables"),
])
def test_tables_are_request_or_response_by_their_titles(
        path: str, method: str, request_names: set[str], response_names: set[str],
        headers: set[str]) -> None:
    op = operation(doc("sections"), path, method)
    success = next(c for c in op["responses"] if int(c) < 400)
    assert set(body(op)["properties"]) == request_names
    assert set(body(op, success)["properties"]) == response_names
    assert set(op["responses"][success].get("headers", {})) == headers


def test_unclassified_body_tables_warn() -> None:
    assert warned("sections", "under no Request/Response title; read as request")


def test_header_parameters_are_case_insensitive() -> None:
    """Edge case 19: X-Auth-Token listed twice in two spellings is one parameter."""
    op = operation(doc("sections"), "/things/{thing_id}", "put")
    assert [p for p in parameters(op) if p[0] == "header"] == [("header", "X-Auth-Token")]


def test_sub_tables_inherit_the_kind_and_nest_into_the_field_they_name() -> None:
    op = operation(doc("nesting"), "/deploy_templates", "post")
    assert at(body(op), "/steps/*/priority")["type"] == "integer"


# -- edge cases 1, 2, 3, 4, 16: parameters.yaml and microversions ----------------------------
@pytest.mark.parametrize(("pointer", "expected"), [
    pytest.param("/services/*/disabled_reason", {"min-ver": "2.10"}, id="2.10-is-not-2.1"),
    pytest.param("/services/*/updated_at", {"min-ver": "2.100"}, id="2.100-is-not-2.1"),
    pytest.param("/services/*/rxtx_factor", {"max-ver": "2.101"}, id="removed-field-keeps-max"),
])
def test_versions_stay_text(pointer: str, expected: dict[str, str]) -> None:
    op = operation(doc("microversions"), "/os-services", "get")
    assert at(body(op, "200"), pointer)["x-openstack"] == expected


def test_merge_keys_explicit_keys_win_and_versions_become_variants() -> None:
    host = parameters(operation(doc("microversions"), "/os-services", "get"))[("query", "host")]
    variants = host["schema"]["oneOf"]
    assert host["schema"]["x-openstack"] == {"discriminator": "microversion"}
    assert [(v["type"], v["x-openstack"]) for v in variants] == [
        ("string", {"max-ver": "2.10"}), ("integer", {"min-ver": "2.11", "max-ver": "2.100"})]
    assert host["x-openstack"] == {"max-ver": "2.100"}


def test_explicit_null_min_version_overrides_the_merged_one() -> None:
    from needs_microversion.loaders.apiref.parameters_yaml import load_yaml, param_def

    params = load_yaml((DATA / "microversions" / "parameters.yaml").read_text())
    definition, _ = param_def(params, "allocations_no_min")
    assert definition is not None and definition.fields["min_version"] is None
    assert definition.fields["type"] == "object"


def test_same_display_name_with_disjoint_versions_is_a_microversion_container() -> None:
    op = operation(doc("microversions"), "/os-services/{service_id}", "put")
    prop = at(body(op, "200"), "/service/id")
    assert prop["x-openstack"] == {"discriminator": "microversion"}
    assert [(v["type"], v["x-openstack"]) for v in prop["oneOf"]] == [
        ("integer", {"max-ver": "2.52"}), ("string", {"min-ver": "2.53"})]


def test_rest_method_bounds_on_the_directive_and_the_next_line() -> None:
    paths = doc("microversions")["paths"]
    assert paths["/tags"]["get"]["x-openstack"] == {"min-ver": "2.17", "max-ver": "2.19"}
    assert paths["/os-services/{service_id}"]["put"]["x-openstack"] == {"min-ver": "2.53"}


def test_ranged_response_sections_become_a_microversion_container() -> None:
    op = operation(doc("microversions"), "/resource_classes", "post")
    created, ok = op["responses"]["201"], op["responses"]["200"]
    assert created["x-openstack"] == {"min-ver": "1.0", "max-ver": "1.19"}
    assert "content" not in created  # that range documents no body
    schema = body(op, "200")
    assert schema["x-openstack"] == {"discriminator": "microversion"}
    assert [v["x-openstack"] for v in schema["oneOf"]] == [{"min-ver": "1.20"}]
    assert ok["headers"]["Location"]["required"] is True
    assert "x-openstack" not in ok["headers"]["Location"]  # every range lists it


def test_placeholder_segments_are_maps() -> None:
    op = operation(doc("microversions"), "/resource_classes", "post")
    variant = body(op, "200")["oneOf"][0]
    assert at(variant, "/allocations/{*}/user_id")["type"] == "string"


def test_max_version_is_the_highest_structured_version() -> None:
    # A `max_version: 2.101` says the element is gone at 2.102: the API has 2.102.
    assert load("microversions").max_version == "2.102"
    assert load("basic").max_version is None


@pytest.mark.parametrize(("pointer", "expected"), [
    pytest.param("/node_name", {"min-ver": "1.5"}, id="versionadded-names-the-field"),
    pytest.param("/parent_node", {"min-ver": "1.83"}, id="versionadded-with-one-colon"),
    pytest.param("/boot_interface", {"min-ver": "1.31"}, id="versionchanged-that-adds"),
    pytest.param("/owner", {"min-ver": "1.50"}, id="min-version-beats-notes"),
])
def test_versionadded_notes_bound_the_fields_they_name(pointer: str, expected: dict) -> None:
    prop = at(body(operation(doc("microversions"), "/nodes", "post")), pointer)
    assert prop["x-openstack"] == expected
    assert prop.get(INFERRED, False) is (pointer != "/owner")


def test_versionchanged_without_an_addition_bounds_nothing() -> None:
    prop = at(body(operation(doc("microversions"), "/nodes", "post")), "/driver")
    assert "x-openstack" not in prop


@pytest.mark.parametrize(("method", "expected"), [
    pytest.param("post", {"min-ver": "1.52"}, id="section-level-note-not-a-feature-note"),
    pytest.param("get", {"min-ver": "1.60"}, id="operation-level-note"),
])
def test_nameless_versionadded_bounds_the_operation(method: str, expected: dict) -> None:
    op = operation(doc("microversions"), "/allocations", method)
    assert op["x-openstack"] == expected and op[INFERRED] is True


def test_a_broken_title_goes_to_docutils_and_becomes_a_warning() -> None:
    assert "nodes.inc:3: Title overline too short." in load("microversions").warnings


# -- edge cases 5, 6, 7: nesting ------------------------------------------------------------
@pytest.mark.parametrize(("source", "path", "status", "pointer", "inferred"), [
    pytest.param("basic", "/servers/{server_id}", "200", "/server/name", True,
                 id="wrapper-heuristic"),
    pytest.param("basic", "/servers", "200", "/servers/*/flavor/id", False, id="dotted-in-array"),
    pytest.param("basic", "/servers", "200", "/servers_links", False,
                 id="wrapper-links-beside-the-wrapper"),
    pytest.param("basic", "/servers", None, "/os:scheduler_hints", False,
                 id="example-puts-a-sibling-of-the-wrapper-at-the-root"),
    pytest.param("basic", "/servers", None, "/server/networks/*/uuid", False,
                 id="array-with-dotted-children"),
    pytest.param("nesting", "/os-keypairs", "200", "/keypairs/*/keypair/fingerprint", True,
                 id="keypairs-keypair-chain"),
    pytest.param("nesting", "/volumes/{volume_id}", "200", "/volume/status", True,
                 id="example-places-alphabetical-rows"),
    pytest.param("nesting", "/share_instances", "200", "/share_instances/*/status", True,
                 id="example-restores-an-omitted-wrapper"),
    pytest.param("nesting", "/servers/{server_id}", "200",
                 "/server/security_groups/*/name", False, id="singular-dotted-parent"),
    pytest.param("nesting", "/servers/{server_id}", "200",
                 "/server/allocations/{*}/resources/{*}", False, id="nested-placeholders"),
])
def test_body_nesting(source: str, path: str, status: str | None, pointer: str,
                      inferred: bool) -> None:
    method = "post" if status is None else "get"
    prop = at(body(operation(doc(source), path, method), status), pointer)
    assert prop.get(INFERRED, False) is inferred


def test_key_value_pseudo_fields_are_a_free_form_map() -> None:
    op = operation(doc("nesting"), "/servers/{server_id}", "get")
    specs = at(body(op, "200"), "/server/flavor/extra_specs")
    assert specs["additionalProperties"]["type"] == "string" and "properties" not in specs


def test_name_patterns_are_pattern_properties() -> None:
    op = operation(doc("nesting"), "/volumes/{volume_id}", "get")
    assert body(op, "200")["patternProperties"]["^volumes_.+$"]["type"] == "integer"


def test_a_row_for_an_implied_parent_takes_it_over() -> None:
    """cinder lists `volume` after its fields: the example placed them first."""
    volume = at(body(operation(doc("nesting"), "/volumes/{volume_id}", "get"), "200"), "/volume")
    assert INFERRED not in volume and volume[LOCATION].startswith("nesting.inc:47 ")
    assert set(volume["properties"]) == {"attachments", "id", "metadata", "status"}


def test_required_lists_only_literal_true() -> None:
    op = operation(doc("warnings"), "/servers", "get")
    assert body(op, "200")["required"] == ["name", "flavor"]  # 'ture' is not true


# -- edge case 8: typos and odd types -------------------------------------------------------
@pytest.mark.parametrize("fragments", [
    pytest.param(("field 'requried' read as 'required'",), id="misspelled-required"),
    pytest.param(("field 'descripition' read as 'description'",), id="misspelled-description"),
    pytest.param(("'in' is 'bogus'",), id="bad-in"),
    pytest.param(("type 'string or gzip+b64 blob' is not a JSON type",), id="odd-type"),
    pytest.param(("index.rst:14", "no definition for 'lookup_key_name'"), id="unknown-ref"),
    pytest.param(("index.rst:16", "invalid parameter line '- invalid_name'"), id="not-a-mapping"),
    pytest.param(("rest_parameters without parameters",), id="no-parameters"),
    pytest.param(("'empty_parameters_file.yaml' is empty",), id="empty-file"),
    pytest.param(("'no_parameters.yaml' not found",), id="missing-file"),
    pytest.param(("index.rst:53", "rest_method without 'METHOD /url'"), id="empty-rest-method"),
    pytest.param(("'COPY' is not an HTTP method",), id="unknown-method"),
    pytest.param(("'name' is listed twice",), id="plain-duplicate"),
    pytest.param(("response parameters but no success status code; documented as 200",),
                 id="no-codes"),
])
def test_problems_are_warnings_with_file_and_line(fragments: tuple[str, ...]) -> None:
    assert warned("warnings", *fragments), load("warnings").warnings
    assert all(w.split(":", 2)[1].isdigit() for w in load("warnings").warnings
               if not w.startswith("/"))


@pytest.mark.parametrize(("pointer", "json_type"), [
    pytest.param("/flavor", "string", id="typo-fields-still-read"),
    pytest.param("/weird", None, id="odd-type-left-open"),
])
def test_types(pointer: str, json_type: str | None) -> None:
    prop = at(body(operation(doc("warnings"), "/servers", "get"), "200"), pointer)
    assert prop.get("type") == json_type


# -- edge case 12: status codes -------------------------------------------------------------
@pytest.mark.parametrize(("path", "codes"), [
    pytest.param("/plain", {"200": None, "203": None, "400": None, "401": None, "403": None,
                            "404": None}, id="plain"),
    pytest.param("/missing-commas", {"202": None, "400": None, "403": None, "404": None,
                                     "500": None, "501": None}, id="missing-commas-and-names"),
    pytest.param("/bare", {"201": None, "204": None, "400": None, "401": None, "403": None,
                           "404": None}, id="bare-numbers"),
    pytest.param("/bullets", {"200": None, "400": None, "409": None}, id="error-codes-bullets"),
    pytest.param("/bullets-apart", {"200": None, "404": None, "409": None},
                 id="bare-label-then-bullets"),
    pytest.param("/ranged", {"200": {"min-ver": "2.0", "max-ver": "2.100"},
                             "202": {"min-ver": "2.101"}, "400": None, "409": None},
                 id="ranged-codes"),
    pytest.param("/ranged-wrapped", {"200": {"min-ver": "1.20"},
                                     "201": {"min-ver": "1.0", "max-ver": "1.19"}, "409": None},
                 id="ranged-and-wrapped"),
    pytest.param("/directive", {"200": None, "404": None, "409": None, "418": None},
                 id="rest-status-code"),
    pytest.param("/one-paragraph", {"200": None, "404": None}, id="two-labels-one-paragraph"),
    pytest.param("/no-codes", {"200": None}, id="no-codes-default-200"),
])
def test_status_codes(path: str, codes: dict[str, dict[str, str] | None]) -> None:
    responses = operation(doc("codes"), path, "get" if "ranged" not in path else "post")[
        "responses"]
    assert {code: r.get("x-openstack") for code, r in responses.items()} == codes


def test_status_descriptions_come_from_the_status_file_reason() -> None:
    responses = operation(doc("codes"), "/directive", "get")["responses"]
    assert responses["404"]["description"] == "The volume does not exist."
    assert responses["409"]["description"] == "This resource has an action in progress."
    assert warned("codes", "status 409 has no reason 'no_such_reason'; default used")
    assert warned("codes", "status 418 is not in the status file")


def test_error_responses_carry_a_description_only() -> None:
    op = operation(doc("basic"), "/servers", "get")
    assert set(op["responses"]["400"]) == {"description", LOCATION}
    assert op["responses"]["400"]["description"] == "badRequest"


# -- edge case 18: allowed values in descriptions ---------------------------------------------
@pytest.mark.parametrize(("path", "method", "where", "expected"), [
    pytest.param("/servers", "post", "/server/key_type", ["ssh", "x509"], id="a-or-b"),
    pytest.param("/servers/{server_id}", "get", "/server/status", ["ACTIVE", "BUILD", "ERROR"],
                 id="bullet-list"),
])
def test_allowed_values_from_descriptions(path: str, method: str, where: str,
                                          expected: list[str]) -> None:
    op = operation(doc("basic"), path, method)
    prop = at(body(op) if method == "post" else body(op, "200"), where)
    assert prop["enum"] == expected and prop[INFERRED] is True


def test_allowed_values_of_query_parameters() -> None:
    sort_key = parameters(operation(doc("basic"), "/servers", "get"))[("query", "sort_key")]
    assert sort_key["schema"]["enum"] == ["name", "created_at", "uuid"]
    assert sort_key[INFERRED] is True


def test_a_folder_without_api_ref_files_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "openapi.yaml").write_text("openapi: 3.0.3\n")
    with pytest.raises(InputError, match="no .inc or .rst files"):
        load_apiref(tmp_path)


def test_a_parameters_file_that_is_not_yaml_is_an_input_error() -> None:
    """Every table naming it would lose its rows, and the diff would invent removals."""
    with pytest.raises(InputError, match=r"broken_yaml/parameters\.yaml:4: parameters file: "
                                         r"not valid YAML"):
        load_apiref(DATA / "broken_yaml")


def test_a_version_folder_removed_keeps_the_others_paths(tmp_path: Path, run_cli) -> None:
    """cinder dropped its v2 reference: the v3 operations must not move from `/v3/volumes`
    (a tree of several versions keeps prefixes) to `/volumes` (a tree of one drops them)."""
    import json
    import shutil

    source = DATA / "paths" / "api-ref" / "source"
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(source, old)
    shutil.copytree(source, new)
    shutil.rmtree(new / "v2")
    index = new / "index.rst"
    index.write_text(index.read_text().replace("    v2/index\n", ""))
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json",
                           "--count-corrections")
    changes = json.loads(out)["changes"]
    assert code == 1 and changes
    assert {c["id"] for c in changes} == {"operation-removed"}
    assert all(c["operation"].split()[1].startswith("/v2/") for c in changes)


def test_reports_name_the_row_and_the_definition(run_cli, tmp_path: Path) -> None:
    """A type changed in parameters.yaml only: the report names both places."""
    import json
    import shutil

    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(DATA / "basic", old)
    shutil.copytree(DATA / "basic", new)
    params = new / "parameters.yaml"
    text = params.read_text()
    start = text.index("limit:")
    params.write_text(text[:start] + text[start:].replace("type: integer", "type: string", 1))
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json")
    change = json.loads(out)["changes"][0]
    assert code == 1 and change["pointer"] == "limit"
    row, definition = change["new_location"].split(" (")
    assert row.endswith("servers.inc:27") and definition.endswith("parameters.yaml:28)")


def test_a_sub_folder_reads_what_it_includes_from_outside() -> None:
    """cinder's `v3/index.rst` includes `../common/...`: Sphinx builds it into v3's pages."""
    result = load_apiref(DATA / "paths" / "api-ref" / "source" / "v3")
    assert "/shared" in result.document["paths"]


def test_a_missing_include_warns(tmp_path: Path) -> None:
    (tmp_path / "index.rst").write_text(".. include:: nowhere.inc\n")
    result = load_apiref(tmp_path)
    assert any("index.rst:1: included file 'nowhere.inc' not found" in w
               for w in result.warnings)


def test_bounds_that_cross_and_missing_codes_warn(tmp_path: Path) -> None:
    (tmp_path / "things.inc").write_text(
        "Show Thing\n==========\n\n.. rest_method:: GET /things\n\n"
        "Request\n-------\n\n.. rest_parameters:: parameters.yaml\n\n  - limit: limit\n")
    (tmp_path / "parameters.yaml").write_text(
        "limit:\n  in: query\n  required: false\n  type: integer\n"
        "  min_version: 2.5\n  max_version: 2.3\n")
    warnings = load_apiref(tmp_path).warnings
    assert "parameters.yaml:1: min_version 2.5 is above max_version 2.3: visible at no " \
           "microversion" in warnings
    assert any(w.startswith("things.inc:4: no status codes documented") for w in warnings)


def test_a_duplicate_parameters_key_warns_and_the_last_wins(tmp_path: Path, run_cli) -> None:
    """cinder's parameters.yaml repeated keys in 108 revisions: Sphinx reads the last one, and
    so do we, saying so with the line (an error would refuse real history)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "index.rst").write_text(".. include:: s.inc\n")
    (tree / "s.inc").write_text("S\n=\n\nShow\n----\n\n.. rest_method:: GET /s\n\n"
                                "Normal response codes: 200\n\nResponse\n~~~~~~~~\n\n"
                                ".. rest_parameters:: parameters.yaml\n\n  - name: name\n")
    (tree / "parameters.yaml").write_text(
        "name:\n  in: body\n  required: true\n  type: string\n  description: x\n"
        "name:\n  in: body\n  required: true\n  type: integer\n  description: y\n")
    code, out, err = run_cli("diff", str(tree), str(tree), "--format", "json")
    assert code == 0 and "parameters.yaml:6: duplicate key 'name'" in err


def test_children_of_a_name_listed_for_two_ranges_belong_to_both(tmp_path: Path) -> None:
    # nova's instance action: `events` up to 2.50 and from 2.51 (the policy changed), then
    # `events.event` and `events.result` for both: each variant's items have them.
    (tmp_path / "index.rst").write_text(".. include:: actions.inc\n")
    (tmp_path / "actions.inc").write_text("""\
Show Action
===========

.. rest_method:: GET /actions/{request_id}

Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

  - instanceAction: instance_action
  - action: action
  - events: events_2_50
  - events: events_2_51
  - events.event: event
  - events.result: result
  - events.host: host
""")
    (tmp_path / "parameters.yaml").write_text("""\
request_id: {in: path, required: true, type: string, description: The request.}
instance_action: {in: body, required: true, type: object, description: The action.}
action: {in: body, required: true, type: string, description: The name.}
events_2_50: {in: body, required: false, type: array, description: The events., max_version: 2.50}
events_2_51: {in: body, required: false, type: array, description: The events., min_version: 2.51}
event: {in: body, required: true, type: string, description: The event.}
result: {in: body, required: true, type: string, description: The result.}
host: {in: body, required: true, type: string, description: The host., min_version: 2.51}
""")
    op = operation(load_apiref(tmp_path).document, "/actions/{request_id}", "get")
    up_to, since = at(body(op, "200"), "/instanceAction/events")["oneOf"]
    assert sorted(up_to["items"]["properties"]) == ["event", "result"]
    assert sorted(since["items"]["properties"]) == ["event", "host", "result"]
    assert up_to["items"]["properties"]["event"] is not since["items"]["properties"]["event"]
