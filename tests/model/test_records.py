"""`evolve` is `dataclasses.replace` for the records it copies (model/records.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.records import evolve
from needs_microversion.model.snapshot import Location, OpKey
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.model.versions import parse_version

CHANGE = Change("response-body", "added", "", "GET /x", OpKey("GET", "/x", None), "/a",
                "200", new={"type": "string"}, new_location=Location("new.yaml", pointer=("paths",)))


@pytest.mark.parametrize("fields", [
    {"seen_at": parse_version("2.3"), "everywhere": True},
    {"gated": parse_version("2.4"), "seen_at": parse_version("2.4")},
    {"new_location": Location("new.yaml", 7, ("paths",))},
    {"correction": Correction("shown-in-example", "why")},
    {},
])
def test_a_change_evolves_as_replace_makes_it(fields: dict[str, object]) -> None:
    assert evolve(CHANGE, **fields) == replace(CHANGE, **fields)  # type: ignore[arg-type]


def test_the_identity_is_made_again_from_the_new_fields() -> None:
    assert CHANGE.identity  # cached on the original
    moved = evolve(CHANGE, pointer="/b")
    assert moved.identity == replace(CHANGE, pointer="/b").identity != CHANGE.identity


def test_a_finding_evolves_and_the_original_is_untouched() -> None:
    finding = Finding("attribute-added", "attribute", "?", REQUIRED, CHANGE, "added")
    assert evolve(finding, message="added (hint)") == replace(finding, message="added (hint)")
    assert finding.message == "added"


def test_an_unknown_field_is_refused_as_replace_refuses_it() -> None:
    with pytest.raises(TypeError, match="no field 'colour'"):
        evolve(CHANGE, colour="red")


def test_a_record_it_would_copy_wrongly_is_refused() -> None:
    @dataclass(frozen=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            assert self.value >= 0

    with pytest.raises(TypeError, match="does not copy Checked"):
        evolve(Checked(1), value=-1)


def test_an_identity_tells_values_apart_as_their_json_does() -> None:
    def identity(new: object) -> object:
        return replace(CHANGE, new=new).identity

    assert identity({"type": "string", "required": False}) == identity(
        {"required": False, "type": "string"})  # key order is no difference
    assert len({identity({"a": 1}), identity({"a": True}), identity({"a": 1.0}),
                identity({"a": "1"}), identity({"a": [1]}), identity("1"), identity(1)}) == 7
