"""A revision's listing as `ls-tree` gives it (`loaders/git/repo.py`): every kind of entry
and name, with and without sizes; and which paths are safe to read inside a copy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from needs_microversion.loaders.git.repo import Repo, safe

from gitrepo import commit, git, make_repo, quiet_git

__all__ = ["quiet_git"]  # the fixture


@pytest.mark.usefixtures("quiet_git")
def test_every_entry_and_name_is_listed(tmp_path: Path) -> None:
    names = {"a.txt": "a", "dir/b c.txt": "bb", "dir/tab\tname": "t", "dir/line\nname": "n",
             "dir/ünï.txt": "u", "-dash": "d", ".hidden": "h", "deep/er/x.json": "{}"}
    repo = make_repo(tmp_path / "repo", names)
    (repo / "link").symlink_to("a.txt")
    head = commit(repo, {}, "a link")
    # a submodule entry, written straight into the index
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},sub")
    git(repo, "commit", "-q", "-m", "a submodule")
    head = git(repo, "rev-parse", "HEAD").strip()
    listed = Repo(repo)._tree(head, [], recursive=True)
    expected = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", head],
                              capture_output=True, check=True).stdout.split(b"\0")
    assert len(listed) == len([r for r in expected if r]) == len(names) + 2
    assert {e.path for e in listed} == {*names, "link", "sub"}
    assert {e.path: e.mode for e in listed}["link"] == "120000"
    assert {e.path: e.mode for e in listed}["sub"] == "160000"
    sized = Repo(repo)._tree(head, ["dir", "sub"], recursive=True)
    assert {e.path: e.size for e in sized} == {"dir/b c.txt": 2, "dir/tab\tname": 1,
                                               "dir/line\nname": 1, "dir/ünï.txt": 1,
                                               "sub": None}
    folders = Repo(repo)._tree(head, ["dir"], recursive=False)
    assert [(e.path, e.mode, e.size) for e in folders] == [("dir", "040000", None)]


@pytest.mark.parametrize("path, ok", [
    ("a/b.txt", True), ("a.b/c", True), ("-x", True), ("a/b.", True), ("", False),
    ("/etc/passwd", False), ("../x", False), ("a/../b", False), ("a/./b", False), (".", False),
    ("a/.git/config", False), (".git", False), ("a//b", False), ("a/", False),
    (".hidden", True), ("a/.hidden", True), ("a/..b", True),
])
def test_a_safe_path_stays_inside(path: str, ok: bool) -> None:
    assert safe(path) is ok
