"""A wrapper only an example implied, gone with the example (ironic's vendor passthru
methods sat inside `lookup` while a sample showed them so): the table's rows did not move,
the guess did. Two small ironic-like api-ref trees, read end to end, and a counter-case
where the attributes now at the top are not the ones the wrapper held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SECTION = """
List Methods
============

.. rest_method:: GET /v1/drivers/{{driver_name}}/vendor_passthru/methods

Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

{rows}
{example}"""
EXAMPLE = """
**Example**

.. literalinclude:: samples/methods-response.json
   :language: javascript
"""
PARAMETERS = """driver_name:
  in: path
  required: true
  type: string
  description: The driver.
async:
  in: body
  required: true
  type: boolean
  description: Whether the method runs asynchronously.
attach:
  in: body
  required: true
  type: boolean
  description: Whether the result is attached.
priority:
  in: body
  required: true
  type: integer
  description: The priority.
"""
ROWS = "  - async: async\n  - attach: attach\n"


def _tree(top: Path, rows: str, sample: dict[str, object] | None) -> Path:
    (top / "samples").mkdir(parents=True)
    (top / "index.rst").write_text("Bare Metal\n==========\n\n.. include:: passthru.inc\n")
    (top / "passthru.inc").write_text(SECTION.format(
        rows=rows, example=EXAMPLE if sample is not None else ""))
    (top / "parameters.yaml").write_text(PARAMETERS)
    if sample is not None:
        (top / "samples" / "methods-response.json").write_text(json.dumps(sample))
    return top


def _diff(run_cli, old: Path, new: Path) -> tuple[int, dict[str, object]]:
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    return code, json.loads(out)


@pytest.mark.parametrize("forward", [True, False], ids=["wrapper-gone", "wrapper-appears"])
def test_rows_an_example_had_wrapped_stay_where_the_table_puts_them(
        tmp_path: Path, run_cli, forward: bool) -> None:
    wrapped = _tree(tmp_path / "wrapped", ROWS, {"lookup": {"async": True, "attach": False}})
    flat = _tree(tmp_path / "flat", ROWS, None)
    code, report = _diff(run_cli, *((wrapped, flat) if forward else (flat, wrapped)))
    changes = report["changes"]
    assert sorted((c["id"], c["pointer"]) for c in changes) == [
        ("nesting-reread", "/async"), ("nesting-reread", "/attach"),
        ("nesting-reread", "/lookup")]
    assert (report["verdict"], code) == ("not-required", 0)


def test_an_attribute_the_wrapper_did_not_hold_is_still_added(tmp_path: Path,
                                                              run_cli) -> None:
    old = _tree(tmp_path / "old", ROWS, {"lookup": {"async": True, "attach": False}})
    new = _tree(tmp_path / "new", ROWS + "  - priority: priority\n", None)
    code, report = _diff(run_cli, old, new)
    ids = {c["pointer"]: c["id"] for c in report["changes"]}
    assert ids["/priority"] == "attribute-added" and ids["/async"] == "nesting-reread"
    assert (report["verdict"], code) == ("required", 1)
