"""The builtins and outside-the-repository functions the code reader computes itself.

Only these are ever "called": `dict`, `list`, `sorted` and friends on plain values,
`copy.deepcopy`/`copy.copy`, `functools.partial` (kept as a record, never applied), and
`http.HTTPStatus` members and `http.client`'s constants (masakari's status codes). Any
other name from outside the repository (`open`, `__import__`, `os.system`, `eval`) is
unknown, never looked up in Python's own builtins.
"""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any

from needs_microversion.loaders.code.operations import (
    Unknown, checked, deepcopy, items_of, shallow_copy)
from needs_microversion.loaders.code.values import (
    MAX_CONTAINER, Budget, Builtin, External, Partial, Symbolic, is_concrete)

# copied(old, new): the reader's hook to keep where a copied container was written.
Copied = Callable[[Any, Any], None]


def _one(args: list[Any], kwargs: dict[str, Any], name: str) -> Any:
    if kwargs or len(args) != 1:
        raise Unknown(f"{name}() with these arguments")
    return args[0]


def _dict(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> dict[Any, Any]:
    if len(args) > 1:
        raise Unknown("dict() with several arguments")
    result: dict[Any, Any] = {}
    if args:
        source = args[0]
        if isinstance(source, dict):
            result.update(source)
        else:
            for pair in items_of(source):
                if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                    raise Unknown("dict() of something that is not pairs")
                result[_hashable(pair[0])] = pair[1]
    result.update(kwargs)
    return checked(result, budget)


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        raise Unknown("an unhashable key") from None
    return key


def _sequence(kind: type) -> Callable[[list[Any], dict[str, Any], Budget], Any]:
    def build(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> Any:
        if not args and not kwargs:
            return kind()
        items = items_of(_one(args, kwargs, kind.__name__))
        if kind in (set, frozenset):
            items = [_hashable(i) for i in items]
        return checked(kind(items), budget)
    return build


def _sorted(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> list[Any]:
    if set(kwargs) - {"reverse"} or not isinstance(kwargs.get("reverse", False), bool):
        raise Unknown("sorted() with a key")
    items = items_of(_one(args, {}, "sorted"))
    if not is_concrete(items) or any(isinstance(i, Symbolic) for i in items):
        raise Unknown("sorted() of unknown values")
    try:
        return checked(sorted(items, reverse=kwargs.get("reverse", False)), budget)
    except TypeError:
        raise Unknown("sorted() of values that do not compare") from None


def _len(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> int:
    value = _one(args, kwargs, "len")
    if isinstance(value, (str, list, tuple, dict, set, frozenset)):
        return len(value)
    raise Unknown("len() of an unknown value")


def _scalar(kind: type) -> Callable[[list[Any], dict[str, Any], Budget], Any]:
    def convert(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> Any:
        if not args and not kwargs:
            return kind()
        value = _one(args, kwargs, kind.__name__)
        if isinstance(value, Symbolic) and kind is str:
            return value
        if not isinstance(value, (str, int, float, bool)) and value is not None:
            raise Unknown(f"{kind.__name__}() of an unknown value")
        if isinstance(value, str) and kind is int and not (value.strip().lstrip("+-").isdigit()
                                                           and len(value) < 30):
            raise Unknown("int() of a string that is no short number")
        try:
            return checked(kind(value), budget)
        except (TypeError, ValueError, OverflowError):
            raise Unknown(f"{kind.__name__}() fails on this value") from None
    return convert


def _extreme(pick: Callable[..., Any]) -> Callable[[list[Any], dict[str, Any], Budget], Any]:
    def choose(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> Any:
        items = items_of(args[0]) if len(args) == 1 else args
        if kwargs or not items or not is_concrete(items):
            raise Unknown("min()/max() with these arguments")
        try:
            return pick(items)
        except TypeError:
            raise Unknown("min()/max() of values that do not compare") from None
    return choose


def _range(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> range:
    if kwargs or not 1 <= len(args) <= 3 or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise Unknown("range() with these arguments")
    found = range(*args)
    if len(found) > MAX_CONTAINER:
        raise Unknown("a range too long")
    return found


def _zip(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> list[Any]:
    if kwargs:
        raise Unknown("zip() with keywords")
    return checked(list(zip(*(items_of(a) for a in args), strict=False)), budget)


def _enumerate(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> list[Any]:
    return checked(list(enumerate(items_of(_one(args, kwargs, "enumerate")))), budget)


def _truths(pick: Callable[..., bool]) -> Callable[[list[Any], dict[str, Any], Budget], bool]:
    def test(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> bool:
        items = items_of(_one(args, kwargs, pick.__name__))
        if not all(isinstance(i, (str, int, float, bool)) or i is None for i in items):
            raise Unknown(f"{pick.__name__}() of unknown values")
        return pick(items)
    return test


def _reversed(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> list[Any]:
    return list(reversed(items_of(_one(args, kwargs, "reversed"))))


def _sum(args: list[Any], kwargs: dict[str, Any], budget: Budget) -> Any:
    items = items_of(_one(args, kwargs, "sum"))
    if not all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in items):
        raise Unknown("sum() of values that are not numbers")
    return checked(sum(items), budget)


_FUNCTIONS: dict[str, Callable[[list[Any], dict[str, Any], Budget], Any]] = {
    "dict": _dict, "list": _sequence(list), "tuple": _sequence(tuple), "set": _sequence(set),
    "frozenset": _sequence(frozenset), "sorted": _sorted, "len": _len, "str": _scalar(str),
    "int": _scalar(int), "float": _scalar(float), "bool": _scalar(bool), "min": _extreme(min),
    "max": _extreme(max), "range": _range, "zip": _zip, "enumerate": _enumerate,
    "any": _truths(any), "all": _truths(all), "reversed": _reversed, "sum": _sum,
}
BUILTIN_NAMES = frozenset(_FUNCTIONS) | {"object"}


def builtin(name: str, budget: Budget) -> Any:
    """A name no module defines: one of the allowed builtins, else unknown."""
    if name == "object":
        return External("builtins.object")
    found = _FUNCTIONS.get(name)
    if found is None:
        raise Unknown(f"the name '{name}' (not defined, or a builtin the reader does not run)")
    return Builtin(name, lambda args, kwargs: found(args, kwargs, budget))


def external_attribute(module: External, name: str, budget: Budget, copied: Copied) -> Any:
    """An attribute of a module from outside the repository: the few the reader computes,
    else another External (unknown when called or used as data)."""
    dotted = f"{module.dotted}.{name}"
    if dotted in ("copy.deepcopy", "copy.copy"):
        deep = dotted == "copy.deepcopy"
        return Builtin(dotted, lambda args, kwargs: (
            deepcopy(_one(args, kwargs, dotted), budget, copied) if deep
            else shallow_copy(_one(args, kwargs, dotted))))
    if dotted == "functools.partial":
        return Builtin(dotted, _partial)
    if module.dotted in _STATUS_MODULES and name in http.HTTPStatus.__members__:
        return int(http.HTTPStatus[name])
    return External(dotted)


# Where the standard library names status codes: `http.HTTPStatus.NOT_FOUND`, and the module
# constants of `http.client` (`six.moves.http_client` is that module: masakari before 2020).
_STATUS_MODULES = frozenset({"http.HTTPStatus", "http.client", "six.moves.http_client"})


def _partial(args: list[Any], kwargs: dict[str, Any]) -> Partial:
    if not args or kwargs:
        raise Unknown("functools.partial() with these arguments")
    return Partial(args[0], tuple(args[1:]))
