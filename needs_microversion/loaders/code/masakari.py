"""masakari's routes, read statically: nova's older extension pattern.

masakari declares its contract with nova's decorators (`@validation.schema(schema.create,
'1.0', '1.1')`, `@extensions.expected_errors(...)`, `@wsgi.response(HTTPStatus.CREATED)`),
but it has no route table: each API extension named in `setup.cfg`
(`masakari.api.v1.extensions = segments = masakari.api.openstack.ha.segments:Segments`)
returns `extensions.ResourceExtension('segments', SegmentsController(),
member_name='segment', parent=..., member_actions=...)` from `get_resources()`, and the
router maps each as `routes.Mapper.resource` does:

| route | method |
| --- | --- |
| `GET /segments`, `POST /segments` | index, create |
| `GET/PUT/DELETE /segments/{id}` | show, update, delete |
| `POST /segments/{id}/action` (member actions), `GET /segments/detail` (collection) | as named |
| with `parent`: `/segments/{segment_id}/hosts...` | |

A route whose method the controller does not define answers 404 and is left out. Routes an
extension adds in code (`custom_routes_fn=self.version_map`) are read where that method
calls `mapper.connect(...)` with literal values, itself or through its class's own methods
called with literal arguments (masakari's versions extension maps `/` and the empty path
to `show`); any other code there is reported as not read.
"""

from __future__ import annotations

import ast
import configparser
from typing import Any

from needs_microversion.loaders.code.decorators import ControllerReader
from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.records import CodeOperation, Unread
from needs_microversion.loaders.code.scopes import Scope
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import ClassValue, InstanceValue

SETUP_CFG = "setup.cfg"
VERSION_FILE = "masakari/api/api_version_request.py"
_ENTRY_POINTS = "masakari.api.v1.extensions"
_PARAMETERS = ("collection", "controller", "parent", "collection_actions", "member_actions",
               "custom_routes_fn", "inherits", "member_name")
_STANDARD = (("GET", "", "index"), ("POST", "", "create"), ("GET", "/{id}", "show"),
             ("PUT", "/{id}", "update"), ("DELETE", "/{id}", "delete"))


def has_routes(source: SourceTree) -> bool:
    return source.probe(SETUP_CFG) and source.probe("masakari/api/openstack/extensions.py")


def read_routes(interp: Interpreter, source: SourceTree, controllers: ControllerReader,
                unread: list[Unread]) -> tuple[CodeOperation, ...]:
    operations: dict[tuple[str, str, str | None], CodeOperation] = {}
    for module_path, class_name, line in _extensions(source):
        module, namespace = interp.namespace(module_path)
        cls = namespace.get(class_name) if namespace is not None else None
        where = f"{SETUP_CFG}:{line}"
        if not isinstance(cls, ClassValue):
            unread.append(Unread(SETUP_CFG, line, f"the extension {class_name} is not read"))
            continue
        for resource in extension_resources(interp, cls, unread):
            for op in resource_operations(resource, controllers, where):
                operations.setdefault((op.method, op.path, op.action), op)
    return tuple(sorted(operations.values(), key=lambda o: (o.path, o.method, o.action or "")))


def _extensions(source: SourceTree) -> list[tuple[str, str, int]]:
    """(module path, class name, line in setup.cfg) of each API extension entry point."""
    text = source.text(SETUP_CFG) or ""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
        listed = parser.get("entry_points", _ENTRY_POINTS, fallback="")
    except configparser.Error:
        return []
    found = []
    for entry in listed.splitlines():
        _, _, target = entry.partition("=")
        module, _, name = target.strip().partition(":")
        path = source.module_path(module.strip())
        if path is not None and name.strip().isidentifier():
            line = next((i for i, text_line in enumerate(text.splitlines(), 1)
                         if target.strip() in text_line), 0)
            found.append((path, name.strip(), line))
    return found


def extension_resources(interp: Interpreter, cls: ClassValue, unread: list[Unread]
               ) -> list[dict[str, Any]]:
    """The `ResourceExtension(...)` calls of the extension's `get_resources`, their
    arguments evaluated (the controller: the class it instantiates)."""
    method = next((node for node in cls.node.body if isinstance(node, ast.FunctionDef)
                   and node.name == "get_resources"), None)
    namespace = interp.namespace(cls.module.path)[1]
    if method is None or namespace is None:
        return []
    local = namespace.scope.child()
    for statement in method.body:  # `parent = {...}`, `member_actions = {...}`
        if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name)
                                                     for t in statement.targets):
            for target in statement.targets:
                interp.bind(target, interp.expr(statement.value, local), local)
    found = []
    for node in ast.walk(method):
        if isinstance(node, ast.Call) and _name(node.func) == "ResourceExtension":
            found.append(_arguments(interp, node, local, cls, unread))
    return found


def _arguments(interp: Interpreter, call: ast.Call, scope: Scope, cls: ClassValue,
               unread: list[Unread]) -> dict[str, Any]:
    nodes = dict(zip(_PARAMETERS, call.args, strict=False))
    nodes.update((k.arg, k.value) for k in call.keywords if k.arg in _PARAMETERS)
    values: dict[str, Any] = {"line": call.lineno, "file": cls.module.path}
    for name, node in nodes.items():
        if name == "controller" and isinstance(node, ast.Call):
            node = node.func  # `HostsController()`: the class, never instantiated
        values[name] = interp.expr(node, scope)
    if "custom_routes_fn" in nodes:
        routes = _custom_routes(nodes["custom_routes_fn"], cls)
        values["custom_routes"] = routes or ()
        if routes is None:
            unread.append(Unread(cls.module.path, call.lineno,
                                 "routes added by custom_routes_fn are not read"))
    return values


