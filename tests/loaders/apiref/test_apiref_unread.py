"""A table row whose reference parameters.yaml does not define is read as nothing (with a
warning), but the table did list it: the loader records its name per file, and defining it
later documents an element the old table already named (catch-up `listed-undefined`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repositories import IRONIC_NODES, IRONIC_PARAMETERS

from needs_microversion.loaders.apiref.reader import load_apiref

UNREAD = "x-needs-microversion-unread"
DRIVER = "    - driver: node_driver\n"
DEFINITION = "node_driver:\n  description: The driver.\n  in: body\n  required: true\n" \
             "  type: string\n"


def _tree(top: Path, *, rows: str = DRIVER, defined: bool = False) -> Path:
    files = {
        "index.rst": ".. rest_expand_all::\n\n.. include:: nodes.inc\n",
        "nodes.inc": IRONIC_NODES.replace("    - name: node_name\n",
                                          "    - name: node_name\n" + rows),
        "parameters.yaml": IRONIC_PARAMETERS + (DEFINITION if defined else ""),
    }
    top.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (top / name).write_text(text)
    return top


def test_the_names_of_undefined_rows_are_recorded_per_file(tmp_path: Path) -> None:
    result = load_apiref(_tree(tmp_path))
    assert result.document["info"][UNREAD] == {"nodes.inc": ["driver"]}
    assert any("no definition for 'node_driver'" in w for w in result.warnings)


def test_every_row_defined_nothing_recorded(tmp_path: Path) -> None:
    assert UNREAD not in load_apiref(_tree(tmp_path, defined=True)).document["info"]


@pytest.mark.parametrize(("old_rows", "verdict", "finding"), [
    pytest.param(DRIVER, "not-required", "listed-undefined", id="listed-before"),
    pytest.param("", "required", "attribute-added", id="never-listed"),
])
def test_defining_a_row_the_old_table_listed(tmp_path: Path, run_cli, old_rows: str,
                                             verdict: str, finding: str) -> None:
    old = _tree(tmp_path / "old", rows=old_rows)
    new = _tree(tmp_path / "new", defined=True)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert (report["verdict"], code) == (verdict, 0 if verdict == "not-required" else 1)
    assert [c["id"] for c in report["changes"]] == [finding]
