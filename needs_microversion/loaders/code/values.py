"""The values the static code reader computes besides plain Python data, and its limits.

Plain data (dict, list, tuple, set, str, int, float, bool, None) is held as the Python
objects themselves, so that aliasing and in-place mutation (`x = copy.deepcopy(y)`,
`x['a']['b'] = ...`) behave exactly as they do when the module runs. Everything else the
repository's code would compute is one of the records below: never an object of the
repository's own, never anything that runs.
"""

from __future__ import annotations

import ast
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Every bound keeps a hostile file to Opaque values in bounded time and memory; real
# schema modules stay far below them (nova HEAD: ~200,000 steps for the whole API).
MAX_SOURCE_BYTES = 2 * 2**20  # nova's largest module is ~100 kB
MAX_STRING = 200_000  # characters in one string value
MAX_CONTAINER = 50_000  # items in one list, dict, set or tuple
MAX_DEPTH = 120  # nested expressions, statements and calls, together
MAX_CALL_DEPTH = 12  # interpreted functions calling one another
MAX_CALL_STEPS = 50_000  # steps one interpreted call may take
MAX_STEPS = 2_000_000  # steps of one whole read
MAX_SECONDS = 10.0  # wall time of one whole read
MAX_LOOP = 10_000  # iterations of one `for` or comprehension


@dataclass(frozen=True, eq=False)
class Opaque:
    """A value the reader does not compute: equal only to itself, so two of them never
    compare equal by accident. `file:line` is where it was met, for warnings."""

    reason: str
    file: str
    line: int

    def __repr__(self) -> str:
        return f"<opaque: {self.reason} at {self.file}:{self.line}>"


@dataclass(frozen=True)
class Symbolic:
    """A call to an in-repository helper whose arguments are all known but whose body the
    reader does not run: `<_build_regex_range(ws=False)#1a2b3c4d5e6f>`. The hash covers
    the helper's source (and the same module's functions it names), so the value is equal
    across revisions until that source changes."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, eq=False)
class FunctionValue:
    """A `def` (or lambda), kept as its syntax and the scope it closes over."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    scope: Any  # interpreter.Scope: the enclosing names
    module: Any  # interpreter.Module: where it is written
    name: str
    decorated: bool  # a decorator may change what it does: never interpreted


@dataclass(frozen=True, eq=False)
class ClassValue:
    """A class read as a namespace: its body's names, evaluated on demand."""

    name: str
    namespace: Any  # interpreter.Namespace
    bases: tuple[Any, ...]
    module: Any
    node: ast.ClassDef

    def __repr__(self) -> str:
        return f"<class {self.name}>"


@dataclass(frozen=True, eq=False)
class InstanceValue:
    """An instance of a repository class (`ValidationRegex(regex, reason)`): the attributes
    its `__init__` sets."""

    cls: ClassValue
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ModuleRef:
    """An in-repository module or package, loaded when an attribute is read."""

    path: str  # "nova/api/validation/parameter_types.py" or ".../__init__.py"
    dotted: str


@dataclass(frozen=True)
class External:
    """A module or name from outside the repository (`copy`, `functools`, `oslo_log`)."""

    dotted: str


@dataclass(frozen=True)
class Builtin:
    """A function the reader computes itself (`copy.deepcopy`, `dict`, `sorted`)."""

    name: str
    call: Callable[..., Any] = field(compare=False)


@dataclass(frozen=True, eq=False)
class Partial:
    """`functools.partial(func, *args)`: how nova's routes name a controller."""

    func: Any
    args: tuple[Any, ...]


@dataclass(frozen=True, eq=False)
class BoundMethod:
    """`instance.method` or `container.method`, called later."""

    receiver: Any
    func: Any  # FunctionValue, or the method's name for a container


class BudgetExceeded(Exception):
    """The whole read ran out of steps or time (a hostile or runaway input)."""


class CallFailed(Exception):
    """An interpreted call met something the reader does not run: its caller falls back
    to a symbolic or opaque value."""


@dataclass
class Budget:
    """Steps and wall time for one read, shared by every evaluation of it."""

    steps: int = MAX_STEPS
    deadline: float = field(default_factory=lambda: time.monotonic() + MAX_SECONDS)
    depth: int = 0

    def step(self, count: int = 1) -> None:
        self.steps -= count
        if self.steps < 0:
            raise BudgetExceeded("the evaluation took too many steps")
        if self.steps & 0x3FF == 0 and time.monotonic() > self.deadline:
            raise BudgetExceeded("the evaluation took too long")


def is_concrete(value: Any, budget: int = 10_000) -> bool:
    """True when no Opaque (or other unknown value) is anywhere inside `value`."""
    pending = [value]
    seen: set[int] = set()
    while pending:
        budget -= 1
        if budget < 0:
            return False
        item = pending.pop()
        if isinstance(item, (str, int, float, bool, Symbolic)) or item is None:
            continue
        if isinstance(item, (dict, list, tuple, set, frozenset)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            pending.extend(item.items() if isinstance(item, dict) else item)
            continue
        return False
    return True


def digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
