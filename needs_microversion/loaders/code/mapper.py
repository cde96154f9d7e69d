"""manila's and cinder's routes, read statically: `APIRouter._setup_routes` in their
router module (`manila/api/v2/router.py`, `cinder/api/v3/router.py`), a method of literal
calls of a `routes.Mapper`:

    self.resources["shares"] = shares.create_resource()
    mapper.resource("share", "shares", controller=self.resources["shares"],
                    collection={"detail": "GET"}, member={"action": "POST"})
    for path_prefix in ['/{project_id}', '']:
        mapper.connect("shares", "%s/shares/{id}/migration-progress" % path_prefix,
                       controller=self.resources["shares"],
                       action="migration_progress_show", conditions={"method": ["GET"]})
    mapper.create_route('/clusters/detail', 'GET', self.resources['clusters'], 'detail')

Each `create_resource()` of a controller module returns `wsgi.Resource(SharesController())`:
the controller is that class. `mapper.resource` maps as `routes.Mapper.resource` does
(masakari's reader: index, create, show, update, delete, the collection's and members'
named routes, a parent resource's prefix; `member={"action": "POST"}` is one operation per
`@wsgi.action`); `mapper.connect` and cinder's `mapper.create_route` map one path, method
and controller method. The `/{project_id}` prefix routes may also have is left out: an
operation is its path without it. The controllers declare the contract with nova's older
decorators (`@wsgi.Controller.api_version`, `@wsgi.action`, `@wsgi.response`) and their
schema decorators (manila's `@validation.request_body_schema`, `request_query_schema` and
`response_body_schema`, cinder's `@validation.schema`), each with its microversion bounds
(`decorators.py`).

What this does not read: routes added by API extensions (cinder's `contrib/`, registered
when the service starts: `_setup_ext_routes`), and a statement of `_setup_routes` that is
none of the above (a condition, a call of something else), which is reported as not read,
with its line. cinder's `if ext_mgr.is_loaded('os-services'):` is read as true: a default
deployment loads every standard extension.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from needs_microversion.loaders.code.decorators import ControllerReader
from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.masakari import extension_resources, resource_operations
from needs_microversion.loaders.code.records import CodeOperation, Unread
from needs_microversion.loaders.code.scopes import Scope
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import ClassValue, ModuleRef

@dataclass(frozen=True)
class Router:
    """Where one project keeps its route setup, and how its `Resource` dispatches."""

    project: str
    module: str  # the router module: `APIRouter._setup_routes`
    probe: str  # its wsgi module (nova's older `Resource`, `Controller.api_version`)
    version_file: str
    # The standard routes its `Resource` serves by the action of that name when the
    # controller has no such method (`Resource._get_method`): share types'
    # `@wsgi.action("create")`.
    by_action: frozenset[str]
    # The folder of the API extensions a default deployment loads (cinder's `contrib/`,
    # every module of it: `standard_extensions`), or "".
    extensions: str = ""


ROUTERS = (
    Router("manila", "manila/api/v2/router.py", "manila/api/openstack/wsgi.py",
           "manila/api/openstack/api_version_request.py", frozenset({"create", "delete"})),
    Router("cinder", "cinder/api/v3/router.py", "cinder/api/openstack/wsgi.py",
           "cinder/api/openstack/api_version_request.py",
           frozenset({"create", "delete", "update"}), "cinder/api/contrib"),
)
_PROJECT_PREFIX = "/{project_id}"
_FORMAT_OTHER = re.compile(r"%(?![s%])")  # a `%` conversion other than `%s` or `%%`
_NOT = object()  # a value the route reader does not compute
_MAX_ITEMS = 64  # a `for` over more literal items than any router writes is not read
# Statements walked in all (loops repeat their bodies): cinder's and manila's routers walk
# ~1,000; nested loops of a hostile router stop here, reported.
_MAX_STEPS = 50_000


def router_of(source: SourceTree) -> Router | None:
    """The project's router, when the revision has one (and its wsgi module)."""
    return next((router for router in ROUTERS
                 if source.probe(router.module) and source.probe(router.probe)), None)


def read_routes(router: Router, interp: Interpreter, controllers: ControllerReader,
                unread: list[Unread]) -> tuple[CodeOperation, ...]:
    module, namespace = interp.namespace(router.module)
    if namespace is None or module.tree is None:
        unread.append(Unread(router.module, 0, module.reason or "unreadable"))
        return ()
    setup = next((node for cls in module.tree.body if isinstance(cls, ast.ClassDef)
                  for node in cls.body if isinstance(node, ast.FunctionDef)
                  and node.name == "_setup_routes"), None)
    if setup is None:
        unread.append(Unread(router.module, 0, "no APIRouter._setup_routes"))
        return ()
    reader = _Routes(router, interp, namespace.scope, controllers, unread)
    reader.block(setup.body, {})
    if router.extensions:
        reader.extensions(router.extensions)
    return tuple(sorted(reader.operations.values(),
                        key=lambda o: (o.path, o.method, o.action or "")))


