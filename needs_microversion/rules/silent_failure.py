from __future__ import annotations

from needs_microversion.model.change import Change
from needs_microversion.model.verdict import BUG_FIX, Finding
from needs_microversion.rules.base import Context, Rule


class SilentFailure(Rule):
    """Did we silently fail to do what is asked?

    What it checks
        Nothing in the documents can show it. The reviewer claims it for an operation
        (`--silent-failure "METHOD /path: reason"`); every change on that operation is then
        judged a bug fix, and the report repeats the claim so that it can be checked.

    Why
        An API that accepted a request and silently did not do it was broken. Making it do
        what it always promised is a bug fix, not a new contract (chart question 1).

    Example
        `POST /servers/{server_id}/action` (reboot) returned 202 but never rebooted a pausing
        server; the fix changes nothing a client has to handle.

    No microversion needed when
        The claim holds: the answer is "No microversion needed, it's a bug".

    Options
        `--silent-failure "METHOD /path: reason"` (repeatable); `silent-failures` in the
        configuration.
    """

    id = "silent-failure"
    order = 1
    question = "Did we silently fail to do what is asked?"
    finding_ids = ("silent-failure-claimed",)

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        for claim in context.options.silent_failures:
            if claim.operation.method == change.op_key.method and (
                    claim.operation.shape == change.op_key.shape):
                return self.finding("silent-failure-claimed", BUG_FIX, change,
                                    f"claimed silent failure on {claim.text}: {claim.reason}")
        return None
