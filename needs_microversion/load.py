"""One entry point for every input: a file (OpenAPI/Swagger) or a directory (api-ref), on
disk or in git as REV:PATH (`HEAD~1:api/openapi.yaml`, `origin/main:api-ref/source`)."""

from __future__ import annotations

import posixpath
from pathlib import Path

from needs_microversion.document import Document, read_document
from needs_microversion.errors import InputError
from needs_microversion.loaders.openapi import load_openapi
from needs_microversion.snapshot import Snapshot


def load_snapshot(path: str, *, validate: bool = True, strict: bool = False) -> Snapshot:
    """Load and normalise one side; validation problems are warnings unless strict."""
    target = Path(path)
    if ":" in path and not target.exists():
        # Git machinery is imported only for a name that is not a path but may be REV:PATH.
        from needs_microversion.loaders.git import checkout

        copy = checkout(path)
        if copy is not None:
            target = copy.local
    if target.is_dir():
        return _load_apiref(target, path)
    doc = read_document(target, display=path)
    warnings: list[str] = []
    if validate:
        from needs_microversion.validate import problems

        warnings = problems(doc)
        if strict and warnings:
            raise InputError(f"not a valid OpenAPI document: {warnings[0]}")
    snapshot = load_openapi(doc)
    return _with_warnings(snapshot, warnings)


def _load_apiref(directory: Path, display: str) -> Snapshot:
    from needs_microversion.loaders.apiref import load_apiref

    result = load_apiref(directory, display=display)
    doc = Document(path=directory.resolve(), display=display, root=directory.resolve(),
                   text="", data=result.document, format="api-ref")
    # The loader names files from the tree's folder; name them from where the user is.
    warnings = [w if w.startswith("/") else posixpath.join(display, w) for w in result.warnings]
    return _with_warnings(load_openapi(doc, source="api-ref"), warnings)


def _with_warnings(snapshot: Snapshot, warnings: list[str]) -> Snapshot:
    from dataclasses import replace

    return replace(snapshot, warnings=(*snapshot.warnings, *warnings))
