"""Snapshot x Snapshot -> Changes, microversion by microversion.

`operations` walks the operations and the versions to compare them at (`samples`); below
them, `schema_search` finds every schema difference once (`schema_diff` says what differs
in one pair, `taint` which `$ref`s may hide one); `merge` makes one change of one
difference seen several times; `corrections` attaches the evidence that a change only
corrects the document; `lines` fills in line numbers for what is reported.
"""

from __future__ import annotations

from needs_microversion.compare.corrections import with_evidence
from needs_microversion.compare.lines import with_lines, with_removal_places
from needs_microversion.compare.merge import beside_one_microversion, without_told_announcements
from needs_microversion.compare.operations import Comparer
from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import Snapshot

__all__ = ["compare", "with_lines", "with_removal_places"]


def compare(old: Snapshot, new: Snapshot, catch_up: bool = True,
            documents_decide: bool = True) -> list[Change]:
    """The changes from `old` to `new`; `catch_up`: look for the evidence rule catch-up
    judges (off, only what rule correction reads is looked for); `documents_decide`: no
    version file says which microversions exist (the documents' words do)."""
    changes = without_told_announcements(Comparer(old, new, documents_decide).changes())
    return beside_one_microversion(with_evidence(changes, old, new, catch_up))
