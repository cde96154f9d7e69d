"""ironic's and zun's routes, read statically: pecan's object dispatch from the v1 root
(`<project>/api/controllers/v1/__init__.py`'s `Controller`: ironic's `_subcontroller_map`
(2021 on), or its controller attributes), through each `rest.RestController`:

| what the controller has | routes |
| --- | --- |
| `get_all`, `get`, `get_one`, `post`, `put`, `patch`, `delete` | on its path (below) |
| `_custom_actions = {'detail': ['GET']}` | `GET path/detail` (method `detail`) |
| an attribute `states = NodeStatesController()` | below `path/{get_one's ids}/states` |
| `_subcontroller_map = {"ports": port.PortsController}` | below `path/{id}/ports` |

A standard method's path, and a custom action's before its name (zun's
`start(self, container_ident)`: `path/{container_ident}/start`), gains a segment per
identifier the method takes: a parameter without a default named as one (`node_ident`,
`port_uuid`, `driver_name`; others come in the body), less those its controller's path
gives it first (an attribute controller's methods take their parent's identifiers). Only
methods decorated with pecan's `expose` (ironic's `@method.expose`, `@expose.expose`
before; zun's `@pecan.expose('json')`) are routed. The contract each method declares is
read from its decorators (`decorators.py`): ironic's
`@validation.request_body_schema(schema, min, max)` and `request_query_schema`, whose
bounds are the minor versions of 1.x written as integers (`59` is 1.59); zun's
`@base.Controller.api_version(lo, hi)` versioned methods, `@validation.validated(schema)`
and `@validation.validate_query_param(request, schema)`. Which microversions a route with
no version decorator serves is decided in ironic's code by checks in the method and in
`_lookup` (`api_utils.allow_*()`), which the version-gate index reads, not this table:
such a route is listed at every microversion, its range marked undeclared.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from needs_microversion.loaders.code.decorators import ControllerReader
from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.records import CodeOperation, Unread
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import ClassValue, Opaque

@dataclass(frozen=True)
class PecanApp:
    """Where one project's pecan API starts, and how it writes a bound."""

    project: str
    root: str  # the v1 root controller's module
    version_file: str
    int_major: int | None  # ironic's `59` is 1.59; None: bounds are "X.Y" strings
    ranges_declared: bool  # False: a route with no version decorator is checked in its body


APPS = (
    PecanApp("ironic", "ironic/api/controllers/v1/__init__.py",
             "ironic/api/controllers/v1/versions.py", 1, False),
    PecanApp("zun", "zun/api/controllers/v1/__init__.py", "zun/api/controllers/versions.py",
             None, True),
)
# pecan's RestController: method name -> HTTP method (the path takes a segment per
# identifier the method is given).
_STANDARD = {"get_all": "GET", "get": "GET", "get_one": "GET", "post": "POST", "put": "PUT",
             "patch": "PATCH", "delete": "DELETE"}
# How a parameter that is a path segment is named; other required ones come in the body.
_IDENTIFIERS = ("ident", "uuid", "id", "name")
_MAX_DEPTH = 6  # controllers below the root: ironic's deepest is 3
# Controllers walked in all (one class may be reached on several paths): ironic's ~60.
_MAX_CONTROLLERS = 2_000


def app_of(source: SourceTree) -> PecanApp | None:
    """The project's pecan API, when the revision has its root and version file."""
    return next((app for app in APPS
                 if source.probe(app.root) and source.probe(app.version_file)), None)


def read_routes(app: PecanApp, interp: Interpreter, controllers: ControllerReader,
                unread: list[Unread]) -> tuple[CodeOperation, ...]:
    module, namespace = interp.namespace(app.root)
    root = namespace.get("Controller") if namespace is not None else None
    if not isinstance(root, ClassValue):
        unread.append(Unread(app.root, 0, module.reason or "no v1 Controller"))
        return ()
    walker = _Walk(interp, controllers, unread)
    # The root's controllers: its `_subcontroller_map` (2021 on), or its attributes
    # (`nodes = node.NodesController()`, before).
    for name, sub in [*walker.map_of(root), *walker.attributes(root)]:
        walker.controller(sub, f"/{name}", 0)
    return tuple(sorted(walker.operations.values(),
                        key=lambda o: (o.path, o.method, o.action or "")))


