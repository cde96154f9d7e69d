"""What reading one api-ref tree shares across its files: name resolution, the parameter,
status and example files already read, the warnings, and every microversion that bounds
something (for `info.version`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref import lenient_json
from needs_microversion.loaders.apiref.include import Selection, select
from needs_microversion.loaders.apiref.parameters_yaml import YamlFile, load_yaml
from needs_microversion.loaders.apiref.tree import Tree
from needs_microversion.model.versions import Version, VersionRange, parse_version


# What the first read of a parameters/status file does, whichever file reads it first:
# (found, bytes, why it could not be read, duplicate keys (line, key), empty).
YamlSummary = tuple[bool, int, str | None, tuple[tuple[int, Any], ...], bool]
# ... and of an example: (a JSON file, bytes, why it could not be read, why the selection
# shows nothing, why it is not JSON, the maxima a version-discovery sample lists).
ExampleSummary = tuple[bool, int, str | None, str | None, str | None, tuple[Version, ...]]


@dataclass
class TreeContext:
    """What reading one tree shares across files: resolution, caches, warnings, versions.

    What a file's reading does to it is logged when `log` is a list (`kept_files` keeps
    it, and replays it for a file read before): warnings, unread rows and the parameter,
    status and example files it reads. Files read first give the warnings of a first read:
    on replay they are given where that replay is the first."""

    tree: Tree
    warnings: list[str] = field(default_factory=list)
    # every version that bounds something: structured ones, notes, availability sentences
    versions: list[Version] = field(default_factory=list)
    said: set[str] = field(default_factory=set)  # warnings already given once
    outside: list[str] = field(default_factory=list)  # example names outside the sandbox
    # what version-discovery samples list as the microversions each API version reaches
    advertised: list[Version] = field(default_factory=list)
    # file -> names of the rows its tables list that no definition exists for
    unread: dict[str, set[str]] = field(default_factory=dict)
    log: list[tuple[Any, ...]] | None = None
    # content read (no effect), and the files whose first read has had its effects
    yaml_files: dict[Path, tuple[YamlFile | None, YamlSummary]] = field(default_factory=dict)
    examples: dict[tuple[Path, Selection], tuple[object, ExampleSummary]] = field(
        default_factory=dict)
    first_done: set[object] = field(default_factory=set)

    def warn(self, where: str, message: str) -> None:
        if self.log is not None:
            self.log.append(("w", where, message))
        self.warnings.append(f"{where}: {message}")

    def warn_once(self, where: str, message: str) -> None:
        if self.log is not None:
            self.log.append(("o", where, message))
        if message not in self.said:
            self.said.add(message)
            self.warnings.append(f"{where}: {message}")

    def row_unread(self, file: str, name: str) -> None:
        if self.log is not None:
            self.log.append(("u", file, name))
        self.unread.setdefault(file, set()).add(name)

    def version(self, value: object, where: str, what: str) -> Version | None:
        if value is None:
            return None
        parsed = parse_version(value)
        if parsed is None:
            self.warn_once(where, f"{what} {value!r} is not a microversion (X.Y); ignored")
            return None
        # A last version implies the next: the element ends because the API went on.
        self.versions.append(parsed.next() if what == "max_version" else parsed)
        return parsed

    def bounds(self, fields: Mapping[str, object], where: str) -> VersionRange:
        """The min_version/max_version of a definition or rest_method."""
        found = VersionRange(self.version(fields.get("min_version"), where, "min_version"),
                             self.version(fields.get("max_version"), where, "max_version"))
        if found.empty:
            self.warn_once(where, f"min_version {found.lo} is above max_version {found.hi}: "
                                  f"visible at no microversion")
        return found

    def saw(self, versions: VersionRange) -> None:
        """A range written somewhere: its start and, past its end, the next version."""
        self.versions.extend(versions.bounds())

    # -- files a table or an example names -------------------------------------------------
    def yaml_file(self, path: Path, where: str, what: str) -> YamlFile | None:
        result, summary = self.yaml_content(path)
        if self.log is not None:
            self.log.append(("y", path, where, what, summary))
        self.first_yaml(path, where, what, summary)
        if result is not None and result.error is not None:
            # Every table naming it would lose its rows: the diff would invent removals.
            line, message = result.error
            raise InputError(f"{what}: {message}", self.tree.rel(path), line)
        if result is not None and self.log is not None:  # which definitions the file reads
            seen = _Consulted(result, self.log, path)
            result = YamlFile(seen, seen.lines, result.error, result.duplicates)
        return result

    def yaml_content(self, path: Path, previous: str | None = None
                     ) -> tuple[YamlFile | None, YamlSummary]:
        """A parameters or status file's content and what its first read says; no effect.
        `previous`: the digest of the file as an earlier reading read it (`load_yaml`)."""
        if path not in self.yaml_files:
            self.yaml_files[path] = _read_yaml(self.tree, path, previous)
        return self.yaml_files[path]

    def first_yaml(self, path: Path, where: str, what: str, summary: YamlSummary) -> None:
        """What the first read of a parameters or status file says (once per tree)."""
        if ("y", path) in self.first_done:
            return
        self.first_done.add(("y", path))
        found, size, problem, duplicates, empty = summary
        rel = self.tree.rel(path)
        self.tree.account(rel, where, size, problem)
        if not found:
            self.warnings.append(f"{where}: {what} '{rel}' not found")
        for line, key in duplicates:  # Sphinx keeps the last: so do we, and say it
            self.warnings.append(f"{rel}:{line}: duplicate key {key!r}: the last one is "
                                 f"read, as Sphinx reads it")
        if empty:
            self.warnings.append(f"{where}: {what} '{rel}' is empty")

    def example(self, path: Path, where: str, selection: Selection | None = None) -> object:
        """The JSON a literalinclude shows (None when it is not JSON), read once per file
        and selection."""
        selection = selection or Selection()
        key = (path, selection)
        if key not in self.examples:
            self.examples[key] = _read_example(self.tree, path, selection)
        data, summary = self.examples[key]
        if self.log is not None:
            self.log.append(("e", path, where, selection, summary))
        self.first_example(path, where, selection, summary)
        return data

    def first_example(self, path: Path, where: str, selection: Selection,
                      summary: ExampleSummary) -> None:
        if ("e", path, selection) in self.first_done:
            return
        self.first_done.add(("e", path, selection))
        _, size, problem, unselected, not_json, advertised = summary
        rel = self.tree.rel(path)
        self.tree.account(rel, where, size, problem)
        if unselected is not None:
            self.warnings.append(f"{where}: example '{rel}': {unselected}; not used for "
                                 f"nesting")
        if not_json is not None:
            self.warnings.append(f"{where}: example '{rel}' is not JSON ({not_json}); not "
                                 f"used for nesting")
        self.advertised.extend(advertised)


class _Consulted(Mapping[Any, Any]):
    """A parameters file's entries as a file's reading sees them, logging each key it looks
    up (`("k", path, key)`); going through them all logs `("k*", path)`: the reading then
    depends on the whole file."""

    def __init__(self, content: YamlFile, log: list[tuple[Any, ...]], path: Path,
                 data: Mapping[Any, Any] | None = None) -> None:
        self.content, self.log, self.path = content, log, path
        self.data = content.entries if data is None else data

    @property
    def lines(self) -> _Consulted:
        return _Consulted(self.content, self.log, self.path, self.content.lines)

    def __getitem__(self, key: Any) -> Any:
        self.log.append(("k", self.path, key))
        return self.data[key]

    def __contains__(self, key: object) -> bool:
        self.log.append(("k", self.path, key))
        return key in self.data

    def __iter__(self) -> Iterator[Any]:
        self.log.append(("k*", self.path))
        return iter(self.data)

    def __len__(self) -> int:
        self.log.append(("k*", self.path))
        return len(self.data)


def _read_yaml(tree: Tree, path: Path, previous: str | None = None
               ) -> tuple[YamlFile | None, YamlSummary]:
    """A parameters or status file's content and what its first read says; no effect."""
    if not tree.fs.is_file(path):
        return None, (False, 0, None, (), False)
    raw, problem = tree.read_bytes(path)
    if raw is None:
        return None, (True, 0, problem, (), False)
    result = load_yaml(raw.decode("utf-8", errors="replace"), previous)
    empty = result.error is None and not result.entries
    return result, (True, len(raw), None, result.duplicates if result.error is None else (),
                    empty)