class _Routes:
    """Walks `_setup_routes`, the controllers named and the routes mapped so far."""

    def __init__(self, router: Router, interp: Interpreter, scope: Scope,
                 controllers: ControllerReader, unread: list[Unread]) -> None:
        self.router, self.where = router, router.module
        self.interp, self.scope = interp, scope
        self.controllers, self.unread = controllers, unread
        self.resources: dict[str, ClassValue | None] = {}
        self.names: dict[str, ClassValue | None] = {}  # `controller = self.resources[...]`
        self.operations: dict[tuple[str, str, str | None], CodeOperation] = {}
        self.steps = 0

    def block(self, statements: list[ast.stmt], bound: dict[str, Any]) -> None:
        for statement in statements:
            self.steps += 1
            if self.steps > _MAX_STEPS:
                if self.steps == _MAX_STEPS + 1:
                    self._not_read(statement, f"the route setup past {_MAX_STEPS} statements")
                return
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            if isinstance(statement, ast.Assign) and self._resource(statement):
                continue
            call = statement.value if isinstance(statement, ast.Expr) else None
            if isinstance(call, ast.Call) and _is_mapper(call, "resource"):
                self._mapped_resource(call, bound)
            elif isinstance(call, ast.Call) and _is_mapper(call, "connect"):
                self._connected(call, bound)
            elif isinstance(call, ast.Call) and _is_mapper(call, "create_route"):
                self._created_route(call, bound)
            elif isinstance(call, ast.Call) and _is_mapper(call, "redirect"):
                continue  # `mapper.redirect("", "/")`: no operation of its own
            elif isinstance(statement, ast.If) and _extension_loaded(statement.test):
                # cinder's `if ext_mgr.is_loaded('os-services'):`: a default deployment
                # loads every standard extension, so what it routes is served.
                self.block(statement.body, bound)
            elif isinstance(statement, ast.For) and isinstance(statement.target, ast.Name) \
                    and not statement.orelse:
                items = _literal(statement.iter, bound)
                if not isinstance(items, (list, tuple)) or len(items) > _MAX_ITEMS:
                    self._not_read(statement, "a loop over values that are not literal")
                    continue
                for item in items:
                    self.block(statement.body, {**bound, statement.target.id: item})
            else:
                self._not_read(statement, "a statement of the route setup")

    def extensions(self, folder: str) -> None:
        """The resources each extension module's descriptor adds (`get_resources`, read as
        masakari's are), and the actions its controller extensions add to a resource's
        `POST .../{id}/action` (`get_controller_extensions`)."""
        for path in sorted(p for p in self.interp.source.files if p.startswith(f"{folder}/")
                           and p.endswith(".py") and "/tests/" not in p):
            module, namespace = self.interp.namespace(path)
            if module.tree is None or namespace is None:
                continue
            for node in module.tree.body:
                cls = namespace.get(node.name) if isinstance(node, ast.ClassDef) else None
                if not isinstance(cls, ClassValue) or not isinstance(node, ast.ClassDef):
                    continue
                methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
                if "get_resources" in methods:
                    for resource in extension_resources(self.interp, cls, self.unread):
                        for op in resource_operations(resource, self.controllers,
                                                      f"{path}:{node.lineno}",
                                                      self.router.by_action):
                            self._add(op)
                if "get_controller_extensions" in methods:
                    self._controller_extensions(methods["get_controller_extensions"], path,
                                                namespace.scope)

    def _controller_extensions(self, method: ast.FunctionDef, path: str, scope: Scope) -> None:
        """`ControllerExtension(self, 'volumes', VolumeActionsController())`, also through a
        local name (`controller = X()`) or a loop over literal classes (`for class_ in (A,
        B): ... ControllerExtension(self, class_.collection, class_())`)."""
        found: list[tuple[ast.Call, dict[str, ast.expr]]] = []
        steps = [_MAX_STEPS]
        _extension_calls(method.body, {}, {}, found, steps)
        if steps[0] < 0:
            self.unread.append(Unread(path, method.lineno, "controller extensions past "
                                                           f"{_MAX_STEPS} statements"))
        for node, names in found:
            collection = self.interp.expr(_bound(node.args[1], names), scope)
            made = node.args[2]
            made_by = made.func if isinstance(made, ast.Call) else None
            if isinstance(made, ast.Name) and made.id in names:
                made_by = names[made.id]
            cls = self.interp.expr(_bound(made_by, names), scope) if made_by is not None \
                else None
            if not isinstance(collection, str) or not isinstance(cls, ClassValue):
                self.unread.append(Unread(path, node.lineno, "a controller extension is not "
                                                             "read: its actions are not seen"))
                continue
            for action, (klass, name) in sorted(self.controllers.actions(cls).items()):
                self._add(CodeOperation("POST", f"/{collection}/{{id}}/action", action,
                                        f"{path}:{node.lineno}",
                                        self.controllers.implementations(klass, name)))

    def _resource(self, statement: ast.Assign) -> bool:
        """`self.resources[KEY] = module.create_resource()`: KEY names that controller; so
        does a local name given one (`controller = self.resources[KEY]`)."""
        if len(statement.targets) != 1:
            return False
        target = statement.targets[0]
        key = _resource_key(target)
        if key is None and not isinstance(target, ast.Name):
            return False
        found = self._controller(statement.value) if _resource_key(statement.value) \
            or isinstance(statement.value, ast.Name) else self._controller_of(statement.value)
        if found is None:
            self._not_read(statement, "the controller assigned")
        if key is not None:
            self.resources[key] = found
        elif isinstance(target, ast.Name):
            self.names[target.id] = found
        return True

    def _controller_of(self, value: ast.expr) -> ClassValue | None:
        """The class `module.create_resource()` instantiates in `wsgi.Resource(Class())`."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
            return None
        module = self.interp.expr(value.func.value, self.scope)
        if not isinstance(module, ModuleRef):
            return None
        found, namespace = self.interp.namespace(module.path)
        if found.tree is None or namespace is None:
            return None
        function = next((node for node in found.tree.body if isinstance(node, ast.FunctionDef)
                         and node.name == value.func.attr), None)
        if function is None:
            return None
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and _last_name(node.func) == "Resource" \
                    and node.args and isinstance(node.args[0], ast.Call):
                cls = self.interp.expr(node.args[0].func, namespace.scope)
                return cls if isinstance(cls, ClassValue) else None
        return None

    def _mapped_resource(self, call: ast.Call, bound: dict[str, Any]) -> None:
        names = [_literal(arg, bound) for arg in call.args[:2]]
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        controller = self._controller(keywords.get("controller"))
        if len(names) < 2 or not isinstance(names[1], str) or controller is None:
            self._not_read(call, "a mapper.resource call")
            return
        resource: dict[str, Any] = {"collection": names[1], "controller": controller,
                                    "file": self.where, "line": call.lineno}
        for keyword, key in (("collection", "collection_actions"),
                             ("member", "member_actions"), ("parent_resource", "parent")):
            if keyword in keywords:
                value = _literal(keywords[keyword], bound)
                if not isinstance(value, dict):
                    self._not_read(call, f"mapper.resource's {keyword}")
                    return
                resource[key] = value
        for op in resource_operations(resource, self.controllers,
                                      f"{self.where}:{call.lineno}", self.router.by_action):
            self._add(op)

    def _connected(self, call: ast.Call, bound: dict[str, Any]) -> None:
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        path = _literal(call.args[1] if len(call.args) > 1 else keywords.get("path"), bound)
        action = _literal(keywords.get("action"), bound)
        conditions = _literal(keywords["conditions"], bound) if "conditions" in keywords \
            else {"method": ["GET"]}
        methods = conditions.get("method") if isinstance(conditions, dict) else None
        controller = self._controller(keywords.get("controller"))
        if not isinstance(path, str) or not isinstance(action, str) or controller is None \
                or not isinstance(methods, (list, tuple)) \
                or not all(isinstance(m, str) for m in methods):
            self._not_read(call, "a mapper.connect call")
            return
        self._route(call, path, tuple(methods), controller, action)

    def _created_route(self, call: ast.Call, bound: dict[str, Any]) -> None:
        """cinder's `mapper.create_route(path, method, controller, action)`."""
        if len(call.args) != 4 or call.keywords:
            self._not_read(call, "a mapper.create_route call")
            return
        values = [_literal(call.args[index], bound) for index in (0, 1, 3)]
        controller = self._controller(call.args[2])
        if not all(isinstance(v, str) for v in values) or controller is None:
            self._not_read(call, "a mapper.create_route call")
            return
        path, method, action = values
        self._route(call, path, (method,), controller, action)

    def _route(self, call: ast.Call, path: str, methods: tuple[str, ...],
               controller: ClassValue, action: str) -> None:
        implementations = self.controllers.implementations(controller, action)
        if not implementations:
            return  # a route to a method the controller lacks answers 404
        for method in methods:
            self._add(CodeOperation(method.upper(), path, None, f"{self.where}:{call.lineno}",
                                    implementations))

    def _controller(self, node: ast.expr | None) -> ClassValue | None:
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        key = _resource_key(node) if node is not None else None
        return self.resources.get(key) if key is not None else None

    def _add(self, op: CodeOperation) -> None:
        path = op.path.removeprefix(_PROJECT_PREFIX) or "/"
        key = (op.method, path, op.action)
        if key not in self.operations:  # the routes with and without the project's id
            self.operations[key] = CodeOperation(op.method, path, op.action, op.location,
                                                 op.implementations)

    def _not_read(self, node: ast.AST, what: str) -> None:
        self.unread.append(Unread(self.where, getattr(node, "lineno", 0),
                                  f"{what} is not read: its routes are not seen"))


