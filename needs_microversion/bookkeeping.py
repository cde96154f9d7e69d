"""Microversion bookkeeping: what else a new microversion needs besides the documents.

When a change needs a microversion, the next one is the version file's old maximum plus one
minor ("Allocating a microversion", seed 001), whatever the change wrote; the companion
changes of seed 001's "Other necessary changes" are listed, each marked done, not done, or
unknown, by what this change did: entries in the version file are checked against its old
and new text, the API reference against the report's findings, other files against the
change's paths (None: not known). The version file itself is read by
`repository.versionfile` (never imported or executed).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Collection

from needs_microversion.model.verdict import REQUIRED, Bookkeeping, Report
from needs_microversion.model.versions import Version
from needs_microversion.profiles import PROFILES, get_profile
from needs_microversion.repository.evidence import RepositoryEvidence
from needs_microversion.repository.layout import KNOWN
from needs_microversion.repository.versionfile import (
    MAX_API_VERSION, MINOR_MAX_VERSION, VERSIONS)

RELEASE_NOTES = "releasenotes/notes/*.yaml"
_ANY_HISTORY = "*version*history*.rst"


def bookkeeping(evidence: RepositoryEvidence, report: Report, *, profile: str = "generic",
                released_max: Version | None = None) -> Bookkeeping:
    """The version file at both revisions (None: unknown) against what the report needs;
    `released_max` is the next microversion's base only where no version file was read.
    Items are ticked only by what this change did (its paths, its version file's new text
    for the next microversion), never by an earlier change."""
    old_max, new_max = evidence.old_max, evidence.new_max
    bumped_by_one = None if old_max is None or new_max is None else new_max == old_max.next()
    needed = any(f.verdict == REQUIRED and not f.acknowledged for f in report.findings)
    raised = old_max is not None and new_max is not None and new_max > old_max
    if not needed or not raised and not report.unprovided():
        # Nothing to allocate: no change needs one, or every change joins a microversion
        # the version file already has (merged, not released: cinder's guide allows it).
        return Bookkeeping(_text(old_max), _text(new_max), bumped_by_one, None)
    next_version = _next_version(report, old_max, new_max, released_max)
    known = evidence.new_file or evidence.old_file
    convention = known.convention if known else MAX_API_VERSION
    texts = tuple(file.text if file else None for file in (evidence.old_file, evidence.new_file))
    known_file = KNOWN[profile].version_files[0] if profile in KNOWN else None
    path = evidence.version_file or known_file or "the version file"
    history = evidence.history_docs[0] if evidence.history_docs else _history_of(profile)
    # Gated by a version note: an element the raise owns (`unnoted`) still lacks its own.
    gated = {f.change.gated for f in report.findings
             if f.change.area != "version" and not f.change.unnoted}
    items = _checklist(convention, profile, path, history, next_version, (texts[0], texts[1]),
                       (old_max, new_max), evidence.changed_paths)
    items.append((f"the API reference: what changed gated at {next_version or 'it'} "
                  "(min_version, max_version, a version note)",
                  None if next_version is None else next_version in gated))
    return Bookkeeping(_text(old_max), _text(new_max), bumped_by_one, _text(next_version),
                       tuple(items))


def _next_version(report: Report, old_max: Version | None, new_max: Version | None,
                  released_max: Version | None) -> Version | None:
    """The microversion a change that needs one allocates, read from the repository and
    not from what the change wrote: one above the version file's old maximum (a microversion
    merged but not released is another change's: the next is above it too), else one above
    the newest release's maximum. A change that raised the maximum and still gates changes
    above it (nova 0ffe7b27: 2.50 raised, 2.51 documented) needs the one after its own."""
    if old_max is not None and new_max is not None and new_max > old_max and any(
            f.change.gated == new_max.next() for f in report.unprovided()):
        return new_max.next()
    base = old_max if old_max is not None else released_max
    return None if base is None else base.next()


def _checklist(convention: str, profile: str, path: str, history: str,
               version: Version | None, texts: tuple[str | None, str | None],
               maxima: tuple[Version | None, Version | None],
               changed_paths: Collection[str] | None) -> list[tuple[str, bool | None]]:
    """Seed 001 "Other necessary changes", in its order, as this project spells them."""
    v = str(version) if version else "the new microversion"
    old_text, new_text = texts
    old_max, new_max = maxima

    def in_text(pattern: str) -> bool | None:
        """Written by this change: in the version file's new text and not in its old one
        (an entry an earlier change wrote ticks nothing)."""
        if new_text is None or version is None:
            return None
        return re.search(pattern, new_text, re.MULTILINE) is not None and (
            old_text is None or re.search(pattern, old_text, re.MULTILINE) is None)

    def changed(*patterns: str) -> bool | None:
        if changed_paths is None:
            return None
        return all(any(fnmatch.fnmatchcase(p, pattern) for p in changed_paths)
                   for pattern in patterns)

    at_max = None if new_max is None or version is None else new_max == version != old_max
    ver = re.escape(v)
    items: list[tuple[str, bool | None]] = []
    if convention == MAX_API_VERSION:
        if new_text is None or "REST_API_VERSION_HISTORY" in new_text:
            items.append((f"REST_API_VERSION_HISTORY in {path}: an entry '* {v} - ...'",
                               in_text(rf"^\s*\*\s*{ver}\s*-")))
        items.append((f"_MAX_API_VERSION = '{v}' in {path}", at_max))
    elif convention == MINOR_MAX_VERSION:
        minor = str(version.minor) if version else "NNN"
        items.append((f"MINOR_{minor}_<NAME> = {minor} in {path}",
                           in_text(rf"^MINOR_{minor}_\w+\s*=\s*{minor}\b")))
        items.append((f"MINOR_MAX_VERSION = MINOR_{minor}_<NAME> in {path}", at_max))
        items.append((f"a '# v{v}: ...' comment in {path}", in_text(rf"#\s*v{ver}\b")))
    elif convention == VERSIONS:
        items.append((f"'{v}' appended to VERSIONS in {path}, with a comment", at_max))
    else:
        items.append((f"CURRENT_MAX_VER = '{v}' in {path}", at_max))
    items.append((f"a verbose description of {v} in {history}", changed(history)))
    steps = get_profile(profile).bookkeeping_steps if profile in PROFILES else ()

    def project(before_note: bool) -> list[tuple[str, bool | None]]:
        """The profile's own steps (`Profile.bookkeeping_steps`), where it lists them."""
        return [(step.text.format(v=v), changed(*(p.format(v=v) for p in step.paths)))
                for step in steps if step.before_release_note == before_note]

    items += project(before_note=True)
    items.append((f"a release note ({RELEASE_NOTES}) announcing {v}", changed(RELEASE_NOTES)))
    items += project(before_note=False)
    return items


def _history_of(profile: str) -> str:
    known = KNOWN.get(profile)
    return known.history_docs[0] if known and known.history_docs else _ANY_HISTORY


def _text(version: Version | None) -> str | None:
    return None if version is None else str(version)
