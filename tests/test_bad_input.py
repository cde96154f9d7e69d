"""Bad input never gives a traceback: exit 2, one line naming the file, quickly."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT

GOOD = ROOT / "examples" / "old.yaml"
OPENAPI_HEAD = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"


def _bomb() -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return OPENAPI_HEAD + "paths: {}\n" + "\n".join(lines) + "\n"


CASES: dict[str, Callable[[Path], str | bytes]] = {
    "invalid-yaml": lambda _: OPENAPI_HEAD + "paths: {\n  /x: [\n",
    "invalid-json": lambda _: '{"openapi": "3.0.3", "paths": {',
    "not-a-mapping": lambda _: "- just\n- a list\n",
    "empty": lambda _: "",
    "not-utf8": lambda _: b"openapi: 3.0.3\ninfo: {title: \xff\xfe}\n",
    "paths-is-a-number": lambda _: OPENAPI_HEAD + "paths: 5\n",
    "unknown-openapi-version": lambda _: "openapi: 4.0.0\ninfo: {title: t, version: '1'}\n"
                                         "paths: {}\n",
    "not-an-api-description": lambda _: "name: a config file\nvalues: [1, 2]\n",
    "ref-outside-the-tree": lambda _: OPENAPI_HEAD + "paths:\n  /x:\n    $ref: '../../outside.yaml'\n",
    "ref-to-a-url": lambda _: OPENAPI_HEAD + "paths:\n  /x:\n    $ref: 'https://example.com/x.yaml'\n",
    "dangling-ref": lambda _: OPENAPI_HEAD + "paths:\n  /x:\n    $ref: '#/components/pathItems/nope'\n",
    "alias-bomb": lambda _: _bomb(),
    "deep-nesting-json": lambda _: "[" * 100_000 + "]" * 100_000,
    "deep-nesting-yaml": lambda _: OPENAPI_HEAD + "x: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "python-tag": lambda _: OPENAPI_HEAD + "paths: !!python/object/apply:os.system ['echo hi']\n",
    "operation-not-a-mapping": lambda _: OPENAPI_HEAD + "paths:\n  /x:\n    get: 7\n",
    "duplicate-key-yaml": lambda _: OPENAPI_HEAD + "paths: {}\npaths: {}\n",
    "duplicate-key-json": lambda _: '{"openapi": "3.0.3", "paths": {},\n "paths": {}}',
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_new_document_exits_2_with_one_line(name: str, tmp_path: Path, run_cli) -> None:
    content = CASES[name](tmp_path)
    bad = tmp_path / "sub" / "bad.yaml"
    bad.parent.mkdir()
    (tmp_path / "outside.yaml").write_text(OPENAPI_HEAD + "paths: {}\n")
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content)
    code, out, err = run_cli("diff", str(GOOD), str(bad), "--no-validate")
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert str(bad) in err, err


def test_missing_file(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    code, _, err = run_cli("diff", str(missing), str(GOOD))
    assert code == 2 and str(missing) in err and err.count("\n") == 1


def test_invalid_yaml_names_the_line(tmp_path: Path, run_cli) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(OPENAPI_HEAD + "paths:\n  /x:\n    get: [unclosed\n")
    code, _, err = run_cli("diff", str(GOOD), str(bad), "--no-validate")
    assert code == 2 and f"{bad}:" in err
    assert any(f"{bad}:{n}" in err for n in range(3, 7)), err


def test_ref_inside_examples_is_data(tmp_path: Path, run_cli) -> None:
    doc = tmp_path / "doc.yaml"
    doc.write_text(OPENAPI_HEAD + """paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, example: {$ref: 'https://example.com/never-fetched'}}
              examples:
                one: {value: {$ref: '#/does/not/exist'}}
""")
    code, out, err = run_cli("diff", str(doc), str(doc), "--no-validate")
    assert code == 0, err


def test_relative_ref_inside_the_tree(tmp_path: Path, run_cli) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "server.yaml").write_text(
        "type: object\nproperties:\n  id: {type: string}\n")
    old = tmp_path / "old.yaml"
    old.write_text(OPENAPI_HEAD + """paths:
  /servers/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: 'schemas/server.yaml'}}}
