"""One revision of a repository, read as a reviewer reads it: a commit, the index, or the
working tree.

    rev = Revision.at(repo, "HEAD~1")            # a commit
    rev = Revision.working(repo)                 # the files on disk
    rev.files()                                  # every file path, "/"-separated, from the top
    rev.read("nova/api/openstack/api_version_request.py")   # bytes, or None

Reads are bounded and confined: a commit's blobs come from git (never a checkout; symlinks
followed inside the revision), the working tree's files only from inside the repository's
top folder (symlinks resolved and checked), regular files only, each under a size cap
checked before reading. A file that is there but cannot be read as one is an error naming
it, never a silent "absent".
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from needs_microversion.documents.reading import read_bounded
from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Entry, Repo, snapshot_name
from needs_microversion.loaders.git.repo import SYMLINK
from needs_microversion.loaders.git.worktree import worktree_changes

MAX_FILE_BYTES = 4 * 2**20  # a version file, a history document or a release note
_MAX_HOPS = 40  # symlinks followed in a row, like the kernel's limit
_BATCH = 2000  # files read out of git in one call (release notes)


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
        """A file's bytes; None when it is absent. A file that is there but cannot be read
        as one (a symlink out of the repository, a FIFO, a device, a folder, more than
        `limit` bytes) is an InputError naming it: evidence is never silently dropped."""
        if self.on_disk:
            return _read_confined(self.repo.top, path, limit, self.name(path))
        item = self._entry(path)
        for _ in range(_MAX_HOPS):  # a symlink is followed inside the revision
            if item is None or item.mode != SYMLINK:
                break
            target = self.repo.blobs([item], self.name(path)).get(item.sha, b"")
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(item.path),
                                                       target.decode("utf-8", "replace")))
            if target.startswith(b"/") or joined == ".." or joined.startswith("../"):
                raise InputError("is a symlink out of the repository; not read",
                                 self.name(path))
            item = self._entry(joined)
        if item is None:
            return None
        if item.mode not in ("100644", "100755"):
            raise InputError("is not a regular file (a symlink loop or a submodule)",
                             self.name(path))
        found = self.repo.blobs([item], self.name(path), limit=limit)
        if item.sha not in found:
            raise InputError(f"is larger than {limit // 2**20} MiB (the limit)", self.name(path))
        return found[item.sha]

    def read_many(self, paths: Sequence[str], limit: int = MAX_FILE_BYTES
                  ) -> Iterator[tuple[str, bytes]]:
        """(path, bytes) of each regular file of `paths` (absent ones left out), read from
        a revision in one git call per batch and never all held at once: thousands of
        release notes in one change are read in bounded memory."""
        if self.on_disk:
            for path in paths:
                data = self.read(path, limit)
                if data is not None:
                    yield path, data
            return
        for start in range(0, len(paths), _BATCH):
            batch = [(path, self._entry(path)) for path in paths[start:start + _BATCH]]
            items = [item for _, item in batch
                     if item is not None and item.mode in ("100644", "100755")]
            found = self.repo.blobs(items, self.name(paths[start]), limit=limit)
            for path, item in batch:
                if item is not None and item.sha in found:
                    yield path, found[item.sha]

    def blob_ids(self, paths: Sequence[str]) -> dict[str, str | None]:
        """Each path's git blob id (None: absent), what a kept reading of these files is
        keyed by. A commit's or the index's come from the listing, unread; a working-tree
        file (or a symlink, followed) is read and hashed as git hashes a blob."""
        ids: dict[str, str | None] = dict.fromkeys(paths)
        for path in paths:
            item = None if self.on_disk else self._entry(path)
            if item is not None and item.mode in ("100644", "100755") and item.sha:
                ids[path] = item.sha
            elif item is not None:  # a symlink, followed inside the revision
                ids[path] = _blob_id(self.read(path))
        if self.on_disk:
            ids.update((path, _blob_id(data)) for path, data in self.read_many(paths))
        return ids

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


def _blob_id(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _read_confined(top: Path, path: str, limit: int, display: str) -> bytes | None:
    """A working-tree file inside `top`, regular, at most `limit` bytes; None when absent;
    an InputError naming it when it leads out of `top` or cannot be read as a file."""
    root = os.path.realpath(top)
    full = os.path.join(root, path)
    if not os.path.lexists(full):
        return None
    target = os.path.realpath(full)
    if os.path.commonpath([root, target]) != root:
        raise InputError("leads outside the repository (a symlink?); not read", display)
    if not os.path.exists(target):
        return None  # a dangling link: nothing there
    return read_bounded(target, display, limit)


def changed_paths(repo: Repo, old: Revision, new: Revision) -> tuple[str, ...]:
    """Paths that differ between the sides, from the repository's top. The working tree is
    compared by hashing what is read (`worktree_changes`), never by `git diff`, which would
    refresh the index and run the repository's filters; files not added yet count too (a
    new release note)."""
    if new.on_disk:
        return worktree_changes(repo, str(old.commit))
    args = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"]
    if new.commit is not None:
        out = repo.git(*args, str(old.commit), new.commit)
    else:  # the index against a tree: git reads no working-tree file
        out = repo.git(*args, "--cached", str(old.commit))
    names = [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]
    return tuple(sorted(set(names)))
