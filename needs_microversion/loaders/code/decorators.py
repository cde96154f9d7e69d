"""A controller class's methods and actions, read from their decorators.

nova (and masakari) declare the contract on each method:

| decorator | declares |
| --- | --- |
| `@wsgi.api_version(lo, hi)` | the method's microversions (nova 2025-06 on) |
| `@wsgi.Controller.api_version(lo, hi)` | one of several same-named methods' range (earlier) |
| `@wsgi.expected_errors(codes, lo, hi)` | error codes (`extensions.expected_errors` in masakari) |
| `@wsgi.response(code, lo, hi)` | the success code |
| `@wsgi.action('name')` | an action, reached by `POST .../action` with `{"name": ...}` |
| `@wsgi.removed('release', reason)` | gone: every call answers 410 |
| `@validation.schema(s, lo, hi)` | the request body schema |
| `@validation.query_schema(s, lo, hi)` | the query string schema |
| `@validation.response_body_schema(s, lo, hi)` | the response body schema |

manila (and ironic) spell two of them `@validation.request_body_schema(s, lo, hi)` and
`@validation.request_query_schema(s, lo, hi)`; manila's `@wsgi.Controller.api_version(lo,
hi, experimental)` may mark a range experimental (still served: read as a range), and
ironic's `@validation.api_version(min_version=lo, message=...)` says what a 404 says.
ironic writes a bound as the minor version alone (`59`: 1.59). zun's
`@validation.validated(s)` is the request body schema and
`@validation.validate_query_param(request, s)` the query schema, at every version.

Decorator arguments are evaluated in the controller module (names, constants such as
`UUID_FOR_ID_MIN_VERSION`, `schema.create_v20` through its import); nothing runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.records import (
    Declared, Implementation, Unread, by_version, range_key)
from needs_microversion.loaders.code.scopes import Scope
from needs_microversion.loaders.code.values import ClassValue, Opaque
from needs_microversion.model.versions import ALL, Version, VersionRange, parse_version

# Each decorator's parameters in order (the first names of a pair are nova's, the second
# masakari's or older spellings).
_PARAMETERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "api_version": (("min_version", "min_ver"), ("max_version", "max_ver"),
                    ("experimental", "message"), ("exception_class",)),
    "expected_errors": (("errors",), ("min_version",), ("max_version",)),
    "response": (("code",), ("min_version",), ("max_version",)),
    "action": (("name",),),
    "removed": (("version",), ("reason",)),
    "schema": (("request_body_schema",), ("min_version",), ("max_version",)),
    "query_schema": (("request_query_schema", "query_params_schema"), ("min_version",),
                     ("max_version",)),
    "response_body_schema": (("response_body_schema",), ("min_version",), ("max_version",)),
    # zun's: the request first, then the query schema (no version bounds)
    "validate_query_param": (("req",), ("query_param_schema",)),
}
_VERSIONED = "Controller.api_version"  # the older versioned methods
# Other spellings of a decorator (manila's), read as the one named.
_ALIASES = {"request_body_schema": "schema", "request_query_schema": "query_schema",
            "validated": "schema"}


@dataclass
class _Reading:
    """What one `def`'s decorators declare, gathered before sorting."""

    versions: VersionRange = ALL
    # `@wsgi.Controller.api_version`: each one registers the method for its range (a
    # method decorated twice serves both ranges, as nova 31.0.0's console tokens show).
    versioned: list[VersionRange] = field(default_factory=list)
    found: dict[str, list[Declared]] = field(default_factory=dict)
    removed: str | None = None
    action: str | None = None


