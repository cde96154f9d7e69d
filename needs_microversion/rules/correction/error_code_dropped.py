"""error-code-dropped: an error code (4xx, 5xx) the old document listed at every version,
no longer listed at any microversion: the API never returned it (nova's "Complete method
verification of limits"), and a microversion cannot remove a code from the versions it
already had."""

from __future__ import annotations

from needs_microversion.model.change import Change

ID = "error-code-dropped"


def reason(change: Change) -> str | None:
    if change.kind == "removed" and change.area == "status-code" and change.everywhere \
            and (change.status or "").startswith(("4", "5")):
        return "no longer listed at any microversion"
    return None
