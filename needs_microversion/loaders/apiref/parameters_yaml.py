"""parameters.yaml and status files, loaded the way os-api-ref loads them.

os-api-ref turns YAML floats into strings so `min_version: 2.10` stays "2.10" (a plain
`safe_load` gives 2.1); we do the same, keep merge keys (`<<: *anchor`, explicit keys win),
and remember the line of every top-level key for file:line locations.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from needs_microversion.documents.parsed import ParsedCache, content_digest
from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref.yaml_entries import Entry, split_entries, to_parse

if TYPE_CHECKING:  # PyYAML is imported when a file is parsed, not when it was kept
    import yaml


@cache
def _loader() -> type:
    """The documents' loader (bounded in depth, aliases and merges) that keeps floats as
    their source text and lets a key be written twice (Sphinx reads the last one)."""
    import yaml

    from needs_microversion.documents.yaml_reading import YamlLoader

    class TextFloatLoader(YamlLoader):
        unique_keys = False
        yaml_constructors = {
            **YamlLoader.yaml_constructors,
            "tag:yaml.org,2002:float": yaml.constructor.SafeConstructor.construct_yaml_str,
        }

    return TextFloatLoader


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
def load_yaml(text: str, previous: str | None = None) -> YamlFile:
    """Parse once per distinct content (old and new trees often share parameters.yaml),
    and keep it in the cache: a change that edits one `.inc` reads nova's parameters.yaml
    (0.2 MiB, ~35 ms to parse, ~15 ms to import PyYAML) as JSON. `previous`: the content
    digest of an earlier version of the same file (the one a kept reading read): where an
    entry's text is the same, its reading is taken from that version's (`yaml_entries`)."""
    cache = ParsedCache("apiref-yaml")
    key = _key(cache, content_digest(text.encode("utf-8", "surrogatepass"))) \
        if cache.on else None
    found = _decoded(cache.get(key)) if key is not None else None
    if found is not None:
        return found
    entries = split_entries(text) if key is not None else None  # only a kept reading uses them
    result = None
    if entries is not None and previous is not None:
        result = _reparsed(entries, cache.get(_key(cache, previous)))
    if result is None:
        result = _parse(text)
    if key is not None:
        _keep(cache, key, result, entries)
    return result


def _key(cache: ParsedCache, digest: str) -> str:
    return cache.key("parameters-yaml", [("text", digest)])


def _keep(cache: ParsedCache, key: str, result: YamlFile, entries: list[Entry] | None) -> None:
    record: dict[str, Any] = {
        "entries": [[k, v] for k, v in result.entries.items()],
        "lines": [[k, n] for k, n in result.lines.items()],
        "error": None if result.error is None else list(result.error),
        "duplicates": [list(d) for d in result.duplicates]}
    if entries is not None and result.error is None and not result.duplicates and \
            [entry.line for entry in entries] == list(result.lines.values()):
        # One key where each entry's text starts: its digest beside its key, what a later
        # version takes as it is.
        record["chunks"] = [[entry.digest, k]
                            for entry, k in zip(entries, result.lines, strict=True)]
    try:  # exact only if it comes back equal (a date, a key that is no string in a
        # value: not kept)
        exact = json.loads(json.dumps(record, allow_nan=False)) == record
    except (TypeError, ValueError, RecursionError):
        exact = False
    if exact:
        cache.put(key, record)


def _reparsed(entries: list[Entry], kept: Any) -> YamlFile | None:
    """The file's reading from an earlier version's kept one (`kept`) where an entry's text
    is the same, the other entries parsed together; None when that earlier reading is not
    kept (or not one this tool wrote), or the result would not be what a parse of the whole
    file gives (a key written twice, an entry that is not one key on its own)."""
    try:
        known = {str(digest): key for digest, key in kept["chunks"]}
        values = {key: value for key, value in kept["entries"]}
    except (TypeError, KeyError, ValueError):
        return None
    chosen = to_parse(entries, known)
    parsed: dict[int, tuple[Any, Any]] = {}  # line -> (key, value)
    if chosen:
        part = _parse("".join(entry.text for entry in chosen))
        starts, line = [], 1
        for entry in chosen:
            starts.append(line)
            line += entry.text.count("\n")
        if part.error is not None or part.duplicates or starts != list(part.lines.values()):
            return None
        parsed = {entry.line: item for entry, item in zip(chosen, part.entries.items(),
                                                          strict=True)}
    found: dict[Any, Any] = {}
    lines: dict[Any, int] = {}
    try:
        for entry in entries:
            if entry.line in parsed:
                key, value = parsed[entry.line]
            else:
                key = known[entry.digest]
                if key not in values:
                    return None
                value = values[key]
            if key in found:
                return None  # written twice: the whole file's parse says where
            found[key], lines[key] = value, entry.line
    except TypeError:  # a key no reading of YAML gives (a list): not written by this tool
        return None
    return YamlFile(found, lines, None)


def _decoded(data: Any) -> YamlFile | None:
    """A kept reading back; None for anything this tool did not write."""
    try:
        error = data["error"]
        return YamlFile(dict(data["entries"]), dict(data["lines"]),
                        None if error is None else (int(error[0]), str(error[1])),
                        tuple((int(line), key) for line, key in data["duplicates"]))
    except (TypeError, KeyError, ValueError, IndexError):
        return None


def _parse(text: str) -> YamlFile:
    import yaml

    from needs_microversion.documents.yaml_reading import parse_yaml

    try:
        data, node = parse_yaml(text.encode("utf-8", errors="replace"), text, "", _loader())
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