class _Walk:
    def __init__(self, interp: Interpreter, controllers: ControllerReader,
                 unread: list[Unread]) -> None:
        self.interp, self.controllers, self.unread = interp, controllers, unread
        self.operations: dict[tuple[str, str], CodeOperation] = {}
        self.walked = 0

    def controller(self, cls: ClassValue, path: str, depth: int, consumed: int = 0) -> None:
        """The routes of `cls` at `path`, whose methods receive `consumed` identifiers of
        the path already (an attribute controller gets its parent's id as an argument; one
        `_lookup` makes gets it in its constructor)."""
        self.walked += 1
        if depth > _MAX_DEPTH or self.walked > _MAX_CONTROLLERS:
            if self.walked == _MAX_CONTROLLERS + 1:
                self.unread.append(Unread(cls.module.path, cls.node.lineno,
                                          f"routes past {_MAX_CONTROLLERS} controllers are "
                                          "not read"))
            return
        member = f"{path}/{{{_member_name(path)}}}"
        where = f"{cls.module.path}:{cls.node.lineno}"
        for name in _STANDARD:
            self._route(cls, name, path, consumed, where)
        actions = self._attribute(cls, "_custom_actions")
        if isinstance(actions, dict):
            for action, methods in actions.items():
                if isinstance(action, str) and isinstance(methods, (list, tuple)):
                    for method in methods:
                        if isinstance(method, str):
                            self._route(cls, action, path, consumed, where, method.upper(),
                                        action)
        # pecan finds an attribute controller after the identifiers `get_one` takes
        # (`/nodes/{node_ident}/states`; none for a controller without `get_one`:
        # `/nodes/{node_ident}/management/boot_device`), and hands them to its methods.
        one = self._exposed(cls, "get_one")
        ids = _segments(one, consumed) if one is not None else []
        for name, sub in self.attributes(cls):
            self.controller(sub, path + "".join(f"/{{{i}}}" for i in ids) + f"/{name}",
                            depth + 1, consumed + len(ids))
        for name, sub in self.map_of(cls):
            self.controller(sub, f"{member}/{name}", depth + 1)

    def map_of(self, cls: ClassValue) -> list[tuple[str, ClassValue]]:
        """`_subcontroller_map`: name -> the controller class it names or instantiates
        (read from the literal: instantiating a pecan controller is not the reader's)."""
        for klass in self.interp.mro(cls):
            if not isinstance(klass, ClassValue):
                continue
            for node in klass.node.body:
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "_subcontroller_map"
                        for t in node.targets):
                    return self._classes(klass, node.value)
        return []

    def _classes(self, cls: ClassValue, value: ast.expr) -> list[tuple[str, ClassValue]]:
        namespace = self.interp.namespace(cls.module.path)[1]
        if not isinstance(value, ast.Dict) or namespace is None:
            self.unread.append(Unread(cls.module.path, value.lineno,
                                      f"{cls.name}._subcontroller_map is not a literal dict"))
            return []
        found = []
        for key, item in zip(value.keys, value.values, strict=True):
            target = item.func if isinstance(item, ast.Call) else item
            sub = self.interp.expr(target, namespace.scope)
            if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                    and isinstance(sub, ClassValue):
                found.append((key.value, sub))
            else:
                self.unread.append(Unread(cls.module.path, item.lineno,
                                          f"{cls.name}._subcontroller_map: an entry not read"))
        return found

    def attributes(self, cls: ClassValue) -> list[tuple[str, ClassValue]]:
        """Class attributes that are controllers: `states = NodeStatesController()`."""
        found = []
        for node in cls.node.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Call):
                namespace = self.interp.namespace(cls.module.path)[1]
                value = self.interp.expr(node.value.func, namespace.scope) \
                    if namespace is not None else None
                if isinstance(value, ClassValue) and value.name.endswith("Controller"):
                    found.append((node.targets[0].id, value))
        return found

    def _attribute(self, cls: ClassValue, name: str) -> Any:
        for klass in self.interp.mro(cls):
            if isinstance(klass, ClassValue) and any(
                    isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == name for t in node.targets)
                    for node in klass.node.body):
                value = klass.namespace.get(name)
                if isinstance(value, Opaque):
                    self.unread.append(Unread(klass.module.path, klass.node.lineno,
                                              f"{klass.name}.{name}: {value.reason}"))
                    return None
                return value
        return None

    def _route(self, cls: ClassValue, name: str, path: str, consumed: int, where: str,
               method: str | None = None, action: str | None = None) -> None:
        """`name`'s route: its path gains a segment per identifier it takes beyond the
        `consumed` ones (not its body, nor a parameter with a default); a custom action's
        then its name."""
        node = self._exposed(cls, name)
        if node is None:
            return
        segments = _segments(node, consumed)
        if action is not None:  # a member's action takes the member's id: the rest is query
            segments = segments[:1]
        path += "".join(f"/{{{segment}}}" for segment in segments)
        if action is not None:
            path += f"/{action}"
        verb = method or _STANDARD[name]
        implementations = self.controllers.implementations(cls, name)
        if implementations and (verb, path) not in self.operations:
            self.operations[(verb, path)] = CodeOperation(verb, path, None, where,
                                                          implementations)

    def _exposed(self, cls: ClassValue, name: str) -> ast.FunctionDef | None:
        """The method pecan routes by that name: decorated with its `expose` (ironic's
        `method.expose`); None when there is none."""
        for klass in self.interp.mro(cls):
            if not isinstance(klass, ClassValue):
                continue
            defs = [node for node in klass.node.body if isinstance(node, ast.FunctionDef)
                    and node.name == name]
            if defs:
                exposed = any(_decorator_name(d) == "expose" for d in defs[-1].decorator_list)
                return defs[-1] if exposed else None
        return None


def _segments(node: ast.FunctionDef, consumed: int) -> list[str]:
    """The path identifiers a method takes: its parameters without a default named as
    identifiers (not its `@method.body`), less the `consumed` ones its controller's path
    gives it first."""
    body = {d.args[0].value for d in node.decorator_list if isinstance(d, ast.Call)
            and _decorator_name(d) == "body" and d.args and isinstance(d.args[0], ast.Constant)}
    names = [a.arg for a in node.args.args[1:]]
    required = names[:len(names) - len(node.args.defaults)]
    return [name for name in required if name not in body
            and name.endswith(_IDENTIFIERS)][consumed:]


def _member_name(path: str) -> str:
    """`/nodes` -> `node_ident`: a name for the member's path parameter."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return f"{last.rstrip('s') or 'id'}_ident"


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else target.id \
        if isinstance(target, ast.Name) else ""
