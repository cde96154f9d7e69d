"""The cache of readings (`documents/parsed.py`): plain data comes back as it was put;
what has no JSON form (data that holds itself, a value JSON cannot write) is not kept,
and putting it never fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from needs_microversion.documents.parsed import ParsedCache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ParsedCache:
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(tmp_path / "cache"))
    return ParsedCache("test")


def test_plain_data_comes_back(cache: ParsedCache) -> None:
    shared = {"type": "string"}
    data = {"a": [shared, shared], "b": None, "c": 1.5}
    key = cache.key("reader", [("text", "digest")])
    cache.put(key, data)
    assert cache.get(key) == data


def _holding_itself() -> Any:
    loop: dict[str, Any] = {"a": 1}
    loop["self"] = [loop]
    return loop


@pytest.mark.parametrize("data", [_holding_itself(), {"a": {1, 2}}, {"a": object()}])
def test_what_json_cannot_write_is_not_kept(cache: ParsedCache, data: Any) -> None:
    key = cache.key("reader", [("text", "other")])
    cache.put(key, data)
    cache.put_text(key + "-text", data, "[]")
    assert cache.get(key) is None
    assert cache.get_text(key + "-text") is None
