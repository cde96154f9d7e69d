"""One revision of a repository, read as a reviewer reads it: a commit, the index, or the
working tree.

    rev = Revision.at(repo, "HEAD~1")            # a commit
    rev = Revision.working(repo)                 # the files on disk
    rev.files()                                  # every file path, "/"-separated, from the top
    rev.read("nova/api/openstack/api_version_request.py")   # bytes, or None

Reads are bounded and confined: a commit's blobs come from git (never a checkout), the
working tree's files only from inside the repository's top folder (symlinks resolved and
checked), regular files only, each under a size cap checked before reading.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Entry, Repo, snapshot_name

MAX_FILE_BYTES = 4 * 2**20  # a version file, a history document or a release note


@dataclass(frozen=True)
class Revision:
    repo: Repo
    commit: str | None  # None: the index or the working tree
    label: str | None  # REV as the user wrote it; "" the index; None the working tree
    _listing: dict[str, Entry] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def at(cls, repo: Repo, rev: str, label: str | None = None) -> Revision:
        commit = repo.commit(rev)
        if commit is None:
            raise InputError(f"{rev}: unknown revision in {repo.top}")
        return cls(repo, commit, rev if label is None else label)

    @classmethod
    def working(cls, repo: Repo) -> Revision:
        return cls(repo, None, None)

    @classmethod
    def index(cls, repo: Repo) -> Revision:
        return cls(repo, None, "")

    @property
    def on_disk(self) -> bool:
        return self.label is None

    def name(self, path: str) -> str:
        """What reports show for a file of this revision (and what `load` reads)."""
        if self.on_disk:
            return os.path.relpath(self.repo.top / path) if path else os.path.relpath(
                self.repo.top)
        return snapshot_name(self.label if self.commit is None else self.label or
                             self.commit[:12], path)

    def files(self) -> tuple[str, ...]:
        """Every file of the revision (the working tree: tracked and untracked, not ignored)."""
        return tuple(sorted(self._entries()))

    def exists(self, path: str) -> bool:
        return path in self._entries() or any(name.startswith(path.rstrip("/") + "/")
                                              for name in self._entries())

    def read(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
        """A file's bytes; None when it is absent, not a regular file, or larger than `limit`."""
        if self.on_disk:
            return _read_confined(self.repo.top, path, limit)
        item = self._entry(path)
        if item is None or item.mode not in ("100644", "100755"):
            return None
        if item.size is not None and item.size > limit:
            return None
        return self.repo.blobs([item], self.name(path)).get(item.sha)

    def text(self, path: str, limit: int = MAX_FILE_BYTES) -> str | None:
        raw = self.read(path, limit)
        return None if raw is None else raw.decode("utf-8", "replace")

    def _entry(self, path: str) -> Entry | None:
        """One file's entry: from the whole listing when it was read, else asked of git
        alone (a release tag's version file needs no listing of the whole tree)."""
        if self._listing or not path:
            return self._entries().get(path)
        return next((item for item in self.repo.entries(self.commit, [path])
                     if item.path == path), None)

    def _entries(self) -> dict[str, Entry]:
        if not self._listing:
            if self.commit is not None:
                found = self.repo.entries(self.commit, [])
            elif self.label == "":
                found = self.repo.entries(None, [])
            else:
                found = self.repo.entries(None, []) + [
                    Entry("100644", "", name) for name in self.repo.untracked()]
            self._listing.update((item.path, item) for item in found)
        return self._listing


def _read_confined(top: Path, path: str, limit: int) -> bytes | None:
    """A working-tree file inside `top`, regular, at most `limit` bytes; else None."""
    root = os.path.realpath(top)
    target = os.path.realpath(os.path.join(root, path))
    if os.path.commonpath([root, target]) != root:
        return None
    try:
        info = os.stat(target)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with open(target, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None
