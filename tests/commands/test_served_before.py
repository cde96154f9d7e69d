"""The code at the base revision is evidence (issue 36, part 1): an element the api-ref tree
adds with no version note, in a change that edits the API's code too, is the document
catching up when the base revision's code already served it (rule catch-up,
`served-before`), and a contract change when it did not, whatever the documents' wording.

The small nova of `test_check_code.py` (released at 2.5, its widgets API declared in code)
gains an api-ref file for the widgets: its create request lists `name` but not the `size`
the code accepts since 2.2, and `GET /widgets/{id}` (served since 2.3) is not documented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from code_repos import NOVA
from gitrepo import quiet_git
from repositories import Project, check_reports, nova_like

__all__ = ["quiet_git"]

CONTROLLER = "nova/api/openstack/compute/widgets.py"
SCHEMAS = "nova/api/openstack/compute/schemas/widgets.py"
WIDGETS_INC = "api-ref/source/widgets.inc"
PARAMETERS = "api-ref/source/parameters.yaml"
INDEX = "api-ref/source/index.rst"

CREATE = """\
Create Widget
=============

.. rest_method:: POST /widgets

Normal response codes: 201

Error response codes: badRequest(400), conflict(409)

Request
-------

.. rest_parameters:: parameters.yaml

  - widget: widget
  - name: widget_name
"""

SHOW = """
Show Widget
===========

.. rest_method:: GET /widgets/{widget_id}

Normal response codes: 200

Error response codes: itemNotFound(404)

Request
-------

.. rest_parameters:: parameters.yaml

  - widget_id: widget_id
"""

WIDGET_PARAMETERS = """\
widget_id:
  description: The widget.
  in: path
  required: true
  type: string
widget:
  description: The widget.
  in: body
  required: true
  type: object
widget_name:
  description: The widget's name.
  in: body
  required: true
  type: string
"""

SIZE = """\
widget_size:
  description: The widget's size.
  in: body
  required: false
  type: integer
"""

COLOUR = """\
widget_colour:
  description: The widget's colour.
  in: body
  required: false
  type: string
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """nova-like, released at 2.5, its widgets served by code and half documented."""
    repo = nova_like(tmp_path / "nova")
    code = {path: text for path, text in NOVA.items()
            if path != "nova/api/openstack/api_version_request.py"}
    parameters = (repo.top / PARAMETERS).read_text()
    index = (repo.top / INDEX).read_text()
    repo.commit({**code, WIDGETS_INC: "=========\n Widgets\n=========\n\n" + CREATE,
                 PARAMETERS: parameters + WIDGET_PARAMETERS,
                 INDEX: index + "\n.. include:: widgets.inc\n"},
                "the widgets API", max_version="2.5")
    repo.tag("2.0.0")
    return repo


def _code_edit(repo: Project, word: str) -> dict[str, str]:
    """An edit of the controller that names `word` (a reviewer's grep would find it)."""
    text = (repo.top / CONTROLLER).read_text()
    return {CONTROLLER: text.replace("    def create(self, req, body):\n",
                                     f"    def create(self, req, body):\n        # {word}\n")}


def _row(repo: Project, name: str, definition: str) -> dict[str, str]:
    inc = (repo.top / WIDGETS_INC).read_text()
    parameters = (repo.top / PARAMETERS).read_text()
    return {WIDGETS_INC: inc + f"  - {name}: {definition}\n", PARAMETERS: parameters
            + {"widget_size": SIZE, "widget_colour": COLOUR}[definition]}


def _changes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((c["id"], c["verdict"]) for c in report["changes"])


def test_a_key_the_base_code_accepted_is_the_document_catching_up(
        project: Project, run_cli, monkeypatch) -> None:
    """`size` is accepted since 2.2: documenting it now, beside a code edit that names it,
    needs no microversion, and the finding says where the code served it."""
    project.commit({**_row(project, "size", "widget_size"), **_code_edit(project, "size")},
                   "document the widget's size")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    [finding] = reports["nova"]["changes"]
    assert (finding["id"], finding["verdict"]) == ("served-before", "not-required")
    assert CONTROLLER in finding["message"]
    # `diff` of the two revisions' trees reads the same evidence: both modes agree.
    code, out, err = run_cli("diff", "HEAD~1:api-ref/source", "HEAD:api-ref/source",
                             "--no-validate", "--format", "json")
    assert code == 0, err
    assert [c["id"] for c in json.loads(out)["changes"]] == ["served-before"]


def test_a_key_the_base_code_did_not_accept_stays_a_contract_change(
        project: Project, run_cli, monkeypatch) -> None:
    """The counter-case: `colour` added to the documents and the schema, no bump."""
    schemas = (project.top / SCHEMAS).read_text().replace(
        "create_v22['properties']['widget']['properties']['size'] = {'type': 'integer'}\n",
        "create_v22['properties']['widget']['properties']['size'] = {'type': 'integer'}\n"
        "create_v22['properties']['widget']['properties']['colour'] = {'type': 'string'}\n")
    project.commit({**_row(project, "colour", "widget_colour"), SCHEMAS: schemas},
                   "colour, no microversion")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    assert ("attribute-added", "required") in _changes(reports["nova"])
    assert ("attribute-added", "required") in _changes(reports["nova code"])


def test_an_operation_the_base_code_routed_is_the_document_catching_up(
        project: Project, run_cli, monkeypatch) -> None:
    """`GET /widgets/{id}` is routed since 2.3: a section for it is late documentation;
    the code serves it from 2.3, which its missing version note does not say."""
    inc = (project.top / WIDGETS_INC).read_text()
    project.commit({WIDGETS_INC: inc + SHOW, **_code_edit(project, "widgets")},
                   "document showing a widget")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    assert ("served-before", "not-required") in _changes(reports["nova"])


def test_without_the_base_code_the_same_addition_fails_safe(
        project: Project, run_cli, monkeypatch) -> None:
    """A change that edits no API code reads no code contract: `size` documented with only a
    documentation change is documentation-only (no code), never served-before."""
    project.commit(_row(project, "size", "widget_size"), "document the widget's size")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0
    assert "nova code" not in reports
    assert all(c["id"] != "served-before" for c in reports["nova"]["changes"])
