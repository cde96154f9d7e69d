"""A folder of OpenAPI documents on each side, paired document by document.

openstack-openapi keeps one folder per service and one file per major version, named by the
newest microversion it covers, with a symlink from the major's plain name:

    specs/compute/v2.96.yaml       specs/compute/v2.yaml -> v2.96.yaml
    specs/block-storage/v2.yaml    specs/block-storage/v3.70.yaml   (v3.yaml -> v3.70.yaml)

A document is known by its service (the folder it is in) and its major version (`v2`, from
the file name): `compute v2`. Of several files of one service and major, the most specific
name is the document (`v2.96.yaml` over `v2.yaml`, the symlink to it). The two sides pair by
that key, so `v2.95.yaml` -> `v2.96.yaml` is one document changed, not one removed and one
added; a service with one document on each side pairs even when renamed (`all.yaml` ->
`v2.yaml`). A folder is such a folder when it holds JSON/YAML files and no api-ref source
(`.inc`/`.rst`).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from needs_microversion.errors import InputError

_DOCUMENT_SUFFIXES = (".yaml", ".yml", ".json")
_API_REF_SUFFIXES = (".inc", ".rst")
_VERSIONED = re.compile(r"^v?(\d{1,4})(?:\.(\d{1,4}))?$")
MAX_DOCUMENTS = 1000  # openstack-openapi: 13


@dataclass(frozen=True)
class Pair:
    key: str  # "compute v2"
    old: str | None  # the file, relative to its folder ("/"-separated); None: absent there
    new: str | None


def is_spec_folder(names: Iterable[str]) -> bool:
    """The files of a folder (relative names) make a folder of OpenAPI documents."""
    names = list(names)
    return any(name.endswith(_DOCUMENT_SUFFIXES) for name in names) and not any(
        name.endswith(_API_REF_SUFFIXES) for name in names)


def folder_files(folder: Path) -> list[str]:
    """The files below a folder on disk, relative, "/"-separated (symlinks as files)."""
    found = []
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            rel = os.path.relpath(os.path.join(top, name), folder).replace(os.sep, "/")
            found.append(rel)
            if len(found) > 10 * MAX_DOCUMENTS:
                raise InputError(f"holds more than {10 * MAX_DOCUMENTS} files", str(folder))
    return sorted(found)


def documents(names: Iterable[str]) -> dict[str, str]:
    """Key -> the file that is that document."""
    best: dict[str, tuple[tuple[int, int], str]] = {}
    for name in names:
        if not name.endswith(_DOCUMENT_SUFFIXES) or name.startswith("."):
            continue
        service, stem = posixpath.dirname(name), posixpath.splitext(posixpath.basename(name))[0]
        match = _VERSIONED.match(stem)
        key = f"{service} v{match.group(1)}".strip() if match else posixpath.splitext(name)[0]
        rank = (1, int(match.group(2))) if match and match.group(2) else (0, 0)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, name)
    if len(best) > MAX_DOCUMENTS:
        raise InputError(f"holds more than {MAX_DOCUMENTS} OpenAPI documents")
    return {key: name for key, (_, name) in best.items()}


def pair(old_names: Iterable[str], new_names: Iterable[str]) -> list[Pair]:
    """The documents of two folders, paired by key, then by service."""
    old, new = documents(old_names), documents(new_names)
    pairs = [Pair(key, old[key], new[key]) for key in sorted(set(old) & set(new))]
    left = {k: v for k, v in old.items() if k not in new}
    right = {k: v for k, v in new.items() if k not in old}
    for service in sorted({posixpath.dirname(v) for v in left.values()}):
        mine = [k for k, v in left.items() if posixpath.dirname(v) == service]
        theirs = [k for k, v in right.items() if posixpath.dirname(v) == service]
        if len(mine) == 1 and len(theirs) == 1:  # one document renamed in its service
            pairs.append(Pair(theirs[0], left.pop(mine[0]), right.pop(theirs[0])))
    pairs += [Pair(key, name, None) for key, name in sorted(left.items())]
    pairs += [Pair(key, None, name) for key, name in sorted(right.items())]
    return pairs
