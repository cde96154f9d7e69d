"""Rule correction and its finders, one module per finding id (the module says why it fires)."""

from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule
from needs_microversion.rules.correction import (
    corrected, error_code_dropped, moved_location, outside_the_url, removed_at_every_version,
    rewritten_in_place, success_code_swapped)
from needs_microversion.rules.finder import Finder

# This rule's finders (the order they are asked in is `rules/corrections.py`'s); its own
# readings of a change alone come after a finder's correction, in this order.
FINDERS: tuple[Finder, ...] = (success_code_swapped.FINDER, moved_location.FINDER,
                               rewritten_in_place.FINDER, outside_the_url.FINDER)
_READINGS = (corrected, error_code_dropped, removed_at_every_version)


class CorrectionRule(Rule):
    """Does the new document correct what it said the API always did?

    What it checks
        Changes visible at every microversion (gated on none) to what the document already
        described, in a document that gates its changes by microversion (or, gating none
        yet, whose version-discovery sample lists the API's microversions, or whose prose
        names one, "The API v2.12 microversion returns ..."): an attribute's, parameter's or
        header's type, required flag, nullability, constraints or openness
        (`additionalProperties`) (`corrected`; a scalar corrected to an array brings its
        items with it); an error code dropped (`error-code-dropped`); an element, operation
        or status code the old document had at every version, removed from every version
        (every version its operation has, when that starts at a microversion), or one a
        microversion added, removed whole: the new document has it at no version
        (`removed-at-every-version`; a microversion could remove it from its own version on,
        never from the version that added it); a success code swapped for another
        (`success-code-swapped`); a parameter moved to another place, `in: path` to `in:
        query` (`moved-location`); a URL, method or name rewritten in place: the same
        section, the same kind of element (`rewritten-in-place`); a path parameter added or
        removed whose name is no placeholder of the URL (`outside-the-url`: the URL is the
        path's whole contract, so no client sent it).

    Why it needs no microversion
        A microversion changes the contract from a version on; a change at every version says
        "it was always so", which no microversion can express. In a document that writes its
        microversions, such a change corrects the document: the API did not change (nova
        renaming `host_numa_node` to what the code returned, manila's 202 that was always a
        200). The finding stays visible (a warning in SARIF): a reviewer checks that the code
        already behaves this way, because a document that was right and is made wrong looks
        the same.

    Example
        manila's share network create: `Normal response codes: 202` becomes `200`, with no
        microversion: `success-code-swapped` twice, not `status-code-added` and
        `status-code-removed`.

    No microversion needed when
        Always, for these findings. Not corrections: additions (a new attribute, parameter,
        operation, status code or allowed value visible at every version is the classic
        forgotten microversion; a path parameter outside the URL is no element at all),
        changes of allowed values, changes gated on a new microversion, removing an element
        from some versions and not others (from a version on: what a microversion does), and
        any change of a document that writes no microversion at all, nor lists any in its
        version-discovery sample, nor names one in its prose (every change of it counts).

    Options
        `--count-corrections` (configuration `count-corrections: true`) counts them as
        contract changes; the other rules then judge them.
    """

    id = "correction"
    order = 4
    question = "Does the new document correct what it said the API always did?"
    finding_ids = (corrected.ID, error_code_dropped.ID, removed_at_every_version.ID,
                   *dict.fromkeys(i for finder in FINDERS for i in finder.ids))
    review = True
    # A correction is the documents' claim that the API always did this; a change of its
    # code makes the claim the thing to prove (a view that stops returning a field).
    # Moved locations and names outside the URL are read from the URL's own structure.
    wording_ids = frozenset({corrected.ID, error_code_dropped.ID, removed_at_every_version.ID,
                             success_code_swapped.ID, rewritten_in_place.ID})

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        options = context.options
        if not options.corrections or not options.gated_documents or change.gated is not None:
            return None
        if context.new_max is not None and change.seen_at is not None \
                and change.seen_at > context.new_max:
            return None  # versions the new document no longer describes: taken back, not fixed
        found = self._kind(change)
        if found is None:
            return None
        finding_id, reason = found
        return self.finding(finding_id, NOT_REQUIRED, change,
                            f"correction: {describe(change)}: {reason}; check that the code "
                            "already behaves this way")

    def _kind(self, change: Change) -> tuple[str, str] | None:
        correction = change.correction
        if correction is not None:
            return (correction.finding, correction.text) \
                if correction.finding in self.finding_ids else None
        for reading in _READINGS:
            reason = reading.reason(change)
            if reason is not None:
                return reading.ID, reason
        return None
