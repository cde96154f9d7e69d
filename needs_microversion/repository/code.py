"""The contract a revision's code declares, as a snapshot the comparison reads like any
document (`loaders/code`: read statically from the revision's files, never imported).

    side = code_side(revision, "code:HEAD~1")   # None: the code declares no contract here
    side.snapshot, side.warnings                 # elements the reader could not read
    touches_api_code(changed_paths, project)     # does a change edit the API's code?

Its elements are located in the code (`nova/api/openstack/compute/keypairs.py:123`, from the
repository's top), so annotations go on the files a change edits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from needs_microversion.documents.parsed import ParsedCache
from needs_microversion.errors import InputError
from needs_microversion.loaders.code import API_CODE, is_api_code
from needs_microversion.model.document import Document
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.model.versions import Version, parse_version
from needs_microversion.repository.layout import KNOWN
from needs_microversion.repository.revision import Revision
from needs_microversion.repository.versionfile import read_version_file

if TYPE_CHECKING:  # the code reader is imported when a change edits the API's code
    from needs_microversion.loaders.code.records import Unread
    from needs_microversion.loaders.openapi.version_warnings import Marks

# The projects whose code declares its whole contract (routes, decorators, schemas).
CODE_PROJECTS = tuple(API_CODE)


@dataclass(frozen=True)
class CodeSide:
    snapshot: Snapshot
    warnings: tuple[str, ...]  # what the reader could not read, file and line


def code_document(revision: Revision) -> dict[str, Any] | None:
    """The code contract at `revision` as the OpenAPI document the loader writes."""
    reading = code_reading(revision)
    return None if reading is None else reading.document


@dataclass(frozen=True)
class CodeReading:
    """What `check`, `drift` and `export` use of a code contract (what the cache keeps)."""

    document: dict[str, Any]
    unread: tuple[Unread, ...]
    marks: Marks | None = None  # the document's walk, when kept with it


def code_reading(revision: Revision, keep: list[Callable[[], None]] | None = None,
                 place: _Place | None = None) -> CodeReading | None:
    """The revision's code contract: kept from an earlier run when every file it read is
    the same blob (the hook compares each commit of a branch with one base), else read.
    `keep`: where to leave the writing of a fresh reading to the cache, for the caller to
    do once the reading has been handed on (a child answers first, then keeps); `place`:
    where it is kept, when the caller looked already."""
    cache, key, files, max_version = place or _place(revision)
    kept = _kept(cache.get(key), revision, files)
    if kept is not None:
        return kept
    from needs_microversion.loaders.code.contract import read_code_contract

    contract = read_code_contract(
        revision.read, files, read_many=lambda paths: dict(revision.read_many(paths)),
        max_version=max_version)
    if contract is None:
        return None
    # The document's walk goes with it: to the side built of it (in this process, or the
    # one a child answers), and to the cache (a base side is read on every commit of a branch).
    reading = CodeReading(contract.document, contract.unread,
                          contract.marks or _walked(contract.document))
    entry = {"reading": {"document": reading.document,
                         "unread": [[u.file, u.line, u.reason] for u in reading.unread]},
             "inputs": revision.blob_ids(contract.inputs),
             "folders": [list(f) for f in contract.folders],
             "marks": _marks_entry(reading.marks)}

    def put() -> None:
        if cache.on:
            cache.put(key, entry)

    if keep is None:
        put()
    else:  # a child: once it answered
        keep.append(put)
    return reading


class SideReader:
    """One side's code contract, read by a child started now and taken when first asked
    (`check`: by the documents' judge, did the base code serve what they add? or by the
    code's own report, whichever comes first). A side whose child failed is read here, and
    so fails here if it must. The child answers, then keeps a fresh reading in the cache
    while this process judges it. (State, not a record: it stands for a process.)"""

    def __init__(self, side: Revision, fork: bool | None = None) -> None:
        from needs_microversion import forked

        keep: list[Callable[[], None]] = []
        # A side an earlier run kept (the hook's base) is read here, when first asked;
        # `fork` None: look whether it is kept (a listing, and the version file).
        place = _place(side) if fork is None else None
        kept = place is not None and place[0].has(place[1])
        self.reading = forked.Later(partial(code_reading, side, keep, place),
                                    after=lambda: [work() for work in keep],
                                    here=partial(code_reading, side, None, place),
                                    fork=not kept if fork is None else fork)
        self.display = f"code:{code_label(side)}"
        self.stop = self.reading.stop  # the run failed before the answer was taken
        self.value: tuple[CodeSide | None] | None = None

    def __call__(self) -> CodeSide | None:
        if self.value is None:
            reading = self.reading()
            self.value = (None if reading is None else as_side(reading, self.display),)
        return self.value[0]

    def snapshot(self) -> Snapshot | None:
        side = self()
        return None if side is None else side.snapshot


def code_label(revision: Revision) -> str:
    """How a code side names its revision (`code:3f2a9c1`; `code:` is the working tree,
    `code::` the index)."""
    if revision.on_disk:
        return ""
    return ":" if revision.label == "" else (revision.label or str(revision.commit)[:12])


_Place = tuple[ParsedCache, str, tuple[str, ...], "Version | None"]


def _place(revision: Revision) -> _Place:
    """Where the revision's code reading is kept: by the blobs of its API code and the
    version file's maximum."""
    files = revision.files()
    max_version = _max_version(revision, files)
    api = [path for path in files if path.endswith(".py") and "/tests/" not in path
           and any(is_api_code(path, project) for project in CODE_PROJECTS)]
    found = ParsedCache("code")
    key = found.key("code-contract", [("max_version", str(max_version)),
                                      *((p, i or "") for p, i in revision.blob_ids(api).items())])
    return found, key, files, max_version


def _kept(entry: Any, revision: Revision, files: tuple[str, ...]) -> CodeReading | None:
    """The kept reading when everything it read is unchanged at `revision`."""
    from needs_microversion.loaders.code.records import Unread

    try:
        inputs, folders, kept = entry["inputs"], entry["folders"], entry["reading"]
        if revision.blob_ids(sorted(inputs)) != inputs or any(
                _has_modules(files, folder) != present for folder, present in folders):
            return None
        return CodeReading(kept["document"], tuple(Unread(f, int(n), r)
                                                for f, n, r in kept["unread"]),
                           _kept_marks(entry.get("marks")))
    except (TypeError, KeyError, ValueError, AttributeError):
        return None  # no entry, or not one this tool wrote


def _walked(document: dict[str, Any]) -> Marks | None:
    from needs_microversion.loaders.openapi.version_warnings import marks_of

    return marks_of(_document(document, "code"))


def _marks_entry(marks: Marks | None) -> dict[str, Any] | None:
    return None if marks is None else {"bounds": sorted(str(b) for b in marks.bounds),
                                       "top": None if marks.top is None else str(marks.top)}


def _kept_marks(entry: Any) -> Marks | None:
    """Kept marks, when they read as written (else the document is walked)."""
    from needs_microversion.loaders.openapi.version_warnings import Marks

    if not isinstance(entry, dict) or not isinstance(entry.get("bounds"), list):
        return None
    bounds = [parse_version(b) if isinstance(b, str) else None for b in entry["bounds"]]
    top = entry.get("top")
    highest = parse_version(top) if isinstance(top, str) else None
    if None in bounds or (top is not None and highest is None):
        return None
    return Marks(frozenset(b for b in bounds if b is not None), highest)


def code_side(revision: Revision, display: str) -> CodeSide | None:
    """The code contract at `revision`, named `display`; None when the revision holds no
    code that declares one. An InputError when it cannot be read within its bounds."""
    reading = code_reading(revision)
    return None if reading is None else as_side(reading, display)


def as_side(reading: CodeReading, display: str) -> CodeSide:
    """A reading (made here or in a child process) as the snapshot compared."""
    from needs_microversion.loaders.openapi.builder import load_openapi

    warnings = tuple(f"{u.file}:{u.line}: the code's value could not be read ({u.reason}); "
                     "its changes are not seen" for u in reading.unread)
    return CodeSide(load_openapi(_document(reading.document, display), source="code",
                                 marks=reading.marks), warnings)


def _document(data: dict[str, Any], display: str) -> Document:
    top = Path("/", "code")
    return Document(path=top, display=display, root=top, text="", data=data, format="code")


def _has_modules(files: tuple[str, ...], folder: str) -> bool:
    """Whether `folder` holds Python modules (how the reader tells a package)."""
    prefix = f"{folder}/" if folder else ""
    return any(name.startswith(prefix) and name.endswith(".py") for name in files)


def touches_api_code(paths: tuple[str, ...] | None, project: str) -> bool:
    """Whether a change edits the API's code (not its tests): what the code contract is
    read for. Unknown paths (None): assume it does."""
    if paths is None:
        return True
    return any(is_api_code(path, project) for path in paths)


def _max_version(revision: Revision, files: tuple[str, ...]) -> Version | None:
    """The version file's maximum at the revision (the contract's `info.version`)."""
    present = set(files)
    for project in CODE_PROJECTS:
        for path in KNOWN[project].version_files:
            if path in present:
                text = revision.text(path)
                try:
                    return read_version_file(text, path).max_version if text else None
                except InputError:
                    return None
    return None