# How deep a custom route function's calls of its own class's methods are followed.
_CUSTOM_DEPTH = 3


def _custom_routes(node: ast.expr, cls: ClassValue) -> list[tuple[str, str, str, int]] | None:
    """The `mapper.connect(name, path, action=..., conditions={"method": [...]})` calls a
    `custom_routes_fn=self.version_map` makes, following calls of the class's own methods
    with literal arguments (`self.map_path(mapper, wsgi_resource, '/')`): (method, path,
    action, line) each; None when a call or argument is not one read so."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self"):
        return None
    methods = {item.name: item for item in cls.node.body if isinstance(item, ast.FunctionDef)}
    found: list[tuple[str, str, str, int]] = []

    def walk(name: str, arguments: list[ast.expr], depth: int) -> bool:
        function = methods.get(name)
        if function is None or depth > _CUSTOM_DEPTH:
            return False
        static = any(_name(d) == "staticmethod" for d in function.decorator_list)
        parameters = [a.arg for a in function.args.args][0 if static else 1:]
        bound = {p: a for p, a in zip(parameters, arguments, strict=False)
                 if isinstance(a, ast.Constant)}
        for statement in function.body:
            call = statement.value if isinstance(statement, ast.Expr) else None
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    continue  # a docstring
                return False
            if call.func.attr == "connect":
                route = _connect(call, bound)
                if route is None:
                    return False
                found.extend((method, route[0], route[1], call.lineno) for method in route[2])
            elif isinstance(call.func.value, ast.Name) and call.func.value.id == "self":
                if not walk(call.func.attr, list(call.args), depth + 1):
                    return False
            else:
                return False
        return True

    return found if walk(node.attr, [], 0) else None


def _connect(call: ast.Call, bound: dict[str, ast.Constant]
             ) -> tuple[str, str, tuple[str, ...]] | None:
    """(path, action, methods) of a `mapper.connect(...)` call with literal values."""
    def value(expr: ast.expr | None) -> Any:
        if isinstance(expr, ast.Name) and expr.id in bound:
            return bound[expr.id].value
        try:
            return ast.literal_eval(expr) if expr is not None else None
        except ValueError:
            return None

    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    path = value(call.args[1] if len(call.args) > 1 else keywords.get("path"))
    action = value(keywords.get("action"))
    conditions = value(keywords.get("conditions"))
    methods = conditions.get("method") if isinstance(conditions, dict) else None
    if not isinstance(path, str) or not isinstance(action, str) or not isinstance(
            methods, (list, tuple)) or not all(isinstance(m, str) for m in methods):
        return None
    return path, action, tuple(m.upper() for m in methods)


def resource_operations(resource: dict[str, Any], controllers: ControllerReader,
                        where: str, by_action: frozenset[str] = frozenset()
                        ) -> list[CodeOperation]:
    """The operations of one `mapper.resource(...)`; `by_action`: the standard routes
    that the action of that name serves when the controller has no such method (manila's
    `Resource` dispatches `create` and `delete` so, as nova's did)."""
    collection, controller = resource.get("collection"), resource.get("controller")
    if isinstance(controller, InstanceValue):  # `controller = X(...)` first (cinder's contrib)
        controller = controller.cls
    if not isinstance(collection, str) or not isinstance(controller, ClassValue):
        return []
    prefix = ""
    parent = resource.get("parent")
    if isinstance(parent, dict) and isinstance(parent.get("collection_name"), str):
        prefix = f"/{parent['collection_name']}/{{{parent.get('member_name')}_id}}"
    base = f"{prefix}/{collection}"
    routes = [(method, base + suffix, name) for method, suffix, name in _STANDARD]
    for key, suffix in (("collection_actions", ""), ("member_actions", "/{id}")):
        actions = resource.get(key)
        if isinstance(actions, dict):
            routes += [(str(verb).upper(), f"{base}{suffix}/{name}", str(name))
                       for name, verb in actions.items()]
    located = f"{resource['file']}:{resource['line']}" if resource.get("file") else where
    found = [CodeOperation(method, path if path.startswith("/") else "/" + path, None,
                           f"{resource['file']}:{line}", implementations)
             for method, path, name, line in resource.get("custom_routes", ())
             if (implementations := controllers.implementations(controller, name))]
    for method, path, name in routes:
        if name == "action" and not controllers.defines(controller, "action"):
            found += [CodeOperation(method, path, action, located,
                                    controllers.implementations(cls, meth))
                      for action, (cls, meth) in sorted(controllers.actions(controller).items())]
            continue
        implementations = controllers.implementations(controller, name)
        if not implementations and name in by_action:
            actions = controllers.actions(controller)
            if name in actions:
                implementations = controllers.implementations(*actions[name])
        if implementations:
            found.append(CodeOperation(method, path, None, located, implementations))
    return found


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(
        node, ast.Name) else ""
