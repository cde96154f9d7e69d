"""A change at every version an operation has is a change at every version, whether the
operation always existed or starts at a microversion (`.. note:: Microversion 2.6 or greater
is required for this API.`): in a document that gates its changes, its removal is a
correction. Two small nova-like api-ref trees, read end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SECTION = """
Create Remote Console
=====================

.. rest_method:: POST /servers/{{server_id}}/remote-consoles

{note}
Normal response codes: 200

Request
-------

.. rest_parameters:: parameters.yaml

  - server_id: server_id_path
  - remote_console: remote_console
  - protocol: protocol
{rdp}
Show Server
===========

.. rest_method:: GET /servers/{{server_id}}

Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

  - server: server
  - locked: locked
"""
PARAMETERS = """server_id_path:
  in: path
  required: true
  type: string
  description: The server.
remote_console:
  in: body
  required: true
  type: object
  description: The console.
protocol:
  in: body
  required: true
  type: string
  description: The protocol.
rdp_port:
  in: body
  required: false
  type: integer
  description: The RDP port.
server:
  in: body
  required: true
  type: object
  description: The server.
locked:
  in: body
  required: true
  type: boolean
  min_version: 2.9
  description: Whether it is locked.
"""
NOTE = ".. note:: Microversion 2.6 or greater is required for this API.\n"


def _tree(top: Path, note: str, rdp: bool) -> Path:
    top.mkdir()
    (top / "index.rst").write_text("Compute\n=======\n\n.. include:: consoles.inc\n")
    (top / "consoles.inc").write_text(SECTION.format(
        note=note, rdp="  - rdp_port: rdp_port\n" if rdp else ""))
    (top / "parameters.yaml").write_text(PARAMETERS)
    return top


@pytest.mark.parametrize("note", [NOTE, ""], ids=["starts-at-2.6", "always-there"])
def test_a_row_dropped_at_every_version_the_operation_has(tmp_path: Path, run_cli,
                                                          note: str) -> None:
    old, new = _tree(tmp_path / "old", note, True), _tree(tmp_path / "new", note, False)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert [(c["id"], c["pointer"]) for c in report["changes"]] == [
        ("removed-at-every-version", "/remote_console/rdp_port")]
    assert (report["verdict"], code) == ("not-required", 0)
