"""Where a kept reading writes a definition's line (`parameters.yaml:3456`): as a mark,
said as the line is now when the reading is taken again (`kept_files`, `kept_operations`),
so a definition added above the others moves them and changes no kept reading. And what
JSON gives back exactly, the one form a reading is kept in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


class LineMarks:
    """Where a record writes a definition's line (`parameters.yaml:3456`, in a row's
    location, its definition, a warning's place), kept as a mark: the record holds when
    the definitions it read moved (one added above them), and says their lines now."""

    def __init__(self, inputs: dict[str, list[Any]], named: Callable[[str], str]
                 ) -> None:
        """`inputs`: the files read (by path in the sandbox) and the definitions looked up
        in each; `named`: a file as locations name it (from the tree's folder)."""
        self.index: dict[tuple[str, int], int] = {}
        self.marks: list[list[Any]] = []  # [file, key, the file as locations name it]
        for rel, (_, consulted) in sorted(inputs.items()):
            shown = named(rel)
            for key, (present, _, line) in (consulted or {}).items():
                if present and type(line) is int:
                    self.index[shown, line] = len(self.marks)
                    self.marks.append([rel, key, shown])
        self.names = sorted({shown for _, _, shown in self.marks})
        self.pattern = re.compile(r"(?<![\w./-])(" + "|".join(map(re.escape, self.names)) +
                                  r"):(\d+)(?!\d)") if self.names else None

    def __call__(self, text: str) -> str | list[Any]:
        """The text, or [before, mark, after] where it names a definition's line."""
        found = self.pattern.search(text) if self.pattern is not None else None
        at = None if found is None else self.index.get((found.group(1), int(found.group(2))))
        if found is None or at is None:
            return text
        return [text[:found.start()], at, text[found.end():]]

    def elsewhere(self, text: str) -> bool:
        """Whether the written record names a definition's line outside a mark."""
        if self.pattern is None or not any(f"{shown}:" in text for shown in self.names):
            return False  # the common case: a substring search, at C speed
        return any((rel, int(line)) in self.index for rel, line in self.pattern.findall(text))


def exact(value: Any, depth: int = 0) -> bool:
    """Whether JSON gives `value` back as it is: no tuple, no key that is no string, no
    date, no NaN or infinity."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if depth > 100:
        return False
    if kind is list:
        return all(exact(item, depth + 1) for item in value)
    if kind is dict:
        return all(type(key) is str and exact(item, depth + 1) for key, item in value.items())
    return False


def unmarked(value: Any, lines: list[str]) -> str:
    """A text as kept (`LineMarks`), with the line it marks as it is now."""
    if isinstance(value, list):
        before, at, after = value
        return f"{_text(before)}{lines[at]}{_text(after)}"
    return _text(value)


def _text(value: Any) -> str:
    if type(value) is not str:
        raise ValueError("not a string")
    return value
