"""A repository as this tool reads it: revisions, listings, the index and raw blobs.

    repo = Repo.find(Path.cwd(), "not inside a git repository", "check")
    repo.commit("HEAD~1")                      # the commit id, or None
    repo.entries(commit, ["api-ref/source"])   # every file below, with its object id
    repo.blobs(entries, display, limit=...)    # raw contents by object id

Every question goes through `command.git`, and every object read through the one running
`cat-file` of the run (`command.batch`): no program but git, no network, bounded in time;
listings never ask for object sizes up front (`ls-tree` without `-l` reads no
blob, so a partial clone lists without fetching), sizes are asked only of the blobs read.
A bare repository is read as well: `top` is then its git folder and it has no working tree.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from needs_microversion.errors import InputError
from needs_microversion.loaders.git.command import Batch, GitFailed, batch, drop, git, \
    guard_repository, missing_message, missing_object

SYMLINK, SUBMODULE, TREE = "120000", "160000", "040000"
MAX_TREE_BYTES = 256 * 2**20  # all the blobs one read takes out of git
_PATHSPEC_CHUNK = 500  # paths per command line (Windows caps a command line at 32k chars)
# Object ids asked of the running `cat-file` at a time: their lines (41 or 65 bytes) stay
# within what it takes in one request (command.Batch.REQUEST_BYTES).
_REQUEST_IDS = 400


# One `ls-tree -z` record: mode, type, object, the size with `-l` (`-` for a folder), name.
_TREE_RECORD = re.compile(rb"([0-7]+) [a-z]+ ([0-9a-f]+)(?: +([0-9]+|-))?\t([^\0]*)\0")


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
        listed = _LISTINGS.get((str(self.top), commit))
        if listed is not None:  # the whole tree was listed: asked of it, not of git
            known = listed.by_path.get(path)
            if known is not None:
                return "file", known
            return ("dir", None) if listed.under(path) else ("", None)
        for item in self._tree(commit, [path], recursive=False):
            if item.path == path:
                return ("dir", None) if item.mode == TREE else ("file", item)
        return "", None

    def entries(self, commit: str | None, paths: Sequence[str]) -> list[Entry]:
        """Every file at or below PATHs (recursively); submodules left out."""
        found: list[Entry] = []
        listed = None if commit is None else _LISTINGS.get((str(self.top), commit))
        if not paths:  # the whole repository
            found = self._index() if commit is None else self._tree(commit, [], recursive=True)
            if commit is not None:
                _LISTINGS.keep((str(self.top), commit), found)
        elif listed is not None:  # the whole tree was listed: its part, in git's order
            found = listed.below(paths)
        for start in range(0, len(paths) if listed is None else 0, _PATHSPEC_CHUNK):
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
        top = str(self.top)
        for mode, sha, size, name in _TREE_RECORD.findall(out):  # one C pass: nova's 5,000
            length = int(size) if size.isdigit() else None
            if length is not None:
                _OBJECTS.sized((top, sha.decode()), length)
            found.append(Entry(mode.decode(), sha.decode(),
                               name.decode("utf-8", "surrogateescape"), length))
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
        found = dict(self._sizes(wanted, display))
        for sha, size in found.items():
            _OBJECTS.sized((str(self.top), sha), size)
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
        for name, data in self._contents(wanted, sizes, display):
            found[name] = data
            _OBJECTS.keep((str(self.top), name), data)
        return found

    def _contents(self, shas: list[str], sizes: dict[str, int | None], display: str
                  ) -> Iterator[tuple[str, bytes]]:
        """(id, bytes) of each object, from the running `cat-file --batch`. Their sizes
        were checked against the limits: an object larger than its size (a listing out of
        step with the object store) is an error, never a read without bound."""
        for running, sha, size in self._answers("--batch", shas, display):
            bound = sizes.get(sha)
            if bound is not None and size > bound:
                raise InputError(f"git object {sha} is not the size git listed", display)
            yield sha, running.take(size)

    def _sizes(self, shas: list[str], display: str) -> Iterator[tuple[str, int]]:
        for _, sha, size in self._answers("--batch-check=%(objectname) %(objectsize)",
                                          shas, display):
            yield sha, size

    def _answers(self, option: str, shas: list[str], display: str
                 ) -> Iterator[tuple[Batch, str, int]]:
        """(the running `cat-file`, id, size) of each object, from the header line of its
        answer (`--batch` then sends its content, which the caller takes). A missing
        object (a partial or broken clone) is an error naming it and the command that
        fetches it; on any error the running `cat-file` is ended: answers may be pending."""
        running = batch(self.top, "cat-file", option)
        try:
            for start in range(0, len(shas), _REQUEST_IDS):
                chunk = shas[start:start + _REQUEST_IDS]
                running.ask("".join(f"{sha}\n" for sha in chunk).encode())
                for _ in chunk:
                    name, _, rest = running.line().decode("ascii", "replace").partition(" ")
                    size = rest.rpartition(" ")[2]
                    if not size.isdigit():  # "<sha> missing"
                        raise InputError(missing_message(name, self.top), display)
                    yield running, name, int(size)
        except GitFailed as exc:  # it ended: a missing object (a partial clone), or worse
            drop(running)
            raise self._failed(exc, display) from None
        except BaseException:
            drop(running)
            raise

    def _failed(self, exc: GitFailed, display: str) -> InputError:
        sha = missing_object(exc.reason)
        if sha is not None:
            return InputError(missing_message(sha, self.top), display)
        return InputError(f"git cat-file failed: {exc.reason}", display)


class _Listing:
    """A commit's whole tree, as `ls-tree -r` listed it: a commit never changes, so the
    files below a folder (the api-ref tree, the samples it names) are read from it rather
    than asked of git again."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries  # git's order
        self.by_path = {item.path: item for item in entries}
        self.order = {item.path: at for at, item in enumerate(entries)}
        self.paths = sorted(self.by_path)

    def under(self, folder: str) -> list[str]:
        """The paths below `folder`."""
        prefix = folder.rstrip("/") + "/"
        start = bisect.bisect_left(self.paths, prefix)
        end = bisect.bisect_left(self.paths, prefix[:-1] + chr(ord("/") + 1), start)
        return self.paths[start:end]

    def below(self, paths: Sequence[str]) -> list[Entry]:
        """The files at or below each of `paths`, each once, in git's order."""
        if "" in paths:  # the top: everything
            return list(self.entries)
        found = {name for path in paths
                 for name in ([path] if path in self.by_path else self.under(path))}
        return [self.by_path[name] for name in sorted(found, key=self.order.__getitem__)]


class _Listings:
    """The last few commits' whole listings (`history` walks on; `check` reads two)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept: OrderedDict[tuple[str, str], _Listing] = OrderedDict()

    def get(self, key: tuple[str, str]) -> _Listing | None:
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
        return found

    def keep(self, key: tuple[str, str], entries: list[Entry]) -> None:
        self.kept[key] = _Listing(entries)
        while len(self.kept) > self.limit:
            self.kept.popitem(last=False)


_LISTINGS = _Listings(4)


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
    if path and path[0] not in "./" and "/." not in path and "//" not in path and \
            path[-1] != "/":
        return True  # no part is empty or starts with a dot: nearly every path, at C speed
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and ".." not in parts and "." not in parts \
        and ".git" not in parts and "" not in parts