def _read_example(tree: Tree, path: Path, selection: Selection
                  ) -> tuple[object, ExampleSummary]:
    """An example's JSON and what its first read says; no effect. Samples are
    hand-written: read through their slips, as a reader does."""
    if path.suffix != ".json" or not tree.fs.is_file(path):
        return None, (False, 0, None, None, None, ())
    raw, problem = tree.read_bytes(path)
    if raw is None:
        return None, (True, 0, problem, None, None, ())
    text: str | None = raw.decode("utf-8", errors="replace")
    unselected = None
    if text is not None and not selection.whole:
        selected = select(text, selection)
        text, unselected = selected.text, (selected.problem if selected.text is None
                                           else None)
    data: object = None
    not_json = None
    if text is not None and text.strip():
        try:
            data = lenient_json.loads(text)
        except ValueError as exc:
            not_json = str(exc)
    return data, (True, len(raw), None, unselected, not_json,
                  tuple(discovered_versions(data)))


def discovered_versions(data: object) -> list[Version]:
    """The maxima a version-discovery document lists: `{"versions": [{"id": "v3.0",
    "status": "CURRENT", "version": "3.70", "min_version": "3.0"}, ...]}`, or one such
    entry under `"version"` (placement writes `max_version`; the entry of an API version
    without microversions lists "")."""
    if not isinstance(data, dict):
        return []
    entries = data.get("versions")
    entries = entries if isinstance(entries, list) else [data.get("version")]
    found = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and \
                isinstance(entry.get("status"), str) and "min_version" in entry:
            version = parse_version(entry.get("version") or entry.get("max_version"))
            if version is not None:
                found.append(version)
    return found
