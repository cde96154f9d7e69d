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

from needs_microversion.documents.yaml_reading import YamlLoader, parse_yaml
from needs_microversion.errors import InputError


class _TextFloatLoader(YamlLoader):
    """The documents' loader (bounded in depth, aliases and merges) that keeps floats as
    their source text and lets a key be written twice (Sphinx reads the last one)."""

    unique_keys = False
    yaml_constructors = {
        **YamlLoader.yaml_constructors,
        "tag:yaml.org,2002:float": yaml.constructor.SafeConstructor.construct_yaml_str,
    }

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
    try:
        data, node = parse_yaml(text.encode("utf-8", errors="replace"), text, "",
                                _TextFloatLoader)
    except InputError as exc:  # not YAML, or over a bound (depth, aliases, merges)
        reason = exc.reason
        if reason.startswith("invalid YAML: "):
            reason = "not valid YAML: " + reason.removeprefix("invalid YAML: ")
        return YamlFile({}, {}, (exc.line or 1, reason))
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
