"""What judging keeps of the two sides' warnings."""

from __future__ import annotations

import pytest

from needs_microversion.judge import side_warnings
from needs_microversion.rules.version_discovery import is_root


def test_the_old_sides_warnings_are_said_once_by_the_new_side() -> None:
    """A hook runs on every commit: the base revision's warnings that the new side repeats
    (lines moved or not) are not the author's news; one the new side fixed still shows."""
    old = ("HEAD:api-ref/source", [
        "HEAD:api-ref/source/servers.inc:287: 2 sections document operation POST /servers "
        "(also servers.inc:478); merged",
        "HEAD:api-ref/source/parameters.yaml:12: key 'x' repeated; the last is read"])
    new = ("api-ref/source", [
        "api-ref/source/servers.inc:301: 2 sections document operation POST /servers "
        "(also servers.inc:492); merged"])
    assert side_warnings(old, new) == (
        "HEAD:api-ref/source/parameters.yaml:12: key 'x' repeated; the last is read",
        "api-ref/source/servers.inc:301: 2 sections document operation POST /servers "
        "(also servers.inc:492); merged")


@pytest.mark.parametrize(("operation", "root"), [
    ("GET /", True), ("GET /v2.1", True), ("GET /v3/", True), ("GET /{version}/", True),
    ("GET /{api_version}", True), ("GET /servers", False), ("GET /v2.1/servers", False),
    ("GET /{project_id}", False), ("POST /v3/{volume_id}/action (os-reset)", False),
])
def test_the_version_discovery_roots(operation: str, root: bool) -> None:
    assert is_root(operation) is root
