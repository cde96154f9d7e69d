"""docs/apiref-reading.md, the register of the api-ref reader's heuristics, stays true to the
tree: every fixture under tests/data/apiref_gaps is named in it, and every code location
(`module.py:function`), fixture path (`apiref_gaps/...`) and test (`test_x.py::test_y`) it
names exists. Locations name functions, never line numbers: those drift."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from conftest import ROOT

REGISTER = ROOT / "docs" / "apiref-reading.md"
GAPS = ROOT / "tests" / "data" / "apiref_gaps"
PACKAGE = ROOT / "needs_microversion"
APIREF = PACKAGE / "loaders" / "apiref"
TESTS = ROOT / "tests"

# `sections.py:_FileReader.title` (a module of loaders/apiref), or
# `compare/operations.py:_retired` (a path below needs_microversion/).
_CODE = re.compile(r"`((?:\w+/)*\w+\.py):([A-Za-z_][\w.]*)`")
_FIXTURE = re.compile(r"`apiref_gaps/([^`\s]*)`")
# `test_apiref.py::test_body_nesting[wrapper-heuristic]` (a file found anywhere below tests/).
_TEST = re.compile(r"`(test_\w+\.py)::(test_\w+)(?:\[([^\]`]+)\])?`")
_ROW_ID = re.compile(r"^[A-Z]\d+$")
COLUMNS = 7  # ID, heuristic, trigger, what the reader does, from, fixtures or tests, code


def _text() -> str:
    return REGISTER.read_text(encoding="utf-8")


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table line (a `\\|` inside a cell is no border)."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def _rows() -> list[list[str]]:
    """The register's rows: table lines whose first cell is an ID such as `S7`."""
    rows = []
    for line in _text().splitlines():
        if line.startswith("|"):
            cells = _cells(line)
            if cells and _ROW_ID.match(cells[0]):
                rows.append(cells)
    return rows


def _module(name: str) -> Path:
    return PACKAGE / name if "/" in name else APIREF / name


@cache
def _defined(module: Path) -> frozenset[str]:
    """Qualified names a module defines: functions, classes, their methods, and names
    assigned at module or class level (`_FileReader.title`, `_RANGE`)."""
    found: set[str] = set()

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(prefix + node.name)
                if isinstance(node, ast.ClassDef):
                    walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign):
                found.update(prefix + t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found.add(prefix + node.target.id)

    walk(ast.parse(module.read_text(encoding="utf-8")).body, "")
    return frozenset(found)


def test_the_register_has_rows_with_every_column_filled() -> None:
    rows = _rows()
    assert len(rows) > 50
    wrong = [row[0] for row in rows if len(row) != COLUMNS or not all(row)]
    assert wrong == [], f"rows without {COLUMNS} filled cells: {wrong}"
    ids = [row[0] for row in rows]
    assert len(ids) == len(set(ids)), "an ID is used twice"
    names = [row[1].lower() for row in rows]
    assert len(names) == len(set(names)), "a heuristic is listed twice"


def test_every_row_names_its_code_and_its_evidence() -> None:
    rows = _rows()
    no_code = [row[0] for row in rows if not _CODE.search(row[6])]
    assert no_code == [], f"rows naming no code location: {no_code}"
    no_evidence = [row[0] for row in rows if not (
        _FIXTURE.search(row[5]) or _TEST.search(row[5]) or row[5].startswith("none"))]
    assert no_evidence == [], f"rows naming no fixture or test (or 'none'): {no_evidence}"


def test_every_fixture_of_apiref_gaps_is_named() -> None:
    named = {m.rstrip("/") for m in _FIXTURE.findall(_text())}
    missing = sorted(p.relative_to(GAPS).as_posix() for p in GAPS.rglob("*")
                     if p.relative_to(GAPS).as_posix() not in named)
    assert missing == [], f"fixtures of tests/data/apiref_gaps the register never names: {missing}"


def test_every_fixture_named_exists() -> None:
    named = set(_FIXTURE.findall(_text()))
    assert named
    absent = sorted(n for n in named
                    if not ((GAPS / n).is_dir() if n.endswith("/") else (GAPS / n).is_file()))
    assert absent == [], f"fixtures the register names that do not exist: {absent}"


def test_every_code_location_named_exists() -> None:
    named = set(_CODE.findall(_text()))
    assert named
    absent = sorted(f"{module}:{name}" for module, name in named
                    if not _module(module).is_file() or name not in _defined(_module(module)))
    assert absent == [], f"code locations the register names that do not exist: {absent}"


def test_every_module_of_the_reader_is_in_the_register() -> None:
    named = {module for module, _ in _CODE.findall(_text())}
    modules = {p.name for p in APIREF.glob("*.py") if p.name != "__init__.py"}
    assert sorted(modules - named) == []


def test_every_test_named_exists() -> None:
    named = set(_TEST.findall(_text()))
    assert named
    absent = []
    for file, function, param in sorted(named):
        found = sorted(TESTS.rglob(file))
        if len(found) != 1:
            absent.append(f"{file} ({len(found)} files of that name)")
            continue
        text = found[0].read_text(encoding="utf-8")
        if function not in _defined(found[0]):
            absent.append(f"{file}::{function}")
        elif param and f'id="{param}"' not in text:
            absent.append(f"{file}::{function}[{param}]")
    assert absent == [], f"tests the register names that do not exist: {absent}"


def test_the_reader_points_at_the_register_and_the_contract_model() -> None:
    docstring = ast.get_docstring(ast.parse((APIREF / "reader.py").read_text(encoding="utf-8")))
    assert docstring is not None
    assert "docs/apiref-reading.md" in docstring and "docs/contract-model.md" in docstring