def _is_mapper(call: ast.Call, name: str) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == name and isinstance(
        call.func.value, ast.Name) and call.func.value.id == "mapper"


def _extension_calls(statements: list[ast.stmt], names: dict[str, ast.expr],
                     made: dict[str, ast.expr],
                     found: list[tuple[ast.Call, dict[str, ast.expr]]], steps: list[int]
                     ) -> None:
    """The `ControllerExtension(self, collection, controller)` calls of a method's body,
    each with what its names stand for: a loop's variable (each literal item in turn) and a
    local `name = Class()` (the class). `steps`: statements left to walk (below 0: cut
    short)."""
    for statement in statements:
        steps[0] -= 1
        if steps[0] < 0:
            return
        if isinstance(statement, ast.For) and isinstance(statement.target, ast.Name) \
                and isinstance(statement.iter, (ast.Tuple, ast.List)) \
                and len(statement.iter.elts) <= _MAX_ITEMS:
            for item in statement.iter.elts:
                _extension_calls(statement.body, {**names, statement.target.id: item},
                                 dict(made), found, steps)
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) \
                and isinstance(statement.value, ast.Call):
            made[statement.targets[0].id] = _bound(statement.value.func, names)
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and _last_name(node.func) == "ControllerExtension" \
                    and len(node.args) == 3:
                found.append((node, {**names, **made}))


