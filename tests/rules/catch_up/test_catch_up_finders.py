"""Each catch-up finder on its own, from two small documents: what it explains, and what it
leaves alone (the catalogue in rules/catch-up runs them end to end)."""

from __future__ import annotations

from small_snapshots import OK, body, found, snapshot

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.snapshot import OpKey
from needs_microversion.rules.catch_up import (
    envelope_of_list, first_documented_code, listed_undefined, matches_example,
    method_corrected, unverified_section, url_still_documented)
from needs_microversion.rules.finder import Sides


def _get(responses: dict[str, object]) -> dict[str, object]:
    return {"get": {"responses": responses}}


def test_method_corrected_a_get_with_a_body_now_a_post() -> None:
    old = snapshot({"/servers/{id}/action": {"get": {
        "requestBody": body({"reboot": {"type": "object"}}), "responses": {"202": OK}}}})
    new = snapshot({"/servers/{id}/action": {"post": {
        "requestBody": body({"reboot": {"type": "object"}}), "responses": {"202": OK}}}})
    assert set(found(method_corrected.FINDER, old, new).values()) == {"method-corrected"}
    bodiless = snapshot({"/servers/{id}/action": {"get": {"responses": {"202": OK}}}})
    assert found(method_corrected.FINDER, bodiless, new) == {}


def test_url_still_documented_one_route_described_twice() -> None:
    route = {"get": {"responses": {"200": OK}}}
    old = snapshot({"/indicators/{component}": route, "/indicators/{node}@{component}": route})
    new = snapshot({"/indicators/{node}@{component}": route})
    assert found(url_still_documented.FINDER, old, new) == {
        ("GET /indicators/{component}", "operation", ""): "url-still-documented"}
    assert found(url_still_documented.FINDER, snapshot({"/a/{x}": route}),
                 snapshot({"/b/{x}": route})) == {}


def test_envelope_of_a_detailed_list_matches_its_list() -> None:
    listing = _get({"200": body({"servers": {"type": "array"}})})
    old = snapshot({"/servers": listing,
                    "/servers/detail": _get({"200": body({"server": {"type": "object"}})})})
    new = snapshot({"/servers": listing,
                    "/servers/detail": _get({"200": body({"servers": {"type": "array"}})})})
    assert set(found(envelope_of_list.FINDER, old, new).values()) == {"envelope-matches-list"}
    other = snapshot({"/servers": listing, "/servers/detail": _get(
        {"200": body({"hosts": {"type": "array"}})})})
    assert found(envelope_of_list.FINDER, old, other) == {}


def test_first_documented_codes() -> None:
    nothing = snapshot({"/a": {"get": {"responses": {}}}})
    errors_only = snapshot({"/a": _get({"404": OK})})
    with_ok = snapshot({"/a": _get({"404": OK, "200": OK})})
    assert found(first_documented_code.FINDER, errors_only, with_ok) == {
        ("GET /a", "status-code", "200"): "success-code-first-documented"}
    assert found(first_documented_code.FINDER, nothing, errors_only) == {
        ("GET /a", "status-code", "404"): "codes-first-documented"}
    assert found(first_documented_code.FINDER, with_ok,
                 snapshot({"/a": _get({"404": OK, "200": OK, "201": OK})})) == {}


def _change(**fields: object) -> Change:
    base: dict[str, object] = {"area": "response-body", "kind": "changed", "aspect": "type",
                               "operation": "GET /a", "op_key": OpKey("GET", "/a", None),
                               "pointer": "/size", "status": "200"}
    return Change(**{**base, **fields})  # type: ignore[arg-type]


def test_matches_example_reads_what_the_old_example_showed() -> None:
    sides = Sides(snapshot({}), snapshot({}))
    shown = _change(old="string", new="integer", example_types=frozenset({"integer", "number"}))
    assert matches_example.check(shown, sides) == Correction(
        "matches-example", "the old document's example already shows integer; the table is "
        "corrected to match it")
    assert matches_example.check(_change(old="string", new="integer"), sides) is None
    # The old type was shown too: nothing says which one the API returned.
    assert matches_example.check(_change(old="integer|string", new="integer",
                                         example_types=frozenset({"integer"})), sides) is None


def test_unverified_section_and_listed_undefined_read_the_old_trees_notes() -> None:
    info = {"x-needs-microversion-unverified": {"servers.inc": ["parameter"]},
            "x-needs-microversion-unread": {"servers.inc": ["binary"]}}
    op = {"get": {"responses": {"200": body({"name": {"type": "string"}})},
                  "x-needs-microversion-location": "servers.inc:3"}}
    old = snapshot({"/a": op}, info=info)
    new_op = {"get": {"responses": {"200": body({"name": {"type": "string"},
                                                 "binary": {"type": "string"}}),
                                    "404": OK},
                      "x-needs-microversion-location": "servers.inc:3"}}
    new = snapshot({"/a": new_op})
    marked = found(unverified_section.FINDER, old, new)
    assert marked == {("GET /a", "response-body", "/binary"): "unverified-section"}
    assert found(listed_undefined.FINDER, old, new) == {
        ("GET /a", "response-body", "/binary"): "listed-undefined"}
    assert found(unverified_section.FINDER, snapshot({"/a": op}), new) == {}
