"""unverified-section: a change to what the old tree itself says is not yet checked against
the code.

os-api-ref's verification burndown marks a file `.. needs:method_verification` (its methods,
URLs and status codes), `needs:parameter_verification` (its table rows) or
`needs:body_verification` (its bodies) until someone checks it against the code (atop
nova's 2016 files). What it documents there may be wrong, and a change of that part is the
document being verified, not the API changing."""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.change import (
    BODY_AREAS, HEADER_AREAS, MEDIA_TYPE_AREAS, Area, Change, Correction)
from needs_microversion.model.extensions import UNVERIFIED_KEY
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.rules.catch_up.written_in import written_in
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "unverified-section"

# What each os-api-ref verification phase checks against the code: the methods, URLs and
# status codes; every row of the parameter tables; the body tables (a body documented where
# none was shows as a media type).
_PHASE_AREAS: dict[str, frozenset[Area]] = {
    "method": frozenset({"operation", "status-code"}),
    "parameter": frozenset({"path-parameter", "query-parameter", "cookie-parameter",
                            *HEADER_AREAS, *BODY_AREAS}),
    "body": frozenset({*BODY_AREAS, *MEDIA_TYPE_AREAS}),
}


class _Marks:
    """The files the old tree marks, and which phases each still needs."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        marked = old.info(UNVERIFIED_KEY)  # an OpenAPI document may write anything there
        self.marked = {file: [p for p in phases if isinstance(p, str)]
                       for file, phases in marked.items() if isinstance(phases, list)
                       } if isinstance(marked, dict) else {}
        self.sides = (old, new)

    def correction(self, change: Change) -> Correction | None:
        if not self.marked:
            return None
        file = written_in(change, self.sides)
        phases = self.marked.get(file, ()) if file else ()
        phase = next((p for p in phases if change.area in _PHASE_AREAS.get(p, ())), None)
        if phase is None:
            return None
        return Correction(ID, f"the old document marks {file} `needs:{phase}_"
                        "verification` (not yet checked against the code); check the code "
                        "agrees")


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    marks = _Marks(*sides)
    if not marks.marked:
        return {}
    return {id(change): found for change in changes
            if (found := marks.correction(change)) is not None}


FINDER = Finder("unverified_section", (ID,), find, per_change=True)
