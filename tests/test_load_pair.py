"""Reading the two sides of a pair side by side (the old api-ref tree in a forked child)
gives what reading them one after the other gives, leaves no copy behind, and falls back
to reading here when the child fails."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from gitrepo import commit, make_repo, quiet_git  # noqa: F401  (fixture)

from needs_microversion import forked, load
from needs_microversion.errors import InputError
from needs_microversion.model.snapshot import Snapshot

SOURCE = Path(__file__).parent / "data" / "apiref" / "basic"
pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="this platform does not fork")


def _tree(folder: Path, extra: str = "") -> dict[str, str]:
    files = {f"api-ref/source/{p.relative_to(SOURCE).as_posix()}": p.read_text()
             for p in SOURCE.rglob("*") if p.is_file()}
    files["api-ref/source/parameters.yaml"] += extra
    return files


def _facts(pair: tuple[Snapshot, Snapshot, load.Validation]) -> list[tuple[object, ...]]:
    return [(s.document.data, s.warnings, s.max_version, s.display) for s in pair[:2]]


def _one_after_the_other(monkeypatch: pytest.MonkeyPatch, old: str, new: str
                         ) -> list[tuple[object, ...]]:
    with monkeypatch.context() as patch:
        patch.setattr(forked, "can_fork", lambda: False)
        return _facts(load.load_pair(old, new, validate=False))


def test_two_folders_side_by_side_are_one_after_the_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SOURCE, old)
    shutil.copytree(SOURCE, new)
    (new / "parameters.yaml").write_text((new / "parameters.yaml").read_text() + "\n# more\n")
    started = []
    real_start = forked.start
    monkeypatch.setattr(forked, "start", lambda work, hook=None: started.append(1) or
                        real_start(work, hook))
    side_by_side = _facts(load.load_pair(str(old), str(new), validate=False))
    assert started == [1]  # the old tree was read by a child
    assert side_by_side == _one_after_the_other(monkeypatch, str(old), str(new))


def test_revisions_side_by_side_leave_no_copy_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo", _tree(tmp_path))
    commit(repo, {"api-ref/source/parameters.yaml": _tree(tmp_path)[
        "api-ref/source/parameters.yaml"] + "\n# a comment\n"}, "second")
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.chdir(repo)
    side_by_side = _facts(load.load_pair("HEAD~1:api-ref/source", "HEAD:api-ref/source",
                                         validate=False))
    # A revision's tree is read into memory: nothing is written, by the child (it never runs
    # exit handlers) or by this process (`history` reads thousands).
    assert os.listdir(temp) == []
    assert side_by_side == _one_after_the_other(monkeypatch, "HEAD~1:api-ref/source",
                                                "HEAD:api-ref/source")


def test_a_failed_child_is_made_up_for_here(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "old"
    shutil.copytree(SOURCE, old)
    monkeypatch.setattr(forked, "result", lambda child: (
        os.close(child.pipe), os.waitpid(child.pid, 0), None)[-1])
    assert _facts(load.load_pair(str(old), str(old), validate=False)) == \
        _one_after_the_other(monkeypatch, str(old), str(old))


def test_an_error_of_the_old_side_is_the_same_error(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SOURCE, old)
    shutil.copytree(SOURCE, new)
    (old / "parameters.yaml").write_text("a: [unclosed\n")
    with pytest.raises(InputError) as raised:
        load.load_pair(str(old), str(new), validate=False)
    assert "parameters.yaml" in str(raised.value)


def test_a_file_in_git_is_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a tree is worth a child: an OpenAPI file out of git is read in this process."""
    repo = make_repo(tmp_path / "repo", {"api.yaml": "openapi: 3.0.3\ninfo: {title: t, "
                                         "version: '1'}\npaths: {}\n"})
    monkeypatch.chdir(repo)
    started = []
    monkeypatch.setattr(forked, "start", lambda work, hook=None: started.append(1))
    old, new, _ = load.load_pair("HEAD:api.yaml", "HEAD:api.yaml", validate=False)
    assert started == [] and old.document.data == new.document.data
