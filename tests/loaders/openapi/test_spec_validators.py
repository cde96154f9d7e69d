"""Our faster validators report what openapi-spec-validator's own report, error for error,
on invalid documents of every kind and version; and `problems` says the same either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator.validation import validators as plain

from needs_microversion.documents.document import read_document
from needs_microversion.documents.refs import RefResolver
from needs_microversion.loaders.openapi.validation import spec_validators, validate
from needs_microversion.loaders.openapi.validation.draft4_predicate import compile_draft4

HEADS = {
    "3.0": "openapi: 3.0.3\ninfo: {title: t, version: '1.0'}\n",
    "3.1": "openapi: 3.1.0\ninfo: {title: t, version: '1.0'}\n",
    "2.0": "swagger: '2.0'\ninfo: {title: t, version: '1.0'}\n",
}
OK = "responses: {'200': {description: ok}}"
SCHEMA_AT = {"3.0": "content: {application/json: {schema: %s}}",
             "3.1": "content: {application/json: {schema: %s}}",
             "2.0": "schema: %s"}


def _body(version: str, schema: str) -> str:
    return SCHEMA_AT[version] % schema


def _cases(version: str) -> dict[str, str]:
    head = HEADS[version]
    resp = "responses: {'200': {description: ok, %s}}"
    return {
        "valid": head + f"paths:\n  /a:\n    get: {{{OK}}}\n",
        "missing-required-field": head.replace("info: {title: t, version: '1.0'}\n", "")
        + f"paths:\n  /a:\n    get: {{{OK}}}\n",
        "missing-responses": head + "paths:\n  /a:\n    get: {summary: s}\n",
        "wrong-type": head + "paths: [1, 2]\n",
        "wrong-type-nested": head + f"paths:\n  /a:\n    get: {{summary: 5, {OK}}}\n",
        "bad-parameter": head + "paths:\n  /a:\n    get:\n      parameters:\n"
        f"        - {{name: x, in: nowhere}}\n      {OK}\n",
        "undefined-path-parameter": head + f"paths:\n  /a/{{id}}:\n    get: {{{OK}}}\n",
        "extra-path-parameter": head + "paths:\n  /a:\n    get:\n      parameters:\n"
        "        - {name: id, in: path, required: true, type: string, schema: {type: string}}\n"
        f"      {OK}\n",
        "duplicate-operation-id": head + f"paths:\n  /a:\n    get: {{operationId: x, {OK}}}\n"
        f"    put: {{operationId: x, {OK}}}\n",
        "bad-ref-target-in-tree": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{$ref: 'b.yaml#/B'}") + "\n",
        "schema-wrong-keyword-type": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{type: object, required: 5, minimum: x}") + "\n",
        "required-not-defined": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{allOf: [{type: object}], required: [ghost]}") + "\n",
        "default-of-wrong-type": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{type: integer, default: text}") + "\n",
        "extension-and-unknown-field": head + "x-ok: 1\nnonsense: 2\npaths: {}\n",
        "duplicate-parameter": head + "paths:\n  /a:\n    get:\n      parameters:\n"
        "        - {name: x, in: query, type: string, schema: {type: string}}\n"
        "        - {name: x, in: query, type: string, schema: {type: string}}\n"
        f"      {OK}\n",
        "duplicate-tag": head + "tags: [{name: a}, {name: a}]\npaths: {}\n",
        "parameter-default-of-wrong-type": head + "paths:\n  /a:\n    get:\n"
        "      parameters:\n        - {name: x, in: query, type: integer, default: text,"
        " schema: {type: integer}}\n"
        f"      {OK}\n",
        "nullable-default-null": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{type: integer, nullable: true, default: null}") + "\n",
        "required-defined-under-all-of": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{allOf: [{properties: {a: {type: string}}}],"
                                " required: [a]}") + "\n",
        "items-as-a-list": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{type: array, items: [{type: string}]}") + "\n",
        "path-key-not-a-path-item": head + "paths:\n  x-note: text\n",
        "refs-everywhere-valid": head + (
            "paths:\n  /a/{id}:\n    parameters: [{$ref: '#/x-p/Id'}]\n    get:\n      "
            + resp % _body(version, "{$ref: '#/x-s/Node'}") + "\n"
            "x-p:\n  Id: {name: id, in: path, required: true, type: string,"
            " schema: {type: string}}\n"
            "x-s:\n  Node: {type: object, properties: {next: {$ref: '#/x-s/Node'}},"
            " default: {}}\n"),
        "ref-to-invalid-default": head + "paths:\n  /a:\n    get:\n      "
        + resp % _body(version, "{$ref: '#/x-s/Bad'}") + "\n"
        "x-s:\n  Bad: {type: object, properties: {n: {type: integer, default: x}}}\n",
    }


CASES = [(v, name, text) for v in HEADS for name, text in _cases(v).items()]


def _errors(cls: Any, doc: Any, resolver: RefResolver) -> list[tuple[str, tuple[Any, ...],
                                                                        str]]:
    from jsonschema_path import SchemaPath
    from jsonschema_path.accessors import SchemaAccessor
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    def retrieve(uri: str) -> Any:
        return DRAFT202012.create_resource(resolver.document_at(uri).data)

    base_uri = doc.path.as_uri()
    registry: Any = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    registry = registry.with_resource(base_uri, DRAFT202012.create_resource(doc.data))
    spec = SchemaPath(SchemaAccessor(doc.data, registry.resolver(base_uri=base_uri)))
    found = []
    try:  # the validator may fail on some invalid documents: it must fail alike
        for e in cls(spec, base_uri=base_uri).iter_errors():
            found.append((str(e.message), tuple(e.absolute_path), type(e).__name__))
    except Exception as exc:  # noqa: BLE001
        found.append(("raised", (), type(exc).__name__))
    return found


def _doc(tmp_path: Path, text: str) -> tuple[Any, RefResolver]:
    (tmp_path / "b.yaml").write_text("B: {type: object, minimum: not-a-number}\n")
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    doc = read_document(path)
    return doc, RefResolver(doc)


PLAIN = {"2.0": plain.OpenAPIV2SpecValidator, "3.0": plain.OpenAPIV30SpecValidator,
         "3.1": plain.OpenAPIV31SpecValidator}


@pytest.mark.parametrize(("version", "name", "text"), CASES,
                         ids=[f"{v}-{n}" for v, n, _ in CASES])
def test_the_same_errors_as_openapi_spec_validator(tmp_path: Path, version: str, name: str,
                                                   text: str) -> None:
    doc, resolver = _doc(tmp_path, text)
    ours = spec_validators.spec_validator_for(doc.data)
    expected = _errors(PLAIN[version], doc, resolver)
    valid = name in ("valid", "required-defined-under-all-of", "refs-everywhere-valid") or (
        (version, name) in {("3.1", "missing-responses"), ("3.0", "nullable-default-null"),
                             ("3.1", "nullable-default-null")})
    assert valid == (not expected)
    assert _errors(ours, doc, resolver) == expected


@pytest.mark.parametrize(("version", "name", "text"), CASES,
                         ids=[f"{v}-{n}" for v, n, _ in CASES])
def test_problems_are_the_same_with_plain_validators(tmp_path: Path, monkeypatch, version: str,
                                                     name: str, text: str) -> None:
    doc, resolver = _doc(tmp_path, text)
    ours = validate.problems(doc, resolver)
    monkeypatch.setattr(spec_validators, "spec_validator_for",
                        lambda data: PLAIN[version])
    assert validate.problems(doc, resolver) == ours


def test_the_predicates_are_compiled() -> None:
    """Without them every check falls back to jsonschema: right, but slow."""
    assert spec_validators.OpenAPIV2SpecValidator.schema_validator.predicate is not None
    assert spec_validators.OpenAPIV30SpecValidator.schema_validator.predicate is not None
    assert spec_validators._dialect_predicate() is not None


DRAFT4_SAMPLES: list[Any] = [
    {}, {"type": "string"}, {"type": ["string", "null"]}, {"type": "bogus"}, {"type": 5},
    {"minimum": 1, "exclusiveMinimum": True}, {"exclusiveMinimum": True},
    {"required": []}, {"required": ["a", "a"]}, {"pattern": "[a-"}, {"pattern": "^a"},
    {"enum": []}, {"enum": [1, 1]}, {"items": [{}, {}], "additionalItems": False},
    {"properties": {"a": {"type": 1}}}, {"allOf": []}, {"format": 5}, {"format": "regex"},
    {"maxLength": -1}, {"multipleOf": 0}, {"$ref": 5}, {"dependencies": {"a": ["b"]}},
    {"dependencies": {"a": []}}, {"uniqueItems": "yes"}, [], 5, "s", None, True,
    {"id": "x", "definitions": {"a": 1}},
]


@pytest.mark.parametrize("sample", DRAFT4_SAMPLES, ids=repr)
def test_the_dialect_predicate_agrees_with_jsonschema(sample: Any) -> None:
    from jsonschema.validators import validator_for
    from openapi_schema_validator._specifications import REGISTRY
    from openapi_schema_validator.validators import OAS30Validator

    cls: Any = validator_for(OAS30Validator.META_SCHEMA, default=OAS30Validator)
    checker = cls(OAS30Validator.META_SCHEMA, format_checker=OAS30Validator.FORMAT_CHECKER,
                  registry=REGISTRY)
    predicate = compile_draft4(checker)
    assert predicate(sample) == checker.is_valid(sample)


ROOT = Path(__file__).resolve().parents[3]
CORPUS = sorted(
    p for folder in ("tests/data", "rules") for p in (ROOT / folder).rglob("*")
    if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
    and p.read_text(errors="replace").lstrip("{\n\r\t ").startswith(
        ("openapi", "swagger", '"openapi"', '"swagger"')))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_project_documents_get_the_same_errors(path: Path) -> None:
    """Every OpenAPI document of the tests and the rule catalogue, valid or not."""
    doc = read_document(path)
    resolver = RefResolver(doc)
    data: Any = doc.data
    version = "2.0" if "swagger" in data else "3.1" if str(data.get("openapi", "")).startswith(
        "3.1") else "3.0"
    assert _errors(spec_validators.spec_validator_for(data), doc, resolver) == _errors(
        PLAIN[version], doc, resolver)


def test_the_keyword_precheck_answers_for_valid_documents(tmp_path: Path) -> None:
    """The fast path is taken (not only fallen back from) on valid documents."""
    from needs_microversion.loaders.openapi.validation.keyword_precheck import KeywordPrecheck

    for version in HEADS:
        if version == "3.1":
            continue
        for name in ("valid", "refs-everywhere-valid", "required-defined-under-all-of"):
            doc, _ = _doc(tmp_path, _cases(version)[name])
            from referencing import Registry
            from referencing.jsonschema import DRAFT202012

            uri = doc.path.as_uri()
            registry: Any = Registry().with_resource(  # type: ignore[call-arg]
                uri, DRAFT202012.create_resource(doc.data))
            check = KeywordPrecheck(version == "2.0", spec_validators._dialect_holds)
            assert check.holds(doc.data, registry.resolver(base_uri=uri)), (version, name)


MEMBER_SCHEMAS: list[Any] = [
    {"properties": {"a": {"type": "string"}}, "patternProperties": {"^x-": {}, "b$": {
        "type": "integer"}}, "additionalProperties": False},
    {"properties": {"a": {"type": "string"}}, "patternProperties": {"^a": {"minLength": 2}},
     "additionalProperties": {"type": "boolean"}},
    {"patternProperties": {"^x": {}, "y$": {}}, "additionalProperties": False},
    {"additionalProperties": False, "required": ["a"]},
    {"items": [{"type": "string"}], "additionalItems": False, "uniqueItems": True},
    {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "enum": [{"a": 1}, [1], "s"]},
    {"oneOf": [{"type": "integer"}, {"minimum": 0}], "not": {"enum": [5]}},
]
MEMBER_INSTANCES: list[Any] = [
    {}, {"a": "s"}, {"a": 1}, {"x-y": 1}, {"b": 1}, {"ab": 1}, {"ab": "s"}, {"z": True},
    {"aa": "s"}, {"a": "s", "z": 1}, {"(x": 1}, {"y)": 1}, {"xy": 1}, ["s"], ["s", "s"],
    ["s", 1], [1], {"a": 1, "b": 2}, {"a": 1}, {"c": 1}, {"c": 1, "d": 2}, "s", 5, -1, 3,
    1.0, True, None,
]


@pytest.mark.parametrize("schema", MEMBER_SCHEMAS, ids=repr)
def test_a_compiled_schema_agrees_with_jsonschema(schema: dict[str, Any]) -> None:
    from jsonschema.validators import Draft4Validator

    checker = Draft4Validator(schema)
    predicate = compile_draft4(checker)
    for instance in MEMBER_INSTANCES:
        assert predicate(instance) == checker.is_valid(instance), instance
