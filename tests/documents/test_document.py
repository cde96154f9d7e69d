"""Reading documents: JSON or YAML by content, exact floats, and bounded, safe failures."""

from __future__ import annotations

import copy
import json
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from needs_microversion.documents.document import _json_shape
from needs_microversion.documents.yaml_reading import _check_expansion, _check_tree

from needs_microversion.documents.document import (

    MAX_DEPTH, MAX_NODES, SourceFloat, parse_document, read_document)

from needs_microversion.model.document import Document
from needs_microversion.errors import InputError


def write(tmp_path: Path, content: str | bytes, name: str = "doc.yaml") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def load(tmp_path: Path, content: str | bytes, name: str = "doc.yaml") -> Document:
    return read_document(write(tmp_path, content, name))


def refused(tmp_path: Path, content: str | bytes, name: str = "doc.yaml") -> InputError:
    with pytest.raises(InputError) as caught:
        load(tmp_path, content, name)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(tmp_path / name)), message
    return caught.value


# -- reading ---------------------------------------------------------------------------------

def test_json_document(tmp_path: Path) -> None:
    path = write(tmp_path, '{"info": {"version": 2.10}, "list": [1, 2.50, "x"]}', "a.json")
    doc = read_document(path)
    assert doc.format == "json"
    assert doc.data == {"info": {"version": 2.1}, "list": [1, 2.5, "x"]}
    assert doc.data["info"]["version"].source_text == "2.10"
    assert doc.data["list"][1].source_text == "2.50"
    assert doc.path == path.resolve() and doc.root == path.resolve().parent
    assert doc.display == str(path) and doc.text.startswith('{"info"')


def test_yaml_document_keeps_float_and_date_text(tmp_path: Path) -> None:
    doc = load(tmp_path, "info:\n  version: 2.10\nmax: 1_000.5\nwhen: 2024-01-31\n"
                         "stamp: 2001-12-14t21:59:43.10-05:00\nflag: yes\nnone: ~\nn: 0x10\n")
    assert doc.format == "yaml"
    version = doc.data["info"]["version"]
    assert isinstance(version, SourceFloat) and version == 2.1 and version.source_text == "2.10"
    assert doc.data["max"] == 1000.5 and doc.data["max"].source_text == "1_000.5"
    assert doc.data["when"] == "2024-01-31"
    assert doc.data["stamp"] == "2001-12-14t21:59:43.10-05:00"
    assert doc.data["flag"] is True and doc.data["none"] is None and doc.data["n"] == 16


def test_format_is_decided_by_content_not_extension(tmp_path: Path) -> None:
    assert load(tmp_path, '  \n [1, 2]', "list.yaml").format == "json"
    assert load(tmp_path, "a: 1\n", "map.json").format == "yaml"


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    assert load(tmp_path, b'\xef\xbb\xbf{"a": 1}', "a.json").data == {"a": 1}
    yaml_doc = load(tmp_path, b"\xef\xbb\xbfa: 1\n")
    assert yaml_doc.data == {"a": 1} and not yaml_doc.text.startswith("\ufeff")


def test_display_and_root_can_be_given(tmp_path: Path) -> None:
    path = write(tmp_path, "a: 1\n")
    doc = read_document(path, display="HEAD:api/doc.yaml", root=tmp_path.parent)
    assert doc.display == "HEAD:api/doc.yaml" and doc.root == tmp_path.parent.resolve()


def test_parse_document_reads_bytes_from_git() -> None:
    doc = parse_document(b"openapi: 3.1.0\n", path=Path("/repo/api.yaml"),
                         display="v1:api.yaml", root=Path("/repo"))
    assert doc.data == {"openapi": "3.1.0"} and doc.display == "v1:api.yaml"
    with pytest.raises(InputError, match=r"^v1:api.yaml:3: invalid YAML"):
        parse_document(b"a: 1\nb: [\n", path=Path("/repo/api.yaml"), display="v1:api.yaml",
                       root=Path("/repo"))


def test_source_float_survives_copy_and_pickle() -> None:
    number = SourceFloat("2.10")
    for clone in (copy.copy(number), copy.deepcopy(number), pickle.loads(pickle.dumps(number))):
        assert isinstance(clone, SourceFloat) and clone == 2.1 and clone.source_text == "2.10"
    assert SourceFloat(".inf", float("inf")) == float("inf")


def test_documents_compare_by_identity(tmp_path: Path) -> None:
    path = write(tmp_path, "a: 1\n")
    first, second = read_document(path), read_document(path)
    assert first != second and {first: 1}[first] == 1


# -- refused input ---------------------------------------------------------------------------

