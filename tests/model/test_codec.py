"""model.codec: records to JSON data and back, exactly; data it did not write is refused."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.codec import UnknownValue, UnreadableData, decode, encode
from needs_microversion.model.history import HistoryRow
from needs_microversion.model.snapshot import Location, OpKey
from needs_microversion.model.verdict import Bookkeeping, Claim, Finding, Report
from needs_microversion.model.versions import Version

KEY = OpKey("GET", "/servers/{}", None)


def a_row(old: Any, new: Any) -> HistoryRow:
    change = Change("response-body", "changed", "type+enum", "GET /servers/{server_id}", KEY,
                    pointer="/server/status", status="200", old=old, new=new,
                    old_location=Location("api-ref/source/parameters.yaml", 12, ("a", "b")),
                    gated=Version(2, 10), since=Version(2, 9), merged=("type", "enum"),
                    correction=Correction("catch-up", "documented late", evidence=True),
                    example_types=frozenset({"string", "null"}))
    finding = Finding("type-changed", "attribute", "Q5", "required", change, "changed",
                      acknowledged="known")
    report = Report("old", "new", Version(2, 9), Version(2, 10), (finding,),
                    claims=(Claim(KEY, "GET /servers", "silent failure"),),
                    warnings=("w",), bookkeeping=Bookkeeping("2.9", "2.10", True, None,
                                                             (("release note", None),)),
                    touched=("a.py",))
    return HistoryRow("0" * 40, "2026-01-01", "subject", Version(2, 9), Version(2, 10), None,
                      (("nova", report),))


def shape(value: Any) -> Any:
    """What a value is, types and order and all, except the order a frozenset happens to
    iterate in (it depends on how it was built and on the hash seed: not contract)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(shape(getattr(value, f.name))
                                         for f in dataclasses.fields(value)))
    if isinstance(value, frozenset):
        return ("frozenset", sorted(repr(shape(item)) for item in value))
    if isinstance(value, dict):
        return ("dict", [(shape(k), shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [shape(item) for item in value])
    return (type(value).__name__, repr(value))


@pytest.mark.parametrize("old,new", [
    (None, "string"),
    ({"type": "string", "enum": ("a", "b")}, {"type": ["string", "null"], "maxLength": 2.5}),
    ({1: "int key", (1, 2): "tuple key", "s": frozenset({1, 2})}, [{"nested": [(), []]}]),
    ({"type": "integer"}, {"~m": "a user's key that looks like a tag", "~r": 1}),
    (float("inf"), -0.0),
])
def test_a_row_comes_back_the_same_through_json(old: Any, new: Any) -> None:
    row = a_row(old, new)
    back = decode(json.loads(json.dumps(encode(row))), HistoryRow)
    assert back == row and shape(back) == shape(row)  # types, order and all
    change = back.reports[0][1].findings[0].change
    assert type(change.old) is type(old) and type(change.new) is type(new)


@pytest.mark.parametrize("value", [object(), {1, 2}, b"bytes", Version, True.__class__])
def test_a_value_with_no_exact_form_is_refused(value: Any) -> None:
    with pytest.raises(UnknownValue):
        encode(a_row(value, None))


def nested(depth: int) -> Any:
    data: Any = "leaf"
    for _ in range(depth):
        data = [data]
    return data


@pytest.mark.parametrize("data", [
    {"~r": "Path", "f": ["/etc/passwd"]},  # no record of the rows
    {"~r": "OpKey", "f": ["GET", "/x"]},  # too few fields
    {"~r": "OpKey", "f": ["GET", "/x", 3]},  # action: str or None
    {"~r": "Location", "f": ["f", True, {"~t": []}, ""]},  # a bool is no line number
    {"~r": "Finding", "f": ["i", "r", "q", "maybe", None, "m", None, False]},  # no verdict
    {"~v": [2, "1"]}, {"~v": [2]}, {"~t": "ab"}, {"~f": [[1]]}, {"~d": [[[1], 2]]},
    {"~x": []}, {}, {"~m": {}, "~t": []}, nested(500),
])
def test_data_it_did_not_write_is_refused(data: Any) -> None:
    with pytest.raises(UnreadableData):
        decode(data, OpKey)


def test_the_record_must_be_the_one_asked_for() -> None:
    with pytest.raises(UnreadableData):
        decode(encode(KEY), HistoryRow)
    assert decode(encode(KEY), OpKey) == KEY
