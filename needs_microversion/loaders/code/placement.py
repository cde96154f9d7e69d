"""placement's routes, read statically: `ROUTE_DECLARATIONS` in `placement/handler.py`, a
literal dict of paths, each mapping HTTP methods to handler functions

    '/resource_providers': {
        'GET': resource_provider.list_resource_providers,
        'POST': resource_provider.create_resource_provider,
    },

A handler serves the microversions of its `@microversion.version_handler(lo, hi)`; several
functions of one name in a module each serve their range (the decorator registers each),
and one with no such decorator serves every microversion. A handler declares no schema in
a decorator: it picks one in its body and validates with it,

    schema = rp_schema.GET_RPS_SCHEMA_1_0
    if want_version.matches((1, 18)):
        schema = rp_schema.GET_RPS_SCHEMA_1_18
    elif want_version.matches((1, 14)):
        schema = rp_schema.GET_RPS_SCHEMA_1_14
    util.validate_query_params(req, schema)         # the query schema
    data = util.extract_json(req.body, schema)       # the request body schema

so the schema of each range of microversions is read from the assignments to the name the
call validates with, under the `matches((major, minor)[, (major, minor)])` conditions that
guard them. A condition of another kind guarding such an assignment is reported as not
read (its schemas are not seen). Success and error codes are not declared in placement's
code: none are read.
"""

from __future__ import annotations

import ast
from typing import Any

from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.records import (
    CodeOperation, Declared, Implementation, Unread, by_version, range_key)
from needs_microversion.loaders.code.scopes import Scope
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import FunctionValue, Opaque
from needs_microversion.model.versions import ALL, Version, VersionRange, parse_version

HANDLER = "placement/handler.py"
VERSION_FILE = "placement/microversion.py"
_METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "PATCH", "HEAD"})
# The call that validates a body, and the one that validates a query string: the argument
# that names the schema.
_VALIDATES = {"extract_json": ("requests", 1), "validate_query_params": ("queries", 1)}

Cases = list[tuple[VersionRange, ast.expr | None]]  # the schema expression per range


def has_routes(source: SourceTree) -> bool:
    return source.probe(HANDLER) and source.probe(VERSION_FILE)


def read_routes(interp: Interpreter, unread: list[Unread]) -> tuple[CodeOperation, ...]:
    module, namespace = interp.namespace(HANDLER)
    if namespace is None or module.tree is None:
        unread.append(Unread(HANDLER, 0, module.reason or "unreadable"))
        return ()
    routes = namespace.get("ROUTE_DECLARATIONS")
    if not isinstance(routes, dict):
        reason = routes.reason if isinstance(routes, Opaque) else "not a dict"
        unread.append(Unread(HANDLER, 0, f"ROUTE_DECLARATIONS: {reason}"))
        return ()
    lines = _route_lines(module.tree)
    operations = []
    for path, methods in routes.items():
        where = f"{HANDLER}:{lines.get(path, 0)}"
        if not isinstance(path, str) or not isinstance(methods, dict):
            unread.append(Unread(HANDLER, lines.get(path, 0), "a route that is not a path "
                                                              "and its methods"))
            continue
        if path in ("", "/"):
            continue  # the version document, as nova's root
        for method, handler in methods.items():
            if str(method).upper() not in _METHODS or not isinstance(handler, FunctionValue):
                unread.append(Unread(HANDLER, lines.get(path, 0),
                                     f"{method} {path}: the handler is not read"))
                continue
            implementations = _implementations(interp, handler, unread)
            operations.append(CodeOperation(str(method).upper(), path, None, where,
                                            implementations))
    return tuple(sorted(operations, key=lambda o: (o.path, o.method)))


