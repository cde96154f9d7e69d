"""A microversion the old documents already name is not announced anew (nova 850d8cdc2: the
version page's introduction said "since microversion 2.27 ..." in a section no operation
owns, while the markers reached 2.26). Two nova-like api-ref trees, read end to end; the
counter-cases: the old documents never named it, and the user states the old maximum."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

INTRO = """
Concepts
========

Microversions can be requested through the ``X-OpenStack-Nova-API-Version`` header
{since}.
"""
SECTION = """
List Servers
============

.. rest_method:: GET /servers

Lists servers.
{paragraph}
Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

  - servers: servers
  - locked: locked
"""
PARAMETERS = """servers:
  in: body
  required: true
  type: array
  description: The servers.
locked:
  in: body
  required: true
  type: boolean
  description: Whether the server is locked.
  min_version: 2.9
"""
SINCE = "or since microversion 2.27 the ``OpenStack-API-Version`` header"
PARAGRAPH = "\nSince microversion 2.27 the ``OpenStack-API-Version`` header works here too.\n"


def _tree(top: Path, since: str, paragraph: str) -> Path:
    top.mkdir()
    (top / "index.rst").write_text("Compute\n=======\n\n.. include:: servers.inc\n")
    (top / "servers.inc").write_text(INTRO.format(since=since)
                                     + SECTION.format(paragraph=paragraph))
    (top / "parameters.yaml").write_text(PARAMETERS)
    return top


def _ids(run_cli, old: Path, new: Path, *args: str) -> tuple[int, list[str]]:
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate",
                           *args)
    return code, sorted(c["id"] for c in json.loads(out)["changes"])


def test_prose_about_a_microversion_the_documents_named_announces_nothing(
        tmp_path: Path, run_cli) -> None:
    old = _tree(tmp_path / "old", SINCE, "")
    new = _tree(tmp_path / "new", SINCE, PARAGRAPH)
    assert _ids(run_cli, old, new) == (0, [])


@pytest.mark.parametrize("since, args", [("", ()), (SINCE, ("--old-version", "2.26"))],
                         ids=["never-named", "maximum-stated"])
def test_prose_announces_a_microversion_not_known_to_exist(
        tmp_path: Path, run_cli, since: str, args: tuple[str, ...]) -> None:
    old = _tree(tmp_path / "old", since, "")
    new = _tree(tmp_path / "new", since, PARAGRAPH)
    assert _ids(run_cli, old, new, *args) == (1, ["microversion-announced"])
