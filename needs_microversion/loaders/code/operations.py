"""What the code reader computes on plain values: operators, comparisons, string
formatting, the methods of dict/list/set/str, a bounded deepcopy, and the few builtins it
allows.

Every function here either returns a value within the size limits of `values.py` or
raises `Unknown`; none calls back into the repository's code (the interpreter passes a
`call` for the builtins that take a function, such as `sorted(key=...)`, which it does not
allow anyway).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from needs_microversion.loaders.code.values import (
    MAX_CONTAINER, MAX_LOOP, MAX_STRING, Budget, Symbolic, is_concrete)

_PLAIN_TYPES = (str, int, float, bool, type(None), Symbolic)
# `%s`, `%d`, `%(name)s` and `%%` only: a width (`%999999999s`) could build a gigabyte.
_PLAIN_PERCENT = re.compile(r"^(?:[^%]|%(?:\([A-Za-z_][A-Za-z_0-9]*\))?[sdir]|%%)*$")
_PLAIN_FORMAT = re.compile(r"^(?:[^{}]|\{[A-Za-z_0-9]*(?:![rs])?\}|\{\{|\}\})*$")
_MAX_INT_BITS = 256
_SCALARS = frozenset({str, int, float, bool, type(None)})
_COPIED = frozenset({dict, list, set, tuple})
_MUTATORS = frozenset({"update", "append", "extend", "pop", "remove", "setdefault", "insert",
                       "clear", "add", "discard", "popitem", "sort", "reverse", "difference_update",
                       "intersection_update"})


T = TypeVar("T")


class Unknown(Exception):
    """The reader does not compute this: the expression becomes an Opaque value."""


def is_mutator(name: str) -> bool:
    return name in _MUTATORS


def checked(value: T, budget: Budget) -> T:
    """The value if it is within the size limits; the steps it cost are charged."""
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise Unknown(f"a string longer than {MAX_STRING} characters")
        budget.step(len(value) // 16)
    elif isinstance(value, (list, tuple, dict, set, frozenset)):
        if len(value) > MAX_CONTAINER:
            raise Unknown(f"a container of more than {MAX_CONTAINER} items")
        budget.step(len(value))
    elif isinstance(value, int) and not isinstance(value, bool) \
            and value.bit_length() > _MAX_INT_BITS:
        raise Unknown("an integer too large")
    return value


def fits(value: T) -> T:
    """The value if a container within the size limit (an edited one: its steps were
    charged as it grew)."""
    if isinstance(value, (list, dict, set)) and len(value) > MAX_CONTAINER:
        raise Unknown(f"a container of more than {MAX_CONTAINER} items")
    return value


def truth(value: Any) -> bool:
    if isinstance(value, (*_PLAIN_TYPES, list, tuple, dict, set, frozenset)) \
            and not isinstance(value, Symbolic):
        return bool(value)
    raise Unknown("the truth of an unknown value")


def items_of(value: Any) -> list[Any]:
    """What `for x in value` goes through, in a deterministic order (a set of strings is
    sorted: its own order depends on the hash seed)."""
    if isinstance(value, (list, tuple)):
        found = list(value)
    elif isinstance(value, dict):
        found = list(value)
    elif isinstance(value, (set, frozenset)):
        found = _ordered(value)
    elif isinstance(value, str):
        found = list(value)
    elif isinstance(value, range):
        if len(value) > MAX_LOOP:
            raise Unknown("a range too long")
        found = list(value)
    else:
        raise Unknown("iterating over an unknown value")
    if len(found) > MAX_LOOP:
        raise Unknown(f"a loop of more than {MAX_LOOP} items")
    return found


def _ordered(value: set[Any] | frozenset[Any]) -> list[Any]:
    try:
        return sorted(value)
    except TypeError:
        return sorted(value, key=repr)


# -- operators ------------------------------------------------------------------------------
_ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Mod: operator.mod,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}


def binary(op: ast.operator, left: Any, right: Any, budget: Budget) -> Any:
    """`left op right` on plain values, bounded before it is computed."""
    if isinstance(left, Symbolic) or isinstance(right, Symbolic):
        return _symbolic_binary(op, left, right, budget)
    kind = type(op)
    if _joins(kind, left, right):  # a concatenation never looks at the items
        if len(left) + len(right) > MAX_CONTAINER:
            raise Unknown("a concatenation too long")
        return checked(left | right if isinstance(left, dict) else left + right, budget)
    if kind not in _ARITHMETIC or not (is_concrete(left) and is_concrete(right)):
        raise Unknown(f"the operator {kind.__name__}")
    if kind is ast.Mod and isinstance(left, str):
        return checked(percent(left, right), budget)
    if kind is ast.Mult:
        _check_repeat(left, right)
    if kind is ast.Add and isinstance(left, (str, list, tuple)) and type(left) is type(right):
        if len(left) + len(right) > (MAX_STRING if isinstance(left, str) else MAX_CONTAINER):
            raise Unknown("a concatenation too long")
    try:
        return checked(_ARITHMETIC[kind](left, right), budget)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        raise Unknown(f"the operator {kind.__name__} on these values") from None


def _joins(kind: type[ast.operator], left: Any, right: Any) -> bool:
    return type(left) is type(right) and (
        (kind is ast.Add and isinstance(left, (list, tuple)))
        or (kind is ast.BitOr and isinstance(left, dict)))


def _symbolic_binary(op: ast.operator, left: Any, right: Any, budget: Budget) -> Any:
    """A helper's unknown string spliced into a known one (`'^[%s]*$' % _build(...)`):
    the result is the known text around the helper's symbol, equal across revisions."""
    if isinstance(op, ast.Add) and all(isinstance(v, (str, Symbolic)) for v in (left, right)):
        return checked(str(left) + str(right), budget)
    if isinstance(op, ast.Mod) and isinstance(left, str):
        return checked(percent(left, _stringified(right)), budget)
    raise Unknown("an operator on a helper's result")


