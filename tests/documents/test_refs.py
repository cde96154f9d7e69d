"""`$ref` resolution: pointers, relative files inside the root, and everything refused."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from needs_microversion.documents.document import read_document

from needs_microversion.model.document import Document
from needs_microversion.errors import InputError
from needs_microversion.documents.refs import RefResolver

MAIN = """\
openapi: 3.0.3
paths:
  /pets:
    get:
      responses:
        200:
          description: ok
components:
  schemas:
    Pet: {type: object}
    a/b: {type: string}
    m~n: {type: integer}
    with space: {type: boolean}
    Alias: {$ref: '#/components/schemas/Pet'}
    AliasOfAlias: {$ref: '#/components/schemas/Alias'}
    WithSiblings: {$ref: '#/components/schemas/Pet', description: kept}
    LoopA: {$ref: '#/components/schemas/LoopB'}
    LoopB: {$ref: '#/components/schemas/LoopA'}
    Self: {$ref: '#/components/schemas/Self'}
    BadChain: {$ref: 7}
    CrossBack: {$ref: 'schemas/common.yaml#/Cross'}
  list: [zero, one, two]
"""


@pytest.fixture
def main(tmp_path: Path) -> Document:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "schemas").mkdir()
    (tmp_path / "api" / "schemas" / "pet.json").write_text(
        '{"type": "object", "properties": {"owner": {"$ref": "common.yaml#/Owner"}}}')
    (tmp_path / "api" / "schemas" / "common.yaml").write_text(
        "Owner: {type: string}\nBack: {$ref: '../main.yaml#/components/schemas/Pet'}\n"
        "Cross: {$ref: '../main.yaml#/components/schemas/CrossBack'}\n")
    (tmp_path / "api" / "other.yaml").write_text("Pet: {type: object, title: other}\n")
    (tmp_path / "outside.yaml").write_text("Pet: {type: object}\n")
    path = tmp_path / "api" / "main.yaml"
    path.write_text(MAIN)
    return read_document(path)


def test_local_pointer(main: Document) -> None:
    doc, node, pointer = RefResolver(main).resolve("#/components/schemas/Pet", main)
    assert doc is main and node == {"type": "object"}
    assert pointer == ("components", "schemas", "Pet")


def test_whole_document(main: Document) -> None:
    assert RefResolver(main).resolve("#", main) == (main, main.data, ())
    assert RefResolver(main).resolve("", main)[2] == ()


@pytest.mark.parametrize(("ref", "key"), [
    ("#/components/schemas/a~1b", "a/b"),
    ("#/components/schemas/m~0n", "m~n"),
    ("#/components/schemas/with%20space", "with space"),
])
def test_escapes(main: Document, ref: str, key: str) -> None:
    _, node, pointer = RefResolver(main).resolve(ref, main)
    assert pointer[-1] == key and node == main.data["components"]["schemas"][key]


def test_array_index_and_number_keys(main: Document) -> None:
    resolver = RefResolver(main)
    assert resolver.resolve("#/components/list/1", main)[1] == "one"
    assert resolver.resolve("#/paths/~1pets/get/responses/200", main)[1] == {
        "description": "ok"}


def test_chains_of_plain_refs_are_followed(main: Document) -> None:
    resolver = RefResolver(main)
    _, node, pointer = resolver.resolve("#/components/schemas/AliasOfAlias", main)
    assert node == {"type": "object"} and pointer == ("components", "schemas", "Pet")
    # A $ref with siblings is a schema of its own: the caller decides what it means.
    _, node, _ = resolver.resolve("#/components/schemas/WithSiblings", main)
    assert node["description"] == "kept"


def test_relative_files_are_read_once(main: Document) -> None:
    resolver = RefResolver(main)
    doc, node, pointer = resolver.resolve("./schemas/pet.json", main)
    assert doc.format == "json" and node["type"] == "object" and pointer == ()
    assert doc.path == main.path.parent / "schemas" / "pet.json"
    assert doc.display == str(Path(main.display).parent / "schemas" / "pet.json")
    assert doc.root == main.root
    # Relative to the file the $ref is written in, and the same Document each time.
    owner_doc, owner, _ = resolver.resolve(node["properties"]["owner"]["$ref"], doc)
    assert owner == {"type": "string"} and owner_doc.path.name == "common.yaml"
    assert resolver.resolve("schemas/common.yaml#/Owner", main)[0] is owner_doc
    assert resolver.resolve("other.yaml#/Pet", main)[1]["title"] == "other"
    back_doc, _, back = resolver.resolve("schemas/common.yaml#/Back", main)
    assert back_doc is main and back == ("components", "schemas", "Pet")


def test_git_style_display_names_follow_the_referring_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("a: 1\n")
    (tmp_path / "b.yaml").write_text("X: 1\n")
    main = read_document(tmp_path / "a.yaml", display="HEAD:api/a.yaml")
    doc, _, _ = RefResolver(main).resolve("b.yaml#/X", main)
    assert doc.display == "HEAD:api/b.yaml"


def refused(main: Document, ref: object, match: str) -> InputError:
    with pytest.raises(InputError, match=match) as caught:
        RefResolver(main).resolve(ref, main)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value) and str(caught.value).startswith(main.display)
    return caught.value


@pytest.mark.parametrize("ref", [
    "https://example.com/pet.yaml", "http://example.com/x#/a", "file:///etc/passwd",
    "ftp://example.com/x", "//example.com/x.yaml", "urn:uuid:1234", "HTTPS://x/y",
])
def test_urls_are_never_fetched(main: Document, ref: str, monkeypatch: pytest.MonkeyPatch
                                ) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    refused(main, ref, r"\$ref to a URL is not followed")


@pytest.mark.parametrize("ref", ["../outside.yaml#/Pet", "../outside.yaml", "/etc/passwd",
                                 "schemas/../../outside.yaml", "%2E%2E/outside.yaml"])
def test_files_outside_the_root_are_refused(main: Document, ref: str) -> None:
    refused(main, ref, "points outside the document's folder")


def test_symlink_out_of_the_root_is_refused(main: Document, tmp_path: Path) -> None:
    (tmp_path / "api" / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    refused(main, "link.yaml#/Pet", "points outside the document's folder")


def test_a_wider_root_allows_sibling_folders(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "common.yaml").write_text("Pet: {type: object}\n")
    (tmp_path / "api" / "main.yaml").write_text("a: 1\n")
    main = read_document(tmp_path / "api" / "main.yaml", root=tmp_path)
    assert RefResolver(main).resolve("../common.yaml#/Pet", main)[1] == {"type": "object"}


def test_missing_targets(main: Document) -> None:
    error = refused(main, "#/components/schemas/Nope",
                    r"'#/components/schemas/Nope' points to nothing: no "
                    r"'components/schemas/Nope'$")
    assert error.line is None  # the ref is not written in the file
    refused(main, "other.yaml#/Dog", r"no 'Dog' in .*other\.yaml$")
    refused(main, "#/components/list/3", "points to nothing")
    refused(main, "#/components/list/01", "points to nothing")
    refused(main, "#/openapi/x", "points to nothing")
    refused(main, "missing.yaml#/Pet", r"'missing.yaml#/Pet': no such file")
    refused(main, "schemas", "is a directory")
    refused(main, "a%00b.yaml", "no such file")


def test_the_error_names_the_line_of_the_ref(main: Document) -> None:
    error = refused(main, "#/components/schemas/Self", r"\$ref loop")
    assert error.line == MAIN.splitlines().index(
        "    Self: {$ref: '#/components/schemas/Self'}") + 1


def test_loops(main: Document) -> None:
    refused(main, "#/components/schemas/LoopA",
            r"\$ref loop: \S*main\.yaml#/components/schemas/LoopA -> \S*main\.yaml"
            r"#/components/schemas/LoopB -> \S*LoopA$")
    refused(main, "#/components/schemas/Self", r"\$ref loop")
    refused(main, "#/components/schemas/CrossBack", r"\$ref loop: .*common\.yaml#/Cross")


def test_a_document_that_is_only_a_ref_to_itself(tmp_path: Path) -> None:
    (tmp_path / "self.yaml").write_text("$ref: '#'\n")
    doc = read_document(tmp_path / "self.yaml")
    refused(doc, "#", r"\$ref loop")


def test_bad_ref_values(main: Document) -> None:
    refused(main, "#/components/schemas/BadChain", r"\$ref must be a string, not 7")
    refused(main, ["#/a"], r"\$ref must be a string")
    refused(main, "#Pet", "must be a JSON pointer")


def test_errors_in_referenced_files_name_that_file(main: Document, tmp_path: Path) -> None:
    (tmp_path / "api" / "broken.yaml").write_text("a: [\n")
    with pytest.raises(InputError, match=r"broken\.yaml:2: invalid YAML"):
        RefResolver(main).resolve("broken.yaml#/a", main)


def _split_api(folder: Path, max_length: int, bound: str = "2.1") -> Path:
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (folder / "api.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '2.9'}\npaths:\n  /x:\n    get:\n"
        "      responses:\n        '200':\n          description: ok\n          content:\n"
        "            application/json:\n              schema: {$ref: 'sub/s.yaml#/S'}\n")
    (folder / "sub" / "s.yaml").write_text(
        f"S:\n  type: object\n  properties:\n    name:\n      type: string\n"
        f"      maxLength: {max_length}\n      x-openstack: {{min-ver: '{bound}'}}\n")
    return folder / "api.yaml"


def test_a_referenced_file_counts_with_its_microversions_and_lines(tmp_path: Path,
                                                                    run_cli) -> None:
    """Without the referenced file's bounds the comparison sampled only 2.0, where the
    property (from 2.1) exists in neither document, and saw no change."""
    old, new = _split_api(tmp_path / "old", 255), _split_api(tmp_path / "new", 100)
    code, out, _ = run_cli("diff", str(old), str(new), "--no-validate", "--format", "json",
                           "--count-corrections")  # an ungated change is judged as such
    changes = json.loads(out)["changes"]
    assert code == 1 and [c["id"] for c in changes] == ["attribute-changed"]
    assert changes[0]["location"].endswith("new/sub/s.yaml:4")


def test_unreadable_versions_in_a_referenced_file_warn(tmp_path: Path, run_cli) -> None:
    api = _split_api(tmp_path, 255, bound="two")
    _, _, err = run_cli("diff", str(api), str(api), "--no-validate")
    assert "sub/s.yaml:7: x-openstack min-ver 'two' is not a microversion" in err

