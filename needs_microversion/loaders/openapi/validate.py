"""openapi-spec-validator findings as warnings ("file:line: message").

Real published specs often fail validation, so problems are reported, not fatal, unless the
user asks for --strict. Imported only when validation runs: the validator is slow to import.
"""

from __future__ import annotations

import re
from typing import Any

from needs_microversion.documents.locate import line_of
from needs_microversion.documents.refs import RefResolver, RefusedRef
from needs_microversion.model.document import Document

MAX_PROBLEMS = 20


def problems(doc: Document, resolver: RefResolver) -> list[str]:
    """Validation problems, each "file:line: message (at /pointer)".

    The validator resolves `$ref`s itself; it is given a registry whose only way to read a
    file is `resolver` (inside the document's folder, regular files, size-capped), so it
    never opens a URL, an absolute path or a file outside the tree. The caller has already
    checked every `$ref` of the document's structure with the same resolver.
    """
    import mimetypes

    from jsonschema_path import SchemaPath
    from jsonschema_path.accessors import SchemaAccessor
    from openapi_spec_validator.validation import validators
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    # The validator reads its own schemas through urllib, which loads the system's MIME
    # tables (/etc/mime.types...) on first use: give it the built-in table instead, so no
    # file outside the installation and the document's tree is opened.
    if getattr(mimetypes, "_db", True) is None:
        mimetypes.inited = True
        mimetypes._db = mimetypes.MimeTypes()  # type: ignore[attr-defined]
    data: Any = doc.data
    cls: Any  # the three validator classes share no declared base
    if "swagger" in data:
        cls = validators.OpenAPIV2SpecValidator
    elif str(data.get("openapi", "")).startswith("3.1"):
        cls = validators.OpenAPIV31SpecValidator
    else:
        cls = validators.OpenAPIV30SpecValidator

    def retrieve(uri: str) -> Any:
        return DRAFT202012.create_resource(resolver.document_at(uri).data)

    base_uri = doc.path.as_uri()
    registry: Any = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    registry = registry.with_resource(base_uri, DRAFT202012.create_resource(data))
    spec = SchemaPath(SchemaAccessor(data, registry.resolver(base_uri=base_uri)))
    found: list[str] = []
    try:
        for error in cls(spec, base_uri=base_uri).iter_errors():
            pointer = tuple(str(p) for p in error.absolute_path) or _operation_named(
                str(error.message))
            line = line_of(doc, pointer)
            where = f"{doc.display}:{line}" if line else doc.display
            message = " ".join(str(error.message).split())
            if len(message) > 160:  # jsonschema starts with the whole offending value
                message = f"fails '{error.validator}' ({str(error.validator_value)[:80]})"
            at = "".join("/" + s.replace("~", "~0").replace("/", "~1") for s in pointer)
            found.append(f"{where}: {message} (at {at or '/'})")
            if len(found) >= MAX_PROBLEMS:
                break
    except Exception as exc:  # noqa: BLE001 - the validator's own failures are only warnings
        found.append(f"{doc.display}: the validator could not check this document: "
                     f"{_reason(exc)}")
    return found


def _reason(exc: BaseException) -> str:
    """The refusal behind a wrapped retrieval error, else the error itself (short)."""
    seen = exc
    while seen is not None:
        if isinstance(seen, RefusedRef):
            return str(seen)
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return f"{exc!r:.200}"


# openapi-spec-validator's own checks ("Path parameter 'id' for 'get' operation in
# '/servers/{id}' was not resolved") carry no path: the operation they name is the place.
_OPERATION = re.compile(r"for '(\w+)' operation in '([^']+)'")


def _operation_named(message: str) -> tuple[str, ...]:
    match = _OPERATION.search(message)
    return ("paths", match.group(2), match.group(1)) if match else ()
