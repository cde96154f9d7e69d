"""Which `$ref`s a document writes: read from its JSON text, or from its data."""

from __future__ import annotations

from pathlib import Path

import pytest

from needs_microversion.compare.taint import _refs_written
from needs_microversion.documents.document import parse_document


def refs(text: str, name: str = "d.json") -> frozenset[str] | None:
    doc = parse_document(text.encode(), path=Path("/") / name, display=name, root=Path("/"))
    return _refs_written(doc)


@pytest.mark.parametrize("text", [
    '{"a": {"$ref": "#/b"}, "b": {"$ref" : "#/c"}, "c": {"$ref":"#/d~1e"}, "d/e": {}}',
    '{\n  "a": {\n    "$ref": "#/b"\n  },\n  "b": {"$ref": "#/c"},\n  "c": {"$ref": "#/d~1e"}}',
    # an escaped letter spells `$ref` too: read from the data, not the text
    '{"a": {"\\u0024ref": "#/b"}, "b": {"$r\\u0065f": "#/c"}, "c": {"$ref": "#/d~1e"}}',
])
def test_every_ref_string_however_the_json_writes_it(text: str) -> None:
    assert refs(text) == {"#/b", "#/c", "#/d~1e"}


def test_refs_inside_strings_and_non_string_refs_are_not_refs() -> None:
    text = '{"description": "{\\"$ref\\": \\"#/x\\"}", "p": {"$ref": {"type": "string"}}}'
    assert refs(text) == frozenset()


def test_an_escaped_ref_string_is_read_as_json_reads_it() -> None:
    assert refs('{"a": {"$ref": "#/components/schemas/caf\\u00e9"}}') == {
        "#/components/schemas/caf\u00e9"}


def test_yaml_is_read_from_its_data() -> None:
    assert refs("a:\n  $ref: '#/b'\nb:\n  x: '$ref: \"#/c\"'\n", "d.yaml") == {"#/b"}
