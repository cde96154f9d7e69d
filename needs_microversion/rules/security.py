from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class Security(Rule):
    """Did we change what authorises a request?

    What it checks
        The security requirements of each operation (schemes and scopes).

    Why
        A request that used to be authorised by a scheme and no longer is (or needs a new
        scope) is refused where it used to succeed: a request that used to succeed and now
        errors needs a version (API-SIG interoperability guideline).

    Example
        `DELETE /pets/{petId}` starts requiring the `write:pets` scope.

    No microversion needed when
        Only the description of a security scheme changes.

    Options
        None.
    """

    id = "security"
    order = 16
    question = "Did we change what authorises a request?"
    finding_ids = ("security-changed",)

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area != "security":
            return None
        return self.finding("security-changed", REQUIRED, change, describe(change))
