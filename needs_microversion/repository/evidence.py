"""What a reviewer reads in the repository besides the API documents, for one change.

    evidence = gather(old, new, layout)
    evidence.old_max, evidence.new_max       # the version file at both revisions
    evidence.released                        # the newest release the old revision contains
    evidence.history_added                   # microversions the history document gained
    evidence.notes_versions                  # microversions release notes added here name
    evidence.code_changed                    # did anything but documentation and tests change?

Each item is read only from the two revisions (a commit, the index or the working tree),
through `Revision`: bounded, confined reads; nothing is imported or executed.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from needs_microversion.errors import InputError
from needs_microversion.model.versions import Version, mentioned_versions, raised
from needs_microversion.repository.historydoc import versions_listed
from needs_microversion.repository.versionfile import VersionFile, read_version_file

if TYPE_CHECKING:  # the record is used by a plain diff, which never imports git
    from needs_microversion.model.snapshot import Snapshot
    from needs_microversion.repository.layout import Layout
    from needs_microversion.repository.releases import Release
    from needs_microversion.repository.revision import Revision

# Files that describe or test the API but cannot change what it does.
_DOC_FOLDERS = ("doc/", "docs/", "api-ref/", "releasenotes/", "specs/", "api-guide/")
_DOC_SUFFIXES = (".rst", ".md", ".txt", ".inc", ".po", ".pot", ".svg", ".png", ".jpg",
                 ".gif", ".dot", ".tpl")
_TOOLING = frozenset({".zuul.yaml", "tox.ini", ".gitignore", ".gitreview", ".mailmap",
                      ".pre-commit-config.yaml", ".stestr.conf", "bindep.txt", "AUTHORS",
                      "ChangeLog", ".coveragerc", ".pylintrc"})


@dataclass(frozen=True)
class RepositoryEvidence:
    version_file: str | None  # its path from the top
    old_file: VersionFile | None  # the version file at the old revision
    new_file: VersionFile | None
    released: Release | None = None
    history_added: frozenset[Version] = frozenset()
    history_docs: tuple[str, ...] = ()  # the history documents read
    notes_versions: frozenset[Version] = frozenset()
    notes: tuple[str, ...] = ()  # release notes added or changed
    code_changed: bool | None = None  # None: the changed paths are unknown
    changed_paths: tuple[str, ...] | None = None
    # Whether the change edits code that makes a response (not only schemas, decorators):
    # None when unknown.
    view_code_changed: bool | None = None
    history_gained_in: tuple[str, ...] = ()  # the history documents that gained a version
    # The code lines the change adds or removes, lower-cased (None: not read, or too much
    # to read): what a reviewer looks through for the names a document's change touches.
    code_diff: str | None = None
    # The same, of the code that makes responses only (controllers, views; not the schema
    # modules, which describe a response without making it, nor decorator or import lines).
    view_diff: str | None = None
    # The microversions the change's code starts gating on, each with its place
    # (`file:line`): one above the version file's maximum is a bump forgotten.
    code_gates: tuple[tuple[Version, str], ...] = ()
    # The contract the base revision's code declares (the projects of `loaders/code`), read
    # when first asked (a child process reads it while the documents are compared): whether
    # the API served an element before the documents added it. None: no code contract is
    # read.
    served: Callable[[], Snapshot | None] | None = field(default=None, compare=False)

    @property
    def old_max(self) -> Version | None:
        return self.old_file.max_version if self.old_file else None

    @property
    def new_max(self) -> Version | None:
        return self.new_file.max_version if self.new_file else None

    @property
    def bumped(self) -> bool | None:
        return raised(self.old_max, self.new_max)

    @property
    def released_max(self) -> Version | None:
        """The newest released maximum, never above the old revision's own maximum."""
        if self.released is None:
            return None
        if self.old_max is not None and self.released.max_version > self.old_max:
            return self.old_max
        return self.released.max_version


