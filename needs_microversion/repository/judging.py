"""Repository evidence turned into what the judge reads: changes of the API's maximum,
microversions attributed where the documents write none, and the lines a report shows.

    extra = version_changes(old_doc_max, new_doc_max, evidence)
    changes = attribute_unmarked(changes, old, new, evidence)
    lines = evidence_lines(evidence)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from needs_microversion.model.change import JOINING, Change, VersionEvent, describe
from needs_microversion.model.records import evolve
from needs_microversion.model.snapshot import Location, OpKey, Snapshot
from needs_microversion.model.versions import Version
from needs_microversion.repository.evidence import RepositoryEvidence

# Where findings about the API's maximum are filed: they belong to no single operation.
API_VERSIONS = OpKey("", "", None)
API_VERSIONS_NAME = "API microversions"


def version_changes(old_max: Version | None, new_max: Version | None,
                    evidence: RepositoryEvidence | None, changes: Sequence[Change] = ()
                    ) -> list[Change]:
    """The maximum raised (the version file's, else the documents') when none of `changes`
    is gated on the new versions (the raise is then the only sign of them), and
    microversions a history document, a release note or a gate the change adds to the code
    names above what the code serves (the version file)."""
    found: list[Change] = []
    source = ""
    if evidence is not None and evidence.old_max is not None and evidence.new_max is not None:
        old_max, new_max, source = evidence.old_max, evidence.new_max, evidence.version_file or ""
    if old_max is not None and new_max is not None and new_max > old_max and not any(
            change.gated is not None and old_max < change.gated <= new_max
            for change in changes):
        found.append(_version(str(old_max), new_max, "raised", source))
    if evidence is not None and evidence.new_max is not None:
        history = evidence.history_docs[0] if evidence.history_docs else "history"
        named = {version: (history, Location(history)) for version in evidence.history_added}
        named.update({version: (", ".join(evidence.notes), Location(evidence.notes[0]))
                      for version in evidence.notes_versions
                      if version not in named and evidence.notes})
        named.update({version: (f"the code's gate at {place}", _place(place))
                      for version, place in evidence.code_gates if version not in named})
        found.extend(_version(None, version, "named", *where)
                     for version, where in sorted(named.items()) if version > evidence.new_max)
    return found


def _place(text: str) -> Location:
    """`file:line` as a location."""
    file, _, line = text.rpartition(":")
    return Location(file, int(line)) if line.isdigit() else Location(text)


def _version(old: str | None, new: Version, event: VersionEvent, source: str,
             location: Location | None = None) -> Change:
    location = location or (Location(source.split(", ")[0]) if source else None)
    return Change("version", "added", "", API_VERSIONS_NAME, API_VERSIONS, pointer=source,
                  version_event=event, old=old, new=str(new), new_location=location,
                  gated=new)


def attribute_unmarked(changes: Iterable[Change], old: Snapshot, new: Snapshot,
                       evidence: RepositoryEvidence | None) -> list[Change]:
    """Documents that write no microversion at all (zun, magnum keep versions only in the
    history document): when the version file goes up in the same change, the change is that
    microversion's; otherwise the changes stay visible at every version."""
    changes = list(changes)
    if not unmarked(old, new, evidence):
        return changes
    assert evidence is not None and evidence.new_max is not None
    version = evidence.new_max
    return [replace(change, gated=version, inferred=True) if change.gated is None else change
            for change in changes]


