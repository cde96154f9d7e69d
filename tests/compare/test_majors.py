"""An api-ref tree documenting v2 beside v3 (cinder): v2 is frozen and takes no microversions,
so a change documented for it, and the same change documented for v3, catch up with what the
API did (`older-major-version`); a change to v3 alone is judged as usual. Two cinder-like
trees, read end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