def _stringified(value: Any) -> Any:
    if isinstance(value, Symbolic):
        return str(value)
    if isinstance(value, tuple):
        return tuple(_stringified(v) for v in value)
    if isinstance(value, dict):
        return {k: _stringified(v) for k, v in value.items()}
    return value


def _check_repeat(left: Any, right: Any) -> None:
    for seq, times in ((left, right), (right, left)):
        if isinstance(seq, (str, list, tuple)) and isinstance(times, int):
            limit = MAX_STRING if isinstance(seq, str) else MAX_CONTAINER
            if len(seq) * max(times, 0) > limit:
                raise Unknown("a repetition too long")


def percent(template: str, args: Any) -> str:
    if not _PLAIN_PERCENT.match(template):
        raise Unknown("a % format with a width or precision")
    if not is_concrete(args):
        raise Unknown("a % format of unknown values")
    try:
        return template % (_stringified(args) if isinstance(args, (tuple, dict)) else str(args)
                           if isinstance(args, Symbolic) else args)
    except (TypeError, ValueError, KeyError):
        raise Unknown("a % format that fails") from None


def str_format(template: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    if not _PLAIN_FORMAT.match(template):
        raise Unknown("a str.format with a format spec")
    if not is_concrete([args, kwargs]):
        raise Unknown("a str.format of unknown values")
    try:
        return template.format(*_stringified(tuple(args)), **_stringified(kwargs))
    except (IndexError, KeyError, ValueError, AttributeError):
        raise Unknown("a str.format that fails") from None


def unary(op: ast.unaryop, operand: Any) -> Any:
    if isinstance(op, ast.Not):
        return not truth(operand)
    if isinstance(operand, (int, float)) and not isinstance(operand, bool):
        if isinstance(op, ast.USub):
            return -operand
        if isinstance(op, ast.UAdd):
            return operand
        if isinstance(op, ast.Invert) and isinstance(operand, int):
            return ~operand
    raise Unknown(f"the operator {type(op).__name__}")


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}


def compare(op: ast.cmpop, left: Any, right: Any) -> bool:
    if not (is_concrete(left) and is_concrete(right)):
        raise Unknown("a comparison with an unknown value")
    if isinstance(op, (ast.Is, ast.IsNot)) and not (left is None or right is None
                                                     or isinstance(left, bool)):
        raise Unknown("an identity comparison")
    try:
        return bool(_COMPARE[type(op)](left, right))
    except (TypeError, RecursionError):
        raise Unknown("a comparison of these values") from None


