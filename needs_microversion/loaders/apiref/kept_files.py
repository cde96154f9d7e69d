"""One api-ref file's reading, kept by what it read: a change that edits one `.inc`, or the
samples one file shows, reads that file again and replays the others (the hook compares
each commit of a branch with one base; nova's tree is 68 files).

    sections = read_file(file, ctx, kept)     # replayed when kept and valid, else read
    kept.keep()                               # once the whole tree is read

A file's record holds its sections and what its reading did to the tree's shared state, in
order: the warnings it gave (`warn_once` replayed as such: said once per tree), the names
it resolved (replayed: a name outside the tree is said again), the parameter, status and
example files it read with what their first read says (given on replay only where that
replay is the tree's first read of the file), unread rows, versions and outside names.
It is valid while the file's text, its base folder and the tree's folders are the same
(its key), every name it resolved still resolves to the same file, and every file it read
has the same content, or, for a parameters or status file, the definitions it looked up
are the same (an edit of one definition in nova's parameters.yaml reads only the files
that use it again). Where a record writes a definition's line (a row's location, a
warning's place) the line is a mark, said as it is now: a definition added above the
others moves them and changes no record; a record that names such a line anywhere else
holds only while the lines are the same. All is checked before anything is replayed. The
result is the same as a fresh reading, byte for byte (tests/loaders/apiref/
test_kept_files.py; nova's last 60 api-ref changes, each new tree replayed from its base's
records against a fresh reading).

A record is JSON the tool wrote; one it cannot read is a miss. Paths are kept relative to
the tree's sandbox, so a git revision's tree (`/needs-microversion-<commit>`) finds the
record another commit's reading kept.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from needs_microversion import forked
from needs_microversion.documents.parsed import ParsedCache
from needs_microversion.loaders.apiref.context import TreeContext
from needs_microversion.loaders.apiref.include import Selection
from needs_microversion.loaders.apiref.kept_operations import KeptOperations
from needs_microversion.loaders.apiref.line_marks import LineMarks, exact, unmarked
from needs_microversion.loaders.apiref.records import Code, Example, Row, Section, Table
from needs_microversion.loaders.apiref.sections import read_sections
from needs_microversion.loaders.apiref.tree import SourceFile, Tree
from needs_microversion.model.versions import Version, VersionRange

# Every file of a few trees (nova: 68 per tree; a base and its branch's commits).
_KEEP = 2048
_SELECTION = ("lines", "start_at", "start_after", "end_at", "end_before")


class KeptFiles:
    """The records of one tree's reading: found per file, kept once the tree is read."""

    def __init__(self, tree: Tree, write: bool = True) -> None:
        self.tree = tree
        self.write = write  # False: replay what is kept, keep nothing new
        self.cache = ParsedCache("apiref-files", keep=_KEEP)
        self.operations = KeptOperations(_KEEP)
        # what was read here, to keep: (key, sections, log, versions, outside names)
        self.pending: list[tuple[str, list[Section], list[tuple[Any, ...]], list[Version],
                                 list[str]]] = []
        self.digests: dict[Path, str] = {}
        self.yaml_files: dict[Path, tuple[Any, Any]] = {}
        # Thousands of names per tree: pathlib's work done once per name.
        self._rels: dict[Path | None, str | None] = {None: None}
        self._paths: dict[str, Path] = {}
        self._prefix = str(tree.sandbox).rstrip("/") + "/"

    def rel(self, path: Path | None) -> str | None:
        """A path inside the tree's sandbox, as kept (None: none, or outside)."""
        if path not in self._rels:
            text = str(path)
            self._rels[path] = "" if path == self.tree.sandbox else \
                text[len(self._prefix):] if text.startswith(self._prefix) else None
        return self._rels[path]

    def path(self, rel: str) -> Path:
        """A kept path inside the sandbox, as read here."""
        found = self._paths.get(rel)
        if found is None:
            if not isinstance(rel, str) or rel.startswith("/") or ".." in rel.split("/"):
                raise ValueError(f"not a path inside the tree: {rel!r}")
            found = self.tree.fs.resolve(self.tree.sandbox / rel) if rel else self.tree.sandbox
            if not found.is_relative_to(self.tree.sandbox):  # a link out of the tree
                raise ValueError(f"not a path inside the tree: {rel!r}")
            self._paths[rel] = found
        return found

    @property
    def on(self) -> bool:
        return self.cache.on

    def key(self, file: SourceFile) -> str | None:
        places = [self.rel(p) for p in (file.base, self.tree.source, self.tree.srcdir)]
        if None in places:
            return None
        return self.cache.key("api-ref-file", [
            ("rel", file.rel), ("base", places[0] or ""), ("source", places[1] or ""),
            ("srcdir", places[2] or ""),
            ("text", hashlib.sha256(file.text.encode("utf-8", "surrogatepass")).hexdigest())])

    def digest(self, path: Path) -> str:
        """What a file read holds now: its content's digest, or why there is none."""
        found = self.digests.get(path)
        if found is None:
            if not self.tree.fs.is_file(path):
                found = "-"
            else:
                raw, problem = self.tree.read_bytes(path)
                found = f"!{problem}" if raw is None else hashlib.sha256(raw).hexdigest()
            self.digests[path] = found
        return found

    def keep(self) -> None:
        """Keep the records of the files read here: by a child, while this process goes on
        (writing nova's 68 records is ~30 ms), else here."""
        pending, self.pending = self.pending, []
        if pending and not forked.aside(partial(self._write, pending)):
            self._write(pending)

    def _write(self, pending: list[tuple[str, list[Section], list[tuple[Any, ...]],
                                         list[Version], list[str]]]) -> None:
        for key, *reading in pending:
            try:  # best effort, like every cache write: a record not kept is a miss later
                found = _record(self, *reading)  # type: ignore[arg-type]
            except (KeyError, TypeError, ValueError, RecursionError):
                continue
            if found is not None:
                self.cache.put_text(key, found[0], found[1])
                # what was built from its sections, kept by this very record
                self.operations.write(key, record_id(key, found[0], found[1]), found[2])


