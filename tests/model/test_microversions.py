"""Microversions inside documents: ranges, containers, actions, version parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from needs_microversion.model.versions import (
    Version, VersionRange, mentioned_versions, names_a_microversion, newly_mentioned,
    parse_version)

HEAD = "openapi: 3.1.0\ninfo: {{title: compute, version: {version}}}\n"

ACTIONS = HEAD + """paths:
  /servers/{{server_id}}/action:
    post:
      parameters: [{{name: server_id, in: path, required: true, schema: {{type: string}}}}]
      requestBody:
        content:
          application/json:
            schema:
              oneOf:
                - $ref: '#/components/schemas/Reboot'
                - $ref: '#/components/schemas/Lock'
{extra}
              x-openstack: {{discriminator: action}}
      responses:
        "202": {{description: accepted}}
components:
  schemas:
    Reboot:
      type: object
      properties: {{reboot: {{type: object, properties: {{type: {{type: string, enum: [SOFT, HARD]}}}}}}}}
      x-openstack: {{action-name: reboot}}
    Lock:
      type: object
      properties: {{lock: {{type: 'null'}}}}
      x-openstack: {{action-name: lock, min-ver: '2.73'}}
    Unlock:
      type: object
      properties: {{unlock: {{type: 'null'}}}}
      x-openstack: {{action-name: unlock, min_ver: '{unlock_min}'}}
