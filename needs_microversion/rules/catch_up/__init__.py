"""Rule catch-up and its finders, one module per finding id (the module says why it fires)."""

from __future__ import annotations

from needs_microversion.model.change import Change, describe, element
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule
from needs_microversion.rules.catch_up import (
    documented_on_resource, documents_released_microversion, envelope_of_list,
    first_documented_code, listed_undefined, matches_example, method_corrected,
    nesting_reread, older_major, served_before, shown_in_example, unverified_section,
    url_still_documented, values_documented)
from needs_microversion.rules.finder import Finder

# This rule's finders (the order they are asked in is `rules/corrections.py`'s).
FINDERS: tuple[Finder, ...] = (
    matches_example.FINDER, shown_in_example.LISTED, nesting_reread.NESTING,
    nesting_reread.WRAPPER, method_corrected.FINDER, url_still_documented.FINDER,
    envelope_of_list.FINDER, shown_in_example.BODY, first_documented_code.FINDER,
    older_major.FINDER, unverified_section.FINDER, documented_on_resource.FINDER,
    listed_undefined.FINDER)


class CatchUp(Rule):
    """Does the new document only catch up with what the API already does?

    What it checks
        Changes that document existing behaviour late rather than change it, each found by
        a module of `rules/catch_up/` named after its finding id:
        `documents-released-microversion` (an element added with a starting microversion
        at or below the old maximum: already released), `values-documented` (allowed
        values written down for the first time in prose), `matches-example` (a type
        corrected to what the old example showed), `shown-in-example` (a key or body the
        old example already showed), `success-code-first-documented` and
        `codes-first-documented` (a code where the old section named none),
        `documented-on-resource` (an attribute another operation of the same resource
        already listed), `method-corrected` (a GET given a request body, corrected),
        `url-still-documented` (a route the old document also described another way),
        `envelope-matches-list` (a detailed list given its list's envelope),
        `nesting-reread` (a field that moves only because where a flat table puts it was
        inferred), `unverified-section` (a part the old tree marks `needs:*_verification`),
        `older-major-version` (a frozen older major version, `v2/` beside `v3/`) and
        `listed-undefined` (a row the old table listed with no definition to read); and
        from the repository, `served-before` (an element the base revision's code already
        served: the routes, decorators and schemas `loaders/code` reads statically).

    Why
        Documentation catching up is not a contract change: the microversion it describes
        was released with its own bump, and values listed for the first time describe what
        the code already accepted (api-ref often lags the code). The report still names each
        one ("documents 2.26, already released; check the code agrees"), because a document
        that was wrong and is corrected looks exactly like a contract change.

    Example
        cinder adds the missing `min_version: 3.1` to two upload-to-image parameters; nova's
        flavor `sort_key` description starts listing the keys it accepts; cinder's volume
        list gains the `volumes_links` row its example always showed; ironic drops a
        second description of its indicator route; nova's detailed server list takes
        `servers` instead of the `server` copied from the show operation; nova's "Complete
        method verification of limits" drops the error codes the API never returned.

    No microversion needed when
        Always, for these findings; but check that the code really behaved so since then.

    Options
        On for api-ref trees, off for OpenAPI documents (whose ranges and enums are
        generated from the code); `--catch-up/--no-catch-up`.
    """

    id = "catch-up"
    order = 3
    question = "Does the new document only catch up with what the API already does?"
    finding_ids = (documents_released_microversion.ID, values_documented.ID, served_before.ID,
                   *dict.fromkeys(i for finder in FINDERS for i in finder.ids))

    # What only a marker, a first list of codes or values, or another operation's table
    # says; an example, a nesting or an older major version shows it instead.
    wording_ids = frozenset({unverified_section.ID, *first_documented_code.FINDER.ids,
                             documented_on_resource.ID, values_documented.ID})

    def rests_on_wording(self, finding: Finding) -> bool:
        """A released microversion the element inherits from its section or file (ironic's
        file-level `versionadded`) dates the section, not the element."""
        return super().rests_on_wording(finding) or (
            finding.id == documents_released_microversion.ID and finding.change.inferred)

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if not context.options.documentation_catch_up or change.gated is not None:
            return None
        late = context.documented_late.get(element(change))
        correction = change.correction
        # The released microversion an element documents says more than a hint (an example,
        # another operation) did.
        if correction is not None and correction.finding in self.finding_ids and not (
                late is not None and correction.pairable):
            return self.finding(correction.finding, NOT_REQUIRED, change,
                                f"{describe(change)}: {correction.text}")
        for finding_id, message in (
                (values_documented.ID, values_documented.message(change)),
                (documents_released_microversion.ID,
                 documents_released_microversion.message(change, context))):
            if message is not None:
                return self.finding(finding_id, NOT_REQUIRED, change, message)
        return None
