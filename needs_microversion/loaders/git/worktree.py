"""What the working tree changed against a commit, found without asking git to look at it.

`git diff <rev>` compares the working tree by refreshing the index: it runs the
repository's fsmonitor hook and the clean filter of every file whose stat data changed
(programs the repository names). Here git is asked only for what it has stored (the
commit's tree, the index with its stat data), and the working tree is read by this process:

- a file whose stat data (size, modification time, inode) is what the index recorded, and
  that was not modified in the index's own second (git's "racy" case), holds the index's
  object;
- any other file is hashed as git hashes a blob (raw bytes: no filter is run, so a file a
  clean filter would rewrite reads as changed; the verdict errs towards "touched");
- a symlink is hashed as its target, as git stores it; untracked files that are not
  ignored are new; a submodule is left out.

    changed = worktree_changes(repo, base_commit)   # paths from the top, sorted
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass

from needs_microversion.errors import InputError
from needs_microversion.loaders.git.repo import SUBMODULE, SYMLINK, Entry, Repo

# Files larger than this are not hashed: they count as changed when their size differs or
# their stat data does not match, which a real change to such a file always does.
_MAX_HASHED = 64 * 2**20
_DEBUG_RECORD = re.compile(
    rb"(\d+) ([0-9a-f]+) (\d)\t(.*?)\0"
    rb"\s*ctime: (\d+):(\d+)\n\s*mtime: (\d+):(\d+)\n\s*dev: (\d+)\tino: (\d+)\n"
    rb"\s*uid: (\d+)\tgid: (\d+)\n\s*size: (\d+)\tflags: ([0-9a-f]+)\n", re.DOTALL)
_ASSUME_VALID = 0x8000
_SKIP_WORKTREE = 1 << 30


@dataclass(frozen=True)
class Staged:
    """One index entry with the stat data git recorded for it."""

    entry: Entry
    mtime_ns: int
    inode: int
    size: int
    trusted: bool  # assume-unchanged or skip-worktree: git never looks at the file


def worktree_changes(repo: Repo, base: str) -> tuple[str, ...]:
    """Paths whose content in the working tree differs from commit `base` (added, removed
    or changed; untracked files that are not ignored count as added)."""
    before = {item.path: item for item in repo.entries(base, [])}
    racy_from = _index_mtime_ns(repo)
    changed: set[str] = set()
    seen: set[str] = set()
    for staged in staged_entries(repo):
        item = staged.entry
        seen.add(item.path)
        if item.mode == SUBMODULE:
            continue
        old = before.get(item.path)
        now = staged.entry.sha if staged.trusted else _current(repo, staged, racy_from)
        if old is None or now != old.sha or _kind(old.mode) != _kind(item.mode):
            changed.add(item.path)
    for path in repo.untracked():
        seen.add(path)
        old = before.get(path)
        if old is None or _hash_file(repo, path, len(old.sha)) != old.sha:
            changed.add(path)
    changed.update(path for path, item in before.items()
                   if path not in seen and item.mode != SUBMODULE)
    return tuple(sorted(changed))


def staged_entries(repo: Repo) -> list[Staged]:
    """The index with its stat data (`ls-files --debug`: read as stored, never refreshed)."""
    out = repo.git("ls-files", "-s", "-z", "--debug")
    found = []
    for match in _DEBUG_RECORD.finditer(out):
        mode, sha, _stage, name = (match.group(i) for i in range(1, 5))
        mtime_ns = int(match.group(7)) * 10**9 + int(match.group(8))
        flags = int(match.group(14), 16)
        path = name.decode("utf-8", "surrogateescape")
        found.append(Staged(Entry(mode.decode(), sha.decode(), path), mtime_ns,
                            int(match.group(10)), int(match.group(13)),
                            bool(flags & (_ASSUME_VALID | _SKIP_WORKTREE))))
    return found


def _current(repo: Repo, staged: Staged, racy_from: int | None) -> str | None:
    """The object id the working file holds now (None: gone, or unreadable)."""
    path = repo.top / staged.entry.path
    try:
        info = os.lstat(path)
    except (OSError, ValueError):
        return None
    size = info.st_size if not stat.S_ISLNK(info.st_mode) else len(os.readlink(path))
    unchanged = (size == staged.size % 2**32 and info.st_mtime_ns == staged.mtime_ns
                 and (staged.inode == 0 or info.st_ino % 2**32 == staged.inode)
                 and (racy_from is None or staged.mtime_ns < racy_from))
    if unchanged:
        return staged.entry.sha
    return _hash_file(repo, staged.entry.path, len(staged.entry.sha))


def _hash_file(repo: Repo, path: str, width: int) -> str | None:
    """A working-tree file (or symlink) hashed as git stores it; None when it is no file
    that git would store, or too large to hash."""
    full = repo.top / path
    try:
        info = os.lstat(full)
        if stat.S_ISLNK(info.st_mode):
            data = os.fsencode(os.readlink(full))
        elif stat.S_ISREG(info.st_mode) and info.st_size <= _MAX_HASHED:
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_NOFOLLOW", 0))
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None
                with os.fdopen(os.dup(fd), "rb") as handle:
                    data = handle.read(_MAX_HASHED + 1)
            finally:
                os.close(fd)
        else:
            return None
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256 if width == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def _kind(mode: str) -> str:
    return "link" if mode == SYMLINK else "file"


def _index_mtime_ns(repo: Repo) -> int | None:
    """When the index was written: entries modified in or after it are racy (their stat
    data cannot prove them unchanged)."""
    try:
        where = repo.git("rev-parse", "--git-path", "index").decode().strip()
        return os.stat(repo.top / where).st_mtime_ns
    except (InputError, OSError, ValueError):
        return 0  # unknown: every entry is racy, every file hashed
