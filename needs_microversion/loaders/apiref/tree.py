"""The files of an api-ref tree: which to read, in which order, and how names resolve.

Sphinx resolves a relative file argument (`parameters.yaml`, `../status.yaml`, a
`literalinclude`) against the folder of the *document* being built: for an `.inc` that is
the top-level `.rst` that includes it, not the `.inc`'s own folder. A leading `/` means the
Sphinx source root. Nothing outside the sandbox (the repository folder holding the tree) is
ever read; such names are refused with a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from needs_microversion.documents.files import DISK, Files
from needs_microversion.documents.reading import FileTooLarge, describe_size
from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref.rst import Directive, RstDoc, read_rst

# Deeper than any real tree (nova: 2): a chain of includes this long is no documentation.
MAX_INCLUDE_DEPTH = 100
# Real trees: parameters.yaml up to ~0.2 MiB, a whole tree with the examples it shows ~4 MiB.
MAX_FILE_BYTES = 4 * 2**20
MAX_TREE_BYTES = 32 * 2**20
# What every include directive holds, in any case (directive names are read so), however it
# is introduced (`.. include::`, a tab, a substitution): a file without it includes nothing.
# Only `literalinclude` (nova's examples, in every file) is left out; another match costs
# only a scan.
_MAY_INCLUDE = re.compile(r"(?<!literal)include[ \t]?::", re.IGNORECASE)


@lru_cache(maxsize=2048)
def parse_cached(text: str) -> RstDoc:
    """Files identical in two trees (most of them) are scanned once per process."""
    doc = read_rst(text)
    if doc.suspicious or doc.messages:  # ambiguous RST: docutils has the last word
        # Imported here: docutils costs ~0.25 s to import and most trees never need it.
        from needs_microversion.loaders.apiref.rst_docutils import read_with_docutils
        doc = read_with_docutils(text)
    return doc


@dataclass(frozen=True)
class SourceFile:
    path: Path
    rel: str  # name relative to the source folder, for locations
    text: str
    base: Path  # the folder relative file arguments resolve against

    @cached_property
    def doc(self) -> RstDoc:
        """The file scanned, when first asked: a file whose reading is kept never is."""
        return parse_cached(self.text)


@dataclass
class Tree:
    source: Path  # the folder given by the user
    srcdir: Path  # Sphinx source root ("/name" resolves here)
    sandbox: Path  # nothing outside is read
    files: list[SourceFile] = field(default_factory=list)  # document order
    warnings: list[str] = field(default_factory=list)
    bytes_read: int = 0
    fs: Files = DISK  # where the files are read: the disk, or a revision in memory

    # Every table row and example names its file: pathlib's work is done once per path.
    _rels: dict[Path, str] = field(default_factory=dict, repr=False)
    _resolved: dict[tuple[str, Path], Path | None] = field(default_factory=dict, repr=False)
    # what reading a file resolves, when logged (`TreeContext.log`)
    log: list[tuple[object, ...]] | None = field(default=None, repr=False)

    def rel(self, path: Path) -> str:
        """A path as written in locations: relative to the source folder."""
        found = self._rels.get(path)
        if found is None:
            try:
                found = path.relative_to(self.source).as_posix()
            except ValueError:
                found = Path(os.path.relpath(path, self.source)).as_posix()
            self._rels[path] = found
        return found

    def resolve(self, name: str, base: Path, where: str, *, quiet: bool = False
                ) -> Path | None:
        """A file argument as Sphinx resolves it; None (with a warning unless `quiet`) if it
        escapes the sandbox or can name no file."""
        if self.log is not None:
            self.log.append(("r", name, base, where, quiet))
        name = name.strip()
        resolved = self.locate(name, base)
        if resolved is None and not quiet:
            self.warnings.append(f"{where}: {name!r} is no file name; not read" if "\0" in name
                                 else f"{where}: '{name}' is outside {self.sandbox}; not read")
        return resolved

    def locate(self, name: str, base: Path) -> Path | None:
        """What `resolve` finds, saying nothing."""
        name = name.strip()
        if "\0" in name:  # no file system takes it (os calls raise ValueError)
            return None
        key = (name, base)
        if key not in self._resolved:
            target = (self.srcdir / name.lstrip("/")) if name.startswith("/") else base / name
            resolved = self.fs.resolve(target)
            self._resolved[key] = resolved if resolved.is_relative_to(self.sandbox) else None
        return self._resolved[key]

    def read_text(self, path: Path, where: str) -> str | None:
        """A file of the tree; None, with a warning, when it is no regular file or cannot be
        read. Too large a file, or too many bytes in all, is an error naming the file."""
        raw, problem = self.read_bytes(path)
        self.account(self.rel(path), where, 0 if raw is None else len(raw), problem)
        return None if raw is None else raw.decode("utf-8", errors="replace")

    def read_bytes(self, path: Path) -> tuple[bytes | None, str | None]:
        """A file's bytes, or why it cannot be read; too large a file is an error."""
        try:
            return self.fs.read(path, self.rel(path), MAX_FILE_BYTES), None
        except FileTooLarge:
            raise
        except InputError as exc:
            return None, exc.reason

    def account(self, rel: str, where: str, size: int, problem: str | None) -> None:
        """A file read: why it could not be, said as a warning; else its bytes count
        towards the tree's, and too many in all is an error naming the file."""
        if problem is not None:
            self.warnings.append(f"{where}: cannot read '{rel}': {problem}")
            return
        self.bytes_read += size
        if self.bytes_read > MAX_TREE_BYTES:
            raise InputError(f"the tree's files add up to more than "
                             f"{describe_size(MAX_TREE_BYTES)} (the limit)", rel)


