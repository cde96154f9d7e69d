"""Microversion bookkeeping: what else a new microversion needs besides the documents.

When a change needs a microversion, the next one is the old maximum plus one minor ("Allocating
a microversion", seed 001), or the unreleased old maximum when the change may join it (cinder's
guide; nova's practice); the companion changes of seed 001's "Other necessary changes" are
listed, each marked done, not done, or unknown: entries in the version file are checked in
its new text, the API reference against the report's findings, other files against the
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
    """The version file at both revisions (None: unknown) against what the report needs.

    With an old maximum above `released_max` (not released yet), that maximum is the one to
    use: a follow-up change may extend it instead of allocating another.
    """
    old_max, new_max = evidence.old_max, evidence.new_max
    bumped_by_one = None if old_max is None or new_max is None else new_max == old_max.next()
    needed = any(f.verdict == REQUIRED and not f.acknowledged for f in report.findings)
    if not needed:
        return Bookkeeping(_text(old_max), _text(new_max), bumped_by_one, None)
    next_version = _next_version(report, old_max, released_max)
    known = evidence.new_file or evidence.old_file
    convention = known.convention if known else MAX_API_VERSION
    new_text = evidence.new_file.text if evidence.new_file else None
    known_file = KNOWN[profile].version_files[0] if profile in KNOWN else None
    path = evidence.version_file or known_file or "the version file"
    history = evidence.history_docs[0] if evidence.history_docs else _history_of(profile)
    gated = {f.change.gated for f in report.findings if f.change.area != "version"}
    items = _checklist(convention, profile, path, history, next_version, new_text, new_max,
                       evidence.changed_paths)
    items.append((f"the API reference: what changed gated at {next_version or 'it'} "
                  "(min_version, max_version, a version note)",
                  None if next_version is None else next_version in gated))
    return Bookkeeping(_text(old_max), _text(new_max), bumped_by_one, _text(next_version),
                       tuple(items))


def _next_version(report: Report, old_max: Version | None, released_max: Version | None
                  ) -> Version | None:
    """The microversion the documents gate the changes on, when above the version file's old
    maximum; else the unreleased old maximum (the change may join it), else the next one."""
    if old_max is None:
        return None
    floor = max(old_max, released_max) if released_max is not None else old_max
    # Gates the raised maximum does not reach come first: the report asks to raise it there,
    # and the checklist is about that microversion, not the one already provided.
    for findings in (report.unprovided(), report.findings):
        gated = [f.change.gated for f in findings if f.verdict == REQUIRED
                 and f.change.gated is not None and f.change.gated > floor]
        if gated:  # the first one: a later gate is a further microversion, or a typo
            return min(v for v in gated if v is not None)
    folds = released_max is not None and old_max > released_max
    return old_max if folds else old_max.next()


def _checklist(convention: str, profile: str, path: str, history: str,
               version: Version | None, new_text: str | None, new_max: Version | None,
               changed_paths: Collection[str] | None) -> list[tuple[str, bool | None]]:
    """Seed 001 "Other necessary changes", in its order, as this project spells them."""
    v = str(version) if version else "the new microversion"

    def in_text(pattern: str) -> bool | None:
        if new_text is None or version is None:
            return None
        return re.search(pattern, new_text, re.MULTILINE) is not None

    def changed(*patterns: str) -> bool | None:
        if changed_paths is None:
            return None
        return all(any(fnmatch.fnmatchcase(p, pattern) for p in changed_paths)
                   for pattern in patterns)

    at_max = None if new_max is None or version is None else new_max == version
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
