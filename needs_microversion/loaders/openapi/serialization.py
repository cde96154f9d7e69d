"""How a parameter travels on the wire, written once whatever spelling the document chose.

OpenAPI gives `style` and `explode` defaults that depend on where the parameter goes, so
`style: form, explode: true` on a query parameter says what leaving them out says. And a
query parameter holding an object, sent `form` and exploded, is sent as one query parameter
per property: `?PageNumber=1&PageSize=10` whether the document lists the two or wraps them in
one object. Clients send the same request, so the document describes the same contract.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from needs_microversion.loaders.openapi.normalise import SchemaTable, range_of
from needs_microversion.model.schema import RawSchema, canonical
from needs_microversion.model.snapshot import Parameter

_DEFAULT_STYLE = {"query": "form", "cookie": "form", "path": "simple", "header": "simple"}
_FLAGS = ("allowReserved", "allowEmptyValue")  # both default to false


def serialization(where: str, node: Mapping[str, Any]) -> dict[str, str]:
    """The keys that say how values are sent, only where they differ from the defaults."""
    out: dict[str, str] = {}
    default_style = _DEFAULT_STYLE.get(where)
    style = node.get("style", default_style)
    if "style" in node and style != default_style:
        out["style"] = canonical(style)
    explode = node.get("explode", style == "form")
    if "explode" in node and explode != (style == "form"):
        out["explode"] = canonical(explode)
    out.update((key, canonical(node[key])) for key in _FLAGS
               if key in node and node[key] is not False)
    return out


def exploded(param: Parameter, schemas: SchemaTable) -> Iterator[Parameter] | None:
    """The query parameters an exploded `form` object stands for; None when `param` is sent as
    itself (not such an object, or one whose extra properties have no names to list)."""
    if param.where != "query" or param.serialization or param.schema is None:
        return None
    raw = schemas.resolve(param.schema)
    node = raw.node
    if not isinstance(node, dict) or node.get("type", "object") != "object":
        return None
    props = node.get("properties")
    if not isinstance(props, dict) or not props or node.get("additionalProperties") not in (
            None, False) or any(k in node for k in ("allOf", "anyOf", "oneOf", "not")):
        return None
    listed = node.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    return (_property(param, raw, str(name), prop, name in required, schemas)
            for name, prop in props.items())


def _property(param: Parameter, owner: RawSchema, name: str, node: Any, listed: bool,
              schemas: SchemaTable) -> Parameter:
    schema = RawSchema(owner.doc, node, (*owner.pointer, "properties", name))
    text = node.get("description") if isinstance(node, dict) else None
    return replace(param, name=name, required=param.required and listed, schema=schema,
                   versions=param.versions.intersect(range_of(schemas.resolve(schema).node)),
                   description=text if isinstance(text, str) else "")
