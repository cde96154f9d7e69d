"""Which `$ref` targets differ between the two documents, transitively: an operation or a
schema pair whose raw text is equal and whose refs are clean cannot differ anywhere below."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

from needs_microversion.model.document import Document
from needs_microversion.model.snapshot import Snapshot

MISSING = object()
_CONTAINERS = (dict, list, tuple)
_NO_REFS: frozenset[str] = frozenset()


class RefTaint:
    """Which `$ref` targets differ between the two documents (transitively)."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self._refs: dict[int, tuple[Any, frozenset[str]]] = {}
        self._dirty: frozenset[str] | None = None
        self._known: frozenset[str] = frozenset()
        # No ref target differs and every ref is local: any node of the old document is
        # clean, without a look at its refs (a small change to a large document).
        self._all_clean = False

    def refs_in(self, node: Any) -> frozenset[str]:
        """Every `$ref` below a node, memoising each container on the way (one pass over
        the document answers every later question about any part of it)."""
        hit = self._refs.get(id(node))
        return hit[1] if hit is not None else self._index(node)

    def _index(self, node: Any) -> frozenset[str]:
        # Recursive: documents are nesting-bounded when loaded, and recursion is fastest here.
        found = _NO_REFS
        if type(node) is dict:
            ref = node.get("$ref")
            if type(ref) is str:
                found = frozenset((ref,))
            values: Iterable[Any] = node.values()
        else:
            values = node
        memo = self._refs
        for value in values:
            if type(value) in _CONTAINERS:
                hit = memo.get(id(value))
                below = hit[1] if hit is not None else self._index(value)
                if below:
                    found = found | below if found else below
        memo[id(node)] = (node, found)
        return found

    def changed(self, ref: str) -> bool:
        if ref in self._dirty_set():
            return True
        if ref not in self._known:  # only the new document uses it: compare the targets
            return not ref.startswith("#") or pointer_target(
                self.old.document.data, ref) != pointer_target(self.new.document.data, ref)
        return False

    def _dirty_set(self) -> frozenset[str]:
        if self._dirty is None:
            self._dirty = self._dirty_refs()
            self._all_clean = not self._dirty and all(r.startswith("#") for r in self._known)
        return self._dirty

    def _dirty_refs(self) -> frozenset[str]:
        """Refs whose target differs, or reaches (through refs) one that differs: a fixpoint
        over the old document's ref graph, so cycles cannot hide a change."""
        # A document the tool made says whether it holds a ref (its builder looked).
        written = frozenset() if self.old.refs is False else _refs_written(self.old.document)
        self._known = self.refs_in(self.old.document.data) if written is None else written
        dirty: set[str] = set()
        users: dict[str, set[str]] = {}
        for ref in self._known:
            old_target = pointer_target(self.old.document.data, ref)
            if not ref.startswith("#") or old_target != pointer_target(
                    self.new.document.data, ref):
                dirty.add(ref)
            elif type(old_target) in _CONTAINERS:
                for inner in self.refs_in(old_target):
                    users.setdefault(inner, set()).add(ref)
        pending = list(dirty)
        while pending:
            for user in users.get(pending.pop(), ()):
                if user not in dirty:
                    dirty.add(user)
                    pending.append(user)
        return frozenset(dirty)

    def clean(self, node: Any) -> bool:
        """No `$ref` below a node of the old document reaches a target that differs."""
        self._dirty_set()
        if self._all_clean:
            return True
        refs = self.refs_in(node)
        return not refs or not any(self.changed(ref) for ref in refs)



# A `$ref` member with a string value, as JSON writes it (the string unrolled: no alternation
# per character, 3-5 times faster on large texts). Inside a string, quotes are
# escaped: only a key made to end like one can match there, and an extra ref costs only time.
_REF_MEMBER = re.compile(r'"\$ref"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
# `"\u0024ref"` is `"$ref"` too: a text that escapes one of its letters is read from the data.
_ESCAPED_REF_LETTER = re.compile(r"\\u00(?:24|72|65|66)", re.IGNORECASE)


def _refs_written(document: Document) -> frozenset[str] | None:
    """Every `$ref` string of a document, read at C speed from its JSON text (or from the
    text json.dumps writes of its data: 5-10 times faster than walking it); None when the
    data is not JSON (then walk it)."""
    text = document.text if document.format == "json" else ""
    if not text or _ESCAPED_REF_LETTER.search(text):
        try:
            text = json.dumps(document.data)
        except (TypeError, ValueError, RecursionError):
            return None
    return frozenset(json.loads(f'"{raw}"') if "\\" in raw else raw
                     for raw in _REF_MEMBER.findall(text))


def pointer_target(data: Any, ref: str) -> Any:
    node = data
    for part in ref[1:].split("/")[1:] if ref.startswith("#/") else []:
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(part, MISSING)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node
