"""listed-undefined: an element whose row the old table already listed by name, though
parameters.yaml had no definition for it (the row was read as nothing): defining it
documents the element late (nova's os-services `binary`, listed in 2016 before any
definition of it existed)."""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.change import BODY_AREAS, HEADER_AREAS, Area, Change, Correction
from needs_microversion.model.extensions import UNREAD_KEY
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.rules.catch_up.written_in import written_in
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "listed-undefined"
# What a `rest_parameters` row can document.
_ROW_AREAS: frozenset[Area] = frozenset({"path-parameter", "query-parameter",
                                         "cookie-parameter", *HEADER_AREAS, *BODY_AREAS})


class _Unread:
    """The rows each file of the old tree listed with no definition to read."""

    def __init__(self, old: Snapshot) -> None:
        listed = old.info(UNREAD_KEY)  # an OpenAPI document may write anything there
        self.listed = {file: {n for n in names if isinstance(n, str)}
                       for file, names in listed.items() if isinstance(names, list)
                       } if isinstance(listed, dict) else {}
        self.old = old

    def correction(self, change: Change) -> Correction | None:
        if not self.listed or change.kind != "added" or change.op_key not in \
                self.old.operations or change.area not in _ROW_AREAS:
            return None
        file = written_in(change, (self.old,))
        name = change.pointer.rstrip("/").rsplit("/", 1)[-1]
        if file is None or name not in self.listed.get(file, ()):
            return None
        return Correction(ID, f"the old {file} already listed `{name}` in its table, with no "
                          "definition to read; it is documented late")


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    unread = _Unread(sides.old)
    if not unread.listed:
        return {}
    return {id(change): found for change in changes
            if (found := unread.correction(change)) is not None}


FINDER = Finder("listed_undefined", (ID,), find, per_change=True)
