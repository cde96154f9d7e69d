"""A file or folder of one revision (or the index), taken out of git to be read.

    copy = copy_out(repo, commit, "api-ref/source", "HEAD~1:api-ref/source")
    copy.local, copy.files                   # a folder: its files in memory
    copy.local, copy.folder                  # a file: written to a temporary folder

The blobs are read raw (`cat-file --batch`: no filters, no textconv). A folder (an api-ref
tree) is held in memory, with the files outside it that its directives name (nova's
`../../doc/api_samples` examples), never written. A file is written to a temporary folder
that mirrors the repository's layout, with its folder tree when it may `$ref` another file,
so relative `$ref`s resolve at that revision under the same folder-tree limits as on disk.
Symlinks are followed inside the revision only: one that leads out of the repository is
refused. The temporary folders are removed when the process exits.
"""

from __future__ import annotations

import atexit
import posixpath
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from needs_microversion.documents.files import InMemory
from needs_microversion.errors import InputError
from needs_microversion.loaders.git.repo import SUBMODULE, SYMLINK, Entry, Repo, safe

URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# A `$ref` whose value does not start with "#" may name another file (JSON or YAML, quoted
# or not). Only used to decide whether the folder tree is worth copying: a false positive
# costs a copy, a value on a later line counts as external.
_EXTERNAL_REF = re.compile(rb"""\$ref['"]?[ \t]*:(?![ \t]*['"]?#)""")
# `.. name:: argument`: any directive argument may name a file (include, literalinclude,
# rest_parameters, rest_status_code).
_DIRECTIVE_ARG = re.compile(r"^[ \t]*\.\.[ \t]+[\w:-]+::[ \t]+(\S+)[ \t]*$", re.MULTILINE)
_MAX_HOPS = 40  # symlinks followed in a row, like the kernel's limit


@dataclass(frozen=True)
class LocalCopy:
    local: Path  # the file or folder: on disk, or in `files`
    display: str  # as the user wrote it
    is_dir: bool
    folder: Path | None = None  # the temporary folder holding a file (removed at exit)
    files: InMemory | None = None  # a folder's files (nothing written to disk)