@pytest.mark.parametrize(("content", "message", "line"), [
    pytest.param(b"a: 1\nb: \xff\n", "is not UTF-8 text", 2, id="not-utf8"),
    pytest.param('{"a": 1,\n "b": }', "invalid JSON: Expecting value", 2, id="bad-json"),
    pytest.param("a: 1\nb: [1,\n", "invalid YAML", 3, id="bad-yaml"),
    pytest.param("a: 1\nb: \x01\n", "invalid YAML: character U+0001 is not allowed", 2,
                 id="control-character"),
    pytest.param("a: 1\n---\nb: 2\n", "more than one YAML document", 2, id="two-documents"),
    pytest.param("", "empty document", None, id="empty"),
    pytest.param("  \n# only a comment\n", "empty document", None, id="comment-only"),
    pytest.param("~\n", "empty document", None, id="null"),
    pytest.param("a: 1\nb: !!python/object/apply:os.system ['echo hi']\n",
                 "unsupported YAML tag 'tag:yaml.org,2002:python/object/apply:os.system'", 2,
                 id="python-tag"),
    pytest.param("a: !foo 1\n", "unsupported YAML tag '!foo'", 1, id="local-tag"),
    pytest.param("a: !!binary aGk=\n", "unsupported YAML tag", 1, id="binary"),
    pytest.param("a: !!set {x}\n", "unsupported YAML tag", 1, id="set"),
    pytest.param("a:\n  b: !!int abc\n", "invalid tag:yaml.org,2002:int value 'abc'", 2,
                 id="bad-int"),
    pytest.param("a: !!bool maybe\n", "invalid tag:yaml.org,2002:bool value", 1, id="bad-bool"),
    pytest.param("a: " + "1" * 5000 + "\n", "integer longer than 4300 digits", 1,
                 id="long-int-yaml"),
    pytest.param("a: " + "1:" * 3000 + "1\n", "integer longer than 4300 digits", 1,
                 id="long-sexagesimal"),
    pytest.param("? [a]\n: 1\n", "found unhashable key", 1, id="list-key"),
])
def test_bad_content(tmp_path: Path, content: str | bytes, message: str, line: int | None
                     ) -> None:
    error = refused(tmp_path, content)
    assert message in str(error)
    assert error.line == line


def test_long_json_integer(tmp_path: Path) -> None:
    assert "invalid JSON" in str(refused(tmp_path, '{"a": ' + "1" * 5000 + "}"))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.yaml: no such file$"):
        read_document(tmp_path / "missing.yaml")
    with pytest.raises(InputError, match="no such file"):
        read_document(write(tmp_path, "a: 1\n", "file") / "below.yaml")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_document(tmp_path)


def test_fifo_is_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is not a regular file"):
        read_document(fifo)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = write(tmp_path, "a: 1\n")
    path.chmod(0)
    with pytest.raises(InputError, match="cannot read"):
        read_document(path)


def test_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    with pytest.raises(InputError, match=r"a\.yaml: "):
        read_document(tmp_path / "a.yaml")


# -- bounded: bombs and deep nesting ---------------------------------------------------------

def billion_laughs() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def merge_bomb() -> str:
    """Each mapping merges the one before and adds ten keys: 500 short lines, 1.25 million
    merged keys (quadratic, in every PyYAML release)."""
    lines = ["k0: &k0 {" + ", ".join(f"x{j}: 1" for j in range(10)) + "}"]
    lines += [f"k{i}: &k{i} {{<<: *k{i - 1}, " + ", ".join(f"x{i}_{j}: 1" for j in range(10))
              + "}" for i in range(1, 500)]
    return "\n".join(lines) + "\n"


def copying_merge_bomb() -> str:
    """Each mapping merges ten copies of the one before: exponential where PyYAML copies
    every merged key list (6.0.3 and earlier)."""
    lines = ["k0: &k0 {" + ", ".join(f"x{j}: 1" for j in range(10)) + "}"]
    lines += [f"k{i}: &k{i} {{<<: [{', '.join([f'*k{i - 1}'] * 10)}]}}" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def alias_chain(length: int) -> str:
    """Each anchor wraps the previous one: short text, deep data."""
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, length)]
    return "\n".join(lines) + "\n"


def indented(depth: int) -> str:
    return "".join(" " * i + "a:\n" for i in range(depth - 1)) + " " * (depth - 1) + "a: x\n"


