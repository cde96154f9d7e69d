"""Microversion bookkeeping: the project's maximum microversion and what else a bump needs.

The maximum is read from the project's version file (reference notes, openstack-formats.md
section 2) by parsing it with `ast`; the file is never imported or executed, so a version file
at any git revision is safe to read. Conventions, tried in this order:

| convention | projects | example |
| --- | --- | --- |
| `_MAX_API_VERSION` | nova, cinder, manila, masakari | `_MAX_API_VERSION = "2.104"` |
| `CURRENT_MAX_VER` | zun | `CURRENT_MAX_VER = '1.40'` |
| `MINOR_MAX_VERSION` + `BASE_VERSION` | ironic, cyborg | `MINOR_MAX_VERSION = MINOR_115_...` |
| `VERSIONS` list, last entry | placement | `VERSIONS = ['1.0', ..., '1.39']` |

When a change needs a microversion, the next one is the old maximum plus one minor ("Allocating
a microversion", seed 001), and the companion changes of seed 001's "Other necessary changes"
are listed, each marked done, not done, or unknown: entries in the version file are checked in
its new text, other files against the change's paths (None: not known).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Collection
from dataclasses import dataclass

from needs_microversion.errors import InputError
from needs_microversion.model.verdict import REQUIRED, Bookkeeping, Report
from needs_microversion.model.versions import Version, parse_version

MAX_API_VERSION, CURRENT_MAX_VER, MINOR_MAX_VERSION, VERSIONS = (
    "_MAX_API_VERSION", "CURRENT_MAX_VER", "MINOR_MAX_VERSION", "VERSIONS")

# Where each project keeps what seed 001's checklist names (paths from the project root).
VERSION_FILES = {
    "nova": "nova/api/openstack/api_version_request.py",
    "placement": "placement/microversion.py",
    "cinder": "cinder/api/openstack/api_version_request.py",
    "manila": "manila/api/openstack/api_version_request.py",
    "ironic": "ironic/api/controllers/v1/versions.py",
}
HISTORY_FILES = {
    "nova": "nova/api/openstack/compute/rest_api_version_history.rst",
    "placement": "placement/rest_api_version_history.rst",
    "cinder": "cinder/api/openstack/rest_api_version_history.rst",
    "manila": "manila/api/openstack/rest_api_version_history.rst",
    "ironic": "doc/source/contributor/webapi-version-history.rst",
    "generic": "*version*history*.rst",
}
RELEASE_NOTES = "releasenotes/notes/*.yaml"
API_REF = "api-ref/source/*"


@dataclass(frozen=True)
class VersionFile:
    """What one version file says."""

    max_version: Version
    convention: str  # one of the four names above


def read_version_file(text: str, source: str = "version file") -> VersionFile:
    """The maximum microversion a version file declares (InputError when it declares none)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise InputError(f"cannot parse the version file: {exc.msg}", source, exc.lineno
                         ) from None
    names: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            names[node.target.id] = node.value
    for convention in (MAX_API_VERSION, CURRENT_MAX_VER):
        version = parse_version(_constant(names, names.get(convention)))
        if version is not None:
            return VersionFile(version, convention)
    minor = _constant(names, names.get(MINOR_MAX_VERSION))
    major = _constant(names, names.get("BASE_VERSION"))
    if type(minor) is int and type(major) is int:
        return VersionFile(Version(major, minor), MINOR_MAX_VERSION)
    listed = names.get(VERSIONS)
    if isinstance(listed, (ast.List, ast.Tuple)) and listed.elts:
        version = parse_version(_constant(names, listed.elts[-1]))
        if version is not None:
            return VersionFile(version, VERSIONS)
    raise InputError("no maximum microversion found (looked for _MAX_API_VERSION, "
                     "CURRENT_MAX_VER, MINOR_MAX_VERSION with BASE_VERSION, VERSIONS)", source)


def _constant(names: dict[str, ast.expr], node: ast.expr | None) -> object:
    """A constant, following `NAME = OTHER_NAME` aliases (ironic's MINOR_MAX_VERSION)."""
    seen = set()
    while isinstance(node, ast.Name) and node.id not in seen:
        seen.add(node.id)
        node = names.get(node.id)
    return node.value if isinstance(node, ast.Constant) else None


def bookkeeping(old_text: str | None, new_text: str | None, report: Report,
                changed_paths: Collection[str] | None, *, profile: str = "generic",
                version_file: str | None = None, released_max: Version | None = None,
                fold: bool = False) -> Bookkeeping:
    """The version file at both revisions (None: unknown) against what the report needs.

    `changed_paths` are the change's files relative to the project root (None: unknown).
    With `fold` and an old maximum above `released_max`, the unreleased old maximum is the
    one to use: a follow-up change may extend it instead of allocating another.
    """
    path = version_file or VERSION_FILES.get(profile, "the version file")
    old = read_version_file(old_text, f"{path} (old)") if old_text is not None else None
    new = read_version_file(new_text, f"{path} (new)") if new_text is not None else None
    old_max = old.max_version if old else None
    new_max = new.max_version if new else None
    bumped_by_one = None if old_max is None or new_max is None else new_max == old_max.next()
    needed = any(f.verdict == REQUIRED and not f.acknowledged for f in report.findings)
    if not needed:
        return Bookkeeping(_text(old_max), _text(new_max), bumped_by_one, None)
    next_version = None
    if old_max is not None:
        folds = fold and released_max is not None and old_max > released_max
        next_version = old_max if folds else old_max.next()
    known = new or old
    convention = known.convention if known else MAX_API_VERSION
    items = _checklist(convention, profile, path, next_version, new_text, new_max,
                       changed_paths)
    return Bookkeeping(_text(old_max), _text(new_max), bumped_by_one, _text(next_version),
                       tuple(items))


def _checklist(convention: str, profile: str, path: str, version: Version | None,
               new_text: str | None, new_max: Version | None,
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
    history = HISTORY_FILES.get(profile, HISTORY_FILES["generic"])
    items.append((f"a verbose description of {v} in {history}", changed(history)))
    if profile == "cinder":
        items.append((f"a named constant for {v} in cinder/api/microversions.py",
                           changed("cinder/api/microversions.py")))
    items.append((f"a release note ({RELEASE_NOTES}) announcing {v}",
                       changed(RELEASE_NOTES)))
    if profile == "nova":
        items.append((("the versions samples doc/api_samples/versions/"
                            "versions-get-resp.json and v21-version-get-resp.json"),
                           changed("doc/api_samples/versions/versions-get-resp.json",
                                   "doc/api_samples/versions/v21-version-get-resp.json")))
        items.append((f"api samples in doc/api_samples/*/v{v}/ (if applicable)",
                           changed(f"doc/api_samples/*/v{v}/*")))
    if profile == "ironic":
        mapping = "ironic/common/release_mappings.py"
        items.append((f"RELEASE_MAPPING['master']['api'] = '{v}' in {mapping}",
                      changed(mapping)))
    items.append((f"the API reference (api-ref/source/): min_version: {v} on what changed",
                       changed(API_REF)))
    return items


def _text(version: Version | None) -> str | None:
    return None if version is None else str(version)
