"""Lines of JSON pointers: text scans for JSON and block YAML, the node tree otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, SHARED
from hypothesis import given, settings
from hypothesis import strategies as st

from needs_microversion.documents import locate, yaml_locator
from needs_microversion.documents.document import parse_document, read_document
from needs_microversion.errors import InputError
from needs_microversion.documents.locate import line_of, lines_of
from needs_microversion.model.document import Document

DATA = ROOT / "tests" / "data" / "documents"

YAML_LINES = {
    (): 3,
    ("openapi",): 3,
    ("info", "version"): 6,
    ("paths", "/pet", "put"): 9,
    ("paths", "/pet", "put", "parameters", "0"): 12,
    ("paths", "/pet", "put", "parameters", "0", "in"): 13,
    ("paths", "/pet", "put", "parameters", "1", "name"): 14,
    ("paths", "/pet", "put", "parameters", "1", "in"): 15,
    ("paths", "/pet", "get"): 16,
    ("paths", "/pet", "get", "description"): 17,
    ("paths", "/pet/{petId}", "delete"): 22,
    ("paths", "/it's", "get", "responses", "200", "description"): 27,
    ("paths", "/it's", "get", "responses", "404", "description"): 30,
    ("paths", "/esc\u00e9", "get"): 32,
    ("tags", "1"): 35,
    ("tags", "1", "name"): 35,
    ("matrix", "0", "1"): 38,
    ("matrix", "1"): 40,  # where the item starts, below its `-`
    ("matrix", "1", "0"): 40,
    ("components", "schemas", "Dog", "title"): 48,
    ("components", "schemas", "Empty"): 50,
    ("components", "schemas", "Last"): 51,
}
# Flow style, aliases and merge keys: found in the composed node tree.
YAML_COMPOSED_LINES = {
    ("components", "schemas", "Pet", "required", "1"): 45,
    ("components", "schemas", "Dog", "type"): 44,  # merged in from Pet
    ("components", "schemas", "Cat", "required"): 45,  # an alias of Pet
}
# Missing elements: the line of the closest existing ancestor.
YAML_ANCESTOR_LINES = {
    ("nope",): 3,
    ("paths", "/nope", "get"): 7,
    ("paths", "/pet", "get", "put"): 16,  # only in the block scalar's text
    ("paths", "/pet", "get", "description", "0"): 17,  # below a scalar
    ("tags", "7"): 33,
    ("tags", "name"): 33,
    ("matrix", "0", "01"): 37,
    ("components", "schemas", "Empty", "type"): 50,
    ("components", "schemas", "Dog", "nope"): 46,  # not merged in either
}
JSON_LINES = {
    (): 1,
    ("openapi",): 2,
    ("paths", "/pet", "put"): 5,
    ("paths", "/pet", "put", "parameters", "0"): 8,
    ("paths", "/pet", "put", "parameters", "0", "in"): 8,
    ("paths", "/pet", "put", "parameters", "1"): 9,
    ("paths", "/pet", "put", "parameters", "1", "in"): 11,
    ("paths", "/pet/{petId}", "delete"): 16,
    ("paths", "/a/b\u00e9", "get"): 17,
    ("paths", "dup", "second"): 19,
    ("paths", "once", "first"): 18,
    ("tags", "2", "1"): 22,
    ("tags", "1", "0"): 21,
    ("paths", "/pet", "put", "summary", "x"): 6,
    ("nope", "x"): 1,
}
FLOW_LINES = {
    ("paths", "/pet", "put"): 2,
    ("paths", "/pet", "get"): 3,
    ("paths", "/pet", "get", "tags", "1"): 4,
    ("paths", "/pet", "nope"): 2,
}


def named(lines: dict[tuple[str, ...], int]) -> Any:
    return pytest.mark.parametrize(("pointer", "line"), list(lines.items()),
                                   ids=["/".join(p) or "root" for p in lines])


@named({**YAML_LINES, **YAML_COMPOSED_LINES, **YAML_ANCESTOR_LINES})
def test_block_yaml(pointer: tuple[str, ...], line: int) -> None:
    assert line_of(read_document(DATA / "locate.yaml"), pointer) == line


@named(JSON_LINES)
def test_json(pointer: tuple[str, ...], line: int) -> None:
    assert line_of(read_document(DATA / "locate.json"), pointer) == line


@named(FLOW_LINES)
def test_flow_yaml(pointer: tuple[str, ...], line: int) -> None:
    assert line_of(read_document(DATA / "locate-flow.yaml"), pointer) == line


def test_block_yaml_is_read_without_composing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = read_document(DATA / "locate.yaml")

    def compose(*args: object, **kwargs: object) -> None:
        raise AssertionError("composed")

    monkeypatch.setattr(yaml_locator.yaml, "compose", compose)
    pointers = {**YAML_LINES, **YAML_ANCESTOR_LINES}
    pointers.pop(("components", "schemas", "Dog", "nope"))  # `<<` may hold it: composes
    assert lines_of(doc, pointers) == pointers


def test_lines_of_answers_every_pointer() -> None:
    doc = read_document(DATA / "locate.yaml")
    every = {**YAML_LINES, **YAML_COMPOSED_LINES, **YAML_ANCESTOR_LINES}
    assert lines_of(doc, reversed(list(every))) == every
    assert lines_of(doc, []) == {}


def test_pretty_json_is_read_only_as_far_as_a_lookup_needs() -> None:
    """A large container is not read past the child looked up (a 4 MB spec's `paths`)."""
    data = {"first": {"x": [1, {"y": 2}]}, "paths": {f"/p{i}": {"get": {}} for i in range(50)},
            "last": 3}
    text = json.dumps(data, indent=2)
    doc = parse_document(text.encode(), path=Path("/d.json"), display="d.json", root=Path("/"))
    lines = text.split("\n")
    assert line_of(doc, ("first", "x", "1", "y")) == 1 + next(
        i for i, line in enumerate(lines) if '"y"' in line)
    root = locate._locator(doc)._indented[0]  # type: ignore[union-attr]
    assert isinstance(root, locate._Indented) and not root._done  # "paths" not reached
    assert line_of(doc, ("last",)) == len(lines) - 1
    assert line_of(doc, ("paths", "/p7", "get")) == 1 + lines.index('    "/p7": {') + 1
    assert line_of(doc, ("missing",)) == 1  # the closest ancestor: the root
    assert root._done


def test_a_member_is_found_in_its_own_object_however_its_key_is_written() -> None:
    """The line of a member the data has is searched for directly: an earlier object with
    the same key at the same indentation is not its object, and a key written with an
    escape, a space before `:` or on a line it shares is still found (by the scan)."""
    text = ('{\n  "a": {\n    "k": 1,\n    "x": {\n      "k": 0\n    }\n  },\n'
            '  "b": {\n    "\\/p" : 2,\n    "k": 3\n  }\n}')
    doc = parse_document(text.encode(), path=Path("/d.json"), display="d.json", root=Path("/"))
    assert lines_of(doc, [("a", "k"), ("a", "x", "k"), ("b", "k"), ("b", "/p"), ("b", "z")]) == {
        ("a", "k"): 3, ("a", "x", "k"): 5, ("b", "k"): 10, ("b", "/p"): 9, ("b", "z"): 8}
    # members sharing a line: the next object's line at that indentation is not theirs
    text = '{\n  "a": {\n    "x": 1, "k": 2\n  },\n  "b": {\n    "k": 3\n  }\n}'
    doc = parse_document(text.encode(), path=Path("/e.json"), display="e.json", root=Path("/"))
    assert lines_of(doc, [("b", "k"), ("a", "k")]) == {("a", "k"): 3, ("b", "k"): 6}


def test_members_found_in_any_order_bound_each_other() -> None:
    """A member is searched for between the members around it already found: in any order
    of lookups, each is found on its own line, also beside a key written with an escape and
    with the same keys in a nested object and in the next object."""
    names = [f"k{i}" for i in range(12)]
    inner = {name: {name: i} for i, name in enumerate(names)}
    text = json.dumps({"a": inner, "b": inner}, indent=2).replace('"k5": {', '"\\u006b5": {', 1)
    doc = parse_document(text.encode(), path=Path("/d.json"), display="d.json", root=Path("/"))
    pointers = [(side, name, *nested) for side in "ab" for name in names for nested in ((), (name,))]
    tree = yaml.compose(doc.text, Loader=yaml.CSafeLoader)
    expected = {p: composed_line(tree, p) for p in pointers}
    for order in (pointers, pointers[::-1], pointers[::3] + pointers[1::3] + pointers[2::3]):
        locate._LOCATORS.pop(doc, None)  # a fresh locator: nothing found yet
        assert lines_of(doc, order) == expected


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_other_line_breaks(newline: str) -> None:
    path = DATA / "locate.yaml"
    text = path.read_text(encoding="utf-8").replace("\n", newline)
    doc = parse_document(text.encode(), path=path, display="x.yaml", root=DATA)
    every = {**YAML_LINES, **YAML_COMPOSED_LINES, **YAML_ANCESTOR_LINES}
    assert lines_of(doc, every) == every


def test_indented_root_and_directives() -> None:
    text = "%YAML 1.1\n--- # the root\n\n  a:\n    b: 1\n  c:\n  - x\n"
    doc = parse_document(text.encode(), path=DATA / "x.yaml", display="x.yaml", root=DATA)
    assert lines_of(doc, [(), ("a", "b"), ("c", "0"), ("c", "1")]) == {
        (): 4, ("a", "b"): 5, ("c", "0"): 7, ("c", "1"): 6}


def test_documents_built_in_memory_have_no_lines() -> None:
    doc = Document(path=DATA, display="api-ref", root=DATA, text="", data={"a": 1},
                   format="api-ref")
    assert line_of(doc, ("a",)) is None


def composed_line(node: yaml.Node, pointer: tuple[str, ...]) -> int:
    """The reference: walk yaml.compose's tree (no merge keys in the documents used)."""
    line = node.start_mark.line + 1
    for segment in pointer:
        if isinstance(node, yaml.MappingNode):
            key, node = [(k, v) for k, v in node.value if k.value == segment][-1]
            line = key.start_mark.line + 1
        else:
            node = node.value[int(segment)]
            line = node.start_mark.line + 1
    return line


def every_pointer(data: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    children = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(
        data, list) else ()
    for key, value in children:
        found += every_pointer(value, (*prefix, str(key)))
    return found


def agrees_with_compose(doc: Document) -> None:
    tree = yaml.compose(doc.text, Loader=yaml.CSafeLoader)
    assert tree is not None
    pointers = every_pointer(doc.data)
    assert lines_of(doc, pointers) == {p: composed_line(tree, p) for p in pointers}


def test_every_element_of_the_flow_fixture_agrees_with_compose() -> None:
    agrees_with_compose(read_document(DATA / "locate-flow.yaml"))


@pytest.mark.skipif(not (SHARED / "bench").is_dir(), reason="needs ../shared/bench")
def test_petstore_agrees_with_compose() -> None:
    doc = read_document(SHARED / "bench" / "petstore" / "old.yaml")
    assert line_of(doc, ("paths", "/pet", "put")) == doc.text.splitlines().index("    put:") + 1
    agrees_with_compose(doc)


@pytest.mark.skipif(not (SHARED / "bench").is_dir(), reason="needs ../shared/bench")
def test_stripe_spot_checks() -> None:
    doc = read_document(SHARED / "bench" / "stripe" / "old.json")
    lines = doc.text.splitlines()
    found = lines_of(doc, [("paths", "/v1/customers"), ("paths", "/v1/customers", "post"),
                           ("components", "schemas", "customer", "properties", "email")])
    path, post, email = (lines[n - 1] for n in found.values())
    assert "/v1/customers" in path and "post" in post and "email" in email
    assert found[("paths", "/v1/customers")] < found[("paths", "/v1/customers", "post")]


KEYS = st.text(alphabet="ab :#'\"-?/{[&*!|>%@\\\t\u00e9~", min_size=0, max_size=6)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="ab :#'\"-\n[{|>", max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=3), st.sampled_from([2, 4]),
       st.booleans(), st.booleans())
def test_any_dumped_yaml_agrees_with_compose(data: dict[str, Any], indent: int, flow: bool,
                                             start: bool) -> None:
    text = yaml.safe_dump(data, indent=indent, default_flow_style=None if flow else False,
                          explicit_start=start, allow_unicode=True, width=40)
    if text.startswith("{"):  # a file starting with "{" is read as JSON
        text = "--- " + text
    agrees_with_compose(parse_document(text.encode(), path=DATA / "x.yaml", display="x.yaml",
                                       root=DATA))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=3), st.sampled_from([None, 0, 2, 4]),
       st.booleans())
def test_any_json_agrees_with_compose(data: dict[str, Any], indent: int | None,
                                      ascii_only: bool) -> None:
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    agrees_with_compose(parse_document(text.encode(), path=DATA / "x.json", display="x.json",
                                       root=DATA))


def test_a_repeated_key_is_no_document(tmp_path: Path) -> None:
    """A key written twice made the line of a lookup a guess (which one wins?): now it is an
    error naming the second one's line."""
    text = '{"a": 1,\n "a": 2}'
    (tmp_path / "dup.json").write_text(text)
    with pytest.raises(InputError, match=r"dup.json:2: duplicate key 'a'"):
        read_document(tmp_path / "dup.json")
