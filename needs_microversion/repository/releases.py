"""Release state: the newest release a revision contains, and the maximum it shipped.

A microversion that shipped in a release is fixed for good; one merged in this development
cycle (above the released maximum) may still grow: its follow-up changes (documentation,
a forgotten field) are part of it, not new microversions (nova 2.102 grew over three
commits; cinder's contributor guide says so).

    release = released(revision, layout)     # Release("33.0.0.0rc1", Version(2, 103)) or None

The release is the nearest release tag on the revision's first-parent line (`git describe
--first-parent`): OpenStack tags each release candidate on the main branch where the stable
branch starts (`33.0.0.0rc1`), and intermediate releases (ironic) on the main branch too.
Milestone betas (`33.0.0.0b1`), end-of-life and extended-maintenance markers (`*-eol`,
`*-em`, `*-eom`, `*-last`) are not releases. Its maximum is the version file at that tag.
Without tags (a shallow clone), the version history document's "(Maximum in <release>)"
headings (nova, cinder, manila, cyborg, watcher) give the newest released maximum instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo
from needs_microversion.repository.historydoc import released_by_headings
from needs_microversion.repository.layout import KNOWN, Layout
from needs_microversion.repository.revision import Revision
from needs_microversion.repository.versionfile import read_version_file
from needs_microversion.model.versions import Version

# 33.0.0, 2015.1.0, 33.0.0.0rc1, 2015.1.0rc1, 12.0.0.rc1; not 33.0.0.0b1 or 2024.1-eol.
_RELEASE_TAG = re.compile(r"^\d+(?:\.\d+){1,3}(?:\.?rc\d+)?$")
_TAG_PATTERNS = ("[0-9]*",)


@dataclass(frozen=True)
class Release:
    name: str  # the tag, or the history heading's release name
    max_version: Version
    source: str  # how it was found, for reports


def released(revision: Revision, layout: Layout) -> Release | None:
    """The newest release contained in `revision`, and its maximum microversion."""
    if revision.commit is not None:
        tag = nearest_release_tag(revision.repo, revision.commit)
        if tag is not None:
            found = _max_at_tag(revision.repo, tag, layout)
            if found is not None:
                return Release(tag, found, f"release tag {tag}")
    for path in layout.history_docs:
        text = revision.text(path)
        heading = released_by_headings(text) if text else None
        if heading is not None:
            name, version = heading
            return Release(name, version, f"{path} ({version} is the maximum in {name})")
    return None


def nearest_release_tag(repo: Repo, commit: str) -> str | None:
    """The release tag nearest to `commit` on its first-parent line, or None."""
    try:
        out = repo.git("describe", "--tags", "--first-parent", "--abbrev=0",
                       *(f"--match={pattern}" for pattern in _TAG_PATTERNS),
                       *(f"--exclude={pattern}" for pattern in _NOT_RELEASES), commit)
    except InputError:  # no tag reachable
        return None
    tag = out.decode("utf-8", "replace").strip()
    return tag if is_release_tag(tag) else None


def is_release_tag(name: str) -> bool:
    """`33.0.0`, `33.0.0.0rc1`, `2015.1.0rc1`: not a milestone beta or an end-of-life mark."""
    return _RELEASE_TAG.match(name) is not None


_NOT_RELEASES = ("*b[0-9]*", "*a[0-9]*", "*-eol", "*-em", "*-eom", "*-last", "*gamma*")


def _max_at_tag(repo: Repo, tag: str, layout: Layout) -> Version | None:
    """The version file at the tag: where the layout has it, else where it lived then."""
    revision = Revision.at(repo, f"{tag}^{{commit}}", tag)
    known = KNOWN.get(layout.project)
    paths = [layout.version_file] if layout.version_file else []
    paths += [path for path in (known.version_files if known else ()) if path not in paths]
    for path in paths:
        text = revision.text(path)
        if text is None:
            continue
        try:
            return read_version_file(text, f"{tag}:{path}").max_version
        except InputError:
            continue
    return None