# -- copies -------------------------------------------------------------------------------
def deepcopy(value: Any, budget: Budget, copied: Callable[[Any, Any], None]) -> Any:
    """`copy.deepcopy` of plain data, aliasing kept (a dict used twice is copied once);
    anything else inside is shared, as the reader never mutates it. `copied(old, new)` is
    told of every container copied (the reader keeps where each was written)."""
    memo: dict[int, Any] = {}

    def copy(item: Any, depth: int) -> Any:
        if depth > 100:
            raise Unknown("data nested too deeply to copy")
        kind = type(item)
        if kind not in _COPIED:
            return item
        if id(item) in memo:
            return memo[id(item)]
        budget.step(len(item) + 1)
        result: Any
        if kind is dict:
            result = memo[id(item)] = {}
            for key, inner in item.items():
                result[key] = inner if type(inner) in _SCALARS else copy(inner, depth + 1)
        elif kind is list:
            result = memo[id(item)] = []
            result.extend(inner if type(inner) in _SCALARS else copy(inner, depth + 1)
                          for inner in item)
        elif kind is set:
            result = memo[id(item)] = set(item)
        else:
            result = memo[id(item)] = tuple(copy(inner, depth + 1) for inner in item)
        copied(item, result)
        return result

    return copy(value, 0)


def shallow_copy(value: Any) -> Any:
    if isinstance(value, (dict, list, set)):
        return value.copy()
    return value


# -- methods of plain values -----------------------------------------------------------------
def call_method(receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any],
                budget: Budget) -> Any:
    """`receiver.name(*args, **kwargs)` for dict, list, set and str receivers."""
    budget.step()
    if isinstance(receiver, str) and name == "format":
        return checked(str_format(receiver, args, kwargs), budget)
    if kwargs and not (isinstance(receiver, dict) and name == "update"):
        raise Unknown(f"keyword arguments to .{name}()")
    handlers = _METHODS.get(type(receiver), {})
    handler = handlers.get(name)
    if handler is None:
        raise Unknown(f".{name}() of a {type(receiver).__name__}")
    try:
        result = handler(receiver, *args, **kwargs)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError):
        raise Unknown(f".{name}() fails on these values") from None
    fits(receiver)
    return checked(result, budget)


def _join(sep: str, items: Iterable[Any]) -> str:
    parts = [str(i) if isinstance(i, Symbolic) else i for i in items_of(items)]
    if sum(len(p) for p in parts if isinstance(p, str)) > MAX_STRING:
        raise Unknown("a join too long")
    return sep.join(parts)


def _update(target: dict[Any, Any], *args: Any, **kwargs: Any) -> None:
    for arg in args:
        if not isinstance(arg, dict) and not (isinstance(arg, list) and all(
                isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in arg)):
            raise Unknown("dict.update() of an unknown value")
    if len(target) + sum(len(a) for a in args) + len(kwargs) > MAX_CONTAINER:
        raise Unknown("a dict too large")
    target.update(*args, **kwargs)


def _extend(target: list[Any], items: Any) -> None:
    found = items_of(items)
    if len(target) + len(found) > MAX_CONTAINER:
        raise Unknown("a list too long")
    target.extend(found)


def _str_method(name: str) -> Callable[..., Any]:
    method = getattr(str, name)

    def call(text: str, *args: Any) -> Any:
        if not all(isinstance(a, (str, int)) or a is None for a in args):
            raise Unknown(f"str.{name}() of unknown values")
        if name == "replace" and len(args) >= 2 and isinstance(args[1], str) \
                and len(args[1]) > 1 and len(text) * len(args[1]) > MAX_STRING:
            raise Unknown("a replace that may grow too long")
        return method(text, *args)

    return call


_METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    dict: {"get": dict.get, "keys": lambda d: list(d.keys()), "values": lambda d: list(
        d.values()), "items": lambda d: list(d.items()), "copy": dict.copy, "update": _update,
        "pop": dict.pop, "setdefault": dict.setdefault, "clear": dict.clear,
        "popitem": dict.popitem},
    list: {"append": list.append, "extend": _extend, "pop": list.pop, "remove": list.remove,
           "index": list.index, "count": list.count, "copy": list.copy, "insert": list.insert,
           "clear": list.clear, "reverse": list.reverse},
    set: {"add": set.add, "discard": set.discard, "remove": set.remove, "copy": set.copy,
          "union": set.union, "difference": set.difference, "update": set.update,
          "intersection": set.intersection},
    tuple: {"index": tuple.index, "count": tuple.count},
    str: {"join": _join, **{n: _str_method(n) for n in (
        "lower", "upper", "strip", "lstrip", "rstrip", "split", "replace", "startswith",
        "endswith", "title", "capitalize")}},
}