def copy_out(repo: Repo, commit: str | None, path: str, display: str) -> LocalCopy:
    """The file or folder PATH at `commit` (None: the index)."""
    where = "in the index" if commit is None else f"at revision {display.partition(':')[0]}"
    kind, item, path = _follow(repo, commit, path, display, where)
    if not kind:
        raise InputError(f"no such file or folder {where}", display)
    if item is not None and item.mode == SUBMODULE:
        raise InputError(f"is a submodule {where}, not a file or folder", display)
    if item is None:  # a folder (an api-ref tree): read into memory, never written
        found = _files(repo, repo.entries(commit, [path] if path else []), display)
        found.update(_named_outside(repo, commit, path, display, found))
        # The api-ref reader confines reads to the nearest git work tree: the top.
        top = folder_top(commit)
        files = InMemory({top / name: data for name, data in found.items()},
                         (top / ".git",))
        return LocalCopy(top / path, display, True, files=files)
    try:
        folder = Path(tempfile.mkdtemp(prefix="needs-microversion-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _copy_file(repo, folder, commit, item, path, display)
    except OSError as exc:  # a full or read-only temporary folder
        raise InputError(f"cannot copy it out of git: {exc.strerror or exc}",
                         display) from None
    return LocalCopy(folder / path, display, False, folder)


def folder_top(commit: str | None) -> Path:
    """Where a revision's folder lies in memory (None: the index's)."""
    return Path("/", f"needs-microversion-{commit or 'index'}")


def _copy_file(repo: Repo, folder: Path, commit: str | None, item: Entry, path: str,
               display: str) -> None:
    """The file, and its folder tree when it may `$ref` another file."""
    raw = repo.blobs([item], display)[item.sha]
    made: set[str] = set()
    _write(folder, path, raw, made)
    if _EXTERNAL_REF.search(raw):
        parent = posixpath.dirname(path)
        found = _files(repo, repo.entries(commit, [parent] if parent else []), display,
                       skip=path)
        for name, data in found.items():
            _write(folder, name, data, made)


def _follow(repo: Repo, commit: str | None, path: str, display: str, where: str
            ) -> tuple[str, Entry | None, str]:
    for _ in range(_MAX_HOPS):
        kind, item = repo.entry(commit, path)
        if item is None or item.mode != SYMLINK:
            return kind, item, path
        target = repo.blobs([item], display)[item.sha].decode("utf-8", "replace")
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if target.startswith("/") or joined == ".." or joined.startswith("../"):
            raise InputError(f"is a symlink out of the repository {where}", display)
        path = "" if joined == "." else joined
    raise InputError(f"too many levels of symlinks {where}", display)


def _files(repo: Repo, listed: list[Entry], display: str, skip: str | None = None
           ) -> dict[str, bytes]:
    """The contents of the files listed by path (a symlink as the file it reaches)."""
    by_path = {item.path: item for item in listed}
    links = repo.blobs([item for item in listed if item.mode == SYMLINK], display)
    files = {}
    for item in listed:
        if item.path != skip:
            blob = _through_links(item, by_path, links)
            if blob is not None:
                files[item.path] = blob
    contents = repo.blobs(files.values(), display)
    return {path: contents[blob.sha] for path, blob in files.items()}


def _named_outside(repo: Repo, commit: str | None, source: str, display: str,
                   inside_files: dict[str, bytes]) -> dict[str, bytes]:
    """Files outside an api-ref folder that its directives name (examples, includes);
    `inside_files`: the folder's own."""
    found = outside_entries(repo, commit, outside_names(source, inside_files))
    return _files(repo, [item for item in found.values() if item is not None], display)


def outside_names(source: str, inside_files: Mapping[str, bytes]) -> list[str]:
    """The paths outside the api-ref folder `source` that its directives may name, from
    the folder's files (`inside_files`, by path from the top). Remembered for the last few
    folders: a tree taken out of git is then kept by them (`kept_trees`)."""
    key = (source, tuple(sorted((name, raw) for name, raw in inside_files.items()
                                if name.endswith((".rst", ".inc")))))
    found = _NAMES.get(key)
    if found is None:
        found = _NAMES[key] = _outside_names(source, inside_files)
        while len(_NAMES) > 4:
            del _NAMES[next(iter(_NAMES))]
    return list(found)


_NAMES: dict[tuple[str, tuple[tuple[str, bytes], ...]], list[str]] = {}


def _outside_names(source: str, inside_files: Mapping[str, bytes]) -> list[str]:
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
            if arg.startswith("<") or URL.match(arg):
                continue
            starts = roots if arg.startswith("/") else {posixpath.dirname(name), *bases}
            for start in starts:
                joined = posixpath.normpath(posixpath.join(start, arg.lstrip("/")))
                if safe(joined) and not joined.startswith(inside):
                    names.add(joined)
    return sorted(names)


def outside_entries(repo: Repo, commit: str | None, names: Sequence[str]
                    ) -> dict[str, Entry | None]:
    """Each name's file at `commit` (None: no such file, or a symlink, which is not
    followed out of the folder)."""
    if not names:
        return {}
    wanted = set(names)
    found = {item.path: item for item in repo.entries(commit, sorted(names))
             if item.path in wanted and item.mode != SYMLINK}
    return {name: found.get(name) for name in names}


def _through_links(item: Entry, by_path: dict[str, Entry], links: dict[str, bytes]
                   ) -> Entry | None:
    """The file an entry stands for: itself, or the listed file its symlinks reach."""
    for _ in range(_MAX_HOPS):
        if item.mode != SYMLINK:
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


def _write(folder: Path, path: str, raw: bytes, made: set[str]) -> None:
    """Write one file of a copy; `made`: the folders already made for it (a tree has a few
    folders and hundreds of files: one mkdir each, not one per file)."""
    parent = posixpath.dirname(path)
    if parent not in made:
        (folder / parent).mkdir(parents=True, exist_ok=True)
        made.add(parent)
    (folder / path).write_bytes(raw)
