"""What `diff` reads from two api-ref trees before the rules judge: whether the documents
describe a microversioned API. Elements gated on a microversion say so; so does the
version-discovery sample (`GET /`) of a tree that gates nothing yet, listing the API's
microversions (cinder's v3 in 2017). An API without them lists "" there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

VERSIONS = ("Versions\n========\n\n.. rest_method:: GET /\n\nLists the versions.\n\n"
            "Normal response codes: 300\n\n.. literalinclude:: samples/versions.json\n"
            "   :language: javascript\n")
SHOW = ("Volumes\n=======\n\n.. rest_method:: GET /v3/{project_id}/volumes/{volume_id}\n\n"
        "Normal response codes: 200\n\nResponse\n--------\n\n.. rest_parameters:: "
        "parameters.yaml\n\n   - size: size\n")


def _tree(top: Path, size_type: str, version: str) -> Path:
    sample = {"versions": [{"id": "v3.0", "status": "CURRENT", "version": version,
                            "min_version": "3.0" if version else ""}]}
    files = {"index.rst": "API\n===\n\n.. include:: versions.inc\n.. include:: volumes.inc\n",
             "versions.inc": VERSIONS, "volumes.inc": SHOW,
             "samples/versions.json": json.dumps(sample),
             "parameters.yaml": f"size:\n  description: Its size.\n  in: body\n"
                                f"  required: true\n  type: {size_type}\n"}
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    return top


@pytest.mark.parametrize(("version", "expected", "code"), [
    pytest.param("3.27", ("corrected", "not-required"), 0, id="discovery-lists-microversions"),
    pytest.param("", ("attribute-changed", "required"), 1, id="discovery-lists-none"),
])
def test_a_type_fixed_in_a_tree_that_gates_nothing(tmp_path: Path, run_cli, version: str,
                                                    expected: tuple[str, str],
                                                    code: int) -> None:
    old = _tree(tmp_path / "old", "string", version)
    new = _tree(tmp_path / "new", "integer", version)
    got, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    changes = json.loads(out)["changes"]
    assert [(c["id"], c["verdict"]) for c in changes] == [expected] and got == code
