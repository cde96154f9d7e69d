"""Read one side of a comparison out of git: `REV:PATH`, a file or an api-ref folder.

    copy = checkout("HEAD~1:api/openapi.yaml")   # None: not written as REV:PATH
    copy.local, copy.display, copy.is_dir        # a file on disk, "HEAD~1:api/openapi.yaml"

PATH is relative to the repository's top folder, as in `git show REV:PATH`; `./` or `../`
make it relative to the current folder. An empty REV (`:PATH`) is the index (staged
content), git's own notation.

The blobs are read raw (`cat-file --batch`: no filters, no textconv) into a temporary folder
that mirrors the repository's layout, so relative `$ref`s and api-ref includes resolve at
that revision under the same folder-tree limits as on disk: a file's whole folder tree is
copied when the file may `$ref` another file; an api-ref folder is copied with the files
outside it that its directives name (nova's `../../doc/api_samples` examples). Symlinks
are copied as the file they point to when that file is copied too. The folders are
removed when the process exits.

Git runs as a subprocess with an argument list (never a shell), with `-C <top>`, literal
pathspecs, no terminal prompt (GIT_TERMINAL_PROMPT=0) and no stdin. Failures are
InputErrors naming the revision and path.
"""

from __future__ import annotations

import atexit
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from needs_microversion.documents.files import InMemory
from needs_microversion.errors import InputError

# `C:\x`, `C:/x`, `C:x` (a drive), `\\server\share`: paths, never revisions.
_WINDOWS = re.compile(r"^(?:[A-Za-z]:|\\\\)")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# A `$ref` whose value does not start with "#" may name another file (JSON or YAML, quoted
# or not). Only used to decide whether the folder tree is worth copying: a false positive
# costs a copy, a value on a later line counts as external.
_EXTERNAL_REF = re.compile(rb"""\$ref['"]?[ \t]*:(?![ \t]*['"]?#)""")
# `.. name:: argument`: any directive argument may name a file (include, literalinclude,
# rest_parameters, rest_status_code).
_DIRECTIVE_ARG = re.compile(r"^[ \t]*\.\.[ \t]+[\w:-]+::[ \t]+(\S+)[ \t]*$", re.MULTILINE)

_SYMLINK, _SUBMODULE, _TREE = "120000", "160000", "040000"
_MAX_HOPS = 40  # symlinks followed in a row, like the kernel's limit
_MAX_TREE_BYTES = 256 * 2**20
_PATHSPEC_CHUNK = 500  # paths per command line (Windows caps a command line at 32k chars)


@dataclass(frozen=True)
class LocalCopy:
    local: Path  # the file or folder: on disk, or in `files`
    display: str  # as the user wrote it
    is_dir: bool
    folder: Path | None = None  # the temporary folder holding a file (removed at exit)
    files: InMemory | None = None  # a folder's files (nothing written to disk)


@dataclass(frozen=True)
class Entry:
    mode: str
    sha: str
    path: str  # relative to the repository top, "/"-separated
    size: int | None = None  # bytes, when the listing says (ls-tree -l; not the index)


def looks_like_rev_path(text: str) -> bool:
    """Written as REV:PATH: a colon, and not a Windows path, a URL or an option."""
    return (":" in text and not _WINDOWS.match(text) and not _URL.match(text)
            and not text.startswith("-"))


def checkout(text: str, cwd: Path | None = None) -> LocalCopy | None:
    """Copy REV:PATH out of the repository holding `cwd`; None if `text` is not REV:PATH.

    Call only when `text` does not exist as a path. It is REV:PATH when the part before
    the first colon is a commit (or empty: the index); otherwise an InputError says why the
    name is neither a file nor REV:PATH.
    """
    found = _rev_path(text, cwd)
    if found is None:
        return None
    repo, commit, path = found
    return repo.copy(commit, path, text)


def names_folder(text: str) -> bool:
    """Whether REV:PATH names a folder (False for a file, a symlink, or no REV:PATH)."""
    try:
        found = _rev_path(text, None)
    except InputError:  # said again, naming the input, when it is read
        return False
    return found is not None and found[0].entry(found[1], found[2])[0] == "dir"


