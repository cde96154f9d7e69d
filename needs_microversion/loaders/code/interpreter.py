"""Statements, modules, functions and classes for the static code reader.

`Interpreter` extends the expression evaluator with what a module body does: imports
(resolved to repository files, loaded lazily through `SourceTree`), assignments and
in-place edits of plain data, `if`/`for` at module level, function definitions (small pure
functions are interpreted under a step budget when called) and classes (read as
namespaces; a simple `__init__` sets an instance's attributes).

Nothing is imported and nothing runs: a statement the reader does not follow binds its
names to Opaque values at module level, and makes an interpreted call fall back to a
symbolic value (all arguments known: `<helper(args)#source-hash>`) or an Opaque one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from needs_microversion.loaders.code.evaluator import Evaluator
from needs_microversion.loaders.code.calls import bind_arguments, describe_call, source_digest
from needs_microversion.loaders.code.operations import (
    Unknown, binary, fits, items_of, truth)
from needs_microversion.loaders.code.scopes import (
    MISSING, Module, Namespace, Scope, binds, changed_names)
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import (
    MAX_CALL_DEPTH, MAX_CALL_STEPS, MAX_DEPTH, Budget, CallFailed, ClassValue, External,
    FunctionValue, InstanceValue, ModuleRef, Opaque, Symbolic, is_concrete)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Interpreter(Evaluator):
    """Evaluates one revision's modules, on demand, within one budget."""

    def __init__(self, source: SourceTree, budget: Budget | None = None) -> None:
        super().__init__(budget or Budget())
        self.source = source
        self._namespaces: dict[str, tuple[Module, Namespace | None]] = {}
        self._digests: dict[int, str] = {}
        self._generators: dict[int, bool] = {}
        self._call_depth = 0
        self._floor = -1  # the step count below which the current interpreted call fails
        self._statements: dict[type[ast.AST], Callable[[Any, Scope], None]] = {
            ast.Assign: self._assign, ast.AnnAssign: self._annassign,
            ast.AugAssign: self._augassign, ast.Expr: self._expression, ast.If: self._if,
            ast.For: self._for, ast.Try: self._try, ast.FunctionDef: self._def,
            ast.AsyncFunctionDef: self._def, ast.ClassDef: self._class,
            ast.Import: self._import, ast.ImportFrom: self._import_from,
            ast.Return: self._return, ast.Delete: self._delete,
            ast.Pass: lambda n, s: None, ast.Assert: lambda n, s: None,
            ast.Break: self._break, ast.Continue: self._continue,
        }

    # -- modules --------------------------------------------------------------------------
    def namespace(self, path: str) -> tuple[Module, Namespace | None]:
        """A repository module's (lazy) namespace; None when it cannot be read."""
        if path not in self._namespaces:
            dotted = SourceTree.dotted_name(path)
            parsed = self.source.parse(path) if path else "a namespace package"
            if isinstance(parsed, str):
                self._namespaces[path] = (Module(path, dotted, None, parsed), None)
            else:
                module = Module(path, dotted, parsed)
                self._namespaces[path] = (module, Namespace(parsed.body, module, None,
                                                            self.exec_stmt))
        return self._namespaces[path]

    def import_value(self, dotted: str) -> ModuleRef | External:
        path = self.source.module_path(dotted)
        if path is not None:
            return ModuleRef(path, dotted)
        if self.source.is_package_dir(dotted):
            return ModuleRef("", dotted)
        return External(dotted)

    def module_attribute(self, ref: ModuleRef, name: str, node: ast.AST, scope: Scope) -> Any:
        module, namespace = self.namespace(ref.path)
        if namespace is None or not namespace.bound(name):
            sub = self.import_value(f"{ref.dotted}.{name}")
            if isinstance(sub, ModuleRef):
                return sub
        if namespace is None:
            raise Unknown(f"{ref.dotted}.{name}: {module.reason or 'the module is unreadable'}")
        found = namespace.get(name)
        if (found is MISSING or isinstance(found, Opaque)) and ref.path.endswith("/__init__.py"):
            # A package's own `from pkg import submodule` (ironic's v1 `__init__`), read
            # while the package is being read: the name is that submodule.
            sub = self.import_value(f"{ref.dotted}.{name}")
            if isinstance(sub, ModuleRef):
                return sub
        if found is MISSING:
            raise Unknown(f"{ref.dotted}.{name} is not defined")
        return found

    # -- classes --------------------------------------------------------------------------
    def class_attribute(self, cls: ClassValue, name: str, node: ast.AST, scope: Scope) -> Any:
        for klass in self.mro(cls):
            if not isinstance(klass, ClassValue):
                if klass == External("builtins.object"):
                    continue
                raise Unknown(f"{cls.name}.{name} may come from a class outside the repository")
            found = klass.namespace.get(name)
            if found is not MISSING:
                return found
        raise Unknown(f"{cls.name}.{name} is not defined")

    def mro(self, cls: ClassValue) -> list[Any]:
        """The class, then its bases depth-first (what nova's controllers need)."""
        order: list[Any] = []
        pending: list[Any] = [cls]
        while pending and len(order) < 50:
            klass = pending.pop(0)
            if any(klass is seen for seen in order):
                continue
            order.append(klass)
            if isinstance(klass, ClassValue):
                pending[:0] = list(klass.bases)
        return order

    def instantiate(self, cls: ClassValue, args: list[Any], kwargs: dict[str, Any],
                    node: ast.AST, scope: Scope) -> Any:
        instance = InstanceValue(cls)
        try:
            init = self.class_attribute(cls, "__init__", node, scope)
        except Unknown:
            if all(isinstance(k, ClassValue) or k == External("builtins.object")
                   for k in self.mro(cls)):
                return instance  # no __init__ anywhere: a plain instance
            raise
        if not isinstance(init, FunctionValue):
            raise Unknown(f"{cls.name}.__init__ is not a plain function")
        try:
            self.interpret(init, [instance, *args], kwargs)
        except CallFailed as exc:
            raise Unknown(f"{cls.name}(): {exc}") from None
        return instance

    # -- functions ------------------------------------------------------------------------
    def call_function(self, func: FunctionValue, args: list[Any], kwargs: dict[str, Any],
                      node: ast.AST, scope: Scope) -> Any:
        try:
            return self.interpret(func, args, kwargs)
        except CallFailed as exc:
            if is_concrete([args, kwargs]):
                return Symbolic(describe_call(func.name, args, kwargs, self.digest_of(func)))
            return self.opaque(f"{func.name}(): {exc}", node, scope)

    def interpret(self, func: FunctionValue, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run an in-repository function's body on known values; CallFailed otherwise."""
        if func.decorated:
            raise CallFailed("a decorated function (the decorator may change it)")
        if self._call_depth >= MAX_CALL_DEPTH or self.budget.depth > MAX_DEPTH // 2:
            raise CallFailed("calls nested too deeply")
        if self._is_generator(func.node):
            raise CallFailed("a generator")
        local = func.scope.child()
        try:
            bind_arguments(func.node.args, args, kwargs, local, lambda n: self.expr(n, func.scope))
        except Unknown as exc:
            raise CallFailed(str(exc)) from None
        floor, self._floor = self._floor, max(self._floor, self.budget.steps - MAX_CALL_STEPS)
        self._call_depth += 1
        try:
            if isinstance(func.node, ast.Lambda):
                return self._plain(self.expr(func.node.body, local))
            for statement in func.node.body:
                self.exec_stmt(statement, local)
            return None
        except _Return as returned:
            return self._plain(returned.value)
        except (_Break, _Continue, Unknown) as exc:
            raise CallFailed(str(exc) or "a loop statement outside a loop") from None
        finally:
            self._call_depth -= 1
            self._floor = floor

    def _is_generator(self, node: ast.AST) -> bool:
        if id(node) not in self._generators:
            self._generators[id(node)] = any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await))
                                             for n in ast.walk(node))
        return self._generators[id(node)]

    @staticmethod
    def _plain(value: Any) -> Any:
        if isinstance(value, Opaque):
            raise CallFailed(value.reason)
        return value

    def digest_of(self, func: FunctionValue) -> str:
        key = id(func.node)
        if key not in self._digests:
            self._digests[key] = source_digest(func, self.source.text(func.module.path) or "")
        return self._digests[key]

    # -- statements ---------------------------------------------------------------------
    def exec_stmt(self, node: ast.stmt, scope: Scope) -> None:
        budget = self.budget
        budget.step()
        if scope.namespace is None and budget.steps < self._floor:
            raise CallFailed("the call took too many steps")
        budget.depth += 1
        try:
            if budget.depth > MAX_DEPTH:
                raise Unknown("statements nested too deeply")
            handler = self._statements.get(type(node))
            if handler is None:
                raise Unknown(f"a {type(node).__name__} statement")
            handler(node, scope)
        except Unknown as exc:
            if scope.namespace is None:
                raise CallFailed(str(exc)) from None
            self._poison(node, scope, str(exc))
        except RecursionError:
            if scope.namespace is None:
                raise CallFailed("nested too deeply") from None
            self._poison(node, scope, "nested too deeply")
        finally:
            budget.depth -= 1

    def _poison(self, node: ast.stmt, scope: Scope, reason: str) -> None:
        """A module- or class-level statement not followed: what it binds or edits is
        unknown from here on."""
        for name in [*binds(node), *changed_names(node)]:
            scope.bind(name, Opaque(reason, scope.module.path, node.lineno))

    def _run(self, body: list[ast.stmt], scope: Scope) -> None:
        for statement in body:
            self.exec_stmt(statement, scope)

    def _assign(self, node: ast.Assign, scope: Scope) -> None:
        value = self.expr(node.value, scope)
        for target in node.targets:
            self.assign(target, value, scope)
        if scope.namespace is not None and isinstance(node.value, ast.Call):
            self.locate(value, node, scope)  # a copy made here is "written" here

    def _annassign(self, node: ast.AnnAssign, scope: Scope) -> None:
        if node.value is not None:
            self.assign(node.target, self.expr(node.value, scope), scope)

    def assign(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Subscript):
            base, key = self._known(target.value, scope), self._known(target.slice, scope)
            if isinstance(base, dict):
                try:
                    base[key] = value
                except TypeError:
                    raise Unknown("an unhashable key") from None
            elif isinstance(base, list) and isinstance(key, int) and -len(base) <= key < len(
                    base):
                base[key] = value
            else:
                raise Unknown("an item assignment the reader cannot follow")
            fits(base)
        elif isinstance(target, ast.Attribute):
            base = self._known(target.value, scope)
            if not isinstance(base, InstanceValue):
                raise Unknown("an attribute assignment outside an instance")
            base.attributes[target.attr] = value
        else:
            self.bind(target, value, scope)

    def _augassign(self, node: ast.AugAssign, scope: Scope) -> None:
        value = self._known(node.value, scope)
        target = node.target
        load = ast.Subscript(target.value, target.slice, ast.Load()) if isinstance(
            target, ast.Subscript) else ast.Name(target.id, ast.Load()) if isinstance(
            target, ast.Name) else None
        if load is None:
            raise Unknown("an augmented assignment the reader cannot follow")
        ast.copy_location(load, node)
        current = self._known(load, scope)
        if isinstance(current, list) and isinstance(node.op, ast.Add):
            items = items_of(value)
            self.budget.step(len(items))
            current.extend(items)  # `+=` extends the list in place (aliases see it)
            fits(current)
            return
        self.assign(target, binary(node.op, current, value, self.budget), scope)

    def _expression(self, node: ast.Expr, scope: Scope) -> None:
        """A call whose result is dropped matters only for what it edits: a method of plain
        data, or an in-repository function given our data. Calls into other modules
        (registering options, logging) are skipped unevaluated."""
        call = node.value
        if not isinstance(call, ast.Call):
            return
        if isinstance(call.func, ast.Attribute):
            receiver = self.expr(call.func.value, scope)
            if not isinstance(receiver, (dict, list, set, InstanceValue)):
                return
        elif not isinstance(self.expr(call.func, scope), FunctionValue):
            return
        if isinstance(self.expr(call, scope), Opaque):
            raise Unknown("a call that edits data the reader cannot follow")

    def _if(self, node: ast.If, scope: Scope) -> None:
        self._run(node.body if truth(self._known(node.test, scope)) else node.orelse, scope)

    def _for(self, node: ast.For, scope: Scope) -> None:
        for item in items_of(self._known(node.iter, scope)):
            self.bind(node.target, item, scope)
            try:
                self._run(node.body, scope)
            except _Break:
                return
            except _Continue:
                continue
        self._run(node.orelse, scope)

    def _try(self, node: ast.Try, scope: Scope) -> None:
        self._run(node.body, scope)  # the path without exceptions
        self._run(node.orelse, scope)
        self._run(node.finalbody, scope)

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        # A function sees the enclosing function's names and the module's, never those of
        # the class whose body defines it.
        home = scope if scope.namespace is None else self._module_scope(scope)
        scope.bind(node.name, FunctionValue(node, home, scope.module, node.name,
                                            bool(node.decorator_list)))

    def _class(self, node: ast.ClassDef, scope: Scope) -> None:
        bases = tuple(self.expr(base, scope) for base in node.bases)
        outer = scope if scope.namespace is None else self._module_scope(scope)
        namespace = Namespace(node.body, scope.module, outer, self.exec_stmt)
        scope.bind(node.name, ClassValue(node.name, namespace, bases, scope.module, node))

    def _module_scope(self, scope: Scope) -> Scope:
        namespace = self.namespace(scope.module.path)[1]
        return namespace.scope if namespace is not None else scope

    def _import(self, node: ast.Import, scope: Scope) -> None:
        for alias in node.names:
            if alias.asname:
                scope.bind(alias.asname, self.import_value(alias.name))
            else:
                root = alias.name.split(".")[0]
                scope.bind(root, self.import_value(root))

    def _import_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        base = SourceTree.absolute(scope.module.path, node.level, node.module)
        source = self.import_value(base)
        for alias in node.names:
            if alias.name == "*":
                self._import_star(source, scope)
                continue
            try:
                value = self.attribute(source, alias.name, node, scope)
            except Unknown as exc:
                value = Opaque(str(exc), scope.module.path, node.lineno)
            scope.bind(alias.asname or alias.name, value)

    def _import_star(self, source: ModuleRef | External, scope: Scope) -> None:
        if not isinstance(source, ModuleRef):
            raise Unknown(f"from {source.dotted} import * (outside the repository)")
        namespace = self.namespace(source.path)[1]
        if namespace is None:
            raise Unknown(f"from {source.dotted} import * (unreadable)")
        namespace.run_all()
        for name, value in list(namespace.names.items()):
            if not name.startswith("_"):
                scope.bind(name, value)

    def _return(self, node: ast.Return, scope: Scope) -> None:
        raise _Return(None if node.value is None else self.expr(node.value, scope))

    def _break(self, node: ast.Break, scope: Scope) -> None:
        raise _Break()

    def _continue(self, node: ast.Continue, scope: Scope) -> None:
        raise _Continue()

    def _delete(self, node: ast.Delete, scope: Scope) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                scope.unbind(target.id)
                continue
            if not isinstance(target, ast.Subscript):
                raise Unknown("a del the reader cannot follow")
            base, key = self._known(target.value, scope), self._known(target.slice, scope)
            try:
                if isinstance(base, (dict, list)):
                    del base[key]
                    continue
            except (KeyError, IndexError, TypeError):
                pass
            raise Unknown("a del that fails")
