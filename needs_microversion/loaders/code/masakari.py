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
extension adds in code (`custom_routes_fn`) are reported as not read.
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
from needs_microversion.loaders.code.values import ClassValue

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
        for resource in _resources(interp, cls, unread):
            for op in _resource_operations(resource, controllers, where):
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


def _resources(interp: Interpreter, cls: ClassValue, unread: list[Unread]
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
        unread.append(Unread(cls.module.path, call.lineno,
                             "routes added by custom_routes_fn are not read"))
    return values


def _resource_operations(resource: dict[str, Any], controllers: ControllerReader,
                         where: str) -> list[CodeOperation]:
    collection, controller = resource.get("collection"), resource.get("controller")
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
    found = []
    for method, path, name in routes:
        if name == "action" and not controllers.defines(controller, "action"):
            found += [CodeOperation(method, path, action, located,
                                    controllers.implementations(cls, meth))
                      for action, (cls, meth) in sorted(controllers.actions(controller).items())]
            continue
        implementations = controllers.implementations(controller, name)
        if implementations:
            found.append(CodeOperation(method, path, None, located, implementations))
    return found


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(
        node, ast.Name) else ""
