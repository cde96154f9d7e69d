"""The maxima a change is judged by, settled once from every source that says one: the
version file at both revisions (only it says what the code serves), else the documents'
version-discovery samples (a raise no other line records), then `--old-version` and
`--new-version`, then the newest release (a merged but unreleased maximum may grow: only
what was released counts as the old maximum).

    settled = settle_maxima(old, new, evidence, old_text, new_text, released_max)
    settled.old.max_version, settled.new.max_version, settled.notes
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from needs_microversion.errors import InputError
from needs_microversion.model.extensions import ADVERTISED_KEY
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.model.versions import Version, parse_version
from needs_microversion.repository.evidence import RepositoryEvidence


@dataclass(frozen=True)
class Settled:
    old: Snapshot  # with the maximum changes are judged from
    new: Snapshot
    # The documents' own maxima (a raise only the documents show is still a raise).
    doc_maxima: tuple[Version | None, Version | None]
    notes: tuple[str, ...]  # what the report says about the settling (a fold)
    documents_decide: bool  # no version file and no option says what the old maximum is


def settle_maxima(old: Snapshot, new: Snapshot, evidence: RepositoryEvidence | None,
                  old_version: str | None, new_version: str | None,
                  released_max: Version | None) -> Settled:
    doc_maxima = (old.max_version, new.max_version)
    code_maxima = (evidence.old_max, evidence.new_max) if evidence else (None, None)
    if code_maxima[0] is not None and code_maxima[1] is not None:
        # The code's maxima, both sides known: only they say what is provided.
        old = replace(old, max_version=code_maxima[0])
        new = replace(new, max_version=code_maxima[1])
    elif (raised := advertised_raise(old, new)) is not None:
        before, after = raised
        new = replace(new, max_version=after)
        if old.max_version is None:  # a tree with no markers (magnum's): the old
            old = replace(old, max_version=before)  # sample said where the API stood
        doc_maxima = (old.max_version, after)
    old = _with_version(old, old_version, "--old-version")
    new = _with_version(new, new_version, "--new-version")
    old, notes = _fold(old, released_max)
    return Settled(old, new, doc_maxima, notes,
                   None in code_maxima and old_version is None)


def _fold(old: Snapshot, released: Version | None) -> tuple[Snapshot, tuple[str, ...]]:
    """A change may join a merged but unreleased microversion (cinder's guide says so, nova
    and the others do it), so only what was released counts as the old maximum."""
    old_max = old.max_version
    if released is None or old_max is None or old_max <= released:
        return old, ()
    note = (f"{old_max} is not released yet (the newest release shipped {released}), so "
            f"changes may join it: the old maximum is taken as {released}")
    return replace(old, max_version=released), (note,)


def _with_version(snapshot: Snapshot, text: str | None, option: str) -> Snapshot:
    if text is None:
        return snapshot
    version: Version | None = parse_version(text)
    if version is None:
        raise InputError(f"{option} must look like 2.10, got {text!r}")
    return replace(snapshot, max_version=version)


def advertised_raise(old: Snapshot, new: Snapshot) -> tuple[Version, Version] | None:
    """The maxima the old and new version-discovery samples list, when the new moved up by
    one and is above every microversion the new documents write: a raise no other line
    records (the documents' own announcement of a microversion). A sample that moves by
    more was stale and is only refreshed."""
    before, after = (parse_version(s.info(ADVERTISED_KEY)) for s in (old, new))
    if before is None or after is None or after != before.next():
        return None
    return (before, after) if new.max_version is None or after > new.max_version else None
