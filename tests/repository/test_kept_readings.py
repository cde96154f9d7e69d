"""What a revision's code and api-ref tree read to is kept between runs (issues 35, 37): the
hook and CI compare every commit of a branch with one base, `history` walks commits that
share most of their files. A kept reading is the same answer as a fresh one, is reused
only while everything it read is unchanged, and anything odd in the cache is a miss."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from code_repos import NOVA
from gitrepo import quiet_git
from repositories import Project, nova_like

from needs_microversion import forked
from needs_microversion.loaders.git import Repo, checkout
from needs_microversion.load import _tree_reading
from needs_microversion.loaders.code import contract as contract_module
from needs_microversion.repository.code import code_reading
from needs_microversion.repository.revision import Revision

__all__ = ["quiet_git"]

SCHEMAS = "nova/api/openstack/compute/schemas/widgets.py"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(tmp_path / "cache"))
    repo = nova_like(tmp_path / "nova")
    repo.commit({path: text for path, text in NOVA.items()
                 if path != "nova/api/openstack/api_version_request.py"}, "widgets",
                max_version="2.5")
    return repo


def _revision(project: Project, rev: str = "HEAD") -> Revision:
    return Revision.at(Repo.find(project.top, "no repository", str(project.top)), rev)


def _entries(project: Project, kind: str) -> list[Path]:
    return sorted((project.top.parent / "cache" / f"parsed-{kind}").glob("*.json"))


def _unread(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the code readings actually made (a kept reading makes none)."""
    made: list[int] = []
    real = contract_module.read_code_contract

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(contract_module, "read_code_contract", counted)
    return made


def test_a_kept_code_reading_is_the_fresh_one(project: Project, monkeypatch) -> None:
    made = _unread(monkeypatch)
    fresh = code_reading(_revision(project))
    kept = code_reading(_revision(project))
    assert made == [1]
    assert fresh is not None and kept is not None
    assert kept.document == json.loads(json.dumps(fresh.document))
    assert kept.unread == fresh.unread
    assert fresh.marks is not None and kept.marks == fresh.marks  # its walk goes with it
    assert len(_entries(project, "code")) == 1


def test_the_working_tree_shares_the_commits_reading(project: Project, monkeypatch) -> None:
    made = _unread(monkeypatch)
    code_reading(_revision(project))
    repo = Repo.find(project.top, "no repository", str(project.top))
    assert code_reading(Revision.working(repo)) is not None
    assert made == [1]  # the same blobs, hashed from disk as git hashes them


def test_an_edited_api_file_is_read_again(project: Project, monkeypatch) -> None:
    made = _unread(monkeypatch)
    before = code_reading(_revision(project))
    text = (project.top / SCHEMAS).read_text()
    project.commit({SCHEMAS: text.replace("'properties': {'name': parameter_types.name}",
                                          "'properties': {'name': parameter_types.name, "
                                          "'colour': {'type': 'string'}}", 1)})
    after = code_reading(_revision(project))
    assert made == [1, 1]
    assert before is not None and after is not None and before.document != after.document


def test_a_new_file_an_import_could_now_resolve_to_is_read_again(project: Project,
                                                                 monkeypatch) -> None:
    """The key covers the API's files; what else the reading looked for (a stdlib name that
    a file of the repository would now shadow) is checked before a kept reading is used."""
    made = _unread(monkeypatch)
    code_reading(_revision(project))
    project.commit({"functools.py": "def partial(*a):\n    return a\n"})
    code_reading(_revision(project))
    assert made == [1, 1]
    code_reading(_revision(project))
    assert made == [1, 1]  # and that reading is kept in turn


@pytest.mark.parametrize("junk", [b"", b"{", b"[]", b'{"format": 1, "data": {"inputs": 3}}',
                                  b'{"format": 1, "data": {"inputs": {}, "folders": [],'
                                  b' "reading": {"document": {}, "unread": [[1]]}}}'])
def test_a_damaged_entry_is_a_miss(project: Project, monkeypatch, junk: bytes) -> None:
    made = _unread(monkeypatch)
    fresh = code_reading(_revision(project))
    [entry] = _entries(project, "code")
    entry.write_bytes(junk)
    again = code_reading(_revision(project))
    assert made == [1, 1]
    assert fresh is not None and again is not None and again.unread == fresh.unread


@pytest.mark.parametrize("junk", [b"", b"{", b'{"format": 1, "data": []}\n\xff\xfe',
                                  b'{"format": 1, "data": {}}\n{"document": 1}',
                                  b'{"format": 1, "data": ["x"]}\n{}'])
def test_a_damaged_api_ref_entry_is_a_miss(project: Project, monkeypatch, junk: bytes) -> None:
    """Every api-ref entry planted with junk (not JSON, not UTF-8, not a reading): the
    tree is read again, the same."""
    from needs_microversion.kept_trees import by_blobs

    monkeypatch.chdir(project.top)
    copy = checkout("HEAD:api-ref/source")
    assert copy is not None
    fresh = _tree_reading(copy.local, copy, "HEAD:api-ref/source", None, None)
    for entry in _entries(project, "apiref"):
        entry.write_bytes(junk)
    assert by_blobs("HEAD:api-ref/source", None) is None
    again = _tree_reading(copy.local, copy, "HEAD:api-ref/source", None, None)
    assert json.dumps(again.document) == json.dumps(fresh.document)


