"""Microversion bookkeeping: the version file's maximum and the companion changes of a bump."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_diff

from needs_microversion.bookkeeping import bookkeeping
from needs_microversion.repository.evidence import RepositoryEvidence
from needs_microversion.repository.versionfile import read_version_file
from needs_microversion.commands.diff import DiffRequest
from needs_microversion.errors import InputError
from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.verdict import NOT_REQUIRED, REQUIRED, Finding, Report
from needs_microversion.model.versions import Version

NOVA = '''\
"""The compute API version request."""
REST_API_VERSION_HISTORY = """REST API Version History:

    * 2.103 - Adds the ``description`` field to server groups.
    * 2.104 - Adds the ``locked_reason`` filter.
{new}"""

_MIN_API_VERSION = '2.1'
_MAX_API_VERSION = '{max}'
DEFAULT_API_VERSION = _MIN_API_VERSION
raise RuntimeError("a version file must never be executed")
'''

PLACEMENT = '''\
VERSIONS = [
    '1.0',
    '1.1',  # initial support for aggregate.get_aggregates and set_aggregates
    '1.38',  # Adds consumer_type
    '1.39',  # Adds support for the in: syntax{new}
]
'''

IRONIC = '''\
BASE_VERSION = 1

# v1.114: Add node history fields
# v1.115: Add node history fields{comment}
MINOR_0_JUNO = 0
MINOR_114_NODE_PARENT = 114
MINOR_115_NODE_HISTORY_FIELDS = 115
{new}
MINOR_MAX_VERSION = {max}

MAX_VERSION_STRING = '{{}}.{{}}'.format(BASE_VERSION, MINOR_MAX_VERSION)
'''


def nova(max_version: str = "2.104", new: str = "") -> str:
    return NOVA.format(max=max_version, new=new)


def bookkeeping_of(old: str | None, new: str | None, findings: Report, changed: Any, *,
         profile: str = "generic", version_file: str | None = None,
         released_max: Version | None = None) -> Any:
    """The bookkeeping of two version file texts (None: unknown)."""
    evidence = RepositoryEvidence(version_file, read_version_file(old) if old is not None else None,
                        read_version_file(new) if new is not None else None,
                        changed_paths=None if changed is None else tuple(changed))
    return bookkeeping(evidence, findings, profile=profile, released_max=released_max)


def report(*verdicts: str, acknowledged: str | None = None, gated: Version | None = None
           ) -> Report:
    change = Change("response-body", "added", "", "GET /servers/{id}",
                    OpKey("GET", "/servers/{}"), pointer="/server/locked", gated=gated)
    findings = tuple(Finding("attribute-added", "attribute", "?", verdict, change, "m",
                             acknowledged) for verdict in verdicts)
    return Report("old", "new", None, None, findings)


def test_nova_bump_by_one_with_its_companions() -> None:
    new = nova("2.105", "    * 2.105 - Adds ``locked`` to the server.\n")
    changed = {"nova/api/openstack/api_version_request.py",
               "nova/api/openstack/compute/rest_api_version_history.rst",
               "releasenotes/notes/locked-server-4b1d.yaml",
               "doc/api_samples/servers/v2.105/server-get-resp.json"}
    book = bookkeeping_of(nova(), new, report(REQUIRED), changed, profile="nova")
    assert (book.old_max, book.new_max, book.bumped_by_one, book.next_version) == (
        "2.104", "2.105", True, "2.105")
    done = dict(book.checklist)
    assert done == {
        "REST_API_VERSION_HISTORY in nova/api/openstack/api_version_request.py: an entry "
        "'* 2.105 - ...'": True,
        "_MAX_API_VERSION = '2.105' in nova/api/openstack/api_version_request.py": True,
        "a verbose description of 2.105 in "
        "nova/api/openstack/compute/rest_api_version_history.rst": True,
        "a release note (releasenotes/notes/*.yaml) announcing 2.105": True,
        "the versions samples doc/api_samples/versions/versions-get-resp.json and "
        "v21-version-get-resp.json": False,
        "api samples in doc/api_samples/*/v2.105/ (if applicable)": True,
        "the API reference: what changed gated at 2.105 (min_version, max_version, a version "
        "note)": False,
    }


def test_the_api_reference_is_ticked_only_when_a_change_is_gated_there() -> None:
    item = "the API reference: what changed gated at 2.105 (min_version, max_version, a " \
        "version note)"
    ungated = bookkeeping_of(nova(), nova("2.105"), report(REQUIRED), set(), profile="nova")
    gated = bookkeeping_of(nova(), nova("2.105"), report(REQUIRED, gated=Version(2, 105)),
                           set(), profile="nova")
    assert dict(ungated.checklist)[item] is False and dict(gated.checklist)[item] is True


def test_nova_not_bumped_and_paths_unknown() -> None:
    book = bookkeeping_of(nova(), nova(), report(REQUIRED), None, profile="nova")
    assert (book.bumped_by_one, book.next_version) == (False, "2.105")
    done = dict(book.checklist)
    assert done["_MAX_API_VERSION = '2.105' in nova/api/openstack/api_version_request.py"] \
        is False
    assert done["a release note (releasenotes/notes/*.yaml) announcing 2.105"] is None


def test_bumped_by_two_is_not_by_one() -> None:
    book = bookkeeping_of(nova("2.103"), nova("2.105"), report(REQUIRED), set())
    assert (book.bumped_by_one, book.next_version) == (False, "2.104")


def test_no_microversion_needed_means_no_checklist() -> None:
    for findings in (report(), report(NOT_REQUIRED), report(REQUIRED, acknowledged="ok")):
        book = bookkeeping_of(nova(), nova("2.105"), findings, set())
        assert (book.old_max, book.new_max, book.bumped_by_one) == ("2.104", "2.105", True)
        assert book.next_version is None and book.checklist == ()


def test_old_side_unknown() -> None:
    book = bookkeeping_of(None, nova(), report(REQUIRED), None, profile="nova")
    assert (book.old_max, book.new_max, book.bumped_by_one, book.next_version) == (
        None, "2.104", None, None)
    assert all(done is None for _, done in book.checklist)
    assert "_MAX_API_VERSION = 'the new microversion' in " \
        "nova/api/openstack/api_version_request.py" in dict(book.checklist)


def test_placement_appends_to_versions() -> None:
    old = PLACEMENT.format(new="")
    new = PLACEMENT.format(new="\n    '1.40',  # Adds the exists filter")
    book = bookkeeping_of(old, new, report(REQUIRED), {"placement/rest_api_version_history.rst"},
                       profile="placement")
    assert (book.old_max, book.new_max, book.bumped_by_one, book.next_version) == (
        "1.39", "1.40", True, "1.40")
    done = dict(book.checklist)
    assert done["'1.40' appended to VERSIONS in placement/microversion.py, with a comment"]
    assert done["a verbose description of 1.40 in placement/rest_api_version_history.rst"]


def test_ironic_resolves_the_named_constant() -> None:
    old = IRONIC.format(comment="", new="", max="MINOR_115_NODE_HISTORY_FIELDS")
    new = IRONIC.format(comment="\n# v1.116: Add node service steps",
                        new="MINOR_116_SERVICE_STEPS = 116",
                        max="MINOR_116_SERVICE_STEPS")
    book = bookkeeping_of(old, new, report(REQUIRED), {"ironic/common/release_mappings.py"},
                       profile="ironic", version_file="ironic/api/controllers/v1/versions.py")
    assert (book.old_max, book.new_max, book.bumped_by_one, book.next_version) == (
        "1.115", "1.116", True, "1.116")
    path = "ironic/api/controllers/v1/versions.py"
    assert dict(book.checklist) == {
        f"MINOR_116_<NAME> = 116 in {path}": True,
        f"MINOR_MAX_VERSION = MINOR_116_<NAME> in {path}": True,
        f"a '# v1.116: ...' comment in {path}": True,
        "a verbose description of 1.116 in doc/source/contributor/webapi-version-history.rst":
            False,
        "a release note (releasenotes/notes/*.yaml) announcing 1.116": False,
        "RELEASE_MAPPING['master']['api'] = '1.116' in ironic/common/release_mappings.py": True,
        "the API reference: what changed gated at 1.116 (min_version, max_version, a version "
        "note)": False,
    }
    book = bookkeeping_of(old, old, report(REQUIRED), set(), profile="ironic")
    assert dict(book.checklist)["MINOR_116_<NAME> = 116 in "
                                "ironic/api/controllers/v1/versions.py"] is False


def test_a_merged_unreleased_microversion_is_another_changes() -> None:
    """cinder 3.71 merged, not released: a change that needs a microversion is told 3.72,
    whatever it wrote, and nothing the earlier change did ticks its checklist (issue 36)."""
    cinder = '_MAX_API_VERSION = "{}"\n'
    for released in (Version(3, 70), Version(3, 71)):
        book = bookkeeping_of(cinder.format("3.71"), cinder.format("3.71"), report(REQUIRED),
                              set(), profile="cinder", released_max=released)
        assert book.next_version == "3.72"
        assert dict(book.checklist)["_MAX_API_VERSION = '3.72' in "
                                    "cinder/api/openstack/api_version_request.py"] is False
        assert "a named constant for 3.72 in cinder/api/microversions.py" in dict(book.checklist)


def test_a_change_joining_the_unreleased_maximum_allocates_nothing() -> None:
    """Gated on the merged, unreleased 3.71 (cinder's guide lets a follow-up join it): every
    change is provided, there is nothing to allocate and no checklist."""
    cinder = '_MAX_API_VERSION = "{}"\n'
    joins = Report("old", "new", Version(3, 70), Version(3, 71),
                   report(REQUIRED, gated=Version(3, 71)).findings)
    assert not joins.unprovided()
    book = bookkeeping_of(cinder.format("3.71"), cinder.format("3.71"), joins, set(),
                          profile="cinder", released_max=Version(3, 70))
    assert book.next_version is None and book.checklist == ()


def test_the_next_microversion_does_not_follow_what_the_change_wrote() -> None:
    """nova 2.101 merged but unreleased, the change documented at 2.102 or at 2.110: the
    advice is 2.102 either way; the bump ticks its box only when this change made it."""
    for gate in (Version(2, 102), Version(2, 110), None):
        for new_max in ("2.101", "2.102"):
            changed = {"nova/api/openstack/api_version_request.py"} if new_max == "2.102" \
                else set()
            book = bookkeeping_of(nova("2.101"), nova(new_max), report(REQUIRED, gated=gate),
                                  changed, profile="nova", released_max=Version(2, 100))
            assert book.next_version == "2.102"
            assert dict(book.checklist)[
                "_MAX_API_VERSION = '2.102' in nova/api/openstack/api_version_request.py"] is \
                (new_max == "2.102")


def test_the_next_microversion_is_one_the_raised_maximum_does_not_reach() -> None:
    """nova 2.49 -> 2.50, the documents gate changes on 2.50 and on 2.51 (nova 0ffe7b27):
    the report asks to raise the maximum to 2.51, so the checklist is about 2.51."""
    def finding(minor: int) -> Finding:
        change = Change("response-body", "added", "", "GET /servers/{id}",
                        OpKey("GET", "/servers/{}"), pointer=f"/server/f{minor}",
                        gated=Version(2, minor))
        return Finding("attribute-added", "attribute", "?", REQUIRED, change, "m")

    raised = Report("old", "new", Version(2, 49), Version(2, 50), (finding(50), finding(51)))
    assert raised.bump_missing() == Version(2, 51)
    book = bookkeeping_of(nova("2.49"), nova("2.50"), raised, set(), profile="nova",
                          released_max=Version(2, 42))
    assert book.next_version == "2.51"
    reached = Report("old", "new", Version(2, 49), Version(2, 50), (finding(50),))
    assert bookkeeping_of(nova("2.49"), nova("2.50"), reached, set(), profile="nova",
                          released_max=Version(2, 42)).next_version == "2.50"


# -- through run_diff ------------------------------------------------------------------------
def write_api(path: Path, keys: list[str], version: str, gated: str | None = None) -> str:
    props: dict[str, Any] = {k: {"type": "string"} for k in keys}
    if gated:
        props["locked"] = {"type": "boolean", "x-openstack": {"min-ver": gated}}
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": version},
                                "paths": {"/servers/{id}": {"get": {
                                    "parameters": [{"name": "id", "in": "path",
                                                    "required": True,
                                                    "schema": {"type": "string"}}],
                                    "responses": {"200": {"description": "OK", "content": {
                                        "application/json": {"schema": {
                                            "type": "object", "properties": {"server": {
                                                "type": "object",
                                                "properties": props}}}}}}}}}}}))
    return str(path)


@pytest.fixture
def nova_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.needs-microversion]\nprofile = "nova"\n'
        '[[tool.needs-microversion.services]]\nname = "compute"\ndocuments = ["*.json"]\n'
        'version-file = "nova/api/openstack/api_version_request.py"\n')
    version_file = tmp_path / "nova" / "api" / "openstack" / "api_version_request.py"
    version_file.parent.mkdir(parents=True)
    version_file.write_text(nova("2.105", "    * 2.105 - Adds ``locked``.\n"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_diff_reads_the_working_tree_version_file(nova_project: Path) -> None:
    old = write_api(nova_project / "old.json", ["id"], "2.104")
    new = write_api(nova_project / "new.json", ["id"], "2.105", gated="2.105")
    out, _, code = run_diff(DiffRequest(old, new, validate=False), "json")
    book = json.loads(out)["bookkeeping"]
    assert code == 0 and (book["old_max"], book["new_max"], book["next_version"]) == (
        None, "2.105", None)
    assert all(item["done"] is None for item in book["checklist"])


def test_check_gives_both_revisions_and_the_paths(nova_project: Path) -> None:
    old = write_api(nova_project / "old.json", ["id"], "2.104")
    new = write_api(nova_project / "new.json", ["id"], "2.104", gated="2.105")
    request = DiffRequest(old, new, validate=False,
                          old_version_file_text=nova("2.104"),
                          new_version_file_text=nova("2.105", "    * 2.105 - x\n"),
                          changed_paths=("releasenotes/notes/locked-1.yaml",))
    out, _, code = run_diff(request, "json")
    report = json.loads(out)
    # The documents say 2.104 on both sides; the version files say the code went to 2.105.
    assert (report["old_version"], report["new_version"], report["bumped"]) == (
        "2.104", "2.105", True)
    assert code == 0 and report["changes"][0]["provided"]
    book = report["bookkeeping"]
    assert (book["old_max"], book["new_max"], book["bumped_by_one"], book["next_version"]) == (
        "2.104", "2.105", True, "2.105")
    done = {item["item"]: item["done"] for item in book["checklist"]}
    assert done["a release note (releasenotes/notes/*.yaml) announcing 2.105"] is True
    assert done["a verbose description of 2.105 in "
                "nova/api/openstack/compute/rest_api_version_history.rst"] is False
    # The command line still wins over the version files.
    out, _, code = run_diff(DiffRequest(old, new, validate=False,
                                        old_version_file_text=nova("2.104"),
                                        new_version_file_text=nova("2.105"),
                                        new_version="2.104"), "json")
    assert code == 1 and json.loads(out)["new_version"] == "2.104"


def test_no_version_file_no_bookkeeping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    old = write_api(tmp_path / "old.json", ["id"], "2.104")
    out, _, _ = run_diff(DiffRequest(old, old, validate=False), "json")
    assert json.loads(out)["bookkeeping"] is None


def test_bad_version_file_is_an_input_error(nova_project: Path) -> None:
    old = write_api(nova_project / "old.json", ["id"], "2.104")
    with pytest.raises(InputError, match=r"api_version_request.py \(old\): no maximum"):
        run_diff(DiffRequest(old, old, validate=False,
                             old_version_file_text="VERSION = '2.1'\n",
                             new_version_file_text=nova()), "json")
