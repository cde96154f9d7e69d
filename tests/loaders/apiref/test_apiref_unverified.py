"""`.. needs:method_verification` and its kin (os-api-ref comments nova and cyborg put atop a
file until that part of it was checked against the code): the loader records them on `info`,
and a change of the part a file marks is the document being verified (catch-up
`unverified-section`), not the API changing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repositories import IRONIC_NODES, IRONIC_PARAMETERS

from needs_microversion.loaders.apiref.reader import load_apiref

UNVERIFIED = "x-needs-microversion-unverified"
MARKS = ".. -*- rst -*-\n.. needs:method_verification\n.. needs:example_verification\n\n"


def _tree(top: Path, *, marks: str = "", codes: str = "400,401,403,404,409",
          other: str = "") -> Path:
    files = {
        "index.rst": ".. rest_expand_all::\n\n.. include:: nodes.inc\n.. include:: other.inc\n",
        "nodes.inc": marks + IRONIC_NODES.replace("Error codes: 400,401,403,404",
                                                  f"Error codes: {codes}"),
        "other.inc": other + "=======\n Other\n=======\n",
        "parameters.yaml": IRONIC_PARAMETERS,
    }
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    return top


def test_the_marks_are_recorded_per_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path, marks=MARKS, other=".. needs:body_verification\n")
    info = load_apiref(tree).document["info"]
    assert info[UNVERIFIED] == {"nodes.inc": ["example", "method"], "other.inc": ["body"]}


@pytest.mark.parametrize("text", [
    pytest.param("", id="none"),
    pytest.param("Some sections .. needs:method_verification inline\n", id="not-a-comment-line"),
])
def test_no_marks_nothing_recorded(tmp_path: Path, text: str) -> None:
    assert UNVERIFIED not in load_apiref(_tree(tmp_path, marks=text)).document["info"]


@pytest.mark.parametrize(("marks", "verdict", "finding"), [
    pytest.param(MARKS, "not-required", "unverified-section", id="status-codes-unverified"),
    pytest.param(".. needs:body_verification\n\n", "required", "status-code-removed",
                 id="only-the-body-unverified"),
    pytest.param("", "required", "status-code-removed", id="verified"),
])
def test_a_code_dropped_from_a_file_the_old_tree_marks(tmp_path: Path, run_cli, marks: str,
                                                       verdict: str, finding: str) -> None:
    old = _tree(tmp_path / "old", marks=marks)
    new = _tree(tmp_path / "new", codes="400,401,403,404")  # the verification drops its mark
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    assert (report["verdict"], code) == (verdict, 0 if verdict == "not-required" else 1)
    assert [(c["id"], c["status"]) for c in report["changes"]] == [(finding, "409")]


@pytest.mark.parametrize("marks", [
    pytest.param("{limits.inc: 5}", id="not-a-list"),
    pytest.param("{limits.inc: [method, 5, {a: b}]}", id="odd-members"),
    pytest.param("[method]", id="not-a-mapping"),
])
def test_what_an_openapi_document_writes_there_is_read_safely(tmp_path: Path, run_cli,
                                                              marks: str) -> None:
    """The note is the loader's, but an OpenAPI document may carry anything under it."""
    doc = """openapi: 3.0.3
info: {{title: t, version: "2.1", x-needs-microversion-unverified: {marks}}}
paths:
  /limits:
    get:
      x-needs-microversion-location: "limits.inc:8"
      responses: {{"200": {{description: ok}}{extra}}}
"""
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(doc.format(marks=marks, extra=', "409": {description: c}'))
    new.write_text(doc.format(marks=marks, extra=""))
    code, out, _ = run_cli("diff", str(old), str(new), "--catch-up", "--format", "json")
    expected = "unverified-section" if "method, 5" in marks else "status-code-removed"
    assert [c["id"] for c in json.loads(out)["changes"]] == [expected]
    assert code in (0, 1)
