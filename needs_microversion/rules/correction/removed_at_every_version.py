"""removed-at-every-version: an element, operation, media type or status code the old
document had at every version (every version its operation has, when that starts at a
microversion), or one a microversion added, removed whole: the new document has it at no
version. A microversion could remove it from its own version on, never from the version
that added it; removed from some versions only is what a microversion does, and stays the
other rules'."""

from __future__ import annotations

from needs_microversion.model.change import Area, Change
from needs_microversion.rules.correction.corrected import ELEMENT_AREAS

ID = "removed-at-every-version"
_REMOVABLE: tuple[Area, ...] = (*ELEMENT_AREAS, "operation", "status-code",
                                "request-media-type", "response-media-type")


def reason(change: Change) -> str | None:
    if change.kind == "removed" and change.area in _REMOVABLE and change.everywhere:
        return "gone from every microversion, as if it had never been there"
    return None
