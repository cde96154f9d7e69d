"""Which `$ref` targets differ between the two documents, transitively: an operation or a
schema pair whose raw text is equal and whose refs are clean cannot differ anywhere below."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

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
        if self._dirty is None:
            self._dirty = self._dirty_refs()
        if ref in self._dirty:
            return True
        if ref not in self._known:  # only the new document uses it: compare the targets
            return not ref.startswith("#") or pointer_target(
                self.old.document.data, ref) != pointer_target(self.new.document.data, ref)
        return False

    def _dirty_refs(self) -> frozenset[str]:
        """Refs whose target differs, or reaches (through refs) one that differs: a fixpoint
        over the old document's ref graph, so cycles cannot hide a change."""
        self._known = self.refs_in(self.old.document.data)
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
        refs = self.refs_in(node)
        return not refs or not any(self.changed(ref) for ref in refs)



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
