"""One entry point for every input: a file (OpenAPI/Swagger) or a directory (api-ref), on
disk or in git as REV:PATH (`HEAD~1:api/openapi.yaml`, `origin/main:api-ref/source`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from needs_microversion import forked
from needs_microversion.collector import collector_for_validation
from needs_microversion.documents.document import read_document
from needs_microversion.documents.files import DISK, current_folder, real
from needs_microversion.documents.reading import read_head
from needs_microversion.errors import InputError
from needs_microversion.loaders.openapi.builder import SnapshotBuilder, load_openapi
from needs_microversion.model.document import Document
from needs_microversion.model.extensions import MAJORS_KEY
from needs_microversion.model.snapshot import Snapshot

if TYPE_CHECKING:  # imported where used: none is needed to compare two files unvalidated
    from needs_microversion.loaders.apiref.reader import ApiRefResult
    from needs_microversion.loaders.git import LocalCopy
    from needs_microversion.loaders.openapi.validation.validate import Beside


def load_pair(old: str, new: str, *, validate: bool = True, strict: bool = False,
              root: Path | None = None) -> tuple[Snapshot, Snapshot, Validation]:
    """Both sides, their paths written alike, and their validation: found in a forked child
    while the caller compares them (`Validation.attach` adds the problems when needed).

    An api-ref tree documenting several API versions keeps the version prefixes in its paths
    (`/v2/volumes`, `/v3/volumes`), a tree of one version drops them. When only one side of a
    pair has several (cinder removed its v2 reference), the other is read again keeping them,
    or every operation of the remaining version would look removed and added.

    `root`: no file on disk is read outside this folder (a repository's top: `check`;
    `diff --root`), the inputs themselves included, whatever symlinks they run through.
    """
    helper = _validating_helper(old, new) if validate else None
    try:
        sides = _prepare_pair(old, new, root)
    except BaseException:
        if helper is not None:
            forked.dismiss(helper)
        raise
    checked = [validate and isinstance(s, SnapshotBuilder) for s in sides]
    validation = Validation(None, (False, False), strict)
    if any(checked):
        from needs_microversion.loaders.openapi.validation.validate import Beside

        validation = Validation(Beside([(s.doc, s.resolver) for s in sides
                                        if isinstance(s, SnapshotBuilder) and validate],
                                       helper=helper), (checked[0], checked[1]), strict)
    elif helper is not None:
        forked.dismiss(helper)
    try:
        a, b = (s.build() if isinstance(s, SnapshotBuilder) else s for s in sides)
        if a.source == b.source == "api-ref" and _majors(a) != _majors(b):
            if _majors(a):
                b = load_snapshot(new, validate=validate, strict=strict, keep_major=True,
                                  root=root)
            else:
                a = load_snapshot(old, validate=validate, strict=strict, keep_major=True,
                                  root=root)
    except BaseException:
        validation.cancel()
        raise
    return a, b, validation


def _validating_helper(old: str, new: str) -> forked.Helper | None:
    """A helper that imports the validator (0.2 s) while the two files are read (the one
    `launch.py` started, when it guessed these files); none for api-ref trees, large
    documents, or documents whose problems are remembered."""
    early = forked.take_early((old, new))
    wanted = forked.small_files((old, new))
    if wanted:
        from needs_microversion.loaders.openapi.validation.remembered import Remembered, folder

        remembered = Remembered(folder())
        wanted = not all(remembered.may_recall(path) for path in (old, new))
    if not wanted:
        if early is not None:
            forked.dismiss(early)
        return None
    if early is not None:
        return early
    from needs_microversion.loaders.openapi.validation.validate import ready

    return forked.helper(ready)


@dataclass(frozen=True)
class Validation:
    """The validation problems of a pair, perhaps still being found beside the comparison."""

    beside: Beside | None  # None: nothing validated
    checked: tuple[bool, bool]  # which of the two sides were validated
    strict: bool  # a problem is an error, not a warning

    def attach(self, old: Snapshot, new: Snapshot) -> tuple[Snapshot, Snapshot]:
        """Both sides with their problems as warnings (waits for them); under `strict` the
        first problem is an InputError."""
        if self.beside is None:
            return old, new
        found = iter(self.beside.problems())
        lists = [next(found) if checked else [] for checked in self.checked]
        for warnings in lists:
            if self.strict and warnings:
                raise InputError(f"not a valid OpenAPI document: {warnings[0]}")
        return _with_warnings(old, lists[0]), _with_warnings(new, lists[1])

    @classmethod
    def none(cls) -> Validation:
        """Nothing validated."""
        return cls(None, (False, False), False)

    def cancel(self) -> None:
        """The comparison failed first: the problems are not wanted."""
        if self.beside is not None:
            self.beside.cancel()

    def __enter__(self) -> Validation:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.cancel()


def _majors(snapshot: Snapshot) -> bool:
    return bool(snapshot.info(MAJORS_KEY))


def load_snapshot(path: str, *, validate: bool = True, strict: bool = False,
                  keep_major: bool | None = None, root: Path | None = None) -> Snapshot:
    """Load and normalise one side; validation problems are warnings unless strict.
    `keep_major` (api-ref): keep version prefixes in paths; None decides by the tree."""
    side = _prepare(path, keep_major, root)
    if not isinstance(side, SnapshotBuilder):
        return side
    warnings: list[str] = []
    if validate:
        from needs_microversion.loaders.openapi.validation.validate import problems

        with collector_for_validation():
            warnings = problems(side.doc, side.resolver)
        if strict and warnings:
            raise InputError(f"not a valid OpenAPI document: {warnings[0]}")
    return _with_warnings(side.build(), warnings)


def _prepare_pair(old: str, new: str, root: Path | None) -> list[Snapshot | SnapshotBuilder]:
    """Both sides. Reading an api-ref tree is most of a `check` (nova: 0.2-0.3 s a side,
    with its copy out of git), so the old side's tree is read in a forked child while this
    process reads the new one (`forked`); a failed child's side is read here. So is a large
    YAML file: the new one is parsed in a child while this process parses the old one."""
    if is_code(old) or is_code(new):  # read from git in this process: no child to fork
        return [_prepare(old, None, root), _prepare(new, None, root)]
    if not _may_be_tree(old):
        return _prepare_files(old, new, root)
    kept = _kept_tree(old, None)
    if kept is not None:  # the base side of a branch, read before: no child to fork for it
        return [_apiref_snapshot(*kept, old), _prepare(new, None, root)]
    read, second = forked.alongside(lambda: _read_tree(old, root),
                                    lambda: _prepare(new, None, root))
    first = _prepare(old, None, root) if read is None else _apiref_snapshot(*read, old)
    return [first, second]


def _prepare_files(old: str, new: str, root: Path | None) -> list[Snapshot | SnapshotBuilder]:
    """Both sides, the old one read first (its error is the one reported when both are bad).

    PyYAML parses ~7 MB/s (stripe's 3 MB: 0.6 s a side) and a parsed document comes back
    from a child pickled at ~100 MB/s, so a large YAML file is read in a forked child while
    this process reads the other; JSON parses as fast as it would come back, so it is not."""
    doc, first = forked.alongside(
        (lambda: _read_file(new, root)) if _slow_to_parse(new) else None,
        lambda: _prepare(old, None, root))
    return [first, _prepare(new, None, root) if doc is None else _checked_builder(doc)]


# Below this a YAML file parses in less time than a child takes to start and answer.
_CHILD_PARSE_BYTES = 256 * 1024


def _slow_to_parse(path: str) -> bool:
    """A YAML file on disk (not JSON by its first character, as `parse_document` decides)
    large enough to be worth parsing beside the other side."""
    try:
        size, head = read_head(path, path, 4096)  # a regular file: never waits on a FIFO
    except InputError:
        return False  # read here, where its error is reported
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return size >= _CHILD_PARSE_BYTES and start[:1] not in (b"{", b"[")


def _read_file(path: str, root: Path | None) -> Document:
    """In the child: the document, read as `_prepare` reads a file on disk."""
    return read_document(_local(path, root)[0], display=path)


def _may_be_tree(path: str) -> bool:
    """A folder, on disk or as REV:PATH (an OpenAPI file is read here: no child)."""
    target = Path(path)
    if target.exists() or ":" not in path:
        return target.is_dir()
    from needs_microversion.loaders.git import names_folder

    return names_folder(path)


def _read_tree(path: str, root: Path | None) -> tuple[Path, ApiRefResult] | None:
    """In the child: the api-ref tree's reading, or None when `path` is a file."""
    target, copy = _local(path, root)
    if not _is_tree(target, copy):
        if copy is not None and copy.folder is not None:  # the child runs no exit handlers
            import shutil  # only here: shutil imports bz2 and lzma, 2 ms of every start-up

            shutil.rmtree(copy.folder, ignore_errors=True)
        return None
    # The base's files are the new side's, mostly: the new side keeps them (once).
    return target, _tree_reading(target, copy, path, None, root, write_files=False)


def _prepare(path: str, keep_major: bool | None, root: Path | None
             ) -> Snapshot | SnapshotBuilder:
    """An api-ref tree's Snapshot, or an OpenAPI document read, its `$ref`s checked, or the
    contract a revision's code declares (`code:REV`)."""
    if is_code(path):
        return code_snapshot(path)
    kept = _kept_tree(path, keep_major)
    if kept is not None:
        return _apiref_snapshot(*kept, path)
    target, copy = _local(path, root)
    if _is_tree(target, copy):
        return _apiref_snapshot(target, _tree_reading(target, copy, path, keep_major, root),
                                path)
    return _checked_builder(read_document(target, display=path))


def _kept_tree(path: str, keep_major: bool | None) -> tuple[Path, ApiRefResult] | None:
    """REV:PATH's api-ref tree as an earlier run read it, found by git's listing alone
    (`kept_trees`); None for anything else, or nothing kept."""
    if ":" not in path or path.endswith((".yaml", ".yml", ".json")) or os.path.lexists(path):
        return None  # an OpenAPI file is no tree: not even git is asked
    from needs_microversion.kept_trees import by_blobs

    return by_blobs(path, keep_major)


def _checked_builder(doc: Document) -> SnapshotBuilder:
    builder = SnapshotBuilder(doc)
    # Every `$ref` of the structure is checked (and its files read, inside the tree) before
    # anything else follows one: the validator resolves through the same resolver.
    builder.check_refs()
    return builder


def _is_tree(target: Path, copy: LocalCopy | None) -> bool:
    return copy.is_dir if copy is not None else target.is_dir()


def _tree_reading(target: Path, copy: LocalCopy | None, display: str,
                  keep_major: bool | None, root: Path | None, write_files: bool = True
                  ) -> ApiRefResult:
    """The api-ref reader's answer; a revision's tree is read from memory, a tree on disk
    within `root` when one is given. `write_files`: keep each file's reading (the new
    side's: the next change on the branch reads most of them again)."""
    from needs_microversion.loaders.apiref.reader import load_apiref

    if copy is not None and copy.files is not None:
        from needs_microversion.kept_trees import kept_reading

        return kept_reading(target, copy.files, display, keep_major, write_files)
    return load_apiref(target, display=display, keep_major=keep_major, fs=DISK,
                       sandbox=None if root is None else Path(os.path.realpath(root)))


def _local(path: str, root: Path | None = None) -> tuple[Path, LocalCopy | None]:
    """Where the input is on disk: itself, or its copy out of git when it is REV:PATH. A
    file or folder on disk must lie inside `root` (when given) once its links are followed."""
    target = Path(path)
    if root is not None and os.path.lexists(path):
        real, top = os.path.realpath(path), os.path.realpath(root)
        if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
            raise InputError(f"leads outside {root} (a symlink out of the repository?); not "
                             f"read", path)
        return target, None
    if ":" in path and not target.exists():
        # Git machinery is imported only for a name that is not a path but may be REV:PATH.
        from needs_microversion.loaders.git import checkout

        copy = checkout(path)
        if copy is not None:
            return copy.local, copy
    return target, None


CODE_PREFIX = "code:"


def is_code(path: str) -> bool:
    """`code:REV` names the contract a revision's code declares (`code:` alone: the working
    tree's), unless a file of that name exists."""
    return path.startswith(CODE_PREFIX) and not os.path.lexists(path)


def code_snapshot(path: str) -> Snapshot:
    """The contract the code of `code:REV` declares (read from git, never imported)."""
    from needs_microversion.loaders.git import Repo
    from needs_microversion.repository.code import code_side
    from needs_microversion.repository.revision import Revision

    rev = path[len(CODE_PREFIX):]
    here = current_folder()
    repo = Repo.find(here, "not inside a git repository to read the code of", path)
    revision = Revision.at(repo, rev) if rev else Revision.working(repo)
    side = code_side(revision, path)
    if side is None:
        raise InputError("the code declares no contract the tool can read (the routes, "
                         "decorators and schemas of nova, masakari, manila, cinder, "
                         "placement, ironic or zun)", path)
    return _with_warnings(side.snapshot, list(side.warnings))


def _apiref_snapshot(directory: Path, result: ApiRefResult, display: str) -> Snapshot:
    doc = Document(path=real(directory), display=display, root=real(directory),
                   text="", data=result.document, format="api-ref")
    return _with_warnings(load_openapi(doc, source="api-ref"), list(result.warnings))


def empty_snapshot(display: str) -> Snapshot:
    """An API description with no operation: the side of a change to an API whose only
    record is its version file and history (`commands.diff.run_record`)."""
    here = current_folder()
    data = {"openapi": "3.0.3", "info": {"title": display, "version": ""}, "paths": {}}
    return load_openapi(Document(path=here, display=display, root=here, text="", data=data,
                                 format="api-ref"), source="api-ref")


def _with_warnings(snapshot: Snapshot, warnings: list[str]) -> Snapshot:
    from dataclasses import replace

    return replace(snapshot, warnings=(*snapshot.warnings, *warnings))
