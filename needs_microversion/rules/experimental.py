from __future__ import annotations


from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, OverrideRule


class Experimental(OverrideRule):
    """Is the changed API experimental?

    What it checks
        Findings that need a microversion, on an operation whose old document lists the
        profile's experimental request header (manila: `X-OpenStack-Manila-API-Experimental`).
        It is asked of the answer the chart gave, not of the change: a change that needs no
        microversion for another reason keeps that reason.

    Why it needs no microversion
        An experimental API "may change or disappear" without notice (manila's API
        reference), so changing or removing it is free.

    Example
        manila marks the share group API experimental; adding `availability_zone` to its
        response is `experimental-api`, not `attribute-added`.

    No microversion needed when
        Always, for these findings. Not experimental changes: an operation that only the new
        document marks (a stable API turning experimental, or a new experimental API, which
        manila still introduces behind a microversion), and dropping the header itself,
        which graduates the API and needs a microversion.

    Options
        The profile's experimental header (`--profile manila`); the other profiles have none.
    """

    id = "experimental"
    order = 17
    question = "Is the changed API experimental?"
    finding_ids = ("experimental-api",)

    def override(self, finding: Finding, context: Context) -> Finding:
        header = context.options.experimental_header
        change = finding.change
        if header is None or finding.verdict != REQUIRED \
                or change.op_key not in context.options.experimental_operations:
            return finding
        if change.area == "request-header" and change.pointer.lower() == header:
            return finding  # the header dropped: the API graduates
        return self.not_required(finding, f"experimental API ({header} documented), it may "
                                 "change without a microversion")