def read_file(file: SourceFile, ctx: TreeContext, kept: KeptFiles | None) -> list[Section]:
    """The file's sections: replayed from its record when it is kept and still valid, else
    read (and its record made, to keep once the whole tree is read)."""
    key = kept.key(file) if kept is not None and kept.on else None
    if key is None or kept is None:
        return read_sections(file, ctx)
    found = kept.cache.get_text(key)
    replayed = _replayed(*found, ctx, kept) if found is not None else None
    if found is not None and replayed is not None:
        kept.operations.note(record_id(key, *found), replayed[0], replayed[1])
        return replayed[0]
    if not kept.write:
        return read_sections(file, ctx)
    log: list[tuple[Any, ...]] = []
    kept.yaml_files = ctx.yaml_files  # what the definitions a file looked up were
    ctx.log = ctx.tree.log = log
    versions, outside = len(ctx.versions), len(ctx.outside)
    try:
        sections = read_sections(file, ctx)
    finally:
        ctx.log = ctx.tree.log = None
    kept.pending.append((key, sections, log, ctx.versions[versions:], ctx.outside[outside:]))
    kept.operations.note(key, sections, None)
    return sections


def record_id(key: str, head: Any, text: str) -> str:
    """One record as written (several readings share a key, and processes write it in
    turn): what is kept beside it is kept by this."""
    marks = json.dumps(head.get("marks") if isinstance(head, dict) else None)
    return hashlib.sha256(f"{key}\0{marks}\0{text}".encode("utf-8", "surrogatepass")
                          ).hexdigest()


# -- a record ----------------------------------------------------------------------------------

