"""Snapshot x Snapshot -> Changes, microversion by microversion: the differences, stated as
facts; what they mean is the rules' (`rules/`, run by `judge`).

`operations` walks the operations and the versions to compare them at (`samples`); below
them, `schema_search` finds every schema difference once (`schema_diff` says what differs
in one pair, `taint` which `$ref`s may hide one); `merge` makes one change of one
difference seen several times (and reads an element with no version note beside the one
microversion a change documents); `lines` fills in line numbers for what is reported.
"""

from __future__ import annotations

from needs_microversion.compare.lines import with_lines, with_removal_places
from needs_microversion.compare.merge import without_told_announcements
from needs_microversion.compare.operations import Comparer
from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import Snapshot

__all__ = ["compare", "with_lines", "with_removal_places"]


def compare(old: Snapshot, new: Snapshot, documents_decide: bool = True) -> list[Change]:
    """The changes from `old` to `new`; `documents_decide`: no version file says which
    microversions exist (the documents' words do)."""
    return without_told_announcements(Comparer(old, new, documents_decide).changes())
