"""success-code-first-documented, codes-first-documented: a status code the old document
could not have contradicted.

- A success code added at every version to an operation the old document named no success
  code for (an api-ref section with no `Normal response codes`, or one listing only errors
  there): the old document never said what the operation returns; it does not say
  something else now (`success-code-first-documented`).
- Any code, an error too, where the old section named none at all: it said nothing about
  codes, so it cannot have said something else (`codes-first-documented`).
"""

from __future__ import annotations

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.finder import Sides, each_change

SUCCESS_ID = "success-code-first-documented"
CODES_ID = "codes-first-documented"


def check(change: Change, sides: Sides) -> Correction | None:
    if change.area != "status-code" or change.kind != "added" or not change.everywhere:
        return None
    op = sides.old.operations.get(change.op_key)
    if op is None:
        return None
    if not op.responses:  # a section with no codes at all: not a word on errors either
        return Correction(CODES_ID, f"the old document named no status code for "
                          f"{op.display} (its changes could not be seen); {change.status} is "
                          "documented for the first time")
    if not (change.status or "").startswith("2") \
            or any(code.startswith("2") for code in op.responses):
        return None
    return Correction(SUCCESS_ID, "the old document named no success code for "
                      f"{op.display}; {change.status} is documented for the first time")


FINDER = each_change("first_documented_code", (SUCCESS_ID, CODES_ID), check)
