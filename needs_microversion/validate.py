"""openapi-spec-validator findings as warnings ("file:line: message").

Real published specs often fail validation, so problems are reported, not fatal, unless the
user asks for --strict. Imported only when validation runs: the validator is slow to import.
"""

from __future__ import annotations

import re
from typing import Any

from needs_microversion.document import Document
from needs_microversion.locate import line_of

MAX_PROBLEMS = 20


def problems(doc: Document) -> list[str]:
    from openapi_spec_validator.validation import validators

    data: Any = doc.data
    base: Any  # the three validator classes share no declared base
    if "swagger" in data:
        base = validators.OpenAPIV2SpecValidator
    elif str(data.get("openapi", "")).startswith("3.1"):
        base = validators.OpenAPIV31SpecValidator
    else:
        base = validators.OpenAPIV30SpecValidator

    class LocalOnly(base):  # type: ignore[misc,valid-type]
        # Never fetch over the network: only files (already checked to stay in the tree).
        resolver_handlers = {"file": validators.default_handlers["file"]}

    found: list[str] = []
    try:
        for error in LocalOnly(data, base_uri=doc.path.as_uri()).iter_errors():
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
        found.append(f"{doc.display}: the validator could not check this document: {exc!r:.200}")
    return found


# openapi-spec-validator's own checks ("Path parameter 'id' for 'get' operation in
# '/servers/{id}' was not resolved") carry no path: the operation they name is the place.
_OPERATION = re.compile(r"for '(\w+)' operation in '([^']+)'")


def _operation_named(message: str) -> tuple[str, ...]:
    match = _OPERATION.search(message)
    return ("paths", match.group(2), match.group(1)) if match else ()
