"""parameters.yaml and status files, loaded the way os-api-ref loads them.

os-api-ref turns YAML floats into strings so `min_version: 2.10` stays "2.10" (a plain
`safe_load` gives 2.1); we do the same, keep merge keys (`<<: *anchor`, explicit keys win),
and remember the line of every top-level key for file:line locations.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TextFloatLoader(_Loader):  # type: ignore[misc]
    """SafeLoader (the C one when available) that keeps floats as their source text."""


_TextFloatLoader.add_constructor("tag:yaml.org,2002:float",
                                 yaml.constructor.SafeConstructor.construct_yaml_str)

FIELDS = ("in", "required", "type", "description", "min_version", "max_version", "format")


@dataclass(frozen=True)
class ParamDef:
    """One parameters.yaml entry, with the misspellings of field names already repaired."""

    key: str
    fields: Mapping[str, Any]
    line: int  # line of the key in the file


@dataclass(frozen=True)
class YamlFile:
    entries: Mapping[Any, Any]  # top-level key -> value
    lines: Mapping[Any, int]  # top-level key -> 1-based line
    error: tuple[int, str] | None  # (line, message) when the file is not YAML
    duplicates: tuple[tuple[int, Any], ...] = ()  # (line, key) of a key written again


@lru_cache(maxsize=64)
def load_yaml(text: str) -> YamlFile:
    """Parse once per distinct content (old and new trees often share parameters.yaml)."""
    return _parse(text)


def _parse(text: str) -> YamlFile:
    loader = _TextFloatLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return YamlFile({}, {}, (line, f"not valid YAML: {problem}"))
    finally:
        loader.dispose()
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        return YamlFile({}, {}, None if data is None else (1, "the top level is not a mapping"))
    lines: dict[Any, int] = {}
    duplicates = []
    for key_node, _ in node.value:
        key = loader_key(key_node)
        if key in lines and key != "<<":
            duplicates.append((key_node.start_mark.line + 1, key))
        lines[key] = key_node.start_mark.line + 1  # PyYAML: the last duplicate wins
    return YamlFile(data, lines, None, tuple(duplicates))


def loader_key(node: yaml.Node) -> Any:
    """The Python key a scalar key node becomes (ints stay ints: status codes)."""
    value = node.value
    if node.tag == "tag:yaml.org,2002:int":
        try:
            return int(value)
        except ValueError:
            return value
    return value


def param_def(file: YamlFile, key: str) -> tuple[ParamDef | None, list[str]]:
    """The entry `key` with field-name typos repaired; messages say what was repaired."""
    raw = file.entries.get(key)
    if raw is None and key not in file.entries:
        return None, []
    line = file.lines.get(key, 1)
    if not isinstance(raw, Mapping):
        return None, [f"definition of '{key}' is not a mapping"]
    fields: dict[str, Any] = {}
    messages: list[str] = []
    for key_name, value in raw.items():
        name = str(key_name)
        if name in FIELDS:
            fields[name] = value
            continue
        guess = difflib.get_close_matches(name, FIELDS, n=1, cutoff=0.75)
        if guess and guess[0] not in raw:
            messages.append(f"'{key}': field '{name}' read as '{guess[0]}'")
            fields[guess[0]] = value
        else:
            messages.append(f"'{key}': unknown field '{name}' ignored")
    return ParamDef(key, fields, line), messages
