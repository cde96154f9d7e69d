"""A change to a shared schema, written once for people (text, markdown, GitHub annotations)
with the operations it reaches; the machine formats keep one finding per operation."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import Location, OpKey
from needs_microversion.model.verdict import REQUIRED, Finding, Report
from needs_microversion.model.versions import Version
from needs_microversion.report.common import reaches

RunCli = Callable[..., tuple[int, str, str]]
PATHS = ("/flavors", "/images", "/keypairs", "/servers", "/volumes")


def _spec(error_properties: dict[str, Any], *, locked: bool = False) -> str:
    """Five operations answer errors with one shared schema; /servers also has its own body."""
    def get(path: str) -> dict[str, Any]:
        own = {"id": {"type": "string"}, **({"locked": {"type": "boolean"}}
                                           if locked and path == "/servers" else {})}
        return {"responses": {
            "200": {"description": "OK", "content": {"application/json": {"schema": {
                "type": "object", "properties": own}}}},
            "default": {"description": "error", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Error"}}}}}}
    return json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1.0.0"},
        "paths": {path: {"get": get(path)} for path in PATHS},
        "components": {"schemas": {"Error": {"type": "object",
                                             "properties": error_properties}}},
    }, indent=2)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(_spec({"message": {"type": "string"}}), encoding="utf-8")
    new.write_text(_spec({"message": {"type": "string"}, "code": {"type": "integer"}},
                         locked=True), encoding="utf-8")
    return str(old), str(new)


def test_text_writes_a_shared_change_once_under_the_operations_it_reaches(
        run_cli: RunCli, pair: tuple[str, str]) -> None:
    code, out, _ = run_cli("diff", *pair, "--no-validate")
    assert code == 1
    assert out.count("[attribute-added] response attribute /code (status default)") == 1
    assert "\nGET /flavors, GET /images, GET /keypairs and 2 more operations\n" in out
    # The operation's own change comes under its name alone, after the shared one (GET
    # /servers stands after GET /flavors, where the shared change is written).
    assert "\nGET /servers\n  [attribute-added] response attribute /locked (status 200)" in out
    assert out.index("/code (status default)") < out.index("\nGET /servers\n")


def test_machine_formats_keep_one_finding_per_operation(
        run_cli: RunCli, pair: tuple[str, str]) -> None:
    _, out, _ = run_cli("diff", *pair, "--no-validate", "--format", "json")
    shared = [c["operation"] for c in json.loads(out)["changes"] if c["pointer"] == "/code"]
    assert shared == [f"GET {path}" for path in PATHS]


def test_markdown_and_github_write_it_once_naming_the_operations(
        run_cli: RunCli, pair: tuple[str, str]) -> None:
    _, markdown, _ = run_cli("diff", *pair, "--no-validate", "--format", "markdown")
    rows = [line for line in markdown.splitlines() if "/code" in line]
    assert len(rows) == 1 and "GET /flavors, GET /images, GET /keypairs and 2 more" in rows[0]
    _, github, _ = run_cli("diff", *pair, "--no-validate", "--format", "github")
    annotations = [line for line in github.splitlines() if "/code" in line]
    assert len(annotations) == 1
    assert "::GET /flavors, GET /images, GET /keypairs and 2 more operations: " in annotations[0]


# -- the grouping itself ---------------------------------------------------------------------

def _finding(operation: str, message: str, *, line: int = 7, gated: Version | None = None
             ) -> Finding:
    change = Change("response-body", "added", "", operation, OpKey("GET", operation[4:]),
                    pointer="/x", status="200", new_location=Location("new.yaml", line),
                    gated=gated)
    return Finding("attribute-added", "attribute", "Did we add or remove an attribute?",
                   REQUIRED, change, message)


def _report(*findings: Finding) -> Report:
    return Report("old.yaml", "new.yaml", None, None, findings)


def test_a_few_operations_are_all_named() -> None:
    report = _report(_finding("GET /a", "x added"), _finding("GET /b", "x added"))
    [reach] = reaches(report)
    assert reach.heading == "GET /a, GET /b" and reach.findings == report.findings[:1]


def test_findings_that_differ_in_anything_written_stay_apart() -> None:
    """Same words, another line or another gate: not the same change."""
    report = _report(_finding("GET /a", "x added"), _finding("GET /b", "x added", line=8),
                     _finding("GET /c", "x added", gated=Version(2, 3)))
    assert [r.operations for r in reaches(report)] == [("GET /a",), ("GET /b",), ("GET /c",)]


def test_each_set_of_operations_is_written_where_its_first_operation_stands() -> None:
    shared, own = "shared x added", "own y added"
    report = _report(_finding("GET /a", own), _finding("GET /a", shared),
                     _finding("GET /b", shared), _finding("GET /b", own, line=9),
                     _finding("GET /c", shared))
    assert [(r.operations, [f.message for f in r.findings]) for r in reaches(report)] == [
        (("GET /a",), [own]), (("GET /a", "GET /b", "GET /c"), [shared]),
        (("GET /b",), [own])]


def test_each_change_is_written_once() -> None:
    findings = [_finding(f"GET /{op}", f"{name} added", line=line)
                for op in "abcdef" for name, line in (("x", 1), ("y", 2)) if op < "e" or name == "y"]
    written = [f for reach in reaches(_report(*findings)) for f in reach.findings]
    assert len(written) == 2 and {f.message for f in written} == {"x added", "y added"}
