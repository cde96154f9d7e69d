"""The restricted evaluator: what it computes from module text, and what it leaves opaque."""

from __future__ import annotations

from typing import Any

import pytest

from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.source import SourceTree
from needs_microversion.loaders.code.values import InstanceValue, Opaque, Symbolic

from code_repos import make_repo

__all__ = ["make_repo"]  # the fixtures


def _names(make_repo: Any, files: dict[str, str], path: str = "pkg/mod.py"
           ) -> tuple[Interpreter, Any]:
    read, listing = make_repo({"pkg/__init__.py": "", **files})
    interp = Interpreter(SourceTree(read, listing))
    namespace = interp.namespace(path)[1]
    assert namespace is not None
    return interp, namespace


def _value(make_repo: Any, text: str, name: str, extra: dict[str, str] | None = None) -> Any:
    return _names(make_repo, {"pkg/mod.py": text, **(extra or {})})[1].get(name)


@pytest.mark.parametrize(("text", "expected"), [
    ("x = {'a': [1, 2], **{'b': (3,)}}", {"a": [1, 2], "b": (3,)}),
    ("y = [1]\nx = [0, *y, *(2, 3)]", [0, 1, 2, 3]),
    ("x = {'a': 1} | {'b': 2}", {"a": 1, "b": 2}),
    ("x = 'v%s.%d' % ('2', 10)", "v2.10"),
    ("n = 3\nx = f'{n}-{n!r}'", "3-3"),
    ("x = 'a' if 1 > 2 else 'b'", "b"),
    ("x = [i * 2 for i in range(3) if i]", [2, 4]),
    ("x = {k: v for k, v in [('a', 1)]}", {"a": 1}),
    ("x = sorted({'b', 'a'})", ["a", "b"]),
    ("x = list(set(['b', 'a', 'c']) - set(['c']))", ["a", "b"]),  # sets iterate sorted
    ("x = dict([('a', 1)], b=2)", {"a": 1, "b": 2}),
    ("x = '{}.{}'.format(2, 1)", "2.1"),
    ("x = ['a', 'b']\nx.remove('a')\nx.extend(['c'])\nx.append('d')", ["b", "c", "d"]),
    ("x = {'a': 1}\nx.update({'b': 2})\nx.setdefault('c', 3)\nx.pop('a')",
     {"b": 2, "c": 3}),
    ("x = {'r': ['a', 'b']}\ndel x['r'][x['r'].index('a')]", {"r": ["b"]}),
    ("x = []\nfor i in range(3):\n    if i == 1:\n        continue\n    x.append(i)", [0, 2]),
    ("x = [1]\nx += [2]", [1, 2]),
    ("import copy\na = {'p': {'q': 1}}\nx = copy.deepcopy(a)\nx['p']['q'] = 2\ny = a",
     {"p": {"q": 2}}),
])
def test_values(make_repo: Any, text: str, expected: Any) -> None:
    assert _value(make_repo, text, "x") == expected


def test_edits_through_an_alias_reach_the_original(make_repo: Any) -> None:
    """nova's server_external_events: `name = v['p']; name['enum'].append(...)`."""
    text = ("import copy\nbase = {'p': {'enum': ['a']}}\nv2 = copy.deepcopy(base)\n"
            "name = v2['p']\nname['enum'].append('b')\n")
    interp, namespace = _names(make_repo, {"pkg/mod.py": text})
    assert namespace.get("v2") == {"p": {"enum": ["a", "b"]}}
    assert namespace.get("base") == {"p": {"enum": ["a"]}}


def test_helpers_imports_and_classes(make_repo: Any) -> None:
    files = {
        "pkg/types.py": ("def multi(schema):\n    return {'type': 'array', 'items': schema}\n"
                         "class State(object):\n    ACTIVE = 'active'\n    ALL = (ACTIVE,)\n"
                         "class Regex(object):\n    def __init__(self, regex, reason):\n"
                         "        self.regex = regex\n        self.reason = reason\n"),
        "pkg/mod.py": ("from pkg import types\nfrom . import types as same\n"
                       "x = types.multi({'type': 'string'})\ny = same.State.ALL\n"
                       "z = types.Regex('^a$', 'why')\n"),
    }
    _, namespace = _names(make_repo, files)
    assert namespace.get("x") == {"type": "array", "items": {"type": "string"}}
    assert namespace.get("y") == ("active",)
    regex = namespace.get("z")
    assert isinstance(regex, InstanceValue) and regex.attributes == {"regex": "^a$",
                                                                     "reason": "why"}


def test_a_helper_not_run_is_symbolic_and_stable(make_repo: Any) -> None:
    helper = ("def _chars():\n    for i in range(9):\n        yield chr(i)\n"
              "def build(ws=True):\n    return ''.join(_chars())\n")
    text = "from pkg import h\nx = '^[%s]*$' % h.build(ws=False)\ny = h.build()\n"
    first = _names(make_repo, {"pkg/h.py": helper, "pkg/mod.py": text})[1]
    again = _names(make_repo, {"pkg/h.py": "\n\n" + helper, "pkg/mod.py": text})[1]
    changed = _names(make_repo, {"pkg/h.py": helper.replace("9", "8"), "pkg/mod.py": text})[1]
    assert isinstance(first.get("y"), Symbolic)
    assert first.get("x").startswith("^[<build(ws=False)#")
    assert first.get("x") == again.get("x")  # moved, not changed: equal
    assert first.get("x") != changed.get("x")  # the helper's helper changed


def test_opaque_is_equal_only_to_itself(make_repo: Any) -> None:
    _, namespace = _names(make_repo, {"pkg/mod.py": "import oslo_x\na = oslo_x.f()\n"
                                                    "b = oslo_x.f()\n"})
    a, b = namespace.get("a"), namespace.get("b")
    assert isinstance(a, Opaque) and a == a and a != b
    assert (a.file, a.line) == ("pkg/mod.py", 2)


def test_names_are_evaluated_on_demand(make_repo: Any) -> None:
    """A controller module's unused names (views, configuration) are never evaluated."""
    files = {"pkg/broken.py": "this is not python\n",
             "pkg/mod.py": "from pkg import broken\nVIEW = broken.Builder\nx = 1\n"}
    interp, namespace = _names(make_repo, files)
    assert namespace.get("x") == 1
    assert "pkg/broken.py" not in interp._namespaces


def test_the_whole_body_runs_when_a_name_changes(make_repo: Any) -> None:
    text = "a = 1\nb = a\na = 2\nc = [b, a]\n"
    assert _value(make_repo, text, "c") == [1, 2]


def test_module_level_if_and_unknown_branches(make_repo: Any) -> None:
    text = ("import sys\nif 1 < 2:\n    x = 'yes'\nelse:\n    x = 'no'\n"
            "if sys.flag:\n    y = 1\n")
    _, namespace = _names(make_repo, {"pkg/mod.py": text})
    assert namespace.get("x") == "yes"
    assert isinstance(namespace.get("y"), Opaque)