def gather(old: Revision, new: Revision, layout: Layout,
           changed_paths: tuple[str, ...] | None, *, strict: bool = False) -> RepositoryEvidence:
    """The evidence for the change from `old` to `new` (changed_paths from the top).

    `strict`: a version file that a side holds but that declares no maximum is an error (a
    configured one); otherwise it only counts as unknown (a place found at another revision:
    nova's first version file had no maximum yet)."""
    from needs_microversion.repository.releases import released  # reads tags through git

    old_file = _version_file(old, layout, strict)
    new_file = _version_file(new, layout, strict)
    history_added: set[Version] = set()
    gained: list[str] = []  # the history documents this change added versions to
    for path in layout.history_docs:
        before, after = old.text(path), new.text(path)
        if after is not None and before != after:
            added = versions_listed(after) - versions_listed(before or "")
            history_added |= added
            gained += [path] if added else []
    notes = tuple(path for path in changed_paths or ()
                  if layout.release_notes and path.startswith(layout.release_notes + "/")
                  and path.endswith((".yaml", ".yml")))
    known = new_file or old_file
    major = known.max_version.major if known else None  # another major is another API
    named: set[Version] = set()
    for _, raw in new.read_many(notes):  # in batches: a change may add thousands
        named |= mentioned_versions(raw.decode("utf-8", "replace"), major)
    code = None if changed_paths is None else tuple(
        path for path in changed_paths
        if is_code(path) and not _inside(path, (*layout.documents, *layout.samples)))
    texts = _code_texts(code, old, new)
    return RepositoryEvidence(
        layout.version_file, old_file, new_file, released(old, layout),
        frozenset(v for v in history_added if major is None or v.major == major),
        layout.history_docs,
        frozenset(v for v in named if major is None or v.major == major), notes,
        None if code is None else bool(code),
        changed_paths, edits_view_code(changed_paths, (old, new)), tuple(gained),
        None if code is None else _code_diff(code, texts),
        view_diff=None if code is None else _code_diff(_views(code), texts, declarations=False),
        code_gates=() if code is None else _gates_added(code, texts, major, old, new))


# What a change's code diff is read up to: a change larger than this is read as touching
# every name (the conservative answer).
_DIFF_FILES = 200
_DIFF_BYTES = 4 * 1024 * 1024


_CodeTexts = tuple[dict[str, bytes], dict[str, bytes]]


def _code_texts(paths: tuple[str, ...] | None, old: Revision, new: Revision
                ) -> _CodeTexts | None:
    """The changed code files at both sides (each side read in one git call per batch);
    None when unknown or too many to read."""
    if paths is None or len(paths) > _DIFF_FILES:
        return None
    try:
        return dict(old.read_many(paths)), dict(new.read_many(paths))
    except InputError:  # a file read as no text (a link out, a device): unknown
        return None


def _code_diff(paths: tuple[str, ...], texts: _CodeTexts | None, *,
               declarations: bool = True) -> str | None:
    """The lines of the changed code files that one side has and the other has not
    (`declarations=False`: not decorator or import lines)."""
    if texts is None:
        return None
    before, after = texts
    lines: list[str] = []
    size = 0
    for path in paths:
        a = set(before.get(path, b"").decode("utf-8", "replace").splitlines())
        b = set(after.get(path, b"").decode("utf-8", "replace").splitlines())
        changed = {line for line in a ^ b
                   if declarations or not _DECLARATION_LINE.match(line)}
        size += sum(len(line) for line in changed)
        if size > _DIFF_BYTES:
            return None
        lines.extend(sorted(changed))
    return "\n".join(lines).lower()


# Where projects name their versions (cinder's `mv.VOLUME_REVERT`, ironic's `MINOR_52_*`,
# nova's `api_version_request`): read beside the changed files, so that a gate through a
# name defined in a file the change leaves alone is read.
_NAMED_VERSIONS = re.compile(r"(?:^|/)api/(?:.*/)?(?:microversions?|versions|"
                             r"api_version_request)\.py$")


