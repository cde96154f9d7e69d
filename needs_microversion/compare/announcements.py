"""Microversions that prose starts to announce: news only above what already exists.

What exists is the old maximum (the code's, from the version file; else the documents'
highest marker). Where the documents alone say it, a microversion the old documents already
name anywhere ("since microversion 2.27" in the version page, a caption "(2.69)") exists
too: prose written about it later documents it, it does not announce it. The old
documents' words are read once, and only when some prose names a version above the maximum.
"""

from __future__ import annotations

from needs_microversion.model.snapshot import Snapshot
from needs_microversion.model.versions import Version, mentioned_versions, newly_mentioned


class Announcements:
    def __init__(self, old: Snapshot, documents_decide: bool) -> None:
        """`documents_decide`: no version file says what the code serves."""
        self._old = old
        self.old_max = old.max_version
        self._documents_decide = documents_decide
        self._named: frozenset[Version] | None = None

    def news(self, old_text: str, new_text: str) -> list[Version]:
        """The microversions `new_text` newly names that do not exist yet, lowest first."""
        if self.old_max is None or old_text == new_text:
            return []
        major = self.old_max.major  # "TLS version 1.2" is no microversion of a 2.x API
        found = sorted(v for v in newly_mentioned(old_text, new_text, major) if v > self.old_max)
        if found and self._documents_decide:
            if self._named is None:
                self._named = mentioned_versions(self._old.prose(), major)
            found = [v for v in found if v not in self._named]
        return found
