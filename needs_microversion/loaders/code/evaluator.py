"""Expressions, evaluated statically: the half of the code reader that turns an `ast.expr`
into a value (plain data, or a record of `values.py`), never running anything.

What it computes: literals (with `*` and `**` unpacking), names, attributes through
in-repository modules and classes, subscripts, operators on plain values, f-strings,
`IfExp`, comprehensions, lambdas, and calls to what `builtins.py` allows or to in-repository
functions and classes (interpreted by `interpreter.py`). Anything else is an `Opaque`
value carrying the file and line where it was met.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from needs_microversion.loaders.code import builtins
from needs_microversion.loaders.code.operations import (
    Unknown, binary, call_method, checked, compare, fits, items_of, truth, unary)
from needs_microversion.loaders.code.scopes import MISSING, Scope
from needs_microversion.loaders.code.values import (
    MAX_CONTAINER, MAX_DEPTH, BoundMethod, Budget, Builtin, ClassValue, External, FunctionValue,
    InstanceValue, ModuleRef, Opaque, Partial, Symbolic)

_PLAIN_RECEIVERS = (dict, list, set, tuple, str)


class Evaluator:
    """Evaluates expressions; `interpreter.Interpreter` adds modules, classes and calls."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        # id(container) -> (container, "file:line"): where each dict was written (a copy
        # keeps its original's place); the container is kept alive so its id stays unique.
        self.origins: dict[int, tuple[Any, str]] = {}
        self._handlers: dict[type[ast.AST], Callable[[Any, Scope], Any]] = {
            ast.Constant: self._constant, ast.Name: self._name, ast.Attribute: self._attribute,
            ast.Subscript: self._subscript, ast.Dict: self._dict, ast.List: self._list,
            ast.Tuple: self._tuple, ast.Set: self._set, ast.BinOp: self._binop,
            ast.UnaryOp: lambda n, s: unary(n.op, self._known(n.operand, s)),
            ast.BoolOp: self._boolop, ast.Compare: self._compare, ast.IfExp: self._ifexp,
            ast.JoinedStr: self._joined, ast.Call: self._call, ast.Lambda: self._lambda,
            ast.ListComp: self._listcomp, ast.GeneratorExp: self._listcomp,
            ast.SetComp: self._setcomp, ast.DictComp: self._dictcomp, ast.Slice: self._slice,
        }

    # -- hooks the interpreter provides ---------------------------------------------------
    def module_attribute(self, ref: ModuleRef, name: str, node: ast.AST, scope: Scope) -> Any:
        raise NotImplementedError

    def class_attribute(self, cls: ClassValue, name: str, node: ast.AST, scope: Scope) -> Any:
        raise NotImplementedError

    def call_function(self, func: FunctionValue, args: list[Any], kwargs: dict[str, Any],
                      node: ast.AST, scope: Scope) -> Any:
        raise NotImplementedError

    def instantiate(self, cls: ClassValue, args: list[Any], kwargs: dict[str, Any],
                    node: ast.AST, scope: Scope) -> Any:
        raise NotImplementedError

    # -- the entry point ------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: Scope) -> Any:
        """The value of `node`; an Opaque value when the reader does not compute it."""
        budget = self.budget
        budget.step()
        budget.depth += 1
        try:
            if budget.depth > MAX_DEPTH:
                raise Unknown("an expression nested too deeply")
            handler = self._handlers.get(type(node))
            if handler is None:
                raise Unknown(f"a {type(node).__name__} expression")
            return handler(node, scope)
        except Unknown as exc:
            return self.opaque(str(exc), node, scope)
        except RecursionError:
            return self.opaque("an expression nested too deeply", node, scope)
        finally:
            budget.depth -= 1

    def opaque(self, reason: str, node: ast.AST, scope: Scope) -> Opaque:
        return Opaque(reason, scope.module.path, getattr(node, "lineno", 0))

    def locate(self, value: Any, node: ast.AST, scope: Scope) -> None:
        """Remember where a dict was written (its first line)."""
        if isinstance(value, dict):
            self.origins[id(value)] = (value, f"{scope.module.path}:{getattr(node, 'lineno', 0)}")

    def copied(self, old: Any, new: Any) -> None:
        if id(old) in self.origins:
            self.origins[id(new)] = (new, self.origins[id(old)][1])

    def _known(self, node: ast.expr, scope: Scope) -> Any:
        """The value of `node`, raising Unknown when it is opaque (for operators)."""
        value = self.expr(node, scope)
        if isinstance(value, Opaque):
            raise Unknown(value.reason)
        return value

    # -- simple expressions ---------------------------------------------------------------
    def _constant(self, node: ast.Constant, scope: Scope) -> Any:
        value = node.value
        if type(value) is str and len(value) < 1024:  # most of a schema: no size to check
            return value
        return checked(value, self.budget)

    def _name(self, node: ast.Name, scope: Scope) -> Any:
        if node.id == "__name__":
            return scope.module.dotted
        found = scope.find(node.id)
        if found is MISSING:
            return builtins.builtin(node.id, self.budget)
        return found

    def _attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        return self.attribute(self.expr(node.value, scope), node.attr, node, scope)

    def attribute(self, value: Any, name: str, node: ast.AST, scope: Scope) -> Any:
        if isinstance(value, Opaque):
            return value
        if isinstance(value, ModuleRef):
            return self.module_attribute(value, name, node, scope)
        if isinstance(value, External):
            return builtins.external_attribute(value, name, self.budget, self.copied)
        if isinstance(value, ClassValue):
            return self.class_attribute(value, name, node, scope)
        if isinstance(value, InstanceValue):
            if name in value.attributes:
                return value.attributes[name]
            found = self.class_attribute(value.cls, name, node, scope)
            return BoundMethod(value, found) if isinstance(found, FunctionValue) else found
        if isinstance(value, _PLAIN_RECEIVERS) and not name.startswith("_"):
            return BoundMethod(value, name)
        raise Unknown(f"the attribute .{name} of a {type(value).__name__}")

    def _subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        base, index = self._known(node.value, scope), self._known(node.slice, scope)
        if isinstance(base, (dict, list, tuple, str)):
            try:
                return base[index]
            except (KeyError, IndexError, TypeError):
                raise Unknown("a subscript that fails") from None
        raise Unknown("a subscript of an unknown value")

    def _slice(self, node: ast.Slice, scope: Scope) -> slice:
        parts = [None if part is None else self._known(part, scope)
                 for part in (node.lower, node.upper, node.step)]
        if not all(p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in parts):
            raise Unknown("a slice of unknown bounds")
        return slice(*parts)

    # -- containers ---------------------------------------------------------------------
    def _dict(self, node: ast.Dict, scope: Scope) -> dict[Any, Any]:
        if len(node.keys) > MAX_CONTAINER:
            raise Unknown("a dict literal too large")
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # {**other}
                other = self._known(value, scope)
                if not isinstance(other, dict):
                    raise Unknown("** of something that is not a dict")
                result.update(other)
            else:
                result[self._key(key, scope)] = self.expr(value, scope)
        self.locate(result, node, scope)
        return checked(result, self.budget)

    def _key(self, node: ast.expr, scope: Scope) -> Any:
        key = self.expr(node, scope)
        try:
            hash(key)
        except TypeError:
            raise Unknown("an unhashable key") from None
        return key

    def _items(self, elts: list[ast.expr], scope: Scope) -> list[Any]:
        if len(elts) > MAX_CONTAINER:
            raise Unknown("a literal too large")
        result: list[Any] = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                result.extend(items_of(self._known(elt.value, scope)))
                fits(result)
            else:
                result.append(self.expr(elt, scope))
        return result

    def _list(self, node: ast.List, scope: Scope) -> list[Any]:
        return self._items(node.elts, scope)

    def _tuple(self, node: ast.Tuple, scope: Scope) -> tuple[Any, ...]:
        return tuple(self._items(node.elts, scope))

    def _set(self, node: ast.Set, scope: Scope) -> set[Any]:
        try:
            return set(self._items(node.elts, scope))
        except TypeError:
            raise Unknown("an unhashable set item") from None

    # -- operators ----------------------------------------------------------------------
    def _binop(self, node: ast.BinOp, scope: Scope) -> Any:
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        for side in (left, right):
            if isinstance(side, Opaque):
                return side
        return binary(node.op, left, right, self.budget)

    def _boolop(self, node: ast.BoolOp, scope: Scope) -> Any:
        value: Any = None
        for part in node.values:
            value = self._known(part, scope)
            if truth(value) == isinstance(node.op, ast.Or):
                return value
        return value

    def _compare(self, node: ast.Compare, scope: Scope) -> bool:
        left = self._known(node.left, scope)
        for op, part in zip(node.ops, node.comparators, strict=True):
            right = self._known(part, scope)
            if not compare(op, left, right):
                return False
            left = right
        return True

    def _ifexp(self, node: ast.IfExp, scope: Scope) -> Any:
        chosen = node.body if truth(self._known(node.test, scope)) else node.orelse
        return self.expr(chosen, scope)

    def _joined(self, node: ast.JoinedStr, scope: Scope) -> str:
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
            elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
                value = self._known(part.value, scope)
                if not isinstance(value, (str, int, float, bool, Symbolic)) and value is not None:
                    raise Unknown("an f-string of an unknown value")
                parts.append(repr(value) if part.conversion == ord("r") else str(value))
            else:
                raise Unknown("an f-string with a format spec")
        return checked("".join(parts), self.budget)

    # -- calls ------------------------------------------------------------------------
    def _call(self, node: ast.Call, scope: Scope) -> Any:
        func = self.expr(node.func, scope)
        if isinstance(func, Opaque):
            return func
        args = self._items(node.args, scope)
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                extra = self._known(keyword.value, scope)
                if not isinstance(extra, dict) or not all(isinstance(k, str) for k in extra):
                    raise Unknown("** of something that is not a dict of names")
                kwargs.update(extra)
            else:
                kwargs[keyword.arg] = self.expr(keyword.value, scope)
        return self.call(func, args, kwargs, node, scope)

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST,
             scope: Scope) -> Any:
        if isinstance(func, Builtin):
            return func.call(args, kwargs)
        if isinstance(func, BoundMethod):
            if isinstance(func.receiver, InstanceValue):
                return self.call(func.func, [func.receiver, *args], kwargs, node, scope)
            return call_method(func.receiver, func.func, args, kwargs, self.budget)
        if isinstance(func, FunctionValue):
            return self.call_function(func, args, kwargs, node, scope)
        if isinstance(func, ClassValue):
            return self.instantiate(func, args, kwargs, node, scope)
        if isinstance(func, Partial):
            return self.call(func.func, [*func.args, *args], kwargs, node, scope)
        if isinstance(func, External):
            raise Unknown(f"a call to {func.dotted} (outside the repository)")
        raise Unknown(f"a call to a {type(func).__name__}")

    def _lambda(self, node: ast.Lambda, scope: Scope) -> FunctionValue:
        return FunctionValue(node, scope, scope.module, "<lambda>", False)

    # -- comprehensions ---------------------------------------------------------------
    def _comprehension(self, generators: list[ast.comprehension], scope: Scope,
                       produce: Callable[[Scope], None]) -> None:
        def walk(index: int, inner: Scope) -> None:
            if index == len(generators):
                produce(inner)
                return
            gen = generators[index]
            for item in items_of(self._known(gen.iter, inner)):
                level = inner.child()
                self.bind(gen.target, item, level)
                if all(truth(self._known(test, level)) for test in gen.ifs):
                    walk(index + 1, level)

        walk(0, scope)

    def _listcomp(self, node: ast.ListComp | ast.GeneratorExp, scope: Scope) -> list[Any]:
        result: list[Any] = []

        def produce(inner: Scope) -> None:
            result.append(checked(self.expr(node.elt, inner), self.budget))
            fits(result)

        self._comprehension(node.generators, scope, produce)
        return result

    def _setcomp(self, node: ast.SetComp, scope: Scope) -> set[Any]:
        return set(self._listcomp(ast.ListComp(node.elt, node.generators), scope))

    def _dictcomp(self, node: ast.DictComp, scope: Scope) -> dict[Any, Any]:
        result: dict[Any, Any] = {}

        def produce(inner: Scope) -> None:
            result[self._key(node.key, inner)] = self.expr(node.value, inner)
            fits(result)

        self._comprehension(node.generators, scope, produce)
        self.locate(result, node, scope)
        return result

    def bind(self, target: ast.expr, value: Any, scope: Scope) -> None:
        """Bind a name or unpack into a tuple of names (loop targets, assignments)."""
        if isinstance(target, ast.Name):
            scope.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = items_of(value) if not isinstance(value, Opaque) else None
            if items is None or len(items) != len(target.elts) or any(
                    isinstance(t, ast.Starred) for t in target.elts):
                raise Unknown("an unpacking the reader cannot follow")
            for sub, item in zip(target.elts, items, strict=True):
                self.bind(sub, item, scope)
        else:
            raise Unknown(f"an assignment to a {type(target).__name__}")
