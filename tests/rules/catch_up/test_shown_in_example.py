"""An api-ref row added for a key the old tree's own example already showed documents what the
API returned (catch-up `shown-in-example`); with an example that only shows it now, the row is
a new attribute. Two small ironic-like trees, the sample inside the tree, read end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repositories import IRONIC_NODES, IRONIC_PARAMETERS

DRIVER_ROW = "    - name: node_name\n    - driver: node_driver\n"
DRIVER_PARAMETER = """\
node_driver:
  description: The driver of the node.
  in: body
  required: true
  type: string
"""


def _tree(top: Path, *, row: bool, shown: bool) -> Path:
    files = {
        "index.rst": ".. rest_expand_all::\n\n.. include:: baremetal-api-v1-nodes.inc\n",
        "baremetal-api-v1-nodes.inc": IRONIC_NODES.replace(
            "    - name: node_name\n", DRIVER_ROW if row else "    - name: node_name\n"),
        "parameters.yaml": IRONIC_PARAMETERS + (DRIVER_PARAMETER if row else ""),
        "samples/node-show-response.json": json.dumps(
            {"uuid": "1be26c0b", "name": "n1", **({"driver": "ipmi"} if shown else {})}),
    }
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    return top


@pytest.mark.parametrize(("shown_before", "verdict", "finding"), [
    pytest.param(True, "not-required", "shown-in-example", id="the-old-example-showed-it"),
    pytest.param(False, "required", "attribute-added", id="the-example-shows-it-only-now"),
])
def test_a_row_for_a_key_the_old_example_showed(tmp_path: Path, run_cli, shown_before: bool,
                                                verdict: str, finding: str) -> None:
    old = _tree(tmp_path / "old", row=False, shown=shown_before)
    new = _tree(tmp_path / "new", row=True, shown=True)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert (report["verdict"], code) == (verdict, 0 if verdict == "not-required" else 1)
    assert [c["id"] for c in report["changes"]] == [finding]
    assert "/driver" in report["changes"][0]["message"]


SHOW_DEVICE = """\
Devices
+++++++

Get One Device
--------------

.. rest_method:: GET /v2/devices/{device_uuid}

Normal response codes: 200

Request
=======

.. rest_parameters:: parameters.yaml

  - device_uuid: device_uuid
{table}
**Example response: show details of a specific device**

.. literalinclude:: {sample}
   :language: javascript
"""
RESPONSE_TABLE = """
Response
========

.. rest_parameters:: parameters.yaml

  - uuid: device_uuid_resp
"""
DEVICE_PARAMETERS = """\
device_uuid:
  description: The device.
  in: path
  required: true
  type: string
device_uuid_resp:
  description: The device.
  in: body
  required: true
  type: string
"""


def _device_tree(top: Path, *, table: bool, sample: str) -> Path:
    (top / "api-ref" / "source").mkdir(parents=True)
    source = top / "api-ref" / "source"
    (source / "index.rst").write_text("API\n===\n\n.. include:: devices.inc\n")
    (source / "devices.inc").write_text(SHOW_DEVICE.replace(
        "{table}", RESPONSE_TABLE if table else "").replace("{sample}", sample))
    (source / "parameters.yaml").write_text(DEVICE_PARAMETERS)
    return source


@pytest.mark.parametrize(("sample", "verdict", "finding"), [
    # cyborg keeps its samples in doc/api_samples, outside the tree: never read, still shown
    pytest.param("../../doc/api_samples/devices/devices-getone-resp.json", "not-required",
                 "shown-in-example", id="a-response-example-outside-the-tree"),
    # an example file that is no response body (its name says so, and it is no JSON)
    pytest.param("samples/devices-getone-curl.txt", "required", "media-type-added",
                 id="no-response-example"),
])
def test_a_body_table_for_a_body_the_old_example_showed(tmp_path: Path, run_cli, sample: str,
                                                       verdict: str, finding: str) -> None:
    old = _device_tree(tmp_path / "old", table=False, sample=sample)
    new = _device_tree(tmp_path / "new", table=True, sample=sample)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert [c["id"] for c in report["changes"]] == [finding]
    assert (report["verdict"], code) == (verdict, 0 if verdict == "not-required" else 1)
