"""merge.beside_one_microversion: what joins the one microversion a change documents."""

from __future__ import annotations

from needs_microversion.compare.merge import beside_one_microversion
from needs_microversion.model.change import Area, Change, Correction, Kind
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.versions import Version, parse_version

V22, V23 = parse_version("2.2"), parse_version("2.3")


def change(pointer: str, gated: Version | None = None, area: Area = "response-body",
           kind: Kind = "added", correction: Correction | None = None) -> Change:
    return Change(area, kind, "", "GET /servers", OpKey("GET", "/servers", None), pointer,
                  "200", gated=gated, seen_at=gated, everywhere=gated is None,
                  correction=correction)


def gates(changes: list[Change]) -> list[tuple[str, Version | None, bool]]:
    return [(c.pointer, c.gated, c.inferred) for c in beside_one_microversion(changes)]


def test_an_addition_without_a_note_joins_the_one_microversion() -> None:
    result = beside_one_microversion([change("/locked", V22), change("/pinned"),
                                      change("limit", area="query-parameter"),
                                      change("", area="status-code")])
    assert [(c.pointer, c.gated, c.seen_at, c.inferred, c.everywhere) for c in result] == [
        ("/locked", V22, V22, False, False), ("/pinned", V22, V22, True, False),
        ("limit", V22, V22, True, False), ("", V22, V22, True, False)]


def test_two_microversions_leave_it_alone() -> None:
    assert gates([change("/locked", V22), change("/host", V23), change("/pinned")])[2] == (
        "/pinned", None, False)


def test_no_microversion_leaves_it_alone() -> None:
    assert gates([change("/pinned"), change("/host")]) == [
        ("/pinned", None, False), ("/host", None, False)]


def test_what_only_catches_up_or_is_not_an_addition_stays() -> None:
    late = Correction("shown-in-example", "the old example shows it")
    assert gates([change("/locked", V22), change("/shown", correction=late),
                  change("/gone", kind="removed"),
                  change("", area="status-code", kind="removed")])[1:] == [
        ("/shown", None, False), ("/gone", None, False), ("", None, False)]