def _implementations(interp: Interpreter, handler: FunctionValue, unread: list[Unread]
                     ) -> tuple[Implementation, ...]:
    """Every function of the handler's name in its module, each for its range."""
    module = handler.module
    tree = module.tree
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef)
            and node.name == handler.name] if tree is not None else []
    namespace = interp.namespace(module.path)[1]
    scope = namespace.scope if namespace is not None else handler.scope
    if not defs and isinstance(handler.node, ast.FunctionDef):
        defs = [handler.node]
    found = []
    for node in defs:
        versions = _handler_versions(interp, node, scope, module.path, unread)
        where = f"{module.path}:{node.lineno}"
        schemas: dict[str, list[Declared]] = {"requests": [], "queries": []}
        helpers = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)} \
            if tree is not None else {}
        for call, key, argument in _validated(node, helpers):
            for rng, expr in _cases(interp, scope, node, argument, versions, module.path,
                                    unread):
                if expr is not None and not rng.empty:
                    schemas[key].append(Declared(interp.expr(expr, scope), rng,
                                                 f"{module.path}:{call.lineno}",
                                                 ast.unparse(expr)))
        found.append(Implementation(versions, f"{module.dotted}.{node.name}", where,
                                    requests=by_version(schemas["requests"]),
                                    queries=by_version(schemas["queries"])))
    return tuple(sorted(found, key=lambda i: (range_key(i.versions), i.location)))


def _handler_versions(interp: Interpreter, node: ast.FunctionDef, scope: Scope, path: str,
                      unread: list[Unread]) -> VersionRange:
    """`@microversion.version_handler(lo[, hi])`: its range; no such decorator: every
    microversion."""
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and _last_name(decorator.func) == "version_handler":
            bounds = [interp.expr(arg, scope) for arg in decorator.args[:2]]
            versions = [parse_version(b) if isinstance(b, str) else None for b in bounds]
            if any(v is None for v in versions):
                unread.append(Unread(path, decorator.lineno, "a microversion bound not read"))
            return VersionRange(versions[0] if versions else None,
                                versions[1] if len(versions) > 1 else None)
    return ALL


def _validated(function: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]
               ) -> list[tuple[ast.Call, str, ast.expr | None]]:
    """(call, "requests" or "queries", the schema argument) of each validation the handler
    makes: itself, or through a function of its module it passes the schema to
    (`_set_allocations_for_consumer(req, schema.ALLOCATION_SCHEMA_V1_28)`)."""
    found: list[tuple[ast.Call, str, ast.expr | None]] = []
    for call in ast.walk(function):
        if not isinstance(call, ast.Call):
            continue
        name = _last_name(call.func)
        if name in _VALIDATES:
            key, index = _VALIDATES[name]
            found.append((call, key, call.args[index] if len(call.args) > index else None))
        elif isinstance(call.func, ast.Name) and name in helpers and name != function.name:
            helper = helpers[name]
            parameters = [a.arg for a in helper.args.args]
            passed = dict(zip(parameters, call.args, strict=False))
            passed.update((k.arg, k.value) for k in call.keywords if k.arg)
            for inner, key, argument in _validated(helper, {}):
                if isinstance(argument, ast.Name) and argument.id in passed:
                    found.append((inner, key, passed[argument.id]))
    return found


def _cases(interp: Interpreter, scope: Scope, function: ast.FunctionDef,
           argument: ast.expr | None, versions: VersionRange, path: str,
           unread: list[Unread]) -> Cases:
    """The schema `argument` names for each range of the handler's microversions: itself
    when it is written in the call, else what the assignments to that name give."""
    if argument is None:
        return []
    if not isinstance(argument, ast.Name):
        return [(versions, argument)]
    flow = _Flow(interp, scope, argument.id, path, unread)
    flow.cases = [(versions, None)]
    flow.walk(function.body, [versions])
    return flow.cases


