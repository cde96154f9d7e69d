"""Where a schema's contract can change, read from its raw nodes (`SchemaTable.bounds`):
it holds every bound of the normalised ranges below it, which is what the comparison
samples; through `$ref`s, `allOf` parts, microversion containers and cycles."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from needs_microversion.documents.document import read_document
from needs_microversion.documents.refs import RefResolver
from needs_microversion.errors import InputError
from needs_microversion.loaders.openapi.builder import load_openapi
from needs_microversion.loaders.openapi.normalise import SchemaTable
from needs_microversion.model.document import Document
from needs_microversion.model.schema import RawSchema, SchemaLookup
from needs_microversion.model.versions import Version

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "openapi"


def _table(data: dict[str, Any]) -> tuple[SchemaTable, Document]:
    doc = Document(path=Path("/nowhere/doc.yaml"), display="doc.yaml", root=Path("/nowhere"),
                   text="", data=data, format="yaml")
    return SchemaTable(RefResolver(doc)), doc


def _ranged(lo: str | None = None, hi: str | None = None, **schema: Any) -> dict[str, Any]:
    ext = {k: v for k, v in (("min_ver", lo), ("max_ver", hi)) if v is not None}
    return {**schema, "x-openstack": ext}


def normalised_bounds(raw: RawSchema, table: SchemaLookup) -> set[Version]:
    """The oracle: the bounds of every range the normalised schemas below `raw` carry
    (their own, their properties', their variants'), each schema walked once."""
    found: set[Version] = set()
    seen: set[int] = set()
    todo = deque([raw])
    while todo:
        schema = table.get(todo.popleft())
        if id(schema.location.node) in seen:
            continue
        seen.add(id(schema.location.node))
        found.update(schema.versions.bounds())
        for prop in schema.properties.values():
            found.update(prop.versions.bounds())
            todo.append(prop.schema)
        for rng, variant in schema.switch or ():
            found.update(rng.bounds())
            todo.append(variant)
        todo.extend(b for branches in schema.alternatives.values() for b in branches)
        todo.extend(schema.subschemas.values())
        todo.extend(s for s in (schema.items, schema.additional) if isinstance(s, RawSchema))
    return found


def test_a_property_ranged_on_both_sides_of_a_ref_gives_both_ranges_bounds() -> None:
    target = _ranged("2.5", type="string")
    data = {"components": {"schemas": {"Name": target}},
            "root": {"type": "object", "properties": {
                "name": _ranged("2.1", "2.9", **{"$ref": "#/components/schemas/Name"}),
                "plain": {"$ref": "#/components/schemas/Name"}}}}
    table, doc = _table(data)
    raw = RawSchema(doc, data["root"], ("root",))
    bounds = table.bounds(raw)
    assert bounds == {Version(2, 1), Version(2, 5), Version(2, 10)}
    assert normalised_bounds(raw, table) <= bounds


def test_containers_all_of_parts_and_sub_keywords_are_reached() -> None:
    data = {"root": {"oneOf": [_ranged("2.1", "2.3", type="object"),
                               _ranged("2.4", type="object", properties={
                                   "deep": {"items": _ranged("2.7", type="string")}})],
                     "x-openstack": {"discriminator": "microversion"}},
            "other": {"allOf": [_ranged("2.11"), {"not": _ranged("2.12")}],
                      "additionalProperties": _ranged("2.13"),
                      "patternProperties": {"^x": _ranged("2.14")},
                      "prefixItems": [_ranged("2.15")]}}
    table, doc = _table(data)
    assert table.bounds(RawSchema(doc, data["root"], ("root",))) == {
        Version(2, 1), Version(2, 4), Version(2, 7)}
    assert table.bounds(RawSchema(doc, data["other"], ("other",))) == {
        Version(2, n) for n in (11, 12, 13, 14, 15)}


def test_a_cycle_is_walked_whole_from_wherever_it_is_entered() -> None:
    # A -> B -> A: B's bounds, asked after A's, still hold A's (a result cut short by the
    # cycle is not kept).
    data = {"components": {"schemas": {
        "A": _ranged("2.2", type="object", properties={"b": {"$ref": "#/components/schemas/B"}}),
        "B": _ranged("2.3", type="object", properties={"a": {"$ref": "#/components/schemas/A"},
                                                        "c": {"$ref": "#/components/schemas/C"}}),
        "C": _ranged("2.4", type="string")}}}
    table, doc = _table(data)
    schemas = data["components"]["schemas"]
    every = {Version(2, 2), Version(2, 3), Version(2, 4)}
    assert table.bounds(RawSchema(doc, schemas["A"], ())) == every
    assert table.bounds(RawSchema(doc, schemas["B"], ())) == every
    assert table.bounds(RawSchema(doc, schemas["C"], ())) == {Version(2, 4)}
    assert table.bounds(RawSchema(doc, {"$ref": "#/components/schemas/A"}, ())) == every


def test_every_corpus_operation_holds_its_normalised_bounds() -> None:
    checked = 0
    for path in sorted(CORPUS.glob("*/*.yaml")) + sorted(CORPUS.glob("*/*.json")):
        snapshot = load_openapi(read_document(path))
        for key in snapshot.operations:
            op = snapshot.operations.get(key)
            raws = [*(p.schema for p in op.parameters.values()), *op.request_content.values(),
                    *(s for r in op.responses.values() for s in r.content.values())]
            for raw in raws:
                if raw is not None:
                    assert normalised_bounds(raw, snapshot.schemas) <= snapshot.schemas.bounds(
                        raw), (path, key)
                    checked += 1
    assert checked > 100


_VERSIONS = st.sampled_from([None, "2.1", "2.3", "2.5", "2.8"])


@st.composite
def _schemas(draw: Any, first: int, depth: int = 0) -> dict[str, Any]:
    """A schema that may refer to S{first}..S2."""
    node: dict[str, Any] = {}
    lo, hi = draw(_VERSIONS), draw(_VERSIONS)
    if lo or hi:
        node["x-openstack"] = {k: v for k, v in (("min_ver", lo), ("max_ver", hi)) if v}
    if first <= 2 and draw(st.booleans()):
        node["$ref"] = f"#/components/schemas/S{draw(st.integers(first, 2))}"
    if depth < 3:
        for kw in draw(st.lists(st.sampled_from(["properties", "allOf", "oneOf", "items",
                                                   "additionalProperties"]), max_size=2)):
            children = draw(st.lists(_schemas(first, depth + 1), min_size=1, max_size=2))
            node[kw] = ({f"p{i}": c for i, c in enumerate(children)} if kw == "properties"
                        else children if kw in ("allOf", "oneOf") else children[0])
        if "oneOf" in node and draw(st.booleans()):
            node.setdefault("x-openstack", {})["discriminator"] = "microversion"
    return node


@settings(max_examples=150, deadline=None)
@given(st.tuples(_schemas(0), _schemas(1), _schemas(2), _schemas(3)))
def test_raw_bounds_hold_the_normalised_bounds(nodes: tuple[dict[str, Any], ...]) -> None:
    # The root refers to S0-S2, each S to those after it: with no cycle the normalised
    # schemas end, and the oracle sees them all (cycles: the test above).
    data = {"components": {"schemas": {f"S{i}": n for i, n in enumerate(nodes[1:])}},
            "root": nodes[0]}
    table, doc = _table(data)
    for node in nodes:
        raw = RawSchema(doc, node, ())
        try:
            expected = normalised_bounds(raw, table)
        except InputError:  # a `$ref` chain too long: refused, the tool says why
            assume(False)
        assert expected <= table.bounds(raw)


def test_schemas_merging_on_cycles_are_compared_in_time(tmp_path: Path) -> None:
    # Schemas that refer to themselves through `allOf` parts naming one property: each
    # merge is a new schema, without end. Normalising them all to find the versions to
    # compare at ran for minutes (found by the property test above with cycles allowed).
    old = Path(__file__).resolve().parents[2] / "data" / "documents" / "cyclic-merges.json"
    data = json.loads(old.read_text())
    data["components"]["schemas"]["S0"]["maxLength"] = 3
    new = tmp_path / "new.json"
    new.write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-m", "needs_microversion", "diff", str(old),
                           str(new), "--no-validate", "--format", "json"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["verdict"]


def test_a_made_documents_walk_is_kept_only_when_it_found_nothing_to_say() -> None:
    from needs_microversion.loaders.openapi.version_warnings import marks_of

    def made(schema: dict[str, Any]) -> Document:
        data = {"openapi": "3.1.0", "info": {"title": "t", "version": "2.9"}, "paths": {
            "/a": {"get": {"responses": {"200": {"description": "ok", "content": {
                "application/json": {"schema": schema}}}}}}}}
        return Document(path=Path("/code"), display="code:HEAD", root=Path("/code"), text="",
                        data=data, format="code")

    plain = made({"properties": {"a": _ranged("2.3", "2.7")}})
    marks = marks_of(plain)
    assert marks is not None and marks.bounds == {Version(2, 3), Version(2, 8)}
    assert marks.top == Version(2, 7)
    built, walked = load_openapi(plain, source="code", marks=marks), load_openapi(
        plain, source="code")
    assert (built.max_version, built.bounds, built.warnings, built.refs) == (
        walked.max_version, walked.bounds, walked.warnings, walked.refs)
    assert marks_of(made({"properties": {"a": _ranged("2.x")}})) is None  # a warning to say
    assert marks_of(made({"$ref": "#/paths"})) is None  # refs to check
