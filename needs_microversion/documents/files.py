"""Where files are read from: the disk, or a git revision held in memory.

A revision's tree (`REV:api-ref/source`, and the samples its directives name) is read out of
git into memory, never written to a temporary folder: `check` compares two revisions of
hundreds of files each (nova: ~400 with the samples), and writing them out only to read them
back cost 0.3-0.6 s of system time a run on a busy file system. The reader asks these few
questions of either.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from needs_microversion.documents.reading import FileTooLarge, describe_size, read_bounded
from needs_microversion.errors import InputError


class Files(Protocol):
    def is_file(self, path: Path) -> bool: ...
    def is_dir(self, path: Path) -> bool: ...
    def resolve(self, path: Path) -> Path: ...
    def below(self, folder: Path, suffixes: tuple[str, ...]) -> list[Path]: ...
    def read(self, path: Path, display: str, limit: int) -> bytes: ...


class Disk:
    """The file system, as `pathlib` sees it (symlinks followed by `resolve`, a loop of
    them left as a name)."""

    def is_file(self, path: Path) -> bool:
        return path.is_file()

    def is_dir(self, path: Path) -> bool:
        return path.is_dir()

    def resolve(self, path: Path) -> Path:
        return real(path)

    def below(self, folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
        """Every file below a folder with one of these suffixes, as reached (not resolved)."""
        return [path for path in folder.rglob("*") if path.suffix in suffixes
                and path.is_file()]

    def read(self, path: Path, display: str, limit: int) -> bytes:
        return read_bounded(path, display, limit)


DISK = Disk()


def real(path: str | Path) -> Path:
    """The path with its links followed (`Path.resolve` raises on a loop of links before
    Python 3.13; a loop here stays a name, and reading it says what is wrong). A relative
    path in a folder deleted under the shell is an InputError, as `current_folder` says."""
    if not os.path.isabs(path):
        path = current_folder() / path
    return Path(os.path.realpath(path))


def current_folder() -> Path:
    """The current folder; InputError when it no longer exists (deleted under the shell)."""
    try:
        return Path.cwd()
    except OSError as exc:
        raise InputError(f"the current folder cannot be read ({exc.strerror or exc}): was it "
                         "deleted? cd into the repository again") from None


@dataclass(frozen=True)
class InMemory:
    """Files by absolute path below a root that is on no disk; symlinks were followed when
    the files were taken out of git, so a path resolves by its spelling alone."""

    files: Mapping[Path, bytes]
    folders: tuple[Path, ...] = ()  # folders holding no file (a marker such as `.git`)
    _dirs: frozenset[Path] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        dirs = {parent for path in (*self.files, *self.folders) for parent in path.parents}
        object.__setattr__(self, "_dirs", frozenset(dirs | set(self.folders)))

    def is_file(self, path: Path) -> bool:
        # A path spelt plainly (most are) is found without being spelt again.
        return path in self.files or self.resolve(path) in self.files

    def is_dir(self, path: Path) -> bool:
        return self.resolve(path) in self._dirs

    def resolve(self, path: Path) -> Path:
        return Path(os.path.normpath(path))

    def below(self, folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
        return [path for path in self.files
                if path.suffix in suffixes and path.is_relative_to(folder)]

    def read(self, path: Path, display: str, limit: int) -> bytes:
        data = self.files.get(path)
        if data is None:
            data = self.files.get(self.resolve(path))
        if data is None:
            if self.is_dir(path):
                raise InputError("is a directory, not a file", display)
            raise InputError("no such file", display)
        if len(data) > limit:
            raise FileTooLarge(f"is larger than {describe_size(limit)} (the limit)", display)
        return data


# Longer than any file system takes (PATH_MAX, NAME_MAX on Linux and macOS): such a name is
# no file, and asking the system about it raises an error of its own, not "no such file".
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 255


def possible_path(text: str) -> bool:
    """Whether `text` could name a file at all (length, no NUL); a name that cannot is
    reported as no such file, never asked of the system."""
    return (len(text) <= MAX_PATH_CHARS and "\0" not in text
            and all(len(part.encode("utf-8", "surrogateescape")) <= MAX_NAME_CHARS
                    for part in text.replace("\\", "/").split("/")))
