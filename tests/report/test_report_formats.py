"""Every output format: real diffs validated against the formats' own schemas and grammars."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import ROOT, SHARED, run_diff

from needs_microversion.commands.diff import DiffRequest
from needs_microversion.errors import InputError
from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import Location, OpKey
from needs_microversion.model.verdict import BUG_FIX, REQUIRED, Bookkeeping, Finding, Report
from needs_microversion.model.versions import Version
from needs_microversion.report import FORMATS, render
from needs_microversion.report.github import escape_data, escape_property
from needs_microversion.report.text import colour_wanted, render_text
from needs_microversion.rules import REPORT_RULES

SARIF_SCHEMA = SHARED / "reference" / "schemas" / "sarif-schema-2.1.0.json"
ANSI = re.compile(r"\x1b\[")
# ::command key=value,key=value::message, with the runner's escaping applied (no raw
# newline anywhere; no raw `,` or `:` inside a property value).
WORKFLOW_COMMAND = re.compile(
    r"^::(error|warning|notice)( [a-z]+=[^,:\r\n]*(,[a-z]+=[^,:\r\n]*)*)?::[^\r\n]*$")


# -- real diffs ----------------------------------------------------------------------------

def _openapi(responses: dict[str, Any]) -> str:
    return json.dumps({
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1.0"},
        "paths": {"/servers/{server_id}": {"get": {
            "parameters": [{"name": "server_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": responses}}},
    }, indent=1)


def _ok(properties: dict[str, Any]) -> dict[str, Any]:
    return {"description": "OK", "content": {"application/json": {"schema": {
        "type": "object", "properties": properties}}}}


PAIRS = {
    # A response attribute added with no microversion at all: required, not provided.
    "not-provided": (_openapi({"200": _ok({"id": {"type": "string"}})}),
                     _openapi({"200": _ok({"id": {"type": "string"},
                                           "locked": {"type": "boolean"}})})),
    # A documented 500 goes away: a bug fix.
    "bug-fix": (_openapi({"200": _ok({"id": {"type": "string"}}),
                          "500": {"description": "Oops"}}),
                _openapi({"200": _ok({"id": {"type": "string"}})})),
}
CASES = ("provided", "not-provided", "bug-fix")


Diff = Callable[[str, str], tuple[str, int]]  # (case, format) -> (output, exit code)


@pytest.fixture
def diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Diff:
    """Run a case through run_diff from the documents' folder, so paths are relative as in CI."""
    def run(case: str, fmt: str) -> tuple[str, int]:
        if case == "provided":
            monkeypatch.chdir(ROOT)
            old, new = "examples/old.yaml", "examples/new.yaml"
        else:
            monkeypatch.chdir(tmp_path)
            old, new = "old.json", "new.json"
            (tmp_path / old).write_text(PAIRS[case][0])
            (tmp_path / new).write_text(PAIRS[case][1])
        output, _, code = run_diff(DiffRequest(old, new, validate=False), fmt)
        return output, code

    return run


EXPECTED = {  # case -> (exit code, verdict, the one finding id)
    "provided": (0, REQUIRED, "attribute-added"),
    "not-provided": (1, REQUIRED, "attribute-added"),
    "bug-fix": (0, BUG_FIX, "server-error-fixed"),
}


# -- constructed reports -------------------------------------------------------------------

NEW_LOCATION = Location("api/new.yaml", 12)


def _finding(fid: str = "attribute-added", verdict: str = REQUIRED, *,
             acknowledged: str | None = None,
             location: Location | None = NEW_LOCATION,
             message: str = "response attribute /server/locked (status 200) added") -> Finding:
    change = Change("response-body", "added", "", "GET /servers/{id}", OpKey("GET", "/servers/{}"),
                    pointer="/server/locked", status="200", media="application/json",
                    new={"type": "boolean"}, new_location=location)
    return Finding(fid, "attribute", "Did we add or remove an attribute to a payload?", verdict,
                   change, message, acknowledged)


def _report(*findings: Finding, **fields: Any) -> Report:
    base = Report("api/old.yaml", "api/new.yaml", Version(2, 5), Version(2, 5), findings)
    return replace(base, **fields)


