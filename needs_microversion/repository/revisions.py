"""The repository's evidence for `diff REV:PATH REV:PATH`: two revisions of one repository
are a change, and a reviewer reads it as `check` does (the version file, the release state,
the history document, the release notes, whether the code changed), whatever the command.

    evidence = revisions_evidence("HEAD~1:api-ref/source", "HEAD:api-ref/source")

None when either side is not a commit's folder of the same repository, the folder is not
the documents the repository's layout names, or the repository keeps no version file (no
microversions to read: the documents are all there is): then only the documents speak (a
gate without evidence fails safe). Where the code declares the contract (the projects of
`loaders/code`) and the change edits it, the base revision's code is read when an
addition asks whether it was served before.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import looks_like_rev_path, rev_path
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.repository.code import CODE_PROJECTS, code_side, touches_api_code
from needs_microversion.repository.evidence import RepositoryEvidence, gather
from needs_microversion.repository.layout import Layout, detect
from needs_microversion.repository.revision import Revision, changed_paths


def revisions_evidence(old: str, new: str) -> tuple[RepositoryEvidence, Layout] | None:
    """The evidence of the change between the revisions `old` and `new` name, and the
    layout it was read by."""
    sides = [_side(text) for text in (old, new)]
    first, second = sides
    if first is None or second is None or first[0].repo.top != second[0].repo.top \
            or first[1] != second[1]:
        return None
    (before, path), (after, _) = first, second
    layout = detect(after) or detect(before)
    if layout is None or layout.version_file is None or not any(
            _within(path, document) for document in layout.documents):
        return None
    changed = changed_paths(after.repo, before, after)
    evidence = gather(before, after, layout, changed)
    if layout.project in CODE_PROJECTS and touches_api_code(changed, layout.project):
        # As `check` does: the base code says whether an element the documents add was
        # already served (read only if an addition asks).
        evidence = replace(evidence, served=partial(_served, before))
    return evidence, layout


def _served(before: Revision) -> Snapshot | None:
    side = code_side(before, f"code:{before.label}")
    return None if side is None else side.snapshot


def _side(text: str) -> tuple[Revision, str] | None:
    """A commit's revision and the path from the top, for REV:PATH (not the index)."""
    if not looks_like_rev_path(text) or Path(text).exists():
        return None
    try:
        found = rev_path(text, None)
    except InputError:  # `code:REV`, or a name the loader reports on its own
        return None
    if found is None or found[1] is None:
        return None
    repo, commit, path = found
    return Revision(repo, commit, text.partition(":")[0]), path


def _within(path: str, document: str) -> bool:
    path, document = path.strip("/"), document.strip("/")
    return path == document or path.startswith(document + "/")
