"""A revision's api-ref tree, read once and kept by the content of every file it read: the
hook and CI compare every commit of a branch with one base; `history` walks commits that
share most of their files.

    reading = kept_reading(target, files, display, keep_major)   # read, or kept by content
    found = by_blobs("HEAD~1:api-ref/source", keep_major)        # (folder, reading) or None

`kept_reading` reads a tree taken out of git (`loaders/git/copy`) and keeps the reading by
blob ids; `by_blobs` finds it before anything is taken out of git: by the blob ids of the
folder's files (git names content: one `ls-tree`), and of the files outside it that the
folder's directives name (nova's samples; the names are kept by the folder's blobs),
present or absent, so a base side already read costs a listing, not a read of 2,000 files.
A folder with a symlink in it is kept by the digests of the files read (a link's blob is
its target's name, not its content).

The tree's in-memory top names its commit (`/needs-microversion-<commit>`): it is kept as a
placeholder and put back, and the name the tree was read as (`HEAD~1:api-ref/source`, its
document's title and the start of its warnings) is left out and put back, so one content is
one entry whatever the commit and however it is named: a change that leaves api-ref alone
finds its new side kept under its base's reading.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from needs_microversion.documents.parsed import ParsedCache, content_digest
from needs_microversion.errors import InputError

if TYPE_CHECKING:
    from needs_microversion.documents.files import InMemory
    from needs_microversion.loaders.git.repo import Entry
    from needs_microversion.loaders.apiref.reader import ApiRefResult
    from needs_microversion.loaders.git import Repo

_TOP_MARK = "/\u0000needs-microversion-top\u0000"


def kept_reading(target: Path, files: InMemory, display: str,
                 keep_major: bool | None, write_files: bool = True) -> ApiRefResult:
    """The tree's reading: kept from an earlier run when every file is the same, else read
    and kept: by blob ids when the tree is REV:PATH (`by_blobs` looked before the tree was
    taken out of git), else by the content of every file. Its files' readings are replayed
    where kept, and kept unless not `write_files`."""
    from needs_microversion.loaders.apiref.reader import load_apiref

    top = _top(target)
    cache = ParsedCache("apiref")
    place = _blob_place(display, target)
    key = None if place is not None else cache.key(
        "api-ref", [*_settings(keep_major, target, top),
                    *((os.path.relpath(path, top), content_digest(data))
                      for path, data in files.files.items())])
    kept = None if key is None else _reading(cache.get_text(key), top, display)
    if kept is not None:
        return kept
    result = load_apiref(target, display=display, keep_major=keep_major, fs=files,
                         keep_files=True, write_files=write_files)
    text = _portable(result, top, display)
    if text is not None and key is not None:
        cache.put_text(key, {}, text)
    elif text is not None and place is not None:
        _keep_by_blobs(cache, place, keep_major, target, top, files, text)
    return result


_Place = tuple["Repo", "str | None", str, dict[str, str]]  # repo, commit, path, its blobs


def _blob_place(display: str, target: Path | None = None) -> _Place | None:
    """Where REV:PATH's folder is in git, with its files' blob ids; None when `display` is
    no plain folder at a revision (or, given, not the tree at `target`)."""
    from needs_microversion.loaders.git import rev_path
    from needs_microversion.loaders.git.copy import folder_top

    try:
        found = rev_path(display, None)
    except InputError:  # not REV:PATH after all: read the long way, which says why
        return None
    if found is None:
        return None
    repo, commit, path = found
    inside = _listing(repo, commit, path)
    if inside is None or (target is not None and folder_top(commit) / path != target):
        return None
    return repo, commit, path, inside


def by_blobs(display: str, keep_major: bool | None) -> tuple[Path, ApiRefResult] | None:
    """REV:PATH's tree reading kept by an earlier run, found from git's listing alone;
    None when none is kept, or `display` is no plain folder at a revision."""
    from needs_microversion.loaders.git.copy import folder_top, outside_entries

    cache = ParsedCache("apiref")
    place = _blob_place(display) if cache.on else None
    if place is None:
        return None
    repo, commit, path, inside = place
    top = str(folder_top(commit))
    target = Path(top, path)
    names = cache.get(_names_key(cache, keep_major, target, top, inside))
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return None
    outside = outside_entries(repo, commit, names)
    reading = _reading(cache.get_text(_reading_key(cache, keep_major, target, top, inside,
                                                   outside)), top, display)
    return None if reading is None else (target, reading)


def _keep_by_blobs(cache: ParsedCache, place: _Place, keep_major: bool | None,
                   target: Path, top: str, files: InMemory, text: str) -> None:
    """Keep the reading under the blob ids of what it read: the folder's, and those of the
    files outside it that its directives name (present or not)."""
    from needs_microversion.loaders.git.copy import outside_entries, outside_names

    repo, commit, path, inside = place
    prefix = top.rstrip("/") + "/"  # the files lie below the top: no relpath for each
    held = {str(name)[len(prefix):]: data for name, data in files.files.items()
            if str(name).startswith(prefix)}
    names = outside_names(path, {name: held[name] for name in inside if name in held})
    outside = outside_entries(repo, commit, names)
    cache.put(_names_key(cache, keep_major, target, top, inside), names)
    cache.put_text(_reading_key(cache, keep_major, target, top, inside, outside), {}, text)


def _listing(repo: Repo, commit: str | None, path: str) -> dict[str, str] | None:
    """path -> blob id of the folder's files; None for no folder, or one holding a
    symlink."""
    from needs_microversion.loaders.git.repo import SYMLINK

    if not path or repo.entry(commit, path)[0] != "dir":
        return None
    entries = repo.entries(commit, [path])
    if any(item.mode == SYMLINK for item in entries):
        return None
    return {item.path: item.sha for item in entries}


# Two entries: the names a folder's directives give outside it (what its own blobs say),
# then the reading, by the blobs of both. Two revisions with the same folder and other
# samples (a change to doc/api_samples alone) have one first entry and two readings.
def _names_key(cache: ParsedCache, keep_major: bool | None, target: Path, top: str,
               inside: dict[str, str]) -> str:
    return cache.key("api-ref-outside-names", [*_settings(keep_major, target, top),
                                               *inside.items()])


def _reading_key(cache: ParsedCache, keep_major: bool | None, target: Path, top: str,
                 inside: dict[str, str], outside: dict[str, Entry | None]) -> str:
    return cache.key("api-ref-by-blobs", [
        *_settings(keep_major, target, top), *inside.items(),
        *((f"outside:{name}", item.sha if item is not None else "") for name, item
          in outside.items())])


def _settings(keep_major: bool | None, target: Path, top: str) -> list[tuple[str, str]]:
    return [("keep_major", str(keep_major)), ("target", os.path.relpath(target, top))]


def _portable(result: ApiRefResult, top: str, display: str) -> str | None:
    """The reading as kept: without its top, nor the name it was read as (the title, and
    the start of each warning, where the reader put them); None when it cannot be kept
    that way (a file that spells the placeholder)."""
    info = result.document.get("info")
    titled = isinstance(info, dict) and info.get("title") == display
    document = {**result.document, "info": {**info, "title": ""}} \
        if titled and isinstance(info, dict) else result.document
    warnings = [[True, w[len(display):]] if w.startswith(display) else [False, w]
                for w in result.warnings]
    text = json.dumps({"document": document, "titled": titled, "warnings": warnings,
                       "max_version": result.max_version}, separators=(",", ":"))
    return None if _TOP_MARK in text else text.replace(top, _TOP_MARK)


def _reading(kept: tuple[Any, str] | None, top: str, display: str) -> ApiRefResult | None:
    """A kept reading back (`get_text`'s), as read from `top` under the name `display`."""
    from needs_microversion.loaders.apiref.reader import ApiRefResult

    if kept is None:
        return None
    try:
        data = json.loads(kept[1].replace(_TOP_MARK, top))
        document = data["document"]
        if data["titled"]:
            document["info"]["title"] = display
        warnings = tuple(display + rest if named else rest for named, rest in data["warnings"])
        return ApiRefResult(document, warnings, data["max_version"])
    except (ValueError, KeyError, TypeError):
        return None  # not an entry this tool wrote: read again


def _top(target: Path) -> str:
    return str(Path(target.anchor, *target.parts[1:2]))  # `/needs-microversion-<commit>`
