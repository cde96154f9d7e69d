"""openapi-spec-validator's validators, with its checks unchanged and its cost cut.

Measured on the benchmark documents (cProfile), a validated run went to three places:

- the whole document checked against the OpenAPI JSON schema by jsonschema (60-70%);
- every schema of the document checked against the schema dialect by jsonschema
  (`check_schema`, 20-30%);
- already-checked schemas and operation ids kept in lists searched from the start for each
  new one (`visited_schema_ids`, `meta_checked_schema_ids`, `operation_ids_registry`):
  quadratic, most of the time on a document of 10,000 operations.

So: the two jsonschema checks first ask a compiled draft-04 predicate (`draft4_predicate`)
whether the instance is valid, and only when it is not does jsonschema run, reporting its own
errors; the bookkeeping lists become hashed. The OpenAPI 3.1 schema (draft 2020-12) has no
compiled predicate: jsonschema checks it as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache, cached_property
from typing import Any

from jsonschema.exceptions import ValidationError
from jsonschema import _keywords
from jsonschema.validators import extend, validator_for
from openapi_schema_validator._specifications import REGISTRY as OPENAPI_SPECIFICATIONS
from openapi_schema_validator.validators import OAS30Validator
from openapi_spec_validator.schemas import (
    openapi_v2_schema_validator,
    openapi_v30_schema_validator,
)
from openapi_spec_validator.validation import keywords, validators

from needs_microversion.loaders.openapi.validation.keyword_precheck import KeywordPrecheck
from needs_microversion.loaders.openapi.validation.draft4_predicate import (
    Predicate,
    compile_draft4,
    compile_draft4_refs,
)


class _Seen:
    """What the validator's lists do (`append`, `in`), hashed: equal items are found as a
    list finds them; an unhashable one (an invalid operationId) is searched as in a list."""

    def __init__(self) -> None:
        self._hashed: set[Any] = set()
        self._other: list[Any] = []

    def append(self, item: Any) -> None:
        try:
            self._hashed.add(item)
        except TypeError:
            self._other.append(item)

    def __contains__(self, item: Any) -> bool:
        try:
            if item in self._hashed:
                return True
        except TypeError:
            pass
        return item in self._other


def _predicate(validator: Any) -> Predicate | None:
    try:
        return compile_draft4(validator)
    except Exception:  # noqa: BLE001 - Unsupported, or a schema jsonschema may fail on too
        return None


def _holds(predicate: Predicate | None, instance: Any) -> bool:
    """True only when the predicate says valid; its own failure means "ask jsonschema"."""
    if predicate is None:
        return False
    try:
        return predicate(instance)
    except Exception:  # noqa: BLE001 - jsonschema then reports (or raises) as it would
        return False


class _QuickWholeDocument:
    """The document's schema validator, asked only when the predicate finds a problem; and
    then, at each `$ref`, jsonschema descends only where that reference's predicate finds
    one (a valid part has no errors to report: the errors are jsonschema's, all of them).
    The descending validator is made on first need: making a jsonschema validator class
    costs ~20 ms, and a valid document never needs it."""

    def __init__(self, validator: Any) -> None:
        self.validator = validator
        self.predicate: Predicate | None = None
        self.by_ref: dict[int, Predicate] | None = None
        try:
            self.predicate, self.by_ref = compile_draft4_refs(validator)
        except Exception:  # noqa: BLE001 - Unsupported, or a schema jsonschema may fail on
            return

    def iter_errors(self, instance: Any) -> Iterable[ValidationError]:
        if _holds(self.predicate, instance):
            return ()
        return self._errors_of(instance)

    @cached_property
    def _errors_of(self) -> Callable[[Any], Iterable[ValidationError]]:
        by_ref = self.by_ref
        if by_ref is None:
            return self.validator.iter_errors  # type: ignore[no-any-return]

        def ref(checker: Any, value: Any, instance: Any, schema: Any
                ) -> Iterator[ValidationError]:
            if _holds(by_ref.get(id(schema)), instance):
                return
            yield from _keywords.ref(checker, value, instance, schema)

        quick = extend(self.validator.__class__, validators={"$ref": ref})
        return quick(self.validator.schema,  # type: ignore[no-any-return]
                     format_checker=self.validator.format_checker).iter_errors


@cache
def _dialect_predicate() -> Predicate | None:
    """`OAS30Validator.check_schema`'s validator (check_openapi_schema), compiled."""
    cls: Any = validator_for(OAS30Validator.META_SCHEMA, default=OAS30Validator)
    return _predicate(cls(OAS30Validator.META_SCHEMA,
                          format_checker=OAS30Validator.FORMAT_CHECKER,
                          registry=OPENAPI_SPECIFICATIONS))


class _V30SchemaValidator(keywords.OpenAPIV30SchemaValidator):
    def __init__(self, registry: Any) -> None:
        super().__init__(registry)
        self.visited_schema_ids = _Seen()  # type: ignore[assignment]
        self.meta_checked_schema_ids = _Seen()  # type: ignore[assignment]

    def _get_schema_checker(self, schema: Any, schema_value: Any) -> Callable[[Any], None]:
        check = super()._get_schema_checker(schema, schema_value)
        predicate = _dialect_predicate()

        def quick_check(value: Any) -> None:
            if not _holds(predicate, value):
                check(value)

        return quick_check


class _V31SchemaValidator(keywords.OpenAPIV31SchemaValidator):
    def __init__(self, registry: Any) -> None:
        super().__init__(registry)
        self.visited_schema_ids = _Seen()  # type: ignore[assignment]
        self.meta_checked_schema_ids = _Seen()  # type: ignore[assignment]


class _OperationValidator(keywords.OperationValidator):
    def __init__(self, registry: Any) -> None:
        super().__init__(registry)
        self.operation_ids_registry = _Seen()  # type: ignore[assignment]


def _dialect_holds(schema: Any) -> bool:
    return _holds(_dialect_predicate(), schema)


class _PrecheckedRoot(keywords.RootValidator):
    """The keyword walk, run only where `KeywordPrecheck` expects it to report something."""

    swagger = False

    def __call__(self, spec: Any) -> Iterator[ValidationError]:
        with spec.resolve() as resolved:
            data, resolver = resolved.contents, resolved.resolver
        if KeywordPrecheck(self.swagger, _dialect_holds).holds(data, resolver):
            return
        yield from super().__call__(spec)


class _PrecheckedSwaggerRoot(_PrecheckedRoot):
    swagger = True


_HASHED = {"operation": _OperationValidator}


class _Lazy:
    """A class attribute made on first use: the OpenAPI JSON schemas are read from YAML
    files (~25 ms each), and a run needs the one of its documents' version only."""

    def __init__(self, validator: Any) -> None:
        self.validator = validator  # openapi-spec-validator's proxy: nothing read yet
        self.made: _QuickWholeDocument | None = None

    def __get__(self, instance: object, owner: type) -> _QuickWholeDocument:
        if self.made is None:
            self.made = _QuickWholeDocument(self.validator)
        return self.made


class OpenAPIV2SpecValidator(validators.OpenAPIV2SpecValidator):
    schema_validator = _Lazy(openapi_v2_schema_validator)
    keyword_validators = {**validators.OpenAPIV2SpecValidator.keyword_validators, **_HASHED,
                          "schema": _V30SchemaValidator, "__root__": _PrecheckedSwaggerRoot}


class OpenAPIV30SpecValidator(validators.OpenAPIV30SpecValidator):
    schema_validator = _Lazy(openapi_v30_schema_validator)
    keyword_validators = {**validators.OpenAPIV30SpecValidator.keyword_validators, **_HASHED,
                          "schema": _V30SchemaValidator, "__root__": _PrecheckedRoot}


class OpenAPIV31SpecValidator(validators.OpenAPIV31SpecValidator):
    keyword_validators = {**validators.OpenAPIV31SpecValidator.keyword_validators, **_HASHED,
                          "schema": _V31SchemaValidator}


def spec_validator_for(data: Any) -> Any:
    """The validator class for a document, chosen as `validate.problems` always chose."""
    if "swagger" in data:
        return OpenAPIV2SpecValidator
    if str(data.get("openapi", "")).startswith("3.1"):
        return OpenAPIV31SpecValidator
    return OpenAPIV30SpecValidator
