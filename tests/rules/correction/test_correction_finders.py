"""Each correction finder and reading on its own: what it explains, and what it leaves alone
(the catalogue in rules/correction runs them end to end)."""

from __future__ import annotations

from small_snapshots import OK, body, found, snapshot

from needs_microversion.model.change import Change
from needs_microversion.model.snapshot import OpKey
from needs_microversion.rules.correction import (
    corrected, error_code_dropped, moved_location, removed_at_every_version,
    rewritten_in_place, success_code_swapped)


def test_success_code_swapped_the_only_two() -> None:
    old = snapshot({"/a": {"post": {"responses": {"202": OK, "404": OK}}}})
    new = snapshot({"/a": {"post": {"responses": {"200": OK, "404": OK}}}})
    assert set(found(success_code_swapped.FINDER, old, new).values()) == {
        "success-code-swapped"}
    two = snapshot({"/a": {"post": {"responses": {"200": OK, "201": OK, "404": OK}}}})
    assert found(success_code_swapped.FINDER, old, two) == {}  # which became which?


def test_moved_location_header_to_query() -> None:
    def op(where: str) -> dict[str, object]:
        return {"get": {"parameters": [{"name": "limit", "in": where,
                                        "schema": {"type": "string"}}],
                        "responses": {"200": OK}}}

    old, new = snapshot({"/a": op("header")}), snapshot({"/a": op("query")})
    assert set(found(moved_location.FINDER, old, new).values()) == {"moved-location"}


def test_rewritten_in_place_a_renamed_attribute_of_the_same_kind() -> None:
    old = snapshot({"/a": {"get": {"responses": {"200": body(
        {"host_numa_node": {"type": "string"}})}}}})
    new = snapshot({"/a": {"get": {"responses": {"200": body({"host_node": {"type": "string"}})}}}})
    assert set(found(rewritten_in_place.FINDER, old, new).values()) == {"rewritten-in-place"}
    other = snapshot({"/a": {"get": {"responses": {"200": body({"host_node": {"type": "integer"}})}}}})
    assert found(rewritten_in_place.FINDER, old, other) == {}


def test_a_finder_leaves_alone_what_the_finders_it_sees_explained() -> None:
    old = snapshot({"/a": {"post": {"responses": {"202": OK}}}})
    new = snapshot({"/a": {"post": {"responses": {"200": OK}}}})
    from needs_microversion.compare import compare
    from needs_microversion.model.change import Correction
    from needs_microversion.rules.finder import Sides

    changes = compare(old, new)
    prior = {id(changes[0]): Correction("nesting-reread", "moved")}
    assert success_code_swapped.FINDER.find(changes, Sides(old, new), prior) == {}


def _change(kind: str, area: str, aspect: str = "", status: str | None = None,
            everywhere: bool = True) -> Change:
    return Change(area, kind, aspect, "GET /a", OpKey("GET", "/a", None),  # type: ignore[arg-type]
                  "/x" if area.endswith("body") else "", status, everywhere=everywhere)


def test_the_readings_of_a_change_alone() -> None:
    assert corrected.reason(_change("changed", "response-body", "type+constraint"))
    assert corrected.reason(_change("changed", "response-body", "enum")) is None
    assert error_code_dropped.reason(_change("removed", "status-code", status="409"))
    assert error_code_dropped.reason(_change("removed", "status-code", status="200")) is None
    assert removed_at_every_version.reason(_change("removed", "status-code", status="200"))
    assert removed_at_every_version.reason(
        _change("removed", "response-body", everywhere=False)) is None
