"""What authorises an operation, as what a client must send (`apiKey header x-auth-token`),
not the scheme's name in this document: renaming a scheme changes nothing, changing its
header does. OpenAPI 3 and Swagger 2.0 alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from needs_microversion.model.schema import canonical

# Swagger 2.0 OAuth2 flow names, as OpenAPI 3 writes them.
_SWAGGER_FLOWS = {"application": "clientCredentials", "accessCode": "authorizationCode"}

# Follows a `$ref` node to its target: (node, pointer) -> (target, ...).
Deref = Callable[[Any, tuple[str, ...]], tuple[Any, ...]]


def requirements(raw_op: Mapping[str, Any], data: Mapping[str, Any], swagger: bool,
                 deref: Deref) -> frozenset[str]:
    """The alternatives that authorise the operation; none stated means none required."""
    security = raw_op.get("security", data.get("security"))
    if not isinstance(security, list):
        return frozenset()
    return frozenset(_requirement(req, data, swagger, deref) for req in security)


def schemes(data: Mapping[str, Any], swagger: bool) -> Any:
    """Swagger 2.0 `securityDefinitions`, OpenAPI 3 `components.securitySchemes`."""
    if swagger:
        return data.get("securityDefinitions")
    components = data.get("components")
    return components.get("securitySchemes") if isinstance(components, dict) else None


def _requirement(req: Any, data: Mapping[str, Any], swagger: bool, deref: Deref) -> str:
    if not isinstance(req, dict):
        return canonical(req)
    if not req:
        return "anonymous"
    parts = []
    for name, scopes in req.items():
        scheme = _scheme(str(name), data, swagger, deref)
        scoped = sorted(map(str, scopes)) if isinstance(scopes, list) else []
        parts.append(f"{scheme} scopes {', '.join(scoped)}" if scoped else scheme)
    return " + ".join(sorted(parts))


def _scheme(name: str, data: Mapping[str, Any], swagger: bool, deref: Deref) -> str:
    """What a security scheme asks of a client."""
    defined = schemes(data, swagger)
    node = defined.get(name) if isinstance(defined, dict) else None
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        node = deref(node, ("components", "securitySchemes", name))[0]
    if not isinstance(node, dict):
        return f"{name} (no such scheme)"
    kind = str(node.get("type", ""))
    if kind == "apiKey":
        where = str(node.get("in", ""))
        header = str(node.get("name", ""))
        return f"apiKey {where} {header.lower() if where == 'header' else header}"
    if kind in ("http", "basic"):  # Swagger's `basic` is OpenAPI 3's http basic
        return f"http {str(node.get('scheme', 'basic')).lower()}"
    if kind == "oauth2":
        flows = node.get("flows")
        names = sorted(flows) if isinstance(flows, dict) else [
            _SWAGGER_FLOWS.get(str(node.get("flow")), str(node.get("flow")))]
        return f"oauth2 {'/'.join(names)}"
    if kind == "openIdConnect":
        return f"openIdConnect {node.get('openIdConnectUrl', '')}"
    return kind or canonical(node)