def _bound(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    """`node` with each name that stands for an expression replaced by it."""
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Attribute):
        return ast.Attribute(_bound(node.value, names), node.attr, node.ctx,
                             lineno=node.lineno, col_offset=node.col_offset)
    return node


def _extension_loaded(test: ast.expr) -> bool:
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) \
        and test.func.attr == "is_loaded"


def _resource_key(node: ast.expr) -> str | None:
    """`self.resources["shares"]` -> "shares"."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "resources" and isinstance(node.value.value, ast.Name) \
            and node.value.value.id == "self" and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(
        node, ast.Name) else ""


def _literal(node: ast.expr | None, bound: dict[str, Any]) -> Any:
    """A route argument's value: literals, the loop's names, `"%s/x" % name`, f-strings of
    names and `dict(key=literal)`; `_NOT` for anything else."""
    if node is None:
        return _NOT
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name):
        return bound.get(node.id, _NOT)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        left, right = _literal(node.left, bound), _literal(node.right, bound)
        if isinstance(node.op, ast.Add):
            return left + right if isinstance(left, str) and isinstance(right, str) else _NOT
        # Only `%s`: a width (`%999999999s`) would build a string as large as it says.
        if isinstance(left, str) and isinstance(right, (str, tuple)) and len(left) < 1000 \
                and not _FORMAT_OTHER.search(left):
            try:
                return left % right
            except (TypeError, ValueError):
                return _NOT
        return _NOT
    if isinstance(node, ast.JoinedStr):
        parts = [_literal(part.value, bound) if isinstance(part, ast.FormattedValue)
                 and part.format_spec is None and part.conversion == -1 else
                 _literal(part, bound) for part in node.values]
        return "".join(parts) if all(isinstance(p, str) for p in parts) else _NOT
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_literal(item, bound) for item in node.elts]
        if any(item is _NOT for item in items):
            return _NOT
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        pairs = [(_literal(k, bound), _literal(v, bound)) for k, v in zip(
            node.keys, node.values, strict=True) if k is not None]
        if len(pairs) != len(node.keys) or any(k is _NOT or v is _NOT for k, v in pairs):
            return _NOT
        return dict(pairs)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "dict" and not node.args:
        values = {k.arg: _literal(k.value, bound) for k in node.keywords if k.arg}
        if len(values) != len(node.keywords) or _NOT in values.values():
            return _NOT
        return values
    return _NOT
