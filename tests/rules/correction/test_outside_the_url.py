"""A path row naming no placeholder of its URL (cyborg's `device_profile_uuid` under
`/device_profiles/{device_profile_name_or_uuid}`): no client sends it, so adding or dropping
the row corrects the document (rule correction, `outside-the-url`) where the document gates
its changes by microversion; where it writes none, every change counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repositories import IRONIC_NODES, IRONIC_PARAMETERS

STRAY = "    - node_id: node_id\n"
STRAY_DEFINITION = "node_id:\n  description: The node.\n  in: path\n  required: true\n" \
                   "  type: string\n"
GATED = "node_name:\n  description: The name of the node.\n  in: body\n  required: true\n" \
        "  type: string\n  min_version: 1.5\n"


def _tree(top: Path, *, stray: bool, gated: bool) -> Path:
    nodes = IRONIC_NODES.replace("    - node_ident: node_ident\n",
                                 "    - node_ident: node_ident\n" + (STRAY if stray else ""))
    parameters = IRONIC_PARAMETERS + STRAY_DEFINITION
    if gated:
        parameters = parameters.replace(GATED.replace("  min_version: 1.5\n", ""), GATED)
    top.mkdir(parents=True)
    (top / "index.rst").write_text(".. rest_expand_all::\n\n.. include:: nodes.inc\n")
    (top / "nodes.inc").write_text(nodes)
    (top / "parameters.yaml").write_text(parameters)
    return top


@pytest.mark.parametrize(("gated", "verdict", "finding"), [
    pytest.param(True, "not-required", "outside-the-url", id="gated-document"),
    pytest.param(False, "required", "path-parameter-changed", id="no-microversions"),
])
@pytest.mark.parametrize("added", [True, False], ids=["row-added", "row-dropped"])
def test_a_path_row_the_url_has_no_place_for(tmp_path: Path, run_cli, gated: bool,
                                              verdict: str, finding: str, added: bool) -> None:
    without = _tree(tmp_path / "without", stray=False, gated=gated)
    with_row = _tree(tmp_path / "with", stray=True, gated=gated)
    old, new = (without, with_row) if added else (with_row, without)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert (report["verdict"], code) == (verdict, 0 if verdict == "not-required" else 1)
    assert [(c["id"], c["pointer"]) for c in report["changes"]] == [(finding, "node_id")]
