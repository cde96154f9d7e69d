from __future__ import annotations

from needs_microversion.model.change import ADDED_OR_REMOVED, QUERY_AREAS, Change, describe
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class QueryParameter(Rule):
    """Did we add or remove an accepted query string parameter or value?

    What it checks
        Query (and cookie) parameters of each operation: added, removed, changed (type,
        required-ness, constraints, serialisation), and the values they accept (enum values
        added or removed).

    Why
        The list of query parameters valid on a URL, and their values for non-free-form
        fields, are the contract (chart question 5).

    Example
        Adding `is_healthy` to `GET /nodes/{node_id}?is_healthy=True`; the `filters`
        parameter accepting a new value "D" beside "A", "B", "C".

    No microversion needed when
        Nothing the parameter accepts changes (descriptions, examples, `deprecated`).

    Options
        None.
    """

    id = "query-parameter"
    order = 11
    question = "Did we add or remove an accepted query string parameter or value?"
    finding_ids = ("query-parameter-added", "query-parameter-removed", "query-parameter-changed",
                   "query-value-added", "query-value-removed")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area not in QUERY_AREAS:
            return None
        if change.aspect == "enum":
            finding = "query-value-added" if change.kind == "added" else "query-value-removed"
        elif change.kind in ADDED_OR_REMOVED and "/" not in change.pointer:
            finding = f"query-parameter-{change.kind}"
        else:
            finding = "query-parameter-changed"
        return self.finding(finding, REQUIRED, change, describe(change))
