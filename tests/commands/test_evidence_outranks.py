"""Issue 36: the repository's evidence outranks the documents' wording, and a raised
maximum owns the additions that come with it, the way a reviewer reads a change.

Each case has its counter-case: the same documents with other evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from repositories import (
    IRONIC_NODES, IRONIC_PARAMETERS, NOVA_PARAMETERS, NOVA_SERVERS, Project, cinder_like,
    cinder_tree, ironic_like, nova_like)

OWNER = ("node_owner:\n  description: The owner of the node.\n  in: body\n"
         "  required: false\n  type: string\n")
LOCKED = ("locked:\n  description: Whether the server is locked.\n  in: body\n"
          "  required: true\n  type: boolean\n")
MARKER = ".. needs:body_verification\n\n"
NOVA_CODE = "nova/api/openstack/compute/servers.py"
IRONIC_CODE = "ironic/api/controllers/v1/node.py"


def check(run_cli, monkeypatch, project: Project, old: str, new: str
          ) -> tuple[int, dict[str, Any], str]:
    monkeypatch.chdir(project.top)
    code, out, err = run_cli("check", "--from-ref", old, "--to-ref", new, "--format", "json",
                             "--no-validate")
    assert code in (0, 1), err
    [document] = json.loads(out)["documents"]
    return code, document["report"], err


def ironic_tree(rows: str = "", definitions: str = "") -> dict[str, str]:
    """The ironic-like tree as it writes microversions: `driver` added at 1.4 (a
    `versionadded` note in its description), and `rows` with no version note."""
    driver = ("node_driver:\n  description: |\n    The driver of the node.\n\n"
              "    .. versionadded:: 1.4\n  in: body\n  required: true\n  type: string\n")
    return {"api-ref/source/parameters.yaml": IRONIC_PARAMETERS + driver + definitions,
            "api-ref/source/nodes.inc": IRONIC_NODES.replace(
                "    - name: node_name\n", "    - name: node_name\n    - driver: node_driver\n"
                + rows)}


def ironic_base(tmp_path: Path) -> tuple[Project, str]:
    """An ironic-like repository serving (and having released) 1.5."""
    repo = ironic_like(tmp_path / "ironic")
    base = repo.commit(ironic_tree(), "1.5", max_version="1.5")
    repo.tag("2.0.0")
    return repo, base


def ironic_owner() -> dict[str, str]:
    return ironic_tree("    - owner: node_owner\n", OWNER)


# -- a raised maximum owns what comes with it ---------------------------------------------

def test_a_raise_by_one_owns_an_addition_with_no_version_note(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """ironic's 1.115 as merged: new fields, MINOR_115, a history entry, no "New in version"
    note in the api-ref. Provided, with a warning asking for the note."""
    repo, base = ironic_base(tmp_path)
    head = repo.commit({**ironic_owner(), IRONIC_CODE: "# returns owner\n"}, "1.6: owner",
                       max_version="1.6", history="1.6")
    code, report, err = check(run_cli, monkeypatch, repo, base, head)
    [added] = [c for c in report["changes"] if c["id"] == "attribute-added"]
    assert code == 0 and report["verdict"] == "required"
    assert (added["gated"], added["provided"], added["inferred"]) == ("1.6", True, True)
    [warning] = [w for w in report["warnings"] if "owner" in w]
    assert "nodes.inc" in warning and "mark it 'New in version 1.6'" in warning
    [api_ref] = [i for i in report["bookkeeping"]["checklist"]
                 if i["item"].startswith("the API reference")]
    assert api_ref["done"] is False  # the version note is still to be written


def test_the_same_addition_without_the_raise_is_not_provided(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo, base = ironic_base(tmp_path)
    head = repo.commit({**ironic_owner(), IRONIC_CODE: "# returns owner\n"}, "owner")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 1 and [c["id"] for c in report["changes"]] == ["attribute-added"]
    assert not any("New in version" in w for w in report["warnings"])


def test_a_raise_by_two_owns_nothing(tmp_path: Path, monkeypatch, run_cli) -> None:
    """Two microversions at once: which one an unmarked field belongs to is unsaid."""
    repo, base = ironic_base(tmp_path)
    head = repo.commit({**ironic_owner(), IRONIC_CODE: "# returns owner\n"}, "1.7: owner",
                       max_version="1.7", history="1.7")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    [added] = [c for c in report["changes"] if c["id"] == "attribute-added"]
    assert code == 1 and added["gated"] is None and not added["provided"]


def test_a_removal_keeps_its_own_reading_under_a_raise(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """The raise owns additions only: a field gone from every version is seen by every
    older microversion, whatever the version file says."""
    repo, base = ironic_base(tmp_path)
    gone = ironic_tree()
    gone["api-ref/source/nodes.inc"] = gone["api-ref/source/nodes.inc"].replace(
        "    - name: node_name\n", "")
    head = repo.commit({**gone, IRONIC_CODE: "# name no more\n"}, "1.6: no name",
                       max_version="1.6", history="1.6")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    [removed] = [c for c in report["changes"] if c["pointer"] == "/name"]
    assert code == 1 and removed["gated"] is None and removed["verdict"] == "required"


# -- evidence outranks the documents' markers ---------------------------------------------

def nova_marked(*, locked: bool) -> dict[str, str]:
    """nova's 2016 burndown: servers.inc marked `needs:body_verification`."""
    servers = MARKER + NOVA_SERVERS
    if locked:
        servers = servers.replace("  - status: status\n", "  - status: status\n"
                                  "  - locked: locked\n")
    return {"api-ref/source/servers.inc": servers,
            "api-ref/source/parameters.yaml": NOVA_PARAMETERS + (LOCKED if locked else "")}