def folder_listing(text: str, cwd: Path | None = None) -> list[str] | None:
    """The files below REV:PATH when it names a folder, relative to it ("/"-separated);
    None when `text` is not REV:PATH or names a file."""
    found = _rev_path(text, cwd)
    if found is None:
        return None
    repo, commit, path = found
    if repo.entry(commit, path)[0] != "dir":
        return None
    prefix = f"{path}/" if path else ""
    return sorted(item.path[len(prefix):] for item in repo.entries(commit, [path] if path
                                                                   else []))


def _rev_path(text: str, cwd: Path | None) -> tuple[Repo, str | None, str] | None:
    """(repository, commit or None for the index, path from the top) of REV:PATH."""
    if not looks_like_rev_path(text):
        return None
    rev, _, path = text.partition(":")
    folder = Path.cwd() if cwd is None else cwd
    repo = Repo.find(folder, "no such file, and not inside a git repository to read it as "
                             "REV:PATH", text)
    commit = repo.commit(rev) if rev else None
    if rev and commit is None:
        raise InputError(f"no such file, and {rev!r} is not a revision of the git repository "
                         f"at {repo.top}", text)
    if not path.strip():
        raise InputError("REV:PATH needs a path after the colon", text)
    return repo, commit, repo.path_in_repo(path, folder, text)


def snapshot_name(rev: str | None, path: str) -> str:
    """The REV:PATH text for a revision (None: the index) and a repository path."""
    return f"{rev or ''}:{path}"


