"""The maximum microversion a project's version file declares, read with `ast`.

The file is never imported or executed: a small evaluator resolves the module- and
class-level assignments the eleven services use, at any revision of their history:

| spelling | projects | example |
| --- | --- | --- |
| `_MAX_API_VERSION` | nova, cinder, manila, masakari, senlin | `_MAX_API_VERSION = "2.104"` |
| `CURRENT_MAX_VER` | zun, magnum | `CURRENT_MAX_VER = '1.40'` |
| `MINOR_MAX_VERSION`, `BASE_VERSION` | ironic, cyborg, watcher | `MINOR_MAX_VERSION = MINOR_1_X` |
| `_MAX_VERSION_STRING` | ironic, cyborg, watcher | `'{}.{}'.format(BASE, MINOR)` |
| `VERSIONS` list, last entry | placement | `VERSIONS = ['1.0', ..., '1.39']` |

Aliases (`MINOR_MAX_VERSION = MINOR_115_NODE_HISTORY`), enum members (watcher's
`VERSIONS.MINOR_MAX_VERSION.value`), `'{}.{}'.format(a, b)`, `'%s.%s' % (a, b)`, f-strings,
lists and subscripts (`VERSIONS[-1]`) are followed. Only plain `{}`/`%s` placeholders are
formatted (no width or precision: a `'{:>999999999}'` in a hostile file would build a
gigabyte string), and every value stays small.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from needs_microversion.errors import InputError
from needs_microversion.model.versions import Version, parse_version

MAX_API_VERSION, CURRENT_MAX_VER, MINOR_MAX_VERSION, MAX_VERSION_STRING, VERSIONS = (
    "_MAX_API_VERSION", "CURRENT_MAX_VER", "MINOR_MAX_VERSION", "MAX_VERSION_STRING",
    "VERSIONS")
MAX_SOURCE_BYTES = 1 * 2**20  # real version files: < 40 kB
_MAX_VALUE_CHARS = 200  # a version, or the text a format builds it from
_MAX_LIST = 10_000  # placement's VERSIONS list has ~40 entries
_PLAIN_FORMAT = re.compile(r"^(?:[^{}]|\{\d?\}|\{\{|\}\})*$")
_PLAIN_PERCENT = re.compile(r"^(?:[^%]|%[sdi]|%%)*$")


@dataclass(frozen=True)
class VersionFile:
    """What one version file says."""

    max_version: Version
    convention: str  # MAX_API_VERSION, CURRENT_MAX_VER, MINOR_MAX_VERSION or VERSIONS
    text: str = field(default="", repr=False, compare=False)  # what the bookkeeping reads


class _Unknown(Exception):
    """A name or expression the evaluator does not resolve."""


class _Scope(dict[str, Any]):
    """The names a class body defines (an enum, or a plain class of constants)."""


def read_version_file(text: str, source: str = "version file") -> VersionFile:
    """The maximum microversion a version file declares (InputError when it declares none)."""
    if len(text) > MAX_SOURCE_BYTES:
        raise InputError(f"is larger than {MAX_SOURCE_BYTES // 2**20} MiB", source)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte
        raise InputError(f"cannot parse the version file: {getattr(exc, 'msg', exc)}", source,
                         getattr(exc, "lineno", None)) from None
    except (RecursionError, MemoryError):
        raise InputError("cannot parse the version file: nested too deeply", source) from None
    names = _Evaluator(tree)
    for convention, read in _CONVENTIONS:
        try:
            version = parse_version(read(names))
        except (_Unknown, RecursionError):
            continue
        if version is not None:
            return VersionFile(version, convention, text)
    raise InputError("no maximum microversion found (looked for _MAX_API_VERSION, "
                     "CURRENT_MAX_VER, MINOR_MAX_VERSION with BASE_VERSION, "
                     "MAX_VERSION_STRING, VERSIONS)", source)


def _minor(names: _Evaluator) -> str:
    minor = names.find(MINOR_MAX_VERSION)
    if isinstance(minor, _Scope):  # watcher: `class VERSIONS(Enum): MINOR_MAX_VERSION = ...`
        raise _Unknown(MINOR_MAX_VERSION)
    return f"{names.find('BASE_VERSION')}.{minor}"


def _enum_minor(names: _Evaluator) -> str:
    versions = names.find(VERSIONS)
    if not isinstance(versions, _Scope) or MINOR_MAX_VERSION not in versions:
        raise _Unknown(VERSIONS)
    return f"{names.find('BASE_VERSION')}.{versions[MINOR_MAX_VERSION]}"


def _last_listed(names: _Evaluator) -> Any:
    listed = names.find(VERSIONS)
    if not isinstance(listed, list) or not listed:
        raise _Unknown(VERSIONS)
    return listed[-1]


_CONVENTIONS: tuple[tuple[str, Callable[[_Evaluator], Any]], ...] = (
    (MAX_API_VERSION, lambda names: names.find(MAX_API_VERSION)),
    (CURRENT_MAX_VER, lambda names: names.find(CURRENT_MAX_VER)),
    (MINOR_MAX_VERSION, lambda names: names.find("_" + MAX_VERSION_STRING)),
    (MINOR_MAX_VERSION, lambda names: names.find(MAX_VERSION_STRING)),
    (MINOR_MAX_VERSION, _minor),
    (MINOR_MAX_VERSION, _enum_minor),
    (VERSIONS, _last_listed),
)


class _Evaluator:
    """Module- and class-level assignments, evaluated as far as plain constants go."""

    def __init__(self, tree: ast.Module) -> None:
        self.module: dict[str, Any] = {}
        self._run(tree.body, self.module, None)

    def find(self, name: str) -> Any:
        """A module-level name, else the same name in a class body."""
        if name in self.module and self.module[name] is not _Unknown:
            return self.module[name]
        for value in self.module.values():
            if isinstance(value, _Scope) and value.get(name, _Unknown) is not _Unknown:
                return value[name]
        raise _Unknown(name)

    def _run(self, body: list[ast.stmt], scope: dict[str, Any],
             outer: dict[str, Any] | None) -> None:
        for node in body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                try:
                    value = self._eval(node.value, scope, outer)
                except _Unknown:
                    value = _Unknown
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        scope[target.id] = value
            elif isinstance(node, ast.ClassDef):
                inner = _Scope()
                self._run(node.body, inner, scope)
                scope[node.name] = inner
            elif isinstance(node, (ast.If, ast.Try)):  # the main branch (rare here)
                self._run(node.body, scope, outer)

    def _name(self, name: str, scope: dict[str, Any], outer: dict[str, Any] | None) -> Any:
        for names in (scope, outer, self.module):
            if names is not None and name in names:
                if names[name] is _Unknown:
                    break
                return names[name]
        raise _Unknown(name)

    def _eval(self, node: ast.expr, scope: dict[str, Any], outer: dict[str, Any] | None
              ) -> Any:
        value = self._value(node, scope, outer)
        if isinstance(value, str) and len(value) > _MAX_VALUE_CHARS:
            raise _Unknown("a long string")
        return value

    def _value(self, node: ast.expr, scope: dict[str, Any], outer: dict[str, Any] | None
               ) -> Any:
        def ev(child: ast.expr) -> Any:
            return self._eval(child, scope, outer)

        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, int)) and not isinstance(node.value, bool):
                return node.value
            raise _Unknown("a constant")
        if isinstance(node, ast.Name):
            return self._name(node.id, scope, outer)
        if isinstance(node, ast.Attribute):
            base = ev(node.value)
            if isinstance(base, _Scope) and base.get(node.attr, _Unknown) is not _Unknown:
                return base[node.attr]
            if node.attr == "value" and not isinstance(base, _Scope):  # an enum member
                return base
            raise _Unknown(node.attr)
        if isinstance(node, ast.List) and len(node.elts) <= _MAX_LIST:
            return [ev(item) for item in node.elts]
        if isinstance(node, ast.Tuple) and len(node.elts) <= _MAX_LIST:
            return tuple(ev(item) for item in node.elts)
        if isinstance(node, ast.Subscript):
            base, index = ev(node.value), ev(node.slice)
            if isinstance(base, (list, tuple)) and type(index) is int \
                    and -len(base) <= index < len(base):
                return base[index]
            raise _Unknown("a subscript")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = ev(node.operand)
            if type(operand) is int:
                return -operand
        if isinstance(node, ast.BinOp):
            return self._binary(node, ev(node.left), ev(node.right))
        if isinstance(node, ast.JoinedStr):
            return "".join(self._part(part, ev) for part in node.values)
        if isinstance(node, ast.Call):
            return self._call(node, ev)
        raise _Unknown(type(node).__name__)

    @staticmethod
    def _binary(node: ast.BinOp, left: Any, right: Any) -> Any:
        if isinstance(node.op, ast.Mod) and isinstance(left, str) \
                and _PLAIN_PERCENT.match(left):
            try:
                return left % right
            except (TypeError, ValueError):
                raise _Unknown("a % format") from None
        if isinstance(node.op, ast.Add) and type(left) is type(right) \
                and isinstance(left, (str, int)):
            return left + right
        raise _Unknown("an operator")

    @staticmethod
    def _part(part: ast.expr, ev: Callable[[ast.expr], Any]) -> str:
        if isinstance(part, ast.Constant):
            return str(part.value)
        if isinstance(part, ast.FormattedValue) and part.format_spec is None \
                and part.conversion == -1:
            return str(ev(part.value))
        raise _Unknown("an f-string")

    @staticmethod
    def _call(node: ast.Call, ev: Callable[[ast.expr], Any]) -> Any:
        func = node.func
        if node.keywords:
            raise _Unknown("a call")
        if isinstance(func, ast.Attribute) and func.attr == "format":
            template = ev(func.value)
            if isinstance(template, str) and _PLAIN_FORMAT.match(template):
                try:
                    return template.format(*(ev(arg) for arg in node.args))
                except (IndexError, KeyError, ValueError):
                    raise _Unknown("a format") from None
        if isinstance(func, ast.Name) and func.id in ("str", "int") and len(node.args) == 1:
            value = ev(node.args[0])
            if func.id == "str":
                return str(value)
            if isinstance(value, int) or (isinstance(value, str) and value.isdigit()
                                          and len(value) < 10):
                return int(value)
        raise _Unknown("a call")
