"""Calls to in-repository functions: binding arguments to parameters, and the symbolic
value of a call the reader does not run (`<name(args)#hash>`), whose hash covers the
function's source and the same module's functions it names, transitively."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from needs_microversion.loaders.code.operations import Unknown
from needs_microversion.loaders.code.scopes import Scope
from needs_microversion.loaders.code.values import FunctionValue, Symbolic, digest

_MAX_SHOWN = 300  # characters of arguments written out; longer ones are hashed


def bind_arguments(spec: ast.arguments, args: list[Any], kwargs: dict[str, Any],
                   scope: Scope, default: Callable[[ast.expr], Any]) -> None:
    """Bind a call's arguments as Python would, or raise Unknown (a TypeError in Python)."""
    params = [*spec.posonlyargs, *spec.args]
    defaults = dict(zip([p.arg for p in params[len(params) - len(spec.defaults):]],
                        spec.defaults, strict=True))
    if len(args) > len(params) and spec.vararg is None:
        raise Unknown("too many positional arguments")
    for param, value in zip(params, args, strict=False):
        scope.bind(param.arg, value)
    if spec.vararg is not None:
        scope.bind(spec.vararg.arg, tuple(args[len(params):]))
    by_keyword = {p.arg for p in spec.args} | {p.arg for p in spec.kwonlyargs}
    extra: dict[str, Any] = {}
    for name, value in kwargs.items():
        if name in by_keyword and name not in scope.names:
            scope.bind(name, value)
        elif spec.kwarg is not None and name not in scope.names:
            extra[name] = value
        else:
            raise Unknown(f"an unexpected keyword argument '{name}'")
    if spec.kwarg is not None:
        scope.bind(spec.kwarg.arg, extra)
    kw_defaults = zip([p.arg for p in spec.kwonlyargs], spec.kw_defaults, strict=True)
    for name, node in [*defaults.items(), *kw_defaults]:
        if name not in scope.names:
            if node is None:
                raise Unknown(f"the argument '{name}' is missing")
            scope.bind(name, default(node))
    for param in params:
        if param.arg not in scope.names:
            raise Unknown(f"the argument '{param.arg}' is missing")


def describe_call(name: str, args: list[Any], kwargs: dict[str, Any], source_hash: str) -> str:
    shown = ", ".join([*(_text(a) for a in args),
                       *(f"{k}={_text(v)}" for k, v in sorted(kwargs.items()))])
    if len(shown) > _MAX_SHOWN:
        shown = "args#" + digest(shown)
    return f"<{name}({shown})#{source_hash}>"


def _text(value: Any) -> str:
    """A canonical spelling of a known value (dict keys sorted: their order is no meaning)."""
    if isinstance(value, Symbolic):
        return value.text
    if isinstance(value, dict):
        items = sorted((_text(k), _text(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_text(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(_text(v) for v in value)) + "}"
    return repr(value)


def source_digest(func: FunctionValue, text: str) -> str:
    """A hash of the function's source (decorators included) and of every function of the
    same module it names, transitively: a helper's helper changing changes the value."""
    tree = func.module.tree
    functions = {node.name: node for node in (tree.body if tree is not None else [])
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    lines = text.splitlines()
    parts: list[str] = []
    seen: set[str] = set()
    pending: list[ast.AST] = [func.node]
    while pending:
        node = pending.pop()
        parts.append(_segment(node, lines))
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in functions and inner.id not in seen:
                seen.add(inner.id)
                pending.append(functions[inner.id])
    return digest("\n".join(sorted(parts)))


def _segment(node: ast.AST, lines: list[str]) -> str:
    decorators = getattr(node, "decorator_list", [])
    first = min([getattr(node, "lineno", 1), *(d.lineno for d in decorators)])
    last = getattr(node, "end_lineno", None) or first
    return "\n".join(lines[first - 1:last])
