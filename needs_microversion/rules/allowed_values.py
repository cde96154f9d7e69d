from __future__ import annotations

from needs_microversion.model.change import BODY_AREAS, Change, describe
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class AllowedValues(Rule):
    """Did we change the allowed values of a non-free-form field?

    What it checks
        The enumerated values of request and response body attributes: values added or
        removed (an enum appearing restricts values; one disappearing accepts any).

    Why
        "The allowed values of non free form fields" are part of the user contract: a client
        that switches on a status must know every value it can see.

    Example
        A new allowed `status` value returned by `GET /servers/{server_id}`.

    No microversion needed when
        The field sits inside a free-form object (its values were never promised).

    Options
        `--free-form POINTER` marks free-form objects.
    """

    id = "allowed-values"
    order = 14
    question = "Did we change the allowed values of a non-free-form field?"
    finding_ids = ("value-added", "value-removed")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area not in BODY_AREAS or change.aspect != "enum":
            return None
        finding = "value-added" if change.kind == "added" else "value-removed"
        return self.finding(finding, REQUIRED, change, describe(change))