"""


def _diff(tmp_path: Path, run_cli, old: str, new: str, *args: str) -> tuple[int, dict]:
    (tmp_path / "old.yaml").write_text(old)
    (tmp_path / "new.yaml").write_text(new)
    code, out, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                             "--format", "json", "--no-validate", *args)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_version_text_is_never_a_float() -> None:
    assert parse_version("2.10") == Version(2, 10) > parse_version("2.9")
    assert parse_version("2.100") == Version(2, 100)
    assert parse_version("1.0.0") is None and parse_version(True) is None
    assert str(Version(2, 10)) == "2.10"


@pytest.mark.parametrize("text, named", [
    ("Starting from microversion 1.39 the parameter can be repeated.", "1.39"),
    ("New in the 2.31 microversion.", "2.31"),
    ("Available since ``1.37``.", "1.37"),
    ("API version 3.66 adds the field.", "3.66"),
    ("From v2.60, attaching a multiattach volume is supported.", "2.60"),
    ("as of v2.85 only delete_on_termination may change", "2.85"),
    ("Network ID has been added in v2.12.", "2.12"),
    ("For API microversion less than 1.10, params in the query are inputs.", "1.10"),
    ("For API microversion equal or greater than 1.10, the body is.", "1.10"),
    ("on a microversion greater than or equal to 2.83", "2.83"),
    ("An API version greater than 2.0 is needed.", ""),  # not a microversion as such
    ("The size grew from 1.5 to 2.0 GB.", ""),  # no "v": not a version
    ("Download it from v2.60.1.tar.gz", ""),  # a longer number
    ("Use microversion 3.0 here; version 12.5.1 of the library", "3.0"),
])
def test_how_prose_names_a_microversion(text: str, named: str) -> None:
    assert mentioned_versions(text) == ({parse_version(named)} if named else set())


@pytest.mark.parametrize(("text", "names"), [
    ("The API v2.12 microversion returns the network ID in the ``net_id`` attribute.", True),
    ("Microversion 2.22 or greater is required for this API", True),
    ("changed in the 2.3 MICROVERSION", True),
    ("x" * 100 + " (see micro-version 1.5)", True),
    ("The Identity API version 2.0 is deprecated", False),  # any versioned API writes this
    ("If this version of the API supports microversions, the maximum microversion", False),
    ("New in version 2.3", False),  # a marker: read as a bound, not as prose
    ("microdeposits of 0.32 and 0.45", False),
])
def test_whether_prose_names_a_microversion(text: str, names: bool) -> None:
    assert names_a_microversion(text) is names


def test_what_new_prose_says_about_a_microversion() -> None:
    old = "Lists usage.\n\nExample (v2.40): JSON response"
    added = "Lists usage.\n\nMicroversion 2.40 added pagination.\n\nExample (v2.40): JSON response"
    assert newly_mentioned(old, added) == {Version(2, 40)}  # named before, written about now
    moved = "Example (v2.40):\n   JSON response\n\n\nLists   usage."
    assert newly_mentioned(old, moved) == set()  # the same paragraphs, reflowed and reordered
    assert newly_mentioned(old, "Lists usage, all of it.\n\nExample (v2.40): JSON answer") \
        == set()  # reworded paragraphs name what they named


def test_ranges() -> None:
    rng = VersionRange(Version(2, 3), Version(2, 8))
    assert rng.contains(Version(2, 3)) and rng.contains(Version(2, 8))
    assert not rng.contains(Version(2, 9)) and not rng.contains(Version(2, 2))
    assert rng.bounds() == (Version(2, 3), Version(2, 9))
    assert VersionRange(Version(2, 5)).intersect(VersionRange(None, Version(2, 4))).empty


def test_each_action_is_its_own_operation(tmp_path: Path, run_cli) -> None:
    old = ACTIONS.format(version="'2.98'", extra="", unlock_min="2.99")
    new = ACTIONS.format(version="'2.99'", unlock_min="2.99",
                         extra="                - $ref: '#/components/schemas/Unlock'")
    code, report = _diff(tmp_path, run_cli, old, new)
    [change] = report["changes"]
    assert change["id"] == "operation-added" and change["gated"] == "2.99"
    assert change["operation"] == "POST /servers/{server_id}/action (unlock)"
    assert code == 0 and report["bumped"] is True


def test_unquoted_yaml_versions_keep_their_digits(tmp_path: Path, run_cli) -> None:
    # YAML reads 2.10 as the float 2.1: the loader keeps the text, so 2.10 > 2.9.
    old = ACTIONS.format(version="2.9", extra="", unlock_min="2.10")
    new = ACTIONS.format(version="2.10", unlock_min="2.10",
                         extra="                - $ref: '#/components/schemas/Unlock'")
    code, report = _diff(tmp_path, run_cli, old, new)
    assert (report["old_version"], report["new_version"]) == ("2.9", "2.10")
    assert [c["gated"] for c in report["changes"]] == ["2.10"] and code == 0


def test_action_gated_below_the_new_max_leaks(tmp_path: Path, run_cli) -> None:
    old = ACTIONS.format(version="'2.98'", extra="", unlock_min="2.98")
    new = ACTIONS.format(version="'2.99'", unlock_min="2.98",
                         extra="                - $ref: '#/components/schemas/Unlock'")
    code, report = _diff(tmp_path, run_cli, old, new)
    # The maximum went up with nothing gated on 2.99: the raise is reported as well.
    assert code == 1 and [c["gated"] for c in report["changes"]] == ["2.99", None]


@pytest.mark.parametrize("bound", ["min-ver", "min_ver"])
def test_query_parameter_gated_by_either_spelling(tmp_path: Path, run_cli, bound: str) -> None:
    base = HEAD + """paths:
  /servers:
    get:
      parameters:
{params}
      responses:
        "200": {{description: ok}}
"""
    old = base.format(version="'2.5'", params="        - {name: limit, in: query, schema: "
                      "{type: integer}}")
    new = base.format(version="'2.6'", params="        - {name: limit, in: query, schema: "
                      "{type: integer}}\n        - {name: is_yellow, in: query, schema: {type: "
                      f"boolean}}, x-openstack: {{{bound}: '2.6'}}}}")
    code, report = _diff(tmp_path, run_cli, old, new)
    assert [(c["id"], c["gated"]) for c in report["changes"]] == [("query-parameter-added",
                                                                     "2.6")]
    assert code == 0


def test_removal_above_the_old_max_is_gated(tmp_path: Path, run_cli) -> None:
    base = HEAD + """paths:
  /servers/{{id}}:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  rxtx_factor: {{type: number{bound}}}
"""
    old = base.format(version="'2.101'", bound="")
    new = base.format(version="'2.102'", bound=", x-openstack: {max-ver: '2.101'}")
    code, report = _diff(tmp_path, run_cli, old, new)
    assert [(c["id"], c["gated"]) for c in report["changes"]] == [("attribute-removed",
                                                                     "2.102")]
    assert code == 0
