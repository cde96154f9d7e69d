"""Where a repository keeps what a reviewer reads: found from its files, no configuration.

    layout = detect(revision)      # None: no API documents at this revision
    record = version_record(revision)  # no documents, but a version file (nova in 2015)
    layout.documents               # ("api-ref/source",)
    layout.version_file            # "nova/api/openstack/api_version_request.py"
    layout.history_docs, layout.release_notes, layout.samples, layout.profile

The eleven OpenStack services that use microversions are known by name (reference notes,
openstack-formats.md section 8, with the places their files had earlier in their history:
placement's version file moved twice, ironic's and nova's history documents once). Any other
repository is searched the same way: a Python version file under an `api` package that
declares a maximum microversion in one of the spellings `versionfile` reads, a
`*version*history*.rst` beside it or under `doc/`, `releasenotes/notes/`. The API
documents are an api-ref source tree (`<project>-api-ref/source` first, then
`api-ref/source`, or `api-ref/<name>/source` as cinder had in 2016), else OpenAPI documents
(`openapi.yaml`, `swagger.json`, a `specs/` folder of them as openstack-openapi keeps).
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from needs_microversion.errors import InputError
from needs_microversion.profiles import PROFILES
from needs_microversion.repository.versionfile import read_version_file

if TYPE_CHECKING:  # read through a Revision handed in; a plain diff never imports git
    from needs_microversion.repository.revision import Revision

RELEASE_NOTES = "releasenotes/notes"


@dataclass(frozen=True)
class Known:
    version_files: tuple[str, ...]  # newest place first
    history_docs: tuple[str, ...] = ()
    samples: tuple[str, ...] = ()


KNOWN: dict[str, Known] = {
    "nova": Known(("nova/api/openstack/api_version_request.py",),
                  ("nova/api/openstack/compute/rest_api_version_history.rst",
                   "nova/api/openstack/rest_api_version_history.rst"), ("doc/api_samples",)),
    "cinder": Known(("cinder/api/openstack/api_version_request.py",),
                    ("cinder/api/openstack/rest_api_version_history.rst",)),
    "manila": Known(("manila/api/openstack/api_version_request.py",),
                    ("manila/api/openstack/rest_api_version_history.rst",
                     "doc/source/contributor/api_microversion_history.rst")),
    "ironic": Known(("ironic/api/controllers/v1/versions.py",),
                    ("doc/source/contributor/webapi-version-history.rst",
                     "doc/source/dev/webapi-version-history.rst")),
    "placement": Known(("placement/microversion.py",
                        "placement/api/openstack/placement/microversion.py"),
                       ("placement/rest_api_version_history.rst",
                        "placement/api/openstack/placement/rest_api_version_history.rst")),
    "senlin": Known(("senlin/api/openstack/v1/version.py", "senlin/api/openstack/versions.py"),
                    ("senlin/api/openstack/history.rst",)),
    "cyborg": Known(("cyborg/api/controllers/v2/versions.py",),
                    ("cyborg/api/rest_api_version_history.rst",), ("doc/api_samples",)),
    "watcher": Known(("watcher/api/controllers/v1/versions.py",),
                     ("watcher/api/controllers/rest_api_version_history.rst",)),
    # masakari keeps its history in the version file's REST_API_VERSION_HISTORY string.
    "masakari": Known(("masakari/api/api_version_request.py",), (), ("doc/api_samples",)),
    "zun": Known(("zun/api/controllers/versions.py",), ("zun/api/rest_api_version_history.rst",)),
    "magnum": Known(("magnum/api/controllers/versions.py",),
                    ("magnum/api/rest_api_version_history.rst",)),
}
# Where any other project may keep its version file and history document.
_VERSION_FILE_PATTERNS = ("*/api/*api_version_request.py", "*/api/*versions.py",
                          "*/api/*version.py", "*/microversion.py")
_HISTORY_PATTERNS = ("*version*history*.rst", "*version-history*.rst")
_OPENAPI_NAMES = ("openapi.yaml", "openapi.yml", "openapi.json", "swagger.yaml", "swagger.yml",
                  "swagger.json")
_OPENAPI_FOLDERS = ("", "api/", "doc/", "docs/")
_API_REF_SUFFIXES = (".inc", ".rst")


@dataclass(frozen=True)
class Layout:
    project: str  # "nova", or the package holding the version file ("" when none)
    profile: str  # a profiles.PROFILES name
    documents: tuple[str, ...]  # api-ref source folders or OpenAPI files/folders
    version_file: str | None = None
    history_docs: tuple[str, ...] = ()
    release_notes: str | None = None
    samples: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = [f"documents {', '.join(self.documents)}" if self.documents
                 else "no API documents"]
        if self.version_file:
            parts.append(f"version file {self.version_file}")
        if self.history_docs:
            parts.append(f"history {', '.join(self.history_docs)}")
        return f"{self.project or 'repository'} ({self.profile}): " + "; ".join(parts)


def detect(revision: Revision) -> Layout | None:
    """The layout of one revision; None when it holds no API document."""
    files = revision.files()
    found = _version_file(revision, files)
    documents = _documents(files, found[0])
    return _layout(revision, files, documents, found) if documents else None


def version_record(revision: Revision) -> Layout | None:
    """A microversioned API that has no documents at this revision (nova before its api-ref,
    2015): its version file, history document and release notes are then the whole written
    record of its contract, which a reviewer reads (the layout's `documents` is empty).
    None when no file declares a maximum microversion."""
    files = revision.files()
    layout = _layout(revision, files, (), _version_file(revision, files))
    return layout if layout.version_file is not None else None


def _layout(revision: Revision, files: tuple[str, ...], documents: tuple[str, ...],
            found: tuple[str, str | None]) -> Layout:
    project, version_file = found
    known = KNOWN.get(project)
    if known is not None:
        history = tuple(path for path in known.history_docs if path in files)[:1]
        samples = tuple(path for path in known.samples if _has_under(files, path))
    else:
        history = _history_docs(files, project)
        samples = ()
    if version_file is not None and _mentions_history(revision, version_file):
        history = (*history, version_file)
    notes = RELEASE_NOTES if _has_under(files, RELEASE_NOTES) else None
    return Layout(project, project if project in PROFILES else "generic", documents,
                  version_file, history, notes, samples)


def _documents(files: tuple[str, ...], project: str) -> tuple[str, ...]:
    """The API documents; a repository hosting a second service's reference names it after
    that service (nova kept `placement-api-ref/` beside its `api-ref/`, and placement's
    repository began as a copy of nova's with both): the project's own tree comes first."""
    own = f"{project}-api-ref/source"
    if project and _has_documents(files, own):
        return (own,)
    api_ref = sorted(folder for folder in ("api-ref/source", *_nested_sources(files))
                     if _has_documents(files, folder))
    if api_ref:
        return tuple(api_ref)
    if _has_under(files, "specs") and any(
            fnmatch.fnmatchcase(name, "specs/*/*.y*ml") or fnmatch.fnmatchcase(
                name, "specs/*/*.json") for name in files):
        return ("specs",)
    return tuple(folder + name for folder in _OPENAPI_FOLDERS for name in _OPENAPI_NAMES
                 if folder + name in files)


def _has_documents(files: Iterable[str], folder: str) -> bool:
    return any(name.startswith(folder + "/") and name.endswith(_API_REF_SUFFIXES)
               for name in files)


def _nested_sources(files: Iterable[str]) -> set[str]:
    """`api-ref/v2/source` (cinder, 2016): one tree per API version."""
    found = set()
    for name in files:
        parts = name.split("/")
        if len(parts) > 3 and parts[0] == "api-ref" and parts[2] == "source":
            found.add("/".join(parts[:3]))
    return found


def _version_file(revision: Revision, files: tuple[str, ...]) -> tuple[str, str | None]:
    """(project, version file): a known service first, else any file that declares a max."""
    present = set(files)
    for project, known in KNOWN.items():
        for path in known.version_files:
            if path in present and _declares_max(revision, path):
                return project, path
    candidates = sorted((name for name in files if any(
        fnmatch.fnmatchcase(name, pattern) for pattern in _VERSION_FILE_PATTERNS)
        and "/tests/" not in f"/{name}"), key=lambda name: (name.count("/"), name))
    for path in candidates:
        if _declares_max(revision, path):
            return path.split("/", 1)[0], path
    return "", None


def _declares_max(revision: Revision, path: str) -> bool:
    text = revision.text(path)
    if text is None:
        return False
    try:
        read_version_file(text, path)
    except InputError:
        return False
    return True


def _mentions_history(revision: Revision, path: str) -> bool:
    text = revision.text(path)
    return text is not None and "REST_API_VERSION_HISTORY" in text


def _history_docs(files: tuple[str, ...], project: str) -> tuple[str, ...]:
    found = [name for name in files if name.endswith(".rst")
             and not name.startswith(("api-ref/", "releasenotes/"))
             and (name.startswith(f"{project}/") or name.startswith("doc/"))
             and any(fnmatch.fnmatchcase(posixpath.basename(name), pattern)
                     for pattern in _HISTORY_PATTERNS)]
    return tuple(sorted(found, key=lambda name: (not name.startswith(f"{project}/"), name)))[:1]


def _has_under(files: Iterable[str], folder: str) -> bool:
    prefix = folder.rstrip("/") + "/"
    return any(name.startswith(prefix) for name in files)
