"""nova's route table, read statically: `ROUTE_LIST` in
`nova/api/openstack/compute/routes.py`, a literal tuple of

    ('/os-keypairs', {'GET': [keypairs_controller, 'index'],
                      'POST': [keypairs_controller, 'create']}),

whose controllers are `functools.partial(_create_controller, keypairs.KeypairController,
[sub-controllers])`. A route to the method `action` (`POST /servers/{id}/action`) is one
operation per `@wsgi.action` of the controller and its sub-controllers, as nova's
`Resource` dispatches it on the body's single key; a route to `create`, `delete`, `show`
or `update` that the controller lacks is served by the action of that name, as
`Resource` does. `('', '/')` entries are redirects.
"""

from __future__ import annotations

import ast
from typing import Any

from needs_microversion.loaders.code.decorators import ControllerReader
from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.records import CodeOperation, Unread
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import ClassValue, Opaque, Partial

ROUTES_FILE = "nova/api/openstack/compute/routes.py"
VERSION_FILE = "nova/api/openstack/api_version_request.py"
_METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"})
_ROUTES_METHODS = frozenset({"create", "delete", "show", "update"})


def read_routes(interp: Interpreter, controllers: ControllerReader, unread: list[Unread]
                ) -> tuple[CodeOperation, ...]:
    module, namespace = interp.namespace(ROUTES_FILE)
    if namespace is None or module.tree is None:
        unread.append(Unread(ROUTES_FILE, 0, module.reason or "unreadable"))
        return ()
    routes = namespace.get("ROUTE_LIST")
    if not isinstance(routes, (tuple, list)):
        reason = routes.reason if isinstance(routes, Opaque) else "ROUTE_LIST is not a list"
        unread.append(Unread(ROUTES_FILE, _assignment_line(module.tree), reason))
        return ()
    lines = _entry_lines(module.tree)
    operations: list[CodeOperation] = []
    for index, entry in enumerate(routes):
        where = f"{ROUTES_FILE}:{lines.get(index, 0)}"
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)):
            unread.append(_at(where, "a route entry that is not (path, methods)"))
            continue
        path, methods = entry
        if isinstance(methods, str):
            continue  # a redirect
        if not isinstance(methods, dict):
            unread.append(_at(where, f"the methods of {path} are not a dict"))
            continue
        for method, target in methods.items():
            operations.extend(_operations(str(method).upper(), path, target, where,
                                          controllers, unread))
    return tuple(sorted(operations, key=lambda o: (o.path, o.method, o.action or "")))


def _operations(method: str, path: str, target: Any, where: str,
                controllers: ControllerReader, unread: list[Unread]) -> list[CodeOperation]:
    if method not in _METHODS or not (isinstance(target, (list, tuple)) and len(target) == 2
                                      and isinstance(target[1], str)):
        unread.append(_at(where, f"{method} {path}: not [controller, 'method']"))
        return []
    classes = _controller_classes(target[0])
    if classes is None:
        unread.append(_at(where, f"{method} {path}: the controller is not read"))
        return []
    main, subs = classes
    name = target[1]
    if name == "action" and not controllers.defines(main, "action"):
        actions: dict[str, tuple[ClassValue, str]] = {}
        for cls in (main, *subs):  # sub-controllers register after the main one
            actions.update(controllers.actions(cls))
        return [CodeOperation(method, path, action, where,
                              controllers.implementations(cls, meth))
                for action, (cls, meth) in sorted(actions.items())]
    implementations = controllers.implementations(main, name)
    if not implementations and name in _ROUTES_METHODS:
        # nova's Resource falls back to an action of that name (`@wsgi.action("create")`
        # on a sub-controller served POST /flavors before 2025).
        found: dict[str, tuple[ClassValue, str]] = {}
        for cls in (main, *subs):
            found.update(controllers.actions(cls))
        if name in found:
            implementations = controllers.implementations(*found[name])
    if not implementations:
        unread.append(_at(where, f"{method} {path}: {main.name} has no method {name}"))
        return []
    return [CodeOperation(method, path, None, where, implementations)]


def _controller_classes(value: Any) -> tuple[ClassValue, tuple[ClassValue, ...]] | None:
    """`functools.partial(_create_controller, Main, [Sub, ...])` -> (Main, (Sub, ...))."""
    if not isinstance(value, Partial) or not value.args:
        return None
    main = value.args[0]
    subs = value.args[1] if len(value.args) > 1 else []
    if not isinstance(main, ClassValue) or not isinstance(subs, (list, tuple)) or not all(
            isinstance(sub, ClassValue) for sub in subs):
        return None
    return main, tuple(subs)


def _entry_lines(tree: ast.Module) -> dict[int, int]:
    """Each ROUTE_LIST entry's line, by position (the literal tuple as written)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "ROUTE_LIST" for t in node.targets):
            if isinstance(node.value, (ast.Tuple, ast.List)) and not any(
                    isinstance(e, ast.Starred) for e in node.value.elts):
                return {i: elt.lineno for i, elt in enumerate(node.value.elts)}
            return {}
    return {}


def _assignment_line(tree: ast.Module) -> int:
    return next((node.lineno for node in tree.body if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "ROUTE_LIST" for t in node.targets)), 0)


def _at(where: str, reason: str) -> Unread:
    file, _, line = where.rpartition(":")
    return Unread(file, int(line) if line.isdigit() else 0, reason)


def has_routes(source: SourceTree) -> bool:
    return source.probe(ROUTES_FILE)