def open_tree(source: Path, fs: Files = DISK, sandbox: Path | None = None) -> Tree:
    source = fs.resolve(source)
    sandbox = _sandbox(source, fs) if sandbox is None else sandbox
    if not source.is_relative_to(sandbox):
        raise InputError(f"the tree lies outside {sandbox}; not read", str(source))
    tree = Tree(source=source, srcdir=_srcdir(source, sandbox, fs), sandbox=sandbox, fs=fs)
    texts: dict[Path, str] = {}
    for path in sorted(p for p in fs.below(source, (".inc", ".rst"))
                       if not _hidden(p.relative_to(source))):
        resolved = fs.resolve(path)
        if not resolved.is_relative_to(tree.sandbox):
            tree.warnings.append(f"{tree.rel(path)}: links outside {tree.sandbox}; not read")
            continue
        text = tree.read_text(resolved, tree.rel(path))
        if text is not None:
            texts[resolved] = text
    includes = {path: _includes(tree, path, text) for path, text in texts.items()}
    # Files included from outside the given folder (`v3/index.rst` including
    # `../common/shared.inc`) belong to the tree as Sphinx builds it.
    pending = [t for targets in includes.values() for t in targets if t not in texts]
    while pending:
        path = pending.pop()
        text = None if path in texts else tree.read_text(path, tree.rel(path))
        if text is not None:
            texts[path] = text
            includes[path] = _includes(tree, path, text)
            pending.extend(t for t in includes[path] if t not in texts)
    order, base = _document_order(texts, includes, tree.rel)
    tree.files = [SourceFile(path, tree.rel(path), texts[path], base[path]) for path in order]
    return tree


def _includes(tree: Tree, path: Path, text: str) -> list[Path]:
    """`.. include::` targets of one file, resolved relative to that file (docutils). Only
    a file that may hold the directive is scanned here (an `.inc` holds none, and is
    scanned only if its reading is not kept)."""
    if not _MAY_INCLUDE.search(text):
        return []
    found = []
    for block in parse_cached(text).blocks:
        if isinstance(block, Directive) and block.name == "include" and block.head:
            where = f"{tree.rel(path)}:{block.line}"
            name = block.head.strip()
            if name.startswith("<"):
                continue  # a docutils standard-library include: not part of the tree
            target = tree.resolve(name, path.parent, where)
            if target is not None and not tree.fs.is_file(target):
                tree.warnings.append(f"{where}: included file '{name}' not found")
            elif target is not None:
                found.append(target)
    return found


def _document_order(docs: Collection[Path], includes: dict[Path, list[Path]],
                    rel: Callable[[Path], str]) -> tuple[list[Path], dict[Path, Path]]:
    """Include order from each top-level document (index.rst first), then files nobody
    includes. Files included twice count once; each file's base folder is its including
    top-level document's folder."""
    included = {target for targets in includes.values() for target in targets}
    tops = [p for p in docs if p.suffix == ".rst" and p not in included]
    tops.sort(key=lambda p: (p.name != "index.rst", len(p.parts), p))
    order: list[Path] = []
    base: dict[Path, Path] = {}

    def visit(start: Path, top: Path) -> None:
        # Depth first, in include order, without recursion: a chain may be long.
        pending = [(start, 0)]
        while pending:
            path, depth = pending.pop()
            if path in base or path not in docs:
                continue
            if depth > MAX_INCLUDE_DEPTH:
                raise InputError(f"includes nested more than {MAX_INCLUDE_DEPTH} deep",
                                 rel(path))
            base[path] = top.parent
            order.append(path)
            pending.extend((t, depth + 1) for t in reversed(includes.get(path, [])))

    for top in tops:
        visit(top, top)
    for path in sorted(docs):
        visit(path, path)  # not included anywhere: its own folder
    return order, base


def _srcdir(source: Path, sandbox: Path, fs: Files) -> Path:
    """The Sphinx source root: the nearest folder up (inside the sandbox) with conf.py or
    named `api-ref/source`, else the given one."""
    for folder in (source, *source.parents):
        if not folder.is_relative_to(sandbox):
            break
        if fs.is_file(folder / "conf.py"):
            return folder
        if folder.name == "source" and folder.parent.name.endswith("api-ref"):
            return folder
    return source


def _sandbox(source: Path, fs: Files) -> Path:
    """The repository folder holding the tree (the nearest git work tree up), else the
    folder given: a plain folder's tree is what lies inside it, nothing beside it."""
    for folder in (source, *source.parents):
        if fs.is_dir(folder / ".git") or fs.is_file(folder / ".git"):
            return folder
    return source


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)
