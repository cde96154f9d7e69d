"""A draft-04 JSON Schema compiled into one yes/no function: is an instance valid?

jsonschema's `Draft4Validator` spends most of a validated run building an error tree for
documents that almost always have no error (a new validator object per step, a generator per
keyword). A compiled predicate answers the same yes/no question an order of magnitude faster;
only when it says "no" (or fails) does the caller ask jsonschema for the errors, so the
problems reported are jsonschema's own.

Exactness is by construction: each keyword that `Draft4Validator` knows is either compiled
here with its semantics (type checks as its type checker, `$ref` ignoring its siblings,
patterns with `re.search`, equality as `jsonschema._utils.equal`) or makes the schema
`Unsupported`, and the caller keeps jsonschema alone. Keywords it does not know are
annotations to it and to us alike.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urldefrag, urljoin

from jsonschema import _utils
from jsonschema.validators import Draft4Validator

Predicate = Callable[[Any], bool]

_DRAFT4_KEYWORDS = frozenset(Draft4Validator.VALIDATORS)
_MEMBER_KEYWORDS = frozenset({"properties", "patternProperties", "additionalProperties"})


class Unsupported(Exception):
    """The schema uses something this compiler does not reproduce exactly."""


def _is_object(x: Any) -> bool:
    return isinstance(x, dict)


def _is_array(x: Any) -> bool:
    return isinstance(x, list)


def _is_string(x: Any) -> bool:
    return isinstance(x, str)


def _is_bool(x: Any) -> bool:
    return isinstance(x, bool)


def _is_null(x: Any) -> bool:
    return x is None


def _is_integer(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


# Draft 4's type checker (jsonschema._types.draft4_type_checker), type by type.
_TYPES: dict[str, Predicate] = {
    "object": _is_object, "array": _is_array, "string": _is_string, "boolean": _is_bool,
    "null": _is_null, "integer": _is_integer, "number": _is_number,
}


def compile_draft4(validator: Any) -> Predicate:
    """The predicate of a jsonschema `Draft4Validator` instance (its schema, its registry
    for `$ref`s, its format checker); `Unsupported` for anything else."""
    return compile_draft4_refs(validator)[0]


def compile_draft4_refs(validator: Any) -> tuple[Predicate, dict[int, Predicate]]:
    """`compile_draft4`, and the predicate of each `{"$ref": ...}` node of the schema (by
    the node's id): what that node says of an instance, in its own resolution scope."""
    cls = validator.__class__  # not type(): the validator may be a lazy proxy
    if cls is not Draft4Validator:
        raise Unsupported(f"not a draft-04 validator: {cls.__name__}")
    schema = validator.schema
    base = schema.get("id", "") if isinstance(schema, dict) else ""
    compiler = _Compiler(validator.format_checker)
    predicate = compiler.node(schema, validator._resolver, base)
    return predicate, {k: v for k, v in compiler.ref_nodes.items() if v is not None}


class _Compiler:
    def __init__(self, format_checker: Any) -> None:
        self.format_checker = format_checker
        self.refs: dict[str, list[Predicate]] = {}  # absolute URI -> cell (recursion)
        self.ref_nodes: dict[int, Predicate | None] = {}  # None: met in two scopes
        self.ref_uri: dict[int, str] = {}
        self.keep: list[Any] = []  # the nodes of ref_nodes, alive while their ids are keys

    def node(self, schema: Any, resolver: Any, base: str) -> Predicate:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise Unsupported(f"not a schema: {schema!r:.60}")
        if schema.get("$ref") is not None:  # draft 4: siblings of $ref are ignored
            predicate = self.ref(schema["$ref"], resolver, base)
            uri = urljoin(base, schema["$ref"])
            known = self.ref_nodes.get(id(schema), predicate)
            self.ref_nodes[id(schema)] = predicate if self.ref_uri.get(id(schema), uri) == uri \
                and known is not None else None
            self.ref_uri[id(schema)] = uri
            self.keep.append(schema)
            return predicate
        nested_id = schema.get("id")
        if isinstance(nested_id, str) and urldefrag(nested_id).url != urldefrag(base).url:
            raise Unsupported("a nested id changes the resolution scope")
        checks = [self.keyword(k, v, schema, resolver, base) for k, v in schema.items()
                  if k in _DRAFT4_KEYWORDS and k not in _MEMBER_KEYWORDS]
        if any(k in schema for k in _MEMBER_KEYWORDS):
            checks.insert(0, self.members(schema, resolver, base))
        checks = [c for c in checks if c is not _always]
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]

        def every(x: Any) -> bool:
            for check in checks:
                if not check(x):
                    return False
            return True

        return every

    def ref(self, ref: str, resolver: Any, base: str) -> Predicate:
        uri = urljoin(base, ref)
        cell = self.refs.get(uri)
        if cell is None:
            cell = self.refs[uri] = []
            resolved = resolver.lookup(ref)
            cell.append(self.node(resolved.contents, resolved.resolver, urldefrag(uri).url))
        return lambda x: cell[0](x)

    def subschemas(self, value: Any, resolver: Any, base: str) -> list[Predicate]:
        if not isinstance(value, list):
            raise Unsupported("a list of schemas expected")
        return [self.node(s, resolver, base) for s in value]

    def keyword(self, key: str, value: Any, schema: dict[str, Any], resolver: Any,
                base: str) -> Predicate:
        make = getattr(self, "k_" + key, None)
        if make is None:
            if key == "exclusiveMinimum" or key == "exclusiveMaximum":
                return _always  # read by minimum/maximum
            raise Unsupported(f"keyword {key}")
        return make(value, schema, resolver, base)  # type: ignore[no-any-return]

    def k_type(self, value: Any, *_: Any) -> Predicate:
        names = [value] if isinstance(value, str) else value
        try:
            tests = [_TYPES[n] for n in names]
        except (KeyError, TypeError) as exc:
            raise Unsupported(f"type {value!r}") from exc
        if len(tests) == 1:
            return tests[0]
        return lambda x: any(t(x) for t in tests)

    def members(self, schema: dict[str, Any], resolver: Any, base: str) -> Predicate:
        """properties, patternProperties and additionalProperties in one pass over the
        instance's members (the three keywords each walk them in jsonschema)."""
        props = {name: self.node(sub, resolver, base)
                 for name, sub in schema.get("properties", {}).items()}
        pats = [(re.compile(p).search, self.node(sub, resolver, base))
                for p, sub in schema.get("patternProperties", {}).items()]
        restricted, others = False, None  # others: the schema of additional members
        if "additionalProperties" in schema:
            value = schema["additionalProperties"]
            if isinstance(value, bool):
                restricted = not value
            else:
                others = self.node(value, resolver, base)
                restricted = others is not _always
        # jsonschema finds additional members with the patterns joined ("a|b"), not one by one
        joined = re.compile("|".join(schema.get("patternProperties", {}))).search \
            if len(pats) > 1 else None

        def members(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for k, v in x.items():
                check = props.get(k)
                if check is not None and not check(v):
                    return False
                matched = False
                for search, sub in pats:
                    if search(k):
                        matched = True
                        if not sub(v):
                            return False
                if restricted and k not in props:
                    if joined is not None:
                        matched = joined(k) is not None
                    if not matched and (others is None or not others(v)):
                        return False
            return True

        return members

    def k_required(self, value: Any, *_: Any) -> Predicate:
        names = list(value)
        return lambda x: not isinstance(x, dict) or all(n in x for n in names)

    def k_enum(self, value: Any, *_: Any) -> Predicate:
        if all(isinstance(e, str) for e in value):
            strings = frozenset(value)
            return lambda x: isinstance(x, str) and x in strings
        options = list(value)
        return lambda x: any(_utils.equal(e, x) for e in options)

    def k_items(self, value: Any, _s: Any, resolver: Any, base: str) -> Predicate:
        if isinstance(value, dict):
            check = self.node(value, resolver, base)
            return lambda x: not isinstance(x, list) or all(check(i) for i in x)
        checks = self.subschemas(value, resolver, base)
        return lambda x: not isinstance(x, list) or all(
            c(i) for c, i in zip(checks, x, strict=False))  # as many as both have

    def k_additionalItems(self, value: Any, schema: dict[str, Any], resolver: Any,
                          base: str) -> Predicate:
        items = schema.get("items", {})
        if isinstance(items, dict):
            return _always
        n = len(items)
        if isinstance(value, dict):
            check = self.node(value, resolver, base)
            return lambda x: not isinstance(x, list) or all(check(i) for i in x[n:])
        if value:
            return _always
        return lambda x: not isinstance(x, list) or len(x) <= n

    def k_allOf(self, value: Any, _s: Any, resolver: Any, base: str) -> Predicate:
        checks = self.subschemas(value, resolver, base)
        return lambda x: all(c(x) for c in checks)

    def k_anyOf(self, value: Any, _s: Any, resolver: Any, base: str) -> Predicate:
        checks = self.subschemas(value, resolver, base)
        return lambda x: any(c(x) for c in checks)

    def k_oneOf(self, value: Any, _s: Any, resolver: Any, base: str) -> Predicate:
        checks = self.subschemas(value, resolver, base)
        return lambda x: sum(1 for c in checks if c(x)) == 1

    def k_not(self, value: Any, _s: Any, resolver: Any, base: str) -> Predicate:
        check = self.node(value, resolver, base)
        return lambda x: not check(x)

    def k_dependencies(self, value: Any, _s: Any, resolver: Any, base: str) -> Predicate:
        deps: list[tuple[str, Predicate]] = []
        for prop, dep in value.items():
            if isinstance(dep, list):
                deps.append((prop, _has_all(list(dep))))
            else:
                deps.append((prop, self.node(dep, resolver, base)))
        return lambda x: not isinstance(x, dict) or all(
            check(x) for prop, check in deps if prop in x)

    def k_pattern(self, value: Any, *_: Any) -> Predicate:
        search = re.compile(value).search
        return lambda x: not isinstance(x, str) or search(x) is not None

    def k_format(self, value: Any, *_: Any) -> Predicate:
        checker = self.format_checker
        if checker is None or value not in checker.checkers:
            return _always
        return lambda x: bool(checker.conforms(x, value))

    def k_uniqueItems(self, value: Any, *_: Any) -> Predicate:
        if not value:
            return _always
        return lambda x: not isinstance(x, list) or _unique(x)

    def k_minimum(self, value: Any, schema: dict[str, Any], *_: Any) -> Predicate:
        if schema.get("exclusiveMinimum", False):
            return lambda x: not _is_number(x) or x > value
        return lambda x: not _is_number(x) or x >= value

    def k_maximum(self, value: Any, schema: dict[str, Any], *_: Any) -> Predicate:
        if schema.get("exclusiveMaximum", False):
            return lambda x: not _is_number(x) or x < value
        return lambda x: not _is_number(x) or x <= value

    def k_minItems(self, value: Any, *_: Any) -> Predicate:
        return lambda x: not isinstance(x, list) or len(x) >= value

    def k_maxItems(self, value: Any, *_: Any) -> Predicate:
        return lambda x: not isinstance(x, list) or len(x) <= value

    def k_minLength(self, value: Any, *_: Any) -> Predicate:
        return lambda x: not isinstance(x, str) or len(x) >= value

    def k_maxLength(self, value: Any, *_: Any) -> Predicate:
        return lambda x: not isinstance(x, str) or len(x) <= value

    def k_minProperties(self, value: Any, *_: Any) -> Predicate:
        return lambda x: not isinstance(x, dict) or len(x) >= value

    def k_maxProperties(self, value: Any, *_: Any) -> Predicate:
        return lambda x: not isinstance(x, dict) or len(x) <= value


def _unique(items: list[Any]) -> bool:
    """jsonschema's uniq, with strings (nearly every unique list) compared by a set."""
    if all(type(i) is str for i in items):
        return len(set(items)) == len(items)
    return bool(_utils.uniq(items))


def _has_all(names: list[Any]) -> Predicate:
    return lambda x: all(n in x for n in names)


def _always(x: Any) -> bool:
    return True


def _never(x: Any) -> bool:
    return False