""")
    new = tmp_path / "new.yaml"
    new.write_text(old.read_text().replace("schemas/server.yaml", "schemas/server2.yaml"))
    (tmp_path / "schemas" / "server2.yaml").write_text(
        "type: object\nproperties:\n  id: {type: string}\n  locked: {type: boolean}\n")
    code, out, err = run_cli("diff", str(old), str(new), "--no-validate", "--format", "json")
    assert code == 1, err
    assert '"pointer": "/locked"' in out


def test_invalid_spec_is_a_warning_unless_strict(tmp_path: Path, run_cli) -> None:
    doc = tmp_path / "doc.yaml"
    doc.write_text(OPENAPI_HEAD + "paths:\n  /x:\n    get:\n      responses:\n"
                   "        '200': {content: {}}\n")  # a response needs a description
    code, _, err = run_cli("diff", str(doc), str(doc))
    assert code == 0 and err.startswith("warning: ") and f"{doc}:" in err
    code, _, err = run_cli("diff", str(doc), str(doc), "--strict")
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize("text, line", [
    (OPENAPI_HEAD + "paths:\n  /x:\n    get: {}\n    get: {}\n", 6),
    ('{"openapi": "3.0.3",\n "paths": {"/x": {"get": {},\n  "get": {}}}}', 3),
], ids=["yaml", "json"])
def test_a_duplicate_key_names_its_line(tmp_path: Path, run_cli, text: str, line: int) -> None:
    bad = tmp_path / "dup.yaml"
    bad.write_text(text)
    code, _, err = run_cli("diff", str(GOOD), str(bad), "--no-validate")
    assert code == 2 and f"dup.yaml:{line}: " in err and "duplicate key" in err, err


def test_keys_a_merge_brings_in_may_be_overridden(tmp_path: Path, run_cli) -> None:
    text = ("defaults: &d {type: string, description: x}\n" + OPENAPI_HEAD +
            "paths: {}\ncomponents:\n  schemas:\n    A:\n      <<: *d\n      type: integer\n")
    doc = tmp_path / "merge.yaml"
    doc.write_text(text)
    code, _, err = run_cli("diff", str(doc), str(doc), "--no-validate")
    assert code == 0, err


def test_a_node_merged_twice_is_no_duplicate(tmp_path: Path, run_cli) -> None:
    """`c` merges two anchors that both give `x` (the first wins), and `d` merges `c`:
    flattening `c` again sees `x` twice, which was never written twice."""
    doc = tmp_path / "m.yaml"
    doc.write_text("a: &a {x: 1}\nb: &b {x: 2}\nc: &c {<<: [*a, *b]}\nd: {<<: *c}\n"
                   + OPENAPI_HEAD + "paths: {}\n")
    code, _, err = run_cli("diff", str(doc), str(doc), "--no-validate")
    assert code == 0, err


# -- bounds: each one an exit 2 with one line naming the file and the limit, quickly -------

def _ops_json(count: int) -> str:
    import json

    paths = {f"/r{i}": {"get": {"responses": {"200": {"description": "ok"}}}}
             for i in range(count)}
    return json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
                       "paths": paths})


BOUNDS: dict[str, tuple[Callable[[], str], str]] = {
    # 100,000 operations took ~50 s and 0.6 GB compared with themselves
    "operations": (lambda: _ops_json(10_001), "more than 10000 operations"),
    # PyYAML composes ~400 bytes per node: counted before anything is composed
    "yaml-nodes": (lambda: OPENAPI_HEAD + "paths: {}\nx:\n" + "- {}\n" * 500_001,
                   "more than 500000 YAML nodes"),
    # json.loads would make them all first (21 million `{}` are 1.3 GB)
    "json-values": (lambda: '{"openapi": "3.0.3", "x": [' + "{}," * 1_000_000 + "{}]}",
                    "more than 1000000 values"),
}


@pytest.mark.parametrize("name", sorted(BOUNDS))
@pytest.mark.parametrize("mode", ["--validate", "--no-validate"])
def test_a_bound_is_one_line_naming_the_limit(name: str, mode: str, tmp_path: Path,
                                              run_cli) -> None:
    import time

    make, message = BOUNDS[name]
    bad = tmp_path / "bad.yaml"
    bad.write_text(make())
    start = time.perf_counter()
    code, _, err = run_cli("diff", str(bad), str(bad), mode)
    assert code == 2 and err.count("\n") == 1 and message in err and str(bad) in err, err
    assert time.perf_counter() - start < 20


def test_operations_behind_refs_count_too(tmp_path: Path, run_cli, monkeypatch) -> None:
    from needs_microversion.loaders.openapi import builder

    monkeypatch.setattr(builder, "MAX_OPERATIONS", 3)
    doc = tmp_path / "doc.yaml"
    doc.write_text(OPENAPI_HEAD + "paths:\n  /a: {$ref: '#/components/x-items/a'}\n"
                   "  /b: {$ref: '#/components/x-items/a'}\ncomponents:\n  x-items:\n"
                   "    a: {get: {responses: {'200': {description: ok}}},\n"
                   "        put: {responses: {'200': {description: ok}}}}\n")
    code, _, err = run_cli("diff", str(doc), str(doc), "--no-validate")
    assert code == 2 and "more than 3 operations" in err, err


@pytest.mark.parametrize("kind", ["fifo", "device", "too-large"])
def test_a_document_that_is_no_regular_file(tmp_path: Path, run_cli, kind: str,
                                            monkeypatch) -> None:
    """Type and size are checked on the opened file: a FIFO is never read (it would block)."""
    import os

    from needs_microversion.documents import document

    bad = tmp_path / "bad.yaml"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "device":
        bad.symlink_to(os.devnull)
    else:
        monkeypatch.setattr(document, "MAX_BYTES", 200)
        bad.write_text(OPENAPI_HEAD + "paths: {}\n" + "#" * 200 + "\n")
    good = tmp_path / "good.yaml"
    good.write_text(OPENAPI_HEAD + "paths: {}\n")
    code, _, err = run_cli("diff", str(good), str(bad), "--no-validate")
    assert code == 2 and err.count("\n") == 1 and str(bad) in err, err
    assert ("larger than 200 bytes (the limit)" if kind == "too-large"
            else "not a regular file") in err


def test_a_version_file_is_read_bounded(tmp_path: Path, run_cli) -> None:
    """A configured version file of 2 GiB (sparse) is refused by its size, never read."""
    with open(tmp_path / "version.py", "wb") as handle:
        handle.truncate(2 * 2**30)
    (tmp_path / "c.yaml").write_text("services:\n- name: x\n  version-file: version.py\n")
    doc = tmp_path / "a.yaml"
    doc.write_text(OPENAPI_HEAD + "paths: {}\n")
    code, _, err = run_cli("diff", str(doc), str(doc), "--no-validate", "--config",
                           str(tmp_path / "c.yaml"))
    assert code == 2 and err.count("\n") == 1 and "version.py: is larger than 1 MiB" in err, err


def test_an_apiref_file_name_with_a_nul_is_a_warning(tmp_path: Path, run_cli) -> None:
    """A directive naming a file with a NUL character (no file system takes it) is a warning
    naming the line, not a crash."""
    tree = tmp_path / "source"
    shutil.copytree(ROOT / "tests" / "data" / "apiref" / "basic", tree)
    with (tree / "servers.inc").open("a") as handle:
        handle.write("\n.. literalinclude:: samples/a\x00b.json\n\n.. include:: x\x00y.inc\n")
    code, out, err = run_cli("diff", str(tree), str(tree))
    assert code == 0, err
    assert "is no file name; not read" in err