def _gates_added(paths: tuple[str, ...], texts: _CodeTexts | None, major: int | None,
                 old_side: Revision, new_side: Revision) -> tuple[tuple[Version, str], ...]:
    """The microversions the change's code starts gating on, each with its first place
    (`file:line`), from the version-gate index of the changed files (decorators, checks,
    named versions: cinder's `mv.X`, ironic's `MINOR_n_*`); a bare `'X.Y'` string is not a
    gate. A gate a file already had (as many times) is not new; no code changed, none is."""
    if texts is None or not paths:
        return ()
    from needs_microversion.loaders.code.gates import version_gates

    named = tuple(path for path in new_side.files()
                  if _NAMED_VERSIONS.search(path) and path not in paths and is_code(path))
    try:
        sides = tuple({**dict(revision.read_many(named)), **text}
                      for revision, text in ((old_side, texts[0]), (new_side, texts[1])))
    except InputError:  # a file read as no text: its names are not read
        sides = texts
    before, after = ((lambda path, side=side: side.get(path)) for side in sides)
    paths = (*paths, *named)
    # Counted per file and version: a method joining a microversion the file already
    # gated elsewhere is a new gate; a gate moved or rewritten in place is not.
    had = Counter((g.file, g.version) for g in version_gates(before, paths)
                  if g.kind != "literal")
    found: dict[Version, str] = {}
    for gate in version_gates(after, paths):
        key = (gate.file, gate.version)
        if gate.kind == "literal" or (major is not None and gate.version.major != major):
            continue
        if had[key] > 0:
            had[key] -= 1
            continue
        found.setdefault(gate.version, f"{gate.file}:{gate.line}")
    return tuple(sorted(found.items()))


def is_code(path: str) -> bool:
    """Whether a changed file can change what the API does: not documentation, samples,
    tests, release notes or tooling."""
    name = posixpath.basename(path)
    parts = path.split("/")
    if path.startswith(_DOC_FOLDERS) or name.endswith(_DOC_SUFFIXES) or name in _TOOLING:
        return False
    if "tests" in parts or "test" in parts or name.startswith("test_"):
        return False
    return not name.startswith("requirements") and not name.endswith(("-requirements.txt",))


def _inside(path: str, places: tuple[str, ...]) -> bool:
    """The path is one of the API documents (or samples), or lies in one of their folders."""
    return any(path == place or path.startswith(place.rstrip("/") + "/") for place in places)


def _version_file(revision: Revision, layout: Layout, strict: bool) -> VersionFile | None:
    if layout.version_file is None:
        return None
    text = revision.text(layout.version_file)
    if text is None:
        return None
    try:
        return read_version_file(text, revision.name(layout.version_file))
    except InputError:
        if strict:
            raise
        return None


_DECLARATION_LINE = re.compile(r"\s*(?:@|import\s|from\s+\S+\s+import\s)")


def _views(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The API modules that make responses: any but the schema modules (`schemas/`,
    `parameter_types.py`, `response_types.py`), the validation machinery that applies them
    (nova's `api/validation/`: a response is checked against its schema, not made by it),
    the version files and tests."""
    return tuple(path for path in paths if "/api/" in f"/{path}" and path.endswith(".py")
                 and "/tests/" not in path and "/schemas/" not in path
                 and "/api/validation/" not in path and not path.endswith(_NOT_VIEWS))


def edits_view_code(paths: tuple[str, ...] | None,
                    sides: tuple[Revision, Revision] | None = None) -> bool | None:
    """Whether a change edits API code that makes a response (a controller, a view builder):
    any API module but the schema modules (`schemas/`, `parameter_types.py`,
    `response_types.py`), the version file and tests. With both revisions at hand, a module
    whose only edits are decorators and imports (`@validation.response_body_schema(...)`
    added to a controller) makes no other response. None: the paths are not known."""
    if paths is None:
        return None
    views = _views(paths)
    if sides is None:
        return bool(views)
    return any(_body(sides[0].text(path)) != _body(sides[1].text(path)) for path in views)


_NOT_VIEWS = ("parameter_types.py", "response_types.py", "api_version_request.py",
              "versions.py", "microversion.py")
# What declares the contract rather than computing a response: decorator lines (and their
# continuation lines up to the closing parenthesis), imports, comments, blank lines.
_DECLARATION = re.compile(r"^\s*@(?:validation|wsgi|extensions)\.[^\n]*(?:\n[ \t]+[^\n@]*?\))?"
                          r"|^\s*(?:from\s+\S+\s+)?import\s[^\n]*|^\s*#[^\n]*", re.M)


def _body(text: str | None) -> str | None:
    """A module's text without what only declares the contract, spacing normalised."""
    if text is None:
        return None
    return "\n".join(line.strip() for line in _DECLARATION.sub("", text).splitlines()
                     if line.strip())
