"""What a repository holds, found with no configuration: layouts of the real services."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from repositories import cinder_like, git, ironic_like, nova_like, placement_like, zun_like

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo
from needs_microversion.model.versions import Version
from needs_microversion.repository.historydoc import released_by_headings, versions_listed
from needs_microversion.repository.layout import detect, version_record
from needs_microversion.repository.releases import is_release_tag, released
from needs_microversion.repository.revision import Revision


@pytest.mark.parametrize("make, project, profile, version_file, history, samples", [
    (nova_like, "nova", "nova", "nova/api/openstack/api_version_request.py",
     ("nova/api/openstack/compute/rest_api_version_history.rst",
      "nova/api/openstack/api_version_request.py"), ("doc/api_samples",)),
    (ironic_like, "ironic", "ironic", "ironic/api/controllers/v1/versions.py",
     ("doc/source/contributor/webapi-version-history.rst",), ()),
    (placement_like, "placement", "placement", "placement/microversion.py",
     ("placement/rest_api_version_history.rst",), ()),
    (zun_like, "zun", "generic", "zun/api/controllers/versions.py",
     ("zun/api/rest_api_version_history.rst",), ()),
    (cinder_like, "cinder", "cinder", "cinder/api/openstack/api_version_request.py",
     ("cinder/api/openstack/rest_api_version_history.rst",), ()),
], ids=["nova", "ironic", "placement", "zun", "cinder"])
def test_each_real_layout(tmp_path: Path, make, project, profile, version_file, history,
                          samples) -> None:
    repo = make(tmp_path / "r")
    for revision in (Revision.at(Repo(repo.top), "HEAD"), Revision.working(Repo(repo.top))):
        layout = detect(revision)
        assert layout is not None
        assert (layout.project, layout.profile, layout.documents, layout.version_file,
                layout.history_docs, layout.release_notes, layout.samples) == (
            project, profile, ("api-ref/source",), version_file, history,
            "releasenotes/notes", samples)


def test_any_other_project_is_searched_the_same_way(tmp_path: Path) -> None:
    top = tmp_path / "r"
    (top / "widget" / "api").mkdir(parents=True)
    (top / "widget" / "api" / "versions.py").write_text("CURRENT_MAX_VER = '1.3'\n")
    (top / "doc" / "source").mkdir(parents=True)
    (top / "doc" / "source" / "api-version-history.rst").write_text("1.3\n---\n\nx\n")
    (top / "openapi.yaml").write_text("openapi: 3.0.3\n")
    git(top.parent, "init", "-q", str(top))
    layout = detect(Revision.working(Repo(top)))
    assert layout is not None and (layout.project, layout.profile, layout.documents,
                                   layout.version_file, layout.history_docs) == (
        "widget", "generic", ("openapi.yaml",), "widget/api/versions.py",
        ("doc/source/api-version-history.rst",))


def test_no_documents_no_layout(tmp_path: Path) -> None:
    top = tmp_path / "r"
    (top / "nova" / "api" / "openstack").mkdir(parents=True)
    (top / "nova" / "api" / "openstack" / "api_version_request.py").write_text(
        "_MAX_API_VERSION = '2.1'\n")
    git(top.parent, "init", "-q", str(top))
    revision = Revision.working(Repo(top))
    assert detect(revision) is None
    # The version file alone is the API's record (nova before its api-ref, 2015).
    record = version_record(revision)
    assert record is not None and (record.project, record.documents, record.version_file) == (
        "nova", (), "nova/api/openstack/api_version_request.py")
    assert record.describe().startswith("nova (nova): no API documents; version file")


def test_no_version_file_no_record(tmp_path: Path) -> None:
    top = tmp_path / "r"
    (top / "app").mkdir(parents=True)
    (top / "app" / "version.py").write_text("VERSION = '2.1'\n")
    git(top.parent, "init", "-q", str(top))
    assert version_record(Revision.working(Repo(top))) is None


def test_released_maximum_from_the_nearest_release_tag(tmp_path: Path) -> None:
    repo = nova_like(tmp_path / "r")  # tag 1.0.0 ships 2.1
    repo.commit({}, "2.2", max_version="2.2")
    repo.tag("2.0.0.0b1")  # a milestone: not a release
    repo.commit({}, "2.3", max_version="2.3")
    revision = Revision.at(Repo(repo.top), "HEAD")
    layout = detect(revision)
    assert layout is not None
    found = released(revision, layout)
    assert found is not None and (found.name, found.max_version) == ("1.0.0", Version(2, 1))
    repo.tag("2.0.0.0rc1")
    found = released(Revision.at(Repo(repo.top), "HEAD"), layout)
    assert found is not None and (found.name, found.max_version) == ("2.0.0.0rc1",
                                                                       Version(2, 3))


def test_without_tags_the_history_headings_tell(tmp_path: Path) -> None:
    repo = cinder_like(tmp_path / "r")
    git(repo.top, "tag", "-d", "1.0.0")
    revision = Revision.at(Repo(repo.top), "HEAD")
    layout = detect(revision)
    assert layout is not None
    found = released(revision, layout)
    assert found is not None and (found.name, found.max_version) == ("Newton", Version(3, 1))


@pytest.mark.parametrize("name, expected", [
    ("33.0.0", True), ("33.0.0.0rc1", True), ("2015.1.0rc1", True), ("12.0.0.rc1", True),
    ("33.0.0.0b1", False), ("2024.1-eol", False), ("wallaby-eom", False), ("12.0.0a0", False),
])
def test_release_tags(name: str, expected: bool) -> None:
    assert is_release_tag(name) is expected


def test_history_document_entries() -> None:
    text = ("REST API Version History\n========================\n\n2.1\n---\n\nFirst.\n\n"
            "2.2 (Maximum in Kilo)\n---------------------\n\nSecond.\n\n"
            "1.39 - Support any-traits\n~~~~~~~~~~~~~~~~~~~~~~~~~\n\nx\n\n"
            'REST_API_VERSION_HISTORY = """\n    * 2.3 - Third.\n"""\n'
            "- **2.4**\n\n  Show the 'reserved' status (nova's first history, 2015).\n"
            "Not a title 2.9\n\nThe 2.8 release.\n - **bold** 2.7\n")
    assert versions_listed(text) == {Version(2, 1), Version(2, 2), Version(1, 39),
                                     Version(2, 3), Version(2, 4)}
    assert released_by_headings(text) == ("Kilo", Version(2, 2))


def test_a_working_tree_read_stays_inside_the_repository(tmp_path: Path) -> None:
    repo = nova_like(tmp_path / "r")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (repo.top / "link.txt").symlink_to(outside)
    revision = Revision.working(Repo(repo.top))
    # There but not readable as a file of the repository: an error naming it, never its text.
    for name, words in (("link.txt", "leads outside"), ("../secret.txt", "leads outside")):
        with pytest.raises(InputError, match=words) as caught:
            revision.read(name)
        assert "secret" not in str(caught.value).replace("secret.txt", "")
    subprocess.run(["mkfifo", str(repo.top / "fifo")], check=True)
    with pytest.raises(InputError, match="not a regular file"):
        revision.read("fifo")  # never opened for reading: it would block
    assert revision.read("absent.txt") is None
