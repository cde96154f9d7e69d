"""`check` reads the version-gate index of the code a change edits (issue 35): a microversion
the code starts gating on above the version file's maximum is a bump forgotten, in any
project (cinder's `mv.X`, ironic's `MINOR_n_*`, a decorator or a check), even when the
documents do not change; a gate on a version the change raises the file to, or one the code
already had, is nothing new."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gitrepo import quiet_git
from repositories import Project, cinder_like, ironic_like

__all__ = ["quiet_git"]

CINDER_VIEW = "cinder/api/v3/volumes.py"
CINDER_MV = "cinder/api/microversions.py"
IRONIC_NODE = "ironic/api/controllers/v1/node.py"


def _check(repo: Project, run_cli: Any, monkeypatch: pytest.MonkeyPatch
           ) -> tuple[int, list[dict[str, Any]]]:
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                             "--no-validate", "--format", "json")
    assert code in (0, 1), err
    return code, [change for doc in json.loads(out)["documents"]
                  for change in doc["report"]["changes"]]


@pytest.fixture
def cinder(tmp_path: Path) -> Project:
    repo = cinder_like(tmp_path / "cinder")
    repo.commit({CINDER_MV: "BASE_VERSION = '3.0'\nFIRST = '3.1'\n",
                 CINDER_VIEW: "from cinder.api import microversions as mv\n\n\n"
                 "def show(req):\n    return {}\n"}, "the volumes API")
    return repo


def test_a_gate_above_the_maximum_is_a_bump_forgotten(cinder: Project, run_cli,
                                                      monkeypatch) -> None:
    """cinder's way: a named version in microversions.py, used where the behaviour changes;
    the version file stays at 3.1 and api-ref is not touched."""
    cinder.commit({CINDER_MV: "BASE_VERSION = '3.0'\nFIRST = '3.1'\nVOLUME_COLOUR = '3.2'\n",
                   CINDER_VIEW: "from cinder.api import microversions as mv\n\n\n"
                   "def show(req):\n    if req.api_version_request.matches(mv.VOLUME_COLOUR):\n"
                   "        return {'colour': 'red'}\n    return {}\n"}, "colour at 3.2")
    code, changes = _check(cinder, run_cli, monkeypatch)
    assert code == 1
    [change] = [c for c in changes if c["id"] == "version-not-served"]
    assert change["gated"] == "3.2" and not change["provided"]
    assert CINDER_MV in change["message"] or CINDER_VIEW in change["message"]
    assert change["location"].split(":")[0] in (CINDER_MV, CINDER_VIEW)


def test_a_gate_on_the_raised_maximum_is_the_raise(cinder: Project, run_cli,
                                                   monkeypatch) -> None:
    """The same change done with its bump: the gate names what the version file serves."""
    cinder.commit({CINDER_MV: "BASE_VERSION = '3.0'\nFIRST = '3.1'\nVOLUME_COLOUR = '3.2'\n",
                   CINDER_VIEW: "from cinder.api import microversions as mv\n\n\n"
                   "def show(req):\n    if req.api_version_request.matches(mv.VOLUME_COLOUR):\n"
                   "        return {'colour': 'red'}\n    return {}\n"}, "colour at 3.2",
                  max_version="3.2", history="3.2")
    _, changes = _check(cinder, run_cli, monkeypatch)
    assert not [c for c in changes if c["id"] == "version-not-served"]


def test_a_gate_the_code_had_is_not_new(cinder: Project, run_cli, monkeypatch) -> None:
    """A refactor that moves nothing above the maximum: the existing 3.1 gate rewritten."""
    cinder.commit({CINDER_VIEW: "from cinder.api import microversions as mv\n\n\n"
                   "def show(req):\n    if req.api_version_request.matches(mv.FIRST):\n"
                   "        return {}\n    return {}\n"}, "read the first version")
    code, changes = _check(cinder, run_cli, monkeypatch)
    assert code == 0
    assert not [c for c in changes if c["id"] == "version-not-served"]


def test_ironic_minor_constant_above_the_maximum(tmp_path: Path, run_cli,
                                                 monkeypatch) -> None:
    """ironic's way: a `MINOR_n_*` constant the version file does not reach yet."""
    repo = ironic_like(tmp_path / "ironic")
    versions = (repo.top / repo.version_file).read_text()
    repo.commit({repo.version_file: versions.replace(
        "\nMINOR_MAX_VERSION", "MINOR_2_COLOUR = 2\n\nMINOR_MAX_VERSION"),
        IRONIC_NODE: "from ironic.api.controllers.v1 import versions\n\n\n"
        "def allow_colour():\n    return api.request.version.minor >= "
        "versions.MINOR_2_COLOUR\n"}, "colour, the maximum left at 1.1")
    code, changes = _check(repo, run_cli, monkeypatch)
    assert code == 1
    assert [c["gated"] for c in changes if c["id"] == "version-not-served"] == ["1.2"]


COLOUR_PARAMETER = ("colour:\n  description: The colour.\n  in: body\n  required: true\n"
                    "  type: string\n")


def _document_colour(repo: Project) -> dict[str, str]:
    inc = (repo.top / "api-ref/source/v3/volumes.inc").read_text()
    params = (repo.top / "api-ref/source/v3/parameters.yaml").read_text()
    return {"api-ref/source/v3/volumes.inc": inc + "   - colour: colour\n",
            "api-ref/source/v3/parameters.yaml": params + COLOUR_PARAMETER}


@pytest.mark.parametrize("released", [False, True])
def test_a_gate_on_this_cycles_microversion_owns_the_additions(
        cinder: Project, run_cli, monkeypatch, released: bool) -> None:
    """3.2 merged after the release that shipped 3.1 (this cycle); a later change shows
    `colour` behind the same `mv.VOLUME_COLOUR` and documents it with no version note: the
    field is 3.2's, provided by the maximum that already has it, and the report asks for
    its note. Once 3.2 has shipped in a release, a gate on it changes a released version:
    the ungated field stays a change every client sees."""
    cinder.commit({CINDER_MV: "BASE_VERSION = '3.0'\nFIRST = '3.1'\nVOLUME_COLOUR = '3.2'\n",
                   CINDER_VIEW: "from cinder.api import microversions as mv\n\n\n"
                   "def show(req):\n    if req.api_version_request.matches(mv.VOLUME_COLOUR):\n"
                   "        return {'shade': 'dark'}\n    return {}\n"}, "shade at 3.2",
                  max_version="3.2", history="3.2")
    if released:
        cinder.tag("2.0.0")
    view = (cinder.top / CINDER_VIEW).read_text()
    cinder.commit({**_document_colour(cinder), CINDER_VIEW: view.replace(
        "    return {}\n", "    if req.api_version_request.matches(mv.VOLUME_COLOUR):\n"
        "        return {'colour': 'red'}\n    return {}\n", 1)}, "colour, part of 3.2")
    monkeypatch.chdir(cinder.top)
    code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                             "--no-validate", "--format", "json")
    data = json.loads(out)
    [change] = [c for doc in data["documents"] for c in doc["report"]["changes"]
                if c["id"] == "attribute-added"]
    if released:
        assert code == 1 and change["gated"] is None, err
        return
    assert code == 0, err
    assert change["gated"] == "3.2" and change["provided"]
    assert any("mark it 'New in version 3.2'" in w and "this cycle" in w
               for doc in data["documents"] for w in doc["report"]["warnings"])
