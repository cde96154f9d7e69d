"""corrections.py: which path shapes one route serves (the catalogue runs the findings)."""

from __future__ import annotations

import pytest

from needs_microversion.rules.catch_up.urls import route


@pytest.mark.parametrize(("shape", "expected"), [
    pytest.param("/nodes/{}/indicators/{}@{}", "/nodes/{}/indicators/{}", id="composite-segment"),
    pytest.param("/nodes/{}/indicators/{}", "/nodes/{}/indicators/{}", id="plain-placeholder"),
    pytest.param("/files/{}.json", "/files/{}", id="placeholder-with-suffix"),
    pytest.param("/servers/detail", "/servers/detail", id="literal-stays-its-own-route"),
    pytest.param("/", "/", id="root"),
])
def test_route(shape: str, expected: str) -> None:
    assert route(shape) == expected