def _record(kept: KeptFiles, sections: list[Section], log: list[tuple[Any, ...]],
            versions: list[Version], outside: list[str]
            ) -> tuple[Any, str, LineMarks] | None:
    """The file's reading as kept: the files it read by content (the head, checked first),
    then the rest; None when some value has no exact JSON form (it is then read again
    each time)."""
    tree = kept.tree
    events: list[list[Any]] = []
    # rel -> [digest, the definitions looked up: {key: [present, value, line]}, or None
    # (examples; a parameters file gone through whole)]
    inputs: dict[str, list[Any]] = {}
    for event in log:
        kind = event[0]
        if kind in ("w", "o", "u"):
            events.append(list(event))
        elif kind == "k":
            _, path, key = event
            consulted = inputs[kept.rel(path) or ""][1]
            if consulted is not None and key not in consulted:
                content = kept.yaml_files[path][0]
                consulted[key] = [key in content.entries, content.entries.get(key),
                                  content.lines.get(key)]
        elif kind == "k*":
            inputs[kept.rel(event[1]) or ""][1] = None
        elif kind == "r":
            _, name, base, where, quiet = event
            events.append(["r", name, kept.rel(base), where, quiet,
                           kept.rel(tree.locate(name, base))])
        elif kind == "y":
            _, path, where, what, (found, size, problem, duplicates, empty) = event
            inputs.setdefault(kept.rel(path) or "", [kept.digest(path), {}])
            events.append(["y", kept.rel(path), where, what,
                           [found, size, problem, [list(d) for d in duplicates], empty]])
        else:
            _, path, where, selection, (is_json, size, problem, unselected, not_json,
                                        advertised) = event
            inputs[kept.rel(path) or ""] = [kept.digest(path), None]
            events.append(["e", kept.rel(path), where,
                           [getattr(selection, name) for name in _SELECTION],
                           [is_json, size, problem, unselected, not_json,
                            [list(v) for v in advertised]]])
    fields: dict[str, list[int]] = {}
    tables: list[Any] = []
    mark = LineMarks(inputs, lambda rel: kept.tree.rel(kept.path(rel)))
    for written in events:
        if written[0] in ("w", "o"):
            written[1] = mark(written[1])
    record = {"events": events, "versions": [list(v) for v in versions], "outside": outside,
              "sections": [_section(s, fields, tables, mark) for s in sections],
              "fields": tables}
    # What YAML gave (definitions, duplicate keys) must come back from JSON as it was;
    # examples were JSON already (NaN, which JSON writes but no reader takes, is refused
    # by `allow_nan`).
    head: dict[str, Any] = {"inputs": [[rel, digest, None if consulted is None else
                                    [[key, *found] for key, found in consulted.items()]]
                                   for rel, (digest, consulted) in sorted(inputs.items())],
                        "marks": mark.marks}
    if not all(type(t) is dict and exact(t) for t in tables) or not all(
            exact(key) for event in events if event[0] == "y" for _, key in event[4][3]) \
            or not exact(head):
        return None
    try:
        text = json.dumps(record, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    # Lines written anywhere else (a definition's text naming one): the lines must match.
    head["moves"] = not mark.elsewhere(text)
    return head, text, mark


def _vr(versions: VersionRange) -> list[Any]:
    return [None if versions.lo is None else list(versions.lo),
            None if versions.hi is None else list(versions.hi)]


def _section(s: Section, fields: dict[str, list[int]], tables: list[Any], mark: LineMarks
             ) -> list[Any]:
    def field_index(row: Row) -> int:
        # Rows of one definition (nova: 2,200 rows, 1,100 definitions) share its fields:
        # written once.
        known = fields.setdefault(row.definition, [])
        for at in known:
            if tables[at] == row.fields:
                return at
        known.append(len(tables))
        tables.append(row.fields)
        return known[-1]

    return [s.method, s.url, s.title, s.location, _vr(s.versions), s.inferred_versions,
            s.deprecated,
            [[t.kind, _vr(t.versions), t.ranged, t.title, t.first,
              [[r.name, r.where, field_index(r), mark(r.location), mark(r.definition),
                _vr(r.versions), r.inferred_versions] for r in t.rows], t.location]
             for t in s.tables],
            [[c.status, _vr(c.versions), c.description, c.location] for c in s.codes],
            [[e.kind, e.data] for e in s.examples],
            s.action_hint, s.description, s.asides, sorted(s.example_bodies)]


# -- replay ------------------------------------------------------------------------------------

def _replayed(inputs: Any, text: str, ctx: TreeContext, kept: KeptFiles
              ) -> tuple[list[Section], list[str]] | None:
    """The file's sections and its marks as now, its effects replayed on `ctx`; None
    (nothing replayed) when the record is not valid here or not one this tool wrote."""
    replay: list[Callable[[], object]] = []
    try:
        found = _current(inputs, ctx, kept)
        if found is None:
            return None  # a file it read holds something else now
        current, lines = found
        record = json.loads(text)
        for event in record["events"]:
            if event[0] in ("w", "o"):
                event[1] = unmarked(event[1], lines)
            effect = _effect(ctx, kept, event, current)
            if effect is None:
                return None  # a name now finds another file (or none)
            replay.append(effect)
        sections = [_decode_section(s, record["fields"], lines) for s in record["sections"]]
        versions = [Version(int(major), int(minor)) for major, minor in record["versions"]]
        outside = [str(where) for where in record["outside"]]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    for effect in replay:  # all checked above: what follows only replays
        effect()
    ctx.versions.extend(versions)
    ctx.outside.extend(outside)
    return sections, lines


def _current(head: Any, ctx: TreeContext, kept: KeptFiles
             ) -> tuple[dict[str, Any], list[str]] | None:
    """Whether every file the record read still says the same to it: the same content, or,
    for a parameters file, the same definitions (at the same lines, unless the record marks
    where it writes them: `moves`). What the first read of such a changed file says now,
    by name, and each marked line as it is now; None when the record does not hold."""
    current: dict[str, Any] = {}
    moves = head["moves"] is True
    lines: dict[tuple[str, Any], Any] = {}
    for rel, digest, consulted in head["inputs"]:
        path = kept.path(rel)
        if kept.digest(path) == digest:
            lines.update(((rel, key), line) for key, _, _, line in consulted or ())
            continue
        if consulted is None:
            return None
        content, summary = ctx.yaml_content(  # most of its entries read as they were then
            path, previous=digest if isinstance(digest, str) else None)
        if content is None or content.error is not None:
            return None
        entries, now = content.entries, content.lines
        for key, present, value, line in consulted:
            if (key in entries) != present or entries.get(key) != value or \
                    (not moves and now.get(key) != line):
                return None
            lines[rel, key] = now.get(key)
        current[rel] = summary
    return current, [f"{shown}:{lines[rel, key]}" for rel, key, shown in head["marks"]]


def _effect(ctx: TreeContext, kept: KeptFiles, event: list[Any], current: dict[str, Any]
            ) -> Callable[[], object] | None:
    """One logged effect, ready to replay; None when a name it resolved now finds another
    file. A parameters file that changed says what its first read says now (`current`).
    Raises for anything this tool did not write."""
    tree = ctx.tree
    kind, *rest = event
    if kind in ("w", "o", "u"):
        first, second = (str(item) for item in rest)
        do = {"w": ctx.warn, "o": ctx.warn_once, "u": ctx.row_unread}[kind]
        return partial(do, first, second)
    if kind == "r":
        name, base, where, quiet, found = rest
        base_path = kept.path(base)
        if kept.rel(tree.locate(name, base_path)) != found:
            return None
        return partial(tree.resolve, str(name), base_path, str(where), quiet=bool(quiet))
    path, where, what_or_selection, summary = rest
    if kind == "y":
        if _s(path) in current:
            return partial(ctx.first_yaml, kept.path(path), str(where), str(what_or_selection),
                           current[path])
        found, size, problem, duplicates, empty = summary
        return partial(ctx.first_yaml, kept.path(path), str(where), str(what_or_selection),
                       (bool(found), int(size), _s_none(problem),
                        tuple((int(line), key) for line, key in duplicates), bool(empty)))
    if kind == "e":
        is_json, size, problem, unselected, not_json, advertised = summary
        problem, unselected, not_json = map(_s_none, (problem, unselected, not_json))
        return partial(ctx.first_example, kept.path(path), str(where),
                       Selection(*(_s_none(item) for item in what_or_selection)),
                       (bool(is_json), int(size), problem, unselected, not_json,
                        tuple(Version(int(major), int(minor)) for major, minor in advertised)))
    raise ValueError(f"no effect {kind!r}")


def _range(data: list[Any]) -> VersionRange:
    lo, hi = data
    return VersionRange(None if lo is None else Version(int(lo[0]), int(lo[1])),
                        None if hi is None else Version(int(hi[0]), int(hi[1])))


# A record is data someone else may have written (a CI cache restored): every value is
# checked for the type the reader would have given it, so nothing odd reaches the writer.
def _s(value: Any) -> str:
    if type(value) is not str:
        raise ValueError("not a string")
    return value


def _s_none(value: Any) -> str | None:
    return None if value is None else _s(value)


def _b(value: Any) -> bool:
    if type(value) is not bool:
        raise ValueError("not a boolean")
    return value


def _decode_section(data: list[Any], fields: list[Any], lines: list[str]) -> Section:
    (method, url, title, location, versions, inferred, deprecated, tables, codes, examples,
     action_hint, description, asides, bodies) = data
    if not all(type(f) is dict for f in fields):
        raise ValueError("a definition that is not a mapping")
    return Section(
        method=_s(method), url=_s(url), title=_s(title), location=_s(location),
        versions=_range(versions), inferred_versions=_b(inferred), deprecated=_b(deprecated),
        tables=tuple(Table(_s(kind), _range(v), _b(ranged), _s(t_title), _b(first), tuple(
            Row(_s(name), _s(where), fields[at], _s(unmarked(r_location, lines)),
                _s(unmarked(definition, lines)), _range(r_versions), _b(r_inferred))
            for name, where, at, r_location, definition, r_versions, r_inferred in rows),
            _s(t_location)) for kind, v, ranged, t_title, first, rows, t_location in tables),
        codes=tuple(Code(int(status), _range(v), _s(text), _s(c_location))
                    for status, v, text, c_location in codes),
        examples=tuple(Example(_s_none(kind), body) for kind, body in examples),
        action_hint=_s_none(action_hint), description=_s(description), asides=_s(asides),
        example_bodies=frozenset(_s(body) for body in bodies))
