"""`check` reads the contract nova's code declares when a change edits the API's code, and
judges it beside the api-ref tree (issue 35), the CI way (`--from-ref/--to-ref`, no
configuration), in a small nova: api-ref, version file, history document, release notes, a
release tag, and a widgets API declared in code (routes, decorators, schemas).

The five kinds of change: a contract change made only in code with no bump (exit 1, the
microversion named), the same change done right (gated on the next microversion, version
file, history entry, release note: exit 0), the bump forgotten (exit 1), refactors that
change no contract (exit 0, nothing required), and coverage (a schema where none was)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from code_repos import NOVA
from gitrepo import quiet_git
from repositories import Project, check_reports, exported, git, nova_like

__all__ = ["quiet_git"]

CONTROLLER = "nova/api/openstack/compute/widgets.py"
SCHEMAS = "nova/api/openstack/compute/schemas/widgets.py"
HISTORY = "nova/api/openstack/compute/rest_api_version_history.rst"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """nova-like, released at 2.5, its code declaring the widgets API."""
    repo = nova_like(tmp_path / "nova")
    code = {path: text for path, text in NOVA.items()
            if path != "nova/api/openstack/api_version_request.py"}
    repo.commit(code, "the widgets API", max_version="2.5")
    repo.tag("2.0.0")
    return repo



def _required(report: dict[str, Any]) -> list[str]:
    return sorted(c["id"] for c in report["changes"]
                  if c["verdict"] == "required" and not c["provided"])


def _colour(project: Project) -> str:
    """The schema module with `colour` added to the create schema in place."""
    return project.edited(SCHEMAS, "'properties': {'name': parameter_types.name}",
                          "'properties': {'name': parameter_types.name,"
                          " 'colour': {'type': 'string'}}")


def test_a_contract_change_only_in_code_needs_a_microversion(project: Project, run_cli,
                                                             monkeypatch) -> None:
    project.commit({SCHEMAS: _colour(project)}, "colour, no microversion")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    assert _required(reports["nova code"]) == ["attribute-added"]
    assert reports["nova code"]["bookkeeping"]["next_version"] == "2.6"
    assert any("api-ref not updated" in note for note in reports["nova code"]["notes"])
    [change] = reports["nova code"]["changes"]
    assert change["location"].startswith(SCHEMAS + ":")


def _colour_at_2_6(project: Project) -> dict[str, str | None]:
    """`colour` in a copy of the create schema that the controller validates from 2.6."""
    return {
        SCHEMAS: project.edited(SCHEMAS, "index_query = {",
                                "create_v26 = copy.deepcopy(create_v22)\n"
                                "create_v26['properties']['widget']['properties']['colour'] = "
                                "{'type': 'string'}\n\nindex_query = {"),
        CONTROLLER: project.edited(
            CONTROLLER, "    @validation.schema(schema.create_v22, MIN_SIZE_VERSION)\n",
            "    @validation.schema(schema.create_v22, MIN_SIZE_VERSION, '2.5')\n"
            "    @validation.schema(schema.create_v26, '2.6')\n")}


def test_the_same_change_done_right(project: Project, run_cli, monkeypatch) -> None:
    project.commit(_colour_at_2_6(project), "colour at 2.6", max_version="2.6",
                   history="2.6", note="Adds colour in microversion 2.6.")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    [change] = [c for c in reports["nova code"]["changes"] if c["id"] == "attribute-added"]
    assert change["gated"] == "2.6" and change["provided"]


def test_the_bump_forgotten(project: Project, run_cli, monkeypatch) -> None:
    project.commit(_colour_at_2_6(project), "colour at 2.6, no bump")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    [change] = [c for c in reports["nova code"]["changes"] if c["id"] == "attribute-added"]
    assert change["gated"] == "2.6" and not change["provided"]


@pytest.mark.parametrize("refactor", ["reordered", "renamed", "moved", "reformatted"])
def test_refactors_change_no_contract(project: Project, run_cli, monkeypatch,
                                      refactor: str) -> None:
    files: dict[str, str | None] = {}
    if refactor == "reordered":
        files[CONTROLLER] = project.edited(
            CONTROLLER,
            "    @validation.query_schema(schema.index_query, '2.1', '2.3')\n"
            "    @validation.query_schema(schema.index_query_v24, '2.4')\n",
            "    @validation.query_schema(schema.index_query_v24, '2.4')\n"
            "    @validation.query_schema(schema.index_query, '2.1', '2.3')\n")
    elif refactor == "renamed":
        schemas = (project.top / SCHEMAS).read_text().replace("create_v22", "create_v2_2")
        files[SCHEMAS] = schemas
        files[CONTROLLER] = (project.top / CONTROLLER).read_text().replace("create_v22",
                                                                            "create_v2_2")
    elif refactor == "moved":
        common = "nova/api/openstack/compute/schemas/common.py"
        files[common] = "WIDGET_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}\n"
        files[SCHEMAS] = project.edited(SCHEMAS, "from nova.api.validation import "
                                        "parameter_types\n", "from nova.api.validation import "
                                        "parameter_types\nfrom nova.api.openstack.compute."
                                        "schemas import common\n").replace(
            "'properties': {'name': parameter_types.name}",
            "'properties': {'name': common.WIDGET_NAME}")
    else:
        files[SCHEMAS] = (project.top / SCHEMAS).read_text().replace(
            "'additionalProperties': False,\n}", "'additionalProperties':\n        False,\n}")
    project.commit(files, f"{refactor}: no contract change")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0
    assert reports["nova code"]["changes"] == [], reports["nova code"]["changes"]


def test_a_schema_declared_where_none_was_is_coverage(project: Project, run_cli,
                                                      monkeypatch) -> None:
    schemas = project.edited(SCHEMAS, "show_response = {",
                             "stop = {'type': 'object', 'properties': {'os-stop': "
                             "{'type': 'null'}}, 'required': ['os-stop'], "
                             "'additionalProperties': False}\n\nshow_response = {")
    controller = project.edited(CONTROLLER, "    @wsgi.action('os-stop')\n",
                                "    @wsgi.action('os-stop')\n"
                                "    @validation.schema(schema.stop)\n")
    project.commit({SCHEMAS: schemas, CONTROLLER: controller}, "a schema for os-stop")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    ids = {c["id"] for c in reports["nova code"]["changes"]}
    assert ids and ids <= {"schema-declared"}


def test_a_change_that_edits_no_api_code_reads_no_code(project: Project, run_cli,
                                                       monkeypatch) -> None:
    project.commit({"README.rst": "words\n"}, "documentation")
    _, reports = check_reports(project, run_cli, monkeypatch)
    assert "nova code" not in reports


def test_the_code_side_of_diff(project: Project, run_cli, monkeypatch) -> None:
    project.commit({SCHEMAS: _colour(project)}, "colour")
    monkeypatch.chdir(project.top)
    code, out, err = run_cli("diff", "code:HEAD~1", "code:HEAD", "--no-validate",
                             "--format", "json")
    assert code == 1 and [c["id"] for c in json.loads(out)["changes"]] == ["attribute-added"]
    code, out, err = run_cli("diff", "code:no-such-rev", "code:HEAD", "--no-validate")
    assert code == 2 and err.count("\n") == 1
    git(project.top, "status")  # the repository is left as it was


def test_drift_between_the_code_and_api_ref(project: Project, run_cli, monkeypatch) -> None:
    """The small nova documents its servers API in api-ref and declares a widgets API in code:
    each side's operations are the other's drift; the report's exit code is 0."""
    monkeypatch.chdir(project.top)
    code, out, err = run_cli("drift", "HEAD", "--format", "json")
    assert code == 0, err
    found = {(c["id"], c["operation"]) for c in json.loads(out)["changes"]}
    assert ("operation-undocumented", "GET /widgets") in found
    assert ("operation-unserved", "GET /servers/{server_id}") in found
    code, out, err = run_cli("drift", "HEAD", "--format", "sarif")
    assert code == 0 and '"ruleId": "drift"' in out


def test_export_writes_a_valid_openapi_document(project: Project, run_cli, monkeypatch,
                                                tmp_path: Path) -> None:
    document = exported(project, run_cli, monkeypatch, tmp_path / "widgets.json")
    show = document["paths"]["/widgets/{id}"]["get"]
    assert show["x-openstack"] == {"min-ver": "2.3"}
    assert show["parameters"][0] == {"name": "id", "in": "path", "required": True,
                                     "schema": {"type": "string"}}
    code, out, _ = run_cli("export", "HEAD", "--yaml")
    assert code == 0 and out.startswith("openapi: 3.1.0")
