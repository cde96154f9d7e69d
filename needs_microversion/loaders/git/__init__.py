"""Git, read safely: one side of a comparison given as `REV:PATH`, and the repository that
`check` and `history` read.

    copy = checkout("HEAD~1:api/openapi.yaml")   # None: not written as REV:PATH
    copy.local, copy.display, copy.is_dir        # a file on disk, "HEAD~1:api/openapi.yaml"

PATH is relative to the repository's top folder, as in `git show REV:PATH`; `./` or `../`
make it relative to the current folder. An empty REV (`:PATH`) is the index (staged
content), git's own notation.

The modules: `command` is the one place git is started (no program but git, no network,
bounded in time); `repo` the questions asked of a repository (revisions, listings, blobs);
`copy` a revision's file or folder taken out to be read; `worktree` what the working tree
changed, found by hashing what is read. Failures are InputErrors naming the revision and
path.
"""

from __future__ import annotations

import re
from pathlib import Path

from needs_microversion.documents.files import current_folder
from needs_microversion.errors import InputError
from needs_microversion.loaders.git.command import cached
from needs_microversion.loaders.git.copy import URL, LocalCopy, copy_out
from needs_microversion.loaders.git.repo import Entry, Repo

__all__ = ["Entry", "LocalCopy", "Repo", "cached", "checkout", "folder_listing",
           "looks_like_rev_path", "names_folder", "rev_path", "snapshot_name"]

# `C:\x`, `C:/x`, `C:x` (a drive), `\\server\share`: paths, never revisions.
_WINDOWS = re.compile(r"^(?:[A-Za-z]:|\\\\)")


def looks_like_rev_path(text: str) -> bool:
    """Written as REV:PATH: a colon, and not a Windows path, a URL or an option."""
    return (":" in text and not _WINDOWS.match(text) and not URL.match(text)
            and not text.startswith("-"))


def checkout(text: str, cwd: Path | None = None) -> LocalCopy | None:
    """Copy REV:PATH out of the repository holding `cwd`; None if `text` is not REV:PATH.

    Call only when `text` does not exist as a path. It is REV:PATH when the part before
    the first colon is a commit (or empty: the index); otherwise an InputError says why the
    name is neither a file nor REV:PATH.
    """
    found = rev_path(text, cwd)
    if found is None:
        return None
    repo, commit, path = found
    return copy_out(repo, commit, path, text)


def names_folder(text: str) -> bool:
    """Whether REV:PATH names a folder (False for a file, a symlink, or no REV:PATH)."""
    try:
        found = rev_path(text, None)
    except InputError:  # said again, naming the input, when it is read
        return False
    return found is not None and found[0].entry(found[1], found[2])[0] == "dir"


def folder_listing(text: str, cwd: Path | None = None) -> list[str] | None:
    """The files below REV:PATH when it names a folder, relative to it ("/"-separated);
    None when `text` is not REV:PATH or names a file."""
    found = rev_path(text, cwd)
    if found is None:
        return None
    repo, commit, path = found
    if repo.entry(commit, path)[0] != "dir":
        return None
    prefix = f"{path}/" if path else ""
    return sorted(item.path[len(prefix):] for item in repo.entries(commit, [path] if path
                                                                   else []))


def rev_path(text: str, cwd: Path | None) -> tuple[Repo, str | None, str] | None:
    """(repository, commit or None for the index, path from the top) of REV:PATH."""
    if not looks_like_rev_path(text):
        return None
    rev, _, path = text.partition(":")
    folder = current_folder() if cwd is None else cwd
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


