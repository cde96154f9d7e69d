from __future__ import annotations

from needs_microversion.model.change import ADDED_OR_REMOVED, BODY_AREAS, Change, describe
from needs_microversion.model.verdict import NOT_REQUIRED, REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class Attribute(Rule):
    """Did we add or remove an attribute to a payload?

    What it checks
        Request and response body attributes, by JSON pointer (`/server/locked`): added,
        removed, or changed in type, nullability, required-ness, validation constraints
        (length, pattern, bounds, ...) or in the alternatives they allow (oneOf/anyOf).

    Why
        The attributes and data structures accepted and returned are the contract: a client
        written for one version must work unchanged against it (chart question 4).

    Example
        Adding `'locked': True/False` to the request body, or to the output of
        `GET /servers/{server_id}`.

    No microversion needed when
        A key is added to or removed from a free-form object, a map of the user's own
        keys: one that declares no property and says `additionalProperties: true` (a
        server's metadata), or a configured free-form path (nova's `os:scheduler_hints`:
        schedulers depend on the cloud). An object that declares its properties and also
        lets other keys through (nova's legacy request bodies) is not free-form: a new
        declared key there is a new attribute.

    Options
        `--free-form POINTER` (repeatable, `*` matches one segment) marks more free-form
        objects; `free-form` in the configuration (profiles add their own, e.g. ironic).
    """

    id = "attribute"
    order = 10
    question = "Did we add or remove an attribute to a payload?"
    finding_ids = ("attribute-added", "attribute-removed", "attribute-changed", "free-form-key")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area not in BODY_AREAS:
            return None
        if change.aspect == "enum":  # allowed values are their own question, unless free-form
            if context.in_free_form_path(change):
                return self.finding("free-form-key", NOT_REQUIRED, change,
                                    f"{describe(change)} inside a free-form object")
            return None
        if change.kind in ADDED_OR_REMOVED:
            if change.free_form or context.in_free_form_path(change):
                return self.finding("free-form-key", NOT_REQUIRED, change,
                                    f"{describe(change)} inside a free-form object")
            return self.finding(f"attribute-{change.kind}", REQUIRED, change, describe(change))
        return self.finding("attribute-changed", REQUIRED, change, describe(change))
