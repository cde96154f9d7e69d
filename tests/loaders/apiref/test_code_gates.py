"""Status codes gated in prose (issue 36, part 4): a section that says where a code starts,
in any of the ways the projects write it, gates that code and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from needs_microversion.loaders.apiref.availability import code_gates
from needs_microversion.loaders.apiref.reader import load_apiref


@pytest.mark.parametrize("text, gates", [
    # nova: a note after the codes
    ("Starting with microversion 2.102, this API returns 409 Conflict when the password is "
     "in use.", [(409, "2.102")]),
    # cinder: "since" in the description
    ("Since microversion 3.71 the request fails with HTTP 409 if the volume is attached.",
     [(409, "3.71")]),
    # ironic: a versionadded note, as the section renders it
    ("New in version 1.115: returns 409 when the node is locked.", [(409, "1.115")]),
    # placement: "from version X on"
    ("From microversion 1.39 on, a 400 is returned for an unknown trait.", [(400, "1.39")]),
    # "or later"
    ("Microversion 2.38 or later returns 400 for an invalid status.", [(400, "2.38")]),
    # what dates something else
    ("Prior to microversion 2.36 the API returned 404.", []),
    ("Starting with microversion 2.101 the API returns 202 instead of 200.", []),
    ("It no longer returns 409 since microversion 2.50.", []),
    ("The API returns 409 if the server is locked.", []),
    # two sentences, two versions for one code: neither is sure
    ("Since microversion 2.5 a 409 is returned. Starting with microversion 2.7 409 is "
     "returned.", []),
])
def test_code_gates(text: str, gates: list[tuple[int, str]]) -> None:
    assert [(code, str(version)) for code, version in code_gates(text)] == gates


PARAMS = "uuid:\n  description: The UUID.\n  in: path\n  required: true\n  type: string\n"


def section(notes_before: str, notes_after: str, codes: str = "404, 409") -> str:
    return ("Audits\n======\n\nDelete Audit\n------------\n\n"
            ".. rest_method:: DELETE /v1/audits/{uuid}\n\nDeletes an audit.\n\n"
            f"{notes_before}Normal response codes: 204\n\nError codes: {codes}\n\n"
            f"{notes_after}Request\n-------\n\n.. rest_parameters:: parameters.yaml\n\n"
            "  - uuid: uuid\n")


def responses(tmp_path: Path, text: str) -> dict[str, Any]:
    (tmp_path / "parameters.yaml").write_text(PARAMS)
    (tmp_path / "audits.inc").write_text(text)
    document = load_apiref(tmp_path).document
    [item] = document["paths"].values()  # the version prefix is the tree's choice
    operation = item["delete"]
    assert "x-openstack" not in operation, "a code's note never dates the operation"
    return operation["responses"]


def min_of(response: dict[str, Any]) -> str | None:
    return (response.get("x-openstack") or {}).get("min-ver")


@pytest.mark.parametrize("before, after", [
    # watcher, ironic: a versionadded note above the codes, naming the code
    (".. versionadded:: 1.7\n   The API returns ``409 Conflict`` when another request is "
     "updating the audit.\n\n", ""),
    # nova: a note after the codes
    ("", ".. note:: Starting with microversion 1.7, this API returns 409 Conflict when "
         "another request is updating the audit.\n\n"),
    # a sentence in the description
    ("Since microversion 1.7 the request fails with HTTP 409 while the audit runs.\n\n", ""),
])
def test_a_section_gates_the_code_its_prose_dates(tmp_path: Path, before: str,
                                                   after: str) -> None:
    got = responses(tmp_path, section(before, after))
    assert min_of(got["409"]) == "1.7" and min_of(got["404"]) is None


def test_a_code_its_list_already_ranges_keeps_the_list_s_range(tmp_path: Path) -> None:
    got = responses(tmp_path, section(
        "", ".. note:: Starting with microversion 1.9, 409 is returned when busy.\n\n",
        codes="404, 409 (microversion 1.7 - )"))
    assert min_of(got["409"]) == "1.7"


def test_an_undated_code_stays_at_every_version(tmp_path: Path) -> None:
    got = responses(tmp_path, section("The API returns 409 while the audit runs.\n\n", ""))
    assert min_of(got["409"]) is None
