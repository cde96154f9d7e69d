from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule

_RESPONSE_AREAS = ("response-body", "response-media-type")


class ResponseSchema(Rule):
    """Does only the code's response schema change, not what the code returns?

    What it checks
        A response body changed in the contract the code declares (nova's
        `@validation.response_body_schema`) by a change that edits no controller or view of
        the API, only its schema modules (`response-schema-corrected`).

    Why it needs no microversion
        Response schemas describe, they do not enforce: nova validates responses only to log
        a mismatch (`[api] response_validation` defaults to `warn`). A response schema
        edited alone does not change what the server returns; it corrects the description
        (nova's e6d977384d dropped an errant `adminPass`). The finding stays visible as a
        warning: check that the code already returns what the schema now says.

    Example
        `server_show_response` loses `OS-EXT-SRV-ATTR:foo` in
        `nova/api/openstack/compute/schemas/servers.py`, and no controller or view changes.

    No microversion needed when
        Always, for these findings. A response schema changed together with the code that
        returns the body (a controller, a view builder) is judged as any other change.

    Options
        None; it applies to the code's contract (`code:REV`, and `check` when the change
        edits the API's code).
    """

    id = "response-schema"
    order = 6
    question = "Does only the code's response schema change, not what the code returns?"
    finding_ids = ("response-schema-corrected",)
    review = True

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        options = context.options
        if not options.code_contract or options.view_code_changed is not False \
                or change.area not in _RESPONSE_AREAS or change.declared \
                or change.gated is not None:  # a new microversion's content: judged as such
            return None
        return self.finding("response-schema-corrected", NOT_REQUIRED, change,
                            f"{describe(change)}: only the response schema changed, no code "
                            "that returns the body (response schemas describe, they do not "
                            "enforce); check the code already returns this")
