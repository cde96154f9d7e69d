from __future__ import annotations

from needs_microversion.model.change import Change, Retired, describe
from needs_microversion.model.verdict import NOT_REQUIRED, REQUIRED, Finding
from needs_microversion.rules.base import SERVER_ERRORS, Context, Rule

AUTHENTICATION_FAILED = "401"  # keystonemiddleware, in front of every OpenStack API
# Why a newly documented 410 retires its operation, in the report's words.
_RETIRED_WHY: dict[Retired, str] = {"no-success-code": "no success code is left",
                                    "documented-removed": "documented as removed"}


class StatusCode(Rule):
    """Are we changing what status code is returned?

    What it checks
        The status codes documented for each operation: a code added (the API may now return
        it) or removed (a success code replaced, 200 -> 201, counts as both).

    Why
        The list of status codes allowed for a request is part of the contract: clients
        branch on them (chart question 3).

    Example
        An API that could return 200, 400, 403, 404 may now also return 409; or the return
        code changes from 501 to 400.

    No microversion needed when
        A 400, 403, 404 or 415 is newly documented (nova footnote f2: validation, policy,
        missing resources and content types can always produce them). A 401 newly documented
        (`authentication-documented`, in every profile): an OpenStack API authenticates
        every request, and keystonemiddleware answers a missing or expired token with 401
        before the API's own code runs, so every operation could always return it (an
        operation that starts to require authentication is a `security` change). A 410 Gone newly
        documented at every microversion retires the API when no success code is left, or
        when the documentation says the API was removed (nova removes an obsolete API at all
        versions at once, os-fixed-ips and os-networks after nova-network went, moves it to
        "Obsolete APIs" and writes "They were removed in the 18.0.0 Rocky release"): that is
        a removal under the deprecation policy, which the report names, not a microversion;
        the codes it stops returning go with it. A 410 next to a success code the operation
        keeps, with no such words, is a new status code. A 500 or 503 newly documented
        (`server-error-documented`): clients are not expected to handle them (nova footnote
        f1), so writing one down adds nothing a client must branch on. A 500/503 fixed is
        question 2.

    Options
        `--no-exempt-error-codes` turns the f2 exemption off; `exempt-error-codes` in the
        configuration lists the codes. Profiles cinder and manila have none: their
        contributor guides (`api_microversion_dev.rst`) copy nova's chart and its footnote
        "changing the set of allowed status codes from a request is changing the contract"
        without footnote f2. Profiles nova, placement (its `architecture.rst`: microversion
        rules "modeled after" nova's), ironic (`webapi.rst` names no other rule for codes)
        and generic keep it; `diff` of two api-ref trees takes the profile of the project
        their `conf.py` names, so both modes judge alike. A code newly documented by a
        change that touches no code is `documentation-only` in every profile. Only
        profiles nova and generic know the retired-API exemption.
    """

    id = "status-code"
    order = 9
    question = "Are we changing what status code is returned?"
    finding_ids = ("status-code-added", "status-code-removed", "error-code-exempt",
                   "authentication-documented", "api-retired", "server-error-documented")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area != "status-code":
            return None
        if change.kind == "added" and change.status in context.options.exempt_error_codes:
            return self.finding("error-code-exempt", NOT_REQUIRED, change,
                                f"{describe(change)}: {change.status} may always be returned "
                                "(footnote f2)")
        if change.kind == "added" and change.status == AUTHENTICATION_FAILED:
            return self.finding("authentication-documented", NOT_REQUIRED, change,
                                f"{describe(change)}: authentication answers a missing or "
                                "expired token with 401 before the API runs, for every "
                                "operation")
        if change.kind == "added" and change.status in SERVER_ERRORS:
            return self.finding("server-error-documented", NOT_REQUIRED, change,
                                f"{describe(change)}: clients are not expected to handle a "
                                f"{change.status} (footnote f1); documenting it changes no "
                                "contract")
        if (change.op_key in context.retired and change.gated is None
                and context.options.retired_api_exemption
                and (change.status == "410" or change.kind == "removed")):
            why = _RETIRED_WHY.get(change.retired, "its responses go with it")
            return self.finding("api-retired", NOT_REQUIRED, change,
                                f"{describe(change)}: the API is retired at every "
                                f"microversion (410 Gone; {why}); review it as a removal under "
                                "the deprecation policy")
        finding = "status-code-added" if change.kind == "added" else "status-code-removed"
        return self.finding(finding, REQUIRED, change, describe(change))
