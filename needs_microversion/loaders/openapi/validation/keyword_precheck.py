"""Would openapi-spec-validator's keyword checks (2.0 and 3.0) find nothing? Asked on the
plain data, without its path objects.

After the JSON-schema check, openapi-spec-validator walks paths, operations, parameters,
responses and schemas through `jsonschema_path.SchemaPath`, whose every step resolves the
whole path again (most of what is left of a validated run). This module walks the same
nodes in the same order on the loaded data, following `$ref`s through the same `referencing`
resolver, and asks the same questions (the schema dialect, `required` under `allOf`,
defaults, duplicate and unresolved parameters, duplicate operation ids and tags). At
anything it would report, or anything unusual (a node of an unexpected type, a failure), it
gives up: the caller then runs openapi-spec-validator's own walk, which reports (or fails)
as always. So a "yes" here is only ever where that walk has nothing to say.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema.exceptions import ValidationError
from openapi_schema_validator import oas30_format_checker
from openapi_schema_validator.validators import OAS30Validator

OPERATIONS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


class _Doubt(Exception):
    """Something the full walk reports or treats in a way not reproduced here."""


def _doubt(condition: bool) -> None:
    if condition:
        raise _Doubt


class KeywordPrecheck:
    """One walk over one document: `holds()` is True only if the full walk finds nothing.

    `swagger`: the 2.0 forms (a response's `schema`, a parameter's `default`);
    `dialect_holds(schema)`: the schema dialect check says valid.
    """

    def __init__(self, swagger: bool, dialect_holds: Callable[[Any], bool]) -> None:
        self.swagger = swagger
        self.dialect_holds = dialect_holds
        self.meta_checked: set[int] = set()
        self.visited: set[int] = set()
        self.operation_ids: set[Any] = set()
        self.lookups: dict[tuple[Any, str], tuple[Any, Any]] = {}

    def holds(self, data: Any, resolver: Any) -> bool:
        try:
            self.root(data, resolver)
        except Exception:  # noqa: BLE001 - _Doubt, or a failure the full walk may share
            return False
        return True

    # -- resolution as jsonschema_path does it: every step follows `$ref`s to the end
    def resolve(self, node: Any, resolver: Any) -> tuple[Any, Any]:
        seen: set[int] = set()
        while isinstance(node, dict) and "$ref" in node and isinstance(node["$ref"], str):
            _doubt(id(node) in seen)  # a `$ref` loop (it never ended): the full walk decides
            seen.add(id(node))
            ref = node["$ref"]
            key = (getattr(resolver, "_base_uri", None), ref)
            found = self.lookups.get(key) if key[0] is not None else None
            if found is None:
                resolved = resolver.lookup(ref)
                found = (resolved.contents, resolved.resolver)
                if key[0] is not None:
                    self.lookups[key] = found
            node, resolver = found
        return node, resolver

    def child(self, node: dict[str, Any], key: str, resolver: Any) -> tuple[Any, Any]:
        return self.resolve(node[key], resolver)

    def dict_items(self, node: Any, resolver: Any) -> list[tuple[str, Any, Any]]:
        _doubt(not isinstance(node, dict))
        found = []
        for key, value in node.items():
            _doubt(not isinstance(key, str))
            found.append((key, *self.resolve(value, resolver)))
        return found

    def list_items(self, node: Any, resolver: Any) -> list[tuple[Any, Any]]:
        _doubt(not isinstance(node, list))
        return [self.resolve(value, resolver) for value in node]

    # -- RootValidator and below, in their order
    def root(self, spec: Any, resolver: Any) -> None:
        spec, resolver = self.resolve(spec, resolver)
        _doubt(not isinstance(spec, dict))
        if "tags" in spec:
            names = set()
            for tag, _ in self.list_items(*self.child(spec, "tags", resolver)):
                _doubt(not isinstance(tag, dict))
                name = self.resolve(tag["name"], resolver)[0]
                _doubt(not isinstance(name, str) or name in names)
                names.add(name)
        if "paths" in spec:
            for url, item, item_resolver in self.dict_items(*self.child(spec, "paths", resolver)):
                self.path(url, item, item_resolver)
        if "components" in spec:
            components, c_resolver = self.child(spec, "components", resolver)
            _doubt(not isinstance(components, dict))
            if "schemas" in components:
                for _, schema, s_resolver in self.dict_items(
                        *self.child(components, "schemas", c_resolver)):
                    self.schema(schema, s_resolver)

    def path(self, url: str, item: Any, resolver: Any) -> None:
        _doubt(not isinstance(item, dict))
        shared = None
        if "parameters" in item:
            shared = self.child(item, "parameters", resolver)
            self.parameters(*shared)
        for name, value in item.items():
            _doubt(not isinstance(name, str))
            if name in OPERATIONS:
                self.operation(url, *self.resolve(value, resolver), shared)

    def parameters(self, parameters: Any, resolver: Any) -> None:
        seen = set()
        for parameter, p_resolver in self.list_items(parameters, resolver):
            _doubt(not isinstance(parameter, dict))
            if "schema" in parameter:
                self.schema(*self.child(parameter, "schema", p_resolver))
            if self.swagger and "default" in parameter:
                self.default_holds(parameter, p_resolver,
                                   self.child(parameter, "default", p_resolver)[0])
            name, where = parameter["name"], parameter["in"]
            _doubt(not isinstance(name, str) or not isinstance(where, str)
                   or (name, where) in seen)
            seen.add((name, where))

    def operation(self, url: str, operation: Any, resolver: Any,
                  shared: tuple[Any, Any] | None) -> None:
        _doubt(not isinstance(operation, dict))
        if "operationId" in operation:
            value = self.child(operation, "operationId", resolver)[0]
            if value is not None:
                _doubt(value in self.operation_ids)
            self.operation_ids.add(value)
        if "responses" in operation:
            for _, response, r_resolver in self.dict_items(
                    *self.child(operation, "responses", resolver)):
                self.response(response, r_resolver)
        names: list[str] = []
        if "parameters" in operation:
            own = self.child(operation, "parameters", resolver)
            self.parameters(*own)
            names += self.path_names(*own)
        if shared is not None:
            names += self.path_names(*shared)
        in_url = {item[1] for item in string.Formatter().parse(url) if item[1]}
        _doubt(set(names) != in_url)

    def path_names(self, parameters: Any, resolver: Any) -> list[str]:
        names = []
        for parameter, p_resolver in self.list_items(parameters, resolver):
            where = self.child(parameter, "in", p_resolver)[0]
            _doubt(not isinstance(where, str))
            if where == "path":
                name = self.child(parameter, "name", p_resolver)[0]
                _doubt(not isinstance(name, str))
                names.append(name)
        return names

    def response(self, response: Any, resolver: Any) -> None:
        _doubt(not isinstance(response, dict))
        if self.swagger:
            if "schema" in response:
                self.schema(*self.child(response, "schema", resolver))
            return
        if "content" in response:
            for _, media_type, m_resolver in self.dict_items(
                    *self.child(response, "content", resolver)):
                _doubt(not isinstance(media_type, dict))
                if "schema" in media_type:
                    self.schema(*self.child(media_type, "schema", m_resolver))

    # -- SchemaValidator
    def schema(self, schema: Any, resolver: Any, require_properties: bool = True,
               meta_checked: bool = False) -> None:
        _doubt(not isinstance(schema, (Mapping, bool)))
        schema_id = id(schema)
        if not meta_checked and schema_id not in self.meta_checked:
            self.meta_checked.add(schema_id)
            _doubt(not self.dialect_holds(schema))
        if schema_id in self.visited:
            return
        self.visited.add(schema_id)
        if not isinstance(schema, dict):
            return  # a boolean schema: nothing below it
        nested: set[str] = set()
        for keyword in ("allOf", "anyOf", "oneOf"):
            if keyword in schema:
                for inner, i_resolver in self.list_items(*self.child(schema, keyword,
                                                                     resolver)):
                    self.schema(inner, i_resolver, False, True)
                    if keyword == "allOf":
                        nested |= self.properties_of(inner, i_resolver)
        for keyword in ("not", "items"):
            if keyword in schema:
                self.schema(*self.child(schema, keyword, resolver), False, True)
        properties: Any = ()
        if "properties" in schema:
            properties, p_resolver = self.child(schema, "properties", resolver)
            for _, prop, prop_resolver in self.dict_items(properties, p_resolver):
                self.schema(prop, prop_resolver, False, True)
        required = self.child(schema, "required", resolver)[0] if "required" in schema \
            else []
        if "allOf" in schema:  # the sets are made (and may fail) even where not required
            extra = set(required or []) - set(properties) - nested
            _doubt(bool(extra) and require_properties)
        if "default" in schema:
            default = self.child(schema, "default", resolver)[0]
            nullable = self.child(schema, "nullable", resolver)[0] if "nullable" in schema \
                else False
            if default is not None or nullable is not True:
                self.default_holds(schema, resolver, default)

    def properties_of(self, schema: Any, resolver: Any) -> set[str]:
        """SchemaValidator._collect_properties."""
        _doubt(not isinstance(schema, dict))
        found: set[str] = set()
        if "properties" in schema:
            properties = self.child(schema, "properties", resolver)[0]
            _doubt(not isinstance(properties, dict))
            found.update(properties)
        for keyword in ("allOf", "anyOf", "oneOf"):
            if keyword in schema:
                for inner, i_resolver in self.list_items(*self.child(schema, keyword,
                                                                     resolver)):
                    found |= self.properties_of(inner, i_resolver)
        for keyword in ("items", "not"):
            if keyword in schema:
                found |= self.properties_of(*self.child(schema, keyword, resolver))
        return found

    def default_holds(self, schema: Any, resolver: Any, value: Any) -> None:
        """OpenAPIV30ValueValidator: the value valid against the (resolved) schema."""
        checker = OAS30Validator(schema, _resolver=resolver,
                                 format_checker=oas30_format_checker)
        error: ValidationError | None = next(checker.iter_errors(value), None)
        _doubt(error is not None)