def owned_by_raise(changes: Iterable[Change], evidence: RepositoryEvidence | None
                   ) -> list[Change]:
    """Elements added at every version by a change that raises the version file by one, and
    documents no other microversion: read as that microversion's, the way a reviewer reads
    ironic's 1.115 change (new fields, `MINOR_115`, no "New in version" note), each marked
    `unnoted` so that the report asks for its version note. An addition is the only thing
    a new microversion can own without saying so; a changed or removed element keeps its
    own reading (a correction, or a change every older version sees), and so does an
    addition a finder explained (the document catching up), unless the change edits the
    API's code: then the raise is the evidence, the finder's reading only the documents'
    (the base code serving the element is evidence too: it stays the document catching up).

    A change that raises nothing but adds code gated on one microversion of this
    development cycle (above the newest release's maximum, at most the version file's: zun's
    host show API joining 1.4 with `@base.Controller.api_version("1.4")` before 1.4 shipped)
    is read the same way: its additions are that microversion's, provided by the maximum
    that already has it (issue 35: a change gated on this cycle's microversion is part of
    it)."""
    changes = list(changes)
    owner = _owner(evidence)
    if owner is None:
        return changes
    version, why = owner
    assert evidence is not None
    if any(c.gated is not None and c.gated != version for c in changes
           if c.kind == "added" and c.area in JOINING):
        return changes  # the documents name another microversion: theirs to say
    return [evolve(c, gated=version, seen_at=version, everywhere=False, inferred=True,
                   unnoted=why)
            if c.gated is None and c.kind == "added" and c.area in JOINING
            and (c.correction is None or evidence.code_changed and not c.correction.evidence)
            else c for c in changes]


def _owner(evidence: RepositoryEvidence | None) -> tuple[Version, str] | None:
    """The microversion a change's unmarked additions belong to, and what says so: the
    version file raised by one, else the one microversion of this cycle the change's code
    newly gates on."""
    if evidence is None or evidence.old_max is None or evidence.new_max is None:
        return None
    if evidence.new_max == evidence.old_max.next():
        return evidence.new_max, "the version file's new maximum"
    released = evidence.released_max
    if released is None or evidence.bumped:
        return None
    cycle = {version: place for version, place in evidence.code_gates
             if released < version <= evidence.new_max}
    if len(cycle) != 1:
        return None
    [(version, place)] = cycle.items()
    return version, f"a microversion of this cycle, which the code's new gate at {place} names"


def unnoted_warnings(changes: Iterable[Change]) -> tuple[str, ...]:
    """One line per element read as a microversion's without saying so: where it is, why,
    and the note it lacks."""
    return tuple(f"{_where(c)}{describe(c)}: no version note, read as part of {c.gated} "
                 f"({c.unnoted}): mark it 'New in version {c.gated}'"
                 for c in changes if c.unnoted)


def _where(change: Change) -> str:
    return f"{change.new_location}: " if change.new_location is not None else ""


def unmarked(old: Snapshot, new: Snapshot, evidence: RepositoryEvidence | None) -> bool:
    """Neither document writes a microversion (and one describes an operation), and the
    version file goes up."""
    return bool(evidence is not None and evidence.bumped and evidence.new_max is not None
                and not old.bounds and not new.bounds and (old.operations or new.operations))


def evidence_lines(evidence: RepositoryEvidence | None, *, unmarked_documents: bool = False
                   ) -> tuple[str, ...]:
    """What the repository said, one line each, for the report."""
    if evidence is None:
        return ()
    lines: list[str] = []
    if evidence.version_file and (evidence.old_max or evidence.new_max):
        step = _step(evidence.old_max, evidence.new_max)
        lines.append(f"version file {evidence.version_file}: {evidence.old_max or '?'} -> "
                     f"{evidence.new_max or '?'}{step}")
    if evidence.released is not None:
        lines.append(f"released: {evidence.released.max_version} "
                     f"({evidence.released.source})")
    if evidence.history_added:
        lines.append(f"version history gained {_versions(evidence.history_added)} "
                     f"({', '.join(evidence.history_gained_in or evidence.history_docs)})")
    if evidence.notes_versions:
        lines.append(f"release notes name {_versions(evidence.notes_versions)} "
                     f"({', '.join(evidence.notes)})")
    if evidence.code_changed is False:
        lines.append("documentation only: the change touches no API code "
                     "(only documentation, samples, tests or tooling)")
    if unmarked_documents and evidence.new_max is not None:
        lines.append(f"the documents write no microversions: their changes are taken as "
                     f"{evidence.new_max}, which the version file raises to")
    return tuple(lines)


def _step(old: Version | None, new: Version | None) -> str:
    if old is None or new is None or new == old:
        return " (not raised)" if old is not None and old == new else ""
    if new < old:
        return " (lowered)"
    return " (raised by one)" if new == old.next() else " (raised by more than one)"


def _versions(versions: Sequence[Version] | frozenset[Version]) -> str:
    return ", ".join(str(v) for v in sorted(versions))
