"""Property tests: what must never count as a change, and the symmetry of added/removed."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_diff

from needs_microversion.commands.diff import DiffRequest

NAMES = st.sampled_from(["id", "name", "status", "locked", "flavor", "tags", "size", "host"])
TYPES = st.sampled_from(["string", "integer", "boolean", "number"])


@st.composite
def schemas(draw: Any, depth: int = 0) -> dict[str, Any]:
    if depth >= 2 or draw(st.booleans()):
        schema: dict[str, Any] = {"type": draw(TYPES)}
        if schema["type"] == "string" and draw(st.booleans()):
            schema["enum"] = sorted(draw(st.sets(st.sampled_from("ABCDE"), min_size=1)))
        return schema
    props = draw(st.dictionaries(NAMES, schemas(depth + 1), min_size=1, max_size=4))
    schema = {"type": "object", "properties": props}
    required = sorted(draw(st.sets(st.sampled_from(sorted(props)))))
    if required:
        schema["required"] = required
    return schema


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for path in draw(st.sets(st.sampled_from(["/servers", "/servers/{server_id}", "/flavors",
                                              "/servers/{server_id}/tags"]), min_size=1)):
        item: dict[str, Any] = {}
        for method in draw(st.sets(st.sampled_from(["get", "post", "delete"]), min_size=1)):
            params = [{"name": n, "in": "query", "schema": {"type": "string"}}
                      for n in draw(st.sets(st.sampled_from(["limit", "marker", "all"])))]
            if "{server_id}" in path:
                params.append({"name": "server_id", "in": "path", "required": True,
                               "schema": {"type": "string"}})
            codes = draw(st.sets(st.sampled_from(["200", "202", "400", "404", "409"]),
                                 min_size=1))
            op: dict[str, Any] = {"parameters": params, "responses": {
                code: {"description": "d", "content": {"application/json": {
                    "schema": draw(schemas())}}} for code in sorted(codes)}}
            if method == "post":
                op["requestBody"] = {"content": {"application/json": {"schema": draw(schemas())}}}
            item[method] = op
        paths[path] = item
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1.0.0"}, "paths": paths}


def _diff(old: Any, new: Any, old_suffix: str = ".yaml", new_suffix: str = ".yaml") -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, (doc, suffix) in enumerate(((old, old_suffix), (new, new_suffix))):
            path = Path(tmp) / f"doc{i}{suffix}"
            text = json.dumps(doc) if suffix == ".json" else yaml.safe_dump(doc, sort_keys=False)
            path.write_text(text)
            files.append(str(path))
        out, _, _ = run_diff(DiffRequest(old=files[0], new=files[1], validate=False), "json")
    return json.loads(out)


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list) and all(isinstance(v, dict) and "in" in v for v in value):
        value = list(value)
        rng.shuffle(value)  # parameter order carries no meaning
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(documents())
def test_a_document_against_itself_has_no_changes(doc: dict) -> None:
    assert _diff(doc, doc)["changes"] == []


@FAST
@given(documents())
def test_json_and_yaml_forms_are_the_same_contract(doc: dict) -> None:
    assert _diff(doc, doc, ".json", ".yaml")["changes"] == []


@FAST
@given(documents(), st.randoms(use_true_random=False))
def test_reordered_keys_and_parameters_are_no_change(doc: dict, rng: random.Random) -> None:
    assert _diff(doc, _shuffled(doc, rng))["changes"] == []


@FAST
@given(documents(), documents())
def test_swapping_old_and_new_turns_added_into_removed(old: dict, new: dict) -> None:
    forward = _diff(old, new)["changes"]
    backward = _diff(new, old)["changes"]
    flip = {"added": "removed", "removed": "added", "changed": "changed"}

    def keys(changes: list[dict], flipped: bool) -> list[tuple]:
        return sorted((c["operation"].split(" ")[0], c["kind"], c["pointer"], c["status"] or "",
                       c["media_type"] or "", flip[c["change"]] if flipped else c["change"])
                      for c in changes)

    assert keys(forward, True) == keys(backward, False)


NODES = "ABCD"


def _linked(edges: set[tuple[str, str]], roots: list[str], changed: str | None) -> dict:
    """Schemas A-D linking each other by `$ref` (cycles allowed), one operation per root."""
    schemas = {}
    for node in NODES:
        props: dict[str, Any] = {"name": {"type": "string"}}
        props.update({f"to{b}": {"$ref": f"#/components/schemas/{b}"}
                      for a, b in sorted(edges) if a == node})
        if node == changed:
            props["extra"] = {"type": "string"}
        schemas[node] = {"type": "object", "properties": props}
    paths = {f"/op{i}": {"get": {"responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"$ref": f"#/components/schemas/{root}"}}}}}}}
        for i, root in enumerate(roots)}
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas}}


@FAST
@given(st.sets(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES))),
       st.lists(st.sampled_from(NODES), min_size=1, max_size=4), st.sampled_from(NODES))
def test_every_operation_reports_what_its_schemas_reach(
        edges: set[tuple[str, str]], roots: list[str], changed: str) -> None:
    """Whatever the cycles and the order operations are walked in, an operation reports a
    change exactly when its schema reaches the changed one."""
    def reaches(start: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            node = todo.pop()
            for a, b in edges:
                if a == node and b not in seen:
                    seen.add(b)
                    todo.append(b)
        return changed in seen

    report = _diff(_linked(edges, roots, None), _linked(edges, roots, changed))
    assert {c["operation"] for c in report["changes"]} == {
        f"GET /op{i}" for i, root in enumerate(roots) if reaches(root)}
