"""A repository as this tool reads it: revisions, listings, the index and raw blobs.

    repo = Repo.find(Path.cwd(), "not inside a git repository", "check")
    repo.commit("HEAD~1")                      # the commit id, or None
    repo.entries(commit, ["api-ref/source"])   # every file below, with its object id
    repo.blobs(entries, display, limit=...)    # raw contents by object id

Every question goes through `command.git` (no program but git, no network, bounded in
time); listings never ask for object sizes up front (`ls-tree` without `-l` reads no
blob, so a partial clone lists without fetching), sizes are asked only of the blobs read.
A bare repository is read as well: `top` is then its git folder and it has no working tree.
"""

from __future__ import annotations

import os
import posixpath
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from needs_microversion.errors import InputError
from needs_microversion.loaders.git.command import GitFailed, git, guard_repository, \
    missing_message, missing_object

SYMLINK, SUBMODULE, TREE = "120000", "160000", "040000"
MAX_TREE_BYTES = 256 * 2**20  # all the blobs one read takes out of git
_PATHSPEC_CHUNK = 500  # paths per command line (Windows caps a command line at 32k chars)
# An answer this large is not kept for the rest of the run (blob contents).
_REMEMBERED_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Entry:
    mode: str
    sha: str
    path: str  # relative to the repository top, "/"-separated
    size: int | None = None  # bytes, when known