def test_check_says_the_same_with_and_without_kept_readings(project: Project, run_cli,
                                                           monkeypatch) -> None:
    text = (project.top / SCHEMAS).read_text()
    project.commit({SCHEMAS: text.replace("'properties': {'name': parameter_types.name}",
                                          "'properties': {'name': parameter_types.name, "
                                          "'colour': {'type': 'string'}}", 1)})
    monkeypatch.chdir(project.top)
    args = ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate",
            "--format", "json")
    outputs = []
    for cache in ("", str(project.top.parent / "cache"), str(project.top.parent / "cache")):
        monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", cache)
        code, out, err = run_cli(*args)
        outputs.append((code, out))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0][0] == 1
    assert _entries(project, "code") and _entries(project, "apiref")


def test_an_api_ref_tree_is_kept_by_content_whatever_its_commit(project: Project,
                                                                monkeypatch) -> None:
    """Two commits with the same api-ref tree share one entry: the tree's in-memory top
    (which names its commit) is kept as a placeholder and put back."""
    monkeypatch.chdir(project.top)
    readings = []
    project.commit({"README": "unrelated\n"})
    for rev in ("HEAD~1", "HEAD"):
        copy = checkout(f"{rev}:api-ref/source")
        assert copy is not None
        readings.append((copy.local, _tree_reading(copy.local, copy, "X:api-ref/source",
                                                   None, None)))
    assert len(_entries(project, "apiref")) == 1
    (old_top, old), (new_top, new) = readings
    assert str(old_top) != str(new_top)
    assert json.dumps(new.document) == json.dumps(old.document).replace(
        str(old_top.parents[-2]), str(new_top.parents[-2]))
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", "")
    copy = checkout("HEAD:api-ref/source")
    assert copy is not None
    assert _tree_reading(copy.local, copy, "X:api-ref/source", None, None) == new


