"""Which file of an api-ref tree an operation is written in: what the os-api-ref markers of
a file (`needs:*_verification`) and its unread rows are keyed by."""

from __future__ import annotations

from collections.abc import Iterable

from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import Snapshot


def written_in(change: Change, sides: Iterable[Snapshot]) -> str | None:
    """The file the operation is written in: the first side's that has it."""
    for side in sides:
        if change.op_key in side.operations:
            # api-ref locations are named from the tree's folder; the marks are not
            return side.operations[change.op_key].location.file.removeprefix(
                side.document.display + "/")
    return None