def test_a_marker_does_not_clear_a_change_that_edits_the_code(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit(nova_marked(locked=False), "marked")
    head = repo.commit({**nova_marked(locked=True), NOVA_CODE: "# returns locked\n"},
                       "locked, the bump forgotten")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    [change] = report["changes"]
    assert code == 1 and change["id"] == "attribute-added"
    assert "the documents read it as unverified-section" in change["message"]
    assert "only evidence clears it" in change["message"]


def test_a_marker_still_clears_a_change_whose_code_never_names_the_element(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """A document fixed beside an unrelated code change (manila's 2.92 corrected the
    manage-share response rows beside its new field): the code says nothing of `locked`,
    so the documents' reading stands."""
    repo = nova_like(tmp_path / "nova")
    base = repo.commit(nova_marked(locked=False), "marked")
    head = repo.commit({**nova_marked(locked=True), NOVA_CODE: "# a fix of the pagination\n"},
                       "document locked, and fix the pagination")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and [c["id"] for c in report["changes"]] == ["unverified-section"]


def test_a_response_schema_naming_the_element_is_no_evidence_it_is_served(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """A response schema describes what the API returns; it does not return it (nova's
    schema-coverage commits): a response schema module naming `locked`, with its
    decorator on the controller, leaves the documents' reading standing. The controller
    returning `locked` is evidence (the test above)."""
    repo = nova_like(tmp_path / "nova")
    base = repo.commit(nova_marked(locked=False), "marked")
    schema = "nova/api/openstack/compute/schemas/servers.py"
    head = repo.commit({**nova_marked(locked=True),
                        schema: "show_response = {'properties': {'locked': {}}}\n",
                        NOVA_CODE: "@validation.response_body_schema(schema.show_response)\n"},
                       "response schemas for servers, and the document verified against them")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and [c["id"] for c in report["changes"]] == ["unverified-section"]


def test_the_same_marker_clears_a_change_of_documents_alone(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit(nova_marked(locked=False), "marked")
    head = repo.commit(nova_marked(locked=True), "document locked, verified against the code")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and report["verdict"] == "not-required"


def test_diff_of_two_revisions_reads_the_repository_as_check_does(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """`diff REV:api-ref/source REV:api-ref/source` is a change of the repository: its
    evidence (the code changed, the version file) is read, so the two modes agree."""
    repo = nova_like(tmp_path / "nova")
    base = repo.commit(nova_marked(locked=False), "marked")
    head = repo.commit({**nova_marked(locked=True), NOVA_CODE: "# returns locked\n"}, "locked")
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("diff", f"{base}:api-ref/source", f"{head}:api-ref/source",
                             "--format", "json", "--no-validate")
    report = json.loads(out)
    assert code == 1, err
    assert [c["id"] for c in report["changes"]] == ["attribute-added"]
    assert any("nova/api/openstack/api_version_request.py" in line
               for line in report["evidence"])


def test_a_marker_clears_two_trees_with_nothing_beside_them(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """Two folders alone say nothing of the code: the marker's reading stands."""
    trees = []
    for name, locked in (("old", False), ("new", True)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "index.rst").write_text(".. rest_expand_all::\n\n.. include:: servers.inc\n")
        for path, text in nova_marked(locked=locked).items():
            (folder / Path(path).name).write_text(text)
        trees.append(str(folder))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("diff", *trees, "--format", "json", "--no-validate")
    assert code == 0, err
    assert [c["id"] for c in json.loads(out)["changes"]] == ["unverified-section"]


# -- a new status code: the project's own guide decides, once the code returns it ----------

def cinder_400() -> dict[str, str]:
    """The cinder-like v3 tree documenting a 400 beside its 404 (status.yaml names both)."""
    inc = cinder_tree("v3")["api-ref/source/v3/volumes.inc"].replace(
        "   - 404\n", "   - 400\n   - 404\n")
    return {"api-ref/source/v3/volumes.inc": inc,
            "api-ref/source/status.yaml": "    200:\n      default: OK\n    400:\n"
                                          "      default: Bad request\n    404:\n"
                                          "      default: Not found\n"}


def test_cinder_asks_a_microversion_for_a_400_its_code_starts_returning(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """cinder's api_microversion_dev.rst keeps the chart without nova's footnote f2."""
    repo = cinder_like(tmp_path / "cinder")
    base = repo.commit({}, "base")
    head = repo.commit({**cinder_400(), "cinder/api/v3/volumes.py": "# raise 400\n"}, "400")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 1 and [c["id"] for c in report["changes"]] == ["status-code-added"]


def test_cinder_needs_none_for_a_400_documented_alone(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = cinder_like(tmp_path / "cinder")
    base = repo.commit({}, "base")
    head = repo.commit(cinder_400(), "api-ref: document the 400 the code returns")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and [c["id"] for c in report["changes"]] == ["documentation-only"]


def test_nova_needs_none_for_a_404_its_code_starts_returning(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """nova's footnote f2: a 404 may be added without a microversion (and ironic and
    placement, whose guides follow nova's, read the same)."""
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace(
        "itemNotFound(404)", "badRequest(400), itemNotFound(404)"),
        NOVA_CODE: "# raise 400\n"}, "400")
    code, report, _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and [c["id"] for c in report["changes"]] == ["error-code-exempt"]
