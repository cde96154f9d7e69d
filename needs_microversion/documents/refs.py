"""Resolve `$ref`s: JSON pointers inside a document and relative files beside it.

Only files under the first document's root folder are read, and never anything over the
network: a `$ref` is data from the input, not an instruction to fetch.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from needs_microversion.documents.document import read_document

from needs_microversion.model.document import Document
from needs_microversion.errors import InputError

# RFC 3986 scheme ("https:", "file:", ...); "//host/x" is a network-path reference.
_URL = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")
# A `$ref` whose target is only a `$ref`, and so on: real documents chain a few.
MAX_REF_CHAIN = 64


class RefResolver:
    """Resolves `$ref`s for one document and the files it refers to (each read once)."""

    def __init__(self, document: Document) -> None:
        self._root = os.path.realpath(document.root)
        self._documents: dict[str, Document] = {os.path.realpath(document.path): document}
        # (ref, id(base)) -> target: a large spec names one component thousands of times.
        self._resolved: dict[tuple[str, int], tuple[Document, Any, tuple[str, ...]]] = {}
        self._chain_left: dict[tuple[str, int], int] = {}  # hops from a followed ref to its end

    @property
    def root(self) -> str:
        """The folder (symlinks resolved) outside which no file is read."""
        return self._root

    @property
    def documents(self) -> tuple[Document, ...]:
        """The document and every file its `$ref`s have read so far."""
        return tuple(self._documents.values())

    def resolve(self, ref: str, base: Document) -> tuple[Document, Any, tuple[str, ...]]:
        """The document holding the target, the target node, and its pointer segments.

        A target that is itself only `{"$ref": ...}` is followed in turn.
        """
        key = (ref, id(base)) if isinstance(ref, str) else None
        found = self._resolved.get(key) if key is not None else None
        if found is None:
            found = self._follow(ref, base)
            if key is not None:
                self._resolved[key] = found
        return found

    def _follow(self, ref: str, base: Document) -> tuple[Document, Any, tuple[str, ...]]:
        # Where each target was met in the chain; a repeat is a loop (and ends the walk).
        seen: dict[tuple[int, tuple[str, ...]], int] = {}
        chain: list[str] = []
        target_ref, target_base = ref, base
        # Every hop ends where this walk ends: remembered, a chain of n refs is walked once,
        # not n times (50,000 chained schemas took minutes).
        hops: list[tuple[str, int]] = [(ref, id(base))] if isinstance(ref, str) else []
        rest = 0  # the hops left after a remembered one
        while True:
            if chain and isinstance(target_ref, str):
                hops.append((target_ref, id(target_base)))
                found = self._resolved.get(hops[-1])
                if found is not None:
                    rest = self._chain_left[hops[-1]]
                    break
            if len(chain) >= MAX_REF_CHAIN:  # the validator walks each chain again
                raise InputError(f"a chain of more than {MAX_REF_CHAIN} $refs (the limit)",
                                 base.display, _line_of_ref(base, ref))
            doc, node, pointer = self._resolve_once(target_ref, target_base)
            chain.append(_pointer_text(doc, pointer))
            start = seen.setdefault((id(doc), pointer), len(chain) - 1)
            if start < len(chain) - 1:
                loop = chain[start:] if len(chain) - start <= 8 else [*chain[start:start + 4],
                                                                      "...", chain[-1]]
                raise InputError(f"$ref loop: {' -> '.join(loop)}", base.display,
                                 _line_of_ref(base, ref))
            if not (isinstance(node, Mapping) and len(node) == 1 and "$ref" in node):
                found = doc, node, pointer
                break
            target_ref, target_base = node["$ref"], doc
        if len(chain) + rest > MAX_REF_CHAIN:
            raise InputError(f"a chain of more than {MAX_REF_CHAIN} $refs (the limit)",
                             base.display, _line_of_ref(base, ref))
        for taken, hop in enumerate(hops):  # hops[0] is `ref` itself
            self._resolved[hop] = found
            self._chain_left[hop] = len(chain) + rest - taken
        return found

    def _resolve_once(self, ref: Any, base: Document) -> tuple[Document, Any, tuple[str, ...]]:
        if not isinstance(ref, str):
            raise InputError(f"$ref must be a string, not {ref!r}", base.display)
        if _URL.match(ref):
            raise InputError(f"$ref to a URL is not followed: {ref!r}", base.display,
                             _line_of_ref(base, ref))
        location, _, fragment = ref.partition("#")
        doc = self._document(location, ref, base) if location else base
        pointer = _pointer(fragment, ref, base)
        node = doc.data
        for depth, segment in enumerate(pointer):
            node = _child(node, segment)
            if node is _MISSING:
                where = "" if doc is base else f" in {doc.display}"
                raise InputError(f"$ref {ref!r} points to nothing: no "
                                 f"'{'/'.join(pointer[:depth + 1])}'{where}", base.display,
                                 _line_of_ref(base, ref))
        return doc, node, pointer

    def _document(self, location: str, ref: str, base: Document) -> Document:
        relative = unquote(location)
        if "\0" in relative:  # no file has that name, and os functions refuse it
            raise InputError(f"$ref {ref!r}: no such file", base.display, _line_of_ref(base, ref))
        try:
            # Shown beside the referring file's name, so "REV:dir/a.yaml" gives "REV:dir/b.yaml".
            return self._read(base.path.parent / relative,
                              _sibling_display(base.display, relative))
        except _Refused as exc:
            raise InputError(f"$ref {ref!r}{exc}", base.display, _line_of_ref(base, ref)
                             ) from None

    def document_at(self, uri: str) -> Document:
        """The document a `file:` URI names, read under the same limits as a `$ref`.

        For openapi-spec-validator, which resolves `$ref`s itself: it gets no other way to
        read a file or reach the network. Raises RefusedRef.
        """
        parts = urlsplit(uri)
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            raise RefusedRef(f"$ref to {uri!r} is not followed: only files inside the "
                             "document's folder are read")
        path = unquote(parts.path)
        if "\0" in path:
            raise RefusedRef(f"$ref to {uri!r}: no such file")
        try:
            return self._read(Path(path), os.path.relpath(path, self._root))
        except _Refused as exc:
            raise RefusedRef(f"$ref to {uri!r}{exc}") from None

    def _read(self, path: Path, display: str) -> Document:
        """A file inside the root folder (symlinks resolved first), each read once."""
        target = os.path.realpath(path)
        if os.path.commonpath([self._root, target]) != self._root:
            raise _Refused(" points outside the document's folder")
        cached = self._documents.get(target)
        if cached is not None:
            return cached
        if not os.path.isfile(target):
            raise _Refused(": is a directory" if os.path.isdir(target) else ": no such file")
        doc = read_document(target, display=display, root=Path(self._root))
        self._documents[target] = doc
        return doc


class RefusedRef(Exception):
    """A `$ref` the validator asked for that is not read (a URL, or outside the tree)."""


class _Refused(Exception):
    """Why a file is not read; the caller says which `$ref` asked for it."""


_MISSING = object()


def _pointer(fragment: str, ref: str, base: Document) -> tuple[str, ...]:
    """`/a~1b/0` -> ("a/b", "0"): percent-decoded first (it is a URI fragment), then RFC 6901."""
    text = unquote(fragment)
    if not text:
        return ()
    if not text.startswith("/"):
        raise InputError(f"$ref {ref!r}: the part after '#' must be a JSON pointer "
                         f"starting with '/'", base.display, _line_of_ref(base, ref))
    return tuple(s.replace("~1", "/").replace("~0", "~") for s in text[1:].split("/"))


def _pointer_text(doc: Document, pointer: tuple[str, ...]) -> str:
    return doc.display + "#" + "".join(
        "/" + s.replace("~", "~0").replace("/", "~1") for s in pointer)


def _child(node: Any, segment: str) -> Any:
    if isinstance(node, Mapping):
        if segment in node:
            return node[segment]
        # YAML keys may be numbers (`200:`) or other scalars; a pointer names them as text.
        for key, value in node.items():
            if not isinstance(key, str) and str(getattr(key, "source_text", key)) == segment:
                return value
        return _MISSING
    if isinstance(node, list) and _ARRAY_INDEX.match(segment) and int(segment) < len(node):
        return node[int(segment)]
    return _MISSING


def _line_of_ref(doc: Document, ref: str) -> int | None:
    """The line of the first `$ref` written with this value (all copies fail alike)."""
    written = re.compile(r"""\$ref['"]?[ \t]*:[ \t]*['"]?""" + re.escape(ref)
                         + r"""(?=['"\s,}]|\Z)""")
    match = written.search(doc.text)
    return doc.text.count("\n", 0, match.start()) + 1 if match else None


def _sibling_display(base: str, relative: str) -> str:
    """Name a referenced file beside its referrer, keeping a git `REV:` prefix intact."""
    rev, sep, path = base.partition(":")
    if not sep or len(rev) == 1:  # no revision (or a Windows drive letter)
        rev, sep, path = "", "", base
    return rev + sep + posixpath.normpath(posixpath.join(posixpath.dirname(path), relative))
