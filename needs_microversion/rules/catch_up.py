from __future__ import annotations

from needs_microversion.model.change import Change, describe, element
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class CatchUp(Rule):
    """Does the new document only catch up with what the API already does?

    What it checks
        Changes that document existing behaviour late rather than change it: an element
        added with a starting microversion (`min_version: 2.26`) at or below the old
        document's maximum (that microversion was already released), with the other changes
        of that same entry; allowed values written down for the first time in prose where
        none were documented before; a type corrected to what the old document's own example
        already showed; a body attribute added where the old document's own example already
        showed that key beside the table's rows, and a body documented where the old document
        had none but showed an example of it (`-resp.json`, read or not); a success code
        added to an operation the old document named none for (a section with no `Normal
        response codes`, or only errors there), and any code, an error too, where it named
        none at all; a body attribute
        added to one operation of a resource (its detailed list) that another operation of
        the same resource (its show) already listed, and still lists
        (`compare/representation.py`); a URL's method
        corrected where the old document gave a GET (HEAD, DELETE) a request body, which such
        a request cannot carry. And changes that resolve a contradiction inside the old document
        (`corrections.py`): an operation removed whose route the old document also described
        another way, kept in the new one (one dynamic path segment, `{component}` and
        `{ind_ident}@{component}`, is one route); a detailed list (`GET /servers/detail`)
        given the envelope its list already had; a body attribute that moves only because
        where a flat api-ref table puts it was inferred (the same name, type and required
        flag, removed here and added there), and a wrapper only an example implied, gone (or
        come) with the rows it held now at its level. And
        changes to what the old tree itself says is not yet checked against the code: a file
        that starts with `.. needs:method_verification` (its methods, URLs and status codes),
        `needs:parameter_verification` (its table rows) or `needs:body_verification` (its
        bodies), the comments of the os-api-ref verification burndown. And, in a tree that
        documents several major versions (`v2/` beside `v3/`), a change to an older one,
        which is frozen and takes no microversions, and the same change made to the newest;
        and an element the newest gains that an older one documented before and still does
        (the newest began as a copy of it) (`compare/majors.py`; URLs an older one drops
        retire it, and are judged as such). And an element whose row the old table
        already listed by name, though parameters.yaml had no definition for it (the row
        was read as nothing).

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
    finding_ids = ("documents-released-microversion", "values-documented", "matches-example",
                   "method-corrected", "url-still-documented", "envelope-matches-list",
                   "nesting-reread", "shown-in-example", "unverified-section",
                   "older-major-version", "documented-on-resource",
                   "success-code-first-documented", "codes-first-documented",
                   "listed-undefined")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if not context.options.documentation_catch_up or change.gated is not None:
            return None
        since = context.documented_late.get(element(change))
        evidence = change.evidence
        # The released microversion an element documents says more than a hint (an example,
        # another operation) did.
        if evidence is not None and evidence.finding in self.finding_ids and not (
                since is not None and evidence.pairable):
            return self.finding(evidence.finding, NOT_REQUIRED, change,
                                f"{describe(change)}: {evidence.text}")
        # Gaining a list restricts the values: "removed", with no list before (values added
        # to a list the old prose already gave are a change like any other).
        if change.aspect == "enum" and change.kind == "removed" and change.old is None \
                and change.inferred:
            return self.finding("values-documented", NOT_REQUIRED, change,
                                f"{describe(change)}: values documented for the first time "
                                "(read from prose); check the code already refused others")
        if since is None:
            return None
        # Other changes of the same entry (its required flag, its type) come with the
        # correction: they document the same released microversion.
        return self.finding("documents-released-microversion", NOT_REQUIRED, change,
                            f"{describe(change)}: documents {since}, already released; "
                            "check the code agrees")