def _reads_no_blob(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a blob was read")

    monkeypatch.setattr(Repo, "blobs", refused)


# A section the reader warns about: its warnings name the tree as it was read.
_UNNAMED_ACTION = """
Do something
============

.. rest_method:: POST /servers/{server_id}/action

Response Codes
--------------

.. rest_status_code:: success status.yaml

  - 202
"""


def test_a_kept_tree_is_found_by_blob_ids_without_reading_it(project: Project,
                                                            monkeypatch) -> None:
    """A tree read once is found again from git's listing alone (nothing taken out of git),
    the same reading; under another name (another revision with the same blobs: a change
    that leaves api-ref alone), the reading that name gives (its title and warnings name
    it)."""
    from needs_microversion.kept_trees import by_blobs

    monkeypatch.chdir(project.top)
    project.commit({"api-ref/source/unnamed.inc": _UNNAMED_ACTION})
    project.commit({"README": "unrelated\n"})
    blobs = Repo.blobs
    copy = checkout("HEAD~1:api-ref/source")
    assert copy is not None
    fresh = _tree_reading(copy.local, copy, "HEAD~1:api-ref/source", None, None)
    _reads_no_blob(monkeypatch)
    found = by_blobs("HEAD~1:api-ref/source", None)
    assert found is not None
    target, kept = found
    assert target == copy.local
    assert json.dumps(kept.document) == json.dumps(fresh.document)
    assert kept.warnings == fresh.warnings and kept.max_version == fresh.max_version
    assert by_blobs("HEAD~1:api-ref/source", True) is None  # read another way
    renamed = by_blobs("HEAD:api-ref/source", None)  # the same blobs, another name
    assert renamed is not None
    monkeypatch.setattr(Repo, "blobs", blobs)
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", "")  # what a fresh read of HEAD gives
    copy = checkout("HEAD:api-ref/source")
    assert copy is not None and renamed[0] == copy.local
    again = _tree_reading(copy.local, copy, "HEAD:api-ref/source", None, None)
    assert json.dumps(renamed[1].document) == json.dumps(again.document)
    assert renamed[1].warnings == again.warnings
    assert again.document["info"]["title"] == "HEAD:api-ref/source"
    assert again.warnings and all(w.startswith("HEAD:api-ref/source/") for w in again.warnings)


def test_revisions_that_differ_in_samples_alone_keep_a_reading_each(project: Project,
                                                                    monkeypatch) -> None:
    """Same folder, another sample: two readings, each found by its own revision (one kept
    reading per folder would be overwritten by the other, and both sides read again)."""
    from needs_microversion.kept_trees import by_blobs

    sample = "doc/api_samples/servers/server-get-resp.json"
    monkeypatch.chdir(project.top)
    project.commit({sample: '{"server": {"name": "b", "extra": 1}}\n'})
    fresh = {}
    for rev in ("HEAD~1", "HEAD"):
        copy = checkout(f"{rev}:api-ref/source")
        assert copy is not None
        fresh[rev] = _tree_reading(copy.local, copy, f"{rev}:api-ref/source", None, None)
    assert json.dumps(fresh["HEAD~1"].document) != json.dumps(fresh["HEAD"].document)
    _reads_no_blob(monkeypatch)
    for rev in ("HEAD~1", "HEAD", "HEAD~1"):
        found = by_blobs(f"{rev}:api-ref/source", None)
        assert found is not None and json.dumps(found[1].document) == json.dumps(
            fresh[rev].document)


def test_a_changed_sample_outside_the_tree_is_read_again(project: Project, monkeypatch,
                                                        run_cli) -> None:
    """The samples a tree's directives name (nova's doc/api_samples) are part of what is
    kept: edited, added or removed there, the tree is read again; a symlink in the folder
    is never looked up by blob (a link's blob is its target's name)."""
    from needs_microversion.kept_trees import by_blobs

    sample = "doc/api_samples/servers/server-get-resp.json"
    monkeypatch.chdir(project.top)
    args = ("check", "--from-ref", "HEAD", "--to-ref", "HEAD", "--no-validate")
    assert run_cli(*args)[0] == 0  # reads and keeps HEAD's tree
    assert by_blobs("HEAD:api-ref/source", None) is not None
    assert any(text.startswith('{"format":1,"data":[') and f'"{sample}"' in text
               for text in (entry.read_text() for entry in _entries(project, "apiref"))
               )  # the names it reads outside the folder
    for change in ({sample: '{"server": {"name": "b", "extra": 1}}\n'}, {sample: None}):
        project.commit(change)
        assert by_blobs("HEAD:api-ref/source", None) is None
        assert run_cli(*args)[0] == 0
        assert by_blobs("HEAD:api-ref/source", None) is not None
    (project.top / "api-ref/source/link.inc").symlink_to("servers.inc")
    project.commit({}, "a link")
    assert run_cli(*args)[0] == 0
    assert by_blobs("HEAD:api-ref/source", None) is None


def test_a_kept_side_is_read_here_and_a_new_one_in_a_child(project: Project,
                                                           monkeypatch) -> None:
    """The hook's base, kept by an earlier run, costs a JSON load here, not a process; a
    side nobody kept is read by a child (the same reading either way)."""
    from needs_microversion.repository.code import SideReader

    fresh = SideReader(_revision(project))
    assert fresh.reading.child is not None  # nothing kept yet: a child reads it
    first = fresh()
    forked.wait_answered()  # the child keeps its reading after answering
    kept = SideReader(_revision(project))
    assert kept.reading.child is None
    again = kept()
    assert first is not None and again is not None
    assert again.snapshot.document.data == first.snapshot.document.data
    assert again.warnings == first.warnings


def test_a_kept_side_is_built_from_its_kept_walk(project: Project, monkeypatch) -> None:
    """The child that read a side keeps the walk of its document with it: a later run
    builds the snapshot without walking it again, and builds the same snapshot."""
    from needs_microversion.loaders.openapi import builder
    from needs_microversion.repository.code import SideReader

    first = SideReader(_revision(project))()
    forked.wait_answered()
    walks: list[int] = []
    real = builder.openstack_nodes
    monkeypatch.setattr(builder, "openstack_nodes",
                        lambda *args: walks.append(1) or real(*args))
    kept = SideReader(_revision(project))
    assert kept.reading().marks is not None
    again = kept()
    assert walks == []
    assert first is not None and again is not None
    for field in ("max_version", "bounds", "warnings", "refs"):
        assert getattr(again.snapshot, field) == getattr(first.snapshot, field), field
    assert first.snapshot.bounds  # the widgets' microversions: a walk that found something


@pytest.mark.parametrize("marks", [3, {"bounds": "2.1"}, {"bounds": ["2.x"], "top": "2.5"},
                                   {"bounds": ["2.1"], "top": 5}, {"bounds": [None]}])
def test_a_damaged_kept_walk_is_walked_again(project: Project, monkeypatch, marks: Any) -> None:
    from needs_microversion.repository.code import SideReader

    first = SideReader(_revision(project))()
    forked.wait_answered()
    [entry] = _entries(project, "code")
    kept = json.loads(entry.read_text())
    kept["data"]["marks"] = marks
    entry.write_text(json.dumps(kept))
    made = _unread(monkeypatch)
    again = SideReader(_revision(project))
    assert again.reading().marks is None and made == []  # the reading itself still holds
    assert first is not None and again() is not None
    assert again().snapshot.bounds == first.snapshot.bounds


def test_check_keeps_the_new_sides_files_once(project: Project, run_cli, monkeypatch) -> None:
    """The base side's files are the new side's, mostly: only the new side keeps each
    file's reading (the base, read beside it in a child, replays but writes nothing)."""
    inc = next(p for p in (project.top / "api-ref" / "source").glob("*.inc"))
    project.commit({str(inc.relative_to(project.top)): inc.read_text() + "\n.. A comment.\n"})
    monkeypatch.chdir(project.top)
    code, _, _ = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate")
    forked.wait_answered()
    files = [p for p in (project.top / "api-ref" / "source").rglob("*")
             if p.suffix in (".inc", ".rst")]
    assert len(_entries(project, "apiref-files")) == len(files)
