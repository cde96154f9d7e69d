"""The version-discovery sample (`GET /` listing the API versions and their maxima): what it
lists is read, and, with no repository to say so, its maximum moving up by one past what the
documents write is the documents' own record of a new microversion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from needs_microversion.loaders.apiref.context import discovered_versions
from needs_microversion.model.versions import Version

NOVA = {"versions": [
    {"id": "v2.0", "status": "SUPPORTED", "version": "", "min_version": "", "links": []},
    {"id": "v2.1", "status": "CURRENT", "version": "2.5", "min_version": "2.1", "links": []}]}
PLACEMENT = {"versions": [{"id": "v1.0", "status": "CURRENT", "min_version": "1.0",
                           "max_version": "1.39", "links": []}]}
ONE = {"version": {"id": "v3.0", "status": "CURRENT", "version": "3.70", "min_version": "3.0"}}


@pytest.mark.parametrize("data, listed", [
    (NOVA, [Version(2, 5)]), (PLACEMENT, [Version(1, 39)]), (ONE, [Version(3, 70)]),
    ({"server": {"id": "v1", "status": "ACTIVE", "version": "2.5"}}, []),  # not a listing
    ({"versions": [{"id": "v1", "status": "x", "version": "2.5"}]}, []),  # no min_version
    ([NOVA], []), ("2.5", []),
])
def test_what_a_discovery_document_lists(data: object, listed: list[Version]) -> None:
    assert discovered_versions(data) == listed


def _tree(root: Path, advertised: str, marked: bool = True) -> Path:
    (root / "samples").mkdir(parents=True)
    (root / "index.rst").write_text(".. include:: versions.inc\n.. include:: servers.inc\n")
    (root / "versions.inc").write_text("""\
List Versions
=============

.. rest_method:: GET /

Normal response codes: 200

.. literalinclude:: samples/versions-get-resp.json
   :language: javascript
""")
    (root / "servers.inc").write_text("""\
Show Server
===========

.. rest_method:: GET /servers/{server_id}

Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

  - server: server
  - name: name
  - locked: locked
""")
    (root / "parameters.yaml").write_text("""\
server_id: {in: path, required: true, type: string, description: The server.}
server: {in: body, required: true, type: object, description: The server.}
name: {in: body, required: true, type: string, description: The name.}
locked: {in: body, required: true, type: boolean, description: Locked.%s}
""" % (", min_version: 2.5" if marked else ""))
    sample = json.loads(json.dumps(NOVA))
    sample["versions"][1]["version"] = advertised
    (root / "samples" / "versions-get-resp.json").write_text(json.dumps(sample))
    return root


@pytest.mark.parametrize("before, after, verdict, findings, header", [
    ("2.5", "2.6", "required", ["maximum-raised"], "2.5 -> 2.6, bumped"),
    ("2.4", "2.5", "not-required", [], "2.5 -> 2.5"),  # a stale sample catching up
    ("2.5", "2.7", "not-required", [], "2.5 -> 2.5"),  # moved by more: refreshed, not news
    ("2.5", "2.5", "not-required", [], "2.5 -> 2.5"),
])
def test_the_sample_moving_by_one_raises_the_maximum(tmp_path: Path, run_cli, before: str,
                                                     after: str, verdict: str,
                                                     findings: list[str], header: str) -> None:
    old, new = _tree(tmp_path / "old", before), _tree(tmp_path / "new", after)
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json")
    report = json.loads(out)
    assert (report["verdict"], sorted(c["id"] for c in report["changes"])) == (verdict, findings)
    assert code == 0  # raised by the documents themselves: provided
    code, text, _ = run_cli("diff", str(old), str(new))
    assert f"max microversion {header}" in text


def test_a_tree_without_markers_stood_where_its_old_sample_said(tmp_path: Path,
                                                               run_cli) -> None:
    """magnum 942fa495b: no row writes a microversion, and the sample moves 2.3 -> 2.4."""
    old, new = (_tree(tmp_path / side, version, marked=False)
                for side, version in (("old", "2.3"), ("new", "2.4")))
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json")
    report = json.loads(out)
    assert (report["verdict"], [c["id"] for c in report["changes"]], code) == (
        "required", ["maximum-raised"], 0)
    assert "max microversion 2.3 -> 2.4, bumped" in run_cli("diff", str(old), str(new))[1]
