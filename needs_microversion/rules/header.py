from __future__ import annotations

from needs_microversion.model.change import ADDED_OR_REMOVED, HEADER_AREAS, Change, describe
from needs_microversion.model.verdict import NOT_REQUIRED, REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class Header(Rule):
    """Did we add or remove a request or response header?

    What it checks
        Headers accepted on a request and returned on a response (per status code), compared
        case-insensitively: added, removed, or changed (type, values, required-ness).

    Why
        New headers accepted on a request and new headers returned on a response are listed
        in the user contract of every microversion guide (nova, senlin, cyborg).

    Example
        A response that starts returning `X-Openstack-Request-Id`, or a request that starts
        honouring `X-Client-Trace`.

    No microversion needed when
        An inapplicable header is removed: `Retry-After` returned with a 4xx response (it only
        belongs on a 503 or a 3xx) may go without a microversion.

    Options
        Profiles cinder and manila switch the Retry-After exception off (their guides do
        not state it).
    """

    id = "header"
    order = 13
    question = "Did we add or remove a request or response header?"
    finding_ids = ("request-header-added", "request-header-removed", "response-header-added",
                   "response-header-removed", "header-changed", "inapplicable-header-removed")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area not in HEADER_AREAS:
            return None
        if (context.options.inapplicable_header_exemption
                and change.area == "response-header" and change.kind == "removed"
                and change.pointer.lower() == "retry-after"
                and (change.status or "").startswith("4")):
            return self.finding("inapplicable-header-removed", NOT_REQUIRED, change,
                                f"{describe(change)}: Retry-After does not apply to a "
                                f"{change.status}")
        if change.kind in ADDED_OR_REMOVED and "/" not in change.pointer:
            return self.finding(f"{change.area}-{change.kind}", REQUIRED, change,
                                describe(change))
        return self.finding("header-changed", REQUIRED, change, describe(change))
