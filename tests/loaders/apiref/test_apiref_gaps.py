"""api-ref text the loader reads beyond directives and parameters.yaml fields (fixtures in
tests/data/apiref_gaps, shaped like nova, cinder, manila, ironic and placement api-ref):

- prose that dates a parameter or an operation ("Available starting in the 3.27
  microversion", "Added in API microversion 1.14", ".. versionadded:: 3.64" inside a
  description), and prose that must not ("Changed in", "Deprecated since", "Prior to");
- allowed values listed in the first column of an RST grid or simple table;
- version ranges on section titles above an operation, or on the operation's own title;
- `literalinclude` examples cut with `:lines:`, `:start-after:` and `:end-before:`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from conftest import ROOT

from needs_microversion.loaders.apiref import (
    availability, grid as apiref_grid, include as apiref_include)
from needs_microversion.loaders.apiref.reader import ApiRefResult, load_apiref
from needs_microversion.model.versions import Version, VersionRange
from test_apiref_helpers import at, body, operation, parameters

DATA = ROOT / "tests" / "data" / "apiref_gaps"
INFERRED = "x-needs-microversion-inferred"


@cache
def load(name: str) -> ApiRefResult:
    return load_apiref(DATA / name)


def doc(name: str) -> dict[str, Any]:
    return load(name).document


# -- 1. microversions written in prose -------------------------------------------------------
def _attachment_field(name: str) -> dict[str, Any]:
    op = operation(doc("prose"), "/attachments", "post")
    return at(body(op), f"/{name}")


@pytest.mark.parametrize(("name", "expected"), [
    pytest.param("mode", {"min-ver": "3.54"}, id="cinder-available-starting-in-the-x-microversion"),
    pytest.param("cluster_name", {"min-ver": "3.47"}, id="cinder-new-in-version"),
    pytest.param("consumer_type", {"min-ver": "3.64"}, id="versionadded-in-a-description"),
    pytest.param("share_group_id", {"min-ver": "2.53"}, id="manila-available-since"),
    pytest.param("locked_reason", {"min-ver": "2.26"}, id="nova-added-in-microversion"),
    pytest.param("network_interface", {"min-ver": "1.20"}, id="ironic-added-in-api-microversion-v"),
    pytest.param("internal_info", {"min-ver": "1.21"}, id="this-field-was-introduced-in"),
    pytest.param("bold_field", {"min-ver": "2.37"}, id="bold-new-in-version"),
    pytest.param("until_field", {"max-ver": "2.35"}, id="available-until-is-a-max"),
])
def test_prose_dates_a_parameter(name: str, expected: dict[str, str]) -> None:
    prop = _attachment_field(name)
    assert prop["x-openstack"] == expected and prop[INFERRED] is True


@pytest.mark.parametrize("name", [
    pytest.param("changed_field", id="changed-in"),
    pytest.param("deprecated_field", id="deprecated-since"),
    pytest.param("prior_field", id="prior-to"),
    pytest.param("before_field", id="required-before"),
    pytest.param("behaviour_field", id="starting-with-a-behaviour-change"),
    pytest.param("cpu_info", id="since-version-a-type-change"),
    pytest.param("sort_key", id="new-in-version-of-one-value"),
    pytest.param("mixed_field", id="two-different-versions"),
    pytest.param("named_other", id="names-another-field"),
    pytest.param("explicit_none", id="explicit-min-version-null"),
    pytest.param("value_added", id="versionadded-about-a-value"),
])
def test_prose_that_does_not_date_a_parameter(name: str) -> None:
    assert "x-openstack" not in _attachment_field(name)


def test_structured_min_version_beats_prose() -> None:
    prop = _attachment_field("explicit_field")
    assert prop["x-openstack"] == {"min-ver": "2.10"} and INFERRED not in prop


def test_prose_dates_a_query_parameter_but_prior_to_does_not() -> None:
    params = parameters(operation(doc("prose"), "/attachments", "get"))
    assert params[("query", "tag")]["x-openstack"] == {"min-ver": "2.26"}
    assert params[("query", "tag")][INFERRED] is True
    assert "x-openstack" not in params[("query", "host")]


@pytest.mark.parametrize(("path", "method", "expected"), [
    pytest.param("/attachments", "post", {"min-ver": "3.27"}, id="cinder-available-starting-in"),
    pytest.param("/flavors/{flavor_id}", "put", {"min-ver": "2.55"},
                 id="nova-this-api-is-available-starting-with"),
    pytest.param("/flavors/{flavor_id}/os-extra_specs", "post", {"min-ver": "2.37"},
                 id="bold-new-in-version"),
    pytest.param("/traits", "get", {"min-ver": "1.6"}, id="placement-note-above-the-operations"),
    pytest.param("/resource_classes/{name}", "put", {"min-ver": "1.7"},
                 id="placement-method-is-available"),
    pytest.param("/servers/{server_id}/tags", "get", {"min-ver": "2.26"},
                 id="nova-available-since-in-the-file-section"),
    pytest.param("/servers/{server_id}/tags/{tag}", "delete", {"min-ver": "2.26"},
                 id="applies-to-every-operation-below"),
])
def test_prose_dates_an_operation(path: str, method: str, expected: dict[str, str]) -> None:
    op = operation(doc("prose"), path, method)
    assert op["x-openstack"] == expected and op[INFERRED] is True


@pytest.mark.parametrize(("path", "method"), [
    pytest.param("/attachments", "get", id="changed-in-and-deprecated-since"),
    pytest.param("/os-floating-ips", "get", id="deprecated-and-fails-with-404-starting-from"),
    pytest.param("/os-consoles/{console_id}", "get", id="superseded-and-available-for-all"),
])
def test_prose_that_does_not_date_an_operation(path: str, method: str) -> None:
    op = operation(doc("prose"), path, method)
    assert "x-openstack" not in op and INFERRED not in op


def test_rest_method_min_version_beats_prose() -> None:
    op = operation(doc("prose"), "/os-explicit", "post")
    assert op["x-openstack"] == {"min-ver": "2.10"} and INFERRED not in op


def test_prose_versions_count_towards_the_document_maximum() -> None:
    assert load("prose").max_version == "3.64"


@pytest.mark.parametrize(("text", "expected"), [
    ("Available starting in the 3.44 microversion.", VersionRange(Version(3, 44))),
    ("New in version 3.47", VersionRange(Version(3, 47))),
    ("Added in microversion 2.26.", VersionRange(Version(2, 26))),
    ("The share. Available since microversion 2.53.", VersionRange(Version(2, 53))),
    ("Introduced in API version 1.21.", VersionRange(Version(1, 21))),
    ("**New in version 2.37**", VersionRange(Version(2, 37))),
    ("The group. (New in version 2.26)", VersionRange(Version(2, 26))),
    ("The group. Since microversion 2.53.", VersionRange(Version(2, 53))),
    ("Since version 2.28 ``cpu_info`` is returned as a dictionary.", None),
    ("Available until version 2.35", VersionRange(None, Version(2, 35))),
    ("Changed in version 2.37.", None),
    ("Deprecated since microversion 2.45.", None),
    ("Prior to microversion 2.29, the host bypasses the scheduler.", None),
    ("Before microversion 2.29 this was ignored.", None),
    ("Starting with microversion 2.37, this field is required.", None),
    ("As of microversion 2.47 this contains a subset of the flavor.", None),
    ("- ``tags`` (New in version 2.26)", None),
])
def test_parameter_availability_sentences(text: str, expected: VersionRange | None) -> None:
    assert availability.parameter_range(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("This API is only available starting with microversion 2.47.", Version(2, 47)),
    ("Traits API requests are availiable starting from version 1.6.", Version(1, 6)),
    ("Available since version 2.26", Version(2, 26)),
    ("Method is available starting from version 1.7.", Version(1, 7)),
    ("Action ``force-down`` available as of microversion 2.11.", Version(2, 11)),
    ("The ``os-extend`` action is available since microversion 3.42.", Version(3, 42)),
    ("Microversion 2.22 or greater is required for this API.", Version(2, 22)),
    ("Microversion 2.22 or greater is required to set a description.", None),
    ("The field is available starting from version 1.7.", None),
    ("Share type quotas were added in API version 2.39.", None),
    ("These will fail with a 404 starting from microversion 2.36.", None),
    ("This API is deprecated starting with microversion 2.53.", None),
    ("Starting from microversion 2.31 it's available for all console types.", None),
])
def test_operation_availability_sentences(text: str, expected: Version | None) -> None:
    assert availability.operation_since(text) == expected


# -- 2. allowed values in RST tables ---------------------------------------------------------
def _volume_field(name: str) -> dict[str, Any]:
    op = operation(doc("tables"), "/volumes/{volume_id}", "get")
    return at(body(op, "200"), f"/volume/{name}")


@pytest.mark.parametrize(("name", "values"), [
    pytest.param("status", ["creating", "available", "reserved", "in-use", "error_deleting"],
                 id="grid-table-with-header-and-wrapped-cells"),
    pytest.param("attach_status", ["attached", "detached", "attaching"],
                 id="simple-table-with-header-and-literal"),
    pytest.param("migration_status", ["migrating", "error", "success"],
                 id="simple-table-without-header"),
    pytest.param("replication_status", ["enabled", "disabled"], id="grid-table-of-literals"),
])
def test_allowed_values_from_tables(name: str, values: list[str]) -> None:
    prop = _volume_field(name)
    assert prop["enum"] == values and prop[INFERRED] is True


@pytest.mark.parametrize("name", [
    pytest.param("qos", id="first-column-has-words"),
    pytest.param("access_level", id="first-column-has-phrases"),
    pytest.param("power_state", id="integer-field"),
    pytest.param("task_state", id="one-row-spanning-two-lines"),
])
def test_tables_that_list_no_values(name: str) -> None:
    assert "enum" not in _volume_field(name)


def test_allowed_values_of_a_query_parameter_from_a_table() -> None:
    params = parameters(operation(doc("tables"), "/volumes/{volume_id}", "get"))
    assert params[("query", "sort_dir")]["schema"]["enum"] == ["asc", "desc"]


def test_grid_table_reader() -> None:
    text = ("Intro.\n\n+-----+------+\n| A   | B    |\n+=====+======+\n| x   | one  |\n"
            "+-----+------+\n| y   | two  |\n|     | more |\n+-----+------+\n")
    assert apiref_grid.first_column_values(text) == ["x", "y"]
    assert apiref_grid.first_column_values("No table here.") is None


# -- 3. version ranges on section titles -----------------------------------------------------
@pytest.mark.parametrize(("path", "method", "expected", "inferred"), [
    pytest.param("/servers/{server_id}/tags", "get", {"min-ver": "2.26"}, True,
                 id="single-version-on-the-file-title"),
    pytest.param("/servers/{server_id}/tags", "put", {"min-ver": "2.30"}, True,
                 id="rest-method-narrows-the-title"),
    pytest.param("/servers/{server_id}/remote-consoles", "post",
                 {"min-ver": "2.6", "max-ver": "2.98"}, False, id="range-on-the-file-title"),
    pytest.param("/os-console-auth-tokens/{console_token}", "get",
                 {"min-ver": "2.50", "max-ver": "2.90"}, False, id="nested-titles-intersect"),
    pytest.param("/", "get", None, False, id="a-title-without-a-microversion"),
])
def test_title_ranges_bound_the_operations_below(path: str, method: str,
                                                 expected: dict[str, str] | None,
                                                 inferred: bool) -> None:
    op = operation(doc("titles"), path, method)
    assert op.get("x-openstack") == expected
    assert op.get(INFERRED, False) is inferred


@pytest.mark.parametrize(("action", "expected"), [
    pytest.param("migration_start", {"min-ver": "2.15"}, id="since-version-on-its-own-title"),
    pytest.param("os-migrate_share", {"min-ver": "2.5", "max-ver": "2.14"},
                 id="versions-x-to-y-on-its-own-title"),
])
def test_an_operations_own_title_bounds_it(action: str, expected: dict[str, str]) -> None:
    op = operation(doc("titles"), f"/shares/{{share_id}}/action#{action}", "post")
    assert op["x-openstack"] == expected


def test_response_table_titles_still_make_variants_inside_a_titled_group() -> None:
    op = operation(doc("titles"), "/servers/{server_id}/remote-consoles", "post")
    assert [v["x-openstack"] for v in body(op, "200")["oneOf"]] == [{"min-ver": "2.8"}]


# -- 4. literalinclude with a selection ------------------------------------------------------
@pytest.mark.parametrize(("path", "method", "status", "pointer"), [
    pytest.param("/servers", "post", None, "/server/name", id="start-after-and-end-before"),
    pytest.param("/servers", "post", "202", "/server/id", id="start-after-to-the-end"),
    pytest.param("/servers/{server_id}", "get", "200", "/server/name", id="lines-open-ended"),
    pytest.param("/flavors/{flavor_id}", "get", "200", "/flavor/name", id="lines-list"),
])
def test_selected_example_lines_nest_the_table(path: str, method: str, status: str | None,
                                               pointer: str) -> None:
    prop = at(body(operation(doc("include"), path, method), status), pointer)
    assert prop[INFERRED] is True


def test_a_marker_that_is_not_there_selects_nothing() -> None:
    op = operation(doc("include"), "/images/{image_id}", "get")
    assert "name" in body(op, "200")["properties"]
    assert any("'// no such marker' not found" in w for w in load("include").warnings)


@pytest.mark.parametrize(("options", "expected"), [
    pytest.param({"lines": "2-3"}, "b\nc\n", id="range"),
    pytest.param({"lines": "1,4-"}, "a\nd\ne\n", id="list-and-open-end"),
    pytest.param({"lines": "-2"}, "a\nb\n", id="open-start"),
    pytest.param({"start-after": "b", "end-before": "e"}, "c\nd\n", id="markers"),
    pytest.param({"start-at": "b", "end-at": "c"}, "b\nc\n", id="inclusive-markers"),
    pytest.param({"start-after": "a", "lines": "2"}, "c\n", id="lines-count-after-markers"),
    pytest.param({"lines": "x"}, None, id="bad-spec"),
    pytest.param({"end-before": "zzz"}, None, id="missing-marker"),
])
def test_selection_follows_sphinx(options: dict[str, str], expected: str | None) -> None:
    selection = apiref_include.Selection.from_options(options)
    assert apiref_include.select("a\nb\nc\nd\ne\n", selection).text == expected