ACKNOWLEDGED = _report(
    _finding(acknowledged="shipped in Zed by mistake; accepted by the API SIG"),
    _finding("attribute-removed", location=None, message="response attribute /server/x removed"),
    notes=("acknowledgement for GET /flavors is unused",),
    warnings=("new.yaml: not valid OpenAPI",),
    bookkeeping=Bookkeeping("2.5", "2.5", False, "2.6",
                            (("release note", True), ("api-ref version history", False),
                             ("python-novaclient", None))),
)


# -- json ----------------------------------------------------------------------------------

def _json_validator(name: str = "report.schema.json") -> jsonschema.protocols.Validator:
    """A validator of one shipped schema; the check wrapper's refers to the report's."""
    from referencing import Registry, Resource

    schemas = {other: json.loads(files("needs_microversion.report").joinpath(other)
                                 .read_text(encoding="utf-8"))
               for other in ("report.schema.json", "check.schema.json")}
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values())
    schema = schemas[name]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, registry=registry)


@pytest.mark.parametrize("case", CASES)
def test_json_output_matches_its_schema(case: str, diff: Diff) -> None:
    output, code = diff(case, "json")
    report = json.loads(output)
    _json_validator().validate(report)
    expected_code, verdict, fid = EXPECTED[case]
    assert (code, report["exit_code"], report["verdict"]) == (expected_code, expected_code,
                                                              verdict)
    assert [c["id"] for c in report["changes"]] == [fid]


def test_json_schema_covers_acknowledgements_notes_and_bookkeeping() -> None:
    report = json.loads(render(ACKNOWLEDGED, "json"))
    _json_validator().validate(report)
    assert report["changes"][0]["acknowledged"].startswith("shipped in Zed")
    assert report["notes"] == ["acknowledgement for GET /flavors is unused"]


def test_json_schema_rejects_an_undocumented_field() -> None:
    report = json.loads(render(ACKNOWLEDGED, "json"))
    report["changes"][0]["severity"] = "high"
    with pytest.raises(jsonschema.ValidationError):
        _json_validator().validate(report)


# -- sarif ---------------------------------------------------------------------------------

def _sarif_validator() -> jsonschema.protocols.Validator:
    if not SARIF_SCHEMA.exists():
        pytest.skip(f"the official SARIF schema is not here: {SARIF_SCHEMA}")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)  # draft-04, as it says


@pytest.mark.parametrize("case", CASES)
def test_sarif_matches_the_official_schema(case: str, diff: Diff) -> None:
    validator = _sarif_validator()
    output, _ = diff(case, "sarif")
    log = json.loads(output)
    validator.validate(log)
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "needs-microversion" and driver["version"]
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == [rule.id for rule in REPORT_RULES]
    for descriptor, rule in zip(driver["rules"], REPORT_RULES, strict=True):
        assert descriptor["shortDescription"]["text"] == rule.question
        assert descriptor["fullDescription"]["text"] != rule.question  # from the docstring
        assert "What it checks" in descriptor["help"]["text"]
    [result] = run["results"]
    assert result["properties"]["findingId"] == EXPECTED[case][2]
    assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert result["level"] == {"provided": "warning", "not-provided": "error",
                               "bug-fix": "warning"}[case]
    # The same place as the json format's new "file:line" (the file alone when the line is
    # unknown): for a removal, the place in the new file it was removed from.
    [change] = json.loads(diff(case, "json")[0])["changes"]
    place = change["new_location"] or change["removed_from"]
    assert place and (change["new_location"] or change["change"] == "removed")
    file, _, line = place.rpartition(":") if ":" in place else (place, "", "")
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == file  # relative, as given
    assert physical.get("region") == ({"startLine": int(line)} if line else None)


