"""moved-location: a parameter removed from one place and one of the same name added at
another, both at every microversion (`in: path` -> `in: query`, a query parameter that was
documented as a body attribute): where it goes is corrected."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.correction.pairing import open_to_pairing, pair
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "moved-location"
PARAMETER_AREAS = ("path-parameter", "query-parameter", "request-header", "cookie-parameter")


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    found: dict[int, Correction] = {}
    pair(found, open_to_pairing(changes, prior), _parameter_name, _moved, across=True)
    return found


def _parameter_name(change: Change) -> Any:
    """Parameters and top-level request attributes, by operation and name."""
    if change.area in PARAMETER_AREAS:
        return change.op_key, change.pointer.lower()
    if change.area == "request-body" and change.pointer.count("/") == 1:
        return change.op_key, change.pointer[1:].lower()
    return None


def _moved(gone: Change, came: Change) -> Correction:
    return Correction(ID, f"{gone.pointer.lstrip('/')} is documented as a {_place(came)} "
                      f"instead of a {_place(gone)}: where it goes is corrected")


def _place(change: Change) -> str:
    return change.area.replace("-", " ").replace("request body", "request attribute")


FINDER = Finder("moved_location", (ID,), find,
                sees=("nesting_reread", "wrapper_reread", "success_code_swapped"))
