"""Hostile module text: Opaque values or a clean error, in bounded time and memory; nothing
the repository writes is ever imported or run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from needs_microversion.errors import InputError
from needs_microversion.loaders.code.contract import read_code_contract
from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.scopes import MISSING
from needs_microversion.loaders.code.values import Budget, BudgetExceeded, Opaque, Symbolic

from code_repos import make_repo, nova_files

__all__ = ["make_repo", "nova_files"]  # the fixtures

SCHEMAS = "nova/api/openstack/compute/schemas/widgets.py"


def _evaluate(make_repo: Any, text: str, name: str = "x") -> Any:
    read, listing = make_repo({"pkg/__init__.py": "", "pkg/mod.py": text})
    interp = Interpreter(SourceTree(read, listing))
    namespace = interp.namespace("pkg/mod.py")[1]
    if namespace is None:
        return interp.namespace("pkg/mod.py")[0].reason
    return namespace.get(name)


@pytest.mark.parametrize("text", [
    "x = 'a' * 10**9",
    "x = 'a' * 1000000000",
    "x = [0] * 1000000000",
    "x = [[0] * 40000] * 40000",
    "x = 2 ** 10 ** 10",
    "x = 1 << 100000000",
    "x = '%999999999s' % 'a'",
    "x = '{:>999999999}'.format(1)",
    "n = 1\nx = f'{n:>999999999}'",
    "x = [i for i in range(10**9)]",
    "x = [a for a in range(10000) for b in range(10000)]",
    "x = 'ab'.replace('a', 'a' * 100000).replace('a', 'a' * 100000)",
    "x = {" + ", ".join(f"'{i}': {i}" for i in range(60000)) + "}",
    "while True:\n    x = 1",
])
def test_oversized_or_endless_values_are_opaque(make_repo: Any, text: str) -> None:
    started = time.monotonic()
    assert isinstance(_evaluate(make_repo, text), Opaque)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("text", [
    "x = __import__('os').system('touch /tmp/needs-microversion-pwned')",
    "x = open('/tmp/needs-microversion-pwned', 'w')",
    "import os\nx = os.system('touch /tmp/needs-microversion-pwned')",
    "import subprocess\nx = subprocess.run(['touch', '/tmp/needs-microversion-pwned'])",
    "x = eval('1 + 1')",
    "x = getattr(object, '__subclasses__')()",
    "x = ().__class__.__bases__[0].__subclasses__()",
    "x = (lambda: 1).__code__",
])
def test_escapes_are_opaque(make_repo: Any, text: str) -> None:
    assert isinstance(_evaluate(make_repo, text), Opaque)
    assert not Path("/tmp/needs-microversion-pwned").exists()


@pytest.mark.parametrize("text", [
    "def f(n):\n    return f(n + 1)\nx = f(0)",
    "def f():\n    while True:\n        pass\nx = f()",
    "def f(n):\n    return [f(n + 1), f(n + 1)]\nx = f(0)",
])
def test_runaway_functions_are_not_run(make_repo: Any, text: str) -> None:
    """A call the reader does not finish is the helper's symbol (its arguments known)."""
    started = time.monotonic()
    value = _evaluate(make_repo, text)
    assert isinstance(value, (Symbolic, Opaque)) or "#" in str(value)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("text", [
    "exec('x = 1')",
    "def f():\n    global x\n    x = 1\nf()",
    "x = " + "(" * 500 + "1" + ")" * 500,
    "x = " + "-" * 100000 + "1",
    "x = " + "[" * 150 + "]" * 150,
    "x = []\nx.append(x)\ny = {'a': x}\nimport copy\nx = copy.deepcopy(y)",
])
def test_odd_modules_give_no_value_or_a_reason(make_repo: Any, text: str) -> None:
    value = _evaluate(make_repo, text)
    assert value is MISSING or isinstance(value, (Opaque, str, dict, list))


def test_a_runaway_read_stops_cleanly(make_repo: Any) -> None:
    read, listing = make_repo({"pkg/__init__.py": "", "pkg/mod.py": (
        "x = []\nfor a in range(10000):\n    for b in range(10000):\n        x.append(1)\n"
        "        x.pop()\n")})
    interp = Interpreter(SourceTree(read, listing), Budget(steps=50_000))
    namespace = interp.namespace("pkg/mod.py")[1]
    assert namespace is not None
    with pytest.raises(BudgetExceeded):
        namespace.get("x")


def test_a_runaway_contract_is_an_input_error(make_repo: Any, nova_files: dict[str, str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Budget, "__init__", _small_budget)
    files = dict(nova_files)
    files[SCHEMAS] += "\nfor a in range(10000):\n    for b in range(10000):\n        pass\n"
    read, listing = make_repo(files)
    with pytest.raises(InputError, match="could not be read"):
        read_code_contract(read, listing)


def _small_budget(self: Budget) -> None:
    self.steps = 100_000
    self.deadline = time.monotonic() + 10
    self.depth = 0


def test_the_reader_never_imports_or_runs(make_repo: Any, nova_files: dict[str, str],
                                          tmp_path: Path) -> None:
    marker = tmp_path / "side-effect"
    files = dict(nova_files)
    files["nova/api/validation/parameter_types.py"] += (
        f"\nimport os\nopen({str(marker)!r}, 'w').write('ran')\n"
        f"os.system('touch {marker}')\n"
        f"name = {{'type': 'string', 'written': open({str(marker)!r}).read()}}\n")
    files["nova/__init__.py"] = f"open({str(marker)!r}, 'w')\n"
    read, listing = make_repo(files)
    contract = read_code_contract(read, listing)
    assert contract is not None
    assert not marker.exists()
    reasons = {u.reason for u in contract.unread}
    assert any("'open'" in reason for reason in reasons)


def test_a_file_that_does_not_parse(make_repo: Any, nova_files: dict[str, str]) -> None:
    files = dict(nova_files)
    files[SCHEMAS] = "create = {\n"
    read, listing = make_repo(files)
    contract = read_code_contract(read, listing)
    assert contract is not None
    assert any("syntax error" in u.reason for u in contract.unread)


@pytest.mark.parametrize("files", [
    {"pkg/mod.py": "from pkg.mod import x\n"},
    {"pkg/mod.py": "from pkg.other import x\n", "pkg/other.py": "from pkg.mod import x\n"},
    {"pkg/mod.py": "from pkg import other\nx = other.y\n", "pkg/other.py": (
        "from pkg import mod\ny = mod.x\n")},
    {"pkg/mod.py": "class A(B):\n    pass\nclass B(A):\n    pass\nx = A.missing\n"},
    {"pkg/mod.py": "from pkg.mod import *\nx = 1\ny = x\n"},
])
def test_cycles_end(make_repo: Any, files: dict[str, str]) -> None:
    read, listing = make_repo({"pkg/__init__.py": "", **files})
    namespace = Interpreter(SourceTree(read, listing)).namespace("pkg/mod.py")[1]
    assert namespace is not None
    value = namespace.get("x")
    assert value is MISSING or isinstance(value, (Opaque, int))