def test_sarif_acknowledged_finding_is_suppressed_and_valid() -> None:
    validator = _sarif_validator()
    log = json.loads(render(ACKNOWLEDGED, "sarif"))
    validator.validate(log)
    acknowledged, failing = log["runs"][0]["results"]
    assert acknowledged["suppressions"] == [{
        "kind": "external", "status": "accepted",
        "justification": "shipped in Zed by mistake; accepted by the API SIG"}]
    assert (acknowledged["level"], failing["level"]) == ("warning", "error")
    assert acknowledged["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "api/new.yaml"}, "region": {"startLine": 12}}
    assert "locations" not in failing  # nothing to point at: no location at all


# -- junit ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_junit_parses_with_one_testcase_per_change(case: str, diff: Diff) -> None:
    output, _ = diff(case, "junit")
    root = ET.fromstring(output.encode())
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    failures = 1 if case == "not-provided" else 0
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == \
        ("1", str(failures), "0")
    assert len(cases) == 1 and len(cases[0].findall("failure")) == failures
    path = "/servers/{id}" if case == "provided" else "/servers/{server_id}"
    assert cases[0].get("classname") == f"GET {path}"
    assert cases[0].get("name", "").startswith(EXPECTED[case][2])


def test_junit_skips_acknowledged_and_survives_control_characters() -> None:
    report = replace(ACKNOWLEDGED, findings=(
        *ACKNOWLEDGED.findings,
        _finding("attribute-changed", message="enum changed from 'a\x07' to '<b>&'")))
    root = ET.fromstring(render(report, "junit").encode())
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "2", "1")
    acknowledged = suite.findall("testcase")[0]
    assert acknowledged.get("name") == "attribute-added /server/locked (200)"
    skipped = acknowledged.find("skipped")
    assert skipped is not None and "shipped in Zed" in skipped.get("message", "")
    failure = suite.findall("testcase")[2].find("failure")
    assert failure is not None and failure.get("message") == "enum changed from 'a\ufffd' to '<b>&'"


# -- github --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_github_lines_are_workflow_commands(case: str, diff: Diff) -> None:
    output, _ = diff(case, "github")
    lines = output.splitlines()
    assert all(WORKFLOW_COMMAND.match(line) for line in lines), output
    level = {"provided": "warning", "not-provided": "error", "bug-fix": "warning"}[case]
    assert lines[0].startswith(f"::{level} file=")
    assert lines[-1].startswith("::notice title=needs-microversion::")


def test_github_escapes_per_the_workflow_command_rules() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    report = _report(_finding(location=Location("specs/a,b:c.yaml", 3),
                              message="first line\nsecond: 100%"))
    output = render(report, "github")
    assert all(WORKFLOW_COMMAND.match(line) for line in output.splitlines()), output
    assert output.startswith("::error file=specs/a%2Cb%3Ac.yaml,line=3,title=attribute-added%3A ")
    assert "first line%0Asecond: 100%25" in output


def test_github_shows_acknowledged_as_warning() -> None:
    lines = render(ACKNOWLEDGED, "github").splitlines()
    assert lines[0].startswith("::warning file=api/new.yaml,line=12,")
    assert "acknowledged%3A" not in lines[0] and "acknowledged: shipped in Zed" in lines[0]
    assert lines[1].startswith("::error title=")  # no location: no file property


# -- markdown ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_markdown_has_the_verdict_and_the_table(case: str, diff: Diff) -> None:
    output, _ = diff(case, "markdown")
    words = {"provided": "Yes, you need a microversion", "not-provided":
             "Yes, you need a microversion", "bug-fix": "No microversion needed, it's a bug"}
    assert output.startswith(f"## {words[case]}\n")
    assert "| Finding | Operation | What changed | Verdict | Gated | Location |" in output
    assert f"| `{EXPECTED[case][2]}` |" in output


def test_markdown_checklist_notes_warnings_and_escaping() -> None:
    report = replace(ACKNOWLEDGED, findings=(
        *ACKNOWLEDGED.findings, _finding("attribute-changed", message="enum a|b <script>")))
    output = render(report, "markdown")
    assert "required, not provided, acknowledged: shipped in Zed" in output
    assert "- [x] release note" in output and "- [ ] api-ref version history" in output
    assert "- [ ] python-novaclient (not checked)" in output
    assert "Next microversion: 2.6" in output
    assert "### Notes\n\n- acknowledgement for GET /flavors is unused" in output
    assert "### Warnings\n\n- new.yaml: not valid OpenAPI" in output
    assert r"enum a\|b \<script\>" in output
    rows = [line for line in output.splitlines() if line.startswith("| ")]
    assert {len(re.split(r"(?<!\\)\|", line)) for line in rows} == {8}  # six cells each


