"""The configuration file: discovery, precedence, acknowledgements and every error path."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from needs_microversion.config import Config, load_config, service_for
from needs_microversion.errors import InputError


def write_api(path: Path, paths: dict[str, Any], version: str = "2.90") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": version},
                                "paths": paths}))
    return str(path)


def server(keys: list[str], *codes: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"server": {"type": "object", "properties": {
        k: {"type": "string"} for k in keys}}}}
    responses: dict[str, Any] = {"200": {"description": "OK", "content": {
        "application/json": {"schema": schema}}}}
    responses.update({code: {"description": code} for code in codes})
    return {"/servers/{server_id}": {"get": {
        "parameters": [{"name": "server_id", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "responses": responses}}}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project (a git root) with an old/new pair where a 404 is newly documented: exempt
    under nova and generic, required under cinder."""
    (tmp_path / ".git").mkdir()
    write_api(tmp_path / "api" / "old.json", server(["id"]))
    write_api(tmp_path / "api" / "new.json", server(["id"], "404"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def diff(run_cli, *args: str, old: str = "api/old.json", new: str = "api/new.json"
         ) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_cli("diff", old, new, "--no-validate", "--format", "json", *args)
    return code, (json.loads(out) if code in (0, 1) else {}), err


PYPROJECT_CINDER = '[project]\nname = "x"\n\n[tool.needs-microversion]\nprofile = "cinder"\n'


# -- discovery ---------------------------------------------------------------------------
def test_pyproject_found_from_a_subfolder(run_cli, project: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert diff(run_cli)[0] == 0  # nothing configured: generic, 404 exempt
    (project / "pyproject.toml").write_text(PYPROJECT_CINDER)
    monkeypatch.chdir(project / "api")
    code, report, _ = diff(run_cli, old="old.json", new="new.json")
    assert code == 1 and report["changes"][0]["id"] == "status-code-added"


def test_yaml_found_and_preferred_over_pyproject(run_cli, project: Path) -> None:
    (project / ".needs-microversion.yaml").write_text("profile: cinder\n")
    (project / "pyproject.toml").write_text(PYPROJECT_CINDER.replace("cinder", "nova"))
    assert diff(run_cli)[0] == 1
    config = load_config()
    assert config.path == (project / ".needs-microversion.yaml").resolve()
    assert config.root == project.resolve() and config.defaults.profile == "cinder"


def test_pyproject_without_the_table_is_skipped(project: Path) -> None:
    (project / "api" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (project / "pyproject.toml").write_text(PYPROJECT_CINDER)
    config = load_config(start=project / "api")
    assert config.path == (project / "pyproject.toml").resolve()


def test_search_stops_at_the_git_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT_CINDER)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    config = load_config(start=repo)
    assert config == Config(path=None, root=repo.resolve(), services=())


def test_explicit_config_and_command_line_precedence(run_cli, project: Path) -> None:
    (project / "conf").mkdir()
    (project / "conf" / "mv.yaml").write_text("profile: cinder\n")
    assert diff(run_cli)[0] == 0
    assert diff(run_cli, "--config", "conf/mv.yaml")[0] == 1
    assert diff(run_cli, "--config", "conf/mv.yaml", "--profile", "nova")[0] == 0
    (project / ".needs-microversion.yaml").write_text("profile: nova\n")
    assert diff(run_cli)[0] == 0
    assert diff(run_cli, "--no-exempt-error-codes")[0] == 1


def test_settings_from_the_file(run_cli, project: Path) -> None:
    write_api(project / "api" / "new.json", server(["id", "locked"], "409"))
    (project / ".needs-microversion.yaml").write_text(
        "disable: [status-code]\n"
        "silent-failures: ['GET /servers/{id}: the lock was ignored']\n")
    code, report, _ = diff(run_cli)
    assert code == 0 and report["verdict"] == "bug-fix"
    assert report["claims"] == [{"operation": "GET /servers/{id}",
                                 "reason": "the lock was ignored"}]
    (project / ".needs-microversion.yaml").write_text(
        "free-form: [/server]\nexempt-error-codes: [409]\n")
    code, report, _ = diff(run_cli)
    assert code == 0
    assert {c["id"] for c in report["changes"]} == {"free-form-key", "error-code-exempt"}
    code, report, _ = diff(run_cli, "--no-exempt-error-codes")
    assert code == 1


# -- services ------------------------------------------------------------------------------
SERVICES = """
[tool.needs-microversion]
profile = "nova"
disable = ["security"]

[[tool.needs-microversion.services]]
name = "compute"
documents = ["api-ref/source"]
version-file = "nova/api/openstack/api_version_request.py"
free-form = ["/server/metadata"]

[[tool.needs-microversion.services]]
name = "volume"
documents = ["specs/*.yaml", "block.json"]
profile = "cinder"
disable = ["header"]
exempt-error-codes = [404]
catch-up = false
"""


def test_services_inherit_the_top_level(project: Path) -> None:
    (project / "pyproject.toml").write_text(SERVICES)
    config = load_config()
    compute, volume = config.services
    assert (compute.name, compute.profile, compute.disabled, compute.free_form) == (
        "compute", "nova", ("security",), ("/server/metadata",))
    assert compute.version_file == "nova/api/openstack/api_version_request.py"
    assert (volume.profile, volume.disabled, volume.exempt_error_codes, volume.catch_up) == (
        "cinder", ("security", "header"), frozenset({"404"}), False)
    assert config.defaults.name == "" and config.defaults.profile == "nova"


def test_service_for_directories_globs_and_files(project: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "pyproject.toml").write_text(SERVICES)
    config = load_config()

    def name(document: str) -> str:
        return (service_for(config, document) or config.defaults).name

    assert name("api-ref/source") == "compute"
    assert name("api-ref/source/servers.inc") == "compute"
    assert name(str(project / "api-ref" / "source")) == "compute"
    assert name("specs/volume.yaml") == "volume" and name("block.json") == "volume"
    assert name("api-ref") == "" and name("other.yaml") == ""
    monkeypatch.chdir(project / "api")  # relative to the root works from anywhere
    assert name("api-ref/source") == "compute" and name("../specs/v.yaml") == "volume"


def test_the_service_of_the_documents_applies(run_cli, project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[[tool.needs-microversion.services]]\nname = "a"\ndocuments = ["elsewhere"]\n'
        'profile = "cinder"\n')
    assert diff(run_cli)[0] == 1  # the only service: it describes this project
    (project / "pyproject.toml").write_text(
        '[tool.needs-microversion]\nprofile = "nova"\n'
        '[[tool.needs-microversion.services]]\nname = "a"\ndocuments = ["elsewhere"]\n'
        'profile = "cinder"\n'
        '[[tool.needs-microversion.services]]\nname = "b"\ndocuments = ["api"]\n'
        'profile = "manila"\n')
    assert diff(run_cli)[0] == 1  # b: manila
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml").read_text().replace('["api"]', '["nowhere"]'))
    assert diff(run_cli)[0] == 0  # neither: the top level (nova)


def test_a_service_named_by_the_caller(project: Path) -> None:
    from conftest import run_diff
    from needs_microversion.commands.diff import DiffRequest

    (project / "pyproject.toml").write_text(SERVICES)
    request = DiffRequest("api/old.json", "api/new.json", validate=False,
                          service="volume")  # as `check` names it for REV:path documents
    assert run_diff(request)[2] == 0  # volume: cinder, but 404 exempted explicitly
    with pytest.raises(InputError, match="no service 'network' in pyproject.toml"):
        run_diff(DiffRequest("api/old.json", "api/new.json", service="network"))


# -- acknowledgements ------------------------------------------------------------------------
def acknowledge(**fields: str) -> str:
    lines = "".join(f"    {k}: {v!r}\n" if k != "expires" else f"    {k}: {v}\n"
                    for k, v in fields.items())
    return "profile: cinder\nacknowledge:\n  - " + lines.lstrip()


def test_acknowledgement_applies(run_cli, project: Path) -> None:
    (project / ".needs-microversion.yaml").write_text(acknowledge(
        rule="status-code", operation="GET /servers/{id}", status="404",
        reason="404 was always returned", expires="2999-12-31"))
    code, report, _ = diff(run_cli)
    [change] = report["changes"]
    assert code == 0 and report["verdict"] == "required"
    assert change["acknowledged"] == "404 was always returned" and report["notes"] == []


def test_acknowledgement_by_finding_id_and_pointer(run_cli, project: Path) -> None:
    write_api(project / "api" / "new.json", server(["id", "locked"]))
    (project / ".needs-microversion.yaml").write_text(acknowledge(
        rule="attribute-added", operation="GET /servers/{server_id}/",
        pointer="/server/locked", reason="documented late"))
    code, report, _ = diff(run_cli)
    assert code == 0 and report["changes"][0]["acknowledged"] == "documented late"


def test_expired_acknowledgement_does_not_apply(run_cli, project: Path) -> None:
    (project / ".needs-microversion.yaml").write_text(acknowledge(
        rule="status-code", operation="GET /servers/{id}", status="404",
        reason="until the fix", expires="2001-01-01"))
    code, report, _ = diff(run_cli)
    assert code == 1 and report["changes"][0]["acknowledged"] is None
    [note] = report["notes"]
    assert note.startswith("acknowledgement expired on 2001-01-01") and "status-code" in note


def test_unused_acknowledgement_is_noted(run_cli, project: Path) -> None:
    (project / ".needs-microversion.yaml").write_text(acknowledge(
        rule="attribute", operation="GET /servers/{id}", pointer="/server/locked",
        reason="no such change"))
    code, report, _ = diff(run_cli)
    assert code == 1
    [note] = report["notes"]
    assert note.startswith("acknowledgement matched no change: attribute on GET /servers/{id}"
                           " /server/locked")


def test_acknowledgement_matching_is_exact(project: Path) -> None:
    """Rule, operation (placeholders ignored; actions optional) and pointer, never text."""
    from needs_microversion.model.change import Change
    from needs_microversion.model.verdict import Finding
    from needs_microversion.model.snapshot import OpKey

    (project / ".needs-microversion.yaml").write_text(
        "acknowledge:\n"
        "  - {rule: attribute, operation: 'POST /servers/{id}/action (reboot)',"
        " pointer: /reboot/type, reason: r}\n"
        "  - {rule: header, operation: 'POST /servers/{id}/action',"
        " pointer: X-Trace, reason: r}\n")
    reboot, any_action = load_config().defaults.acknowledgements
    change = Change("request-body", "added", "", "POST /servers/{server_id}/action (reboot)",
                    OpKey("POST", "/servers/{}/action", "reboot"), pointer="/reboot/type")
    finding = Finding("attribute-added", "attribute", "?", "required", change, "m")
    assert reboot.matches(finding)
    assert not reboot.matches(Finding("header-changed", "header", "?", "required", change, "m"))
    assert not any_action.matches(finding)
    header = Finding("request-header-added", "header", "?", "required", Change(
        "request-header", "added", "", "POST", OpKey("POST", "/servers/{}/action", "stop"),
        pointer="X-Trace"), "m")
    assert any_action.matches(header) and not reboot.matches(header)


# -- errors: exit 2, one line, naming the key ------------------------------------------------
TOP = "[tool.needs-microversion]\n"
SERVICE = '[[tool.needs-microversion.services]]\nname = "compute"\n'
ACK = SERVICE + ('[[tool.needs-microversion.services.acknowledge]]\nrule = "attribute"\n'
                 'operation = "GET /servers/{id}"\npointer = "/server/locked"\n')


@pytest.mark.parametrize("text, expected", [
    (TOP + 'profil = "nova"\n', "pyproject.toml: [tool.needs-microversion] unknown key 'profil'"),
    (TOP + 'profile = "nvoa"\n', ("'profile' must be one of cinder, generic, ironic, manila, "
                                  "nova, placement, got 'nvoa'")),
    (TOP + 'disable = "security"\n', "'disable' must be a list of non-empty strings"),
    (TOP + 'disable = ["secuirty"]\n', "'disable': unknown rule 'secuirty'"),
    (TOP + 'free-form = ["server/metadata"]\n', "'free-form': 'server/metadata' must be a body"),
    (TOP + 'silent-failures = ["no reason"]\n',
     "[tool.needs-microversion] 'silent-failures': needs 'METHOD /path: reason'"),
    (TOP + 'exempt-error-codes = [4040]\n', "'exempt-error-codes' must be a list of status"),
    (TOP + 'catch-up = "yes"\n', "'catch-up' must be true or false"),
    (TOP + 'services = "compute"\n', "'services' must be a list of tables"),
    (TOP + 'documents = ["api-ref"]\n', "[tool.needs-microversion] unknown key 'documents'"),
    (SERVICE + 'documnets = ["api-ref"]\n',
     "[tool.needs-microversion] services[0] (compute) unknown key 'documnets'"),
    ('[[tool.needs-microversion.services]]\ndocuments = ["a"]\n',
     "[tool.needs-microversion] services[0] needs 'name'"),
    (SERVICE + SERVICE, "services[1] (compute) 'name' 'compute' is used twice"),
    (SERVICE + 'version-file = 3\n', "'version-file' must be a non-empty string, got 3"),
    (SERVICE + 'released-max = "3"\n', "'released-max' must be a microversion"),
    (ACK + 'reason = "x"\nexpire = 2027-01-01\n',
     "services[0] (compute) acknowledge[0] unknown key 'expire'"),
    (ACK, "services[0] (compute) acknowledge[0] needs 'reason'"),
    (ACK + 'reason = ""\n', "acknowledge[0] 'reason' must be a non-empty string"),
    (ACK + 'reason = "x"\nexpires = "01/01/2027"\n', "'expires' must be a date YYYY-MM-DD"),
    (ACK + 'reason = "x"\nexpires = 2027-01-01T10:00:00\n', "'expires' must be a date"),
    (ACK + 'reason = "x"\nstatus = "4xx"\n', "'status' must be a status code"),
    (ACK.replace('"attribute"', '"atribute"') + 'reason = "x"\n',
     "acknowledge[0] 'rule': unknown rule 'atribute'"),
    (ACK.replace('"GET /servers/{id}"', '"/servers/{id}"') + 'reason = "x"\n',
     "acknowledge[0] 'operation' must be 'METHOD /path'"),
    (ACK.replace('rule = "attribute"\n', '') + 'reason = "x"\n',
     "acknowledge[0] needs 'rule'"),
    (TOP + 'profile = "nova\n', "pyproject.toml: not valid TOML"),
], ids=lambda v: v.splitlines()[-1][:40] if "\n" in v else None)
def test_bad_pyproject_exits_2_naming_the_key(run_cli, project: Path, text: str,
                                              expected: str) -> None:
    (project / "pyproject.toml").write_text(text)
    code, _, err = diff(run_cli)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("needs-microversion: error: pyproject.toml: ") and expected in err


@pytest.mark.parametrize("text, expected", [
    ("profil: nova\n", ".needs-microversion.yaml: unknown key 'profil'"),
    ("- profile\n", ".needs-microversion.yaml: the top level must be a mapping"),
    ("profile: [nova\n", ".needs-microversion.yaml:2: invalid YAML"),
    (("services:\n  - name: x\n    acknowledge:\n      - {rule: attribute, operation: GET /a,"
      " expires: 2027-01-01}\n"), "services[0] (x) acknowledge[0] needs 'reason'"),
    ("services:\n  - name: x\n    version-file: missing.py\n",
     ".needs-microversion.yaml: 'version-file' 'missing.py' not found"),
])
def test_bad_yaml_exits_2_naming_the_key(run_cli, project: Path, text: str,
                                         expected: str) -> None:
    (project / ".needs-microversion.yaml").write_text(text)
    code, _, err = diff(run_cli)
    assert code == 2 and err.count("\n") == 1, err
    assert expected in err


def test_bad_explicit_config_exits_2(run_cli, project: Path) -> None:
    code, _, err = diff(run_cli, "--config", "nope.toml")
    assert code == 2 and err.count("\n") == 1 and "--config nope.toml: no such file" in err
    (project / "other.toml").write_text('[tool.ruff]\nline-length = 99\n')
    code, _, err = diff(run_cli, "--config", "other.toml")
    assert code == 2 and "other.toml: no [tool.needs-microversion] table" in err
    (project / "conf.ini").write_text("")
    code, _, err = diff(run_cli, "--config", "conf.ini")
    assert code == 2 and "--config must be a .toml or .yaml file" in err


def test_load_config_raises_input_error(project: Path) -> None:
    (project / ".needs-microversion.yaml").write_text("services: [{name: a, documents: [1]}]\n")
    with pytest.raises(InputError, match="'documents' must be a list of non-empty strings"):
        load_config()


def test_dates_from_toml_and_yaml(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        TOP + '[[tool.needs-microversion.acknowledge]]\nrule = "header"\n'
        'operation = "GET /a"\nreason = "r"\nexpires = 2027-01-01\n')
    [ack] = load_config().defaults.acknowledgements
    assert ack.expires == datetime.date(2027, 1, 1) and ack.pointer == "" and ack.status is None
    assert not ack.expired(datetime.date(2027, 1, 1)) and ack.expired(datetime.date(2027, 1, 2))
    (project / ".needs-microversion.yaml").write_text(
        "acknowledge: [{rule: header, operation: GET /a, reason: r, expires: '2027-01-01',"
        " status: 404}]\n")
    [ack] = load_config().defaults.acknowledgements
    assert ack.expires == datetime.date(2027, 1, 1) and ack.status == "404"


def test_configuration_guide_documents_every_key() -> None:
    from needs_microversion import config

    guide = (ROOT / "docs" / "configuration.md").read_text()
    keys = config._SERVICE_KEYS | config._TOP_KEYS | config._ACK_KEYS
    assert [key for key in sorted(keys) if f"`{key}`" not in guide and f"{key} =" not in guide
            ] == []


def test_a_duplicate_configuration_key_is_an_error(run_cli, project: Path) -> None:
    (project / ".needs-microversion.yaml").write_text("profile: nova\nprofile: cinder\n")
    code, _, err = diff(run_cli)
    assert code == 2 and ".needs-microversion.yaml:2:" in err and "duplicate key" in err
