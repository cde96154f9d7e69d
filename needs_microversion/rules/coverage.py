from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class Coverage(Rule):
    """Does the code only declare a schema where it declared none?

    What it checks
        Changes of the contract a service's code declares (nova's `@validation.schema`,
        `query_schema`, `response_body_schema`) where the old side declared no schema at
        all for that body or query string, and the new side declares one: every attribute,
        parameter or constraint the new schema names (`schema-declared`); and an operation
        whose microversions the code checked in its body (ironic's `allow_*()`) that now
        declares them (`@validation.api_version`), so it is no longer listed below its
        first (`range-declared`).

    Why it needs no microversion
        Where the code declares no schema it validates nothing: any body or query string
        went through, and the response was whatever the controller returned. A schema
        written where there was none describes what the code already did (nova's 2024-2026
        coverage series: "Add ... schemas", 13 of a random 20 such commits). It is still
        reported, because a schema stricter than the code was becomes a contract change the
        day it is enforced: check the schema accepts what clients send.

    Example
        nova adds `index_query` to `GET /os-keypairs` where no query schema was declared:
        its `user_id`, `limit` and `marker` parameters are documented, not added. ironic
        puts `@validation.api_version(min_version=versions.MINOR_32_VOLUME)` on `GET
        /volume`, which answered 404 below 1.32 already.

    No microversion needed when
        Always, for these findings. Not coverage: a schema that replaces another one (any
        change between two declared schemas), and a schema removed (the code stops
        validating: it accepts more).

    Options
        None; it applies wherever the old side marks a schema undeclared
        (`x-needs-microversion-undeclared`) or an operation's range undeclared
        (`x-needs-microversion-range-undeclared`), both written by the code loader.
    """

    id = "coverage"
    order = 5
    question = "Does the code only declare a schema where it declared none?"
    finding_ids = ("schema-declared", "range-declared")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if not change.declared:
            return None
        if change.area == "operation":
            return self.finding("range-declared", NOT_REQUIRED, change,
                                f"{describe(change)}: the code now declares the microversions "
                                "it checked in its body before; check it answered 404 below "
                                "them already")
        return self.finding("schema-declared", NOT_REQUIRED, change,
                            f"{describe(change)}: the code declared no schema here before "
                            "(it validated nothing), so the schema describes what it already "
                            "did; check it accepts what clients send")