# -- text and auto -------------------------------------------------------------------------

def test_text_has_no_colour_when_not_a_terminal(run_cli: Callable[..., tuple[int, str, str]],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, out, _ = run_cli("diff", str(ROOT / "examples" / "old.yaml"),
                           str(ROOT / "examples" / "new.yaml"), "--no-validate")
    assert code == 0 and not ANSI.search(out)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_wanted(_Terminal()) and not colour_wanted(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_wanted(_Terminal())
    assert ANSI.search(render_text(ACKNOWLEDGED, colour=True))
    assert not ANSI.search(render_text(ACKNOWLEDGED, colour=False))


def test_text_shows_acknowledgements_and_notes() -> None:
    output = render(ACKNOWLEDGED, "text", colour=False)
    assert "      acknowledged: shipped in Zed by mistake" in output
    assert "note: acknowledgement for GET /flavors is unused" in output


def test_auto_is_github_under_github_actions(monkeypatch: pytest.MonkeyPatch, diff: Diff) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    output, _ = diff("not-provided", "auto")
    assert output.startswith("::error ")
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    output, _ = diff("not-provided", "auto")
    assert output.startswith("Yes, you need a microversion")


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "auto"])
def test_every_format_shows_acknowledged_findings(fmt: str) -> None:
    assert "shipped in Zed by mistake" in render(ACKNOWLEDGED, fmt, colour=False)


def test_unknown_format_is_an_input_error() -> None:
    with pytest.raises(InputError, match="one of: text, json"):
        render(ACKNOWLEDGED, "yaml")


# -- what a reviewer reads first (issue 10: a real pre-commit run on nova's api-ref) ------------

def _gated(at: Version, location: Location | None = NEW_LOCATION) -> Finding:
    finding = _finding(location=location)
    return replace(finding, change=replace(finding.change, gated=at))


def test_a_gated_change_without_the_bump_asks_for_the_bump() -> None:
    """Gated at the next microversion, the maximum not raised: the document is right, only
    the version file is missing; "visible to existing microversions" would be wrong."""
    report = _report(_gated(Version(2, 6)),
                     bookkeeping=Bookkeeping("2.5", "2.5", False, "2.6"))
    text = render(report, "text")
    assert "Yes, you need a microversion (max microversion 2.5 -> 2.5, not raised)" in text
    assert ("not provided: the changes are gated on 2.6, but the maximum microversion is 2.5: "
            "raise it to 2.6") in text
    assert "visible to existing microversions" not in text
    assert "required, not provided: the maximum is still 2.5" in render(report, "github")
    # Not gated at all: visible to every client that asks for 2.5.
    ungated = render(_report(_finding()), "text")
    assert "not provided: these changes are visible to existing microversions" in ungated


def test_the_header_names_the_version_file_and_the_released_maximum() -> None:
    """Changes count from the released maximum (2.100) while the version file says 2.101:
    the header says both, not "2.100 -> 2.101, bumped" for a file that did not move."""
    report = _report(_gated(Version(2, 102)), old_version=Version(2, 100),
                     new_version=Version(2, 101),
                     bookkeeping=Bookkeeping("2.101", "2.101", False, "2.102"))
    assert "(max microversion 2.101 -> 2.101, not raised; released 2.100)" in \
        render(report, "text")
    assert "version file: 2.101 -> 2.101 (not raised)" in render(report, "text")
    assert "Max microversion 2.101 -> 2.101, not raised; released 2.100." in \
        render(report, "markdown")


def test_github_annotations_name_the_work_tree_file_of_git_inputs() -> None:
    """`HEAD~1:api-ref/source/a.inc` is `api-ref/source/a.inc` in the checkout GitHub
    annotates; warnings that name a file and line become annotations on it."""
    report = _report(_finding(location=Location("3f2a9c1:api-ref/source/servers.inc", 36)),
                     warnings=("origin/main:api-ref/source/a.inc:12: 2 sections document "
                               "operation GET /x (also b.inc:4); merged",
                               "the new maximum is below the old"))
    lines = render(report, "github").splitlines()
    assert lines[0].startswith("::error file=api-ref/source/servers.inc,line=36,")
    assert lines[1] == ("::warning file=api-ref/source/a.inc,line=12,title=needs-microversion "
                        "warning::2 sections document operation GET /x (also b.inc:4); merged")
    assert lines[2] == "::warning title=needs-microversion warning::the new maximum is below " \
                       "the old"
    sarif = json.loads(render(report, "sarif"))
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "api-ref/source/servers.inc"
    assert 'file="api-ref/source/servers.inc"' in render(report, "junit")


