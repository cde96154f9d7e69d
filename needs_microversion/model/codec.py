"""Records to plain JSON data and back, exactly: a history row judged in an earlier run is
read back as the same record the judging made (the same output, whichever made it).

    data = encode(row)                      # JSON-ready data; UnknownValue if a value has
                                            # no exact form (then nothing is kept)
    row = decode(data, HistoryRow)          # the record; UnreadableData for anything odd

A cache entry is data someone else may have written (a CI cache restored from another run):
reading one builds only the records named here, from plain values, and runs nothing else
(no pickle, no import by name). Every value keeps its type: a tuple stays a tuple, a
frozenset a frozenset, a Version a Version, a dict with any keys keeps them and their order.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Literal, TypeVar, Union

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.history import HistoryRow
from needs_microversion.model.snapshot import Location, OpKey
from needs_microversion.model.verdict import Bookkeeping, Claim, Finding, Report
from needs_microversion.model.versions import Version

# The records a judged row holds, by the name their data carries.
_RECORDS: dict[str, type] = {cls.__name__: cls for cls in (
    HistoryRow, Report, Finding, Claim, Bookkeeping, Change, Correction, Location, OpKey)}
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in _RECORDS.values()}
# A value that is not a bare JSON value is an object with one of these keys.
_RECORD, _TUPLE, _FROZENSET, _VERSION, _MAP, _PAIRS = "~r", "~t", "~f", "~v", "~m", "~d"
_MAX_DEPTH = 200  # deeper than any schema the loaders accept

T = TypeVar("T")


class UnknownValue(ValueError):
    """A value with no exact form here (an object of another type)."""


class UnreadableData(ValueError):
    """Data that is not what `encode` writes."""


def encode(value: Any, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise UnknownValue("nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and type(value) in (int, float):
        return value
    if isinstance(value, Version):  # before tuple: a Version is one
        return {_VERSION: [value.major, value.minor]}
    if type(value) in _FIELDS:
        return {_RECORD: type(value).__name__,
                "f": [encode(getattr(value, name), depth + 1) for name in _FIELDS[type(value)]]}
    if type(value) is tuple:
        return {_TUPLE: [encode(item, depth + 1) for item in value]}
    if type(value) is list:
        return [encode(item, depth + 1) for item in value]
    if type(value) is frozenset:
        return {_FROZENSET: [encode(item, depth + 1) for item in value]}
    if type(value) is dict:
        if all(type(key) is str for key in value):
            return {_MAP: {key: encode(item, depth + 1) for key, item in value.items()}}
        return {_PAIRS: [[encode(key, depth + 1), encode(item, depth + 1)]
                         for key, item in value.items()]}
    raise UnknownValue(f"no exact form for a {type(value).__name__}")


def decode(data: Any, expected: type[T]) -> T:
    """The record `data` encodes, which must be an `expected`."""
    value = _decode(data, 0)
    if type(value) is not expected:
        raise UnreadableData(f"not a {expected.__name__}")
    return value


def _decode(data: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise UnreadableData("nested too deeply")
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return [_decode(item, depth + 1) for item in data]
    if not isinstance(data, dict) or not data:
        raise UnreadableData("not a value encode writes")
    tag = next(iter(data))
    body = data[tag]
    if tag == _RECORD and len(data) == 2:
        return _record(body, data.get("f"), depth)
    if len(data) != 1:
        raise UnreadableData("not a value encode writes")
    if tag == _MAP and isinstance(body, dict):
        return {key: _decode(item, depth + 1) for key, item in body.items()}
    if not isinstance(body, list):
        raise UnreadableData("not a value encode writes")
    if tag == _TUPLE:
        return tuple(_decode(item, depth + 1) for item in body)
    if tag == _FROZENSET:
        return frozenset(_hashable(_decode(item, depth + 1)) for item in body)
    if tag == _VERSION and len(body) == 2 and all(type(part) is int for part in body):
        return Version(*body)
    if tag == _PAIRS and all(isinstance(pair, list) and len(pair) == 2 for pair in body):
        return {_hashable(_decode(key, depth + 1)): _decode(item, depth + 1)
                for key, item in body}
    raise UnreadableData("not a value encode writes")


def _record(name: Any, values: Any, depth: int) -> Any:
    cls = _RECORDS.get(name) if isinstance(name, str) else None
    if cls is None or not isinstance(values, list) or len(values) != len(_FIELDS[cls]):
        raise UnreadableData(f"not a record encode writes: {name!r}")
    fields = dict(zip(_FIELDS[cls], (_decode(value, depth + 1) for value in values),
                      strict=True))
    hints = _hints(cls)
    for name, value in fields.items():
        if not _conforms(value, hints[name]):
            raise UnreadableData(f"{name} of {cls.__name__} is not a {hints[name]}")
    return cls(**fields)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _conforms(value: Any, hint: Any) -> bool:
    """Whether `value` is of the type its field declares: a record built from data holds
    what its code expects, or is not built."""
    if hint is Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return any(_conforms(value, arg) for arg in args)
    if origin is Literal:
        return value in args and type(value) in (str, int, bool)
    if origin is tuple:
        if type(value) is not tuple:
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(item, args[0]) for item in value)
        return len(value) == len(args) and all(
            _conforms(item, arg) for item, arg in zip(value, args, strict=True))
    if origin is frozenset:
        return type(value) is frozenset and all(_conforms(item, args[0]) for item in value)
    if hint is type(None):
        return value is None
    if hint is int:
        return type(value) is int
    return type(value) is hint


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        raise UnreadableData("a key that cannot be one") from None
    return value
