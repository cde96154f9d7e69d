"""Hand-written samples read through their slips (loaders/apiref/lenient_json.py), and what
that means for a comparison: a sample fixed for a missing comma moves no field."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from needs_microversion.loaders.apiref.lenient_json import loads


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1\n "b": 2}', {"a": 1, "b": 2}),  # a missing comma between members
    ('{"a": [\n {"x": 1}\n {"y": 2}\n]}', {"a": [{"x": 1}, {"y": 2}]}),  # between items
    ('{"id" "1"}', {"id": "1"}),  # a missing colon
    ('{"a": 1,,\n "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),  # doubled and trailing commas
    ('{"a": None, "b": True, "c": False}', {"a": None, "b": True, "c": False}),
    ('{"s": "tab\there"}', {"s": "tab\there"}),  # a raw control character in a string
    ('{"s": "None, True", "t": "x\\" \\"y"}', {"s": "None, True", "t": 'x" "y'}),  # strings kept
    ('\ufeff{"a": 1}', {"a": 1}),  # a byte-order mark
    ('[]', []), ('{}', {}), ('"x"', "x"),
])
def test_slips_a_reader_sees_through_are_mended(text: str, value: Any) -> None:
    assert loads(text) == value


@pytest.mark.parametrize("text", [
    '{a: 1}',  # an unquoted key: no guess
    '{"a": "b" "c"}',  # a value twice: which one?
    '{"a": 1',  # unbalanced
    '{"a": 1]',  # mismatched
    '{"a" :: 1}',
    "",
])
def test_what_it_cannot_read_is_refused_with_the_strict_parsers_message(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        loads(text)
    try:
        json.loads(text)
    except ValueError as strict:
        assert str(caught.value) == str(strict)


def test_an_unterminated_string_of_escaped_quotes_is_refused_at_once() -> None:
    """Each quote could start a string that runs to the end: scanned once, not once per
    quote (this took 21 s for 80 KB)."""
    started = time.perf_counter()
    with pytest.raises(ValueError, match="Unterminated string"):
        loads('"' + '\\"' * 400_000)
    assert time.perf_counter() - started < 2


def test_valid_json_is_read_as_json_reads_it() -> None:
    text = '{"a": [1, 2.5, "x", null, true], "b": {"c": {}}}'
    assert loads(text) == json.loads(text)


SECTION = """\
Show Model
==========

.. rest_method:: GET /models

Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

   - server_uuid: server_uuid
   - server_name: server_name
   - context: context

.. literalinclude:: samples/model-list-response.json
   :language: javascript
"""

PARAMETERS = """\
context:
  description: The servers.
  in: body
  required: true
  type: array
server_uuid:
  description: A server's UUID.
  in: body
  required: true
  type: string
server_name:
  description: A server's name.
  in: body
  required: true
  type: string
"""

SAMPLE = """\
{
    "context": [
        {
            "server_uuid": "1bf91464-9b41-428d-a11e-af691e5563bb"{comma}
            "server_name": "test1"
        }
    ]
}
"""


def _tree(top: Path, comma: str) -> Path:
    source = top / "api-ref" / "source"
    (source / "samples").mkdir(parents=True)
    (source / "index.rst").write_text(".. include:: models.inc\n")
    (source / "models.inc").write_text(SECTION)
    (source / "parameters.yaml").write_text(PARAMETERS)
    (source / "samples" / "model-list-response.json").write_text(
        SAMPLE.replace("{comma}", comma))
    return source


def test_a_sample_fixed_for_a_missing_comma_moves_no_field(run_cli: Any,
                                                            tmp_path: Path) -> None:
    old = _tree(tmp_path / "old", "")
    new = _tree(tmp_path / "new", ",")
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json")
    report = json.loads(out)
    assert (code, report["verdict"], report["changes"]) == (0, "not-required", [])


@pytest.mark.parametrize("text", [
    "[" * 101 + "]" * 101,  # deeper than the loader walks
    "[" * 100_000 + "]" * 100_000,  # deeper than Python's parser recurses
    '{"a": 1\n "b": ' + "[" * 100_000 + "]" * 100_000 + "}",  # the same, repaired
])
def test_a_sample_nested_too_deeply_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="nested deeper than 100 levels"):
        loads(text)
    assert loads("[" * 100 + "]" * 100)  # as deep as it may be


def test_a_sample_nested_too_deeply_is_a_warning_not_a_crash(run_cli: Any,
                                                               tmp_path: Path) -> None:
    old = _tree(tmp_path / "old", ",")
    new = _tree(tmp_path / "new", ",")
    (new / "samples" / "model-list-response.json").write_text(
        '{"context": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, out, err = run_cli("diff", str(old), str(new), "--format", "json")
    assert code in (0, 1) and "nested deeper than 100 levels" in err
