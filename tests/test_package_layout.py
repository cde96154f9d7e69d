"""The package's shape: no import cycles (imports inside functions count), no module over
500 lines, the api-ref reader a package rather than flat `apiref_*` modules."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "needs_microversion"
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, base] if base else parents)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in known else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {target for target in found if target in known and target != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        frames = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while frames:
            node, children = frames[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    frames.append((child, iter(sorted(graph[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            frames.pop()
            if frames:
                low[frames[-1][0]] = min(low[frames[-1][0]], low[node])
            if low[node] == index[node]:
                members = stack[stack.index(node):]
                del stack[stack.index(node):]
                if len(members) > 1:
                    found.append(sorted(members))
    return found


def test_no_import_cycles() -> None:
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_over_the_limit() -> None:
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_flat_apiref_modules() -> None:
    assert not list((PACKAGE / "loaders").glob("apiref_*.py"))
    assert (PACKAGE / "loaders" / "apiref" / "__init__.py").is_file()


# The layer of each top-level module or package: an import goes to a lower layer (or stays
# inside its own unit), never up. Read as the data flows: model at the bottom, the console
# script at the top; `report`, `repository`, `config` and `profiles` sit beside the stages.
LAYERS = {
    "needs_microversion": 0, "model": 0, "errors": 0,
    "cache_folder": 1, "collector": 1, "forked": 1, "streams": 1,
    "documents": 2, "profiles": 2,
    "loaders": 3,
    "compare": 4, "repository": 4, "kept_trees": 4,
    "load": 5, "rules": 5,
    "config": 6, "bookkeeping": 6, "report": 6,
    "judge": 7,
    "commands": 8,
    "console": 9, "cli": 10, "launch": 11, "__main__": 12,
}


def _unit(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_imports_never_point_up_the_layers() -> None:
    known = modules()
    upward = []
    for name, path in sorted(known.items()):
        source = _unit(name)
        assert source in LAYERS, f"{source}: give the new unit a layer in LAYERS"
        for target in sorted(imports(name, path, known)):
            if _unit(target) != source and LAYERS[_unit(target)] >= LAYERS[source]:
                upward.append(f"{name} -> {target}")
    assert upward == []


def test_the_layer_check_sees_an_upward_import() -> None:
    assert LAYERS["compare"] < LAYERS["judge"] < LAYERS["commands"] < LAYERS["cli"]
    assert LAYERS["model"] < LAYERS["documents"] < LAYERS["loaders"] < LAYERS["compare"]
