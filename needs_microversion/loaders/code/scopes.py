"""Where names live while the code reader evaluates: function scopes, and the lazily
evaluated namespaces of module and class bodies.

A module body is not run top to bottom when it is loaded. A name bound once by a plain
statement (an import, `x = ...`, a `def` or a `class`) and never changed afterwards is
evaluated on its own the first time it is looked up: a controller module's decorators need
a handful of its names, not its whole body (the views, the configuration, the logging it
sets up). A name bound twice, or changed in place (`x['a'] = 1`, `x.update(...)`, a loop,
an `if`), makes the whole body run in order, once, as Python would: schema modules that
copy and edit their dicts are evaluated exactly.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from needs_microversion.loaders.code.operations import is_mutator

MISSING: Any = object()
_BINDING = (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom, ast.FunctionDef,
            ast.AsyncFunctionDef, ast.ClassDef)
_UNALIASED = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LAZY, _RUNNING, _DONE = "lazy", "running", "done"


@dataclass(frozen=True)
class Module:
    """A repository module: its path, dotted name and body (None: unreadable, and why)."""

    path: str
    dotted: str
    tree: ast.Module | None
    reason: str = ""


class Scope:
    """The names visible at one point: own names (or a namespace), then the enclosing."""

    def __init__(self, module: Module, parent: Scope | None = None,
                 namespace: Namespace | None = None) -> None:
        self.module = module
        self.parent = parent
        self.namespace = namespace
        self.names: dict[str, Any] = {}
        # Where bindings go: a lazily evaluated statement binds into a scratch dict first.
        self.writes: dict[str, Any] = namespace.names if namespace is not None else self.names

    def find(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if scope.namespace is not None:
                found = scope.namespace.get(name)
            else:
                found = scope.names.get(name, MISSING)
            if found is not MISSING:
                return found
            scope = scope.parent
        return MISSING

    def bind(self, name: str, value: Any) -> None:
        self.writes[name] = value

    def unbind(self, name: str) -> None:
        self.writes.pop(name, None)

    def child(self) -> Scope:
        """A scope for a function call or a comprehension, inside this one."""
        return Scope(self.module, self)


class Namespace:
    """A module or class body whose names are evaluated on demand (see the module doc)."""

    def __init__(self, body: list[ast.stmt], module: Module, outer: Scope | None,
                 run: Callable[[ast.stmt, Scope], None]) -> None:
        self.names: dict[str, Any] = {}
        self.body = body
        self.module = module
        self.scope = Scope(module, outer, self)
        self._run = run
        self._state = _LAZY
        self._simple, self._bound, self._star = _analysed(body)
        self._evaluated: set[int] = set()  # ids of statements evaluated lazily
        self._pending: set[int] = set()  # ... and being evaluated (an import cycle)

    def get(self, name: str) -> Any:
        if name in self.names:
            return self.names[name]
        if self._state != _LAZY:
            return MISSING
        statement = self._simple.get(name)
        if statement is not None:
            if id(statement) in self._pending:  # `from pkg.mod import x` inside pkg/mod.py
                return MISSING
            self._pending.add(id(statement))
            try:
                self._evaluate_one(statement)
            finally:
                self._pending.discard(id(statement))
            if name in self.names or self._state != _LAZY:
                return self.names.get(name, MISSING)
        if name in self._bound or self._star:
            self.run_all()
        return self.names.get(name, MISSING)

    def bound(self, name: str) -> bool:
        """Whether the body binds `name` anywhere (without evaluating anything)."""
        return name in self._bound or name in self.names

    def run_all(self) -> None:
        """Run the whole body in order, once; names already evaluated alone are kept."""
        if self._state != _LAZY:
            return
        self._state = _RUNNING
        try:
            for statement in self.body:
                if id(statement) not in self._evaluated:
                    self._run(statement, self.scope)
        finally:
            self._state = _DONE

    def _evaluate_one(self, statement: ast.stmt) -> None:
        scratch = Scope(self.module, self.scope.parent, self)
        scratch.writes = {}
        self._run(statement, scratch)
        # A name it read that only the whole body gives ran the whole body meanwhile
        # (`y = x` with x bound twice): then this statement ran in its place, in order, and
        # what it computed alone is dropped.
        if self._state == _LAZY:
            self.names.update(scratch.writes)
            self._evaluated.add(id(statement))


# Parsed trees are shared by every read of the process (source.py), and so is what this
# module finds in their bodies: id(body) -> (body, finding); the body is kept alive so its
# id stays its own.
_ANALYSED: dict[int, tuple[list[ast.stmt], tuple[dict[str, ast.stmt], set[str], bool]]] = {}
_MAX_ANALYSED = 20_000


def _analysed(body: list[ast.stmt]) -> tuple[dict[str, ast.stmt], set[str], bool]:
    hit = _ANALYSED.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    if len(_ANALYSED) > _MAX_ANALYSED:
        _ANALYSED.clear()
    found = _analyse(body)
    _ANALYSED[id(body)] = (body, found)
    return found


def _analyse(body: list[ast.stmt]) -> tuple[dict[str, ast.stmt], set[str], bool]:
    """(names bound once by a plain statement and never changed, every bound name, whether
    a star import may bind anything)."""
    counts: dict[str, int] = {}
    first: dict[str, ast.stmt] = {}
    changed: set[str] = set()
    star = False
    plain_imports: set[str] = set()  # `import nova.conf` and `import nova.api`: one `nova`
    for statement in body:
        for name in binds(statement):
            if isinstance(statement, ast.Import) and name in plain_imports:
                continue
            counts[name] = counts.get(name, 0) + 1
            first.setdefault(name, statement)
        if isinstance(statement, ast.Import):
            plain_imports.update(a.name.split(".")[0] for a in statement.names
                                 if a.asname is None)
        if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
            star = True
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            changed.update(changed_names(statement))
    # An edit through an alias (`name = x['a']; name['b'] = 1` changes x) is invisible to
    # this syntactic look: in a body that edits anything in place, only imports, functions
    # and classes are evaluated alone.
    kinds = _BINDING if not changed else _UNALIASED
    simple: dict[str, ast.stmt] = {name: stmt for name, stmt in first.items()
                                   if counts[name] == 1 and name not in changed
                                   and isinstance(stmt, kinds)}
    return simple, set(counts), star


def binds(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds (in any of its blocks, not in functions)."""
    found: list[str] = []
    for node in _statements(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.extend((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        else:
            for target in _targets(node):
                found.extend(_stored_names(target))
    return found


def changed_names(statement: ast.stmt) -> set[str]:
    """Names a statement changes in place: `x[...] = `, `x.a = `, `x += `, `del x[...]`,
    `x.update(...)`, or passes to a call whose result it drops (`helper(x)` may edit x)."""
    found: set[str] = set()
    for node in _statements(statement):
        if isinstance(node, ast.AugAssign):
            found.update(_root_names(node.target))
        for target in _targets(node):
            for part in _unpacked(target):
                if isinstance(part, (ast.Subscript, ast.Attribute)):
                    found.update(_root_names(part))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Attribute) and is_mutator(call.func.attr):
                found.update(_root_names(call.func.value))
            for arg in [*call.args, *(k.value for k in call.keywords)]:
                found.update(_root_names(arg))
    return found


def _statements(statement: ast.stmt) -> list[ast.stmt]:
    """The statement and those of its blocks (an `if`, a `for`, a `try`), not entering
    functions or classes, nor expressions (nothing binds a module name inside a literal)."""
    found: list[ast.stmt] = []
    pending = [statement]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            pending.extend(getattr(node, name, []))
        for handler in getattr(node, "handlers", []):
            pending.extend(handler.body)
    return found


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _unpacked(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [part for elt in target.elts for part in _unpacked(elt)]
    if isinstance(target, ast.Starred):
        return _unpacked(target.value)
    return [target]


def _stored_names(target: ast.expr) -> list[str]:
    return [part.id for part in _unpacked(target) if isinstance(part, ast.Name)]


def _root_names(node: ast.expr) -> list[str]:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return [node.id] if isinstance(node, ast.Name) else []
