"""What reading one api-ref tree shares across its files: name resolution, the parameter,
status and example files already read, the warnings, and every microversion that bounds
something (for `info.version`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref import lenient_json
from needs_microversion.loaders.apiref.include import Selection, select
from needs_microversion.loaders.apiref.parameters_yaml import YamlFile, load_yaml
from needs_microversion.loaders.apiref.tree import Tree
from needs_microversion.model.versions import Version, VersionRange, parse_version


@dataclass
class TreeContext:
    """What reading one tree shares across files: resolution, caches, warnings, versions."""

    tree: Tree
    warnings: list[str] = field(default_factory=list)
    # every version that bounds something: structured ones, notes, availability sentences
    versions: list[Version] = field(default_factory=list)
    yaml_files: dict[Path, YamlFile | None] = field(default_factory=dict)
    examples: dict[tuple[Path, Selection], object] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)  # warnings already given once
    outside: list[str] = field(default_factory=list)  # example names outside the sandbox
    # what version-discovery samples list as the microversions each API version reaches
    advertised: list[Version] = field(default_factory=list)
    # file -> names of the rows its tables list that no definition exists for
    unread: dict[str, set[str]] = field(default_factory=dict)

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{where}: {message}")

    def warn_once(self, where: str, message: str) -> None:
        if message not in self.said:
            self.said.add(message)
            self.warn(where, message)

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

    def yaml_file(self, path: Path, where: str, what: str) -> YamlFile | None:
        if path in self.yaml_files:
            return self.yaml_files[path]
        result: YamlFile | None = None
        found = self.tree.fs.is_file(path)
        text = self.tree.read_text(path, where) if found else None
        if not found:
            self.warn(where, f"{what} '{self.tree.rel(path)}' not found")
        elif text is not None:
            result = load_yaml(text)
            if result.error is not None:
                # Every table naming it would lose its rows: the diff would invent removals.
                line, message = result.error
                raise InputError(f"{what}: {message}", self.tree.rel(path), line)
            for line, key in result.duplicates:  # Sphinx keeps the last: so do we, and say it
                self.warn(f"{self.tree.rel(path)}:{line}",
                          f"duplicate key {key!r}: the last one is read, as Sphinx reads it")
            if not result.entries:
                self.warn(where, f"{what} '{self.tree.rel(path)}' is empty")
        self.yaml_files[path] = result
        return result

    def example(self, path: Path, where: str, selection: Selection | None = None) -> object:
        """The JSON a literalinclude shows (None when it is not JSON), read once per file
        and selection."""
        selection = selection or Selection()
        key = (path, selection)
        if key not in self.examples:
            data: object = None
            text = self.tree.read_text(path, where) if path.suffix == ".json" and \
                self.tree.fs.is_file(path) else None
            if text is not None and not selection.whole:
                selected = select(text, selection)
                if selected.text is None:
                    self.warn(where, f"example '{self.tree.rel(path)}': {selected.problem}; "
                                     f"not used for nesting")
                text = selected.text
            if text is not None and text.strip():
                try:  # samples are hand-written: read through their slips, as a reader does
                    data = lenient_json.loads(text)
                except ValueError as exc:
                    self.warn(where, f"example '{self.tree.rel(path)}' is not JSON "
                                     f"({exc}); not used for nesting")
            self.advertised.extend(discovered_versions(data))
            self.examples[key] = data
        return self.examples[key]


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