class _Flow:
    """The values one name takes in a handler's body, per range of microversions: its
    assignments, under the `matches(...)` conditions (written in the `if`, or kept in a
    name first: `show = want_version.matches((1, 38))`) that guard them."""

    def __init__(self, interp: Interpreter, scope: Scope, name: str, path: str,
                 unread: list[Unread]) -> None:
        self.interp, self.scope, self.name = interp, scope, name
        self.path, self.unread = path, unread
        self.cases: Cases = []
        self.flags: dict[str, list[VersionRange]] = {}

    def walk(self, statements: list[ast.stmt], ranges: list[VersionRange]) -> None:
        for statement in statements:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name) and target.id == self.name:
                        _assign(self.cases, ranges, statement.value)
                    elif isinstance(target, ast.Name):
                        condition = self.condition(statement.value)
                        if condition is not None:
                            self.flags[target.id] = condition
            elif isinstance(statement, ast.If):
                condition = self.condition(statement.test)
                if condition is None:
                    if _assigns(statement, self.name):
                        self.unread.append(Unread(self.path, statement.lineno,
                                                  "a condition that is not a microversion "
                                                  "guards the schema"))
                    continue
                inside = [r.intersect(c) for r in ranges for c in condition]
                outside = [piece for r in ranges for piece in _without(r, condition)]
                self.walk(statement.body, [r for r in inside if not r.empty])
                self.walk(statement.orelse, outside)

    def condition(self, test: ast.expr) -> list[VersionRange] | None:
        """The microversions a test holds at: `matches(lo[, hi])`, `matches(min_version=lo,
        max_version=hi)`, a name holding one, `not` either; None for any other test."""
        if isinstance(test, ast.Name):
            return self.flags.get(test.id)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.condition(test.operand)
            return None if inner is None else _without(ALL, inner)
        if not (isinstance(test, ast.Call) and _last_name(test.func) == "matches"):
            return None
        nodes = dict(zip(("min_version", "max_version"), test.args, strict=False))
        nodes.update((k.arg, k.value) for k in test.keywords if k.arg)
        if not nodes or set(nodes) - {"min_version", "max_version"}:
            return None
        bounds = {key: _version(self.interp.expr(node, self.scope))
                  for key, node in nodes.items()}
        if any(bound is None for bound in bounds.values()):
            return None
        return [VersionRange(bounds.get("min_version"), bounds.get("max_version"))]


def _assigns(statement: ast.stmt, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
               for node in ast.walk(statement))


def _assign(cases: Cases, ranges: list[VersionRange], value: ast.expr) -> None:
    """`name = value` over `ranges`: what the name held there before is replaced."""
    kept: Cases = []
    for rng, expr in cases:
        pieces = [rng]
        for over in ranges:
            pieces = [p for piece in pieces for p in _without(piece, [over])]
        kept.extend((piece, expr) for piece in pieces if not piece.empty)
    for over in ranges:
        kept.extend((rng.intersect(over), value) for rng, _ in list(cases)
                    if not rng.intersect(over).empty)
    cases[:] = _merged(kept)


def _merged(cases: Cases) -> Cases:
    """One case per range (the later of two for one range), in order."""
    seen: dict[tuple[Any, Any], tuple[VersionRange, ast.expr | None]] = {}
    for rng, expr in cases:
        seen[(rng.lo, rng.hi)] = (rng, expr)
    return sorted(seen.values(), key=lambda case: range_key(case[0]))


def _version(value: Any) -> Version | None:
    """`(1, 14)` (or "1.14") as a microversion."""
    if isinstance(value, tuple) and len(value) == 2 and all(type(v) is int for v in value):
        return Version(*value)
    return parse_version(value) if isinstance(value, str) else None


def _without(rng: VersionRange, holes: list[VersionRange]) -> list[VersionRange]:
    """`rng` less every range of `holes`."""
    pieces = [rng]
    for hole in holes:
        rest = []
        for piece in pieces:
            if piece.intersect(hole).empty:
                rest.append(piece)
                continue
            if hole.lo is not None and (piece.lo is None or piece.lo < hole.lo):
                rest.append(VersionRange(piece.lo, _before(hole.lo)))
            if hole.hi is not None and (piece.hi is None or piece.hi > hole.hi):
                rest.append(VersionRange(hole.hi.next(), piece.hi))
        pieces = [p for p in rest if not p.empty]
    return pieces


def _before(version: Version) -> Version:
    return Version(version.major, version.minor - 1) if version.minor else \
        Version(version.major - 1, 2**31)


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(
        node, ast.Name) else ""


def _route_lines(tree: ast.Module) -> dict[str, int]:
    """Each path's line in the ROUTE_DECLARATIONS literal."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "ROUTE_DECLARATIONS" for t in node.targets) \
                and isinstance(node.value, ast.Dict):
            return {key.value: key.lineno for key in node.value.keys
                    if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return {}
