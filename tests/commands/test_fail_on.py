"""`--fail-on required|warning|never`: what makes exit code 1, set on the command line or in
the configuration, and every format that states an exit code or pass/fail agrees with the
process."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from gitrepo import one_error_line, quiet_git  # noqa: F401  (its autouse fixture)
from repositories import with_standing_warning

from needs_microversion.model.change import Change
from needs_microversion.model.fail_on import FAIL_ON, counts_as_warning, exit_code
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.verdict import Finding, Report
from needs_microversion.model.versions import Version


def _openapi(responses: dict[str, Any]) -> str:
    return json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1.0"},
        "paths": {"/servers/{server_id}": {"get": {
            "parameters": [{"name": "server_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": responses}}}})


def _ok(*names: str) -> dict[str, Any]:
    return {"description": "OK", "content": {"application/json": {"schema": {
        "type": "object", "properties": {name: {"type": "string"} for name in names}}}}}


BASE = _openapi({"200": _ok("id")})
PAIRS = {  # case -> (old, new, extra arguments)
    "clean": (BASE, BASE, ()),
    # A claim on no operation: a warning of the report (its JSON `warnings`).
    "warned": (BASE, BASE, ("--silent-failure", "POST /nowhere: ignored")),
    # A documented 500 goes away: a bug fix, a finding a reviewer should look at.
    "bug-fix": (_openapi({"200": _ok("id"), "500": {"description": "Oops"}}), BASE, ()),
    # An attribute added with no microversion: required, not provided.
    "not-provided": (BASE, _openapi({"200": _ok("id", "locked")}), ()),
}
EXPECTED = {  # case -> exit code under required, warning, never
    "clean": (0, 0, 0),
    "warned": (0, 1, 0),
    "bug-fix": (0, 1, 0),
    "not-provided": (1, 1, 0),
}


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a case's documents in an empty folder (no configuration above) and go there."""
    monkeypatch.chdir(tmp_path)

    def write(case: str) -> tuple[str, ...]:
        old, new, extra = PAIRS[case]
        (tmp_path / "old.json").write_text(old)
        (tmp_path / "new.json").write_text(new)
        return ("diff", "old.json", "new.json", "--no-validate", *extra)

    return write


@pytest.mark.parametrize("fail_on", FAIL_ON)
@pytest.mark.parametrize("case", sorted(PAIRS))
def test_exit_code_and_every_format_agree(pair, run_cli, case: str, fail_on: str) -> None:
    args = (*pair(case), "--fail-on", fail_on)
    expected = EXPECTED[case][FAIL_ON.index(fail_on)]
    code, out, err = run_cli(*args, "--format", "json")
    report = json.loads(out)
    assert (code, report["exit_code"], report["fail_on"]) == (expected, expected, fail_on), err
    code, out, _ = run_cli(*args, "--format", "sarif")
    properties = json.loads(out)["runs"][0]["properties"]
    assert (code, properties["exitCode"], properties["failOn"]) == (expected, expected, fail_on)
    code, out, _ = run_cli(*args, "--format", "junit")
    suites = ET.fromstring(out)
    assert code == expected and (suites.get("failures") != "0") == bool(expected), out
    [exit_property] = [p for p in suites.iter("property") if p.get("name") == "exit_code"]
    assert exit_property.get("value") == str(expected)
    code, out, _ = run_cli(*args)
    assert code == expected
    # A passing verdict beside exit code 1 says why.
    assert ("fail the run (--fail-on warning)" in out) == (
        fail_on == "warning" and expected == 1 and case != "not-provided"), out


def test_the_default_is_required(pair, run_cli) -> None:
    for case, (expected, _, _) in EXPECTED.items():
        code, out, _ = run_cli(*pair(case), "--format", "json")
        assert (code, json.loads(out)["fail_on"]) == (expected, "required"), case


def test_under_never_junit_skips_what_would_have_failed(pair, run_cli) -> None:
    code, out, _ = run_cli(*pair("not-provided"), "--fail-on", "never", "--format", "junit")
    [skipped] = ET.fromstring(out).iter("skipped")
    assert code == 0 and "not failing the run (--fail-on never)" in (skipped.get("message") or "")


def test_under_warning_each_report_warning_is_a_failing_testcase(pair, run_cli) -> None:
    code, out, _ = run_cli(*pair("warned"), "--fail-on", "warning", "--format", "junit")
    [case] = [c for c in ET.fromstring(out).iter("testcase") if c.get("classname") == "warnings"]
    assert code == 1 and case.find("failure") is not None
    assert "neither document has an operation POST /nowhere" in (case.get("name") or "")


