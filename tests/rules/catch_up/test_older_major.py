"""An api-ref tree documenting v2 beside v3 (cinder): v2 is frozen and takes no microversions,
so a change documented for it, and the same change documented for v3, catch up with what the
API did (`older-major-version`); a change to v3 alone is judged as usual. Two cinder-like
trees, read end to end. An element v3 gains with no microversion that v2 documented before,
and still does, is catch-up too: v3 began as v2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from repositories import cinder_tree

NEW_ROW = "   - id: id\n   - bootable: bootable\n"
NEW_PARAMETER = ("bootable:\n  description: Whether it boots.\n  in: body\n  required: true\n"
                 "  type: boolean\n")


def _tree(top: Path, changed: tuple[str, ...]) -> Path:
    files = {"index.rst": "API\n===\n\n.. toctree::\n\n   v2/index\n   v3/index\n",
             "status.yaml": "    200:\n      default: OK\n    404:\n      default: Not found\n"}
    for version in ("v2", "v3"):
        for name, text in cinder_tree(version).items():
            if version in changed:
                text = text.replace("   - id: id\n", NEW_ROW) if name.endswith(".inc") \
                    else text + NEW_PARAMETER if name.endswith("parameters.yaml") else text
            files[name.removeprefix("api-ref/source/")] = text
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    return top


@pytest.mark.parametrize(("changed", "expected", "verdict"), [
    pytest.param(("v2", "v3"), {"v2": "older-major-version", "v3": "older-major-version"},
                 "not-required", id="documented-for-both"),
    pytest.param(("v2",), {"v2": "older-major-version"}, "not-required", id="v2-alone"),
    pytest.param(("v3",), {"v3": "attribute-added"}, "required", id="v3-alone"),
])
def test_a_row_added_beside_a_frozen_major_version(tmp_path: Path, run_cli,
                                                   changed: tuple[str, ...],
                                                   expected: dict[str, str], verdict: str) -> None:
    old, new = _tree(tmp_path / "old", ()), _tree(tmp_path / "new", changed)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    found = {c["operation"].split("/")[1]: c["id"] for c in report["changes"]}
    assert (found, report["verdict"]) == (expected, verdict)
    assert code == (0 if verdict == "not-required" else 1)


def test_a_row_v2_already_had_added_to_v3(tmp_path: Path, run_cli) -> None:
    old, new = _tree(tmp_path / "old", ("v2",)), _tree(tmp_path / "new", ("v2", "v3"))
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert [(c["id"], c["verdict"]) for c in report["changes"]] == [
        ("older-major-version", "not-required")]
    assert "v3 began as v2" in report["changes"][0]["message"] and code == 0

def _operation(attributes: tuple[str, ...] = (), query: tuple[str, ...] = (),
               codes: tuple[str, ...] = ("200",)) -> dict[str, Any]:
    body = {"type": "object", "properties": {"backup": {"type": "object", "properties": {
        "id": {"type": "string"}, **{name: {"type": "string"} for name in attributes}}}}}
    responses: dict[str, Any] = {code: {"description": "x"} for code in codes}
    responses["200"] = {"description": "The backup.",
                        "content": {"application/json": {"schema": body}}}
    return {"get": {"parameters": [
        {"name": "backup_id", "in": "path", "required": True, "schema": {"type": "string"}},
        *({"name": name, "in": "query", "schema": {"type": "string"}} for name in query)],
        "responses": responses}}


def _diff(tmp_path: Path, run_cli, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    files = []
    for name, paths in (("old.yaml", old), ("new.yaml", new)):
        document = {"openapi": "3.0.3", "info": {"title": "block storage", "version": "3.60"},
                    "paths": paths}
        (tmp_path / name).write_text(yaml.safe_dump(document))
        files.append(str(tmp_path / name))
    _, out, _ = run_cli("diff", *files, "--format", "json", "--no-validate", "--catch-up")
    return sorted(c["id"] for c in json.loads(out)["changes"])


V2, V3 = "/v2/backups/{backup_id}", "/v3/backups/{backup_id}"


@pytest.mark.parametrize(("v2", "v3_before", "v3_after"), [
    pytest.param({"attributes": ("size",)}, {}, {"attributes": ("size",)}, id="attribute"),
    pytest.param({"query": ("fields",)}, {}, {"query": ("fields",)}, id="query-parameter"),
    pytest.param({"codes": ("200", "409")}, {}, {"codes": ("200", "409")}, id="status-code"),
])
def test_what_v2_documents_is_catch_up_in_v3(tmp_path: Path, run_cli, v2: dict[str, Any],
                                            v3_before: dict[str, Any],
                                            v3_after: dict[str, Any]) -> None:
    old = {V2: _operation(**v2), V3: _operation(**v3_before)}
    new = {V2: _operation(**v2), V3: _operation(**v3_after)}
    assert _diff(tmp_path, run_cli, old, new) == ["older-major-version"]


@pytest.mark.parametrize(("v2_before", "v2_after", "v3_after", "expected"), [
    # v2 never had it: a v3 addition like any other
    pytest.param({}, {}, {"attributes": ("size",)}, ["attribute-added"], id="v2-lacks-it"),
    # v2 gains it in the same commit, the same way: already judged as the same change
    pytest.param({}, {"query": ("fields",)}, {"query": ("fields",)},
                 ["older-major-version", "older-major-version"], id="both-gain-it"),
    # v2 drops it while v3 gains it: v2's old document is no evidence for v3
    pytest.param({"attributes": ("size",)}, {}, {"attributes": ("size",)},
                 ["attribute-added", "older-major-version"], id="v2-drops-it"),
])
def test_what_v2_does_not_keep_is_no_evidence(tmp_path: Path, run_cli, v2_before: dict[str, Any],
                                             v2_after: dict[str, Any], v3_after: dict[str, Any],
                                             expected: list[str]) -> None:
    old = {V2: _operation(**v2_before), V3: _operation()}
    new = {V2: _operation(**v2_after), V3: _operation(**v3_after)}
    assert _diff(tmp_path, run_cli, old, new) == expected


def test_another_type_in_v2_is_no_evidence(tmp_path: Path, run_cli) -> None:
    old = {V2: _operation(attributes=("size",)), V3: _operation()}
    new = {V2: _operation(attributes=("size",)), V3: _operation(attributes=("size",))}
    new[V3]["get"]["responses"]["200"]["content"]["application/json"]["schema"][
        "properties"]["backup"]["properties"]["size"] = {"type": "integer"}
    assert _diff(tmp_path, run_cli, old, new) == ["attribute-added"]
