"""One entry point for every input: a file (OpenAPI/Swagger) or a directory (api-ref), on
disk or in git as REV:PATH (`HEAD~1:api/openapi.yaml`, `origin/main:api-ref/source`)."""

from __future__ import annotations

from pathlib import Path

from needs_microversion.collector import collector_for_validation
from needs_microversion.documents.document import read_document
from needs_microversion.errors import InputError
from needs_microversion.loaders.openapi.builder import SnapshotBuilder, load_openapi
from needs_microversion.model.document import Document
from needs_microversion.model.extensions import MAJORS_KEY
from needs_microversion.model.snapshot import Snapshot


def load_pair(old: str, new: str, *, validate: bool = True, strict: bool = False
              ) -> tuple[Snapshot, Snapshot]:
    """Both sides, their paths written alike; the two documents are validated side by side
    (`validate.problems_of_pair`), in two processes where the platform can fork.

    An api-ref tree documenting several API versions keeps the version prefixes in its paths
    (`/v2/volumes`, `/v3/volumes`), a tree of one version drops them. When only one side of a
    pair has several (cinder removed its v2 reference), the other is read again keeping them,
    or every operation of the remaining version would look removed and added.
    """
    sides = [_prepare(old, None), _prepare(new, None)]
    builders = [s for s in sides if isinstance(s, SnapshotBuilder)]
    found: list[list[str]] = [[] for _ in builders]
    if validate and builders:
        from needs_microversion.loaders.openapi.validate import problems_of_pair

        with collector_for_validation():
            found = problems_of_pair([(b.doc, b.resolver) for b in builders])
        for warnings in found:
            if strict and warnings:
                raise InputError(f"not a valid OpenAPI document: {warnings[0]}")
    problems = iter(found)
    a, b = (_with_warnings(s.build(), next(problems)) if isinstance(s, SnapshotBuilder)
            else s for s in sides)
    if a.source == b.source == "api-ref" and _majors(a) != _majors(b):
        if _majors(a):
            b = load_snapshot(new, validate=validate, strict=strict, keep_major=True)
        else:
            a = load_snapshot(old, validate=validate, strict=strict, keep_major=True)
    return a, b


def _majors(snapshot: Snapshot) -> bool:
    info = snapshot.document.data.get("info") if isinstance(snapshot.document.data, dict) \
        else None
    return bool(isinstance(info, dict) and info.get(MAJORS_KEY))


def load_snapshot(path: str, *, validate: bool = True, strict: bool = False,
                  keep_major: bool | None = None) -> Snapshot:
    """Load and normalise one side; validation problems are warnings unless strict.
    `keep_major` (api-ref): keep version prefixes in paths; None decides by the tree."""
    side = _prepare(path, keep_major)
    if not isinstance(side, SnapshotBuilder):
        return side
    warnings: list[str] = []
    if validate:
        from needs_microversion.loaders.openapi.validate import problems

        with collector_for_validation():
            warnings = problems(side.doc, side.resolver)
        if strict and warnings:
            raise InputError(f"not a valid OpenAPI document: {warnings[0]}")
    return _with_warnings(side.build(), warnings)


def _prepare(path: str, keep_major: bool | None) -> Snapshot | SnapshotBuilder:
    """An api-ref tree's Snapshot, or an OpenAPI document read, its `$ref`s checked."""
    target = Path(path)
    if ":" in path and not target.exists():
        # Git machinery is imported only for a name that is not a path but may be REV:PATH.
        from needs_microversion.loaders.git import checkout

        copy = checkout(path)
        if copy is not None:
            target = copy.local
    if target.is_dir():
        return _load_apiref(target, path, keep_major)
    builder = SnapshotBuilder(read_document(target, display=path))
    # Every `$ref` of the structure is checked (and its files read, inside the tree) before
    # anything else follows one: the validator resolves through the same resolver.
    builder.check_refs()
    return builder


def _load_apiref(directory: Path, display: str, keep_major: bool | None) -> Snapshot:
    from needs_microversion.loaders.apiref.reader import load_apiref

    result = load_apiref(directory, display=display, keep_major=keep_major)
    doc = Document(path=directory.resolve(), display=display, root=directory.resolve(),
                   text="", data=result.document, format="api-ref")
    return _with_warnings(load_openapi(doc, source="api-ref"), list(result.warnings))


def _with_warnings(snapshot: Snapshot, warnings: list[str]) -> Snapshot:
    from dataclasses import replace

    return replace(snapshot, warnings=(*snapshot.warnings, *warnings))
