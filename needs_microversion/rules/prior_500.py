from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import BUG_FIX, Finding
from needs_microversion.rules.base import SERVER_ERRORS, Context, Rule


class PriorServerError(Rule):
    """Did we return a 500 before?

    What it checks
        A documented 500 or 503 response that goes away, and the 4xx responses that replace
        it on the same operation (a real fix often adds a 409 or a 400 this way).

    Why
        Clients are not expected to handle a 500 or 503, so they need not opt in to a fix
        that stops it happening (chart question 2, nova footnote f1). Map the new error to
        the codes the call could already return where possible.

    Example
        `GET /flavors?sort_key=bogus` used to fail with 500; it now returns 400.

    No microversion needed when
        Always, for these findings: the answer is "No microversion needed, it's a bug".

    Options
        None.
    """

    id = "prior-500"
    order = 2
    question = "Did we return a 500 before?"
    finding_ids = ("server-error-fixed", "server-error-replaced")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area != "status-code":
            return None
        if change.kind == "removed" and change.status in SERVER_ERRORS:
            return self.finding("server-error-fixed", BUG_FIX, change,
                                f"{describe(change)}: a server error no longer happens")
        if (change.kind == "added" and change.op_key in context.fixed_server_errors
                and (change.status or "").startswith("4")):
            return self.finding("server-error-replaced", BUG_FIX, change,
                                f"{describe(change)}: replaces a documented server error")
        return None