class ControllerReader:
    """Reads controller classes (and their bases) through one interpreter."""

    def __init__(self, interp: Interpreter, unread: list[Unread],
                 int_major: int | None = None) -> None:
        self.interp = interp
        self.unread = unread
        # ironic writes a bound as the minor version alone (`59`: 1.59): the major it has.
        self.int_major = int_major
        self._cache: dict[tuple[int, str], tuple[Implementation, ...]] = {}
        self._readings: dict[int, _Reading] = {}

    def implementations(self, cls: ClassValue, name: str) -> tuple[Implementation, ...]:
        """The methods serving `cls.name`: several for versioned methods, else the last
        `def` of that name in the first class of the MRO that has one; () when none."""
        key = (id(cls), name)
        if key not in self._cache:
            self._cache[key] = self._implementations(cls, name)
        return self._cache[key]

    def _implementations(self, cls: ClassValue, name: str) -> tuple[Implementation, ...]:
        for klass in self.interp.mro(cls):
            if not isinstance(klass, ClassValue):
                continue
            defs = [node for node in klass.node.body
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and node.name == name]
            if not defs:
                continue
            readings = [(node, self._read(klass, node)) for node in defs]
            versioned = [(node, r) for node, r in readings if r.versioned]
            found = [self._implementation(klass, node, reading, versions)
                     for node, reading in versioned for versions in reading.versioned]
            if not found:
                node, reading = readings[-1]
                found = [self._implementation(klass, node, reading, reading.versions)]
            return tuple(sorted(found, key=lambda i: (range_key(i.versions), i.location)))
        return ()

    def actions(self, cls: ClassValue) -> dict[str, tuple[ClassValue, str]]:
        """`{action name: (class, method name)}` as nova's metaclass builds it: the bases'
        actions first, then the class's own (the last `def` of each name counts)."""
        found: dict[str, tuple[ClassValue, str]] = {}
        # The method is then looked up on `cls` (a subclass may override it).
        for klass in reversed(self.interp.mro(cls)):
            if not isinstance(klass, ClassValue):
                continue
            last = {node.name: node for node in klass.node.body
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for name, node in last.items():
                action = self._read(klass, node).action
                if action is not None:
                    found[action] = (cls, name)
        return found

    def defines(self, cls: ClassValue, name: str) -> bool:
        return any(isinstance(klass, ClassValue) and any(
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
            for node in klass.node.body) for klass in self.interp.mro(cls))

    def _implementation(self, cls: ClassValue, node: ast.FunctionDef | ast.AsyncFunctionDef,
                        reading: _Reading, versions: VersionRange) -> Implementation:
        def take(kind: str) -> tuple[Declared, ...]:
            return by_version(reading.found.get(kind, []))

        return Implementation(
            versions=versions, method=f"{cls.module.dotted}.{cls.name}.{node.name}",
            location=f"{cls.module.path}:{node.lineno}", requests=take("schema"),
            queries=take("query_schema"), responses=take("response_body_schema"),
            errors=take("expected_errors"), codes=take("response"), removed=reading.removed,
            action=reading.action)

    # -- one def ----------------------------------------------------------------------
    def _read(self, cls: ClassValue, node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Reading:
        if id(node) not in self._readings:
            self._readings[id(node)] = self._read_decorators(cls, node)
        return self._readings[id(node)]

    def _read_decorators(self, cls: ClassValue, node: ast.FunctionDef | ast.AsyncFunctionDef
                         ) -> _Reading:
        namespace = self.interp.namespace(cls.module.path)[1]
        reading = _Reading()
        if namespace is None:
            return reading
        scope = namespace.scope
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call):
                continue
            dotted = _dotted(decorator.func)
            kind = dotted.rsplit(".", 1)[-1]
            kind = _ALIASES.get(kind, kind)
            if "." not in dotted or kind not in _PARAMETERS:
                continue
            where = f"{cls.module.path}:{decorator.lineno}"
            args = self._arguments(decorator, kind, scope, where)
            if args is None:
                continue
            self._declare(reading, kind, dotted, args, decorator, where)
        return reading

    def _arguments(self, call: ast.Call, kind: str, scope: Scope, where: str
                   ) -> list[tuple[Any, ast.expr | None]] | None:
        """The decorator's arguments by position (value and syntax; None when absent)."""
        params = _PARAMETERS[kind]
        nodes: list[ast.expr | None] = [*call.args[:len(params)]]
        nodes += [None] * (len(params) - len(nodes))
        for keyword in call.keywords:
            index = next((i for i, names in enumerate(params) if keyword.arg in names), None)
            if index is None:
                self.unread.append(_unread(where, f"@{kind}: unknown argument {keyword.arg}"))
                return None
            nodes[index] = keyword.value
        return [(None if n is None else self.interp.expr(n, scope), n) for n in nodes]

    def _declare(self, reading: _Reading, kind: str, dotted: str,
                 args: list[tuple[Any, ast.expr | None]], node: ast.Call, where: str) -> None:
        first = args[0][0]
        if kind == "validate_query_param":  # zun: (request, schema): the schema, always
            kind, args = "query_schema", [args[1], (None, None), (None, None)]
            first = args[0][0]
        if kind == "api_version":
            versions = self._range(args[0][0], args[1][0], where)
            if dotted.endswith(_VERSIONED):
                reading.versioned.append(versions)
            else:  # stacked wrappers must all let the request through
                reading.versions = reading.versions.intersect(versions)
        elif kind == "action":
            reading.action = first if isinstance(first, str) else None
            if reading.action is None:
                self.unread.append(_unread(where, "@action: the name is not a known string"))
        elif kind == "removed":
            reading.removed = first if isinstance(first, str) else "unknown"
        else:
            reference = ast.unparse(args[0][1]) if args[0][1] is not None else ""
            versions = self._range(args[1][0], args[2][0], where)
            if kind == "expected_errors":
                read = _codes(first)
                if isinstance(first, (tuple, list)) and len(read) < len(first):
                    self.unread.append(_unread(where, "an expected error code not read: "
                                                      f"{reference}"))
                if read or isinstance(first, (tuple, list)):
                    first = read  # else kept as written: nothing of it is a code
            reading.found.setdefault(kind, []).append(Declared(first, versions, where,
                                                               reference))

    def _range(self, lo: Any, hi: Any, where: str) -> VersionRange:
        bounds = []
        for value in (lo, hi):
            version = parse_version(value) if isinstance(value, str) else None
            if type(value) is int and self.int_major is not None and value >= 0:
                version = Version(self.int_major, value)
            if value is not None and version is None:
                reason = value.reason if isinstance(value, Opaque) else f"{value!r}"
                self.unread.append(_unread(where, f"a microversion bound not read: {reason}"))
            bounds.append(version)
        return VersionRange(bounds[0], bounds[1])


def _codes(value: Any) -> tuple[int, ...]:
    """`expected_errors(404)` and `expected_errors((400, 404))`: the codes read (a name
    from outside the repository, or an expression, is no code)."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    return tuple(v for v in values if isinstance(v, int) and not isinstance(v, bool))


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _unread(where: str, reason: str) -> Unread:
    file, _, line = where.rpartition(":")
    return Unread(file, int(line) if line.isdigit() else 0, reason)
