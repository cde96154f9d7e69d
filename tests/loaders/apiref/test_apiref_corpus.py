"""The api-ref loader on the 39 real old/new trees of /work/shared/corpus/apiref."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from needs_microversion.loaders.apiref import tree as apiref_tree
from needs_microversion.loaders.apiref.reader import ApiRefResult, load_apiref
from test_apiref_helpers import DATA, at, body, operation, operations, parameters

CORPUS = DATA.parents[2].parent / "shared" / "corpus" / "apiref"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(),
                                reason=f"{CORPUS} is absent (it ships beside the repo)")
PROJECTS = ("nova", "placement", "cinder", "manila", "ironic")
INFERRED = "x-needs-microversion-inferred"


def _trees() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return [case / side for case in sorted(CORPUS.iterdir()) if case.is_dir()
            for side in ("old", "new") if (case / side).is_dir()]


@cache
def load(case: str, side: str = "new", sub: str = "") -> ApiRefResult:
    # A sub-folder (`v3/`) of a plain tree names files of the tree above it (cinder's
    # `../status.yaml`): the tree, not the sub-folder, is what may be read.
    tree = CORPUS / case / side
    return load_apiref(tree / sub if sub else tree, sandbox=tree.resolve())


@pytest.mark.parametrize("tree", _trees(), ids=lambda p: f"{p.parent.name}-{p.name}")
def test_every_tree_loads(tree: Path) -> None:
    result = load(tree.parent.name, tree.name)
    assert result.document["paths"]
    assert all(w.split(":", 2)[1].strip().isdigit() or w.startswith("/") for w in
               result.warnings), result.warnings


@pytest.mark.parametrize("project", PROJECTS)
def test_counts_per_project_are_non_trivial(project: str) -> None:
    trees = [t for t in _trees() if t.parent.name.startswith(f"{project}-")]
    ops = params = codes = fields = 0
    for tree in trees:
        document = load(tree.parent.name, tree.name).document
        for _, _, op in operations(document):
            ops += 1
            params += len(op.get("parameters", []))
            codes += len(op["responses"])
            fields += str(op).count("'x-needs-microversion-location'")
    print(f"{project}: {len(trees)} trees, {ops} operations, {params} parameters, "
          f"{codes} status codes, {fields} located elements")
    per_tree = {"nova": 150, "placement": 30, "cinder": 200, "manila": 90, "ironic": 40}
    assert ops >= per_tree[project] * len(trees)
    assert params >= ops / 2 and codes >= ops


# -- nova ------------------------------------------------------------------------------------
def test_nova_locked_is_a_2_9_attribute_of_show_server() -> None:
    op = operation(load("nova-2a51df2760").document, "/servers/{server_id}", "get")
    locked = at(body(op, "200"), "/server/locked")
    assert locked["type"] == "boolean" and locked["x-openstack"] == {"min-ver": "2.9"}


def test_nova_flavor_fields_are_nested_by_their_dotted_names() -> None:
    op = operation(load("nova-2a51df2760").document, "/servers/detail", "get")
    assert at(body(op, "200"), "/servers/*/flavor/vcpus")["x-openstack"] == {"min-ver": "2.47"}
    assert at(body(op, "200"), "/servers/*/flavor/id")["x-openstack"] == {"max-ver": "2.46"}
    extra_specs = at(body(op, "200"), "/servers/*/flavor/extra_specs")
    assert extra_specs["additionalProperties"]["x-openstack"] == {"min-ver": "2.47"}


def test_nova_actions_are_one_operation_each() -> None:
    paths = load("nova-2a51df2760").document["paths"]
    actions = {p.split("#")[1] for p in paths if p.startswith("/servers/{server_id}/action#")}
    assert {"createImage", "lock", "os-migrateLive", "trigger_crash_dump", "evacuate",
            "os-getVNCConsole"} <= actions and len(actions) >= 35
    assert paths["/servers/{server_id}/action#trigger_crash_dump"]["post"]["x-openstack"] == {
        "min-ver": "2.17"}


def test_nova_volume_attach_success_code_changes_at_2_101() -> None:
    old = operation(load("nova-2a51df2760", "old").document,
                    "/servers/{server_id}/os-volume_attachments", "post")["responses"]
    new = operation(load("nova-2a51df2760").document,
                    "/servers/{server_id}/os-volume_attachments", "post")["responses"]
    assert "x-openstack" not in old["200"] and "202" not in old
    assert new["200"]["x-openstack"] == {"min-ver": "2.0", "max-ver": "2.100"}
    assert new["202"]["x-openstack"] == {"min-ver": "2.101"}
    assert load("nova-2a51df2760").max_version == "2.101"


def test_nova_hypervisor_statistics_has_an_operation_bound() -> None:
    op = operation(load("nova-2a51df2760").document, "/os-hypervisors/statistics", "get")
    assert op["x-openstack"] == {"max-ver": "2.87"}


# -- placement -------------------------------------------------------------------------------
def test_placement_ranged_response_sections_are_a_microversion_container() -> None:
    op = operation(load("placement-0f98cfbb").document, "/resource_providers", "post")
    assert op["responses"]["201"]["x-openstack"] == {"min-ver": "1.0", "max-ver": "1.19"}
    assert "content" not in op["responses"]["201"]
    container = body(op, "200")
    assert container["x-openstack"] == {"discriminator": "microversion"}
    assert [v["x-openstack"] for v in container["oneOf"]] == [{"min-ver": "1.20"}]
    assert "root_provider_uuid" in container["oneOf"][0]["properties"]


def test_placement_ranged_variants_record_example_evidence() -> None:
    op = operation(load("placement-0f98cfbb").document, "/resource_providers/{uuid}/aggregates",
                   "get")
    container = body(op, "200")
    assert container["x-needs-microversion-example-keys"] is True
    for variant in container["oneOf"]:
        assert variant["x-needs-microversion-example-keys"] is True
        assert variant["properties"]["aggregates"]["x-needs-microversion-example"] == {
            "type": "array"}


def test_placement_placeholder_segments_are_maps() -> None:
    op = operation(load("placement-0f98cfbb").document, "/allocations/{consumer_uuid}", "get")
    assert "additionalProperties" in at(body(op, "200"), "/allocations")


# -- cinder ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("sub", "path"), [
    pytest.param("", "/v2/os-quota-class-sets/{quota_class_name}", id="whole-tree-keeps-v2"),
    pytest.param("v2", "/os-quota-class-sets/{quota_class_name}", id="v2-folder"),
])
def test_cinder_method_on_the_next_line(sub: str, path: str) -> None:
    op = operation(load("cinder-e9c848f5f", "new", sub).document, path, "get")
    assert op["x-needs-microversion-location"].endswith("quota-classes.inc:13")
    assert ("path", "quota_class_name") in parameters(op)


def test_cinder_status_directive_and_volume_type_id() -> None:
    document = load("cinder-e9c848f5f", "new", "v3").document
    op = operation(document, "/volumes/detail", "get")
    assert op["responses"]["200"]["description"] == "Request was successful."
    assert at(body(op, "200"), "/volumes/*/volume_type_id")["x-openstack"] == {
        "min-ver": "3.63"}
    old = operation(load("cinder-e9c848f5f", "old", "v3").document, "/volumes/detail", "get")
    assert "volume_type_id" not in at(body(old, "200"), "/volumes/*")["properties"]


def test_nova_console_token_description_announces_2_31() -> None:
    path = "/servers/{server_id}/os-console-auth-token"
    new = operation(load("nova-3c3925e71a").document, path, "get")["description"]
    old = operation(load("nova-3c3925e71a", "old").document, path, "get")["description"]
    assert "console type prior\nmicroversion 2.31. Now it's available for all console " \
           "types." in new
    assert "rdp-html5`` console type only." in old and "2.31" not in old


# -- manila ----------------------------------------------------------------------------------
def test_manila_availability_zone_filter_is_2_97() -> None:
    op = operation(load("manila-f30ff783d").document, "/shares", "get")
    assert parameters(op)[("query", "availability_zone")]["x-openstack"] == {"min-ver": "2.97"}


def test_manila_migration_progress_became_a_get() -> None:
    paths = load("manila-f534e69d8").document["paths"]
    assert "get" in paths["/shares/{share_id}/migration-progress"]
    assert "/shares/{share_id}/migration-progress" not in load(
        "manila-f534e69d8", "old").document["paths"]


def test_manila_operation_level_versionadded() -> None:
    op = operation(load("manila-f534e69d8").document, "/resource-locks", "post")
    assert op["x-openstack"] == {"min-ver": "2.81"} and op[INFERRED] is True


@pytest.mark.parametrize("side", ["old", "new"])
def test_manila_sample_shows_group_snapshot_members_as_a_list(side: str) -> None:
    """The table said string (old) and then array (new); the sample always had `[]`."""
    document = load("manila-e8d3b2496", side).document
    schema = body(operation(document, "/share-group-snapshots/{group_snapshot_id}", "get"),
                  "200")
    assert schema["x-needs-microversion-example-keys"] is True
    members = at(schema, "/share_group_snapshot/members")
    assert members["type"] == ("string" if side == "old" else "array")
    assert members["x-needs-microversion-example"] == {"type": "array"}


# -- ironic ----------------------------------------------------------------------------------
def test_ironic_versionadded_bounds_fields() -> None:
    new = body(operation(load("ironic-13f61e674").document, "/nodes", "post"))
    assert new["properties"]["disable_power_off"]["x-openstack"] == {"min-ver": "1.95"}
    assert new["properties"]["disable_power_off"][INFERRED] is True
    assert new["properties"]["name"]["x-openstack"] == {"min-ver": "1.5"}
    assert load("ironic-13f61e674").max_version == "1.95"


def test_ironic_resource_level_versionadded_bounds_operations() -> None:
    paths = load("ironic-13f61e674").document["paths"]
    assert paths["/allocations"]["get"]["x-openstack"] == {"min-ver": "1.52"}
    assert paths["/deploy_templates"]["post"]["x-openstack"] == {"min-ver": "1.55"}


def test_ironic_firmware_fields_added_at_1_114() -> None:
    document = load("ironic-a62522eaf").document
    paths = [p for p in document["paths"] if p.endswith("/firmware")]
    schema = body(operation(document, paths[0], "get"), "200")
    assert "1.114" in str(schema)


# -- caching and speed ----------------------------------------------------------------------
def test_identical_files_parse_once() -> None:
    text = (CORPUS / "nova-2a51df2760" / "new" / "servers.inc").read_text()
    assert apiref_tree.parse_cached(text) is apiref_tree.parse_cached(text)
