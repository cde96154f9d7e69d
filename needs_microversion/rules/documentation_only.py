from __future__ import annotations


from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.model.versions import Version, parse_version
from needs_microversion.rules.base import Context, OverrideRule


class DocumentationOnly(OverrideRule):
    """Does the change leave the API's code untouched?

    What it checks
        Findings that need a microversion although they sit behind none (visible to
        microversions that already exist), in a change whose files are all documentation,
        samples, tests, release notes or tooling: nothing that can change what the API does.
        Only known where the repository is read (`check`, `history`): the change's files are
        the evidence, and the report names them.

    Why it needs no microversion
        The contract is what the code does. When no code changes, the API does not change:
        the document catches up with behaviour that already shipped, or corrects a mistake
        (nova's 2016-2018 "parameter verification" series, cinder documenting existing APIs
        for the first time). The microversion, if any was needed, belonged to the change
        that altered the code.

    Example
        A change that only edits `api-ref/source/servers.inc` to add the missing
        `OS-EXT-STS:locked` response attribute: `documentation-only`, not `attribute-added`.
        senlin's "API documentation for services": `GET /services` documented at 1.7 while
        the version file says 1.6: `documentation-only`, the document runs ahead.

    No microversion needed when
        Always, for these findings. Changes gated on a microversion above the released
        maximum that the code serves keep their verdict (they document a microversion in
        progress, provided by the version file). Changes gated on a microversion the code
        does not serve yet are the document running ahead of the code (senlin documented
        1.7's services API before the code raised its maximum): the change itself needs
        none, the microversion belongs to the change that raises the version file, and the
        report says so. Not when the change's own version history entry or release note
        names that microversion: then the change says it delivers it (placement 1.39's
        documents, tests, history entry and release note, the code written before), and a
        version file left as it was is a forgotten bump.

    Options
        None; a change that touches code (any file outside documentation, tests and tooling)
        is judged by the other rules alone.
    """

    id = "documentation-only"
    order = 18
    question = "Does the change leave the API's code untouched?"
    finding_ids = ("documentation-only",)

    def override(self, finding: Finding, context: Context) -> Finding:
        change = finding.change
        if context.options.code_changed is not False or finding.verdict != REQUIRED:
            return finding
        ahead = _ahead_of_the_code(finding, context)
        if ahead is not None:
            return self.not_required(finding, f"the change touches only documentation and "
                                     f"tests, and the code does not serve {ahead} yet (its "
                                     f"maximum is {context.new_max}): the document runs "
                                     "ahead of the code; the change that raises the version "
                                     f"file to {ahead} is the one that needs it")
        if change.gated is not None or change.area == "version":
            return finding
        return self.not_required(finding, "the change touches only documentation and tests, "
                                 "not the API's code, so the document catches up or is "
                                 "corrected; check the code already behaves this way")


def _ahead_of_the_code(finding: Finding, context: Context) -> Version | None:
    """The microversion a finding documents above what the code serves (None: none), where
    the change's own history entry or release note does not name it: one that does says
    it delivers that microversion, and the bump is missing, not early."""
    served = context.new_max
    if served is None:
        return None
    change = finding.change
    found = change.gated if change.gated is not None else (
        parse_version(change.new) if finding.id == "version-not-served" else None)
    return found if found is not None and found > served \
        and found not in context.announced else None