DEEP = 100_000
BOMBS: dict[str, tuple[Callable[[], str], str]] = {
    "alias-bomb": (billion_laughs, f"expands to more than {MAX_NODES} nodes"),
    "merge-key-bomb": (merge_bomb, "merge-key bomb"),
    "recursive-alias": (lambda: "a: &a [x, *a]\n", "refers to a node that contains it"),
    "recursive-mapping": (lambda: "a: &a {b: *a}\n", "refers to a node that contains it"),
    "alias-chain": (lambda: alias_chain(MAX_DEPTH + 10), "once YAML aliases are expanded"),
    "json": (lambda: "[" * DEEP + "]" * DEEP, f"nested more than {MAX_DEPTH} levels"),
    "json-objects": (lambda: '{"a":' * DEEP + "1" + "}" * DEEP, "nested more than"),
    "yaml-flow": (lambda: "x: " + "[" * DEEP + "]" * DEEP + "\n", "nested more than"),
    "yaml-flow-mappings": (lambda: "{a: " * DEEP + "1" + "}" * DEEP + "\n", "nested more than"),
    "yaml-compact-block": (lambda: "- " * DEEP + "x\n", "nested more than"),
    "yaml-indented": (lambda: indented(MAX_DEPTH + 100), "nested more than"),
    "yaml-indented-items": (lambda: "".join("  " * i + "-\n" for i in range(MAX_DEPTH + 100)),
                            "nested more than"),
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bombs_and_deep_nesting_are_refused(tmp_path: Path, name: str) -> None:
    make, message = BOMBS[name]
    assert message in str(refused(tmp_path, make()))


@pytest.mark.parametrize(("content", "name"), [
    pytest.param("[" * MAX_DEPTH + "]" * MAX_DEPTH, "doc.json", id="json"),
    pytest.param("x: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1), "doc.yaml", id="flow"),
    pytest.param("- " * MAX_DEPTH + "x\n", "doc.yaml", id="compact"),
    pytest.param(indented(MAX_DEPTH), "doc.yaml", id="indented"),
    pytest.param(alias_chain(MAX_DEPTH - 1), "doc.yaml", id="alias-chain"),
])
def test_nesting_up_to_the_limit_is_read(tmp_path: Path, content: str, name: str) -> None:
    load(tmp_path, content, name)


OVER = MAX_DEPTH + 1


@pytest.mark.parametrize(("content", "name"), [
    pytest.param("[" * OVER + "]" * OVER, "doc.json", id="json"),
    pytest.param("x: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH, "doc.yaml", id="flow"),
    pytest.param("a: &a 1\nx: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH, "doc.yaml",
                 id="flow-with-an-anchor"),
    pytest.param("- " * OVER + "x\n", "doc.yaml", id="compact"),
])
def test_one_level_over_the_limit(tmp_path: Path, content: str, name: str) -> None:
    assert f"nested more than {MAX_DEPTH} levels deep" in str(refused(tmp_path, content, name))


@pytest.mark.parametrize("check", [_check_tree, _check_expansion])
def test_both_walks_refuse_cycles_bombs_and_depth(check: Callable[[Any, str], None]) -> None:
    cycle: list[Any] = ["x"]
    cycle.append({"back": cycle})
    shared: list[Any] = [[]] * 10
    for _ in range(8):
        shared = [shared] * 10
    for data, message in [(cycle, "contains it"), (shared, "alias bomb"),
                          (nested(MAX_DEPTH + 1, "x"), "nested more than")]:
        with pytest.raises(InputError, match=message):
            check(data, "doc.yaml")
    check({"a": [nested(MAX_DEPTH - 2, 1)], "b": [[]] * 10}, "doc.yaml")  # depth 500


def test_brackets_inside_strings_are_not_nesting(tmp_path: Path) -> None:
    text = "[" * 2 * MAX_DEPTH + '\\"]' * MAX_DEPTH
    assert load(tmp_path, json.dumps({"a": text, "b": [text]}), "a.json").data["a"] == text
    assert load(tmp_path, yaml.safe_dump({"a": text, "b": [text]}, width=1000)).data["a"] == text


def test_shared_aliases_within_the_limit_are_read(tmp_path: Path) -> None:
    doc = load(tmp_path, "base: &b {type: string}\nx: [*b, *b, *b]\ny: {<<: *b, format: date}\n")
    assert doc.data["x"][2] == {"type": "string"}
    assert doc.data["y"] == {"type": "string", "format": "date"}


def nested(depth: int, leaf: Any) -> Any:
    return leaf if depth == 0 else [nested(depth - 1, leaf)]


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    return 0


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\/ \n\tué'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(alphabet='[]{}"\\ a'), inner, max_size=4),
    max_leaves=30,
)


@given(JSON_VALUES, st.booleans())
def test_json_depth_scan_counts_only_real_brackets(value: Any, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only, indent=1).encode()
    assert _json_shape(raw)[0] == depth_of(value)


def test_json_depth_scan_past_the_quick_passes() -> None:
    assert _json_shape(json.dumps(nested(300, "]")).encode())[0] == 300


def test_merge_bomb_with_an_explicit_tag(tmp_path: Path) -> None:
    text = merge_bomb().replace("<<:", "!!merge m:")
    assert "merge-key bomb" in str(refused(tmp_path, text))


def test_a_copying_merge_bomb_is_refused_or_never_grows(tmp_path: Path) -> None:
    """PyYAML 6.0.4 merges a key node once however often it is merged: the bomb is then ten
    keys per mapping; releases before copy it ten times per level, and the count stops it."""
    (tmp_path / "doc.yaml").write_text(copying_merge_bomb())
    try:
        data = read_document(tmp_path / "doc.yaml").data
    except InputError as exc:
        assert "merge-key bomb" in str(exc)
    else:
        assert all(len(value) == 10 for value in data.values())