def test_errors_keep_their_codes_whatever_fails_the_run(pair, run_cli) -> None:
    code, _, err = run_cli("diff", "missing.json", "new.json", "--fail-on", "never")
    assert code == 2 and "missing.json" in one_error_line(err)
    code, _, err = run_cli(*pair("clean"), "--fail-on", "sometimes")
    assert code == 2 and "'sometimes' is not one of" in one_error_line(err)


@pytest.mark.parametrize(("name", "text"), [
    (".needs-microversion.yaml", "fail-on: warning\n"),
    ("pyproject.toml", '[tool.needs-microversion]\nfail-on = "warning"\n'),
])
def test_the_configuration_sets_it_and_the_command_line_wins(pair, run_cli, tmp_path: Path,
                                                             name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    code, out, _ = run_cli(*pair("bug-fix"), "--format", "json")
    assert (code, json.loads(out)["fail_on"]) == (1, "warning")
    code, out, _ = run_cli(*pair("bug-fix"), "--format", "json", "--fail-on", "required")
    assert (code, json.loads(out)["fail_on"]) == (0, "required")


def test_a_bad_configured_value_is_exit_2_naming_the_file_and_key(pair, run_cli,
                                                                  tmp_path: Path) -> None:
    (tmp_path / ".needs-microversion.yaml").write_text("fail-on: always\n")
    code, _, err = run_cli(*pair("clean"))
    assert code == 2 and ".needs-microversion.yaml: 'fail-on' must be one of required, " \
        "warning, never, got 'always'" in one_error_line(err)
    (tmp_path / ".needs-microversion.yaml").write_text(
        "services:\n  - name: a\n    documents: [x]\n    fail-on: never\n")
    code, _, err = run_cli(*pair("clean"))
    assert code == 2 and "unknown key 'fail-on'" in one_error_line(err)


def test_check_fails_on_the_warnings_it_sums_up(tmp_path: Path, monkeypatch, run_cli) -> None:
    """A warning about a file the change does not touch stands in the repository: the one
    line that counts it fails `--fail-on warning` (until a baseline silences it)."""
    repo = with_standing_warning(tmp_path / "r")
    monkeypatch.chdir(repo.top)
    args = ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate")
    for fail_on, expected in (("required", 0), ("warning", 1), ("never", 0)):
        code, out, err = run_cli(*args, "--format", "json", "--fail-on", fail_on)
        document = json.loads(out)
        assert (code, document["exit_code"], document["fail_on"]) == (
            expected, expected, fail_on), err
        assert document["documents"][0]["report"]["exit_code"] == expected
    code, out, err = run_cli(*args, "--fail-on", "warning")
    assert code == 1 and "does not touch" in err and "fail the run" in out


# -- what counts, on records ---------------------------------------------------------------

def _finding(verdict: str, *, acknowledged: str | None = None, review: bool = False,
             gated: Version | None = None) -> Finding:
    change = Change("response-body", "added", "", "GET /servers/{id}",
                    OpKey("GET", "/servers/{}"), pointer="/server/locked", gated=gated)
    return Finding("some-id", "attribute", "Q?", verdict, change,  # type: ignore[arg-type]
                   "message", acknowledged, review)


def _report(*findings: Finding, warnings: tuple[str, ...] = ()) -> Report:
    return Report("old", "new", Version(2, 1), Version(2, 2), findings, warnings=warnings)


@pytest.mark.parametrize(("finding", "counts"), [
    (_finding("bug-fix"), True),
    (_finding("not-required", review=True), True),
    (_finding("not-required"), False),
    (_finding("bug-fix", acknowledged="accepted"), False),
    (_finding("required", gated=Version(2, 2)), False),  # provided: the tool's pass
    (_finding("required", acknowledged="accepted"), False),
], ids=["bug-fix", "review", "not-required", "bug-fix-acknowledged", "required-provided",
        "required-acknowledged"])
def test_which_findings_count_as_warnings(finding: Finding, counts: bool) -> None:
    report = _report(finding)
    assert counts_as_warning(finding) is counts
    assert (exit_code(report, "required"), exit_code(report, "warning"),
            exit_code(report, "never")) == (0, int(counts), 0)


def test_a_required_change_not_provided_fails_unless_never() -> None:
    report = _report(_finding("required"))
    assert [exit_code(report, fail_on) for fail_on in FAIL_ON] == [1, 1, 0]
    warned = _report(warnings=("api.yaml:3: something odd",))
    assert [exit_code(warned, fail_on) for fail_on in FAIL_ON] == [0, 1, 0]