@dataclass(frozen=True)
class Repo:
    top: Path
    bare: bool = False  # no working tree: only revisions can be read

    @classmethod
    def find(cls, folder: Path, message: str, display: str) -> Repo:
        """The repository holding `folder`; InputError(message) outside one."""
        guard_repository(folder, display)
        try:
            out = git(folder, "rev-parse", "--is-bare-repository", "--absolute-git-dir")
        except GitFailed as exc:
            reason = "" if exc.code == 128 and "not a git repository" in exc.reason \
                else exc.reason
            raise InputError(f"{message}{f' ({reason})' if reason else ''}", display) from None
        bare, _, git_dir = out.decode("utf-8", "surrogateescape").partition("\n")
        if bare.strip() == "true":
            return cls(Path(git_dir.rstrip("\n")), bare=True)
        try:
            top = git(folder, "rev-parse", "--show-toplevel")
        except GitFailed as exc:  # a git folder with no work tree: read it as a bare one
            if "work tree" in exc.reason:
                return cls(Path(git_dir.rstrip("\n")), bare=True)
            raise InputError(f"{message} ({exc.reason})", display) from None
        return cls(Path(os.fsdecode(top.rstrip(b"\n"))))

    def git(self, *args: str, stdin: bytes | None = None, remember: bool = True) -> bytes:
        try:
            return git(self.top, *args, stdin=stdin, remember=remember)
        except GitFailed as exc:
            sha = missing_object(exc.reason)
            if sha is not None:
                raise InputError(missing_message(sha, self.top), str(self.top)) from None
            raise InputError(f"git {args[0]} failed: {exc.reason}", str(self.top)) from None

    def commit(self, rev: str) -> str | None:
        """The commit a revision names, or None (a name starting with "-" is never one)."""
        if not rev or rev.startswith("-"):
            return None
        try:
            out = git(self.top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except GitFailed:
            return None
        return out.decode().strip() or None

    def merge_base(self, one: str, other: str, names: str) -> str:
        """The best common ancestor of two commits; `names` says which, for the error."""
        try:
            return git(self.top, "merge-base", one, other).decode().strip()
        except GitFailed as exc:
            raise InputError(f"{names} have no common ancestor"
                             f"{f' ({exc.reason})' if exc.reason else ''}",
                             str(self.top)) from None

    def path_in_repo(self, path: str, cwd: Path, display: str) -> str:
        """PATH as git reads it in REV:PATH: from the top, or from `cwd` after ./ or ../"""
        path = path.replace(os.sep, "/") if os.sep != "/" else path
        if path.startswith(("./", "../")) or path in (".", ".."):
            try:
                prefix = "" if self.bare else \
                    git(cwd, "rev-parse", "--show-prefix").decode().strip()
            except GitFailed as exc:
                raise InputError(exc.reason, display) from None
            path = posixpath.join(prefix, path)
        normal = posixpath.normpath(path).lstrip("/") if path.strip("/") else ""
        if normal == ".":
            normal = ""
        if normal == ".." or normal.startswith("../"):
            raise InputError("the path leaves the repository", display)
        return normal

    # -- reading a revision (commit) or the index (commit None) ----------------------------

    def entry(self, commit: str | None, path: str) -> tuple[str, Entry | None]:
        """What PATH is: ("file", entry), ("dir", None) or ("", None) for nothing."""
        if commit is None:
            found = self._index(path) if path else self._index()
            for item in found:
                if item.path == path:
                    return "file", item
            return ("dir", None) if found else ("", None)
        if not path:
            return "dir", None
        for item in self._tree(commit, [path], recursive=False):
            if item.path == path:
                return ("dir", None) if item.mode == TREE else ("file", item)
        return "", None

    def entries(self, commit: str | None, paths: Sequence[str]) -> list[Entry]:
        """Every file at or below PATHs (recursively); submodules left out."""
        found: list[Entry] = []
        if not paths:  # the whole repository
            found = self._index() if commit is None else self._tree(commit, [], recursive=True)
        for start in range(0, len(paths), _PATHSPEC_CHUNK):
            chunk = list(paths[start:start + _PATHSPEC_CHUNK])
            found.extend(self._index(*chunk) if commit is None
                         else self._tree(commit, chunk, recursive=True))
        return [item for item in found if item.mode != SUBMODULE and safe(item.path)]

    def untracked(self) -> list[str]:
        """Files in the working tree that git does not track and does not ignore."""
        if self.bare:
            return []
        _ignore_files_regular(self)
        out = self.git("ls-files", "-z", "--others", "--exclude-standard")
        return [name for name in out.decode("utf-8", "surrogateescape").split("\0")
                if name and safe(name)]

    def _tree(self, commit: str, paths: Sequence[str], *, recursive: bool) -> list[Entry]:
        # The files of some paths come with their sizes (`-l`), so reading them asks git
        # for no sizes first; the whole repository's listing (~10,000 files in nova) does
        # not: sizing every blob would cost more than it saves.
        sized = ["-l"] if paths else []
        args = ["ls-tree", "-z", "--full-tree", *sized, *(["-r"] if recursive else []), commit]
        out = self.git(*args, *(["--", *paths] if paths else []))
        found = []
        for record in out.split(b"\0"):
            if record:
                meta, _, name = record.partition(b"\t")
                mode, _kind, sha, *size = meta.decode().split()
                length = int(size[0]) if size and size[0].isdigit() else None
                if length is not None:
                    _OBJECTS.sized((str(self.top), sha), length)
                found.append(Entry(mode, sha, name.decode("utf-8", "surrogateescape"), length))
        return found

    def _index(self, *paths: str) -> list[Entry]:
        if self.bare:
            raise InputError("is a bare repository: it has no index or working tree to "
                             "compare; give --from-ref and --to-ref", str(self.top))
        out = self.git("ls-files", "-s", "-z", *(["--", *paths] if paths else []))
        found = []
        for record in out.split(b"\0"):
            if record:
                meta, _, name = record.partition(b"\t")
                mode, sha, stage = meta.decode().split(" ")
                path = name.decode("utf-8", "surrogateescape")
                if stage != "0":
                    raise InputError("has merge conflicts in the index", f":{path}")
                found.append(Entry(mode, sha, path))
        return found

    def sizes(self, shas: Iterable[str], display: str) -> dict[str, int]:
        """Object sizes by id, asked of git in one call (no content read); those known from
        an earlier read are not asked again."""
        asked = set(shas)
        known = {sha: kept for sha in asked
                 if (kept := _OBJECTS.size((str(self.top), sha))) is not None}
        wanted = sorted(asked - set(known))
        if not wanted:
            return known
        request = "".join(f"{sha}\n" for sha in wanted).encode()
        out = self.git("cat-file", "--batch-check=%(objectname) %(objectsize)",
                       stdin=request).decode()
        found = {}
        for line in out.splitlines():
            name, _, size = line.partition(" ")
            if not size.isdigit():  # "<sha> missing": a partial or broken clone
                raise InputError(missing_message(name, self.top), display)
            found[name] = int(size)
            _OBJECTS.sized((str(self.top), name), int(size))
        return {**known, **found}

    def blobs(self, items: Iterable[Entry], display: str, limit: int | None = None
              ) -> dict[str, bytes]:
        """Raw contents by object id, read by one `cat-file --batch`, within the size caps:
        objects larger than `limit` are left out; more than MAX_TREE_BYTES in all is an
        error."""
        items = list(items)
        sizes = {item.sha: item.size for item in items}
        if None in sizes.values():
            sizes.update(self.sizes([sha for sha, size in sizes.items() if size is None],
                                    display))
        wanted = sorted(sha for sha, size in sizes.items()
                        if limit is None or (size or 0) <= limit)
        if not wanted:
            return {}
        if sum(sizes[sha] or 0 for sha in wanted) > MAX_TREE_BYTES:
            raise InputError(f"the files to read hold more than {MAX_TREE_BYTES // 2**20} MiB",
                             display)
        found: dict[str, bytes] = {}
        for sha in wanted:
            kept = _OBJECTS.content((str(self.top), sha))
            if kept is not None:
                found[sha] = kept
        wanted = [sha for sha in wanted if sha not in found]
        if not wanted:
            return found
        request = "".join(f"{sha}\n" for sha in wanted).encode()
        total = sum(sizes[sha] or 0 for sha in wanted)
        out = self.git("cat-file", "--batch", stdin=request,
                       remember=total < _REMEMBERED_BYTES)
        at = 0
        while at < len(out):
            end = out.index(b"\n", at)
            header = out[at:end].decode().split(" ")
            if len(header) != 3:  # "<sha> missing": a partial or broken clone
                raise InputError(missing_message(header[0], self.top), display)
            size = int(header[2])
            found[header[0]] = out[end + 1:end + 1 + size]
            _OBJECTS.keep((str(self.top), header[0]), found[header[0]])
            at = end + 1 + size + 1
        return found


class _Objects:
    """Blobs already read, and sizes already asked, by repository and object id. An id
    names its content, so what was read once is the same at every revision that holds it:
    `history` reads the same few hundred blobs at commit after commit, and `check` the
    base's again beside the new side's. Bounded: the least recently used contents go
    first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.contents: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self.sizes: dict[tuple[str, str], int] = {}
        self.held = 0

    def size(self, key: tuple[str, str]) -> int | None:
        return self.sizes.get(key)

    def sized(self, key: tuple[str, str], size: int) -> None:
        if len(self.sizes) < _KEPT_SIZES:
            self.sizes[key] = size

    def content(self, key: tuple[str, str]) -> bytes | None:
        data = self.contents.get(key)
        if data is not None:
            self.contents.move_to_end(key)
        return data

    def keep(self, key: tuple[str, str], data: bytes) -> None:
        self.sized(key, len(data))
        if key in self.contents or len(data) > self.limit // 16:
            return
        self.contents[key] = data
        self.held += len(data)
        while self.held > self.limit:
            _, dropped = self.contents.popitem(last=False)
            self.held -= len(dropped)


_KEPT_SIZES = 200_000  # object ids whose size is remembered (~30 MB at most)
_OBJECTS = _Objects(64 * 2**20)


def _ignore_files_regular(repo: Repo) -> None:
    """The ignore files `ls-files --others` opens are regular files: git would block on a
    FIFO (the repository's own .gitignore files, as listed in the index)."""
    for item in repo.entries(None, []):
        if posixpath.basename(item.path) == ".gitignore":
            path = repo.top / item.path
            if path.exists() and not path.is_file() and not path.is_symlink():
                raise InputError("is not a regular file (git would block reading it)",
                                 str(path))
    top_ignore = repo.top / ".gitignore"
    if top_ignore.exists() and not top_ignore.is_file():
        raise InputError("is not a regular file (git would block reading it)", str(top_ignore))


def safe(path: str) -> bool:
    """A repository path that stays inside the copy (git refuses others; be sure)."""
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and ".." not in parts and "." not in parts \
        and ".git" not in parts and "" not in parts
