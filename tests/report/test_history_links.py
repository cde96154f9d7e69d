"""Commit links from a repository's remote (repository/links.py)."""

from __future__ import annotations

import pytest

from needs_microversion.errors import InputError
from needs_microversion.repository.links import check_template, commit_link, template_for

OPENDEV = "https://opendev.org/openstack/nova/commit/{commit}"
GITHUB = "https://github.com/openstack/nova/commit/{commit}"


@pytest.mark.parametrize(("remote", "template"), [
    ("https://opendev.org/openstack/nova", OPENDEV),
    ("https://opendev.org/openstack/nova.git", OPENDEV),
    ("https://review.opendev.org/openstack/nova", OPENDEV),
    ("https://review.opendev.org/a/openstack/nova", OPENDEV),
    ("ssh://jane@review.opendev.org:29418/openstack/nova.git", OPENDEV),
    ("git://git.openstack.org/openstack/nova", OPENDEV),
    ("https://github.com/openstack/nova", GITHUB),
    ("https://github.com/openstack/nova.git", GITHUB),
    ("git@github.com:openstack/nova.git", GITHUB),
    ("ssh://git@github.com/openstack/nova.git", GITHUB),
    ("https://jane:ghp_TOKEN@github.com/openstack/nova.git/", GITHUB),
    ("https://gitlab.com/group/sub/nova.git", "https://gitlab.com/group/sub/nova/-/commit/{commit}"),
    ("git@gitlab.example.org:group/nova.git",
     "https://gitlab.example.org/group/nova/-/commit/{commit}"),
    ("/srv/mirrors/nova", None),
    ("../nova", None),
    ("file:///srv/mirrors/nova", None),
    ("https://example.org/openstack/nova", None),
    ("https://github.com/nova", None),
    ("https://github.com/o/n\"><script>", None),
    ("", None),
], ids=lambda value: value if isinstance(value, str) and value else "none")
def test_template_for(remote: str, template: str | None) -> None:
    assert template_for(remote) == template


def test_a_token_in_the_remote_never_reaches_the_link() -> None:
    link = commit_link(template_for("https://x-access-token:SECRET@github.com/o/r"), "abc")
    assert link == "https://github.com/o/r/commit/abc"


def test_a_template_needs_the_placeholder() -> None:
    assert check_template("https://example.test/{commit}") == "https://example.test/{commit}"
    with pytest.raises(InputError, match="{commit}"):
        check_template("https://example.test/")
    assert commit_link(None, "abc") is None
