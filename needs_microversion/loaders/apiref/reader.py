"""os-api-ref ("api-ref") source trees -> an OpenAPI 3.1 document.

    result = load_apiref(Path("nova/api-ref/source"))
    result.document      # plain dicts and lists, OpenAPI 3.1 with our x- conventions
    result.warnings      # "file:line: message", each said once
    result.max_version   # "2.104": the highest microversion the tree writes, or None

`load_apiref` opens the tree (`tree`: which files, in which order, what their names resolve
to), reads each file's `rest_method` sections (`sections`) and writes them as one document
(`to_openapi`). On `info` it adds what belongs to no operation: the files marked unverified,
the table rows no definition exists for, the version-discovery sample's maximum, and the
words of every file.

What the document means: docs/contract-model.md. How a tree is read, every heuristic with
its trigger, origin, fixture and code location: docs/apiref-reading.md (kept true by
tests/loaders/apiref/test_register.py).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from needs_microversion.documents.files import DISK, Files
from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref.context import TreeContext
from needs_microversion.loaders.apiref.records import Section
from needs_microversion.loaders.apiref.kept_files import KeptFiles, read_file
from needs_microversion.loaders.apiref.to_openapi import build_document
from needs_microversion.loaders.apiref.tree import open_tree
from needs_microversion.loaders.openapi.builder import MAX_OPERATIONS
from needs_microversion.model.extensions import (
    ADVERTISED_KEY, PROJECT_KEY, PROSE_KEY, UNREAD_KEY, UNVERIFIED_KEY)

# `openstackdocs_repo_name = 'openstack/nova'` (`repository_name` before openstackdocstheme
# 2.0): read as text, never run.
_REPO_NAME = re.compile(r"""^(?:openstackdocs_repo_name|repository_name)[ \t]*=[ \t]*"""
                        r"""['"]openstack/([A-Za-z0-9_.-]+)['"]""", re.MULTILINE)
_CONF_BYTES = 256 * 1024
# An RST comment os-api-ref projects put atop a file until its part is checked against the
# code (nova's 2016 burndown: method, parameter, example, body).
_UNVERIFIED = re.compile(r"^\.\. needs:([a-z]+)_verification[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class ApiRefResult:
    document: dict[str, Any]
    warnings: tuple[str, ...]
    max_version: str | None


def load_apiref(source: Path, *, display: str | None = None, keep_major: bool | None = None,
                fs: Files = DISK, sandbox: Path | None = None,
                keep_files: bool = False, write_files: bool = True) -> ApiRefResult:
    """Read one api-ref source folder (or a sub-folder such as `v3/`); `keep_major`: keep
    version prefixes in paths (None: only when the tree documents several versions); `fs`:
    where its files are (a git revision's, in memory); `sandbox`: no file outside it is
    read (default: the repository holding the tree, else the folder itself);
    `keep_files`: each file's reading is kept in the cache (unless not `write_files`), and
    replayed where still valid (`kept_files`)."""
    shown = display or str(source)  # a git revision's tree is named as the user wrote it
    try:
        return _load(source, shown, display, keep_major, fs, sandbox, keep_files, write_files)
    except InputError as exc:  # named from the tree's folder: name it as the user wrote it
        if exc.file is None or exc.file.startswith("/") or exc.file == shown:
            raise
        raise InputError(exc.reason, posixpath.join(shown, exc.file), exc.line) from None


def _project(srcdir: Path, fs: Files) -> str | None:
    """The repository the tree's Sphinx configuration names (None: no conf.py, or it names
    none); a conf.py that cannot be read names nothing: it is not part of the contract."""
    conf = srcdir / "conf.py"
    try:
        if not fs.is_file(conf):
            return None
        text = fs.read(conf, str(conf), _CONF_BYTES).decode("utf-8", "replace")
    except (InputError, OSError):
        return None
    found = _REPO_NAME.search(text)
    return found.group(1).lower() if found else None


def _load(source: Path, shown: str, display: str | None, keep_major: bool | None,
          fs: Files, sandbox: Path | None, keep_files: bool, write_files: bool
          ) -> ApiRefResult:
    if not fs.is_dir(source):
        raise InputError("not an api-ref source folder", shown)
    tree = open_tree(source, fs, sandbox)
    if not tree.files:  # a wrong folder would otherwise read as an API with no operations
        raise InputError("not an api-ref source folder (no .inc or .rst files)", shown)
    ctx = TreeContext(tree)
    sections: list[Section] = []
    kept = KeptFiles(tree, write_files) if keep_files else None
    for file in tree.files:
        sections.extend(read_file(file, ctx, kept))
        if len(sections) > MAX_OPERATIONS:  # each section is one rest_method
            raise InputError(f"has more than {MAX_OPERATIONS} operations (the limit)", shown)
    if ctx.outside:
        ctx.warn(ctx.outside[0], f"{len(ctx.outside)} example file(s) lie outside the "
                                 f"repository (or folder) of the tree and were not read "
                                 f"(nesting falls back to the table order)")
    version = max(ctx.versions, default=None)
    max_version = str(version) if version is not None else None
    warnings: list[str] = []

    def warn(where: str, message: str) -> None:
        warnings.append(f"{where}: {message}")

    document = build_document(sections, title=display or str(source), version=max_version,
                              warn=warn, keep_major=keep_major,
                              built=None if kept is None else kept.operations)
    if ctx.advertised:
        document["info"][ADVERTISED_KEY] = str(max(ctx.advertised))
    unverified = {file.rel: what for file in tree.files if ".. needs:" in file.text
                  and (what := sorted(set(_UNVERIFIED.findall(file.text))))}
    if unverified:
        document["info"][UNVERIFIED_KEY] = unverified
    if ctx.unread:
        document["info"][UNREAD_KEY] = {file: sorted(names) for file, names in ctx.unread.items()}
    document["info"][PROSE_KEY] = "\n\n".join(file.text for file in tree.files)
    project = _project(tree.srcdir, fs)
    if project is not None:
        document["info"][PROJECT_KEY] = project
    # Files are named from the tree's folder; with `display`, as the user wrote the folder.
    named = [posixpath.join(display, w) if display else w
             for w in (*tree.warnings, *ctx.warnings, *warnings)]
    if not sections:
        named.append(f"{shown}: no rest_method sections found")  # the tree itself
    if kept is not None:
        kept.keep()  # the whole tree was read: each file's record is kept
    # One definition used by many tables says the same thing many times: say it once.
    return ApiRefResult(document, tuple(dict.fromkeys(named)), max_version)
