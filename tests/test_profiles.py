"""Profiles: one change, different verdicts, the way each project's guide reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from needs_microversion.errors import InputError
from needs_microversion.profiles import PROFILES, get_profile


def write_api(path: Path, paths: dict[str, Any], version: str = "2.90") -> str:
    """A small OpenAPI document (JSON is YAML too)."""
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": version},
                                "paths": paths}))
    return str(path)


def body(properties: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"type": "object",
                                                        "properties": properties}}}}


def keypair(*codes: str) -> dict[str, Any]:
    responses = {"200": {"description": "OK", **body({"name": {"type": "string"}})}}
    responses.update({code: {"description": code} for code in codes})
    return {"/os-keypairs/{name}": {"get": {
        "parameters": [{"name": "name", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "responses": responses}}}


def diff_json(run_cli, old: str, new: str, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run_cli("diff", old, new, "--no-validate", "--format", "json", *args)
    assert code in (0, 1), err
    return code, json.loads(out)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder (a git root, so no configuration above it applies)."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("profile, code, finding", [
    ("nova", 0, "error-code-exempt"),
    ("generic", 0, "error-code-exempt"),
    ("cinder", 1, "status-code-added"),
    ("manila", 1, "status-code-added"),
    ("placement", 0, "error-code-exempt"),
    ("ironic", 0, "error-code-exempt"),
], ids=lambda v: str(v))
def test_newly_documented_404_is_required_only_where_the_guide_asks(run_cli, project: Path, profile: str,
                                                         code: int, finding: str) -> None:
    old = write_api(project / "old.json", keypair("403"))
    new = write_api(project / "new.json", keypair("403", "404"))
    got, report = diff_json(run_cli, old, new, "--profile", profile)
    assert got == code and [c["id"] for c in report["changes"]] == [finding]


def test_default_profile_is_generic_with_the_exemption(run_cli, project: Path) -> None:
    old = write_api(project / "old.json", keypair())
    new = write_api(project / "new.json", keypair("404"))
    code, report = diff_json(run_cli, old, new)
    assert code == 0 and report["changes"][0]["id"] == "error-code-exempt"


def ironic_node(where: str, keys: list[str]) -> dict[str, Any]:
    """GET /v1/nodes/{id} returns the node at the top level; driver_info is free-form."""
    field = {"type": "object", "properties": {k: {"type": "string"} for k in keys}}
    node = {"uuid": {"type": "string"}, where: field}
    return {"/v1/nodes/{node_ident}": {"get": {
        "parameters": [{"name": "node_ident", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"description": "OK", **body(node)}}}},
        "/v1/nodes": {"get": {"responses": {"200": {"description": "OK", **body(
            {"nodes": {"type": "array", "items": {"type": "object", "properties": node}}})}}}}}


@pytest.mark.parametrize("field", ["driver_info", "properties", "instance_info",
                                   "driver_internal_info", "extra"])
def test_ironic_free_form_fields_take_new_keys(run_cli, project: Path, field: str) -> None:
    old = write_api(project / "old.json", ironic_node(field, ["ipmi_address"]), "1.90")
    new = write_api(project / "new.json", ironic_node(field, ["ipmi_address", "redfish_uri"]),
                    "1.90")
    code, report = diff_json(run_cli, old, new, "--profile", "ironic")
    assert code == 0
    assert {(c["operation"], c["pointer"], c["id"]) for c in report["changes"]} == {
        ("GET /v1/nodes/{node_ident}", f"/{field}/redfish_uri", "free-form-key"),
        ("GET /v1/nodes", f"/nodes/*/{field}/redfish_uri", "free-form-key")}
    code, report = diff_json(run_cli, old, new, "--profile", "nova")
    assert code == 1 and {c["id"] for c in report["changes"]} == {"attribute-added"}


def test_ironic_free_form_field_itself_is_contract(run_cli, project: Path) -> None:
    old = write_api(project / "old.json", ironic_node("driver_info", []), "1.90")
    new = write_api(project / "new.json", ironic_node("extra", []), "1.90")
    code, report = diff_json(run_cli, old, new, "--profile", "ironic")
    assert code == 1
    assert {c["id"] for c in report["changes"]} == {"attribute-added", "attribute-removed"}


def create_server(hints: list[str]) -> dict[str, Any]:
    request = {"server": {"type": "object", "properties": {"name": {"type": "string"}}},
               "os:scheduler_hints": {"type": "object", "properties": {
                   h: {"type": "string"} for h in hints}}}
    return {"/servers": {"post": {"requestBody": body(request),
                                  "responses": {"202": {"description": "Accepted"}}}}}


def test_scheduler_hints_are_free_form_for_nova_not_cinder(run_cli, project: Path) -> None:
    old = write_api(project / "old.json", create_server(["group"]))
    new = write_api(project / "new.json", create_server(["group", "my_filter"]))
    code, report = diff_json(run_cli, old, new, "--profile", "nova")
    assert code == 0 and [c["id"] for c in report["changes"]] == ["free-form-key"]
    code, report = diff_json(run_cli, old, new, "--profile", "cinder")
    assert code == 1 and [c["id"] for c in report["changes"]] == ["attribute-added"]


EXPERIMENTAL = {"name": "X-OpenStack-Manila-API-Experimental", "in": "header",
                "required": True, "schema": {"type": "boolean"}}


def share_groups(keys: list[str], experimental: bool) -> dict[str, Any]:
    return {"/share-groups/{id}": {"get": {
        "parameters": [{"name": "id", "in": "path", "required": True,
                        "schema": {"type": "string"}},
                       *([EXPERIMENTAL] if experimental else [])],
        "responses": {"200": {"description": "OK", **body(
            {"share_group": {"type": "object", "properties": {
                k: {"type": "string"} for k in keys}}})}}}}}


def test_manila_experimental_api_changes_need_no_microversion(run_cli, project: Path) -> None:
    old = write_api(project / "old.json", share_groups(["id"], True), "2.50")
    new = write_api(project / "new.json", share_groups(["id", "availability_zone"], True),
                    "2.50")
    code, report = diff_json(run_cli, old, new, "--profile", "manila")
    [change] = report["changes"]
    assert code == 0 and (change["id"], change["rule"], change["verdict"]) == (
        "experimental-api", "experimental", "not-required")
    assert "X-OpenStack-Manila-API-Experimental".lower() in change["message"].lower()
    code, report = diff_json(run_cli, old, new, "--profile", "cinder")
    assert code == 1 and report["changes"][0]["id"] == "attribute-added"


def test_manila_graduating_or_stable_apis_still_need_one(run_cli, project: Path) -> None:
    # Graduation: the experimental header goes away (manila bumps for it, e.g. 2.55).
    old = write_api(project / "old.json", share_groups(["id"], True), "2.50")
    new = write_api(project / "new.json", share_groups(["id"], False), "2.50")
    code, report = diff_json(run_cli, old, new, "--profile", "manila")
    assert code == 1 and [c["id"] for c in report["changes"]] == ["request-header-removed"]
    # A stable API is not experimental because the new document says so.
    old = write_api(project / "old.json", share_groups(["id"], False), "2.50")
    new = write_api(project / "new.json", share_groups(["id", "az"], True), "2.50")
    code, report = diff_json(run_cli, old, new, "--profile", "manila")
    assert code == 1
    assert {c["id"] for c in report["changes"]} == {"attribute-added", "request-header-added"}


def volume(keys: list[str], gated_at: str | None) -> dict[str, Any]:
    props: dict[str, Any] = {k: {"type": "string"} for k in keys}
    if gated_at:
        props["consumes_quota"] = {"type": "boolean", "x-openstack": {"min-ver": gated_at}}
    return {"/volumes/{id}": {"get": {
        "parameters": [{"name": "id", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"description": "OK", **body(
            {"volume": {"type": "object", "properties": props}})}}}}}


def test_follow_up_folds_into_an_unreleased_max(run_cli, project: Path) -> None:
    """3.71 is merged, not released: a follow-up may add to it instead of allocating 3.72
    (cinder's guide says so; every project does it, so every profile folds)."""
    old = write_api(project / "old.json", volume(["id"], None), "3.71")
    new = write_api(project / "new.json", volume(["id"], "3.71"), "3.71")
    code, report = diff_json(run_cli, old, new, "--profile", "cinder")
    assert code == 1  # without released-max nothing says 3.71 is unreleased
    (project / ".needs-microversion.yaml").write_text(
        "profile: cinder\nservices:\n  - name: volume\n    documents: ['*.json']\n"
        "    released-max: '3.70'\n")
    code, report = diff_json(run_cli, old, new)
    [change] = report["changes"]
    assert code == 0 and change["provided"] and change["gated"] == "3.71"
    assert report["old_version"] == "3.70" and "3.71 is not released yet" in report["notes"][0]
    code, report = diff_json(run_cli, old, new, "--profile", "placement")
    assert code == 0 and "3.71 is not released yet" in report["notes"][0]


def test_unknown_profile_is_a_usage_error(run_cli, project: Path) -> None:
    old = write_api(project / "old.json", keypair())
    code, _, err = run_cli("diff", old, old, "--no-validate", "--profile", "neutron")
    assert code == 2 and err.count("\n") == 1 and "--profile must be one of" in err
    with pytest.raises(InputError):
        get_profile("nvoa")


def test_profiles_are_documented() -> None:
    guide = (ROOT / "docs" / "configuration.md").read_text()
    assert all(f"| `{name}` |" in guide for name in PROFILES)


def test_retry_after_note_is_nova_s_not_cinder_s(tmp_path, capsys) -> None:
    from needs_microversion.cli import main

    folder = ROOT / "rules" / "header" / "retry-after-removed-from-429"
    argv = ["diff", str(folder / "old.yaml"), str(folder / "new.yaml"), "--no-validate",
            "--format", "json"]
    assert main([*argv, "--profile", "nova"]) == 0
    assert '"inapplicable-header-removed"' in capsys.readouterr().out
    assert main([*argv, "--profile", "cinder"]) == 1
    assert '"response-header-removed"' in capsys.readouterr().out


def apiref_tree(folder: Path, project: str | None, codes: str) -> str:
    """A one-operation api-ref tree; its Sphinx conf.py names the repository as
    openstackdocstheme asks (`openstackdocs_repo_name`)."""
    folder.mkdir(parents=True)
    if project:
        (folder / "conf.py").write_text(f"openstackdocs_repo_name = 'openstack/{project}'\n")
    (folder / "parameters.yaml").write_text(
        "name:\n  in: body\n  required: true\n  type: string\n  description: A name.\n")
    (folder / "things.inc").write_text(
        "Things\n======\n\nShow thing\n----------\n\n.. rest_method:: GET /things/{id}\n\n"
        f"Normal response codes: 200\n\nError response codes: {codes}\n\n"
        "Response\n--------\n\n.. rest_parameters:: parameters.yaml\n\n  - name: name\n")
    return str(folder)


@pytest.mark.parametrize("named, code", [
    ("cinder", 1), ("manila", 1), ("nova", 0), ("placement", 0), ("ironic", 0), (None, 0)])
def test_diff_of_two_trees_judges_by_the_project_their_conf_names(
        run_cli, project: Path, named: str | None, code: int) -> None:
    """`diff` of two trees agrees with `check` in the repository: a newly documented 404 is
    a microversion only where the project's own guide asks one (cinder, manila)."""
    old = apiref_tree(project / "old", named, "unauthorized(401)")
    new = apiref_tree(project / "new", named, "unauthorized(401), itemNotFound(404)")
    got, out, err = run_cli("diff", old, new, "--format", "json")
    ids = [c["id"] for c in json.loads(out)["changes"]]
    assert got == code, (out, err)
    assert ids == (["status-code-added"] if code else ["error-code-exempt"])