def test_check_output_matches_the_check_schema(tmp_path, monkeypatch, run_cli) -> None:
    """Real `check --format json` output, a contract change and a document unchanged, is
    valid against the wrapper's own schema (each report against the report's)."""
    from gitrepo import quiet_git  # noqa: F401  (its autouse fixture is imported with it)
    from repositories import NOVA_PARAMETERS, NOVA_SERVERS, nova_like

    repo = nova_like(tmp_path / "r")
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace(
        "  - status: status\n", "  - status: status\n  - pinned: pinned\n"),
        "api-ref/source/parameters.yaml": NOVA_PARAMETERS + "pinned:\n  description: P.\n"
        "  in: body\n  required: true\n  type: boolean\n",
        "nova/api/openstack/compute/servers.py": "# pinned\n"})
    monkeypatch.chdir(repo.top)
    for args in (("--from-ref", "HEAD~1", "--to-ref", "HEAD"), ("--base", "HEAD")):
        code, out, err = run_cli("check", *args, "--format", "json", "--no-validate")
        document = json.loads(out)
        _json_validator("check.schema.json").validate(document)
        assert document["exit_code"] == code and document["documents"], err
    wrong = json.loads(out)
    wrong["documents"][0]["report"]["severity"] = "high"
    with pytest.raises(jsonschema.ValidationError):
        _json_validator("check.schema.json").validate(wrong)


def test_text_and_json_state_the_same_maxima(tmp_path, monkeypatch, run_cli) -> None:
    """A change on top of a merged, unreleased microversion: judged from the released
    maximum (it may join it), stated the same way in every format (manila 0d3ec32b7)."""
    from gitrepo import quiet_git  # noqa: F401
    from repositories import NOVA_SERVERS, nova_like

    repo = nova_like(tmp_path / "r")  # 1.0.0 ships 2.1
    repo.commit({"nova/api/openstack/compute/servers.py": "# 2.2\n"}, max_version="2.2")
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace("Show Server", "Show")})
    monkeypatch.chdir(repo.top)
    args = ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate")
    _, text, _ = run_cli(*args)
    _, out, _ = run_cli(*args, "--format", "json")
    report = json.loads(out)["documents"][0]["report"]
    assert "max microversion 2.2 -> 2.2, not raised; released 2.1" in text
    assert (report["old_version"], report["new_version"], report["bumped"],
            report["released_version"]) == ("2.2", "2.2", False, "2.1")
    _, markdown, _ = run_cli(*args, "--format", "markdown")
    assert "2.2 -> 2.2, not raised; released 2.1" in markdown


def test_standing_warnings_are_summed_up_and_annotations_stay_on_the_change(
        tmp_path, monkeypatch, run_cli) -> None:
    """A file the change does not touch warns at every run: one line counts it (the switch
    lists it), and GitHub annotations go on the change's own files only."""
    from gitrepo import quiet_git  # noqa: F401
    from repositories import with_standing_warning

    repo = with_standing_warning(tmp_path / "r")
    monkeypatch.chdir(repo.top)
    args = ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate")
    code, out, err = run_cli(*args, "--all-warnings")
    assert code == 0 and "flavors.inc" in err, err
    listed = [line for line in err.splitlines() if "flavors.inc" in line]
    code, out, err = run_cli(*args)
    assert "flavors.inc" not in err and f"{len(listed)} warning(s) about files this change " \
        "does not touch" in err, err
    code, out, err = run_cli(*args, "--format", "github")
    annotated = re.findall(r"file=([^,:]+)", out)
    assert all(name == "api-ref/source/servers.inc" for name in annotated), out
    assert "does not touch" in out
