"""success-code-swapped: an operation's only removed success code and its only added one,
both at every microversion: the success code is corrected (manila share network create:
`Normal response codes: 202` becomes `200`, with no microversion), not one code added and
another removed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.correction.pairing import open_to_pairing, pair
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "success-code-swapped"


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    found: dict[int, Correction] = {}
    pair(found, open_to_pairing(changes, prior), _success_code, _swapped)
    return found


def _success_code(change: Change) -> Any:
    if change.area == "status-code" and (change.status or "").startswith("2"):
        return change.op_key
    return None


def _swapped(gone: Change, came: Change) -> Correction:
    return Correction(ID, f"the success code is corrected from {gone.status} to {came.status} "
                      "at every microversion")


FINDER = Finder("success_code_swapped", (ID,), find,
                sees=("nesting_reread", "wrapper_reread"))
