from __future__ import annotations

from needs_microversion.compare import Change
from needs_microversion.rules.base import NOT_REQUIRED, Context, Finding, Rule, describe
from needs_microversion.versions import FLOOR


class ReleasedMicroversion(Rule):
    """Does the new document only catch up with a microversion that was already released?

    What it checks
        An element the new document adds with a starting microversion (`min_version: 2.26`)
        at or below the old document's maximum: the API already had that microversion, and
        the reference is documenting it late (api-ref often lags the code).

    Why
        Documentation catching up is not a contract change: the microversion it describes
        was released with its own bump. The report still names it ("documents 2.26, already
        released; check the code agrees"), because a document that was wrong and is
        corrected looks exactly like a contract change.

    Example
        cinder adds the missing `min_version: 3.1` to two upload-to-image parameters.

    No microversion needed when
        Always, for these findings; but check that the code really has had the element
        since that version.

    Options
        On for api-ref trees, off for OpenAPI documents (whose own ranges are generated from
        the code); `documentation_catch_up` in the configuration.
    """

    id = "released-microversion"
    order = 3
    question = ("Does the new document only catch up with a microversion that was already "
                "released?")
    finding_ids = ("documents-released-microversion",)

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        old_max = context.old_max
        since = change.since
        if (not context.options.documentation_catch_up or change.gated is not None
                or since is None or old_max is None or not FLOOR < since <= old_max):
            return None
        return self.finding("documents-released-microversion", NOT_REQUIRED, change,
                            f"{describe(change)}: documents {since}, already released; "
                            "check the code agrees")