@dataclass(frozen=True)
class Repo:
    top: Path

    @classmethod
    def find(cls, folder: Path, message: str, display: str) -> Repo:
        """The repository holding `folder`; InputError(message) outside one."""
        try:
            out = _git(folder, "rev-parse", "--show-toplevel")
        except _GitFailed as exc:
            reason = exc.reason if exc.code != 128 or "not a git repository" not in exc.reason \
                else ""
            raise InputError(f"{message}{f' ({reason})' if reason else ''}", display) from None
        return cls(Path(os.fsdecode(out.rstrip(b"\n"))))

    def git(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            return _git(self.top, *args, stdin=stdin)
        except _GitFailed as exc:
            raise InputError(f"git {args[0]} failed: {exc.reason}", str(self.top)) from None

    def commit(self, rev: str) -> str | None:
        """The commit a revision names, or None (a name starting with "-" is never one)."""
        if not rev or rev.startswith("-"):
            return None
        try:
            out = _git(self.top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except _GitFailed:
            return None
        return out.decode().strip() or None

    def merge_base(self, one: str, other: str, names: str) -> str:
        """The best common ancestor of two commits; `names` says which, for the error."""
        try:
            return _git(self.top, "merge-base", one, other).decode().strip()
        except _GitFailed as exc:
            raise InputError(f"{names} have no common ancestor"
                             f"{f' ({exc.reason})' if exc.reason else ''}",
                             str(self.top)) from None

    def path_in_repo(self, path: str, cwd: Path, display: str) -> str:
        """PATH as git reads it in REV:PATH: from the top, or from `cwd` after ./ or ../"""
        path = path.replace(os.sep, "/") if os.sep != "/" else path
        if path.startswith(("./", "../")) or path in (".", ".."):
            try:
                prefix = _git(cwd, "rev-parse", "--show-prefix").decode().strip()
            except _GitFailed as exc:
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
                return ("dir", None) if item.mode == _TREE else ("file", item)
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
        return [item for item in found if item.mode != _SUBMODULE and _safe(item.path)]

    def untracked(self) -> list[str]:
        """Files in the working tree that git does not track and does not ignore."""
        out = self.git("ls-files", "-z", "--others", "--exclude-standard")
        return [name for name in out.decode("utf-8", "surrogateescape").split("\0")
                if name and _safe(name)]

    def _tree(self, commit: str, paths: Sequence[str], *, recursive: bool) -> list[Entry]:
        args = ["ls-tree", "-z", "-l", "--full-tree", *(["-r"] if recursive else []), commit]
        out = self.git(*args, *(["--", *paths] if paths else []))
        found = []
        for record in out.split(b"\0"):
            if record:
                meta, _, name = record.partition(b"\t")
                mode, _kind, sha, size = meta.decode().split()
                found.append(Entry(mode, sha, name.decode("utf-8", "surrogateescape"),
                                   int(size) if size.isdigit() else None))
        return found

    def _index(self, *paths: str) -> list[Entry]:
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

    def blobs(self, items: Iterable[Entry], display: str) -> dict[str, bytes]:
        """Raw contents by object id, read by one `cat-file --batch`, within a size cap."""
        sizes = {item.sha: item.size for item in items}
        wanted = sorted(sizes)
        if not wanted:
            return {}
        request = "".join(f"{sha}\n" for sha in wanted).encode()
        if None in sizes.values():  # the index does not say: ask first, read after
            checked = self.git("cat-file", "--batch-check=%(objectsize)", stdin=request)
            total = sum(int(size) for size in checked.split() if size.isdigit())
        else:
            total = sum(size or 0 for size in sizes.values())
        if total > _MAX_TREE_BYTES:
            raise InputError(f"the files to read hold more than {_MAX_TREE_BYTES // 2**20} MiB",
                             display)
        out = self.git("cat-file", "--batch", stdin=request)
        found: dict[str, bytes] = {}
        at = 0
        while at < len(out):
            end = out.index(b"\n", at)
            header = out[at:end].decode().split(" ")
            if len(header) != 3:  # "<sha> missing": a broken repository
                raise InputError(f"git object {header[0]} is missing", display)
            size = int(header[2])
            found[header[0]] = out[end + 1:end + 1 + size]
            at = end + 1 + size + 1
        return found

    # -- copying into a temporary folder ------------------------------------------------

    def copy(self, commit: str | None, path: str, display: str) -> LocalCopy:
        """Copy the file or folder PATH at `commit` (None: the index) to a temporary folder."""
        where = "in the index" if commit is None else f"at revision {display.partition(':')[0]}"
        kind, item, path = self._follow(commit, path, display, where)
        if not kind:
            raise InputError(f"no such file or folder {where}", display)
        if item is not None and item.mode == _SUBMODULE:
            raise InputError(f"is a submodule {where}, not a file or folder", display)
        if item is None:  # a folder (an api-ref tree): read into memory, never written
            found = self._files(self.entries(commit, [path] if path else []), display)
            found.update(self._named_outside(commit, path, display, found))
            # The api-ref reader confines reads to the nearest git work tree: the top.
            top = Path("/", f"needs-microversion-{commit or 'index'}")
            files = InMemory({top / name: data for name, data in found.items()},
                             (top / ".git",))
            return LocalCopy(top / path, display, True, files=files)
        try:
            folder = Path(tempfile.mkdtemp(prefix="needs-microversion-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            self._copy_file(folder, commit, item, path, display)
        except OSError as exc:  # a full or read-only temporary folder
            raise InputError(f"cannot copy it out of git: {exc.strerror or exc}",
                             display) from None
        return LocalCopy(folder / path, display, False, folder)

    def _copy_file(self, folder: Path, commit: str | None, item: Entry, path: str,
                   display: str) -> None:
        """The file, and its folder tree when it may `$ref` another file."""
        raw = self.blobs([item], display)[item.sha]
        made: set[str] = set()
        _write(folder, path, raw, made)
        if _EXTERNAL_REF.search(raw):
            parent = posixpath.dirname(path)
            found = self._files(self.entries(commit, [parent] if parent else []), display,
                                skip=path)
            for name, data in found.items():
                _write(folder, name, data, made)

    def _follow(self, commit: str | None, path: str, display: str, where: str
                ) -> tuple[str, Entry | None, str]:
        for _ in range(_MAX_HOPS):
            kind, item = self.entry(commit, path)
            if item is None or item.mode != _SYMLINK:
                return kind, item, path
            target = self.blobs([item], display)[item.sha].decode("utf-8", "replace")
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            if target.startswith("/") or joined == ".." or joined.startswith("../"):
                raise InputError(f"is a symlink out of the repository {where}", display)
            path = "" if joined == "." else joined
        raise InputError(f"too many levels of symlinks {where}", display)

    def _files(self, listed: list[Entry], display: str, skip: str | None = None
               ) -> dict[str, bytes]:
        """The contents of the files listed by path (a symlink as the file it reaches)."""
        by_path = {item.path: item for item in listed}
        links = self.blobs([item for item in listed if item.mode == _SYMLINK], display)
        files = {}
        for item in listed:
            if item.path != skip:
                blob = _through_links(item, by_path, links)
                if blob is not None:
                    files[item.path] = blob
        contents = self.blobs(files.values(), display)
        return {path: contents[blob.sha] for path, blob in files.items()}

    def _named_outside(self, commit: str | None, source: str, display: str,
                       inside_files: dict[str, bytes]) -> dict[str, bytes]:
        """Files outside an api-ref folder that its directives name (examples, includes);
        `inside_files`: the folder's own."""
        inside = f"{source}/" if source else ""
        # Universal newlines, as a text read gives them: a CRLF file names its samples too.
        texts = {name: raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
                 .replace("\r", "\n")
                 for name, raw in inside_files.items() if name.endswith((".rst", ".inc"))}
        bases = {posixpath.dirname(name) for name in texts if name.endswith(".rst")}
        roots = [source, *_parents(source)]
        names = set()
        for name, text in texts.items():
            for arg in _DIRECTIVE_ARG.findall(text):
                if arg.startswith("<") or _URL.match(arg):
                    continue
                starts = roots if arg.startswith("/") else {posixpath.dirname(name), *bases}
                for start in starts:
                    joined = posixpath.normpath(posixpath.join(start, arg.lstrip("/")))
                    if _safe(joined) and not joined.startswith(inside):
                        names.add(joined)
        if not names:
            return {}
        found = [item for item in self.entries(commit, sorted(names))
                 if item.path in names and item.mode != _SYMLINK]
        return self._files(found, display)


def _through_links(item: Entry, by_path: dict[str, Entry], links: dict[str, bytes]
                   ) -> Entry | None:
    """The file an entry stands for: itself, or the listed file its symlinks reach."""
    for _ in range(_MAX_HOPS):
        if item.mode != _SYMLINK:
            return item
        target = links[item.sha].decode("utf-8", "replace")
        if target.startswith("/"):
            return None
        found = by_path.get(posixpath.normpath(posixpath.join(posixpath.dirname(item.path),
                                                               target)))
        if found is None:
            return None
        item = found
    return None


def _parents(path: str) -> list[str]:
    found = []
    while path:
        path = posixpath.dirname(path)
        found.append(path)
    return found


def _safe(path: str) -> bool:
    """A repository path that stays inside the copy (git refuses others; be sure)."""
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and ".." not in parts and "." not in parts \
        and ".git" not in parts and "" not in parts


def _write(folder: Path, path: str, raw: bytes, made: set[str]) -> None:
    """Write one file of a copy; `made`: the folders already made for it (a tree has a few
    folders and hundreds of files: one mkdir each, not one per file)."""
    parent = posixpath.dirname(path)
    if parent not in made:
        (folder / parent).mkdir(parents=True, exist_ok=True)
        made.add(parent)
    (folder / path).write_bytes(raw)


# Answers of read-only git commands within one `cached()` block (one `check` run): the
# same revisions and paths are asked about for every document and both sides.
_CACHE: dict[tuple[str, tuple[str, ...], bytes | None], bytes | _GitFailed] | None = None


@contextmanager
def cached() -> Iterator[None]:
    """Remember git's answers inside the block; the repository must not change meanwhile."""
    global _CACHE
    outer, _CACHE = _CACHE, {} if _CACHE is None else _CACHE
    try:
        yield
    finally:
        _CACHE = outer


class _GitFailed(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> bytes:
    if _CACHE is None:
        return _run_git(cwd, *args, stdin=stdin)
    key = (str(cwd), args, stdin)
    if key not in _CACHE:
        try:
            _CACHE[key] = _run_git(cwd, *args, stdin=stdin)
        except _GitFailed as exc:
            _CACHE[key] = exc
    answer = _CACHE[key]
    if isinstance(answer, _GitFailed):
        raise answer
    return answer


def _run_git(cwd: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        done = subprocess.run(["git", "-C", str(cwd), "--literal-pathspecs", *args],
                              input=stdin, stdin=None if stdin is not None else
                              subprocess.DEVNULL, capture_output=True, env=env, check=False)
    except FileNotFoundError:
        raise InputError("git is not installed (needed to read REV:PATH inputs)") from None
    except OSError as exc:
        raise InputError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[0].removeprefix("fatal: ").removeprefix("error: ") if lines else ""
        raise _GitFailed(done.returncode, reason)
    return done.stdout
