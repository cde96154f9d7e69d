from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class Announced(Rule):
    """Does the prose announce a behaviour change at a new microversion?

    What it checks
        Descriptions of operations, parameters and attributes that start naming a
        microversion above the old document's maximum ("Starting from microversion 1.39 the
        ``required`` parameter can be repeated", "From v2.60, attaching a multiattach volume
        ..."), or that name it in more paragraphs than before (a new paragraph explaining a
        microversion the old text named only in a caption; a reworded one names what it
        named). The structured fields may not change at all: api-ref often records a
        behaviour change only in prose.

        The API's maximum itself: a maximum that goes up (the repository's version file,
        else the highest microversion the documents name, or their version-discovery sample
        moving up by one past it) is a new microversion, even when no documented change is
        gated on it (`maximum-raised`, provided by that very raise; only then is it
        reported: otherwise the gated changes say it). A version history
        document or a release note of the change that names a microversion above what the
        code serves announces one that does not exist (`version-not-served`), and so does a
        gate the change adds to the code (its version-gate index: a decorator, a check,
        cinder's `mv.X`, ironic's `MINOR_n_*`) above the version file's maximum: the bump
        is forgotten. Where the repository has a version file, it alone says what is
        provided.

    Why
        A change described as starting at a new microversion is a change of the contract at
        that microversion: users ask for it with the header, and the maximum must go up to
        offer it (nova 2.31: console tokens for every console type, stated only in prose).

    Example
        placement 1.39: the ``requiredN`` query parameter gains the ``in:`` syntax; only its
        description says so.

    No microversion needed when
        The new maximum already reaches the announced version (then it is provided), or the
        text names an old version (that is history, not news). Where no version file (and
        no `--old-version`) says what the code serves, a version the old documents already
        name anywhere exists: nova's version page said "since microversion 2.27 the
        ``OpenStack-API-Version`` header may also be used" while its markers stopped at 2.26,
        so a later paragraph about 2.27 documents it (`compare/announcements.py`). A raised
        maximum is always a new microversion: it is the bump, so it is provided unless the
        code does not serve it.

    Options
        None. Findings are marked inferred: they rest on prose.
    """

    id = "announced"
    order = 8
    question = "Does the prose announce a behaviour change at a new microversion?"
    finding_ids = ("microversion-announced", "maximum-raised", "version-not-served")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area == "version":
            if change.version_event == "raised":
                return self.finding("maximum-raised", REQUIRED, change,
                                    f"{describe(change)} ({change.pointer or 'the documents'})"
                                    ": a new microversion, and no documented change is gated "
                                    "on it; document what it changes")
            return self.finding("version-not-served", REQUIRED, change,
                                f"{describe(change)} by {change.pointer}, above the maximum "
                                "the code serves: raise the version file, or correct the text")
        if change.aspect != "announcement":
            return None
        return self.finding("microversion-announced", REQUIRED, change,
                            f"{describe(change).split(':')[0]}: its description now announces "
                            f"microversion {change.new}")
