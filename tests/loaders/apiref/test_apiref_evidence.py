"""What the prose and the examples around an api-ref table tell the engine (fixture
tests/data/apiref/evidence): the operation's description, and the JSON types its examples
show for each body field."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from needs_microversion.loaders.apiref.reader import load_apiref
from test_apiref_helpers import DATA, at, body, operation, operations

EXAMPLE = "x-needs-microversion-example"
EXAMPLE_KEYS = "x-needs-microversion-example-keys"
UNLISTED = "x-needs-microversion-example-unlisted"


@cache
def doc() -> dict[str, Any]:
    return load_apiref(DATA / "evidence").document


# -- operation descriptions -----------------------------------------------------------------
def test_the_description_holds_the_sections_prose_before_and_after_rest_method() -> None:
    text = operation(doc(), "/consoles/{token}", "get")["description"]
    assert text.startswith("Given a console token, shows the related connection information.")
    assert "This method used to be available just for the ``rdp-html5`` console type prior\n" \
           "microversion 2.31. Now it's available for all console types." in text


def test_notes_and_warnings_are_taken_as_written() -> None:
    text = operation(doc(), "/consoles/{token}", "get")["description"]
    assert "Only administrators\nmay call this by default." in text
    assert "Tokens expire.\n\n.. versionadded:: 2.6\n   Nested in the warning" in text
    assert text.count("2.6") == 1  # the nested note is not repeated


def test_version_notes_read_as_sphinx_shows_them() -> None:
    text = operation(doc(), "/consoles/{token}", "get")["description"]
    assert text.endswith("Changed in version 2.5: Tokens may be reused.")


@pytest.mark.parametrize("left_out", [
    "group prose", "Normal response codes", "Error response codes", "|",
    "Prose of the Request subsection", "Prose after the bold label"])
def test_the_description_stops_at_the_first_subsection_or_table(left_out: str) -> None:
    texts = [op.get("description", "") for _, _, op in operations(doc())]
    assert not any(left_out in t for t in texts)


def test_a_bold_request_label_ends_the_description() -> None:
    assert operation(doc(), "/consoles", "post")["description"] == "Creates a console."


def test_no_prose_no_description() -> None:
    assert "description" not in operation(doc(), "/consoles", "get")


# -- example evidence -----------------------------------------------------------------------
@pytest.mark.parametrize(("pointer", "shown"), [
    ("/console", "object"),
    ("/console/port", "integer"),
    ("/console/host", "null"),
    ("/console/members", "array"),  # the table says string: the example shows the truth
    ("/console/nodes", "array"),
    ("/console/nodes/*", "object"),
    ("/console/nodes/*/name", "string"),
    ("/console/nodes/*/weight", "number"),  # 1.5 and 2
    ("/console/nodes/*/label", ["null", "string"]),  # the examples disagree
    ("/console/metadata", "object"),
    ("/console/metadata/{*}", "string"),
], ids=lambda value: str(value))
def test_response_fields_record_the_type_the_example_shows(pointer: str,
                                                           shown: str | list[str]) -> None:
    schema = body(operation(doc(), "/consoles/{token}", "get"), "200")
    assert at(schema, pointer)[EXAMPLE] == {"type": shown}


def test_a_field_the_example_lacks_has_no_example_type() -> None:
    schema = body(operation(doc(), "/consoles/{token}", "get"), "200")
    assert schema[EXAMPLE_KEYS] is True
    assert EXAMPLE not in at(schema, "/console/internal_path")


@pytest.mark.parametrize(("pointer", "unlisted"), [
    ("", ["console_links"]),
    ("/console", ["updated_at"]),
    ("/console/metadata", None),  # a free-form map: its keys are data, not fields
    ("/console/nodes/*", None),  # every key the example shows has a row
])
def test_keys_the_example_shows_beside_the_rows_are_recorded(pointer: str,
                                                             unlisted: list[str] | None) -> None:
    schema = body(operation(doc(), "/consoles/{token}", "get"), "200")
    assert at(schema, pointer).get(UNLISTED) == unlisted


def test_request_examples_evidence_the_request_body() -> None:
    schema = body(operation(doc(), "/consoles", "post"))
    assert schema[EXAMPLE_KEYS] is True
    assert at(schema, "/console/host")[EXAMPLE] == {"type": "string"}
    assert at(schema, "/console/port")[EXAMPLE] == {"type": "integer"}


def test_no_example_in_the_tree_no_example_keys() -> None:
    schema = body(operation(doc(), "/consoles", "get"), "200")
    assert "x-needs-microversion-example" not in str(schema)
